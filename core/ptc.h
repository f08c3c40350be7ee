/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * pcitopo core: the pure logic of pcitopo, with no I/O.
 *
 * Link bandwidth math, endpoint classification by class code, path classes
 * in the terms of `nvidia-smi topo -m` (and the walk of drivers/pci/p2pdma.c,
 * which Debian's kernel does not build), and layout detection.
 *
 * The same files compile into pcitopo.ko and into the userspace unit tests
 * and benchmarks (the tools/testing/vma approach): ptc_types.h provides the
 * few kernel types in userspace. Nothing here allocates, locks or prints.
 *
 * A topology is a flat array of nodes: every bridge and every endpoint of
 * interest, each naming its upstream bridge by index. The caller fills the
 * "input" fields, calls ptc_resolve() once, then asks for paths and the
 * layout as often as it likes.
 */
#ifndef PCITOPO_CORE_PTC_H
#define PCITOPO_CORE_PTC_H

#include "ptc_types.h"
#include <linux/pcitopo.h>

#define PTC_NONE	(-1)

/*
 * Most bridges above any node. ptc_resolve() rejects a deeper tree with
 * -EINVAL, which also catches parent cycles; ptc_path() walks with fixed-size
 * arrays of this many entries. Real servers stay below 10 (root port, two
 * cascaded switches, a split Broadcom level: 7).
 */
#define PTC_MAX_DEPTH	32

/* One PCIe link figure: speed in MT/s (2500 .. 64000), width in lanes. */
struct ptc_link {
	u32 speed;
	u8 width;
};

struct ptc_node {
	/* --- input, filled by the caller --- */
	u32 domain;
	u8 bus;
	u8 devfn;
	s32 parent;		/* index of the upstream bridge, PTC_NONE on a root bus */
	u8 role;		/* enum pcitopo_role */
	u16 vendor;
	u16 device;
	u32 class;		/* 24-bit class code */
	u8 kind;		/* enum pcitopo_kind; PCITOPO_KIND_NONE: let ptc_resolve
				 * decide from role, IDs, class and parent
				 * (ptc_endpoint_kind, no extra IDs)
				 */
	s32 numa_node;		/* -1 if unknown */
	bool has_socket;	/* socket known: the CPU package of the node's
				 * first CPU (AMD's NPS2/NPS4 and Intel's SNC
				 * put several NUMA nodes on one socket)
				 */
	u16 socket;		/* physical package id, if has_socket */
	u8 root_bus;		/* number of the root bus above (host bridge id with domain) */
	bool has_link;		/* has a PCIe capability with a link (not an RCiEP,
				 * not a root port: a root port's link is its child's)
				 */
	struct ptc_link cur;	/* LnkSta of this device */
	struct ptc_link cap;	/* LnkCap of this device */
	bool link_active;	/* DLL link active, or trained when not reported */
	u16 acs_cap;		/* ACS capability register, 0 if no ACS */
	u16 acs_ctrl;		/* ACS control register */
	s32 slot;		/* physical slot number, -1 if none */
	bool hotplug;		/* hotplug capable port */

	/* --- derived by ptc_resolve() --- */
	s32 root_port;		/* index of the root port above (or itself), PTC_NONE */
	s32 sw;			/* index of the upstream port of the switch this node is
				 * part of (ports) or sits on (endpoints), PTC_NONE
				 */
	s32 bridge_id;		/* index standing for "one PCIe bridge" in path counting:
				 * a switch's upstream port (a nested Broadcom level
				 * folded into its parent), or the bridge itself
				 */
	u8 depth;		/* number of bridges above */
	struct ptc_link link_max;	/* best figure both ends of the upstream link support */
	u32 link_bw;		/* MB/s, current, 0 without a link */
	u32 link_max_bw;	/* MB/s at link_max */
	u32 link_flags;		/* PCITOPO_LINK_F_* */
};

struct ptc_topo {
	struct ptc_node *nodes;
	u32 count;
};

struct ptc_path {
	u8 class;		/* enum pcitopo_path_class */
	u8 hops;		/* PCIe ports crossed between the two endpoints */
	s32 common;		/* closest common bridge, PTC_NONE if none */
	s32 bottleneck;		/* node whose upstream link is slowest, PTC_NONE if none */
	u32 bottleneck_bw;	/* MB/s, current */
	u32 flags;		/* PCITOPO_PATH_F_* */
};

struct ptc_layout {
	u8 layout;		/* enum pcitopo_layout */
	u32 gpus, nics, nvmes, switches, root_ports, numa_nodes;
	char reason[PCITOPO_REASON_LEN];
};

/*
 * Whether a role is a bridge, i.e. may be a parent: root port, switch
 * upstream or downstream port, or another bridge.
 */
static inline bool ptc_role_is_bridge(u8 role)
{
	return role == PCITOPO_ROLE_ROOT_PORT || role == PCITOPO_ROLE_UPSTREAM ||
	       role == PCITOPO_ROLE_DOWNSTREAM || role == PCITOPO_ROLE_BRIDGE;
}

/*
 * Effective bandwidth of a link, one direction, in MB/s, after line encoding:
 * 8b/10b up to 5 GT/s, 128b/130b at 8, 16 and 32 GT/s, 242/256 FLIT at 64 GT/s.
 * 0 for an unknown speed or zero width.
 */
u32 ptc_link_bw(u32 speed_mts, u8 width);

/*
 * Speed in MT/s for a PCIe "Current/Max Link Speed" field value (1 = 2.5 GT/s
 * .. 6 = 64 GT/s); 0 if unknown.
 */
u32 ptc_speed_from_lnk(u8 field);

/* The generation (1..6) of a speed in MT/s, 0 if unknown. */
u8 ptc_speed_gen(u32 speed_mts);

/*
 * Kind of an endpoint: GPU, NIC, NVME, DISPLAY or NONE (not of interest),
 * from its vendor ID, class code, the kind its extra ID gives
 * (PCITOPO_KIND_NONE if it has none) and whether it sits on a conventional
 * PCI bus (its upstream bridge is a PCI or PCIe-to-PCI bridge, role
 * PCITOPO_ROLE_BRIDGE). The whole rule, with a reason per case, is in
 * ptc_kind.c.
 */
u8 ptc_endpoint_kind(u16 vendor, u32 class, u8 extra_kind,
		     bool behind_pci_bridge);

/*
 * Whether two folded Broadcom switch levels should count as one: true for the
 * switch IDs NCCL flattens (Broadcom PEX Gen4, 1000:c010).
 */
bool ptc_switch_is_split_level(u16 vendor, u16 device);

/*
 * Fill the derived fields. Returns 0, or -EINVAL if a parent index is out of
 * range, a node is its own ancestor, a parent is not a bridge, a node has
 * more than PTC_MAX_DEPTH bridges above it, or a role or kind is out of
 * range. On -EINVAL nothing is written. Nodes may come in any order. The
 * exact meaning of each derived field is documented in ptc_resolve.c.
 */
int ptc_resolve(struct ptc_topo *t);

/*
 * Whether the path table holds the pair (a, b): a != b, both endpoints, one a
 * GPU and the other a GPU, NIC or NVMe device.
 */
bool ptc_pair_of_interest(const struct ptc_topo *t, u32 a, u32 b);

/*
 * The path between nodes a and b (endpoints) of a resolved topology. a == b
 * gives PCITOPO_PATH_X; an index out of range PCITOPO_PATH_UNKNOWN. Classes,
 * hops, bottleneck and flags are defined in ptc_path.c. O(depth).
 */
void ptc_path(const struct ptc_topo *t, u32 a, u32 b, struct ptc_path *out);

/*
 * Detect the layout from the GPU set, with counts and a reason that names what
 * was found, e.g. "8 GPUs under 1 root port, no cascaded switch".
 */
void ptc_layout(const struct ptc_topo *t, struct ptc_layout *out);

/*
 * ACS Control/Capability bits (as PCI_ACS_RR, PCI_ACS_CR and PCI_ACS_EC in
 * <uapi/linux/pci_regs.h>) that send P2P traffic up to the root complex.
 */
#define PTC_ACS_RR		0x0004	/* P2P Request Redirect */
#define PTC_ACS_CR		0x0008	/* P2P Completion Redirect */
#define PTC_ACS_EC		0x0020	/* P2P Egress Control */
#define PTC_ACS_REDIRECT_MASK	(PTC_ACS_RR | PTC_ACS_CR | PTC_ACS_EC)

/*
 * The one definition of "ACS redirect" (ptc_acs.c): a root or downstream port
 * (role) enabling RR, CR or EC in its ACS control register (ctrl) that its
 * ACS capability register (cap) implements. _bits() gives which of the three.
 */
u16 ptc_acs_redirect_bits(u8 role, u16 cap, u16 ctrl);
bool ptc_acs_redirect(u8 role, u16 cap, u16 ctrl);

/* The bit of a netlink attribute (enum pcitopo_attr) in a set of them. */
#define PTC_ATTR(attr)		((u64)1 << (attr))

/*
 * Which attributes the message of one device of a resolved topology carries
 * (ptc_dev_attrs.c): PTC_ATTR() of PCITOPO_A_GENERATION and each
 * PCITOPO_A_DEV_*. The module sends exactly these; libpcitopo's sysfs source
 * reports exactly these as present.
 */
u64 ptc_dev_attrs(const struct ptc_node *n);

/* Short names: "PIX", "balance", "downstream", "gpu"; "?" if out of range. */
const char *ptc_class_name(u8 class);
const char *ptc_layout_name(u8 layout);
const char *ptc_role_name(u8 role);
const char *ptc_kind_name(u8 kind);
/*
 * The switchable layouts: those a server can be switched to (platform
 * files, topod's SetLayout, the node labels, Slurm's features), balance,
 * common and cascade, in that order; not "unknown" nor "other", which only
 * the detection reports. The one list of them (ptc_names.c): every caller
 * walks it with
 *
 *	for (l = ptc_layout_first(); l; l = ptc_layout_next(l))
 *
 * so that a new layout is known to all of them at once. (A for_each macro
 * would reuse its argument, which checkpatch --strict refuses.)
 * ptc_layout_next(): the switchable layout after l, PCITOPO_LAYOUT_UNKNOWN
 * (0) after the last or for a layout that is not switchable.
 */
u8 ptc_layout_first(void);
u8 ptc_layout_next(u8 l);
/*
 * How many there are: the length of that list (its definition is sized by
 * it, so the two cannot differ), for arrays with one slot a layout.
 */
#define PTC_NSWITCHABLE	3
/* Whether l is one of them (false for unknown, other, out of range). */
bool ptc_layout_switchable(u8 l);
/*
 * Their names joined by sep ("balance, common, cascade" with ", "), into
 * buf, for messages that say what a layout may be; buf (always
 * terminated, cut if short).
 */
const char *ptc_layout_list(char *buf, size_t len, const char *sep);
/*
 * The switchable layout named "balance", "common" or "cascade".
 * PCITOPO_LAYOUT_UNKNOWN for any other name, "unknown" and "other"
 * included, and for NULL.
 */
u8 ptc_layout_by_name(const char *name);

/* Format "DDDD:BB:DD.F" into buf (at least PCITOPO_ADDR_LEN bytes). */
void ptc_addr_format(char *buf, size_t len, u32 domain, u8 bus, u8 devfn);
/*
 * Parse "DDDD:BB:DD.F" (domain optional, "BB:DD.F" means domain 0; at most 7
 * domain digits, so the result formats into PCITOPO_ADDR_LEN). Returns 0 or
 * -EINVAL (outputs untouched).
 */
int ptc_addr_parse(const char *s, u32 *domain, u8 *bus, u8 *devfn);

/*
 * Extra IDs (ptc_ids.c holds the grammar): "VVVV:DDDD[:KIND]", exactly four
 * hex digits each, a colon or blanks between fields, KIND gpu (default),
 * nic or nvme, either case, white space around it ignored.
 */
struct ptc_extra_id {
	u16 vendor;
	u16 device;
	u8 kind;		/* PCITOPO_KIND_GPU, _NIC or _NVME */
};

/* The ID alone (sysfs remove_id, `id del`): a kind is an error. */
#define PTC_ID_NO_KIND		0x1

/* Where ptc_parse_ids() stopped: the item, white space trimmed. */
struct ptc_ids_pos {
	size_t off;		/* bytes from the start of the list */
	size_t len;
	u32 line;		/* 1-based */
};

/* "gpu", "nic" or "nvme" in either case, len bytes of s; 0 or -EINVAL. */
int ptc_parse_kind(const char *s, size_t len, u8 *kind);
/* One ID, len bytes of s; 0 or -EINVAL (out untouched). flags: PTC_ID_*. */
int ptc_parse_id(const char *s, size_t len, unsigned int flags,
		 struct ptc_extra_id *out);
/*
 * A list of IDs separated by commas or newlines, '#' to the end of a line a
 * comment, empty items skipped; add() is called for each ID in order.
 * Returns 0, -EINVAL for a malformed item, or the first non-zero return of
 * add(); on failure *bad (if not NULL) says which item.
 */
int ptc_parse_ids(const char *s, size_t len,
		  int (*add)(const struct ptc_extra_id *id, void *arg),
		  void *arg, struct ptc_ids_pos *bad);

#endif /* PCITOPO_CORE_PTC_H */
