/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: a shared library loaded on first use, all its symbols or none.
 *
 * topoctl maps every library it links at each start, and in the emulated
 * server each one costs milliseconds of every command. A library needed by
 * one code path only (libpci for the sysfs source, libconfig for the model's
 * override file, libsystemd for set and status) is therefore dlopen()ed when
 * that path runs. Its users keep calling the functions by their own names:
 *
 *   #define FOO_SYMBOLS(X) X(foo_open) X(foo_read)
 *   FOO_SYMBOLS(PT_DL_DEFINE)
 *   static const struct pt_dl_sym foo_syms[] = { FOO_SYMBOLS(PT_DL_ENTRY) };
 *   static struct pt_dl foo = PT_DL_INIT("libfoo.so.1", "libfoo1", foo_syms);
 *   #define foo_open sym_foo_open
 *   #define foo_read sym_foo_read
 *
 * The pointers take their types from the real prototypes (__typeof__), so a
 * mismatch does not build, and a function called but not redirected is an
 * undefined symbol at link time, never a failure at run time.
 */
#ifndef PCITOPO_LIB_DL_H
#define PCITOPO_LIB_DL_H

#include <stddef.h>

struct pt_dl_sym {
	const char *name;
	void *ptr;	/* the function pointer dlsym() fills */
};

struct pt_dl {
	const char *soname;
	const char *package;	/* Debian's, named in the message */
	const struct pt_dl_sym *syms;
	size_t n_syms;
	void *handle;		/* set once every symbol is resolved */
};

#define PT_DL_DEFINE(f)	static __typeof__(f) *sym_##f;
#define PT_DL_ENTRY(f)	{ #f, &sym_##f },
#define PT_DL_INIT(soname, package, syms) \
	{ soname, package, syms, sizeof(syms) / sizeof((syms)[0]), NULL }

/*
 * Load dl->soname and fill every pointer of dl->syms; once loaded, later
 * calls return 0 at once; a failure is retried by the next call. Safe to
 * call from several threads. -ELIBACC: the library does not load; -ELIBBAD:
 * a symbol is missing, and every pointer stays NULL. The message, in err,
 * is "SONAME (package PACKAGE): WHY".
 */
int pt_dl_open(struct pt_dl *dl, char *err, size_t len);

#endif /* PCITOPO_LIB_DL_H */
