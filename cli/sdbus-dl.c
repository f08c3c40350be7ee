// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsystemd's sd-bus, resolved at run time (see sdbus-dl.h for why).
 */
#define SDBUS_DL_NO_REDIRECT
#include "sdbus-dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#define SDBUS_DL_DEFINE(f) __typeof__(f) *sym_##f;
SDBUS_DL_SYMBOLS(SDBUS_DL_DEFINE)
#undef SDBUS_DL_DEFINE

int sdbus_dl_open(char *err, size_t len)
{
	static void *lib;
	void *h;

	if (lib)
		return 0;
	h = dlopen(SDBUS_DL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, len, "%s", dlerror());
		return -ENOENT;
	}
	/* all or nothing: one missing symbol clears every pointer again */
#define SDBUS_DL_SET(f)							\
	sym_##f = (__typeof__(f) *)dlsym(h, #f);			\
	if (!sym_##f) {							\
		snprintf(err, len, SDBUS_DL_SONAME " has no %s", #f);	\
		goto missing;						\
	}
	SDBUS_DL_SYMBOLS(SDBUS_DL_SET)
#undef SDBUS_DL_SET
	lib = h;
	return 0;

missing:
#define SDBUS_DL_CLEAR(f) sym_##f = NULL;
	SDBUS_DL_SYMBOLS(SDBUS_DL_CLEAR)
#undef SDBUS_DL_CLEAR
	dlclose(h);
	return -ELIBBAD;
}
