# SPDX-License-Identifier: MIT
"""zero_page.py - what this kernel maps for a read fault on untouched private
anonymous memory, asked of the kernel itself, not of pmaps: the shared zero
page (Linux's default: mapped, not counted in Rss), or a private page (present,
exclusive, anonymous, in Rss), as a kernel booted with pvm_no_zero_page=1
gives. The twin of tests/zero_page.h's zero_page_mapped().

The probe maps 16 fresh pages with MADV_NOHUGEPAGE, reads each, and reads that
mapping's Rss in /proc/self/smaps: 0 kB, the zero page; all 64 kB, private
pages; anything else raises RuntimeError.
"""
import ctypes
import mmap

PAGE = mmap.PAGESIZE


def _rss_kb(addr):
    """The Rss (kB) of the mapping of /proc/self/smaps that holds ADDR."""
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(" ", 1)[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(x, 16) for x in head.split("-"))
                inside = start <= addr < end
            elif inside and line.startswith("Rss:"):
                return int(line.split()[1])
    raise RuntimeError("zero page probe: no Rss for 0x%x in /proc/self/smaps" % addr)


def zero_page_mapped():
    """True: a read maps the zero page; False: a private page. Prints which."""
    n = 16
    m = mmap.mmap(-1, n * PAGE, flags=mmap.MAP_PRIVATE)
    try:
        m.madvise(mmap.MADV_NOHUGEPAGE)
        buf = ctypes.c_char.from_buffer(m)
        try:
            addr = ctypes.addressof(buf)
            for i in range(n):
                m[i * PAGE]  # a read, never a write
            rss = _rss_kb(addr)
        finally:
            del buf
    finally:
        m.close()
    kb = n * PAGE >> 10
    if rss == 0:
        print("zero page: a read fault maps the zero page (Rss 0 of %d kB read)" % kb,
              flush=True)
        return True
    if rss == kb:
        print("zero page: this kernel maps no zero page: a read fault maps private pages "
              "(Rss %d of %d kB read)" % (rss, kb), flush=True)
        return False
    raise RuntimeError("zero page probe: Rss %d kB of %d kB read: want 0 (zero page) or %d "
                       "(private pages)" % (rss, kb, kb))
