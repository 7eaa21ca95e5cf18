# SPDX-License-Identifier: MIT
"""pmaps against psutil, on every process: mappings and the rollup totals.

1. Process(pid).memory_maps(grouped=False) against `pmaps maps PID --json`,
   mapping by mapping: address (start-end), perms, path and psutil's ten
   sizes (rss, size, pss, shared_clean, shared_dirty, private_clean,
   private_dirty, referenced, anonymous, swap), all in bytes on both sides.
2. Process(pid).memory_full_info() against `pmaps maps PID --total --json`:
   uss, pss and swap, which psutil 5.9 takes from smaps_rollup (uss is the
   sum of its Private_* lines: Private_Clean + Private_Dirty +
   Private_Hugetlb).
3. Process(pid).memory_maps(grouped=True) against `pmaps maps PID --group
   path --json`: the ten sizes summed per path (psutil's path: see below).
4. `pmaps explain PID --json`: its status, smaps_rollup, rss and uss figures
   against memory_info() (statm) and memory_full_info().

psutil reads in this process, so pmaps is held blocked on its output while
psutil reads (anchors.Held): both see the same set of readers mapped and Pss
can be held to the byte. compare.py explains how moving memory is told from
a difference; the totals use the same rule on smaps_rollup.

psutil's path, from the kernel's maps name (psutil/_pslinux.py, 5.9.4), and
pmaps's path turned into it (the only normalisation):
- an empty name is "[anon]";
- otherwise the name decoded with the file system encoding and
  surrogateescape, then stripped of leading and trailing white space;
- " (deleted)" removed when the name with it is not a file that exists
  (os.stat fails).

Usage: psutil_anchor.py PMAPS LAYOUT [--sample N]
"""

import os
import sys

import anchors
import compare

FIELDS = ("rss", "size", "pss", "shared_clean", "shared_dirty", "private_clean",
          "private_dirty", "referenced", "anonymous", "swap")
KERNEL = {"rss": "Rss", "size": "Size", "pss": "Pss", "shared_clean": "Shared_Clean",
          "shared_dirty": "Shared_Dirty", "private_clean": "Private_Clean",
          "private_dirty": "Private_Dirty", "referenced": "Referenced",
          "anonymous": "Anonymous", "swap": "Swap"}


def psutil_path(kernel_name):
    if not kernel_name:
        return "[anon]"
    p = kernel_name.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()).strip()
    if p.endswith(" (deleted)"):
        try:
            os.stat(p)
        except (OSError, ValueError):
            p = p[:-10]
    return p


class Psutil:
    name = "psutil"
    hold_pmaps = True

    def __init__(self, psutil):
        self.psutil = psutil

    def read(self, pid):
        try:
            maps = self.psutil.Process(pid).memory_maps(grouped=False)
        except (self.psutil.Error, OSError):
            return None
        rows = {}
        for m in maps:
            start, end = (int(x, 16) for x in m.addr.split("-"))
            rows[start] = (end, m)
        return rows

    def compare(self, start, a, b, out):
        end, m = b
        out.append(("end", int(a["end"], 16), end, None))
        out.append(("perms", a["perms"], m.perms, None))
        if a.get("path_truncated"):
            # pmaps keeps the first bytes of a name too long for it and says
            # so (pmaps(1)): those bytes must begin psutil's path.
            p = anchors.path_bytes(a).decode(sys.getfilesystemencoding(),
                                             sys.getfilesystemencodeerrors()).lstrip()
            out.append(("path (pmaps says path_truncated: its start)", p, m.path[:len(p)], None))
        else:
            out.append(("path", psutil_path(anchors.path_bytes(a)), m.path, None))
        for f in FIELDS:
            out.append((f, a.get(f), getattr(m, f), KERNEL[f]))


def rollup(pid):
    """{Name: kB} from the kernel's smaps_rollup, or None."""
    text = anchors.read_bytes("/proc/%d/smaps_rollup" % pid)
    if isinstance(text, OSError) or not text:
        return None
    out = {}
    for line in text.split(b"\n")[1:]:
        m = anchors.FIELD.match(line)
        if m:
            out[m.group(1).decode()] = int(m.group(2))
    return out


