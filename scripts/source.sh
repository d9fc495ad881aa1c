#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unpack the linux-source-6.12 tarball once and apply the series onto a
# pristine copy of it with quilt, refusing fuzz.
#
#   build/src/pristine   the tarball's tree, unpacked again only when the
#                        tarball changes (.pristine-stamp records which)
#   build/src/linux      pristine + series; rebuilt only when the tarball,
#                        the series file or a patch changed (.series-stamp)
#
# Both are written so that an interrupted run leaves no stamp behind: the
# next run starts that step over instead of trusting a half-done tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: $0 [--help]

Unpacks the $TARBALL_PKG tarball under $BUILD/src, prints the kernel
version it holds and applies 'series' onto a pristine copy with quilt
(--fuzz=0). A patch that needs fuzz or rejects stops the run and is named.
EOF
}

case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

find_tarball() {
	local t
	t=$(dpkg -L "$TARBALL_PKG" 2>/dev/null | grep -E '/linux-source-[0-9.]+\.tar\.(xz|bz2|gz)$' | head -n1) ||
		true
	[ -n "$t" ] && [ -f "$t" ] ||
		die "source: package $TARBALL_PKG is not installed or has no tarball (run scripts/deps.sh)"
	echo "$t"
}

unpack_pristine() {
	local tarball=$1 stamp want tmp top
	stamp=$BUILD/src/.pristine-stamp
	want="$tarball $(stat -c '%s %Y' "$tarball")"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$SRC_PRISTINE" ]; then
		return 0
	fi
	info "source: unpacking $tarball"
	rm -f "$stamp" "$BUILD/src/.series-stamp"
	tmp=$BUILD/src/pristine.tmp
	rm -rf "$tmp" "$SRC_PRISTINE"
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$tarball" || die "source: cannot unpack $tarball"
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n1)
	[ -f "$top/Makefile" ] || die "source: $tarball holds no kernel tree"
	mv "$top" "$SRC_PRISTINE"
	rm -rf "$tmp"
	echo "$want" > "$stamp"
}

check_version() {
	local v
	v=$(make -s -C "$SRC_PRISTINE" kernelversion)
	case "$v" in
	"$KVER_SERIES" | "$KVER_SERIES".*) ;;
	*) die "source: tarball holds Linux $v, the series targets $KVER_SERIES" ;;
	esac
	info "source: Linux $v"
}

check_series_files() {
	local p
	[ -f "$TOP/series" ] || die "source: no series file"
	for p in $(series_patches); do
		[ -f "$TOP/patches/$p" ] || die "source: series names patches/$p, which does not exist"
	done
}

apply_series() {
	local stamp digest log
	stamp=$BUILD/src/.series-stamp
	digest=$(series_digest)
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ] && [ -d "$SRC" ]; then
		info "source: series already applied ($(series_patches | wc -l) patches)"
		return 0
	fi
	rm -f "$stamp"
	mkdir -p "$SRC"
	rm -rf "$SRC/.pc"
	# Copy only files whose content differs, so make rebuilds only what
	# the change of series really touched.
	rsync -rl --checksum --delete "$SRC_PRISTINE"/ "$SRC"/
	[ -s "$TOP/series" ] && [ -n "$(series_patches)" ] || {
		echo "$digest" > "$stamp"
		info "source: series is empty"
		return 0
	}
	log=$LOGS/quilt.log
	mkdir -p "$LOGS"
	# Up to the last patch series_patches names (SERIES_UPTO: a prefix).
	if ! (cd "$SRC" && QUILT_PATCHES="$TOP/patches" QUILT_SERIES="$TOP/series" \
		quilt push --fuzz=0 --quiltrc=/dev/null "$(series_patches | tail -n1)") \
		> "$log" 2>&1; then
		local bad
		bad=$(sed -n 's/^Patch \(.*\) does not apply.*/\1/p' "$log" | tail -n1)
		die "source: patch ${bad:-?} does not apply without fuzz (see $log)"
	fi
	echo "$digest" > "$stamp"
	info "source: applied $(series_patches | wc -l) patches"
}

mkdir -p "$BUILD/src"
unpack_pristine "$(find_tarball)"
check_version
check_series_files
apply_series
