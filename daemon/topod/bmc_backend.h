/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: what a BMC backend gives bmc.c, as the kernel's file_operations:
 * one table per transport, in one file (bmc_ipmi.c, bmc_redfish.c), listed in
 * bmc_backends.c; bmc.c calls it and names none.
 *
 * A new transport is its backend here, its section of the platform parser
 * (daemon/platform/platform_section.h) and a line in each list. What it
 * needs of the platform file is in the platform's bmc part, which its
 * section filled (struct pt_platform's bmc, read through its own type);
 * what it needs of topod.conf it reads itself (conf) into bmc_conf's priv.
 * Every operation returns 0 or -errno with err set, as bmc.h says;
 * -EAGAIN is a transient condition (the BMC busy, initializing, not
 * answering), err only what it is ("0xD2 BMC initialization in
 * progress", "no answer"): bmc.c waits it out. A select or power_cycle
 * answers -EAGAIN only for a request refused before it acted (select: with
 * *sent 0); one that may have acted is -ETIMEDOUT.
 */
#ifndef PCITOPO_TOPOD_BMC_BACKEND_H
#define PCITOPO_TOPOD_BMC_BACKEND_H

#include <stdio.h>

#include <libconfig.h>

#include "bmc.h"

struct pt_plat_transport;

struct bmc_ops {
	/* the platform files it speaks (their transport = ...) */
	const struct pt_plat_transport *transport;
	/* topod.conf's bmc.transport values that are its, NULL-terminated */
	const char *const *kinds;
	/* topod.conf's bmc group (its keys under "bmc."), kind one of kinds,
	 * into conf (BMC_CONF_MAX bytes); err "file:line: bmc.KEY: ..." */
	int (*conf)(config_t *cf, const char *path, const char *kind,
		    void *conf, char *err, size_t len);
	void (*describe)(const void *conf, char *buf, size_t len);
	void (*check)(const void *conf,
		      void (*bad)(const char *what, const char *why));
	/* topod --check's look at the BMC itself, for platform p (what it
	 * has of what p names, each problem to bad()); NULL: none (IPMI's
	 * OEM requests cannot be asked about) */
	void (*check_bmc)(const void *conf, const struct pt_platform *p,
			  void (*bad)(const char *what, const char *why));
	/* topod --discover-redfish: the BMC's settings that may be the
	 * layout, and a platform file's part for one, on out; NULL: none */
	int (*discover)(const void *conf, const char *system,
			const char *attribute, FILE *out, char *err,
			size_t len);
	/* a session to the BMC of conf, for platform p */
	int (*open)(const void *conf, const struct pt_platform *p,
		    void **session, char *err, size_t len);
	void (*close)(void *session);
	const char *(*name)(const void *session);
	int (*status)(void *session, const struct pt_platform *p,
		      struct pt_plat_job *job, char *err, size_t len);
	/* *sent: whether the request went out (a refusal sent nothing) */
	int (*select)(void *session, const struct pt_platform *p,
		      enum pcitopo_layout l, int *sent, char *err, size_t len);
	/* whether the BMC has what selects l (Redfish: the attribute and
	 * its value in the AttributeRegistry); NULL: it cannot be asked */
	int (*can_select)(void *session, const struct pt_platform *p,
			  enum pcitopo_layout l, char *err, size_t len);
	int (*power_cycle)(void *session, char *err, size_t len);
};

/* The backends this topod has, NULL-terminated (bmc_backends.c). */
extern const struct bmc_ops *const bmc_backends[];

#endif
