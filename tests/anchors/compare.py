# SPDX-License-Identifier: MIT
"""One comparison loop for the per-mapping anchors (pmap -XX and psutil).

For each process: read the kernel's smaps, run pmaps, run the peer, read smaps
again, check the process is still the one it was. Then every mapping the two
tools print is matched by start address and every field compared:

- the fields that cannot change without the layout changing (address, end,
  perms, offset, device, inode, path, Size), on every process; a layout that
  moved while the tools ran is read again, never compared;
- every other field where the two tools agree, or where the kernel printed
  the same value before and after (then any disagreement is pmaps's or the
  peer's, not time's). A field that disagrees and moved is read again, up to
  ATTEMPTS times; what never held still is counted as not compared and listed.
  A disagreement on a still field is read again too, and is a difference
  when every attempt saw it (a value can change and change back between the
  kernel's two reads: a process starting and exiting meanwhile).

A reader's own mappings move the very figures it reads: while pmap runs it
maps libc, its libraries and locale files, and each page it maps is shared
with one more process, so the target's Pss of that file drops and pages move
from Private_Clean to Shared_Clean, for the duration of that reader's run
only (the kernel's reads before and after cannot see it). pmaps maps fewer
of them and different pages. On mappings of the files either reader maps
itself (found by letting each read its own process: `sh -c 'exec TOOL $$'`),
Pss is not compared (listed as explained) and Shared_Clean and Private_Clean
are compared as their sum, which sharing does not change.

A peer that reads in this very process (psutil) sets hold_pmaps: pmaps is
then kept blocked on its output once it has read (anchors.Held) while the
peer reads, so both see the same readers mapped, and every field is compared.

The peer is an object with name, read(pid) -> {start: mapping} or None when
it could not read the process (and under "unparsed" the lines it printed
that the test could not read: each is a difference), and compare(start, pmaps_mapping,
peer_mapping, out) which appends (field, pmaps value, peer value, kernel
name or None) for every field it checked.
"""

import errno

import anchors

ATTEMPTS = 4
ATTEMPTS_IDLE = 8


class Tally:
    def __init__(self):
        self.procs = 0
        self.mappings = 0
        self.fields = 0
        self.unstable = 0
        self.explained = 0
        self.differences = []
        self.skipped = {}  # reason -> count
        self.unstable_list = []

    def skip(self, reason):
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


# The fields that move with the number of processes mapping a page.
SHARING = ("pss", "shared_clean", "private_clean")


def pmaps_self_files(pmaps):
    """(dev, inode) of every file pmaps maps while it reads a process."""
    rc, out, err = anchors.run(["sh", "-c", 'exec "$0" maps $$ --json', pmaps])
    if rc != 0:
        raise RuntimeError("pmaps maps on itself failed: %s" % err.decode("utf-8", "replace"))
    import json
    doc = json.loads(out.decode("utf-8"))
    return {(m["dev"], m["inode"]) for m in doc["mappings"] if m["inode"]}


def fold_sharing(checked):
    """On a mapping a reader shares: Pss out, the clean split summed."""
    by = {c[0]: c for c in checked}
    out = [c for c in checked if c[0] not in SHARING]
    explained = 1 if "pss" in by else 0
    if "shared_clean" in by and "private_clean" in by:
        sc, pc = by["shared_clean"], by["private_clean"]
        total = lambda x, y: None if x is None or y is None else x + y
        out.append(("shared_clean+private_clean", total(sc[1], pc[1]), total(sc[2], pc[2]),
                    ("Shared_Clean", "Private_Clean")))
    return out, explained


