// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl show: the layout and why, the counts, then every GPU and NIC in
 * PCI bus order with its switch, root port, NUMA node and link.
 */
#include <inttypes.h>
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

static bool listed(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT &&
	       (d->kind == PCITOPO_KIND_GPU || d->kind == PCITOPO_KIND_NIC);
}

/* GPUs first, then NICs, each in bus order. */
static void for_each_listed(const struct pt_topology *t,
			    void (*fn)(struct ctx *c, const struct pt_topology *t,
				       const struct pt_device *d, void *arg),
			    struct ctx *c, void *arg)
{
	static const unsigned char order[] = { PCITOPO_KIND_GPU, PCITOPO_KIND_NIC };
	size_t k, i;

	for (k = 0; k < sizeof(order); k++)
		for (i = 0; i < t->n_devices; i++)
			if (listed(&t->devices[i]) &&
			    t->devices[i].kind == order[k])
				fn(c, t, &t->devices[i], arg);
}

/* One row: the device's object (pr_device_object(), the schema `export`
 * shares), each column the text shows written into it by the same call;
 * LINK and MAX are the text of its "link" object. */
static void print_row(struct ctx *c, const struct pt_topology *t,
		      const struct pt_device *d, void *arg)
{
	char name[16], link[32] = "-", max[32] = "-";
	struct pr *o = arg;

	(void)c;
	pt_dev_name(t, d, name, sizeof(name));
	if (pt_device_has_link(d)) {
		fmt_link(link, sizeof(link), d->link_speed, d->link_width);
		fmt_link(max, sizeof(max), d->link_max_speed, d->link_max_width);
	}
	pr_open_object(o, PRINT_ANY, NULL);
	pr_device_object(o, t, d);
	pr_string(o, PRINT_ANY, "name", "%-6s", name);
	pr_string(o, PRINT_ANY, "addr", " %-13s", d->addr);
	pr_string_or(o, PRINT_ANY, "switch", " %-13s", d->sw, "-");
	pr_string_or(o, PRINT_ANY, "root_port", " %-13s", d->root_port, "-");
	if (d->numa_node >= 0)
		pr_int(o, PRINT_ANY, "numa_node", " %-4d", d->numa_node);
	else
		pr_null(o, PRINT_ANY, "numa_node", " %-4s", "-");
	pr_text(o, " %-12s %-12s", link, max);
	pr_dev_flags(o, PRINT_ANY, "flags", " %s\n", d);
	pr_close_object(o);
}

int print_show(struct ctx *c, const struct pt_topology *t)
{
	const struct pt_summary *s = &t->summary;
	struct pr o;

	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_summary_object(&o, s);
	pr_string(&o, PRINT_ANY, "layout", "layout: %s",
		  ptc_layout_name(s->layout));
	pr_string_or(&o, PRINT_ANY, "reason", " (%s)", s->reason, NULL);
	pr_nl(&o);
	pr_uint(&o, PRINT_ANY, "gpus", "gpus %u", s->count_gpus);
	pr_uint(&o, PRINT_ANY, "nics", " nics %u", s->count_nics);
	pr_uint(&o, PRINT_ANY, "nvmes", " nvmes %u", s->count_nvmes);
	pr_uint(&o, PRINT_ANY, "switches", " switches %u", s->count_switches);
	pr_uint(&o, PRINT_ANY, "root_ports", " root-ports %u",
		s->count_root_ports);
	pr_uint(&o, PRINT_ANY, "numa_nodes", " numa-nodes %u",
		s->count_numa_nodes);
	pr_uint(&o, PRINT_ANY, "devices", " devices %u", s->count_devices);
	pr_uint(&o, PRINT_ANY, "paths", " paths %u\n", s->count_paths);
	/* the sysfs source has no generation (the module's start at 1) */
	pr_string(&o, c->from_sysfs ? PRINT_ANY : PRINT_JSON, "source",
		  "source: %s\n\n", source_name(c));
	pr_u64(&o, c->from_sysfs ? PRINT_JSON : PRINT_ANY, "generation",
	       "generation %" PRIu64 "\n\n", s->generation);
	pr_text(&o, "%-6s %-13s %-13s %-13s %-4s %-12s %-12s %s\n", "DEV",
		"ADDRESS", "SWITCH", "ROOT-PORT", "NUMA", "LINK", "MAX", "FLAGS");
	pr_open_array(&o, PRINT_ANY, "endpoints", NULL, NULL);
	for_each_listed(t, print_row, c, &o);
	pr_close_array(&o, NULL, NULL);
	pr_close_object(&o);
	return pr_end(&o) ? 1 : 0;
}

int do_show(struct ctx *c, int argc, char **argv)
{
	struct pt_topology t = { 0 };
	int r;

	if (argc > 0) {
		if (!strcmp(argv[0], "help")) {
			print_object_help(c, "show", NULL);
			return 0;
		}
		return usage_error(c, "unexpected argument '%s' to 'show'\n"
				   "Try 'topoctl show help'.", argv[0]);
	}
	r = load_topology(c, &t);
	if (r)
		return r;
	r = print_show(c, &t);
	pt_topology_free(&t);
	return r;
}
