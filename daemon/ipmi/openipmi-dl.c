// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libOpenIPMI on first use of the LAN transport: dlopen() both libraries,
 * dlsym() every function of struct pt_openipmi, all or nothing. See
 * openipmi-dl.h for why.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "openipmi-dl.h"

struct pt_openipmi pt_oi;

enum oi_lib { OI_OPENIPMI, OI_POSIX, OI_NLIBS };

static const char *const oi_sonames[OI_NLIBS] = {
	[OI_OPENIPMI]	= PT_OPENIPMI_LIB,
	[OI_POSIX]	= PT_OPENIPMI_POSIX_LIB,
};

/* Where each pointer of pt_oi comes from. */
#define OI_SYM(lib, name) { lib, #name, offsetof(struct pt_openipmi, name) }
static const struct oi_sym {
	enum oi_lib lib;
	const char *name;
	size_t off;
} oi_syms[] = {
	OI_SYM(OI_POSIX, ipmi_posix_setup_os_handler),
	OI_SYM(OI_OPENIPMI, ipmi_init),
	OI_SYM(OI_OPENIPMI, ipmi_shutdown),
	OI_SYM(OI_OPENIPMI, ipmi_lanp_setup_con),
	OI_SYM(OI_OPENIPMI, ipmi_alloc_msg_item),
	OI_SYM(OI_OPENIPMI, ipmi_free_msg_item),
};
#undef OI_SYM
#define OI_NSYMS (sizeof(oi_syms) / sizeof(oi_syms[0]))

/* dlsym()'s void * is stored as is (POSIX: same size as a function pointer),
 * and every member of the table has a line in oi_syms. */
_Static_assert(sizeof(pt_oi.ipmi_init) == sizeof(void *),
	       "function pointers are not the size of void *");
_Static_assert(sizeof(struct pt_openipmi) == OI_NSYMS * sizeof(void *),
	       "struct pt_openipmi and oi_syms[] differ");

static pthread_mutex_t oi_lock = PTHREAD_MUTEX_INITIALIZER;
static void *oi_handles[OI_NLIBS];	/* all set once loaded */

/* dlerror() without the "SONAME: " it starts with when dlopen(SONAME) failed. */
static const char *oi_dlerror(const char *soname)
{
	const char *e = dlerror();
	size_t n = strlen(soname);

	if (!e)
		return "unknown error";
	if (!strncmp(e, soname, n) && e[n] == ':' && e[n + 1] == ' ')
		return e + n + 2;
	return e;
}

/* The file the loader picked for a handle (LD_LIBRARY_PATH may point elsewhere). */
static const char *oi_path(void *handle)
{
	struct link_map *map = NULL;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &map) || !map || !map->l_name)
		return "?";
	return map->l_name;
}

int pt_openipmi_load(char *err, size_t errlen)
{
	void *h[OI_NLIBS] = { NULL };
	struct pt_openipmi t;
	int ret = 0;
	size_t i;

	pthread_mutex_lock(&oi_lock);
	if (oi_handles[OI_OPENIPMI])
		goto out;

	for (i = 0; i < OI_NLIBS; i++) {
		h[i] = dlopen(oi_sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (!h[i]) {
			if (err && errlen)
				snprintf(err, errlen, "cannot load %s: %s (the "
					 "LAN transport needs it: install %s)",
					 oi_sonames[i],
					 oi_dlerror(oi_sonames[i]),
					 PT_OPENIPMI_PACKAGE);
			ret = -ELIBACC;
			goto fail;
		}
	}
	for (i = 0; i < OI_NSYMS; i++) {
		const struct oi_sym *s = &oi_syms[i];
		void *p;

		p = dlsym(h[s->lib], s->name);
		if (!p) {
			if (err && errlen)
				snprintf(err, errlen, "%s (%s) has no function "
					 "%s: not OpenIPMI 2.0's library (the "
					 "LAN transport needs it: install %s)",
					 oi_sonames[s->lib],
					 oi_path(h[s->lib]), s->name,
					 PT_OPENIPMI_PACKAGE);
			ret = -ELIBBAD;
			goto fail;
		}
		memcpy((char *)&t + s->off, &p, sizeof(p));
	}
	pt_oi = t;
	memcpy(oi_handles, h, sizeof(oi_handles));
	goto out;

fail:
	for (i = 0; i < OI_NLIBS; i++)
		if (h[i])
			dlclose(h[i]);
out:
	pthread_mutex_unlock(&oi_lock);
	return ret;
}