def settle(n, attempt):
    """Runs ATTEMPT up to N times, until it sees no difference and nothing moving.

    ATTEMPT returns None when the process is gone, else (differences as
    (key, pmaps, psutil), moving as the same, number of fields). A
    difference is one that every attempt saw (see compare.py)."""
    persist, last = set(), None
    for _ in range(n):
        r = attempt()
        if r is None:
            return None
        keys = {d[0] for d in r[0]}
        persist = keys if last is None else persist & keys
        last = r
        if not r[0] and not r[1]:
            break
    diffs, moving, nf = last
    return [d for d in diffs if d[0] in persist], moving, nf


def tally_up(tally, who, result, idle_name):
    if result is None:
        if idle_name:
            tally.differences.append("%s: exited while it was read" % who)
        tally.skip("exited")
        return
    diffs, moving, nf = result
    tally.procs += 1
    tally.fields += nf - len(moving)
    tally.unstable += len(moving)
    for key, va, vb in diffs:
        line = "%s %s: pmaps=%s psutil=%s" % (
            who, anchors.short(key, quote=False), anchors.short(va), anchors.short(vb))
        tally.differences.append(line)
        anchors.log("DIFFERENCE " + line)
    for key, va, vb in moving:
        tally.unstable_list.append(
            "%s %s: pmaps=%s psutil=%s (the kernel's value moved in each attempt)"
            % (who, anchors.short(key, quote=False), anchors.short(va), anchors.short(vb)))


def held_read(pmaps, pid, args, read_peer, read_kernel, ident):
    """(kernel before, pmaps document, status, stderr, peer's answer, kernel after), None if gone.

    pmaps is held blocked on its output while the peer reads (anchors.Held)."""
    before = read_kernel(pid)
    if before is None:
        return None
    # --exact: smaps however big the process (never the pages source, paced).
    argv = ([pmaps] + args if args[0] == "explain" else
            [pmaps, "maps", str(pid), "--json"] + args) + ["--exact"]
    held = anchors.Held(argv)
    theirs = read_peer()
    after = read_kernel(pid)
    rc, doc, err = anchors.pmaps_doc(*held.finish())
    now = anchors.identity(pid)
    if now is None or now[0] != ident[0] or now[1] == "Z" or after is None:
        return None
    return before, doc, rc, err, theirs, after


def compare_totals(psutil, pmaps, pid, tally, idle_name=None):
    """memory_full_info() against pmaps --total, with the same rules as compare.py."""
    ident = anchors.identity(pid)
    if ident is None or anchors.is_kernel_thread(pid):
        return
    who = "pid %d (%s)" % (pid, idle_name or anchors.comm(pid))

    def info():
        try:
            return psutil.Process(pid).memory_full_info()
        except (psutil.Error, OSError):
            return None

    def attempt():
        r = held_read(pmaps, pid, ["--total"], info, rollup, ident)
        if r is None:
            return None
        before, doc, rc, err, theirs, after = r
        if rc != 0 or theirs is None:
            return ([("exit status", "pmaps %s: %s" % (rc, err.decode("utf-8", "replace")),
                      "failed" if theirs is None else "read it")], [], 1)
        diffs, moving = [], []
        t = doc["total"]
        uss = sum(t.get(k, 0) for k in ("private_clean", "private_dirty", "private_hugetlb"))
        split_diffs("totals field ", (
            ("uss", uss, theirs.uss, ("Private_Clean", "Private_Dirty", "Private_Hugetlb")),
            ("pss", t.get("pss"), theirs.pss, ("Pss",)),
            ("swap", t.get("swap"), theirs.swap, ("Swap",))), before, after, diffs, moving)
        return diffs, moving, 3

    tally_up(tally, who, settle(compare.ATTEMPTS_IDLE if idle_name else compare.ATTEMPTS,
                                attempt), idle_name)


def split_diffs(prefix, rows, before, after, diffs, moving):
    """Each (field, ours, theirs, kernel names) that differs goes to DIFFS when
    the kernel's figures it rests on stood still from BEFORE to AFTER, else to
    MOVING (the process changed under the comparison)."""
    for field, va, vb, knames in rows:
        if va == vb:
            continue
        still = all(before.get(k) == after.get(k) for k in knames)
        (diffs if still else moving).append((prefix + field, va, vb))


