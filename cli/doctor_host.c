// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor: what the host makes of the pairs' ends.
 *   iommu  per GPU and NIC, by its group's default domain type
 *          (ROOT/kernel/iommu_groups/N/type; the names of
 *          drivers/iommu/iommu.c iommu_group_show_type(), meanings of
 *          include/linux/iommu.h IOMMU_DOMAIN_*): no group (IOMMU off:
 *          note); "identity" (passthrough: note); "DMA"/"DMA-FQ"
 *          (translated: warning; P2P through a translating IOMMU faults or
 *          crawls, cuda-samples #48); "blocked" (no DMA at all until a
 *          driver attaches its own domain: warning); "unmanaged" (a domain
 *          VFIO/iommufd keeps for a VM or a user-space driver: note);
 *          "unknown" (no default domain: note). No type file at all (a
 *          kernel without it: Documentation/ABI/testing/
 *          sysfs-kernel-iommu_groups documents it from v5.11): the kernel
 *          command line decides (iommu=pt, iommu.passthrough=: note or
 *          warning), else a note that the type is unknown, never a warning.
 *   numa   numa_node -1 on a GPU or NIC (warning: NCCL hangs the device
 *          under a CPU node of its own, src/graph/xml.cc:753-776 at
 *          v2.30.7-1, so its paths through the CPU are SYS: no P2P, no
 *          GPUDirect RDMA; nccl-tests #233); a GPU whose nearest RDMA NIC
 *          (among every NIC of the machine, whichever pair is judged) is
 *          SYS, across the CPU interconnect (warning).
 */
#include <string.h>

#include "doctor.h"

/* Documentation/admin-guide/kernel-parameters.txt: iommu=pt (x86) and
 * iommu.passthrough=1 (x86, arm64) on Intel and AMD alike; amd_iommu= has
 * no pt */
static const char iommu_fix[] =
	"boot with iommu=pt (or iommu.passthrough=1; the same on Intel and "
	"AMD), or for this group alone: unbind its driver, echo identity > "
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

/* The notes, one per state, naming the ends in it. */
enum iommu_note {
	IN_OFF, IN_IDENTITY, IN_CMDLINE_PT, IN_UNMANAGED, IN_UNKNOWN,
	IN_NO_TYPE, IN_N
};

static void iommu_notes(struct dr_run *r, char names[IN_N][96], bool on)
{
	const char *sys = r->c->sysfs;

	if (names[IN_OFF][0])
		dr_add(r, DR_NOTE, DR_IOMMU, names[IN_OFF], "",
		       "IOMMU %s: no iommu_group link in %s/bus/pci/devices/ADDR; "
		       "DMA and P2P go untranslated",
		       on ? "not on these devices" : "off", sys);
	if (names[IN_IDENTITY][0])
		dr_add(r, DR_NOTE, DR_IOMMU, names[IN_IDENTITY], "",
		       "IOMMU on in passthrough: group type \"identity\" "
		       "(%s/kernel/iommu_groups/N/type); P2P goes untranslated",
		       sys);
	if (names[IN_CMDLINE_PT][0])
		dr_add(r, DR_NOTE, DR_IOMMU, names[IN_CMDLINE_PT], "",
		       "IOMMU on in passthrough by the kernel command line (%s); "
		       "no %s/kernel/iommu_groups/N/type to confirm it per group "
		       "(a kernel without the attribute)", r->fx.cmdline_src, sys);
	if (names[IN_UNMANAGED][0])
		dr_add(r, DR_NOTE, DR_IOMMU, names[IN_UNMANAGED], "",
		       "group type \"unmanaged\": a domain its owner keeps "
		       "(VFIO or iommufd: the device is given to a VM or a "
		       "user-space driver, IOMMU_DOMAIN_UNMANAGED); its DMA goes "
		       "through the owner's mappings, P2P only to what the owner "
		       "maps");
	if (names[IN_UNKNOWN][0])
		dr_add(r, DR_NOTE, DR_IOMMU, names[IN_UNKNOWN], "",
		       "group type \"unknown\" (%s/kernel/iommu_groups/N/type): "
		       "the group has no default domain; whether DMA is "
		       "translated cannot be told", sys);
	if (names[IN_NO_TYPE][0])
		dr_add(r, DR_NOTE, DR_IOMMU, names[IN_NO_TYPE],
		       "dmesg | grep 'iommu: Default domain type' says which; "
		       "iommu=pt on the command line makes it passthrough",
		       "IOMMU on, domain type unknown: no %s/kernel/iommu_groups/N/"
		       "type (a kernel without the attribute, documented from "
		       "v5.11, or a tree saved without it) and the command line "
		       "(%s) sets no default; translated unless the kernel was "
		       "built with CONFIG_IOMMU_DEFAULT_PASSTHROUGH", sys,
		       r->fx.cmdline_src);
}

void dr_check_iommu(struct dr_run *r)
{
	char obj[96], dir[512], names[IN_N][96] = { "" };
	bool on = pt_iommu_enabled(r->c->sysfs);
	const char *ty, *what;
	size_t i;

	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_health *h = &r->h[i];
		const struct pt_device *x = &r->t->devices[i];

		if (!r->is_end[i] || !h->present)
			continue;
		dr_name(r, x, obj, sizeof(obj));
		ty = h->iommu_type;
		if (h->iommu_group < 0) {
			add_name(names[IN_OFF], sizeof(names[0]), obj);
			continue;
		}
		if (!strcmp(ty, "identity")) {
			add_name(names[IN_IDENTITY], sizeof(names[0]), obj);
			continue;
		}
		if (!strcmp(ty, "unmanaged")) {
			add_name(names[IN_UNMANAGED], sizeof(names[0]), obj);
			continue;
		}
		if (!strcmp(ty, "unknown")) {
			add_name(names[IN_UNKNOWN], sizeof(names[0]), obj);
			continue;
		}
		dr_devdir(r, x, dir, sizeof(dir));
		if (!ty[0] && r->fx.passthrough == DR_YES) {
			add_name(names[IN_CMDLINE_PT], sizeof(names[0]), obj);
			continue;
		}
		if (!ty[0] && r->fx.passthrough == DR_NO) {
			dr_add(r, DR_WARNING, DR_IOMMU, obj, iommu_fix,
			       "IOMMU translates its DMA: %s/iommu_group -> group "
			       "%d, no type file, and the kernel command line asks "
			       "for translation (%s); P2P through a translating "
			       "IOMMU faults or is slow (cuda-samples #48)", dir,
			       h->iommu_group, r->fx.cmdline_src);
			continue;
		}
		if (!ty[0]) {
			add_name(names[IN_NO_TYPE], sizeof(names[0]), obj);
			continue;
		}
		what = !strcmp(ty, "blocked") ?
		       "the group's default domain blocks all DMA "
		       "(IOMMU_DOMAIN_BLOCKED): the device can DMA, and be a "
		       "P2P peer, only through a domain its driver attaches" :
		       "IOMMU translates its DMA; P2P through a translating "
		       "IOMMU faults or is slow (cuda-samples #48)";
		dr_add(r, DR_WARNING, DR_IOMMU, obj, iommu_fix,
		       "%s/iommu_group -> group %d, %s/kernel/iommu_groups/%d/type "
		       "is \"%s\": %s", dir, h->iommu_group, r->c->sysfs,
		       h->iommu_group, ty, what);
	}
	iommu_notes(r, names, on);
}

