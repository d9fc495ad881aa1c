#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a kprof profile the guest saved, outside the guest.

The selftest kprof_tool.sh leaves in the export directory the guest's
/dev/kpdata (kprof/kpdata.gz) and what the guest's kprof printed from it
with /proc/kallsyms (kprof/folded). This script checks that kprof built
for the host, with the kernel's System.map, names the same symbols with
the same ticks, and that util-linux's readprofile reads the /proc/profile
export of kprof -r to the file's own buckets and totals. Results are
appended to the results file as PASS/FAIL lines.
"""
import argparse
import gzip
import os
import struct
import subprocess
import sys
import tempfile

from hostcheck import Results


def read_kpdata(path):
    with gzip.open(path, 'rb') as f:
        raw = f.read()
    return list(struct.unpack('>%dI' % (len(raw) // 4), raw))


def readprofile_range(system_map):
    """_stext, and the first bucket readprofile does not charge to a symbol.

    readprofile stops at the first symbol after _stext that is not text;
    it charges buffer words up to the last text symbol before that, which
    (word 0 being the step) are the buckets below its bucket minus one.
    """
    stext = last = None
    with open(system_map) as f:
        for line in f:
            addr, kind, name = line.split()[:3]
            if name == '_stext':
                stext = last = int(addr, 16)
            elif stext is not None:
                if kind not in 'tTwW' or name == '_etext':
                    break
                last = int(addr, 16)
    return stext, (last - stext) // 8 - 1


def readprofile(args, profile, system_map):
    return subprocess.run(['readprofile'] + args + ['-p', profile, '-m', system_map],
                          check=True, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout.splitlines()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--files', required=True, help='what the guest exported')
    ap.add_argument('--kprof', required=True, help='kprof built for the host')
    ap.add_argument('--system-map', required=True, help="the guest kernel's System.map")
    ap.add_argument('--out', required=True, help='results file to append to')
    args = ap.parse_args()

    results = Results()
    record = results.record

    kpgz = os.path.join(args.files, 'kprof', 'kpdata.gz')
    with tempfile.TemporaryDirectory() as tmp:
        try:
            words = read_kpdata(kpgz)
            kpdata = os.path.join(tmp, 'kpdata')
            with gzip.open(kpgz, 'rb') as src, open(kpdata, 'wb') as dst:
                dst.write(src.read())
        except OSError as e:
            record(False, 'kprof: the guest exported its profile', str(e))
            words = None
        if words:
            host = subprocess.run([args.kprof, '-f', args.system_map, kpdata],
                                  text=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
            with open(os.path.join(args.files, 'kprof', 'folded')) as f:
                guest = f.read().splitlines()
            same = host.returncode == 0 and host.stdout.splitlines() == guest
            record(same, 'kprof: the host formatter with System.map names the same '
                   '%d symbols with the same ticks as the guest with /proc/kallsyms'
                   % len(guest), host.stderr.strip() or 'the folded lines differ')

            profile = os.path.join(tmp, 'profile')
            try:
                subprocess.run([args.kprof, '-r', profile, kpdata], check=True)
                stext, end = readprofile_range(args.system_map)
                n = words[3]
                end = min(end, n - 1)
                want = {stext + 8 * i: words[i] for i in range(6, end) if words[i]}
                bins = {}
                for line in readprofile(['-b'], profile, args.system_map):
                    if line.startswith('\t'):
                        addr, count = line.split()
                        bins[int(addr, 16)] = int(count)
                record(bins == want, 'readprofile -b reads the %d buckets with ticks of '
                       "kprof -r's export at their addresses" % len(want),
                       '%d bins differ' % len(set(bins.items()) ^ set(want.items())))
                lines = readprofile([], profile, args.system_map)
                unknown = int(lines[-2].split()[0])
                total = int(lines[-1].split()[0])
                late = sum(words[end:n - 1])
                record(unknown == words[1] + words[n - 1] and
                       total + unknown + late == words[0],
                       'readprofile: total %d + *unknown* %d = kpdata word 0, %d'
                       % (total, unknown, words[0]),
                       'outside %d, last bucket %d' % (words[1], words[n - 1]))
            except (OSError, ValueError, IndexError, subprocess.CalledProcessError) as e:
                record(False, 'readprofile reads the export of kprof -r', str(e))

    results.write(args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
