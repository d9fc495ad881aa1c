#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure the kernel: tinyconfig + the fragments in kernel-config/, merged
# with the kernel's merge_config.sh, then olddefconfig. Every option a
# fragment asks for must survive olddefconfig; one that Kconfig silently
# dropped is an error that names it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: VARIANT=[debug|kcsan|bench|modules|off] $0 [--help]

Writes \$BUILD/obj[-VARIANT]/.config from tinyconfig, kernel-config/base.config,
kernel-config/distro.config, kernel-config/ktau.config and, for a variant, kernel-config/VARIANT.config.
Reconfigures only when a fragment or the patched tree changed.
EOF
}

case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

fragments=("$TOP/kernel-config/base.config" "$TOP/kernel-config/distro.config"
	"$TOP/kernel-config/ktau.config")
# A variant with a fragment of its own (debug, kcsan, bench) adds it; others
# (bisect, dev) build the plain configuration in their own directory.
[ -n "$VARIANT" ] && [ -f "$TOP/kernel-config/$VARIANT.config" ] &&
	fragments+=("$TOP/kernel-config/$VARIANT.config")
for f in "${fragments[@]}"; do
	[ -f "$f" ] || die "config: fragment $f does not exist"
done
# The kcsan variant is the debug kernel with KCSAN instead of KASAN and
# kmemleak: kcsan.config must hold every option line of debug.config but
# theirs, so that a check added to one is not forgotten in the other.
if [ "$VARIANT" = kcsan ]; then
	missing=$(grep -E '^(CONFIG_|# CONFIG_.* is not set$)' "$TOP/kernel-config/debug.config" |
		grep -vE 'CONFIG_(KASAN|DEBUG_KMEMLEAK)' |
		grep -vxF -f "$TOP/kernel-config/kcsan.config" || true)
	[ -z "$missing" ] ||
		die "config: kcsan.config lacks these lines of debug.config: ${missing//$'\n'/, }"
fi

obj=$(obj_dir)
stamp=$obj/.config-stamp
# Reconfigure when a fragment, the series or the set of applied patches
# (the bisect tree applies them one by one) changed.
digest=$( { cat "${fragments[@]}"; echo "$SRC"
	cat "$BUILD/src/.series-stamp" "$SRC/.pc/applied-patches" 2>/dev/null || true; } |
	sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ] && [ -f "$obj/.config" ]; then
	exit 0
fi
rm -f "$stamp"
mkdir -p "$obj" "$LOGS"
log=$LOGS/config${VARIANT:+-$VARIANT}.log

info "config: tinyconfig + ${fragments[*]##*/}"
{
	kmake tinyconfig
	(cd "$SRC" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$obj" \
		"$obj/.config" "${fragments[@]}")
	kmake olddefconfig
} > "$log" 2>&1 || die "config: configuration failed (see $log)"

# Every CONFIG_X=v and '# CONFIG_X is not set' line of every fragment must
# hold in the final .config. With KTAU_ALLOW_UNKNOWN=1 (series-check, which
# configures the tree after each patch) or a prefix of the series
# (SERIES_UPTO), an option that no Kconfig file of the tree declares yet is
# let through.
[ -z "${SERIES_UPTO:-}" ] || KTAU_ALLOW_UNKNOWN=1
declared() {
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config ${1#CONFIG_}\b" "$SRC"
}
# A later fragment overrides an earlier one (a variant may turn an option of
# ktau.config off): the last line naming an option is the one checked.
declare -A want
for f in "${fragments[@]}"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want[${line%%=*}]="$line	${f##*/}" ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			want[${opt%% *}]="$line	${f##*/}"
			;;
		esac
	done < "$f"
done
dropped=0
for opt in "${!want[@]}"; do
	line=${want[$opt]%%	*}
	from=${want[$opt]##*	}
	case "$line" in
	CONFIG_*=*)
		if ! grep -qxF "$line" "$obj/.config" &&
		   ! { [ "${KTAU_ALLOW_UNKNOWN:-0}" = 1 ] && ! declared "$opt"; }; then
			now=$(grep -E "^($opt=|# $opt is not set)" "$obj/.config" || echo "absent")
			echo "error: config: $line (from $from) was dropped by Kconfig; now: $now" >&2
			dropped=1
		fi
		;;
	*)
		if grep -q "^$opt=" "$obj/.config"; then
			echo "error: config: $opt (from $from) must be off but is $(grep "^$opt=" "$obj/.config")" >&2
			dropped=1
		fi
		;;
	esac
done
[ "$dropped" = 0 ] || exit 1
echo "$digest" > "$stamp"
