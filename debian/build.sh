#!/bin/sh
# SPDX-License-Identifier: MIT
# build.sh - the Debian packages, built from a copy of this tree, checked by lintian.
#
#   debian/build.sh [OUT]     (make deb; OUT defaults to build/deb)
#
# The tree is copied to OUT/src/pmaps-VERSION (the files git tracks, and
# those not ignored, in a clone; every file but build/ in an unpacked `make
# dist` tarball), `dpkg-buildpackage -us -uc -b` builds there, and the
# packages, the .changes and .buildinfo land in OUT; the build's log is
# OUT/build.log. OUT is emptied first; one this script did not make must be
# empty or absent. lintian then checks the packages: any error or warning
# fails (overrides, each with its reason, are debian/*.lintian-overrides).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd -P)
OUT=${1:-$SRC/build/deb}

version=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
project=$(sed -n 's/^project(pmaps VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
if [ "$version" != "$project" ]; then
	echo "debian/changelog is at $version, CMakeLists.txt's project() at $project: add a changelog entry" >&2
	exit 1
fi

# OUT is this script's: it empties it. A directory it did not make (no
# .pmaps-deb in it) that holds anything is refused, never emptied; so are
# the tree and a directory in it but under build/ (the copy would take it in).
OUT=$(realpath -m -- "$OUT")
case $OUT/ in
"$SRC"/build/?*) ;;
/ | "$SRC"/*) echo "debian/build.sh: $OUT cannot be the output directory (inside the tree: under build/)" >&2; exit 1 ;;
esac
if [ -d "$OUT" ] && [ ! -e "$OUT/.pmaps-deb" ] && [ -n "$(ls -A "$OUT")" ]; then
	echo "debian/build.sh: $OUT is not empty and not an earlier output of this script: name another directory" >&2
	exit 1
fi
mkdir -p "$OUT"
find "$OUT" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
: >"$OUT/.pmaps-deb"
stage=$OUT/src/pmaps-$version
mkdir -p "$stage"
sh "$SRC/cmake/copy-tree.sh" "$SRC" "$stage"

echo "dpkg-buildpackage -us -uc -b in $stage (log: $OUT/build.log)"
if ! (cd "$stage" && dpkg-buildpackage -us -uc -b -J"$(nproc)") >"$OUT/build.log" 2>&1; then
	tail -n 40 "$OUT/build.log" >&2
	echo "the package build failed: $OUT/build.log" >&2
	exit 1
fi
mv "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT"/
ls "$OUT"/*.deb

changes=$(ls "$OUT"/pmaps_"$version"_*.changes)
echo "lintian $changes"
lintian --fail-on error,warning --display-info "$changes"
