#!/bin/sh
# SPDX-License-Identifier: MIT
# copy-tree.sh SRC DEST - copies the source tree SRC into DEST (which exists):
# in a clone, the files git tracks and those it does not ignore (work in
# progress too); in an unpacked tarball (even one inside another clone),
# every file but build/. Used by debian/build.sh and the quick start's test.
set -eu
SRC=$1 DEST=$2
top=$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null || true)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$SRC" && pwd -P)" ]; then
	(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 -r sh -c 'for f; do [ ! -e "$f" ] || printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -C "$DEST" -xf -
else
	(cd "$SRC" && tar --exclude=./build -cf - .) | tar -C "$DEST" -xf -
fi
