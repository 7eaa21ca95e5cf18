/* SPDX-License-Identifier: MIT */
/*
 * dl.h - the optional libraries, loaded by the command that needs them.
 *
 * libcurl (the Go runtime's books), libmicrohttpd (serve) and ncursesw (the
 * live views) are not linked: `pmaps maps` maps libc and nothing else, and
 * a machine without them runs every other command. Each is opened with
 * dlopen() by its soname the first time a command asks for it; its
 * functions go into a table of pointers the caller's file defines.
 * docs/internals/LIBRARIES.md says why this way and not separate programs.
 *
 * Each library is named in the binary's .note.dlopen section (DL_NOTE), the
 * freedesktop.org convention packagers read (`dlopen-notes`,
 * debhelper's and rpm's dependency generators): the soname, what it
 * enables and how much the tool wants it.
 */
#ifndef PMAPS_DL_H
#define PMAPS_DL_H

#include <stddef.h>
#include <stdint.h>

/* One optional library: what to open and the words for when it is missing. */
struct dl_lib {
	const char *soname;  /* "libcurl.so.4": the name dlopen() is given */
	const char *package; /* the Debian package that has it */
	/* Filled by dl_load(): */
	void *handle;
	int state;           /* 0 not tried, 1 loaded, -1 missing (WHY says why) */
	char why[512];       /* "libcurl.so.4 (Debian package libcurl4) ...: dlerror" */
};

/* One function to look up: its name, and the function pointer it goes into. */
struct dl_sym {
	const char *name;
	void *slot; /* the address of a function pointer of the function's own type */
};
/* The entry for function F of table T, whose member is named F too. */
#define DL_SYM(t, f) {#f, &(t).f}

/*
 * Opens L (once: later calls return the first answer) and sets each of
 * SYMS[0..N)'s slots to its function. Returns 0, or -1 with L->why set: the
 * library or one of its functions missing (then no slot is set). Safe to
 * call from several threads.
 */
int dl_load(struct dl_lib *l, const struct dl_sym *syms, size_t n);

/*
 * The message a command gives for a missing library, one line without
 * "pmaps: ": "serve needs libmicrohttpd.so.12 (Debian package
 * libmicrohttpd12): ...". Prints it with die_msg() and returns EXIT_FAIL.
 */
int dl_missing(const char *who, const struct dl_lib *l);

/*
 * The .note.dlopen entry for one library: an ELF note, owner "FDO", type
 * 0x407c0c0a, whose descriptor is a JSON array of objects with "soname",
 * "feature", "description" and "priority" ("required", "recommended" or
 * "suggested"). JSON is a string literal; ID names the static object.
 */
#define DL_NOTE_TYPE 0x407c0c0a
#define DL_NOTE(id, json)                                                        \
	__attribute__((used, section(".note.dlopen"), aligned(4))) static const struct { \
		uint32_t namesz, descsz, type;                                           \
		char name[4];                                                            \
		char desc[(sizeof(json) + 3) & ~(size_t)3];                              \
	} id = {4, sizeof(json), DL_NOTE_TYPE, "FDO", json}

#endif
