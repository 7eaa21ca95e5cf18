# SPDX-License-Identifier: MIT
"""pmaps pages against the kernel's page-types, page by page, as root.

The targets are the idle processes the test starts (anchors.Idle): the live
layout helper (tests/live/layout.c: anonymous pages touched every third page,
an MADV_FREE'd range, an MADV_DONTNEED'd range, a file mapping read whole and
one read in four pages, a memfd (shmem) mapping, the shared zero page, shared
anonymous memory also mapped by its child, an mlocked range, a THP region,
glibc thread arenas), its child, a sleep, a python3 and a bash.

For each: `page-types -r -p PID -L -M -N` (raw flags, one line per page with
its map count) before and after `pmaps pages PID --pfn --json`, run with each
reader (--strategy scan and pagemap). pmaps's runs are expanded to pages and
every page of every mapping is compared:
- present: page-types lists exactly the pages whose page-table entry names a
  frame (or a swap entry, flag "swap"); pmaps's present pages must be those;
  a zero-page mapping may be either (pmaps counts resident pages as smaps
  does, and smaps does not count the zero page), its frame and flags not;
- the frame number, the map count (/proc/kpagecount) and each flag in FLAGS;
- lazyfree, which pmaps derives: anonymous and not swapbacked;
- huge (PAGEMAP_SCAN: mapped by a PMD), which only a large folio can be.
Map counts and exclusive are not compared on the vDSO page and on pages of
files the readers map themselves (an ASan build of pmaps maps libm too), nor
the vDSO's referenced bit (reader_paths() and
compare_pages() say why); the summary counts those pages.

Then `pmaps pages PID --summary --json`, with each reader, against
page-types's pages counted per mapping the way pmaps(1) defines each count
(counts()): resident, swapped, zero, file, the flags, exclusive and shared,
and the map count histogram, with the same rules.
A value that page-types printed differently before and after (the kernel's
page state moved: DAMON and reclaim clear reference bits, set idle, move
pages between LRU lists) is not compared, and counted. Flags page-types shows
that pmaps does not track are listed in UNTRACKED with the reason, and the
pages showing each are counted in the summary.

page-types comes from bench/page-types.sh (built from Debian's
linux-source-6.1, never copied into this repository); its flag letters are
mapped to names through its own usage text, so a different build cannot
shift them unseen.

Usage: page_types_anchor.py PMAPS LAYOUT PAGE_TYPES_SH
"""

import bisect
import json
import os
import re
import sys

import anchors

PAGE = os.sysconf("SC_PAGE_SIZE")
ATTEMPTS = 4

# page-types flag -> (pmaps list, pmaps name). The list is "kflags"
# (/proc/kpageflags) or "flags" (the page-table entry: pagemap or
# PAGEMAP_SCAN).
FLAGS = {
    "referenced": ("kflags", "referenced"),
    "dirty": ("kflags", "dirty"),
    "lru": ("kflags", "lru"),
    "active": ("kflags", "active"),
    "anonymous": ("kflags", "anon"),
    "swapcache": ("kflags", "swapcache"),
    "swapbacked": ("kflags", "swapbacked"),
    "huge": ("kflags", "hugetlb"),
    "unevictable": ("kflags", "unevictable"),
    "ksm": ("kflags", "ksm"),
    "thp": ("kflags", "thp"),
    "zero_page": ("kflags", "zero-page"),
    "idle_page": ("kflags", "idle"),
    "mlocked": ("kflags", "mlocked"),
    "softdirty": ("flags", "soft-dirty"),
    "file": ("flags", "file"),
    "swap": ("flags", "swapped"),
    "mmap_exclusive": ("flags", "exclusive"),
}

# Reader by reader, what one of them cannot tell (pmaps pages --help).
NOT_BY = {
    # PAGEMAP_SCAN has no category for "mapped by this process only".
    "scan": {"mmap_exclusive": "PAGEMAP_SCAN has no exclusive-mapping category"},
    "pagemap": {},
}

