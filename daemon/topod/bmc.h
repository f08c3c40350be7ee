/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: the BMC side of a switch, on libptipmi and the platform file.
 * A Select is sent once and never resent; after a timeout the status says
 * whether it took. All functions block (the worker thread and a dry run's
 * thread call them; they take turns, bmc.c).
 */
#ifndef PCITOPO_TOPOD_BMC_H
#define PCITOPO_TOPOD_BMC_H

#include "topod.h"

int bmc_open(const struct tconfig *c, struct pt_ipmi **out, char *err,
	     size_t len);
void bmc_close(struct pt_ipmi *h);	/* pt_ipmi_close(), in turn */
int bmc_status(struct pt_ipmi *h, const struct pt_platform *p,
	       struct pt_plat_job *job, char *err, size_t len);
/* Select layout l once. *sent: the request went out (even on -ETIMEDOUT). */
int bmc_select(struct pt_ipmi *h, const struct pt_platform *p,
	       enum pcitopo_layout l, int *sent, char *err, size_t len);
/* Follow the status until the job is no longer busy, within budget_ms.
 * -ETIMEDOUT: still busy (job holds the last status read). */
int bmc_follow(struct pt_ipmi *h, const struct pt_platform *p,
	       unsigned int budget_ms, struct pt_plat_job *job, char *err,
	       size_t len);
/* Chassis Control: power cycle (sent once). */
int bmc_power_cycle(struct pt_ipmi *h, char *err, size_t len);

uint64_t now_usec(void);	/* CLOCK_MONOTONIC */
void sleep_ms(unsigned int ms);

#endif
