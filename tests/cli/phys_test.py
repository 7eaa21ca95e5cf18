#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""phys_test.py - pmaps phys, the tool, against what this test computes itself.

  1. exact: a snapshot of /proc/kpageflags, kpagecount and iomem copied into a
     temporary proc root; pmaps phys --json on it against every state and flag
     this script counts over the same bytes with the documented precedence
     (its own code: nothing of the library is called);
  2. a hand-made tree (one frame of each state, written here with the state
     each must get next to it): the JSON exactly, the table's lines, and the
     SVG, whose cells of known blocks must have their states' colours when
     headless chromium renders it (tests/cli/svgcheck.py);
  3. live: total_pages is the length of /proc/kpageflags / 8 read here, the
     states add up to it exactly, bytes are pages times the page size, and the
     SVG of the whole machine is well-formed XML that renders; and against an
     independent source, /proc/meminfo and /proc/zoneinfo read before and
     after: free vs MemFree (less the per-CPU lists), slab vs Slab, pgtable vs
     PageTables, hugetlb vs Hugetlb, within the tolerances stated there;
  4. pictures of cells of several blocks: a cell takes the state most of its
     frames are in (not the one most of its blocks won);
  5. bad input: one line on stderr, nothing on stdout, exit 2 for usage, 1 for
     failures; an unwritable --svg fails before anything is read, and a failed
     reading leaves the --svg path as it was (no file made, none emptied);
     --svg - is standard output; not root (setpriv to nobody) names the fix;
  6. --cgroups: a hand-made tree with kpagecgroup and a cgroup directory tree
     (a newline in a name, a symlink that must not be followed), whose
     directories' inode numbers this test reads with os.stat to write
     kpagecgroup: the JSON and the table exactly per cgroup path; as root, a
     snapshot of /proc/kpagecgroup against this test's own per-inode sums,
     and the live paths are directories with those inode numbers.
Parts that need root print why they are skipped when not root; in CI (CI set)
not being root is a failure.

  python3 tests/cli/phys_test.py PMAPS
