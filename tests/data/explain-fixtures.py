#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the explain-* fixture proc trees that tests/unit/test_explain.c reads.

Each mapping is given by its state in kB (private/shared clean/dirty and the
parts of them explain splits out); smaps' other fields follow from those as a
kernel would print them, smaps_rollup is their sum (plus a stated offset, to
test the reconciliation), and the binary files are built byte by byte: a
minimal Go executable (an ELF with a .go.buildinfo section, nothing else) and
a HotSpot hsperfdata file. Run it from anywhere; it rewrites the trees.
"""
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

FIELDS = ["Rss", "Pss", "Pss_Dirty", "Shared_Clean", "Shared_Dirty", "Private_Clean",
          "Private_Dirty", "Referenced", "Anonymous", "KSM", "LazyFree", "AnonHugePages",
          "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap",
          "SwapPss", "Locked"]


def m(start, end, perms, path="", dev="00:00", inode=0, pd=0, pc=0, sd=0, sc=0, pss=None,
      lazy=0, thp=0, swap=0, locked=0, hugetlb=0, flags=None):
    rss = pd + pc + sd + sc
    anon = not path or path.startswith("[")
    v = {"Rss": rss, "Pss": pd + pc + (sd + sc) // 2 if pss is None else pss,
         "Pss_Dirty": pd + sd // 2, "Shared_Clean": sc, "Shared_Dirty": sd,
         "Private_Clean": pc, "Private_Dirty": pd, "Referenced": rss,
         "Anonymous": pd + pc if anon and "s" not in perms else 0, "KSM": 0, "LazyFree": lazy,
         "AnonHugePages": thp, "ShmemPmdMapped": 0, "FilePmdMapped": 0,
         "Shared_Hugetlb": hugetlb, "Private_Hugetlb": 0, "Swap": swap, "SwapPss": swap,
         "Locked": locked}
    if flags is None:
        flags = " ".join(f for f, c in (("rd", "r"), ("wr", "w"), ("ex", "x"), ("sh", "s"))
                         if c in perms) + " mr mw me"
    return dict(start=start, end=end, perms=perms, path=path, dev=dev, inode=inode, v=v,
                flags=flags)


def smaps_text(maps):
    out = []
    for x in maps:
        head = "%x-%x %s 00000000 %s %d" % (x["start"], x["end"], x["perms"], x["dev"],
                                            x["inode"])
        out.append(head + (" " * max(1, 73 - len(head)) + x["path"] if x["path"] else " "))
        out.append("Size:           %8d kB" % ((x["end"] - x["start"]) >> 10))
        out.append("KernelPageSize:        4 kB")
        out.append("MMUPageSize:           4 kB")
        for f in FIELDS:
            out.append("%-16s%8d kB" % (f + ":", x["v"][f]))
        out.append("THPeligible:           0")
        out.append("VmFlags: " + x["flags"] + " ")
    return "\n".join(out) + "\n"


def rollup_text(maps, rss_offset):
    tot = {f: sum(x["v"][f] for x in maps) for f in FIELDS}
    tot["Rss"] += rss_offset
    tot["Private_Dirty"] += rss_offset  # the kernel's sum, read a moment later
    out = ["%x-%x ---p 00000000 00:00 0%s[rollup]" % (maps[0]["start"], maps[-1]["end"],
                                                     " " * 26)]
    for f in FIELDS:
        out.append("%-16s%8d kB" % (f + ":", tot[f]))
    return "\n".join(out) + "\n"


def status_text(vm_rss_parts, threads, uid, euid):
    anon, file_, shmem = vm_rss_parts
    return ("Name:\tapp\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t100\nPid:\t100\n"
            "Uid:\t%d\t%d\t%d\t%d\nGid:\t0\t0\t0\t0\nFDSize:\t64\nGroups:\t \n"
            "VmPeak:\t  300000 kB\nVmSize:\t  200000 kB\nVmLck:\t       0 kB\n"
            "VmHWM:\t    9000 kB\nVmRSS:\t%8d kB\nRssAnon:\t%8d kB\nRssFile:\t%8d kB\n"
            "RssShmem:\t%8d kB\nVmData:\t    1000 kB\nVmPTE:\t      48 kB\nVmSwap:\t      12 kB\n"
            "HugetlbPages:\t       0 kB\nThreads:\t%d\nSigQ:\t0/1000\n"
            % (uid, euid, uid, uid, anon + file_ + shmem, anon, file_, shmem, threads))


def go_exe(version):
    """An ELF64 LSB file: header, three section headers, .shstrtab, .go.buildinfo."""
    shstr = b"\0.shstrtab\0.go.buildinfo\0"
    bi = b"\xff Go buildinf:" + bytes([8, 2]) + bytes(16)
    bi += bytes([len(version)]) + version.encode()
    shoff, stroff, bioff = 0x40, 0x100, 0x140
    eh = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    eh += struct.pack("<HHIQQQIHHHHHH", 2, 0x3e, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 1)

    def sh(name, typ, off, size):
        return struct.pack("<IIQQQQIIQQ", name, typ, 0, 0, off, size, 0, 0, 1, 0)
    shs = bytes(64) + sh(1, 3, stroff, len(shstr)) + sh(11, 1, bioff, len(bi))
    img = bytearray(bioff + len(bi) + 32)
    img[0:64] = eh
    img[shoff:shoff + len(shs)] = shs
    img[stroff:stroff + len(shstr)] = shstr
    img[bioff:bioff + len(bi)] = bi
    return bytes(img)


def hsperf(gc, gen0, gen1):
    """A little-endian hsperfdata file (HotSpot perfMemory.hpp) with three entries."""
    def entry(name, typ, data):
        nm = name.encode() + b"\0"
        noff = 20
        doff = (noff + len(nm) + 7) & ~7
        length = (doff + len(data) + 7) & ~7
        vlen = len(data) if typ == b"B" else 0
        e = struct.pack("<III", length, noff, vlen) + typ + bytes([0, 0, 0])
        e += struct.pack("<I", doff)
        e += nm + bytes(doff - noff - len(nm)) + data
        return e + bytes(length - len(e))
    ents = entry("sun.gc.policy.name", b"B", gc.encode() + b"\0")
    ents += entry("sun.gc.generation.0.maxCapacity", b"J", struct.pack("<Q", gen0))
    ents += entry("sun.gc.generation.1.maxCapacity", b"J", struct.pack("<Q", gen1))
    prologue = b"\xca\xfe\xc0\xc0" + bytes([1, 2, 0, 1]) + struct.pack("<IIQII", 0, 0, 0, 32, 3)
    return prologue + ents


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def tree(case, pid, maps, rollup_offset=None, status=None, tasks=None, files=None):
    d = os.path.join(HERE, "explain-" + case, "proc", str(pid))
    write(os.path.join(d, "smaps"), smaps_text(maps))
    if rollup_offset is not None:
        write(os.path.join(d, "smaps_rollup"), rollup_text(maps, rollup_offset))
    if status is not None:
        write(os.path.join(d, "status"), status)
    for tid, text in (tasks or {}).items():
        write(os.path.join(d, "task", str(tid), "syscall"), text)
    for rel, data in (files or {}).items():
        write(os.path.join(d, rel), data)


APP = dict(dev="08:01", inode=1001)
LIBC = dict(path="/usr/lib/x86_64-linux-gnu/libc.so.6", dev="08:01", inode=1002)
G = 1 << 30
M = 1 << 20
K = 1 << 10


def glibc():
    """Every category, every generic note, glibc's thread arenas and both stack rules."""
    maps = [
        m(0x400000, 0x401000, "r--p", "/usr/bin/app", pc=4, **APP),                # file-ro
        m(0x401000, 0x403000, "r-xp", "/usr/bin/app", sc=8, **APP),                # file-text
        m(0x403000, 0x404000, "rw-p", "/usr/bin/app", pd=4, locked=4, **APP),      # file-data
        m(0x404000, 0x500000, "rw-p", "[heap]", pd=400, lazy=40),                  # heap
        m(0x7e0000200000, 0x7e0000600000, "rw-p", pd=2304, lazy=64, thp=2048,
          swap=12),                                                                 # anon
        m(0x7e0004000000, 0x7e0004100000, "rw-p", pd=128),                         # arena heap
        m(0x7e0004100000, 0x7e0008000000, "---p"),                                 # its rest
        m(0x7f0000000000, 0x7f0000001000, "---p"),                                 # guard
        m(0x7f0000001000, 0x7f0000801000, "rw-p", pd=16),                          # stack, sp
        m(0x7f0000801000, 0x7f0000802000, "---p"),                                 # guard
        m(0x7f0000802000, 0x7f0001002000, "rw-p", pd=8),                           # stack, guess
        m(0x7f0002000000, 0x7f0002100000, "rw-p", "[anon:myname]", pd=32),         # anon-named
        m(0x7f0003000000, 0x7f0003100000, "rw-s", "/memfd:buf (deleted)", dev="00:01",
          inode=2001, sd=64, pss=32),                                               # shmem
        m(0x7f0004000000, 0x7f0004200000, "rw-s", "/anon_hugepage (deleted)", dev="00:0f",
          inode=3001, hugetlb=2048),                                                # hugetlb
        m(0x7f0005000000, 0x7f0005001000, "r--p", sc=4, **LIBC),                   # file-ro
        m(0x7f0005001000, 0x7f0005003000, "r-xp", sc=8, **LIBC),                   # file-text
        m(0x7ffc00000000, 0x7ffc00021000, "rw-p", "[stack]", pd=20),               # main stack
        m(0x7ffc00100000, 0x7ffc00102000, "r-xp", "[vdso]", sc=4),                 # other
        m(0xffffffffff600000, 0xffffffffff601000, "--xp", "[vsyscall]"),           # other
    ]
    # status was read first: VmRSS 12 kB above the smaps sum (3004 kB)
    tree("glibc", 100, maps, rollup_offset=8, status=status_text((2880, 36, 100), 3, 1000, 1001),
         tasks={100: "7 0x3 0x7ffc0001f000 0x400 0x0 0x0 0x0 0x7ffc00020000 0x7f0005001800\n",
                101: "202 0x7f0000800f80 0x80 0x0 0x0 0x0 0x0 0x7f0000800f00 0x7f0005001900\n",
                102: "running\n"})


