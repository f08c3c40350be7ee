/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: the BMC, behind a table of operations (bmc_backend.h), one
 * backend per transport: IPMI's (bmc_ipmi.c), Redfish's (bmc_redfish.c). What is
 * above it (job.c, plan.c, bus.c, config.c, check.c, topod.c) asks for a
 * status, a Select, a power cycle and a description, and knows no
 * transport's types.
 *
 * Which backend: the one whose connection topod.conf's bmc = { transport =
 * ...; } names (IPMI's are "inband" and "lan"); the platform file must be
 * for the same transport (its own transport = ..., default ipmi), since
 * its requests are that transport's (bmc_check_platform()).
 *
 * A Select is sent once and never resent; after a timeout the status says
 * whether it took. All functions block (the worker thread and a dry run's
 * thread call them; a backend whose library wants it makes them take
 * turns).
 *
 * A transient condition (IPMI's 0xC0 node busy, 0xC3 timeout, 0xD2 BMC
 * initialization in progress, no answer: a BMC resetting takes minutes)
 * is waited out with backoff (0.25 s doubling to 4 s) until the deadline
 * of the last bmc_budget(), by bmc_status(), bmc_select() and
 * bmc_power_cycle() alike: a status is asked again, a Select or a power
 * cycle only when the BMC refused it before acting (0xC0, 0xD2; after 0xC3
 * or no answer it may have acted: -ETIMEDOUT, the status says). Past the
 * deadline they return -EAGAIN, err naming the condition and the wait.
 */
#ifndef PCITOPO_TOPOD_BMC_H
#define PCITOPO_TOPOD_BMC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "platform.h"

struct bmc_ops;

/* Room for a backend's reading of topod.conf's bmc group. */
#define BMC_CONF_MAX	8192

/* topod.conf's bmc = { ... }, as its backend read it (bmc_conf_load()
 * below); opaque here: the backend's own type is in priv. */
struct bmc_conf {
	const struct bmc_ops *ops;
	union {
		max_align_t align;
		unsigned char data[BMC_CONF_MAX];
	} priv;
};

/* An open session to the BMC. */
struct bmc;

struct config_t;	/* libconfig's config_t */

/* topod.conf's bmc group, by the backend whose bmc.transport it names,
 * into c; 0 or -EINVAL with err naming the file and the key. */
int bmc_conf_load(struct config_t *cf, const char *path, struct bmc_conf *c,
		  char *err, size_t len);

/* 0, or -EPROTO with err naming both when plat is for another transport
 * than the bmc group's backend. */
int bmc_check_platform(const struct bmc_conf *c, const struct pt_platform *p,
		       char *err, size_t len);
/* The BMC as topod.conf names it ("/dev/ipmi0", "10.0.0.5"): Status's and
 * PlanLayout's BMC, the start's log line. */
void bmc_describe(const struct bmc_conf *c, char *buf, size_t len);
/* topod --check: what the configuration gives (its credentials file, its
 * device), a line on stdout, each problem to bad(); contacts nothing. */
void bmc_check(const struct bmc_conf *c,
	       void (*bad)(const char *what, const char *why));

/* topod --check, a platform that passed bmc_check_platform(): what the
 * BMC itself has of what p names (Redfish: the AttributeRegistry's
 * attribute and values), each problem to bad(); contacts the BMC where
 * its backend can ask (nothing for IPMI) */
void bmc_check_remote(const struct bmc_conf *c, const struct pt_platform *p,
		      void (*bad)(const char *what, const char *why));

/* topod --discover-redfish: what the BMC has that may be the layout (the
 * settings whose names or descriptions mention the PCIe topology, or
 * attribute), and a platform file's part, on out; -EOPNOTSUPP for a
 * backend that cannot say */
int bmc_discover(const struct bmc_conf *c, const char *system,
		 const char *attribute, FILE *out, char *err, size_t len);

int bmc_open(const struct bmc_conf *c, const struct pt_platform *p,
	     struct bmc **out, char *err, size_t len);
void bmc_close(struct bmc *b);
/* The session's peer ("host:port", the device). */
const char *bmc_name(const struct bmc *b);
/* Transient conditions are waited out for ms from now (until the next
 * call); what was waited for is forgotten. */
void bmc_budget(struct bmc *b, unsigned int ms);
/* Since bmc_budget(): "BMC not ready (0xD2 BMC initialization in
 * progress): waited 12.4 s" (the last condition, the time in all) and
 * true, or "" and false when nothing was waited for. */
bool bmc_waited(const struct bmc *b, char *buf, size_t len);
int bmc_status(struct bmc *b, struct pt_plat_job *job, char *err, size_t len);
/* Select layout l once. *sent: the request went out (even on -ETIMEDOUT). */
int bmc_select(struct bmc *b, enum pcitopo_layout l, int *sent, char *err,
	       size_t len);
/* Follow the status until the job is no longer busy, within the budget of
 * the last bmc_budget(). -ETIMEDOUT: still busy (job holds the last status
 * read). */
int bmc_follow(struct bmc *b, struct pt_plat_job *job, char *err, size_t len);
/* Preflight (a dry run's too): 0 if the BMC has what selects l, or
 * cannot be asked (IPMI's OEM bytes); else -errno, err naming what it has
 * (Redfish: the AttributeRegistry's attribute and values). Transient
 * conditions are waited out as for a status. */
int bmc_can_select(struct bmc *b, enum pcitopo_layout l, char *err,
		   size_t len);
/* A chassis power cycle (sent once, but again after a refusal). */
int bmc_power_cycle(struct bmc *b, char *err, size_t len);

#endif
