#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""svg.py - pmaps pages --svg, end to end: the picture of a fixture tree, of
layout's known pages (tests/live/layout.c), of hostile names and of ~60k
mappings (tests/live/svg_target.c), checked as XML (xmllint), as UTF-8, and
as pixels: rendered in headless chromium, the colour at the centre of the
pages the layout put somewhere must be their state's (src/pages_svg.c: page
p of P in a band at data-x, data-w covers [x + p*w/P, x + (p+1)*w/P)).
Then the options and errors: conflicts, unwritable paths, a range that meets
nothing, a gone process, '-' for standard output; what a failed run leaves
at the path (src/outfile.c): an old file byte for byte, a link still a link
and its target untouched, no new file; a merged band's shared column (K > 1)
in the colour of the mapping that covers most of it.

    svg.py PMAPS LAYOUT SVG_TARGET DATA_DIR

Exit 0 when every check passed, 1 otherwise, 77 when chromium, xmllint or
PIL is missing outside CI (svgcheck.require()). Failures print both sides.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgcheck  # noqa: E402
import zero_page  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
PAGE = os.sysconf("SC_PAGESIZE")
# The palette (src/svg.h) by state key (src/pages_svg.c).
COLOUR = {
    "absent": "#eeeeee", "anon": "#3b6fd4", "shared": "#8fd19e", "file": "#2e9e5b",
    "shmem": "#17a2b8", "huge": "#e67e22", "lazyfree": "#f1c40f", "zero": "#c8ccd0",
    "swapped": "#8e44ad",
}
ROOT = os.geteuid() == 0
MAX_SVG_BYTES = 5 << 20  # the stated bound for ~60k mappings

fails = 0
checks = 0


def check(ok, what, got=None, want=None):
    global fails, checks
    checks += 1
    if not ok:
        fails += 1
        if got is None and want is None:
            print("FAIL: %s" % what)
        else:
            print("FAIL: %s: got %r, want %r" % (what, got, want))
    return ok


def run(args, **kw):
    return subprocess.run([PMAPS] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=300, **kw)


class Picture:
    """A pages --svg document: its bands and legend, parsed."""

    def __init__(self, path):
        self.path = path
        self.raw = open(path, "rb").read()
        self.root = ET.fromstring(self.raw)
        self.width = float(self.root.get("width"))
        self.height = float(self.root.get("height"))
        self.bands = []
        self.legend = {}
        for g in self.root.iter(NS + "g"):
            if g.get("data-mappings") is not None:
                label = g.find(NS + "text")
                self.bands.append({
                    "start": int(g.get("data-start"), 16), "end": int(g.get("data-end"), 16),
                    "mappings": int(g.get("data-mappings")),
                    "x": float(g.get("data-x")), "y": float(g.get("data-y")),
                    "w": float(g.get("data-w")), "h": float(g.get("data-h")),
                    "label": label.text if label is not None else "",
                    "texts": [t.text for t in g.iter(NS + "text")],
                    "tip": g.findtext(NS + "title"),
                })
            elif g.get("data-state") is not None:
                p = g.get("data-pages")
                self.legend[g.get("data-state")] = int(p) if p is not None else None
        self.img = None

    def band(self, start):
        for b in self.bands:
            if b["start"] == start and b["mappings"] == 1:
                return b
        return None

    def render(self, png, height=None):
        h = int(self.height if height is None else min(height, self.height))
        self.img = svgcheck.render(self.path, png, int(self.width), h)
        return self.img

    def page_xy(self, band, page, pages):
        return (band["x"] + (page + 0.5) * band["w"] / pages, band["y"] + band["h"] / 2)

    def expect_pages(self, what, start, pages, states):
        """STATES: a list of PAGES state keys, or one key for all."""
        b = self.band(start)
        if not check(b is not None, "%s: a band of its own at 0x%x" % (what, start)):
            return
        check(b["end"] == start + pages * PAGE, "%s: data-end" % what, hex(b["end"]),
              hex(start + pages * PAGE))
        for p in range(pages):
            want = states if isinstance(states, str) else states[p]
            x, y = self.page_xy(b, p, pages)
            got = svgcheck.color_at(self.img, x, y)
            check(svgcheck.color_near(self.img, x, y, COLOUR[want]),
                  "%s page %d at (%d, %d): %s" % (what, p, x, y, want), got, COLOUR[want])


def one_error(err):
    """A failure's stderr: one line, besides notes (without root: that kpageflags needs it)."""
    lines = [l for l in err.decode().splitlines() if not l.startswith("pmaps: note: ")]
    return len(lines) == 1


