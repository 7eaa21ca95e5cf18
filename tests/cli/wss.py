# SPDX-License-Identifier: MIT
"""wss.py - pmaps wss on a process whose working set is known
(tests/live/wss_target.c, touching its W and R mappings every 10 ms and
never its I mapping): in every interval and every format, W's and R's
resident bytes all touched and I's none, exactly; the categories add up to
the totals; --cumulative's summary says what was never touched; an exit or
an exec during an interval ends the run with exit 1 after the intervals
read; Ctrl-C ends it with the summary and exit 0; bad options exit 2.
pmaps watch --wss and run --wss: every breakdown's touched bytes exact per
mapping, status samples with none, an exec followed by a new reset, the
summary's working set. pmaps pages --svg --wss: each band's resident and
touched bytes exact, an exec during the wait exits 1 with no picture.

    wss.py PMAPS WSS_TARGET
"""
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PMAPS, TARGET = sys.argv[1], sys.argv[2]
# tests/live/gotarget.go, built (empty where Go is missing: its checks are skipped)
GOTARGET = sys.argv[3] if len(sys.argv) > 3 else ""
PAGE = os.sysconf("SC_PAGE_SIZE")
PAGES = {"W": 1024, "R": 512, "I": 768}

failures = 0
passed = 0


def check(what, got, want):
    global failures, passed
    if got != want:
        failures += 1
        print("FAIL: %s: got %r, want %r" % (what, got, want), flush=True)
    else:
        passed += 1


