#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the JavaScript the flame graph page is drawn with (d3 and
# d3-flame-graph, the versions web/package-lock.json pins, with their
# integrity hashes) from the npm registry into $BUILD/vendor; do nothing when
# that lock file is installed already.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF2
usage: $0 [--help]

Runs 'npm ci' on a copy of web/package.json and web/package-lock.json in
\$BUILD/vendor, so that \$BUILD/vendor/node_modules holds the packages the
lock file names. The page inlines them: it needs no network when opened.
EOF2
}

case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

command -v npm > /dev/null || die "vendor: npm is not installed (Debian: apt-get install npm)"
dir=$BUILD/vendor
if [ -f "$dir/node_modules/.ktau-lock" ] &&
	cmp -s "$TOP/web/package-lock.json" "$dir/node_modules/.ktau-lock"; then
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
cp "$TOP/web/package.json" "$TOP/web/package-lock.json" "$dir/"
info "vendor: npm ci in $dir (d3, d3-flame-graph)"
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) ||
	die "vendor: npm ci failed"
cp "$TOP/web/package-lock.json" "$dir/node_modules/.ktau-lock"
