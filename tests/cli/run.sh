#!/bin/sh
# SPDX-License-Identifier: MIT
# CLI tests of the pmaps tool: every option and error path against fixture
# proc trees, compared byte for byte with tests/cli/expected/NAME.{out,err}
# and the exit status; then a few checks against live processes.
#
#   tests/cli/run.sh PMAPS [--update]
set -u
PMAPS=$1
UPDATE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
EXP=$HERE/expected
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# t NAME WANT_RC ARGS... : run in the data directory, compare with the goldens.
# What -v says a read took (its time, its longest call) is no golden's: N.
t() {
	name=$1 want=$2
	shift 2
	(cd "$DATA" && "$PMAPS" "$@") >"$TMP/out" 2>"$TMP/err.raw"
	rc=$?
	sed -E 's/ in [0-9.]+ ms, / in N ms, /; s/, longest call [0-9]+ us/, longest call N us/' \
		"$TMP/err.raw" >"$TMP/err"
	if [ "$UPDATE" = --update ]; then
		cp "$TMP/out" "$EXP/$name.out"
		if [ -s "$TMP/err" ]; then cp "$TMP/err" "$EXP/$name.err"; else rm -f "$EXP/$name.err"; fi
	fi
	if [ "$rc" != "$want" ]; then
		bad "$name: exit $rc, want $want"; cat "$TMP/err"; return
	fi
	if ! cmp -s "$TMP/out" "$EXP/$name.out"; then
		bad "$name: stdout differs"; diff "$EXP/$name.out" "$TMP/out" | head -20; return
	fi
	if [ -f "$EXP/$name.err" ]; then
		cmp -s "$TMP/err" "$EXP/$name.err" || { bad "$name: stderr differs"; diff "$EXP/$name.err" "$TMP/err"; return; }
	elif [ -s "$TMP/err" ]; then
		bad "$name: unexpected stderr"; cat "$TMP/err"; return
	fi
	ok
}

# jsonl NAME: every line of the last output is one JSON object carrying "pid".
jsonl() {
	if [ -x /usr/bin/python3 ]; then
		/usr/bin/python3 - "$TMP/out" <<'PYEOF' && ok || bad "$1: not JSON Lines"
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
assert lines[-1] == b"", "no newline at the end"
for line in lines[:-1]:
    o = json.loads(line.decode("utf-8"))
    assert isinstance(o, dict) and "pid" in o, line[:80]
PYEOF
	fi
}

# json NAME: the last output is valid JSON (where python3 is at hand).
json() {
	if [ -x /usr/bin/python3 ]; then
		/usr/bin/python3 -m json.tool "$TMP/out" >/dev/null 2>&1 && ok || bad "$1: invalid JSON"
	fi
}

E="--proc-root edge/proc 100"
C="--proc-root capture-6.18/proc 4242"

# help and usage
t help 0 --help
t help-maps 0 maps --help
t help-demo 0 demo --help
t help-cmd 0 help maps
t version 0 --version
t no-command 2
t bad-command 2 frobnicate

# every option on the hand-made edge cases
t edge-table 0 maps $E
# explain fits 80 columns too: prose wrapped, the table's zero columns left
# out and said; --wide as before.
t explain-capture-wide 0 explain --wide $C
# The table fits 80 columns (standard output is no terminal): columns left
# out, least needed first, and paths cut from their start; --wide shows all.
t edge-wide 0 maps --wide $E
t edge-wide-group 0 maps -w -g path $E
t edge-bytes-group-kind 0 maps -b -g kind $E
t longpath-wide 0 maps --wide --proc-root longpath/proc 100
t edge-bytes 0 maps --bytes $E
t edge-all 0 maps -f all $E
t edge-fields 0 maps --fields rss,pss_dirty,Private_Dirty,lazy_free,vm_flags,path $E
t edge-json 0 maps --json $E; json edge-json
# --fields keeps the row's identity unless the list names one of its columns
t edge-fields-identity 0 maps --fields rss,anonymous,swap $E
t edge-fields-identity-csv 0 maps --csv -f rss,swap $E
t edge-fields-identity-kind 0 maps -g kind -f rss,swap $E
t edge-fields-identity-path 0 maps -g path -f rss $E
t edge-fields-identity-total 0 maps -t -f rss,swap $E
t edge-csv 0 maps --csv $E
t edge-csv-all 0 maps --csv -f all $E
t edge-sort-rss 0 maps --sort rss $E
t edge-sort-path 0 maps -s path $E
t edge-sort-kind 0 maps -s kind $E
t edge-sort-json 0 maps --sort size --json $E; json edge-sort-json
t edge-group-path 0 maps --group path $E
t edge-group-kind 0 maps -g kind $E
t edge-group-path-sort 0 maps -g path -s rss $E
t edge-group-kind-json 0 maps -g kind --json $E; json edge-group-kind-json
t edge-group-path-csv 0 maps -g path --csv $E
t edge-total 0 maps --total $E
t edge-total-json 0 maps -t --json $E; json edge-total-json
t edge-options-after 0 maps --proc-root edge/proc 100 --group kind --bytes

# a capture from Linux 6.18 and the field sets of older kernels
t capture-table 0 maps $C
t capture-table-wide 0 maps --wide $C
t capture-group-kind 0 maps -g kind $C
t capture-total 0 maps -t -f all $C
t capture-total-csv 0 maps -t --csv $C
t k414-json 0 maps --json --proc-root kernel-4.14/proc 4242; json k414-json
t k414-total 0 maps --total -f all --proc-root kernel-4.14/proc 4242
t k54-table 0 maps -f all --proc-root kernel-5.4/proc 4242
t no-rollup-total 0 maps --total --proc-root no-rollup/proc 4242
t no-rollup-total-json 0 maps --total --json --proc-root no-rollup/proc 4242; json no-rollup-total-json

# JSON Lines: one object per record, each with its pid; an error ends the stream
K61="--proc-root kernel-6.1/proc 4242"
t k61-jsonl 0 maps --jsonl $K61; jsonl k61-jsonl
t edge-jsonl 0 maps --jsonl $E; jsonl edge-jsonl
t edge-sort-jsonl 0 maps --jsonl --sort rss $E; jsonl edge-sort-jsonl
t edge-group-path-jsonl 0 maps -g path --jsonl $E; jsonl edge-group-path-jsonl
t edge-total-jsonl 0 maps -t --jsonl $E; jsonl edge-total-jsonl
t no-rollup-total-jsonl 0 maps -t --jsonl --proc-root no-rollup/proc 4242; jsonl no-rollup-total-jsonl
t err-malformed-jsonl 1 maps --jsonl --proc-root malformed/proc 4242; jsonl err-malformed-jsonl
t explain-k61-jsonl 0 explain --jsonl $K61; jsonl explain-k61-jsonl
t explain-k61-csv 0 explain --csv $K61
t err-explain-csv-pages 2 explain --csv --pages $K61
t err-explain-csv-verbose 2 explain --csv -v $K61
# A kernel before 4.5: status has no RssAnon/RssFile/RssShmem, which are absent, never 0.
t explain-status-4.4 0 explain --proc-root status-4.4/proc 100
t explain-status-4.4-json 0 explain --json --proc-root status-4.4/proc 100

# errors: a clear line, a non-zero status
t err-no-pid 2 maps
t err-two-pids 2 maps 1 2
t err-not-pid 2 maps abc
t err-no-such 1 maps --proc-root edge/proc 999
t err-no-root 1 maps --proc-root no/such/dir 1
t err-group 2 maps -g size $E
t err-fields 2 maps -f rss,bogus $E
t err-fields-grouped 2 maps -g path -f address $E
t err-fields-empty 2 maps -f rss, $E
t err-fields-twice 2 maps -f rss,pss,Rss $E
# A mapping listed twice (it grew between two of the kernel's reads): a streamed table marks it;
# what sums or sorts reads again, and says so when it never stops.
t overlap-table 0 maps --proc-root overlap/proc 100
t err-overlap-sort 1 maps --sort rss --proc-root overlap/proc 100
t err-overlap-group 1 maps --group kind --proc-root overlap/proc 100
t err-overlap-explain 1 explain --proc-root overlap/proc 100
t err-total-group 2 maps -t -g kind $E
t err-sort-all 2 maps --sort all $E
t err-sort-total 2 maps -t --sort rss $E
t err-sort-group 2 maps -g kind --sort inode $E
t err-option 2 maps --frobnicate $E
t err-option-value 2 maps $E --fields
t err-malformed 1 maps --proc-root malformed/proc 4242
t err-malformed-json 1 maps --json --proc-root malformed/proc 4242; json err-malformed-json
t err-demo-size 2 demo --size 12Q
t err-demo-arg 2 demo now