static bool is_rdma_nic(const struct dr_run *r, const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT && d->kind == PCITOPO_KIND_NIC &&
	       (r->c->all_nics || pt_device_is_rdma_nic(d));
}

/* The GPU's nearest NIC among every pair of the machine (judged or not:
 * one named pair does not make its NIC the GPU's only one). */
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
			       "NUMA node unknown: %s/numa_node is -1; NCCL puts the "
			       "device under a CPU node of its own (numaid -1, NCCL "
			       "src/graph/xml.cc:753-776 at v2.30.7-1), so every "
			       "path from it through the CPU is SYS to NCCL (unless "
			       "the other end's node is -1 too): no P2P and no "
			       "GPUDirect RDMA over it (nccl-tests #233)", dir);
		}
		if (x->kind != PCITOPO_KIND_GPU)
			continue;
		p = nearest_nic(r, x);
		if (!p || p->path.path_class != PCITOPO_PATH_SYS ||
		    (p->path.flags & PCITOPO_PATH_F_NUMA_UNKNOWN))
			continue;
		dr_name(r, p->b, nic, sizeof(nic));
		dr_add(r, DR_WARNING, DR_NUMA, obj,
		       "put an RDMA NIC on this GPU's NUMA node (a slot under the "
		       "same CPU); no NCCL variable makes a remote NIC local "
		       "(NCCL_CROSS_NIC=1 only lets a ring leave by another NIC "
		       "than it came in by, which can hurt rail-optimised "
		       "fabrics)",
		       "nearest RDMA NIC %s%s%s%s is SYS (GPU on NUMA node %d, NIC "
		       "on %d): its traffic crosses the CPU interconnect, no "
		       "GPUDirect RDMA", nic, p->b->rdma[0] ? " (" : "",
		       p->b->rdma, p->b->rdma[0] ? ")" : "", x->numa_node,
		       p->b->numa_node);
	}
}
