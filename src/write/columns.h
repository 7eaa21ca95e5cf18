/* SPDX-License-Identifier: MIT */
/*
 * columns.h - the one column table (columns.c), in the habit of htop's
 * Process_fields[]: for every column its key (the JSON key, the CSV heading
 * and the name --fields and --sort take), its table title and width, its
 * alignment and unit, the records that have it, and the library value it
 * shows. Every writer and every option reads it; no other list of column
 * names exists in the tool.
 */
#ifndef PMAPS_COLUMNS_H
#define PMAPS_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "pmaps.h"

/* Columns. The smaps fields come first, as enum pmaps_field. */
enum col {
	COL_FIELD0 = 0,
	/* mappings and groups: the columns --fields and --sort name */
	COL_ADDRESS = PMAPS_F_COUNT, /* start-end */
	COL_START,
	COL_END,
	COL_PERMS,
	COL_OFFSET,
	COL_DEV,
	COL_INODE,
	COL_KIND,
	COL_SHARED,   /* PMAPS_V_SHARED */
	COL_MAPPINGS, /* PMAPS_V_MAPPINGS */
	COL_VSIZE,    /* PMAPS_V_VSIZE */
	COL_USS,      /* PMAPS_V_USS */
	COL_FILE_RSS, /* PMAPS_V_FILE_RSS */
	COL_ZERO_PAGE, /* PMAPS_V_ZERO_PAGE: the page sources only */
	COL_VMFLAGS,
	COL_PATH,
	COL_MAPS_END,
	/* page runs (with COL_START, COL_END, COL_PATH) */
	COL_PAGES = COL_MAPS_END,
	COL_FLAGS,
	COL_MAPCOUNT,
	COL_PFN,
	COL_KFLAGS,
	COL_PSTATE,   /* a run's page state (enum pmaps_page_state), runs split by state */
	/* page summaries (with COL_ADDRESS, COL_PATH): enum pmaps_page_count */
	COL_PC0,
	/* explain's categories: a name, a mapping count, enum pmaps_xcol, a share of RSS */
	COL_XCAT = COL_PC0 + PMAPS_PC_COUNT,
	COL_XMAPS,
	COL_XC0,
	COL_XPCT = COL_XC0 + PMAPS_XC_COUNT,
	/* explain's page evidence per category: enum pmaps_xpage */
	COL_XP0,
	/* pmaps top: a process (a survey row) or a group of them */
	COL_REFRESH = COL_XP0 + PMAPS_XP_COUNT, /* the refresh's number (JSON Lines, CSV) */
	COL_PID,
	COL_USER,
	COL_UID,
	COL_STATE,                          /* status State: one letter */
	COL_COMMAND,
	COL_SV0,                            /* enum pmaps_survey_value */
	COL_PROCS = COL_SV0 + PMAPS_SV_COUNT, /* a group's process count */
	COL_PARTIAL,                        /* a group's figures summed over only some of them */
	COL_PSOURCE,                        /* where the costly figures came from */
	COL_AGE,                            /* their age, when older than this refresh */
	COL_MARK,                           /* the row's flags: a letter in the table */
	COL_CGROUP,
	COL_PMEM,                           /* %MEM: RSS of MemTotal */
	COL_COUNT
};

/* What a column holds. */
enum unit { UNIT_BYTES, UNIT_COUNT, UNIT_ADDRESS, UNIT_TEXT };

/* The records a column belongs to. */
enum {
	REC_MAPPING = 1u << 0,
	REC_GROUP = 1u << 1,
	REC_RUN = 1u << 2,     /* a run of pages */
	REC_SUMMARY = 1u << 3, /* a mapping's page counts */
	REC_XCAT = 1u << 4,    /* an explain category */
	REC_XPAGE = 1u << 5,   /* an explain category's page evidence */
	REC_PROC = 1u << 6,    /* a process of pmaps top */
	REC_PGROUP = 1u << 7,  /* a user's or a cgroup's processes in pmaps top */
};

/* A string with its length, so that no writer calls strlen on a key. */
struct lit {
	const char *s;
	size_t n;
};

struct column {
	struct lit key;   /* snake_case: JSON key, CSV heading, option name */
	struct lit title; /* the table's heading */
	/*
	 * ,"key": as JSON writes it after a value, padded to 32 bytes so that
	 * a writer copies it with one fixed-size move; JKEY_N bytes of it count.
	 */
	char jkey[32];
	unsigned char jkey_n;
	unsigned char width; /* table cells are padded to it (never cut) */
	unsigned char left;  /* left-aligned */
	unsigned char unit;  /* enum unit */
	unsigned char records; /* REC_* */
	/*
	 * The library's key of the value shown: for mappings and groups an
	 * enum pmaps_field or enum pmaps_value (pmaps_mapping_value(),
	 * pmaps_group_value()); for summaries an enum pmaps_page_count; for
	 * explain an enum pmaps_xcol or enum pmaps_xpage. -1 when the column
	 * shows no library value (addresses, names, flags).
	 */
	short lib;
};

extern const struct column columns[COL_COUNT];

/* The column of a mapping or group named S (N bytes, any case, snake_case or kernel name), or -1. */
int col_lookup(const char *s, size_t n);
/* Whether rows sort by the column largest first (sizes and counts) rather than ascending. */
int col_sort_desc(int col);
/* The column of pmaps top named S (N bytes, any case) that RECORDS (REC_PROC, REC_PGROUP) have, or -1. */
int col_top_lookup(const char *s, size_t n, unsigned records);

/* Parses "rss,pss,path" or "all" into COLS; returns the count, or -1 with a message. */
int parse_columns(const char *spec, int *cols, int max, int grouped);

#endif