# pages, on a synthetic pagemap (swapped, soft-dirty, uffd-wp and guard entries)
PG="--proc-root pages/proc 300"
t pages-table 0 pages $PG
t pages-summary 0 pages --summary $PG
t pages-json 0 pages --json $PG; json pages-json
t pages-csv 0 pages --csv $PG
# --flags: the runs split wherever a page's flags differ (the default joins runs of one state)
t pages-flags 0 pages --flags $PG
t pages-flags-json 0 pages -F --json $PG; json pages-flags-json
t pages-flags-csv 0 pages --flags --csv $PG
t pages-flags-name 0 pages --flags $PG '[heap]'
t err-pages-flags-summary 2 pages --flags --summary $PG
t pages-summary-json 0 pages -s --json $PG; json pages-summary-json
t pages-summary-csv 0 pages -s --csv $PG
t pages-range-len 0 pages $PG 600000+16K
t pages-range-dash 0 pages $PG 0x601000-0x605000
t pages-range-addr 0 pages $PG 605abc
t pages-name 0 pages $PG '[heap]'
t pages-path 0 pages $PG /usr/bin/prog
t pages-verbose 0 pages -v --strategy pagemap $PG 400000+64K
t pages-pfn 0 pages --pfn $PG
t pages-pfn-json 0 pages --pfn --json $PG; json pages-pfn-json
t pages-pfn-csv 0 pages --pfn --csv $PG
t pages-nokpage 0 pages --proc-root pages-nokpage/proc 300 '[heap]'
t pages-nokpage-summary 0 pages -s --proc-root pages-nokpage/proc 300
# A malformed maps line is the maps cursor's error, never the page cursor's kpageflags note.
t err-pages-badmaps-jsonl 1 pages --jsonl --proc-root pages-badmaps/proc 300; jsonl err-pages-badmaps-jsonl
# explain names the file it lacks: here pagemap, for --pages.
t err-explain-pages-no-pagemap 1 explain --pages --proc-root explain-glibc/proc 100
# the zero page and the huge zero page: mapped, not resident; map count 0 apart
t pages-zero 0 pages --proc-root pages-zero/proc 300
t pages-zero-summary 0 pages -s --proc-root pages-zero/proc 300
t pages-zero-summary-csv 0 pages -s --csv --proc-root pages-zero/proc 300
t err-pages-gap 1 pages $PG 800000+4K
t err-pages-name 1 pages $PG '[stack]'
t err-pages-gap-json 1 pages --json $PG 800000+4K
t err-pages-name-jsonl 1 pages --jsonl $PG '[stack]'
t err-pages-range 2 pages $PG 12x
t err-pages-order 2 pages $PG 602000-601000
t err-pages-strategy 2 pages --strategy fast $PG
t err-pages-pfn-summary 2 pages --pfn --summary $PG
t err-pages-scan 1 pages --strategy scan $PG
t pages-jsonl 0 pages --jsonl $PG; jsonl pages-jsonl
t pages-summary-jsonl 0 pages -s --jsonl $PG; jsonl pages-summary-jsonl
t pages-pfn-jsonl 0 pages --pfn --jsonl $PG; jsonl pages-pfn-jsonl
t pages-summary-zero-jsonl 0 pages -s --jsonl --proc-root pages-zero/proc 300; jsonl pages-summary-zero-jsonl
t err-pages-no-pid 2 pages
t err-pages-args 2 pages 1 2 3

# explain, on the hand-made edge cases (no status, no tasks in a fixture)
# Its [stack] lacks Rss and its parts (WSL was seen so): no attribution can
# be made, and an absent field is no 0.
t explain-edge 1 explain $E
t explain-capture 0 explain $C
t explain-capture-json 0 explain --json $C; json explain-capture-json
t explain-capture-verbose 0 explain -v $C
# A status no kernel wrote (a VmRSS that is no number; one that is not its
# three parts) is refused, not read as 0.
t explain-bad-status 1 explain --proc-root badstatus/proc 4242
t explain-bad-status-sum 1 explain --proc-root badstatus/proc 4243
# An empty smaps for a process whose stat says no kernel thread.
t maps-empty 1 maps --proc-root badstatus/proc 4244
# Paths longer than the reader keeps (8191 bytes): marked as cut everywhere,
# and two files whose paths were cut alike are not summed as one.
t longpath-group 0 maps -g path --proc-root longpath/proc 100
t longpath-group-json 0 maps -g path --json --proc-root longpath/proc 100; json longpath-group-json
t longpath-table 0 maps -f address,inode,path --proc-root longpath/proc 100
t longpath-sorted 0 maps --sort inode -f address,inode,path --proc-root longpath/proc 100
# Two formats asked for: neither silently wins. Words after --version.
t err-json-csv 2 maps --json --csv $E
t err-pages-csv-json 2 pages --csv --json $PG
t err-version-extra 2 -V extra
t err-explain-no-pid 2 explain
t err-explain-not-pid 2 explain xyz
t err-explain-no-such 1 explain --proc-root edge/proc 999
t err-json-jsonl 2 maps --json --jsonl $E
t err-explain-csv-jsonl 2 explain --csv --jsonl $E
# One way to fail, for every command: the process, the proc root when it is
# not /proc, what failed; a file a proc tree lacks is no kernel's doing.
t err-pages-no-file 1 pages --proc-root edge/proc 100
t err-pages-no-file-json 1 pages --json --proc-root edge/proc 100
t err-maps-no-file 1 maps --proc-root pages/proc 300
t err-total-no-file 1 maps --total --proc-root pages/proc 300
t err-explain-no-file 1 explain --proc-root pages/proc 300
t err-pages-abs-root 1 pages --proc-root /nonexistent/proc 1
t err-explain-malformed-jsonl 1 explain --jsonl --proc-root malformed/proc 4242; jsonl err-explain-malformed-jsonl
# One size parser: demo --size takes what a range's LEN takes, and the same bounds.
t err-demo-size-big 2 demo --size 0x1000T
t err-demo-size-overflow 2 demo --size 99999999999999999999K

# explain on a hostile fixture: a Go version of escapes from the executable,
# paths of 300 bytes (kept whole) and 5,000 bytes (cut before a character,
# flagged), escapes in a name; then what it does with an executable that is
# not a regular file: a FIFO or a symlink is neither opened nor followed.
H="--proc-root hostile/proc 4242"
t explain-hostile 0 explain $H
t explain-hostile-json 0 explain --json $H; json explain-hostile-json
t maps-hostile 0 maps $H
t maps-hostile-csv 0 maps --csv $H
t maps-hostile-json 0 maps --json $H; json maps-hostile-json
if [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 "$HERE/hostile.py" check text "$EXP/explain-hostile.out" "$EXP/maps-hostile.out" &&
		/usr/bin/python3 "$HERE/hostile.py" check csv "$EXP/maps-hostile-csv.out" &&
		/usr/bin/python3 "$HERE/hostile.py" check json "$EXP/explain-hostile-json.out" \
			"$EXP/maps-hostile-json.out" && ok || bad "hostile fixture: raw controls or invalid UTF-8"
fi
mkfifo "$TMP/fifo"
for kind in fifo fifo-link exe-link; do
	mkdir -p "$TMP/fx-$kind/4242"
	cp "$DATA/hostile/proc/4242/smaps" "$DATA/hostile/proc/4242/smaps_rollup" "$TMP/fx-$kind/4242/"
	case $kind in
	fifo) mkfifo "$TMP/fx-$kind/4242/exe" ;;
	fifo-link) ln -s "$TMP/fifo" "$TMP/fx-$kind/4242/exe" ;;
	exe-link) ln -s "$DATA/hostile/proc/4242/exe" "$TMP/fx-$kind/4242/exe" ;;
	esac
	out=$(timeout 10 "$PMAPS" explain --proc-root "$TMP/fx-$kind" 4242 2>&1)
	rc=$?
	if [ $rc = 0 ] && echo "$out" | grep -q '^Reconciled' && ! echo "$out" | grep -q '^Runtime'; then
		ok
	else
		bad "explain with exe a $kind: exit $rc"
	fi
done

# errors name what is wrong: the option, the proc root, the range
t err-sort-unknown 2 maps --sort bogus $E
t err-sort-vmflags 2 maps --sort vm_flags $E
t edge-sort-inode 0 maps --sort inode -f inode,perms,address $E
t edge-sort-perms 0 maps --sort perms -f perms,address,kind $E
t edge-sort-fields-csv 0 maps --sort pss --csv -f pss,rss,kind,inode $E
t err-pages-no-root 1 pages --proc-root no/such/dir 1
t err-explain-no-root 1 explain --proc-root no/such/dir 1
t err-root-file 1 maps --proc-root edge/proc/100/maps 1
t err-pages-root-file 1 pages --proc-root edge/proc/100/maps 1
t err-explain-root-file 1 explain --proc-root edge/proc/100/maps 1
t err-pages-empty 2 pages $PG 601000-601000
t err-pages-empty-len 2 pages $PG 601000+0
t err-option-cluster 2 maps -bq $E
t err-option-no-value 2 maps --json=yes $E
t err-pages-option-cluster 2 pages -sz $PG
t err-explain-option 2 explain --pages=all $E
t err-demo-size-value 2 demo --size
# Values no kernel prints (three mappings of Rss 2^53 kB summed to 8 EiB):
# refused with the mapping and both values, never summed.
I="--proc-root impossible/proc 100"
t impossible-total 1 maps --total $I
t impossible-group 1 maps --group path --json $I
t impossible-explain 1 explain $I
# Swap is not bounded by its mapping (a shared memory object's), so its sums
# are checked: three of 2^63 bytes are refused, not wrapped.
I="--proc-root impossible/proc 101"
t impossible-swap-group 1 maps --group kind $I
t impossible-swap-explain 1 explain $I

