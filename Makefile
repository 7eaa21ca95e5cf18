# SPDX-License-Identifier: MIT
# The front door: `make demo` and `make check`. CMake presets do the work.
#
#   make demo    build the tool alone (the demo preset, build/demo) and run `pmaps demo`
#   make check   build and run every test, then again under ASan+UBSan
#   make bench   build (release) and run the benchmark (figures in bench/README.md)
#   make fuzz    build the libFuzzer targets (clang) and fuzz the smaps parser and the
#                books' parsers for FUZZ_SECONDS each
#   make valgrind  the unit, live and corpus tests under valgrind (memcheck)
#   make install [PREFIX=/usr/local] [DESTDIR=]  build (optimised, no tests) and install pmaps,
#                libpmaps (.so and .a), pmaps.h, pmaps.pc, the CMake package, the man page
#   make deb     the Debian packages (libpmaps0, libpmaps-dev, pmaps, python3-pmaps) in
#                build/deb/, checked by lintian
#   make dist    the source tarball, build/pmaps-VERSION.tar.gz
#   make warnings  plain Release builds with gcc and clang: fails on any warning
#   make clean   remove build/
#
# As root, missing Debian build packages are installed first.

# golang-go, python3 and default-jdk-headless (java that runs a source file) are
# the runtimes of explain's live tests; in CI a missing one fails the configure.
# strace shows the CLI tests which files pmaps maps opens (no smaps for the fast source).
# libncurses-dev: pmaps top's terminal view; tmux runs it in its test.
# The SVG pictures' tests: xmllint (libxml2-utils) parses them, headless chromium
# renders them to PNG, python3-pil reads the pixels back.
# pmaps serve: libmicrohttpd-dev (its HTTP daemon); prometheus (promtool, and a real
# Prometheus scraping it in its test, with the shipped rules); systemd (systemd-analyze
# verifies the shipped unit; util-linux's setpriv runs it with the unit's capabilities).
# explain's runtime books: libcurl4-openssl-dev (Go's MemStats over HTTP); the JVM's
# jcmd comes with default-jdk-headless.
# make deb (and the package test): Debian's packaging tools, and what
# debian/control's Build-Depends name beyond INSTALL_DEPS.
DEB_DEPS := build-essential debhelper dh-python dpkg-dev lintian python3
# pip install --no-build-isolation ./python (the python test builds it in a venv).
PIP_DEPS := python3-venv python3-setuptools python3-wheel
BUILD_DEPS := cmake make gcc g++ pkg-config libcmocka-dev util-linux cppcheck golang-go \
	default-jdk-headless procps python3 python3-psutil python3-pytest xz-utils linux-source-6.1 \
	strace libncurses-dev tmux libxml2-utils chromium python3-pil fonts-dejavu-core \
	libmicrohttpd-dev prometheus systemd python3-yaml libcurl4-openssl-dev $(DEB_DEPS) $(PIP_DEPS)
FUZZ_DEPS := clang libclang-rt-14-dev
FUZZ_SECONDS ?= 120
# What `make install` needs to build: no test framework (build/install has no
# tests); the optional libraries' headers, so that the commands they enable are
# built in (pmaps opens the libraries themselves when those commands run).
INSTALL_DEPS := cmake make gcc pkg-config libncurses-dev libmicrohttpd-dev libcurl4-openssl-dev
PREFIX ?= /usr/local

.PHONY: all demo demo-deps check bench fuzz valgrind install deb dist warnings clean deps fuzz-deps

all:
	cmake --preset dev
	cmake --build --preset dev

# Installs what is missing when run as root; otherwise names it.
define install_missing
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
		else \
			echo "missing Debian packages:$$missing (run as root, or: sudo apt-get install$$missing)"; \
		fi; \
	fi
endef

deps:
	$(call install_missing,$(BUILD_DEPS))

demo-deps:
	$(call install_missing,$(INSTALL_DEPS))

