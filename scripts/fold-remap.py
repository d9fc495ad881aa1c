#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Carry fold.spec's line ranges from one final tree to an edited one.

usage: fold-remap.py SPEC TREE OLD NEW > NEW-SPEC

fold.spec names lines of the final tree by number, so an edit of a file
whose lines several patches share moves the ranges of every later line.
For each such file, this diffs its text at OLD and NEW (difflib): a line
that stayed keeps its patch, and a line the edit added goes to the patch
of the line before it (the first line of a file, to the patch of the line
after it). The ranges are then written again from that assignment; what
a patch takes as a file's rest stays so, and a range open to the end of
the file ("N-") stays open. Lines that should go elsewhere
are moved by hand afterwards, and fold.py --check verifies the result.
A file that is new in NEW, or renamed, is not handled: name it in the
spec by hand, with NEW's line numbers, before running this.
"""
import difflib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fold  # noqa: E402


def added_lines(tree, final, path):
    new = fold.git(tree, 'show', '%s:%s' % (final, path)).split('\n')
    try:
        fold.git(tree, 'cat-file', '-e', '%s:%s' % (fold.BASE, path))
        hs = fold.hunks(tree, final, path)
    except subprocess.CalledProcessError:
        hs = [(0, 0, 1, len(new) - 1)]
    added = set()
    for _, _, ns, nc in hs:
        added.update(range(ns, ns + nc))
    return new, added


def assignment(patches, path, added):
    """{line: patch index} of PATH, as fold.py computes it."""
    stage, rest = {}, None
    for k, p in enumerate(patches):
        for fpath, rg, _ in p['files']:
            if fpath != path:
                continue
            if rg is None:
                rest = k
            else:
                for ln in fold.ranges(rg, max(added)):
                    stage[ln] = k
    if rest is not None:
        for ln in added:
            stage.setdefault(ln, rest)
    return stage, rest


def p_open(p, path):
    """Whether patch P's ranges of PATH end with a range open to the end."""
    return any(f == path and rg and rg.endswith('-') for f, rg, _ in p['files'])


def compress(lines):
    out, run = [], []
    for ln in sorted(lines):
        if run and ln == run[-1] + 1:
            run.append(ln)
        else:
            if run:
                out.append(run)
            run = [ln]
    if run:
        out.append(run)
    return ','.join('%d' % r[0] if len(r) == 1 else '%d-%d' % (r[0], r[-1])
                    for r in out)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    specpath, tree, old, new = sys.argv[1:]
    _, patches = fold.parse_spec(specpath)
    ranged = sorted({f for p in patches for f, rg, _ in p['files'] if rg is not None})
    newranges = {}
    for path in ranged:
        try:
            otext, oadded = added_lines(tree, old, path)
        except subprocess.CalledProcessError:
            continue    # new in NEW: its ranges are NEW's already
        try:
            ntext, nadded = added_lines(tree, new, path)
        except subprocess.CalledProcessError:
            sys.exit('fold-remap: %s is gone in %s' % (path, new))
        ostage, rest = assignment(patches, path, oadded)
        sm = difflib.SequenceMatcher(None, otext, ntext, autojunk=False)
        nstage = {}
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == 'equal':
                for d in range(i2 - i1):
                    if i1 + d + 1 in ostage:
                        nstage[j1 + d + 1] = ostage[i1 + d + 1]
        for ln in sorted(nadded):
            if ln in nstage:
                continue
            prev = [x for x in nstage if x < ln]
            nxt = [x for x in nstage if x > ln]
            if prev:
                nstage[ln] = nstage[max(prev)]
            elif nxt:
                nstage[ln] = nstage[min(nxt)]
            elif rest is not None:
                nstage[ln] = rest
        for k, p in enumerate(patches):
            lines = [ln for ln in nadded if nstage.get(ln) == k]
            for f, rg, _ in p['files']:
                if f != path or rg is None:
                    continue
                rg = compress(lines) if k != rest else None
                # A range open to the end ("N-") stays open.
                if rg and p_open(p, path) and max(lines) == max(nadded):
                    rg = rg[:len(rg) - len(str(max(lines)))]
                newranges[(k, path)] = rg
    out = []
    k = -1
    for line in open(specpath):
        if line.startswith('patch '):
            k += 1
        f = line.split()
        if line[:1] in ' \t' and len(f) == 2 and (k, f[0]) in newranges:
            rg = newranges[(k, f[0])]
            if not rg:
                continue
            line = '\t%s %s\n' % (f[0], rg)
        out.append(line)
    sys.stdout.write(''.join(out))


if __name__ == '__main__':
    main()
