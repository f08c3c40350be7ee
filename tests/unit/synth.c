// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Synthetic PCIe trees for the core tests and benchmark; see synth.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "synth.h"

void synth_init(struct synth *s, unsigned int cap)
{
	memset(s, 0, sizeof(*s));
	s->nodes = calloc(cap, sizeof(*s->nodes));
	s->sec_bus = calloc(cap, 1);
	s->kids = calloc(cap, 1);
	if (!s->nodes || !s->sec_bus || !s->kids) {
		fprintf(stderr, "synth: out of memory\n");
		exit(2);
	}
	s->cap = cap;
	s->topo.nodes = s->nodes;
}

void synth_free(struct synth *s)
{
	free(s->nodes);
	free(s->sec_bus);
	free(s->kids);
	memset(s, 0, sizeof(*s));
}

/* A new node with the defaults of its role; the caller places it. */
static int synth_new(struct synth *s, u8 role)
{
	struct ptc_node *n;
	int i;

	if (s->topo.count >= s->cap) {
		fprintf(stderr, "synth: more than %u nodes\n", s->cap);
		exit(2);
	}
	i = (int)s->topo.count++;
	n = &s->nodes[i];
	memset(n, 0, sizeof(*n));
	n->role = role;
	n->parent = PTC_NONE;
	n->slot = -1;
	n->cap.speed = SYNTH_GEN5;
	n->cap.width = 16;
	/* Root and downstream ports: their link is their child's. */
	n->has_link = role != PCITOPO_ROLE_ROOT_PORT &&
		      role != PCITOPO_ROLE_DOWNSTREAM;
	if (n->has_link) {
		n->cur = n->cap;
		n->link_active = true;
	}
	if (ptc_role_is_bridge(role))
		s->sec_bus[i] = (u8)s->next_bus++;
	return i;
}

/* Put node i below port, inheriting its host bridge and NUMA node. */
static void synth_place(struct synth *s, int i, int port, u8 devfn)
{
	struct ptc_node *n = &s->nodes[i];
	const struct ptc_node *p = &s->nodes[port];

	n->parent = port;
	n->domain = p->domain;
	n->root_bus = p->root_bus;
	n->numa_node = p->numa_node;
	n->bus = s->sec_bus[port];
	n->devfn = devfn;
	s->kids[port]++;
}

int synth_root_port(struct synth *s, u32 domain, u8 root_bus, int numa)
{
	int i;

	if (s->next_bus <= root_bus)
		s->next_bus = root_bus + 1U;
	i = synth_new(s, PCITOPO_ROLE_ROOT_PORT);
	s->nodes[i].domain = domain;
	s->nodes[i].root_bus = root_bus;
	s->nodes[i].bus = root_bus;
	s->nodes[i].devfn = (u8)((++s->next_rp & 0x1f) << 3);
	s->nodes[i].numa_node = numa;
	s->nodes[i].vendor = 0x1022;
	s->nodes[i].device = 0x14ab;
	s->nodes[i].class = 0x060400;
	return i;
}

int synth_switch(struct synth *s, int port, u16 vendor, u16 device, int n,
		 int *ds)
{
	int up = synth_new(s, PCITOPO_ROLE_UPSTREAM);
	int k, d;

	synth_place(s, up, port, (u8)s->kids[port]);
	s->nodes[up].vendor = vendor;
	s->nodes[up].device = device;
	s->nodes[up].class = 0x060400;
	for (k = 0; k < n; k++) {
		d = synth_new(s, PCITOPO_ROLE_DOWNSTREAM);
		synth_place(s, d, up, (u8)(k << 3));
		s->nodes[d].vendor = vendor;
		s->nodes[d].device = device;
		s->nodes[d].class = 0x060400;
		s->nodes[d].hotplug = true;
		s->nodes[d].slot = k;
		if (ds)
			ds[k] = d;
	}
	return up;
}

int synth_bridge(struct synth *s, int port)
{
	int i = synth_new(s, PCITOPO_ROLE_BRIDGE);

	synth_place(s, i, port, (u8)s->kids[port]);
	s->nodes[i].vendor = 0x1b21;
	s->nodes[i].device = 0x1080;
	s->nodes[i].class = 0x060401;
	return i;
}

int synth_endpoint(struct synth *s, int port, u32 class, u16 vendor,
		   u16 device)
{
	int i = synth_new(s, PCITOPO_ROLE_ENDPOINT);

	synth_place(s, i, port, (u8)s->kids[port]);
	s->nodes[i].class = class;
	s->nodes[i].vendor = vendor;
	s->nodes[i].device = device;
	return i;
}

int synth_gpu(struct synth *s, int port)
{
	return synth_endpoint(s, port, 0x030200, 0x10de, 0x2330);
}

int synth_nic(struct synth *s, int port)
{
	return synth_endpoint(s, port, 0x020000, 0x15b3, 0x1021);
}

int synth_nvme(struct synth *s, int port)
{
	return synth_endpoint(s, port, 0x010802, 0x144d, 0xa80a);
}

int synth_root_bus_gpu(struct synth *s, u32 domain, u8 root_bus, int numa)
{
	int i = synth_new(s, PCITOPO_ROLE_ENDPOINT);

	s->nodes[i].domain = domain;
	s->nodes[i].root_bus = root_bus;
	s->nodes[i].bus = root_bus;
	s->nodes[i].devfn = (u8)((++s->next_rp & 0x1f) << 3);
	s->nodes[i].numa_node = numa;
	s->nodes[i].class = 0x030200;
	s->nodes[i].vendor = 0x10de;
	s->nodes[i].device = 0x2330;
	return i;
}

void synth_cur(struct synth *s, int i, u32 speed, u8 width)
{
	s->nodes[i].cur.speed = speed;
	s->nodes[i].cur.width = width;
}

void synth_cap(struct synth *s, int i, u32 speed, u8 width)
{
	s->nodes[i].cap.speed = speed;
	s->nodes[i].cap.width = width;
}

void synth_active(struct synth *s, int i, bool active)
{
	s->nodes[i].link_active = active;
}

void synth_acs(struct synth *s, int i, u16 cap, u16 ctrl)
{
	s->nodes[i].acs_cap = cap;
	s->nodes[i].acs_ctrl = ctrl;
}

int synth_resolve(struct synth *s)
{
	return ptc_resolve(&s->topo);
}

const char *synth_addr(const struct synth *s, int i)
{
	static char buf[4][PCITOPO_ADDR_LEN];
	static unsigned int next;
	char *b = buf[next++ % 4];

	if (i == PTC_NONE)
		return "none";
	ptc_addr_format(b, PCITOPO_ADDR_LEN, s->nodes[i].domain,
			s->nodes[i].bus, s->nodes[i].devfn);
	return b;
}
