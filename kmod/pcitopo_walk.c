// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo: read the PCI tree into the core's input fields.
 *
 * Every bridge (a pci_dev with a subordinate bus) and every endpoint whose
 * kind is GPU, NIC, NVMe or display (ptc_endpoint_kind()) becomes one
 * struct ptc_node. pci_walk_bus() visits a bridge before the devices below
 * it, so a node's parent always has a smaller index. Nothing here keeps a
 * pointer to a pci_dev: the nodes are copies.
 */
#define pr_fmt(fmt) "pcitopo: " fmt

#include <linux/bitfield.h>
#include <linux/pci.h>
#include <linux/topology.h>

#include "pcitopo_internal.h"

struct pcitopo_walk_ctx {
	struct ptc_node *nodes;
	u32 max;
	u32 count;
	const struct pcitopo_id_table *ids;
};

static u8 pcitopo_bridge_role(struct pci_dev *dev)
{
	if (!pci_is_pcie(dev))
		return PCITOPO_ROLE_BRIDGE;
	switch (pci_pcie_type(dev)) {
	case PCI_EXP_TYPE_ROOT_PORT:
		return PCITOPO_ROLE_ROOT_PORT;
	case PCI_EXP_TYPE_UPSTREAM:
		return PCITOPO_ROLE_UPSTREAM;
	case PCI_EXP_TYPE_DOWNSTREAM:
		return PCITOPO_ROLE_DOWNSTREAM;
	default:
		return PCITOPO_ROLE_BRIDGE;
	}
}

/* Whether the device has a PCIe link on its upstream side. */
static bool pcitopo_has_upstream_link(struct pci_dev *dev)
{
	if (!pci_is_pcie(dev))
		return false;
	switch (pci_pcie_type(dev)) {
	case PCI_EXP_TYPE_ENDPOINT:
	case PCI_EXP_TYPE_LEG_END:
	case PCI_EXP_TYPE_UPSTREAM:
	case PCI_EXP_TYPE_PCI_BRIDGE:
		return true;
	default:
		return false;
	}
}

static s32 pcitopo_walk_find(const struct pcitopo_walk_ctx *ctx,
			     struct pci_dev *dev)
{
	u32 domain = pci_domain_nr(dev->bus);
	s32 i = min(ctx->count, ctx->max);

	while (--i >= 0) {
		const struct ptc_node *n = &ctx->nodes[i];

		if (n->devfn == dev->devfn && n->bus == dev->bus->number &&
		    n->domain == domain)
			return i;
	}
	return PTC_NONE;
}

/*
 * Link figures from LnkCap and LnkSta; a device that does not answer
 * (all ones) reads as no link.
 */
static void pcitopo_read_link(struct pci_dev *dev, struct ptc_node *n)
{
	u32 lnkcap = 0;
	u16 lnksta = 0;

	pcie_capability_read_dword(dev, PCI_EXP_LNKCAP, &lnkcap);
	pcie_capability_read_word(dev, PCI_EXP_LNKSTA, &lnksta);
	if (lnkcap == ~0U)
		lnkcap = 0;
	if (lnksta == (u16)~0U)
		lnksta = 0;
	n->cap.speed = ptc_speed_from_lnk(FIELD_GET(PCI_EXP_LNKCAP_SLS, lnkcap));
	n->cap.width = FIELD_GET(PCI_EXP_LNKCAP_MLW, lnkcap);
	n->cur.speed = ptc_speed_from_lnk(FIELD_GET(PCI_EXP_LNKSTA_CLS, lnksta));
	n->cur.width = FIELD_GET(PCI_EXP_LNKSTA_NLW, lnksta);
	n->has_link = pcitopo_has_upstream_link(dev);
	n->link_active = n->has_link && n->cur.width > 0;
}

/* Data Link Layer Link Active of the port above, where it reports it. */
static void pcitopo_read_link_active(struct pci_dev *dev, struct ptc_node *n)
{
	struct pci_dev *port = pci_upstream_bridge(dev);
	u32 lnkcap = 0;
	u16 lnksta = 0;

	if (!n->has_link || !port || !pci_is_pcie(port))
		return;
	pcie_capability_read_dword(port, PCI_EXP_LNKCAP, &lnkcap);
	if (lnkcap == ~0U || !(lnkcap & PCI_EXP_LNKCAP_DLLLARC))
		return;
	pcie_capability_read_word(port, PCI_EXP_LNKSTA, &lnksta);
	if (lnksta != (u16)~0U)
		n->link_active = !!(lnksta & PCI_EXP_LNKSTA_DLLLA);
}

