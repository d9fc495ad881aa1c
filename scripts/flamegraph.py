#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw folded stacks as flame graphs on one web page, and check the drawing.

Folded stacks are lines "frame;frame;...;frame value", outermost frame
first, as lattop -f and kprof -f print them (and as flamegraph.pl, inferno
and speedscope read them). The page draws each file with d3-flame-graph,
whose code and d3's (installed by scripts/vendor.sh from the versions
web/package-lock.json pins) it carries inline: it opens from the disk, with
no network.

  flamegraph.py --vendor DIR --out PAGE --graph TITLE UNIT FILE [--graph ...]
      writes PAGE
  flamegraph.py --check PAGE --graph TITLE UNIT FILE [...] [--out RESULTS]
      opens PAGE in headless Chromium and checks that it drew, for each
      graph, one frame per node of at least 1% of its total, named after it
      and with a width; appends PASS/FAIL lines to RESULTS, or prints them
"""
import argparse
import html
import json
import os
import re
import subprocess
import sys


def read_folded(path):
    """The tree of a folded-stacks file: {name, value, children}, values
    inclusive; lines that do not parse are counted, not guessed at."""
    root = {'name': 'all', 'value': 0, 'children': []}
    bad = 0
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'^(.*\S) (\d+)$', line)
            if not m:
                bad += line.strip() != ''
                continue
            value = int(m.group(2))
            node = root
            node['value'] += value
            for name in m.group(1).split(';'):
                for child in node['children']:
                    if child['name'] == name:
                        break
                else:
                    child = {'name': name, 'value': 0, 'children': []}
                    node['children'].append(child)
                child['value'] += value
                node = child
    return root, bad


def nodes(tree, depth=0):
    """Every node of @tree but the root, with its depth."""
    for child in tree['children']:
        yield child, depth + 1
        yield from nodes(child, depth + 1)


def script_text(text):
    """@text made safe inside a <script> element."""
    return text.replace('</', '<\\/')


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em 2em; }}
h2 {{ margin-bottom: 0.2em; }}
p.what {{ margin-top: 0; color: #444; }}
{css}
</style>
<script>{d3}</script>
<script>{flamegraph}</script>
</head>
<body>
<h1>{title}</h1>
{sections}
<script>
const graphs = JSON.parse(document.getElementById('graphs').textContent);
graphs.forEach(function (g, i) {{
	const chart = flamegraph.default()
		.width(Math.max(800, document.body.clientWidth - 40))
		.cellHeight(18)
		.minFrameSize(1)
		.transitionDuration(0)
		.title('')
		.label(function (d) {{
			return d.data.name + ' (' + d.value + ' ' + g.unit + ', ' +
				(100 * d.value / g.tree.value).toFixed(1) + '%)';
		}});
	d3.select('#chart-' + i).datum(g.tree).call(chart);
}});
document.body.setAttribute('data-drawn', graphs.length);
</script>
</body>
</html>
"""

SECTION = """<h2>{title}</h2>
<p class="what">{what}</p>
<div id="chart-{i}" class="chart"></div>
"""


def write_page(args, graphs):
    dist = os.path.join(args.vendor, 'node_modules')

    def read(*parts):
        with open(os.path.join(dist, *parts)) as f:
            return f.read()

    sections = []
    data = []
    for i, (title, unit, path, tree, bad) in enumerate(graphs):
        what = '%s: %d %s in %d stacks' % (os.path.basename(path), tree['value'], unit,
                                           sum(1 for _ in nodes(tree)))
        if bad:
            what += ', %d lines not in the folded format left out' % bad
        sections.append(SECTION.format(title=html.escape(title), what=html.escape(what), i=i))
        data.append({'title': title, 'unit': unit, 'tree': tree})
    sections.append('<script type="application/json" id="graphs">%s</script>'
                    % script_text(json.dumps(data)))
    page = PAGE.format(title=html.escape(args.title), css=read('d3-flame-graph', 'dist', 'd3-flamegraph.css'),
                       d3=script_text(read('d3', 'dist', 'd3.min.js')),
                       flamegraph=script_text(read('d3-flame-graph', 'dist', 'd3-flamegraph.umd.min.js')),
                       sections='\n'.join(sections))
    with open(args.out, 'w') as f:
        f.write(page)


def chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        for d in os.environ.get('PATH', '').split(':'):
            if os.access(os.path.join(d, name), os.X_OK):
                return os.path.join(d, name)
    return None


FRAME = re.compile(r'<g [^>]*>')
ATTR = re.compile(r'([a-z-]+)="([^"]*)"')


def drawn_frames(dom, i):
    """Name and width of each frame drawn in chart @i of @dom."""
    start = dom.find('id="chart-%d"' % i)
    if start < 0:
        return None
    end = dom.find('id="chart-%d"' % (i + 1), start)
    part = dom[start:end if end > 0 else len(dom)]
    frames = []
    for m in FRAME.finditer(part):
        attrs = dict(ATTR.findall(m.group(0)))
        if 'frame' in attrs.get('class', '').split():
            rect = re.match(r'\s*<rect [^>]*width="([0-9.]+)"', part[m.end():])
            frames.append((html.unescape(attrs.get('name', '')),
                           float(rect.group(1)) if rect else 0.0))
    return frames


def check_page(args, graphs):
    lines = []

    def record(ok, name, detail=''):
        lines.append('%s\t%s%s' % ('PASS' if ok else 'FAIL', name,
                                   ': ' + detail if detail and not ok else ''))

    browser = chromium()
    if not browser:
        record(False, 'flamegraph: headless Chromium opens the page', 'no chromium')
        return lines
    run = subprocess.run([browser, '--headless', '--no-sandbox', '--disable-gpu',
                          '--virtual-time-budget=5000', '--dump-dom',
                          'file://' + os.path.abspath(args.check)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         timeout=120)
    dom = run.stdout
    record(run.returncode == 0 and 'data-drawn="%d"' % len(graphs) in dom,
           'flamegraph: headless Chromium runs the page\'s scripts to the end',
           'exit %d, %d bytes of DOM' % (run.returncode, len(dom)))
    for i, (title, unit, path, tree, bad) in enumerate(graphs):
        frames = drawn_frames(dom, i) or []
        names = {}
        for name, width in frames:
            names.setdefault(name, []).append(width)
        big = [(n, d) for n, d in nodes(tree) if n['value'] * 100 >= tree['value']]
        missing = [n['name'] for n, _ in big
                   if not any(w > 0 for w in names.get(n['name'], []))]
        record(tree['value'] > 0 and len(big) > 0 and not missing and not bad,
               'flamegraph: %s: the %d frames of 1%% or more are drawn, named, with a width'
               % (title, len(big)),
               '%d frames drawn; missing %s; %d bad lines' % (len(frames), missing[:5], bad))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--graph', nargs=3, action='append', required=True,
                    metavar=('TITLE', 'UNIT', 'FILE'), help='a folded-stacks file to draw')
    ap.add_argument('--vendor', help='where scripts/vendor.sh installed the packages')
    ap.add_argument('--title', default='Flame graphs', help='the page\'s title')
    ap.add_argument('--out', help='the page to write; with --check, the results file')
    ap.add_argument('--check', metavar='PAGE', help='check PAGE in headless Chromium')
    args = ap.parse_args()

    graphs = []
    for title, unit, path in args.graph:
        try:
            tree, bad = read_folded(path)
        except OSError as e:
            print('flamegraph.py: %s: %s' % (path, e.strerror), file=sys.stderr)
            return 1
        graphs.append((title, unit, path, tree, bad))
    if args.check:
        lines = check_page(args, graphs)
        if args.out:
            with open(args.out, 'a') as f:
                f.write(''.join(line + '\n' for line in lines))
        else:
            print('\n'.join(lines))
        return 0 if all(line.startswith('PASS') for line in lines) else 1
    if not args.vendor or not args.out:
        ap.error('--vendor and --out are needed to write a page')
    write_page(args, graphs)
    return 0


if __name__ == '__main__':
    sys.exit(main())
