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
  hostile.py check FORMAT FILE...
                           FORMAT text, csv or json: every FILE is valid UTF-8
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
        if not why and fmt == "json":
            try:
                json.loads(text, strict=True,
                           parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except ValueError as e:
                why = "invalid JSON: %s" % e
        if why:
            print("FAIL: %s: %s" % (name, why))
            bad += 1
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "target":
        target(sys.argv[2])
    else:
        sys.exit(1 if check(sys.argv[2], sys.argv[3:]) else 0)
