#!/usr/bin/env python3
"""What one probe firing costs, dtrace beside bpftrace, in one run.

usage (as root, from the repository root):

    cargo build --release -p dtrace-cli
    python3 bench/probe_cost.py [--dtrace PATH] [--bpftrace PATH] [--runs N]
                                [--only malloc|usdt|openat|exec|oncpu ...]
                                [--baseline PATH]

Workloads (bench/probe_loops.c, built static so that a uprobe on its own
`malloc` fires in no other process): `malloc` calls malloc(16)+free, `usdt`
fires the <sys/sdt.h> probe `bench:::tick`, `openat` opens and closes
/dev/null (copyinstr of the path against bpftrace's str()), `exec` forks and execs /bin/true,
`oncpu` passes a byte back and forth between two processes on CPU 0 (two
context switches per operation; `sched:::on-cpu` against `sched_switch`).
Each runs untraced and under each tracer program (an empty D clause is not
empty: it records the probe, so dtrace's "bare" configuration is a clause whose
predicate is never true) (all with -c, so the probes
are attached before the loop starts), the configurations interleaved, --runs
times each.

Two measures per configuration:
- wall: the loop's own median ns per operation; a tracer's cost is its median
  less the untraced median (on a busy machine, noisy: interference only adds);
- bpf: the kernel's run time of the tracer's BPF programs per firing
  (run_time_ns / run_cnt from /proc/PID/fdinfo, with BPF statistics enabled by
  BPF_ENABLE_STATS for this run only). It leaves out the attachment itself
  (the uprobe trap, the perf tracepoint's record), which is the same for both
  tracers except where said;
- for oncpu, also bpf per context switch: the same run time over the machine's
  context switches in the run (/proc/stat), since `sched:::on-cpu`'s program
  runs at every return from `__schedule`, switch or not, and bpftrace's at
  every switch.

--baseline PATH runs each dtrace configuration a second time with another
dtrace binary (labelled "baseline"), interleaved with the rest: a before/after
comparison in one run.

Only the Python 3 standard library and a C compiler (cc, static glibc) are needed.
"""

import argparse
import ctypes
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

SYS_BPF = 321  # x86_64
BPF_ENABLE_STATS = 32
BPF_STATS_RUN_TIME = 0


