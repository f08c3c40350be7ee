/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcitopo.ko internals: what the parts of the module share.
 *
 * pcitopo_ids.c      extra vendor:device IDs (module parameter, sysfs, netlink)
 * pcitopo_walk.c     reads the PCI tree into an array of struct ptc_node
 * pcitopo_model.c    immutable snapshots, rebuild, diff, bus notifier; hands
 *                    each published snapshot and change to its subscribers
 * pcitopo_sysfs.c    /sys/kernel/pcitopo/ (pcitopo_sysfs.h)
 * pcitopo_netlink.c  the "pcitopo" generic netlink family (pcitopo_netlink.h)
 * pcitopo_main.c     init/exit: the parts, and which subscribes to the model
 *
 * The model knows no subscriber: sysfs and netlink each export a struct
 * pcitopo_subscriber, and pcitopo_main.c subscribes them once they exist.
 */
#ifndef PCITOPO_KMOD_H
#define PCITOPO_KMOD_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/pcitopo.h>

#include "ptc.h"

/* ---- extra IDs ---- */

struct pcitopo_id {
	u16 vendor;
	u16 device;
	u8 kind;		/* PCITOPO_KIND_GPU, _NIC or _NVME */
};

struct pcitopo_id_table {
	unsigned int count;
	struct pcitopo_id ids[PCITOPO_MAX_EXTRA_IDS];
};

int pcitopo_ids_init(const char *param);
int pcitopo_ids_add(u16 vendor, u16 device, u8 kind);
int pcitopo_ids_del(u16 vendor, u16 device);
void pcitopo_ids_copy(struct pcitopo_id_table *out);
u8 pcitopo_ids_kind(const struct pcitopo_id_table *t, u16 vendor, u16 device);

/* ---- bus walk ---- */

/*
 * Fill nodes (at most max of them) from the PCI tree, parents first. Returns
 * the number of devices of interest found, which may exceed max (then call
 * again with more room). Caller holds pci_lock_rescan_remove().
 */
u32 pcitopo_walk(struct ptc_node *nodes, u32 max,
		 const struct pcitopo_id_table *ids);

/* ---- model ---- */

/* One entry of the path table: the ordered pair (a, b) and its path. */
struct pcitopo_path_ent {
	u32 a;
	u32 b;
	struct ptc_path path;
};

/*
 * A snapshot of the model. Immutable once published; holds no pointer into
 * the PCI core (copies only), so a hot-unplugged device cannot leave it
 * dangling. Readers hold a reference for as long as they look at it.
 */
struct pcitopo_snap {
	struct kref ref;
	u64 gen;
	struct ptc_topo topo;
	struct ptc_layout layout;
	char (*addr)[PCITOPO_ADDR_LEN];	/* address string per node */
	u32 *by_addr;			/* node indexes sorted by address */
	/* Sorted by (a, b); the paths from node i are the entries
	 * path_first[i] up to, not including, path_first[i + 1].
	 */
	struct pcitopo_path_ent *paths;
	u32 *path_first;		/* count + 1 entries */
	u32 npaths;
};

int pcitopo_model_init(void);
void pcitopo_model_exit(void);
int pcitopo_model_start(void);
void pcitopo_model_stop(void);
int pcitopo_model_rebuild(bool force);
void pcitopo_model_lock(void);
void pcitopo_model_unlock(void);

struct pcitopo_snap *pcitopo_snap_get(void);
void pcitopo_snap_put(struct pcitopo_snap *s);
int pcitopo_snap_find_bdf(const struct pcitopo_snap *s, u32 domain, u8 bus,
			  u8 devfn);
const struct pcitopo_path_ent *
pcitopo_snap_path(const struct pcitopo_snap *s, u32 a, u32 b);

/* "DDDD:BB" of a node's host bridge into buf (PCITOPO_ADDR_LEN bytes). */
void pcitopo_host_bridge_name(const struct ptc_node *n, char *buf, size_t len);

/* ---- what the model publishes ---- */

enum pcitopo_event_type {
	PCITOPO_EV_DEVICE_DEL,		/* in the old snapshot, not the new */
	PCITOPO_EV_DEVICE_ADD,		/* in the new snapshot, not the old */
	PCITOPO_EV_DEVICE_CHANGE,	/* in both: link, ACS or other state */
	PCITOPO_EV_LAYOUT_CHANGE,	/* layout or its counts */
};

/* One change between the previous published snapshot and the new one. */
struct pcitopo_event {
	enum pcitopo_event_type type;
	const struct pcitopo_snap *snap; /* that holds the device: the old
					  * snapshot for a removal, else the new
					  */
	u32 index;			/* the device in snap; 0 for LAYOUT */
	u64 gen;			/* generation of the new snapshot */
};

/*
 * A consumer of the model. Either hook may be NULL. Both run under the
 * model's rebuild lock, in the order of subscription, so they are
 * serialized with each other and with (un)subscribing, and see the
 * snapshots in generation order; they must not take that lock. After a
 * publish every subscriber's snapshot() runs before any event(): whoever
 * hears an event and reads sysfs finds the new state there. The snapshot
 * and event are only valid during the call (take a reference to keep a
 * snapshot). They hold copies, never a pci_dev, so hot-unplug cannot leave
 * a hook a dangling pointer.
 */
struct pcitopo_subscriber {
	/* The new current snapshot, and at subscription the current one. */
	void (*snapshot)(const struct pcitopo_snap *s);
	/* The changes of a publish: removals, additions, state, layout. */
	void (*event)(const struct pcitopo_event *ev);
	struct list_head list;		/* the model's */
};

/*
 * Subscribe: snapshot() runs at once with the current snapshot, if any, so
 * nothing published before is missed. After unsubscribe returns no hook of
 * sub runs any more (it waits for a publish in progress): the subscriber
 * may then free what its hooks use.
 */
void pcitopo_model_subscribe(struct pcitopo_subscriber *sub);
void pcitopo_model_unsubscribe(struct pcitopo_subscriber *sub);

#endif /* PCITOPO_KMOD_H */
