#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh - the README's quick start: `make demo` in a fresh copy of the tree
# builds the tool alone (no tests, no benchmarks), quietly, and prints the
# demo. The time to the demo's first line is printed, not judged (a shared
# machine's clock is no witness).
#
#   tests/install/demo.sh
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd -P)
W=$(mktemp -d /tmp/pmaps-demo-test.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 1' HUP INT TERM
. "$SRC/tests/lib/check.sh"

mkdir "$W/tree"
sh "$SRC/cmake/copy-tree.sh" "$SRC" "$W/tree" || exit 1
t0=$(date +%s%N)
(cd "$W/tree" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make demo) >"$W/log" 2>&1 &
pid=$!
first=
while kill -0 "$pid" 2>/dev/null; do
	if [ -z "$first" ] && grep -q '^pmaps demo: process' "$W/log"; then
		first=$(( ($(date +%s%N) - t0) / 1000000 ))
	fi
	sleep 0.2
done
wait "$pid"; rc=$?
[ -n "$first" ] || first=$(( ($(date +%s%N) - t0) / 1000000 ))
lines=$(wc -l <"$W/log")
echo "make demo: exit $rc, its first demo line after $first ms, $lines lines in all"

show() { sed 's/^/  /' "$W/log" | tail -40; }
if [ "$rc" -eq 0 ]; then ok; else bad "make demo exited $rc"; show; fi
if grep -q '^pmaps demo: process [0-9]* allocated' "$W/log" &&
	grep -q '^total ' "$W/log"; then ok; else bad "no demo (its first line and explain's total) in the output"; show; fi
# Quiet: progress, warnings and errors; not make's directories nor CMake's report.
noise=$(grep -c -e 'Entering directory' -e 'Leaving directory' -e '^-- ' "$W/log")
if [ "$noise" -eq 0 ]; then ok; else bad "$noise lines of make's directories or CMake's report"; grep -m5 -e 'directory' -e '^-- ' "$W/log"; fi
# The tool alone: nothing of the tests or the benchmarks compiled or linked.
extra=$(grep -c -e 'tests/' -e 'bench/' -e 'pmaps-bench' -e 'test_' "$W/log")
if [ "$extra" -eq 0 ]; then ok; else bad "$extra build lines for tests or benchmarks"; grep -m5 -e 'tests/' -e 'bench' -e 'test_' "$W/log"; fi
if [ -x "$W/tree/build/demo/pmaps" ] && [ ! -e "$W/tree/build/demo/tests" ] &&
	! ls "$W/tree/build/demo" | grep -q '^pmaps-bench'; then ok
else bad "build/demo holds more than the tool: $(ls "$W/tree/build/demo" | tr '\n' ' ')"; fi
# The build's tree is the demo preset's; the developers' presets are untouched.
for d in dev asan release; do
	if [ ! -e "$W/tree/build/$d" ]; then ok; else bad "make demo made build/$d"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
