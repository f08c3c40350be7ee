/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: the userspace model of what pcitopo.ko reports.
 *
 * One struct per netlink object (summary, device, path, extra ID, event),
 * holding every attribute of include/uapi/linux/pcitopo.h in host types.
 * Addresses stay strings, exactly as the kernel sends them. Which optional
 * attributes were present is kept in a bit mask indexed by attribute number:
 * pt_has(dev, PCITOPO_A_DEV_SLOT).
 *
 * Nothing here talks to the kernel (that is nl.c) or prints.
 */
#ifndef PCITOPO_LIB_MODEL_H
#define PCITOPO_LIB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/pcitopo.h>

/* Every attribute number fits in the presence mask. */
_Static_assert(PCITOPO_A_MAX < 64, "presence mask too small");

#define PT_BIT(attr)		(UINT64_C(1) << (attr))
#define pt_has(obj, attr)	(((obj)->present & PT_BIT(attr)) != 0)

/* ACS control bits that send P2P traffic up to the root complex. */
#define PT_ACS_RR		0x0004	/* P2P Request Redirect */
#define PT_ACS_CR		0x0008	/* P2P Completion Redirect */

struct pt_summary {
	uint64_t present;
	uint64_t generation;
	uint8_t layout;				/* enum pcitopo_layout */
	char reason[PCITOPO_REASON_LEN];
	uint32_t count_devices;
	uint32_t count_gpus;
	uint32_t count_nics;
	uint32_t count_nvmes;
	uint32_t count_switches;
	uint32_t count_root_ports;
	uint32_t count_numa_nodes;
	uint32_t count_paths;
};

struct pt_device {
	uint64_t present;			/* PT_BIT(PCITOPO_A_DEV_*) */
	uint64_t generation;
	char addr[PCITOPO_ADDR_LEN];
	uint8_t role;				/* enum pcitopo_role */
	uint8_t kind;				/* enum pcitopo_kind */
	uint16_t vendor;
	uint16_t device;
	uint32_t class_code;			/* 24-bit */
	char parent[PCITOPO_ADDR_LEN];		/* "" when absent */
	char root_port[PCITOPO_ADDR_LEN];
	char sw[PCITOPO_ADDR_LEN];		/* switch upstream port */
	char host_bridge[PCITOPO_ADDR_LEN];	/* "DDDD:BB" */
	int32_t numa_node;			/* -1: unknown (or absent) */
	uint32_t link_speed;			/* MT/s */
	uint8_t link_width;
	uint32_t link_max_speed;
	uint8_t link_max_width;
	uint32_t link_bw;			/* MB/s */
	uint32_t link_max_bw;
	uint32_t link_flags;			/* PCITOPO_LINK_F_* */
	uint32_t slot;
	uint8_t hotplug;
	uint16_t acs_cap;
	uint16_t acs_ctrl;
	/* joined in userspace (rdma.h), not from the module */
	char rdma[64];				/* RDMA device, "" if none */
	bool rdma_hw;				/* rdma names a hardware adapter */
	char netdev[16];			/* first network interface, "" */
};

/* An RDMA-capable NIC: what nvidia-smi's NIC columns list. */
static inline bool pt_device_is_rdma_nic(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT &&
	       d->kind == PCITOPO_KIND_NIC && d->rdma[0];
}

struct pt_path {
	uint64_t present;
	uint64_t generation;
	char a[PCITOPO_ADDR_LEN];
	char b[PCITOPO_ADDR_LEN];
	uint8_t path_class;			/* enum pcitopo_path_class */
	uint8_t hops;
	char common[PCITOPO_ADDR_LEN];		/* "" when absent */
	char bottleneck[PCITOPO_ADDR_LEN];
	uint32_t bottleneck_bw;			/* MB/s */
	uint32_t flags;				/* PCITOPO_PATH_F_* */
};

struct pt_id {
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;				/* enum pcitopo_kind */
};

/* A consistent snapshot: every object carries the same generation. */
struct pt_topology {
	struct pt_summary summary;
	struct pt_device *devices;		/* PCI bus order after pt_topology_sort() */
	size_t n_devices;
	struct pt_path *paths;
	size_t n_paths;
	uint64_t generation;
};

struct pt_event {
	uint8_t type;				/* PCITOPO_CMD_*_NTF */
	uint64_t generation;
	struct pt_device device;		/* DEVICE_ADD/DEL, LINK_CHANGE */
	struct pt_summary summary;		/* LAYOUT_CHANGE */
};

/* Growable arrays, used while a dump runs. Return 0 or -ENOMEM. */
int pt_topology_add_device(struct pt_topology *t, const struct pt_device *d);
int pt_topology_add_path(struct pt_topology *t, const struct pt_path *p);
void pt_topology_free(struct pt_topology *t);	/* frees the arrays, zeroes *t */

/*
 * Sort key of an address "DDDD:BB:DD.F" or host bridge "DDDD:BB": domain,
 * bus, devfn in PCI bus order. Returns 0 or -EINVAL.
 */
int pt_addr_key(const char *addr, uint64_t *key);
/* Two addresses (or host bridges) in PCI bus order, <0, 0, >0 as strcmp();
 * unparsable ones last, by text, so that the order stays total. */
int pt_addr_cmp(const char *a, const char *b);
/* Devices by address in PCI bus order, paths by (a, b) in bus order. */
void pt_topology_sort(struct pt_topology *t);

const struct pt_device *pt_topology_find(const struct pt_topology *t,
					 const char *addr);
const struct pt_path *pt_topology_find_path(const struct pt_topology *t,
					    const char *a, const char *b);

/*
 * Whether ACS on this device redirects P2P traffic: core's one definition,
 * ptc_acs_redirect() (a root or downstream port enabling RR, CR or EC that its
 * ACS capability implements).
 */
bool pt_device_acs_redirect(const struct pt_device *d);
/* Whether the device has an upstream link: the module's PRESENT flag, else
 * (an older module, a saved tree) a link speed. */
bool pt_device_has_link(const struct pt_device *d);
/* Whether the device is a downstream-facing port (root or switch downstream). */
bool pt_device_is_dsp(const struct pt_device *d);

#endif /* PCITOPO_LIB_MODEL_H */