UNTRACKED = {
    "locked": "the page lock, held only during I/O or migration: a moment, not a state",
    "error": "I/O error on the page (no longer set since ~6.12)",
    "uptodate": "page cache bookkeeping: every mapped page is up to date",
    "slab": "kernel allocator pages are never mapped into a process",
    "writeback": "being written back: a moment of the page cache, not of the mapping",
    "reclaim": "reclaim bookkeeping (raw mode shows it as readahead when not in writeback)",
    "readahead": "page cache read-ahead marker, not a property of the mapping",
    "buddy": "free pages are never mapped",
    "mmap": "set on every page page-types lists from a process (all are mapped)",
    "compound_head": "folio structure: pmaps shows a large folio as thp (huge when PMD-mapped)",
    "compound_tail": "folio structure: pmaps shows a large folio as thp (huge when PMD-mapped)",
    "hwpoison": "memory failure marker; pmaps does not inject or report poison",
    "nopage": "no struct page (no longer produced ~6.16)",
    "offline": "offlined memory is never mapped",
    "pgtable": "page-table pages are never mapped into a process",
    "reserved": "kernel-debug bit 32 (the zero page and vDSO are reserved)",
    "mappedtodisk": "kernel-debug bit 34 on a file page: PG_mappedtodisk (PG_owner_2 in 6.18), "
                    "the file system's note that the page's blocks are on disk",
    "private": "kernel-debug bit 35: the folio has private data (buffer heads)",
    "private_2": "kernel-debug bit 36",
    "owner_private": "kernel-debug bit 37: owner-defined",
    "arch": "kernel-debug bit 38: architecture-defined",
    "uncached": "kernel-debug bit 39",
    "arch_2": "kernel-debug bit 41: architecture-defined",
    "anon_exclusive": "kernel-debug bit 34 on an anonymous page (page-types's name for it in raw "
                      "mode): PG_anon_exclusive, an rmap detail; pmaps reports exclusivity per "
                      "mapping (pagemap's exclusive bit, compared as mmap_exclusive)",
    "slob_free": "slab overload, never on a mapped page",
    "slub_frozen": "slab overload, never on a mapped page",
    "slub_debug": "slab overload, never on a mapped page",
}


def flag_names(pt):
    """page-types's flag names, in the order of the letters of its -L output."""
    rc, out, err = anchors.run([pt, "-h"])
    text = out.decode()
    if "bit-names:" not in text:
        raise RuntimeError("page-types -h printed no bit names (status %d)" % rc)
    names = []
    for line in text.split("bit-names:", 1)[1].split("\n"):
        if "raw mode bits" in line:
            break
        names += [re.sub(r"\(.\)$", "", w) for w in line.split()]
    unknown = [n for n in names if n not in FLAGS and n not in UNTRACKED]
    if unknown:
        raise RuntimeError("page-types flags this test does not know: %s" % unknown)
    return names


def page_types(pt, pid, names):
    """{virtual page: (frame, map count, set of flag names)}, or None if it failed."""
    rc, out, err = anchors.run([pt, "-r", "-p", str(pid), "-L", "-M", "-N"])
    if rc != 0:
        return None, err.decode("utf-8", "replace").strip()
    pages = {}
    lines = out.decode().split("\n")
    if lines[0].split() != ["voffset", "map-cnt", "offset", "flags"]:
        return None, "unexpected header %r" % lines[0]
    for line in lines[1:]:
        if not line:
            continue
        w = line.split("\t")
        if len(w) != 4 or len(w[3]) != len(names):
            return None, "unexpected line %r" % line
        flags = {names[i] for i, c in enumerate(w[3]) if c != "_"}
        pages[int(w[0], 16)] = (int(w[2], 16), int(w[1]), frozenset(flags))
    return pages, None


def pmaps_pages(pmaps, pid, strategy):
    """({virtual page: (index in run, run)} for the pages of runs with a frame
    or a state, [(first page, end page, run)] for runs with none), or None
    with the reason. Empty runs stay whole: a 64 GiB reservation is one run."""
    rc, out, err = anchors.run([pmaps, "pages", str(pid), "--pfn", "--json",
                                "--strategy", strategy])
    if rc != 0:
        return None, "status %d: %s" % (rc, err.decode("utf-8", "replace").strip())
    doc = json.loads(out.decode("utf-8"))
    if not doc.get("kpageflags"):
        return None, "no kpageflags in the document"
    pages, empty = {}, []
    for r in doc["ranges"]:
        first = int(r["start"], 16) // PAGE
        n = (int(r["end"], 16) - int(r["start"], 16)) // PAGE
        if n != r["pages"]:
            return None, "run %s-%s says %d pages" % (r["start"], r["end"], r["pages"])
        if "pfn" in r or r.get("kflags") or \
                set(r.get("flags", [])) & {"present", "swapped", "zero"}:
            for i in range(n):
                pages[first + i] = (i, r)
        else:
            empty.append((first, first + n, r))
    return (pages, empty), None


