// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: Select, status following and power cycle through the BMC.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bmc.h"
#include "platform_ipmi.h"

/*
 * libptipmi's LAN transport keeps global state (one libOpenIPMI OS handler
 * for every session, run by whichever thread waits on it): a switch's
 * worker and a dry run's thread (PlanLayout) take turns, call by call.
 * Waits between calls (bmc_follow()'s polls) hold nothing.
 */
static pthread_mutex_t bmc_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int bmc_open(const struct tconfig *c, struct pt_ipmi **out, char *err,
	     size_t len)
{
	struct pt_ipmi_opts opts = { .timeout_ms = c->timeout_ms };
	struct pt_ipmi_creds creds;
	int r;

	pthread_mutex_lock(&bmc_lock);
	if (c->transport == BMC_INBAND) {
		r = pt_ipmi_open_inband(out, c->device, &opts, err, len);
		goto out;
	}
	r = pt_ipmi_creds_load(c->creds, &creds, err, len);
	if (r)
		goto out;
	r = pt_ipmi_open_lan(out, c->host, c->port, &creds, c->cipher, &opts,
			     err, len);
	pt_ipmi_creds_wipe(&creds);
out:
	pthread_mutex_unlock(&bmc_lock);
	return r;
}

void bmc_close(struct pt_ipmi *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&bmc_lock);
	pt_ipmi_close(h);
	pthread_mutex_unlock(&bmc_lock);
}

int bmc_status(struct pt_ipmi *h, const struct pt_platform *p,
	       struct pt_plat_job *job, char *err, size_t len)
{
	const struct pt_plat_req *q = &pt_plat_ipmi(p)->status.request;
	uint8_t rsp[64];
	size_t n = 0;
	int r;

	pthread_mutex_lock(&bmc_lock);
	r = pt_ipmi_cmd(h, q->netfn, q->cmd, PT_IPMI_F_RETRY, q->data, q->len,
			rsp, sizeof(rsp), &n, NULL);
	if (r)
		snprintf(err, len, "status: %s", pt_ipmi_errmsg(h));
	pthread_mutex_unlock(&bmc_lock);
	if (r)
		return r;
	return pt_plat_ipmi_decode_status(p, rsp, n, job, err, len);
}

int bmc_select(struct pt_ipmi *h, const struct pt_platform *p,
	       enum pcitopo_layout l, int *sent, char *err, size_t len)
{
	const struct pt_plat_req *q = &pt_plat_ipmi(p)->layouts[l].select;
	uint8_t rsp[64], cc = 0;
	size_t n = 0;
	int r;

	*sent = 1;
	pthread_mutex_lock(&bmc_lock);
	/* never PT_IPMI_F_RETRY: a Select is sent once */
	r = pt_ipmi_cmd(h, q->netfn, q->cmd, 0, q->data, q->len, rsp,
			sizeof(rsp), &n, &cc);
	if (r) {
		snprintf(err, len, "select %s: %s", ptc_layout_name(l),
			 pt_ipmi_errmsg(h));
		if (r == -EREMOTEIO)
			*sent = 0;	/* refused: it did nothing */
	}
	pthread_mutex_unlock(&bmc_lock);
	return r;
}

int bmc_follow(struct pt_ipmi *h, const struct pt_platform *p,
	       unsigned int budget_ms, struct pt_plat_job *job, char *err,
	       size_t len)
{
	uint64_t deadline = now_usec() + (uint64_t)budget_ms * 1000u;
	unsigned int poll = p->poll_ms ? p->poll_ms : 250;
	int r;

	for (;;) {
		r = bmc_status(h, p, job, err, len);
		if (r)
			return r;
		if (job->state != PT_PLAT_STATE_BUSY)
			return 0;
		if (now_usec() >= deadline) {
			snprintf(err, len,
				 "BMC job %d still busy after %u ms (budget)",
				 job->job, budget_ms);
			return -ETIMEDOUT;
		}
		sleep_ms(poll);
	}
}

int bmc_power_cycle(struct pt_ipmi *h, char *err, size_t len)
{
	static const uint8_t cycle = 0x02;	/* Chassis Control: power cycle */
	uint8_t cc = 0;
	int r;

	pthread_mutex_lock(&bmc_lock);
	r = pt_ipmi_cmd(h, 0x00, 0x02, 0, &cycle, 1, NULL, 0, NULL, &cc);
	if (r)
		snprintf(err, len, "chassis power cycle: %s", pt_ipmi_errmsg(h));
	pthread_mutex_unlock(&bmc_lock);
	return r;
}