def rollup_statm(pid):
    """smaps_rollup's fields, and statm's resident pages as "statm", or None."""
    r = rollup(pid)
    text = anchors.read_bytes("/proc/%d/statm" % pid)
    if r is None or isinstance(text, OSError) or not text:
        return None
    r["statm"] = int(text.split()[1])
    return r


def compare_explain(psutil, pmaps, pid, tally, idle_name=None):
    """pmaps explain's own figures against psutil's: rss (status VmRSS, and
    explain's rss) against memory_info().rss (statm), and the smaps_rollup
    block and uss against memory_full_info(). explain's top-level pss is the
    sum over smaps, where the kernel truncates each mapping's Pss: it is
    below the rollup's by design, and compared through the rollup block."""
    ident = anchors.identity(pid)
    if ident is None or anchors.is_kernel_thread(pid):
        return
    who = "pid %d (%s)" % (pid, idle_name or anchors.comm(pid))

    def both():
        try:
            p = psutil.Process(pid)
            return p.memory_info(), p.memory_full_info()
        except (psutil.Error, OSError):
            return None

    def attempt():
        r = held_read(pmaps, pid, ["explain", str(pid), "--json"], both, rollup_statm, ident)
        if r is None:
            return None
        before, doc, rc, err, theirs, after = r
        if rc != 0 or theirs is None:
            return ([("exit status", "pmaps %s: %s" % (rc, err.decode("utf-8", "replace")),
                      "failed" if theirs is None else "read it")], [], 1)
        mi, fi = theirs
        st, ro = doc.get("status", {}), doc.get("smaps_rollup", {})
        diffs, moving = [], []
        # explain's uss is of its RSS, Private_Clean + Private_Dirty: the kernel keeps
        # hugetlb pages out of Rss (explain shows them as their own category), while
        # psutil's uss adds Private_Hugetlb.
        hugetlb = before.get("Private_Hugetlb", 0) * 1024
        split_diffs("explain field ", (
            ("status.vm_rss", st.get("vm_rss"), mi.rss, ("statm",)),
            ("rss", doc.get("rss"), mi.rss, ("statm", "Rss")),
            ("uss", doc.get("uss"), fi.uss - hugetlb,
             ("Private_Clean", "Private_Dirty", "Private_Hugetlb")),
            ("smaps_rollup.rss", ro.get("rss"), mi.rss, ("statm", "Rss")),
            ("smaps_rollup.pss", ro.get("pss"), fi.pss, ("Pss",)),
            ("smaps_rollup.swap", ro.get("swap"), fi.swap, ("Swap",))),
            before, after, diffs, moving)
        return diffs, moving, 6

    tally_up(tally, who, settle(compare.ATTEMPTS_IDLE if idle_name else compare.ATTEMPTS,
                                attempt), idle_name)


def smaps_by_psutil_path(pid):
    """{psutil's path: {kernel name: sum}} from the kernel's smaps, or None."""
    text = anchors.read_bytes("/proc/%d/smaps" % pid)
    if isinstance(text, OSError) or not text:
        return None
    out = {}
    for m in anchors.parse_smaps(text).values():
        g = out.setdefault(psutil_path(m["name"]), {})
        for k, v in m["fields"].items():
            if k != "VmFlags":
                g[k] = g.get(k, 0) + int(v)
    return out