def reader_paths(pt, pmaps):
    """Paths of the files pmaps and page-types map while they read.

    /proc/kpagecount counts every mapping of a frame: the reader's own, and
    those of every process that starts or exits on the machine meanwhile.
    For a page of libc or of another file a reader maps, the two readers'
    counts differ by what each maps itself (the pages each happens to touch),
    and by whatever started in between: those counts are not compared (the
    summary counts them). page-types is held blocked on its output
    (anchors.Held) while its maps are read.
    """
    rc, out, err = anchors.run(["sh", "-c", 'exec "$0" maps $$ --json', pmaps])
    if rc != 0:
        raise RuntimeError("pmaps maps on itself: " + err.decode("utf-8", "replace"))
    paths = {m["path"] for m in json.loads(out.decode("utf-8"))["mappings"] if m["inode"]}
    held = anchors.Held([pt, "-r", "-p", str(os.getpid()), "-L", "-N"])
    text = anchors.read_bytes("/proc/%d/maps" % held.p.pid) if held.blocked else None
    held.finish()
    if not isinstance(text, bytes):
        raise RuntimeError("page-types's own mappings could not be read")
    for start, m in anchors.parse_smaps(text).items():
        if m["inode"]:
            paths.add(m["name"].decode("utf-8", "surrogateescape"))
    return paths


class Tally:
    def __init__(self):
        self.pages = 0
        self.listed = 0
        self.fields = 0
        self.moving = 0
        self.explained = {}
        self.differences = []


