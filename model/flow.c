// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: transfers as flows over shared resources.
 *
 * Resources: every PCIe link, once per direction (up: towards the CPU); the
 * socket interconnect (Intel UPI, AMD xGMI: "UPI" below), once per ordered
 * pair of sockets; the memory of
 * each socket. A flow adds its bytes to every resource on its way. When all
 * flows run at once and share fairly, they are done after
 *
 *     T = max over resources (bytes on it / its bandwidth)
 *
 * which is the "min over ring edges, counting edges that share an uplink"
 * of a ring all-reduce, and the "GPUs that share an uplink share its
 * bandwidth" of host I/O, in one rule.
 *
 * Paths: P2P between two endpoints goes up from a to the closest common
 * bridge and down to b, crossing neither that bridge's upstream link nor
 * anything above. Without a common bridge (or when ACS redirects P2P up to
 * the root complex) it goes through the root complex: up to the root port,
 * across the CPU (and UPI to the other socket), down again; its bytes cost
 * 1/rc_p2p_eff on every resource used (NCCL's INTEL_P2P_OVERHEAD: the CPU
 * forwards P2P as 64-byte TLPs). Switch-internal fabric is not a resource:
 * switches are non-blocking at their port rate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptm.h"

struct ptm_flows {
	const struct ptc_topo *t;
	struct ptm_consts c;
	double *up, *down;		/* per node's upstream link */
	double upi[PTM_MAX_SOCKETS][PTM_MAX_SOCKETS];
	double mem[PTM_MAX_SOCKETS];
};

unsigned int ptm_socket(const struct ptc_topo *t, u32 i)
{
	s32 n = t->nodes[i].numa_node;

	return n >= 0 && n < PTM_MAX_SOCKETS ? (unsigned int)n : 0;
}

double ptm_link_eff(const struct ptc_topo *t, u32 i, const struct ptm_consts *c)
{
	const struct ptc_node *n = &t->nodes[i];
	u8 width = n->link_max.width;

	if (!n->has_link || !n->link_active)
		return 0;
	if (n->link_flags & PCITOPO_LINK_F_WIDTH_DOWN)
		width = n->cur.width;
	return ptc_link_bw(n->link_max.speed, width) * c->pcie_eff;
}

