// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: the CUDA runtime, loaded at run time (cudart.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart.h"

static const char *const sonames[] = {
	"libcudart.so", "libcudart.so.12", "libcudart.so.11.0",
	"libcudart.so.11", NULL,
};

int pt_cudart_open(struct pt_cudart *rt, char *what, size_t len)
{
	const char *env = getenv("TOPOCTL_CUDART");
	const char *one[2] = { env, NULL };
	const char *const *names = env && *env ? one : sonames;
	void *sym;

	memset(rt, 0, sizeof(*rt));
	for (; *names && !rt->handle; names++) {
		rt->handle = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
		rt->soname = *names;
	}
	if (!rt->handle) {
		snprintf(what, len, "%s", env && *env ? env : "libcudart.so");
		return -ENOENT;
	}
#define PT_CUDART_SYM(name, ret, params)				\
	sym = dlsym(rt->handle, #name);					\
	if (!sym) {							\
		snprintf(what, len, "%s in %s", #name, rt->soname);	\
		pt_cudart_close(rt);					\
		return -ENOEXEC;						\
	}								\
	memcpy(&rt->name, &sym, sizeof(sym));
	PT_CUDART_FUNCS(PT_CUDART_SYM)
#undef PT_CUDART_SYM
	return 0;
}

void pt_cudart_close(struct pt_cudart *rt)
{
	if (rt->handle)
		dlclose(rt->handle);
	memset(rt, 0, sizeof(*rt));
}
