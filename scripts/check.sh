#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The whole test run behind `make check`: dependencies, source and series,
# static checks of the series, configuration, build, initramfs, the guest
# run (KUnit at boot, selftests in the guest) beside the stress boot (4
# CPUs: the stress test and the fuzzer), then, while the stress boot goes
# on, the checks of the build (W=1, sparse, htmldocs, the build variants)
# and the tests of the harness, and one closing line "N passed, N failed". With VARIANT=debug (make debug-check)
# or VARIANT=kcsan (make kcsan-check), the same on that kernel. A step that
# cannot go on records its failure, prints the summary and exits non-zero.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: VARIANT=[debug|kcsan] $0 [--help] [--no-harness] [--no-static] [--no-stress]

  --no-harness   skip the harness self-tests (three extra boots, the
                 console scan)
  --no-static    skip checkpatch, kernel-doc, W=1/sparse, htmldocs and the
                 build variants (kernel-config/modules.config, off.config)
  --no-stress    skip the stress boot (4 CPUs: the stress tests and fuzzers)

Environment: SERIES_UPTO=KEY runs the check on the series up to the end of
sub-series KEY (its "# [KEY]" heading in series). STRESS_DIV (1 to 100)
divides the stress and fuzz counts
(default 1, and 10 with VARIANT=debug or kcsan); CHECK_TIMEOUT and
STRESS_TIMEOUT limit the check and stress boots (seconds; default 1800 and
3600, twice that with VARIANT=debug or kcsan: limits only a hang reaches,
several times a normal run).
Results go to \$BUILD/logs/check[-VARIANT].results.
EOF
}

harness=1
static=1
stress=1
# The debug and KCSAN kernels run the stress test and the fuzzer many times
# slower: they divide their counts by STRESS_DIV (Documentation/robustness.md).
case "${VARIANT:-}" in
debug|kcsan) stress_div=${STRESS_DIV:-10} ;;
*) stress_div=${STRESS_DIV:-1} ;;
esac
# Each boot is killed as hung only past several times its normal length
# (Documentation/robustness.md gives both), on a loaded host too.
case "${VARIANT:-}" in
debug|kcsan) check_timeout=${CHECK_TIMEOUT:-3600} stress_timeout=${STRESS_TIMEOUT:-7200} ;;
*) check_timeout=${CHECK_TIMEOUT:-1800} stress_timeout=${STRESS_TIMEOUT:-3600} ;;
esac
[[ $stress_div =~ ^[0-9]+$ ]] && ((10#$stress_div >= 1 && 10#$stress_div <= 100)) ||
	die "STRESS_DIV must be a number from 1 to 100, not '$stress_div'"
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--no-harness) harness=0; shift ;;
	--no-static) static=0; shift ;;
	--no-stress) stress=0; shift ;;
	*) usage >&2; exit 2 ;;
	esac
done

mkdir -p "$LOGS"
RESULTS=$LOGS/check${VARIANT:+-$VARIANT}.results
: > "$RESULTS"
S=$TOP/scripts

finish() { "$S/summary.sh" "$RESULTS"; }

# Run a step; on failure record it under NAME and close the run.
step() {
	local name=$1
	shift
	if ! "$@"; then
		printf 'FAIL\t%s\n' "$name" >> "$RESULTS"
		finish || true
		exit 1
	fi
}

start=$(date +%s)
[ -z "${SERIES_UPTO:-}" ] || info "check: the series up to sub-series $SERIES_UPTO"
step "dependencies" "$S/deps.sh"
step "source and series apply" "$S/source.sh"
[ "$static" = 1 ] && "$S/check-series.sh" --only series,fold,checkpatch,kernel-doc,sites "$RESULTS"
step "configuration" "$S/config.sh"
step "kernel build" "$S/build.sh"
step "initramfs" "$S/initramfs.sh"

name=check${VARIANT:+-$VARIANT}
sname=stress${VARIANT:+-$VARIANT}
# A prefix of the series (SERIES_UPTO) without the stress tests has no
# stress boot.
if [ "$stress" = 1 ] && [ ! -f "$SRC/tools/testing/selftests/ktp/ktp_stress.c" ]; then
	printf 'SKIP\t%s\n' "$sname: the series up to ${SERIES_UPTO:-its end} has no stress test" >> "$RESULTS"
	stress=0
fi
# The stress boot (4 CPUs: the stress tests and fuzzers) runs beside the check
# boot: each QEMU is one host thread, and the machine has two cores.
if [ "$stress" = 1 ]; then
	info "stress: the stress tests and fuzzers on 4 CPUs, beside the check boot"
	div_arg=()
	[ "$stress_div" = 1 ] || div_arg=(--append "ktau_stress_div=$stress_div")
	"$S/boot.sh" --smp 4 --timeout "$stress_timeout" \
		"${div_arg[@]}" stress > "$LOGS/$sname.boot" 2>&1 &
	stress_pid=$!
fi
info "boot: KUnit at boot, then the selftests in the guest"
if ! "$S/boot.sh" --timeout "$check_timeout" check; then
	printf 'FAIL\t%s\n' "$name: guest reported completion" >> "$RESULTS"
fi
python3 "$S/results.py" --kunit-py "$SRC/tools/testing/kunit/kunit.py" \
	--console "$LOGS/$name.console" --tap "$LOGS/$name.tap" \
	--name "$name" --out "$RESULTS" || true

