#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The developer's loop over the series, through git instead of hand-edited
# hunks:
#
#   tree.sh tree     build/tree: the pristine source as commit "base" (tag
#                    ktau-base) plus one commit per patch of 'series' (git am)
#   tree.sh export   patches/ and series regenerated from ktau-base..HEAD
#                    (patches/ holds only the patches the series lists),
#                    then scripts/posting.py: subjects numbered within
#                    each sub-series, its cover letter in covers/, the
#                    patch table of Documentation/design.md
#                    (git format-patch -s --abbrev=9: every patch carries
#                    Signed-off-by and the same index lines on every machine;
#                    blank context lines are written empty, not as one
#                    space, so that no line of a patch ends in white space)
#
# export keeps the series file's comment headings: a heading that stood
# before a patch stands before the patch of the same subject afterwards.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<EOF
usage: $0 tree [--force] | export | --help

  tree     create $TREE from the pristine source and the series
           (--force: recreate it; uncommitted work there is lost)
  export   rewrite patches/ and series from the commits in $TREE
EOF
}

make_tree() {
	local force=${1:-} p
	if [ -d "$TREE/.git" ] && [ "$force" != --force ]; then
		die "tree: $TREE exists; commit there and 'make export', or 'make tree FORCE=1' to recreate it"
	fi
	"$TOP/scripts/source.sh" > /dev/null
	rm -rf "$TREE"
	mkdir -p "$TREE"
	info "tree: copying the pristine source to $TREE"
	rsync -a "$SRC_PRISTINE"/ "$TREE"/
	cd "$TREE"
	# Debian's .gitignore ignores the whole top level; in this tree new
	# files must show up, so the base commit drops that block.
	sed -i '/^# Debian packaging: ignore everything/,$d' .gitignore
	git init -q -b ktau
	git add -A
	git commit -q -m "base: $(make -s kernelversion) from $TARBALL_PKG" \
		-m "Debian's ignore-everything block is dropped from .gitignore."
	git tag ktau-base
	for p in $(series_patches_all); do
		git am -q --keep-cr "$TOP/patches/$p" || die "tree: patches/$p does not apply (git am)"
	done
	info "tree: $TREE has $(series_patches_all | wc -l) patches on ktau-base"
}

export_series() {
	local tmp slug p h
	[ -d "$TREE/.git" ] || die "export: no tree at $TREE (run make tree)"
	git -C "$TREE" rev-parse -q --verify ktau-base > /dev/null || die "export: $TREE has no ktau-base tag"
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "export: $TREE has uncommitted changes; commit them first"
	tmp=$(mktemp -d)
	git -C "$TREE" -c diff.suppressBlankEmpty=true format-patch -q -s -N --zero-commit --no-signature --inter-hunk-context=10 --abbrev=9 \
		-o "$tmp" ktau-base..HEAD
	cp "$TOP/series" "$tmp/.series.old"
	{
		# Each patch gets the comment lines that preceded its subject.
		for p in $(cd "$tmp" && ls -- *.patch 2>/dev/null); do
			slug=${p#[0-9][0-9][0-9][0-9]-}
			h=$(awk -v s="$slug" '/^[[:space:]]*(#|$)/ { h = h $0 "\n"; next }
				{ x = $1; sub(/^[0-9]+-/, "", x); if (x == s) { printf "%s", h; exit } h = "" }' \
				"$tmp/.series.old")
			[ -n "$h" ] && printf '%s\n' "$h"
			echo "$p"
		done
	} > "$tmp/.series.body"
	# A series without headings still gets the file header.
	if ! head -n1 "$tmp/.series.body" | grep -q '^#'; then
		sed -n '1,/^[^#]/{/^#/p}' "$tmp/.series.old" | cat - "$tmp/.series.body" > "$tmp/.s"
		mv "$tmp/.s" "$tmp/.series.body"
	fi
	rm -f "$TOP"/patches/*.patch
	mkdir -p "$TOP/patches"
	mv "$tmp"/*.patch "$TOP/patches/" 2>/dev/null || true
	mv "$tmp/.series.body" "$TOP/series"
	rm -rf "$tmp"
	# Numbered subjects, the sub-series' cover letters, design.md's table.
	python3 "$TOP/scripts/posting.py" "$TOP" "$TREE"
	info "export: $(series_patches_all | wc -l) patches written to patches/ and series"
}

case "${1:-}" in
tree) make_tree "${2:-}" ;;
export) export_series ;;
-h|--help) usage ;;
*) usage >&2; exit 2 ;;
esac
