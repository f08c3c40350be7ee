// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: device names. GPUs are GPU0..GPUn in PCI bus order (as
 * `nvidia-smi topo -m` numbers them), NICs NIC0.. in nvidia-smi's order
 * (before()), NVMe drives NVME0..;
 * any device can also be named by its bus address, with or without domain.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ptc.h"
#include "rdma.h"
#include "topoctl.h"

static const struct {
	const char *prefix;
	unsigned char kind;
} kinds[] = {
	{ "GPU", PCITOPO_KIND_GPU },
	{ "NIC", PCITOPO_KIND_NIC },
	{ "NVME", PCITOPO_KIND_NVME },
};

static bool named(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT &&
	       (d->kind == PCITOPO_KIND_GPU || d->kind == PCITOPO_KIND_NIC ||
		d->kind == PCITOPO_KIND_NVME);
}

/*
 * Whether a comes before b among devices of one kind. NICs as nvidia-smi
 * numbers them: the RDMA-capable ones first, by RDMA name (NIC0 is
 * mlx5_0), then the plain ones in bus order, so that showing every NIC
 * (--all-nics) renames none. Every other kind in bus order.
 */
static bool before(const struct pt_device *a, const struct pt_device *b)
{
	int r;

	if (a->kind == PCITOPO_KIND_NIC) {
		if (!!a->rdma[0] != !!b->rdma[0])
			return a->rdma[0];
		if (a->rdma[0]) {
			r = pt_rdma_name_cmp(a->rdma, b->rdma);
			if (r)
				return r < 0;
		}
	}
	return a < b;	/* both in t->devices, which is in bus order */
}

int dev_index(const struct pt_topology *t, const struct pt_device *d)
{
	int n = 0;
	size_t i;

	if (!named(d))
		return -1;
	d = pt_topology_find(t, d->addr);
	if (!d)
		return -1;
	for (i = 0; i < t->n_devices; i++)
		if (&t->devices[i] != d && named(&t->devices[i]) &&
		    t->devices[i].kind == d->kind &&
		    before(&t->devices[i], d))
			n++;
	return n;
}

void dev_name(const struct pt_topology *t, const struct pt_device *d,
	      char *buf, size_t len)
{
	int idx = dev_index(t, d);
	size_t k;

	buf[0] = '\0';
	if (idx < 0)
		return;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (kinds[k].kind == d->kind)
			snprintf(buf, len, "%s%d", kinds[k].prefix, idx);
}

int canon_addr(const char *arg, char *buf, size_t len)
{
	u32 domain;
	u8 bus, devfn;

	if (ptc_addr_parse(arg, &domain, &bus, &devfn))
		return -EINVAL;
	ptc_addr_format(buf, len, domain, bus, devfn);
	return 0;
}

int resolve_dev(const struct pt_topology *t, const char *arg,
		const struct pt_device **out)
{
	char addr[PCITOPO_ADDR_LEN];
	size_t k, i, plen;
	const char *p;
	char *end;
	long idx;

	*out = NULL;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		plen = strlen(kinds[k].prefix);
		if (strncasecmp(arg, kinds[k].prefix, plen))
			continue;
		p = arg + plen;
		if (!isdigit((unsigned char)*p))
			continue;
		errno = 0;
		idx = strtol(p, &end, 10);
		if (*end || errno || idx > 4096)
			return -EINVAL;
		for (i = 0; i < t->n_devices; i++) {
			const struct pt_device *d = &t->devices[i];

			if (named(d) && d->kind == kinds[k].kind &&
			    dev_index(t, d) == idx) {
				*out = d;
				return 0;
			}
		}
		return -ENODEV;
	}
	if (canon_addr(arg, addr, sizeof(addr)))
		return -EINVAL;
	*out = pt_topology_find(t, addr);
	return *out ? 0 : -ENODEV;
}

/* The syntax of every extra-ID input: core/ptc_ids.c. */
int parse_id(const char *s, unsigned int *vendor, unsigned int *device)
{
	struct ptc_extra_id id;

	if (ptc_parse_id(s, strlen(s), PTC_ID_NO_KIND, &id))
		return -EINVAL;
	*vendor = id.vendor;
	*device = id.device;
	return 0;
}

int parse_kind(const char *s)
{
	u8 kind;

	if (ptc_parse_kind(s, strlen(s), &kind))
		return -EINVAL;
	return kind;
}

int add_extra_id(struct ctx *c, const char *s)
{
	struct ptc_extra_id id;
	unsigned int vendor, device;
	struct pt_id *na;
	size_t i;
	int kind;

	if (ptc_parse_id(s, strlen(s), 0, &id))
		return -EINVAL;
	vendor = id.vendor;
	device = id.device;
	kind = id.kind;
	for (i = 0; i < c->n_ids; i++)
		if (c->ids[i].vendor == vendor && c->ids[i].device == device) {
			c->ids[i].kind = (uint8_t)kind;	/* the last one wins */
			return 0;
		}
	if (c->n_ids >= PCITOPO_MAX_EXTRA_IDS)
		return -ENOSPC;
	na = realloc(c->ids, (c->n_ids + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	c->ids = na;
	c->ids[c->n_ids].vendor = (uint16_t)vendor;
	c->ids[c->n_ids].device = (uint16_t)device;
	c->ids[c->n_ids].kind = (uint8_t)kind;
	c->n_ids++;
	return 0;
}