static void pcitopo_read_acs(struct pci_dev *dev, struct ptc_node *n)
{
	int pos = pci_find_ext_capability(dev, PCI_EXT_CAP_ID_ACS);

	if (!pos)
		return;
	pci_read_config_word(dev, pos + PCI_ACS_CAP, &n->acs_cap);
	pci_read_config_word(dev, pos + PCI_ACS_CTRL, &n->acs_ctrl);
	if (n->acs_cap == (u16)~0U) {
		n->acs_cap = 0;
		n->acs_ctrl = 0;
	}
}

static void pcitopo_read_slot(struct pci_dev *dev, struct ptc_node *n)
{
	u32 sltcap = 0;

	n->slot = -1;
	n->hotplug = dev->is_hotplug_bridge;
	if (n->role != PCITOPO_ROLE_ROOT_PORT &&
	    n->role != PCITOPO_ROLE_DOWNSTREAM)
		return;
	if (!(pcie_caps_reg(dev) & PCI_EXP_FLAGS_SLOT))
		return;
	pcie_capability_read_dword(dev, PCI_EXP_SLTCAP, &sltcap);
	if (sltcap == ~0U)
		return;
	n->slot = FIELD_GET(PCI_EXP_SLTCAP_PSN, sltcap);
	if (sltcap & PCI_EXP_SLTCAP_HPC)
		n->hotplug = true;
}

/*
 * The CPU socket of the device's NUMA node: the package of the node's first
 * CPU. Unknown for a node without CPUs, or without a node.
 */
static void pcitopo_read_socket(struct ptc_node *n)
{
	unsigned int cpu;

	if (n->numa_node < 0 || n->numa_node >= nr_node_ids)
		return;
	cpu = cpumask_first(cpumask_of_node(n->numa_node));
	if (cpu >= nr_cpu_ids)
		return;
	n->has_socket = true;
	n->socket = topology_physical_package_id(cpu);
}

static void pcitopo_walk_fill(struct pcitopo_walk_ctx *ctx, struct pci_dev *dev,
			      struct ptc_node *n, u8 role, u8 kind)
{
	struct pci_dev *up = pci_upstream_bridge(dev);
	struct pci_bus *root = dev->bus;

	while (!pci_is_root_bus(root))
		root = root->parent;

	memset(n, 0, sizeof(*n));
	n->domain = pci_domain_nr(dev->bus);
	n->bus = dev->bus->number;
	n->devfn = dev->devfn;
	n->parent = up ? pcitopo_walk_find(ctx, up) : PTC_NONE;
	n->role = role;
	n->vendor = dev->vendor;
	n->device = dev->device;
	n->class = dev->class;
	n->kind = kind;
	n->numa_node = dev_to_node(&dev->dev);
	pcitopo_read_socket(n);
	n->root_bus = root->number;
	if (pci_is_pcie(dev)) {
		pcitopo_read_link(dev, n);
		pcitopo_read_link_active(dev, n);
	}
	pcitopo_read_acs(dev, n);
	pcitopo_read_slot(dev, n);
}

static int pcitopo_walk_one(struct pci_dev *dev, void *data)
{
	struct pcitopo_walk_ctx *ctx = data;
	u8 role, kind;

	if (dev->subordinate) {
		role = pcitopo_bridge_role(dev);
		kind = PCITOPO_KIND_PORT;
	} else {
		struct pci_dev *up = pci_upstream_bridge(dev);

		role = PCITOPO_ROLE_ENDPOINT;
		kind = ptc_endpoint_kind(dev->vendor, dev->class,
					 pcitopo_ids_kind(ctx->ids, dev->vendor,
							  dev->device),
					 up && pcitopo_bridge_role(up) ==
					       PCITOPO_ROLE_BRIDGE);
		if (kind == PCITOPO_KIND_NONE)
			return 0;
	}
	if (ctx->count < ctx->max)
		pcitopo_walk_fill(ctx, dev, &ctx->nodes[ctx->count], role,
				  kind);
	ctx->count++;
	return 0;
}

u32 pcitopo_walk(struct ptc_node *nodes, u32 max,
		 const struct pcitopo_id_table *ids)
{
	struct pcitopo_walk_ctx ctx = {
		.nodes = nodes,
		.max = max,
		.ids = ids,
	};
	struct pci_bus *bus = NULL;

	while ((bus = pci_find_next_bus(bus)) != NULL)
		pci_walk_bus(bus, pcitopo_walk_one, &ctx);
	return ctx.count;
}
