// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: pt_load(), netlink else sysfs, and the names (load.h).
 */
#include <errno.h>

#include "load.h"
#include "rdma.h"
#include "sysfs.h"

static int fail(struct pt_load *l, enum pt_load_step step, int r)
{
	l->failed = step;
	return r;
}

static int load_sysfs(struct pt_load *l, struct pt_topology *t)
{
	struct pt_sysfs_opts o = { .root = l->root };
	int r;

	l->used = PT_SOURCE_SYSFS;
	if (l->ids_file && *l->ids_file) {
		r = pt_ids_load_file(l->ids_file, l->ids, l->n_ids,
				     &l->bad_line);
		if (r && r != -ENOENT)
			return fail(l, PT_LOAD_IDS, r);
	}
	o.ids = *l->ids;
	o.n_ids = *l->n_ids;
	r = pt_sysfs_load(&o, t);
	if (r)
		return fail(l, PT_LOAD_SYSFS, r);
	if (o.flags & PT_SYSFS_F_SHORT_CONFIG)
		l->flags |= PT_LOAD_F_SHORT_CONFIG;
	return 0;
}

static int load(struct pt_load *l, struct pt_topology *t)
{
	int r;

	if (l->source == PT_SOURCE_SYSFS)
		return load_sysfs(l, t);
	l->used = PT_SOURCE_NETLINK;
	if (!*l->nl) {
		r = pt_nl_open(l->nl);
		if (r) {
			*l->nl = NULL;
			/* -ENOENT means the family is missing, nothing else */
			if (r == -ENOENT && l->source == PT_SOURCE_AUTO) {
				l->flags |= PT_LOAD_F_FALLBACK;
				return load_sysfs(l, t);
			}
			return fail(l, PT_LOAD_NL_OPEN, r);
		}
	}
	r = pt_nl_load_topology(*l->nl, t);
	return r ? fail(l, PT_LOAD_NL_READ, r) : 0;
}

int pt_load(struct pt_load *l, struct pt_topology *t)
{
	int r;

	l->used = PT_SOURCE_NETLINK;
	l->flags = 0;
	l->failed = PT_LOAD_OK;
	l->bad_line = 0;
	r = load(l, t);
	if (r)
		return r;
	r = pt_rdma_join(l->root, t);
	if (r) {
		pt_topology_free(t);
		return fail(l, PT_LOAD_NAMES, r);
	}
	return 0;
}
