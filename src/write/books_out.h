/* SPDX-License-Identifier: MIT */
/*
 * books_out.h - the runtime's books as a command read them (books/ reads
 * them), and their words: explain's section, the equation, the JSON object.
 */
#ifndef PMAPS_BOOKS_OUT_H
#define PMAPS_BOOKS_OUT_H

#include <stddef.h>

#include "pmaps.h"

struct out;

/* The books of one process, as a command read them: the library's record, and its words. */
struct books {
	struct pmaps_books b;       /* the figures and each book's head (pmaps.h) */
	enum pmaps_runtime runtime; /* the runtime explain found (books_read()'s RT) */
	int run;                    /* read under pmaps run: its words for what is missing */
};

/* Whether any book was looked for (the section and the JSON object exist). */
int books_asked(const struct books *b);

/*
 * The books and their join J (pmaps_books_join()) as text: explain's
 * section, ending with the equation when J joined them.
 */
void books_write_text(struct out *o, const struct books *b, const struct pmaps_join *j);
/* The equation alone, one line, no newline ("RSS 343M = Go live objects 131M + ..."). */
void books_write_equation(struct out *o, const struct pmaps_join *j);
/* Why J was not made, in words ("read 2.3 s apart: more than 2 s"), or NULL when it was. */
const char *books_refusal_words(const struct pmaps_join *j, char *buf, size_t size);
/*
 * The "runtime_books" object's value (JSON): each book asked, its head and
 * figures by the library's keys, and the join. The Python binding builds
 * the same object (python/pmaps/_books.py).
 */
void books_write_json(struct out *o, const struct books *b, const struct pmaps_join *j);

#endif
