// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Synthetic topologies for topoctl's printer tests.
 *
 * balance: host bridges 0000:20 (NUMA 0) and 0000:80 (NUMA 1), one root port
 *          each, one switch each with GPUs on four downstream ports and a NIC
 *          on the fifth; NIC1's NUMA node is unknown (firmware gave none).
 *          GPU1 idles at 2.5 GT/s (speed-low); GPU6 trained x8 (a fault).
 * common:  one host bridge 0000:20 (NUMA 0), two root ports, a switch of four
 *          GPUs on each; NIC0 on the first switch, an NVMe drive on the second.
 * cascade: one root port, a top switch with two leaf switches of four GPUs;
 *          NIC0 on the top switch; ACS P2P redirect on GPU7's downstream port.
 *
 * Path classes: PIX when the closest common bridge is a downstream port or
 * the upstream port of the switch both sit on; PXB when it is a switch above
 * other switches; no common bridge: PHB on one host bridge, NODE on one NUMA
 * node, else SYS (with PCITOPO_PATH_F_NUMA_UNKNOWN when a node is unknown).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ptc.h"
#include "synthtopo.h"

const char *const synth_layout_names[SY_COUNT] = { "balance", "common",
						   "cascade" };

static int count_nics(const struct pt_topology *t)
{
	size_t i;
	int n = 0;

	for (i = 0; i < t->n_devices; i++)
		n += t->devices[i].kind == PCITOPO_KIND_NIC;
	return n;
}

static int add(struct pt_topology *t, const char *addr, uint8_t role,
	       uint8_t kind, const char *parent, int numa)
{
	const struct pt_device *p = parent ? pt_topology_find(t, parent) : NULL;
	struct pt_device d = { 0 };

	snprintf(d.addr, sizeof(d.addr), "%s", addr);
	d.role = role;
	d.kind = kind;
	d.numa_node = numa;
	d.present = PT_BIT(PCITOPO_A_DEV_ADDR) | PT_BIT(PCITOPO_A_DEV_ROLE) |
		    PT_BIT(PCITOPO_A_DEV_KIND) | PT_BIT(PCITOPO_A_DEV_VENDOR) |
		    PT_BIT(PCITOPO_A_DEV_DEVICE) | PT_BIT(PCITOPO_A_DEV_CLASS) |
		    PT_BIT(PCITOPO_A_DEV_NUMA_NODE) |
		    PT_BIT(PCITOPO_A_DEV_HOST_BRIDGE) |
		    PT_BIT(PCITOPO_A_DEV_ROOT_PORT) |
		    PT_BIT(PCITOPO_A_DEV_LINK_FLAGS);
	switch (kind) {
	case PCITOPO_KIND_GPU:
		d.vendor = 0x10de; d.device = 0x2330; d.class_code = 0x030200;
		break;
	case PCITOPO_KIND_NIC:
		/* ConnectX-7, named by the RDMA core in probe order */
		d.vendor = 0x15b3; d.device = 0x1021; d.class_code = 0x020000;
		snprintf(d.rdma, sizeof(d.rdma), "mlx5_%d", count_nics(t));
		d.rdma_hw = true;
		break;
	case PCITOPO_KIND_NVME:
		d.vendor = 0x144d; d.device = 0xa80a; d.class_code = 0x010802;
		break;
	default:
		d.vendor = 0x1000; d.device = 0xc030; d.class_code = 0x060400;
		if (role == PCITOPO_ROLE_ROOT_PORT) {
			d.vendor = 0x8086;
			d.device = 0x352a;
		}
	}
	if (p) {
		snprintf(d.parent, sizeof(d.parent), "%s", p->addr);
		d.present |= PT_BIT(PCITOPO_A_DEV_PARENT);
		snprintf(d.root_port, sizeof(d.root_port), "%s", p->root_port);
		snprintf(d.host_bridge, sizeof(d.host_bridge), "%s",
			 p->host_bridge);
		if (role == PCITOPO_ROLE_UPSTREAM)
			snprintf(d.sw, sizeof(d.sw), "%s", addr);
		else if (p->role == PCITOPO_ROLE_UPSTREAM ||
			 p->role == PCITOPO_ROLE_DOWNSTREAM)
			snprintf(d.sw, sizeof(d.sw), "%s", p->sw);
	} else {
		snprintf(d.root_port, sizeof(d.root_port), "%s", addr);
		snprintf(d.host_bridge, sizeof(d.host_bridge), "%.7s", addr);
		d.present |= PT_BIT(PCITOPO_A_DEV_ACS_CAP) |
			     PT_BIT(PCITOPO_A_DEV_ACS_CTRL);
		d.acs_cap = 0x005f;
	}
	if (d.sw[0])
		d.present |= PT_BIT(PCITOPO_A_DEV_SWITCH);
	if (role == PCITOPO_ROLE_DOWNSTREAM) {
		d.present |= PT_BIT(PCITOPO_A_DEV_ACS_CAP) |
			     PT_BIT(PCITOPO_A_DEV_ACS_CTRL) |
			     PT_BIT(PCITOPO_A_DEV_SLOT) |
			     PT_BIT(PCITOPO_A_DEV_HOTPLUG);
		d.acs_cap = 0x005f;
		d.slot = (uint32_t)t->n_devices;
		d.hotplug = 1;
	}
	if (role == PCITOPO_ROLE_ENDPOINT || role == PCITOPO_ROLE_UPSTREAM) {
		d.present |= PT_BIT(PCITOPO_A_DEV_LINK_SPEED) |
			     PT_BIT(PCITOPO_A_DEV_LINK_WIDTH) |
			     PT_BIT(PCITOPO_A_DEV_LINK_MAX_SPEED) |
			     PT_BIT(PCITOPO_A_DEV_LINK_MAX_WIDTH) |
			     PT_BIT(PCITOPO_A_DEV_LINK_BW) |
			     PT_BIT(PCITOPO_A_DEV_LINK_MAX_BW);
		d.link_speed = d.link_max_speed = 32000;
		d.link_width = d.link_max_width = 16;
		d.link_bw = d.link_max_bw = ptc_link_bw(32000, 16);
		d.link_flags = PCITOPO_LINK_F_PRESENT | PCITOPO_LINK_F_ACTIVE;
	}
	return pt_topology_add_device(t, &d);
}

