# SPDX-License-Identifier: MIT
"""A hostile target for the CLI tests, and the checks on what pmaps made of it.

  hostile.py target DIR    maps files whose names hold terminal escapes, a
                           newline, a backslash, a lone Latin-1 byte, an
                           emoji, a C1 control and a bidi override; a file at
                           DIR/jvm/<ESC]0;PWNED BEL ESC[2J>/lib/server/libjvm.so
                           (so explain names the JVM by it); an hsperfdata file
                           whose collector name is an escape sequence. A child
                           maps the same files, so their pages are shared and
                           clean. Prints "ready PID", then sleeps.
  hostile.py fixture DIR   writes the fixture tree tests/data/hostile/proc/4242:
                           an executable whose Go build info gives an escape
                           sequence as its version, a file name of 300 bytes
                           of two-byte characters, one of 5,000 bytes (longer
                           than explain keeps), one with escapes.
  hostile.py check FORMAT FILE...
                           FORMAT text, csv, json or jsonl: every FILE is valid UTF-8
                           with no C0 control but newline, no DEL, no C1
                           control; json files parse with a strict parser.
"""
import json
import os
import mmap
import struct
import sys
import time

ESC = b"\x1b]0;PWNED\x07\x1b[2J"
NAMES = [
    b"esc-" + ESC + b".so",
    b"new\nline.so",
    b"back\\slash.so",
    b"lat1-\xe9.so",
    b"emoji-\xf0\x9f\x98\x80.so",
    b"c1-\xc2\x9b2J.so",
    b"rlo-\xe2\x80\xaeos.txt",
]
SIZE = 4 << 20


def perf_entry(name, kind, value):
    """One hsperfdata entry: a string ('B') or a long ('J')."""
    name = name.encode() + b"\0"
    doff = (20 + len(name) + 7) & ~7
    data = value + b"\0" if kind == "B" else struct.pack("<Q", value)
    length = (doff + len(data) + 7) & ~7
    vlen = len(data) if kind == "B" else 0
    head = struct.pack("<IIIcxxxI", length, 20, vlen, kind.encode(), doff)
    return (head + name).ljust(doff, b"\0") + data.ljust(length - doff, b"\0")


def hsperfdata():
    entries = perf_entry("sun.gc.policy.name", "B", ESC + b"\xe9")
    entries += perf_entry("sun.gc.generation.0.maxCapacity", "J", 1 << 30)
    head = b"\xca\xfe\xc0\xc0\x01\x02\x00\x01" + bytes(16) + struct.pack("<II", 32, 2)
    return (head + entries).ljust(4096, b"\0")


def touch_all(paths, keep):
    for p in paths:
        with open(p, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, mmap.MAP_PRIVATE, mmap.PROT_READ)
        for off in range(0, len(m), 4096):
            m[off]
        keep.append(m)


def target(top):
    top = os.fsencode(top)
    paths = []
    for n in NAMES:
        paths.append(os.path.join(top, n))
    jvm = os.path.join(top, b"jvm", ESC, b"lib", b"server")
    os.makedirs(jvm)
    paths.append(os.path.join(jvm, b"libjvm.so"))
    for p in paths:
        with open(p, "wb") as f:
            f.write(b"\1" * SIZE)
            os.fsync(f.fileno())  # clean pages: dirty ones are not the kernel's to drop
    perfdir = os.path.join(top, b"hsperfdata_" + ESC)
    os.makedirs(perfdir)
    perf = os.path.join(perfdir, b"123")
    with open(perf, "wb") as f:
        f.write(hsperfdata())
    keep = []
    with open(perf, "rb") as f:
        keep.append(mmap.mmap(f.fileno(), 0, mmap.MAP_SHARED, mmap.PROT_READ))
    touch_all(paths, keep)
    parent = os.getpid()
    if os.fork() == 0:
        # The same pages mapped by a second process: shared, and clean.
        touch_all(paths, keep)
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)
    print("ready", os.getpid(), flush=True)
    time.sleep(120)


def go_exe():
    """A 64-bit ELF with only a .go.buildinfo section, its version inline."""
    version = b"go1.22" + ESC + b"\xe9"
    strtab = b"\0.shstrtab\0.go.buildinfo\0"
    info = b"\xff Go buildinf:" + bytes([8, 2]) + bytes(16) + bytes([len(version)]) + version
    info = info.ljust(64, b"\0") + bytes(64)
    str_off = 64 + 3 * 64
    info_off = str_off + 64
    eh = bytearray(64)
    eh[0:8] = b"\x7fELF\x02\x01\x01\x00"
    struct.pack_into("<HHI", eh, 16, 2, 62, 1)          # ET_EXEC, x86-64, version 1
    struct.pack_into("<Q", eh, 0x28, 64)                 # section headers right after
    struct.pack_into("<HHH", eh, 0x3a, 64, 3, 1)         # shentsize, shnum, shstrndx
    def sh(name, off, size):
        h = bytearray(64)
        struct.pack_into("<I", h, 0, name)
        struct.pack_into("<Q", h, 0x18, off)
        struct.pack_into("<Q", h, 0x20, size)
        return bytes(h)
    shs = bytes(64) + sh(1, str_off, len(strtab)) + sh(11, info_off, len(info))
    return bytes(eh) + shs + strtab.ljust(64, b"\0") + info


