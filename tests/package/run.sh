#!/bin/sh
# SPDX-License-Identifier: MIT
# The `package` test: the Debian packages as an operator gets them (root).
#  - debian/build.sh builds them from a copy of the tree; lintian passes
#    them with no error and no warning;
#  - apt-get install libpmaps0 and pmaps, then libpmaps-dev and python3-pmaps;
#    removing libpmaps0 would take -dev and python3-pmaps (not pmaps) along;
#    python3-pmaps has no _paths.py; then as a user
#    would, from /, with a bare environment: pmaps --version; pmaps maps
#    self; pmaps run --malloc-books with the packaged helper; pmaps maps self
#    again with libcurl, libmicrohttpd and libncursesw hidden, where pmaps
#    serve must name its Debian package in one line and exit 1;
#    tests/install/hello.c built with `cc $(pkg-config --cflags --libs pmaps)`
#    and with find_package(pmaps), each reporting a live sleep's RSS as the
#    installed pmaps does; Debian's python3 importing pmaps, which finds
#    libpmaps.so.0 through the dynamic linker, its exceptions psutil's;
#  - apt-get purge, after which nothing any package listed (dpkg -L) is left.
# Skips (77) when not root, or when the packages are already installed and
# not by an earlier run of this test (it never removes an operator's
# install); in CI both fail instead, as missing packaging tools do.
#   run.sh CC CMAKE
set -u
CC=$1 CMAKE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
PKGS="libpmaps0 libpmaps-dev pmaps python3-pmaps"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: not root (dpkg -i and apt-get purge need it)"; exit 77
fi
for tool in dpkg-buildpackage dh lintian apt-get pkg-config; do
	if ! command -v $tool >/dev/null; then
		[ -n "${CI:-}" ] && { echo "FAIL: no $tool (make deps installs it)"; exit 1; }
		echo "SKIP: no $tool (make deps installs it)"; exit 77
	fi
done
# A run stopped with the packages installed (killed, a timeout) leaves its
# mark; the next run purges them. Packages without the mark are an operator's.
MARK=/var/tmp/pmaps-package-test.installed
purge() {
	dpkg --configure -a >/dev/null 2>&1
	apt-get purge -y -qq $PKGS >"$1" 2>&1
}
installed_any() {
	for p in $PKGS; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qv '^not-installed$' && return 0
	done
	return 1
}
if installed_any; then
	if [ -e "$MARK" ]; then
		echo "an earlier run of this test left its packages installed: purging them"
		purge /dev/stdout || { echo "FAIL: apt-get purge $PKGS"; exit 1; }
		rm -f "$MARK"
	else
		[ -n "${CI:-}" ] && { echo "FAIL: pmaps packages are installed already (not by this test)"; exit 1; }
		echo "SKIP: pmaps packages are installed already; this test installs and purges its own"; exit 77
	fi
fi