def well_formed(path, what):
    ok, msg = svgcheck.xml_ok(path)
    check(ok, "%s: xmllint" % what, msg, "")
    raw = open(path, "rb").read()
    try:
        raw.decode("utf-8", "strict")
        check(True, "%s: UTF-8" % what)
    except UnicodeDecodeError as e:
        check(False, "%s: UTF-8" % what, str(e), "valid")
    bad = [c for c in set(raw) if c < 0x20 and c not in (0x0a,)]
    check(not bad, "%s: no control bytes" % what, bad, [])
    return ok


def summary_totals(args):
    r = run(["pages", "--summary", "--json"] + args)
    check(r.returncode == 0, "summary of %s" % args, r.stderr.decode(), "")
    doc = json.loads(r.stdout)
    tot = {}
    for m in doc["mappings"]:
        for k, v in m.items():
            if isinstance(v, int):
                tot[k] = tot.get(k, 0) + v
    return tot


def legend_matches_summary(pic, args, what):
    """The legend's counts and pages --summary's, summed over the mappings, agree."""
    tot = summary_totals(args)
    lg = pic.legend
    known = {k: v for k, v in lg.items() if v is not None}
    check(sum(known.values()) == tot["pages"] or any(v is None for v in lg.values()) and
          sum(known.values()) <= tot["pages"], "%s: every page in one state" % what,
          sum(known.values()), tot["pages"])
    present = sum(lg[k] or 0 for k in ("anon", "shared", "file", "shmem", "huge", "lazyfree"))
    check(present == tot["resident"], "%s: present states = resident" % what, present,
          tot["resident"])
    check(lg["swapped"] == tot["swapped"], "%s: swapped" % what, lg["swapped"], tot["swapped"])
    if lg["zero"] is not None:
        check(lg["zero"] == tot.get("zero"), "%s: zero" % what, lg["zero"], tot.get("zero"))
    if lg["lazyfree"] is not None:
        check(lg["lazyfree"] == tot.get("lazyfree"), "%s: lazyfree" % what, lg["lazyfree"],
              tot.get("lazyfree"))


def test_fixture(tmp):
    """A synthetic pagemap with kpageflags (tests/data/pages): every value known."""
    out = os.path.join(tmp, "fixture.svg")
    args = ["--proc-root", os.path.join(DATA, "pages/proc"), "300"]
    r = run(["pages"] + args + ["--svg", out])
    check(r.returncode == 0, "fixture: exit", r.returncode, 0)
    check(r.stdout == b"", "fixture: nothing on stdout", r.stdout, b"")
    # One line says what was written: the fixture's 3 mappings, 28 pages, 16 of them resident.
    said = re.fullmatch(rb"pmaps: wrote (.*) \(([0-9.]+[BKM]?)\): (.*)\n", r.stderr)
    want = (b"process 300's pages: 3 mappings, 112K mapped, 64K resident; "
            b"read with pagemap and kpageflags")
    check(said is not None and said.group(1) == out.encode() and said.group(3) == want,
          "fixture: the line saying what was written", r.stderr,
          b"pmaps: wrote " + out.encode() + b" (SIZE): " + want)
    rq = run(["pages"] + args + ["--svg", out, "-q"])
    check(rq.returncode == 0 and rq.stderr == b"", "fixture: -q says nothing",
          (rq.returncode, rq.stderr), (0, b""))
    well_formed(out, "fixture")
    pic = Picture(out)
    check([(b["start"], b["end"], b["mappings"]) for b in pic.bands] ==
          [(0x400000, 0x410000, 1), (0x600000, 0x608000, 1), (0x1000000, 0x1004000, 1)],
          "fixture: one band per mapping, in address order",
          [(hex(b["start"]), hex(b["end"]), b["mappings"]) for b in pic.bands])
    check([b["y"] for b in pic.bands] == [90, 104, 118], "fixture: band rows",
          [b["y"] for b in pic.bands], [90, 104, 118])
    check(pic.height == 90 + 3 * 14 + 8, "fixture: height", pic.height, 140)
    check(pic.bands and pic.bands[0]["label"] == "000000400000 64K r-xp /usr/bin/prog",
          "fixture: label", pic.bands and pic.bands[0]["label"], "000000400000 64K r-xp /usr/bin/prog")
    check(pic.bands[1]["texts"][1:] == ["gap 1.9M"], "fixture: the gap before [heap]",
          pic.bands[1]["texts"][1:], ["gap 1.9M"])
    check(pic.bands[0]["texts"][1:] == [], "fixture: no gap before the first band",
          pic.bands[0]["texts"][1:], [])
    tip = ("[heap] 0x600000-0x608000, pages: 2 not present, 2 anon, 1 anon mapped 2+ times, "
           "1 lazily freed, 2 swapped; a page mapped 2 times")
    check(pic.bands[1]["tip"] == tip, "fixture: [heap]'s tooltip", pic.bands[1]["tip"], tip)
    want = {"absent": 10, "anon": 4, "shared": 1, "file": 10, "shmem": 0, "huge": None,
            "lazyfree": 1, "swapped": 2}
    for k, v in want.items():
        check(pic.legend.get(k) == v, "fixture: legend %s" % k, pic.legend.get(k), v)
    check(pic.legend.get("zero") in (0, None), "fixture: legend zero", pic.legend.get("zero"),
          "0 or unknown")
    legend_matches_summary(pic, args, "fixture")
    pic.render(os.path.join(tmp, "fixture.png"))
    check(svgcheck.not_blank(pic.img), "fixture: rendered, not blank")
    pic.expect_pages("/usr/bin/prog", 0x400000, 16, ["file"] * 10 + ["absent"] * 6)
    pic.expect_pages("[heap]", 0x600000, 8,
                     ["anon", "lazyfree", "swapped", "swapped", "shared", "anon", "absent", "absent"])
    pic.expect_pages("anon", 0x1000000, 4, ["absent", "absent", "anon", "anon"])
    # The legend's swatches render in their colours too.
    check(svgcheck.color_near(pic.img, 8 + 6, 52 - 4, COLOUR["absent"]), "fixture: first swatch",
          svgcheck.color_at(pic.img, 14, 48), COLOUR["absent"])