class Target:
    """wss_target, touching W and R every 10 ms."""

    def __init__(self):
        self.p = subprocess.Popen([TARGET], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True)
        self.ranges = {}
        self.read_ranges()
        self.say("loop 10")
        self.pid = str(self.p.pid)

    def read_ranges(self):
        for _ in range(3):
            tag, start, end = self.p.stdout.readline().split()
            self.ranges[tag] = (int(start, 16), int(end, 16))
        if self.p.stdout.readline() != "ready\n":
            raise SystemExit("wss_target did not start")
        # Its pages are in by now: an interval that began after this reads the loop alone.
        self.ready_ns = time.time_ns()

    def say(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def stop(self):
        if self.p.poll() is None:
            self.say("q")
        self.p.wait()


def run(*args):
    p = subprocess.run([PMAPS, "wss"] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def largest(t, interval):
    """{tag: (resident, touched)} of W, R and I in an interval's largest mappings."""
    got = {}
    for m in interval["largest"]:
        for tag, (s, e) in t.ranges.items():
            if int(m["start"], 16) == s and int(m["end"], 16) == e:
                got[tag] = (m["resident"], m["touched"])
    return got


def check_interval(t, iv, what, touched=("W", "R")):
    got = largest(t, iv)
    for tag, pages in PAGES.items():
        want = (pages * PAGE, pages * PAGE if tag in touched else 0)
        check("%s: mapping %s (resident, touched)" % (what, tag), got.get(tag), want)
    cats = iv["categories"]
    check("%s: the categories' resident add up" % what, sum(c["resident"] for c in cats),
          iv["resident"])
    check("%s: the categories' touched add up" % what, sum(c["touched"] for c in cats),
          iv["touched"])
    check("%s: touched within resident everywhere" % what,
          [c["category"] for c in cats if c["touched"] > c["resident"]], [])


def test_json():
    t = Target()
    try:
        rc, out, err = run("-i", "0.3", "-n", "3", "--json", t.pid)
        check("--json: exit status", (rc, err), (0, ""))
        doc = json.loads(out)
        check("--json: method", doc["method"], "clear_refs")
        check("--json: kernel.clear_refs", doc["kernel"]["clear_refs"], True)
        check("--json: kernel.page_idle", doc["kernel"]["page_idle"],
              os.path.exists("/sys/kernel/mm/page_idle/bitmap"))
        check("--json: intervals", [iv["interval"] for iv in doc["intervals"]], [1, 2, 3])
        for iv in doc["intervals"]:
            check_interval(t, iv, "--json interval %d" % iv["interval"])
            check("--json: since the reset, about the interval",
                  250e6 < iv["since_reset_end_ns"] < 3e9, True)
        s = doc["summary"]
        check("--json: summary", (s["intervals"], s["ended"], s["idle"]),
              (3, "count", "idle_at_peak"))
        total = [c for c in s["categories"] if c["category"] == "total"][0]
        check("--json: the peak holds W and R",
              total["touched_peak"] >= (PAGES["W"] + PAGES["R"]) * PAGE, True)
        check("--json: idle at the peak is within what was resident then",
              0 <= total["idle_at_peak"] <= total["resident_at_peak"], True)
        check("--json: no error", "error" in doc, False)
    finally:
        t.stop()


def test_jsonl_csv_table():
    t = Target()
    try:
        rc, out, err = run("-i", "0.2", "-n", "2", "--jsonl", t.pid)
        lines = [json.loads(x) for x in out.splitlines()]
        check("--jsonl: exit status and lines", (rc, len(lines)), (0, 3))
        for iv in lines[:2]:
            check("--jsonl: pid", iv["pid"], t.p.pid)
            check_interval(t, iv, "--jsonl interval %d" % iv["interval"])
        check("--jsonl: the summary last", lines[2]["summary"]["intervals"], 2)

        rc, out, err = run("-i", "0.2", "-n", "2", "--csv", t.pid)
        rows = list(csv.DictReader(io.StringIO(out)))
        check("--csv: exit status", rc, 0)
        for n in ("1", "2"):
            mine = [r for r in rows if r["interval"] == n]
            total = [r for r in mine if r["category"] == "total"]
            cats = [r for r in mine if r["category"] != "total"]
            check("--csv interval %s: one total" % n, len(total), 1)
            for key in ("resident", "touched", "mappings"):
                check("--csv interval %s: %s adds up" % (n, key),
                      sum(int(r[key]) for r in cats), int(total[0][key]))
            # The total: explain's thread-stack guess may put W or R in thread-stacks.
            check("--csv interval %s: touched holds W and R" % n,
                  bool(total) and int(total[0]["touched"]) >= (PAGES["W"] + PAGES["R"]) * PAGE,
                  True)

        rc, out, err = run("-i", "0.2", "-n", "2", "-m", t.pid)
        check("table: exit status", rc, 0)
        check("table: interval lines",
              [x.split(":")[0] for x in out.splitlines() if x.startswith("interval")],
              ["interval 1 of 2", "interval 2 of 2"])
        check("table: a summary", "working set over 2 intervals" in out, True)
        check("table: within 80 columns", [x for x in out.splitlines() if len(x) > 80], [])
        w0 = "%012x-%012x" % t.ranges["W"]
        wrow = [x for x in out.splitlines() if x.startswith(w0)]
        check("table: W's row", [x.split()[1:3] for x in wrow], [["4M", "4M"]] * 2)
        # A name cut to the width keeps its end, which names the file (its start did:
        # "/usr/lib/x86..." for libc and ld.so alike).
        names = [x.split()[-1] for x in out.splitlines()
                 if re.match(r"[0-9a-f]{12}-[0-9a-f]{12} ", x)]
        check("table -m: libc's rows by the end of its name",
              any(re.search(r"libc[.-][^/]*$", n) for n in names), True)
        # Below 100 ms in ms: "0.00 s" said nothing of a 1 ms interval.
        rc, out, err = run("-i", "1ms", "-n", "2", t.pid)
        check("table -i 1ms: the intervals in ms",
              (rc, [bool(re.search(r": [0-9]+\.[0-9]{2} ms since the reset ", x)) or
                    bool(re.search(r": 0\.[1-9][0-9] s since the reset ", x))
                    for x in out.splitlines() if x.startswith("interval")],
               "working set over 2 intervals of 1.00 ms:" in out), (0, [True, True], True))

        rc, out, err = run("-i", "0.2", "-n", "2", "--cumulative", "--json", "-v", t.pid)
        doc = json.loads(out)
        check("--cumulative: exit status", rc, 0)
        for iv in doc["intervals"]:
            check_interval(t, iv, "--cumulative interval %d" % iv["interval"])
        check("--cumulative: the summary's idle", doc["summary"]["idle"], "never_touched")
        check("-v: the method named", "method clear_refs" in err, True)
        check("-v: the reset's time said", "the longest reset took" in err, True)
    finally:
        t.stop()


def test_cut_short():
    # An exit during the second interval: the first is printed, then the error.
    t = Target()
    p = subprocess.Popen([PMAPS, "wss", "-i", "0.4", "-n", "3", "--json", t.pid],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.6)
    t.stop()
    out, err = p.communicate()
    doc = json.loads(out)
    check("exit: exit status", p.returncode, 1)
    check("exit: intervals before it", len(doc["intervals"]), 1)
    check("exit: the summary's end", doc["summary"]["ended"], "exited")
    check("exit: one line on stderr", len(err.splitlines()), 1)
    # The line starts with the process; the library's message names it too, once is enough.
    check("exit: the process named once", err.count("process " + t.pid), 1)
    check("exit: JSON has the error", "error" in doc, True)

    # The same in JSON Lines: the summary's line carries the error.
    t = Target()
    p = subprocess.Popen([PMAPS, "wss", "-i", "0.4", "-n", "3", "--jsonl", t.pid],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.6)
    t.stop()
    out, err = p.communicate()
    lines = [json.loads(x) for x in out.splitlines()]
    check("exit --jsonl: exit status, lines", (p.returncode, len(lines)), (1, 2))
    check("exit --jsonl: the summary's end and error",
          (lines[-1]["summary"]["ended"], "error" in lines[-1]), ("exited", True))

    # An exec during the first interval.
    t = Target()
    p = subprocess.Popen([PMAPS, "wss", "-i", "0.5", "-n", "2", t.pid],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.2)
    t.say("exec " + TARGET)
    t.read_ranges()
    out, err = p.communicate()
    check("exec: exit status", p.returncode, 1)
    check("exec: no interval printed", "interval 1" in out, False)
    check("exec: said", "exec'd during the interval" in err, True)
    check("exec: the process named once", err.count("process " + t.pid), 1)
    t.stop()

    # Ctrl-C: the summary of the intervals read, exit 0.
    t = Target()
    p = subprocess.Popen([PMAPS, "wss", "-i", "0.3", "-n", "0", "--jsonl", t.pid],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate()
    lines = [json.loads(x) for x in out.splitlines()]
    check("SIGINT: exit status", (p.returncode, err), (0, ""))
    check("SIGINT: intervals, then the summary", len(lines) >= 3, True)
    check("SIGINT: ended", lines[-1]["summary"]["ended"], "interrupted")
    check("SIGINT: every interval counted", lines[-1]["summary"]["intervals"], len(lines) - 1)
    t.stop()


def test_explain():
    t = Target()
    try:
        p = subprocess.run([PMAPS, "explain", "--wss", "300ms", "--json", t.pid],
                           capture_output=True, text=True)
        check("explain --wss --json: exit status", (p.returncode, p.stderr), (0, ""))
        doc = json.loads(p.stdout)
        ws = doc["working_set"]
        check("explain --wss: method", ws["method"], "clear_refs")
        check("explain --wss: categories' resident add up",
              sum(c["resident"] for c in ws["categories"]), ws["resident"])
        check("explain --wss: categories' touched add up",
              sum(c["touched"] for c in ws["categories"]), ws["touched"])
        check("explain --wss: resident is the explanation's RSS", ws["resident"], doc["rss"])
        got = {}
        for m in doc["largest"]:
            for tag, (s, e) in t.ranges.items():
                if int(m["start"], 16) == s and int(m["end"], 16) == e:
                    got[tag] = (m["rss"], m["touched"])
        for tag, pages in PAGES.items():
            want = (pages * PAGE, pages * PAGE if tag != "I" else 0)
            check("explain --wss: mapping %s (rss, touched)" % tag, got.get(tag), want)
        p = subprocess.run([PMAPS, "explain", "--wss", "200ms", t.pid], capture_output=True,
                           text=True)
        check("explain --wss table: exit status", p.returncode, 0)
        check("explain --wss table: the section", "Working set (clear_refs)" in p.stdout, True)
        p = subprocess.run([PMAPS, "explain", "--json", t.pid], capture_output=True, text=True)
        check("explain without --wss: no working set", "working_set" in json.loads(p.stdout),
              False)
    finally:
        t.stop()
    for args in (["--wss", "1s", "--csv"], ["--wss", "0"], ["--wss", "1s", "--source", "pages"],
                 ["--wss", "1s", "--pages"]):
        p = subprocess.run([PMAPS, "explain"] + args + ["1"], capture_output=True, text=True)
        check("explain %s: usage error in one line" % args,
              (p.returncode, len(p.stderr.splitlines())), (2, 1))


def breakdowns(lines):
    return [x for x in lines if "working_set" in x]


def settled(t, bd):
    """The breakdowns of BD whose interval began after T said it was ready."""
    return [x for x in bd if x["working_set"]["reset_at_ns"] >= t.ready_ns]


def check_watch_sample(t, x, what):
    ws = x["working_set"]
    check_interval(t, ws, what)
    check("%s: resident is the sample's RSS" % what, ws["resident"], x["rss"])
    check("%s: method" % what, ws["method"], "clear_refs")


def check_touched_line(path, bd):
    """watch --svg's touched line: a level per reading, as high as its touched
    bytes and as long as its interval (both to one scale; the first begins at
    the reset before the watch's start, drawn from 0), one piece."""
    text = open(path).read()
    shutil.rmtree(os.path.dirname(path))
    m = re.search(r'<path fill="none" stroke="#d81b60" stroke-width="2" d="([^"]*)"', text)
    check("watch --wss --svg: a touched line", m is not None, True)
    if m is None:
        return
    pts = [(c, float(x), float(y)) for c, x, y in
           re.findall(r"([ML])(-?[0-9.]+) (-?[0-9.]+)", m.group(1))]
    check("watch --wss --svg: one move, two points a reading",
          ([c for c, _, _ in pts].count("M"), len(pts)), (1, 2 * len(bd)))
    levels = [(pts[2 * i], pts[2 * i + 1]) for i in range(len(pts) // 2)]
    check("watch --wss --svg: each reading a level",
          [i for i, (a, b) in enumerate(levels) if a[2] != b[2] or b[1] <= a[1]], [])
    # The plot's bottom edge is y 400 (timeline.c's TL_Y1): height per byte,
    # width per ns, the same for every reading.
    ys = [(400 - a[2]) / x["working_set"]["touched"] for (a, _), x in zip(levels, bd)]
    xs = [(b[1] - a[1]) / x["working_set"]["since_reset_end_ns"]
          for (a, b), x in list(zip(levels, bd))[1:]]
    check("watch --wss --svg: heights to one scale (touched bytes)",
          max(ys) / min(ys) < 1.002, True)
    check("watch --wss --svg: lengths to one scale (each reading's interval)",
          max(xs) / min(xs) < 1.02, True)
    check("watch --wss --svg: the legend", ">touched since each reset<" in text, True)


def test_watch():
    t = Target()
    try:
        svg = os.path.join(tempfile.mkdtemp(prefix="pmaps-wss-"), "t.svg")
        p = subprocess.run([PMAPS, "watch", "--wss", "-i", "0.25", "-n", "6", "--jsonl",
                            "--svg", svg, t.pid], capture_output=True, text=True)
        check("watch --wss --jsonl --svg: exit status, the picture's line",
              (p.returncode, p.stderr.startswith("pmaps: wrote " + svg)), (0, True))
        lines = [json.loads(x) for x in p.stdout.splitlines()]
        bd = breakdowns(lines)
        check("watch --wss: breakdowns read", len(bd) >= 3, True)
        for x in bd:
            check_watch_sample(t, x, "watch --wss sample %d" % x["sample"])
        check("watch --wss: status samples have no working set",
              [x["sample"] for x in lines if "sample" in x and x["source"] == "status"
               and "working_set" in x], [])
        check("watch --wss: every breakdown from smaps",
              sorted({x["source"] for x in bd}), ["smaps"])
        # The first breakdown is due an interval after the first reset, not at once.
        check("watch --wss: the first reading spans an interval",
              bd[0]["working_set"]["since_reset_end_ns"] >= 0.25e9, True)
        s = lines[-1]["summary"]["working_set"]
        check("watch --wss: the summary counts every breakdown",
              (s["method"], s["breakdowns"], s["since_exec"]), ("clear_refs", len(bd), False))
        total = [c for c in s["categories"] if c["category"] == "total"][0]
        peak = max(x["working_set"]["touched"] for x in bd)
        check("watch --wss: the summary's peak is the largest reading", total["touched_peak"],
              peak)
        check("watch --wss: idle at the peak within resident",
              0 <= total["idle_at_peak"] <= total["resident_at_peak"], True)
        check_touched_line(svg, bd)

        p = subprocess.run([PMAPS, "watch", "--wss", "-i", "0.2", "-n", "5", "-b", t.pid],
                           capture_output=True, text=True)
        out = p.stdout.splitlines()
        check("watch --wss table: exit status", (p.returncode, p.stderr), (0, ""))
        head = [x for x in out if x.lstrip().startswith("time")]
        check("watch --wss table: a touched column", bool(head) and head[0].split()[3], "touched")
        lines = [x.split() for x in out if x[:10].strip().replace(".", "").isdigit()]
        rows = [x for x in lines if "smaps" in x]
        check("watch --wss table: breakdown lines", len(rows) >= 2, True)
        check("watch --wss table: each breakdown's touched holds W and R",
              [r[0] for r in rows if int(r[3]) < (PAGES["W"] + PAGES["R"]) * PAGE], [])
        check("watch --wss table: status lines' touched is -",
              {x[3] for x in lines if x[-1] == "status"}, {"-"})
        check("watch --wss table: the summary's working set",
              any(x.startswith("  working set over ") for x in out), True)

        # Without --wss nothing is reset or said.
        p = subprocess.run([PMAPS, "watch", "-i", "0.2", "-n", "3", "--jsonl", t.pid],
                           capture_output=True, text=True)
        check("watch without --wss: no working set", "working_set" in p.stdout, False)
    finally:
        t.stop()

    # A touch once, mid-interval: the breakdown after it has W and R, the next none
    # (each breakdown resets the bits again).
    t = Target.__new__(Target)
    t.p = subprocess.Popen([TARGET], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t.ranges = {}
    t.read_ranges()
    t.pid = str(t.p.pid)
    p = subprocess.Popen([PMAPS, "watch", "--wss", "-i", "0.4", "--jsonl", t.pid],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for line in p.stdout:
            x = json.loads(line)
            if "working_set" not in x:
                continue
            seen.append(largest(t, x["working_set"]))
            if len(seen) == 2:
                time.sleep(0.1)
                t.say("t")
                check("touch once: answered", t.p.stdout.readline(), "t\n")
            if len(seen) == 4:
                break
        check("touch once: four breakdowns read", len(seen), 4)
        seen += [{}] * (4 - len(seen))
        want = [(PAGES[g] * PAGE, 0) for g in ("W", "R")]
        check("touch once: W and R idle before it",
              [[s.get(g) for g in ("W", "R")] for s in seen[:2]], [want, want])
        check("touch once: the breakdown after it",
              [seen[2].get(g) for g in ("W", "R", "I")],
              [(PAGES["W"] * PAGE, PAGES["W"] * PAGE), (PAGES["R"] * PAGE, PAGES["R"] * PAGE),
               (PAGES["I"] * PAGE, 0)])
        check("touch once: the next breakdown: reset again, idle",
              [seen[3].get(g) for g in ("W", "R")], want)
    finally:
        p.kill()
        p.communicate()
        t.stop()

    # An exec while watched: followed, reset again, exact on the new program's mappings.
    t = Target()
    try:
        p = subprocess.Popen([PMAPS, "watch", "--wss", "-i", "0.2", "--jsonl", t.pid],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.9)
        t.say("exec " + TARGET)
        t.ranges = {}
        t.read_ranges()
        t.say("loop 10")
        time.sleep(1.2)
        t.stop()
        out, err = p.communicate()
        lines = [json.loads(x) for x in out.splitlines()]
        check("watch --wss exec: exit status", (p.returncode, err), (0, ""))
        ev = [i for i, x in enumerate(lines) if x.get("event") == "exec"]
        check("watch --wss exec: one exec line", len(ev), 1)
        after = breakdowns(lines[ev[0]:]) if ev else []
        check("watch --wss exec: breakdowns after it", len(after) >= 2, True)
        # Those after the exec that may span the new program's start (before its loop) aside.
        ready = settled(t, after)
        check("watch --wss exec: breakdowns after the new program was ready", len(ready) >= 1,
              True)
        for x in ready:
            check_watch_sample(t, x, "watch --wss after exec, sample %d" % x["sample"])
        s = lines[-1]["summary"]["working_set"]
        check("watch --wss exec: the summary's since the exec",
              (s["since_exec"], s["breakdowns"]), (True, len(after)))
    finally:
        t.stop()

    # run --wss: CMD started by pmaps, its lines to --output.
    out_path = "/tmp/pmaps-wss-run-%d.jsonl" % os.getpid()
    p = subprocess.Popen([PMAPS, "run", "--wss", "-i", "0.25", "-n", "8", "--jsonl", "-o",
                          out_path, "--", TARGET], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    t = Target.__new__(Target)
    t.p, t.ranges = p, {}
    try:
        t.read_ranges()
        t.say("loop 10")
        time.sleep(2.0)
        t.say("q")
        p.wait()
        with open(out_path) as f:
            lines = [json.loads(x) for x in f]
        check("run --wss: exit status", p.returncode, 0)
        bd = breakdowns(lines)
        check("run --wss: breakdowns", len(bd) >= 2, True)
        # Those that may span the command's start (it fills its pages, then says ready) aside.
        ready = settled(t, bd)
        check("run --wss: breakdowns after the command was ready", len(ready) >= 1, True)
        for x in ready:
            check_watch_sample(t, x, "run --wss sample %d" % x["sample"])
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        if os.path.exists(out_path):
            os.unlink(out_path)

    for args, text in ((["--wss", "--source", "pages", "1"], "not with --source pages"),
                       (["--wss=1", "1"], "takes no value")):
        p = subprocess.run([PMAPS, "watch"] + args, capture_output=True, text=True)
        check("watch %s: usage error in one line" % args,
              (p.returncode, len(p.stderr.splitlines()), text in p.stderr), (2, 1, True))
    p = subprocess.run([PMAPS, "watch", "--help"], capture_output=True, text=True)
    check("watch --help says --wss writes", "writes to the process" in p.stdout, True)


def svg_bands(path):
    """{data-start: (data-end, data-resident, data-touched)} of a picture's bands."""
    import re
    bands = {}
    if not os.path.exists(path):
        return "", bands
    text = open(path).read()
    for m in re.finditer(r'<g data-start="(0x[0-9a-f]+)" data-end="(0x[0-9a-f]+)"[^>]*?'
                         r' data-resident="(\d+)" data-touched="(\d+)">', text):
        bands[int(m.group(1), 16)] = (int(m.group(2), 16), int(m.group(3)), int(m.group(4)))
    return text, bands


def kernel_thread():
    """A kernel thread's pid (PF_KTHREAD in /proc/PID/stat's flags), or None."""
    for name in sorted(os.listdir("/proc"), key=lambda n: (len(n), n)):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        # Fields after the comm's closing parenthesis: state is the 3rd, flags the 9th.
        rest = stat[stat.rindex(")") + 2:].split()
        if int(rest[6]) & 0x00200000:
            return name
    return None


def test_watch_books():
    """watch --wss on a process with runtime books: the breakdown the books
    come with is a reading too, and no reading spans less than half an
    interval (the books' first breakdown came at once: 16 ms after the reset)."""
    if not GOTARGET:
        print("skipped: watch --wss with a Go program's books (no Go target built)")
        return
    env = dict(os.environ, GOTARGET_PPROF="1", GODEBUG="madvdontneed=1")
    g = subprocess.Popen([GOTARGET], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=env)
    try:
        while g.stdout.readline() not in ("ready\n", ""):
            pass
        p = subprocess.run([PMAPS, "watch", "--wss", "-i", "0.25", "-n", "6", "--jsonl",
                            str(g.pid)], capture_output=True, text=True)
        check("watch --wss, Go: exit status", (p.returncode, p.stderr), (0, ""))
        bd = breakdowns([json.loads(x) for x in p.stdout.splitlines()])
        check("watch --wss, Go: a breakdown with the runtime's books",
              any("runtime_books" in x for x in bd), True)
        check("watch --wss, Go: readings of less than half an interval (sample, ns)",
              [(x["sample"], x["working_set"]["since_reset_end_ns"]) for x in bd
               if x["working_set"]["since_reset_end_ns"] < 0.125e9], [])
    finally:
        g.stdin.close()
        g.wait()


def test_pages_svg():
    import re
    import tempfile
    d = tempfile.mkdtemp()
    path = os.path.join(d, "w.svg")
    t = Target()
    try:
        p = subprocess.run([PMAPS, "pages", t.pid, "--svg", path, "--wss", "500ms"],
                           capture_output=True, text=True)
        check("pages --svg --wss: exit status", (p.returncode, p.stdout), (0, ""))
        check("pages --svg --wss: the note says the working set",
              "working set: " in p.stderr and "per mapping" in p.stderr, True)
        m = re.search(r"touched in ([0-9.]+) (ms|s) ", p.stderr)
        took = float(m.group(1)) * (1 if m.group(2) == "ms" else 1000) if m else None
        check("pages --svg --wss: the note's interval is at least the wait (ms)",
              took is not None and took >= 500, True)
        text, bands = svg_bands(path)
        for tag, pages in PAGES.items():
            s, e = t.ranges[tag]
            want = (e, pages * PAGE, pages * PAGE if tag in ("W", "R") else 0)
            check("pages --svg --wss: band of %s (end, resident, touched)" % tag,
                  bands.get(s), want)
        legend = re.search(r'data-wss="touched" data-bytes="(\d+)"', text)
        check("pages --svg --wss: the legend's touched is the bands' sum",
              int(legend.group(1)) if legend else None, sum(b[2] for b in bands.values()))
        check("pages --svg --wss: the picture is wider", 'width="1430"' in text, True)
        check("pages --svg --wss: the subtitle names the method",
              "clear_refs" in text and "per mapping" in text, True)

        # Without --wss: no bars, the same width as before, nothing written.
        p = subprocess.run([PMAPS, "pages", t.pid, "--svg", path], capture_output=True,
                           text=True)
        text, bands = svg_bands(path)
        check("pages --svg: no working set", (p.returncode, bands, "data-wss" in text),
              (0, {}, False))

        # An exec during the wait: exit 1, no picture, what was there left as it was.
        with open(path, "w") as f:
            f.write("before")
        p = subprocess.Popen([PMAPS, "pages", t.pid, "--svg", path, "--wss", "3s"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        t.say("exec " + TARGET)
        t.read_ranges()
        out, err = p.communicate()
        check("pages --svg --wss, exec: exit status, one line",
              (p.returncode, len(err.splitlines()), "exec'd during the interval" in err),
              (1, 1, True))
        check("pages --svg --wss, exec: the file as it was", open(path).read(), "before")
        # A range that meets no mapping is said before the wait (a minute), not after.
        p = subprocess.run([PMAPS, "pages", t.pid, "[nope]", "--svg", path, "--wss", "60s"],
                           capture_output=True, text=True, timeout=30)
        check("pages --svg --wss, no such mapping: exit status, said",
              (p.returncode, "no mapping named '[nope]'" in p.stderr), (1, True))
        # A kernel thread: nothing to reset, the picture says so, as without --wss,
        # and no working set is said.
        kt = kernel_thread()
        if kt is None:
            print("skip: pages --svg --wss on a kernel thread: none seen in /proc")
        else:
            p = subprocess.run([PMAPS, "pages", kt, "--svg", path, "--wss", "10ms"],
                               capture_output=True, text=True)
            check("pages --svg --wss, kernel thread %s: exit status, no bars, no note" % kt,
                  (p.returncode, "data-wss" in open(path).read(), "working set" in p.stderr),
                  (0, False, False))
    finally:
        t.stop()
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        os.rmdir(d)

    for args, text in ((["1", "--wss", "1s"], "use it with --svg"),
                       (["1", "--svg", "-", "--wss", "0"], "from 1ms to 24h"),
                       (["1", "--svg", "-", "--wss", "25h"], "from 1ms to 24h")):
        p = subprocess.run([PMAPS, "pages"] + args, capture_output=True, text=True)
        check("pages %s: usage error in one line" % args,
              (p.returncode, len(p.stderr.splitlines()), text in p.stderr), (2, 1, True))
    p = subprocess.run([PMAPS, "pages", "--help"], capture_output=True, text=True)
    check("pages --help says --wss writes", "writes to the process" in p.stdout, True)


def test_usage():
    for args, code, text in ((["-i", "0", "1"], 2, "--interval"),
                             (["-i", "25h", "1"], 2, "24h"),
                             (["-n", "x", "1"], 2, "--count"),
                             ([], 2, "which process"),
                             (["1", "2"], 2, "one PID"),
                             (["-m", "--json", "1"], 2, "--mappings"),
                             (["999999999"], 1, "no such process")):
        rc, out, err = run(*args)
        check("usage %s: exit status" % args, rc, code)
        check("usage %s: one line naming it" % args,
              (len(err.splitlines()), text in err), (1, True))
    rc, out, err = run("--help")
    check("--help says it writes", (rc, "This command changes the process" in out), (0, True))
    # Another user's process: with CAP_SYS_PTRACE smaps can be read, clear_refs not
    # written; the message says which, once (it advised the capability the caller had).
    def can(caps):
        return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
                              + caps + ["true"], capture_output=True).returncode == 0
    ptrace = ["--inh-caps=+sys_ptrace", "--ambient-caps=+sys_ptrace"]
    if os.geteuid() == 0 and shutil.which("setpriv") and can([]) and can(ptrace):
        sl = subprocess.Popen(["sleep", "30"])
        try:
            for caps, want in (([], "smaps: permission denied: reading it takes the "
                                    "process's user, or root or CAP_SYS_PTRACE"),
                               (ptrace,
                                "clear_refs: permission denied: writing it takes root, or "
                                "the process's user while it is dumpable (CAP_SYS_PTRACE is "
                                "not enough)")):
                p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
                                   + caps + [PMAPS, "wss", "-i", "200ms", str(sl.pid)],
                                   capture_output=True, text=True)
                check("another user's process %s: exit 1, one line" % caps,
                      (p.returncode, p.stderr), (1, "pmaps: process %d: %s\n" % (sl.pid, want)))
        finally:
            sl.kill()
            sl.wait()
    else:
        print("skipped: another user's process (needs root, setpriv, and CAP_SYS_PTRACE "
              "to give)")


def main():
    test_usage()
    test_json()
    test_jsonl_csv_table()
    test_cut_short()
    test_explain()
    test_watch()
    test_watch_books()
    test_pages_svg()
    print("%d passed, %d failed" % (passed, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
