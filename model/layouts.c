// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the three candidate topologies, built from a hardware
 * description so that a layout the server is not in can be evaluated.
 *
 * Exactly what is built (G = gpus_per_switch; every switch has G downstream
 * ports for GPUs, one more in cascade for the second switch):
 *
 *   balance  host bridge 0000:00 (NUMA 0) -> root port 00:01.0 -> switch 0
 *            -> GPU0..G-1; host bridge 0000:80 (NUMA 1) -> root port
 *            80:01.0 -> switch 1 -> GPUG..2G-1. Needs cpus >= 2.
 *   common   host bridge 0000:00 (NUMA 0) -> root ports 00:01.0 and
 *            00:02.0 -> switch 0 and switch 1 (one each).
 *   cascade  host bridge 0000:00 (NUMA 0) -> root port 00:01.0 -> switch 0
 *            -> GPU0..G-1 on ports 0..G-1, switch 1 on port G -> GPUG..2G-1.
 *
 * LnkCap: GPUs hw->gpu, switch ports hw->uplink, root ports hw->root; each
 * link trains at the best both ends support (LnkSta = that), as a loaded
 * server does. Other CPUs (cpus > 2) carry no GPUs; they only count for the
 * machine's sockets. Buses are numbered in creation order, so GPU indices in
 * bus order are the order above.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptm.h"

struct builder {
	struct ptc_node *n;
	u32 count, cap;
	unsigned int next_bus[2];	/* per root bus 0x00 / 0x80 */
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

static unsigned int *busctr(struct builder *b, u8 root_bus)
{
	return &b->next_bus[root_bus ? 1 : 0];
}

/* A switch below port with G GPU ports (+1 if cascade_port), GPUs on the
 * first G; returns the downstream port left for a cascaded switch, or the
 * upstream port's index when there is none; negative errno. */
static int add_switch(struct builder *b, const struct ptm_hw *hw, s32 port,
		      int numa, u8 root_bus, bool cascade_port)
{
	unsigned int *bus = busctr(b, root_bus), g, nds;
	int up, ds[17], r;
	u8 up_bus, ds_bus;

	nds = hw->gpus_per_switch + (cascade_port ? 1 : 0);
	up_bus = (u8)(*bus)++;
	up = add(b, port, PCITOPO_ROLE_UPSTREAM, numa, root_bus, up_bus, 0,
		 hw->uplink);
	if (up < 0)
		return up;
	ds_bus = (u8)(*bus)++;
	for (g = 0; g < nds; g++) {
		ds[g] = add(b, up, PCITOPO_ROLE_DOWNSTREAM, numa, root_bus,
			    ds_bus, (u8)(g << 3), hw->uplink);
		if (ds[g] < 0)
			return ds[g];
	}
	for (g = 0; g < hw->gpus_per_switch; g++) {
		r = add(b, ds[g], PCITOPO_ROLE_ENDPOINT, numa, root_bus,
			(u8)(*bus)++, 0, hw->gpu);
		if (r < 0)
			return r;
	}
	return cascade_port ? ds[nds - 1] : up;
}

static int add_rp(struct builder *b, const struct ptm_hw *hw, int numa,
		  u8 root_bus, unsigned int dev)
{
	return add(b, PTC_NONE, PCITOPO_ROLE_ROOT_PORT, numa, root_bus,
		   root_bus, (u8)(dev << 3), hw->root);
}

static bool hw_valid(const struct ptm_hw *hw)
{
	return ptc_link_bw(hw->gpu.speed, hw->gpu.width) &&
	       ptc_link_bw(hw->uplink.speed, hw->uplink.width) &&
	       ptc_link_bw(hw->root.speed, hw->root.width) &&
	       hw->cpus >= 1 && hw->cpus <= PTM_MAX_SOCKETS &&
	       hw->gpus_per_switch >= 1 && hw->gpus_per_switch <= 16;
}

int ptm_layout_build(const struct ptm_hw *hw, unsigned int layout,
		     struct ptc_topo *out)
{
	struct builder b = { .next_bus = { 0x01, 0x81 } };
	int r, rp, port;

	out->nodes = NULL;
	out->count = 0;
	if (!hw_valid(hw))
		return -EINVAL;
	if (layout == PCITOPO_LAYOUT_BALANCE && hw->cpus < 2)
		return -EOPNOTSUPP;
	if (layout != PCITOPO_LAYOUT_BALANCE && layout != PCITOPO_LAYOUT_COMMON &&
	    layout != PCITOPO_LAYOUT_CASCADE)
		return -EINVAL;
	b.cap = 2 + 2 * (2 + hw->gpus_per_switch) + 2 * hw->gpus_per_switch + 2;
	b.n = calloc(b.cap, sizeof(*b.n));
	if (!b.n)
		return -ENOMEM;
	switch (layout) {
	case PCITOPO_LAYOUT_BALANCE:
		r = rp = add_rp(&b, hw, 0, 0x00, 1);
		if (r >= 0)
			r = add_switch(&b, hw, rp, 0, 0x00, false);
		if (r >= 0)
			r = rp = add_rp(&b, hw, 1, 0x80, 1);
		if (r >= 0)
			r = add_switch(&b, hw, rp, 1, 0x80, false);
		break;
	case PCITOPO_LAYOUT_COMMON:
		r = rp = add_rp(&b, hw, 0, 0x00, 1);
		if (r >= 0)
			r = add_switch(&b, hw, rp, 0, 0x00, false);
		if (r >= 0)
			r = rp = add_rp(&b, hw, 0, 0x00, 2);
		if (r >= 0)
			r = add_switch(&b, hw, rp, 0, 0x00, false);
		break;
	default:
		r = rp = add_rp(&b, hw, 0, 0x00, 1);
		if (r >= 0)
			r = port = add_switch(&b, hw, rp, 0, 0x00, true);
		if (r >= 0)
			r = add_switch(&b, hw, port, 0, 0x00, false);
		break;
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
