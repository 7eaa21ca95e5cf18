#!/bin/sh
# SPDX-License-Identifier: MIT
# The layering rule of src/ (docs/internals/CODEMAP.md), checked two ways:
#  1. includes: each folder includes headers of the folders below it only;
#  2. symbols (given the tool's static library): no object outside cmd/
#     refers to a function or variable a cmd/ object defines, so no loop,
#     writer or screen calls back into a command.
# Usage: layers.sh SRCDIR [libpmaps_tool.a]
set -u
src=${1:?usage: layers.sh SRCDIR [libpmaps_tool.a]}
lib=${2:-}
fail=0

# What each folder may include, itself included.
allowed() {
	case $1 in
	common) echo "common" ;;
	write) echo "common write" ;;
	books) echo "common write books" ;;
	survey) echo "common write books survey" ;;
	watch) echo "common write books watch" ;;
	wss) echo "common write wss" ;;
	tui) echo "common write books survey tui" ;;
	serve) echo "common write books survey serve" ;;
	cmd) echo "common write books survey watch tui serve wss cmd" ;;
	.) echo "cmd common" ;;
	*) echo "" ;;
	esac
}

out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
checked=0
for f in $(cd "$src" && find . -name '*.c' -o -name '*.h' | sed 's|^\./||' | sort); do
	case $f in
	*/*) dir=${f%%/*} ;;
	*) dir=. ;;
	esac
	ok=$(allowed "$dir")
	if [ -z "$ok" ]; then
		echo "FAIL $f: folder '$dir' is not in the layering rule (tests/cli/layers.sh, CODEMAP.md)" >>"$out"
		continue
	fi
	checked=$((checked + 1))
	# Every project include names its folder: "write/svg.h".
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src/$f" | while IFS= read -r line; do
		inc=$(printf '%s\n' "$line" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
		case $inc in
		pmaps.h) continue ;;
		*/*) to=${inc%%/*} ;;
		*)
			echo "FAIL $f: #include \"$inc\" names no folder (write \"FOLDER/$inc\")"
			continue
			;;
		esac
		case " $ok " in
		*" $to "*) ;;
		*)
			echo "FAIL $f:${line%%:*}: $dir/ includes $inc; $dir/ may include $ok"
			;;
		esac
	done >>"$out"
done
cat "$out"
grep -q FAIL "$out" && fail=1
echo "includes: $checked files checked, $(grep -c FAIL "$out") against the rule"

if [ -n "$lib" ]; then
	# Symbols defined by cmd/ objects (the archive's members are cmd_*.c.o).
	defs=$(nm -A --defined-only "$lib" 2>/dev/null | awk '$0 ~ /:cmd_[a-z_]*\.c\.o:/ && $(NF-1) ~ /^[TDBR]$/ {print $NF}' | sort -u)
	if [ -z "$defs" ]; then
		echo "FAIL $lib: no cmd_*.c.o member defines a symbol (is it the tool's library?)"
		fail=1
	fi
	uses=$(nm -A --undefined-only "$lib" 2>/dev/null | awk '$0 !~ /:cmd_[a-z_]*\.c\.o:/ {split($1, p, ":"); print p[2] " " $NF}' | sort -u)
	bad=$(printf '%s\n' "$uses" | while read -r obj sym; do
		for d in $defs; do
			[ "$sym" = "$d" ] && echo "$obj $sym"
		done
	done)
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | while read -r obj sym; do
			echo "FAIL $obj calls $sym, which a command (cmd/) defines"
		done
		fail=1
	fi
	echo "symbols: $(printf '%s\n' "$defs" | wc -l) defined in cmd/, none used below it$([ -n "$bad" ] && echo ' (but see above)')"
fi
[ $fail = 0 ] && echo "layers: ok"
exit $fail