def enable_bpf_stats():
    """Turn on the kernel's BPF run-time statistics while the returned fd is open."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = (ctypes.c_uint32 * 16)()
    attr[0] = BPF_STATS_RUN_TIME
    fd = libc.syscall(SYS_BPF, BPF_ENABLE_STATS, ctypes.byref(attr), ctypes.sizeof(attr))
    if fd < 0:
        print(f"probe_cost.py: BPF_ENABLE_STATS failed (errno {ctypes.get_errno()}): "
              "no bpf column", file=sys.stderr)
        return None
    return fd


def configurations(helper, mode, dtrace, bpftrace):
    """(label, argv prefix or None for untraced) for one workload."""
    if mode == "malloc":
        return [
            ("untraced", None),
            ("bpftrace uprobe:malloc {} (bare uprobe)",
             [bpftrace, "-q", "-e", f"uprobe:{helper}:malloc {{ }}"]),
            ("bpftrace uprobe:malloc { @ = count(); }",
             [bpftrace, "-q", "-e", f"uprobe:{helper}:malloc {{ @ = count(); }}"]),
            ("dtrace pid$target::malloc:entry /arg0 == 0/ {} (never true)",
             [dtrace, "-q", "-n", "pid$target::malloc:entry /arg0 == 0/ {}"]),
            ("dtrace pid$target::malloc:entry { x = 1; }",
             [dtrace, "-q", "-n", "pid$target::malloc:entry { x = 1; }"]),
            ("dtrace pid$target::malloc:entry { @ = count(); }",
             [dtrace, "-q", "-n", "pid$target::malloc:entry { @ = count(); }"]),
        ]
    if mode == "usdt":
        return [
            ("untraced", None),
            ("bpftrace usdt:bench:tick {} (bare uprobe)",
             [bpftrace, "-q", "-e", f"usdt:{helper}:bench:tick {{ }}"]),
            ("bpftrace usdt:bench:tick { @ = count(); }",
             [bpftrace, "-q", "-e", f"usdt:{helper}:bench:tick {{ @ = count(); }}"]),
            ("dtrace bench$target:::tick /arg0 < 0/ {} (never true)",
             [dtrace, "-q", "-n", "bench$target:::tick /arg0 < 0/ {}"]),
            ("dtrace bench$target:::tick { @ = count(); }",
             [dtrace, "-q", "-n", "bench$target:::tick { @ = count(); }"]),
        ]
    if mode == "openat":
        tp = "tracepoint:syscalls:sys_enter_openat /pid == cpid/"
        return [
            ("untraced", None),
            ("bpftrace sys_enter_openat { $s = str(args->filename); }",
             [bpftrace, "-q", "-e", f"{tp} {{ $s = str(args->filename); }}"]),
            ("dtrace syscall::openat:entry { this->s = copyinstr(arg1); }",
             [dtrace, "-q", "-n",
              "syscall::openat:entry /pid == $target/ { this->s = copyinstr(arg1); }"]),
            ("bpftrace sys_enter_openat { @[str(args->filename)] = count(); }",
             [bpftrace, "-q", "-e", f"{tp} {{ @[str(args->filename)] = count(); }}"]),
            ("dtrace syscall::openat:entry { @[copyinstr(arg1)] = count(); }",
             [dtrace, "-q", "-n",
              "syscall::openat:entry /pid == $target/ { @[copyinstr(arg1)] = count(); }"]),
        ]
    if mode == "oncpu":
        return [
            ("untraced", None),
            ("bpftrace tracepoint:sched:sched_switch { @ = count(); }",
             [bpftrace, "-q", "-e", "tracepoint:sched:sched_switch { @ = count(); }"]),
            ("dtrace sched:::on-cpu { @ = count(); }",
             [dtrace, "-q", "-n", "sched:::on-cpu { @ = count(); }"]),
        ]
    return [
        ("untraced", None),
        ("bpftrace tracepoint:sched:sched_process_exec { @ = count(); }",
         [bpftrace, "-q", "-e", "tracepoint:sched:sched_process_exec { @ = count(); }"]),
        ("dtrace proc:::exec-success { @ = count(); }",
         [dtrace, "-q", "-n", "proc:::exec-success { @ = count(); }"]),
    ]


def run_one(prefix, helper, mode, calls, rounds, out):
    cmd = [helper, "pingpong" if mode == "oncpu" else mode, str(calls), str(rounds), out]
    if prefix is None:
        argv = cmd
    else:
        argv = prefix + ["-c", " ".join(cmd)]
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
    try:
        with open(out) as f:
            med, best, ns, cnt, switches = f.read().split()
        os.unlink(out)
    except (OSError, ValueError):
        sys.exit(f"probe_cost.py: {' '.join(argv)} gave no result "
                 f"(status {r.returncode}): {r.stderr.decode(errors='replace')[-400:]}")
    return float(med), float(best), int(ns), int(cnt), int(switches)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtrace", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target")), "release", "dtrace"))
    ap.add_argument("--bpftrace", default=shutil.which("bpftrace") or "bpftrace")
    ap.add_argument("--baseline", help="another dtrace binary to run beside --dtrace")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", action="append", choices=["malloc", "usdt", "openat", "exec", "oncpu"])
    a = ap.parse_args()
    modes = a.only or ["malloc", "usdt", "openat", "exec", "oncpu"]
    sizes = {"malloc": (200_000, 5), "usdt": (200_000, 5), "openat": (200_000, 5),
             "exec": (300, 3), "oncpu": (100_000, 3)}
    tmp = tempfile.mkdtemp(prefix="probe_cost.")
    helper = os.path.join(tmp, "probe_loops")
    subprocess.run(["cc", "-O2", "-static", "-Wall", "-o", helper,
                    os.path.join(HERE, "probe_loops.c")], check=True)
    stats_fd = enable_bpf_stats()
    out = os.path.join(tmp, "result")
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"{os.uname().release}, load {os.getloadavg()[0]:.1f}, runs {a.runs}")
    try:
        for mode in modes:
            calls, rounds = sizes[mode]
            confs = configurations(helper, mode, a.dtrace, a.bpftrace)
            if a.baseline:
                confs += [(label.replace("dtrace ", "baseline dtrace ", 1),
                           [a.baseline] + prefix[1:])
                          for label, prefix in confs
                          if prefix is not None and prefix[0] == a.dtrace]
            res = {label: [] for label, _ in confs}
            for _ in range(a.runs):
                for label, prefix in confs:
                    res[label].append(run_one(prefix, helper, mode, calls, rounds, out))
            base = statistics.median(r[0] for r in res["untraced"])
            base_best = min(r[1] for r in res["untraced"])
            print(f"\n## {mode}: {calls} ops x {rounds} rounds per run\n")
            per_switch = mode == "oncpu"
            print("| configuration | ns/op (median) | extra ns/op | extra, best runs "
                  "| bpf ns per firing |" + (" bpf ns per context switch |" if per_switch else ""))
            print("|---|---|---|---|---|" + ("---|" if per_switch else ""))
            for label, _ in confs:
                rs = res[label]
                med = statistics.median(r[0] for r in rs)
                best = min(r[1] for r in rs)
                ns = sum(r[2] for r in rs)
                cnt = sum(r[3] for r in rs)
                switches = sum(r[4] for r in rs)
                bpf = f"{ns / cnt:.0f}" if cnt else "-"
                if per_switch:
                    bpf += f" | {ns / switches:.0f}" if cnt and switches else " | -"
                extra = "-" if label == "untraced" else f"{med - base:.0f}"
                extra_best = "-" if label == "untraced" else f"{best - base_best:.0f}"
                print(f"| {label} | {med:.0f} | {extra} | {extra_best} | {bpf} |")
    finally:
        if stats_fd is not None:
            os.close(stats_fd)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