def start(argv):
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    regions = {}
    for line in p.stdout:
        w = line.decode().split()
        if w == ["ready"]:
            return p, regions
        if len(w) == 3:
            regions[w[0]] = (int(w[1], 16), int(w[2], 16))
    raise RuntimeError("%s did not get ready (exit %s)" % (argv, p.wait()))


def stop(p):
    p.stdin.close()
    p.wait(timeout=30)


def test_layout(tmp):
    zp = zero_page.zero_page_mapped()
    p, reg = start([LAYOUT, "0"])
    pid = str(p.pid)
    try:
        out = os.path.join(tmp, "layout.svg")
        r = run(["pages", pid, "--svg", out])
        check(r.returncode == 0, "layout: exit", (r.returncode, r.stderr.decode()), 0)
        well_formed(out, "layout")
        pic = Picture(out)
        maps = open("/proc/%s/maps" % pid).read().splitlines()
        check(sum(b["mappings"] for b in pic.bands) == len(maps), "layout: a band per mapping",
              sum(b["mappings"] for b in pic.bands), len(maps))
        check(len(pic.bands) == len(maps), "layout: no merged band", len(pic.bands), len(maps))
        legend_matches_summary(pic, [pid], "layout")
        pic.render(os.path.join(tmp, "layout.png"))
        pages = lambda n: (reg[n][1] - reg[n][0]) // PAGE  # noqa: E731
        pic.expect_pages("touched3", reg["touched3"][0], 64,
                         ["anon" if i % 3 == 0 else "absent" for i in range(64)])
        pic.expect_pages("lazyfree", reg["lazyfree"][0], 32,
                         ["anon"] * 16 + ["lazyfree" if ROOT else "anon"] * 16)
        pic.expect_pages("dontneed", reg["dontneed"][0], 16, ["anon"] * 8 + ["absent"] * 8)
        pic.expect_pages("file", reg["file"][0], 16, "file")
        pic.expect_pages("memfd", reg["memfd"][0], 8, ["shmem"] * 4 + ["absent"] * 4)
        # Read, never written: the zero page where the reader tells it; private
        # pages, anon, where the kernel maps no zero page (tests/cli/zero_page.py).
        pic.expect_pages("zero", reg["zero"][0], 8,
                         "zero" if zp and pic.legend["zero"] is not None else "anon")
        pic.expect_pages("shared", reg["shared"][0], 8, "shmem")
        pic.expect_pages("mlocked", reg["mlocked"][0], 4, "anon")
        pic.expect_pages("filepart", reg["filepart"][0], 16,
                         ["file" if i % 5 == 0 else "absent" for i in range(16)])
        # THP where the kernel granted it (pages --summary says), else 4 KiB pages.
        thp = summary_totals([pid, "%x-%x" % reg["thp"]]).get("huge")
        pic.expect_pages("thp", reg["thp"][0], pages("thp"),
                         "huge" if thp == pages("thp") else "anon")
        print("layout: %d mappings, %d bytes; thp %s" % (len(maps), len(pic.raw),
              "granted" if thp == pages("thp") else "not granted: checked as anon"))

        # Standard output: the same document.
        # (but for how many mappings share a libc page: other processes come and go)
        r2 = run(["pages", pid, "--svg", "-"])
        same = lambda b: re.sub(rb"; a page mapped \d+ times", b"", b)  # noqa: E731
        check(r2.returncode == 0 and same(r2.stdout) == same(pic.raw),
              "layout: --svg - writes the same document", (r2.returncode, len(r2.stdout)),
              (0, len(pic.raw)))
        check(b"wrote" not in r2.stderr, "layout: --svg - (standard output) says nothing of it",
              r2.stderr, b"")

        # A RANGE and a MAPPING: their bands only.
        a, e = reg["touched3"]
        out = os.path.join(tmp, "range.svg")
        r = run(["pages", pid, "%x+%d" % (a, 16 * PAGE), "--svg", out])
        check(r.returncode == 0, "range: exit", (r.returncode, r.stderr.decode()), 0)
        rp = Picture(out)
        check([(b["start"], b["end"]) for b in rp.bands] == [(a, a + 16 * PAGE)],
              "range: one band, the range", [(hex(b["start"]), hex(b["end"])) for b in rp.bands],
              [(hex(a), hex(a + 16 * PAGE))])
        rp.render(os.path.join(tmp, "range.png"))
        rp.expect_pages("range of touched3", a, 16,
                        ["anon" if i % 3 == 0 else "absent" for i in range(16)])
        out = os.path.join(tmp, "stack.svg")
        r = run(["pages", pid, "[stack]", "--svg", out])
        check(r.returncode == 0 and len(Picture(out).bands) == 1, "MAPPING [stack]: one band",
              (r.returncode, r.stderr.decode()), 0)

        # The other reader, gently: the same picture of what both see.
        out = os.path.join(tmp, "pagemap.svg")
        r = run(["pages", pid, "--strategy", "pagemap", "--gentle", "--svg", out])
        check(r.returncode == 0, "pagemap: exit", (r.returncode, r.stderr.decode()), 0)
        well_formed(out, "pagemap")
        pp = Picture(out)
        check(pp.legend["huge"] is None, "pagemap: huge unknown", pp.legend["huge"], None)
        pp.render(os.path.join(tmp, "pagemap.png"))
        pp.expect_pages("pagemap touched3", reg["touched3"][0], 64,
                        ["anon" if i % 3 == 0 else "absent" for i in range(64)])
        pp.expect_pages("pagemap file", reg["file"][0], 16, "file")

        # A range that meets no mapping: exit 1, and the old file there as it was.
        out = os.path.join(tmp, "none.svg")
        with open(out, "w") as f:
            f.write("old")
        r = run(["pages", pid, "10000+4K", "--svg", out])
        check(r.returncode == 1, "no mapping: exit", r.returncode, 1)
        check(one_error(r.stderr), "no mapping: one line", r.stderr.decode(), 1)
        check(open(out, "rb").read() == b"old", "no mapping: the old file survives",
              open(out, "rb").read(), b"old")
        os.unlink(out)
    finally:
        stop(p)
    # Gone: the process cannot be opened, no file is made.
    out = os.path.join(tmp, "gone.svg")
    r = run(["pages", pid, "--svg", out])
    check(r.returncode == 1, "gone: exit", r.returncode, 1)
    check(one_error(r.stderr), "gone: one line", r.stderr.decode(), 1)
    check(not os.path.exists(out), "gone: no file", os.path.exists(out), False)


