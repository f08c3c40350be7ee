// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl topo: the matrix of `nvidia-smi topo -m`, from the module's paths.
 *
 * Rows and columns: the GPUs in PCI bus order (GPU0..), then the
 * RDMA-capable NICs (every NIC with --all-nics) in NIC name order (NIC0..,
 * names.c), as nvidia-smi lists them; the NIC legend gives the RDMA device
 * (the name NCCL_IB_HCA takes) and the address. Cells hold the path class the module computed; the module gives
 * paths with a GPU on at least one side; NIC-to-NIC cells are derived here
 * from the module's device table by core/ (derive.c), the code the module
 * runs for its own paths, and are "-" only if that fails. A class followed by '*' has ACS P2P
 * redirect on its path (P2P goes up to the root complex); followed by '?' it
 * has a NUMA node unknown on either side (NODE versus SYS is a guess).
 * NVLink is not known to pcitopo: there are no NV# cells.
 */
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

#define MARK_ACS	1U
#define MARK_NUMA	2U
#define MARK_NONE	4U

struct ends {
	const struct pt_device **d;
	size_t n;
	struct ptc_topo pt;	/* for derived paths; nodes NULL if unusable */
};

/* Whether a NIC has a row and a column: nvidia-smi lists RDMA NICs only. */
static bool shown_nic(const struct ctx *c, const struct pt_device *d)
{
	return c->all_nics || pt_device_is_rdma_nic(d);
}

/* The GPUs in bus order, then the NICs shown, in NIC name order. */
static int collect(const struct ctx *c, const struct pt_topology *t,
		   struct ends *e)
{
	size_t i;
	int k, nics = 0;

	e->n = 0;
	(void)derive_open(t, &e->pt);
	e->d = calloc(t->n_devices ? t->n_devices : 1, sizeof(*e->d));
	if (!e->d)
		return -1;
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];

		if (d->role != PCITOPO_ROLE_ENDPOINT)
			continue;
		if (d->kind == PCITOPO_KIND_GPU)
			e->d[e->n++] = d;
		else if (d->kind == PCITOPO_KIND_NIC)
			nics++;
	}
	for (k = 0; k < nics; k++)
		for (i = 0; i < t->n_devices; i++)
			if (t->devices[i].role == PCITOPO_ROLE_ENDPOINT &&
			    t->devices[i].kind == PCITOPO_KIND_NIC &&
			    dev_index(t, &t->devices[i]) == k &&
			    shown_nic(c, &t->devices[i]))
				e->d[e->n++] = &t->devices[i];
	return 0;
}

/* The module's path between a and b, else one derived into *tmp. */
static const struct pt_path *find(const struct pt_topology *t,
				  const struct ends *e,
				  const struct pt_device *a,
				  const struct pt_device *b, struct pt_path *tmp)
{
	const struct pt_path *p = pt_topology_find_path(t, a->addr, b->addr);

	if (!p)
		p = pt_topology_find_path(t, b->addr, a->addr);
	if (!p && !derive_path(&e->pt, t, a, b, tmp))
		p = tmp;
	return p;
}

static void legend(struct ctx *c, const struct pt_topology *t,
		   const struct ends *e, unsigned int marks)
{
	size_t i;
	int nics = 0;

	fputs("\nLegend:\n\n"
	      "  X    = Self\n"
	      "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
	      "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
	      "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
	      "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
	      "  PIX  = Connection traversing at most a single PCIe bridge\n",
	      c->out);
	if (marks & MARK_ACS)
		fputs("  *    = ACS redirects P2P on this path up to the root complex (P2P is slow or unsafe)\n",
		      c->out);
	if (marks & MARK_NUMA)
		fputs("  ?    = A NUMA node is unknown on either side: NODE or SYS is a guess\n",
		      c->out);
	if (marks & MARK_NONE)
		fputs("  -    = No path known\n",
		      c->out);
	for (i = 0; i < e->n; i++) {
		char name[16];

		if (e->d[i]->kind != PCITOPO_KIND_NIC)
			continue;
		if (!nics++)
			fputs("\nNIC Legend:\n\n", c->out);
		dev_name(t, e->d[i], name, sizeof(name));
		if (e->d[i]->rdma[0])
			fprintf(c->out, "  %s: %s (%s)\n", name, e->d[i]->rdma,
				e->d[i]->addr);
		else if (e->d[i]->netdev[0])
			fprintf(c->out, "  %s: %s (%s, no RDMA)\n", name,
				e->d[i]->netdev, e->d[i]->addr);
		else
			fprintf(c->out, "  %s: %s (no RDMA)\n", name,
				e->d[i]->addr);
	}
}

/* One cell: " X " on the diagonal, "-" when no path is known, else the
 * class; in the text its flags are the markers "*" and "?" the legend
 * explains (*marks collects those used), in the JSON the words. */
