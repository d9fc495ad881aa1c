#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Tests of the test harness: it must be able to fail.
#
#   failing case   a guest whose selftest fails one case on purpose must end
#                  in "N passed, 1 failed" and a non-zero exit (the guest
#                  runs KUnit, the harness's test and ktp/ktp_control)
#   hung guest     a guest that never finishes must be killed at the
#                  timeout and reported as hung
#   no verdict     a guest whose init exits (the kernel panics, QEMU exits
#                  0) must be reported as stopping without a verdict
#   fold check     scripts/check-fold.py on synthetic two-patch series: it
#                  must fail a patch changing a line the first added, and
#                  a subject that is not imperative
#   console scan   scripts/test_results.py, on the host: synthetic consoles
#                  in which results.py must find and name every kind of
#                  report once, and find none in fault injection's output
#
# Each is one result line appended to RESULTS-FILE (the console scan, one
# per case of test_results.py).
set -euo pipefail
# Under pipefail, "echo | grep -q" fails at random: grep -q exits at its
# first match and the writer may die of SIGPIPE. Matches read here-strings.
. "$(dirname "$0")/lib.sh"

case "${1:-}" in
-h|--help|"")
	echo "usage: $0 RESULTS-FILE"
	echo "Boots the built kernel three times and records whether the harness"
	echo "caught a failing case, a hung guest and a guest without a verdict;"
	echo "then checks the console scan on synthetic consoles (no boot)."
	[ -n "${1:-}" ]; exit $? ;;
esac
RESULTS=$1
touch "$RESULTS"	# make harness-test starts without one
record() { printf '%s\t%s\n' "$1" "$2" >> "$RESULTS"; echo "[$1] $2"; }

test_failing_case() {
	local tmp out rc=0
	tmp=$(mktemp)
	# The harness's own test and one short selftest: the boot tests the
	# harness, which the full run of the check boot already exercises.
	"$TOP/scripts/boot.sh" --log harness-fail \
		--append "ktau_harness=fail ktau_only=harness_test,ktp/ktp_control" check || true
	python3 "$TOP/scripts/results.py" --kunit-py "$SRC/tools/testing/kunit/kunit.py" \
		--console "$LOGS/harness-fail.console" --tap "$LOGS/harness-fail.tap" \
		--out "$tmp" > "$LOGS/harness-fail.results" 2>&1 || true
	out=$("$TOP/scripts/summary.sh" "$tmp") || rc=$?
	rm -f "$tmp"
	if [ "$rc" -ne 0 ] &&
	   grep -qE '^[0-9]+ passed, 1 failed(, [0-9]+ skipped)?$' <<< "$(tail -n1 <<< "$out")" &&
	   grep -q 'deliberate_failure' <<< "$out"; then
		record PASS "harness: a deliberately failing case ends in '1 failed' and exit $rc"
	else
		echo "$out" | sed 's/^/  /'
		# What the guest said of each failed case, deliberate or not.
		grep -B12 '^ *not ok' "$LOGS/harness-fail.tap" | grep -E '^ *(#|not ok)' |
			grep -vE '^ *# +(RUN|OK) ' |
			sed 's/^ */  tap: /' | tail -n 60 || true
		record FAIL "harness: a deliberately failing case ends in '1 failed' (exit $rc)"
	fi
}

# Boot MODE with TIMEOUT; the boot must fail and say PATTERN.
expect_boot_failure() {
	local mode=$1 timeout=$2 pattern=$3 what=$4 err rc=0
	err=$("$TOP/scripts/boot.sh" --log "harness-$mode" --timeout "$timeout" "$mode" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] && grep -q "$pattern" <<< "$err"; then
		record PASS "harness: $what"
	else
		echo "$err" | sed 's/^/  /'
		record FAIL "harness: $what (exit $rc)"
	fi
}

# The console scan of results.py, without a boot: each case records its
# own result; a script that records none fails.
test_console_scan() {
	local before after
	before=$(grep -c 'harness: console scan:' "$RESULTS" || true)
	python3 "$TOP/scripts/test_results.py" --out "$RESULTS" || true
	after=$(grep -c 'harness: console scan:' "$RESULTS" || true)
	[ "$after" -gt "$before" ] ||
		record FAIL "harness: console scan: scripts/test_results.py ran"
}

# The fold check must be able to fail: a synthetic series whose second
# patch changes a line its first added, or whose subject is not imperative.
test_fold_check() {
	local tmp out
	tmp=$(mktemp -d)
	mkdir -p "$tmp/top/patches" "$tmp/pristine"
	printf '# [S1] t\n0001-a.patch\n0002-b.patch\n' > "$tmp/top/series"
	printf 'From: x\nSubject: [PATCH 1/2] foo: add a\n\nWhy.\n---\n%s\n' \
		"$(printf 'diff --git a/a b/a\n--- /dev/null\n+++ b/a\n@@ -0,0 +1,3 @@\n+1\n+2\n+3')" \
		> "$tmp/top/patches/0001-a.patch"
	printf 'From: x\nSubject: [PATCH 2/2] foo: %s\n\nWhy.\n---\n%s\n' "$1" \
		"$(printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,3 +1,3 @@\n 1\n%s\n 3' "$2")" \
		> "$tmp/top/patches/0002-b.patch"
	out=$(python3 "$TOP/scripts/check-fold.py" "$tmp/top" "$tmp/pristine")
	rm -rf "$tmp"
	echo "$out"
}

# expect_fold SUBJECT HUNK FOLD SUBJECTS WHAT: the check's two verdicts on
# the series test_fold_check makes must be FOLD and SUBJECTS.
expect_fold() {
	local out
	out=$(test_fold_check "$1" "$2")
	if grep -q "^$3.fold:" <<< "$out" && grep -q "^$4.subjects:" <<< "$out"; then
		record PASS "harness: the fold check fails $5"
	else
		echo "$out" | sed 's/^/  /'
		record FAIL "harness: the fold check fails $5"
	fi
}

check_fold_harness() {
	expect_fold "change a" $'-2\n+two' FAIL PASS "a patch that changes an earlier patch's line"
	expect_fold "changes a" $'+4\n 2' PASS FAIL "a subject that is not imperative"
}

test_console_scan
check_fold_harness
test_failing_case
expect_boot_failure hang 30 'hung: killed after 30s' \
	"a hung guest is killed at the timeout and reported"
expect_boot_failure exit 300 'stopped without a verdict' \
	"a guest whose init exits fails without a verdict"
