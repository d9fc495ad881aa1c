#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs: busybox-static, the guest init and runner from
# qemu/, the statically linked selftests and tools, and the modules the
# kernel build installed. Written to a temporary file and renamed, so a
# failed run never leaves a truncated archive behind.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: VARIANT=[debug|bench] $0 [--help]

Writes \$BUILD/initramfs[-VARIANT].cpio (newc, uncompressed).
EOF
}

case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

find_busybox() {
	local b
	b=$(dpkg -L busybox-static 2>/dev/null | grep -E '/busybox$' | head -n1) || true
	[ -n "$b" ] && [ -x "$b" ] || die "initramfs: busybox-static is not installed"
	echo "$b"
}

# Selftests and tools that the series adds, built statically; $1 is the
# directory in the patched tree, $2 the make variable naming the install root.
build_user_dir() {
	local dir=$1 destvar=$2 name log
	[ -f "$SRC/$dir/Makefile" ] || return 0
	name=${dir//\//-}
	log=$LOGS/$name.log
	mkdir -p "$BUILD/user/$dir"
	make -C "$SRC/$dir" OUTPUT="$BUILD/user/$dir/" > "$log" 2>&1 ||
		die "initramfs: building $dir failed (see $log)"
	make -C "$SRC/$dir" OUTPUT="$BUILD/user/$dir/" "$destvar" install >> "$log" 2>&1 ||
		die "initramfs: installing $dir failed (see $log)"
}

obj=$(obj_dir)
root=$BUILD/initramfs${VARIANT:+-$VARIANT}.d
out=$(initramfs_file)
mkdir -p "$LOGS"

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,selftests,demo.d} \
	"$root"/usr/{bin,sbin,libexec/ktau}
cp "$(find_busybox)" "$root/bin/busybox"
install -m 0755 "$TOP/qemu/init" "$root/init"
install -m 0755 "$TOP/qemu/run-selftests" "$root/usr/libexec/ktau/run-selftests"
install -m 0755 "$TOP"/qemu/demo.d/* "$root/demo.d/"
series_patches > "$root/etc/ktau-series"

# The harness's own test, against the kernel tree's kselftest.h.
gcc -static -O2 -Wall -I"$SRC/tools/testing/selftests" \
	-o "$root/selftests/harness_test" "$TOP/qemu/harness_test.c" ||
	die "initramfs: cannot build qemu/harness_test.c"

build_user_dir tools/testing/selftests/ktau INSTALL_PATH="$root/selftests/ktau"
build_user_dir tools/ktau DESTDIR="$root"

[ -d "$obj/modules-staging/lib" ] && cp -a "$obj/modules-staging/lib" "$root/"

(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --quiet -R 0:0) > "$out.tmp"
mv "$out.tmp" "$out"
info "initramfs: $out ($(du -h "$out" | cut -f1))"
