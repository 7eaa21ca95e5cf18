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
# cancelling a reading of a large sparse tree at once; 256 colours in the C
# locale (background colours, not a blank map); the 256-colour palette (no
# black, no white, no two states alike); small terminals (60x15, 60x13,
# 70x20, 75x80, 80x80: legend columns, map rows, whole words, distinct row
# labels; 40x10 too small, then resized); and, as root,
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
# wait_for SESSION REGEX [GREP-FLAG]: up to WAIT polls (100, 10 s and more).
wait_for() {
	i=0
	while [ $i -lt "${WAIT:-100}" ]; do
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
	# A reading's length depends on the build (seconds under ASan on a busy
	# machine): the first is awaited for up to a minute, the next for three
	# times what the first took.
	read_ms=
	if WAIT=600 wait_for "$s" 'read in [0-9]* ms'; then
		read_ms=$(sed -n 's/.*read in \([0-9]*\) ms.*/\1/p' "$TMP/screen")
	fi
	if [ -n "$read_ms" ] && WAIT=$((read_ms * 3 / 100 + 50)) wait_for "$s" 'reading [2-9],'; then
		read_ms=$(sed -n 's/.*read in \([0-9]*\) ms.*/\1/p' "$TMP/screen")
		n1=$(sed -n 's/.*reading \([0-9]*\),.*/\1/p' "$TMP/screen")
		# The key right after a reading ends, early in the next one: without a
		# cancel it would wait nearly a whole reading.
		i=0
		while [ $i -lt $((read_ms * 3 / 20 + 500)) ]; do
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

# alltree DIR N: N frames of each of the 18 states, in their order (hole to kernel).
alltree() {
	mkdir -p "$1"
	python3 - "$1" "$2" <<'EOF'
import array, os, sys
B = lambda n: 1 << n
LRU, SLAB, BUDDY, MMAP, ANON, SWAPCACHE, SWAPBACKED = B(5), B(7), B(10), B(11), B(12), B(13), B(14)
HUGE, HWPOISON, NOPAGE, THP, OFFLINE, ZERO, PGTABLE, RESERVED = (B(17), B(19), B(20), B(22),
                                                                  B(23), B(24), B(26), B(32))
states = [NOPAGE, HWPOISON, OFFLINE, RESERVED | ZERO, RESERVED, BUDDY, HUGE, SLAB, PGTABLE,
          ANON | LRU, ANON | SWAPBACKED | THP, ANON | SWAPBACKED, SWAPCACHE | SWAPBACKED | LRU,
          SWAPBACKED | LRU, LRU | THP, LRU | MMAP, LRU, 0]
n = int(sys.argv[2])
with open(os.path.join(sys.argv[1], "kpageflags"), "wb") as f:
    f.write(array.array("Q", [v for v in states for _ in range(n)]).tobytes())
EOF
}
# line N of the screen file (0-based)
line() { sed -n "$(($1 + 1))p" "$TMP/screen"; }

# ---- 256 colours without UTF-8: the map in background colours, not blank ----
# No half block to draw: a cell is a space whose background is its state's
# colour (the 256-colour palette: anon 68, free 250). Before, the colour was
# the foreground of a space: a blank map.
tree "$TMP/tc" anon free
start cloc 100 30 "--proc-root $TMP/tc" -u NO_COLOR LC_ALL=C LANG=C
expect cloc '^     0 *$' "C locale: row 0"
tm capture-pane -e -N -p -t cloc >"$TMP/esc"
row0=$(grep "^     0 " "$TMP/esc" | sed -E "s/$ESC\[([0-9;]*)m/<\1>/g")
case $row0 in
*'<48;5;68>    '*'<48;5;250>    '*) ok ;;
*) bad "C locale, 256 colours: row 0 is not 4 cells on background 68 then 4 on 250: '$row0'" ;;
esac
keys cloc q
st=$(ended cloc)
[ "$st" = "0 0" ] && ok || bad "C locale q: exit status and alternate screen '$st', want '0 0'"

# ---- the 256-colour palette: every state seen on dark and light, no two alike ----
# The legend's swatches of a tree with all 18 states: each its state's
# background colour. None is black (0, 16, 232-235: gone on a dark terminal),
# white or light grey (7, 15, 231, 253-255: gone on a light one); all differ.
alltree "$TMP/ta" 512
start pal 100 30 "--proc-root $TMP/ta" -u NO_COLOR LC_ALL=C.UTF-8
expect pal ' kernel ' "palette: the legend has all 18 states"
tm capture-pane -e -p -t pal >"$TMP/esc"
if python3 - "$TMP/esc" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
states = ["hole", "hwpoison", "offline", "zero", "reserved", "free", "hugetlb", "slab", "pgtable",
          "lazyfree", "anon_thp", "anon", "swapcache", "shmem", "file_thp", "file_mapped", "file",
          "kernel"]
found = {}
for m in re.finditer(r"\x1b\[48;5;(\d+)m  ((?:\x1b\[[0-9;]*m)*) ([a-z_]+) ", text):
    found[m.group(3)] = int(m.group(1))
bad = []
if sorted(found) != sorted(states):
    bad.append("states in the legend: %s, want all 18" % sorted(found))
forbidden = {0, 7, 15, 16, 231, 232, 233, 234, 235, 253, 254, 255}
for s, c in found.items():
    if c in forbidden:
        bad.append("%s is colour %d (black or white)" % (s, c))
colours = list(found.values())
if len(set(colours)) != len(colours):
    bad.append("colours shared: %s" % found)
for b in bad:
    print("  " + b)