def test_errors(tmp):
    fx = ["--proc-root", os.path.join(DATA, "pages/proc"), "300"]
    out = os.path.join(tmp, "e.svg")
    for args in (["--svg", out, "--json"], ["--json", "--svg", out], ["--svg", out, "--jsonl"],
                 ["--svg", out, "--csv"], ["--svg", out, "--summary"], ["-s", "--svg", out],
                 ["--svg", out, "--pfn"], ["--svg", out, "--svg", out + "2"], ["--svg", ""],
                 ["--svg"]):
        r = run(["pages"] + args + fx if args != ["--svg"] else ["pages"] + fx + args)
        check(r.returncode == 2, "usage %s: exit" % args, r.returncode, 2)
        check(one_error(r.stderr), "usage %s: one line" % args,
              r.stderr.decode(), "one line")
        check(not os.path.exists(out), "usage %s: no file" % args, os.path.exists(out), False)
    for path in ("/nonexistent-pmaps-dir/x.svg", tmp):
        r = run(["pages"] + fx + ["--svg", path])
        check(r.returncode == 1, "unwritable %s: exit" % path, r.returncode, 1)
        err = r.stderr.decode()
        check(len(err.splitlines()) == 1 and path in err, "unwritable %s: one line naming it" % path,
              err, path)
    # A range that meets nothing, in a fixture: no file is made.
    r = run(["pages"] + fx + ["800000+4K", "--svg", out])
    check(r.returncode == 1 and not os.path.exists(out), "fixture gap: exit 1, no file",
          (r.returncode, os.path.exists(out)), (1, False))
    test_kept(tmp, fx)


