// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: device names (devname.h). The order of each kind is decided
 * here once: GPUs by pt_gpu_number(), NICs and NVMe drives by before().
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devname.h"
#include "ptc.h"
#include "rdma.h"

static const struct {
	const char *prefix;
	unsigned char kind;
} kinds[] = {
	{ "GPU", PCITOPO_KIND_GPU },
	{ "NIC", PCITOPO_KIND_NIC },
	{ "NVME", PCITOPO_KIND_NVME },
};

#define N_KINDS	(sizeof(kinds) / sizeof(kinds[0]))

static bool named(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT &&
	       (d->kind == PCITOPO_KIND_GPU || d->kind == PCITOPO_KIND_NIC ||
		d->kind == PCITOPO_KIND_NVME);
}

int pt_gpu_number(const char *addr, const char *const gpus[], size_t n)
{
	bool found = false;
	int k = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(gpus[i], addr))
			found = true;
		else if (pt_addr_cmp(gpus[i], addr) < 0)
			k++;
	}
	return found ? k : -1;
}

/* The GPU number of d: pt_gpu_number() over t's GPUs. */
static int gpu_index(const struct pt_topology *t, const struct pt_device *d)
{
	const char **gpus = malloc((t->n_devices ? t->n_devices : 1) *
				   sizeof(*gpus));
	size_t i, n = 0;
	int r;

	if (!gpus)
		return -1;	/* out of memory: no name, as for a port */
	for (i = 0; i < t->n_devices; i++)
		if (named(&t->devices[i]) &&
		    t->devices[i].kind == PCITOPO_KIND_GPU)
			gpus[n++] = t->devices[i].addr;
	r = pt_gpu_number(d->addr, gpus, n);
	free(gpus);
	return r;
}

/*
 * Whether NIC or NVMe drive a comes before b of the same kind. NICs as
 * nvidia-smi numbers them: the RDMA-capable ones first, by RDMA name, then
 * the plain ones in bus order. NVMe drives in bus order.
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
	return pt_addr_cmp(a->addr, b->addr) < 0;
}

int pt_dev_index(const struct pt_topology *t, const struct pt_device *d)
{
	int n = 0;
	size_t i;

	if (!named(d))
		return -1;
	d = pt_topology_find(t, d->addr);
	if (!d)
		return -1;
	if (d->kind == PCITOPO_KIND_GPU)
		return gpu_index(t, d);
	for (i = 0; i < t->n_devices; i++)
		if (&t->devices[i] != d && named(&t->devices[i]) &&
		    t->devices[i].kind == d->kind &&
		    before(&t->devices[i], d))
			n++;
	return n;
}

void pt_dev_name(const struct pt_topology *t, const struct pt_device *d,
		 char *buf, size_t len)
{
	int idx = pt_dev_index(t, d);
	size_t k;

	buf[0] = '\0';
	if (idx < 0)
		return;
	for (k = 0; k < N_KINDS; k++)
		if (kinds[k].kind == d->kind)
			snprintf(buf, len, "%s%d", kinds[k].prefix, idx);
}

int pt_addr_canon(const char *arg, char *buf, size_t len)
{
	u32 domain;
	u8 bus, devfn;

	if (ptc_addr_parse(arg, &domain, &bus, &devfn))
		return -EINVAL;
	ptc_addr_format(buf, len, domain, bus, devfn);
	return 0;
}

int pt_dev_resolve(const struct pt_topology *t, const char *arg,
		   const struct pt_device **out)
{
	char addr[PCITOPO_ADDR_LEN];
	size_t k, i, plen;
	const char *p;
	char *end;
	long idx;

	*out = NULL;
	for (k = 0; k < N_KINDS; k++) {
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
			    pt_dev_index(t, d) == idx) {
				*out = d;
				return 0;
			}
		}
		return -ENODEV;
	}
	if (pt_addr_canon(arg, addr, sizeof(addr)))
		return -EINVAL;
	*out = pt_topology_find(t, addr);
	return *out ? 0 : -ENODEV;
}
