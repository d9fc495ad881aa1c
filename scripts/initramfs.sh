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

# The path of the program that Debian package $1 installs as .../$2.
find_packaged() {
	local pkg=$1 file=$2 b
	b=$(dpkg -L "$pkg" 2>/dev/null | grep -E "/$file\$" | head -n1) || true
	[ -n "$b" ] && [ -x "$b" ] ||
		die "initramfs: $pkg is not installed (run scripts/deps.sh)"
	echo "$b"
}

# Copies the dynamically linked program $1 into the initramfs at its own
# path, with every shared library ldd lists and its dynamic loader, each
# at the path the program looks for it (the file, not a symlink to it).
# The guest has no ld.so.cache: the loader finds the libraries in its
# default directories, which is where they are.
copy_with_libraries() {
	local prog=$1 deps interp f
	deps=$(ldd "$prog") || die "initramfs: ldd $prog failed: not a dynamically linked program?"
	if grep -q 'not found' <<< "$deps"; then
		die "initramfs: $prog needs missing libraries:" \
			"$(awk '/not found/ { printf " %s", $1 }' <<< "$deps")"
	fi
	interp=$(readelf -l "$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	[ -n "$interp" ] || die "initramfs: $prog names no dynamic loader"
	# ldd prints "name => /path (address)" for a library, "/path (address)"
	# for the loader and no path for the vDSO.
	for f in "$prog" "$interp" $(awk '$2 == "=>" && $3 ~ /^\// { print $3 }
			$1 ~ /^\// { print $1 }' <<< "$deps" | sort -u); do
		[ -e "$root$f" ] && continue
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f" || die "initramfs: cannot copy $f (for $prog)"
	done
}

# The users and groups that tools look up (su, trinity, stress-ng): root,
# and nobody and nogroup (65534) as on Debian.
write_users() {
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
		'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' > "$root/etc/passwd"
	printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' > "$root/etc/group"
}

# Selftests and tools that the series adds, built statically; $1 is the
# directory in the patched tree, $2 the make variable naming the install root.
build_user_dir() {
	local dir=$1 destvar=$2 extra=("${@:3}") name log
	[ -f "$SRC/$dir/Makefile" ] || return 0
	name=${dir//\//-}
	log=$LOGS/$name.log
	mkdir -p "$BUILD/user/$dir"
	make -C "$SRC/$dir" OUTPUT="$BUILD/user/$dir/" KHDR_INCLUDES="$khdr" \
		"${extra[@]}" > "$log" 2>&1 ||
		die "initramfs: building $dir failed (see $log)"
	make -C "$SRC/$dir" OUTPUT="$BUILD/user/$dir/" KHDR_INCLUDES="$khdr" \
		"$destvar" "${extra[@]}" install >> "$log" 2>&1 ||
		die "initramfs: installing $dir failed (see $log)"
}

obj=$(obj_dir)
khdr=$(khdr_includes)
[ -f "$obj/usr/include/linux/ktp.h" ] || [ ! -f "$SRC/include/uapi/linux/ktp.h" ] ||
	die "initramfs: no UAPI headers in $obj/usr/include (run scripts/build.sh)"
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
write_users

# Debian's system call fuzzer and stress tool, for ktp_tools_stress.sh.
trinity=$(find_packaged trinity bin/trinity)
stress_ng=$(find_packaged stress-ng bin/stress-ng)
copy_with_libraries "$trinity"
copy_with_libraries "$stress_ng"

# Debian's trace-cmd, to compare its recording cost with ktp-record's: the
# program with libtracefs, libtraceevent and libzstd, and libtraceevent's
# event-format plugins, which it loads from their packaged directory.
tracecmd=$(find_packaged trace-cmd bin/trace-cmd)
copy_with_libraries "$tracecmd"
plugins=$(dpkg -L libtraceevent1-plugin 2>/dev/null | grep -E '/traceevent/plugins$' | head -n1) || true
[ -n "$plugins" ] && [ -d "$plugins" ] ||
	die "initramfs: libtraceevent1-plugin is not installed (run scripts/deps.sh)"
mkdir -p "$root$plugins"
cp "$plugins"/*.so "$root$plugins/" || die "initramfs: cannot copy $plugins"

# util-linux's unshare and setpriv, for the container tests: a container
# made by an unprivileged user, as a user makes one.
copy_with_libraries "$(command -v unshare)"
copy_with_libraries "$(command -v setpriv)"

# Debian's perf, for the tests that count, sample and attach BPF programs
# to ktp's trace events.
perf=$(find_packaged linux-perf bin/perf)
copy_with_libraries "$perf"

# make bench's workload section: the script and the meter it runs under.
install -m 0755 "$TOP/qemu/bench-workload" "$root/usr/bin/bench-workload"
gcc -static -O2 -Wall -o "$root/usr/bin/bench-run" "$TOP/qemu/bench-run.c" ||
	die "initramfs: cannot build qemu/bench-run.c"

# The harness's own test, against the kernel tree's kselftest.h.
gcc -static -O2 -Wall -I"$SRC/tools/testing/selftests" \
	-o "$root/selftests/harness_test" "$TOP/qemu/harness_test.c" ||
	die "initramfs: cannot build qemu/harness_test.c"

# SRC_PATH and OBJ_PATH, which the selftests' top Makefile passes, place
# the files a test includes from outside its directory (TEST_INCLUDES:
# kselftest/ktap_helpers.sh, ktp/ktp_lib.sh) beside it, as
# run_kselftest.sh has them; tools/ktau is linked statically.
for t in ktp ktau lattop kprof; do
	build_user_dir "tools/testing/selftests/$t" INSTALL_PATH="$root/selftests/$t" \
		SRC_PATH="$SRC/tools/testing/selftests" OBJ_PATH="$root/selftests"
done
build_user_dir tools/ktau DESTDIR="$root" STATIC=1

[ -d "$obj/modules-staging/lib" ] && cp -a "$obj/modules-staging/lib" "$root/"

(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --quiet -R 0:0) > "$out.tmp"
mv "$out.tmp" "$out"
info "initramfs: $out ($(du -h "$out" | cut -f1))"
