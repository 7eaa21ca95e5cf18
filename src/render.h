/* SPDX-License-Identifier: MIT */
/*
 * render.h - writing mapping and group rows in the chosen format (out.c).
 */
#ifndef PMAPS_RENDER_H
#define PMAPS_RENDER_H

#include "tool.h"

struct render {
	struct out *o;
	const struct maps_opts *opt;
	uint64_t rows;
	int grouped;
	size_t width[COL_COUNT]; /* table column widths, by column */
};

void render_begin(struct render *r, struct out *o, const struct maps_opts *opt, int pid,
                  const char *source, int grouped);
void render_mapping(struct render *r, const struct pmaps_mapping *m);
void render_group(struct render *r, const struct pmaps_group_row *g, enum pmaps_group_by by);
/* Closes the document; ERROR (or NULL) is recorded in JSON output. */
void render_end(struct render *r, const char *error);

#endif
