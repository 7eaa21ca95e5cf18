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


def compare_totals(psutil, pmaps, pid, tally, idle_name=None):
    """memory_full_info() against pmaps --total, with the same rules as compare.py."""
    ident = anchors.identity(pid)
    if ident is None or anchors.is_kernel_thread(pid):
        return
    who = "pid %d (%s)" % (pid, idle_name or anchors.comm(pid))
    best = None
    for _ in range(compare.ATTEMPTS_IDLE if idle_name else compare.ATTEMPTS):
        before = rollup(pid)
        if before is None:
            return
        held = anchors.Held([pmaps, "maps", str(pid), "--total", "--json"])
        try:
            info = psutil.Process(pid).memory_full_info()
        except (psutil.Error, OSError):
            info = None
        after = rollup(pid)
        rc, doc, err = anchors.pmaps_doc(*held.finish())
        now = anchors.identity(pid)
        if now is None or now[0] != ident[0] or now[1] == "Z" or after is None:
            if idle_name:
                tally.differences.append("%s: exited while its totals were read" % who)
            return
        diffs, moving = [], []
        if rc != 0 or info is None:
            diffs.append(("exit status", "pmaps %s: %s" % (rc, err.decode("utf-8", "replace")),
                          "psutil %s" % ("failed" if info is None else "read it"), ()))
        else:
            t = doc["total"]
            uss = sum(t.get(k, 0) for k in ("private_clean", "private_dirty", "private_hugetlb"))
            for field, va, vb, knames in (
                    ("uss", uss, info.uss, ("Private_Clean", "Private_Dirty", "Private_Hugetlb")),
                    ("pss", t.get("pss"), info.pss, ("Pss",)),
                    ("swap", t.get("swap"), info.swap, ("Swap",))):
                if va == vb:
                    continue
                still = all(before.get(k) == after.get(k) for k in knames)
                (diffs if still else moving).append((field, va, vb, knames))
        if best is None or (len(diffs), len(moving)) < (len(best[0]), len(best[1])):
            best = (diffs, moving)
        if not diffs and not moving:
            break
    diffs, moving = best
    tally.procs += 1
    tally.fields += 3 - len(moving)
    tally.unstable += len(moving)
    for field, va, vb, _ in diffs:
        line = "%s totals field %s: pmaps=%r psutil=%r" % (who, field, va, vb)
        tally.differences.append(line)
        anchors.log("DIFFERENCE " + line)
    for field, va, vb, _ in moving:
        tally.unstable_list.append("%s totals field %s: pmaps=%r psutil=%r (the kernel's value "
                                   "moved in each attempt)" % (who, field, va, vb))


def main():
    args = sys.argv[1:]
    sample = None
    if "--sample" in args:
        i = args.index("--sample")
        sample = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit("usage: psutil_anchor.py PMAPS LAYOUT [--sample N]")
    pmaps, layout = args
    try:
        import psutil
    except ImportError:
        anchors.skip("psutil is not installed for %s (Debian package python3-psutil, "
                     "for /usr/bin/python3)" % sys.executable)
    anchors.log("psutil %s, %s" % (psutil.__version__, sys.executable))
    peer = Psutil(psutil)
    maps, totals = compare.Tally(), compare.Tally()
    idle = anchors.Idle(layout)
    note = ""
    try:
        for pid in idle.pids():
            compare.compare(pmaps, pid, peer, maps, set(), idle.names[pid])
            compare_totals(psutil, pmaps, pid, totals, idle.names[pid])
        others, note = anchors.machine(idle.names, sample)
        for pid in others:
            compare.compare(pmaps, pid, peer, maps, set())
            compare_totals(psutil, pmaps, pid, totals)
    finally:
        idle.stop()
    bad = compare.report("anchors_psutil memory_maps", maps, note)
    bad |= compare.report("anchors_psutil memory_full_info", totals, note, per_mapping=False)
    sys.exit(bad)


if __name__ == "__main__":
    main()
