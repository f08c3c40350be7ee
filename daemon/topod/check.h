/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: what can be checked before topod runs (check.c): the platform
 * file against this machine's DMI, and `topod --check`, which reads every
 * file topod would read and says what is wrong with each, without the bus,
 * the module or the BMC.
 */
#ifndef PCITOPO_TOPOD_CHECK_H
#define PCITOPO_TOPOD_CHECK_H

#include <stddef.h>

#include "platform.h"

/* 0: this machine is the platform's model (DMI sys_vendor, product_name);
 * 1: no DMI here, nothing to compare; -ENODEV: another model, err says
 * which (both names) */
int check_dmi(const struct pt_platform *p, char *err, size_t len);

/* topod --check [--config FILE]: one line per file on stdout, problems on
 * stderr; the exit status (0: all good, 1: a problem) */
int topod_check(const char *config);

/* topod --discover-redfish [--system ID] [--attribute NAME]: the Redfish
 * BMC's BIOS attributes that mention the PCIe topology, with their values,
 * and a platform file's part for one; only topod.conf's bmc group is read
 * (exit status 0, or 1 with the problem on stderr) */
int topod_discover(const char *config, const char *system,
		   const char *attribute);

#endif
