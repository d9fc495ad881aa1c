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
usage: $0 [--help] [--boot]

Applies the series one patch at a time to a copy of the pristine source and
builds tinyconfig + kernel-config/ after each (ccache keeps it affordable),
then tools/ktau and tools/testing/selftests/ktau if the tree has them.
Stops at the first patch after which one of them does not build (or the
kernel does not boot).
EOF
}

boot=0
case "${1:-}" in
-h|--help) usage; exit 0 ;;
--boot) boot=1 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

"$TOP/scripts/source.sh" > /dev/null
# The bisect build root mirrors the main one (src/linux, obj), so that with
# ccache's base directory the unchanged files hit the main build's cache.
BISECT=$BUILD/bisect
tree=$BISECT/src/linux
mkdir -p "$tree" "$LOGS"
rm -rf "$tree/.pc"
rsync -rl --checksum --delete "$SRC_PRISTINE"/ "$tree"/

n=0
total=$(series_patches | wc -l)
for p in $(series_patches); do
	n=$((n + 1))
	(cd "$tree" && QUILT_PATCHES="$TOP/patches" QUILT_SERIES="$TOP/series" \
		quilt push --fuzz=0 --quiltrc=/dev/null "$p" > /dev/null 2>&1) ||
		die "series-check: $p does not apply"
	info "series-check: [$n/$total] $p"
	BUILD=$BISECT KTAU_SRC=$tree KTAU_ALLOW_UNKNOWN=1 "$TOP/scripts/config.sh" &&
		BUILD=$BISECT KTAU_SRC=$tree "$TOP/scripts/build.sh" ||
		die "series-check: the kernel does not build after $p (logs in $BISECT/logs)"
	# The tools and selftests the series has so far, from scratch.
	for dir in tools/ktau tools/testing/selftests/ktau; do
		[ -f "$tree/$dir/Makefile" ] || continue
		out=$BISECT/user/$dir/
		log=$LOGS/bisect-${dir//\//-}.log
		rm -rf "$out"
		mkdir -p "$out"
		make -C "$tree/$dir" OUTPUT="$out" > "$log" 2>&1 ||
			die "series-check: $dir does not build after $p (see $log)"
	done
	if [ "$boot" = 1 ]; then
		BUILD=$BISECT KTAU_SRC=$tree "$TOP/scripts/initramfs.sh" > /dev/null &&
			BUILD=$BISECT KTAU_SRC=$tree "$TOP/scripts/boot.sh" --log "bisect-$n" check ||
			die "series-check: the kernel does not boot after $p (logs in $BISECT/logs)"
	fi
done
info "series-check: all $total patches build one by one"
