#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the console scan of scripts/results.py.

Synthetic consoles, made of the reports the kernel prints (6.12's own
text, with timestamps and the call traces after them): every kind is found
and named once, a specific report is not taken for the generic "BUG" or
"WARNING", and what is not a bug is not a splat: the boot's own lines of
the debug kernels, fault injection's "FAULT_INJECTION: forcing a failure."
with its call trace, the allocator's reports of the failures it injects,
and a report between "ktau-expect-splat" markers.

Run alone, it prints unittest's report. With --out RESULTS-FILE (as
scripts/harness-test.sh runs it), it appends one line per case,
"PASS|FAIL<TAB>harness: console scan: <what>", and prints the same.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import traceback
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402


def timed(lines, start=100.0):
    """The lines as the console shows them, with printk timestamps."""
    return [f"[{start + i * 0.001:12.6f}] {line}" for i, line in enumerate(lines)]


# An ordinary stretch of console between reports, longer than the 12
# lines the scan quotes after the first report of a kind (and does not
# scan).
FILLER = [f"ktau: filler line {i}" for i in range(16)]

# The system call a write to a control file makes, innermost last.
SYSCALL_TAIL = [
    " control_write+0x1f4/0x260",
    " proc_reg_write+0x9e/0xf0",
    " vfs_write+0x14b/0x6c0",
    " ksys_write+0xb2/0x140",
    " do_syscall_64+0x6e/0x120",
    " entry_SYSCALL_64_after_hwframe+0x76/0x7e",
]

CALL_TRACE = [
    "CPU: 1 UID: 0 PID: 123 Comm: ktau_fuzz Not tainted 6.12.117 #1",
    "Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014",
    "Call Trace:",
    " <TASK>",
    " dump_stack_lvl+0x5d/0x80",
    " ktau_set_mode+0x1c2/0x2a0",
] + SYSCALL_TAIL + [
    " </TASK>",
]

# Each kind the debug kernels add, as 6.12 prints it, with its expected name.
REPORTS = [
    ("soft lockup", [
        "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [ktp_stress:231]",
        "Modules linked in: test_ktp_sites",
        "irq event stamp: 123456",
    ] + CALL_TRACE),
    ("hard lockup", [
        "watchdog: Watchdog detected hard LOCKUP on cpu 1",
        "Modules linked in: test_ktp_sites",
        "Sending NMI from CPU 0 to CPUs 1:",
    ] + CALL_TRACE),
    ("RCU stall", [
        "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
        "rcu: \t1-...!: (1 GPs behind) idle=1234/1/0x4000000000000000 softirq=5/5 fqs=0",
        "rcu: \t(detected by 0, t=60002 jiffies, g=1234, q=56 ncpus=2)",
    ] + CALL_TRACE),
    ("stack overflow", [
        "BUG: task stack guard page was hit at 00000000f1e2d3c4 "
        "(stack is 00000000a1b2c3d4..00000000b1c2d3e4)",
        "Oops: stack guard page: 0000 [#1] PREEMPT SMP KASAN",
    ] + CALL_TRACE),
    ("scheduling while atomic", [
        "BUG: scheduling while atomic: ktau_fuzz/123/0x00000002",
        "INFO: lockdep is turned off.",
        "Modules linked in:",
        "Preemption disabled at:",
        "[<ffffffff81234567>] ktau_syscall_entry+0x27/0x90",
    ] + CALL_TRACE),
    ("KCSAN", [
        "==================================================================",
        "BUG: KCSAN: data-race in ktau_set_mode / ktau_syscall_entry",
        "",
        "write to 0xffffffff83a1b2c0 of 4 bytes by task 123 on cpu 0:",
        " ktau_set_mode+0x1c2/0x2a0",
        "",
        "read to 0xffffffff83a1b2c0 of 4 bytes by task 124 on cpu 1:",
        " ktau_syscall_entry+0x27/0x90",
        "",
        "value changed: 0x00000001 -> 0x00000002",
        "",
        "Reported by Kernel Concurrency Sanitizer on:",
    ] + CALL_TRACE),
]

# Specific reports that begin like generic ones, and the generic ones.
NAMED = [
    ("KASAN", "BUG: KASAN: slab-use-after-free in emit_state+0x3a/0x2c0"),
    ("lockdep", "WARNING: possible circular locking dependency detected"),
    ("lockdep", "WARNING: suspicious RCU usage"),
    ("lockdep", "WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected"),
    ("sleeping in atomic context",
     "BUG: sleeping function called from invalid context at mm/slub.c:4119"),
    ("RCU stall", "rcu: INFO: rcu_preempt self-detected stall on CPU"),
    ("RCU stall", "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: "
                  "{ 1-... } 60003 jiffies s: 433 root: 0x2/."),
    ("RCU stall", "INFO: rcu_tasks detected stalls on tasks:"),
    ("stack overflow", "Kernel panic - not syncing: corrupted stack end detected "
                       "inside scheduler"),
    ("kernel panic", "Kernel panic - not syncing: Fatal exception"),
    ("hung task", "INFO: task ktau_fuzz:123 blocked for more than 120 seconds."),
    ("BUG", "BUG: unable to handle page fault for address: ffffffffffffffe8"),
    ("Oops", "Oops: general protection fault, probably for non-canonical "
             "address 0xdffffc0000000003: 0000 [#1] PREEMPT SMP KASAN"),
    ("WARNING", "WARNING: CPU: 1 PID: 123 at kernel/ktp/core.c:210 "
                "ktp_probe_register+0x1f4/0x260"),
]

