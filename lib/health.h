/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: what sysfs says about a PCI function's health, beyond the
 * model: its IOMMU group and that group's type, its AER counters, its Max
 * Payload Size and its DPC status. Read from ROOT ("/sys", or a tree saved by
 * pt_sysfs_snapshot()), so that `topoctl doctor` judges saved trees as it
 * judges the running machine:
 *   ROOT/bus/pci/devices/ADDR/iommu_group      -> .../kernel/iommu_groups/N
 *   ROOT/kernel/iommu_groups/N/type            "identity", "DMA", "DMA-FQ",
 *                                              "blocked", "unmanaged",
 *                                              "unknown" (drivers/iommu/
 *                                              iommu.c, group type)
 *   ROOT/bus/pci/devices/ADDR/aer_dev_{correctable,nonfatal,fatal}
 *                                              "NAME count" lines, TOTAL_...
 *   ROOT/bus/pci/devices/ADDR/config           Device Control (PCIe cap +
 *                                              0x08) bits 7:5, DPC (ext. cap
 *                                              0x1d) status (+0x08) bit 0
 * Nothing prints; absent files leave their fields at "unknown". Files are
 * read through rfile.h: regular files only, one page at most (config 4 KiB).
 */
#ifndef PCITOPO_LIB_HEALTH_H
#define PCITOPO_LIB_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

enum pt_aer_kind { PT_AER_COR, PT_AER_NONFATAL, PT_AER_FATAL, PT_AER_KINDS };

struct pt_health {
	bool present;			/* ROOT/bus/pci/devices/ADDR exists */
	int iommu_group;		/* -1: no iommu_group link */
	char iommu_type[16];		/* the group's type, "" if unreadable */
	int iommu_type_err;		/* 0, or -errno reading it: -ENOENT
					 * where the kernel has no such file */
	bool has_aer[PT_AER_KINDS];	/* the aer_dev_* file was read */
	uint64_t aer_total[PT_AER_KINDS];	/* its TOTAL_ line */
	char aer_detail[PT_AER_KINDS][160];	/* "BadTLP 3, Timeout 1" */
	int pcie_cap;			/* config offset of the PCIe cap, -1 */
	int mps;			/* bytes, DevCtl bits 7:5; -1 unknown */
	int mps_sup;			/* bytes, DevCap bits 2:0; -1 unknown */
	int dpc_cap;			/* config offset of DPC, -1 none */
	uint16_t dpc_status;		/* DPC Status register */
};

#define PT_DPC_TRIGGERED	0x0001	/* DPC Status: Trigger Status */

/* The health of ADDR ("DDDD:BB:DD.F") under ROOT (NULL: "/sys"). Returns 0,
 * -ENOENT when the device is not in the tree (h->present false), or
 * -PT_ENOTREG (rfile.h) when one of its files is there but no regular file,
 * which pt_sysfs_last_error() then names. */
int pt_health_read(const char *root, const char *addr, struct pt_health *h);

/* The file names, for evidence: "aer_dev_correctable" ... */
const char *pt_aer_file(enum pt_aer_kind k);

/* Whether ROOT/kernel/iommu_groups holds any group: an IOMMU is on. */
bool pt_iommu_enabled(const char *root);

#endif /* PCITOPO_LIB_HEALTH_H */
