# SPDX-License-Identifier: GPL-2.0
# Shared definitions for the scripts under scripts/: one BUILD root, the paths
# derived from it, and the helpers that print one clear line and stop.
# Sourced, never executed.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
KVER_SERIES=6.12

TARBALL_PKG=linux-source-$KVER_SERIES
SRC_PRISTINE=$BUILD/src/pristine	# the unpacked tarball, never modified
SRC=${KTAU_SRC:-$BUILD/src/linux}	# pristine copy with the series applied
TREE=$BUILD/tree			# developer git tree, one commit per patch
LOGS=$BUILD/logs

# VARIANT selects a configuration: "" (default), debug, kcsan, bench.
VARIANT=${VARIANT:-}
obj_dir() { echo "$BUILD/obj${VARIANT:+-$VARIANT}"; }
# The compiler flag that finds the kernel's exported UAPI headers, which
# build.sh installs in the object directory.
khdr_includes() { echo "-isystem $(obj_dir)/usr/include"; }
kernel_image() { echo "$(obj_dir)/arch/x86/boot/bzImage"; }
initramfs_file() { echo "$BUILD/initramfs${VARIANT:+-$VARIANT}.cpio"; }

die() { echo "error: $*" >&2; exit 1; }
info() { echo ">> $*"; }

# Kernel make, out of tree, through ccache when present; paths under
# BUILD are hashed relative to it, so another clone reuses the cache.
kmake() {
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	CCACHE_BASEDIR=$BUILD make -C "$SRC" O="$(obj_dir)" ARCH=x86_64 \
		CC="$cc" HOSTCC="$cc" "$@"
}

# Patches named by the series file, in order, comments and blanks skipped:
# all of them (series_patches_all), or with SERIES_UPTO=KEY those up to the
# end of the sub-series whose heading is "# [KEY] ..." (series_patches), so
# that make check and series-check can run on a prefix of the posting.
series_patches_all() {
	sed -e 's/#.*//' "$TOP/series" | awk 'NF { print $1 }'
}

series_patches() {
	[ -n "${SERIES_UPTO:-}" ] || { series_patches_all; return; }
	grep -qE "^#[[:space:]]*\[$SERIES_UPTO\]" "$TOP/series" ||
		die "SERIES_UPTO=$SERIES_UPTO: series has no heading \"# [$SERIES_UPTO]\""
	awk -v upto="$SERIES_UPTO" '
		/^#[[:space:]]*\[/ { if (seen) exit; key = $0
			sub(/^#[[:space:]]*\[/, "", key); sub(/\].*/, "", key)
			if (key == upto) seen = 1; next }
		/^[[:space:]]*(#|$)/ { next }
		{ print $1 }' "$TOP/series"
}

# A digest of everything that decides the content of the patched tree.
series_digest() {
	{
		cat "$BUILD/src/.pristine-stamp"
		cat "$TOP/series"
		series_patches | while read -r p; do
			[ -f "$TOP/patches/$p" ] && cat "$TOP/patches/$p"
		done
	} | sha256sum | cut -d' ' -f1
}
