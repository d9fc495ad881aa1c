#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the runs of ktp-bench (ID<TAB>VALUE<TAB>WHAT lines) into the table of
ktp's costs beside upstream's, check the goals of ANCHORS.md, compare the
runs, and optionally write Documentation/benchmarks.md and .json.

usage: bench-report.py [--md FILE] [--json FILE] [--module KO] RUN1 [RUN2...]
"""
import argparse
import json
import re
import subprocess
import sys

# (case, our figure, upstream's figure or None, what upstream's is)
ROWS = [
    ("site disabled", "ktp_disabled", "tp_disabled", "DECLARE_TRACE, no probe"),
    ("1 empty probe", "ktp_probe1", "tp_probe1", "register_trace_*(), 1 probe"),
    ("4 empty probes", "ktp_probe4", "tp_probe4", "register_trace_*(), 4 probes"),
    ("1 empty probe, 200 other sites armed", "ktp_probe1_others",
     "tp_probe1_others", "the same with 200 other tracepoints armed"),
    ("record 4 x u64: binary sink", "bin_record", "ftrace_event",
     "TRACE_EVENT recorded by ftrace"),
    ("record 4 x u64: binary sink", "bin_record", "trace_printk",
     "trace_printk()"),
    ("record 4 x u64: ASCII sink", "ascii_record", "trace_printk",
     "trace_printk()"),
    ("4 x u64 into ktp's ring, no marker", "ring_record", "rb_record",
     "ring_buffer.c's reserve and commit, no event"),
    ("register + unregister, site already armed", "ktp_register_armed",
     "tp_register_armed", "register/unregister_trace_*()"),
    ("register + unregister, arming the site", "ktp_register_first",
     "tp_register_first", "register/unregister_trace_*()"),
    ("arm + disarm 100 sites, per site", "ktp_sites100", "tp_sites100",
     "100 tracepoints"),
    ("KTAU syscall entry + exit, profile", "ktau_profile_pair", None, ""),
    ("KTAU syscall entry + exit, profile + trace", "ktau_trace_pair", None, ""),
    ("a KTAU_ROUTINE(), KTAU off", "ktau_routine_off", "plain_call",
     "the same function not marked"),
    ("a KTAU_ROUTINE(), KTAU profile", "ktau_routine_profile", "plain_call",
     "the same function not marked"),
    ("getppid() from user space, KTAU profile", "getppid_profile",
     "getppid_off", "the same, KTAU off"),
    ("getppid() from user space, KTAU trace", "getppid_trace",
     "getppid_off", "the same, KTAU off"),
    ("getppid(), empty probes on ktp's syscall sites", "getppid_syscall_entry",
     "getppid_sys_enter", "the same on sys_enter and sys_exit"),
    ("getppid() of a task not traced, empty probes on ktp's syscall sites",
     "getppid_syscall_other", "getppid_off", "the same, nothing connected"),
    ("getppid() of a task not switched on, KTAU self", "getppid_self_other",
     "getppid_off", "the same, KTAU off"),
    ("its own counts of one routine, ktau_self_read()", "self_read",
     "self_ioctl", "the same by KTAU_IOC_READ (ktau_read())"),
    ("lattop block + wakeup, kernel and user frames", "lattop_pair", None, ""),
    ("lattop block + wakeup, user frames only", "lattop_user_pair", None, ""),
    ("kprof tick", "kprof_tick", None, ""),
    ("local_clock(), the scheduler's clock", "local_clock", None, ""),
    ("ktp_clock(), the clock of records, KTAU and lattop (the TSC here)",
     "ktp_clock", None, ""),
]

# The workload section: (case, its figure, the figure it is compared to)
WORKLOAD_ROWS = [
    ("KTAU profiling every task", "wl_ktau_ns"),
    ("KTAU self, one other process switched on", "wl_ktau_self_ns"),
    ("lattop on", "wl_lattop_ns"),
    ("every ktp site on the binary sink, recorded by ktp-record",
     "wl_ktp_ns"),
    ("the equivalent upstream events in ftrace, recorded by trace-cmd",
     "wl_ftrace_ns"),
]

# Before and after: (case, figure, its value on the 55-patch series)
BEFORE = [
    ("KTAU syscall entry + exit, profile", "ktau_profile_pair", 346),
    ("KTAU syscall entry + exit, profile + trace", "ktau_trace_pair", 367),
    ("getppid() from user space, KTAU profile", "getppid_profile", 560),
    ("record 4 x u64: binary sink", "bin_record", 286),
    ("1 empty probe", "ktp_probe1", 13),
    ("4 empty probes", "ktp_probe4", 67),
    ("lattop block + wakeup (user frames only, as then)", "lattop_user_pair",
     591),
]

# (recorder, prefix of its figures)
RECORDERS = [
    ("ktp-record (every ktp site)", "rec_ktp"),
    ("trace-cmd record (sched_switch, sched_wakeup, irq, softirq, "
     "raw_syscalls)", "rec_ftrace"),
]

# (goal, test on the figures, the figures it uses)
GOALS = [
    ("disabled site: no more than upstream's disabled tracepoint",
     lambda f: f["ktp_disabled"] <= f["tp_disabled"]),
    ("one empty probe: at or below upstream",
     lambda f: f["ktp_probe1"] <= f["tp_probe1"]),
    ("four empty probes: at or below upstream",
     lambda f: f["ktp_probe4"] <= f["tp_probe4"]),
    ("binary record: at most half of ftrace's TRACE_EVENT",
     lambda f: f["bin_record"] <= f["ftrace_event"] / 2),
    ("binary record: at most a quarter of trace_printk()",
     lambda f: f["bin_record"] <= f["trace_printk"] / 4),
    ("ASCII sink: at least 3x the binary sink",
     lambda f: f["ascii_record"] >= 3 * f["bin_record"]),
    ("KTAU syscall entry/exit pair: at most 150 instructions",
     lambda f: f["ktau_profile_pair"] <= 150),
    ("cost independent of 200 other armed sites (ktp and upstream)",
     lambda f: f["ktp_probe1_others"] == f["ktp_probe1"]
     and f["tp_probe1_others"] == f["tp_probe1"]),
]

# The cost goals, per operation and for the workload.
COST_GOALS = [
    ("KTAU syscall entry + exit, profile: at most 80",
     lambda f: f["ktau_profile_pair"] <= 80),
    ("KTAU syscall entry + exit, profile + trace: at most 100",
     lambda f: f["ktau_trace_pair"] <= 100),
    ("getppid() with KTAU profile: at most 1.25 x KTAU off",
     lambda f: f["getppid_profile"] <= 1.25 * f["getppid_off"]),
    ("getppid() of a task not traced, probes on the syscall sites: at most "
     "1.05 x nothing connected",
     lambda f: f["getppid_syscall_other"] <= 1.05 * f["getppid_off"]),
    ("record 4 x u64, binary sink: at most 150",
     lambda f: f["bin_record"] <= 150),
    ("1 empty probe: at most 12", lambda f: f["ktp_probe1"] <= 12),
    ("4 empty probes: at most 50", lambda f: f["ktp_probe4"] <= 50),
    ("lattop block + wakeup, user frames only: at most 300",
     lambda f: f["lattop_user_pair"] <= 300),
    ("workload with KTAU profile: at most 1.05 x nothing on",
     lambda f: f["wl_ktau_ns"] <= 1.05 * f["wl_off_ns"]),
    ("getppid() of a task not switched on, KTAU self: at most 1.05 x KTAU off",
     lambda f: f["getppid_self_other"] <= 1.05 * f["getppid_off"]),
    ("workload, KTAU self with one other process switched on: at most "
     "1.005 x nothing on",
     lambda f: f["wl_ktau_self_ns"] <= 1.005 * f["wl_off_ns"]),
    ("ktau_self_read() of one routine: under 300",
     lambda f: f["self_read"] < 300),
    ("ktp-record: nothing lost at the default ring size",
     lambda f: f["rec_ktp_lost"] == 0),
    ("ktp-record: fewer recorder instructions per event than trace-cmd",
     lambda f: f["rec_ktp_cpu"] / f["rec_ktp_events"]
     < f["rec_ftrace_cpu"] / f["rec_ftrace_events"]),
]

# Case functions of ktp_bench.ko whose timed loop the document lists.
LISTINGS = [
    ("case_ktp_disabled", "ktp site, no probe"),
    ("case_tp_disabled", "upstream tracepoint, no probe"),
    ("ktp_probes_case", "ktp site with probes (the loop serves 1 and 4)"),
    ("tp_probes_case", "upstream tracepoint with probes"),
]

WORKLOAD_TEXT = """\
In the same boot, after the cases above, `bench-workload` (qemu/ in the
project) runs a fixed busybox workload: a `tar` of part of the initramfs
through `gzip`, a `find` of `/` and 200 forks of `/bin/true`. Each figure
is the guest instructions, on both CPUs, from the workload's start to its
end (`CLOCK_MONOTONIC` under `-icount shift=0`), once with nothing on and
once with each consumer on. The recorders run in the background for the
whole workload, started before it and stopped with `SIGINT` after it; their
instructions are those of their own processes and threads (`wait4()`'s
resource usage), which include trace-cmd's fixed costs (its start, and
reading `/proc/kallsyms` and the event formats when it stops); each
recorder also records an idle second first, which gives its fixed cost
and, by difference, what an event costs it beyond that. Both record
to a file in the initramfs's tmpfs at their default ring sizes (ktp 256
KiB per CPU, ftrace's 1408 KiB per CPU), ktp-record every kernel site of ktp
(more events than trace-cmd's set, which has no page fault, tick, timer,
fork, exec or exit events). Unlike the cases above, these figures differ
from boot to boot (by about 1 % for the workload and up to a factor of
two for ktp-record's own instructions): with two CPUs, how the workload's
processes, the recorders' readers and the timers interleave is not fixed
by `-icount`. Both boots are in the runs below."""

EXPLAIN = """\
The loops above are the whole hot path of the site cases. Disarmed, a
ktp site and an upstream tracepoint run the same code: the 2-byte NOP of
the static branch (`xchg %ax,%ax`) and the compiler's `jmp` past the call.
Armed with one probe, ktp loads the site's only probe, tests it, loads its
data and calls it; upstream loads its probe array, tests it, loads the
data and calls through its static call. The empty probe is a single
`ret`. With four probes ktp walks its list and upstream calls its
iterator, which walks its array. The other cases call
into the kernel; their paths, instruction by instruction:

- **binary record** (`bin_record`): `ktp_mark()` tests its static key,
  stores its four arguments in an array on its stack and calls
  `__ktp_mark()`, which walks the marker's sinks and calls
  `ktp_bin_record()`: the reservation, inlined (produced count, the TSC
  read by `ktp_clock()`, a `local_cmpxchg()` on the head, the pid), the
  four values copied from the array (markers whose arguments are all
  64 bits wide take this path; others go through `ktp_mark_encode()`) and
  the release store of the header. No formatting, no variable argument
  list.
- **ASCII record**: the same reservation, then `ktp_mark_format()`: the
  marker's format split at its conversions, each argument formatted by
  `scnprintf()` with its C type, into a per-context line: about 28 times
  the binary record, nearly all of it in the formatting.
- **ftrace event**: `trace_event_buffer_reserve()` (the ring buffer's
  reserve with its recursion check, the event's trigger and filter tests,
  the common fields), the four stores, `trace_event_buffer_commit()`.
- **the rings** (`ring_record`, `rb_record`): the same four u64 written
  straight into a ring allocated for the run, with no marker and no
  event: ktp's `__ktp_ring_reserve()` and `ktp_ring_commit()` (what the
  binary record spends in its ring), and `ring_buffer_lock_reserve()`
  and `ring_buffer_unlock_commit()` on a private `ring_buffer_alloc()`
  buffer, which also takes the timestamp (its default clock) and guards
  against recursion. Each ring holds every record of the run.
