/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: access to pcitopo.ko over its generic netlink family
 * (include/uapi/linux/pcitopo.h), through libnl-3 and libnl-genl-3.
 *
 * Every function returns 0 (or a count where said) or a negative errno. When
 * the kernel refused a request, the errno is the kernel's and
 * pt_nl_last_error() returns its extended ACK message (NULL if it sent none),
 * valid until the next call on the handle. The library never prints.
 */
#ifndef PCITOPO_LIB_NL_H
#define PCITOPO_LIB_NL_H

#include "model.h"

struct pt_nl;

/* How often a dump or a whole snapshot is retried when the topology changes
 * under it (NLM_F_DUMP_INTR, or generations that differ); then -EAGAIN. */
#define PT_NL_RETRIES	8

/*
 * Open a request socket and resolve the family.
 *   -ENOENT  the family "pcitopo" is not registered: the module is not loaded.
 *            pt_nl_open() returns -ENOENT for nothing else.
 *   -EPROTO  the family's version is older than PCITOPO_GENL_VERSION: the
 *            module's ABI is too old for this library.
 *   other    socket errors (-EPERM, -ENOMEM, ...).
 */
int pt_nl_open(struct pt_nl **out);
/* The same for any family name (tests resolve "nlctrl" with it). */
int pt_nl_open_family(const char *name, unsigned int min_version,
		      struct pt_nl **out);
void pt_nl_close(struct pt_nl *h);

const char *pt_nl_last_error(const struct pt_nl *h);
unsigned int pt_nl_version(const struct pt_nl *h);	/* the module's */

int pt_nl_get_summary(struct pt_nl *h, struct pt_summary *s);
/* Dumps append to t (t->generation is set from the messages). A dump whose
 * messages carry different generations is retried as an interrupted one. */
int pt_nl_dump_devices(struct pt_nl *h, struct pt_topology *t);
/* from: NULL for every path, else only the paths from that device. */
int pt_nl_dump_paths(struct pt_nl *h, const char *from, struct pt_topology *t);
int pt_nl_get_device(struct pt_nl *h, const char *addr, struct pt_device *d);
int pt_nl_get_path(struct pt_nl *h, const char *a, const char *b,
		   struct pt_path *p);
/*
 * Summary, devices and paths at one generation (retried while the topology
 * changes), sorted in PCI bus order. *t must be zeroed or freed; on error it
 * is left freed.
 */
int pt_nl_load_topology(struct pt_nl *h, struct pt_topology *t);
/* The same without the paths (topod's snapshots: the layout, its GPUs and
 * their links, as often as a wait needs them). */
int pt_nl_load_devices(struct pt_nl *h, struct pt_topology *t);

/* Admin operations (CAP_NET_ADMIN; -EPERM otherwise). */
int pt_nl_detach(struct pt_nl *h, const char *addr);
int pt_nl_rescan(struct pt_nl *h, const char *addr);	/* addr may be NULL */
/* s (may be NULL): the summary the kernel replies with; zeroed without one */
int pt_nl_refresh(struct pt_nl *h, struct pt_summary *s);
int pt_nl_add_id(struct pt_nl *h, uint16_t vendor, uint16_t device,
		 uint8_t kind);
int pt_nl_del_id(struct pt_nl *h, uint16_t vendor, uint16_t device);
/* *ids is malloc()ed (free() it); returns the count. */
int pt_nl_dump_ids(struct pt_nl *h, struct pt_id **ids);

/*
 * Events: a separate, non-blocking socket in the "events" multicast group.
 * pt_nl_monitor_read() returns 0 with one event, -EAGAIN when none is ready
 * (poll pt_nl_monitor_fd() for POLLIN, then read again), -ENOBUFS when the
 * kernel dropped events (the socket buffer overran: reload the topology).
 */
int pt_nl_monitor_open(struct pt_nl **out);
int pt_nl_monitor_fd(const struct pt_nl *h);
int pt_nl_monitor_read(struct pt_nl *h, struct pt_event *ev);

#endif /* PCITOPO_LIB_NL_H */
