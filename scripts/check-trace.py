#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a trace the guest saved, outside the guest.

The selftest ktp_markers.sh leaves in the export directory a CTF trace
(ktp-ctf/), what the guest's ktp-dump decoded from it (ktp-ctf.kv, one
"marker field=value ..." line per event) and the same trace as Chrome
trace-event JSON (ktp.json). This script checks that Debian's unmodified
babeltrace2 reads the CTF trace to the same events with the same values,
that ktp-dump built for the host decodes it the same way, and that the
JSON parses with one trace event per event. Results are appended to the
results file as PASS/FAIL lines.
"""
import argparse
import json
import os
import re
import subprocess
import sys

from hostcheck import Results

FIELD = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*) = ("(?:[^"\\]|\\.)*"|[^,]+?)\s*(?:,|$)')
LINE = re.compile(r'^\[[^]]*\] \([^)]*\) (\S+): (.*)$')


def babeltrace_kv(ctf):
    """The events of babeltrace2's text output as kv lines."""
    out = subprocess.run(['babeltrace2', ctf], check=True, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    events = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            raise ValueError('unexpected babeltrace2 line: ' + line)
        name, rest = m.groups()
        payload = rest[rest.rindex('{ ') + 2:]
        payload = payload[:payload.rindex(' }')] if ' }' in payload else ''
        fields = []
        for f in FIELD.finditer(payload):
            value = f.group(2)
            if value.startswith('"'):
                value = bytes(value[1:-1], 'utf-8').decode('unicode_escape')
            fields.append('%s=%s' % (f.group(1), value))
        events.append(' '.join([name] + fields))
    return events


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--files', required=True, help='what the guest exported')
    ap.add_argument('--ktp-dump', required=True, help='ktp-dump built for the host')
    ap.add_argument('--out', required=True, help='results file to append to')
    args = ap.parse_args()

    results = Results()
    record = results.record

    ctf = os.path.join(args.files, 'ktp-ctf')
    with open(os.path.join(args.files, 'ktp-ctf.kv')) as f:
        want = f.read().splitlines()
    try:
        got = babeltrace_kv(ctf)
        same = sorted(got) == sorted(want) and len(want) > 0
        record(same, 'trace: babeltrace2 reads the guest\'s CTF trace to the same %d events'
               % len(want), '%d events, first difference %s' % (
                   len(got), next((g for g, w in zip(sorted(got), sorted(want)) if g != w), '-')))
    except (subprocess.CalledProcessError, ValueError) as e:
        record(False, 'trace: babeltrace2 reads the guest\'s CTF trace', str(e))

    host = subprocess.run([args.ktp_dump, '-i', ctf, '-f', 'kv'], text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    record(host.returncode == 0 and host.stdout.splitlines() == want,
           'trace: ktp-dump on the host decodes the CTF trace as the guest did')

    try:
        with open(os.path.join(args.files, 'ktp.json')) as f:
            events = json.load(f)['traceEvents']
        names = sorted(e['name'] for e in events)
        record(names == sorted(w.split()[0] for w in want),
               'trace: the Chrome JSON trace parses, one trace event per event')
    except (OSError, ValueError, KeyError) as e:
        record(False, 'trace: the Chrome JSON trace parses', str(e))

    results.write(args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