- **system call probes** (`getppid_sys_enter`, `getppid_syscall_entry`,
  `getppid_syscall_other`): `getppid()` timed from user space while
  `ktp_bench` holds an empty probe on each end of the call. On
  `sys_enter`/`sys_exit`, the first probe sets
  `SYSCALL_WORK_SYSCALL_TRACEPOINT` on every thread, and each call then
  takes the entry and exit work paths (`syscall_trace_enter()`,
  `syscall_exit_work()`); ktp's sites are on the fast path. They fire for
  the tasks with `SYSCALL_WORK_SYSCALL_TP`, or for every task while
  `syscall_tp_all_tasks_get()` holds a reference (`getppid_syscall_entry`
  holds one); a task that is not traced (`getppid_syscall_other`) pays
  for the test of that key and of its own bit.
- **trace_printk()**: `__trace_bprintk()` → `trace_vbprintk()`, which
  runs `vbin_printf()` over the format at record time to pack the
  arguments, then reserves and commits.
- **register cases**: a ktp registration allocates one node, walks the
  list under the mutex and, only on the site's first probe, patches the
  static key (`text_poke_bp()`, with IPIs). Upstream copies the probe
  array on each change, updates the static call (a text patch) when the
  number of probes crosses 1, and, when a site returns to one probe or is
  armed again soon after being disarmed, waits for an RCU grace period
  (`tp_rcu_cond_sync()`): those figures are virtual nanoseconds of
  waiting, not instructions, and vary slightly from boot to boot.