def quiet():
    """No note's condition holds; glibc named but no arena confirmed."""
    maps = [
        m(0x404000, 0x500000, "rw-p", "[heap]", sd=40),          # dirty, but shared after fork
        m(0x7e0004000000, 0x7e0004100000, "rw-p", sc=8),         # 64 MiB aligned ...
        m(0x7e0004100000, 0x7e0005000000, "---p"),               # ... its rest short of 64 MiB
        m(0x7f0003000000, 0x7f0003100000, "rw-s", "/memfd:buf (deleted)", dev="00:01",
          inode=2001),                                           # shmem, nothing resident
        m(0x7f0005001000, 0x7f0005003000, "r-xp", **LIBC),       # file, nothing resident
        m(0x7ffc00000000, 0x7ffc00021000, "rw-p", "[stack]"),    # untouched
        m(0x7ffc00100000, 0x7ffc00102000, "r-xp", "[vdso]", sc=4),
    ]
    tree("quiet", 100, maps)


JVM = "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"


def jvm():
    """The JVM: its heap found from hsperfdata (200), no hsperfdata (201), another file (202)."""
    def maps(hsperf_inode, with_hsperf=True):
        x = [
            m(0x7f1000000000, 0x7f1000800000, "rw-p", pd=1024),          # heap, committed
            m(0x7f1000800000, 0x7f1004000000, "---p"),                   # heap, reserved
            m(0x7f2000000000, 0x7f2000400000, "rw-p", pd=64),            # another anon run
            m(0x7f3000000000, 0x7f3000100000, "r-xp", JVM, dev="08:01", inode=4001, sc=100),
            m(0x7f3000100000, 0x7f3000102000, "r-xp", sc=8, **LIBC),
        ]
        if with_hsperf:
            x.append(m(0x7f4000000000, 0x7f4000008000, "rw-s", "/tmp/hsperfdata_app/%d" % 200,
                       dev="00:22", inode=hsperf_inode, sd=32))
        return x
    perf = hsperf("GarbageFirst", 64 * M + 24, 64 * M)  # G1: a few bytes over, rounded off
    files = {"root/tmp/hsperfdata_app/200": perf}
    # A fixture's file has no known inode: 0 skips that check, as no kernel maps a file so.
    tree("jvm", 200, maps(0), files=files)
    tree("jvm", 201, maps(0, with_hsperf=False))
    tree("jvm", 202, maps(999999), files=files)