# What the debug kernels print that is not a bug.
BENIGN_BOOT = [
    "Command line: watchdog_thresh=30 console=ttyS0 panic=-1 ktau_mode=check",
    "rcu: Preemptible hierarchical RCU implementation.",
    "rcu: \tRCU CPU stall warnings timeout set to 60 (rcu_cpu_stall_timeout).",
    "kasan: KernelAddressSanitizer initialized (generic)",
    "kcsan: enabled early",
    "kcsan: selftest: 3/3 tests passed",
    "watchdog: Delayed init of the lockup detector failed: -19",
    "NMI watchdog: Perf NMI watchdog permanently disabled",
    "kmemleak: Kernel memory leak detector initialized (mem pool available: 15672)",
    "kmemleak: Automatic memory scanning thread started",
    # A user's mount -o mand (trinity's, as nobody).
    "=======================================================",
    "WARNING: The mand mount option has been deprecated and",
    "         and is ignored by this kernel. Remove the mand",
    "         option from the mount to silence this warning.",
]

# Fault injection as the ktau_failslab test provokes it: the injected
# failure with its call trace (verbose=2), then the allocator's own
# reports of the failures.
FAULT_INJECTION = [
    "FAULT_INJECTION: forcing a failure.",
    "name failslab, interval 1, probability 0, space 0, times 999987",
    "CPU: 0 UID: 1000 PID: 312 Comm: ktau_failslab Not tainted 6.12.117 #1",
    "Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014",
    "Call Trace:",
    " <TASK>",
    " dump_stack_lvl+0x5d/0x80",
    " should_fail_ex+0x2fd/0x330",
    " should_failslab+0x9f/0xe0",
    " __kmalloc_noprof+0x7f/0x420",
    " kasan_save_stack+0x1c/0x40",
    " ktau_set_task_enabled+0x2b/0x1a0",
] + SYSCALL_TAIL + [
    "RIP: 0033:0x4142f1",
    "Code: 00 00 48 8b 15 ... <48> 3d 00 f0 ff ff 77 58 c3",
    "RSP: 002b:00007ffe6c1c9c28 EFLAGS: 00000246 ORIG_RAX: 0000000000000001",
    " </TASK>",
    "FAULT_INJECTION: forcing a failure.",
    "name fail_page_alloc, interval 1, probability 0, space 0, times 999986",
    "ktau_failslab: page allocation failure: order:0, "
    "mode:0xcc0(GFP_KERNEL), nodemask=(null)",
    "CPU: 0 UID: 0 PID: 311 Comm: ktau_failslab Not tainted 6.12.117 #1",
    "Call Trace:",
    " <TASK>",
    " dump_stack_lvl+0x5d/0x80",
    " warn_alloc+0x1c3/0x250",
    " __alloc_pages_noprof+0x3a2/0x4a0",
    " __get_free_pages_noprof+0x12/0x40",
    " kpdata_read+0x8a/0x1c0",
    " </TASK>",
    "Mem-Info:",
    "active_anon:0 inactive_anon:0 isolated_anon:0",
    "Node 0 DMA free:15360kB boost:0kB min:20kB low:32kB high:44kB",
    "lowmem_reserve[]: 0 958 958 958",
    "262013 pages RAM",
    "fork: vmalloc error: size 16384, vm_struct allocation failed, "
    "mode:0xdc0(GFP_KERNEL|__GFP_ZERO), nodemask=(null)",
    "SLUB: Unable to allocate memory on node -1, gfp=0xcc0(GFP_KERNEL)",
    "  cache: kmalloc-4k, object size: 4096, buffer size: 4096, "
    "default order: 3, min order: 0",
    "Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF",
    "fail_dump: 25 callbacks suppressed",
]


def write_console(lines):
    f = tempfile.NamedTemporaryFile("w", suffix=".console", delete=False)
    f.write("\n".join(timed(lines)) + "\n")
    f.close()
    return f.name


