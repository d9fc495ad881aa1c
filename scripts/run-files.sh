#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# After make run: unpack what the demos left in the guest into build/run/,
# draw lattop's and kprof's folded stacks as a flame graph page, and print
# one line per file with the tool that opens it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF2
usage: $0 [--help]

Unpacks the files the run guest exported (\$BUILD/logs/run.out) into
\$BUILD/run, writes \$BUILD/run/flamegraph.html (scripts/vendor.sh installs
what it is drawn with) and lists each file with what opens it.
EOF2
}

case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

run=$BUILD/run
"$(dirname "$0")/guest-files.sh" run "$run" || die "run-files: the guest left no files"

graphs=()
[ -s "$run/lattop.folded" ] && graphs+=(--graph "lattop: time asleep, per task and call trace" us "$run/lattop.folded")
[ -s "$run/kprof.folded" ] && graphs+=(--graph "kprof: kernel PC samples" ticks "$run/kprof.folded")
if [ ${#graphs[@]} -gt 0 ]; then
	if "$(dirname "$0")/vendor.sh" > "$LOGS/vendor.log" 2>&1; then
		python3 "$(dirname "$0")/flamegraph.py" --vendor "$BUILD/vendor" \
			--title "make run: flame graphs" --out "$run/flamegraph.html" "${graphs[@]}"
	else
		echo "warning: run-files: no flame graph page: scripts/vendor.sh failed ($LOGS/vendor.log)" >&2
	fi
fi

# What opens each file; the host's own builds where the project has one.
map=$(obj_dir)/System.map
opens() {
	case "$1" in
	ktp-trace) echo "babeltrace2 $run/ktp-trace; Trace Compass; ktp-dump -i" ;;
	ktp.json) echo "ui.perfetto.dev or chrome://tracing (Open trace file)" ;;
	ktp.ftrace) echo "ui.perfetto.dev (ftrace text), or a pager" ;;
	ktp.txt) echo "a pager: ktp-dump's text of the same trace" ;;
	tau) echo "ParaProf or pprof, from TAU: cd $run/tau && pprof" ;;
	runktau.txt) echo "a pager: runktau's report" ;;
	ktau-trace.json) echo "ui.perfetto.dev or chrome://tracing (KTAU's per-thread trace)" ;;
	lattop.folded) echo "flamegraph.pl, inferno-flamegraph or speedscope (folded stacks)" ;;
	lattop.txt) echo "lattop -F $run/lattop.txt" ;;
	kprof.folded) echo "flamegraph.pl, inferno-flamegraph or speedscope (folded stacks)" ;;
	kprof.readprofile) echo "readprofile -m $map -p $run/kprof.readprofile" ;;
	flamegraph.html) echo "a web browser: file://$run/flamegraph.html" ;;
	*) echo "-" ;;
	esac
}
info "run: what the demos left, in $run"
for f in "$run"/*; do
	b=$(basename "$f")
	printf '   %-18s %s\n' "$b" "$(opens "$b")"
done
