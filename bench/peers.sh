#!/bin/sh
# SPDX-License-Identifier: MIT
# pmaps beside the tools users would pick instead, on the benchmark's own
# targets, interleaved round by round. Needs (Debian): procps python3-psutil
# golang-go golang-github-shirou-gopsutil-dev; installs them when run as root.
#
#   bench/peers.sh [BUILD_DIR] [VMAS...]      (default: build/release 10000 60000)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build/release}
[ $# -gt 0 ] && shift
SIZES=${*:-10000 60000}
ROUNDS=${ROUNDS:-7}
REPS=${REPS:-5}
OUT=$BUILD/peers
mkdir -p "$OUT"

need="procps python3-psutil golang-go golang-github-shirou-gopsutil-dev"
missing=""
for p in $need; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"; done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
	else
		echo "peers.sh: missing Debian packages:$missing" >&2; exit 1
	fi
fi
[ -x "$BUILD/pmaps" ] && [ -x "$BUILD/pmaps-bench" ] || { echo "peers.sh: build $BUILD first (make bench)" >&2; exit 1; }
GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS=-mod=mod \
	go build -o "$OUT/gopsutil_maps" bench/peers/gopsutil_maps.go 2>/dev/null ||
	GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off go build -o "$OUT/gopsutil_maps" bench/peers/gopsutil_maps.go

now() { date +%s%N; }
# wall ms of one whole-process run, output to /dev/null
run_ms() { t0=$(now); "$@" >/dev/null 2>&1 || { echo "peers.sh: $* failed" >&2; exit 1; }; echo $(( ($(now) - t0) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'; }

echo "pmaps and its peers, $(date -u +%Y-%m-%d), $(nproc) cores, Linux $(uname -r)"
for n in $SIZES; do
	fifo=$OUT/hold.$$
	rm -f "$fifo" "$OUT/pid"; mkfifo "$fifo"
	"$BUILD/pmaps-bench" --hold "$n" <"$fifo" >"$OUT/pid" &
	exec 3>"$fifo"
	while [ ! -s "$OUT/pid" ]; do sleep 0.1; done
	pid=$(cat "$OUT/pid")
	size=$(wc -c </proc/$pid/smaps)
	: >"$OUT/cat"; : >"$OUT/pmaps"; : >"$OUT/pmapsg"; : >"$OUT/pmap"; : >"$OUT/psutil"; : >"$OUT/gops"
	for r in $(seq "$ROUNDS"); do
		run_ms cat /proc/$pid/smaps >>"$OUT/cat"
		run_ms "$BUILD/pmaps" maps "$pid" >>"$OUT/pmaps"
		run_ms "$BUILD/pmaps" maps --group path "$pid" >>"$OUT/pmapsg"
		run_ms pmap -X "$pid" >>"$OUT/pmap"
		/usr/bin/python3 bench/peers/psutil_maps.py "$pid" "$REPS" 0 >>"$OUT/psutil"
		"$OUT/gopsutil_maps" "$pid" "$REPS" 0 >>"$OUT/gops"
	done
	echo
	echo "$n VMAs, smaps $(awk -v s="$size" 'BEGIN {printf "%.1f", s/1e6}') MB, $ROUNDS rounds (medians)"
	printf "  %-44s %10s\n" "tool" "ms"
	printf "  %-44s %10s\n" "cat /proc/PID/smaps (whole process)" "$(median <"$OUT/cat")"
	printf "  %-44s %10s\n" "pmaps maps PID (whole process)" "$(median <"$OUT/pmaps")"
	printf "  %-44s %10s\n" "pmaps maps --group path PID (whole process)" "$(median <"$OUT/pmapsg")"
	printf "  %-44s %10s\n" "procps pmap -X PID (whole process)" "$(median <"$OUT/pmap")"
	printf "  %-44s %10s\n" "psutil memory_maps() (in process)" "$(awk '{print $1*1000}' "$OUT/psutil" | median)"
	printf "  %-44s %10s   %s MB/call, %s allocs/call\n" "gopsutil MemoryMaps(false) (in process)" \
		"$(awk '{print $1*1000}' "$OUT/gops" | median)" "$(awk 'END {print $2}' "$OUT/gops")" "$(awk 'END {print $3}' "$OUT/gops")"
	echo "  (pmaps in process: see make bench, 'pmaps per mapping')"
	exec 3>&-
	wait
	rm -f "$fifo"
done
