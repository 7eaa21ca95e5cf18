#!/bin/sh
# SPDX-License-Identifier: MIT
# pmaps phys's live picture, used as a person would: in a detached tmux of a
# fixed size, on a private server socket (a user's tmux is never touched),
# keys in with send-keys, the screen back with capture-pane. On a proc tree
# this test writes (2048 anonymous frames, then 2048 free), refreshed every
# 200 ms: the header, the legend with both states and their sizes, the half
# blocks (U+2580) in colour after the row's address (TERM=screen-256color);
# the picture following the tree when the test rewrites it (all page cache);
# q quitting with status 0 and the terminal left; 8 colours (TERM=screen):
# a character per state in its colour, never black; NO_COLOR and the C
# locale (a character per state, no colour); a
# reading that fails (the file cut inside an entry) restoring the terminal,
# then saying why, with status 1; SIGINT ending it with 130; q and SIGINT
# cancelling a reading of a large sparse tree at once; and, as root,
# the machine's own memory. Every wait is a bounded poll; a failed check
# prints the screen it saw.
#
#   tests/cli/phys_tmux.sh PMAPS
# Exit 77 (skipped) without tmux or python3, outside CI; in CI (CI set) that fails.
set -u
PMAPS=$1
case $PMAPS in /*) ;; *) PMAPS=$(pwd)/$PMAPS ;; esac
for tool in tmux python3; do
	if ! command -v $tool >/dev/null 2>&1; then
		if [ -n "${CI:-}" ]; then echo "FAIL: no $tool"; exit 1; fi
		echo "SKIP: no $tool"
		exit 77
	fi
done
TMP=$(mktemp -d /tmp/pmaps-phys-tmux.XXXXXX) || exit 1
SOCK=$TMP/tmux.sock
cleanup() {
	tmux -S "$SOCK" kill-server 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

cat >"$TMP/tmux.conf" <<'EOF'
set-option -g status off
set-option -g remain-on-exit on
EOF
tm() { tmux -S "$SOCK" "$@"; }

# tree DIR FIRST SECOND: 2048 frames of FIRST's flags, then 2048 of SECOND's
# (anon: ANON|SWAPBACKED|LRU|MMAP, free: BUDDY, file: LRU, reserved:
# RESERVED), written over
# the file in place (pmaps keeps it open, as it keeps /proc's).
tree() {
	mkdir -p "$1"
	python3 - "$1" "$2" "$3" <<'EOF'
import array, os, sys
kinds = {"anon": (1 << 12) | (1 << 14) | (1 << 5) | (1 << 11), "free": 1 << 10, "file": 1 << 5,
         "reserved": 1 << 32}
d = sys.argv[1]
p = os.path.join(d, "kpageflags")
with open(p, "r+b" if os.path.exists(p) else "wb") as f:
    f.write(array.array("Q", [kinds[sys.argv[2]]] * 2048 + [kinds[sys.argv[3]]] * 2048).tobytes())
EOF
}

# start SESSION COLUMNS LINES ARGS -- ENV...: pmaps phys -i 200ms in a new
# session; its exit status goes to $TMP/rc.SESSION. The shell in between
# ignores SIGINT; pmaps gets the default back.
start() {
	s=$1 x=$2 y=$3 args=$4
	shift 4
	tm -f "$TMP/tmux.conf" new-session -d -s "$s" -x "$x" -y "$y" \
		sh -c 'rc=$1; shift; trap "" INT; (trap - INT; exec "$@"); echo "$?" >"$rc.tmp"; mv "$rc.tmp" "$rc"' \
		sh "$TMP/rc.$s" env "$@" TERM="${PTERM:-screen-256color}" "$PMAPS" phys -i 200ms $args
}
screen() { tm capture-pane -p ${HIST:-} -t "$1"; }
seen() { echo "--- the screen ($1):"; cat "$TMP/screen"; echo "---"; }
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		screen "$1" >"$TMP/screen" 2>/dev/null
		if grep -q ${3:-} -e "$2" "$TMP/screen"; then return 0; fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
expect() {
	if wait_for "$1" "$2" "${4:-}"; then ok; else bad "$3: no '$2' on screen"; seen "$1"; fi
}
ended() {
	i=0
	while [ $i -lt 100 ]; do
		if [ -s "$TMP/rc.$1" ]; then
			echo "$(cat "$TMP/rc.$1") $(tm display-message -p -t "$1" '#{alternate_on}')"
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "still running"
	return 1
}
keys() { s=$1; shift; tm send-keys -t "$s" "$@"; }

# ---- colour, UTF-8: the picture, the legend, the updates, q ----
tree "$TMP/t1" anon free
start col 100 30 "--proc-root $TMP/t1" -u NO_COLOR LC_ALL=C.UTF-8
expect col 'pmaps phys: 16M in 4096 frames' "header"
expect col 'reading [0-9]*,' "the reading's number"
n1=$(sed -n 's/.*reading \([0-9]*\),.*/\1/p' "$TMP/screen")
expect col ' anon  *8M  *50.0%' "legend: anon with its size and share"
expect col ' free  *8M  *50.0%' "legend: free with its size and share"
expect col '^     0 ▀▀▀▀▀▀▀▀$' "half blocks: 8 blocks in a row (the upper halves), address 0"
# Refreshed: a later screen shows a later reading.
i=0
while [ $i -lt 50 ]; do
	screen col >"$TMP/screen"
	n2=$(sed -n 's/.*reading \([0-9]*\),.*/\1/p' "$TMP/screen")
	[ -n "$n2" ] && [ "$n2" -gt "$n1" ] && break
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$n2" ] && [ "$n2" -gt "$n1" ]; then ok; else bad "no refresh: reading $n1, then $n2"; seen col; fi
tm capture-pane -e -p -t col >"$TMP/esc"
ESC=$(printf '\033')
if grep -qE "$ESC\[([0-9]+;)*(3[0-8]|4[0-8])(;[0-9]+)*m" "$TMP/esc"; then ok; else
	bad "colours: none, with NO_COLOR unset"; fi
