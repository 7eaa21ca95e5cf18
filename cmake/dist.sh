#!/bin/sh
# SPDX-License-Identifier: MIT
# dist.sh - the source tarball: OUT/pmaps-VERSION.tar.gz, `git archive` of HEAD
# under pmaps-VERSION/, VERSION being CMakeLists.txt's project() version (which
# debian/changelog must share). Unpacked, `make check` runs in it as in a clone.
#   cmake/dist.sh [OUT]     (make dist; OUT defaults to build)
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/build}
cd "$SRC"
git rev-parse --verify -q HEAD >/dev/null ||
	{ echo "make dist: $SRC is not a git clone with a commit (git archive makes the tarball)" >&2; exit 1; }
version=$(sed -n 's/^project(pmaps VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
deb=$(sed -n '1s/^pmaps (\([^)]*\)).*/\1/p' debian/changelog)
if [ "$version" != "$deb" ]; then
	echo "make dist: CMakeLists.txt is at $version, debian/changelog at $deb: add a changelog entry" >&2
	exit 1
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "make dist: note: uncommitted changes are not in the tarball (it is HEAD's)" >&2
fi
mkdir -p "$OUT"
out=$OUT/pmaps-$version.tar.gz
git archive --format=tar.gz --prefix="pmaps-$version/" -o "$out" HEAD
echo "$out ($(git rev-parse --short HEAD), $(tar -tzf "$out" | grep -vc '/$') files)"
