# SPDX-License-Identifier: MIT
# psutil_maps: time psutil's memory_maps on one process, in process.
#   /usr/bin/python3 psutil_maps.py PID REPS grouped(0|1)
# Prints the median ms per call.
import sys, time, statistics
import psutil

pid, reps, grouped = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
p = psutil.Process(pid)
p.memory_maps(grouped=grouped)
times = []
for _ in range(reps):
    t0 = time.perf_counter()
    p.memory_maps(grouped=grouped)
    times.append((time.perf_counter() - t0) * 1e3)
print("%.3f" % statistics.median(times))