# --source: what each source gives, said where it is not smaps; usage errors
t err-source 2 maps --source bogus $E
t err-source-status 2 maps --source status $E
t err-source-rollup 2 maps --source rollup $E
t err-source-rollup-group 2 maps --source rollup -g kind $E
t err-gentle-value 2 maps --gentle=yes $E
t source-smaps-total 0 maps --source smaps --total $E
t source-rollup-json 0 maps --source rollup -t --json $E; json source-rollup-json
t source-rollup-jsonl 0 maps --source rollup -t --jsonl $E; jsonl source-rollup-jsonl
t source-gentle-smaps 0 maps --gentle --source smaps -f rss,path $E
# Columns every source lists: the mapping list alone is read, and CSV names it.
t source-auto-maps-csv 0 maps --csv -f address,perms,path $E
# The values USS and file_rss from smaps' fields; zero_page only the page sources see.
t source-smaps-values 0 maps --source smaps -f address,rss,uss,file_rss,zero_page $E
t source-sort-uss 0 maps --sort uss -f address,uss,shared,path $E
t source-group-uss 0 maps -g kind -f kind,uss,file_rss,shared $E
# explain --source: smaps, what the default (auto) reads of a small process,
# byte for byte as without it but the choice's reason (asked, not fits);
# --gentle walks nothing gently there, and says so; the pages source reads
# pagemap, which a fixture tree lacks.
t err-explain-source 2 explain --source fast $C
t err-explain-source-rollup 2 explain --source rollup $C
t err-explain-gentle-value 2 explain --gentle=yes $C
t err-explain-exact-source 2 explain --exact --source pages $C
t err-maps-exact-gentle 2 maps --exact --gentle $C
t err-pages-exact-gentle 2 pages --exact --gentle $C
t err-explain-source-pages-fixture 1 explain --source pages $C
t explain-gentle-smaps 0 explain --gentle $C
t explain-source-auto-verbose 0 explain --source auto -v --jsonl $K61; jsonl explain-source-auto-verbose
for args in :explain-capture --json:explain-capture-json --csv:explain-k61-csv --jsonl:explain-k61-jsonl; do
	case ${args#*:} in *k61*) root=$K61 ;; *) root=$C ;; esac
	(cd "$DATA" && "$PMAPS" explain --source smaps ${args%%:*} $root) 2>&1 |
		sed 's/"source_choice":{"reason":"[a-z_]*"/"source_choice":{"reason":R/' >"$TMP/asked"
	sed 's/"source_choice":{"reason":"[a-z_]*"/"source_choice":{"reason":R/' \
		"$EXP/${args#*:}.out" | cmp -s - "$TMP/asked" &&
		ok || bad "explain --source smaps ${args%%:*}: not the default's output"
done

# live processes
if out=$("$PMAPS" maps self 2>&1) && echo "$out" | grep -q '\[stack\]'; then ok; else bad "maps self"; fi
if "$PMAPS" maps --total --json self | grep -q '"source":"smaps_rollup"'; then ok; else bad "total self"; fi
if "$PMAPS" maps --json self >"$TMP/out"; then json "json self"; ok; else bad "json self"; fi
if out=$("$PMAPS" pages self 2>&1) && echo "$out" | grep -q '\[stack\]$'; then ok; else bad "pages self"; fi
if "$PMAPS" pages --summary --json self >"$TMP/out"; then json "pages json self"; ok; else bad "pages json self"; fi
if "$PMAPS" pages --strategy pagemap --gentle --flags self '[stack]' | grep -q 'present'; then ok; else bad "pages gentle stack"; fi
if out=$("$PMAPS" explain self 2>&1) && echo "$out" | grep -q '^Reconciled'; then ok; else bad "explain self"; fi
if "$PMAPS" explain --json self >"$TMP/out"; then json "explain json self"; ok; else bad "explain json self"; fi
if "$PMAPS" explain --pages --json self >"$TMP/out"; then json "explain pages json self"; ok; else bad "explain pages json"; fi
if "$PMAPS" explain --pages -v self 2>/dev/null | grep -q '^Page by page' ; then ok; else bad "explain --pages -v"; fi
sleep 30 & sp=$!
# Until it has exec'd sleep, the child is a copy of this shell.
i=0
while [ "$(cat /proc/$sp/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do sleep 0.01; i=$((i + 1)); done
if "$PMAPS" maps -g path "$sp" | grep -q '/sleep'; then ok; else bad "maps of another process"; fi
# top's threads and page faults: a stopped process's, the kernel's own (status, stat).
kill -STOP $sp
if [ -x /usr/bin/python3 ] &&
	"$PMAPS" top --once --json --fields threads,minflt,majflt --pid "$sp" >"$TMP/out" 2>"$TMP/err"; then
	/usr/bin/python3 - "$TMP/out" "$sp" <<'PYEOF' && ok || bad "top --fields threads,minflt,majflt: $(cat "$TMP/err")"
import json, sys
pid = sys.argv[2]
p = json.load(open(sys.argv[1]))["processes"][0]
st = open("/proc/%s/stat" % pid).read()
f = st[st.rindex(")") + 2:].split()  # f[0] is field 3
threads = [int(l.split()[1]) for l in open("/proc/%s/status" % pid) if l.startswith("Threads:")][0]
want = {"threads": threads, "minflt": int(f[10 - 3]), "majflt": int(f[12 - 3])}
got = {k: p.get(k) for k in want}
if got != want:
    sys.exit("got %r, want %r" % (got, want))
PYEOF
else
	bad "top --fields threads,minflt,majflt --json: $(cat "$TMP/err")"
fi
kill -CONT $sp
kill $sp; wait $sp 2>/dev/null
# The page sources, on a sleep that does nothing while it is read.
sleep 30 & sp=$!
i=0
while [ "$(cat /proc/$sp/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do sleep 0.01; i=$((i + 1)); done
if [ -x /usr/bin/python3 ]; then
	"$PMAPS" maps --source fast --json "$sp" >"$TMP/out" 2>"$TMP/err"
	/usr/bin/python3 - "$TMP/out" "$sp" <<'PYEOF' && ok || bad "maps --source fast --json: $(cat "$TMP/err")"
import json, sys
d = json.load(open(sys.argv[1]))
ms = d["mappings"]
assert d["source"] == "fast" and d["pid"] == int(sys.argv[2]), d["source"]
assert ms and all("rss" in m and "anonymous" in m and "size" in m for m in ms), "rss missing"
assert not any("private_dirty" in m or "pss" in m or "vm_flags" in m for m in ms), "smaps-only field"
assert any(m["path"].endswith("/sleep") for m in ms)
PYEOF
	"$PMAPS" maps --source fast --jsonl "$sp" >"$TMP/out" 2>"$TMP/err"
	/usr/bin/python3 - "$TMP/out" <<'PYEOF' && ok || bad "maps --source fast --jsonl"
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    assert list(o)[0] == "pid" and o["source"] == "fast", line[:80]
PYEOF
	# Totals agree with the kernel's own sum: Rss and Anonymous from the page
	# tables, exactly. USS and Pss (as root, where kpagecount can be read) are
	# compared where no other process maps the pages: the anonymous kinds.
	# A library's pages are shared with whichever processes touched them,
	# the reading pmaps among them, and which ones it touched depends on how
	# it read; each pair is read again when the process changed in between.
	for what in fast pages; do
		[ $what = pages ] && [ "$(id -u)" != 0 ] && { echo "skipped: pages totals need root"; continue; }
		i=0 res=
		while [ $i -lt 5 ]; do
			if [ $what = fast ]; then
				a=$("$PMAPS" maps --source fast --total --fields rss,anonymous --json "$sp" 2>/dev/null)
				b=$("$PMAPS" maps --source rollup --total --json "$sp")
			else
				a=$("$PMAPS" maps --source pages --group kind --fields uss,pss --json "$sp" 2>/dev/null)
				b=$("$PMAPS" maps --source smaps --group kind --json "$sp")
			fi
			res=$(/usr/bin/python3 - "$what" "$a" "$b" <<'PYEOF'
import json, sys
what, a, b = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
assert a["source"] == what and b["source"] in ("smaps_rollup", "smaps")
if what == "fast":
    a, b = a["total"], b["total"]
    ok = a["rss"] == b["rss"] and a["anonymous"] == b["anonymous"]
else:
    kinds = ("heap", "stack", "anon")
    a = {g["kind"]: g for g in a["groups"] if g["kind"] in kinds}
    b = {g["kind"]: g for g in b["groups"] if g["kind"] in kinds}
    ok = set(a) == set(b) and "heap" in a and all(
        a[k]["uss"] == b[k]["private_clean"] + b[k]["private_dirty"] and a[k]["pss"] == b[k]["pss"]
        for k in a)
print("ok" if ok else "%s: %s, smaps %s" % (what, a, b))
PYEOF
)
			[ "$res" = ok ] && break
			i=$((i + 1))
		done
		[ "$res" = ok ] && ok || bad "maps --source $what against smaps: $res"
	done
else
	echo "skipped: the page sources' checks need /usr/bin/python3"
fi
# What the page sources promise: a table of rss, anonymous and swap reads no smaps,
# and (as root) USS, Pss and Swap in total read neither smaps nor smaps_rollup.
# Under ASan, LeakSanitizer cannot run beneath ptrace (it exits 134): the files read
# are the point here, and the leak checks run everywhere else.
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	for args in "--fields rss,anonymous,swap" "--total --fields uss,pss,swap"; do
		case $args in *uss*) [ "$(id -u)" = 0 ] || { echo "skipped: $args needs root"; continue; } ;; esac
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -e trace=openat,open -o "$TMP/strace" "$PMAPS" maps $args "$sp" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ $rc = 0 ] && [ -s "$TMP/out" ] && grep -q 'pagemap' "$TMP/strace" &&
			! grep -Eq '/smaps(_rollup)?"' "$TMP/strace"; then
			ok
		else
			bad "pmaps maps $args read smaps: exit $rc, $(grep smaps "$TMP/strace" | head -2)"
		fi
	done
	# A total's Maps and VSize are counted from the maps text, read only when shown.
	for args in "--total" "--total --fields pss,shared_clean" "--total --fields pss,shared_clean,vsize" \
		"--total --json --fields pss,shared_clean" "--total --source smaps_rollup --csv --fields rss"; do
		case $args in *vsize*|"--total"|*json*) want=1 ;; *) want=0 ;; esac
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -e trace=openat,open -o "$TMP/strace" "$PMAPS" maps $args "$sp" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		got=$(grep -c "\"maps\"" "$TMP/strace")
		if [ $rc = 0 ] && grep -q '/smaps_rollup"\|"smaps_rollup"' "$TMP/strace" &&
			{ { [ $want = 1 ] && [ "$got" -ge 1 ]; } || { [ $want = 0 ] && [ "$got" = 0 ]; }; }; then
			ok
		else
			bad "pmaps maps $args: exit $rc, maps opened $got times, wanted $([ $want = 1 ] && echo 'at least once' || echo never)"
		fi
	done
