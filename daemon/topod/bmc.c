// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the BMC (bmc.h) on its backends (bmc_backend.h): which backend a
 * configuration names, and the calls into it; following a job is every
 * backend's (its status, polled), so it is here, as is the place for what
 * a BMC's faults ask of all of them: a transient condition (a backend's
 * -EAGAIN: the BMC busy, resetting, initializing, not answering) is waited
 * out with backoff within the budget bmc_budget() set, on every call; a
 * status is asked again, a Select or a power cycle only where the backend
 * says it was refused before it acted (-EAGAIN), never after a timeout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bmc_backend.h"
#include "topod.h"

struct bmc {
	const struct bmc_ops *ops;
	const struct pt_platform *plat;
	void *session;
	/* bmc_budget(): transient conditions are waited out until deadline
	 * (now_usec(); 0: not at all); what was waited for, and how long */
	uint64_t deadline;
	unsigned int budget_ms;
	uint64_t waited_usec;
	char waited_for[160];
};

/* The backoff between tries of a transient condition: 0.25 s, doubling,
 * at most 4 s (a BMC back from a reset is seen within 4 s of it). */
#define BMC_BACKOFF_FIRST_MS	250
#define BMC_BACKOFF_MAX_MS	4000

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

void bmc_check_remote(const struct bmc_conf *c, const struct pt_platform *p,
		      void (*bad)(const char *what, const char *why))
{
	if (c->ops->check_bmc)
		c->ops->check_bmc(c->priv.data, p, bad);
}

int bmc_discover(const struct bmc_conf *c, const char *system,
		 const char *attribute, FILE *out, char *err, size_t len)
{
	if (!c->ops->discover) {
		snprintf(err, len, "the BMC's transport (%s) has no settings to "
			 "discover: its requests are the vendor's", c->ops->kinds[0]);
		return -EOPNOTSUPP;
	}
	return c->ops->discover(c->priv.data, system, attribute, out, err,
				len);
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

void bmc_budget(struct bmc *b, unsigned int ms)
{
	b->deadline = now_usec() + (uint64_t)ms * 1000u;
	b->budget_ms = ms;
	b->waited_usec = 0;
	b->waited_for[0] = '\0';
}

bool bmc_waited(const struct bmc *b, char *buf, size_t len)
{
	if (!b || !b->waited_usec) {
		if (len)
			buf[0] = '\0';
		return false;
	}
	snprintf(buf, len, "BMC not ready (%s): waited %.1f s", b->waited_for,
		 (double)b->waited_usec / 1e6);
	return true;
}

/*
 * The backend answered -EAGAIN for op (err: what it waits for). 1: slept
 * the next backoff (*backoff doubled), try again; 0: the budget is spent,
 * err says so, naming the condition (the caller returns -EAGAIN).
 */
static int wait_transient(struct bmc *b, const char *op, unsigned int *backoff,
			  char *err, size_t len)
{
	uint64_t now = now_usec();
	unsigned int ms = *backoff;

	tcopy(b->waited_for, sizeof(b->waited_for), err);
	if (!b->deadline || now >= b->deadline) {
		snprintf(err, len, "BMC %s not ready for the %s: %s, after "
			 "waiting %.1f s (budget %u ms)", bmc_name(b), op,
			 b->waited_for, (double)b->waited_usec / 1e6,
			 b->budget_ms);
		return 0;
	}
	/* never past the deadline: the last try comes at it */
	if ((uint64_t)ms * 1000u > b->deadline - now)
		ms = (unsigned int)((b->deadline - now + 999u) / 1000u);
	tlog(LOG_INFO, "BMC %s: %s: %s; trying again in %u ms", bmc_name(b),
	     op, b->waited_for, ms);
	sleep_ms(ms);
	b->waited_usec += now_usec() - now;
	*backoff = *backoff * 2 > BMC_BACKOFF_MAX_MS ? BMC_BACKOFF_MAX_MS :
		   *backoff * 2;
	return 1;
}

int bmc_status(struct bmc *b, struct pt_plat_job *job, char *err, size_t len)
{
	unsigned int backoff = BMC_BACKOFF_FIRST_MS;
	int r;

	while ((r = b->ops->status(b->session, b->plat, job, err, len)) ==
	       -EAGAIN && wait_transient(b, "status", &backoff, err, len))
		;
	return r;
}

int bmc_select(struct bmc *b, enum pcitopo_layout l, int *sent, char *err,
	       size_t len)
{
	unsigned int backoff = BMC_BACKOFF_FIRST_MS;
	int r;

	/* -EAGAIN: refused before it acted (*sent 0), so sent again */
	do {
		*sent = 1;
		r = b->ops->select(b->session, b->plat, l, sent, err, len);
	} while (r == -EAGAIN && !*sent &&
		 wait_transient(b, "layout Select", &backoff, err, len));
	return r;
}

int bmc_can_select(struct bmc *b, enum pcitopo_layout l, char *err,
		   size_t len)
{
	unsigned int backoff = BMC_BACKOFF_FIRST_MS;
	int r;

	if (!b->ops->can_select)
		return 0;
	/* a read, as a status: asked again while the BMC is not ready */
	while ((r = b->ops->can_select(b->session, b->plat, l, err, len)) ==
	       -EAGAIN && wait_transient(b, "registry", &backoff, err, len))
		;
	return r;
}

int bmc_follow(struct bmc *b, struct pt_plat_job *job, char *err, size_t len)
{
	unsigned int poll = b->plat->poll_ms ? b->plat->poll_ms : 250;
	int r;

	for (;;) {
		r = bmc_status(b, job, err, len);
		if (r)
			return r;
		if (job->state != PT_PLAT_STATE_BUSY)
			return 0;
		if (now_usec() >= b->deadline) {
			snprintf(err, len,
				 "BMC job %d still busy after %u ms (budget)",
				 job->job, b->budget_ms);
			return -ETIMEDOUT;
		}
		sleep_ms(poll);
	}
}

int bmc_power_cycle(struct bmc *b, char *err, size_t len)
{
	unsigned int backoff = BMC_BACKOFF_FIRST_MS;
	int r;

	/* -EAGAIN: refused before it acted, so sent again */
	while ((r = b->ops->power_cycle(b->session, err, len)) == -EAGAIN &&
	       wait_transient(b, "power cycle", &backoff, err, len))
		;
	return r;
}
