// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: model containers, sorting and lookups.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "ptc.h"

/*
 * Arrays grow in powers of two from 8; the capacity is implied by the count:
 * a new block is needed when the count is 0 or a power of two >= 8.
 */
static int grow(void **arr, size_t n, size_t size)
{
	size_t cap;
	void *p;

	if (n && (n < 8 || (n & (n - 1))))
		return 0;
	cap = n ? n * 2 : 8;
	if (cap > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, cap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

int pt_topology_add_device(struct pt_topology *t, const struct pt_device *d)
{
	int r = grow((void **)&t->devices, t->n_devices, sizeof(*d));

	if (r)
		return r;
	t->devices[t->n_devices++] = *d;
	return 0;
}

int pt_topology_add_path(struct pt_topology *t, const struct pt_path *p)
{
	int r = grow((void **)&t->paths, t->n_paths, sizeof(*p));

	if (r)
		return r;
	t->paths[t->n_paths++] = *p;
	return 0;
}

void pt_topology_free(struct pt_topology *t)
{
	if (!t)
		return;
	free(t->devices);
	free(t->paths);
	memset(t, 0, sizeof(*t));
}

int pt_addr_key(const char *addr, uint64_t *key)
{
	unsigned int dom, bus, dev = 0, fn = 0;
	int n = -1;

	if (!addr)
		return -EINVAL;
	if (sscanf(addr, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) == 4 &&
	    n > 0 && !addr[n]) {
		if (bus > 0xff || dev > 0x1f || fn > 7)
			return -EINVAL;
	} else {
		n = -1;
		dev = fn = 0;
		/* a host bridge sorts before every device on its root bus */
		if (sscanf(addr, "%x:%x%n", &dom, &bus, &n) != 2 || n <= 0 ||
		    addr[n] || bus > 0xff)
			return -EINVAL;
	}
	*key = (uint64_t)dom << 17 | (uint64_t)bus << 9 |
	       (uint64_t)(dev << 3 | fn) << 1;
	if (n > 0 && strchr(addr, '.'))
		*key |= 1;
	return 0;
}

int pt_addr_cmp(const char *a, const char *b)
{
	uint64_t ka, kb;
	int ea = pt_addr_key(a, &ka), eb = pt_addr_key(b, &kb);

	/* unparsable addresses sort last, by text, so the order stays total */
	if (ea || eb) {
		if (!ea)
			return -1;
		if (!eb)
			return 1;
		return strcmp(a, b);
	}
	return ka < kb ? -1 : ka > kb;
}

static int cmp_dev(const void *x, const void *y)
{
	const struct pt_device *a = x, *b = y;

	return pt_addr_cmp(a->addr, b->addr);
}

static int cmp_path(const void *x, const void *y)
{
	const struct pt_path *a = x, *b = y;
	int r = pt_addr_cmp(a->a, b->a);

	return r ? r : pt_addr_cmp(a->b, b->b);
}

void pt_topology_sort(struct pt_topology *t)
{
	if (t->n_devices > 1)
		qsort(t->devices, t->n_devices, sizeof(*t->devices), cmp_dev);
	if (t->n_paths > 1)
		qsort(t->paths, t->n_paths, sizeof(*t->paths), cmp_path);
}

const struct pt_device *pt_topology_find(const struct pt_topology *t,
					 const char *addr)
{
	size_t i;

	if (!addr || !*addr)
		return NULL;
	for (i = 0; i < t->n_devices; i++)
		if (!strcmp(t->devices[i].addr, addr))
			return &t->devices[i];
	return NULL;
}

const struct pt_path *pt_topology_find_path(const struct pt_topology *t,
					    const char *a, const char *b)
{
	size_t i;

	for (i = 0; i < t->n_paths; i++)
		if (!strcmp(t->paths[i].a, a) && !strcmp(t->paths[i].b, b))
			return &t->paths[i];
	return NULL;
}

/* core's rule (ptc_acs.c), so that the device flag and the path flag agree */
bool pt_device_acs_redirect(const struct pt_device *d)
{
	return pt_has(d, PCITOPO_A_DEV_ACS_CTRL) &&
	       ptc_acs_redirect(d->role, d->acs_cap, d->acs_ctrl);
}

bool pt_device_has_link(const struct pt_device *d)
{
	return pt_has(d, PCITOPO_A_DEV_LINK_FLAGS) ?
	       (d->link_flags & PCITOPO_LINK_F_PRESENT) != 0 :
	       d->link_speed != 0;
}

bool pt_device_is_dsp(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ROOT_PORT ||
	       d->role == PCITOPO_ROLE_DOWNSTREAM;
}