static struct pt_device *dev(struct pt_topology *t, const char *addr)
{
	return (struct pt_device *)pt_topology_find(t, addr);
}

static void set_link(struct pt_topology *t, const char *addr, uint32_t speed,
		     uint8_t width)
{
	struct pt_device *d = dev(t, addr);

	d->link_speed = speed;
	d->link_width = width;
	d->link_bw = ptc_link_bw(speed, width);
	if (speed < d->link_max_speed)
		d->link_flags |= PCITOPO_LINK_F_SPEED_DOWN;
	if (width < d->link_max_width)
		d->link_flags |= PCITOPO_LINK_F_WIDTH_DOWN;
}

/* A switch below port: upstream at bus:00.0, downstream ports at
 * (bus+1):00.0 .. (bus+1):0(n-1).0. */
static int sw(struct pt_topology *t, const char *port, unsigned int bus, int n,
	      int numa)
{
	char up[16], ds[16];
	int i, r;

	snprintf(up, sizeof(up), "0000:%02x:00.0", bus);
	r = add(t, up, PCITOPO_ROLE_UPSTREAM, PCITOPO_KIND_PORT, port, numa);
	for (i = 0; !r && i < n; i++) {
		snprintf(ds, sizeof(ds), "0000:%02x:%02x.0", bus + 1, i);
		r = add(t, ds, PCITOPO_ROLE_DOWNSTREAM, PCITOPO_KIND_PORT, up,
			numa);
	}
	return r;
}

/* An endpoint at bus:00.0 below port. */
static int ep(struct pt_topology *t, const char *port, unsigned int bus,
	      uint8_t kind, int numa)
{
	char a[16];

	snprintf(a, sizeof(a), "0000:%02x:00.0", bus);
	return add(t, a, PCITOPO_ROLE_ENDPOINT, kind, port, numa);
}

static bool of_interest(const struct pt_device *a, const struct pt_device *b)
{
	if (a == b || a->role != PCITOPO_ROLE_ENDPOINT ||
	    b->role != PCITOPO_ROLE_ENDPOINT)
		return false;
	if (a->kind == PCITOPO_KIND_GPU)
		return b->kind >= PCITOPO_KIND_GPU && b->kind <= PCITOPO_KIND_NVME;
	return b->kind == PCITOPO_KIND_GPU &&
	       a->kind >= PCITOPO_KIND_GPU && a->kind <= PCITOPO_KIND_NVME;
}

