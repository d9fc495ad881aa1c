#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a trace the guest saved, outside the guest.

The selftest ktp_markers.sh leaves in the export directory a CTF trace
(ktp-ctf/), what the guest's ktp-dump decoded from it (ktp-ctf.kv, one
"marker field=value ..." line per event) and the same trace as Chrome
trace-event JSON (ktp.json). This script checks that Debian's unmodified
babeltrace2 reads the CTF trace to the same events with the same values,
that ktp-dump built for the host decodes it the same way, and that the
JSON parses with one trace event per event, and that babeltrace2 reports
the records the kernel lost (ktp-ctf.lost, from bin/stats) as discarded
events with that exact count. ktp_record.sh's trace of one command (views/)
is checked as viewers read it: in the Chrome JSON, slices nest per thread
and every thread is named and in its process, the command's system calls
are slices of its thread; every line of the ftrace text splits as ftrace's
trace file does. runktau's JSON trace (ktau_runktau.sh, ktau/trace.json)
must nest and name its threads the same way. Results are appended to the
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
# "[time] (delta) [hostname] name: { context }, { payload }"
LINE = re.compile(r'^\[[^]]*\] \([^)]*\) (?:\S+ )?(\S+): (.*)$')
DISCARDED = re.compile(r'^WARNING: Tracer (may have )?discarded (\d+ )?events? ')

# The CTF metadata names some markers and fields as LTTng's kernel traces
# do (tools/ktau/lib/ctf.c); ktp-dump's kv lines keep ktp's names.
LTTNG_NAMES = {
    'sched_switch': ('sched_switch', {'prev_pid': 'prev_tid', 'next_pid': 'next_tid'}),
    'sched_wakeup': ('sched_wakeup', {'pid': 'tid', 'cpu': 'target_cpu'}),
    'sched_migrate': ('sched_migrate_task', {'pid': 'tid'}),
    'sched_process_fork': ('sched_process_fork', {'parent_pid': 'parent_tid',
                                                  'child_pid': 'child_tid',
                                                  'child_tgid': 'child_pid'}),
    'sched_process_exec': ('sched_process_exec', {'pid': 'tid', 'old_pid': 'old_tid'}),
    'sched_process_exit': ('sched_process_exit', {'pid': 'tid'}),
    'irq_entry': ('irq_handler_entry', {}),
    'irq_exit': ('irq_handler_exit', {}),
}


def lttng_kv(line):
    """A kv line of ktp-dump under the names the CTF metadata gives it."""
    marker, *fields = line.split(' ')
    if marker not in LTTNG_NAMES:
        return line
    event, renamed = LTTNG_NAMES[marker]
    out = [event]
    for f in fields:
        name, eq, value = f.partition('=')
        out.append(renamed.get(name, name) + eq + value if eq else f)
    return ' '.join(out)


