// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: paths derived by core/ from the device table (derive.h): the
 * NIC-to-NIC cells of `topoctl topo`, doctor's pairs, `path show` on the
 * sysfs source, and the nodes the bandwidth model reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"

static int index_of(const struct pt_topology *t, const char *addr)
{
	size_t i;

	if (!addr[0])
		return PTC_NONE;
	for (i = 0; i < t->n_devices; i++)
		if (!strcmp(t->devices[i].addr, addr))
			return (int)i;
	return PTC_NONE;
}

int pt_derive_open(const struct pt_topology *t, struct ptc_topo *out)
{
	struct ptc_node *nodes;
	unsigned int dom, bus;
	size_t i;

	out->nodes = NULL;
	out->count = 0;
	if (!t->n_devices)
		return -EINVAL;
	nodes = calloc(t->n_devices, sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];
		struct ptc_node *n = &nodes[i];

		if (ptc_addr_parse(d->addr, &n->domain, &n->bus, &n->devfn))
			goto inval;
		n->parent = index_of(t, d->parent);
		n->role = d->role;
		n->vendor = d->vendor;
		n->device = d->device;
		n->class = d->class_code;
		n->kind = d->kind;
		n->numa_node = d->numa_node;
		n->root_bus = n->bus;
		if (sscanf(d->host_bridge, "%x:%x", &dom, &bus) == 2 && bus <= 0xff)
			n->root_bus = (u8)bus;
		n->has_link = pt_device_has_link(d) && !pt_device_is_dsp(d);
		n->cur.speed = d->link_speed;
		n->cur.width = d->link_width;
		n->cap.speed = d->link_max_speed;
		n->cap.width = d->link_max_width;
		n->link_active = !pt_has(d, PCITOPO_A_DEV_LINK_FLAGS) ||
				 (d->link_flags & PCITOPO_LINK_F_ACTIVE);
		n->acs_cap = d->acs_cap;
		n->acs_ctrl = d->acs_ctrl;
		n->slot = pt_has(d, PCITOPO_A_DEV_SLOT) ? (s32)d->slot : -1;
		n->hotplug = d->hotplug;
	}
	out->nodes = nodes;
	out->count = (u32)t->n_devices;
	if (ptc_resolve(out))
		goto inval;
	return 0;
inval:
	free(nodes);
	out->nodes = NULL;
	out->count = 0;
	return -EINVAL;
}

int pt_derive_path(const struct ptc_topo *pt, const struct pt_topology *t,
		   const struct pt_device *a, const struct pt_device *b,
		   struct pt_path *p)
{
	size_t ia = (size_t)(a - t->devices), ib = (size_t)(b - t->devices);
	struct ptc_path r;

	if (!pt->nodes || ia >= pt->count || ib >= pt->count)
		return -EINVAL;
	ptc_path(pt, (u32)ia, (u32)ib, &r);
	memset(p, 0, sizeof(*p));
	snprintf(p->a, sizeof(p->a), "%s", a->addr);
	snprintf(p->b, sizeof(p->b), "%s", b->addr);
	p->generation = t->generation;
	p->path_class = r.class;
	p->hops = r.hops;
	if (r.common != PTC_NONE)
		snprintf(p->common, sizeof(p->common), "%s",
			 t->devices[r.common].addr);
	if (r.bottleneck != PTC_NONE)
		snprintf(p->bottleneck, sizeof(p->bottleneck), "%s",
			 t->devices[r.bottleneck].addr);
	p->bottleneck_bw = r.bottleneck_bw;
	p->flags = r.flags;
	return r.class == PCITOPO_PATH_UNKNOWN ? -EINVAL : 0;
}

void pt_derive_close(struct ptc_topo *pt)
{
	free(pt->nodes);
	pt->nodes = NULL;
	pt->count = 0;
}

const struct pt_path *pt_path_of(const struct ptc_topo *pt,
				 const struct pt_topology *t,
				 const struct pt_device *a,
				 const struct pt_device *b, struct pt_path *tmp)
{
	const struct pt_path *p = pt_topology_find_path(t, a->addr, b->addr);

	if (!p)
		p = pt_topology_find_path(t, b->addr, a->addr);
	if (!p && !pt_derive_path(pt, t, a, b, tmp))
		p = tmp;
	return p;
}