else
	echo "skipped: the files read need strace"
fi
# -v names the source, and auto says why.
"$PMAPS" maps -v --fields rss,anonymous "$sp" 2>&1 >/dev/null |
	grep -q '^pmaps: note: source fast (.* + .*): [0-9]* mappings in .*auto: the columns asked need no smaps$' &&
	ok || bad "maps -v: $("$PMAPS" maps -v --fields rss,anonymous "$sp" 2>&1 >/dev/null)"
# --gentle walks in smaller steps (pausing when a walk is long): the same rows, and -v says so.
"$PMAPS" maps --source fast --gentle -v -f address,size,path "$sp" >"$TMP/g1" 2>"$TMP/err" &&
	"$PMAPS" maps --source fast -f address,size,path "$sp" 2>/dev/null | cmp -s - "$TMP/g1" &&
	grep -q ' pause' "$TMP/err" && ok || bad "maps --gentle: $(cat "$TMP/err")"
# The default output is smaps', as it always was: no note, and vm_flags or JSON read smaps.
"$PMAPS" maps "$sp" >/dev/null 2>"$TMP/err" && [ ! -s "$TMP/err" ] && ok || bad "maps: $(cat "$TMP/err")"
"$PMAPS" maps --json "$sp" | grep -q '"source":"smaps"' && ok || bad "maps --json: not from smaps"
# explain --source pages: the categories from the page tables. What the
# source does not know is no key (private_dirty), what it knows is (rss,
# private); the table heads Private, not PrDirty.
if [ -x /usr/bin/python3 ]; then
	"$PMAPS" explain --source pages --json "$sp" >"$TMP/out" 2>"$TMP/err"
	/usr/bin/python3 - "$TMP/out" "$sp" <<'PYEOF' && ok || bad "explain --source pages --json: $(cat "$TMP/err")"
import json, sys
x = json.load(open(sys.argv[1]))
cs = x["categories"]
assert x["source"] == "pages" and x["pid"] == int(sys.argv[2]), x.get("source")
assert cs and all("rss" in c and "private" in c and "shared" in c for c in cs), "rss or private missing"
assert not any(k in c for c in cs for k in ("private_dirty", "private_clean", "locked", "swap_pss")), \
    "a state the pages source does not know"
assert "smaps_rollup" not in x and "swap_pss" not in x and "uss" in x
assert ("effective_rss" in x) == ("lazy_free" in cs[0]), "effective_rss without lazy_free"
assert sum(c["rss"] for c in cs) == x["rss"]
PYEOF
	"$PMAPS" explain --source pages --jsonl "$sp" >"$TMP/out" 2>"$TMP/err"
	/usr/bin/python3 - "$TMP/out" <<'PYEOF' && ok || bad "explain --source pages --jsonl"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
o = json.loads(lines[0])
assert len(lines) == 1 and list(o)[:3] == ["pid", "pmaps_version", "source"] and o["source"] == "pages"
PYEOF
	# Per category, the page tables' Rss is smaps' on a sleep at rest. The map
	# counts of shared library pages move as other processes come and go:
	# both are read again when they differ.
	i=0 res=
	while [ $i -lt 5 ]; do
		a=$("$PMAPS" explain --source pages --json "$sp" 2>/dev/null)
		b=$("$PMAPS" explain --source smaps --json "$sp" 2>/dev/null)
		res=$(/usr/bin/python3 - "$a" "$b" <<'PYEOF'
import json, sys
a, b = (json.loads(s) for s in sys.argv[1:3])
ra = {c["category"]: c["rss"] for c in a["categories"]}
rb = {c["category"]: c["rss"] for c in b["categories"]}
print("ok" if a["source"] == "pages" and b["source"] == "smaps" and ra == rb
      else "pages %s, smaps %s" % (ra, rb))
PYEOF
)
		[ "$res" = ok ] && break
		i=$((i + 1))
	done
	[ "$res" = ok ] && ok || bad "explain --source pages: rss by category differs from smaps': $res"
	# CSV: the states it does not know are empty cells, and a last column names the source.
	"$PMAPS" explain --source pages --csv "$sp" >"$TMP/out" 2>"$TMP/err"
	/usr/bin/python3 - "$TMP/out" <<'PYEOF' && ok || bad "explain --source pages --csv: $(cat "$TMP/err")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and rows[-1]["category"] == "total"
assert all(r["source"] == "pages" and r["private_dirty"] == "" and r["rss"] != "" and
           r["private"] != "" for r in rows), rows[0]
PYEOF
	# With the page evidence too (--pages): both walks, one document.
	"$PMAPS" explain --source pages --pages --json "$sp" >"$TMP/out" 2>"$TMP/err"
	/usr/bin/python3 - "$TMP/out" <<'PYEOF' && ok || bad "explain --source pages --pages: $(cat "$TMP/err")"
import json, sys
x = json.load(open(sys.argv[1]))
assert x["source"] == "pages" and x["pages"]["categories"]
PYEOF
else
	echo "skipped: explain --source pages's JSON checks need /usr/bin/python3"
fi
"$PMAPS" explain --source pages "$sp" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 0 ] && grep -q '^Category .* Rss  *Private  *Shared ' "$TMP/out" && ! grep -q 'PrDirty' "$TMP/out" &&
	grep -q '^Where it is (.*pages source' "$TMP/out" && ! grep -q 'smaps_rollup says\|says the same' "$TMP/out"; then
	ok
else
	bad "explain --source pages table: exit $rc, $(head -12 "$TMP/out") $(cat "$TMP/err")"
fi
# The point of it: neither smaps nor smaps_rollup is opened, pagemap is.
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	for args in "--source pages" "--source pages --gentle --json"; do
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -e trace=openat,open -o "$TMP/strace" "$PMAPS" explain $args "$sp" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ $rc = 0 ] && [ -s "$TMP/out" ] && grep -q '"pagemap"' "$TMP/strace" &&
			! grep -Eq 'smaps(_rollup)?"' "$TMP/strace"; then
			ok
		else
			bad "pmaps explain $args read smaps: exit $rc, $(grep smaps "$TMP/strace" | head -2)"
		fi
	done
else
	echo "skipped: the files explain reads need strace"
fi
# -v: one line on the source and its cost; with --gentle, the pauses made.
"$PMAPS" explain --source pages --gentle -v "$sp" >/dev/null 2>"$TMP/err" &&
	grep -q '^pmaps: note: source pages (.* + .*): [0-9]* mappings in [0-9.]* ms, [0-9]* kernel calls, longest call [0-9]* us, [0-9]* pauses\?; --source pages$' "$TMP/err" &&
	ok || bad "explain --source pages --gentle -v: $(cat "$TMP/err")"
"$PMAPS" explain -v "$sp" >/dev/null 2>"$TMP/err" &&
	grep -q "^pmaps: note: source smaps (/proc/$sp/smaps): [0-9]* mappings in [0-9.]* ms, [0-9]* kernel calls, longest call [0-9]* us; auto: reading smaps and smaps_rollup holds its mmap_lock ~[0-9]* us, within the 5000 us limit$" "$TMP/err" &&
	ok || bad "explain -v: $(cat "$TMP/err")"
