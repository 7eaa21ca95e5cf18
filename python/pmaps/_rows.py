# SPDX-License-Identifier: MIT
"""memory_maps(): smaps rows as psutil's named tuples, every other field after psutil's.

The fields are the library's, asked of it at import (pmaps_field_key() for
0, 1, ... until NULL), so a library that knows a new smaps field gives it
here with no change to this file. psutil's ten come first, 0 when absent as
in psutil; every other field is None when the kernel did not print it.

Values come from pmaps_mapping_value() and pmaps_group_value(). Calling the
accessor once per field through ctypes, 27 calls a row, makes an ungrouped
read as slow as psutil's (bench/README.md, "Python binding"). So the
ungrouped read has a fast path: each row's prefix, `present` and v[] (whose
capacity PMAPS_F_MAX and offset the ABI freezes) in one struct.unpack_from
over the row, in place. It is checked against the accessor on every row
whose set of present fields was not seen before in the read (a handful
per read); at the first difference FAST becomes False, and that row and
every later one are read through the accessor alone.
"""

import ctypes
import struct
from collections import namedtuple
from operator import itemgetter

from . import _structs as S
from ._text import psutil_path

PSUTIL_FIELDS = ("rss", "size", "pss", "shared_clean", "shared_dirty", "private_clean",
                 "private_dirty", "referenced", "anonymous", "swap")

# Fields a group row holds the largest of, not the sum (include/pmaps.h).
_LARGEST = ("kernel_page_size", "mmu_page_size")

SRC_SMAPS = 1        # PMAPS_SRC_SMAPS
GROUP_PATH = 0       # PMAPS_GROUP_PATH

FAST = True

_PERMS = tuple(("r" if b & 1 else "-") + ("w" if b & 2 else "-") + ("x" if b & 4 else "-") +
               ("s" if b & 8 else "p") for b in range(16))

# A window onto the cursor's path buffer: sliced to the row's path length,
# never read beyond it.
_WINDOW = ctypes.c_char * (1 << 30)


