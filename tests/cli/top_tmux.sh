#!/bin/sh
# SPDX-License-Identifier: MIT
# pmaps top's terminal view, used as a person would: pmaps top runs in a
# detached tmux of a fixed size, on a private server socket (a user's tmux is
# never touched), keys go in with send-keys, and what the screen shows comes
# back with capture-pane. Checked: the header (MemTotal), the heading, a
# known process's row found with the filter, the drill-down (explain, the
# mappings with the process's binary, the pages picture's legend), Esc back
# up, q quitting with status 0 and the terminal left (no alternate screen),
# a fatal error (the proc root removed) leaving it too, then saying why,
# SIGINT ending it with 130 the same way, 80x24, colours with NO_COLOR unset
# and none with NO_COLOR=1, a command name holding escape bytes shown
# escaped, never raw, htop's keys (F3, F4, F5/t, F6, F9/k, the mouse, a) and the
# tree of a fixture at 132x40, its sums exact. Every wait is a bounded poll; a failed check prints the
# screen it saw. Runs as root or as any user (whose processes it shows).
#
#   tests/cli/top_tmux.sh PMAPS
# Exit 77 (skipped) without tmux, outside CI; in CI (CI set) that fails.
set -u
PMAPS=$1
case $PMAPS in /*) ;; *) PMAPS=$(pwd)/$PMAPS ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
if ! command -v tmux >/dev/null 2>&1; then
	if [ -n "${CI:-}" ]; then echo "FAIL: no tmux (Debian tmux)"; exit 1; fi
	echo "SKIP: no tmux (Debian tmux)"
	exit 77
fi
TMP=$(mktemp -d /tmp/pmaps-top-tmux.XXXXXX) || exit 1
SOCK=$TMP/tmux.sock
helper= evil_pid= utf8_pid=
cleanup() {
	tmux -S "$SOCK" kill-server 2>/dev/null
	for p in $helper $evil_pid $utf8_pid; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# No user's configuration; the pane is the whole window (no status line); a
# pane whose process ended stays, so that its exit status can be read.
cat >"$TMP/tmux.conf" <<'EOF'
set-option -g status off
set-option -g remain-on-exit on
EOF
tm() { tmux -S "$SOCK" "$@"; }

# The known processes: sleep under names of our choosing (a process's command
# name is the name of the file it was started as).
name=pmtui-$$
ln -s "$(command -v sleep)" "$TMP/$name"
"$TMP/$name" 300 &
helper=$!
evil=$(printf 'ev\033]0;x\007il')
ln -s "$(command -v sleep)" "$TMP/$evil"
"$TMP/$evil" 300 &
evil_pid=$!
utf8=$(printf 'pmtui\303\251-%s' $$)
ln -s "$(command -v sleep)" "$TMP/$utf8"
"$TMP/$utf8" 300 &
utf8_pid=$!
sleep 0.2
exe=$(readlink "/proc/$helper/exe")

# start SESSION COLUMNS LINES [ENV...]: pmaps top -d 0.5 in a new session.
# Its exit status goes to $TMP/rc.SESSION: tmux's own (#{pane_dead_status})
# is not always there, as tmux 3.3 at times leaves a pane's process unreaped.
# The shell in between ignores SIGINT; pmaps gets the default back.
start() {
	s=$1 x=$2 y=$3
	shift 3
	tm -f "$TMP/tmux.conf" new-session -d -s "$s" -x "$x" -y "$y" \
		sh -c 'rc=$1; shift; trap "" INT; (trap - INT; exec "$@"); echo "$?" >"$rc.tmp"; mv "$rc.tmp" "$rc"' \
		sh "$TMP/rc.$s" env "$@" TERM=screen "$PMAPS" top -d 0.5 $extra
}
extra=
# screen SESSION: what it shows (with HIST="-S -", the lines scrolled off it too).
screen() { tm capture-pane -p ${HIST:-} -t "$1"; }
# seen SESSION: the last screen, for a failure's report.
seen() { echo "--- the screen ($1):"; cat "$TMP/screen"; echo "---"; }
# wait_for SESSION PATTERN [-F]: polls the screen until grep finds PATTERN (10 s at most).
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
# expect SESSION PATTERN WHAT [-F]
expect() {
	if wait_for "$1" "$2" "${4:-}"; then ok; else bad "$3: no '$2' on screen"; seen "$1"; fi
}
# ended SESSION: waits for pmaps top in SESSION to end (10 s at most) and
# prints its exit status and #{alternate_on}: "0 0" for a clean exit.
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
# rows: the process rows of the last screen, under the headings (a pid first).
rows() { awk '/PID.*PSS/ { h = 1; next } h && /^ *[0-9]+ / { n++ } END { print n + 0 }' "$TMP/screen"; }
keys() { s=$1; shift; tm send-keys -t "$s" "$@"; }
# fits SESSION COLUMNS WHAT: no line of the screen is longer than COLUMNS.
fits() {
	tm capture-pane -J -p -t "$1" >"$TMP/joined"
	if awk -v w="$2" 'length($0) > w { bad = 1 } END { exit bad }' "$TMP/joined"; then ok
	else bad "$3: a line longer than $2 columns"; cat "$TMP/joined"; fi
}

# ---- 100x30, a UTF-8 locale: the list, the filter, the drill-down, q ----
start big 100 30 -u NO_COLOR LC_ALL=C.UTF-8
expect big MemTotal "header"
expect big 'PID.*PSS.*USS' "the headings"
expect big 'refresh [0-9.]* ms' "the refresh's cost"
if [ "$(rows)" -ge 2 ]; then ok; else bad "the list: fewer than 2 process rows"; seen big; fi
keys big /
keys big -l "$name"
keys big Enter
expect big "^ *$helper .*$name" "the filtered list: the helper's row"
sleep 1.2 # two refreshes: the filter holds
screen big >"$TMP/screen"
if [ "$(rows)" = 1 ]; then ok; else bad "the filter: $(rows) rows, want 1 (the helper)"; seen big; fi
cp "$TMP/screen" "$TMP/list-100x30"
# a: the command line (its arguments) instead of the name; again: the name.
keys big a
# (its argv[0] is the link's path, which the name never holds; the rest is cut, marked)
expect big "^ *$helper .* /tmp/pmaps-top-tmux\\." "a: the helper's command line"
expect big 'Command line' "a: the heading says so"
keys big a
expect big "^ *$helper .*$name\$" "a again: the name"
# Colours on (TERM=screen has them, NO_COLOR unset): the heading is coloured.
tm capture-pane -e -p -t big >"$TMP/esc"
ESC=$(printf '\033')
colour="$ESC\[([0-9]+;)*(3[0-8]|4[0-8])(;[0-9]+)*m"
if grep -qE "$colour" "$TMP/esc"; then ok; else bad "colours: none, with NO_COLOR unset"; fi

# A resize (SIGWINCH, curses' KEY_RESIZE) lays the view out again.
tm resize-window -t big -x 72 -y 20
expect big "^ *$helper .*$name" "resized to 72x20: the helper's row"
tm capture-pane -J -p -t big >"$TMP/joined"
if [ "$(wc -l <"$TMP/joined")" -le 20 ] && awk 'length($0) > 72 { bad = 1 } END { exit bad }' "$TMP/joined"
then ok; else bad "resized to 72x20: the view does not fit"; cat "$TMP/joined"; fi
tm resize-window -t big -x 100 -y 30
expect big 'MemTotal.*SwapFree' "resized back to 100x30: meminfo on one line"

keys big Enter
expect big "explain: process $helper" "explain: its title"
expect big 'file-text' "explain: the categories"
expect big 'Up/Down Left/Right scroll' "explain: the keys say it scrolls sideways"
# Scrolled right: a line with text to the left of the view begins with '<'.
keys big Right Right Right
expect big '^<' "explain: scrolled right, the lines marked"
keys big Left Left Left
keys big m
expect big "mappings: process $helper" "mappings: its title"
expect big "$exe" "mappings: the helper's binary" -F
keys big p
expect big "pages: process $helper" "pages: its title"
expect big 'not present' "pages: the legend"
expect big '\[heap\]\|\[stack\]' "pages: a mapping's name"
keys big Escape
expect big "mappings: process $helper" "Esc from pages: the mappings"
keys big Escape
expect big "explain: process $helper" "Esc from mappings: explain"
keys big Escape
expect big "^ *$helper .*$name" "Esc from explain: the list"
keys big q
st=$(ended big)
[ "$st" = "0 0" ] && ok || bad "q: exit status and alternate screen '$st', want '0 0'"
screen big >"$TMP/screen"
if grep -q MemTotal "$TMP/screen"; then bad "q: the view is still on screen"; seen big; else ok; fi

# ---- 132x40, the tree (t) of a fixture: each line's figures its subtree's sums ----
cp -r "$HERE/../data/top-tree/proc" "$TMP/tree"
extra="--proc-root $TMP/tree --fields vsize,threads,mem_percent"
start tree 132 40 -u NO_COLOR LC_ALL=C.UTF-8
extra=
expect tree '^ *10 root .* 8M .*nginx' "tree fixture: nginx's own figures"
# --fields: its figures beside the others, the fixture's (420000 kB VmSize, 1 thread).
expect tree 'PID .*Swap   VSize  Thr  %MEM ' "--fields: the headings"
expect tree '^ *10 root .* 410M    1   0\.0 ' "--fields: nginx's vsize, threads, %MEM"
keys tree t
# init: 4+8+16+32+1+2 MiB of RSS in its subtree; nginx 8+16+32+1; loop-a and loop-b
# name each other as parent: the walk cuts the cycle, loop-a a root with both.
expect tree '^ *1 root .* 63M  *32M  *16M .*init$' "t: init's line, its subtree summed"
expect tree '^ *10 root .* 57M  *29M  *14M .*`- nginx$' "t: nginx under init, summed"
expect tree '^ *13 root .* 1M  *512K  *256K .*    `- helper$' "t: helper three levels down"
expect tree '^ *30 root .* 768K  *384K  *192K .*loop-a$' "t: a cycle cut: loop-a a root"
expect tree 'tree' "t: the header says so"
fits tree 132 "132x40"
keys tree q
st=$(ended tree)
[ "$st" = "0 0" ] && ok || bad "tree: q: exit status and alternate screen '$st', want '0 0'"

# ---- a command name with escape bytes: shown escaped, never raw ----
start evil 100 30
expect evil MemTotal "escape: header"
keys evil /
keys evil -l '^ev'
keys evil Enter
expect evil "^ *$evil_pid " "escape: the process's row"
expect evil 'ev\x1b]0;x\x07il' "escape: the name escaped" -F
if [ "$(tm display-message -p -t evil '#{pane_title}')" = x ]; then
	bad "escape: the name set the terminal's title"
else
	ok
fi
tm capture-pane -e -p -t evil >"$TMP/esc"
if grep -q "$(printf '\007')" "$TMP/esc"; then bad "escape: a raw BEL reached the terminal"; else ok; fi
keys evil q
st=$(ended evil)
[ "$st" = "0 0" ] && ok || bad "escape: q: exit status and alternate screen '$st', want '0 0'"

# ---- a fatal error (the proc root removed): the terminal restored, then the message ----
cp -r "$HERE/../data/top/proc" "$TMP/proc"
extra="--proc-root $TMP/proc"
start gone 100 30
extra=
expect gone postgres "a fixture's process"
rm -rf "$TMP/proc"
st=$(ended gone)
[ "$st" = "1 0" ] && ok || bad "proc root removed: exit status and alternate screen '$st', want '1 0'"
# The pane's end ("Pane is dead") scrolls the screen: its history holds the first line.
HIST="-S -"
expect gone '^pmaps: top: proc root' "proc root removed: the message, after the view"
HIST=

# ---- 80x24, NO_COLOR and the C locale: everything fits, nothing coloured; SIGINT quits ----
start small 80 24 NO_COLOR=1 LC_ALL=C
expect small MemTotal "80x24: header"
keys small /
keys small -l "^pmtui"
keys small Enter
expect small "^ *$helper .*$name" "80x24: the helper's row, its command whole"
# No UTF-8 here: the name's bytes above ASCII as \xHH, never raw.
expect small "^ *$utf8_pid .*pmtui[\\]xc3[\\]xa9-" "C locale: a UTF-8 name's bytes escaped"
expect small 'PID.*PSS.*USS' "80x24: the headings"
fits small 80 "80x24"
tm capture-pane -e -p -t small >"$TMP/esc"
if grep -qE "$colour" "$TMP/esc"; then bad "NO_COLOR=1: colours on screen"; else ok; fi
cp "$TMP/screen" "$TMP/list-80x24"
# A line cut at 80 columns says so: its last column is '>'.
keys small Escape
expect small '^refresh .*>$' "80x24: the cut refresh line marked"

# htop's keys. F4: the filter applies as it is typed (before Enter).
keys small F4
keys small -l "^pmtui-$$"
expect small "filter (command regex" "F4: the filter prompt"
wait_for small "^ *$helper .*$name" >/dev/null
screen small >"$TMP/screen"
if [ "$(rows)" = 1 ]; then ok; else bad "F4: the list while typing: $(rows) rows, want 1"; seen small; fi
keys small Escape
# F6: the sort menu; Left from pss is the last key (command): Enter sorts by it.
keys small F6
expect small "sort by (Left/Right" "F6: the sort menu"
keys small Left Enter
expect small "sort Command ascending" "F6: sorted by the key chosen"
# A click on a heading sorts by its column (an X10 mouse report: press, release).
click() {
	tm send-keys -t "$1" -l "$(printf '\033[M %b%b\033[M#%b%b' \
		"\\$(printf %o $((33 + $2)))" "\\$(printf %o $((33 + $3)))" \
		"\\$(printf %o $((33 + $2)))" "\\$(printf %o $((33 + $3)))")"
}
screen small >"$TMP/screen"
hy=$(awk '/PID.*RSS/ { print NR - 1; exit }' "$TMP/screen")
hx=$(awk '/PID.*RSS/ { print index($0, "RSS") - 1; exit }' "$TMP/screen")
click small "$hx" "$hy"
expect small "sort RSS descending" "mouse: a click on RSS sorts by it"
# F9 and k: pmaps only reads.
keys small k
expect small "pmaps only reads memory: it sends no signal" "k: the answer"
keys small F9
expect small "pmaps only reads memory: it sends no signal" "F9: the answer"
# t: the tree; its header says so and children are drawn under their parents.
keys small t
expect small 'tree' "t: the tree in the header"
expect small '`- ' "t: a child under its parent" -F
keys small F5
wait_for small 'tree' >/dev/null
screen small >"$TMP/screen"
if grep -q 'tree' "$TMP/screen"; then bad "F5: the tree still on"; seen small; else ok; fi
# F3: a search moves the selection; the prompt shows it.
keys small F3
keys small -l "$name"
expect small "search (F3 next" "F3: the search prompt"
keys small Enter
keys small C-c
st=$(ended small)
[ "$st" = "130 0" ] && ok || bad "SIGINT: exit status and alternate screen '$st', want '130 0'"

if [ -n "${PMAPS_SHOW:-}" ]; then cat "$TMP/list-100x30" "$TMP/list-80x24"; fi
echo "top_tmux: $pass passed, $fail failed"
[ "$fail" = 0 ]