# auto, the default: smaps for a process one read of which holds its mmap_lock
# within the limit, whatever the privilege; -v says why; JSON says so.
"$PMAPS" explain --source auto -v --json "$sp" >"$TMP/out" 2>"$TMP/err" &&
	grep -q '"source":"smaps","source_choice":{"reason":"fits","hold_ns":[0-9]*,"limit_ns":5000000,"gentle":false}' "$TMP/out" &&
	grep -q "^pmaps: note: source smaps .*; auto: " "$TMP/err" &&
	ok || bad "explain --source auto as uid $(id -u): $(cat "$TMP/err")"
# The default is auto: smaps here, no note.
"$PMAPS" explain --json "$sp" 2>"$TMP/err" | grep -q '"source":"smaps","source_choice":{"reason":"fits"' &&
	[ ! -s "$TMP/err" ] &&
	ok || bad "explain --json: not from smaps, or a note: $(cat "$TMP/err")"
kill $sp; wait $sp 2>/dev/null
if [ -r /proc/2/stat ] && [ $(( $(cut -d' ' -f9 /proc/2/stat) & 0x200000 )) != 0 ]; then
	# pid 2 is a kernel thread (kthreadd): every command gives a note, an
	# empty result in its format, and exit 0.
	t kthread-maps 0 maps 2
	t kthread-maps-json 0 maps --json 2; json kthread-maps-json
	t kthread-maps-sort 0 maps --sort rss --csv 2
	t kthread-group 0 maps -g kind 2
	t kthread-total 0 maps --total 2
	t kthread-total-json 0 maps --total --json 2; json kthread-total-json
	t kthread-pages 0 pages 2
	t kthread-pages-json 0 pages --json 2; json kthread-pages-json
	t kthread-pages-summary-csv 0 pages -s --csv 2
	t kthread-pages-range 0 pages 2 '[heap]'
	t kthread-explain 0 explain 2
	t kthread-explain-json 0 explain --json 2; json kthread-explain-json
	t kthread-maps-jsonl 0 maps --jsonl 2
	t kthread-pages-jsonl 0 pages -s --jsonl 2
	t kthread-explain-jsonl 0 explain --jsonl 2; jsonl kthread-explain-jsonl
	t kthread-explain-pages-json 0 explain --source pages --json 2; json kthread-explain-pages-json
	t kthread-explain-pages-verbose 0 explain --source pages -v 2
else
	echo "skipped: pid 2 is not a kernel thread here"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# Another user may not read a root process: the message names the privilege.
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$PMAPS" maps $$ 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 1 ] && echo "$err" | grep -q 'CAP_SYS_PTRACE'; then ok; else bad "permission denied: rc=$rc $err"; fi
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$PMAPS" pages $$ 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 1 ] && echo "$err" | grep -q 'CAP_SYS_PTRACE'; then ok; else bad "pages permission denied: rc=$rc $err"; fi
	# Not root: the pages of one's own process, without physical page state, said once.
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$PMAPS" pages self 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 0 ] && [ "$err" = "pmaps: note: kpageflags: needs root (CAP_SYS_ADMIN): showing pagemap flags only" ]; then ok; else bad "pages as nobody: rc=$rc $err"; fi
else
	echo "skipped: permission test needs root and setpriv"
fi
before=$(ls /tmp | grep -c '^pmaps-demo' || true)
if out=$("$PMAPS" demo --size 8M 2>&1) && echo "$out" | grep -q 'LazyFree' &&
	echo "$out" | grep -q '^shmem ' && echo "$out" | grep -q 'smaps_rollup'; then ok; else bad "demo: $out"; fi
after=$(ls /tmp | grep -c '^pmaps-demo' || true)
[ "$before" = "$after" ] && ok || bad "demo left files in /tmp"

# demo --svg: both pictures, well-formed, of the whole layout: the memfd of an
# eighth of 8M is 256 pages of shared memory, all touched.
if out=$("$PMAPS" demo --size 8M --svg "$TMP/demo" 2>&1) &&
	echo "$out" | grep -q "^Pictures: $TMP/demo-timeline.svg .* and $TMP/demo-pages.svg"; then ok
else bad "demo --svg: $out"; fi
shm=$(grep -o 'data-state="shmem" data-pages="[0-9]*"' "$TMP/demo-pages.svg" 2>/dev/null)
[ "$shm" = 'data-state="shmem" data-pages="256"' ] && ok || bad "demo --svg: shmem: want 256 pages, got '$shm'"
grep -q '>peak [0-9.]*M at [0-9.]* m\{0,1\}s<' "$TMP/demo-timeline.svg" 2>/dev/null && ok ||
	bad "demo --svg: the timeline has no peak label"
grep -q '>LazyFree' "$TMP/demo-timeline.svg" 2>/dev/null && ok || bad "demo --svg: no LazyFree line"
if command -v xmllint >/dev/null; then
	for f in timeline pages; do
		if xmllint --noout "$TMP/demo-$f.svg" 2>"$TMP/xmllint.err"; then ok
		else bad "demo --svg: $f: $(cat "$TMP/xmllint.err")"; fi
	done
else
	echo "skipped: demo --svg well-formedness needs xmllint"
fi
rm -f "$TMP/demo-timeline.svg" "$TMP/demo-pages.svg"
# An unwritable prefix fails before the child starts: nothing created, no child.
out=$("$PMAPS" demo --size 8M --svg "$TMP/nodir/demo" 2>&1); rc=$?
case $out in "pmaps: --svg: '$TMP/nodir/demo-timeline.svg': "*) ok ;; *) bad "demo --svg unwritable: $out" ;; esac
[ "$rc" = 1 ] && ok || bad "demo --svg unwritable: rc=$rc"
[ "$(ls /tmp | grep -c '^pmaps-demo' || true)" = "$before" ] && ok || bad "demo --svg unwritable left files"
# A demo that fails late (its timeline cannot be written: a link to /dev/full)
# leaves the old pictures byte for byte, the link a link, and no new file.
if [ -w /dev/full ]; then
	mkdir -p "$TMP/demo-keep"
	printf 'old pages\n' >"$TMP/demo-keep/d-pages.svg"
	ln -sf /dev/full "$TMP/demo-keep/d-timeline.svg"
	out=$("$PMAPS" demo --size 4M --svg "$TMP/demo-keep/d" 2>&1 >/dev/null); rc=$?
	case $out in "pmaps: --svg: '$TMP/demo-keep/d-timeline.svg': writing the file: No space left on device") ok ;;
	*) bad "demo --svg, a timeline to /dev/full: $out" ;; esac
	[ "$rc" = 1 ] && ok || bad "demo --svg, a timeline to /dev/full: rc=$rc"
	[ "$(cat "$TMP/demo-keep/d-pages.svg")" = "old pages" ] && ok ||
		bad "demo --svg failed: the old pages picture is gone: '$(head -c 80 "$TMP/demo-keep/d-pages.svg")'"
	[ -L "$TMP/demo-keep/d-timeline.svg" ] && ok || bad "demo --svg failed: the timeline link is gone"
	left=$(ls -A "$TMP/demo-keep" | tr '\n' ' ')
	[ "$left" = "d-pages.svg d-timeline.svg " ] && ok || bad "demo --svg failed: files left: $left"
	# Then a demo that succeeds replaces the old picture whole.
	rm "$TMP/demo-keep/d-timeline.svg"
	if "$PMAPS" demo --size 4M --svg "$TMP/demo-keep/d" >/dev/null 2>&1 &&
		grep -q '</svg>' "$TMP/demo-keep/d-pages.svg" && grep -q '</svg>' "$TMP/demo-keep/d-timeline.svg"
	then ok; else bad "demo --svg over old pictures: not replaced"; fi
	left=$(ls -A "$TMP/demo-keep" | tr '\n' ' ')
	[ "$left" = "d-pages.svg d-timeline.svg " ] && ok || bad "demo --svg over old pictures: files left: $left"
	rm -rf "$TMP/demo-keep"
else
	echo "skipped: demo --svg, a late failure needs /dev/full"
fi
t err-demo-svg-twice 2 demo --svg "$TMP/a" --svg "$TMP/b"
t err-demo-svg-stdout 2 demo --svg -
t err-demo-svg-dir 2 demo --svg dir/

# A proc root this user may not read is named as such, never blamed on the process.
mkdir -p "$TMP/root000" "$TMP/root444/1"
chmod 755 "$TMP"
chmod 000 "$TMP/root000"
chmod 444 "$TMP/root444"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
elif [ "$(id -u)" != 0 ]; then
	asuser=
else
	asuser=skip
fi
if [ "$asuser" != skip ]; then
	for cmd in maps pages explain; do
		for d in root000:read root444:search; do
			err=$($asuser "$PMAPS" $cmd --proc-root "$TMP/${d%:*}" 1 2>&1 >/dev/null); rc=$?
			want="pmaps: proc root '$TMP/${d%:*}': permission denied (this user may not ${d#*:} the directory)"
			if [ $rc = 1 ] && [ "$err" = "$want" ]; then ok; else bad "$cmd, unreadable ${d%:*}: rc=$rc $err"; fi
		done
	done