int ptm_flows_new(const struct ptc_topo *t, const struct ptm_consts *c,
		  struct ptm_flows **out)
{
	struct ptm_flows *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->t = t;
	f->c = *c;
	f->up = calloc(t->count ? t->count : 1, sizeof(double));
	f->down = calloc(t->count ? t->count : 1, sizeof(double));
	if (!f->up || !f->down) {
		ptm_flows_free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void ptm_flows_free(struct ptm_flows *f)
{
	if (!f)
		return;
	free(f->up);
	free(f->down);
	free(f);
}

void ptm_flows_clear(struct ptm_flows *f)
{
	memset(f->up, 0, f->t->count * sizeof(double));
	memset(f->down, 0, f->t->count * sizeof(double));
	memset(f->upi, 0, sizeof(f->upi));
	memset(f->mem, 0, sizeof(f->mem));
}

static bool is_endpoint(const struct ptc_topo *t, u32 i)
{
	return i < t->count && t->nodes[i].role == PCITOPO_ROLE_ENDPOINT;
}

/* Ancestors of i, i first; returns how many. */
static unsigned int chain(const struct ptc_topo *t, u32 i, s32 *out)
{
	unsigned int n = 0;
	s32 x = (s32)i;

	while (x != PTC_NONE && n < PTC_MAX_DEPTH + 1) {
		out[n++] = x;
		x = t->nodes[x].parent;
	}
	return n;
}

int ptm_flow_p2p(struct ptm_flows *f, u32 a, u32 b, double bytes)
{
	const struct ptc_topo *t = f->t;
	s32 ca[PTC_MAX_DEPTH + 1], cb[PTC_MAX_DEPTH + 1];
	unsigned int na, nb, i, j, ia, ib, sa, sb;
	struct ptc_path p;
	bool common = false;
	double cost;

	if (!is_endpoint(t, a) || !is_endpoint(t, b) || a == b || bytes < 0)
		return -EINVAL;
	na = chain(t, a, ca);
	nb = chain(t, b, cb);
	ia = na;
	ib = nb;
	for (i = 0; i < na && !common; i++)
		for (j = 0; j < nb; j++)
			if (ca[i] == cb[j]) {
				ia = i;
				ib = j;
				common = true;
				break;
			}
	ptc_path(t, a, b, &p);
	if (p.flags & PCITOPO_PATH_F_ACS_REDIRECT) {
		common = false;
		ia = na;
		ib = nb;
	}
	cost = common ? bytes : bytes / f->c.rc_p2p_eff;
	for (i = 0; i < ia; i++)
		if (t->nodes[ca[i]].has_link)
			f->up[ca[i]] += cost;
	for (j = 0; j < ib; j++)
		if (t->nodes[cb[j]].has_link)
			f->down[cb[j]] += cost;
	sa = ptm_socket(t, a);
	sb = ptm_socket(t, b);
	if (!common && sa != sb)
		f->upi[sa][sb] += cost;
	return 0;
}

int ptm_flow_host(struct ptm_flows *f, unsigned int socket, u32 g,
		  double bytes, int dir)
{
	const struct ptc_topo *t = f->t;
	s32 c[PTC_MAX_DEPTH + 1];
	unsigned int n, i, sg;

	if (!is_endpoint(t, g) || socket >= PTM_MAX_SOCKETS || bytes < 0)
		return -EINVAL;
	n = chain(t, g, c);
	for (i = 0; i < n; i++)
		if (t->nodes[c[i]].has_link) {
			if (dir > 0)
				f->down[c[i]] += bytes;
			else
				f->up[c[i]] += bytes;
		}
	sg = ptm_socket(t, g);
	if (sg != socket) {
		if (dir > 0)
			f->upi[socket][sg] += bytes;
		else
			f->upi[sg][socket] += bytes;
	}
	f->mem[socket] += bytes;
	return 0;
}

static void name_link(const struct ptc_topo *t, u32 i, double mbs,
		      const char *dir, char *buf, size_t len)
{
	const struct ptc_node *n = &t->nodes[i];
	const char *what = "link";
	char addr[PCITOPO_ADDR_LEN], l[24];
	struct ptc_link eff = n->link_max;

	if (n->role == PCITOPO_ROLE_ENDPOINT)
		what = n->kind == PCITOPO_KIND_GPU ? "GPU link" : "device link";
	else if (n->role == PCITOPO_ROLE_UPSTREAM)
		what = n->parent != PTC_NONE &&
		       t->nodes[n->parent].role == PCITOPO_ROLE_ROOT_PORT ?
		       "switch uplink" : "cascade link";
	if (n->link_flags & PCITOPO_LINK_F_WIDTH_DOWN)
		eff.width = n->cur.width;
	ptm_link_format(l, sizeof(l), &eff);
	ptc_addr_format(addr, sizeof(addr), n->domain, n->bus, n->devfn);
	snprintf(buf, len, "%s %s %s (%s, %.1f GB/s)", what, addr, dir, l,
		 mbs / 1000);
}

double ptm_flows_time(const struct ptm_flows *f, char *limit, size_t len)
{
	const struct ptc_topo *t = f->t;
	double worst = 0, cap, x;
	unsigned int i, j;

	if (limit && len)
		limit[0] = '\0';
	for (i = 0; i < t->count; i++) {
		if (!f->up[i] && !f->down[i])
			continue;
		cap = ptm_link_eff(t, i, &f->c);
		for (j = 0; j < 2; j++) {
			double load = j ? f->down[i] : f->up[i];

			if (!load)
				continue;
			x = cap > 0 ? load / cap : 1e30;
			if (x > worst) {
				worst = x;
				if (limit)
					name_link(t, i, cap, j ? "down" : "up",
						  limit, len);
			}
		}
	}
	for (i = 0; i < PTM_MAX_SOCKETS; i++) {
		for (j = 0; j < PTM_MAX_SOCKETS; j++) {
			x = f->upi[i][j] / f->c.upi_mbs;
			if (f->upi[i][j] && x > worst) {
				worst = x;
				if (limit)
					snprintf(limit, len,
						 "%s socket %u->%u (%.1f GB/s)",
						 f->c.bus ? f->c.bus : "UPI",
						 i, j, f->c.upi_mbs / 1000);
			}
		}
		x = f->mem[i] / f->c.mem_mbs;
		if (f->mem[i] && x > worst) {
			worst = x;
			if (limit)
				snprintf(limit, len,
					 "memory of socket %u (%.1f GB/s)", i,
					 f->c.mem_mbs / 1000);
		}
	}
	/* loads are bytes, bandwidths MB/s */
	return worst / 1e6;
}
