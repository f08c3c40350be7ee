// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the figures of one topology.
 *
 *   class_mbs   one GPU pair of each class alone, one direction: the
 *               slowest pair of the class (flow.c's rule with one flow).
 *   ring_busbw  ring all-reduce over all GPUs in index order
 *               (GPU0 -> GPU1 -> ... -> GPUn-1 -> GPU0), every edge at
 *               once: the rate each edge gets, which is NCCL's "bus
 *               bandwidth" of the all-reduce (busbw = algbw * 2(n-1)/n).
 *               Index order is what NCCL's ring search finds on these
 *               layouts: each switch's GPUs in a row, each crossing once
 *               per direction.
 *   h2d_mbs     every GPU reads host memory of its own socket at once:
 *               aggregate MB/s.
 *   uplinks     the links nearest the CPU above the GPUs (a switch's link
 *               to its root port), how many GPUs share each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptm.h"

#define PTM_PROBE_BYTES	1e6	/* any size: the model is linear */

static u64 node_key(const struct ptc_node *n)
{
	return ((u64)n->domain << 16) | ((u64)n->bus << 8) | n->devfn;
}

int ptm_gpus(const struct ptc_topo *t, u32 *gpu, unsigned int *n)
{
	unsigned int cnt = 0, i, j;

	for (i = 0; i < t->count; i++) {
		const struct ptc_node *x = &t->nodes[i];

		if (x->role != PCITOPO_ROLE_ENDPOINT || x->kind != PCITOPO_KIND_GPU)
			continue;
		if (cnt == PTM_MAX_GPUS)
			return -E2BIG;
		/* insertion sort by bus address */
		for (j = cnt; j > 0 &&
		     node_key(&t->nodes[gpu[j - 1]]) > node_key(x); j--)
			gpu[j] = gpu[j - 1];
		gpu[j] = i;
		cnt++;
	}
	*n = cnt;
	return cnt ? 0 : -ENODEV;
}

void ptm_consts_of(const struct ptc_topo *t, const struct ptm_params *p,
		   struct ptm_consts *c)
{
	unsigned int gen = 0, g, i;

	for (i = 0; i < t->count; i++) {
		const struct ptc_node *n = &t->nodes[i];

		if (n->role != PCITOPO_ROLE_ROOT_PORT)
			continue;
		g = ptc_speed_gen(n->cap.speed);
		if (g > gen)
			gen = g;
	}
	for (i = 0; !gen && i < t->count; i++)
		if (t->nodes[i].kind == PCITOPO_KIND_GPU)
			gen = ptc_speed_gen(t->nodes[i].link_max.speed);
	ptm_consts_for(p, gen, c);
}

static double rate(double bytes, double secs)
{
	return secs > 0 ? bytes / secs / 1e6 : 0;
}

int ptm_pair_mbs(const struct ptc_topo *t, const struct ptm_consts *c, u32 a,
		 u32 b, double *uni, double *bidir)
{
	struct ptm_flows *f;
	int r = ptm_flows_new(t, c, &f);

	if (r)
		return r;
	r = ptm_flow_p2p(f, a, b, PTM_PROBE_BYTES);
	if (!r && uni)
		*uni = rate(PTM_PROBE_BYTES, ptm_flows_time(f, NULL, 0));
	if (!r)
		r = ptm_flow_p2p(f, b, a, PTM_PROBE_BYTES);
	if (!r && bidir)
		*bidir = rate(PTM_PROBE_BYTES, ptm_flows_time(f, NULL, 0));
	ptm_flows_free(f);
	return r;
}

int ptm_pair_detail(const struct ptc_topo *t, const struct ptm_consts *c,
		    u32 a, u32 b, struct ptm_pair *out)
{
	struct ptm_flows *f;
	struct ptc_path p;
	int r;

	memset(out, 0, sizeof(*out));
	r = ptm_flows_new(t, c, &f);
	if (r)
		return r;
	r = ptm_flow_p2p(f, a, b, PTM_PROBE_BYTES);
	if (!r) {
		out->mbs = rate(PTM_PROBE_BYTES,
				ptm_flows_time(f, out->limit, sizeof(out->limit)));
		ptc_path(t, a, b, &p);
		out->class = p.class;
		out->hops = p.hops;
		out->via_rc = p.common == PTC_NONE ||
			      (p.flags & PCITOPO_PATH_F_ACS_REDIRECT);
		out->via_upi = out->via_rc && ptm_socket(t, a) != ptm_socket(t, b);
	}
	ptm_flows_free(f);
	return r;
}

int ptm_h2d_mbs(const struct ptc_topo *t, const struct ptm_consts *c, u32 g,
		double *mbs)
{
	struct ptm_flows *f;
	int r = ptm_flows_new(t, c, &f);

	if (r)
		return r;
	r = ptm_flow_host(f, ptm_socket(t, g), g, PTM_PROBE_BYTES, 1);
	if (!r)
		*mbs = rate(PTM_PROBE_BYTES, ptm_flows_time(f, NULL, 0));
	ptm_flows_free(f);
	return r;
}

/* The link nearest the CPU above node i, PTC_NONE if none. */
static s32 top_link(const struct ptc_topo *t, u32 i)
{
	s32 x = (s32)i, top = PTC_NONE;

	while (x != PTC_NONE) {
		if (t->nodes[x].has_link)
			top = x;
		x = t->nodes[x].parent;
	}
	return top;
}

static void eval_uplinks(const struct ptc_topo *t, struct ptm_eval *e)
{
	bool sock[PTM_MAX_SOCKETS] = { false };
	unsigned int g, u;

	e->nuplinks = 0;
	e->sockets_used = 0;
	for (g = 0; g < e->ngpus; g++) {
		s32 top = top_link(t, e->gpu[g]);
		unsigned int s = ptm_socket(t, e->gpu[g]);

		if (!sock[s]) {
			sock[s] = true;
			e->sockets_used++;
		}
		if (top == PTC_NONE)
			continue;
		for (u = 0; u < e->nuplinks; u++)
			if (e->uplinks[u].node == top)
				break;
		if (u == e->nuplinks) {
			if (u == PTM_MAX_UPLINKS)
				continue;
			e->nuplinks++;
			e->uplinks[u].node = top;
			e->uplinks[u].socket = ptm_socket(t, (u32)top);
			e->uplinks[u].gpus = 0;
			e->uplinks[u].mbs = ptm_link_eff(t, (u32)top, &e->c);
		}
		e->uplinks[u].gpus++;
	}
	e->mem_mbs = e->sockets_used * e->c.mem_mbs;
}

int ptm_eval_topo(const struct ptc_topo *t, const struct ptm_params *p,
		  struct ptm_eval *e)
{
	struct ptm_flows *f;
	unsigned int i, j;
	double uni, secs;
	int r;

	memset(e, 0, sizeof(*e));
	r = ptm_gpus(t, e->gpu, &e->ngpus);
	if (r)
		return r;
	ptm_consts_of(t, p, &e->c);
	r = ptm_flows_new(t, &e->c, &f);
	if (r)
		return r;
	for (i = 0; i < e->ngpus; i++)
		for (j = i + 1; j < e->ngpus; j++) {
			struct ptc_path path;

			ptc_path(t, e->gpu[i], e->gpu[j], &path);
			r = ptm_pair_mbs(t, &e->c, e->gpu[i], e->gpu[j], &uni,
					 NULL);
			if (r)
				goto out;
			if (path.class >= __PCITOPO_PATH_MAX)
				continue;
			if (!e->class_pairs[path.class] ||
			    uni < e->class_mbs[path.class])
				e->class_mbs[path.class] = uni;
			e->class_pairs[path.class]++;
		}
	if (e->ngpus > 1) {
		for (i = 0; i < e->ngpus && !r; i++)
			r = ptm_flow_p2p(f, e->gpu[i], e->gpu[(i + 1) % e->ngpus],
					 PTM_PROBE_BYTES);
		if (r)
			goto out;
		secs = ptm_flows_time(f, e->ring_limit, sizeof(e->ring_limit));
		e->ring_busbw = rate(PTM_PROBE_BYTES, secs);
	}
	ptm_flows_clear(f);
	for (i = 0; i < e->ngpus && !r; i++)
		r = ptm_flow_host(f, ptm_socket(t, e->gpu[i]), e->gpu[i],
				  PTM_PROBE_BYTES, 1);
	if (r)
		goto out;
	secs = ptm_flows_time(f, e->h2d_limit, sizeof(e->h2d_limit));
	e->h2d_mbs = rate(PTM_PROBE_BYTES * e->ngpus, secs);
	r = ptm_h2d_mbs(t, &e->c, e->gpu[0], &e->gpu_h2d_mbs);
	if (!r)
		eval_uplinks(t, e);
out:
	ptm_flows_free(f);
	return r;
}
