// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl show: the layout and why, the counts, then every GPU and NIC in
 * PCI bus order with its switch, root port, NUMA node and link.
 */
#include <string.h>

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

static void text_row(struct ctx *c, const struct pt_topology *t,
		     const struct pt_device *d, void *arg)
{
	char name[16], link[32], max[32], numa[12], flags[128];

	(void)arg;
	dev_name(t, d, name, sizeof(name));
	if (dev_has_link(d)) {
		fmt_link(link, sizeof(link), d->link_speed, d->link_width);
		fmt_link(max, sizeof(max), d->link_max_speed, d->link_max_width);
	} else {
		strcpy(link, "-");
		strcpy(max, "-");
	}
	if (d->numa_node >= 0)
		snprintf(numa, sizeof(numa), "%d", d->numa_node);
	else
		strcpy(numa, "-");
	fmt_dev_flags(flags, sizeof(flags), d);
	fprintf(c->out, "%-6s %-13s %-13s %-13s %-4s %-12s %-12s %s\n", name,
		d->addr, d->sw[0] ? d->sw : "-",
		d->root_port[0] ? d->root_port : "-", numa, link, max, flags);
}

static void json_row(struct ctx *c, const struct pt_topology *t,
		     const struct pt_device *d, void *arg)
{
	(void)c;
	json_object_array_add(arg, json_device(t, d));
}

int print_show(struct ctx *c, const struct pt_topology *t)
{
	const struct pt_summary *s = &t->summary;
	struct json_object *o, *a;

	if (c->json) {
		o = json_summary(s);
		json_object_object_add(o, "source",
				       json_object_new_string(source_name(c)));
		a = json_object_new_array();
		for_each_listed(t, json_row, c, a);
		json_object_object_add(o, "endpoints", a);
		emit_json(c, o);
		return 0;
	}
	fprintf(c->out, "layout: %s", ptc_layout_name(s->layout));
	if (s->reason[0])
		fprintf(c->out, " (%s)", s->reason);
	fprintf(c->out, "\n"
		"gpus %u nics %u nvmes %u switches %u root-ports %u "
		"numa-nodes %u devices %u paths %u\n",
		s->count_gpus, s->count_nics, s->count_nvmes, s->count_switches,
		s->count_root_ports, s->count_numa_nodes, s->count_devices,
		s->count_paths);
	/* the sysfs source has no generation (the module's start at 1) */
	if (c->from_sysfs)
		fputs("source: sysfs\n\n", c->out);
	else
		fprintf(c->out, "generation %llu\n\n",
			(unsigned long long)s->generation);
	fprintf(c->out, "%-6s %-13s %-13s %-13s %-4s %-12s %-12s %s\n", "DEV",
		"ADDRESS", "SWITCH", "ROOT-PORT", "NUMA", "LINK", "MAX", "FLAGS");
	for_each_listed(t, text_row, c, NULL);
	return 0;
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
