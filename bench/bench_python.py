# SPDX-License-Identifier: MIT
"""The Python binding against psutil: memory_maps() on targets with many mappings.

    PYTHONPATH=python PMAPS_LIBRARY=build/release/libpmaps.so.0 \\
        /usr/bin/python3 bench/bench_python.py [--bench build/release/pmaps-bench]
        [--vmas 10000,60000] [--reps 15]

Targets are pmaps-bench's (`pmaps-bench --hold N`: N VMAs of 4 pages, held
until its stdin closes; bench/README.md says what they hold). For each, in
one run and interleaved repetition by repetition (every other repetition in
reverse order), it times:

- the floor: a bare read of /proc/PID/smaps in Python (one open, read()
  until the end, nothing done with the text);
- pmaps.memory_maps(pid, grouped=False) and psutil's
  Process(pid).memory_maps(grouped=False): a named tuple per mapping;
- the same grouped by path (pmaps: the library's PMAPS_GROUP_PATH sums);
- pmaps.memory_maps(pid, grouped=False) with its fast path off: every
  value through pmaps_mapping_value(), one ctypes call per field per row
  (python/pmaps/_rows.py says why the fast path exists).

Medians; ratios are against the floor median; "psutil / pmaps" is how many
times faster the binding is.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import psutil

import pmaps
from pmaps import _rows


def floor(pid):
    with open("/proc/%d/smaps" % pid, "rb", buffering=0) as f:
        while f.read(1 << 16):
            pass


def accessors_only(pid):
    _rows.FAST = False
    try:
        return pmaps.memory_maps(pid, grouped=False)
    finally:
        _rows.FAST = True


def target(bench, n):
    p = subprocess.Popen([bench, "--hold", str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    return p, int(p.stdout.readline())


def run(bench, n, reps):
    p, pid = target(bench, n)
    try:
        proc = psutil.Process(pid)
        ops = [
            ("bare read of smaps (floor)", lambda: floor(pid)),
            ("pmaps.memory_maps(grouped=False)", lambda: pmaps.memory_maps(pid, grouped=False)),
            ("psutil memory_maps(grouped=False)", lambda: proc.memory_maps(grouped=False)),
            ("pmaps.memory_maps(grouped=True)", lambda: pmaps.memory_maps(pid)),
            ("psutil memory_maps(grouped=True)", lambda: proc.memory_maps()),
            ("pmaps, grouped=False, accessors only", lambda: accessors_only(pid)),
        ]
        rows = len(pmaps.memory_maps(pid, grouped=False))
        assert rows == len(proc.memory_maps(grouped=False))
        times = {name: [] for name, _ in ops}
        for r in range(reps):
            for name, fn in (ops if r % 2 == 0 else ops[::-1]):
                t = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t)
    finally:
        p.stdin.close()
        p.wait()
    med = {name: statistics.median(v) for name, v in times.items()}
    base = med[ops[0][0]]
    print("\n%d VMAs, %d repetitions (%d rows)" % (n, reps, rows))
    print("  %-36s %10s %8s %11s" % ("operation", "median", "ratio", "ns/mapping"))
    for name, _ in ops:
        print("  %-36s %7.1f ms %7.2fx %11.0f" % (name, med[name] * 1e3, med[name] / base,
                                                  med[name] / rows * 1e9))
    for how in ("grouped=False", "grouped=True"):
        print("  psutil / pmaps, %s: %.2fx" % (
            how, med["psutil memory_maps(%s)" % how] / med["pmaps.memory_maps(%s)" % how]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/release/pmaps-bench",
                    help="the pmaps-bench program that holds the targets")
    ap.add_argument("--vmas", default="10000,60000")
    ap.add_argument("--reps", type=int, default=15)
    a = ap.parse_args()
    print("bench_python: the pmaps binding (libpmaps %s, %s) against psutil %s, Python %s" %
          (pmaps.library_version, pmaps.library_path, psutil.__version__,
           sys.version.split()[0]))
    print("%d CPUs, Linux %s, %s" % (os.cpu_count(), os.uname().release,
                                     "root" if os.geteuid() == 0 else "unprivileged"))
    for n in (int(x) for x in a.vmas.split(",")):
        run(a.bench, n, a.reps)


if __name__ == "__main__":
    main()
