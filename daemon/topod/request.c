// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: what SetLayout and PlanLayout check of a request, and how they
 * say no, in one place: the bus methods (bus.c), the dry run's answer
 * (plan.c) and preflight (preflight.c) give the same refusal the same words.
 */
#include <stdio.h>

#include "topod.h"

enum terr request_supported(const struct pt_platform *p,
			    enum pcitopo_layout l, char *msg, size_t len)
{
	if (p->layouts[l].present)
		return TERR_OK;
	snprintf(msg, len, "platform %s does not support the %s layout",
		 p->name, ptc_layout_name(l));
	return TERR_UNSUPPORTED;
}

enum terr request_busy(const struct topod *d, char *msg, size_t len)
{
	/* before d->job: the BMC's retries run in a job of their own, and
	 * between them there is none, yet the rollback is not over */
	if (d->state == TS_WAITING_BMC) {
		/* LastError: "FIRST CAUSE; rollback to L waits for the BMC:
		 * WHY": the why is what is waited for */
		const char *why = strstr(d->last_error, ROLLBACK_WAITS_BMC);

		snprintf(msg, len, "waiting for the BMC to finish the rollback "
			 "of the switch to %s (%.240s); topod asks it again by "
			 "itself, next within %u s", ptc_layout_name(d->target),
			 why ? why + strlen(ROLLBACK_WAITS_BMC) :
			 "it did not answer", (d->bmc_retry_ms + 999) / 1000);
		return TERR_BUSY;
	}
	if (!d->job)
		return TERR_OK;
	snprintf(msg, len, "a switch to %s is in progress (%s)",
		 ptc_layout_name(d->target), d->phase[0] ? d->phase : "starting");
	return TERR_BUSY;
}

enum terr request_check(const struct topod *d, const char *name,
			uint64_t flags, enum pcitopo_layout *l, char *msg,
			size_t len)
{
	char list[64];
	enum terr e;

	*l = ptc_layout_by_name(name);
	if (!*l) {
		snprintf(msg, len, "\"%s\" is not a layout (%s)", name,
			 ptc_layout_list(list, sizeof(list), ", "));
		return TERR_INVALID_LAYOUT;
	}
	if (flags & ~TOPOD_F_ALL) {
		snprintf(msg, len, "unknown flags 0x%llx",
			 (unsigned long long)(flags & ~TOPOD_F_ALL));
		return TERR_INVALID_ARGS;
	}
	e = request_supported(&d->plat, *l, msg, len);
	return e != TERR_OK ? e : request_busy(d, msg, len);
}

int request_read(const struct topod *d, sd_bus_message *m,
		 struct request *q)
{
	const char *name;
	int r = sd_bus_message_read(m, "st", &name, &q->flags);

	if (r < 0)
		return r;
	q->err = request_check(d, name, q->flags, &q->layout, q->msg,
			       sizeof(q->msg));
	return 0;
}