def cpython():
    maps = [
        m(0x400000, 0x40a000, "r-xp", "/usr/bin/python3.11", dev="08:01", inode=5001, sc=40),
        m(0x7f1000000000, 0x7f1000100000, "rw-p", pd=256),
        m(0x7f3000100000, 0x7f3000102000, "r-xp", sc=8, **LIBC),
    ]
    tree("cpython", 300, maps)


def go():
    """Go: heap and LazyFree (400), no heap (401), a heap without LazyFree (402)."""
    exe = go_exe("go1.22.1")
    app = dict(path="/usr/local/bin/app", dev="08:01", inode=6001)
    heap = [
        m(0xc000000000, 0xc000400000, "rw-p", pd=1024, lazy=256),       # from the arena hint
        m(0xc000400000, 0xc004000000, "---p"),                          # reserved, contiguous
    ]
    label = [m(0x7f3000000000, 0x7f3000100000, "rw-p", "[anon: Go: heap]", pd=64)]
    other = [m(0x7f3000200000, 0x7f3000300000, "rw-p", pd=128, lazy=32)]
    text = [m(0x400000, 0x4a0000, "r-xp", sc=100, **app)]
    tree("go", 400, text + heap + label + other, files={"exe": exe})
    tree("go", 401, text + [m(0x7f3000200000, 0x7f3000300000, "rw-p", pd=128, lazy=16)],
         files={"exe": exe})
    tree("go", 402, text + [m(0xc000000000, 0xc000400000, "rw-p", pd=512),
                            m(0xc000400000, 0xc004000000, "---p")], files={"exe": exe})


def pages():
    """The pages fixture's page tables (tests/data/pages), with smaps to match."""
    maps = [
        m(0x400000, 0x410000, "r-xp", "/usr/bin/prog", dev="fe:00", inode=1234, sc=40),
        m(0x600000, 0x608000, "rw-p", "[heap]", pd=16, swap=8),
        m(0x1000000, 0x1004000, "rw-p", pd=8),
    ]
    src = os.path.join(HERE, "pages", "proc")
    with open(os.path.join(src, "300", "pagemap"), "rb") as f:
        pagemap = f.read()
    tree("pages", 300, maps, files={"pagemap": pagemap})
    for name in ("kpageflags", "kpagecount"):
        with open(os.path.join(src, name), "rb") as f:
            write(os.path.join(HERE, "explain-pages", "proc", name), f.read())
    # Without /proc/kpageflags: no physical page state.
    tree("pages-nokpage", 300, maps, files={"pagemap": pagemap})


if __name__ == "__main__":
    for case in ("glibc", "quiet", "jvm", "cpython", "go", "pages", "pages-nokpage"):
        shutil.rmtree(os.path.join(HERE, "explain-" + case), ignore_errors=True)
    glibc()
    quiet()
    jvm()
    cpython()
    go()
    pages()
