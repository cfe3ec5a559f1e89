#!/usr/bin/env python3
"""printf throughput and aggregation snapshot cost, our dtrace beside bpftrace.

usage (as root, from the repository root):

    cargo build --release -p dtrace-cli
    python3 bench/throughput.py [--dtrace PATH] [--bpftrace PATH] [--seconds S]

1. printf throughput: bench/getppid_rate.c makes getppid(2) calls at a set rate
   for --seconds; each tracer prints one line per call
   (`printf("%d %d\\n", pid, timestamp)`) to a file, at default settings. For
   each rate the run counts the lines delivered and the drops the tracer
   reported (dtrace: "N drops on CPU n"; bpftrace: "Lost N events"), checks
   delivered + reported = generated, and the table gives the highest rate with
   zero drops.
2. aggregation snapshot: `@[timestamp] = count()` over 50,000 getppid calls
   gives a 50,000-key aggregation, which dtrace reads (MAP_LOOKUP_BATCH) and
   prints at the end. The cost is the run's wall time minus that of the same
   run keyed by nothing (`@ = count()`): reading, sorting and printing
   50,000 keys.

Only the Python 3 standard library and a C compiler are needed.
"""

import argparse
import datetime
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RATES = [50_000, 100_000, 200_000, 300_000, 400_000, 600_000, 800_000, 1_200_000]


def build(tmp, name, src):
    out = os.path.join(tmp, name)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("throughput.py: no C compiler (cc) found")
    subprocess.run([cc, "-O2", "-Wall", "-o", out, src], check=True)
    return out


def printf_run(tool, path, helper, rate, secs, tmp):
    """One run at `rate`: (generated, delivered, reported drops)."""
    out = os.path.join(tmp, "out.txt")
    cmd = f"{helper} {rate} {secs}"
    if tool == "dtrace":
        argv = [path, "-q", "-o", out, "-n",
                'syscall::getppid:entry /pid == $target/ { printf("%d %d\\n", pid, timestamp); }',
                "-c", cmd]
    else:
        argv = [path, "-o", out, "-e",
                'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf("%d %d\\n", pid, nsecs); }',
                "-c", cmd]
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=secs * 10 + 60)
    err = p.stderr
    m = re.search(r"calls (\d+)", err)
    generated = int(m.group(1)) if m else 0
    with open(out) as f:
        delivered = sum(1 for line in f if re.match(r"^\d+ \d+$", line.strip()))
    if tool == "dtrace":
        drops = sum(int(n) for n in re.findall(r"dtrace: (\d+) drops? on CPU", err))
    else:
        drops = sum(int(n) for n in re.findall(r"Lost (\d+) events", err))
    os.unlink(out)
    return generated, delivered, drops


def snapshot_run(path, helper, keyed):
    prog = "@[timestamp] = count();" if keyed else "@ = count();"
    argv = [path, "-q", "-o", "/dev/null", "-n",
            f"syscall::getppid:entry /pid == $target/ {{ {prog} }}",
            "-c", f"{helper} 50000 1"]
    start = time.perf_counter()
    subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dtrace", default=os.path.join(REPO, "target", "release", "dtrace"))
    ap.add_argument("--bpftrace", default=shutil.which("bpftrace"))
    ap.add_argument("--seconds", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rate_helper = build(tmp, "getppid_rate", os.path.join(HERE, "getppid_rate.c"))
        print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
              f"{os.cpu_count()} CPUs, {a.seconds} s per rate")
        tools = [("dtrace", a.dtrace)] + ([("bpftrace", a.bpftrace)] if a.bpftrace else [])
        print("\n| tool | rate/s | generated | delivered | reported drops | "
              "delivered + reported = generated |")
        print("|---|---:|---:|---:|---:|---|")
        best = {}
        for tool, path in tools:
            for rate in RATES:
                g, d, r = printf_run(tool, path, rate_helper, rate, a.seconds, tmp)
                print(f"| {tool} | {rate:,} | {g:,} | {d:,} | {r:,} | "
                      f"{'yes' if d + r == g else 'no'} |", flush=True)
                if r == 0 and d == g:
                    best[tool] = rate
                else:
                    break
        print("\nHighest drop-free rate: " +
              ", ".join(f"{t} {best.get(t, 0):,}/s" for t, _ in tools))
        walls = {True: [], False: []}
        for _ in range(a.runs):
            for keyed in (True, False):
                walls[keyed].append(snapshot_run(a.dtrace, rate_helper, keyed))
        k, u = statistics.median(walls[True]), statistics.median(walls[False])
        print(f"\n50,000-key aggregation: run {k * 1000:.0f} ms against {u * 1000:.0f} ms "
              f"unkeyed (read + print: {(k - u) * 1000:.0f} ms, median of {a.runs})")


if __name__ == "__main__":
    main()
