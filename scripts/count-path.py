#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count, instruction by instruction, one iteration of a make bench case.

Boots the bench kernel under QEMU with -icount and its gdb stub, waits
until ktp-bench's case calls FUNC from the benchmark module (a probe of a
site the module's loop fires), then single-steps from that call to the
same call two iterations later and prints, for the second iteration, the
instructions executed in each function, in order of first execution, and
their total. The total includes the loop's own instructions, which
make bench subtracts (4 in the loop cases): Documentation/cost.md
explains the figures.

  scripts/count-path.py lattop_user_pair lattop_sched_prepare_block
  scripts/count-path.py --listing ktau_profile_pair ktau_syscall_entry

Needs gdb (apt-get install gdb); builds what is missing like make bench.
The kernel has no KASLR (kernel-config), so System.map's addresses hold.
"""

import argparse
import bisect
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD', os.path.join(TOP, 'build'))
OBJ = os.path.join(BUILD, 'obj')
MODULES = (0xffffffffa0000000, 0xffffffffff000000)
CONSOLE = os.path.join(BUILD, 'logs', 'count-path.console')

# Runs inside gdb: COUNT_FUNC, COUNT_OUT and COUNT_PORT come from the
# environment. Writes "iteration address" lines.
GDB_SCRIPT = r'''
import gdb, os
start = int(os.environ['COUNT_FUNC'], 16)
lo, hi = MODULES
gdb.execute('set pagination off')
gdb.execute('target remote :' + os.environ['COUNT_PORT'])
gdb.execute('hbreak *0x%x' % start)
hits = 0
# The first call from the module is the case's untimed warm-up.
while hits < 2:
    gdb.execute('continue', to_string=True)
    rsp = int(gdb.parse_and_eval('$rsp'))
    ret = int(gdb.parse_and_eval('*(unsigned long *)%d' % rsp))
    ret &= (1 << 64) - 1
    if lo <= ret < hi:
        hits += 1
gdb.execute('delete')
seen = 0
with open(os.environ['COUNT_OUT'], 'w') as out:
    while True:
        pc = int(gdb.parse_and_eval('$pc')) & ((1 << 64) - 1)
        if pc == start:
            seen += 1
            if seen == 3:
                break
        out.write('%d %x\n' % (seen, pc))
        gdb.execute('stepi', to_string=True)
gdb.execute('kill')
'''.replace('MODULES', repr(MODULES))


def die(msg):
    print('error: ' + msg, file=sys.stderr)
    sys.exit(1)


def text_symbols():
    path = os.path.join(OBJ, 'System.map')
    if not os.path.exists(path):
        die('no %s (run make kernel)' % path)
    syms = []
    with open(path) as f:
        for line in f:
            addr, kind, name = line.split()[:3]
            if kind in 'tTwW':
                syms.append((int(addr, 16), name))
    syms.sort()
    return syms


def name_of(syms, addrs, pc):
    if MODULES[0] <= pc < MODULES[1]:
        return '(module)'
    i = bisect.bisect_right(addrs, pc) - 1
    return syms[i][1] if i >= 0 else hex(pc)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait_for_port(port, seconds):
    """Whether QEMU's gdb stub accepts connections within @seconds."""
    for _ in range(seconds * 10):
        try:
            socket.create_connection(('127.0.0.1', int(port)), 1).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def build():
    for step in ('deps.sh', 'source.sh', 'config.sh', 'build.sh',
                 'initramfs.sh'):
        subprocess.run([os.path.join(TOP, 'scripts', step)], check=True,
                       stdout=subprocess.DEVNULL)


def count(case, func, listing, timeout):
    syms = text_symbols()
    start = [a for a, n in syms if n == func]
    if len(start) != 1:
        die('%s: %s in System.map' % (func, 'ambiguous' if start else 'not'))
    port = str(free_port())
    tmp = tempfile.mkdtemp(prefix='count-path.')
    script = os.path.join(tmp, 'count.py')
    out = os.path.join(tmp, 'pcs')
    with open(script, 'w') as f:
        f.write(GDB_SCRIPT)
    # The bench boot of make bench, with the gdb stub: scripts/boot.sh.
    vm = subprocess.Popen([os.path.join(TOP, 'scripts', 'boot.sh'),
                           '--icount', '--gdb', port, '--log', 'count-path',
                           '--timeout', str(timeout),
                           '--append', 'ktau_bench=' + case, 'bench'],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True)
    env = dict(os.environ, COUNT_FUNC='%x' % start[0], COUNT_OUT=out,
               COUNT_PORT=port)
    try:
        if not wait_for_port(port, 60):
            die('QEMU did not open its gdb stub (console: %s)' % CONSOLE)
        subprocess.run(['gdb', '-q', '-batch', '-x', script], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        die('no call of %s from case %s within %d s (console: %s)' %
            (func, case, timeout, CONSOLE))
    finally:
        os.killpg(vm.pid, signal.SIGKILL)
        vm.wait()
    pcs = []
    if os.path.exists(out):
        with open(out) as f:
            pcs = [int(line.split()[1], 16) for line in f
                   if line.split()[0] == '2']
    if not pcs:
        die('no iteration recorded (console: %s)' % CONSOLE)
    shutil.rmtree(tmp)
    addrs = [a for a, _ in syms]
    per = {}
    for pc in pcs:
        name = name_of(syms, addrs, pc)
        per[name] = per.get(name, 0) + 1
        if listing:
            print('%x %s' % (pc, name))
    for name, n in per.items():
        print('%6d  %s' % (n, name))
    print('%6d  total, one iteration of %s' % (len(pcs), case))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        epilog='The case is an id of ktp-bench -l; FUNC a kernel function '
        'the case calls from the benchmark module.')
    ap.add_argument('case', help='ktp-bench id, e.g. lattop_user_pair')
    ap.add_argument('func', help='the function an iteration starts at')
    ap.add_argument('--listing', action='store_true',
                    help='print every instruction address, in order')
    ap.add_argument('--timeout', type=int, default=900,
                    help='seconds to wait for the case (default 900)')
    ap.add_argument('--no-build', action='store_true',
                    help='use the kernel and initramfs as they are')
    args = ap.parse_args()
    if not shutil.which('gdb'):
        die('gdb not found (apt-get install gdb)')
    if not args.no_build:
        build()
    count(args.case, args.func, args.listing, args.timeout)


if __name__ == '__main__':
    main()
