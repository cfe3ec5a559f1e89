#!/usr/bin/env python3
"""Start-up and listing times of one or more dtrace binaries.

Each case runs RUNS times, the binaries and cases interleaved (so a burst of
load on this shared machine hits every case alike). For each it prints the
median and minimum wall time and the median CPU time (user + system of the
child, from wait4), in milliseconds, and the number of output lines.

  bench/startup.py [--runs N] BINARY [BINARY...]

Run as root (BEGIN loads a BPF program; -l reads tracefs).
"""

import argparse
import os
import statistics
import subprocess
import time

CASES = [
    ("BEGIN", ["-q", "-n", "BEGIN { exit(0); }"]),
    ("BEGIN+task_struct", ["-q", "-n",
                           "BEGIN { trace(((struct task_struct *)curthread)->pid); exit(0); }"]),
    ("-l", ["-l"]),
    ("-l sdt:::sched_switch", ["-l", "-n", "sdt:::sched_switch"]),
    ("-l -P fbt", ["-l", "-P", "fbt"]),
    ("-lv syscall::read:entry", ["-lv", "-n", "syscall::read:entry"]),
]


def run_once(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out, _ = proc.communicate()
    wall = time.perf_counter() - start
    # communicate() reaped the child; its rusage is in RUSAGE_CHILDREN deltas,
    # so measure CPU with a second wait4-based run instead: see cpu_once().
    return wall * 1000.0, out.count(b"\n"), proc.returncode


def cpu_once(argv):
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, _, ru = os.wait4(pid, 0)
    return (ru.ru_utime + ru.ru_stime) * 1000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--case", action="append", help="only cases with this label")
    ap.add_argument("binaries", nargs="+")
    a = ap.parse_args()
    cases = [c for c in CASES if not a.case or c[0] in a.case]
    walls = {}
    cpus = {}
    lines = {}
    for _ in range(a.runs):
        for label, args in cases:
            for b in a.binaries:
                argv = [b] + args
                w, n, rc = run_once(argv)
                walls.setdefault((b, label), []).append(w)
                lines[(b, label)] = (n, rc)
                cpus.setdefault((b, label), []).append(cpu_once(argv))
    print(f"{'case':<26} {'binary':<34} {'median ms':>9} {'min ms':>7} {'cpu ms':>7} {'lines':>7} rc")
    for label, _ in cases:
        for b in a.binaries:
            w = walls[(b, label)]
            c = cpus[(b, label)]
            n, rc = lines[(b, label)]
            print(f"{label:<26} {b:<34} {statistics.median(w):9.1f} {min(w):7.1f} "
                  f"{statistics.median(c):7.1f} {n:7d} {rc}")


if __name__ == "__main__":
    main()
