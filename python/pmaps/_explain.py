# SPDX-License-Identifier: MIT
"""explain(): the explain result as the dict `pmaps explain --json` prints (src/out_json.c).

Every figure is the library's (struct pmaps_explain); the names are the
library's keys: categories, state columns, notes, page columns, status and
smaps fields, asked of it at import.
"""

import ctypes

from . import _structs as S
from ._books import Books
from ._text import json_named, names

_STATUS_SHOWN = ("vm_rss", "rss_anon", "rss_file", "rss_shmem", "vm_hwm", "vm_pte", "vm_swap")
_ROLLUP_SHOWN = ("rss", "pss", "lazy_free", "swap")

PAGES = 1  # PMAPS_EXPLAIN_PAGES
GENTLE = 4  # PMAPS_EXPLAIN_GENTLE
PACED = 8  # PMAPS_EXPLAIN_PACED
STRATEGY_SCAN = 1  # PMAPS_PAGES_SCAN


class Explain:
    def __init__(self, lib):
        c = lib.c
        self.lib = lib
        self.cats = names(c.pmaps_xcat_name, S.X_MAX)
        self.xc_keys = names(c.pmaps_xcol_key, S.XC_MAX)
        self.xc = {k: i for i, k in enumerate(self.xc_keys)}
        self.sources = names(c.pmaps_source_name, 16)
        self.xpages = names(c.pmaps_xpage_key, S.XP_MAX)
        self.runtimes = names(c.pmaps_runtime_name, 64)
        self.notes = names(c.pmaps_note_key, S.NOTE_MAX)
        self.note_values = [[v.decode() for v in (c.pmaps_note_value_key(k, i) for i in (0, 1))
                             if v is not None] for k in range(len(self.notes))]
        status = names(c.pmaps_status_key, S.ST_MAX)
        self.status = [(k, status.index(k)) for k in _STATUS_SHOWN]
        self.fields = {k: c.pmaps_value_lookup(k.encode(), len(k)) for k in _ROLLUP_SHOWN}
        self.reasons = names(c.pmaps_choice_reason_key, 16)
        self.books = Books(lib)

    def to_dict(self, x, pid, version, kernel_thread=False, choice=None, books=None):
        """Result X (a _structs.Explain) as `pmaps explain --json` prints it for PID: with
        CHOICE (a _structs.ExplainChoice) its "source_choice", with BOOKS (a
        (_structs.Books, _structs.Join) pair) its "runtime_books"."""
        t = x.total

        ref = ctypes.byref(x)

        def known(key, cat=-1):
            # A state column the source does not know (for category CAT, or
            # the total) is absent, never 0.
            return self.lib.c.pmaps_explain_known(ref, cat, self.xc[key])

        d = {"pmaps_version": version, "pid": pid, "source": self.sources[x.source]}
        if choice is not None:
            d["source_choice"] = {"reason": self.reasons[choice.reason],
                                  "hold_ns": choice.hold_ns, "limit_ns": choice.limit_ns,
                                  "gentle": bool(choice.options & (GENTLE | PACED))}
            if choice.options & (GENTLE | PACED):
                d["source_choice"]["policy"] = "gentle" if choice.options & GENTLE else "paced"
        if kernel_thread:
            d["kernel_thread"] = True
        for key, value in (("rss", t[self.xc["rss"]]), ("effective_rss", x.effective_rss),
                           ("pss", t[self.xc["pss"]]), ("uss", x.uss),
                           ("swap", t[self.xc["swap"]]), ("swap_pss", t[self.xc["swap_pss"]])):
            need = {"effective_rss": "lazy_free", "uss": "private"}.get(key, key)
            if known(need):
                d[key] = value
        d["mappings"] = x.nmappings
        st = x.status
        if st.present:
            d["status"] = {k: st.v[i] for k, i in self.status if (st.present >> i) & 1}
        if x.have_rollup:
            d["smaps_rollup"] = {k: x.rollup[self.fields[k]] for k in _ROLLUP_SHOWN}
        if x.runtime_kind != 0:
            rt = {"name": self.runtimes[x.runtime_kind]}
            json_named(rt, "version", x.runtime_version)
            json_named(rt, "evidence", x.runtime_evidence)
            if self.runtimes[x.runtime_kind] == "go":
                rt["heap_labels"] = x.go_labels
            if x.jvm_heap_end:
                rt["heap_start"] = x.jvm_heap_start
                rt["heap_end"] = x.jvm_heap_end
            d["runtime"] = rt
        d["glibc_arenas"] = x.arenas
        d["threads"] = {"count": x.threads, "stacks_found": x.stacks_found,
                        "stacks_guessed": x.stacks_guessed}
        shown = [k for k in range(len(self.cats)) if x.mappings[k]]
        cats = []
        for k in shown:
            row = {"category": self.cats[k], "mappings": x.mappings[k]}
            row.update((key, v) for key, v in zip(self.xc_keys, x.v[k]) if known(key, k))
            cats.append(row)
        d["categories"] = cats
        if x.pages:
            pcats = []
            for k in shown:
                row = {"category": self.cats[k]}
                row.update((key, x.pg[k][c]) for c, key in enumerate(self.xpages)
                           if (x.pages_known >> c) & 1)
                pcats.append(row)
            d["pages"] = {"strategy": "scan" if x.pages_strategy == STRATEGY_SCAN else "pagemap",
                          "kpageflags": x.pages_kpage == 1, "categories": pcats}
        notes = []
        for i in range(x.nnotes):
            n = x.notes[i]
            row = {"note": self.notes[n.kind]}
            row.update(zip(self.note_values[n.kind], n.n))
            notes.append(row)
        d["notes"] = notes
        largest = []
        for i in range(x.ntop):
            top = x.top[i]
            row = {"start": "0x%x" % top.start, "end": "0x%x" % top.end, "rss": top.rss,
                   "category": self.cats[top.cat]}
            json_named(row, "path", top.path[:top.path_len])
            if top.path_truncated:
                row["path_truncated"] = True
            largest.append(row)
        d["largest"] = largest
        if books is not None and self.books.asked(books[0]):
            d["runtime_books"] = self.books.to_dict(*books)
        return d
