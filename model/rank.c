// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: which layout for this job. Each of the three layouts is built
 * from the same hardware (layouts.c), evaluated (eval.c) and costed for the
 * workload (workload.c); they are ranked by per-step communication time,
 * all-reduce plus host I/O, since compute takes the same time in each. The
 * reason names the term that decides between the best and the runner-up,
 * with both figures and the resource that limits each.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ptm.h"

static const char *lname(unsigned int l)
{
	return ptc_layout_name((u8)l);
}

static bool tie(double x, double y)
{
	return x <= y * (1 + 1e-9) && y <= x * (1 + 1e-9);
}

/* Whether choice x ranks before y: less communication per step; on a tie
 * the faster ring, then more host memory bandwidth. */
static bool before(const struct ptm_choice *x, const struct ptm_choice *y)
{
	if (!x->err != !y->err)
		return !x->err;
	if (x->err)
		return false;
	if (!tie(x->cost.comm_s, y->cost.comm_s))
		return x->cost.comm_s < y->cost.comm_s;
	if (!tie(x->eval.ring_busbw, y->eval.ring_busbw))
		return x->eval.ring_busbw > y->eval.ring_busbw;
	return x->eval.mem_mbs > y->eval.mem_mbs * (1 + 1e-9);
}

static void reason(struct ptm_advice *a)
{
	const struct ptm_choice *b = &a->c[a->order[0]], *s;
	double dar, dio;

	if (a->navailable < 2) {
		snprintf(a->reason, sizeof(a->reason),
			 "%s: the only layout this hardware allows",
			 lname(b->layout));
		return;
	}
	s = &a->c[a->order[1]];
	dar = s->cost.allreduce_s - b->cost.allreduce_s;
	dio = s->cost.host_io_s - b->cost.host_io_s;
	if (tie(b->cost.comm_s, s->cost.comm_s))
		snprintf(a->reason, sizeof(a->reason),
			 "%s and %s tie at %.2f ms per step; %s ranks first "
			 "for its %s (%.1f vs %.1f GB/s).", lname(b->layout),
			 lname(s->layout), b->cost.comm_s * 1e3,
			 lname(b->layout),
			 tie(b->eval.ring_busbw, s->eval.ring_busbw) ?
			 "host memory bandwidth" : "ring bandwidth",
			 (tie(b->eval.ring_busbw, s->eval.ring_busbw) ?
			  b->eval.mem_mbs : b->eval.ring_busbw) / 1e3,
			 (tie(b->eval.ring_busbw, s->eval.ring_busbw) ?
			  s->eval.mem_mbs : s->eval.ring_busbw) / 1e3);
	else if (dio > 0 && dar < 0)
		snprintf(a->reason, sizeof(a->reason),
			 "%s: host I/O takes %.2f ms per step (%s) against "
			 "%.2f ms on %s (%s), which outweighs its slower "
			 "all-reduce (%.2f vs %.2f ms).",
			 lname(b->layout), b->cost.host_io_s * 1e3,
			 b->cost.io_limit, s->cost.host_io_s * 1e3,
			 lname(s->layout), s->cost.io_limit,
			 b->cost.allreduce_s * 1e3, s->cost.allreduce_s * 1e3);
	else if (dar > 0 && dio < 0)
		snprintf(a->reason, sizeof(a->reason),
			 "%s: the all-reduce takes %.2f ms per step (%s) "
			 "against %.2f ms on %s (%s), which outweighs its "
			 "slower host I/O (%.2f vs %.2f ms).",
			 lname(b->layout), b->cost.allreduce_s * 1e3,
			 b->cost.ar_limit, s->cost.allreduce_s * 1e3,
			 lname(s->layout), s->cost.ar_limit,
			 b->cost.host_io_s * 1e3, s->cost.host_io_s * 1e3);
	else if (dio >= dar)
		snprintf(a->reason, sizeof(a->reason),
			 "%s: host I/O takes %.2f ms per step (%s) against "
			 "%.2f ms on %s (%s), and its all-reduce is no slower "
			 "(%.2f vs %.2f ms).",
			 lname(b->layout), b->cost.host_io_s * 1e3,
			 b->cost.io_limit, s->cost.host_io_s * 1e3,
			 lname(s->layout), s->cost.io_limit,
			 b->cost.allreduce_s * 1e3, s->cost.allreduce_s * 1e3);
	else
		snprintf(a->reason, sizeof(a->reason),
			 "%s: the all-reduce takes %.2f ms per step (%s) "
			 "against %.2f ms on %s (%s), and its host I/O is no "
			 "slower (%.2f vs %.2f ms).",
			 lname(b->layout), b->cost.allreduce_s * 1e3,
			 b->cost.ar_limit, s->cost.allreduce_s * 1e3,
			 lname(s->layout), s->cost.ar_limit,
			 b->cost.host_io_s * 1e3, s->cost.host_io_s * 1e3);
}

int ptm_advise(const struct ptm_hw *hw, const struct ptm_params *p,
	       const struct ptm_workload *w, struct ptm_advice *a)
{
	unsigned int i, j;
	struct ptc_topo t;
	u8 l;

	memset(a, 0, sizeof(*a));
	/* core's switchable layouts, in core's order (PTM_NLAYOUTS of them) */
	for (i = 0, l = ptc_layout_first(); i < PTM_NLAYOUTS;
	     i++, l = ptc_layout_next(l)) {
		struct ptm_choice *c = &a->c[i];

		c->layout = l;
		ptm_layout_shape(hw, c->layout, c->shape, sizeof(c->shape));
		c->err = ptm_layout_build(hw, c->layout, &t);
		if (c->err)
			continue;
		c->err = ptm_eval_topo(&t, p, &c->eval);
		if (!c->err)
			c->err = ptm_cost(&t, &c->eval, hw->cpus, w, &c->cost);
		ptm_layout_free(&t);
		if (c->err == -EINVAL && i == 0)
			return -EINVAL;	/* the workload itself is bad */
		if (!c->err)
			a->navailable++;
	}
	if (!a->navailable)
		return a->c[0].err ? a->c[0].err : -ENODEV;
	/* stable insertion sort: ties keep balance, common, cascade */
	for (i = 0; i < PTM_NLAYOUTS; i++) {
		for (j = i; j > 0 && before(&a->c[i], &a->c[a->order[j - 1]]); j--)
			a->order[j] = a->order[j - 1];
		a->order[j] = i;
	}
	reason(a);
	return 0;
}
