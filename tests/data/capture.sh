#!/bin/sh
# SPDX-License-Identifier: MIT
# Copies the /proc files pmaps reads for one process into a fixture tree:
#   tests/data/capture.sh PID DIR   ->  DIR/proc/PID/{maps,smaps,smaps_rollup,stat,status}
set -eu
pid=$1 dir=$2
mkdir -p "$dir/proc/$pid"
for f in maps smaps smaps_rollup stat status; do
	cat "/proc/$pid/$f" > "$dir/proc/$pid/$f"
done
echo "captured $pid into $dir/proc/$pid (kernel $(uname -r))"
