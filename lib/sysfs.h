/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: the same model as pcitopo.ko reports, built in userspace from
 * sysfs, for machines where the module cannot be loaded (Secure Boot with
 * enforced module signatures, a kernel without headers, a container).
 *
 * Devices are enumerated and their config space read through libpci (its
 * linux-sysfs method, pointed at ROOT/bus/pci; loaded at the first
 * pt_sysfs_load(), not linked: see dl.h); the parent of a device is the
 * directory above the realpath of ROOT/bus/pci/devices/ADDR, its NUMA node
 * the numa_node file. Each device's registers go into the record
 * kmod/pcitopo_walk.c fills too (core/ptc_raw.h) and the core decodes both
 * alike (every bridge; every GPU, NIC and NVMe endpoint by class code or
 * extra ID), then resolves them (ptc_resolve, ptc_layout, ptc_path) and
 * says which attributes each device has (ptc_dev_attrs), so the result
 * equals what the module would report, at generation 0.
 *
 * ROOT is "/sys" or a tree saved by pt_sysfs_snapshot() (a bug report, a
 * test fixture). Reading config space past the first 64 bytes needs root;
 * as another user the PCIe capability is out of reach and links read as
 * absent (pt_sysfs_load() says so through PT_SYSFS_F_SHORT_CONFIG).
 *
 * Needs the core (core/ptc_*.c) linked in: libpcitopo.a carries it.
 * Every function returns 0 (or a count where said) or a negative errno and
 * never prints; pt_sysfs_last_error() returns a message naming what failed.
 */
#ifndef PCITOPO_LIB_SYSFS_H
#define PCITOPO_LIB_SYSFS_H

#include <stddef.h>

#include "model.h"

/* Where the extra IDs live (the module's are set with `topoctl id add`). */
#define PT_EXTRA_IDS_FILE	"/etc/pcitopo/extra-ids"

/* pt_sysfs_load() result flags */
#define PT_SYSFS_F_SHORT_CONFIG	0x1	/* some config space read short (not root) */

struct pt_sysfs_opts {
	const char *root;		/* NULL: "/sys" */
	const struct pt_id *ids;	/* extra IDs, before the class rules */
	size_t n_ids;
	unsigned int flags;		/* out: PT_SYSFS_F_* */
};

/*
 * Build the topology from sysfs into *t (zeroed or freed before; left freed
 * on error), sorted in PCI bus order, t->generation 0.
 *   -ENOENT  ROOT/bus/pci/devices does not exist
 *   -EINVAL  the tree is inconsistent (the core rejected it)
 *   -EIO     libpci failed (message in pt_sysfs_last_error())
 *   -ELIBACC libpci.so.3 does not load, -ELIBBAD it lacks a function (the
 *            message names the library and its package)
 */
int pt_sysfs_load(struct pt_sysfs_opts *o, struct pt_topology *t);

/*
 * Save what pt_sysfs_load() reads from ROOT (NULL: "/sys") into DIR (created
 * if missing; must be empty): for every PCI device its directory under
 * DIR/devices/... with its attribute files and whole config space, the
 * DIR/bus/pci/devices links (relative), DIR/bus/pci/slots/N/address and
 * DIR/devices/system/node/nodeN/cpulist, each CPU's
 * topology/physical_package_id, the class/infiniband and class/net
 * entries of PCI functions (rdma.h), and DIR/module with the peer-memory
 * modules' version files where ROOT has them (what doctor reads for
 * GPUDirect RDMA). Returns the number of PCI devices saved. -EEXIST: DIR is
 * not empty. (sysfs_copy.c)
 */
int pt_sysfs_snapshot(const char *root, const char *dir);

/* The message of the last failure of this thread ("" if none). */
const char *pt_sysfs_last_error(void);

/*
 * One extra ID, "VVVV:DDDD[:KIND]" (exactly 4 hex digits each, KIND gpu, nic
 * or nvme, default gpu; the grammar of every input, core/ptc_ids.c); len
 * bytes of s. -EINVAL if malformed.
 */
int pt_id_parse(const char *s, size_t len, struct pt_id *id);

/*
 * A list of extra IDs, as /etc/pcitopo/extra-ids and the module's extra_ids
 * parameter hold it: items separated by commas or newlines (white space
 * separates the fields of one ID), '#' to the end of a line is a comment,
 * empty items skipped (core/ptc_ids.c). Appends to
 * *ids (realloc()ed, count in *n, at most PCITOPO_MAX_EXTRA_IDS; a repeated
 * ID is kept once). -EINVAL with *bad_line (1-based) set if an item is
 * malformed, -ENOSPC if too many.
 */
int pt_ids_parse_text(const char *text, struct pt_id **ids, size_t *n,
		      unsigned int *bad_line);

/* The same for a file; -ENOENT if it does not exist (not an error to most). */
int pt_ids_load_file(const char *path, struct pt_id **ids, size_t *n,
		     unsigned int *bad_line);

#endif /* PCITOPO_LIB_SYSFS_H */