class Rows:
    def __init__(self, lib):
        c = lib.c
        self.lib = lib
        keys = []
        while len(keys) < S.F_MAX:
            k = c.pmaps_field_key(len(keys))
            if k is None:
                break
            keys.append(k.decode())
        index = {k: i for i, k in enumerate(keys)}
        missing = [k for k in PSUTIL_FIELDS if k not in index]
        if missing:
            raise ImportError("pmaps: the library has no field %s" % ", ".join(missing))
        self.keys = keys
        self.extra = tuple(k for k in keys if k not in PSUTIL_FIELDS)
        # Field numbers in a row's order: psutil's, then the rest.
        self.order = tuple(index[k] for k in PSUTIL_FIELDS + self.extra)
        self.npsutil = len(PSUTIL_FIELDS)
        self.largest = frozenset(i for i, k in enumerate(self.extra, self.npsutil)
                                 if k in _LARGEST or not c.pmaps_field_is_size(index[k]))
        self.Grouped = namedtuple("pmmap_grouped", ("path",) + PSUTIL_FIELDS + self.extra)
        self.Ext = namedtuple("pmmap_ext", ("addr", "perms", "path") + PSUTIL_FIELDS + self.extra)
        self._unpack_setup(len(keys))
        # pmaps_maps_next() for the loop, without argtypes: it is passed a
        # c_void_p and a byref() only, and ctypes' checks cost ~70 ns a call.
        self._next = c["pmaps_maps_next"]
        self._next.restype = ctypes.c_int

    def _unpack_setup(self, n):
        """One struct.Struct for start, end, perms, path.ptr, path.len, present, v[0..N)."""
        M = S.MappingValues
        word = "Q" if ctypes.sizeof(ctypes.c_void_p) == 8 else "I"
        members = [(M.start.offset, "Q"), (M.end.offset, "Q"), (M.perms.offset, "I"),
                   (M.path.offset + S.View.ptr.offset, word),
                   (M.path.offset + S.View.len.offset, word), (M.present.offset, "Q")]
        members += [(M.v.offset + 8 * i, "Q") for i in range(n)]
        fmt, at = "=", 0
        for off, code in members:
            fmt += "%dx%s" % (off - at, code) if off > at else code
            at = off + struct.calcsize("=" + code)
        self.unpack = struct.Struct(fmt).unpack_from
        self.size = at
        self.head = 6  # members before v[0] in the unpacked tuple

    def _getter(self, present):
        """Picks a row's tuple out of unpacked + (addr, perms, path, None) for PRESENT."""
        h, n = self.head, len(self.keys)
        addr, perms, path, none = h + n, h + n + 1, h + n + 2, h + n + 3
        idx = [addr, perms, path]
        for j, f in enumerate(self.order):
            idx.append(h + f if j < self.npsutil or (present >> f) & 1 else none)
        return itemgetter(*idx)

    def _value(self, fn, row, f, tmp, ref, psutil_field):
        r = fn(row, f, ref)
        if r == 1:
            return tmp.value
        return 0 if psutil_field else None

    def values(self, fn, row):
        """Row ROW's values in row order through accessor FN (pmaps_mapping_value/group_value)."""
        tmp = ctypes.c_uint64()
        ref = ctypes.byref(tmp)
        out = []
        for j, f in enumerate(self.order):
            out.append(self._value(fn, row, f, tmp, ref, j < self.npsutil))
        return out

    def ungrouped(self, cur, pid, fast=None):
        """Every row of cursor CUR as pmmap_ext; raises at a failed read."""
        global FAST
        lib = self.lib
        nxt = self._next
        value = lib.c.pmaps_mapping_value
        rowp = ctypes.c_void_p()
        ref = ctypes.byref(rowp)
        unpack, size = self.unpack, self.size
        new, cls, perms_of, paths = tuple.__new__, self.Ext, _PERMS, {}
        getters = {}
        out = []
        append = out.append
        row_at = path_at = None
        mv = pmv = None
        fast = FAST if fast is None else fast
        while True:
            r = nxt(cur, ref)
            if r != 1:
                break
            a = rowp.value
            if fast:
                if a != row_at:
                    mv, row_at = memoryview((ctypes.c_char * size).from_address(a)), a
                t = unpack(mv)
                g = getters.get(t[5])
                if g is None:
                    if self.values(value, a) != list(self._getter(t[5])(t + (0, 0, 0, None))[3:]):
                        FAST = fast = False
                    else:
                        g = getters[t[5]] = self._getter(t[5])
                if fast:
                    if t[3] != path_at:
                        pmv, path_at = memoryview(_WINDOW.from_address(t[3])), t[3]
                    raw = pmv[:t[4]].tobytes()
                    p = paths.get(raw)
                    if p is None:
                        p = paths[raw] = psutil_path(raw)
                    append(new(cls, g(t + ("%08x-%08x" % t[:2], perms_of[t[2] & 15], p,
                                           None))))
                    continue
            m = S.Mapping.from_address(a)
            raw = m.path.bytes()
            p = paths.get(raw)
            if p is None:
                p = paths[raw] = psutil_path(raw)
            append(cls("%08x-%08x" % (m.start, m.end), perms_of[m.perms & 15], p,
                       *self.values(value, a)))
        if r < 0:
            raise lib.fail(r, pid, lib.c.pmaps_maps_errmsg(cur), "smaps")
        return out

    def grouped(self, cur, g, pid):
        """The rows of cursor CUR grouped by path through group G, as pmmap_grouped."""
        lib = self.lib
        c = lib.c
        err = c.pmaps_group_read(g, cur)
        if err < 0:
            raise lib.fail(err, pid, c.pmaps_maps_errmsg(cur), "smaps")
        by_path = {}
        for i in range(c.pmaps_group_count(g)):
            row = c.pmaps_group_get(g, i)
            path = psutil_path(S.GroupRow.from_address(row).key.bytes())
            vals = self.values(c.pmaps_group_value, row)
            have = by_path.get(path)
            if have is None:
                by_path[path] = vals
            else:
                # Two kernel names that are one psutil path (white space
                # around them, or " (deleted)" dropped): one row, as psutil.
                by_path[path] = [self._merge(j, a, b) for j, (a, b) in enumerate(zip(have, vals))]
        return [self.Grouped(p, *v) for p, v in by_path.items()]

    def _merge(self, j, a, b):
        if a is None or b is None:
            return b if a is None else a
        return max(a, b) if j in self.largest else a + b
