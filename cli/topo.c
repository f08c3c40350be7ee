// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl topo: the matrix of `nvidia-smi topo -m`, from the module's paths.
 *
 * Rows and columns (lib/matrix.h): the GPUs in PCI bus order (GPU0..),
 * then the RDMA-capable NICs (every NIC with --all-nics) in NIC name order
 * (NIC0.., lib/devname.h), as nvidia-smi lists them; the NIC legend gives
 * the RDMA device (the name NCCL_IB_HCA takes) and the address. Cells hold
 * the path class the module computed; the module gives paths with a GPU on
 * at least one side; NIC-to-NIC cells are derived from the module's device
 * table by core/ (lib/derive.h), the code the module runs for its own
 * paths, and are "-" only if that fails. A class followed by '*' has ACS P2P
 * redirect on its path (P2P goes up to the root complex); followed by '?' it
 * has a NUMA node unknown on either side (NODE versus SYS is a guess).
 * NVLink is not known to pcitopo: there are no NV# cells.
 */
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "print.h"
#include "ptc.h"
#include "topoctl.h"

#define MARK_ACS	1U
#define MARK_NUMA	2U
#define MARK_NONE	4U

static void legend(struct ctx *c, const struct pt_matrix *m,
		   unsigned int marks)
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
	for (i = 0; i < m->n; i++) {
		const struct pt_device *d = m->end[i].d;
		const char *name = m->end[i].name;

		if (d->kind != PCITOPO_KIND_NIC)
			continue;
		if (!nics++)
			fputs("\nNIC Legend:\n\n", c->out);
		if (d->rdma[0])
			fprintf(c->out, "  %s: %s (%s)\n", name, d->rdma,
				d->addr);
		else if (d->netdev[0])
			fprintf(c->out, "  %s: %s (%s, no RDMA)\n", name,
				d->netdev, d->addr);
		else
			fprintf(c->out, "  %s: %s (no RDMA)\n", name, d->addr);
	}
}

/* One cell: " X " on the diagonal, "-" when no path is known, else the
 * class; in the text its flags are the markers "*" and "?" the legend
 * explains (*marks collects those used), in the JSON the words. */
static void print_cell(struct pr *o, const struct pt_matrix *m, size_t i,
		       size_t j, unsigned int *marks)
{
	struct pt_path tmp;
	const struct pt_path *p = pt_matrix_cell(m, i, j, &tmp);
	unsigned int flags = p ? p->flags : 0;

	pr_open_object(o, PRINT_ANY, m->end[j].name);
	if (i == j)
		pr_string(o, PRINT_ANY, "class", "\t %s ", "X");
	else
		pr_string_or(o, PRINT_ANY, "class", "\t%s",
			     p ? ptc_class_name(p->path_class) : NULL, "-");
	pr_path_flags(o, PRINT_JSON, "flags", NULL, flags);
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
static void print_row(struct pr *o, struct ctx *c, const struct pt_matrix *m,
		      size_t i, unsigned int *marks)
{
	const struct pt_device *d = m->end[i].d;
	char cpus[256];
	size_t j;

	numa_cpulist(c, d->numa_node, cpus, sizeof(cpus));
	pr_open_object(o, PRINT_ANY, NULL);
	pr_string(o, PRINT_ANY, "name", "%s", m->end[i].name);
	pr_string(o, PRINT_JSON, "addr", NULL, d->addr);
	if (d->kind == PCITOPO_KIND_NIC) {
		pr_string(o, PRINT_JSON, "rdma", NULL, d->rdma);
		pr_string(o, PRINT_JSON, "netdev", NULL, d->netdev);
	}
	pr_null(o, PRINT_JSON, "cpu_affinity", NULL, NULL);
	pr_null(o, PRINT_JSON, "numa_affinity", NULL, NULL);
	pr_open_object(o, PRINT_ANY, "paths");
	for (j = 0; j < m->n; j++)
		print_cell(o, m, i, j, marks);
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
static int print_matrix(struct ctx *c, const struct pt_matrix *m)
{
	const struct pt_topology *t = m->t;
	unsigned int marks = 0;
	struct pr o;
	size_t i;

	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_u64(&o, PRINT_JSON, "generation", NULL, t->generation);
	pr_string(&o, PRINT_JSON, "source", NULL, source_name(c));
	for (i = 0; i < m->n; i++)
		pr_text(&o, "\t%s", m->end[i].name);
	pr_text(&o, "\tCPU Affinity\tNUMA Affinity\n");
	pr_open_array(&o, PRINT_ANY, "devices", NULL, NULL);
	for (i = 0; i < m->n; i++)
		print_row(&o, c, m, i, &marks);
	pr_close_array(&o, NULL, NULL);
	pr_close_object(&o);
	/* the legend explains the text's letters and markers: text only */
	if (!c->json)
		legend(c, m, marks);
	return pr_end(&o) ? 1 : 0;
}

int print_topo(struct ctx *c, const struct pt_topology *t)
{
	struct pt_matrix m;
	int r;

	if (pt_matrix_open(t, c->all_nics, &m)) {
		fputs("topoctl: out of memory\n", c->err);
		return 1;
	}
	r = print_matrix(c, &m);
	pt_matrix_close(&m);
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
