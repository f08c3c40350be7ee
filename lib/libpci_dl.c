// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: the pointers libpci_dl.h redirects libpci's functions to, and
 * the one load of libpci.so.3 (with libz and libudev behind it): only the
 * sysfs source pays for it, topoctl's other commands start without it.
 */
#define PT_LIBPCI_NO_REDIRECT
#include "libpci_dl.h"

#include "dl.h"

#define PT_LIBPCI_DEFINE(f)	__typeof__(f) *sym_##f;
PT_LIBPCI_SYMBOLS(PT_LIBPCI_DEFINE)

static const struct pt_dl_sym libpci_syms[] = { PT_LIBPCI_SYMBOLS(PT_DL_ENTRY) };
static struct pt_dl libpci = PT_DL_INIT("libpci.so.3", "libpci3", libpci_syms);

int pt_libpci_open(char *err, size_t len)
{
	return pt_dl_open(&libpci, err, len);
}
