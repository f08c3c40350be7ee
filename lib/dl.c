// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: libraries loaded on first use (dl.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"

/* One lock for every library: each is loaded once, contention is nil. */
static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;

int pt_dl_open(struct pt_dl *dl, char *err, size_t len)
{
	void *h, *p;
	size_t i;
	int r = 0;

	pthread_mutex_lock(&dl_lock);
	if (dl->handle)
		goto out;
	h = dlopen(dl->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, len, "%s (package %s): %s", dl->soname,
			 dl->package, dlerror());
		r = -ELIBACC;
		goto out;
	}
	for (i = 0; i < dl->n_syms; i++) {
		p = dlsym(h, dl->syms[i].name);
		if (!p) {
			snprintf(err, len, "%s (package %s): no symbol %s",
				 dl->soname, dl->package, dl->syms[i].name);
			r = -ELIBBAD;
			break;
		}
		/* POSIX: a function pointer holds what dlsym() returns */
		memcpy(dl->syms[i].ptr, &p, sizeof(p));
	}
	if (r) {
		/* all or none: no pointer into a library about to go away */
		p = NULL;
		while (i--)
			memcpy(dl->syms[i].ptr, &p, sizeof(p));
		dlclose(h);
		goto out;
	}
	dl->handle = h;
out:
	pthread_mutex_unlock(&dl_lock);
	return r;
}