else
	echo "skipped: unreadable proc root needs an unprivileged user (or root and setpriv)"
fi
chmod 755 "$TMP/root000" "$TMP/root444"

# A failed write is an error: one line with the reason, exit 1.
for args in "--help" "--version" "help" "help maps" "maps --help" "pages --help" "explain --help" \
	"demo --help" "maps $E" "maps --sort rss $E" "maps --json $E" "maps --total $E" "pages $PG" \
	"pages --summary $PG" "explain $C" "explain --json $C" "demo --size 4M"; do
	err=$(cd "$DATA" && "$PMAPS" $args 2>&1 >/dev/full); rc=$?
	if [ $rc = 1 ] && [ "$err" = "pmaps: writing output: No space left on device" ]; then ok
	else bad "pmaps $args >/dev/full: rc=$rc $err"; fi
	err=$(cd "$DATA" && "$PMAPS" $args 2>&1 >&-); rc=$?
	if [ $rc = 1 ] && [ "$err" = "pmaps: writing output: Bad file descriptor" ]; then ok
	else bad "pmaps $args >&-: rc=$rc $err"; fi
done

# An interrupted demo removes its file and dies of the signal. Its output goes
# to a full pipe, so it is caught blocked in a write with the file in place.
if mkfifo "$TMP/demo-out"; then
	exec 3<>"$TMP/demo-out"
	dd if=/dev/zero of="$TMP/demo-out" bs=4096 count=1024 oflag=nonblock 2>/dev/null
	for sig in TERM:143 INT:130; do
		# A background job ignores SIGINT unless told otherwise.
		env --default-signal=INT "$PMAPS" demo --size 4M >"$TMP/demo-out" 2>/dev/null & dp=$!
		file=
		for i in $(seq 200); do
			kid=$(cat /proc/$dp/task/$dp/children 2>/dev/null)
			[ -n "$kid" ] && file=$(grep -o '/tmp/pmaps-demo\.[A-Za-z0-9]*' /proc/${kid% }/maps 2>/dev/null | head -1)
			[ -n "$file" ] && break
			sleep 0.05
		done
		kill -${sig%:*} $dp
		wait $dp 2>/dev/null; rc=$?
		if [ -n "$file" ] && [ ! -e "$file" ] && [ $rc = ${sig#*:} ]; then ok
		else bad "demo on SIG${sig%:*}: rc=$rc, file '$file' left behind or never seen"; fi
		[ -n "$file" ] && rm -f "$file"
	done
	exec 3>&-
else
	echo "skipped: the interrupted demo needs a FIFO in $TMP"
fi

# --sort keeps only what it prints, packed: its peak RSS on 20k mappings stays
# a small multiple of the unsorted run's (copies of whole rows made it 15x).
if [ -x /usr/bin/time ]; then
	mkdir -p "$TMP/big/proc/1"
	awk 'BEGIN {
		for (i = 0; i < 20000; i++) {
			a = 268435456 + i * 16384
			printf "%08x-%08x rw-p 00000000 %s %s\n", a, a + 16384,
			       i % 2 ? "fe:00 4242" : "00:00 0", i % 2 ? "/usr/lib/libexample.so" : ""
			r = (i % 4 + 1) * 4
			printf "Size: 16 kB\nKernelPageSize: 4 kB\nMMUPageSize: 4 kB\nRss: %d kB\n", r
			printf "Pss: %d kB\nPss_Dirty: %d kB\nShared_Clean: 0 kB\nShared_Dirty: 0 kB\n", r, r
			printf "Private_Clean: 0 kB\nPrivate_Dirty: %d kB\nReferenced: %d kB\n", r, r
			printf "Anonymous: %d kB\n", r
			printf "KSM: 0 kB\nLazyFree: 0 kB\nAnonHugePages: 0 kB\nShmemPmdMapped: 0 kB\n"
			printf "FilePmdMapped: 0 kB\nShared_Hugetlb: 0 kB\nPrivate_Hugetlb: 0 kB\nSwap: 0 kB\n"
			printf "SwapPss: 0 kB\nLocked: 0 kB\nTHPeligible: 0\nVmFlags: rd wr mr mw me ac \n"
		}
	}' >"$TMP/big/proc/1/smaps"
	plain=$(/usr/bin/time -f %M "$PMAPS" maps --proc-root "$TMP/big/proc" 1 2>&1 >/dev/null)
	sorted=$(/usr/bin/time -f %M "$PMAPS" maps --sort rss --proc-root "$TMP/big/proc" 1 2>&1 >/dev/null)
	if [ "$sorted" -le $((plain * 3)) ] 2>/dev/null; then ok
	else bad "--sort peak RSS ${sorted} KB, unsorted ${plain} KB"; fi
else
	echo "skipped: --sort memory needs /usr/bin/time"
fi

# A hostile target (hostile.py): names with terminal escapes, a newline, a
# backslash, invalid UTF-8, an emoji, C1 and bidi controls, a JVM directory
# and an hsperfdata collector name made of escapes. No raw control byte
# reaches stdout or stderr on any command or format; JSON and CSV are valid
# UTF-8 (JSON for a strict parser); what was escaped can be read back.
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	mkdir "$TMP/h"
	"$PY" "$HERE/hostile.py" target "$TMP/h" >"$TMP/h.ready" 2>"$TMP/h.err" &
	hp=$!
	i=0
	while ! grep -q '^ready' "$TMP/h.ready" && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	n=0
	for args in "maps" "maps --json" "maps --csv" "maps -f all --csv" "maps -g path" \
		"maps -g path --json" "maps -g path --csv" "maps --sort rss" "pages" "pages --json" \
		"pages --csv" "pages --summary" "pages --summary --json" "pages --summary --csv" \
		"explain" "explain -v" "explain --json" "explain --pages" "explain --pages --json" \
		"maps --jsonl" "maps -g path --jsonl" "pages --jsonl" "pages --summary --jsonl" \
		"explain --jsonl" "explain --csv" "explain --source pages" "explain --source pages --json" \
		"explain --source pages --csv" "explain --source pages --jsonl"; do
		n=$((n + 1))
		"$PMAPS" $args $hp >"$TMP/h$n.out" 2>"$TMP/h$n.err"
		rc=$?
		case $args in *--jsonl*) f=jsonl ;; *--json*) f=json ;; *--csv*) f=csv ;; *) f=text ;; esac
		if [ $rc = 0 ] && "$PY" "$HERE/hostile.py" check $f "$TMP/h$n.out" &&
			"$PY" "$HERE/hostile.py" check text "$TMP/h$n.err" &&
			{ [ $f = text ] || ! command -v iconv >/dev/null ||
				iconv -f UTF-8 -t UTF-8 "$TMP/h$n.out" >/dev/null; }; then
			ok
		else
			bad "hostile: pmaps $args (exit $rc): see the lines above"
		fi
	done
	# The escapes themselves, where a person reads them.
	"$PMAPS" maps --wide $hp >"$TMP/h.maps" 2>&1
	for want in 'esc-\x1b]0;PWNED\x07\x1b[2J.so' 'new\nline.so' 'back\\slash.so' 'lat1-\xe9.so' \
		"emoji-$(printf '\360\237\230\200').so" 'c1-\xc2\x9b2J.so' 'rlo-\xe2\x80\xaeos.txt'; do
		grep -qF "$want" "$TMP/h.maps" && ok || bad "hostile: maps lacks $want"
	done
	"$PMAPS" explain --wide $hp >"$TMP/h.explain" 2>&1
	grep -qF 'Runtime: the JVM (\x1b]0;PWNED\x07\x1b[2J): libjvm.so mapped' "$TMP/h.explain" &&
		grep -qF '/hsperfdata_\x1b]0;PWNED\x07\x1b[2J/123 (collector \x1b]0;PWNED\x07\x1b[2J\xe9)' "$TMP/h.explain" &&
		grep -qF '/lat1-\xe9.so' "$TMP/h.explain" && ok || bad "hostile: explain's escapes: $(cat "$TMP/h.explain")"
	# JSON: the raw bytes next to a name that is not UTF-8.
	"$PMAPS" maps --json $hp | grep -q '"path":"[^"]*/lat1-\\ufffd.so","path_hex":"[0-9a-f]*6c6174312de92e736f"' &&
		ok || bad "hostile: maps --json has no path_hex for lat1-\\xe9.so"
	"$PMAPS" explain --json $hp | grep -q '"evidence_hex":"' && ok || bad "hostile: explain --json has no evidence_hex"
	# A message quoting what the user typed escapes it too.
	"$PMAPS" pages $hp "$(printf '/no\033[2Jsuch')" >/dev/null 2>"$TMP/h.err"
	grep -qF "no mapping named '/no\\x1b[2Jsuch'" "$TMP/h.err" && ok || bad "hostile: message: $(cat "$TMP/h.err")"
	# Clean file pages: Private_Clean and Shared_Clean (the target's files are shared with its child).
	"$PMAPS" explain --json $hp >"$TMP/h.json"
	"$PY" - "$TMP/h.json" "$TMP/h.explain" <<'PYEOF' && ok || bad "hostile: the clean note"
