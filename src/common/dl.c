/* SPDX-License-Identifier: MIT */
/*
 * dl.c - opening an optional library by its soname (dl.h).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/dl.h"
#include "common/tool.h"

static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;

static void dl_why(struct dl_lib *l, const char *what)
{
	snprintf(l->why, sizeof(l->why), "%s (Debian package %s): %s", l->soname, l->package,
	         what ? what : "not loaded");
}

int dl_load(struct dl_lib *l, const struct dl_sym *syms, size_t n)
{
	int state;

	pthread_mutex_lock(&dl_lock);
	if (l->state == 0) {
		/* RTLD_LOCAL: nothing of it is seen by a later library's lookups. */
		void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);

		l->state = -1;
		if (!h) {
			dl_why(l, dlerror());
		} else {
			size_t i;

			for (i = 0; i < n; i++) {
				void *sym;

				dlerror();
				sym = dlsym(h, syms[i].name);
				if (!sym) {
					char what[256];

					snprintf(what, sizeof(what), "it has no %s", syms[i].name);
					dl_why(l, what);
					break;
				}
				/* POSIX's way to turn dlsym()'s answer into a function pointer. */
				memcpy(syms[i].slot, &sym, sizeof(sym));
			}
			if (i < n) {
				void *none = NULL;

				dlclose(h);
				for (i = 0; i < n; i++)
					memcpy(syms[i].slot, &none, sizeof(none));
			} else {
				l->handle = h;
				l->state = 1;
			}
		}
	}
	state = l->state;
	pthread_mutex_unlock(&dl_lock);
	return state == 1 ? 0 : -1;
}

int dl_missing(const char *who, const struct dl_lib *l)
{
	die_msg("%s needs %s", who, l->why);
	return EXIT_FAIL;
}