- **KTAU pair**: each probe loads `current->ktau` once, tests the
  state's mode generation and the per-task switch, saves the flags and
  disables interrupts (no lock: the state is written only on its task's
  CPU), reads the TSC (converted to nanoseconds when a profile is read),
  and finds the routine's slot by a byte index on its id. Entry pushes a
  frame; exit checks the innermost frame and charges inclusive,
  exclusive and the parent's child time. Documentation/cost.md counts
  the 156 along the disassembly: sites 19, probe glue 34, flags 10,
  clock 12, mode and trace tests 12, bookkeeping 69. It was 359 with a
  per-task spinlock, two `local_clock()` reads and a hashed table.
- **lattop pair**: block looks the task up in the store, saves its call
  trace (a user stack walk for a user task) and the time; wakeup looks it
  up again and accounts the latency, keeping the worst trace.
- **kprof tick**: the probe finds the bucket of the PC and increments this
  CPU's count; no atomic operation.
"""


def parse_run(path):
    figures = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                continue
            ident, value, _ = parts
            if value == "-":
                continue
            try:
                figures[ident] = float(value)
            except ValueError:
                continue
    return figures


def fmt(v):
    if v is None:
        return "—"
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else f"{int(v)}"


def ratio(ours, up):
    if ours is None or up is None or up == 0:
        return "—"
    return f"{ours / up:.2f}"


def table(figures):
    lines = ["| case | ours | upstream | upstream is | ratio |",
             "| --- | ---: | ---: | --- | ---: |"]
    for case, ours_id, up_id, up_what in ROWS:
        ours = figures.get(ours_id)
        up = figures.get(up_id) if up_id else None
        lines.append(f"| {case} | {fmt(ours)} | {fmt(up)} | {up_what or '—'} "
                     f"| {ratio(ours, up)} |")
    return lines


def workload_table(figures):
    off = figures.get("wl_off_ns")
    lines = ["| the workload with | guest instructions | ÷ nothing on |",
             "| --- | ---: | ---: |",
             f"| nothing on | {fmt(off)} | 1.00 |"]
    for case, ident in WORKLOAD_ROWS:
        v = figures.get(ident)
        lines.append(f"| {case} | {fmt(v)} | {ratio(v, off)} |")
    lines += ["", "| recorder | events written | lost | bytes | recorder "
              "instructions | per event | idle second: events, instructions "
              "| per event beyond the idle second |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, pre in RECORDERS:
        ev = figures.get(pre + "_events")
        cpu = figures.get(pre + "_cpu")
        iev = figures.get(pre + "_idle_events")
        icpu = figures.get(pre + "_idle_cpu")
        per = fmt(round(cpu / ev)) if ev and cpu is not None else "—"
        beyond = (fmt(round((cpu - icpu) / (ev - iev)))
                  if None not in (ev, cpu, iev, icpu) and ev > iev else "—")
        lines.append(f"| {name} | {fmt(ev)} | {fmt(figures.get(pre + '_lost'))} "
                     f"| {fmt(figures.get(pre + '_bytes'))} | {fmt(cpu)} | {per} "
                     f"| {fmt(iev)}, {fmt(icpu)} | {beyond} |")
    return lines


def before_table(figures):
    lines = ["| case | 55-patch series | now | now ÷ then |",
             "| --- | ---: | ---: | ---: |"]
    for case, ident, then in BEFORE:
        now = figures.get(ident)
        lines.append(f"| {case} | {fmt(then)} | {fmt(now)} | {ratio(now, then)} |")
    return lines


def goals(figures, which=None):
    out = []
    for text, test in (GOALS if which is None else which):
        try:
            met = "met" if test(figures) else "missed"
        except (KeyError, TypeError, ZeroDivisionError):
            met = "not measured"
        out.append((text, met))
    return out


def listing(module, func):
    """The instructions between the two rdtsc of @func in @module."""
    try:
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", module],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(rf"^[0-9a-f]+ <{re.escape(func)}>:\n(.*?)\n\n", dis,
                  re.S | re.M)
    if not m:
        return None
    body = [l.split(":", 1)[1].strip() for l in m.group(1).splitlines()
            if ":" in l]
    tsc = [i for i, l in enumerate(body) if l.startswith("rdtsc")]
    if len(tsc) < 2:
        return None
    return body[tsc[0]:tsc[1] + 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--md")
    ap.add_argument("--json")
    ap.add_argument("--module")
    ap.add_argument("--release", default="")
    args = ap.parse_args()

    runs = [parse_run(p) for p in args.runs]
    if not runs[0]:
        sys.exit(f"bench-report: no figures in {args.runs[0]}")
    figures = runs[0]
    ids = sorted(set().union(*runs))
    differ = [i for i in ids if len({r.get(i) for r in runs}) > 1]

    print("\n".join(table(figures)))
    if "wl_off_ns" in figures:
        print("\n".join(workload_table(figures)))
    for text, met in goals(figures) + goals(figures, COST_GOALS):
        print(f"goal: {text}: {met}")
    if len(runs) > 1:
        print(f"runs: {len(runs)}; figures that differ between runs: "
              f"{', '.join(differ) if differ else 'none'}")

    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"release": args.release, "unit": "guest instructions "
                       "(TSC under -icount shift=0,sleep=off)",
                       "runs": runs, "differ": differ,
                       "goals": dict(goals(figures)),
                       "cost_goals": dict(goals(figures, COST_GOALS))},
                      f, indent=1,
                      sort_keys=True)
            f.write("\n")
    if args.md:
        write_md(args, runs, figures, differ)


def write_md(args, runs, figures, differ):
    ids = [i for i in runs[0]]
    out = ["# Benchmarks", "",
           "Written by `make bench` (scripts/bench.sh, scripts/bench-report.py);",
           "the figures are also in `benchmarks.json`.", "",
           f"Kernel {args.release}, the configuration of `make check`",
           "(tinyconfig with kernel-config/base.config, distro.config, which",
           "has what distribution kernels enable, and ktau.config, which",
           "includes `CONFIG_FTRACE`, `CONFIG_ENABLE_DEFAULT_TRACERS` and",
           "`CONFIG_KTP_BENCH=m`), booted twice under QEMU (TCG, 2 vCPUs) with",
           "`-icount shift=0,sleep=off`: the guest's TSC advances by one per",
           "guest instruction, so every figure is a count of instructions per",
           "operation. `ktp_bench.ko` times each case with interrupts off and",
           "subtracts the empty loop; register cases are medians of single",
           "timings with interrupts on (Documentation/trace/ktp-bench.rst in",
           "the series). `ktp-bench` runs each case in three rounds and keeps",
           "the lowest; it checks that the sinks lost no record.", "",
           "## Table", ""]
    out += table(figures)
    out += ["", "Ratio is ours / upstream: below 1 means cheaper.", "",
            "## Goals (ANCHORS.md)", "",
            "| goal | result |", "| --- | --- |"]
    out += [f"| {t} | {m} |" for t, m in goals(figures)]
    out += ["", "## A workload", "", WORKLOAD_TEXT, ""]
    out += workload_table(figures)
    out += ["", "## Before and after", "",
            "The same cases as measured on the 55-patch series, before the",
            "system call probes lost their lock and the records their",
            "variable argument list (Documentation/cost.md has the",
            "instructions behind each figure):", ""]
    out += before_table(figures)
    out += ["", "## Cost goals", "", "| goal | result |", "| --- | --- |"]
    out += [f"| {t} | {m} |" for t, m in goals(figures, COST_GOALS)]
    out += ["", "## The runs", ""]
    head = "| figure | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " |"
    out += [head, "| --- |" + " ---: |" * len(runs)]
    for i in ids:
        out.append(f"| {i} | " + " | ".join(fmt(r.get(i)) for r in runs) + " |")
    out += ["", "Figures that differ between the runs: " +
            (", ".join(differ) if differ else "none") + ".",
            "Only cases that wait (for an RCU grace period or another CPU) can",
            "differ: waiting advances the virtual clock by time, not by",
            "instructions.", "", "## Hot paths", ""]
    if args.module:
        for func, what in LISTINGS:
            lst = listing(args.module, func)
            if lst:
                out += [f"`{func}` ({what}), from the first `rdtsc` to the",
                        "second; the loop between them is the timed path:", "",
                        "```"] + lst + ["```", ""]
    out += [EXPLAIN]
    with open(args.md, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
