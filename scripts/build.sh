#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the configured kernel out of tree: bzImage and modules, installed
# into a staging directory the initramfs picks up.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: VARIANT=[debug|kcsan|bench] $0 [--help] [make arguments...]

Builds \$BUILD/obj[-VARIANT] with -j\$(nproc), through ccache when present.
The kernel image is \$BUILD/obj[-VARIANT]/arch/x86/boot/bzImage; modules
are installed under \$BUILD/obj[-VARIANT]/modules-staging.
Extra arguments go to the kernel's make (e.g. W=1).
EOF
}

case "${1:-}" in
-h|--help) usage; exit 0 ;;
esac

obj=$(obj_dir)
[ -f "$obj/.config" ] || die "build: $obj is not configured (run scripts/config.sh)"
mkdir -p "$LOGS"
log=$LOGS/build${VARIANT:+-$VARIANT}.log
info "build: $(kmake -s kernelrelease 2>/dev/null) in $obj ($(nproc) jobs)"
if ! kmake -j"$(nproc)" "$@" bzImage modules > "$log" 2>&1; then
	grep -E 'error:|Error [0-9]+' "$log" | head -n 5 >&2 || true
	die "build: kernel build failed (see $log)"
fi
staging=$obj/modules-staging
rm -rf "$staging"
if grep -q '^CONFIG_MODULES=y' "$obj/.config"; then
	kmake INSTALL_MOD_PATH="$staging" INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod \
		modules_install >> "$log" 2>&1 || die "build: modules_install failed (see $log)"
fi
# The UAPI headers as user space sees them (obj/usr/include), which the
# tools and selftests are built against (khdr_includes in lib.sh).
kmake headers_install >> "$log" 2>&1 || die "build: headers_install failed (see $log)"
info "build: $(kernel_image)"
