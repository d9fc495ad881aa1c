#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the series as patches in their final form, from its final tree.

usage: fold.py [--check] [--lint] SPEC MESSAGES TREE [FINAL] [BRANCH]

The partition (SPEC, Documentation/folding/fold.spec) gives each line the
series adds to the final tree (FINAL, default HEAD of TREE) to exactly one
patch. The text of a file after patch k is its final text without the lines
of later patches; in a file the kernel already has, the base's lines stay
and a hunk that replaces lines comes in whole. So by construction no patch
changes a line an earlier one added, and the last patch's tree is FINAL's.

BRANCH (default "fold") is created on ktau-base with one commit per patch,
its message MESSAGES/<id> (subject from SPEC). --check only checks the
partition; --lint also reports each intermediate file that ends in a
blank line or has two blank lines in a row.
"""
import os
import re
import subprocess
import sys

BASE = 'ktau-base'


def git(tree, *args, inp=None):
    return subprocess.run(['git', '-C', tree] + list(args), input=inp,
                          capture_output=True, text=True, check=True).stdout


def parse_spec(path):
    series, patches, cur = [], [], None
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.startswith('#'):
            continue
        if line.startswith('series '):
            key, title = line.split(None, 2)[1:]
            series.append((key, title.strip(), len(patches)))
        elif line.startswith('patch '):
            pid, subject = line.split(None, 2)[1:]
            cur = {'id': pid, 'subject': subject.strip(), 'files': []}
            patches.append(cur)
        elif line[0] in ' \t' and cur is not None:
            f = line.split()
            cur['files'].append((f[0], f[1] if len(f) > 1 else None, n))
        else:
            sys.exit('%s:%d: cannot parse' % (path, n))
    return series, patches


def ranges(text, last):
    out = set()
    for r in text.split(','):
        a, _, b = r.partition('-')
        lo = int(a)
        hi = (int(b) if b else last) if '-' in r else lo
        out.update(range(lo, hi + 1))
    return out


def hunks(tree, final, path):
    """[(old_start, old_count, new_start, new_count)] of base..final, -U0."""
    out = git(tree, 'diff', '-U0', '--no-color', BASE, final, '--', path)
    hs = []
    for m in re.finditer(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@', out, re.M):
        os_, oc, ns, nc = (int(m.group(1)), int(m.group(2) or 1),
                           int(m.group(3)), int(m.group(4) or 1))
        hs.append((os_, oc, ns, nc))
    return hs


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    check = '--check' in sys.argv
    lint = '--lint' in sys.argv
    spec, msgdir, tree = args[:3]
    final = args[3] if len(args) > 3 else 'HEAD'
    branch = args[4] if len(args) > 4 else 'fold'
    series, patches = parse_spec(spec)
    final = git(tree, 'rev-parse', final).strip()
    changed = git(tree, 'diff', '--name-status', '--no-renames', BASE, final).split('\n')
    files = {}
    for row in filter(None, changed):
        st, path = row.split('\t')
        if st == 'D':
            sys.exit('fold: %s is deleted; a fold adds and changes only' % path)
        new = git(tree, 'show', '%s:%s' % (final, path)).split('\n')
        old = [] if st == 'A' else git(tree, 'show', '%s:%s' % (BASE, path)).split('\n')
        if st == 'A':
            hs = [(0, 0, 1, len(new) - 1)]
        else:
            hs = hunks(tree, final, path)
        added = set()
        for _, _, ns, nc in hs:
            added.update(range(ns, ns + nc))
        files[path] = {'new': new, 'old': old, 'hunks': hs, 'added': added,
                       'stage': {}, 'created': st == 'A'}
    errors = []
    # Ranges first, then each file's "rest".
    for k, p in enumerate(patches):
        for path, rg, n in p['files']:
            if path not in files:
                errors.append('spec:%d: %s is not changed by the series' % (n, path))
                continue
            if rg is None:
                continue
            f = files[path]
            for ln in sorted(ranges(rg, max(f['added']))):
                if ln not in f['added']:
                    errors.append('spec:%d: %s:%d is not an added line' % (n, path, ln))
                elif ln in f['stage']:
                    errors.append('spec:%d: %s:%d is also in patch %s' %
                                  (n, path, ln, patches[f['stage'][ln]]['id']))
                else:
                    f['stage'][ln] = k
    for k, p in enumerate(patches):
        for path, rg, n in p['files']:
            if rg is None and path in files:
                f = files[path]
                if f.get('rest') is not None:
                    errors.append('spec:%d: %s has its rest in two patches' % (n, path))
                f['rest'] = k
                for ln in f['added']:
                    f['stage'].setdefault(ln, k)
    for path, f in sorted(files.items()):
        left = sorted(f['added'] - set(f['stage']))
        if left:
            errors.append('%s: lines %s are in no patch' % (path, left[:10]))
        for os_, oc, ns, nc in f['hunks']:
            st = {f['stage'][ln] for ln in range(ns, ns + nc) if ln in f['stage']}
            if oc and len(st) > 1:
                errors.append('%s: the hunk at %d replaces lines and is split' % (path, ns))
    if errors:
        sys.exit('\n'.join(errors))
    if check and not lint:
        return

    def text_at(f, k):
        """The file's lines after patch k, or None if it does not exist yet."""
        new, old, stage = f['new'], f['old'], f['stage']
        if f['created']:
            if not any(s <= k for s in stage.values()):
                return None
            return [new[i - 1] for i in range(1, len(new)) if stage[i] <= k] + ['']
        out, pos = [], 1
        for os_, oc, ns, nc in f['hunks']:
            start = os_ if oc else os_ + 1
            out += old[pos - 1:start - 1]
            pos = start
            lines = range(ns, ns + nc)
            if oc:
                if stage[ns] <= k:
                    out += [new[i - 1] for i in lines]
                else:
                    out += old[start - 1:start - 1 + oc]
                pos = start + oc
            else:
                out += [new[i - 1] for i in lines if stage[i] <= k]
        out += old[pos - 1:]
        return out

    touched = [sorted({path for path, f in files.items()
                       if k in f['stage'].values()}) for k in range(len(patches))]
    def doubles(lines):
        return sum(1 for i in range(1, len(lines))
                   if not lines[i].strip() and not lines[i - 1].strip())

    if lint:
        for k, p in enumerate(patches[:-1]):
            for path in touched[k]:
                f = files[path]
                body = text_at(f, k)[:-1]
                if body and not body[-1].strip() and f['new'][-2].strip():
                    print('%s %s: ends in a blank line' % (p['id'], path))
                if doubles(body) > max(doubles(f['old']), doubles(f['new'])):
                    print('%s %s: two blank lines in a row' % (p['id'], path))
        if check:
            return

    author = git(tree, 'log', '-1', '--format=%an <%ae>', final).strip()
    # Dated one second apart from the final tree's commit on: the same
    # final tree and partition give the same patches.
    base_time = int(git(tree, 'log', '-1', '--format=%at', final))
    git(tree, 'checkout', '-q', '-B', branch, BASE)
    for k, p in enumerate(patches):
        for path in touched[k]:
            t = text_at(files[path], k)
            full = os.path.join(tree, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, 'w') as out:
                out.write('\n'.join(t))
            mode = git(tree, 'ls-tree', final, '--', path).split()[0]
            os.chmod(full, 0o755 if mode == '100755' else 0o644)
            git(tree, 'add', '-f', '--', path)
        mpath = os.path.join(msgdir, p['id'])
        body = open(mpath).read().strip() if os.path.exists(mpath) else 'TODO'
        sob = 'Signed-off-by: ' + author
        msg = p['subject'] + '\n\n' + body + ('' if sob in body else '\n\n' + sob) + '\n'
        date = '%d +0000' % (base_time + k)
        env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        subprocess.run(['git', '-C', tree, 'commit', '-q', '--author', author, '-F', '-'],
                       input=msg, text=True, check=True, env=env)
    left = git(tree, 'diff', '--stat', final, branch)
    if left:
        sys.exit('fold: %s differs from the final tree:\n%s' % (branch, left))
    print('fold: %d patches on %s, tree equal to %s' % (len(patches), branch, final[:12]))


if __name__ == '__main__':
    main()