def compare_grouped(psutil, pmaps, pid, tally, idle_name=None):
    """memory_maps(grouped=True) against pmaps --group path, with the same rules.

    psutil groups by its own path (psutil_path()); pmaps's groups are mapped
    to that key through the same function and summed where two meet."""
    ident = anchors.identity(pid)
    if ident is None or anchors.is_kernel_thread(pid):
        return
    who = "pid %d (%s)" % (pid, idle_name or anchors.comm(pid))

    def grouped():
        try:
            return {m.path: m for m in psutil.Process(pid).memory_maps(grouped=True)}
        except (psutil.Error, OSError):
            return None

    def attempt():
        r = held_read(pmaps, pid, ["--group", "path"], grouped, smaps_by_psutil_path, ident)
        if r is None:
            return None
        before, doc, rc, err, theirs, after = r
        if rc != 0 or theirs is None:
            return ([("exit status", "pmaps %s: %s" % (rc, err.decode("utf-8", "replace")),
                      "failed" if theirs is None else "read it")], [], 1)
        mine, cut = {}, {}
        for g in doc["groups"]:
            key = psutil_path(anchors.path_bytes(g))
            sums = mine.setdefault(key, {})
            for f in FIELDS:
                sums[f] = sums.get(f, 0) + g.get(f, 0)
            cut[key] = bool(g.get("path_truncated"))
        diffs, moving, nf = [], [], 0
        # A group whose path pmaps had to cut: psutil's groups that begin with
        # it, summed, stand for it. Where pmaps does not say it cut the path,
        # that is a difference in itself (a path is never cut silently).
        for key in [k for k in mine if k not in theirs]:
            longer = [k for k in theirs if k.startswith(key) and k not in mine]
            if not longer:
                continue
            if not cut[key]:
                diffs.append(("group %s" % key, "path cut to %d bytes, no path_truncated, "
                              "%d paths in one group" % (len(key.encode("utf-8",
                                                         "surrogateescape")), len(longer)),
                              "%d groups, paths of %s bytes" % (
                                  len(longer), "/".join(str(len(k.encode("utf-8",
                                                            "surrogateescape")))
                                                        for k in longer))))
            parts = [theirs.pop(k) for k in longer]
            theirs[key] = type("Merged", (), {f: sum(getattr(p, f) for p in parts)
                                              for f in FIELDS})
            for b_ in (before, after):
                parts = [b_.get(k, {}) for k in longer]
                b_[key] = {n: sum(p.get(n, 0) for p in parts) for n in KERNEL.values()}
        for key in sorted(set(mine) | set(theirs)):
            a, b = mine.get(key), theirs.get(key)
            if a is None or b is None:
                diffs.append(("group %s" % key, "present" if a else "absent",
                              "present" if b else "absent"))
                continue
            for f in FIELDS:
                nf += 1
                va, vb = a[f], getattr(b, f)
                if va == vb:
                    continue
                k = KERNEL[f]
                still = key in before and key in after and \
                    before[key].get(k) == after[key].get(k)
                (diffs if still else moving).append(("group %s field %s" % (key, f), va, vb))
        return diffs, moving, nf

    tally_up(tally, who, settle(compare.ATTEMPTS_IDLE if idle_name else compare.ATTEMPTS,
                                attempt), idle_name)


def main():
    pmaps, layout, sample = anchors.pmaps_layout_args("psutil_anchor.py")
    try:
        import psutil
    except ImportError:
        anchors.skip("psutil is not installed for %s (Debian package python3-psutil, "
                     "for /usr/bin/python3)" % sys.executable)
    anchors.log("psutil %s, %s" % (psutil.__version__, sys.executable))
    peer = Psutil(psutil)
    maps, totals, groups, explain = (compare.Tally(), compare.Tally(), compare.Tally(),
                                     compare.Tally())
    idle = anchors.Idle(layout)
    note = ""
    try:
        for pid in idle.pids():
            compare.compare(pmaps, pid, peer, maps, set(), idle.names[pid])
            compare_totals(psutil, pmaps, pid, totals, idle.names[pid])
            compare_grouped(psutil, pmaps, pid, groups, idle.names[pid])
            compare_explain(psutil, pmaps, pid, explain, idle.names[pid])
        others, note = anchors.machine(idle.names, sample)
        for pid in others:
            compare.compare(pmaps, pid, peer, maps, set())
            compare_totals(psutil, pmaps, pid, totals)
            compare_grouped(psutil, pmaps, pid, groups)
            compare_explain(psutil, pmaps, pid, explain)
    finally:
        idle.stop()
    bad = compare.report("anchors_psutil memory_maps", maps, note)
    bad |= compare.report("anchors_psutil memory_full_info", totals, note, per_mapping=False)
    bad |= compare.report("anchors_psutil memory_maps(grouped=True)", groups, note,
                          per_mapping=False)
    bad |= compare.report("anchors_psutil explain", explain, note, per_mapping=False)
    sys.exit(bad)


if __name__ == "__main__":
    main()