def snapshot(d):
    """D's entries: name -> ('link', target) or ('file', bytes, mode)."""
    snap = {}
    for n in os.listdir(d):
        p = os.path.join(d, n)
        if os.path.islink(p):
            snap[n] = ("link", os.readlink(p))
        elif os.path.isfile(p):
            snap[n] = ("file", open(p, "rb").read(), os.stat(p).st_mode)
    return snap


def test_kept(tmp, fx):
    """What a failed --svg leaves at its path: exactly what was there (src/outfile.c)."""
    d = os.path.join(tmp, "kept")
    os.mkdir(d)
    old = b"precious \x00\xff bytes\n" * 100
    keep = os.path.join(d, "keep.svg")
    target = os.path.join(d, "precious.txt")
    link = os.path.join(d, "link.svg")
    with open(keep, "wb") as f:
        f.write(old)
    os.chmod(keep, 0o640)
    with open(target, "wb") as f:
        f.write(old)
    os.symlink(target, link)
    before = snapshot(d)
    for path in (keep, link):
        for args, what in ((fx + ["800000+4K"], "a range that meets nothing"),
                           (["--proc-root", os.path.join(tmp, "no-such-root"), "300"],
                            "no proc root"),
                           (["--proc-root", os.path.join(DATA, "pages/proc"), "301"],
                            "no such process")):
            r = run(["pages"] + args + ["--svg", path])
            check(r.returncode == 1, "%s, %s: exit" % (os.path.basename(path), what),
                  (r.returncode, r.stderr.decode()), 1)
            check(one_error(r.stderr), "%s, %s: one line" % (os.path.basename(path), what),
                  r.stderr.decode(), "one line")
            after = snapshot(d)
            check(after == before, "%s, %s: the directory as it was, byte for byte" %
                  (os.path.basename(path), what), sorted(after), sorted(before))
    # Success through the link: its target gets the picture, the link stays a link.
    r = run(["pages"] + fx + ["--svg", link])
    check(r.returncode == 0, "through a link: exit", (r.returncode, r.stderr.decode()), 0)
    check(os.path.islink(link) and os.readlink(link) == target,
          "through a link: still a link to its target", os.path.islink(link), True)
    well_formed(target, "through a link")
    check(open(keep, "rb").read() == old, "through a link: the other file untouched")
    check(sorted(os.listdir(d)) == ["keep.svg", "link.svg", "precious.txt"],
          "through a link: no other file", sorted(os.listdir(d)),
          ["keep.svg", "link.svg", "precious.txt"])
    # Success over a file: replaced whole, its mode kept, nothing else left.
    r = run(["pages"] + fx + ["--svg", keep])
    check(r.returncode == 0, "over a file: exit", (r.returncode, r.stderr.decode()), 0)
    well_formed(keep, "over a file")
    check(open(keep, "rb").read() == open(target, "rb").read(), "over a file: the same picture")
    check(os.stat(keep).st_mode & 0o777 == 0o640, "over a file: its mode kept",
          oct(os.stat(keep).st_mode & 0o777), "0o640")
    check(sorted(os.listdir(d)) == ["keep.svg", "link.svg", "precious.txt"],
          "over a file: no other file", sorted(os.listdir(d)),
          ["keep.svg", "link.svg", "precious.txt"])
    # /dev/stdout (a link to the output, here a file): never removed, never
    # truncated by a failure; a success writes the picture there.
    out = os.path.join(d, "stdout.txt")
    for args, rc in ((fx + ["800000+4K"], 1), (fx, 0)):
        with open(out, "wb") as f:
            f.write(old)
        with open(out, "r+b") as f:
            r = subprocess.run([PMAPS, "pages"] + args + ["--svg", "/dev/stdout"], stdout=f,
                               stderr=subprocess.PIPE, timeout=60)
        check(r.returncode == rc, "/dev/stdout, exit %d: exit" % rc,
              (r.returncode, r.stderr.decode()), rc)
        check(os.path.islink("/dev/stdout"), "/dev/stdout, exit %d: still a link" % rc)
        got = open(out, "rb").read()
        if rc:
            check(got == old, "/dev/stdout, failed: the output untouched", len(got), len(old))
        else:
            check(got == open(target, "rb").read(), "/dev/stdout: the picture, nothing else",
                  len(got), len(open(target, "rb").read()))
    # A device that cannot take it: the reason, exit 1, the device still there.
    if os.access("/dev/full", os.W_OK):
        r = run(["pages"] + fx + ["--svg", "/dev/full"])
        err = r.stderr.decode()
        check(r.returncode == 1 and one_error(r.stderr) and
              err.rstrip().endswith("writing the picture: No space left on device"),
              "/dev/full: exit 1, one line with the reason", (r.returncode, err),
              (1, "...: writing the picture: No space left on device"))
        check(os.path.exists("/dev/full") and not os.path.islink("/dev/full"),
              "/dev/full: still there")
    # A FIFO nobody reads fails at once, before the walk.
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    r = run(["pages"] + fx + ["--svg", fifo])
    check(r.returncode == 1 and one_error(r.stderr) and fifo in r.stderr.decode(),
          "a FIFO nobody reads: exit 1, one line naming it", (r.returncode, r.stderr.decode()),
          (1, fifo))