class ConsoleScan(unittest.TestCase):
    def scan(self, lines):
        path = write_console(lines)
        try:
            return results.scan_splats(path)
        finally:
            os.unlink(path)

    def test_new_kinds_named(self):
        """each report of the debug kernels' detectors is found, once, by its own name"""
        lines = list(BENIGN_BOOT)
        for _, report in REPORTS:
            lines += FILLER + report
        lines += FILLER
        found = self.scan(lines)
        self.assertEqual(sorted(found), sorted(kind for kind, _ in REPORTS))
        for kind, report in REPORTS:
            first = next(line for line in report
                         if any(rx.search(line) for _, rx in results.SPLATS))
            self.assertTrue(found[kind][0].endswith(first), (kind, found[kind][0]))

    def test_each_kind_once(self):
        """a kind reported twice is one kind, quoted from its first report"""
        lines = []
        for _, report in REPORTS + REPORTS:
            lines += FILLER + report
        found = self.scan(lines)
        self.assertEqual(len(found), len(REPORTS))
        for lines_quoted in found.values():
            self.assertLessEqual(len(lines_quoted), 12)

    def test_specific_before_generic(self):
        """a report that begins with "BUG: " or "WARNING: " gets its own kind"""
        for kind, line in NAMED:
            with self.subTest(line=line):
                self.assertEqual(list(self.scan(FILLER + [line] + FILLER)), [kind])

    def test_every_kind_distinct(self):
        """SPLATS names each kind once"""
        names = [kind for kind, _ in results.SPLATS]
        self.assertEqual(len(names), len(set(names)))
        for kind in ("soft lockup", "hard lockup", "RCU stall", "stack overflow",
                     "scheduling while atomic", "KCSAN", "hung task"):
            self.assertIn(kind, names)

    def test_benign(self):
        """the debug kernels' boot lines, a call trace alone and fault injection are no splat"""
        lines = BENIGN_BOOT + FILLER + CALL_TRACE + FILLER + FAULT_INJECTION * 3
        self.assertEqual(self.scan(lines), {})
        for line in CALL_TRACE + FAULT_INJECTION:
            with self.subTest(line=line):
                self.assertFalse([k for k, rx in results.SPLATS if rx.search(line)])

    def test_expected_region(self):
        """a report between ktau-expect-splat markers is expected, one after is not"""
        lines = (["ktau-expect-splat: begin"] + REPORTS[0][1] +
                 ["ktau-expect-splat: end"] + FILLER + REPORTS[1][1])
        self.assertEqual(list(self.scan(lines)), [REPORTS[1][0]])
        # A marker counts even among the lines quoted after a report.
        lines = (REPORTS[1][1][:3] + ["ktau-expect-splat: begin"] +
                 REPORTS[0][1] + ["ktau-expect-splat: end"] + FILLER)
        self.assertEqual(list(self.scan(lines)), [REPORTS[1][0]])

    def test_results_file(self):
        """results.py records one failed result naming every kind found"""
        lines = []
        for _, report in REPORTS:
            lines += FILLER + report
        lines += FILLER + FAULT_INJECTION
        console = write_console(lines)
        out = tempfile.NamedTemporaryFile("r", suffix=".results", delete=False)
        out.close()
        try:
            proc = subprocess.run(
                [sys.executable, os.path.join(os.path.dirname(__file__), "results.py"),
                 "--kunit-py", "/nonexistent", "--no-kunit", "--console", console,
                 "--name", "synthetic", "--out", out.name],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                check=False)
            with open(out.name) as f:
                recorded = f.read().splitlines()
        finally:
            os.unlink(console)
            os.unlink(out.name)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertEqual(len(recorded), 1, recorded)
        status, name = recorded[0].split("\t")
        self.assertEqual(status, "FAIL")
        found = name.split("(found: ")[1].rstrip(")").split(", ")
        self.assertEqual(sorted(found), sorted(kind for kind, _ in REPORTS))
        for kind, _ in REPORTS:
            self.assertEqual(proc.stdout.count(f"console: {kind}:\n"), 1, proc.stdout)


class Recorder(unittest.TestResult):
    """Collects, per case, the failures of the case and of its subtests."""

    def __init__(self):
        super().__init__()
        self.cases = {}

    def case(self, test):
        return self.cases.setdefault(test.shortDescription() or test.id(), [])

    def startTest(self, test):
        super().startTest(test)
        self.case(test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.case(test).append("".join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self.case(test).append("".join(traceback.format_exception(*err)))

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.case(test).append(f"{subtest}:\n" +
                                   "".join(traceback.format_exception(*err)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="results file to append one line per case to")
    args = ap.parse_args()
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(ConsoleScan)
    if not args.out:
        return 0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1
    rec = Recorder()
    suite.run(rec)
    with open(args.out, "a") as f:
        for what, failures in rec.cases.items():
            status = "FAIL" if failures else "PASS"
            f.write(f"{status}\tharness: console scan: {what}\n")
            print(f"[{status}] harness: console scan: {what}")
            for text in failures:
                print("  " + text.rstrip().replace("\n", "\n  "))
    return 0 if rec.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
