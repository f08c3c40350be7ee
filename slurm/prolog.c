// SPDX-License-Identifier: GPL-2.0
/*
 * slurm-prolog: slurm.conf's Prolog on nodes whose layout Slurm changes.
 * Slurm 22.05 sets a rebooted node's ActiveFeatures from the reboot
 * request, not from the node, and never checks the job's constraint
 * against what the node reports afterwards: this is where a job that
 * would run on the wrong layout (a failed switch, a drift, a manual
 * `topoctl set` during the boot) is stopped.
 *
 * The layouts named in SLURM_JOB_CONSTRAINTS (an '&' list: the helpers
 * plugin refuses every other operator with changeable features) must all
 * be the node's actual layout. If not, the node is drained with a reason
 * that names both layouts and the switch's error (slurm-error, written by
 * slurm-reboot-program), and the Prolog exits 1: slurmd then requeues the
 * batch job (held, unless SchedulerParameters=nohold_on_prolog_fail), and
 * slurmctld would drain with "Prolog error", but keeps an earlier reason.
 * A constraint without a layout: exit 0 at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_slurm.h"

/* The one layout the constraint asks for, "" if none; -EINVAL if two. */
static int wanted_layout(const char *constraint, char *out, size_t len)
{
	char buf[1024], *save = NULL;

	out[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", constraint);
	for (char *t = strtok_r(buf, "&,", &save); t;
	     t = strtok_r(NULL, "&,", &save)) {
		if (!pt_layout_switchable(t))
			continue;
		if (out[0] && strcmp(out, t))
			return -EINVAL;
		snprintf(out, len, "%s", t);
	}
	return 0;
}

int main(void)
{
	const char *c = getenv("SLURM_JOB_CONSTRAINTS");
	const char *node = getenv("SLURMD_NODENAME");
	const char *job = getenv("SLURM_JOB_ID");
	char want[PT_LAYOUT_LEN], now[PT_LAYOUT_LEN], why[512];
	char err[1100] = "", reason[1400];
	int r;

	if (!c || !*c)
		return 0;
	if (wanted_layout(c, want, sizeof(want)) < 0) {
		snprintf(reason, sizeof(reason), "pcitopo: job %s asks for two "
			 "layouts (%s)", job ? job : "?", c);
		goto refuse;
	}
	if (!want[0])
		return 0;
	r = pt_layout_now(now, sizeof(now), 8000, why, sizeof(why));
	if (!r && !strcmp(now, want))
		return 0;
	pt_record_get("slurm-error", "error", err, sizeof(err));
	if (r)
		snprintf(reason, sizeof(reason), "pcitopo: job %s wants %s, layout "
			 "not known: %s%s%s", job ? job : "?", want, why,
			 err[0] ? "; " : "", err);
	else
		snprintf(reason, sizeof(reason), "pcitopo: job %s wants %s, node "
			 "is in %s%s%s", job ? job : "?", want, now,
			 err[0] ? ": " : "", err);
refuse:
	fprintf(stderr, "slurm-prolog: %s\n", reason);
	if (node && *node && pt_node_drain(node, reason, why, sizeof(why)))
		fprintf(stderr, "slurm-prolog: %s\n", why);
	return 1;
}
