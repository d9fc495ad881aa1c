#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a guest run into test results.

The KTAP/TAP parsing is the kernel's own: `tools/testing/kunit/kunit.py parse`
runs on the console log (KUnit suites) and on the guest's selftest TAP, prints
every suite and case, and writes JSON that this script walks. Each leaf case
becomes one line "PASS|FAIL|SKIP<TAB>name" appended to the results file.

The console is also scanned for kernel splats (panic, Oops, BUG, WARNING,
KASAN, KCSAN, UBSAN, lockdep, kmemleak, debug objects, list corruption,
soft and hard lockups, RCU stalls, hung tasks, stack overflows, scheduling
or sleeping in atomic context): each kind found is one failed result named
after it, even when every test passed. A test that provokes a splat on
purpose brackets it with "ktau-expect-splat: begin" and
"ktau-expect-splat: end" in the kernel log; splats in between are expected.
Fault injection is not a splat: its "FAULT_INJECTION: forcing a failure."
and the call trace after it, and the allocator's "page allocation
failure" report, match no pattern (scripts/test_results.py checks it).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# A line is named after the first pattern it matches, so the specific
# kinds come first: many reports begin with "BUG: " or "WARNING: ", which
# only the last entries take.
SPLATS = [
    # x86 with VMAP_STACK: BUG: task stack guard page was hit at ...;
    # arm64: kernel stack overflow; without VMAP_STACK, the panics of the
    # scheduler's stack end check and of the stack protector (before
    # "kernel panic", which would take their lines)
    ("stack overflow", re.compile(r"stack guard page was hit|kernel stack overflow|"
                                  r"corrupted stack end detected|"
                                  r"Kernel stack is corrupted in")),
    ("kernel panic", re.compile(r"Kernel panic - not syncing")),
    ("KASAN", re.compile(r"\bKASAN: ")),
    ("KCSAN", re.compile(r"\bBUG: KCSAN: ")),
    ("UBSAN", re.compile(r"\bUBSAN: ")),
    # watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [comm:pid]
    ("soft lockup", re.compile(r"\bBUG: soft lockup - CPU#")),
    # watchdog: Watchdog detected hard LOCKUP on cpu 1
    ("hard lockup", re.compile(r"Watchdog detected hard LOCKUP on cpu")),
    # rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
    # rcu: INFO: rcu_preempt self-detected stall on CPU
    # rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: {
    # INFO: rcu_tasks detected stalls on tasks:
    ("RCU stall", re.compile(r"\bINFO: rcu_\w+ (self-)?detected (expedited )?stall")),
    ("scheduling while atomic", re.compile(r"\bBUG: scheduling while atomic")),
    ("sleeping in atomic context",
     re.compile(r"\bBUG: sleeping function called from invalid context")),
    ("lockdep", re.compile(r"possible (recursive|circular) locking|"
                           r"inconsistent lock state|suspicious RCU usage|"
                           r"lock held when returning|bad unlock balance|"
                           r"held lock freed|possible irq lock inversion|"
                           r"-safe -> \S+-unsafe lock order")),
    ("kmemleak", re.compile(r"kmemleak: \d+ new suspected memory leaks")),
    ("debugobjects", re.compile(r"\bODEBUG: ")),
    ("list corruption", re.compile(r"list_(add|del) corruption")),
    ("hung task", re.compile(r"INFO: task .* blocked for more than")),
    ("Oops", re.compile(r"\bOops\b|general protection fault|Unable to handle")),
    ("BUG", re.compile(r"\bBUG: ")),
    ("WARNING", re.compile(r"\bWARNING: ")),
]
# Notices the kernel prints with "WARNING: " that are not reports of a
# bug, and that a user can cause: mount -o mand, which any user may try in
# a user namespace of its own (trinity as nobody does).
NOT_SPLATS = re.compile(r"WARNING: The mand mount option has been deprecated")
EXPECT_BEGIN = "ktau-expect-splat: begin"
EXPECT_END = "ktau-expect-splat: end"


def parse_ktap(kunit_py, path, label):
    """Run kunit.py parse on path; return the list of (status, name)."""
    print(f"== {label} ({os.path.basename(path)}) ==", flush=True)
    with tempfile.NamedTemporaryFile("r", suffix=".json") as js:
        proc = subprocess.run([sys.executable, kunit_py, "parse",
                               f"--json={js.name}", os.path.abspath(path)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, check=False)
        print(proc.stdout, end="", flush=True)
        try:
            tree = json.load(js)
        except json.JSONDecodeError:
            return [("FAIL", f"{label}: no parsable KTAP output")]
    cases = []
    walk(tree, [], cases)
    if not cases:
        cases.append(("FAIL", f"{label}: no test case ran"))
    return cases


def walk(group, path, out):
    """Collect the leaf cases of a kunit_json group, named suite.case."""
    for sub in group.get("sub_groups", []):
        walk(sub, path + [sub["name"]], out)
    for case in group.get("test_cases", []):
        status = {"PASS": "PASS", "SKIP": "SKIP"}.get(case["status"], "FAIL")
        out.append((status, ".".join(path + [case["name"]])))


def scan_splats(console, context=12):
    """Return the splat kinds found outside expected regions, each with
    the first report of its kind and the lines that follow it.

    A line is a report of the first kind whose pattern it matches, and the
    context lines after it belong to that report: they are quoted if it is
    the first of its kind, and are not scanned either way, so that a
    repeated report is not taken for other kinds (the "Oops" that follows
    a stack overflow, the "BUG: " of a second soft lockup). The
    ktau-expect-splat markers count wherever they are."""
    found = {}
    expected = False
    report = None
    left = 0
    with open(console, errors="replace") as f:
        for line in f:
            if EXPECT_BEGIN in line or EXPECT_END in line:
                expected = EXPECT_BEGIN in line
                left = 0
                continue
            if left:
                left -= 1
                if report:
                    found[report].append(line.rstrip())
                continue
            report = None
            if expected:
                continue
            if NOT_SPLATS.search(line):
                continue
            kind = next((k for k, rx in SPLATS if rx.search(line)), None)
            if kind:
                left = context - 1
                if kind not in found:
                    found[kind] = [line.rstrip()]
                    report = kind
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kunit-py", required=True, help="path to kunit.py")
    ap.add_argument("--console", required=True, help="guest console log")
    ap.add_argument("--tap", help="guest selftest TAP (second serial port)")
    ap.add_argument("--name", default="guest", help="prefix of result names")
    ap.add_argument("--no-kunit", action="store_true",
                    help="the boot ran no KUnit (kunit.enable=0)")
    ap.add_argument("--out", required=True, help="results file to append to")
    args = ap.parse_args()

    results = []
    if not args.no_kunit:
        results += [(s, f"kunit: {n}") for s, n in
                    parse_ktap(args.kunit_py, args.console, "KUnit")]
    if args.tap:
        results += [(s, f"selftest: {n}") for s, n in
                    parse_ktap(args.kunit_py, args.tap, "selftests")]
    splats = scan_splats(args.console)
    for kind, lines in splats.items():
        print(f"console: {kind}:")
        for line in lines:
            print(f"    {line}")
    results.append(("FAIL" if splats else "PASS",
                    f"{args.name}: console free of splats"
                    + (f" (found: {', '.join(splats)})" if splats else "")))
    with open(args.out, "a") as f:
        for status, name in results:
            f.write(f"{status}\t{name}\n")
    return 1 if any(s == "FAIL" for s, _ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