print("  palette: %s" % found)
sys.exit(1 if bad else 0)
EOF
then ok; else bad "palette"; fi
keys pal q
ended pal >/dev/null

# ---- small terminals: the layout gives way, never draws over itself ----
# 60x15 and all 18 states: the legend in two columns (9 lines), the flags
# line dropped, the map keeps 3 rows under the two header lines.
alltree "$TMP/tl" 512
start s60 60 15 "--proc-root $TMP/tl --block-size 4K" -u NO_COLOR LC_ALL=C.UTF-8
expect s60 ' kernel ' "60x15: the legend"
n=$(grep -c '▀' "$TMP/screen")
[ "$n" = 3 ] && ok || { bad "60x15: $n map rows, want 3"; seen s60; }
case $(line 0) in "pmaps phys: 36M"*"q quits") ok ;; *) bad "60x15: header '$(line 0)'"; seen s60 ;; esac
case $(line 1) in "A half cell: "*) ok ;; *) bad "60x15: line 1 '$(line 1)'"; seen s60 ;; esac
if grep -q ' hole .* hwpoison ' "$TMP/screen" && [ "$(grep -c '%' "$TMP/screen")" = 9 ]; then ok; else
	bad "60x15: the legend is not 9 lines of two"; seen s60; fi
keys s60 q
ended s60 >/dev/null
# 60x13: the blank line and the block line go too; the map still has 3 rows,
# right under the header.
start s13 60 13 "--proc-root $TMP/tl --block-size 4K" -u NO_COLOR LC_ALL=C.UTF-8
expect s13 ' kernel ' "60x13: the legend"
n=$(grep -c '▀' "$TMP/screen")
[ "$n" = 3 ] && ok || { bad "60x13: $n map rows, want 3"; seen s13; }
case $(line 0)/$(line 1) in "pmaps phys: 36M"*"q quits/     0 ▀"*) ok ;;
*) bad "60x13: header then the map"; seen s13 ;; esac
keys s13 q
ended s13 >/dev/null
# 70x20: two columns, 7 map rows.
start s70 70 20 "--proc-root $TMP/tl --block-size 4K" -u NO_COLOR LC_ALL=C.UTF-8
expect s70 ' kernel ' "70x20: the legend"
n=$(grep -c '▀' "$TMP/screen")
[ "$n" = 7 ] && ok || { bad "70x20: $n map rows, want 7"; seen s70; }
if grep -q ' hole .* hwpoison ' "$TMP/screen"; then ok; else bad "70x20: one legend column"; seen s70; fi
keys s70 q
ended s70 >/dev/null
# 75x80: every map row's label distinct (before: 10M, 10M, ...); header,
# block line and flags line whole words, as many as fit.
start s80 75 80 "--proc-root $TMP/tl --block-size 4K" -u NO_COLOR LC_ALL=C.UTF-8
expect s80 ' kernel ' "75x80: the legend"
labels=$(grep '▀' "$TMP/screen" | cut -c1-6 | sed 's/ //g' | grep -v '^$')
nl=$(echo "$labels" | wc -l)
nu=$(echo "$labels" | sort -u | wc -l)
nr=$(grep -c '▀' "$TMP/screen")
[ "$nl" = "$nr" ] && [ "$nu" = "$nl" ] && ok || {
	bad "75x80: $nr map rows, $nl labels, $nu distinct"; echo "$labels" | tr '\n' ' '; echo; }
case $(line 1) in *"frames)"|*"from address 0"|*"frames are in") ok ;;
*) bad "75x80: block line cut: '$(line 1)'" ;; esac
last=$(sed -n '$p' "$TMP/screen")
if echo "$last" | grep -qE '^[a-z]+ [0-9.]+[BKMGT]?(  [a-z]+ [0-9.]+[BKMGT]?)* *$'; then ok; else
	bad "75x80: flags line cut: '$last'"; fi
keys s80 q
ended s80 >/dev/null
# 80x80: a block a half cell, rows 584K apart: labels in tenths of M (before:
# 64 rows, 45 labels distinct).
start l80 80 80 "--proc-root $TMP/tl --block-size 4K" -u NO_COLOR LC_ALL=C.UTF-8
expect l80 ' kernel ' "80x80: the legend"
labels=$(grep '▀' "$TMP/screen" | cut -c1-6 | sed 's/ //g' | grep -v '^$')
nl=$(echo "$labels" | wc -l)
nu=$(echo "$labels" | sort -u | wc -l)
nr=$(grep -c '▀' "$TMP/screen")
[ "$nr" = 64 ] && [ "$nl" = 64 ] && [ "$nu" = 64 ] && ok || {
	bad "80x80: $nr map rows (want 64), $nl labels, $nu distinct"; echo "$labels" | tr '\n' ' '; echo; }
case $labels in "0
0.5M
1.1M
1.7M"*) ok ;; *) bad "80x80: labels $(echo "$labels" | head -4 | tr '\n' ' '), want 0 0.5M 1.1M 1.7M" ;; esac
keys l80 q
ended l80 >/dev/null
# 40x10: too small for the map and the legend: one line says so, and the
# view runs on; made larger (KEY_RESIZE), the map comes.
start tiny 40 10 "--proc-root $TMP/tl" -u NO_COLOR LC_ALL=C.UTF-8
expect tiny '^pmaps phys: 40x10 is too small' "40x10: too small"
tm resize-window -t tiny -x 100 -y 30
expect tiny ' kernel ' "resized to 100x30: the legend"
expect tiny '^     0 ▀' "resized to 100x30: the map"
keys tiny q
st=$(ended tiny)
[ "$st" = "0 0" ] && ok || bad "resized q: exit status and alternate screen '$st', want '0 0'"

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