"""
import array
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

PMAPS = os.path.abspath(sys.argv[1])
PAGE = os.sysconf("SC_PAGE_SIZE")
CI = os.environ.get("CI", "") not in ("", "false", "0")

STATES = ["hole", "hwpoison", "offline", "zero", "reserved", "free", "hugetlb", "slab",
          "pgtable", "lazyfree", "anon_thp", "anon", "swapcache", "shmem", "file_thp",
          "file_mapped", "file", "kernel", "uninit"]
FLAGS = ["mlocked", "unevictable", "dirty", "writeback", "referenced", "active", "idle", "ksm",
         "swapcache", "mmap", "mapped", "shared"]
COLOURS = {"hole": "#d9d2e9", "hugetlb": "#a04000", "anon": "#3b6fd4", "slab": "#7f8c8d"}


def B(n):
    return 1 << n


REFERENCED, UPTODATE, DIRTY, LRU, ACTIVE, SLAB, WRITEBACK = B(2), B(3), B(4), B(5), B(6), B(7), B(8)
BUDDY, MMAP, ANON, SWAPCACHE, SWAPBACKED, HEAD, TAIL = B(10), B(11), B(12), B(13), B(14), B(15), B(16)
HUGE, UNEVICTABLE, HWPOISON, NOPAGE, KSM, THP, OFFLINE = B(17), B(18), B(19), B(20), B(21), B(22), B(23)
ZERO, IDLE, PGTABLE, RESERVED, MLOCKED, PRIVATE = B(24), B(25), B(26), B(32), B(33), B(35)
FLAG_BITS = {"mlocked": MLOCKED, "unevictable": UNEVICTABLE, "dirty": DIRTY,
             "writeback": WRITEBACK, "referenced": REFERENCED, "active": ACTIVE, "idle": IDLE,
             "swapcache": SWAPCACHE, "mmap": MMAP}

passed = failed = skipped = 0


def human(b):
    """Bytes as the table writes them (src/common/out.c fmt_human): 512B, 4K, 1.5M, 37G."""
    if b < 1024:
        return "%dB" % b if b else "0"
    sh, u = 10, 0
    while u < 5 and (b >> sh) >= 1024:
        sh, u = sh + 10, u + 1
    whole = b >> sh
    if b & ((1 << sh) - 1) == 0 or whole >= 10:
        return "%d%s" % (whole + ((b >> (sh - 1)) & 1), "KMGTPE"[u])
    t = (((b >> (sh - 10)) * 10) + 512) >> 10
    return ("%d.%d" % (t // 10, t % 10) if t < 100 else "%d" % (t // 10)) + "KMGTPE"[u]


def ok(cond, what, got=None, want=None):
    global passed, failed
    if cond:
        passed += 1
        return True
    failed += 1
    if got is None and want is None:
        print("FAIL: %s" % what)
    else:
        print("FAIL: %s: got %r, want %r" % (what, got, want))
    return False


def skip(why):
    global skipped, failed
    if CI:
        failed += 1
        print("FAIL (CI runs everything): %s" % why)
    else:
        skipped += 1
        print("SKIP: %s" % why)


def run(args, **kw):
    return subprocess.run([PMAPS] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120, **kw)


def read_all(path):
    """A /proc binary file whole, in 1 MiB reads (they must be 8-byte multiples)."""
    fd = os.open(path, os.O_RDONLY)
    parts = []
    try:
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            parts.append(b)
    finally:
        os.close(fd)
    return b"".join(parts)


# ---- this test's own classification (the precedence of docs/pmaps.1) ----

def state_of(f):
    if f & NOPAGE:
        return "hole"
    if f & HWPOISON:
        return "hwpoison"
    if f & OFFLINE:
        return "offline"
    if f & ZERO:
        return "zero"
    if f & RESERVED:
        return "reserved"
    if f & BUDDY:
        return "free"
    if f & HUGE:
        return "hugetlb"
    if f & SLAB:
        return "slab"
    if f & PGTABLE:
        return "pgtable"
    if f & ANON:
        if not f & SWAPBACKED:
            return "lazyfree"
        return "anon_thp" if f & THP else "anon"
    if f & SWAPCACHE:
        return "swapcache"
    if f & SWAPBACKED:
        return "shmem"
    if f & LRU:
        if f & THP:
            return "file_thp"
        return "file_mapped" if f & MMAP else "file"
    return "kernel"


def ram_ranges(iomem_text):
    """System RAM lines at any depth, "System RAM (kmem)" too, as frame ranges [a, b)."""
    out = []
    nonzero = False
    for line in iomem_text.splitlines():
        if " : " not in line:
            continue
        span, name = line.strip(" ").split(" : ", 1)
        if name != "System RAM" and not (name.startswith("System RAM (") and name.endswith(")")):
            continue
        a, b = (int(x, 16) for x in span.split("-"))
        nonzero = nonzero or b != 0
        out.append((a // PAGE, b // PAGE + 1))
    if not nonzero:
        return None  # zeros: not root's iomem (or a container without CAP_SYS_ADMIN)
    return out


def classify(flags_bytes, count_bytes, iomem_text):
    fl = array.array("Q")
    fl.frombytes(flags_bytes)
    n = len(fl)
    ranges = ram_ranges(iomem_text) if iomem_text is not None else None
    if ranges is not None:
        isram = bytearray(n)
        for a, b in ranges:
            a, b = min(a, n), min(b, n)
            isram[a:b] = b"\x01" * (b - a)
    else:
        isram = b"\x01" * n
    states = collections.Counter()
    memo = {}
    ksm = 0
    carry = None
    for pfn in range(n):
        f = fl[pfn]
        if not isram[pfn] and not f & ~(NOPAGE | RESERVED):
            st = "hole"  # outside RAM, flags that say nothing; a page in use is never a hole
            carry = None
        elif f & TAIL:
            st = "hwpoison" if f & HWPOISON else "offline" if f & OFFLINE else carry
            if st is None:
                st = memo.get(f) or memo.setdefault(f, state_of(f))
        else:
            st = memo.get(f) or memo.setdefault(f, state_of(f))
            carry = st if f & HEAD else None
        states[st] += 1
        if f & KSM and st in ("anon", "anon_thp", "lazyfree"):
            ksm += 1
    values = collections.Counter(fl)
    flags = {k: sum(c for v, c in values.items() if v & bit) for k, bit in FLAG_BITS.items()}
    flags["ksm"] = ksm
    if count_bytes is not None:
        cn = array.array("Q")
        cn.frombytes(count_bytes)
        flags["mapped"] = len(cn) - cn.count(0)
        flags["shared"] = len(cn) - cn.count(0) - cn.count(1)
    return n, states, flags, ranges is not None


def compare(doc, n, states, flags, holes, what):
    ok(doc["total_pages"] == n, what + ": total_pages", doc["total_pages"], n)
    ok(doc["total_bytes"] == n * PAGE, what + ": total_bytes", doc["total_bytes"], n * PAGE)
    ok(doc["page_size"] == PAGE, what + ": page_size", doc["page_size"], PAGE)
    ok(doc["holes_known"] == holes, what + ": holes_known", doc["holes_known"], holes)
    ok(list(doc["states"]) == STATES, what + ": state keys", list(doc["states"]), STATES)
    ok(list(doc["flags"]) == FLAGS, what + ": flag keys", list(doc["flags"]), FLAGS)
    for s in STATES:
        got = doc["states"].get(s, {}).get("pages")
        ok(got == states.get(s, 0), "%s: state %s pages" % (what, s), got, states.get(s, 0))
        ok(doc["states"][s]["bytes"] == states.get(s, 0) * PAGE, "%s: state %s bytes" % (what, s),
           doc["states"][s]["bytes"], states.get(s, 0) * PAGE)
    ok(sum(v["pages"] for v in doc["states"].values()) == doc["total_pages"],
       what + ": states add up", sum(v["pages"] for v in doc["states"].values()),
       doc["total_pages"])
    for k in FLAGS:
        want = flags.get(k)
        got = doc["flags"][k]["pages"] if doc["flags"][k] is not None else None
        ok(got == want, "%s: flag %s" % (what, k), got, want)


def json_of(args, what):
    r = run(args)
    if not ok(r.returncode == 0, what + ": exit", (r.returncode, r.stderr.decode()), 0):
        return None
    lines = r.stdout.decode().splitlines()
    ok(len(lines) == 1, what + ": one line", len(lines), 1)
    return json.loads(lines[0])


# ---- 1. exact, over a snapshot ----

def test_snapshot(tmp):
    if os.geteuid() != 0:
        skip("snapshot of /proc/kpageflags: needs root")
        return
    root = os.path.join(tmp, "snap")
    os.mkdir(root)
    flags = read_all("/proc/kpageflags")
    counts = read_all("/proc/kpagecount")
    with open("/proc/iomem") as f:
        iomem = f.read()
    for name, data in (("kpageflags", flags), ("kpagecount", counts)):
        with open(os.path.join(root, name), "wb") as f:
            f.write(data)
    with open(os.path.join(root, "iomem"), "w") as f:
        f.write(iomem)
    n, states, fl, holes = classify(flags, counts, iomem)
    # As root in a container without CAP_SYS_ADMIN iomem reads as zeros: holes unknown.
    zeros = ram_ranges(iomem) is None
    ok(holes or zeros, "snapshot: iomem gives holes, or reads as zeros", (holes, zeros))
    ok(states["free"] > 0, "snapshot: free pages seen")
    # Read in the calling thread, in the default two threads, and in five.
    for threads in ("1", "2", "5"):
        what = "snapshot, %s thread(s)" % threads
        doc = json_of(["phys", "--json", "--threads", threads, "--proc-root", root], what)
        if doc is not None:
            compare(doc, n, states, fl, holes, what)
    # Without iomem and kpagecount: holes unknown, mapped and shared null.
    os.unlink(os.path.join(root, "iomem"))
    os.unlink(os.path.join(root, "kpagecount"))
    doc = json_of(["phys", "--json", "--proc-root", root], "snapshot without iomem")
    if doc is None:
        return
    n, states, fl, holes = classify(flags, None, None)
    fl["mapped"] = fl["shared"] = None
    compare(doc, n, states, fl, False, "snapshot without iomem")


# ---- 2. the hand-made tree ----

# (flags, kpagecount, the state it must get); frames 0 and 28-31 are outside iomem's RAM:
# holes where their flags say nothing (31 is in the buddy allocator: free).
TREE = [
    (0, 0, "hole"), (HWPOISON, 0, "hwpoison"), (OFFLINE, 0, "offline"),
    (RESERVED | ZERO, 0, "zero"), (RESERVED | PRIVATE, 0, "reserved"), (BUDDY, 0, "free"),
    (HEAD | HUGE, 1, "hugetlb"), (TAIL | HUGE, 1, "hugetlb"), (TAIL, 0, "hugetlb"),
    (SLAB | HEAD, 0, "slab"), (SLAB | ANON | KSM | TAIL, 0, "slab"), (PGTABLE, 0, "pgtable"),
    (ANON | LRU | MMAP | UPTODATE, 1, "lazyfree"),
    (ANON | SWAPBACKED | THP | HEAD | LRU | MMAP, 1, "anon_thp"),
    (ANON | SWAPBACKED | THP | TAIL | LRU | MMAP, 1, "anon_thp"),
    (ANON | SWAPBACKED | LRU | MMAP | MLOCKED | UNEVICTABLE, 2, "anon"),
    (ANON | SWAPBACKED | KSM | MMAP, 3, "anon"), (SWAPCACHE | SWAPBACKED | LRU, 0, "swapcache"),
    (SWAPBACKED | LRU | MMAP | DIRTY, 1, "shmem"), (LRU | THP | HEAD | UPTODATE, 0, "file_thp"),
    (TAIL, 0, "file_thp"), (LRU | MMAP | REFERENCED | ACTIVE, 3, "file_mapped"),
    (LRU | DIRTY | WRITEBACK, 0, "file"), (0, 0, "kernel"), (PRIVATE, 0, "kernel"),
    (NOPAGE, 0, "hole"), (LRU | IDLE, 0, "file"), (TAIL, 0, "kernel"),
    (0, 0, "hole"), (RESERVED, 0, "hole"), (0, 0, "hole"), (BUDDY, 0, "free"),
] + [(ANON | SWAPBACKED | LRU | MMAP, 1, "anon")] * 3 + [(BUDDY, 0, "free")] * 4 + [
    (ANON | SWAPBACKED | LRU | MMAP, 1, "anon"),
    (ANON | SWAPBACKED | LRU | MMAP | HEAD, 1, "anon"),
    (TAIL | HWPOISON, 1, "hwpoison"),  # a tail's own poison, not its head's state
    (TAIL, 1, "anon"),
    (MMAP, 1, "kernel")]  # mapped, not on the LRU: a driver's pages
TREE_IOMEM = ("00000000-00000fff : Reserved\n00001000-0001bfff : System RAM\n"
              "  00002000-00002fff : Kernel code\n0001c000-0001ffff : PCI Bus 0000:00\n"
              "00020000-0002bfff : System RAM\n")
# By hand: the flags of TREE.
TREE_FLAGS = {"mlocked": 1, "unevictable": 1, "dirty": 2, "writeback": 1, "referenced": 1,
              "active": 1, "idle": 1, "ksm": 1, "swapcache": 1, "mmap": 13, "mapped": 17,
              "shared": 3}


def make_tree(tmp):
    root = os.path.join(tmp, "tree")
    os.mkdir(root)
    with open(os.path.join(root, "kpageflags"), "wb") as f:
        f.write(array.array("Q", [t[0] for t in TREE]).tobytes())
    with open(os.path.join(root, "kpagecount"), "wb") as f:
        f.write(array.array("Q", [t[1] for t in TREE]).tobytes())
    with open(os.path.join(root, "iomem"), "w") as f:
        f.write(TREE_IOMEM)
    return root


def test_tree(tmp):
    if PAGE != 4096:
        skip("the hand-made tree's iomem is for 4 KiB pages")
        return None
    root = make_tree(tmp)
    doc = json_of(["phys", "--json", "--proc-root", root, "--block-size", "16K"], "tree")
    if doc is None:
        return root
    want = collections.Counter(t[2] for t in TREE)
    compare(doc, len(TREE), want, TREE_FLAGS, True, "tree")
    ok(doc["block_pages"] == 4 and doc["blocks"] == 11, "tree: blocks",
       (doc["block_pages"], doc["blocks"]), (4, 11))
    # The table: a line per state with its pages, and the total.
    r = run(["phys", "--summary", "--proc-root", root])
    ok(r.returncode == 0 and not r.stderr, "tree: --summary", (r.returncode, r.stderr), 0)
    lines = r.stdout.decode().splitlines()
    for s in STATES + ["total"]:
        hit = [l for l in lines if l.split()[:1] == [s]]
        want_n = len(TREE) if s == "total" else want.get(s, 0)
        ok(hit and hit[0].split()[1] == str(want_n), "tree: table line " + s,
           hit[0] if hit else None, want_n)
    # Not a terminal: the table, not the live view.
    r = run(["phys", "--proc-root", root])
    ok(r.returncode == 0 and r.stdout.decode().startswith("Physical memory: 176K in 44 frames"),
       "tree: the default off a terminal is the table", r.stdout[:60])
    # --count 3 --json: three documents, three lines.
    r = run(["phys", "--json", "--count", "3", "--interval", "10ms", "--proc-root", root])
    docs = [json.loads(l) for l in r.stdout.decode().splitlines()]
    ok(r.returncode == 0 and len(docs) == 3 and all(d == docs[0] for d in docs),
       "tree: --count 3", len(docs), 3)
    return root


def test_tree_svg(tmp, root):
    import svgcheck
    if svgcheck.missing():
        skip("SVG rendering: " + svgcheck.missing())
        return
    svg = os.path.join(tmp, "tree.svg")
    r = run(["phys", "--svg", svg, "--block-size", "16K", "--proc-root", root, "-q"])
    ok(r.returncode == 0 and not r.stdout and not r.stderr, "tree svg: exit, -q quiet",
       (r.returncode, r.stdout, r.stderr), (0, b"", b""))
    # Without -q, one line says what was written (the tree's frames and blocks).
    r = run(["phys", "--svg", svg, "--block-size", "16K", "--proc-root", root])
    said = re.fullmatch(rb"pmaps: wrote (.*) \(([0-9.]+[BKM]?)\): (.*)\n", r.stderr)
    pages = os.path.getsize(os.path.join(root, "kpageflags")) // 8
    want = ("physical memory, %s (%d frames): %d blocks of 4 frames, each in the colour of "
            "its main state" % (human(pages * 4096), pages, (pages + 3) // 4)).encode()
    ok(r.returncode == 0 and said is not None and said.group(1) == svg.encode() and
       said.group(3) == want, "tree svg: the line saying what was written", r.stderr,
       b"pmaps: wrote " + svg.encode() + b" (SIZE): " + want)
    good, msg = svgcheck.xml_ok(svg)
    ok(good, "tree svg: xmllint", msg, "")
    img = svgcheck.render(svg, os.path.join(tmp, "tree.png"), 860, 220)
    ok(svgcheck.not_blank(img), "tree svg: not blank")
    # Row 0 of cells at y 48..54, cell i at x 70 + 6 i: block 1 hugetlb, 2 slab, 7 hole, 8 anon.
    for block, state in ((1, "hugetlb"), (2, "slab"), (7, "hole"), (8, "anon")):
        x, y = 70 + 6 * block + 3, 51
        ok(svgcheck.color_near(img, x, y, COLOURS[state]),
           "tree svg: block %d is %s %s" % (block, state, COLOURS[state]),
           img.getpixel((x, y)), COLOURS[state])
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    ok(text.count("<rect") >= 10, "tree svg: cells and legend drawn", text.count("<rect"), ">= 10")
    # The legend: "reserved 4.0K (2.3%): firmware, ...", the words never the state's name again.
    legend = re.findall(r">([a-z_]+) [0-9.]+[BKMGT]? \([0-9.]+%\): ([^<]*)<", text)
    # Every state but uninit, which needs a deferred boot's tree (test_deferred).
    some = sorted(s for s in STATES if s != "uninit")
    ok(sorted(k for k, _ in legend) == some, "tree svg: a legend line per state",
       sorted(k for k, _ in legend), some)
    for key, words in legend:
        ok(key not in re.split(r"[^a-z0-9_]+", words.lower()),
           "tree svg: legend of %s does not repeat its name" % key, words, "no " + repr(key))


# ---- 3. live ----

def test_live(tmp):
    if os.geteuid() != 0:
        skip("live /proc/kpageflags: needs root")
        return
    doc = json_of(["phys", "--json"], "live")
    frames = len(read_all("/proc/kpageflags")) // 8
    if doc is None:
        return
    ok(doc["total_pages"] == frames, "live: total_pages is kpageflags' length / 8",
       doc["total_pages"], frames)
    ok(sum(v["pages"] for v in doc["states"].values()) == doc["total_pages"],
       "live: the states add up", sum(v["pages"] for v in doc["states"].values()),
       doc["total_pages"])
    ok(doc["total_bytes"] == frames * PAGE, "live: total_bytes", doc["total_bytes"], frames * PAGE)
    ok(all(v["bytes"] == v["pages"] * PAGE for v in doc["states"].values()), "live: bytes")
    ok(all(doc["flags"][k] is not None for k in FLAGS), "live: every flag known")
    test_meminfo()
    import svgcheck
    if svgcheck.missing():
        skip("SVG rendering: " + svgcheck.missing())
        return
    svg = os.path.join(tmp, "live.svg")
    r = run(["phys", "--svg", svg])
    ok(r.returncode == 0, "live svg: exit", (r.returncode, r.stderr), 0)
    good, msg = svgcheck.xml_ok(svg)
    ok(good, "live svg: xmllint", msg, "")
    size = os.path.getsize(svg)
    ok(size < 4 << 20, "live svg: size bounded (equal cells coalesced)", size, "< 4 MiB")
    img = svgcheck.render(svg, os.path.join(tmp, "live.png"), 860, 800)
    ok(svgcheck.not_blank(img), "live svg: not blank")
    # Free memory's colour, told from the white background (8 apart) by a tight tolerance.
    ok(svgcheck.count_near(img, "#f7f7f7", tol=3) > 1000, "live svg: free cells drawn",
       svgcheck.count_near(img, "#f7f7f7", tol=3), "> 1000")


def meminfo_pages():
    """/proc/meminfo's MemFree, Slab, PageTables, Hugetlb in pages, and the per-CPU lists' pages."""
    d = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            d[k] = int(v.split()[0]) * 1024 // PAGE
    pcp = 0
    with open("/proc/zoneinfo") as f:
        for line in f:
            w = line.split()
            if w[:1] == ["count:"]:
                pcp += int(w[1])
    return {"free": d["MemFree"], "slab": d["Slab"], "pgtable": d["PageTables"],
            "hugetlb": d.get("Hugetlb", 0), "pcp": pcp}


def test_meminfo():
    """
    The states against the kernel's own counters, an independent source. A
    reading is not atomic and the machine runs on: meminfo is read before and
    after, and a state must lie between the lower of the two less a slack
    and the higher plus it. The slacks, for a busy 2-core CI machine (other
    tests building, soak tests allocating) during a reading of about half a
    second per 25 GiB:
      free:    MemFree counts the per-CPU lists' free pages, which carry no
               KPF_BUDDY (kernel here): the lower bound takes the larger of
               the two zoneinfo pcp sums off; and 1% of the frames or 64 MiB
               (the larger) for what moves meanwhile;
      slab:    5% of Slab or 16 MiB (shrinkers and new objects move it);
      pgtable: 25% of PageTables or 4 MiB (processes start and end: small
               numbers, large relative moves);
      hugetlb: exact between the two readings (the pool changes only when
               someone writes nr_hugepages).
    """
    before = meminfo_pages()
    doc = json_of(["phys", "--json"], "meminfo cross-check")
    after = meminfo_pages()
    if doc is None:
        return
    total = doc["total_pages"]
    mib = (1 << 20) // PAGE
    slack = {"free": max(total // 100, 64 * mib), "slab": None, "pgtable": None, "hugetlb": 0}
    for key in ("free", "slab", "pgtable", "hugetlb"):
        lo, hi = min(before[key], after[key]), max(before[key], after[key])
        if key == "free":
            lo -= max(before["pcp"], after["pcp"])
            sl = slack["free"]
        elif key == "slab":
            sl = max(hi // 20, 16 * mib)
        elif key == "pgtable":
            sl = max(hi // 4, 4 * mib)
        else:
            sl = 0
        got = doc["states"][key]["pages"]
        if key == "free" and doc["states"]["uninit"]["pages"]:
            # A kernel that defers struct page init counts most of those
            # frames in MemFree: free is then at most MemFree, and free with
            # them at least it (the early allocations among them are not free).
            uninit = doc["states"]["uninit"]["pages"]
            print("live: %d frames not initialised yet (deferred struct page init)" % uninit)
            ok(got <= hi + sl, "live: free at most /proc/meminfo's MemFree", got,
               "<= %d pages (meminfo %d, then %d; slack %d)" % (hi + sl, before[key],
                                                               after[key], sl))
            ok(lo - sl <= got + uninit, "live: free and uninit at least MemFree", got + uninit,
               ">= %d pages (meminfo %d, then %d; slack %d)" % (lo - sl, before[key],
                                                               after[key], sl))
            ok(doc["meminfo_free_pages"] is not None and
               got < doc["meminfo_free_pages"] <= got + uninit + sl,
               "live: the reading's own MemFree between free and free + uninit",
               doc["meminfo_free_pages"], "%d..%d" % (got, got + uninit + sl))
            continue
        ok(lo - sl <= got <= hi + sl, "live: %s against /proc/meminfo" % key, got,
           "%d..%d pages (meminfo %d, then %d; slack %d)" % (lo - sl, hi + sl, before[key],
                                                             after[key], sl))


# ---- 4. cells of several blocks ----

def test_cells(tmp):
    """
    65536 blocks of 4 frames (2 cells' worth of blocks a cell: the SVG holds
    32768): cells alternate between X = [anon x4][free x3, anon] (anon 5 of
    8 frames) and Y = [free x4][anon x3, free] (free 5 of 8). Each block pair
    is a tie of winners (one anon, one free), so a picture of block winners
    shows every cell free; by frames X is anon and Y free.
    """
    import svgcheck
    if PAGE != 4096:
        skip("cells: the fixture's block size is for 4 KiB pages")
        return
    if svgcheck.missing():
        skip("SVG rendering: " + svgcheck.missing())
        return
    A, F = ANON | SWAPBACKED | LRU, BUDDY
    x = [A] * 4 + [F, F, F, A]
    y = [F] * 4 + [A, A, A, F]
    root = os.path.join(tmp, "cells")
    os.mkdir(root)
    with open(os.path.join(root, "kpageflags"), "wb") as f:
        f.write(array.array("Q", (x + y) * 16384).tobytes())
    svg = os.path.join(tmp, "cells.svg")
    r = run(["phys", "--svg", svg, "--block-size", "16K", "--summary", "--proc-root", root])
    ok(r.returncode == 0, "cells: exit", (r.returncode, r.stderr), 0)
    lines = r.stdout.decode().splitlines()
    for st in ("anon", "free"):
        hit = [l for l in lines if l.split()[:1] == [st]]
        ok(hit and hit[0].split()[1] == "131072" and hit[0].split()[3] == "50.0%",
           "cells: table " + st, hit[0] if hit else None, "131072 pages, 50.0%")
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    ok("#3b6fd4" in text and "#f7f7f7" in text, "cells: both anon and free cells drawn")
    img = svgcheck.render(svg, os.path.join(tmp, "cells.png"), 860, 2000)
    # Row 0 at y 48..54, cell i at x 70 + 6 i: even cells anon, odd free; and row 100.
    for row in (0, 100):
        for cell in range(6):
            want = COLOURS["anon"] if cell % 2 == 0 else "#f7f7f7"
            px, py = 70 + 6 * cell + 3, 48 + 6 * row + 3
            ok(svgcheck.color_near(img, px, py, want, tol=3),
               "cells: row %d cell %d by its frames" % (row, cell), img.getpixel((px, py)), want)
    # The review's case: 65536 frames alternating anon and free, a block a frame, two
    # blocks a cell: every cell a tie, which the tied states take in turn (free
    # first), so the picture is half anon as the table says, not all free.
    alt = os.path.join(tmp, "alt")
    os.mkdir(alt)
    with open(os.path.join(alt, "kpageflags"), "wb") as f:
        f.write(array.array("Q", [A, F] * 32768).tobytes())
    svg = os.path.join(tmp, "alt.svg")
    r = run(["phys", "--svg", svg, "--block-size", "4K", "--summary", "--proc-root", alt])
    ok(r.returncode == 0, "alternating: exit", (r.returncode, r.stderr), 0)
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    n_anon, n_free = text.count(" anon</title>"), text.count(" free</title>")
    ok(n_anon == n_free == 16384, "alternating: anon and free cells alike (32768 cells)",
       (n_anon, n_free), (16384, 16384))
    img = svgcheck.render(svg, os.path.join(tmp, "alt.png"), 860, 1000)
    for cell in range(6):
        want = "#f7f7f7" if cell % 2 == 0 else COLOURS["anon"]
        px, py = 70 + 6 * cell + 3, 48 + 3
        ok(svgcheck.color_near(img, px, py, want, tol=3),
           "alternating: cell %d" % cell, img.getpixel((px, py)), want)


# ---- 5. bad input ----

def one_line_fail(args, code, phrase, what, **kw):
    r = run(args, **kw) if "cmd" not in kw else subprocess.run(
        kw["cmd"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    err = r.stderr.decode("utf-8", "replace")
    ok(r.returncode == code, what + ": exit", (r.returncode, err), code)
    ok(err.count("\n") == 1 and err.startswith("pmaps: "), what + ": one line on stderr", err,
       "pmaps: ...\\n")
    ok(phrase in err, what + ": says " + repr(phrase), err, phrase)
    ok(r.stdout == b"", what + ": nothing on stdout", r.stdout, b"")


def test_bad(tmp, root):
    one_line_fail(["phys", "--interval", "0"], 2, "--interval", "--interval 0")
    one_line_fail(["phys", "--interval", "soon"], 2, "'soon'", "--interval garbage")
    one_line_fail(["phys", "--interval", "5ms"], 2, "from 10ms", "--interval below 10ms")
    one_line_fail(["phys", "--interval", "1d"], 2, "'1d'", "--interval unit")
    # At most a day: the live view waits an int of milliseconds (24.8 days wrapped it).
    one_line_fail(["phys", "--interval", "86401"], 2, "to 1 day", "--interval above a day")
    one_line_fail(["phys", "--interval", "2147484"], 2, "to 1 day", "--interval of 24.9 days")
    one_line_fail(["phys", "--block-size", "16T"], 2, "below 2^32 pages",
                  "--block-size of 2^32 pages")
    one_line_fail(["phys", "--count", "x"], 2, "--count", "--count garbage")
    one_line_fail(["phys", "--count", "-1"], 2, "--count", "--count negative")
    one_line_fail(["phys", "--block-size", "3K"], 2, "multiple of the page size",
                  "--block-size 3K")
    one_line_fail(["phys", "--block-size", "0"], 2, "--block-size", "--block-size 0")
    one_line_fail(["phys", "--block-size", "lots"], 2, "'lots'", "--block-size garbage")
    # A block size that makes more than 2^20 blocks of this tree's 2^20 + 1 frames.
    many = os.path.join(tmp, "many")
    os.makedirs(many, exist_ok=True)
    with open(os.path.join(many, "kpageflags"), "wb") as f:
        f.truncate((2**20 + 1) * 8)
    # A usage error naming the smallest size that fits, as a size one can type.
    one_line_fail(["phys", "--block-size", "4K", "--summary", "--proc-root", many], 2,
                  "--block-size 4K makes more than 1048576 blocks of this machine's memory "
                  "(more than 4G): at least 8K", "--block-size of too many blocks")
    # 6 * 2^20 + 1 frames: 7 frames a block at least (28K), from 8K too.
    many7 = os.path.join(tmp, "many7")
    os.makedirs(many7, exist_ok=True)
    with open(os.path.join(many7, "kpageflags"), "wb") as f:
        f.truncate((6 * 2**20 + 1) * 8)
    one_line_fail(["phys", "--block-size", "8K", "--json", "--proc-root", many7], 2,
                  "more than 24G): at least 28K", "--block-size of too many blocks, 28K")
    r = run(["phys", "--block-size", "28K", "--json", "--proc-root", many7])
    ok(r.returncode == 0, "--block-size 28K, as the message says, fits",
       (r.returncode, r.stderr), 0)
    one_line_fail(["phys", "--threads", "0"], 2, "--threads", "--threads 0")
    one_line_fail(["phys", "--threads", "17"], 2, "from 1 to 16", "--threads 17")
    one_line_fail(["phys", "--summary", "--json"], 2, "choose one", "--summary with --json")
    one_line_fail(["phys", "--bogus"], 2, "--bogus", "unknown option")
    one_line_fail(["phys", "42"], 2, "no arguments", "an argument")
    one_line_fail(["phys", "--svg", os.path.join(tmp, "x.svg"), "--count", "2"], 2, "--count",
                  "--svg with --count")
    # The picture's file is opened first: its error, not the proc root's, and no file made.
    one_line_fail(["phys", "--svg", "/nonexistent-pmaps-dir/x.svg", "--proc-root",
                   "/nonexistent-pmaps-root"], 1, "/nonexistent-pmaps-dir/x.svg",
                  "unwritable --svg fails before reading")
    one_line_fail(["phys", "--proc-root", "/nonexistent-pmaps-root"], 1,
                  "proc root /nonexistent-pmaps-root: no such directory", "missing proc root")
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    one_line_fail(["phys", "--proc-root", empty], 1, "kpageflags: no such file",
                  "proc root without kpageflags")
    torn = os.path.join(tmp, "torn")
    os.mkdir(torn)
    with open(os.path.join(torn, "kpageflags"), "wb") as f:
        f.write(b"\0" * 12)
    one_line_fail(["phys", "--json", "--proc-root", torn], 1, "not whole 8-byte entries",
                  "kpageflags of 12 bytes")
    svg = os.path.join(tmp, "never.svg")
    one_line_fail(["phys", "--svg", svg, "--proc-root", empty], 1, "kpageflags",
                  "--svg on a tree without kpageflags")
    ok(not os.path.lexists(svg), "--svg on a failed reading: no file made", os.listdir(tmp))
    # A file already there is left as it was when the reading fails (open or read).
    keep = os.path.join(tmp, "keep.svg")
    # A tree whose kpagecount is shorter than kpageflags: the reading itself fails.
    short = os.path.join(tmp, "short")
    os.mkdir(short)
    with open(os.path.join(short, "kpageflags"), "wb") as f:
        f.write(array.array("Q", [BUDDY] * 64).tobytes())
    with open(os.path.join(short, "kpagecount"), "wb") as f:
        f.write(array.array("Q", [0] * 60).tobytes())
    one_line_fail(["phys", "--json", "--proc-root", short], 1, "kpagecount",
                  "kpagecount shorter than kpageflags")
    for args, what in ((["--proc-root", "/nonexistent-pmaps-root"], "no proc root"),
                       (["--proc-root", torn], "a torn kpageflags"),
                       (["--summary", "--proc-root", short], "a reading that fails")):
        with open(keep, "w") as f:
            f.write("precious\n")
        r = run(["phys", "--svg", keep] + args)
        ok(r.returncode == 1, "--svg keep.svg, %s: exit" % what, r.returncode, 1)
        with open(keep) as f:
            got = f.read()
        ok(got == "precious\n", "--svg keep.svg, %s: left as it was" % what, got, "precious\n")
    ok(sorted(n for n in os.listdir(tmp) if n.startswith("keep")) == ["keep.svg"],
       "--svg: no temporary file left", os.listdir(tmp))
    if root:
        # "-": the picture on standard output, as pages --svg -.
        r = run(["phys", "--svg", "-", "--block-size", "16K", "--proc-root", root])
        ok(r.returncode == 0 and r.stdout.startswith(b"<svg") or b"<svg" in r.stdout[:200],
           "--svg -: the SVG on standard output", r.stdout[:60], b"<svg ...")
        ok(not os.path.exists(os.path.join(os.getcwd(), "-")), "--svg -: no file named -")
        one_line_fail(["phys", "--svg", "-", "--json", "--proc-root", root], 2,
                      "standard output", "--svg - with --json")
        # An interval of a day is allowed (one reading: no wait).
        r = run(["phys", "--json", "--interval", "86400", "--proc-root", root])
        ok(r.returncode == 0, "--interval 86400", (r.returncode, r.stderr), 0)
    if os.geteuid() == 0 and shutil.which("setpriv"):
        one_line_fail(["phys", "--summary"], 1, "run as root", "not root",
                      cmd=["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           PMAPS])
    elif os.geteuid() != 0:
        one_line_fail(["phys", "--summary"], 1, "run as root", "not root")
    else:
        skip("not root: setpriv (util-linux) missing")


# ---- --cgroups ----

CG_KINDS = [(BUDDY, "free"), (ANON | SWAPBACKED | MMAP | LRU, "anon"), (LRU, "file"),
            (SWAPBACKED, "shmem"), (SLAB, "slab")]


def cg_expect(flags, inodes):
    """Rows as the tool must give them: [(inode, pages, {state: pages})], largest first."""
    rows = {}
    for f, ino in zip(flags, inodes):
        st = dict(CG_KINDS)[f]
        pages, states = rows.setdefault(ino, [0, collections.Counter()])
        rows[ino][0] = pages + 1
        states[st] += 1
    return sorted(((i, p, s) for i, (p, s) in rows.items()), key=lambda t: (-t[1], t[0]))


def test_cgroups(tmp):
    root = os.path.join(tmp, "cgproc")
    tree = os.path.join(tmp, "cgtree")
    os.mkdir(root)
    for d in ("a", "a/b", "we ird\nname", "c"):
        os.makedirs(os.path.join(tree, d))
    os.symlink("a", os.path.join(tree, "link"))
    ino = {p: os.stat(os.path.join(tree, p.lstrip("/"))).st_ino
           for p in ("/", "/a", "/a/b", "/we ird\nname")}
    names = {v: k for k, v in ino.items()}
    lost = 999999999  # no directory has it: "inode N"
    ok(lost not in names, "cgroups: the lost inode is no directory's")
    pattern = [0, ino["/a"], ino["/a"], ino["/a/b"], ino["/we ird\nname"], ino["/"], lost,
               ino["/a"], 0, 0, ino["/a/b"]]
    n = 1000
    flags = [CG_KINDS[(i // 3) % len(CG_KINDS)][0] for i in range(n)]
    inodes = [pattern[i % len(pattern)] for i in range(n)]
    with open(os.path.join(root, "kpageflags"), "wb") as f:
        f.write(array.array("Q", flags).tobytes())
    with open(os.path.join(root, "kpagecgroup"), "wb") as f:
        f.write(array.array("Q", inodes).tobytes())
    want = cg_expect(flags, inodes)
    doc = json_of(["phys", "--cgroups", "--json", "--proc-root", root, "--cgroup-root", tree],
                  "cgroups tree")
    if doc is not None:
        ok(doc["cgroups_known"] is True and doc["cgroups_other_pages"] == 0 and
           doc["cgroup_root"] == tree, "cgroups tree: known, no other, the root",
           (doc["cgroups_known"], doc["cgroups_other_pages"], doc["cgroup_root"]))
        got = [(c["inode"], c["pages"], {k: v for k, v in c["states"].items() if v})
               for c in doc["cgroups"]]
        ok(got == [(i, p, dict(s)) for i, p, s in want], "cgroups tree: rows exactly", got,
           want)
        paths = [c["path"] for c in doc["cgroups"]]
        ok(paths == [names.get(i) for i, _, _ in want], "cgroups tree: paths", paths,
           [names.get(i) for i, _, _ in want])
        for c in doc["cgroups"]:
            ok(sorted(c["states"]) == sorted(STATES) and sum(c["states"].values()) == c["pages"]
               and c["bytes"] == c["pages"] * PAGE, "cgroups tree: states and bytes of %r"
               % c["path"], c)
    # The table: one line per cgroup, pages first and the (escaped) name last.
    r = run(["phys", "--cgroups", "--proc-root", root, "--cgroup-root", tree])
    ok(r.returncode == 0 and not r.stderr, "cgroups table: exit", (r.returncode, r.stderr), 0)
    lines = r.stdout.decode().splitlines()
    head = [i for i, l in enumerate(lines) if l.split()[:2] == ["PAGES", "SIZE"]]
    ok(len(head) == 1, "cgroups table: one header", lines)
    if head:
        rows = lines[head[0] + 1:]
        shown = {"/we ird\nname": "/we ird\\nname"}
        wl = [(str(p), shown.get(names.get(i), names.get(i)) if i in names else
               ("(no cgroup)" if i == 0 else "inode %d" % i)) for i, p, _ in want]
        gl = [(l.split()[0], l.split("  ")[-1].strip()) for l in rows]
        ok(gl == wl, "cgroups table: pages and names", gl, wl)
    # 25 cgroups: the largest 20, then one line for the other 5 (their pages summed).
    many = os.path.join(tmp, "cgmany")
    os.mkdir(many)
    with open(os.path.join(many, "kpageflags"), "wb") as f:
        f.write(array.array("Q", [ANON | SWAPBACKED] * 325).tobytes())
    # Inode 1000 + k has k + 1 frames: 25 + 24 + ... + 1 = 325.
    with open(os.path.join(many, "kpagecgroup"), "wb") as f:
        f.write(array.array("Q", [1000 + k for k in range(25) for _ in range(k + 1)]).tobytes())
    r = run(["phys", "--cgroups", "--proc-root", many, "--cgroup-root", tree])
    lines = r.stdout.decode().splitlines()
    head = [i for i, l in enumerate(lines) if l.split()[:2] == ["PAGES", "SIZE"]]
    if ok(r.returncode == 0 and len(head) == 1, "cgroups 25: the table", r.stdout[-300:]):
        rows = [(l.split()[0], l.split("  ")[-1].strip()) for l in lines[head[0] + 1:]]
        want_rows = [(str(k + 1), "inode %d" % (1000 + k)) for k in range(24, 4, -1)]
        want_rows.append((str(5 + 4 + 3 + 2 + 1), "and 5 more (--json lists them all)"))
        ok(rows == want_rows, "cgroups 25: 20 rows and the rest", rows, want_rows)
    # Without --cgroup-root the names come from the live mount: the fixture's inodes
    # may name nothing or anything there, so only the counts are compared.
    # No kpagecgroup: unknown, not an error.
    os.unlink(os.path.join(root, "kpagecgroup"))
    doc = json_of(["phys", "--cgroups", "--json", "--proc-root", root, "--cgroup-root", tree],
                  "cgroups missing")
    if doc is not None:
        ok(doc["cgroups_known"] is False and doc["cgroups"] == [], "cgroups missing: unknown",
           (doc["cgroups_known"], doc["cgroups"]))
    r = run(["phys", "--cgroups", "--proc-root", root, "--cgroup-root", tree])
    ok(r.returncode == 0 and b"Memory cgroups: unknown" in r.stdout, "cgroups missing: table",
       (r.returncode, r.stdout[-200:]))
    # On a terminal too: the table, not the live picture (which would wait for q).
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(PMAPS, [PMAPS, "phys", "--cgroups", "--proc-root", root, "--cgroup-root",
                         tree])
    out = b""
    import select
    import time
    end = time.monotonic() + 30
    while True:
        if not select.select([fd], [], [], max(0, end - time.monotonic()))[0]:
            os.kill(pid, 9)  # the live picture: it never ends by itself
            break
        try:
            b = os.read(fd, 65536)
        except OSError:
            break
        if not b:
            break
        out += b
    _, status = os.waitpid(pid, 0)
    ok(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and
       out.startswith(b"Physical memory: ") and b"Memory cgroups: unknown" in out,
       "--cgroups on a terminal: the table", (status, out[:80]))
    # Bad input.
    one_line_fail(["phys", "--cgroups", "--svg", os.path.join(tmp, "x.svg")], 2, "--svg",
                  "--cgroups with --svg")
    one_line_fail(["phys", "--cgroups", "--cgroup-root", "/nonexistent-pmaps-cg"], 1,
                  "--cgroup-root /nonexistent-pmaps-cg: no such directory",
                  "--cgroup-root missing")
    one_line_fail(["phys", "--cgroup-root", tree], 2, "give --cgroups",
                  "--cgroup-root without --cgroups")
    ok(not os.path.exists(os.path.join(tmp, "x.svg")), "--cgroups --svg: no file made")
    # Live, as root.
    if os.geteuid() != 0:
        skip("--cgroups live: not root")
        return
    if not os.path.exists("/proc/kpagecgroup"):
        skip("--cgroups live: no /proc/kpagecgroup (CONFIG_MEMCG)")
        return
    snap = os.path.join(tmp, "cgsnap")
    os.mkdir(snap)
    fl = read_all("/proc/kpageflags")
    cg = read_all("/proc/kpagecgroup")
    ok(len(fl) == len(cg), "live: kpagecgroup as long as kpageflags", len(cg), len(fl))
    with open(os.path.join(snap, "kpageflags"), "wb") as f:
        f.write(fl)
    with open(os.path.join(snap, "kpagecgroup"), "wb") as f:
        f.write(cg)
    mine = collections.Counter(array.array("Q", cg))
    doc = json_of(["phys", "--cgroups", "--json", "--proc-root", snap], "cgroups snapshot")
    if doc is not None:
        got = {c["inode"]: c["pages"] for c in doc["cgroups"]}
        ok(doc["cgroups_other_pages"] == 0 and got == dict(mine),
           "cgroups snapshot: pages per inode against this test's sums",
           sorted(got.items())[:8], sorted(mine.items())[:8])
    doc = json_of(["phys", "--cgroups", "--json"], "cgroups live")
    if doc is not None:
        croot = doc["cgroup_root"]
        named = [c for c in doc["cgroups"] if c["path"] is not None]
        ok(named, "cgroups live: some cgroup named", doc["cgroups"][:3])
        for c in named:
            p = croot + ("" if c["path"] == "/" else c["path"])
            st = os.stat(p) if os.path.isdir(p) else None
            ok(st is not None and st.st_ino == c["inode"], "cgroups live: %s is the directory "
               "of inode %d" % (p, c["inode"]), st and st.st_ino, c["inode"])


# ---- 6. a boot that defers struct page initialisation ----

def test_deferred(tmp):
    """
    A tree like a boot with deferred_init=lazy ("5361468 pages left to
    deferred_grow_zone()"), in 4 KiB frames and 128 MiB sections of SEC
    frames: RAM [0, 3 SEC) then, past a hole of 512 frames, [3 SEC + 512,
    4 SEC). [0, SEC) free, [SEC, 3 SEC) flagless to the end of the RAM
    range (not initialised), the second range free. MemFree counts the free
    frames and 31/32 of the others. The tool names them, with what meminfo
    says, in its table and its JSON; the same tree without meminfo calls
    them kernel.
    """
    if PAGE != 4096:
        skip("deferred tree: written in 4 KiB frames")
        return
    sec = 32768
    n = 4 * sec
    root = os.path.join(tmp, "deferred")
    os.mkdir(root)
    flags = [BUDDY] * sec + [0] * (2 * sec) + [0] * 512 + [BUDDY] * (sec - 512)
    with open(os.path.join(root, "kpageflags"), "wb") as f:
        f.write(array.array("Q", flags).tobytes())
    with open(os.path.join(root, "kpagecount"), "wb") as f:
        f.write(array.array("Q", [0] * n).tobytes())
    with open(os.path.join(root, "iomem"), "w") as f:
        f.write("00000000-17ffffff : System RAM\n18000000-181fffff : PCI Bus 0000:00\n"
                "18200000-1fffffff : System RAM\n")
    free = 2 * sec - 512
    memfree = free + 2 * sec // 32 * 31
    with open(os.path.join(root, "meminfo"), "w") as f:
        f.write("MemTotal: %d kB\nMemFree: %d kB\n" % (n * 4, memfree * 4))
    doc = json_of(["phys", "--json", "--proc-root", root], "deferred tree")
    if doc is not None:
        got = {k: doc["states"][k]["pages"] for k in ("free", "uninit", "kernel", "hole")}
        want = {"free": free, "uninit": 2 * sec, "kernel": 0, "hole": 512}
        ok(got == want, "deferred tree: states", got, want)
        ok(doc["meminfo_free_pages"] == memfree, "deferred tree: meminfo_free_pages",
           doc["meminfo_free_pages"], memfree)
    r = run(["phys", "--summary", "--proc-root", root])
    out = r.stdout.decode()
    ok(r.returncode == 0, "deferred tree: --summary exit", r.returncode, 0)
    row = [l.split() for l in out.splitlines() if l.startswith("uninit ")]
    ok(row and row[0][1] == str(2 * sec) and row[0][2] == "256M",
       "deferred tree: the uninit row", row, "uninit %d 256M" % (2 * sec))
    # 2 SEC x 31/32 frames: 248M counted free by meminfo, MemFree 8 x 31/32 + 4 - ... by hand.
    note = "/proc/meminfo counts 248M of them free (MemFree 502M: free and that)."
    ok(note in out, "deferred tree: the note says what meminfo counts", out, note)
    svg = os.path.join(tmp, "deferred.svg")
    r = run(["phys", "--svg", svg, "--proc-root", root])
    text = open(svg).read() if r.returncode == 0 else ""
    ok("uninit" in text and "#e3d7b8" in text, "deferred tree svg: uninit drawn and in the legend",
       r.returncode, "uninit and #e3d7b8 in the picture")
    os.unlink(os.path.join(root, "meminfo"))
    doc = json_of(["phys", "--json", "--proc-root", root], "deferred tree, no meminfo")
    if doc is not None:
        got = {k: doc["states"][k]["pages"] for k in ("uninit", "kernel")}
        ok(got == {"uninit": 0, "kernel": 2 * sec}, "deferred tree, no meminfo: kernel", got,
           {"uninit": 0, "kernel": 2 * sec})
        ok(doc["meminfo_free_pages"] is None, "deferred tree, no meminfo: null",
           doc["meminfo_free_pages"], None)
    r = run(["phys", "--summary", "--proc-root", root])
    ok("defers" not in r.stdout.decode(), "deferred tree, no meminfo: no note",
       r.stdout.decode(), "no note")


def main():
    tmp = tempfile.mkdtemp(prefix="pmaps-phys-test.")
    try:
        test_snapshot(tmp)
        root = test_tree(tmp)
        if root:
            test_tree_svg(tmp, root)
        test_live(tmp)
        test_cells(tmp)
        test_bad(tmp, root)
        test_cgroups(tmp)
        test_deferred(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
