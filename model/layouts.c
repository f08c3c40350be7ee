// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the three candidate topologies, built from a hardware
 * description so that a layout the server is not in can be evaluated.
 *
 * Exactly what is built, for switches 0..n-1 with G0..Gn-1 GPUs (hw: the
 * server's own switches, or two of gpus_per_switch); every switch has a
 * downstream port per GPU, and in cascade switch 0 one more per switch
 * below it:
 *
 *   balance  the switches spread over s = min(cpus, n) sockets, switch i
 *            on socket i*s/n: host bridge of socket k (bus 0x00, 0x80, or
 *            k*256/s rounded to a power of two; NUMA k) -> a root port per
 *            switch (dev 1, 2, ...) -> switch -> its GPUs. Needs cpus >= 2
 *            and n >= 2. Two switches of G: 0000:00 -> 00:01.0 -> switch
 *            0; 0000:80 -> 80:01.0 -> switch 1.
 *   common   host bridge 0000:00 (NUMA 0) -> root ports 00:01.0, 00:02.0,
 *            ... -> one switch each.
 *   cascade  host bridge 0000:00 (NUMA 0) -> root port 00:01.0 -> switch 0
 *            -> GPU0..G0-1 on ports 0..G0-1, switch k on port G0+k-1.
 *
 * LnkCap: GPUs hw->gpu, switch ports hw->uplink, root ports hw->root; each
 * link trains at the best both ends support (LnkSta = that), as a loaded
 * server does. Other CPUs carry no GPUs; they only count for the machine's
 * sockets. Buses are numbered in creation order, so GPU indices in bus
 * order are switch 0's, then switch 1's, and so on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptm.h"

struct builder {
	struct ptc_node *n;
	u32 count, cap;
	unsigned int next_bus[PTM_MAX_SOCKETS];	/* per socket's root bus */
	unsigned int end_bus[PTM_MAX_SOCKETS];	/* first bus of the next */
	int err;
};

static u32 link_min(u32 a, u32 b)
{
	return a < b ? a : b;
}

static int add(struct builder *b, s32 parent, u8 role, int numa, u8 root_bus,
	       u8 bus, u8 devfn, struct ptc_link cap)
{
	struct ptc_node *n;

	if (b->count >= b->cap)
		return -ENOSPC;
	n = &b->n[b->count];
	memset(n, 0, sizeof(*n));
	n->bus = bus;
	n->devfn = devfn;
	n->parent = parent;
	n->role = role;
	n->numa_node = numa;
	n->root_bus = root_bus;
	n->slot = -1;
	n->cap = cap;
	n->link_active = true;
	switch (role) {
	case PCITOPO_ROLE_ENDPOINT:
		n->vendor = 0x10de;
		n->device = 0x2330;
		n->class = 0x030200;
		n->kind = PCITOPO_KIND_GPU;
		break;
	case PCITOPO_ROLE_ROOT_PORT:
		n->vendor = 0x8086;
		n->device = 0x352a;
		n->class = 0x060400;
		break;
	default:
		n->vendor = 0x1000;
		n->device = 0xc030;
		n->class = 0x060400;
	}
	n->has_link = role == PCITOPO_ROLE_ENDPOINT ||
		      role == PCITOPO_ROLE_UPSTREAM;
	if (n->has_link && parent != PTC_NONE) {
		const struct ptc_link *pc = &b->n[parent].cap;

		n->cur.speed = link_min(cap.speed, pc->speed);
		n->cur.width = (u8)link_min(cap.width, pc->width);
	}
	return (int)b->count++;
}

/* The next bus number below socket numa's root bus; -E2BIG past its range. */
static int next_bus(struct builder *b, int numa)
{
	if (b->next_bus[numa] >= b->end_bus[numa])
		return -E2BIG;
	return (int)b->next_bus[numa]++;
}

/* A switch below port with g GPU ports and ncasc more for switches below
 * it, GPUs on the first g; returns the first of those ports, or the
 * upstream port's index when there is none; negative errno. */
static int add_switch(struct builder *b, const struct ptm_hw *hw, s32 port,
		      int numa, u8 root_bus, unsigned int g,
		      unsigned int ncasc)
{
	int up, first = -1, ds, r, bus, ds_bus;
	unsigned int i, nds = g + ncasc;

	bus = next_bus(b, numa);
	if (bus < 0)
		return bus;
	up = add(b, port, PCITOPO_ROLE_UPSTREAM, numa, root_bus, (u8)bus, 0,
		 hw->uplink);
	if (up < 0)
		return up;
	ds_bus = next_bus(b, numa);
	if (ds_bus < 0)
		return ds_bus;
	if (nds > 32)
		return -E2BIG;
	for (i = 0; i < nds; i++) {
		ds = add(b, up, PCITOPO_ROLE_DOWNSTREAM, numa, root_bus,
			 (u8)ds_bus, (u8)(i << 3), hw->uplink);
		if (ds < 0)
			return ds;
		if (i == 0)
			first = ds;
	}
	for (i = 0; i < g; i++) {
		bus = next_bus(b, numa);
		if (bus < 0)
			return bus;
		r = add(b, first + (int)i, PCITOPO_ROLE_ENDPOINT, numa,
			root_bus, (u8)bus, 0, hw->gpu);
		if (r < 0)
			return r;
	}
	return ncasc ? first + (int)g : up;
}

static int add_rp(struct builder *b, const struct ptm_hw *hw, int numa,
		  u8 root_bus, unsigned int dev)
{
	if (dev > 31)
		return -E2BIG;
	return add(b, PTC_NONE, PCITOPO_ROLE_ROOT_PORT, numa, root_bus,
		   root_bus, (u8)(dev << 3), hw->root);
}

static bool hw_valid(const struct ptm_hw *hw)
{
	unsigned int g[PTM_MAX_SWITCHES], n, i, total = 0;

	if (!ptc_link_bw(hw->gpu.speed, hw->gpu.width) ||
	    !ptc_link_bw(hw->uplink.speed, hw->uplink.width) ||
	    !ptc_link_bw(hw->root.speed, hw->root.width) ||
	    hw->cpus < 1 || hw->cpus > PTM_MAX_SOCKETS ||
	    hw->nswitches > PTM_MAX_SWITCHES)
		return false;
	n = ptm_hw_switches(hw, g);
	for (i = 0; i < n; i++) {
		if (g[i] < 1 || g[i] > 16)
			return false;
		total += g[i];
	}
	return total <= PTM_MAX_GPUS;
}

/* Sockets balance spreads n switches over. */
static unsigned int balance_sockets(const struct ptm_hw *hw, unsigned int n)
{
	return hw->cpus < n ? hw->cpus : n;
}

static void plus_list(char *buf, size_t len, const unsigned int *g,
		      unsigned int from, unsigned int to)
{
	size_t o = 0;
	unsigned int i, sum = 0;

	buf[0] = '\0';
	for (i = from; i < to && o < len; i++) {
		o += (size_t)snprintf(buf + o, len - o, "%s%u", i > from ? "+" :
				      "", g[i]);
		sum += g[i];
	}
	if (o < len)
		snprintf(buf + o, len - o, " GPU%s", sum == 1 ? "" : "s");
}

int ptm_layout_shape(const struct ptm_hw *hw, unsigned int layout, char *buf,
		     size_t len)
{
	unsigned int g[PTM_MAX_SWITCHES], n, s, k, i, lo;
	char part[96];
	size_t o = 0;

	buf[0] = '\0';
	if (!hw_valid(hw)) {
		snprintf(buf, len, "bad hardware description");
		return -EINVAL;
	}
	n = ptm_hw_switches(hw, g);
	switch (layout) {
	case PCITOPO_LAYOUT_BALANCE:
		if (hw->cpus < 2 || n < 2) {
			snprintf(buf, len, "needs two %s",
				 hw->cpus < 2 ? "CPUs" : "switches");
			return -EOPNOTSUPP;
		}
		s = balance_sockets(hw, n);
		for (k = 0, i = 0; k < s && o < len; k++) {
			for (lo = i; i < n && i * s / n == k; i++)
				;
			plus_list(part, sizeof(part), g, lo, i);
			o += (size_t)snprintf(buf + o, len - o, "%sCPU%u: %s",
					      k ? ", " : "", k, part);
		}
		if (o < len)
			snprintf(buf + o, len - o, "; a root port per switch");
		return 0;
	case PCITOPO_LAYOUT_COMMON:
		plus_list(part, sizeof(part), g, 0, n);
		snprintf(buf, len, "CPU0: %s on %u root port%s", part, n,
			 n == 1 ? "" : "s");
		return 0;
	case PCITOPO_LAYOUT_CASCADE:
		if (n == 1) {
			snprintf(buf, len, "CPU0: one root port, a switch of "
				 "%u GPU%s", g[0], g[0] == 1 ? "" : "s");
			return 0;
		}
		plus_list(part, sizeof(part), g, 1, n);
		snprintf(buf, len, "CPU0: one root port, a switch of %u GPU%s "
			 "with %u switch%s below it (%s)", g[0],
			 g[0] == 1 ? "" : "s", n - 1, n == 2 ? "" : "es", part);
		return 0;
	default:
		snprintf(buf, len, "not a candidate layout");
		return -EINVAL;
	}
}

int ptm_layout_build(const struct ptm_hw *hw, unsigned int layout,
		     struct ptc_topo *out)
{
	unsigned int g[PTM_MAX_SWITCHES], n, s = 1, span, k, i, dev[PTM_MAX_SOCKETS];
	struct builder b = { 0 };
	int r = 0, rp, port;

	out->nodes = NULL;
	out->count = 0;
	if (!hw_valid(hw))
		return -EINVAL;
	n = ptm_hw_switches(hw, g);
	if (layout == PCITOPO_LAYOUT_BALANCE && (hw->cpus < 2 || n < 2))
		return -EOPNOTSUPP;
	if (layout != PCITOPO_LAYOUT_BALANCE && layout != PCITOPO_LAYOUT_COMMON &&
	    layout != PCITOPO_LAYOUT_CASCADE)
		return -EINVAL;
	if (layout == PCITOPO_LAYOUT_BALANCE)
		s = balance_sockets(hw, n);
	for (span = 1; span < s; span *= 2)
		;
	for (k = 0; k < PTM_MAX_SOCKETS; k++) {
		b.next_bus[k] = k < s ? k * (256 / span) + 1 : 0;
		b.end_bus[k] = k < s ? (k + 1) * (256 / span) : 0;
		dev[k] = 1;
	}
	/* root ports, switch ports (one more per cascaded switch), GPUs */
	b.cap = n;
	for (i = 0; i < n; i++)
		b.cap += 1 + g[i] + 1 + g[i];
	b.n = calloc(b.cap, sizeof(*b.n));
	if (!b.n)
		return -ENOMEM;
	if (layout == PCITOPO_LAYOUT_CASCADE) {
		r = rp = add_rp(&b, hw, 0, 0x00, 1);
		if (r >= 0)
			r = port = add_switch(&b, hw, rp, 0, 0x00, g[0], n - 1);
		for (i = 1; i < n && r >= 0; i++)
			r = add_switch(&b, hw, port + (int)i - 1, 0, 0x00, g[i],
				       0);
	} else {
		for (i = 0; i < n && r >= 0; i++) {
			int numa = layout == PCITOPO_LAYOUT_BALANCE ?
				   (int)(i * s / n) : 0;
			u8 root_bus = (u8)(numa * (256 / span));

			r = rp = add_rp(&b, hw, numa, root_bus, dev[numa]++);
			if (r >= 0)
				r = add_switch(&b, hw, rp, numa, root_bus,
					       g[i], 0);
		}
	}
	out->nodes = b.n;
	out->count = b.count;
	if (r >= 0)
		r = ptc_resolve(out);
	if (r < 0) {
		ptm_layout_free(out);
		return r;
	}
	return 0;
}

void ptm_layout_free(struct ptc_topo *t)
{
	free(t->nodes);
	t->nodes = NULL;
	t->count = 0;
}
