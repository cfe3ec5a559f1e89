#!/usr/bin/env python3
"""What creating (and closing) an aggregation map costs, for each candidate layout.

Run as root: python3 bench/aggmap_create.py [--entries N] [--runs R]

Each layout is created with bpf(BPF_MAP_CREATE) directly (ctypes), timed from
the call to its return, then closed; closing is timed too, though the kernel
frees most of a map after an RCU grace period, off this process's clock. The
entry count defaults to what `aggsize=4m` gives `@ = count()` (4 MiB / 16
bytes); keys are 16 bytes (the aggregation id, then an 8-byte tuple) and values
8 bytes.
"""

import argparse
import ctypes
import os
import statistics
import time

SYS_BPF = 321  # x86_64
BPF_MAP_CREATE = 0
HASH, ARRAY, PERCPU_HASH, PERCPU_ARRAY, ARRAY_OF_MAPS, QUEUE = 1, 2, 5, 6, 12, 22
NO_PREALLOC = 1
MMAPABLE = 1 << 10

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def create(map_type, key_size, value_size, entries, flags=0, inner_fd=0):
    attr = (ctypes.c_uint32 * 32)()
    attr[0], attr[1], attr[2], attr[3], attr[4] = map_type, key_size, value_size, entries, flags
    attr[5] = inner_fd
    fd = libc.syscall(SYS_BPF, BPF_MAP_CREATE, ctypes.byref(attr), ctypes.sizeof(attr))
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return fd


def possible_cpus():
    text = open("/sys/devices/system/cpu/possible").read().strip()
    n = 0
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return n


def layouts(n, ncpu):
    """Each candidate: a name and a function making its maps (returns fds)."""
    return [
        ("per-CPU hash, preallocated (the old layout)", lambda: [create(PERCPU_HASH, 16, 8, n)]),
        ("per-CPU hash, BPF_F_NO_PREALLOC (rejected: drops)",
         lambda: [create(PERCPU_HASH, 16, 8, n, NO_PREALLOC)]),
        ("keys: hash key -> u32 slot, preallocated", lambda: [create(HASH, 16, 4, n)]),
        ("values: per-CPU array of n slots", lambda: [create(PERCPU_ARRAY, 4, 8, n)]),
        ("values: plain array of n x CPUs slots", lambda: [create(ARRAY, 4, 8, n * ncpu)]),
        ("values: plain array, mmapable", lambda: [create(ARRAY, 4, 8, n * ncpu, MMAPABLE)]),
        ("slot keys: mmapable array of n {state, key}",
         lambda: [create(ARRAY, 4, 24, n, MMAPABLE)]),
        ("free slots: queue of n u32", lambda: [create(QUEUE, 0, 4, n)]),
        ("the new layout: the four above (hash, values, slot keys, queue)",
         lambda: [create(HASH, 16, 4, n), create(ARRAY, 4, 8, n * ncpu, MMAPABLE),
                  create(ARRAY, 4, 24, n, MMAPABLE), create(QUEUE, 0, 4, n)]),
        ("one plain hash per CPU (key -> value), preallocated",
         lambda: [create(HASH, 16, 8, n) for _ in range(ncpu)]),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=(4 << 20) // 16)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    ncpu = possible_cpus()
    print(f"entries {args.entries}, possible CPUs {ncpu}, runs {args.runs}")
    print("| layout | create median ms | create min ms | close median ms |")
    print("|---|---|---|---|")
    for name, make in layouts(args.entries, ncpu):
        made, closed = [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            fds = make()
            t1 = time.perf_counter()
            for fd in fds:
                os.close(fd)
            t2 = time.perf_counter()
            made.append((t1 - t0) * 1e3)
            closed.append((t2 - t1) * 1e3)
            time.sleep(0.2)  # let the deferred frees run before the next run
        print(f"| {name} | {statistics.median(made):.2f} | {min(made):.2f} | "
              f"{statistics.median(closed):.2f} |")


if __name__ == "__main__":
    main()