TMP=$(mktemp -d /tmp/pmaps-package.XXXXXX) || exit 1
W=$TMP/work
mkdir -p "$W"
target= installed=
cleanup() {
	[ -n "$target" ] && kill "$target" 2>/dev/null
	if [ -n "$installed" ]; then
		if purge "$TMP/purge.out"; then rm -f "$MARK"; else
			echo "FAIL: apt-get purge $PKGS (the next run purges them):"; sed 's/^/  /' "$TMP/purge.out"
		fi
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
. "$HERE/../lib/check.sh"
# A command as a user runs it: from /, with a bare environment.
bare() { (cd / && env -i PATH=/usr/bin:/bin HOME=/root "$@"); }

# Built and checked by lintian (debian/build.sh fails on any error or warning).
if ! sh "$SRC/debian/build.sh" "$TMP/deb" >"$W/build.out" 2>&1; then
	bad "debian/build.sh: the packages did not build, or lintian found errors or warnings"
	sed 's/^/  /' "$W/build.out" | tail -40
	echo "$pass passed, $fail failed"; exit 1
fi
ok
grep -E '^[EWI]: ' "$W/build.out" | sed 's/^/lintian: /'
debs=
for p in $PKGS; do
	f=$(ls "$TMP/deb/${p}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] && debs="$debs $f" || { bad "no ${p}_*.deb built"; echo "$pass passed, $fail failed"; exit 1; }
done

# Installed as the README says, the tool and its library first, with apt
# (which must find every dependency among the packages and the system's).
deb() { ls "$TMP/deb/${1}_"*.deb | head -n 1; }
installed=1
: >"$MARK"
try apt-get install -y -qq --no-install-recommends "$(deb libpmaps0)" "$(deb pmaps)" ||
	{ echo "$pass passed, $fail failed"; exit 1; }
try apt-get install -y -qq --no-install-recommends "$(deb libpmaps-dev)" "$(deb python3-pmaps)" ||
	{ echo "$pass passed, $fail failed"; exit 1; }
for p in $PKGS; do
	dpkg -L "$p" >"$W/list.$p" || bad "dpkg -L $p"
done
# Who needs the library: removing it takes the -dev and Python packages
# along (their Depends), never the tool (it has libpmaps built in).
LC_ALL=C apt-get -s purge libpmaps0 2>&1 | sed -n 's/^Purg \([^ ]*\).*/\1/p' | sort >"$W/takes"
printf 'libpmaps-dev\nlibpmaps0\npython3-pmaps\n' >"$W/want"
if diff "$W/want" "$W/takes" >"$W/diff"; then ok; else
	bad "apt-get -s purge libpmaps0 removes (>) not what depends on it (<):"; sed 's/^/  /' "$W/diff"
fi
# The Architecture: all Python package names no architecture's path.
grep -q '/_paths\.py$' "$W/list.python3-pmaps" && bad "python3-pmaps ships _paths.py" || ok

# The tool.
version=$(sed -n 's/^project(pmaps VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
bare pmaps --version >"$W/version" 2>&1
grep -q "^pmaps $version\b" "$W/version" && ok || bad "pmaps --version: $(cat "$W/version"), not pmaps $version"
bare pmaps maps self >"$W/maps" 2>&1 && grep -q ' /usr/bin/pmaps$' "$W/maps" && ok ||
	{ bad "pmaps maps self: no row of /usr/bin/pmaps"; sed 's/^/  /' "$W/maps" | tail -20; }

# pmaps run --malloc-books preloads the packaged malloc helper into its command.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
v=$(bare pmaps run -q -o /dev/null --malloc-books -- \
	sh -c 'grep -m 1 libpmaps-malloc "/proc/$$/maps" | sed "s|.* /|/|"' 2>&1)
[ "$v" = "/usr/lib/$multiarch/pmaps/libpmaps-malloc.so" ] && ok ||
	bad "pmaps run --malloc-books: the helper in the command is '$v', not /usr/lib/$multiarch/pmaps/libpmaps-malloc.so"

# Without the optional libraries (each bound over by /dev/null in a private
# mount namespace): maps works, serve names its package.
hide=
for so in libcurl.so.4 libmicrohttpd.so.12 libncursesw.so.6; do
	for d in /usr/lib/$multiarch /lib/$multiarch; do
		[ -e "$d/$so" ] && { hide="$hide $(readlink -f "$d/$so")"; break; }
	done
done
if [ -n "$hide" ] && command -v unshare >/dev/null; then
	script='for f in $HIDE; do mount --bind /dev/null "$f" || exit 9; done; exec "$@"'
	HIDE=$hide unshare -m --propagation private sh -c "$script" sh \
		env -i PATH=/usr/bin:/bin pmaps maps self >"$W/maps-bare" 2>&1
	[ $? = 0 ] && grep -q ' /usr/bin/pmaps$' "$W/maps-bare" && ok ||
		{ bad "pmaps maps self with$hide hidden"; sed 's/^/  /' "$W/maps-bare" | tail -10; }
	HIDE=$hide unshare -m --propagation private sh -c "$script" sh \
		env -i PATH=/usr/bin:/bin pmaps serve --listen 127.0.0.1:0 >"$W/serve-bare" 2>&1
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <"$W/serve-bare")" = 1 ] &&
		grep -q 'needs libmicrohttpd.so.12 (Debian package libmicrohttpd12)' "$W/serve-bare"; then ok; else
		bad "pmaps serve without libmicrohttpd: exit $rc, not 1 with one line naming libmicrohttpd12"
		sed 's/^/  /' "$W/serve-bare"
	fi
else
	bad "cannot hide the optional libraries (ldconfig found '$hide'; unshare: $(command -v unshare))"
fi

# A C program, built the two ways a user would, against the packaged library.
try "$CC" -std=c17 -Wall -Wextra -Werror -pedantic -o "$W/hello-pc" "$SRC/tests/install/hello.c" \
	$(pkg-config --cflags --libs pmaps)
try "$CMAKE" -S "$SRC/tests/install/consumer" -B "$W/consumer" -DCMAKE_C_COMPILER="$CC" \
	-DCMAKE_BUILD_TYPE=Release && try "$CMAKE" --build "$W/consumer"
d=$(sed -n 's/^pmaps_DIR:PATH=//p' "$W/consumer/CMakeCache.txt" 2>/dev/null)
[ "$d" = "/usr/lib/$multiarch/cmake/pmaps" ] && ok ||
	bad "find_package(pmaps) found '$d', not /usr/lib/$multiarch/cmake/pmaps"

sleep 60 & target=$!
i=0
while [ "$(cat /proc/$target/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
rss() { bare pmaps maps --total --json "$target" | grep -o '"rss":[0-9]*' | head -n 1 | cut -d: -f2; }
for attempt in 1 2 3; do
	want_rss=$(rss)
	bare "$W/hello-pc" "$target" >"$W/hello-pc.out" 2>&1; echo "exit $?" >>"$W/hello-pc.out"
	bare "$W/consumer/hello" "$target" >"$W/hello-cmake.out" 2>&1; echo "exit $?" >>"$W/hello-cmake.out"
	[ "$(rss)" = "$want_rss" ] && break
done
want_v=$(sed -n 's/^#define PMAPS_VERSION_NUMBER \([0-9]*\).*/\1/p' /usr/include/pmaps.h)
for h in hello-pc hello-cmake; do
	printf 'version %s\nlibrary /usr/lib/%s/libpmaps.so.%s\nrss %s\nexit 0\n' \
		"$want_v" "$multiarch" "$version" "$want_rss" >"$W/want"
	if diff "$W/want" "$W/$h.out" >"$W/diff"; then ok; else
		bad "$h: its output (>) is not the expected one (<)"; sed 's/^/  /' "$W/diff"
	fi
done

# Debian's python3 (not a python3 found on PATH first).
bare /usr/bin/python3 -c '
import os, sys, pmaps
pid = int(sys.argv[1])
print("module", pmaps.__file__)
print("library", os.path.realpath(pmaps.library_path), pmaps.library_version)
import psutil
print("psutil", issubclass(pmaps.NoSuchProcess, psutil.NoSuchProcess))
print("rss", pmaps.memory_full_info(pid).rss == int(open("/proc/%d/status" % pid).read().split("VmRSS:")[1].split()[0]) * 1024)
print("paths", sorted({m.path for m in pmaps.memory_maps(pid)} & {"/usr/bin/sleep"}))
' "$target" >"$W/python.out" 2>&1
printf 'module /usr/lib/python3/dist-packages/pmaps/__init__.py\nlibrary /usr/lib/%s/libpmaps.so.%s %s\npsutil True\nrss True\npaths [%s]\n' \
	"$multiarch" "$version" "$version" "'/usr/bin/sleep'" >"$W/want"
if diff "$W/want" "$W/python.out" >"$W/diff"; then ok; else
	bad "python3 -c 'import pmaps': its output (>) is not the expected one (<)"; sed 's/^/  /' "$W/diff"
fi

# Purged: nothing the packages installed is left (directories others share stay).
try apt-get purge -y -qq $PKGS && { installed=; rm -f "$MARK"; }
left=0
for p in $PKGS; do
	while IFS= read -r f; do
		[ "$f" = /. ] && continue
		if [ -d "$f" ] && [ ! -L "$f" ]; then
			# A directory stays only while another package owns it.
			[ -e "$f" ] && ! dpkg-query -S "$f" >/dev/null 2>&1 && { echo "left: $f/ ($p)"; left=$((left + 1)); }
		elif [ -e "$f" ] || [ -L "$f" ]; then
			echo "left: $f ($p)"; left=$((left + 1))
		fi
	done <"$W/list.$p"
done
[ -e /usr/lib/python3/dist-packages/pmaps ] && { echo "left: /usr/lib/python3/dist-packages/pmaps"; left=$((left + 1)); }
[ $left = 0 ] && ok || bad "$left paths left after apt-get purge"
n=$(cat "$W"/list.* | wc -l)
echo "packages: $(echo $debs | wc -w), paths listed by dpkg -L: $n"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
