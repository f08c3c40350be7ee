// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo: read the PCI tree into the core's input fields.
 *
 * Each pci_dev is copied into a struct ptc_raw, registers as read, and the
 * core decodes it (core/ptc_decode.c, the same rules libpcitopo's sysfs
 * source applies): every bridge and every endpoint whose kind is GPU, NIC,
 * NVMe or display becomes one struct ptc_node. pci_walk_bus() visits a
 * bridge before the devices below it, so a node's parent always has a
 * smaller index. Nothing here keeps a pointer to a pci_dev: the nodes are
 * copies.
 */
#define pr_fmt(fmt) "pcitopo: " fmt

#include <linux/pci.h>
#include <linux/topology.h>

#include "pcitopo_internal.h"
#include "ptc_raw.h"

struct pcitopo_walk_ctx {
	struct ptc_node *nodes;
	u32 max;
	u32 count;
	const struct pcitopo_id_table *ids;
};

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

/* The PCIe Capabilities register, kept by the PCI core: no config read. */
static void pcitopo_raw_exp_flags(struct pci_dev *dev, struct ptc_raw_exp *e)
{
	if (!dev || !pci_is_pcie(dev))
		return;
	e->present = true;
	e->flags = pcie_caps_reg(dev);
}

/* pcie_capability_read_*() leave 0 where the port type lacks the register */
static void pcitopo_raw_exp_link(struct pci_dev *dev, struct ptc_raw_exp *e)
{
	if (!dev || !e->present)
		return;
	pcie_capability_read_dword(dev, PCI_EXP_LNKCAP, &e->lnkcap);
	pcie_capability_read_word(dev, PCI_EXP_LNKSTA, &e->lnksta);
}

static void pcitopo_raw_acs(struct pci_dev *dev, struct ptc_raw *r)
{
	int pos = pci_find_ext_capability(dev, PCI_EXT_CAP_ID_ACS);

	if (!pos)
		return;
	pci_read_config_word(dev, pos + PCI_ACS_CAP, &r->acs_cap);
	pci_read_config_word(dev, pos + PCI_ACS_CTRL, &r->acs_ctrl);
}

/*
 * The CPU socket of the device's NUMA node: the package of the node's first
 * CPU. Unknown for a node without CPUs, or without a node.
 */
static void pcitopo_raw_socket(struct ptc_raw *r)
{
	unsigned int cpu;

	if (r->numa_node < 0 || r->numa_node >= nr_node_ids)
		return;
	cpu = cpumask_first(cpumask_of_node(r->numa_node));
	if (cpu >= nr_cpu_ids)
		return;
	r->has_socket = true;
	r->socket = topology_physical_package_id(cpu);
}

/* What ptc_raw_kind() needs; nothing here reads config space. */
static void pcitopo_raw_ident(const struct pcitopo_walk_ctx *ctx,
			      struct pci_dev *dev, struct ptc_raw *r)
{
	struct pci_dev *up = pci_upstream_bridge(dev);

	memset(r, 0, sizeof(*r));
	r->domain = pci_domain_nr(dev->bus);
	r->bus = dev->bus->number;
	r->devfn = dev->devfn;
	r->vendor = dev->vendor;
	r->device = dev->device;
	r->class = dev->class;
	r->bridge = !!dev->subordinate;
	r->extra_kind = pcitopo_ids_kind(ctx->ids, dev->vendor, dev->device);
	pcitopo_raw_exp_flags(dev, &r->exp);
	r->has_up = !!up;
	pcitopo_raw_exp_flags(up, &r->up);
}

/* The rest, read only for a device of interest. */
static void pcitopo_raw_regs(struct pci_dev *dev, struct ptc_raw *r)
{
	struct pci_bus *root = dev->bus;

	while (!pci_is_root_bus(root))
		root = root->parent;
	r->root_bus = root->number;
	r->numa_node = dev_to_node(&dev->dev);
	pcitopo_raw_socket(r);
	r->hotplug_bridge = dev->is_hotplug_bridge;
	pcitopo_raw_exp_link(dev, &r->exp);
	pcitopo_raw_exp_link(pci_upstream_bridge(dev), &r->up);
	if (r->exp.present)
		pcie_capability_read_dword(dev, PCI_EXP_SLTCAP, &r->sltcap);
	pcitopo_raw_acs(dev, r);
}

static int pcitopo_walk_one(struct pci_dev *dev, void *data)
{
	struct pcitopo_walk_ctx *ctx = data;
	struct pci_dev *up = pci_upstream_bridge(dev);
	struct ptc_node *n;
	struct ptc_raw r;

	pcitopo_raw_ident(ctx, dev, &r);
	if (ptc_raw_kind(&r) == PCITOPO_KIND_NONE)
		return 0;
	if (ctx->count < ctx->max) {
		n = &ctx->nodes[ctx->count];
		pcitopo_raw_regs(dev, &r);
		ptc_raw_decode(&r, n);
		n->parent = up ? pcitopo_walk_find(ctx, up) : PTC_NONE;
	}
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
