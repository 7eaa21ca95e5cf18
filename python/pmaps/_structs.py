# SPDX-License-Identifier: MIT
"""ctypes mirrors of the records of include/pmaps.h that the binding reads.

Only what the ABI keeps still is mirrored: a struct gets new members only
at its end, an existing member never moves, and an array indexed by an enum
has a frozen capacity (PMAPS_*_MAX), of which the enum's *_COUNT entries
are used. So:
- struct pmaps_mapping and struct pmaps_group_row: their members up to
  `present` (everything before the first array). Values are read through
  pmaps_mapping_value() and pmaps_group_value(); MappingValues adds v[]
  for the fast path of memory_maps(), which checks it against the accessor
  (see _rows.py).
- struct pmaps_page_range: whole (it has no array).
- struct pmaps_status and struct pmaps_explain: whole, as the header gives
  them, each with its leading `size` (set to sizeof before a call).
tests/python/test_pmaps.py compares every size and offset here with the C
compiler's.
"""

import ctypes

U32 = ctypes.c_uint32
U64 = ctypes.c_uint64
UINT = ctypes.c_uint
INT = ctypes.c_int
ENUM = ctypes.c_int  # every enum of the header fits an int

# Frozen capacities (include/pmaps.h).
F_MAX = 64       # PMAPS_F_MAX: smaps fields
ST_MAX = 64      # PMAPS_ST_MAX: status figures
X_MAX = 32       # PMAPS_X_MAX: explain categories
XC_MAX = 16      # PMAPS_XC_MAX: explain state columns
XP_MAX = 16      # PMAPS_XP_MAX: explain page columns
NOTE_MAX = 32    # PMAPS_NOTE_MAX: explain notes
BOOK_MAX = 8     # PMAPS_BOOK_MAX: books
BV_MAX = 128     # PMAPS_BV_MAX: the books' figures
NMT_MAX = 32     # PMAPS_NMT_MAX: NMT's categories
JP_MAX = 16      # PMAPS_JP_MAX: a join's parts
JOIN_TERMS = 32  # PMAPS_JOIN_TERMS
BOOK_SOURCE = 320        # PMAPS_BOOK_SOURCE
BOOK_WHY = 256           # PMAPS_BOOK_WHY
LISTENER_URL = 80        # PMAPS_LISTENER_URL
EXPLAIN_TOP = 10         # PMAPS_EXPLAIN_TOP
EXPLAIN_PATH = 4352      # PMAPS_EXPLAIN_PATH
ERRMSG_SIZE = 256        # PMAPS_ERRMSG_SIZE_PUBLIC


