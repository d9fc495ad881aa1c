#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unpack the files a guest exported through its third serial port (see
# export_files in qemu/init): a base64 tar between "ktau-files begin" and
# "ktau-files end" in build/logs/NAME.out.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF2
usage: $0 NAME DIR

Unpacks the files of \$BUILD/logs/NAME.out into DIR (created or emptied).
Exits 1 when the guest exported nothing.
EOF2
}

case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# = 2 ] || { usage >&2; exit 2; }
out=$LOGS/$1.out
dir=$2
[ -s "$out" ] || die "guest-files: $out is empty: the guest exported nothing"
rm -rf "$dir"
mkdir -p "$dir"
tr -d '\r' < "$out" |
	sed -n '/^ktau-files begin$/,/^ktau-files end$/{/^ktau-files /d;p}' |
	base64 -d | tar -C "$dir" -xf -
