// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl export --format { json | nccl | dot }: the whole model in a form
 * other tools read.
 *
 *   json  {"summary", "devices", "paths"}: every object as the other -j
 *         commands print it; a snapshot to diff or to feed scripts.
 *   nccl  an NCCL topology file (NCCL_TOPO_FILE): <system version="1">, one
 *         <cpu numaid=N> per NUMA node of a host bridge (numaid="-1" when the
 *         firmware gave none), and below it one <pci> element per switch
 *         (named after its upstream port) and per GPU, NIC or NVMe device,
 *         nested as NCCL's own sysfs walk nests them: root ports and
 *         downstream ports never appear, cascaded switches nest. Only <cpu>
 *         and <pci> elements with bus ids, IDs and max link figures: NCCL
 *         fills in the rest, as with a hand-written file.
 *   dot   a Graphviz digraph of the PCIe tree from the host bridges down,
 *         edges labelled with their current link.
 */
#include <string.h>

#include "ptc.h"
#include "topoctl.h"

static int export_json(struct ctx *c, const struct pt_topology *t)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	json_object_object_add(o, "summary", json_summary(&t->summary));
	a = json_object_new_array();
	for (i = 0; i < t->n_devices; i++)
		json_object_array_add(a, json_device(t, &t->devices[i]));
	json_object_object_add(o, "devices", a);
	a = json_object_new_array();
	for (i = 0; i < t->n_paths; i++)
		json_object_array_add(a, json_path(t, &t->paths[i]));
	json_object_object_add(o, "paths", a);
	emit_json(c, o);
	return 0;
}

/* --- NCCL ------------------------------------------------------------- */

static bool nccl_endpoint(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT &&
	       (d->kind == PCITOPO_KIND_GPU || d->kind == PCITOPO_KIND_NIC ||
		d->kind == PCITOPO_KIND_NVME);
}

/* Whether d is an element of NCCL's tree: a switch or an endpoint. */
static bool nccl_node(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_UPSTREAM || nccl_endpoint(d);
}

/* The closest switch upstream port above d, or NULL (under the CPU). */
static const struct pt_device *nccl_parent(const struct pt_topology *t,
					   const struct pt_device *d)
{
	int depth = 0;

	for (d = pt_topology_find(t, d->parent); d && depth++ < 64;
	     d = pt_topology_find(t, d->parent))
		if (d->role == PCITOPO_ROLE_UPSTREAM)
			return d;
	return NULL;
}

static void nccl_speed(char *buf, size_t len, unsigned int mts)
{
	/* as sysfs max_link_speed prints it: "2.5 GT/s PCIe", "16.0 GT/s PCIe" */
	snprintf(buf, len, "%u.%u GT/s PCIe", mts / 1000, mts % 1000 / 100);
}

static void nccl_tree(struct ctx *c, const struct pt_topology *t,
		      const struct pt_device *parent, int numa, int indent)
{
	char speed[32];
	size_t i;
	bool kids;

	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];
		size_t j;

		if (!nccl_node(d) || nccl_parent(t, d) != parent)
			continue;
		if (!parent && d->numa_node != numa)
			continue;
		fprintf(c->out, "%*s<pci busid=\"%s\" class=\"0x%06x\" "
			"vendor=\"0x%04x\" device=\"0x%04x\"", indent, "",
			d->addr, d->class_code, d->vendor, d->device);
		if (dev_has_link(d) && d->link_max_speed) {
			nccl_speed(speed, sizeof(speed), d->link_max_speed);
			fprintf(c->out, " link_speed=\"%s\" link_width=\"%u\"",
				speed, d->link_max_width);
		}
		for (j = 0, kids = false; j < t->n_devices && !kids; j++)
			kids = nccl_node(&t->devices[j]) &&
			       nccl_parent(t, &t->devices[j]) == d;
		if (!kids) {
			fputs("/>\n", c->out);
			continue;
		}
		fputs(">\n", c->out);
		nccl_tree(c, t, d, numa, indent + 2);
		fprintf(c->out, "%*s</pci>\n", indent, "");
	}
}