def compare_pages(pt1, pt2, mine, strategy, who, readers, out):
    """Appends (page, field, pmaps, page-types) differences to OUT; returns counts."""
    nf = moving = listed_pages = 0
    explained = {}
    skipped_here = NOT_BY[strategy]
    mine, empty = mine
    both = sorted(set(pt1) & set(pt2))
    either = sorted(set(pt1) ^ set(pt2))
    for lo, hi, r in empty:
        # Pages pmaps shows in no state: page-types must list none of them.
        nf += hi - lo
        for vp in both[bisect.bisect_left(both, lo):bisect.bisect_left(both, hi)]:
            out.append(("%s page %x (%s)" % (who, vp * PAGE, r.get("path") or r.get("kind", "")),
                        "present", False, True))
        moving += bisect.bisect_left(either, hi) - bisect.bisect_left(either, lo)
    starts = [lo for lo, _, _ in empty]
    for vp in sorted(mine):
        i, r = mine[vp]
        flags = set(r.get("flags", []))
        kflags = set(r.get("kflags", []))
        a, b = pt1.get(vp), pt2.get(vp)
        present = "present" in flags or "swapped" in flags
        zero = any("zero_page" in pt[vp][2] for pt in (pt1, pt2) if vp in pt)
        where = "%s page %x (%s)" % (who, vp * PAGE, r.get("path") or r.get("kind", ""))
        nf += 1
        listed = (a is not None, b is not None)
        if listed[0] != listed[1]:
            if present not in listed:
                moving += 1
            continue
        if present != listed[0] and not (zero and listed[0]):
            out.append((where, "present", present, listed[0]))
            continue
        if a is None:
            continue
        listed_pages += 1
        # The zero page: pmaps follows smaps, where a zero-page mapping is not
        # resident; whether "present" shows for it is pmaps's definition
        # (docs/internals/PAGES.md). Its frame, count and flags still agree.
        for f in a[2] | b[2]:
            if f in UNTRACKED:
                key = "pages where page-types shows %s, which pmaps does not report: %s" % (
                    f, UNTRACKED[f])
                explained[key] = explained.get(key, 0) + 1
        checks = []
        # Map counts, and whether this process alone maps the page, count the
        # readers' own mappings (see reader_paths()).
        shared_with_readers = r.get("path") == "[vdso]" or r.get("path") in readers
        if "swap" not in a[2]:
            pfn = int(r["pfn"], 16) + i if "pfn" in r else None
            checks.append(("pfn", pfn, a[0], b[0]))
            if r.get("path") == "[vdso]":
                key = ("map count not compared on the vDSO page: every process maps it, the "
                       "count moves with every execve() and exit on the machine")
                explained[key] = explained.get(key, 0) + 1
            elif r.get("path") in readers:
                key = ("map count not compared: a page of a file the readers map themselves "
                       "(libc and the like), whose count moves with every process on the machine")
                explained[key] = explained.get(key, 0) + 1
            else:
                checks.append(("mapcount", r.get("mapcount"), a[1], b[1]))
        for f, (lst, name) in FLAGS.items():
            if f == "referenced" and r.get("path") == "[vdso]":
                key = ("referenced not compared on the vDSO page: every execve() on the "
                       "machine flips it (mark_page_accessed() on a page on no LRU list sets "
                       "it, then clears it), the readers' own included")
                explained[key] = explained.get(key, 0) + 1
                continue
            if f == "file" and zero:
                if "file" in a[2] or "file" in b[2]:
                    key = ("page-types shows file on the huge zero page, not compared: pagemap "
                           "sets its file bit there (a PMD that is not anonymous); pmaps's file "
                           "is a file page or shared anonymous memory, never the zero page, as "
                           "PAGEMAP_SCAN has it")
                    explained[key] = explained.get(key, 0) + 1
                    continue
            if f == "mmap_exclusive" and shared_with_readers and strategy == "pagemap":
                key = ("exclusive not compared on a page of a file the readers map: a reader "
                       "that maps the page makes it shared while it reads")
                explained[key] = explained.get(key, 0) + 1
                continue
            if f in skipped_here:
                if f in a[2] or f in b[2]:
                    key = "pages where page-types shows %s, not compared with --strategy %s: %s" % (
                        f, strategy, skipped_here[f])
                    explained[key] = explained.get(key, 0) + 1
                continue
            have = name in (flags if lst == "flags" else kflags)
            checks.append((f, have, f in a[2], f in b[2]))
        if strategy == "scan":
            # PMD-mapped is not in page-types's flags; a PMD maps a large folio.
            big = lambda f: "thp" in f or "huge" in f
            checks.append(("huge (PMD-mapped) implies thp or hugetlb", True,
                           "huge" not in flags or big(a[2]), "huge" not in flags or big(b[2])))
        lazy = "lazyfree" in kflags
        checks.append(("lazyfree (anonymous, not swapbacked)", lazy,
                       "anonymous" in a[2] and "swapbacked" not in a[2],
                       "anonymous" in b[2] and "swapbacked" not in b[2]))
        for field, va, v1, v2 in checks:
            nf += 1
            if va == v1 or va == v2:
                continue
            if v1 != v2:
                moving += 1
                continue
            out.append((where, field, va, v1))
    for vp in both:
        if vp in mine:
            continue
        k = bisect.bisect_right(starts, vp) - 1
        if k < 0 or not empty[k][0] <= vp < empty[k][1]:
            out.append(("%s page %x" % (who, vp * PAGE), "mapped", False, True))
    return len(mine) + sum(hi - lo for lo, hi, _ in empty), listed_pages, nf, moving, explained


def pmaps_summary(pmaps, pid, strategy):
    """The mappings of `pmaps pages PID --summary --json`, or None with the reason."""
    rc, out, err = anchors.run([pmaps, "pages", str(pid), "--summary", "--json",
                                "--strategy", strategy])
    if rc != 0:
        return None, "status %d: %s" % (rc, err.decode("utf-8", "replace").strip())
    return json.loads(out.decode("utf-8"))["mappings"], None


def bins(mc):
    """The summary's map count bins a resident page counts in."""
    out = ["mapped_by_2_or_more"] if mc >= 2 else []
    for name, lo, hi in (("mapped_by_0", 0, 0), ("mapped_by_1", 1, 1), ("mapped_by_2", 2, 2),
                         ("mapped_by_3_4", 3, 4), ("mapped_by_5_8", 5, 8),
                         ("mapped_by_9_or_more", 9, 1 << 62)):
        if lo <= mc <= hi:
            out.append(name)
    return out


def counts(pt, lo, hi, with_mapcount):
    """page-types's pages in [LO, HI) counted the way the summary counts.

    resident: a frame, not the zero page (smaps does not count zero-page
    mappings in Rss, and pmaps follows it); zero: the zero page; the flags
    and the map count histogram over resident pages."""
    c = {}
    add = lambda k: c.__setitem__(k, c.get(k, 0) + 1)
    for vp in range(lo, hi):
        e = pt.get(vp)
        if e is None:
            continue
        frame, mc, f = e
        if "swap" in f:
            add("swapped")
            continue
        if "zero_page" in f:
            add("zero")
            continue
        add("resident")
        for key, flag in (("file", "file"), ("dirty", "dirty"), ("active", "active"),
                          ("referenced", "referenced"), ("idle", "idle_page"), ("thp", "thp"),
                          ("mlocked", "mlocked"), ("exclusive", "mmap_exclusive")):
            if flag in f:
                add(key)
        if "mmap_exclusive" not in f:
            add("shared")
        if "anonymous" in f and "swapbacked" not in f:
            add("lazyfree")
        if with_mapcount:
            for b in bins(mc):
                add(b)
    return c


