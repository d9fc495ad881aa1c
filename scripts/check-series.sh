#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Static checks of the series, each recorded as one result line
# ("PASS|FAIL|SKIP<TAB>name") in the file given as argument:
#
#   series       every patch in 'series' exists and every patch is listed
#   checkpatch   --strict: no ERROR or WARNING (but "does MAINTAINERS
#                need updating?" for files the series' one MAINTAINERS
#                entry covers, which is checked); each CHECK (and a
#                TRACE_PRINTK WARNING) matches a line of
#                scripts/checkpatch-exceptions, and each exception is used
#   kernel-doc   -none -Wall is silent on every .c/.h file the series adds
#   sites        no ktrace_*() call the series puts in a file it did not
#                add stands within 3 lines of a kernel trace_*() call:
#                where the kernel has a tracepoint, the site is that one
#   W=1, sparse  no warning in the touched C files that the pristine tree
#                does not have too (line numbers ignored)
#   htmldocs     SPHINXDIRS=trace adds no warning over the pristine tree
#   configs      KTAU is refused with PREEMPT_RT, and the built
#                configuration has every option of each selftest
#                directory's config fragment
#   fold         no patch changes a line an earlier patch added, and the
#                subjects are "subsystem: imperative summary" of at most
#                75 characters (scripts/check-fold.py)
#
# Needs the patched tree (scripts/source.sh) and, for W=1 and sparse, the
# built kernel (scripts/build.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: $0 [--help] [--only CHECK[,CHECK...]] RESULTS-FILE

CHECK is one of: series checkpatch kernel-doc sites warnings htmldocs
configs fold.
warnings and configs need the built kernel.
Appends one line per check (per patch, per file) to RESULTS-FILE and prints
the details of each failure.
EOF
}

only=""
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--only) only=$2; shift 2 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
RESULTS=$1
EXCEPTIONS=$TOP/scripts/checkpatch-exceptions

record() { printf '%s\t%s\n' "$1" "$2" >> "$RESULTS"; echo "[$1] $2"; }
wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

# Files the series adds (new) or changes (all), from the patch headers.
series_files() {
	local which=$1 p
	for p in $(series_patches); do
		if [ "$which" = new ]; then
			awk '/^--- \/dev\/null/ { n = 1; next }
			     n && /^\+\+\+ b\// { print substr($2, 3) } { n = 0 }' "$TOP/patches/$p"
		else
			awk '/^\+\+\+ b\// { print substr($2, 3) }' "$TOP/patches/$p"
		fi
	done | sort -u
}

check_series_list() {
	local bad=0 p list
	# Listed once: "series_patches | grep -q" under pipefail fails at
	# random, when grep exits before the list is written (SIGPIPE).
	list=$(series_patches_all)
	for p in $list; do
		[ -f "$TOP/patches/$p" ] || { echo "  series names patches/$p, which does not exist"; bad=1; }
	done
	for p in "$TOP"/patches/*.patch; do
		[ -e "$p" ] || continue
		grep -qxF "${p##*/}" <<< "$list" || { echo "  patches/${p##*/} is not in series"; bad=1; }
	done
	record "$([ $bad = 0 ] && echo PASS || echo FAIL)" "series: series and patches/ agree"
}

trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' <<< "$1"; }

# One exception line: PATCH|TYPE|MESSAGE SUBSTRING|REASON
exception_for() {
	local patch=$1 type=$2 msg=$3 line p t m
	[ -f "$EXCEPTIONS" ] || return 1
	while IFS= read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		IFS='|' read -r p t m _ <<< "$line"
		p=$(trim "$p") t=$(trim "$t") m=$(trim "$m")
		if [ "$p" = "$patch" ] && [ "$t" = "$type" ] && [[ "$msg" == *"$m"* ]]; then
			echo "$line"
			return 0
		fi
	done < "$EXCEPTIONS"
	return 1
}

