// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor: what the host makes of the pairs' ends.
 *   iommu  per GPU and NIC: no group (IOMMU off: note), group type
 *          "identity" (passthrough: note), "DMA"/"DMA-FQ" (translated:
 *          warning; P2P through a translating IOMMU faults or crawls,
 *          cuda-samples #48).
 *   numa   numa_node -1 on a GPU or NIC (warning: NODE vs SYS, and NCCL's
 *          CPU affinity, are guesses; nccl-tests #233); a GPU whose nearest
 *          RDMA NIC is SYS, across the CPU interconnect (warning).
 */
#include <string.h>

#include "doctor.h"

static const char iommu_fix[] =
	"boot with iommu=pt (Intel: intel_iommu=on iommu=pt; AMD: amd_iommu=pt), "
	"or for this group alone: unbind its driver, echo identity > "
	"/sys/kernel/iommu_groups/N/type, bind it again";

/* Append name to a list of the ends in one state (for the notes). */
static void add_name(char *buf, size_t len, const char *name)
{
	size_t n = strlen(buf);

	if (n + strlen(name) + 6 >= len) {
		if (!strstr(buf, ",..."))
			snprintf(buf + n, len - n, ",...");
		return;
	}
	snprintf(buf + n, len - n, "%s%s", n ? "," : "", name);
}

void dr_check_iommu(struct dr_run *r)
{
	char obj[96], dir[512], off[96] = "", pt[96] = "";
	bool on = pt_iommu_enabled(r->c->sysfs);
	size_t i;

	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_health *h = &r->h[i];
		const struct pt_device *x = &r->t->devices[i];

		if (!r->is_end[i] || !h->present)
			continue;
		dr_name(r, x, obj, sizeof(obj));
		if (h->iommu_group < 0) {
			add_name(off, sizeof(off), obj);
			continue;
		}
		if (!strcmp(h->iommu_type, "identity")) {
			add_name(pt, sizeof(pt), obj);
			continue;
		}
		dr_devdir(r, x, dir, sizeof(dir));
		dr_add(r, DR_WARNING, DR_IOMMU, obj, iommu_fix,
		       "IOMMU translates its DMA: %s/iommu_group -> group %d, "
		       "%s/kernel/iommu_groups/%d/type is \"%s\"; P2P through a "
		       "translating IOMMU faults or is slow (cuda-samples #48)",
		       dir, h->iommu_group, r->c->sysfs, h->iommu_group,
		       h->iommu_type[0] ? h->iommu_type : "unreadable");
	}
	if (off[0])
		dr_add(r, DR_NOTE, DR_IOMMU, off, "",
		       "IOMMU %s: no iommu_group link in %s/bus/pci/devices/ADDR; "
		       "DMA and P2P go untranslated", on ? "not on these devices" :
		       "off", r->c->sysfs);
	if (pt[0])
		dr_add(r, DR_NOTE, DR_IOMMU, pt, "",
		       "IOMMU on in passthrough: group type \"identity\" "
		       "(%s/kernel/iommu_groups/N/type); P2P goes untranslated",
		       r->c->sysfs);
}

static bool is_rdma_nic(const struct dr_run *r, const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT && d->kind == PCITOPO_KIND_NIC &&
	       (r->c->all_nics || pt_device_is_rdma_nic(d));
}

/* The GPU's nearest NIC among the pairs, and that pair. */
static const struct dr_pair *nearest_nic(const struct dr_run *r,
					 const struct pt_device *g)
{
	const struct dr_pair *best = NULL;
	size_t k;

	for (k = 0; k < r->n_pairs; k++) {
		const struct dr_pair *p = &r->pairs[k];

		if (p->a != g || !is_rdma_nic(r, p->b))
			continue;
		if (!best || p->path.path_class < best->path.path_class)
			best = p;
	}
	return best;
}

void dr_check_numa(struct dr_run *r)
{
	char obj[96], dir[512], nic[48];
	size_t i;

	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_device *x = &r->t->devices[i];
		const struct dr_pair *p;

		if (!r->is_end[i])
			continue;
		dr_name(r, x, obj, sizeof(obj));
		if (x->numa_node < 0) {
			dr_devdir(r, x, dir, sizeof(dir));
			dr_add(r, DR_WARNING, DR_NUMA, obj,
			       "the firmware gives no proximity (ACPI _PXM/SRAT): "
			       "enable NUMA/SRAT in the BIOS or update it; meanwhile "
			       "echo N > /sys/bus/pci/devices/ADDR/numa_node (taints "
			       "the kernel) or give NCCL_TOPO_FILE from topoctl export "
			       "--format nccl with numaid set",
			       "NUMA node unknown: %s/numa_node is -1; NODE vs SYS and "
			       "NCCL's CPU affinity are guesses (nccl-tests #233)", dir);
		}
		if (x->kind != PCITOPO_KIND_GPU)
			continue;
		p = nearest_nic(r, x);
		if (!p || p->path.path_class != PCITOPO_PATH_SYS ||
		    (p->path.flags & PCITOPO_PATH_F_NUMA_UNKNOWN))
			continue;
		dr_name(r, p->b, nic, sizeof(nic));
		dr_add(r, DR_WARNING, DR_NUMA, obj,
		       "put an RDMA NIC under this GPU's CPU; until then NCCL can "
		       "use NCCL_CROSS_NIC=1 and NCCL_IB_HCA to choose",
		       "nearest RDMA NIC %s%s%s%s is SYS (GPU on NUMA node %d, NIC "
		       "on %d): its traffic crosses the CPU interconnect, no "
		       "GPUDirect RDMA", nic, p->b->rdma[0] ? " (" : "",
		       p->b->rdma, p->b->rdma[0] ? ")" : "", x->numa_node,
		       p->b->numa_node);
	}
}
