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

# Patches named by the series file, in order, comments and blanks skipped.
series_patches() {
	sed -e 's/#.*//' "$TOP/series" | awk 'NF { print $1 }'
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
