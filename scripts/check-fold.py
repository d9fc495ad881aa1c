#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of the series as a posting: final-form patches, kernel subjects.

usage: check-fold.py TOP PRISTINE-SOURCE

Prints one "PASS|FAIL<TAB>name" line per check, details before it:

  fold      no patch removes or changes a line that an earlier patch of
            the series added. Each patch's hunks are replayed over a map of
            which lines of each file the series added so far. A patch may
            do it only if its message says which API of an earlier
            sub-series it extends, in a line "Extends: <what>"; such
            changes are listed, not failed.
  subjects  "subsystem: imperative summary" of at most 75 characters with
            no final period; the summary starts with a lower-case verb
            that is not a third person, a past or a gerund ("adds",
            "added", "adding"); patches that touch only one directory of
            the series use one prefix for it.
"""
import os
import re
import sys


def patch_subject(text):
    m = re.search(r'(?m)^Subject: (.*(?:\n .*)*)', text)
    s = re.sub(r'\n ', ' ', m.group(1)) if m else ''
    return re.sub(r'^\[PATCH[^\]]*\]\s*', '', s).strip()


def patch_message(text):
    head = text.split('\n---\n', 1)[0]
    return head.split('\n\n', 1)[1] if '\n\n' in head else ''


def file_diffs(text):
    """[(path, created, [hunk lines...]...)] of a patch, in order."""
    out, cur = [], None
    for line in text.split('\n'):
        if line.startswith('diff --git '):
            cur = {'path': None, 'created': False, 'hunks': []}
            out.append(cur)
        elif cur is None:
            continue
        elif line.startswith('--- ') and not cur['hunks']:
            cur['created'] = line == '--- /dev/null'
        elif line.startswith('+++ ') and not cur['hunks']:
            cur['path'] = line[6:] if line.startswith('+++ b/') else None
        elif line.startswith('@@'):
            m = re.match(r'@@ -(\d+)(?:,(\d+))? \+(\d+)', line)
            cur['hunks'].append([int(m.group(1)), int(m.group(2) or 1), []])
        elif cur['hunks'] and line[:1] in (' ', '-', '+', ''):
            cur['hunks'][-1][2].append(line)
    return out


def replay(state, pristine, fd, pname):
    """Apply one file's hunks to state[path] (True per line the series added);
    return the descriptions of earlier-added lines it removes."""
    path = fd['path']
    if path is None:
        return []
    if path not in state:
        if fd['created']:
            state[path] = []
        else:
            src = os.path.join(pristine, path)
            n = len(open(src, errors='replace').read().split('\n')) - 1 if os.path.exists(src) else 0
            state[path] = [False] * n
    old, new, pos, hits = state[path], [], 0, []
    for start, count, lines in fd['hunks']:
        first = start - 1 if count else start
        new += old[pos:first]
        pos = first
        for line in lines:
            if line.startswith('+'):
                new.append(True)
            elif line.startswith('-'):
                if pos < len(old) and old[pos]:
                    hits.append('%s: %s:%d' % (pname, path, pos + 1))
                pos += 1
            elif line.startswith(' ') or line == '':
                if pos < len(old):
                    new.append(old[pos])
                pos += 1
    new += old[pos:]
    state[path] = new
    return hits


VERB_EXCEPTIONS = {'access', 'bypass', 'pass', 'process', 'address', 'focus'}


def subject_problems(subject):
    probs = []
    m = re.match(r'^([A-Za-z0-9_./-]+(?:, [A-Za-z0-9_./-]+)*): (.+)$', subject)
    if not m:
        return ['not "subsystem: summary"']
    summary = m.group(2)
    if len(subject) > 75:
        probs.append('%d characters' % len(subject))
    if summary.endswith('.'):
        probs.append('ends with a period')
    word = summary.split()[0]
    if not word[:1].islower():
        probs.append('summary does not start with a lower-case verb')
    lw = word.lower()
    if lw not in VERB_EXCEPTIONS and (lw.endswith('ing') or lw.endswith('ed') or
                                      (lw.endswith('s') and not lw.endswith('ss'))):
        probs.append('"%s" is not imperative' % word)
    return probs


def main():
    top, pristine = sys.argv[1:3]
    patches = [l.split()[0] for l in open(os.path.join(top, 'series'))
               if l.strip() and not l.startswith('#')]
    state, bad, listed, sub_bad, prefixes = {}, 0, [], 0, {}
    for p in patches:
        text = open(os.path.join(top, 'patches', p)).read()
        extends = re.search(r'(?m)^Extends: ', patch_message(text))
        hits = []
        for fd in file_diffs(text):
            hits += replay(state, pristine, fd, p)
        if hits:
            (listed if extends else [None]).append(p)
            print('  %s %d line(s) an earlier patch added, e.g. %s' %
                  ('extends:' if extends else 'changes', len(hits), hits[0]))
            bad += 0 if extends else 1
        subject = patch_subject(text)
        for prob in subject_problems(subject):
            print('  %s: "%s": %s' % (p, subject, prob))
            sub_bad += 1
        dirs = {os.path.dirname(fd['path']) for fd in file_diffs(text) if fd['path']}
        top3 = {'/'.join(d.split('/')[:4]) for d in dirs}
        if len(top3) == 1 and ':' in subject:
            prefixes.setdefault(top3.pop(), set()).add(subject.split(':')[0])
    for d, pre in sorted(prefixes.items()):
        if len(pre) > 1:
            print('  %s: several prefixes: %s' % (d, ', '.join(sorted(pre))))
            sub_bad += 1
    print('%s\tfold: no patch changes a line an earlier patch added (%d extend an API)'
          % ('PASS' if not bad else 'FAIL', len(listed)))
    print('%s\tsubjects: "subsystem: imperative summary", at most 75 characters'
          % ('PASS' if not sub_bad else 'FAIL'))


if __name__ == '__main__':
    main()
