#!/bin/sh
# SPDX-License-Identifier: MIT
# symbols.sh - debian/libpmaps0.symbols from the PMAPS_API set of include/pmaps.h.
#
#   debian/symbols.sh check    exit 1, with the difference, when the file is not
#                              what `update` would write (debian/rules runs it)
#   debian/symbols.sh update   rewrite the file
#
# Each function keeps the version it is recorded with; a new one gets the
# project's version (project() in CMakeLists.txt). A function gone from the
# header breaks the ABI: `update` refuses unless PMAPS_ABI_VERSION (the
# SONAME, libpmaps.so.N) has changed, which starts the file afresh. At package
# build, dpkg-gensymbols -c4 (debian/rules) fails when the built libpmaps.so.N
# exports anything else than this file lists, in either direction.
set -eu
cd "$(dirname "$0")/.."
FILE=debian/libpmaps0.symbols
mode=${1:-}
case $mode in check | update) ;; *) echo "usage: debian/symbols.sh check|update" >&2; exit 2 ;; esac

version=$(sed -n 's/^project(pmaps VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
abi=$(sed -n 's/^set(PMAPS_ABI_VERSION \([0-9]*\))$/\1/p' CMakeLists.txt)
[ -n "$version" ] && [ -n "$abi" ] || { echo "symbols.sh: no project version or PMAPS_ABI_VERSION in CMakeLists.txt" >&2; exit 1; }
package=libpmaps$abi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -f cmake/api-names.awk include/pmaps.h | LC_ALL=C sort -u >"$tmp/names"
[ -s "$tmp/names" ] || { echo "symbols.sh: no PMAPS_API function in include/pmaps.h" >&2; exit 1; }

# The recorded versions, when the file is for this SONAME.
: >"$tmp/recorded"
if [ -f "$FILE" ] && head -n 1 "$FILE" | grep -q "^libpmaps\.so\.$abi "; then
	sed -n 's/^ \(pmaps_[A-Za-z0-9_]*\)@Base \(.*\)$/\1 \2/p' "$FILE" | LC_ALL=C sort >"$tmp/recorded"
fi
gone=$(cut -d' ' -f1 "$tmp/recorded" | LC_ALL=C comm -23 - "$tmp/names")
if [ -n "$gone" ]; then
	echo "symbols.sh: gone from include/pmaps.h, recorded in $FILE for libpmaps.so.$abi:" >&2
	echo "$gone" | sed 's/^/  /' >&2
	echo "symbols.sh: removing a function breaks ABI $abi: raise PMAPS_ABI_VERSION in CMakeLists.txt" >&2
	exit 1
fi

{
	echo "libpmaps.so.$abi $package #MINVER#"
	echo "* Build-Depends-Package: libpmaps-dev"
	LC_ALL=C join -a 1 "$tmp/names" "$tmp/recorded" |
		awk -v v="$version" '{ printf " %s@Base %s\n", $1, (NF > 1 ? $2 : v) }'
} >"$tmp/new"

if [ "$mode" = update ]; then
	cp "$tmp/new" "$FILE"
	echo "$FILE: $(($(wc -l <"$tmp/new") - 2)) functions"
	exit 0
fi
if ! cmp -s "$tmp/new" "$FILE" 2>/dev/null; then
	echo "$FILE is not include/pmaps.h's PMAPS_API set; run debian/symbols.sh update:" >&2
	diff -u "$FILE" "$tmp/new" >&2 || true
	exit 1
fi