tree "$TMP/t1" file file
expect col ' file  *16M  *100.0%' "the picture follows the memory: all page cache now"
screen col >"$TMP/screen"
if grep -q ' anon ' "$TMP/screen"; then bad "anon still in the legend"; seen col; else ok; fi
keys col q
st=$(ended col)
[ "$st" = "0 0" ] && ok || bad "q: exit status and alternate screen '$st', want '0 0'"

# ---- 8 colours (TERM=screen): a character per state, in colour, never black ----
# Reserved was black before: the tree has it.
tree "$TMP/t8" anon reserved
PTERM=screen start c8 100 30 "--proc-root $TMP/t8" -u NO_COLOR LC_ALL=C.UTF-8
expect c8 '^     0 aaaa####$' "8 colours: 4 anon blocks as 'a', 4 reserved as '#'"
expect c8 ' anon  *8M  *50.0%' "8 colours: the legend"
expect c8 '#  reserved  *8M  *50.0%' "8 colours: the legend's character for reserved"
tm capture-pane -e -p -t c8 >"$TMP/esc"
if grep -qE "$ESC\[([0-9]+;)*3[1-7](;[0-9]+)*m" "$TMP/esc"; then ok; else
	bad "8 colours: no foreground colour"; sed -n 1,6p "$TMP/esc" | od -c | head -20; fi
# Black (30, 40) never, on a dark terminal it is invisible.
if grep -qE "$ESC\[([0-9]+;)*[34]0(;[0-9]+)*m" "$TMP/esc"; then
	bad "8 colours: black used"; grep -nE "$ESC\[([0-9]+;)*[34]0(;[0-9]+)*m" "$TMP/esc" | od -c | head; else ok; fi
keys c8 q
st=$(ended c8)
[ "$st" = "0 0" ] && ok || bad "8 colours q: exit status and alternate screen '$st', want '0 0'"

