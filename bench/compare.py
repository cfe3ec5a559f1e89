#!/usr/bin/env python3
"""Benchmark our dtrace against Debian's bpftrace on the same jobs, in one run.

usage (as root, from the repository root):

    cargo build --release -p dtrace-cli
    python3 bench/compare.py [--dtrace PATH] [--bpftrace PATH] [--runs N]
                             [--calls N] [--rounds N] [--skip-slow] [--markdown]

Three measurements (the foundation issue's performance requirements):

1. start-up: `dtrace -n 'BEGIN { exit(0); }'` against `bpftrace -e 'BEGIN { exit(); }'`:
   median wall time and median peak RSS (wait4's ru_maxrss) over --runs runs.
2. attach + detach: `dtrace -n 'syscall:::entry { @[probefunc] = count(); }' -c /bin/true`
   against bpftrace on every `tracepoint:syscalls:sys_enter_*` with the same -c:
   wall time of the whole run, an upper bound on attach plus detach. bpftrace
   takes more than 20 s here and stalls other tracers, so it runs once (and not
   at all with --skip-slow).
3. per event: bench/getppid_ns.c makes --rounds rounds of --calls getppid(2) calls
   and prints the median round's ns per call. It runs alone (the baseline) and
   under each tracer program; a configuration's extra cost per event is its
   median minus the baseline's median (and, beside it, best run minus best
   run: on a busy machine interference only adds). The configurations run interleaved,
   --runs times each, so drifting machine load hits them all alike. The
   "getpid" rows run the loop on getpid(2), which no program traces, while
   getppid is traced: the tax tracing puts on every other syscall.

Only the Python 3 standard library and a C compiler (cc) are needed.
"""

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def default_dtrace():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    return os.path.join(target, "release", "dtrace")


def build_helper(tmp):
    """Compile bench/getppid_ns.c into tmp; return its path."""
    out = os.path.join(tmp, "getppid_ns")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("compare.py: no C compiler (cc) found")
    subprocess.run([cc, "-O2", "-Wall", "-o", out, os.path.join(HERE, "getppid_ns.c")],
                   check=True)
    return out


def run_measured(argv, timeout=120):
    """Run argv with no stdin and discarded output; return (seconds, maxrss KiB, status)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = start + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid != 0:
            break
        if time.perf_counter() > deadline:
            p.kill()
            _, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.0005)
    elapsed = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, ru.ru_maxrss, p.returncode


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def startup(tools, runs):
    rows = []
    for name, argv in tools:
        times, rss, bad = [], [], 0
        for _ in range(runs):
            t, r, status = run_measured(argv)
            bad += status != 0
            times.append(t * 1e3)
            rss.append(r / 1024.0)
        rows.append((name, " ".join(argv), median(times), min(times), median(rss), bad))
    return rows


def attach_detach(tools, runs, skip_slow):
    rows = []
    for name, argv, slow in tools:
        if slow and skip_slow:
            rows.append((name, " ".join(argv), None, None, 0, 0))
            continue
        n = 1 if slow else runs
        times, bad = [], 0
        for _ in range(n):
            t, _, status = run_measured(argv, timeout=300)
            bad += status != 0
            times.append(t)
        rows.append((name, " ".join(argv), median(times), max(times), n, bad))
    return rows


def per_event(configs, helper, calls, rounds, runs, tmp, clock="wall"):
    """configs: (name, argv-prefix or None, traced-syscall). Returns rows.
    clock "cpu" times the helper's rounds in its thread CPU time."""
    samples = {name: [] for name, _, _ in configs}
    out = os.path.join(tmp, "ns.txt")
    for _ in range(runs):
        for name, prefix, which in configs:
            child = [helper, str(calls), str(rounds), out, which, clock]
            if os.path.exists(out):
                os.unlink(out)
            if prefix is None:
                argv = child
            else:
                argv = prefix + ["-c", " ".join(child)]
            run_measured(argv, timeout=300)
            try:
                with open(out) as f:
                    samples[name].append(float(f.read().split()[1]))
            except (OSError, IndexError, ValueError):
                pass
    return samples


