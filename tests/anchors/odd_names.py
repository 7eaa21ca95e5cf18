# SPDX-License-Identifier: MIT
"""An idle process that maps files whose names each tool prints its own way.

Started by anchors.Idle as the test's python3. It makes a directory under
/tmp, maps two pages of each file below (the first page read), unlinks one
of them, prints "ready" and blocks until standard input closes (or SIGTERM);
then it removes what it made. The names: a space, trailing white space, a newline
(the kernel prints \\012), a tab, a backslash, a byte that is not UTF-8, a
UTF-8 letter, an escape sequence, a name longer than pmap's 127 bytes, a
deleted file, a file really named "... (deleted)" that exists, two paths
over 8 KiB that differ only at their end; and the names the kernel gives
shared anonymous memory, a memfd and a SysV segment;
and a PROT_NONE reservation and the huge zero page for the page anchor.
"""

import mmap
import os
import signal
import sys
import tempfile

NAMES = [b"plain.bin", b"with space.bin", b"trailing space ", b"new\nline.bin", b"tab\tname",
         b"back\\slash", b"lat1-\xe9.bin", b"utf8-\xc3\xa9.bin", b"esc-\x1b[31m-red",
         b"long-" + b"x" * 180, b"fake (deleted)", b"gone.bin"]


def other_kinds(page):
    """Names the kernel makes up: shared anonymous memory ("/dev/zero
    (deleted)"), a memfd ("/memfd:NAME (deleted)"), a SysV segment
    ("/SYSV00000000 (deleted)", removed at once: it goes when unmapped), a
    1 GiB PROT_NONE reservation, and the huge zero page."""
    import ctypes
    keep = []
    m = mmap.mmap(-1, 4 * page, flags=mmap.MAP_SHARED)
    m[0:page] = b"z" * page
    keep.append(m)
    fd = os.memfd_create("pmaps anchors")
    os.ftruncate(fd, 4 * page)
    m = mmap.mmap(fd, 4 * page)
    m[0:2 * page] = b"m" * 2 * page
    keep.append(m)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    shmid = libc.shmget(0, 4 * page, 0o600)  # IPC_PRIVATE
    if shmid >= 0:
        addr = libc.shmat(shmid, None, 0)
        libc.shmctl(shmid, 0, None)  # IPC_RMID
        if addr not in (None, ctypes.c_void_p(-1).value):
            ctypes.memset(addr, 1, page)
    keep.append(mmap.mmap(-1, 1 << 30, flags=mmap.MAP_PRIVATE, prot=0))
    # 2 MiB at a 2 MiB boundary, MADV_HUGEPAGE, read and never written: the
    # huge zero page where THP and its use_zero_page are on.
    huge = 2 << 20
    m = mmap.mmap(-1, 2 * huge, flags=mmap.MAP_PRIVATE)
    off = -ctypes.addressof(ctypes.c_char.from_buffer(m)) % huge
    try:
        m.madvise(mmap.MADV_HUGEPAGE, off, huge)
    except (AttributeError, OSError):
        pass
    m[off]
    keep.append(m)
    return keep


def deep(d, page):
    """Two files whose paths are over 8 KiB long and differ only after their
    first 8,400 bytes, built with directory descriptors (a path this long
    cannot be opened whole: ENAMETOOLONG). Returns their mappings and a
    function that removes them."""
    names = [b"D%02d-" % i + b"d" * 246 for i in range(34)]  # 34 x 251 bytes
    fds = [os.open(d, os.O_RDONLY | os.O_DIRECTORY)]
    for n in names:
        os.mkdir(n, dir_fd=fds[-1])
        fds.append(os.open(n, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    keep = []
    for f in (b"first", b"second"):
        fd = os.open(f, os.O_RDWR | os.O_CREAT, 0o600, dir_fd=fds[-1])
        os.write(fd, b"d" * 2 * page)
        m = mmap.mmap(fd, 2 * page, prot=mmap.PROT_READ)
        m[0]
        os.close(fd)
        keep.append(m)

    def remove():
        os.unlink(b"first", dir_fd=fds[-1])
        os.unlink(b"second", dir_fd=fds[-1])
        for i in range(len(names) - 1, -1, -1):
            os.close(fds[i + 1])
            os.rmdir(names[i], dir_fd=fds[i])
        os.close(fds[0])
    return keep, remove


def main():
    page = mmap.PAGESIZE
    d = tempfile.mkdtemp(prefix="pmaps-anchors.").encode()
    keep = []
    for n in NAMES:
        path = os.path.join(d, n)
        with open(path, "wb") as f:
            f.write(b"a" * 2 * page)
        with open(path, "rb") as f:
            m = mmap.mmap(f.fileno(), 2 * page, prot=mmap.PROT_READ)
        m[0]  # one page in, one not
        keep.append(m)
    os.unlink(os.path.join(d, b"gone.bin"))
    keep += other_kinds(page)
    long_ones, remove = deep(d, page)
    keep += long_ones

    def clean(*_):
        remove()
        for n in NAMES[:-1]:
            os.unlink(os.path.join(d, n))
        os.rmdir(d)
        sys.exit(0)

    # The test's death sends SIGTERM (anchors.die_with_parent).
    signal.signal(signal.SIGTERM, clean)
    print("ready", flush=True)
    sys.stdin.read()
    clean()


if __name__ == "__main__":
    main()