def merged_fixture(tmp):
    """
    A proc tree of 2400 mappings: K = 3 a band, each of the band's three
    mappings 800/3 columns wide, so column 266 is shared: 2/3 of it belong
    to the band's first mapping (1 page, present: anon), 1/3 to the second
    (1000 pages, none present). The next bands are 1-page mappings, absent.
    """
    root = os.path.join(tmp, "merged/proc")
    os.makedirs(os.path.join(root, "300"))
    maps = [(0x100000, 1), (0x102000, 1000)]
    a = 0x500000
    while len(maps) < 2400:
        maps.append((a, 1))
        a += 2 * PAGE
    with open(os.path.join(root, "300/maps"), "w") as f:
        for start, pages in maps:
            f.write("%08x-%08x rw-p 00000000 00:00 0 \n" % (start, start + pages * PAGE))
    pm = bytearray((a // PAGE) * 8)
    entry = (1 << 63) | 0x1234  # present, PFN 0x1234: anon (no file bit)
    pm[(0x100000 // PAGE) * 8:(0x100000 // PAGE) * 8 + 8] = entry.to_bytes(8, "little")
    with open(os.path.join(root, "300/pagemap"), "wb") as f:
        f.write(pm)
    return root


def column_fill(g, x):
    """The fill of the rectangle of band G's paths that covers x (its centre)."""
    hit = []
    for path in g.iter(NS + "path"):
        for m in re.finditer(r"M([\d.]+) ([\d.]+)h([\d.]+)v", path.get("d") or ""):
            x0, w = float(m.group(1)), float(m.group(3))
            if x0 <= x < x0 + w:
                hit.append(path.get("fill"))
    return hit


def test_merged(tmp):
    """K > 1: a shared column takes the state of the mapping covering most of it."""
    root = merged_fixture(tmp)
    out = os.path.join(tmp, "merged.svg")
    r = run(["pages", "--proc-root", root, "300", "--svg", out])
    check(r.returncode == 0, "merged: exit", (r.returncode, r.stderr.decode()), 0)
    well_formed(out, "merged")
    doc = ET.fromstring(open(out, "rb").read())
    bands = [g for g in doc.iter(NS + "g") if g.get("data-mappings") is not None]
    check(len(bands) == 800, "merged: 2400 mappings in bands of 3", len(bands), 800)
    check(bands and bands[0].get("data-mappings") == "3", "merged: the first band has 3",
          bands and bands[0].get("data-mappings"), "3")
    x0 = float(bands[0].get("data-x"))
    # 265: all the 1-page mapping's; 266: 2/3 of it; 267: all the 1000-page one's.
    for col, want in ((0, "anon"), (265, "anon"), (266, "anon"), (267, "absent"),
                      (532, "absent"), (533, "absent"), (799, "absent")):
        got = column_fill(bands[0], x0 + col + 0.5)
        check(got == [COLOUR[want]], "merged: band 0, column %d: %s" % (col, want), got,
              [COLOUR[want]])
    legend = {g.get("data-state"): g.get("data-pages") for g in doc.iter(NS + "g")
              if g.get("data-state") is not None}
    check(legend.get("anon") == "1", "merged: legend anon", legend.get("anon"), "1")
    check(legend.get("absent") == str(2400 - 1 + 999), "merged: legend absent",
          legend.get("absent"), str(2400 - 1 + 999))


def test_hostile(tmp):
    d = os.path.join(tmp, "names")
    os.mkdir(d)
    p, reg = start([TARGET, "hostile", d])
    try:
        out = os.path.join(tmp, "hostile.svg")
        r = run(["pages", str(p.pid), "--svg", out])
        check(r.returncode == 0, "hostile: exit", (r.returncode, r.stderr.decode()), 0)
        if not well_formed(out, "hostile"):
            return
        pic = Picture(out)
        h = pic.band(reg["hostile"][0])
        want = "h<&'\"\\x01\\x1b[31m\\xff\\xfe\\x0a]>"
        check(h is not None and h["label"].endswith(want), "hostile: the name shown escaped",
              h and h["label"], "... " + want)
        check(b"h&lt;&amp;&apos;&quot;\\x01\\x1b[31m\\xff\\xfe\\x0a]&gt;" in pic.raw,
              "hostile: entities and \\xHH in the file")
        title = "pmaps pages %d (t<&\\x01\\xff)" % p.pid
        check(pic.root.findtext(NS + "title") == title, "hostile: the command name in the title",
              pic.root.findtext(NS + "title"), title)
        m = pic.band(reg["memfd"][0])
        check(m is not None and m["label"].endswith("/memfd:m<&\\x01\\xff (deleted)"),
              "memfd: the name shown escaped", m and m["label"], "/memfd:m<&\\x01\\xff (deleted)")
        lg = pic.band(reg["long"][0])
        check(lg is not None and lg["label"].endswith("\u2026" + "L" * 33 + "-tail-end!") and
              lg["tip"] and ("/" + "L" * 190 + "-tail-end!" + " 0x%x-0x%x, pages: 4 file"
                             % reg["long"]) in lg["tip"],
              "long: the label ends with the name's end, the tooltip holds it all",
              lg and (lg["label"], lg["tip"]), "...L*33-tail-end!")
        dp = pic.band(reg["deep"][0])
        tip = dp and dp["tip"] or ""
        cut = tip.split(" 0x")[0]
        check(cut.endswith("\u00e9\u2026") and "\\x" not in tip and
              len(cut[:-1].encode()) <= 1024 and len(cut[:-1].encode()) >= 1023,
              "deep: the tooltip's name cut at 1024 bytes, between characters, marked",
              (len(cut.encode()), tip[-80:]), "1023-1024 bytes + an ellipsis")
        pic.render(os.path.join(tmp, "hostile.png"))
        check(svgcheck.not_blank(pic.img), "hostile: rendered, not blank")
        pic.expect_pages("hostile", reg["hostile"][0], 4, "file")
        pic.expect_pages("memfd", reg["memfd"][0], 8, "shmem")
        pic.expect_pages("long", reg["long"][0], 4, "file")
    finally:
        stop(p)


def test_many(tmp):
    n = int(os.environ.get("PMAPS_SVG_MAPPINGS", "60000"))
    p, reg = start([TARGET, "many", str(n)])
    try:
        pid = str(p.pid)
        out = os.path.join(tmp, "many.svg")
        t0 = time.monotonic()
        r = run(["pages", pid, "--svg", out])
        secs = time.monotonic() - t0
        check(r.returncode == 0, "many: exit", (r.returncode, r.stderr.decode()), 0)
        maps = len(open("/proc/%s/maps" % pid).read().splitlines())
        size = os.path.getsize(out)
        print("many: %d mappings: %d bytes (%.2f MB) in %.2f s" % (maps, size, size / 1e6, secs))
        check(size < MAX_SVG_BYTES, "many: under 5 MiB", size, MAX_SVG_BYTES)
        well_formed(out, "many")
        pic = Picture(out)
        check(len(pic.bands) <= 1000, "many: at most 1000 bands", len(pic.bands), 1000)
        check(sum(b["mappings"] for b in pic.bands) == maps, "many: every mapping in a band",
              sum(b["mappings"] for b in pic.bands), maps)
        k = pic.bands[0]["mappings"]
        check(k == -(-maps // 1000), "many: K = ceil(N / 1000)", k, -(-maps // 1000))
        check(all(b["label"].endswith(" in %d mappings" % b["mappings"])
                  for b in pic.bands if b["mappings"] > 1), "many: merged bands say so")
        legend_matches_summary(pic, [pid], "many")
        t0 = time.monotonic()
        pic.render(os.path.join(tmp, "many.png"))
        print("many: rendered %dx%d in %.2f s" % (pic.width, pic.height, time.monotonic() - t0))
        check(svgcheck.not_blank(pic.img), "many: rendered, not blank")
        # The 4-page read-write mappings, i % 5 pages written: anon and not present both show.
        check(svgcheck.count_near(pic.img, COLOUR["anon"]) > 10000, "many: anon pixels",
              svgcheck.count_near(pic.img, COLOUR["anon"]), "> 10000")
        check(svgcheck.count_near(pic.img, COLOUR["absent"]) > 10000, "many: not-present pixels",
              svgcheck.count_near(pic.img, COLOUR["absent"]), "> 10000")
        # Merged bands inside the region: mapping j of a band of K at x + j*w/K, its 4 pages
        # each w/(4K) wide; chunk i of the region is PROT_NONE (i even) or has (i//2) % 5
        # of its 4 pages written.
        r0, r1 = reg["many"]
        inside = [b for b in pic.bands if b["start"] >= r0 and b["end"] <= r1 and b["mappings"] == k]
        check(len(inside) > 100, "many: bands inside the region", len(inside), "> 100")
        for b in inside[:: max(1, len(inside) // 8)]:
            for j in range(k):
                ci = (b["start"] - r0) // (4 * PAGE) + j
                touched = 0 if ci % 2 == 0 else min((ci // 2) % 5, 4)
                for q in range(4):
                    x = b["x"] + j * b["w"] / k + (q + 0.5) * b["w"] / (4 * k)
                    y = b["y"] + b["h"] / 2
                    want = "anon" if q < touched else "absent"
                    check(svgcheck.color_near(pic.img, x, y, COLOUR[want]),
                          "many: band 0x%x mapping %d page %d at (%.1f, %d): %s"
                          % (b["start"], j, q, x, y, want), svgcheck.color_at(pic.img, x, y),
                          COLOUR[want])
        last = pic.bands[-1]
        x, y = last["x"] + 1, last["y"] + last["h"] / 2
        check(svgcheck.color_near(pic.img, x, y, COLOUR["anon"]) or
              svgcheck.color_near(pic.img, x, y, COLOUR["absent"]), "many: the last band rendered",
              svgcheck.color_at(pic.img, x, y), "anon or absent")
    finally:
        stop(p)


def test_exit(tmp):
    """A target killed mid-walk: exit 1 and no file, or (the walk won) a whole picture."""
    outcomes = {0: 0, 1: 0}
    msgs = []
    for i, delay in enumerate((0.01, 0.03, 0.06, 0.1)):
        p, reg = start([TARGET, "many", "60000"])
        out = os.path.join(tmp, "exit%d.svg" % i)
        w = subprocess.Popen([PMAPS, "pages", str(p.pid), "--gentle", "--svg", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        p.kill()
        _, err = w.communicate(timeout=120)
        p.wait()
        p.stdin.close()
        if w.returncode == 0:
            outcomes[0] += 1
            well_formed(out, "exit %d: the walk ended first" % i)
        else:
            outcomes[1] += 1
            check(w.returncode == 1, "exit %d: exit" % i, w.returncode, 1)
            check(one_error(err), "exit %d: one line" % i, err.decode(), 1)
            check(not os.path.exists(out), "exit %d: no file left" % i, os.path.exists(out), False)
            msgs.append(err.decode().strip().splitlines()[-1])
    print("exit mid-walk: %d failed as they should, %d finished first" % (outcomes[1], outcomes[0]))
    for m in msgs:
        print("  " + m)
    # Killed before the walk began, the process is a zombie when opened: also right, but
    # not what this test is for.
    check(any("while it was read" in m for m in msgs), "exit: at least one walk was cut short",
          msgs, "... exited while it was read")


def test_kthread(tmp):
    """A kernel thread: a picture with no band, exit 0 (as pages gives an empty table)."""
    try:
        comm = open("/proc/2/comm").read().strip()
    except OSError:
        comm = ""
    if comm != "kthreadd":
        print("kthread: pid 2 is no kthreadd here: not checked")
        return
    out = os.path.join(tmp, "kthread.svg")
    r = run(["pages", "2", "--svg", out])
    check(r.returncode == 0, "kthread: exit", (r.returncode, r.stderr.decode()), 0)
    well_formed(out, "kthread")
    pic = Picture(out)
    check(pic.bands == [] and all(v == 0 for v in pic.legend.values()),
          "kthread: no band, every count 0", (len(pic.bands), pic.legend), (0, "all 0"))


def main():
    global PMAPS, LAYOUT, TARGET, DATA
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    PMAPS, LAYOUT, TARGET, DATA = sys.argv[1:5]
    svgcheck.require()
    only = os.environ.get("PMAPS_SVG_TESTS",
                          "fixture,errors,merged,layout,hostile,many,exit,kthread").split(",")
    with tempfile.TemporaryDirectory(prefix="pmaps-svg.") as tmp:
        for name in only:
            try:
                globals()["test_" + name](tmp)
            except (svgcheck.SvgCheckError, OSError, RuntimeError, ET.ParseError,
                    subprocess.TimeoutExpired) as e:
                check(False, "%s: %s: %s" % (name, type(e).__name__, e))
    print("%d checks, %d failed" % (checks, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