class View(ctypes.Structure):
    """struct pmaps_view: a pointer and a length (bytes read with string_at)."""
    _fields_ = [("ptr", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    def bytes(self):
        return ctypes.string_at(self.ptr, self.len) if self.len else b""


_MAPPING_PREFIX = [
    ("start", U64), ("end", U64), ("offset", U64), ("inode", U64),
    ("dev_major", U32), ("dev_minor", U32),
    ("perms", UINT), ("flags", UINT), ("kind", ENUM),
    ("path", View),
    ("present", U64),
]


class Mapping(ctypes.Structure):
    """struct pmaps_mapping up to `present`."""
    _fields_ = _MAPPING_PREFIX


class MappingValues(ctypes.Structure):
    """struct pmaps_mapping up to v[PMAPS_F_MAX], for memory_maps()'s fast path."""
    _fields_ = _MAPPING_PREFIX + [("v", U64 * F_MAX)]


class GroupRow(ctypes.Structure):
    """struct pmaps_group_row up to `present`."""
    _fields_ = [
        ("key", View), ("kind", ENUM), ("kinds", U32),
        ("mappings", U64), ("vsize", U64), ("present", U64),
    ]


class PageRange(ctypes.Structure):
    """struct pmaps_page_range, whole."""
    _fields_ = [
        ("start", U64), ("end", U64), ("flags", UINT),
        ("kflags", U64), ("mapcount", U64), ("pfn", U64),
    ]


class Status(ctypes.Structure):
    """struct pmaps_status, whole."""
    _fields_ = [("size", U32), ("present", U64), ("v", U64 * ST_MAX)]


class Note(ctypes.Structure):
    """struct pmaps_note."""
    _fields_ = [("kind", ENUM), ("n", U64 * 2)]


class ExplainTop(ctypes.Structure):
    """struct pmaps_explain_top."""
    _fields_ = [
        ("start", U64), ("end", U64), ("rss", U64), ("cat", ENUM),
        ("path_truncated", INT), ("path_len", ctypes.c_size_t),
        ("path", ctypes.c_char * EXPLAIN_PATH),
    ]


class Explain(ctypes.Structure):
    """struct pmaps_explain, whole."""
    _fields_ = [
        ("size", U32),
        ("v", (U64 * XC_MAX) * X_MAX),
        ("mappings", U64 * X_MAX),
        ("total", U64 * XC_MAX),
        ("nmappings", U64),
        ("uss", U64),
        ("effective_rss", U64),
        ("have_rollup", INT),
        ("rollup", U64 * F_MAX),
        ("rollup_apart", U64),
        ("status", Status),
        ("status_apart", U64),
        ("status_parts_agree", INT),
        ("threads", UINT),
        ("stacks_found", UINT),
        ("stacks_guessed", UINT),
        ("ntop", UINT),
        ("top", ExplainTop * EXPLAIN_TOP),
        ("runtime_kind", ENUM),
        ("runtime_version", ctypes.c_char * 32),
        ("runtime_evidence", ctypes.c_char * 512),
        ("arenas", UINT),
        ("go_labels", UINT),
        ("jvm_heap_start", U64),
        ("jvm_heap_end", U64),
        ("nnotes", UINT),
        ("notes", Note * NOTE_MAX),
        ("pages", INT),
        ("pages_kpage", INT),
        ("pages_strategy", ENUM),
        ("pages_known", UINT),
        ("pages_note", ctypes.c_char * ERRMSG_SIZE),
        ("pg", (U64 * XP_MAX) * X_MAX),
        # since 0.2.0
        ("source", ENUM),
        ("xc_known", U32),
        ("swap_unknown", U32),
        # since 0.4.0
        ("read_start_ns", U64),
        ("read_end_ns", U64),
        ("read_at_ns", U64),
        ("referenced_known", INT),
        ("referenced", U64 * X_MAX),
        ("referenced_total", U64),
        ("top_referenced", U64 * EXPLAIN_TOP),
    ]


class ExplainChoice(ctypes.Structure):
    """struct pmaps_explain_choice, whole (since 0.4.0)."""
    _fields_ = [
        ("size", U32), ("source", ENUM), ("options", UINT), ("reason", ENUM),
        ("hold_ns", U64), ("limit_ns", U64), ("xc_known", U32),
    ]


class BookHead(ctypes.Structure):
    """struct pmaps_book_head."""
    _fields_ = [
        ("asked", INT), ("ok", INT), ("at_ns", U64), ("start_ns", U64), ("end_ns", U64),
        ("source", ctypes.c_char * BOOK_SOURCE), ("why", ctypes.c_char * BOOK_WHY),
    ]


class NmtCategory(ctypes.Structure):
    """struct pmaps_nmt_category."""
    _fields_ = [("name", ctypes.c_char * 40), ("reserved", U64), ("committed", U64)]


class Books(ctypes.Structure):
    """struct pmaps_books, whole (since 0.4.0)."""
    _fields_ = [
        ("size", U32),
        ("present", U64 * 2),
        ("v", U64 * BV_MAX),
        ("head", BookHead * BOOK_MAX),
        ("go_env", INT),
        ("go_gogc", ctypes.c_char * 64),
        ("go_gomemlimit", ctypes.c_char * 64),
        ("go_godebug", ctypes.c_char * 256),
        ("jvm_gc", ctypes.c_char * 48),
        ("jvm_nmt", INT),
        ("jvm_ncat", UINT),
        ("jvm_cat", NmtCategory * NMT_MAX),
        ("after_ok", INT),
        ("after_rss", U64),
    ]


class Listener(ctypes.Structure):
    """struct pmaps_listener."""
    _fields_ = [
        ("port", UINT), ("ipv6", INT), ("host", ctypes.c_char * 48),
        ("url", ctypes.c_char * LISTENER_URL),
    ]


class JvmAttach(ctypes.Structure):
    """struct pmaps_jvm_attach, whole (since 0.4.0)."""
    _fields_ = [("size", U32), ("uid", U32), ("gid", U32), ("nspid", INT),
                ("other_mntns", INT)]


class JoinTerm(ctypes.Structure):
    """struct pmaps_join_term."""
    _fields_ = [("key", ENUM), ("src", ENUM), ("part", ENUM), ("neg", INT), ("bytes", U64)]


class Join(ctypes.Structure):
    """struct pmaps_join, whole (since 0.4.0)."""
    _fields_ = [
        ("size", U32), ("ok", INT), ("refused", ENUM), ("rss", U64),
        ("part", U64 * JP_MAX), ("as_of_ns", U64), ("skew_ns", U64), ("max_skew_ns", U64),
        ("moved", U64), ("max_moved", U64), ("nterms", UINT),
        ("term", JoinTerm * JOIN_TERMS),
    ]


# What the ABI test compares with the C compiler: (C struct, ctypes mirror,
# members mirrored; a dotted name is a member of a member).
LAYOUTS = [
    ("struct pmaps_view", View, ["ptr", "len"]),
    ("struct pmaps_mapping", MappingValues,
     [f[0] for f in MappingValues._fields_]),
    ("struct pmaps_group_row", GroupRow, [f[0] for f in GroupRow._fields_]),
    ("struct pmaps_page_range", PageRange, [f[0] for f in PageRange._fields_]),
    ("struct pmaps_status", Status, [f[0] for f in Status._fields_]),
    ("struct pmaps_note", Note, [f[0] for f in Note._fields_]),
    ("struct pmaps_explain_top", ExplainTop, [f[0] for f in ExplainTop._fields_]),
    ("struct pmaps_explain", Explain, [f[0] for f in Explain._fields_]),
    ("struct pmaps_explain_choice", ExplainChoice, [f[0] for f in ExplainChoice._fields_]),
    ("struct pmaps_book_head", BookHead, [f[0] for f in BookHead._fields_]),
    ("struct pmaps_nmt_category", NmtCategory, [f[0] for f in NmtCategory._fields_]),
    ("struct pmaps_books", Books, [f[0] for f in Books._fields_]),
    ("struct pmaps_listener", Listener, [f[0] for f in Listener._fields_]),
    ("struct pmaps_jvm_attach", JvmAttach, [f[0] for f in JvmAttach._fields_]),
    ("struct pmaps_join_term", JoinTerm, [f[0] for f in JoinTerm._fields_]),
    ("struct pmaps_join", Join, [f[0] for f in Join._fields_]),
]
# Structs mirrored only up to a member: their size is not compared.
PREFIX_ONLY = {"struct pmaps_mapping", "struct pmaps_group_row"}