import json, re, sys
x = json.load(open(sys.argv[1]))
cats = {c["category"]: c for c in x["categories"]}
clean = sum(cats[k]["private_clean"] + cats[k]["shared_clean"]
            for k in ("file-text", "file-data", "file-ro") if k in cats)
shared = sum(cats[k]["shared_clean"] for k in ("file-text", "file-data", "file-ro") if k in cats)
m = re.search(r"profile; (\S+) of them are clean", open(sys.argv[2]).read())
units = {"B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
shown = float(m.group(1)[:-1]) * units[m.group(1)[-1]] if m else 0
# 8 files of 4 MiB, all resident in two processes; the note rounds to 2 digits.
ok = shared >= 32 << 20 and abs(shown - clean) <= clean * 0.05
print("clean %d (shared %d), shown %s" % (clean, shared, m.group(1) if m else None))
sys.exit(0 if ok else 1)
PYEOF
	kill $hp
	wait $hp 2>/dev/null
else
	echo "skipped: the hostile target needs /usr/bin/python3"
fi
# A C program: no Go to speak of (explain of this shell, and the demo's C child,
# whose LazyFree is told without naming a runtime it does not run).
if "$PMAPS" explain $$ | grep -qw 'Go'; then bad "explain of a shell speaks of Go"; else ok; fi
out=$("$PMAPS" demo --size 8M 2>&1)
if [ $? = 0 ] && echo "$out" | grep -q '^Reconciled' && echo "$out" | grep -q 'LazyFree)' &&
	! echo "$out" | grep -qw 'Go'; then
	ok
else
	bad "demo speaks of Go, or failed: $out"
fi

# pmaps top: snapshots of every process under a proc root. tests/data/top
# holds five processes and a kernel thread: two postgres of nobody sharing
# memory, root's systemd, a process of a uid no user has whose command and
# cgroup are escapes and invalid UTF-8 and whose smaps_rollup is missing (a
# read that failed: status figures, marked skipped), and a 40 GiB java too
# large for one smaps_rollup read within the hold limit (walked gently: a
# fixture has no pagemap, so it is left, marked). What a refresh took is no
# golden's: its milliseconds are N, its nanoseconds 0, an age 9.999.
cat >"$TMP/pmaps-top" <<EOF
#!/bin/sh
"$PMAPS" "\$@" >"$TMP/top.raw"
rc=\$?
sed -E 's/ [0-9]+\.[0-9]{2} ms/ N ms/g; s/"(wall|read)_ns":[0-9]+/"\1_ns":0/g; s/"age_s":[0-9.]+/"age_s":9.999/g; s/,(smaps_rollup|smaps|pages),[0-9]+\.[0-9]{3},/,\1,9.999,/' "$TMP/top.raw"
exit \$rc
EOF
chmod +x "$TMP/pmaps-top"
REAL_PMAPS=$PMAPS
PMAPS=$TMP/pmaps-top
T="--proc-root top/proc"
t top-help 0 top --help
t top-table 0 top $T
t top-once 0 top --once $T
t top-bytes 0 top -b $T
t top-json 0 top --json $T; json top-json
t top-jsonl 0 top --jsonl $T
t top-csv 0 top --csv $T
t top-sort-rss 0 top --sort rss $T
t top-sort-uss-asc 0 top --sort uss --ascending $T
t top-sort-command 0 top --sort command $T
t top-sort-pid 0 top -s pid $T
t top-lines 0 top -n 2 $T
t top-user 0 top --user nobody $T
t top-user-uid 0 top -u 0 --json $T; json top-user-uid
t top-name 0 top --name '^post' $T
t top-name-none 0 top --name '^zzz' $T
t top-pid 0 top --pid 300,1 $T
t top-pid-some 0 top --pid 1 --pid 999 --csv $T
t top-cgroup 0 top --cgroup /system.slice $T
t top-cgroup-prefix 0 top --cgroup /system $T
t top-sort-cgroup 0 top --sort cgroup $T
t top-group-user 0 top --group user $T
t top-group-user-json 0 top -g user --json $T; json top-group-user-json
t top-group-user-csv 0 top -g user --csv $T
t top-group-cgroup 0 top --group cgroup $T
t top-group-cgroup-jsonl 0 top -g cgroup --jsonl $T
t top-group-sort-pid 0 top -g user --sort pid $T
t top-exact 0 top --exact --sort pid $T
t top-count-jsonl 0 top --count 2 -d 0.01 --jsonl --name systemd $T
t top-count-csv 0 top --count 2 -d 0.01 --csv --pid 1 $T
t top-count-table 0 top --count 2 -d 0.01 --max-age 0.001 --pid 1,101 $T
# --tree: each process under its parent, its figures summed with its
# descendants' (a 4-level tree, and two processes whose PPid name each other)
TT="--proc-root top-tree/proc"
t top-tree 0 top --tree $TT
t top-tree-json 0 top --tree --json $TT; json top-tree-json
t top-tree-sort-pid 0 top -t --sort pid $TT
t top-tree-vsize 0 top --tree --sort vsize -n 4 $TT
t top-sort-vsize 0 top --sort vsize $T
# --fields: the table's figures (PID and Command stay), threads and %MEM of MemTotal
t top-fields 0 top -f rss,mem_percent,vsize,threads,minflt $T
t top-fields-group 0 top -g user -f threads,rss,mem_percent $T
t top-fields-identity 0 top -f command,pid,threads $T
t top-sort-threads 0 top --sort threads -f threads $T
t top-err-fields 2 top -f rss,bogus $T
t top-err-fields-twice 2 top -f rss,RSS $T
t top-err-fields-group 2 top -g user -f state $T
t top-err-tree-group 2 top --tree -g user $TT
t top-err-tree-csv 2 top --tree --csv $TT
# Every tree sum is the process's own figure plus its children's tree sums.
if [ -x /usr/bin/python3 ]; then
	(cd "$DATA" && "$REAL_PMAPS" top --tree --json $TT) >"$TMP/tree.json" 2>/dev/null
	if /usr/bin/python3 - "$TMP/tree.json" <<'PYEOF'; then ok; else bad "top --tree: sums"; fi
import json, sys
ps = json.load(open(sys.argv[1]))["processes"]
by = {p["pid"]: p for p in ps}
kids = {}
for p in ps:
    if p["ppid"]:
        kids.setdefault(p["ppid"], []).append(p["pid"])
bad = 0
for p in ps:
    for k in ("rss", "pss", "uss", "swap", "vsize"):
        want = p[k] + sum(by[c]["tree"][k] for c in kids.get(p["pid"], []))
        if p["tree"][k] != want:
            print("pid %d %s: tree %d, own + children's trees %d" % (p["pid"], k, p["tree"][k], want))
            bad = 1
    n = 1 + sum(by[c]["tree"]["processes"] for c in kids.get(p["pid"], []))
    if p["tree"]["processes"] != n:
        print("pid %d: %d processes, want %d" % (p["pid"], p["tree"]["processes"], n))
        bad = 1
# The walk's order: every process right under its parent's subtree, depth one more.
for i, p in enumerate(ps):
    if p["ppid"]:
        j = max(k for k in range(i) if ps[k]["pid"] == p["ppid"])
        if p["depth"] != ps[j]["depth"] + 1 or any(ps[k]["depth"] <= ps[j]["depth"] for k in range(j + 1, i)):
            print("pid %d not under its parent %d" % (p["pid"], p["ppid"]))
            bad = 1
roots = [p["pid"] for p in ps if p["depth"] == 0]
if roots != [1, 30]:
    print("roots %r, want [1, 30]" % roots)
    bad = 1
sys.exit(bad)
PYEOF
fi
# No meminfo in a tree: no Memory line, nothing absent shown as 0.
t top-capture 0 top --proc-root capture-6.18/proc
t top-capture-json 0 top --json --proc-root capture-6.18/proc; json top-capture-json
# errors: one line, exit 2 for what was asked, 1 for what was found
t top-err-pid-missing 1 top --pid 999999 $T
t top-err-no-root 1 top --proc-root no/such/dir
t top-err-root-file 1 top --proc-root top/proc/meminfo
t top-err-root-none 1 top --once --proc-root top/proc/1
t top-err-user-twice 2 top --once --user root --user nobody
t top-err-name-twice 2 top --once --name a --name b
t top-err-group-twice 2 top --once -g user -g cgroup
t top-err-sort-twice 2 top --once --sort pss --sort rss
t top-err-cgroup-twice 2 top --once --cgroup / --cgroup /a
t top-err-delay 2 top -d 0 $T
t top-err-delay-word 2 top --delay soon $T
t top-err-budget 2 top --budget 0 $T
t top-err-exact-budget 2 top --exact --budget 50 $T
t top-err-max-age 2 top --max-age -1 $T
t top-err-sort 2 top --sort vm_flags $T
t top-err-sort-group 2 top --sort processes $T
t top-err-sort-cgroup-user 2 top -g cgroup --sort user $T
t top-err-group 2 top --group kind $T
t top-err-name 2 top --name '(' $T
t top-err-user 2 top --user no-such-user-here $T
t top-err-pid 2 top --pid 12x $T
t top-err-pid-empty 2 top --pid 1,,2 $T
t top-err-cgroup 2 top --cgroup system.slice $T
t top-err-arg 2 top 1234 $T
t top-err-formats 2 top --json --csv $T
t top-err-once-count 2 top --once --count 3 $T
t top-err-count 2 top --count many $T
t top-err-lines 2 top -n -1 $T
t top-err-option 2 top --frobnicate $T
t top-err-option-value 2 top $T --sort
PMAPS=$REAL_PMAPS
if [ -x /usr/bin/python3 ]; then
	# Every JSON Lines line is an object of one refresh; a group's has no pid.
	/usr/bin/python3 - "$EXP/top-jsonl.out" "$EXP/top-group-cgroup-jsonl.out" "$EXP/top-count-jsonl.out" <<'PYEOF' && ok || bad "top --jsonl: not JSON Lines of refreshes"
import json, sys
for f in sys.argv[1:]:
    lines = open(f, "rb").read().split(b"\n")
    assert lines[-1] == b"", f
    seen = set()
    for line in lines[:-1]:
        o = json.loads(line.decode("utf-8"))
        assert isinstance(o, dict) and isinstance(o["refresh"], int), line[:80]
        assert ("pid" in o) == ("group-cgroup" not in f), line[:80]
        seen.add(o["refresh"])
    assert seen == ({1, 2} if "count" in f else {1}), (f, seen)
PYEOF
	# The fixture's figures, from the JSON documents: bytes, absent where unknown.
	/usr/bin/python3 - "$EXP/top-json.out" "$EXP/top-group-user-json.out" <<'PYEOF' && ok || bad "top --json: the fixture's figures"
import json, sys
d = json.load(open(sys.argv[1], "rb"))
p = {x["pid"]: x for x in d["processes"]}
K = 1024
assert [x["pid"] for x in d["processes"]] == [300, 100, 101, 1, 200]
assert p[100]["pss"] == 71680 * K and p[100]["uss"] == (512 + 20480) * K
assert p[100]["rss"] == 204800 * K and p[100]["swap"] == 1024 * K and p[100]["swap_pss"] == 1024 * K
assert p[1]["lazyfree"] == 512 * K and p[1]["user"] == "root" and p[1]["source"] == "smaps_rollup"
assert "pss" not in p[200] and "uss" not in p[200] and p[200]["source"] == "status"
assert p[200]["flags"] == ["failed"]
assert p[200]["user"] == "4000000" and "command_hex" in p[200] and "\x1b" in p[200]["command"]
assert p[300]["flags"] == ["large", "failed"] and "pss" not in p[300]
assert d["meminfo"]["mem_total"] == 65536000 * K and d["meminfo"]["swap_free"] == 7340032 * K
r = d["refresh"]
assert (r["processes"], r["read"], r["skipped"], r["failed"], r["large"], r["kernel_threads"]) == (5, 3, 0, 2, 1, 1)
g = json.load(open(sys.argv[2], "rb"))
u = {x["user"]: x for x in g["groups"]}
assert u["nobody"]["pss"] == (71680 + 40960) * K and u["nobody"]["processes"] == 2
assert "partial" not in u["nobody"] and u["root"]["partial"] == ["pss", "uss", "swap_pss", "lazyfree"]
assert u["root"]["pss"] == 6144 * K and u["root"]["rss"] == (12800 + 41943040) * K
PYEOF
	/usr/bin/python3 "$HERE/hostile.py" check text "$EXP/top-table.out" "$EXP/top-group-cgroup.out" &&
		/usr/bin/python3 "$HERE/hostile.py" check csv "$EXP/top-csv.out" &&
		/usr/bin/python3 "$HERE/hostile.py" check json "$EXP/top-json.out" &&
		/usr/bin/python3 "$HERE/hostile.py" check jsonl "$EXP/top-jsonl.out" && ok ||
		bad "top on the fixture's hostile command and cgroup: raw controls or invalid UTF-8"
fi
grep -qF '    200 4000000  F      2M       -       -       0 status       ev\x1b]0;PWNED\x07il\xe9\x1b[2J' \
	"$EXP/top-table.out" && ok || bad "top: the command's escapes"
grep -qF '/user.slice/user-4000000.slice/session-\x1b[31m1.scope' "$EXP/top-group-cgroup.out" &&
	ok || bad "top: the cgroup's escapes"

# top, live: two sleeping processes whose PSS, USS and RSS in --json are
# their smaps_rollup's. PSS moves whenever another process maps or drops a
# page a process shares, the reader's own (libc's) included; so the two run
# from their own copies of sleep, libc and ld.so, which they share with each
# other and no other process: half of each shared page is each one's, and
# awk, reading smaps_rollup, changes nothing.
mkdir "$TMP/own"
ldso=$(ldd /bin/sleep 2>/dev/null | awk '/ld-linux/ {print $1}')
libc=$(ldd /bin/sleep 2>/dev/null | awk '$1 == "libc.so.6" {print $3}')
if cp /bin/sleep "$ldso" "$libc" "$TMP/own/" 2>/dev/null; then
	LC_ALL=C "$TMP/own/${ldso##*/}" --library-path "$TMP/own" "$TMP/own/sleep" 60 &
	sp=$!
	LC_ALL=C "$TMP/own/${ldso##*/}" --library-path "$TMP/own" "$TMP/own/sleep" 60 &
	sp2=$!
	i=0
	while ! grep -q "$TMP/own/libc" /proc/$sp/maps /proc/$sp2/maps 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
	sleep 0.2 # both mapped everything, and went to sleep
	for p in $sp $sp2; do
		awk -v pid=$p '/^Pss:/ {pss = $2} /^Private_(Clean|Dirty):/ {uss += $2} /^Rss:/ {rss = $2}
			END {print pid, pss * 1024, uss * 1024, rss * 1024}' /proc/$p/smaps_rollup
	done >"$TMP/top.want"
	"$PMAPS" top --once --json --exact --pid $sp,$sp2 >"$TMP/top.json"
	rc=$?
	if [ $rc != 0 ]; then
		bad "top --once --json --pid $sp,$sp2: exit $rc"
	elif [ -x /usr/bin/python3 ]; then
		/usr/bin/python3 - "$TMP/top.json" "$TMP/top.want" <<'PYEOF' && ok || bad "top live: not smaps_rollup's figures"
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["pid"]: x for x in d["processes"]}
want = [list(map(int, l.split())) for l in open(sys.argv[2])]
assert sorted(p) == sorted(w[0] for w in want), (sorted(p), want)
for pid, pss, uss, rss in want:
    x = p[pid]
    assert (x["pss"], x["uss"], x["rss"]) == (pss, uss, rss), \
        "top %d: pss %d uss %d rss %d; smaps_rollup: pss %d uss %d rss %d" % (
            pid, x["pss"], x["uss"], x["rss"], pss, uss, rss)
    # Their shared pages are split between the two: PSS is between USS and RSS.
    assert uss < pss < rss
    assert x["source"] == "smaps_rollup" and x["flags"] == [] and x["command"] == "ld-linux-x86-64"
