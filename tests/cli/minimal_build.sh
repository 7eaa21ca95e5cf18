#!/bin/sh
# SPDX-License-Identifier: MIT
# The tool built with every optional library left out (PMAPS_WITH_CURL,
# PMAPS_WITH_SERVE and PMAPS_WITH_TUI OFF; no tests, warnings as errors):
# it must build, load none of the three (tests/cli/lean.py --with=) and
# answer the CLI tests as the full build does (tests/cli/run.sh).
#
#   minimal_build.sh CMAKE SRCDIR BUILDDIR PYTHON3
set -u
cmake=$1 src=$2 build=$3 python=$4
dir=$build/minimal
"$cmake" -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="-O1 -g" \
	-DPMAPS_WERROR=ON -DPMAPS_TESTS=OFF \
	-DPMAPS_WITH_CURL=OFF -DPMAPS_WITH_SERVE=OFF -DPMAPS_WITH_TUI=OFF >"$dir.log" 2>&1 ||
	{ cat "$dir.log"; echo "FAIL: configure"; exit 1; }
grep 'pmaps: left out' "$dir.log"
n=$(grep -c 'pmaps: left out' "$dir.log")
[ "$n" = 3 ] || { echo "FAIL: the configure step named $n left-out parts, want 3"; exit 1; }
"$cmake" --build "$dir" --target pmaps -j2 >>"$dir.log" 2>&1 ||
	{ tail -30 "$dir.log"; echo "FAIL: build"; exit 1; }
rc=0
"$python" "$src/tests/cli/lean.py" "$dir/pmaps" --with= || rc=1
out=$(sh "$src/tests/cli/run.sh" "$dir/pmaps" 2>&1) || rc=1
printf '%s\n' "$out" | grep -E 'FAIL|passed'
exit $rc
