# SPDX-License-Identifier: MIT
"""pmaps against procps `pmap -XX -p`, mapping by mapping, on every process.

Every readable user process of the machine (kernel threads, processes that
exit while they are read and this script itself are skipped, and counted),
plus the idle processes the test starts (anchors.Idle). For each mapping:
address, end, perms, offset, device, inode, path, VmFlags and every size
column pmap prints (kB there, bytes in pmaps's JSON). See compare.py for how
memory that moves between the two reads is told from a difference.

How pmap prints (procps-ng 4.0.2, print_extended_maps()), and what the test
does about it:
- The columns are the smaps keys of the first mapping, in the kernel's order;
  each is matched to pmaps's key by name (anchors.KERNEL_TO_JSON).
- Address is the start only; the end is start + Size.
- The mapping column (-p: the whole name, not the basename) is the kernel's
  name as maps prints it, read with scanf("%127[^\\n]"): at most 127 bytes,
  leading blanks dropped. pmaps's path is turned back into the kernel's text
  (anchors.path_bytes) and cut the same way; nothing else is normalised.
- VmFlags are read with scanf("%[a-z ]"): the flags up to the first code that
  is not two lower-case letters (the kernel's "??"). Compared as far as pmap
  read them, so a "??" would show as a difference, not pass unseen.
- The row is split as: address, perms, offset, device, inode, one number per
  size column, then the VmFlags codes (two lower-case letters each), one
  blank, the name. Kernel names start with '/', '[' or "anon_inode:", so a
  name is never taken for a flag.
- pmap exits 0 with no rows when it may not read smaps: readability is
  decided by this script's own read of smaps, never by pmap's status.

Usage: pmap_anchor.py PMAPS LAYOUT [--sample N]
"""

import re
import shutil
import sys

import anchors
import compare


class Pmap:
    name = "pmap"

    def __init__(self, exe):
        self.exe = exe

    def read(self, pid):
        rc, out, err = anchors.run([self.exe, "-XX", "-p", str(pid)])
        if rc != 0:
            return None
        return self.parse(out)

    def self_files(self):
        """(dev, inode) of every file pmap maps while it reads a process."""
        rc, out, err = anchors.run(["sh", "-c", 'exec "$0" -XX -p $$', self.exe])
        rows = self.parse(out) if rc == 0 else None
        if not rows or "unparsed" in rows:
            raise RuntimeError("pmap on itself: status %d, %r" % (rc, err))
        return {(r["dev"], r["inode"]) for r in rows.values() if r["inode"]}

    @staticmethod
    def parse(out):
        lines = out.split(b"\n")
        cols = None
        rows = {}
        for line in lines:
            w = line.split()
            if cols is None:
                if w[:5] == [b"Address", b"Perm", b"Offset", b"Device", b"Inode"]:
                    end = w.index(b"VmFlags") if b"VmFlags" in w else len(w) - 1
                    cols = [c.decode() for c in w[5:end]]
                    row = re.compile(rb"^ *([0-9a-f]+) +(\S+) +([0-9a-f]+) +([0-9a-f]+):([0-9a-f]+)"
                                     rb" +(\d+)((?: +\d+){%d}) +((?:[a-z]{2} )*[a-z]{2})?(?: (.*))?$"
                                     % len(cols))
                continue
            if not w or w[0].startswith(b"="):
                break
            m = row.match(line)
            if m is None:
                rows.setdefault("unparsed", []).append(line)
                continue
            vals = m.group(7).split()
            start = int(m.group(1), 16)
            rows[start] = {
                "perms": m.group(2).decode(), "offset": int(m.group(3), 16),
                "dev": "%02x:%02x" % (int(m.group(4), 16), int(m.group(5), 16)),
                "inode": int(m.group(6)),
                "fields": dict(zip(cols, (v.decode() for v in vals))),
                "vm_flags": (m.group(8) or b"").decode().split(),
                "path": m.group(9) or b"",
            }
        if cols is None:
            return {}
        return rows

    def compare(self, start, a, b, out):
        size = int(b["fields"].get("Size", "0")) * 1024
        out.append(("end", int(a["end"], 16), start + size, "Size"))
        out.append(("perms", a["perms"], b["perms"], None))
        out.append(("offset", a["offset"], b["offset"], None))
        out.append(("dev", a["dev"], b["dev"], None))
        out.append(("inode", a["inode"], b["inode"], None))
        out.append(("path", anchors.path_bytes(a)[:127].lstrip(b" \t"), b["path"], None))
        for kname, text in b["fields"].items():
            key = anchors.snake(kname)
            out.append((key, a.get(key), anchors.kernel_value(kname, text), kname))
        # pmap keeps the codes before the first that is not [a-z]{2}.
        flags = a.get("vm_flags", [])
        n = next((i for i, f in enumerate(flags) if not re.fullmatch(r"[a-z]{2}", f)), len(flags))
        out.append(("vm_flags", " ".join(flags[:n]), " ".join(b["vm_flags"]), "VmFlags"))


def main():
    pmaps, layout, sample = anchors.pmaps_layout_args("pmap_anchor.py")
    exe = shutil.which("pmap")
    if exe is None:
        anchors.skip("procps pmap is not installed (Debian package procps)")
    peer = Pmap(exe)
    readers = peer.self_files() | compare.pmaps_self_files(pmaps)
    tally = compare.Tally()
    idle = anchors.Idle(layout)
    try:
        for pid in idle.pids():
            compare.compare(pmaps, pid, peer, tally, readers, idle.names[pid])
        others, note = anchors.machine(idle.names, sample)
        for pid in others:
            compare.compare(pmaps, pid, peer, tally, readers)
    finally:
        idle.stop()
    sys.exit(compare.report("anchors_pmap", tally, note))


if __name__ == "__main__":
    main()