static void print_cell(struct pr *o, const struct pt_topology *t,
		       const struct ends *e, size_t i, size_t j,
		       unsigned int *marks)
{
	const struct pt_path *p = NULL;
	struct pt_path tmp;
	unsigned int flags;
	char other[16];

	if (i != j)
		p = find(t, e, e->d[i], e->d[j], &tmp);
	flags = p ? p->flags : 0;
	dev_name(t, e->d[j], other, sizeof(other));
	pr_open_object(o, PRINT_ANY, other);
	if (i == j)
		pr_string(o, PRINT_ANY, "class", "\t %s ", "X");
	else
		pr_string_or(o, PRINT_ANY, "class", "\t%s",
			     p ? ptc_class_name(p->path_class) : NULL, "-");
	pr_json(o, "flags", json_path_flags(flags));
	pr_text(o, "%s%s", flags & PCITOPO_PATH_F_ACS_REDIRECT ? "*" : "",
		flags & PCITOPO_PATH_F_NUMA_UNKNOWN ? "?" : "");
	if (p == &tmp)
		pr_bool(o, PRINT_JSON, "derived", NULL, true);
	pr_close_object(o);
	if (i != j && !p)
		*marks |= MARK_NONE;
	if (flags & PCITOPO_PATH_F_ACS_REDIRECT)
		*marks |= MARK_ACS;
	if (flags & PCITOPO_PATH_F_NUMA_UNKNOWN)
		*marks |= MARK_NUMA;
}

/* One row: the device, its cells, its CPU and NUMA affinity. The JSON has
 * the affinities before the cells, the text after: their keys are laid
 * down first (null), and the calls after the cells fill them in place. */
static void print_row(struct pr *o, struct ctx *c, const struct pt_topology *t,
		      const struct ends *e, size_t i, unsigned int *marks)
{
	const struct pt_device *d = e->d[i];
	char name[16], cpus[256];
	size_t j;

	dev_name(t, d, name, sizeof(name));
	numa_cpulist(c, d->numa_node, cpus, sizeof(cpus));
	pr_open_object(o, PRINT_ANY, NULL);
	pr_string(o, PRINT_ANY, "name", "%s", name);
	pr_string(o, PRINT_JSON, "addr", NULL, d->addr);
	if (d->kind == PCITOPO_KIND_NIC) {
		pr_string(o, PRINT_JSON, "rdma", NULL, d->rdma);
		pr_string(o, PRINT_JSON, "netdev", NULL, d->netdev);
	}
	pr_null(o, PRINT_JSON, "cpu_affinity", NULL, NULL);
	pr_null(o, PRINT_JSON, "numa_affinity", NULL, NULL);
	pr_open_object(o, PRINT_ANY, "paths");
	for (j = 0; j < e->n; j++)
		print_cell(o, t, e, i, j, marks);
	pr_close_object(o);
	pr_string_or(o, PRINT_ANY, "cpu_affinity", "\t%s",
		     strcmp(cpus, "N/A") ? cpus : NULL, "N/A");
	if (d->numa_node >= 0)
		pr_int(o, PRINT_ANY, "numa_affinity", "\t%d\n", d->numa_node);
	else
		pr_null(o, PRINT_ANY, "numa_affinity", "\t%s\n", "N/A");
	pr_close_object(o);
}

/* The text is nvidia-smi's layout (a header row, tab-separated rows, the
 * legend), the JSON one object per row; both come from this one loop. */
static int print_matrix(struct ctx *c, const struct pt_topology *t,
			const struct ends *e)
{
	unsigned int marks = 0;
	char name[16];
	struct pr o;
	size_t i;

	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_u64(&o, PRINT_JSON, "generation", NULL, t->generation);
	pr_string(&o, PRINT_JSON, "source", NULL, source_name(c));
	for (i = 0; i < e->n; i++) {
		dev_name(t, e->d[i], name, sizeof(name));
		pr_text(&o, "\t%s", name);
	}
	pr_text(&o, "\tCPU Affinity\tNUMA Affinity\n");
	pr_open_array(&o, PRINT_ANY, "devices", NULL, NULL);
	for (i = 0; i < e->n; i++)
		print_row(&o, c, t, e, i, &marks);
	pr_close_array(&o, NULL, NULL);
	pr_close_object(&o);
	/* the legend explains the text's letters and markers: text only */
	if (!c->json)
		legend(c, t, e, marks);
	return pr_end(&o) ? 1 : 0;
}

int print_topo(struct ctx *c, const struct pt_topology *t)
{
	struct ends e;
	int r;

	if (collect(c, t, &e)) {
		derive_close(&e.pt);
		fputs("topoctl: out of memory\n", c->err);
		return 1;
	}
	r = print_matrix(c, t, &e);
	free(e.d);
	derive_close(&e.pt);
	return r;
}

int do_topo(struct ctx *c, int argc, char **argv)
{
	struct pt_topology t = { 0 };
	int i, r;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "help")) {
			print_object_help(c, "topo", NULL);
			return 0;
		}
		if (!strcmp(argv[i], "--all-nics")) {
			c->all_nics = true;
			continue;
		}
		if (strcmp(argv[i], "-m") && strcmp(argv[i], "matrix"))
			return usage_error(c, "unexpected argument '%s' to 'topo'\n"
					   "Try 'topoctl topo help'.", argv[i]);
	}
	r = load_topology(c, &t);
	if (r)
		return r;
	r = print_topo(c, &t);
	pt_topology_free(&t);
	return r;
}
