#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library exports the API and nothing else: every defined dynamic
# symbol of libpmaps.so matches ^pmaps_[a-z] (no pmaps__ internals, no other
# name), and it is exactly the set of functions include/pmaps.h declares
# PMAPS_API. Offenders are printed.
#   tests/install/exports.sh LIBPMAPS.so include/pmaps.h
set -u
SO=$1 HEADER=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

nm -D --defined-only "$SO" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported" ||
	{ echo "FAIL: nm -D $SO"; exit 1; }

# The PMAPS_API declarations (cmake/api-names.awk).
awk -f "$(dirname "$0")/../../cmake/api-names.awk" "$HEADER" | sort -u >"$tmp/declared"

nexp=$(wc -l <"$tmp/exported") ndecl=$(wc -l <"$tmp/declared")
if [ "$ndecl" -eq 0 ]; then
	echo "FAIL: no PMAPS_API declaration found in $HEADER"; fail=1
fi
bad=$(grep -v '^pmaps_[a-z]' "$tmp/exported")
if [ -n "$bad" ]; then
	echo "FAIL: exported symbols that are not ^pmaps_[a-z] (internals or foreign names):"
	echo "$bad" | sed 's/^/  /'; fail=1
fi
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then
	echo "FAIL: declared PMAPS_API in $HEADER but not exported:"
	echo "$missing" | sed 's/^/  /'; fail=1
fi
extra=$(comm -13 "$tmp/declared" "$tmp/exported" | grep '^pmaps_[a-z]')
if [ -n "$extra" ]; then
	echo "FAIL: exported but not declared PMAPS_API in $HEADER:"
	echo "$extra" | sed 's/^/  /'; fail=1
fi
echo "$nexp symbols exported, $ndecl functions declared PMAPS_API"
exit $fail
