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
# OUT/build.log. lintian then checks the packages: any error or warning
# fails (overrides, each with its reason, are debian/*.lintian-overrides).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/build/deb}

version=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
project=$(sed -n 's/^project(pmaps VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
if [ "$version" != "$project" ]; then
	echo "debian/changelog is at $version, CMakeLists.txt's project() at $project: add a changelog entry" >&2
	exit 1
fi

rm -rf "$OUT"
stage=$OUT/src/pmaps-$version
mkdir -p "$stage"
OUT=$(cd "$OUT" && pwd)
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -C "$stage" -xf -
else
	(cd "$SRC" && tar --exclude=./build -cf - .) | tar -C "$stage" -xf -
fi

echo "dpkg-buildpackage -us -uc -b in $stage (log: $OUT/build.log)"
if ! (cd "$stage" && dpkg-buildpackage -us -uc -b -J"$(nproc)") >"$OUT/build.log" 2>&1; then
	tail -n 40 "$OUT/build.log" >&2
	echo "the package build failed: $OUT/build.log" >&2
	exit 1
fi
mv "$OUT"/src/*.deb "$OUT"/src/*.ddeb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT"/ 2>/dev/null || true
ls "$OUT"/*.deb

changes=$(ls "$OUT"/pmaps_"$version"_*.changes)
echo "lintian $changes"
lintian --fail-on error,warning --display-info "$changes"
