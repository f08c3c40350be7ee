// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the BMC (bmc.h) on its backends (bmc_backend.h): which backend a
 * configuration names, and the calls into it; following a job is every
 * backend's (its status, polled), so it is here, as is the place for what
 * a BMC's faults will ask of all of them (a status read again after a
 * transient error is harmless, a Select never).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bmc_backend.h"
#include "config.h"
#include "topod.h"

struct bmc {
	const struct bmc_ops *ops;
	const struct pt_platform *plat;
	void *session;
};

/* "\"inband\" or \"lan\"": every backend's kinds, for messages */
static const char *kinds_list(char *buf, size_t len)
{
	size_t off = 0, n = 0, total = 0;

	for (size_t b = 0; bmc_backends[b]; b++)
		for (const char *const *k = bmc_backends[b]->kinds; *k; k++)
			total++;
	buf[0] = '\0';
	for (size_t b = 0; bmc_backends[b]; b++)
		for (const char *const *k = bmc_backends[b]->kinds; *k; k++) {
			int w = snprintf(buf + off, len - off, "%s\"%s\"",
					 !n ? "" : n + 1 == total ? " or " :
					 ", ", *k);

			n++;
			if (w < 0 || (size_t)w >= len - off)
				return buf;
			off += (size_t)w;
		}
	return buf;
}

int bmc_conf_load(config_t *cf, const char *path, struct bmc_conf *c,
		  char *err, size_t len)
{
	char kinds[128];
	const char *s;

	memset(c, 0, sizeof(*c));
	if (!config_lookup_string(cf, "bmc.transport", &s)) {
		snprintf(err, len, "%s: bmc.transport: missing (%s)", path,
			 kinds_list(kinds, sizeof(kinds)));
		return -EINVAL;
	}
	for (size_t b = 0; bmc_backends[b]; b++)
		for (const char *const *k = bmc_backends[b]->kinds; *k; k++)
			if (!strcmp(*k, s)) {
				c->ops = bmc_backends[b];
				return c->ops->conf(cf, path, s, c->priv.data,
						    err, len);
			}
	snprintf(err, len, "%s: bmc.transport: %s, not \"%s\"", path,
		 kinds_list(kinds, sizeof(kinds)), s);
	return -EINVAL;
}

int bmc_check_platform(const struct bmc_conf *c, const struct pt_platform *p,
		       char *err, size_t len)
{
	if (c->ops && c->ops->transport == p->transport)
		return 0;
	snprintf(err, len, "platform %s is for a BMC spoken to by %s; "
		 "topod.conf's bmc group is for another transport", p->name,
		 pt_platform_transport_name(p));
	return -EPROTO;
}

void bmc_describe(const struct bmc_conf *c, char *buf, size_t len)
{
	c->ops->describe(c->priv.data, buf, len);
}

void bmc_check(const struct bmc_conf *c,
	       void (*bad)(const char *what, const char *why))
{
	c->ops->check(c->priv.data, bad);
}

int bmc_open(const struct bmc_conf *c, const struct pt_platform *p,
	     struct bmc **out, char *err, size_t len)
{
	struct bmc *b;
	int r;

	/* the platform's part is read as the backend's type: never another
	 * transport's (topod refuses such a pair at start) */
	r = bmc_check_platform(c, p, err, len);
	if (r)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->ops = c->ops;
	b->plat = p;
	r = b->ops->open(c->priv.data, p, &b->session, err, len);
	if (r) {
		free(b);
		return r;
	}
	*out = b;
	return 0;
}

void bmc_close(struct bmc *b)
{
	if (!b)
		return;
	b->ops->close(b->session);
	free(b);
}

const char *bmc_name(const struct bmc *b)
{
	return b->ops->name(b->session);
}

int bmc_status(struct bmc *b, struct pt_plat_job *job, char *err, size_t len)
{
	return b->ops->status(b->session, b->plat, job, err, len);
}

int bmc_select(struct bmc *b, enum pcitopo_layout l, int *sent, char *err,
	       size_t len)
{
	*sent = 1;
	return b->ops->select(b->session, b->plat, l, sent, err, len);
}

int bmc_follow(struct bmc *b, unsigned int budget_ms, struct pt_plat_job *job,
	       char *err, size_t len)
{
	uint64_t deadline = now_usec() + (uint64_t)budget_ms * 1000u;
	unsigned int poll = b->plat->poll_ms ? b->plat->poll_ms : 250;
	int r;

	for (;;) {
		r = bmc_status(b, job, err, len);
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

int bmc_power_cycle(struct bmc *b, char *err, size_t len)
{
	return b->ops->power_cycle(b->session, err, len);
}
