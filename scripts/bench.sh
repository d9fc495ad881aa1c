#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: boot the kernel twice under QEMU with -icount shift=0,sleep=off
# (a TSC unit is one guest instruction), run every case of ktp_bench with
# ktp-bench in each boot, and write Documentation/benchmarks.md and
# Documentation/benchmarks.json from the two runs. Prints the table.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: $0 [--help] [--no-doc] [-- KTP-BENCH-ARGS...]

Builds what is missing (like make run), boots twice with --icount in the
guest's bench mode and compares the two runs. Without --no-doc, writes
Documentation/benchmarks.md and Documentation/benchmarks.json. Arguments
after -- go to ktp-bench in the guest (for example -- -s for a smoke run).
EOF
}

doc=1
args=""
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--no-doc) doc=0; shift ;;
	--) shift; args=$(IFS=,; echo "$*"); break ;;
	*) usage >&2; exit 2 ;;
	esac
done

S=$TOP/scripts
"$S/deps.sh"
"$S/source.sh"
"$S/config.sh"
"$S/build.sh"
"$S/initramfs.sh"

runs=()
for r in 1 2; do
	name=bench-$r${VARIANT:+-$VARIANT}
	info "bench: boot $r of 2 under -icount shift=0,sleep=off"
	"$S/boot.sh" --icount --log "$name" --timeout 1800 \
		${args:+--append "ktau_bench=$args"} bench
	runs+=("$LOGS/$name.tap")
done

report=(python3 "$S/bench-report.py" --module "$(obj_dir)/kernel/ktp/ktp_bench.ko"
	--release "$(cat "$(obj_dir)/include/config/kernel.release")")
[ "$doc" = 1 ] && report+=(--md "$TOP/Documentation/benchmarks.md"
	--json "$TOP/Documentation/benchmarks.json")
"${report[@]}" "${runs[@]}"
