#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability: build the kernel, the tools and the selftests after each
# patch of the series in turn,
# in a tree and object directory of its own (build/bisect), so the main
# tree and its objects are untouched. With --boot, also boot each build in
# check mode and require the guest's verdict.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: $0 [--help] [--boot] [--sub-series] [--from N]

Applies the series one patch at a time to a copy of the pristine source and
builds tinyconfig + kernel-config/ after each (ccache keeps it affordable),
then tools/ktau and the selftests of ktp, ktau, lattop and kprof, those the
tree has, if the patch changed something under tools/ or include/uapi/ (or
it is the first patch built). Stops at the first patch after which one of
them does not build (or the kernel does not boot).

  --sub-series  build only after the last patch of each sub-series (the
                "# [KEY]" headings of series): every prefix that is posted
  --from N      apply patches 1 to N-1 without building, then go on as
                usual (to resume a run; the object directory is kept)
EOF
}

boot=0
subseries=0
from=1
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--boot) boot=1; shift ;;
	--sub-series) subseries=1; shift ;;
	--from) from=$2; shift 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ $from =~ ^[0-9]+$ ]] || { usage >&2; exit 2; }

"$TOP/scripts/source.sh" > /dev/null
# The bisect build root mirrors the main one (src/linux, obj), so that with
# ccache's base directory the unchanged files hit the main build's cache.
BISECT=$BUILD/bisect
tree=$BISECT/src/linux
mkdir -p "$tree" "$LOGS"
rm -rf "$tree/.pc"
rsync -rl --checksum --delete "$SRC_PRISTINE"/ "$tree"/

# The last patch of each sub-series: the one before each heading but the
# first, and the series' last.
ends=$(awk '/^#[[:space:]]*\[/ { if (last != "") print last; next }
	    /^[[:space:]]*(#|$)/ { next } { last = $1 } END { print last }' "$TOP/series")

n=0
built=0
total=$(series_patches | wc -l)
for p in $(series_patches); do
	n=$((n + 1))
	(cd "$tree" && QUILT_PATCHES="$TOP/patches" QUILT_SERIES="$TOP/series" \
		quilt push --fuzz=0 --quiltrc=/dev/null "$p" > /dev/null 2>&1) ||
		die "series-check: $p does not apply"
	[ "$n" -ge "$from" ] || continue
	if [ "$subseries" = 1 ] && ! grep -qxF "$p" <<< "$ends"; then
		continue
	fi
	info "series-check: [$n/$total] $p"
	BUILD=$BISECT KTAU_SRC=$tree KTAU_ALLOW_UNKNOWN=1 "$TOP/scripts/config.sh" &&
		BUILD=$BISECT KTAU_SRC=$tree "$TOP/scripts/build.sh" ||
		die "series-check: the kernel does not build after $p (logs in $BISECT/logs)"
	# The tools and selftests the series has so far, from scratch, when
	# the patch can have changed them.
	user=1
	if [ "$built" = 1 ] && [ "$subseries" = 0 ] &&
	   ! grep -qE '^\+\+\+ b/(tools/|include/uapi/)' "$TOP/patches/$p"; then
		user=0
	fi
	built=1
	for dir in tools/ktau tools/testing/selftests/{ktp,ktau,lattop,kprof}; do
		[ "$user" = 1 ] || continue
		[ -f "$tree/$dir/Makefile" ] || continue
		out=$BISECT/user/$dir/
		log=$LOGS/bisect-${dir//\//-}.log
		rm -rf "$out"
		mkdir -p "$out"
		make -C "$tree/$dir" OUTPUT="$out" \
			KHDR_INCLUDES="-isystem $BISECT/obj/usr/include" > "$log" 2>&1 ||
			die "series-check: $dir does not build after $p (see $log)"
	done
	if [ "$boot" = 1 ]; then
		BUILD=$BISECT KTAU_SRC=$tree "$TOP/scripts/initramfs.sh" > /dev/null &&
			BUILD=$BISECT KTAU_SRC=$tree "$TOP/scripts/boot.sh" --log "bisect-$n" check ||
			die "series-check: the kernel does not boot after $p (logs in $BISECT/logs)"
	fi
done
if [ "$subseries" = 1 ]; then
	info "series-check: every sub-series prefix builds ($(wc -l <<< "$ends") of them)"
else
	info "series-check: patches $from to $total build one by one"
fi
