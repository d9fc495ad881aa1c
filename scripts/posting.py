#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The series as it is posted: sub-series, numbered subjects, cover letters.

usage: posting.py TOP TREE

Run by "make export" after patches/ and series are written. A sub-series
is the run of patches after a heading "# [KEY] title" of series, up to the
next one. For each sub-series this

 - numbers the subjects of its patches "[PATCH n/N]" in patches/;
 - writes covers/KEY.patch, its "[PATCH 0/N]" cover letter: the subject
   and prose of Documentation/covers/KEY.txt, whose "{name}" is the median
   of make bench's figure "name" in Documentation/benchmarks.json and
   "{a/b}" their ratio, then what it applies on, the shortlog and the
   diffstat, all from the commits of TREE;

and rewrites the patch table of Documentation/design.md (between its
"<!-- patches -->" and "<!-- /patches -->" lines). So none of them can
disagree with the patches.
"""
import json
import os
import re
import statistics
import subprocess
import sys


def git(tree, *args):
    return subprocess.run(['git', '-C', tree] + list(args), capture_output=True,
                          text=True, check=True).stdout


def sub_series(top):
    groups, cur = [], None
    for line in open(os.path.join(top, 'series')):
        m = re.match(r'#\s*\[(\w+)\]\s*(.*)', line)
        if m:
            cur = {'key': m.group(1), 'title': m.group(2).strip(), 'patches': []}
            groups.append(cur)
        elif line.strip() and not line.startswith('#'):
            if cur is None:
                sys.exit('posting: %s comes before the first "# [KEY]" heading' % line.strip())
            cur['patches'].append(line.split()[0])
    return groups


def figures(top):
    d = json.load(open(os.path.join(top, 'Documentation/benchmarks.json')))
    names = set().union(*(r.keys() for r in d['runs']))
    return {n: statistics.median(r[n] for r in d['runs'] if n in r) for n in names}


def fill(text, fig, where):
    def one(m):
        a, _, b = m.group(1).partition('/')
        if a not in fig or (b and b not in fig):
            sys.exit('posting: %s names {%s}, which make bench does not give' % (where, m.group(1)))
        if b:
            return '%.2f' % (fig[a] / fig[b])
        v = fig[a]
        return '%d' % round(v) if v < 100000 else '%.1fM' % (v / 1e6)
    return re.sub(r'\{([a-z0-9_]+(?:/[a-z0-9_]+)?)\}', one, text)


def number_subjects(top, group):
    n = len(group['patches'])
    for i, p in enumerate(group['patches'], 1):
        path = os.path.join(top, 'patches', p)
        s = open(path).read()
        s2 = re.sub(r'(?m)^Subject: \[PATCH[^\]]*\] ', 'Subject: [PATCH %d/%d] ' % (i, n), s, count=1)
        if s2 != s:
            open(path, 'w').write(s2)


def cover(top, tree, groups, k, commits, fig):
    g = groups[k]
    first, last = commits[g['first']], commits[g['last']]
    src = os.path.join(top, 'Documentation/covers/%s.txt' % g['key'])
    if not os.path.exists(src):
        sys.exit('posting: %s is missing' % src)
    subject, _, prose = open(src).read().partition('\n')
    prose = fill(prose.strip(), fig, src)
    before = ''.join('  [%s] %s\n' % (h['key'], h['title']) for h in groups[:k])
    base = ('Applies to Linux 6.12 with the sub-series before it applied:\n' + before
            if before else 'Applies to Linux 6.12.\n')
    author = git(tree, 'log', '-1', '--format=%an <%ae>', last).strip()
    date = git(tree, 'log', '-1', '--format=%aD', last).strip()
    shortlog = git(tree, 'shortlog', '%s^..%s' % (first, last))
    stat = git(tree, 'diff', '--stat=72', '--summary', '%s^' % first, last)
    n = g['last'] - g['first'] + 1
    return ('From: %s\nDate: %s\nSubject: [PATCH 0/%d] %s\n\n%s\n\n%s\n%s\n%s'
            % (author, date, n, subject.strip(), prose, base, shortlog.rstrip() + '\n',
               stat))


def design_table(top, groups, commits, tree):
    rows = ['| # | Sub-series | Patch | Lines added |', '|---|---|---|---|']
    for g in groups:
        for i in range(g['first'], g['last'] + 1):
            subj = git(tree, 'log', '-1', '--format=%s', commits[i]).strip()
            num = git(tree, 'show', '--numstat', '--format=', commits[i])
            added = sum(int(x.split()[0]) for x in num.splitlines() if x.split()[0] != '-')
            rows.append('| %04d | %s | %s | %d |' % (i + 1, g['key'], subj.replace('|', '\\|'), added))
    path = os.path.join(top, 'Documentation/design.md')
    s = open(path).read()
    new = re.sub(r'(?s)(<!-- patches -->\n).*?(<!-- /patches -->)',
                 lambda m: m.group(1) + '\n'.join(rows) + '\n' + m.group(2), s)
    if new == s and '<!-- patches -->' not in s:
        sys.exit('posting: design.md has no "<!-- patches -->" block')
    open(path, 'w').write(new)


def main():
    top, tree = sys.argv[1:3]
    groups = sub_series(top)
    commits = git(tree, 'rev-list', '--reverse', 'ktau-base..HEAD').split()
    pos = 0
    for g in groups:
        g['first'], g['last'] = pos, pos + len(g['patches']) - 1
        pos += len(g['patches'])
    if pos != len(commits):
        sys.exit('posting: series lists %d patches, the tree has %d commits' % (pos, len(commits)))
    fig = figures(top)
    os.makedirs(os.path.join(top, 'covers'), exist_ok=True)
    for f in os.listdir(os.path.join(top, 'covers')):
        os.remove(os.path.join(top, 'covers', f))
    for k, g in enumerate(groups):
        if not g['patches']:
            sys.exit('posting: sub-series %s has no patch' % g['key'])
        number_subjects(top, g)
        with open(os.path.join(top, 'covers', g['key'] + '.patch'), 'w') as out:
            out.write(cover(top, tree, groups, k, commits, fig))
    design_table(top, groups, commits, tree)
    print('posting: %d sub-series, %s patches' %
          (len(groups), '+'.join(str(len(g['patches'])) for g in groups)))


if __name__ == '__main__':
    main()