# The F: patterns the series adds to MAINTAINERS, one per line (its last
# patch adds them: on a prefix too, they say what the posting covers).
series_f_patterns() {
	local p
	for p in $(series_patches_all); do
		awk '/^diff --git / { f = substr($3, 3) } f == "MAINTAINERS" && /^\+F:/ { print $2 }' \
			"$TOP/patches/$p"
	done
}

# True if every file patch $1 adds or deletes matches one of the series'
# MAINTAINERS patterns (a pattern ending in / covers the directory).
files_maintained() {
	local f pat ok
	for f in $(awk '/^diff --git / { f = substr($4, 3) } /^(new|deleted) file mode/ { print f }' \
			"$TOP/patches/$1"); do
		ok=0
		while read -r pat; do
			case "$pat" in
			*/) [[ $f == "$pat"* ]] && ok=1 ;;
			*) [[ $f == $pat ]] && ok=1 ;;
			esac
		done <<< "$F_PATTERNS"
		[ $ok = 1 ] || { echo "  $1: $f is in no MAINTAINERS pattern of the series"; return 1; }
	done
}

check_checkpatch() {
	local p out bad line type msg used listed
	# Without the source there is no checkpatch to run, and no verdict.
	[ -f "$SRC_PRISTINE/scripts/checkpatch.pl" ] ||
		die "check-series: no $SRC_PRISTINE/scripts/checkpatch.pl (run scripts/source.sh)"
	used=$(mktemp)
	# MAINTAINERS is changed once, with directory patterns: a patch adding
	# files the patterns cover needs no MAINTAINERS hunk of its own.
	F_PATTERNS=$(series_f_patterns)
	for p in $(series_patches); do
		bad=0
		# GIT_DIR points nowhere: checkpatch checks a git-tracked file
		# as source, not as a patch, when it runs inside a git work tree.
		out=$(cd "$SRC_PRISTINE" && GIT_DIR=/nonexistent perl scripts/checkpatch.pl \
			--strict --terse --show-types --no-summary "$TOP/patches/$p" 2>&1) || true
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			# path:LINE: LEVEL:TYPE: message
			type=$(echo "$line" | sed -n 's/^[^:]*:[0-9]*: \(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\1 \2/p')
			msg=${line#*: *:*: }
			# The WARNINGs that may be excepted: the one whose
			# message allows it, trace_printk() in code built only
			# with a test option (the benchmark measures it), and
			# EXPORT_SYMBOL, which checkpatch also reports after a
			# DEFINE_STATIC_KEY_FALSE() that it follows. The one
			# ERROR: a world-writable file whose every command
			# checks its writer, as /proc/<pid>/timerslack_ns and
			# /proc/<pid>/attr/* do ("usually an error").
			case "$type" in
			"WARNING FILE_PATH_CHANGES")
				[ -n "$F_PATTERNS" ] && files_maintained "$p" && continue
				;;
			CHECK\ *|"WARNING TRACE_PRINTK"|"WARNING EXPORT_SYMBOL"|"ERROR EXPORTED_WORLD_WRITABLE")
				if exception_for "$p" "${type#* }" "$msg" >> "$used"; then
					continue
				fi
				;;
			esac
			echo "  $line"
			bad=1
		done <<< "$out"
		record "$([ $bad = 0 ] && echo PASS || echo FAIL)" "checkpatch --strict: $p"
	done
	bad=0
	listed=$(series_patches)
	if [ -f "$EXCEPTIONS" ]; then
		while IFS= read -r line; do
			case "$line" in ''|'#'*) continue ;; esac
			# On a prefix, the exceptions of the patches after it wait.
			grep -qxF "$(trim "${line%%|*}")" <<< "$listed" || continue
			grep -qxF "$line" "$used" || { echo "  unused exception: $line"; bad=1; }
		done < "$EXCEPTIONS"
	fi
	rm -f "$used"
	record "$([ $bad = 0 ] && echo PASS || echo FAIL)" "checkpatch: every exception is still needed"
}

