// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: every trained link against the best both its ends support
 * (core's link_max): narrower is a fault (a lane, a riser, seating) that
 * load does not fix; slower is usually an idle GPU saving power (it trains
 * back up under load); not trained is down.
 */
#include "ptm.h"

static const char *const verdicts[] = {
	[PTM_LINK_OK] = "ok",
	[PTM_LINK_SPEED_LOW] = "speed-low",
	[PTM_LINK_WIDTH_DOWN] = "width-down",
	[PTM_LINK_DOWN] = "down",
};

const char *ptm_link_verdict_name(enum ptm_link_verdict v)
{
	return (unsigned int)v < sizeof(verdicts) / sizeof(verdicts[0]) ?
	       verdicts[v] : "?";
}

int ptm_link_check(const struct ptc_topo *t, struct ptm_link_check *out,
		   unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->count; i++) {
		const struct ptc_node *x = &t->nodes[i];
		struct ptm_link_check c;

		if (!x->has_link)
			continue;
		c.node = i;
		c.cur = x->cur;
		c.max = x->link_max;
		c.cur_mbs = x->link_bw;
		c.max_mbs = x->link_max_bw;
		if (!(x->link_flags & PCITOPO_LINK_F_ACTIVE))
			c.verdict = PTM_LINK_DOWN;
		else if (x->link_flags & PCITOPO_LINK_F_WIDTH_DOWN)
			c.verdict = PTM_LINK_WIDTH_DOWN;
		else if (x->link_flags & PCITOPO_LINK_F_SPEED_DOWN)
			c.verdict = PTM_LINK_SPEED_LOW;
		else
			c.verdict = PTM_LINK_OK;
		if (n < max)
			out[n] = c;
		n++;
	}
	return (int)n;
}