static int make_path(struct pt_topology *t, const struct pt_device *a,
		     const struct pt_device *b)
{
	const struct pt_device *ca[16], *cb[16], *x, *common = NULL;
	struct pt_path p = { 0 };
	size_t na = 0, nb = 0, i, j, ia = 0, ib = 0;
	uint32_t bw = UINT32_MAX;

	for (x = a; x && na < 16; x = pt_topology_find(t, x->parent))
		ca[na++] = x;
	for (x = b; x && nb < 16; x = pt_topology_find(t, x->parent))
		cb[nb++] = x;
	for (i = 0; i < na && !common; i++)
		for (j = 0; j < nb; j++)
			if (ca[i] == cb[j]) {
				common = ca[i];
				ia = i;
				ib = j;
				break;
			}
	if (!common) {
		ia = na;
		ib = nb;
	}
	snprintf(p.a, sizeof(p.a), "%s", a->addr);
	snprintf(p.b, sizeof(p.b), "%s", b->addr);
	p.generation = t->generation;
	p.hops = (uint8_t)(ia - 1 + ib - 1 + (common ? 1 : 0));
	if (common) {
		snprintf(p.common, sizeof(p.common), "%s", common->addr);
		p.path_class = common->role == PCITOPO_ROLE_UPSTREAM &&
			       (strcmp(a->sw, common->addr) ||
				strcmp(b->sw, common->addr)) ?
			       PCITOPO_PATH_PXB : PCITOPO_PATH_PIX;
	} else if (!strcmp(a->host_bridge, b->host_bridge)) {
		p.path_class = PCITOPO_PATH_PHB;
	} else if (a->numa_node < 0 || b->numa_node < 0) {
		p.path_class = PCITOPO_PATH_SYS;
		p.flags |= PCITOPO_PATH_F_NUMA_UNKNOWN;
	} else {
		p.path_class = a->numa_node == b->numa_node ?
			       PCITOPO_PATH_NODE : PCITOPO_PATH_SYS;
	}
	/* links below the meeting point; redirect on downstream ports there */
	for (i = 0; i < ia + ib; i++) {
		x = i < ia ? ca[i] : cb[i - ia];
		if (x->link_bw && x->link_bw < bw) {
			bw = x->link_bw;
			snprintf(p.bottleneck, sizeof(p.bottleneck), "%s", x->addr);
		}
		if (x->link_flags & PCITOPO_LINK_F_WIDTH_DOWN)
			p.flags |= PCITOPO_PATH_F_WIDTH_DOWN;
		if (pt_device_acs_redirect(x))
			p.flags |= PCITOPO_PATH_F_ACS_REDIRECT;
	}
	p.bottleneck_bw = bw == UINT32_MAX ? 0 : bw;
	p.present = PT_BIT(PCITOPO_A_PATH_A) | PT_BIT(PCITOPO_A_PATH_B) |
		    PT_BIT(PCITOPO_A_PATH_CLASS) | PT_BIT(PCITOPO_A_PATH_HOPS) |
		    PT_BIT(PCITOPO_A_PATH_BOTTLENECK) |
		    PT_BIT(PCITOPO_A_PATH_BOTTLENECK_BW) |
		    PT_BIT(PCITOPO_A_PATH_FLAGS);
	if (common)
		p.present |= PT_BIT(PCITOPO_A_PATH_COMMON);
	return pt_topology_add_path(t, &p);
}

static int balance(struct pt_topology *t)
{
	int r = 0, i;
	char ds[16];

	r |= add(t, "0000:20:01.0", PCITOPO_ROLE_ROOT_PORT, PCITOPO_KIND_PORT,
		 NULL, 0);
	r |= sw(t, "0000:20:01.0", 0x21, 5, 0);
	for (i = 0; i < 4; i++) {
		snprintf(ds, sizeof(ds), "0000:22:%02x.0", i);
		r |= ep(t, ds, 0x23 + i, PCITOPO_KIND_GPU, 0);
	}
	r |= ep(t, "0000:22:04.0", 0x27, PCITOPO_KIND_NIC, 0);
	r |= add(t, "0000:80:01.0", PCITOPO_ROLE_ROOT_PORT, PCITOPO_KIND_PORT,
		 NULL, 1);
	r |= sw(t, "0000:80:01.0", 0x81, 5, 1);
	for (i = 0; i < 4; i++) {
		snprintf(ds, sizeof(ds), "0000:82:%02x.0", i);
		r |= ep(t, ds, 0x83 + i, PCITOPO_KIND_GPU, 1);
	}
	r |= ep(t, "0000:82:04.0", 0x87, PCITOPO_KIND_NIC, -1);
	if (r)
		return -ENOMEM;
	set_link(t, "0000:24:00.0", 2500, 16);	/* GPU1 idle */
	set_link(t, "0000:85:00.0", 32000, 8);	/* GPU6 lost lanes */
	return 0;
}