def one_attempt(pmaps, pid, peer, ident, reader_files):
    """('skip', reason) or ('done', diffs, unstable, mappings, fields) or ('again', why)."""
    before = anchors.read_bytes("/proc/%d/smaps" % pid)
    if isinstance(before, OSError):
        if before.errno in (errno.EACCES, errno.EPERM):
            return ("skip", "not readable by this user")
        return ("skip", "exited")
    if not before:
        return ("skip", "no address space (zombie, exiting or kernel thread)")
    if getattr(peer, "hold_pmaps", False):
        held = anchors.Held([pmaps, "maps", str(pid), "--json", "--exact"])
        theirs = peer.read(pid)
        after = anchors.read_bytes("/proc/%d/smaps" % pid)
        rc, doc, err = anchors.pmaps_doc(*held.finish())
    else:
        rc, doc, err = anchors.pmaps_maps(pmaps, pid)
        theirs = peer.read(pid)
        after = anchors.read_bytes("/proc/%d/smaps" % pid)
    now = anchors.identity(pid)
    if now is None or now[0] != ident[0] or isinstance(after, OSError) or not after:
        return ("skip", "exited")
    if now[1] == "Z":
        return ("skip", "no address space (zombie, exiting or kernel thread)")
    win = anchors.Window(anchors.parse_smaps(before), anchors.parse_smaps(after))
    if not win.same_layout:
        return ("again", "its layout changed while it was read")
    if rc != 0 or theirs is None:
        what = []
        if rc != 0:
            what.append(("exit status", "pmaps: %s: %s" % (rc, err.decode("utf-8", "replace").strip()),
                         "%s read it" % peer.name, None))
        if theirs is None:
            what.append(("exit status", "pmaps read it", "%s failed" % peer.name, None))
        return ("done", [("-", w) for w in what], [], 0, 0, 0)
    mine = {int(m["start"], 16): m for m in doc.get("mappings", [])}
    diffs, unstable = [], []
    explained = 0
    for line in theirs.pop("unparsed", []):
        diffs.append(("-", ("%s output" % peer.name, "-", line, None)))
    nfields = 0
    for start in sorted(set(mine) | set(theirs)):
        a, b = mine.get(start), theirs.get(start)
        label = "%x" % start
        if a is None or b is None:
            diffs.append((label, ("mapping", "present" if a else "absent",
                                  "present" if b else "absent", None)))
            continue
        label = "%x-%x %s" % (start, int(a["end"], 16),
                              anchors.path_bytes(a).decode("utf-8", "backslashreplace"))
        checked = []
        peer.compare(start, a, b, checked)
        if (a["dev"], a["inode"]) in reader_files and a["inode"]:
            checked, n = fold_sharing(checked)
            explained += n
        for field, va, vb, kname in checked:
            nfields += 1
            if va == vb:
                continue
            knames = kname if isinstance(kname, tuple) else (kname,)
            if kname is not None and not all(win.still(start, k) for k in knames):
                unstable.append((label, (field, va, vb, kname)))
            else:
                diffs.append((label, (field, va, vb, kname)))
    return ("done", diffs, unstable, len(mine), nfields, explained)


def compare(pmaps, pid, peer, tally, reader_files, idle_name=None):
    """Compares one process, adds to TALLY, prints what differs."""
    ident = anchors.identity(pid)
    if ident is None:
        tally.skip("exited")
        return
    if anchors.is_kernel_thread(pid):
        tally.skip("kernel thread")
        return
    best = None
    why = None
    persist = set()
    for _ in range(ATTEMPTS_IDLE if idle_name else ATTEMPTS):
        r = one_attempt(pmaps, pid, peer, ident, reader_files)
        if r[0] == "skip":
            if idle_name:
                tally.differences.append("pid %d (%s, started by this test): %s" %
                                         (pid, idle_name, r[1]))
            tally.skip(r[1])
            return
        if r[0] == "again":
            why = r[1]
            continue
        keys = {(label, d[0]) for label, d in r[1]}
        persist = keys if best is None else persist & keys
        best = r
        if not r[1] and not r[2]:
            break
    if best is None:
        tally.skip(why)
        return
    # A difference is one that every attempt saw: pmaps's mistakes are
    # deterministic, a value that changed and changed back is not.
    _, diffs, unstable, nmaps, nfields, explained = best
    diffs = [d for d in diffs if (d[0], d[1][0]) in persist]
    who = "pid %d (%s)" % (pid, idle_name or anchors.comm(pid))
    tally.procs += 1
    tally.mappings += nmaps
    tally.fields += nfields - len(unstable)
    tally.unstable += len(unstable)
    tally.explained += explained
    for label, (field, va, vb, _) in diffs:
        line = "%s mapping %s field %s: pmaps=%s %s=%s" % (
            who, anchors.short(label, quote=False), field, anchors.short(va), peer.name,
            anchors.short(vb))
        tally.differences.append(line)
        anchors.log("DIFFERENCE " + line)
    for label, (field, va, vb, _) in unstable:
        tally.unstable_list.append(
            "%s mapping %s field %s: pmaps=%s %s=%s (the kernel's value moved in each attempt)"
            % (who, anchors.short(label, quote=False), field, anchors.short(va), peer.name,
               anchors.short(vb)))


def report(name, tally, extra="", per_mapping=True):
    for line in tally.unstable_list:
        anchors.log("not compared: " + line)
    skipped = ", ".join("%d %s" % (n, r) for r, n in sorted(tally.skipped.items()))
    anchors.log("%s: %d processes compared, %s%d fields, %d differences; "
                "not compared: %d fields moving%s; skipped: %s%s" %
                (name, tally.procs, "%d mappings, " % tally.mappings if per_mapping else "",
                 tally.fields, len(tally.differences), tally.unstable,
                 ", %d Pss of files the readers map themselves" % tally.explained
                 if per_mapping else "", skipped or "none", extra))
    if tally.differences:
        anchors.log("%d DIFFERENCES:" % len(tally.differences))
        for d in tally.differences:
            anchors.log("  " + d)
    return 1 if tally.differences else 0