def smaps_entry(start, end, perms, inode, path, rss_kb, shared_kb=0, anon=False):
    line = b"%08x-%08x %s 00000000 fe:00 %d" % (start, end, perms, inode)
    if path:
        line = line.ljust(73) + path.replace(b"\n", b"\\012")
    private = rss_kb - shared_kb
    fields = [("Size", (end - start) >> 10), ("KernelPageSize", 4), ("MMUPageSize", 4),
              ("Rss", rss_kb), ("Pss", rss_kb), ("Pss_Dirty", private if anon else 0),
              ("Shared_Clean", shared_kb), ("Shared_Dirty", 0),
              ("Private_Clean", 0 if anon else private), ("Private_Dirty", private if anon else 0),
              ("Referenced", rss_kb), ("Anonymous", private if anon else 0), ("KSM", 0),
              ("LazyFree", 0), ("AnonHugePages", 0), ("ShmemPmdMapped", 0),
              ("FilePmdMapped", 0), ("Shared_Hugetlb", 0), ("Private_Hugetlb", 0), ("Swap", 0),
              ("SwapPss", 0), ("Locked", 0)]
    out = line + b"\n"
    for k, v in fields:
        out += (b"%s:" % k.encode()).ljust(16) + b"%8d kB\n" % v
    return out + b"THPeligible:           0\nVmFlags: rd mr mw me \n"


def fixture(top):
    d = os.path.join(top, "4242")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "exe"), "wb") as f:
        f.write(go_exe())
    # 300 bytes: explain used to keep 127, cutting a character in two.
    p300 = b"/data/" + b"\xc3\xa9" * 147 + b".bin"
    # 5,000 bytes, with byte 4351 the second of a two-byte character.
    p5000 = b"/deep/" + b"d" * 4344 + b"\xc3\xa9" * 300 + b"/end.bin"
    maps = [(0x400000, 0x410000, b"r-xp", 11, b"/usr/bin/hostile-go", 64),
            (0x800000, 0xa00000, b"r--p", 12, p300, 2048, 2048),
            (0xa00000, 0xc00000, b"r--p", 13, p5000, 1024),
            (0xc00000, 0xd00000, b"rw-p", 14, b"/tmp/esc-" + ESC + b"\xe9\n.so", 512),
            (0xe00000, 0xf00000, b"rw-p", 0, b"", 256, 0, True)]
    smaps = b"".join(smaps_entry(*m) for m in maps)
    with open(os.path.join(d, "smaps"), "wb") as f:
        f.write(smaps)
    with open(os.path.join(d, "maps"), "wb") as f:
        f.write(b"".join(l + b"\n" for l in smaps.split(b"\n") if l[:1] in b"0123456789abcdef"
                         and b"-" in l.split(b" ")[0]))
    # The kernel's sums: the anonymous 256 kB dirty, 2048 kB shared clean, the rest private clean.
    rollup = smaps_entry(0x400000, 0xf00000, b"---p", 0, b"[rollup]", 3904, 2048)
    rollup = rollup.replace(b"Private_Clean:      1856", b"Private_Clean:      1600")
    rollup = rollup.replace(b"Private_Dirty:         0", b"Private_Dirty:       256")
    rollup = rollup.replace(b"Anonymous:             0", b"Anonymous:           256")
    rollup = rollup.replace(b"Pss_Dirty:             0", b"Pss_Dirty:           256")
    with open(os.path.join(d, "smaps_rollup"), "wb") as f:
        f.write(b"".join(l + b"\n" for l in rollup.split(b"\n")
                         if l and not l.startswith((b"Size", b"KernelPage", b"MMUPage",
                                                    b"THPelig", b"VmFlags"))))


def check(fmt, files):
    bad = 0
    for name in files:
        data = open(name, "rb").read()
        why = None
        for i, c in enumerate(data):
            if (c < 0x20 and c != 0x0A) or c == 0x7F:
                why = "raw byte 0x%02x at %d" % (c, i)
                break
        if not why:
            try:
                text = data.decode("utf-8", errors="strict")
            except UnicodeDecodeError as e:
                why = "not UTF-8: %s" % e
        if not why:
            c1 = [ch for ch in text if 0x80 <= ord(ch) <= 0x9F]
            if c1:
                why = "C1 control U+%04X" % ord(c1[0])
        if not why and fmt in ("json", "jsonl"):
            # JSON Lines: every line one document, each with its pid.
            docs = text.split("\n")[:-1] if fmt == "jsonl" else [text]
            try:
                for doc in docs:
                    o = json.loads(doc, strict=True,
                                   parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
                    if fmt == "jsonl" and "pid" not in o:
                        raise ValueError("a line without pid")
            except ValueError as e:
                why = "invalid JSON: %s" % e
        if why:
            print("FAIL: %s: %s" % (name, why))
            bad += 1
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "target":
        target(sys.argv[2])
    elif sys.argv[1] == "fixture":
        fixture(sys.argv[2])
    else:
        sys.exit(1 if check(sys.argv[2], sys.argv[3:]) else 0)
