#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the pipeline needs; do nothing when all are there.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--list] [--help]

Installs, with apt-get, whichever of the packages below is missing and says
what it installed. When all are present it prints nothing and exits 0. Not
root: prints the exact apt-get line to run and fails.

  --list   print the package list and exit
EOF
}

PACKAGES=(
	linux-source-6.12 quilt qemu-system-x86 busybox-static
	build-essential flex bison bc libelf-dev libssl-dev cpio kmod
	ccache sparse python3-sphinx python3-yaml xz-utils rsync babeltrace2
	util-linux trinity stress-ng trace-cmd linux-perf chromium
)
# npm installs the flame graph page's JavaScript (scripts/vendor.sh); a
# machine with its own Node.js keeps it.
command -v npm > /dev/null || PACKAGES+=(npm)

case "${1:-}" in
-h|--help) usage; exit 0 ;;
--list) printf '%s\n' "${PACKAGES[@]}"; exit 0 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "error: missing packages; as root run: apt-get update && $line" >&2
	exit 1
fi
echo ">> installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || { echo "error: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
$line -qq >/dev/null || { echo "error: apt-get install ${missing[*]} failed" >&2; exit 1; }
echo ">> installed: ${missing[*]}"
