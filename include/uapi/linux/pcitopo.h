/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * pcitopo: PCIe switch ports, links and GPU P2P paths of a GPU server.
 *
 * This header is the whole kernel/user ABI of pcitopo.ko. The module, topod,
 * topoctl and the tests include this one file; there is no other copy.
 *
 * Generic netlink family PCITOPO_GENL_NAME ("pcitopo"), version
 * PCITOPO_GENL_VERSION. Attributes, never binary structs. Every request
 * attribute is validated by a policy; every error is an errno plus an
 * extended ACK message that names the problem.
 *
 * Devices are named by their PCI address as the kernel prints it,
 * "DDDD:BB:DD.F" (PCITOPO_A_DEV_ADDR and friends, NUL-terminated strings).
 * Host bridges are named "DDDD:BB" (domain and root bus number).
 *
 * PCITOPO_CMD_GET_SUMMARY (do)
 *   Request:  nothing.
 *   Reply:    PCITOPO_A_GENERATION, PCITOPO_A_LAYOUT, PCITOPO_A_LAYOUT_REASON,
 *             PCITOPO_A_COUNT_* .
 *
 * PCITOPO_CMD_GET_DEVICE (do, dump)
 *   do:       PCITOPO_A_DEV_ADDR selects one device; -ENODEV if unknown.
 *   dump:     every port and every endpoint of interest, parents first.
 *   Reply:    one message per device carrying PCITOPO_A_GENERATION and the
 *             PCITOPO_A_DEV_* attributes (those that do not apply are absent,
 *             e.g. PCITOPO_A_DEV_PARENT on a root bus device).
 *
 * PCITOPO_CMD_GET_PATH (do, dump)
 *   do:       PCITOPO_A_PATH_A and PCITOPO_A_PATH_B name two endpoints of
 *             interest; -ENODEV if either is unknown.
 *   dump:     every ordered pair (A, B), A != B, where at least one side is a
 *             GPU and the other a GPU, NIC or NVMe device. An optional
 *             PCITOPO_A_PATH_A restricts the dump to paths from that device.
 *   Reply:    PCITOPO_A_GENERATION and the PCITOPO_A_PATH_* attributes.
 *
 * Dumps are consistent per generation: if the topology changes while a dump
 * is in progress the dump is marked NLM_F_DUMP_INTR; userspace retries.
 *
 * PCITOPO_CMD_DETACH (do, CAP_NET_ADMIN in the caller's netns, GENL_ADMIN_PERM)
 *   PCITOPO_A_DEV_ADDR names a downstream-facing port (root port or switch
 *   downstream port). Every device below it is stopped and removed under the
 *   PCI rescan/remove lock, as a sysfs "remove" of each child would do.
 *   -EINVAL (with extack) if the device is not a downstream-facing port.
 *
 * PCITOPO_CMD_RESCAN (do, admin)
 *   PCITOPO_A_DEV_ADDR names a bridge; the bus below it is rescanned under the
 *   PCI rescan/remove lock. Without PCITOPO_A_DEV_ADDR every root bus is
 *   rescanned.
 *
 * PCITOPO_CMD_REFRESH (do, admin)
 *   Re-read link status and ACS control of every device now. Reads never
 *   refresh as a side effect (link speed of an idle GPU changes without any
 *   PCI bus event, so userspace asks for a refresh when it wants one).
 *   Reply: the summary, as PCITOPO_CMD_GET_SUMMARY.
 *
 * PCITOPO_CMD_ADD_ID, PCITOPO_CMD_DEL_ID (do, admin)
 *   PCITOPO_A_ID_VENDOR, PCITOPO_A_ID_DEVICE and (ADD only, optional,
 *   default PCITOPO_KIND_GPU) PCITOPO_A_ID_KIND: treat devices with that ID
 *   as endpoints of that kind, on top of the class-code rules. -EEXIST,
 *   -ENOENT and -ENOSPC (table of PCITOPO_MAX_EXTRA_IDS full) as expected.
 *
 * PCITOPO_CMD_GET_ID (dump)
 *   Reply: one message per extra ID (PCITOPO_A_ID_*).
 *
 * Notifications, multicast group PCITOPO_MCGRP_EVENTS ("events"):
 *   PCITOPO_CMD_DEVICE_ADD_NTF   a device appeared (PCITOPO_A_DEV_*)
 *   PCITOPO_CMD_DEVICE_DEL_NTF   a device went away (PCITOPO_A_DEV_ADDR and
 *                                the last known PCITOPO_A_DEV_* it had)
 *   PCITOPO_CMD_LINK_CHANGE_NTF  a link's speed, width or state changed
 *                                (PCITOPO_A_DEV_*, new figures)
 *   PCITOPO_CMD_LAYOUT_CHANGE_NTF the detected layout changed (summary)
 *   Each carries PCITOPO_A_GENERATION of the model that raised it. Events of
 *   one change share a generation and precede the next change's events.
 *
 * The generation starts at 1 on load and grows by one on every change of
 * the model (devices, links, ACS, extra IDs). It is never 0.
 */
#ifndef _UAPI_LINUX_PCITOPO_H
#define _UAPI_LINUX_PCITOPO_H

#define PCITOPO_GENL_NAME		"pcitopo"
#define PCITOPO_GENL_VERSION		1
#define PCITOPO_MCGRP_EVENTS		"events"

/* Longest PCI address string, "DDDD:BB:DD.F" with a 16-bit or wider domain. */
#define PCITOPO_ADDR_LEN		16
/* Longest layout reason, NUL included. */
#define PCITOPO_REASON_LEN		128
/* Extra vendor:device IDs an admin may add. */
#define PCITOPO_MAX_EXTRA_IDS		32

enum pcitopo_cmd {
	PCITOPO_CMD_UNSPEC,
	PCITOPO_CMD_GET_SUMMARY,
	PCITOPO_CMD_GET_DEVICE,
	PCITOPO_CMD_GET_PATH,
	PCITOPO_CMD_DETACH,
	PCITOPO_CMD_RESCAN,
	PCITOPO_CMD_REFRESH,
	PCITOPO_CMD_ADD_ID,
	PCITOPO_CMD_DEL_ID,
	PCITOPO_CMD_GET_ID,
	PCITOPO_CMD_DEVICE_ADD_NTF,
	PCITOPO_CMD_DEVICE_DEL_NTF,
	PCITOPO_CMD_LINK_CHANGE_NTF,
	PCITOPO_CMD_LAYOUT_CHANGE_NTF,

	__PCITOPO_CMD_MAX,
	PCITOPO_CMD_MAX = __PCITOPO_CMD_MAX - 1
};

enum pcitopo_attr {
	PCITOPO_A_UNSPEC,
	PCITOPO_A_PAD,
	PCITOPO_A_GENERATION,		/* u64 */

	/* summary */
	PCITOPO_A_LAYOUT,		/* u8, enum pcitopo_layout */
	PCITOPO_A_LAYOUT_REASON,	/* string, < PCITOPO_REASON_LEN */
	PCITOPO_A_COUNT_DEVICES,	/* u32: ports and endpoints of interest */
	PCITOPO_A_COUNT_GPUS,		/* u32 */
	PCITOPO_A_COUNT_NICS,		/* u32 */
	PCITOPO_A_COUNT_NVMES,		/* u32 */
	PCITOPO_A_COUNT_SWITCHES,	/* u32: switch upstream ports */
	PCITOPO_A_COUNT_ROOT_PORTS,	/* u32 */
	PCITOPO_A_COUNT_NUMA_NODES,	/* u32: distinct known nodes of GPUs */
	PCITOPO_A_COUNT_PATHS,		/* u32: ordered pairs in the path table */

	/* device */
	PCITOPO_A_DEV_ADDR,		/* string "DDDD:BB:DD.F" */
	PCITOPO_A_DEV_ROLE,		/* u8, enum pcitopo_role */
	PCITOPO_A_DEV_KIND,		/* u8, enum pcitopo_kind */
	PCITOPO_A_DEV_VENDOR,		/* u16 */
	PCITOPO_A_DEV_DEVICE,		/* u16 */
	PCITOPO_A_DEV_CLASS,		/* u32, 24-bit class code */
	PCITOPO_A_DEV_PARENT,		/* string: upstream bridge, absent on a root bus */
	PCITOPO_A_DEV_ROOT_PORT,	/* string: root port above (itself for a root port) */
	PCITOPO_A_DEV_SWITCH,		/* string: upstream port of the switch the
					 * device is part of (ports) or sits on
					 * (endpoints); absent if none */
	PCITOPO_A_DEV_HOST_BRIDGE,	/* string "DDDD:BB" */
	PCITOPO_A_DEV_NUMA_NODE,	/* s32, -1 when the firmware gave none */
	PCITOPO_A_DEV_LINK_SPEED,	/* u32, MT/s, current (2500 .. 64000) */
	PCITOPO_A_DEV_LINK_WIDTH,	/* u8, lanes, current */
	PCITOPO_A_DEV_LINK_MAX_SPEED,	/* u32, MT/s, best both ends support */
	PCITOPO_A_DEV_LINK_MAX_WIDTH,	/* u8, lanes, best both ends support */
	PCITOPO_A_DEV_LINK_BW,		/* u32, MB/s each way after encoding, current */
	PCITOPO_A_DEV_LINK_MAX_BW,	/* u32, MB/s each way after encoding, max */
	PCITOPO_A_DEV_LINK_FLAGS,	/* u32, PCITOPO_LINK_F_* */
	PCITOPO_A_DEV_SLOT,		/* u32, physical slot number, absent if none */
	PCITOPO_A_DEV_HOTPLUG,		/* u8, 1 if the port is hotplug capable */
	PCITOPO_A_DEV_ACS_CAP,		/* u16, ACS capability register */
	PCITOPO_A_DEV_ACS_CTRL,		/* u16, ACS control register */

	/* path */
	PCITOPO_A_PATH_A,		/* string, endpoint address */
	PCITOPO_A_PATH_B,		/* string, endpoint address */
	PCITOPO_A_PATH_CLASS,		/* u8, enum pcitopo_path_class */
	PCITOPO_A_PATH_HOPS,		/* u8, PCIe ports crossed */
	PCITOPO_A_PATH_COMMON,		/* string, closest common bridge; absent
					 * when the paths meet only at or above
					 * a host bridge */
	PCITOPO_A_PATH_BOTTLENECK,	/* string, the device whose upstream link
					 * is the slowest on the path */
	PCITOPO_A_PATH_BOTTLENECK_BW,	/* u32, MB/s, current, of that link */
	PCITOPO_A_PATH_FLAGS,		/* u32, PCITOPO_PATH_F_* */

	/* extra IDs */
	PCITOPO_A_ID_VENDOR,		/* u16 */
	PCITOPO_A_ID_DEVICE,		/* u16 */
	PCITOPO_A_ID_KIND,		/* u8, enum pcitopo_kind (GPU, NIC, NVME) */

	__PCITOPO_A_MAX,
	PCITOPO_A_MAX = __PCITOPO_A_MAX - 1
};

/* What a device is in the PCIe tree. */
enum pcitopo_role {
	PCITOPO_ROLE_UNKNOWN,
	PCITOPO_ROLE_ROOT_PORT,		/* PCIe root port */
	PCITOPO_ROLE_UPSTREAM,		/* switch upstream port */
	PCITOPO_ROLE_DOWNSTREAM,	/* switch downstream port */
	PCITOPO_ROLE_BRIDGE,		/* any other bridge (PCI-PCI, PCIe-PCI) */
	PCITOPO_ROLE_ENDPOINT,		/* endpoint of interest */
	__PCITOPO_ROLE_MAX,
};

/*
 * What an endpoint is used for. Ports are PCITOPO_KIND_PORT. The rule that
 * decides (vendor, class code, the bridge above, extra IDs) is
 * ptc_endpoint_kind() in core/ptc_kind.c, shared by the module and the
 * sysfs fallback.
 */
enum pcitopo_kind {
	PCITOPO_KIND_NONE,
	PCITOPO_KIND_PORT,
	PCITOPO_KIND_GPU,	/* NVIDIA display/3D, AMD/Intel accelerators,
				 * class 0x1200, or extra ID
				 */
	PCITOPO_KIND_NIC,	/* class 0x02xx, or extra ID */
	PCITOPO_KIND_NVME,	/* class 0x0108, or extra ID */
	PCITOPO_KIND_DISPLAY,	/* a display controller that is no GPU: a BMC's
				 * or on-board VGA; never in a path
				 */
	__PCITOPO_KIND_MAX,
};

/* Link state, on the upstream-facing end (endpoint, switch upstream port). */
enum pcitopo_link_flags {
	PCITOPO_LINK_F_PRESENT		= 1U << 0, /* the device has an upstream PCIe link */
	PCITOPO_LINK_F_ACTIVE		= 1U << 1, /* data link layer active / trained */
	PCITOPO_LINK_F_SPEED_DOWN	= 1U << 2, /* speed below what both ends support:
						    * often power saving on an idle GPU */
	PCITOPO_LINK_F_WIDTH_DOWN	= 1U << 3, /* width below what both ends support:
						    * a fault (lane, riser, seating) */
};

/* Mirrors `nvidia-smi topo -m`'s legend. */
enum pcitopo_path_class {
	PCITOPO_PATH_UNKNOWN,
	PCITOPO_PATH_X,		/* the same device */
	PCITOPO_PATH_PIX,	/* at most a single PCIe bridge (one switch) */
	PCITOPO_PATH_PXB,	/* multiple PCIe bridges, no host bridge */
	PCITOPO_PATH_PHB,	/* a PCIe host bridge (root complex) */
	PCITOPO_PATH_NODE,	/* between host bridges within a NUMA node */
	PCITOPO_PATH_SYS,	/* across the SMP interconnect between NUMA nodes */
	__PCITOPO_PATH_MAX,
};

enum pcitopo_path_flags {
	/* A downstream port below the common bridge has ACS P2P Request or
	 * Completion Redirect enabled: P2P goes up to the root complex. */
	PCITOPO_PATH_F_ACS_REDIRECT	= 1U << 0,
	/* A NUMA node is unknown (-1) on either side: NODE vs SYS is a guess. */
	PCITOPO_PATH_F_NUMA_UNKNOWN	= 1U << 1,
	/* A link on the path is narrower than both its ends support. */
	PCITOPO_PATH_F_WIDTH_DOWN	= 1U << 2,
};

enum pcitopo_layout {
	PCITOPO_LAYOUT_UNKNOWN,
	PCITOPO_LAYOUT_BALANCE,	/* one switch of GPUs under each of two CPUs */
	PCITOPO_LAYOUT_COMMON,	/* GPU switches under two root ports of one CPU */
	PCITOPO_LAYOUT_CASCADE,	/* switches cascaded, all GPUs under one root port */
	PCITOPO_LAYOUT_OTHER,	/* none of the above; the reason says why */
	__PCITOPO_LAYOUT_MAX,
};

#endif /* _UAPI_LINUX_PCITOPO_H */