static int common(struct pt_topology *t)
{
	int r = 0, i;
	char ds[16];

	r |= add(t, "0000:20:01.0", PCITOPO_ROLE_ROOT_PORT, PCITOPO_KIND_PORT,
		 NULL, 0);
	r |= sw(t, "0000:20:01.0", 0x21, 5, 0);
	for (i = 0; i < 4; i++) {
		snprintf(ds, sizeof(ds), "0000:22:%02x.0", i);
		r |= ep(t, ds, 0x23 + i, PCITOPO_KIND_GPU, 0);
	}
	r |= ep(t, "0000:22:04.0", 0x27, PCITOPO_KIND_NIC, 0);
	r |= add(t, "0000:20:03.0", PCITOPO_ROLE_ROOT_PORT, PCITOPO_KIND_PORT,
		 NULL, 0);
	r |= sw(t, "0000:20:03.0", 0x41, 5, 0);
	for (i = 0; i < 4; i++) {
		snprintf(ds, sizeof(ds), "0000:42:%02x.0", i);
		r |= ep(t, ds, 0x43 + i, PCITOPO_KIND_GPU, 0);
	}
	r |= ep(t, "0000:42:04.0", 0x47, PCITOPO_KIND_NVME, 0);
	return r ? -ENOMEM : 0;
}

static int cascade(struct pt_topology *t)
{
	int r = 0, i;
	char ds[16];

	r |= add(t, "0000:20:01.0", PCITOPO_ROLE_ROOT_PORT, PCITOPO_KIND_PORT,
		 NULL, 0);
	r |= sw(t, "0000:20:01.0", 0x21, 3, 0);		/* top switch */
	r |= sw(t, "0000:22:00.0", 0x23, 4, 0);		/* leaf 0 */
	r |= sw(t, "0000:22:01.0", 0x30, 4, 0);		/* leaf 1 */
	for (i = 0; i < 4; i++) {
		snprintf(ds, sizeof(ds), "0000:24:%02x.0", i);
		r |= ep(t, ds, 0x25 + i, PCITOPO_KIND_GPU, 0);
		snprintf(ds, sizeof(ds), "0000:31:%02x.0", i);
		r |= ep(t, ds, 0x32 + i, PCITOPO_KIND_GPU, 0);
	}
	r |= ep(t, "0000:22:02.0", 0x40, PCITOPO_KIND_NIC, 0);
	if (r)
		return -ENOMEM;
	dev(t, "0000:31:03.0")->acs_ctrl = 0x001d;	/* SV RR CR UF */
	return 0;
}

int synth_build(struct pt_topology *t, enum synth_layout l)
{
	static const char *const reasons[SY_COUNT] = {
		"2 switches of 4 GPUs under 2 root ports on 2 NUMA nodes",
		"2 switches of 4 GPUs under 2 root ports of 1 host bridge",
		"8 GPUs under 1 root port through cascaded switches",
	};
	static const uint8_t layouts[SY_COUNT] = {
		PCITOPO_LAYOUT_BALANCE, PCITOPO_LAYOUT_COMMON,
		PCITOPO_LAYOUT_CASCADE,
	};
	struct pt_summary *s = &t->summary;
	size_t i, j;
	int r;

	memset(t, 0, sizeof(*t));
	t->generation = 3 + l;
	r = l == SY_BALANCE ? balance(t) : l == SY_COMMON ? common(t) : cascade(t);
	for (i = 0; !r && i < t->n_devices; i++)
		t->devices[i].generation = t->generation;
	for (i = 0; !r && i < t->n_devices; i++)
		for (j = 0; !r && j < t->n_devices; j++)
			if (of_interest(&t->devices[i], &t->devices[j]))
				r = make_path(t, &t->devices[i], &t->devices[j]);
	if (r) {
		pt_topology_free(t);
		return r;
	}
	pt_topology_sort(t);
	s->present = PT_BIT(PCITOPO_A_GENERATION) | PT_BIT(PCITOPO_A_LAYOUT);
	s->generation = t->generation;
	s->layout = layouts[l];
	snprintf(s->reason, sizeof(s->reason), "%s", reasons[l]);
	s->count_devices = (uint32_t)t->n_devices;
	s->count_paths = (uint32_t)t->n_paths;
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];

		s->count_gpus += d->kind == PCITOPO_KIND_GPU;
		s->count_nics += d->kind == PCITOPO_KIND_NIC;
		s->count_nvmes += d->kind == PCITOPO_KIND_NVME;
		s->count_switches += d->role == PCITOPO_ROLE_UPSTREAM;
		s->count_root_ports += d->role == PCITOPO_ROLE_ROOT_PORT;
	}
	s->count_numa_nodes = l == SY_BALANCE ? 2 : 1;
	return 0;
}