# The stress boot takes several times as long as the check boot, and its
# QEMU is one host thread: the host's checks below run on the other core
# meanwhile, at a lower priority than that QEMU (started before the renice,
# it keeps its own). No verdict of either depends on the other's speed.
renice -n 10 -p $$ > /dev/null || true
[ "$static" = 1 ] && "$S/check-series.sh" --only warnings,htmldocs,configs "$RESULTS"

# The flame graph page make run leaves, drawn from the folded stacks of
# lattop and kprof the guest exported, and opened in headless Chromium.
check_flamegraph() {
	local files=$1 page=$BUILD/run-check/flamegraph.html
	if ! "$S/vendor.sh" > "$LOGS/vendor.log" 2>&1; then
		printf 'FAIL\t%s\n' "flamegraph: d3 and d3-flame-graph install from npm" >> "$RESULTS"
		return
	fi
	mkdir -p "$(dirname "$page")"
	local graphs=(--graph "lattop: time asleep" us "$files/lattop/folded"
		--graph "kprof: kernel PC samples" ticks "$files/kprof/folded")
	if python3 "$S/flamegraph.py" --vendor "$BUILD/vendor" --out "$page" "${graphs[@]}"; then
		python3 "$S/flamegraph.py" --check "$page" --out "$RESULTS" "${graphs[@]}" || true
	else
		printf 'FAIL\t%s\n' "flamegraph: the page is written" >> "$RESULTS"
	fi
}

if [ -f "$SRC/tools/ktau/Makefile" ]; then
	info "trace: the guest's CTF trace, read on the host by babeltrace2"
	hostdump=$BUILD/user/host/tools/ktau/
	mkdir -p "$hostdump"
	if ! "$S/guest-files.sh" "$name" "$BUILD/guest-files/$name"; then
		printf 'FAIL\t%s\n' "trace: the guest exported its trace" >> "$RESULTS"
	elif ! make -C "$SRC/tools/ktau" OUTPUT="$hostdump" \
		KHDR_INCLUDES="$(khdr_includes)" > "$LOGS/tools-ktau-host.log" 2>&1; then
		printf 'FAIL\t%s\n' "trace: ktp-dump builds for the host" >> "$RESULTS"
	else
		python3 "$S/check-trace.py" --files "$BUILD/guest-files/$name" \
			--ktp-dump "$hostdump/ktp-dump" --out "$RESULTS" > /dev/null ||
			printf 'FAIL\t%s\n' "trace: check-trace.py ran" >> "$RESULTS"
		info "flamegraph: the guest's lattop and kprof stacks, drawn by headless Chromium"
		check_flamegraph "$BUILD/guest-files/$name"
		if [ -x "$hostdump/kprof" ]; then
			info "kprof: the guest's profile, read on the host by kprof and readprofile"
			python3 "$S/check-kprof.py" --files "$BUILD/guest-files/$name" \
				--kprof "$hostdump/kprof" --system-map "$(obj_dir)/System.map" \
				--out "$RESULTS" > /dev/null ||
				printf 'FAIL\t%s\n' "kprof: check-kprof.py ran" >> "$RESULTS"
		fi
	fi
fi

# Build variants, compile and link only: every tristate option of the
# series as a module (modpost finds what a module needs but the kernel does
# not export), and the series with CONFIG_KTP off (every site, marker and
# export must compile to nothing).
if [ "$static" = 1 ]; then
	for v in modules off; do
		info "build variant: kernel-config/$v.config"
		t0=$(date +%s)
		if (VARIANT=$v "$S/config.sh" && VARIANT=$v "$S/build.sh") \
			> "$LOGS/variant-$v.out" 2>&1; then
			info "build variant $v: $(( $(date +%s) - t0 )) s"
			printf 'PASS\t%s\n' "build variant $v" >> "$RESULTS"
			[ "$v" = off ] || continue
			# Nothing of a site, marker or event may reach vmlinux.
			left=$(nm "$BUILD/obj-off/vmlinux" |
				grep -E ' (__ktp_(site|marker|mptr|ptr|event)_|ktrace_)' | head -n 5 || true)
			printf '%s\t%s\n' "$([ -z "$left" ] && echo PASS || echo FAIL)" \
				"build variant off: no site, marker or event symbol in vmlinux${left:+ (${left//$'\n'/, })}" >> "$RESULTS"
		else
			tail -n 5 "$LOGS/variant-$v.out" >&2
			printf 'FAIL\t%s\n' "build variant $v (see $LOGS/variant-$v.out)" >> "$RESULTS"
		fi
	done
fi

[ "$harness" = 1 ] && "$S/harness-test.sh" "$RESULTS"
if [ "$stress" = 1 ]; then
	info "stress: waiting for the stress boot ($(( $(date +%s) - start )) s so far)"
	if ! wait "$stress_pid"; then
		cat "$LOGS/$sname.boot" >&2
		printf 'FAIL\t%s\n' "$sname: guest reported completion" >> "$RESULTS"
	fi
	python3 "$S/results.py" --no-kunit --kunit-py "$SRC/tools/testing/kunit/kunit.py" \
		--console "$LOGS/$sname.console" --tap "$LOGS/$sname.tap" \
		--name "$sname" --out "$RESULTS" || true
fi
info "check took $(( $(date +%s) - start ))s"
finish