static int export_nccl(struct ctx *c, const struct pt_topology *t)
{
	int nodes[256], n = 0, k, m;
	size_t i;

	/* the NUMA nodes of top-level elements, ascending, -1 first */
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];

		if (!nccl_node(d) || nccl_parent(t, d))
			continue;
		for (k = 0; k < n && nodes[k] != d->numa_node; k++)
			;
		if (k == n && n < 256)
			nodes[n++] = d->numa_node;
	}
	for (k = 1; k < n; k++)
		for (m = k; m > 0 && nodes[m - 1] > nodes[m]; m--) {
			int x = nodes[m];

			nodes[m] = nodes[m - 1];
			nodes[m - 1] = x;
		}
	fputs("<system version=\"1\">\n", c->out);
	for (k = 0; k < n; k++) {
		fprintf(c->out, "  <cpu numaid=\"%d\">\n", nodes[k]);
		nccl_tree(c, t, NULL, nodes[k], 4);
		fputs("  </cpu>\n", c->out);
	}
	fputs("</system>\n", c->out);
	return 0;
}

/* --- Graphviz --------------------------------------------------------- */

static int export_dot(struct ctx *c, const struct pt_topology *t)
{
	char name[16], link[32];
	const char *hb[256];
	size_t i, nhb = 0, k;

	fputs("digraph pcitopo {\n"
	      "\trankdir=TB;\n"
	      "\tnode [shape=box, fontname=\"monospace\"];\n", c->out);
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];

		if (d->parent[0] || !d->host_bridge[0])
			continue;
		for (k = 0; k < nhb && strcmp(hb[k], d->host_bridge); k++)
			;
		if (k < nhb || nhb == 256)
			continue;
		hb[nhb++] = d->host_bridge;
		if (d->numa_node >= 0)
			fprintf(c->out, "\t\"%s\" [label=\"host bridge %s\\nNUMA %d\", shape=ellipse];\n",
				d->host_bridge, d->host_bridge, d->numa_node);
		else
			fprintf(c->out, "\t\"%s\" [label=\"host bridge %s\", shape=ellipse];\n",
				d->host_bridge, d->host_bridge);
	}
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];
		const char *style = "";

		dev_name(t, d, name, sizeof(name));
		if (d->kind == PCITOPO_KIND_GPU)
			style = ", style=filled, fillcolor=palegreen";
		else if (d->kind == PCITOPO_KIND_NIC)
			style = ", style=filled, fillcolor=lightblue";
		else if (d->kind == PCITOPO_KIND_NVME)
			style = ", style=filled, fillcolor=khaki";
		else if (pt_device_acs_redirect(d))
			style = ", color=red";
		fprintf(c->out, "\t\"%s\" [label=\"%s%s%s\\n%s\"%s];\n", d->addr,
			name[0] ? name : "", name[0] ? " " : "", d->addr,
			ptc_role_name(d->role), style);
	}
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];
		const char *from = d->parent[0] ? d->parent : d->host_bridge;

		if (!from[0])
			continue;
		if (dev_has_link(d)) {
			fmt_link(link, sizeof(link), d->link_speed, d->link_width);
			fprintf(c->out, "\t\"%s\" -> \"%s\" [label=\"%s\"%s];\n",
				from, d->addr, link,
				d->link_flags & PCITOPO_LINK_F_WIDTH_DOWN ?
				", color=red" : "");
		} else {
			fprintf(c->out, "\t\"%s\" -> \"%s\";\n", from, d->addr);
		}
	}
	fputs("}\n", c->out);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct ctx *c, const struct pt_topology *t);
} formats[] = {
	{ "json", export_json },
	{ "nccl", export_nccl },
	{ "dot", export_dot },
};

int export_format(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return (int)i;
	return -1;
}

int print_export(struct ctx *c, const struct pt_topology *t, int format)
{
	return formats[format].fn(c, t);
}

int do_export(struct ctx *c, int argc, char **argv)
{
	struct pt_topology t = { 0 };
	int fmt = 0, r, i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "help")) {
			print_object_help(c, "export", NULL);
			return 0;
		}
		if (strcmp(argv[i], "--format") && strcmp(argv[i], "format") &&
		    strcmp(argv[i], "-f"))
			return usage_error(c, "unexpected argument '%s' to 'export'\n"
					   "Try 'topoctl export help'.", argv[i]);
		if (++i >= argc)
			return usage_error(c, "'export %s' needs json, nccl or dot",
					   argv[i - 1]);
		fmt = export_format(argv[i]);
		if (fmt < 0)
			return usage_error(c, "unknown export format '%s' (json, nccl or dot)",
					   argv[i]);
	}
	r = load_topology(c, &t);
	if (r)
		return r;
	r = print_export(c, &t, fmt);
	pt_topology_free(&t);
	return r;
}
