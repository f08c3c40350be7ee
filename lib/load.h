/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: the model from where it is: the module over netlink (nl.h),
 * else sysfs through libpci (sysfs.h), and in either case the RDMA and
 * netdev names userspace knows and the module does not (rdma.h), read from
 * the same tree as the rest. One call, so that every reader of the model
 * (topoctl's commands, tests) makes the same choice.
 *
 * Nothing here prints: what happened is in struct pt_load, for the caller
 * to word.
 */
#ifndef PCITOPO_LIB_LOAD_H
#define PCITOPO_LIB_LOAD_H

#include <stddef.h>

#include "model.h"
#include "nl.h"

enum pt_source {
	PT_SOURCE_AUTO,		/* netlink, else (module not loaded) sysfs */
	PT_SOURCE_NETLINK,
	PT_SOURCE_SYSFS,
};

/* Which step failed, so that the caller can say it. */
enum pt_load_step {
	PT_LOAD_OK,
	PT_LOAD_NL_OPEN,	/* pt_nl_open(): -ENOENT no module, -EPROTO ... */
	PT_LOAD_NL_READ,	/* pt_nl_load_topology(); pt_nl_last_error(*nl) */
	PT_LOAD_IDS,		/* ids_file: -EINVAL or -ENOSPC at bad_line, ... */
	PT_LOAD_SYSFS,		/* pt_sysfs_load(); pt_sysfs_last_error() */
	PT_LOAD_NAMES,		/* pt_rdma_join(): -ENOMEM, -PT_ENOTREG
				 * (pt_sysfs_last_error()) */
};

/* out flags */
#define PT_LOAD_F_FALLBACK	0x1	/* AUTO: no module, sysfs read */
#define PT_LOAD_F_SHORT_CONFIG	0x2	/* sysfs: PT_SYSFS_F_SHORT_CONFIG */

struct pt_load {
	/* in */
	enum pt_source source;
	const char *root;	/* the sysfs tree ("/sys", a saved one; NULL:
				 * "/sys"): the sysfs source and the names */
	const char *ids_file;	/* the sysfs source's extra IDs, read only
				 * when that source is used; NULL or "": none,
				 * a missing file is none */
	struct pt_id **ids;	/* in/out: extra IDs (--extra-id), the file's */
	size_t *n_ids;		/* appended as pt_ids_load_file() does */
	struct pt_nl **nl;	/* in/out: the netlink handle; opened when
				 * *nl is NULL and kept for the caller;
				 * NULL again if the open failed */
	/* out */
	enum pt_source used;	/* PT_SOURCE_NETLINK or PT_SOURCE_SYSFS */
	unsigned int flags;	/* PT_LOAD_F_* */
	enum pt_load_step failed;
	unsigned int bad_line;	/* PT_LOAD_IDS: the file's line (1-based) */
};

/*
 * The model into *t (zeroed or freed before; freed on error), sorted in
 * PCI bus order, with the RDMA names joined. 0, or the failed step's
 * negative errno (l->failed names the step).
 */
int pt_load(struct pt_load *l, struct pt_topology *t);

#endif /* PCITOPO_LIB_LOAD_H */