# ---- NO_COLOR and the C locale: a character per state ----
tree "$TMP/t2" anon free
start plain 80 24 "--proc-root $TMP/t2" NO_COLOR=1 LC_ALL=C
expect plain ' anon ' "no colour: the legend"
expect plain '^     0 aaaa\.\.\.\.$' "no colour: 4 anon blocks as 'a', 4 free as '.'"
tm capture-pane -e -p -t plain >"$TMP/esc"
if grep -qE "$ESC\[([0-9]+;)*(3[0-8]|4[0-8])(;[0-9]+)*m" "$TMP/esc"; then
	bad "NO_COLOR: colours on screen"; else ok; fi
# SIGINT: ends it with 130, the terminal restored.
keys plain C-c
st=$(ended plain)
[ "$st" = "130 0" ] && ok || bad "SIGINT: exit status and alternate screen '$st', want '130 0'"

# ---- q and SIGINT during a reading: it is cancelled within a chunk, not finished ----
# A sparse kpageflags of 2 GiB (256M frames of zeros) takes seconds a
# reading; -i 10ms keeps pmaps reading nearly all the time. After q (or
# C-c) it must be gone in well under the time a reading takes.
mkdir -p "$TMP/big"
truncate -s 2G "$TMP/big/kpageflags"
ms_now() { date +%s%3N; }
for how in q C-c; do
	s=big$how
	start "$s" 100 30 "--proc-root $TMP/big --block-size 1G --threads 1 -i 10ms" -u NO_COLOR LC_ALL=C.UTF-8
	HIST=
	if wait_for "$s" 'reading [2-9],'; then
		read_ms=$(sed -n 's/.*read in \([0-9]*\) ms.*/\1/p' "$TMP/screen")
		n1=$(sed -n 's/.*reading \([0-9]*\),.*/\1/p' "$TMP/screen")
		# The key right after a reading ends, early in the next one: without a
		# cancel it would wait nearly a whole reading.
		i=0
		while [ $i -lt 500 ]; do
			n2=$(screen "$s" | sed -n 's/.*reading \([0-9]*\),.*/\1/p')
			[ -n "$n2" ] && [ "$n2" -gt "$n1" ] && break
			sleep 0.02
			i=$((i + 1))
		done
		t0=$(ms_now)
		keys "$s" $how
		st=$(ended "$s")
		took=$(($(ms_now) - t0))
		want="0 0"; [ $how = C-c ] && want="130 0"
		[ "$st" = "$want" ] && ok || bad "$how in a reading: status '$st', want '$want'"
		# ended() polls every 100 ms: the bound is half a reading, at least 100 ms of slack.
		echo "$how in a reading: gone after $took ms; a reading takes $read_ms ms"
		if [ "$took" -lt $((read_ms / 2 + 150)) ] && [ "$read_ms" -ge 400 ]; then ok; else
			bad "$how in a reading: gone after $took ms, a reading takes $read_ms ms"; fi
	else
		bad "big tree: no second reading on screen"; seen "$s"
	fi
done

# ---- a reading that fails: the terminal restored, then the message, status 1 ----
tree "$TMP/t3" anon free
start torn 100 30 "--proc-root $TMP/t3" LC_ALL=C.UTF-8
expect torn 'reading 2,' "torn: running"
# The open file is the old one: truncate it in place, to 12 bytes (an entry and a half).
truncate -s 12 "$TMP/t3/kpageflags"
st=$(ended torn)
[ "$st" = "1 0" ] && ok || bad "torn file: exit status and alternate screen '$st', want '1 0'"
HIST="-S -"
expect torn '^pmaps: phys: kpageflags: ends 4 bytes into an entry' "torn file: the message"
HIST=

# ---- the machine itself, as root ----
if [ "$(id -u)" = 0 ]; then
	start live 120 40 "" -u NO_COLOR LC_ALL=C.UTF-8
	expect live 'pmaps phys: .* frames, read in' "live: header"
	expect live ' free ' "live: free memory in the legend"
	expect live 'mlocked .* dirty ' "live: the flags line"
	keys live q
	st=$(ended live)
	[ "$st" = "0 0" ] && ok || bad "live q: exit status and alternate screen '$st', want '0 0'"
elif [ -n "${CI:-}" ]; then
	bad "live: not root (CI runs as root)"
else
	echo "SKIP: live picture: needs root"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
