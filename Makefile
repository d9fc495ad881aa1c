# SPDX-License-Identifier: GPL-2.0
# KTAU for Linux 6.12: the two commands and the steps behind them.
# Every target installs what it needs first (scripts/deps.sh) and skips
# what is already done; everything built goes under build/.

S := scripts
SHELL := /bin/bash

.PHONY: help run check debug-check kcsan-check bench shell deps source config kernel initramfs \
	harness-test series-check tree export clean

help:
	@echo "make run           build, boot under QEMU, run the demo, print what it saw;"
	@echo "                   leave its traces, profiles and flame graphs in build/run/"
	@echo "make check         the full test run; ends in 'N passed, N failed'"
	@echo "                   (SERIES_UPTO=S4: on the series up to sub-series S4)"
	@echo "make debug-check   the guest runs of make check on the debug kernel"
	@echo "                   (kernel-config/debug.config: lockdep, KASAN, UBSAN,"
	@echo "                   kmemleak...); any kernel report fails the run"
	@echo "make kcsan-check   the same on the KCSAN kernel (kernel-config/kcsan.config:"
	@echo "                   the debug kernel with KCSAN instead of KASAN and kmemleak)"
	@echo "make bench         time ktp beside upstream under -icount, twice; write"
	@echo "                   Documentation/benchmarks.md and .json"
	@echo "make shell         boot with an interactive busybox shell"
	@echo "make series-check  build the kernel, tools and selftests after each patch"
	@echo "                   (SUBSERIES=1: after each sub-series; FROM=N: from patch N)"
	@echo "                   in turn (bisectability)"
	@echo "make tree          git working tree of the series under build/tree"
	@echo "make export        regenerate patches/ and series from build/tree"
	@echo "make deps|source|config|kernel|initramfs   the single steps"
	@echo "make harness-test  prove the harness catches failures and hangs"
	@echo "make clean         remove build/"

deps:
	@$(S)/deps.sh

source: deps
	@$(S)/source.sh

config: source
	@$(S)/config.sh

kernel: config
	@$(S)/build.sh

initramfs: kernel
	@$(S)/initramfs.sh

run: initramfs
	@$(S)/boot.sh run
	@$(S)/run-files.sh

bench:
	@$(S)/bench.sh

shell: initramfs
	@$(S)/boot.sh shell

check:
	@$(S)/check.sh

debug-check:
	@VARIANT=debug $(S)/check.sh --no-static --no-harness

kcsan-check:
	@VARIANT=kcsan $(S)/check.sh --no-static --no-harness

harness-test: initramfs
	@rm -f build/logs/harness.results
	@$(S)/harness-test.sh build/logs/harness.results
	@$(S)/summary.sh build/logs/harness.results

series-check: deps
	@$(S)/series-check.sh $(if $(BOOT),--boot) $(if $(SUBSERIES),--sub-series) $(if $(FROM),--from $(FROM))

tree: deps
	@$(S)/tree.sh tree $(if $(FORCE),--force)

export:
	@$(S)/tree.sh export

clean:
	rm -rf build