SUMMARY = ("resident", "swapped", "zero", "file", "dirty", "active", "referenced", "idle",
           "thp", "mlocked", "lazyfree", "exclusive", "shared", "mapped_by_2_or_more",
           "mapped_by_0", "mapped_by_1", "mapped_by_2", "mapped_by_3_4", "mapped_by_5_8",
           "mapped_by_9_or_more")


def compare_summary(pt1, pt2, rows, strategy, who, readers, out):
    """`pages --summary` against page-types's pages counted per mapping."""
    nf = moving = 0
    explained = {}
    for r in rows:
        lo, hi = int(r["start"], 16) // PAGE, int(r["end"], 16) // PAGE
        path = r.get("path")
        mapcount = path != "[vdso]" and path not in readers
        c1 = counts(pt1, lo, hi, mapcount)
        c2 = counts(pt2, lo, hi, mapcount)
        where = "%s mapping %s-%s (%s)" % (who, r["start"], r["end"], path or r.get("kind", ""))
        if r.get("pages") != hi - lo:
            out.append((where, "pages", r.get("pages"), hi - lo))
        for key in SUMMARY:
            if key not in r or (not mapcount and (key.startswith("mapped_by") or
                                                  key in ("exclusive", "shared"))):
                continue
            if key == "referenced" and path == "[vdso]":
                continue  # every execve() flips it: see compare_pages()
            nf += 1
            va, v1, v2 = r[key], c1.get(key, 0), c2.get(key, 0)
            if va == v1 or va == v2:
                continue
            if v1 != v2:
                moving += 1
                continue
            out.append((where, key, va, v1))
        if r.get("huge"):
            k = ("summary's huge (PMD-mapped pages) not compared, counted in mappings, not "
                 "pages: page-types cannot see how a page is mapped")
            explained[k] = explained.get(k, 0) + 1
    return nf, moving, explained


def compare_process(pt, names, pmaps, pid, who, readers, tally):
    for strategy in ("scan", "pagemap"):
        best = None
        persist = set()
        for _ in range(ATTEMPTS):
            pt1, why1 = page_types(pt, pid, names)
            mine, why = pmaps_pages(pmaps, pid, strategy)
            pt2, why2 = page_types(pt, pid, names)
            if pt1 is None or pt2 is None:
                tally.differences.append("%s: page-types failed: %s" % (who, why1 or why2))
                return
            if mine is None:
                out = [(who, "pmaps pages --strategy " + strategy, why, "page-types read it")]
                counts = (0, 0, 0, 0, {})
            else:
                out = []
                counts = compare_pages(pt1, pt2, mine, strategy, who, readers, out)
            keys = {(w, f) for w, f, _, _ in out}
            persist = keys if best is None else persist & keys
            best = (out, counts)
            if not persist:
                break
        # A difference is one that every attempt saw (see compare.py).
        out, (npages, listed, nf, moving, explained) = best
        out = [d for d in out if (d[0], d[1]) in persist]
        best = None
        persist = set()
        for _ in range(ATTEMPTS):
            pt1, why1 = page_types(pt, pid, names)
            rows, why = pmaps_summary(pmaps, pid, strategy)
            pt2, why2 = page_types(pt, pid, names)
            if pt1 is None or pt2 is None:
                tally.differences.append("%s: page-types failed: %s" % (who, why1 or why2))
                return
            sout = []
            if rows is None:
                sout.append((who, "pmaps pages --summary --strategy " + strategy, why,
                             "page-types read it"))
                scounts = (0, 0, {})
            else:
                scounts = compare_summary(pt1, pt2, rows, strategy, who, readers, sout)
            keys = {(w, f) for w, f, _, _ in sout}
            persist = keys if best is None else persist & keys
            best = (sout, scounts)
            if not persist:
                break
        sout, (snf, smoving, sexplained) = best
        sout = [d for d in sout if (d[0], d[1]) in persist]
        out = out + [(w, "summary " + f, va, vb) for w, f, va, vb in sout]
        nf += snf
        moving += smoving
        for k, n in sexplained.items():
            explained[k] = explained.get(k, 0) + n
        tally.pages += npages
        tally.listed += listed
        tally.fields += nf - moving
        tally.moving += moving
        for f, n in explained.items():
            tally.explained[f] = tally.explained.get(f, 0) + n
        for where, field, va, vb in out:
            line = "[%s] %s field %s: pmaps=%s page-types=%s" % (
                strategy, anchors.short(where, quote=False), field, anchors.short(va),
                anchors.short(vb))
            tally.differences.append(line)
            anchors.log("DIFFERENCE " + line)


