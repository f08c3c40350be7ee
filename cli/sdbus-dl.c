// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsystemd's sd-bus, resolved at run time (see sdbus-dl.h for why).
 */
#define SDBUS_DL_NO_REDIRECT
#include "sdbus-dl.h"

#include "dl.h"

#define SDBUS_DL_DEFINE(f) __typeof__(f) *sym_##f;
SDBUS_DL_SYMBOLS(SDBUS_DL_DEFINE)
#undef SDBUS_DL_DEFINE

static const struct pt_dl_sym syms[] = { SDBUS_DL_SYMBOLS(PT_DL_ENTRY) };
static struct pt_dl libsystemd = PT_DL_INIT(SDBUS_DL_SONAME, "libsystemd0",
					    syms);

int sdbus_dl_open(char *err, size_t len)
{
	return pt_dl_open(&libsystemd, err, len);
}