def babeltrace_kv(ctf):
    """The events of babeltrace2's text output as kv lines, and the counts
    of its discarded-events warnings (None for one without a count)."""
    run = subprocess.run(['babeltrace2', ctf], check=True, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = run.stdout
    discarded = []
    for line in run.stderr.splitlines():
        m = DISCARDED.match(line)
        if m:
            discarded.append(int(m.group(2)) if m.group(2) and not m.group(1) else None)
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
    return events, discarded


# A line of ftrace's trace file, as importers of it (Perfetto's systrace
# importer, KernelShark's text import) split it: task-pid, [cpu], the
# optional flags, seconds.micros, event, fields.
FTRACE = re.compile(r'^\s*(.+)-(\d+)\s+\[(\d{3})\](?:\s+[dX.][Nnp.][Hhs.][0-9a-f.])?\s+(\d+\.\d{6}): ([a-z_0-9]+): (.*)$')


def slice_errors(events):
    """What is wrong with a Chrome JSON trace as Perfetto reads it: phases
    other than X, i and M, negative durations, events of threads that no
    thread_name names, slices of a thread that overlap without nesting.
    Returns those, and the slices by thread."""
    named = {(e['pid'], e['tid']) for e in events
             if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
    slices, bad = {}, []
    for e in events:
        if e.get('ph') not in ('X', 'i', 'M'):
            bad.append('phase %r' % e.get('ph'))
        if e.get('ph') == 'X':
            if e['dur'] < 0:
                bad.append('negative duration')
            slices.setdefault(e['tid'], []).append((e['ts'], e['ts'] + e['dur'], e['name']))
        if e.get('ph') in ('X', 'i') and (e['pid'], e['tid']) not in named:
            bad.append('thread %d of process %d unnamed' % (e['tid'], e['pid']))
    # Slices of a thread nest: none starts inside another and ends after it.
    eps = 1e-6
    for tid, ss in slices.items():
        ss.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for b, end, name in ss:
            while stack and stack[-1][1] <= b + eps:
                stack.pop()
            if stack and end > stack[-1][1] + eps:
                bad.append('thread %d: %s overlaps %s' % (tid, name, stack[-1][2]))
            stack.append((b, end, name))
    return bad, slices


def check_ktau(path, record):
    """runktau -J's trace of one command (ktau_runktau.sh): slices that nest
    per thread, every thread named."""
    try:
        with open(path) as f:
            events = json.load(f)['traceEvents']
    except (OSError, ValueError, KeyError) as e:
        record(False, 'ktau: the guest left runktau\'s JSON trace', str(e))
        return
    bad, slices = slice_errors(events)
    record(not bad and len(slices) > 0,
           'ktau: runktau\'s JSON trace\'s slices nest per thread, every thread named',
           '; '.join(sorted(set(bad))[:5]) or 'no slices')


def check_views(views, record):
    """ktp_record.sh's trace of one command, as Chrome JSON and ftrace text."""
    try:
        with open(os.path.join(views, 'v.json')) as f:
            events = json.load(f)['traceEvents']
        with open(os.path.join(views, 'command.pid')) as f:
            pid = int(f.read())
        tasks = {}
        with open(os.path.join(views, 'v', '.ktp-tasks')) as f:
            for line in f:
                tid, tgid = line.split()[:2]
                tasks[int(tid)] = int(tgid)
    except (OSError, ValueError, KeyError) as e:
        record(False, 'views: the guest left its JSON trace', str(e))
        return
    bad, slices = slice_errors(events)
    for e in events:
        if e.get('ph') in ('X', 'i') and e['tid'] in tasks and tasks[e['tid']] != e['pid']:
            bad.append('thread %d in process %d, not %d' % (e['tid'], e['pid'], tasks[e['tid']]))
    record(not bad and len(slices) > 0,
           'views: the JSON trace\'s slices nest per thread, every thread named, in its process',
           '; '.join(sorted(set(bad))[:5]) or 'no slices')
    own = [e for e in events if e.get('ph') == 'X' and e['tid'] == pid]
    names = {e['name'] for e in own}
    record({'openat', 'read', 'execve'} <= names and all(e['pid'] == pid for e in own),
           'views: the command\'s openat, read and execve are slices of its thread and process',
           'its slices: %s' % sorted(names)[:10])
    try:
        with open(os.path.join(views, 'v.ftrace')) as f:
            lines = [line.rstrip('\n') for line in f if not line.startswith('#')]
    except OSError as e:
        record(False, 'views: the guest left its ftrace text', str(e))
        return
    unparsed = [line for line in lines if not FTRACE.match(line)]
    kinds = {FTRACE.match(line).group(5) for line in lines if FTRACE.match(line)}
    record(lines and not unparsed and {'sched_switch', 'sys_enter', 'sys_exit'} <= kinds,
           'views: every line of the ftrace text splits as ftrace\'s trace file does',
           '%d of %d lines do not, first %r; events %s' % (
               len(unparsed), len(lines), unparsed[:1], sorted(kinds)[:8]))


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
        got, discarded = babeltrace_kv(ctf)
        want_ctf = [lttng_kv(w) for w in want]
        same = sorted(got) == sorted(want_ctf) and len(want) > 0
        record(same, 'trace: babeltrace2 reads the guest\'s CTF trace to the same %d events'
               % len(want), '%d events, first difference %s' % (
                   len(got), next((g for g, w in zip(sorted(got), sorted(want_ctf)) if g != w),
                                  '-')))
        with open(os.path.join(args.files, 'ktp-ctf.lost')) as f:
            lost = int(f.read())
        record(lost > 0 and None not in discarded and sum(discarded) == lost,
               'trace: babeltrace2 reports the %d records the kernel lost as discarded events'
               % lost, 'babeltrace2 reported %r' % discarded)
    except (subprocess.CalledProcessError, ValueError, OSError) as e:
        record(False, 'trace: babeltrace2 reads the guest\'s CTF trace', str(e))

    host = subprocess.run([args.ktp_dump, '-i', ctf, '-f', 'kv'], text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    record(host.returncode == 0 and host.stdout.splitlines() == want,
           'trace: ktp-dump on the host decodes the CTF trace as the guest did')

    try:
        with open(os.path.join(args.files, 'ktp.json')) as f:
            events = json.load(f)['traceEvents']
        names = sorted(e['name'] for e in events if e['ph'] != 'M')
        record(names == sorted(w.split()[0] for w in want),
               'trace: the Chrome JSON trace parses, one trace event per event')
    except (OSError, ValueError, KeyError) as e:
        record(False, 'trace: the Chrome JSON trace parses', str(e))

    check_views(os.path.join(args.files, 'views'), record)
    check_ktau(os.path.join(args.files, 'ktau', 'trace.json'), record)

    results.write(args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