fuzz-deps:
	$(call install_missing,$(FUZZ_DEPS))

# The demo builds the tool alone (no tests, no benchmarks: the demo preset)
# and needs only what make install needs; quietly: warnings, errors and
# the build's progress. MAKEFLAGS is not passed down, so the build's own
# make does not print every directory it enters.
demo: demo-deps
	@echo "building pmaps (build/demo) ..."
	@cmake --preset demo --log-level=WARNING >/dev/null
	@MAKEFLAGS= cmake --build --preset demo -j2 -- --no-print-directory
	./build/demo/pmaps demo

check: deps
	cmake --preset dev
	cmake --build --preset dev -j2
	ctest --preset dev
	cmake --preset asan
	cmake --build --preset asan -j2
	ctest --preset asan

bench: deps
	cmake --preset release
	cmake --build --preset release -j2
	./build/release/pmaps-bench-lean
	./build/release/pmaps-bench
	pt=$$(bench/page-types.sh) || pt=; ./build/release/pmaps-bench-pages $${pt:+--page-types $$pt}
	./build/release/pmaps-bench-fast
	./build/release/pmaps-bench-top
	./build/release/pmaps-bench-watch
	./build/release/pmaps-bench-stall
	./build/release/pmaps-bench-phys
	./build/release/pmaps-bench-serve

fuzz: deps fuzz-deps
	cmake --preset fuzz
	cmake --build --preset fuzz -j2
	mkdir -p build/fuzz/corpus
	./build/fuzz/fuzz_smaps -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		build/fuzz/corpus tests/fuzz/corpus/smaps
	mkdir -p build/fuzz/corpus-books
	./build/fuzz/fuzz_books -max_total_time=$(FUZZ_SECONDS) -max_len=32768 \
		build/fuzz/corpus-books tests/fuzz/corpus/books

valgrind: deps
	$(call install_missing,valgrind)
	cmake --preset dev
	cmake --build --preset dev -j2
	for t in test_maps test_util test_pages test_live; do \
		valgrind -q --error-exitcode=9 --leak-check=full ./build/dev/tests/$$t || exit 1; \
	done
	valgrind -q --error-exitcode=9 --leak-check=full ./build/dev/tests/fuzz_replay \
		tests/fuzz/corpus/smaps 2>/dev/null

# DESTDIR stages the install (for a package): files go to $(DESTDIR)$(PREFIX),
# while what names the prefix (pmaps.pc, the Python package's _paths.py)
# says $(PREFIX).
install:
	$(call install_missing,$(INSTALL_DEPS))
	cmake -S . -B build/install -DCMAKE_BUILD_TYPE=Release -DPMAPS_TESTS=OFF
	cmake --build build/install -j2
	DESTDIR="$(DESTDIR)" cmake --install build/install --prefix "$(PREFIX)"

# The Debian packages, in build/deb/, checked by lintian (debian/build.sh).
deb:
	$(call install_missing,$(INSTALL_DEPS) $(DEB_DEPS))
	sh debian/build.sh build/deb

# The source tarball, build/pmaps-VERSION.tar.gz: git archive of HEAD (cmake/dist.sh).
dist:
	sh cmake/dist.sh build

# Plain optimised builds (no presets, so no -Werror) with gcc and clang: any
# warning fails.
warnings:
	@for cc in gcc clang; do \
		rm -rf build/warn-$$cc; \
		CC=$$cc cmake -S . -B build/warn-$$cc -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1; \
		cmake --build build/warn-$$cc -j2 >build/warn-$$cc.log 2>&1 || { tail build/warn-$$cc.log; exit 1; }; \
		n=$$(grep -c 'warning' build/warn-$$cc.log); \
		echo "$$cc Release build: $$n warnings (build/warn-$$cc.log)"; \
		[ "$$n" = 0 ] || { grep 'warning' build/warn-$$cc.log; exit 1; }; \
	done

clean:
	rm -rf build
