#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print the failures recorded in a results file, then the one closing line
# "N passed, N failed" (", N skipped" when some were). Exits 1 on any
# failure and when nothing ran at all.
set -euo pipefail

case "${1:-}" in
-h|--help|"")
	echo "usage: $0 RESULTS-FILE   (lines: PASS|FAIL|SKIP<TAB>name)"
	[ -n "${1:-}" ]; exit $? ;;
esac

results=$1
[ -f "$results" ] || { echo "error: summary: no results file $results" >&2; exit 1; }
passed=$(grep -c '^PASS' "$results" || true)
failed=$(grep -c '^FAIL' "$results" || true)
skipped=$(grep -c '^SKIP' "$results" || true)
if [ "$failed" -gt 0 ]; then
	echo "== failed =="
	grep '^FAIL' "$results" | cut -f2- | sed 's/^/  /'
fi
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line+=", $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