def fmt(x, unit="", digits=1):
    if x is None or x != x:
        return "-"
    return f"{x:.{digits}f}{unit}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dtrace", default=default_dtrace())
    ap.add_argument("--bpftrace", default=shutil.which("bpftrace") or "/usr/bin/bpftrace")
    ap.add_argument("--runs", type=int, default=11, help="runs per measurement (start-up)")
    ap.add_argument("--event-runs", type=int, default=5, help="runs per per-event configuration")
    ap.add_argument("--calls", type=int, default=200000, help="getppid calls per round")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per helper run")
    ap.add_argument("--skip-slow", action="store_true",
                    help="skip bpftrace's all-syscalls run (> 20 s, stalls other tracers)")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--breakdown", action="store_true",
                    help="also time dtrace clause variants, to split the per-event cost")
    ap.add_argument("--untraced", action="store_true",
                    help="only section 5: the cost on an untraced syscall of enabling "
                         "a few syscalls (their own tracepoints) or many (raw sys_enter)")
    a = ap.parse_args()

    for tool in (a.dtrace, a.bpftrace):
        if not os.access(tool, os.X_OK):
            sys.exit(f"compare.py: {tool} is not an executable")
    if os.geteuid() != 0:
        sys.exit("compare.py: run as root (both tracers need it)")

    dt, bt = a.dtrace, a.bpftrace
    if a.untraced:
        with tempfile.TemporaryDirectory(prefix="dtrace-bench-") as tmp:
            untraced(a, dt, build_helper(tmp), tmp)
        return 0
    with tempfile.TemporaryDirectory(prefix="dtrace-bench-") as tmp:
        helper = build_helper(tmp)
        print(f"# bench/compare.py  {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
        print(f"# kernel {platform.release()}, {os.cpu_count()} CPUs, "
              f"load average {os.getloadavg()[0]:.2f}")
        print(f"# dtrace {dt}\n# bpftrace {bt}\n")

        s = startup([
            ("dtrace", [dt, "-q", "-n", "BEGIN { exit(0); }"]),
            ("bpftrace", [bt, "-e", "BEGIN { exit(); }"]),
        ], a.runs)
        table(a.markdown, "1. start-up (median of %d runs)" % a.runs,
              ["tool", "command", "median ms", "min ms", "median peak RSS MiB", "failed"],
              [(n, c, fmt(m), fmt(lo), fmt(r), str(b)) for n, c, m, lo, r, b in s])

        d = attach_detach([
            ("dtrace", [dt, "-q", "-n", "syscall:::entry { @[probefunc] = count(); }",
                        "-c", "/bin/true"], False),
            ("bpftrace", [bt, "-e", "tracepoint:syscalls:sys_enter_* { @[probe] = count(); }",
                          "-c", "/bin/true"], True),
        ], max(3, a.runs // 2), a.skip_slow)
        table(a.markdown, "2. every syscall entry, -c /bin/true: whole-run wall time "
              "(an upper bound on attach + detach)",
              ["tool", "command", "median s", "max s", "runs", "failed"],
              [(n, c, fmt(m, digits=3), fmt(x, digits=3), str(k), str(b))
               for n, c, m, x, k, b in d])

        configs = [
            ("baseline getppid (untraced)", None, "getppid"),
            ("bpftrace floor: tracepoint:syscalls:sys_enter_getppid { }",
             [bt, "-e", "tracepoint:syscalls:sys_enter_getppid { }"], "getppid"),
            ("bpftrace: tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }",
             [bt, "-e", "tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }"], "getppid"),
            ("dtrace floor: syscall::getppid:entry /0/ { }",
             [dt, "-q", "-n", "syscall::getppid:entry /0/ { }"], "getppid"),
            ("dtrace: syscall::getppid:entry { @[execname] = count(); }",
             [dt, "-q", "-n", "syscall::getppid:entry { @[execname] = count(); }"], "getppid"),
            ("baseline getpid (untraced)", None, "getpid"),
            ("getpid under bpftrace @[comm] = count() on getppid",
             [bt, "-e", "tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }"], "getpid"),
            ("getpid under dtrace @[execname] = count() on getppid",
             [dt, "-q", "-n", "syscall::getppid:entry { @[execname] = count(); }"], "getpid"),
        ]
        samples = per_event(configs, helper, a.calls, a.rounds, a.event_runs, tmp)
        def low(xs):
            return min(xs) if xs else float("nan")

        base_names = (configs[0][0], configs[5][0])
        base = {"getppid": samples[configs[0][0]], "getpid": samples[configs[5][0]]}
        rows = []
        for name, _, which in configs:
            m, lo = median(samples[name]), low(samples[name])
            if name in base_names:
                extra, extra_lo = 0.0, 0.0
            else:
                extra = m - median(base[which])
                extra_lo = lo - low(base[which])
            rows.append((name, fmt(m), fmt(extra), fmt(lo), fmt(extra_lo),
                         str(len(samples[name]))))
        table(a.markdown, f"3. per event: {a.calls} calls x {a.rounds} rounds per run, "
              f"{a.event_runs} runs (median, and best run: interference only adds)",
              ["configuration", "median ns/call", "extra (median)", "best ns/call",
               "extra (best)", "runs"], rows)
        if a.breakdown:
            breakdown(a, dt, helper, tmp)
    return 0


def breakdown(a, dt, helper, tmp):
    """Section 4: what each part of `@[execname] = count()` costs."""
    variants = [
        ("baseline getppid (untraced)", None),
        ("/0/ { } (trampoline, predicate false)", "syscall::getppid:entry /0/ { }"),
        ("@ = count() (no key)", "syscall::getppid:entry { @ = count(); }"),
        ("@[pid] = count() (8-byte key)", "syscall::getppid:entry { @[pid] = count(); }"),
        ("@[execname] = count() (16-byte comm key)",
         "syscall::getppid:entry { @[execname] = count(); }"),
        ("{ } (default action: one ring-buffer record per event)",
         "syscall::getppid:entry { }"),
    ]
    configs = [(n, None if p is None else [dt, "-q", "-n", p], "getppid") for n, p in variants]
    samples = per_event(configs, helper, a.calls, a.rounds, a.event_runs, tmp)
    base = samples[configs[0][0]]
    rows = []
    for name, _, _ in configs:
        xs = samples[name]
        m = median(xs)
        rows.append((name, fmt(m), fmt(m - median(base)), fmt(min(xs) - min(base)) if xs else "-"))
    table(a.markdown, "4. dtrace per-event cost by clause body (median of %d runs)" % a.event_runs,
          ["clause on syscall::getppid:entry", "median ns/call", "extra (median)",
           "extra (best)"], rows)


FIVE = ["getppid", "read", "write", "openat", "close"]
SEVEN = FIVE + ["mmap", "brk"]


def untraced(a, dt, helper, tmp):
    """Section 5: what enabling syscalls costs a syscall none of them is (getpid).

    Five syscalls are traced through their own tracepoints
    (syscalls:sys_enter_<name>), which other syscalls never reach; seven
    (over the codegen threshold) through the raw sys_enter tracepoint, which
    every syscall runs into and leaves after the number-table lookup."""
    def prog(names):
        probes = ",".join(f"syscall::{n}:entry" for n in names)
        return [dt, "-q", "-n", probes + " { @[probefunc] = count(); }"]
    configs = [
        ("baseline getpid (untraced)", None, "getpid"),
        ("dtrace running, no syscall enabled (tick-10s)",
         [dt, "-q", "-n", "tick-10s { @ = count(); }"], "getpid"),
        ("5 syscalls enabled (per-syscall tracepoints)", prog(FIVE), "getpid"),
        ("7 syscalls enabled (raw sys_enter)", prog(SEVEN), "getpid"),
    ]
    if os.path.exists(a.bpftrace):
        # The kernel's floor for any tracer of these five: empty programs on
        # the same per-syscall tracepoints.
        bt = ",".join(f"tracepoint:syscalls:sys_enter_{n}" for n in FIVE)
        configs.append(("bpftrace: 5 empty per-syscall tracepoints",
                        [a.bpftrace, "-e", bt + " { }"], "getpid"))
    samples = per_event(configs, helper, a.calls, a.rounds, a.event_runs, tmp, clock="cpu")
    base = samples[configs[0][0]]
    rows = []
    for name, _, _ in configs:
        xs = samples[name]
        m = median(xs)
        rows.append((name, fmt(m), fmt(m - median(base)),
                     fmt(min(xs) - min(base)) if xs else "-", str(len(xs))))
    table(a.markdown, "5. getpid(2), untraced, while other syscalls are enabled "
          f"(thread CPU time, median of {a.event_runs} runs)",
          ["configuration", "median ns/call", "extra (median)", "extra (best)", "runs"], rows)


def table(markdown, title, head, rows):
    print(f"## {title}" if markdown else title)
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for r in rows:
            print("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    else:
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for r in rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    print()


if __name__ == "__main__":
    sys.exit(main())
