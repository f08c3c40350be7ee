/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * pcitopo core: what a reader collects about one PCI function, and the one
 * decoder that turns it into the input fields of a struct ptc_node.
 *
 * There are two readers: pcitopo.ko from struct pci_dev
 * (kmod/pcitopo_walk.c) and libpcitopo from a sysfs tree through libpci
 * (lib/sysfs.c). Each copies registers and facts into a struct ptc_raw as it
 * reads them and decides nothing; every rule (role, kind, which port types
 * implement the link and slot registers, which side of a link reports it,
 * Data Link Layer Link Active, the all-ones a device that does not answer
 * reads as) is ptc_decode.c's, so the module and the fallback cannot
 * disagree.
 *
 * A reader may fill the record in two steps: the identity, the PCIe
 * Capabilities registers (exp.present, exp.flags, up.present, up.flags) and
 * the extra ID's kind are enough for ptc_raw_kind(), which says whether the
 * device is of interest at all; only then need the other registers be read.
 */
#ifndef PCITOPO_CORE_PTC_RAW_H
#define PCITOPO_CORE_PTC_RAW_H

#include "ptc.h"

/* PCI Express capability registers (as PCI_EXP_* in <uapi/linux/pci_regs.h>) */
#define PTC_EXP_FLAGS_TYPE	0x00f0	/* Device/Port Type */
#define PTC_EXP_FLAGS_SLOT	0x0100	/* Slot Implemented */
#define PTC_EXP_LNKCAP_SLS	0x0000000f
#define PTC_EXP_LNKCAP_MLW	0x000003f0
#define PTC_EXP_LNKCAP_DLLLARC	0x00100000	/* DLL Link Active Reporting */
#define PTC_EXP_LNKSTA_CLS	0x000f
#define PTC_EXP_LNKSTA_NLW	0x03f0
#define PTC_EXP_LNKSTA_DLLLA	0x2000		/* DLL Link Active */
#define PTC_EXP_SLTCAP_HPC	0x00000040	/* Hot-Plug Capable */
#define PTC_EXP_SLTCAP_PSN	0xfff80000	/* Physical Slot Number */

/* Device/Port Type values (PCI_EXP_TYPE_*) */
#define PTC_EXP_TYPE_ENDPOINT		0x0
#define PTC_EXP_TYPE_LEG_END		0x1
#define PTC_EXP_TYPE_ROOT_PORT		0x4
#define PTC_EXP_TYPE_UPSTREAM		0x5
#define PTC_EXP_TYPE_DOWNSTREAM		0x6
#define PTC_EXP_TYPE_PCI_BRIDGE		0x7	/* PCIe to PCI/PCI-X bridge */
#define PTC_EXP_TYPE_PCIE_BRIDGE	0x8	/* PCI/PCI-X to PCIe bridge */

/* The PCI Express capability of one function, registers as read. */
struct ptc_raw_exp {
	bool present;		/* it has one (pci_is_pcie()) */
	u16 flags;		/* PCIe Capabilities register; the kernel's
				 * pcie_caps_reg(), port type fixups applied
				 */
	u32 lnkcap;		/* Link Capabilities, 0 if not read */
	u16 lnksta;		/* Link Status, 0 if not read */
};

struct ptc_raw {
	u32 domain;
	u8 bus;
	u8 devfn;
	u16 vendor;
	u16 device;
	u32 class;		/* 24-bit class code, as the kernel keeps it
				 * (quirks applied: the sysfs class file)
				 */
	bool bridge;		/* has a bus below it: dev->subordinate, a
				 * type 1 or 2 header
				 */
	u8 extra_kind;		/* kind of its extra ID, PCITOPO_KIND_NONE */
	struct ptc_raw_exp exp;
	u32 sltcap;		/* Slot Capabilities, 0 if not read */
	u16 acs_cap;		/* ACS Capability register, 0 without ACS */
	u16 acs_ctrl;		/* ACS Control register, 0 without ACS */
	bool hotplug_bridge;	/* the PCI core's is_hotplug_bridge, which
				 * ACPI may set too; sysfs does not show it
				 */
	s32 numa_node;		/* -1 if unknown */
	bool has_socket;
	u16 socket;		/* CPU package of the node's first CPU */
	u8 root_bus;		/* number of the root bus above */
	bool has_up;		/* a bridge above it (not on a root bus) */
	struct ptc_raw_exp up;	/* that bridge's PCIe capability */
};

/*
 * Role of the function: ENDPOINT, or for a bridge its PCIe port type (root
 * port, switch upstream or downstream port; BRIDGE for anything else).
 */
u8 ptc_raw_role(const struct ptc_raw *r);

/*
 * Kind: PORT for a bridge, else ptc_endpoint_kind() of its IDs, class, extra
 * ID and the bridge above; PCITOPO_KIND_NONE if it is not of interest.
 */
u8 ptc_raw_kind(const struct ptc_raw *r);

/*
 * Fill every input field of *n from *r, parent PTC_NONE (the reader links
 * the tree). Returns false, *n untouched, if the function is not of interest
 * (ptc_raw_kind() is PCITOPO_KIND_NONE).
 */
bool ptc_raw_decode(const struct ptc_raw *r, struct ptc_node *n);

#endif /* PCITOPO_CORE_PTC_RAW_H */