check_kernel_doc() {
	local f out n=0
	for f in $(series_files new | grep -E '\.[ch]$' | grep -vE '^(tools|samples)/'); do
		n=$((n + 1))
		out=$(cd "$SRC" && perl scripts/kernel-doc -none -Wall "$f" 2>&1) || true
		[ -z "$out" ] || echo "$out" | sed 's/^/  /'
		record "$([ -z "$out" ] && echo PASS || echo FAIL)" "kernel-doc -none -Wall: $f"
	done
	[ $n -gt 0 ] || record SKIP "kernel-doc: the series adds no kernel source"
}

# Warnings of W=1 C=2 for the objects in $@, line and column numbers dropped.
# The objects are removed first: kbuild would not rebuild one whose command
# line did not change since the last run, and its warnings would be missed.
object_warnings() {
	local obj=$1 src=$2 o
	shift 2
	for o in "$@"; do rm -f "$obj/$o"; done
	make -C "$src" O="$obj" ARCH=x86_64 W=1 C=2 "$@" 2>&1 >/dev/null |
		grep -E '(warning|error):' | sed -E 's/:[0-9]+(:[0-9]+)?:/:/; s#'"$src"'/##' | sort
}

# Every ktrace_*() call in a file the series changes but did not add, with
# a kernel trace_*() call within 3 lines of it: "file:line: call".
doubled_sites() {
	local f
	comm -23 <(series_files all) <(series_files new) | while read -r f; do
		[ -f "$SRC/$f" ] || continue
		awk -v f="$f" '
			{ line[NR] = $0 }
			/(^|[^a-z_])ktrace_[a-z0-9_]+\(/ { k[NR] = 1 }
			END {
				for (n in k)
					for (d = -3; d <= 3; d++)
						if (line[n + d] ~ /(^|[^a-z_])trace_[a-z0-9_]+\(/) {
							sub(/^[ \t]+/, "", line[n])
							print f ":" n ": " line[n]
							break
						}
			}' "$SRC/$f"
	done | sort
}

check_sites() {
	local doubled
	doubled=$(doubled_sites)
	[ -z "$doubled" ] || echo "$doubled"
	record "$([ -z "$doubled" ] && echo PASS || echo FAIL)" \
		"sites: no series call beside a kernel tracepoint of the same place${doubled:+ ($(echo "$doubled" | wc -l) found)}"
}

check_warnings() {
	local objs=() f new pristine_obj
	for f in $(series_files all | grep -E '\.c$'); do
		[ -f "$(obj_dir)/${f%.c}.o" ] && objs+=("${f%.c}.o")
	done
	if [ ${#objs[@]} -eq 0 ]; then
		record SKIP "W=1 and sparse: the series touches no built C file"
		return
	fi
	command -v sparse >/dev/null || { record FAIL "W=1 and sparse: sparse is not installed"; return; }
	pristine_obj=$BUILD/obj-pristine
	mkdir -p "$pristine_obj"
	cp "$(obj_dir)/.config" "$pristine_obj/.config"
	make -C "$SRC_PRISTINE" O="$pristine_obj" ARCH=x86_64 olddefconfig prepare \
		> "$LOGS/pristine-prepare.log" 2>&1 ||
		{ record FAIL "W=1 and sparse: cannot prepare the pristine tree"; return; }
	for f in "${objs[@]}"; do
		new=$(comm -23 <(object_warnings "$(obj_dir)" "$SRC" "$f") \
			<( [ -f "$SRC_PRISTINE/${f%.o}.c" ] &&
				object_warnings "$pristine_obj" "$SRC_PRISTINE" "$f" || true))
		[ -z "$new" ] || echo "$new" | sed 's/^/  /'
		record "$([ -z "$new" ] && echo PASS || echo FAIL)" "W=1 and sparse add no warning: ${f%.o}.c"
	done
}

# Warnings of the trace htmldocs, build paths and line numbers dropped.
doc_warnings() {
	local src=$1 obj=$2
	make -C "$src" O="$obj" SPHINXDIRS=trace htmldocs 2>&1 |
		grep -iE 'warning|error' | sed -E "s#$src/##g; s/:[0-9]+:/:/" | sort -u
}

check_htmldocs() {
	local new
	if ! grep -q '^Documentation/' <<< "$(series_files all)"; then
		record SKIP "htmldocs: the series changes no documentation"
		return
	fi
	command -v sphinx-build >/dev/null || { record FAIL "htmldocs: sphinx-build is not installed"; return; }
	new=$(comm -23 <(doc_warnings "$SRC" "$BUILD/docs") \
		<(doc_warnings "$SRC_PRISTINE" "$BUILD/docs-pristine"))
	[ -z "$new" ] || echo "$new" | sed 's/^/  /'
	record "$([ -z "$new" ] && echo PASS || echo FAIL)" "htmldocs SPHINXDIRS=trace adds no warning"
}

# The series as a posting: final-form patches and kernel subjects.
check_fold() {
	local line
	python3 "$TOP/scripts/check-fold.py" "$TOP" "$SRC_PRISTINE" | while IFS= read -r line; do
		case "$line" in
		PASS$'\t'*|FAIL$'\t'*) record "${line%%$'\t'*}" "${line#*$'\t'}" ;;
		*) echo "$line" ;;
		esac
	done
}

# Configurations the series must refuse: KTAU allocates a task's state
# with preemption disabled, which PREEMPT_RT does not allow, so KTAU
# depends on !PREEMPT_RT. The built configuration with PREEMPT_RT forced
# on must come out of olddefconfig without KTAU.
check_configs() {
	local tmp
	[ -f "$(obj_dir)/.config" ] || { record FAIL "configs: no built configuration"; return; }
	[ -f "$SRC/kernel/ktau/Kconfig" ] || { record SKIP "configs: KTAU is refused with PREEMPT_RT (no KTAU in this prefix)"; return; }
	tmp=$(mktemp -d)
	cp "$(obj_dir)/.config" "$tmp/.config"
	"$SRC/scripts/config" --file "$tmp/.config" --enable EXPERT --enable PREEMPT_RT
	make -s -C "$SRC" O="$tmp" ARCH=x86_64 olddefconfig > /dev/null 2>&1 ||
		{ record FAIL "configs: olddefconfig with PREEMPT_RT"; rm -rf "$tmp"; return; }
	if ! grep -q '^CONFIG_PREEMPT_RT=y' "$tmp/.config"; then
		record FAIL "configs: PREEMPT_RT can be enabled on top of the built configuration"
	elif grep -q '^CONFIG_KTAU=y' "$tmp/.config"; then
		record FAIL "configs: KTAU is refused with PREEMPT_RT"
	else
		record PASS "configs: KTAU is refused with PREEMPT_RT"
	fi
	rm -rf "$tmp"
}

# Each selftest directory's config fragment names what its tests need:
# the configuration the tests run on must have every option of it, with
# its value, or a test would skip (or fail) for a reason no one sees.
check_selftest_configs() {
	local cfg opt missing t
	[ -f "$(obj_dir)/.config" ] || { record FAIL "configs: no built configuration"; return; }
	for t in ktp ktau lattop kprof; do
		cfg=$SRC/tools/testing/selftests/$t/config
		[ -f "$cfg" ] || continue
		missing=""
		while IFS= read -r opt; do
			case "$opt" in CONFIG_*=*) ;; *) continue ;; esac
			grep -qxF "$opt" "$(obj_dir)/.config" || missing="$missing ${opt}"
		done < "$cfg"
		record "$([ -z "$missing" ] && echo PASS || echo FAIL)" \
			"configs: the tests' kernel has every option of selftests/$t/config${missing:+ (missing:$missing)}"
	done
}

wanted series && check_series_list
wanted fold && check_fold
wanted checkpatch && check_checkpatch
wanted kernel-doc && check_kernel_doc
wanted sites && check_sites
wanted warnings && check_warnings
wanted htmldocs && check_htmldocs
wanted configs && { check_configs; check_selftest_configs; }
exit 0
