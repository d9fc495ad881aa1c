#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a guest run into test results.

The KTAP/TAP parsing is the kernel's own: `tools/testing/kunit/kunit.py parse`
runs on the console log (KUnit suites) and on the guest's selftest TAP, prints
every suite and case, and writes JSON that this script walks. Each leaf case
becomes one line "PASS|FAIL|SKIP<TAB>name" appended to the results file.

The console is also scanned for kernel splats (panic, Oops, BUG, WARNING,
KASAN, UBSAN, lockdep, kmemleak, hung task): each kind found is one failed
result named after it, even when every test passed. A test that provokes a
splat on purpose brackets it with "ktau-expect-splat: begin" and
"ktau-expect-splat: end" in the kernel log; splats in between are expected.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

SPLATS = [
    ("kernel panic", re.compile(r"Kernel panic - not syncing")),
    ("Oops", re.compile(r"\bOops\b|general protection fault|Unable to handle")),
    ("BUG", re.compile(r"\bBUG: ")),
    ("WARNING", re.compile(r"\bWARNING: ")),
    ("KASAN", re.compile(r"\bKASAN: ")),
    ("UBSAN", re.compile(r"\bUBSAN: ")),
    ("lockdep", re.compile(r"possible (recursive|circular) locking|"
                           r"inconsistent lock state|suspicious RCU usage|"
                           r"lock held when returning")),
    ("kmemleak", re.compile(r"kmemleak: \d+ new suspected memory leaks")),
    ("debugobjects", re.compile(r"\bODEBUG: ")),
    ("list corruption", re.compile(r"list_(add|del) corruption")),
    ("hung task", re.compile(r"INFO: task .* blocked for more than")),
]
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
    the first report of its kind and the lines that follow it."""
    found = {}
    expected = False
    quoting = None
    with open(console, errors="replace") as f:
        for line in f:
            if quoting and len(found[quoting]) < context:
                found[quoting].append(line.rstrip())
                continue
            quoting = None
            if EXPECT_BEGIN in line:
                expected = True
            elif EXPECT_END in line:
                expected = False
            elif not expected:
                for kind, rx in SPLATS:
                    if rx.search(line) and kind not in found:
                        found[kind] = [line.rstrip()]
                        quoting = kind
                        break
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
