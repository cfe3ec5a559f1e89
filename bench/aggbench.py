#!/usr/bin/env python3
"""What aggregations cost at start-up and at a 50,000-key print: dtrace
binaries beside bpftrace, in one run.

  bench/aggbench.py [--runs N] [--keys K] [--bpftrace PATH] NAME=BINARY [NAME=BINARY...]

Start-up: `BEGIN { exit(0); }` and `BEGIN { @ = count(); exit(0); }` (bpftrace:
`BEGIN { @ = count(); exit(); }`), each run RUNS times, every tool and case
interleaved; wall time (median, min) and peak RSS (median, from wait4).

Keys: the traced command makes K getppid(2) calls; the program aggregates
them by timestamp (K keys) or into one key (`@ = count()`). The difference
between the two runs' wall times is what reading, sorting and printing K keys
costs (the END output goes to /dev/null). Run as root; builds its trigger
(tests/triggers/getppid_loop.c) with cc into a temporary directory.
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TRIGGER = os.path.join(HERE, "..", "tests", "triggers", "getppid_loop.c")


def run(argv):
    """Wall ms, peak RSS MiB and exit status of one run (output discarded)."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter() - start) * 1e3
    return wall, ru.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status)


def cases(tools, bpftrace, loop, keys):
    out = []
    for name, binary in tools:
        out += [
            (name, "start-up: BEGIN { exit(0); }",
             [binary, "-q", "-n", "BEGIN { exit(0); }"]),
            (name, "start-up: BEGIN { @ = count(); exit(0); }",
             [binary, "-q", "-n", "BEGIN { @ = count(); exit(0); }"]),
            (name, f"{keys} keys",
             [binary, "-q", "-n",
              "syscall::getppid:entry /pid == $target/ { @[timestamp] = count(); }",
              "-c", f"{loop} {keys}"]),
            (name, "1 key",
             [binary, "-q", "-n",
              "syscall::getppid:entry /pid == $target/ { @ = count(); }",
              "-c", f"{loop} {keys}"]),
        ]
    if bpftrace:
        out += [
            ("bpftrace", "start-up: BEGIN { exit(0); }",
             [bpftrace, "-e", "BEGIN { exit(); }"]),
            ("bpftrace", "start-up: BEGIN { @ = count(); exit(0); }",
             [bpftrace, "-e", "BEGIN { @ = count(); exit(); }"]),
            ("bpftrace", f"{keys} keys",
             [bpftrace, "-e",
              "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[nsecs] = count(); }",
              "-c", f"{loop} {keys}"]),
            ("bpftrace", "1 key",
             [bpftrace, "-e",
              "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @ = count(); }",
              "-c", f"{loop} {keys}"]),
        ]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--keys", type=int, default=50000)
    ap.add_argument("--bpftrace", default="/usr/bin/bpftrace")
    ap.add_argument("--key-runs", type=int, default=5)
    ap.add_argument("tools", nargs="+", help="NAME=BINARY")
    a = ap.parse_args()
    tools = [t.split("=", 1) for t in a.tools]
    bpftrace = a.bpftrace if a.bpftrace and os.path.exists(a.bpftrace) else None
    with tempfile.TemporaryDirectory() as tmp:
        loop = os.path.join(tmp, "getppid_loop")
        subprocess.run(["cc", "-O2", "-o", loop, TRIGGER], check=True)
        all_cases = cases(tools, bpftrace, loop, a.keys)
        results = {}
        for i in range(a.runs):
            for tool, label, argv in all_cases:
                if "start-up" not in label and i >= a.key_runs:
                    continue
                results.setdefault((tool, label), []).append(run(argv))
    print("| tool | case | median ms | min ms | median peak RSS MiB | failed |")
    print("|---|---|---|---|---|---|")
    for (tool, label), rs in results.items():
        walls = [r[0] for r in rs]
        rss = [r[1] for r in rs]
        failed = sum(1 for r in rs if r[2] != 0)
        print(f"| {tool} | {label} | {statistics.median(walls):.1f} | {min(walls):.1f} | "
              f"{statistics.median(rss):.1f} | {failed} |")
    print()
    print(f"| tool | {a.keys} keys minus 1 key: median ms | min ms |")
    print("|---|---|---|")
    for tool in [t[0] for t in tools] + (["bpftrace"] if bpftrace else []):
        many = [r[0] for r in results.get((tool, f"{a.keys} keys"), [])]
        one = [r[0] for r in results.get((tool, "1 key"), [])]
        if many and one:
            print(f"| {tool} | {statistics.median(many) - statistics.median(one):.1f} | "
                  f"{min(many) - min(one):.1f} |")


if __name__ == "__main__":
    main()
