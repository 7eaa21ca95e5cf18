#!/bin/sh
# SPDX-License-Identifier: MIT
# The `install` test: installs this build into a fresh prefix and uses it as
# a user would, with nothing of the build tree around.
#  - the prefix holds exactly the files an install should put there (and
#    the Python package when python/pmaps exists), the .so symlink chain,
#    the SONAME, pmaps.pc's version, _paths.py's library path;
#  - PREFIX/bin/pmaps --version runs, from /, with a bare environment;
#  - tests/install/hello.c built with `cc $(pkg-config --cflags --libs pmaps)`
#    (run with LD_LIBRARY_PATH=PREFIX/LIBDIR: pkg-config gives no RPATH) and
#    with find_package(pmaps) in consumer/ (pmaps::pmaps, run with no
#    LD_LIBRARY_PATH: CMake's build-tree RPATH finds the library; and
#    pmaps::pmaps_static) loads the installed libpmaps and reports a live
#    `sleep`'s RSS as PREFIX/bin/pmaps maps --total --json does.
#
#  - with python/pmaps: the installed package imports, from /, and loads the
#    installed library through its _paths.py (not under the sanitizers: a
#    python3 cannot load an ASan libpmaps).
#
#   run.sh CMAKE BUILD_DIR LIBDIR BUILD_TYPE CC VERSION ABI_VERSION PYTHON PYTHON3 [CFLAGS]
# PYTHON: ON when the build installs python/pmaps (it did at configure time);
# PYTHON3: the interpreter to import it with ("": not checked).
# CFLAGS: what a program linking this build's libpmaps needs (the sanitizers).
set -u
CMAKE=$1 BUILD=$2 LIBDIR=$3 CONFIG=$4 CC=$5 VERSION=$6 ABI=$7 PYTHON=$8 PYTHON3=$9
CFLAGS=${10:-}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d /tmp/pmaps-install.XXXXXX) || exit 1
TMP=$(cd "$TMP" && pwd -P)
P=$TMP/prefix W=$TMP/work
target=
cleanup() {
	[ -n "$target" ] && kill "$target" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$W"
. "$HERE/../lib/check.sh"

try "$CMAKE" --install "$BUILD" --prefix "$P" || exit 1

# The installed tree, file by file.
config=$(printf %s "${CONFIG:-noconfig}" | tr 'A-Z' 'a-z')
L=$LIBDIR
{
	echo bin/pmaps
	echo include/pmaps.h
	echo "$L/libpmaps.a"
	echo "$L/libpmaps.so"
	echo "$L/libpmaps.so.$ABI"
	echo "$L/libpmaps.so.$VERSION"
	echo "$L/pkgconfig/pmaps.pc"
	echo "$L/pmaps/libpmaps-malloc.so"
	for f in pmapsConfig pmapsConfigVersion pmapsTargets "pmapsTargets-$config"; do
		echo "$L/cmake/pmaps/$f.cmake"
	done
	echo share/man/man1/pmaps.1
	if [ "$PYTHON" = ON ]; then
		(cd "$SRC/python" && find pmaps \( -name __pycache__ -prune \) -o \
			\( -type f ! -name '*.pyc' ! -name _paths.py -print \)) |
			sed 's|^|lib/python3/dist-packages/|'
		echo lib/python3/dist-packages/pmaps/_paths.py
	fi
} | sort >"$W/expected"
(cd "$P" && find . ! -type d | sed 's|^\./||' | sort) >"$W/installed"
if diff "$W/expected" "$W/installed" >"$W/diff"; then ok; else
	bad "the installed files (>) are not the expected ones (<):"; sed 's/^/  /' "$W/diff"
fi
[ "$(readlink "$P/$L/libpmaps.so")" = "libpmaps.so.$ABI" ] &&
[ "$(readlink "$P/$L/libpmaps.so.$ABI")" = "libpmaps.so.$VERSION" ] && ok ||
	bad "symlinks: libpmaps.so -> $(readlink "$P/$L/libpmaps.so"), .so.$ABI -> $(readlink "$P/$L/libpmaps.so.$ABI")"
soname=$(readelf -d "$P/$L/libpmaps.so.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libpmaps.so.$ABI" ] && ok || bad "SONAME is '$soname', not libpmaps.so.$ABI"
# Nothing installed points back into the build tree.
for f in "$P/bin/pmaps" "$P/$L/libpmaps.so.$VERSION" "$P/$L/pmaps/libpmaps-malloc.so"; do
	rp=$(readelf -d "$f" | grep -E 'R(UN)?PATH')
	[ -z "$rp" ] && ok || bad "$f has an RPATH: $rp"
done
export PKG_CONFIG_PATH="$P/$L/pkgconfig"
v=$(pkg-config --modversion pmaps)
[ "$v" = "$VERSION" ] && ok || bad "pkg-config --modversion pmaps: '$v', not $VERSION"
if [ "$PYTHON" = ON ]; then
	want="LIBPMAPS = \"$P/$L/libpmaps.so.$ABI\""
	grep -qxF "$want" "$P/lib/python3/dist-packages/pmaps/_paths.py" && ok ||
		bad "_paths.py lacks the line: $want"
fi

if [ "$PYTHON" = ON ] && [ -n "$PYTHON3" ] && [ -z "$CFLAGS" ]; then
	v=$(cd / && env -i PATH=/usr/bin:/bin PYTHONDONTWRITEBYTECODE=1 \
		PYTHONPATH="$P/lib/python3/dist-packages" "$PYTHON3" -c \
		'import pmaps; print(pmaps.__file__); print(pmaps.library_path)' 2>&1)
	want="$P/lib/python3/dist-packages/pmaps/__init__.py
$P/$L/libpmaps.so.$ABI"
	[ "$v" = "$want" ] && ok || { bad "the installed Python package, imported:"; echo "$v" | sed 's/^/  /'; }
fi

# The tool, away from the build tree.
v=$(cd / && env -i PATH=/usr/bin:/bin "$P/bin/pmaps" --version 2>&1)
[ "$v" = "pmaps $VERSION" ] && ok || bad "PREFIX/bin/pmaps --version: '$v'"
# pmaps run --malloc-books preloads the installed malloc helper (found from
# PREFIX/bin, the prefix being the install's, not the configure's) into its command.
v=$(cd / && env -i PATH=/usr/bin:/bin "$P/bin/pmaps" run -q -o /dev/null --malloc-books -- \
	sh -c 'grep -m 1 libpmaps-malloc "/proc/$$/maps" | sed "s|.* /|/|"' 2>&1)
[ "$v" = "$P/$L/pmaps/libpmaps-malloc.so" ] && ok ||
	bad "PREFIX/bin/pmaps run: the helper in the command is '$v', not $P/$L/pmaps/libpmaps-malloc.so"

# hello, built the two ways a user would.
# shellcheck disable=SC2046,SC2086 # pkg-config's words and CFLAGS are lists
try "$CC" -std=c17 -Wall -Wextra -Werror -pedantic $CFLAGS -o "$W/hello-pc" "$HERE/hello.c" \
	$(pkg-config --cflags --libs pmaps)
try "$CMAKE" -S "$HERE/consumer" -B "$W/consumer" -DCMAKE_PREFIX_PATH="$P" \
	-DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_BUILD_TYPE=Release &&
	try "$CMAKE" --build "$W/consumer"
d=$(sed -n 's/^pmaps_DIR:PATH=//p' "$W/consumer/CMakeCache.txt" 2>/dev/null)
[ "$d" = "$P/$L/cmake/pmaps" ] && ok || bad "find_package(pmaps) found '$d', not $P/$L/cmake/pmaps"

# The target: a sleep that has exec'd and settled.
sleep 60 & target=$!
i=0
while [ "$(cat /proc/$target/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
rss() { "$P/bin/pmaps" maps --total --json "$target" | grep -o '"rss":[0-9]*' | head -n 1 | cut -d: -f2; }
# The three programs, between two readings by pmaps that agree.
run() {
	LD_LIBRARY_PATH="$P/$L" "$W/hello-pc" "$target" >"$W/hello-pc.out" 2>&1
	echo "exit $?" >>"$W/hello-pc.out"
	(unset LD_LIBRARY_PATH; "$W/consumer/hello" "$target") >"$W/hello-cmake.out" 2>&1
	echo "exit $?" >>"$W/hello-cmake.out"
	(unset LD_LIBRARY_PATH; "$W/consumer/hello_static" "$target") >"$W/hello-static.out" 2>&1
	echo "exit $?" >>"$W/hello-static.out"
}
for attempt in 1 2 3; do
	want_rss=$(rss)
	run
	[ "$(rss)" = "$want_rss" ] && break
done
want_v=$(sed -n 's/^#define PMAPS_VERSION_NUMBER \([0-9]*\).*/\1/p' "$P/include/pmaps.h")
# Checks a hello's lines: $1 its name, $2 the library it must have loaded ("" static).
check() {
	out=$W/$1.out
	printf 'version %s\n' "$want_v" >"$W/want"
	[ -n "$2" ] && printf 'library %s\n' "$2" >>"$W/want"
	printf 'rss %s\nexit 0\n' "$want_rss" >>"$W/want"
	if diff "$W/want" "$out" >"$W/diff"; then ok; else
		bad "$1: its output (>) is not the expected one (<), pmaps maps --total --json's rss:"
		sed 's/^/  /' "$W/diff"
	fi
}
check hello-pc "$P/$L/libpmaps.so.$VERSION"
check hello-cmake "$P/$L/libpmaps.so.$VERSION"
check hello-static ""
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
