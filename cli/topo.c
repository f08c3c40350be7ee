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

/* The text of one cell; *marks collects the markers used. */
static void cell(const struct pt_topology *t, const struct ends *e,
		 const struct pt_device *a, const struct pt_device *b,
		 char *buf, size_t len, unsigned int *marks)
{
	const struct pt_path *p;
	struct pt_path tmp;

	if (a == b) {
		snprintf(buf, len, " X ");
		return;
	}
	p = find(t, e, a, b, &tmp);
	if (!p) {
		snprintf(buf, len, "-");
		*marks |= MARK_NONE;
		return;
	}
	snprintf(buf, len, "%s%s%s", ptc_class_name(p->path_class),
		 p->flags & PCITOPO_PATH_F_ACS_REDIRECT ? "*" : "",
		 p->flags & PCITOPO_PATH_F_NUMA_UNKNOWN ? "?" : "");
	if (p->flags & PCITOPO_PATH_F_ACS_REDIRECT)
		*marks |= MARK_ACS;
	if (p->flags & PCITOPO_PATH_F_NUMA_UNKNOWN)
		*marks |= MARK_NUMA;
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

static void print_text(struct ctx *c, const struct pt_topology *t,
		       const struct ends *e)
{
	unsigned int marks = 0;
	char name[16], buf[32], cpus[256];
	size_t i, j;

	for (i = 0; i < e->n; i++) {
		dev_name(t, e->d[i], name, sizeof(name));
		fprintf(c->out, "\t%s", name);
	}
	fputs("\tCPU Affinity\tNUMA Affinity\n", c->out);
	for (i = 0; i < e->n; i++) {
		dev_name(t, e->d[i], name, sizeof(name));
		fputs(name, c->out);
		for (j = 0; j < e->n; j++) {
			cell(t, e, e->d[i], e->d[j], buf, sizeof(buf), &marks);
			fprintf(c->out, "\t%s", buf);
		}
		numa_cpulist(c, e->d[i]->numa_node, cpus, sizeof(cpus));
		if (e->d[i]->numa_node >= 0)
			fprintf(c->out, "\t%s\t%d\n", cpus, e->d[i]->numa_node);
		else
			fprintf(c->out, "\t%s\tN/A\n", cpus);
	}
	legend(c, t, e, marks);
}

static void print_json(struct ctx *c, const struct pt_topology *t,
		       const struct ends *e)
{
	struct json_object *o = json_object_new_object(), *rows, *row, *cells;
	char name[16], other[16], cpus[256];
	size_t i, j;

	json_object_object_add(o, "generation",
			       json_object_new_int64((int64_t)t->generation));
	json_object_object_add(o, "source",
			       json_object_new_string(source_name(c)));
	rows = json_object_new_array();
	for (i = 0; i < e->n; i++) {
		row = json_object_new_object();
		dev_name(t, e->d[i], name, sizeof(name));
		json_object_object_add(row, "name", json_object_new_string(name));
		json_object_object_add(row, "addr",
				       json_object_new_string(e->d[i]->addr));
		if (e->d[i]->kind == PCITOPO_KIND_NIC) {
			json_object_object_add(row, "rdma", e->d[i]->rdma[0] ?
				json_object_new_string(e->d[i]->rdma) : NULL);
			json_object_object_add(row, "netdev", e->d[i]->netdev[0] ?
				json_object_new_string(e->d[i]->netdev) : NULL);
		}
		numa_cpulist(c, e->d[i]->numa_node, cpus, sizeof(cpus));
		json_object_object_add(row, "cpu_affinity",
				       strcmp(cpus, "N/A") ?
				       json_object_new_string(cpus) : NULL);
		json_object_object_add(row, "numa_affinity",
				       e->d[i]->numa_node >= 0 ?
				       json_object_new_int(e->d[i]->numa_node) :
				       NULL);
		cells = json_object_new_object();
		for (j = 0; j < e->n; j++) {
			struct pt_path tmp;
			const struct pt_path *p = i == j ? NULL :
				find(t, e, e->d[i], e->d[j], &tmp);
			struct json_object *v = json_object_new_object();

			dev_name(t, e->d[j], other, sizeof(other));
			json_object_object_add(v, "class", i == j ?
				json_object_new_string("X") : p ?
				json_object_new_string(ptc_class_name(p->path_class)) :
				NULL);
			json_object_object_add(v, "flags",
					       json_path_flags(p ? p->flags : 0));
			if (p == &tmp)
				json_object_object_add(v, "derived",
						json_object_new_boolean(1));
			json_object_object_add(cells, other, v);
		}
		json_object_object_add(row, "paths", cells);
		json_object_array_add(rows, row);
	}
	json_object_object_add(o, "devices", rows);
	emit_json(c, o);
}

int print_topo(struct ctx *c, const struct pt_topology *t)
{
	struct ends e;

	if (collect(c, t, &e)) {
		derive_close(&e.pt);
		fputs("topoctl: out of memory\n", c->err);
		return 1;
	}
	if (c->json)
		print_json(c, t, &e);
	else
		print_text(c, t, &e);
	free(e.d);
	derive_close(&e.pt);
	return 0;
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