PYEOF
	else
		grep -q "\"pss\":$(awk 'NR == 1 {print $2}' "$TMP/top.want")," "$TMP/top.json" && ok ||
			bad "top live pss"
	fi
else
	echo "skipped: top's live figures need copies of sleep, libc and ld.so"
	sleep 60 &
	sp=$!
	sp2=
fi
# Every process of this machine, in each format: valid, exit 0.
"$PMAPS" top --once >"$TMP/top.all" && grep -q '^Refresh 1: ' "$TMP/top.all" &&
	grep -q "^ *$sp " "$TMP/top.all" && ok || bad "top --once: $(head -5 "$TMP/top.all")"
"$PMAPS" top --json >"$TMP/out" && json "top --json, live"
"$PMAPS" top --csv --sort rss -n 5 >"$TMP/top.csv" && [ "$(wc -l <"$TMP/top.csv")" = 6 ] && ok ||
	bad "top --csv -n 5: $(cat "$TMP/top.csv")"
kill $sp $sp2
wait $sp $sp2 2>/dev/null
# Another user's process, read as a user without the privilege: status
# figures only, marked D, and the header names the privilege that shows the
# rest. As root: the fixture tree with smaps_rollup unreadable, read as nobody.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir "$TMP/denied" && cp -r "$DATA/top/proc" "$TMP/denied/" &&
		chmod 000 "$TMP/denied/proc/100/smaps_rollup"
	chmod 755 "$TMP" "$TMP/denied"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PMAPS" top \
		--proc-root "$TMP/denied/proc" --user nobody >"$TMP/top.denied" 2>&1
	rc=$?
	chmod 700 "$TMP"
	if [ $rc = 0 ] &&
		grep -q '^1 process shows status figures only: reading its memory needs root (CAP_SYS_PTRACE)' "$TMP/top.denied" &&
		grep -q '^    100 nobody   D    200M       -       -      1M status ' "$TMP/top.denied" &&
		grep -q '^(D denied: status figures only' "$TMP/top.denied"; then
		ok
	else
		bad "top as nobody, smaps_rollup unreadable: exit $rc: $(cat "$TMP/top.denied")"
	fi
else
	echo "skipped: top's denied rows need root and setpriv"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