def show_layout(pt, names, idle):
    """What the layout helper's regions hold by page-types's count: the
    known layouts the pages above were compared on."""
    pid = next((p for p, n in idle.names.items() if n == "layout"), None)
    pages, why = page_types(pt, pid, names) if pid else (None, "no layout helper")
    if pages is None:
        anchors.log("layout regions: not shown (%s)" % why)
        return
    words = []
    for name, (start, end) in idle.regions.items():
        mine = [pages[vp] for vp in range(start // PAGE, end // PAGE) if vp in pages]
        flags = {}
        for _, mc, f in mine:
            for k in ("zero_page", "mlocked", "thp", "file"):
                if k in f:
                    flags[k] = flags.get(k, 0) + 1
            if "anonymous" in f and "swapbacked" not in f:
                flags["lazyfree"] = flags.get("lazyfree", 0) + 1
            if mc >= 2:
                flags["mapped twice or more"] = flags.get("mapped twice or more", 0) + 1
        words.append("%s %d/%d%s" % (name, len(mine), (end - start) // PAGE, "".join(
            ", %d %s" % (n, k) for k, n in sorted(flags.items()))))
    anchors.log("layout regions (pages with a frame/pages, by page-types): " + "; ".join(words))


def frames_visible():
    """Whether pagemap gives this process frame numbers (CAP_SYS_ADMIN)."""
    import ctypes
    buf = ctypes.create_string_buffer(PAGE)
    buf[0] = b"x"
    addr = ctypes.addressof(buf)
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(addr // PAGE * 8)
        e = int.from_bytes(f.read(8), "little")
    return bool(e >> 63) and e & ((1 << 55) - 1) != 0


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: page_types_anchor.py PMAPS LAYOUT PAGE_TYPES_SH")
    pmaps, layout, build = sys.argv[1:]
    if os.geteuid() != 0:
        anchors.skip("needs root: page-types and pmaps's frame numbers read /proc/kpageflags "
                     "and pagemap's frame numbers (CAP_SYS_ADMIN)")
    if not os.access("/proc/kpageflags", os.R_OK):
        anchors.skip("/proc/kpageflags is not readable (no CONFIG_PROC_PAGE_MONITOR?)")
    if not frames_visible():
        anchors.skip("pagemap shows no frame numbers to this root (no CAP_SYS_ADMIN: a "
                     "container?)")
    rc, out, err = anchors.run(["sh", build], timeout=900)
    if rc != 0:
        anchors.skip("page-types could not be built: %s" % err.decode("utf-8", "replace").strip())
    pt = out.decode().strip()
    names = flag_names(pt)
    readers = reader_paths(pt, pmaps)
    tally = Tally()
    idle = anchors.Idle(layout)
    try:
        for pid in idle.pids():
            compare_process(pt, names, pmaps, pid, "pid %d (%s)" % (pid, idle.names[pid]), readers,
                            tally)
        show_layout(pt, names, idle)
    finally:
        idle.stop()
    for key in sorted(tally.explained):
        anchors.log("explained, %d: %s" % (tally.explained[key], key))
    anchors.log("anchors_page_types: %d processes, %d pages compared (%d with a frame), "
                "each with both of pmaps's readers; %d fields, %d differences; "
                "not compared: %d fields moving" %
                (len(idle.names), tally.pages, tally.listed, tally.fields,
                 len(tally.differences), tally.moving))
    if tally.differences:
        anchors.log("%d DIFFERENCES:" % len(tally.differences))
        for d in tally.differences:
            anchors.log("  " + d)
    sys.exit(1 if tally.differences else 0)


if __name__ == "__main__":
    main()
