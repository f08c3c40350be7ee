// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl dev: every device pcitopo tracks (ports and endpoints of
 * interest), in PCI bus order.
 */
#include <errno.h>
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

/* The JSON of a device is its object from pr_device_object() (the schema
 * `export` shares), laid down first; each line or column the text shows is
 * then written by one call, which replaces that key's value in place (or
 * adds the key), so what the text shows is in the JSON. The link's figures
 * stay the "link" object's; its text is worded from the same fields. */

static void hex_string(char *buf, size_t len, unsigned int v, int digits)
{
	snprintf(buf, len, "%0*x", digits, v);
}

void print_detail(struct ctx *c, const struct pt_topology *t,
		  const struct pt_device *dev, bool port)
{
	char name[16], a[32], b[32], hex[3][12];
	struct pt_device d;
	const struct pt_device *h;
	struct pr o;
	size_t i;

	(void)port;	/* every view shows the link a port sits on */
	port_link_view(t, dev, &d);
	pt_dev_name(t, &d, name, sizeof(name));
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_device_object(&o, t, &d);
	pr_string(&o, PRINT_ANY, "addr", "%s", d.addr);
	pr_string_or(&o, PRINT_ANY, "name", " (%s)", name, NULL);
	pr_nl(&o);
	pr_string_or(&o, PRINT_ANY, "role", "  role:        %s\n",
		     ptc_role_name(d.role), "-");
	pr_string_or(&o, PRINT_ANY, "kind", "  kind:        %s\n",
		     ptc_kind_name(d.kind), "-");
	hex_string(hex[0], sizeof(hex[0]), d.vendor, 4);
	hex_string(hex[1], sizeof(hex[1]), d.device, 4);
	hex_string(hex[2], sizeof(hex[2]), d.class_code, 6);
	pr_string(&o, PRINT_ANY, "vendor", "  id:          %s", hex[0]);
	pr_string(&o, PRINT_ANY, "device", ":%s", hex[1]);
	pr_string(&o, PRINT_ANY, "class", " class %s\n", hex[2]);
	pr_string_or(&o, PRINT_ANY, "parent", "  parent:      %s\n", d.parent,
		     "-");
	pr_string_or(&o, PRINT_ANY, "switch", "  switch:      %s\n", d.sw, "-");
	pr_string_or(&o, PRINT_ANY, "root_port", "  root-port:   %s\n",
		     d.root_port, "-");
	pr_string_or(&o, PRINT_ANY, "host_bridge", "  host-bridge: %s\n",
		     d.host_bridge, "-");
	if (d.numa_node >= 0)
		pr_int(&o, PRINT_ANY, "numa_node", "  numa-node:   %d\n",
		       d.numa_node);
	else
		pr_null(&o, PRINT_ANY, "numa_node", "  numa-node:   %s\n",
			"unknown");
	if (d.kind == PCITOPO_KIND_NIC) {
		pr_string_or(&o, PRINT_ANY, "rdma", "  rdma:        %s\n", d.rdma,
			     "none (not an RDMA device: nvidia-smi and NCCL's IB transport skip it)");
		pr_string_or(&o, PRINT_ANY, "netdev", "  netdev:      %s\n",
			     d.netdev, NULL);
	}
	if (pt_device_has_link(&d)) {
		fmt_link(a, sizeof(a), d.link_speed, d.link_width);
		fmt_link(b, sizeof(b), d.link_max_speed, d.link_max_width);
		pr_text(&o, "  link:        %s (max %s)", a, b);
		/* a downstream port shows the link of the device below it */
		h = link_holder(t, dev);
		if (h && h != dev)
			pr_string(&o, PRINT_ANY, "link_to", " to %s", h->addr);
		pr_nl(&o);
		fmt_bw(a, sizeof(a), d.link_bw);
		fmt_bw(b, sizeof(b), d.link_max_bw);
		pr_text(&o, "  bandwidth:   %s (max %s) each way\n", a, b);
	} else {
		pr_text(&o, "  link:        none\n");
	}
	if (pt_has(&d, PCITOPO_A_DEV_SLOT)) {
		pr_uint(&o, PRINT_ANY, "slot", "  slot:        %u", d.slot);
		pr_bool(&o, PRINT_ANY, "hotplug",
			d.hotplug ? " (hotplug)\n" : "\n", d.hotplug);
	}
	if (pt_has(&d, PCITOPO_A_DEV_ACS_CAP) && d.acs_cap) {
		hex_string(hex[0], sizeof(hex[0]), d.acs_cap, 4);
		hex_string(hex[1], sizeof(hex[1]), d.acs_ctrl, 4);
		pr_string(&o, PRINT_ANY, "acs_cap", "  acs:         cap %s",
			  hex[0]);
		pr_string(&o, PRINT_ANY, "acs_ctrl", " ctrl %s", hex[1]);
		pr_bool(&o, PRINT_ANY, "acs_redirect",
			pt_device_acs_redirect(&d) ? " (P2P redirect on)\n" :
						     "\n",
			pt_device_acs_redirect(&d));
	}
	pr_dev_flags(&o, PRINT_ANY, "flags", "  flags:       %s\n", &d);
	pr_open_array(&o, PRINT_ANY, "children", "  children:    ", " ");
	for (i = 0; i < t->n_devices; i++)
		if (!strcmp(t->devices[i].parent, d.addr))
			pr_string(&o, PRINT_ANY, NULL, "%s", t->devices[i].addr);
	pr_close_array(&o, "\n", NULL);
	pr_close_object(&o);
	(void)pr_end(&o);
}

/* One row of `dev list`: as print_detail(), the device's object with each
 * column the text shows written into it by the same call. */
static void print_dev_row(struct pr *o, const struct pt_topology *t,
			  const struct pt_device *d)
{
	char name[16], hex[3][12];

	pt_dev_name(t, d, name, sizeof(name));
	hex_string(hex[0], sizeof(hex[0]), d->vendor, 4);
	hex_string(hex[1], sizeof(hex[1]), d->device, 4);
	hex_string(hex[2], sizeof(hex[2]), d->class_code, 6);
	pr_open_object(o, PRINT_ANY, NULL);
	pr_device_object(o, t, d);
	pr_string(o, PRINT_ANY, "addr", "%-13s", d->addr);
	pr_string_or(o, PRINT_ANY, "name", " %-6s", name, "-");
	pr_string(o, PRINT_ANY, "role", " %-10s", ptc_role_name(d->role));
	pr_string(o, PRINT_ANY, "kind", " %-7s", ptc_kind_name(d->kind));
	pr_string(o, PRINT_ANY, "vendor", " %s", hex[0]);
	pr_string(o, PRINT_ANY, "device", ":%s", hex[1]);
	pr_string(o, PRINT_ANY, "class", " %s", hex[2]);
	if (d->numa_node >= 0)
		pr_int(o, PRINT_ANY, "numa_node", " %-4d", d->numa_node);
	else
		pr_null(o, PRINT_ANY, "numa_node", " %-4s", "-");
	pr_string_or(o, PRINT_ANY, "parent", " %-13s", d->parent, "-");
	/* the column is every device's; the key only a NIC's */
	pr_string_or(o, d->kind == PCITOPO_KIND_NIC ? PRINT_ANY : PRINT_FP,
		     "rdma", " %s\n", d->rdma, "-");
	pr_close_object(o);
}

int print_devs(struct ctx *c, const struct pt_topology *t,
	       const struct pt_device *only)
{
	struct pr o;
	size_t i;

	if (only) {
		print_detail(c, t, only, false);
		return 0;
	}
	pr_begin(&o, c);
	pr_text(&o, "%-13s %-6s %-10s %-7s %-9s %-6s %-4s %-13s %s\n",
		"ADDRESS", "NAME", "ROLE", "KIND", "ID", "CLASS", "NUMA",
		"PARENT", "RDMA");
	pr_open_array(&o, PRINT_ANY, NULL, NULL, NULL);
	for (i = 0; i < t->n_devices; i++)
		print_dev_row(&o, t, &t->devices[i]);
	pr_close_array(&o, NULL, NULL);
	return pr_end(&o) ? 1 : 0;
}

/* Report a DEV argument that names nothing; returns the exit code 1. */
static int bad_dev(struct ctx *c, const char *arg, int r)
{
	fprintf(c->err, "topoctl: %s: %s\n", arg,
		r == -EINVAL ? "not a device name (GPUn, NICn, NVMEn or a bus address)" :
			       "no such device");
	return 1;
}

static int dev_list(struct ctx *c, int argc, char **argv)
{
	struct pt_topology t = { 0 };
	int r;

	if (argc > 0)
		return usage_error(c, "unexpected argument '%s' to 'dev list'\n"
				   "Try 'topoctl dev help'.", argv[0]);
	r = load_topology(c, &t);
	if (!r)
		r = print_devs(c, &t, NULL);
	pt_topology_free(&t);
	return r;
}

static int dev_show(struct ctx *c, int argc, char **argv)
{
	const struct pt_device *d;
	struct pt_topology t = { 0 };
	int r;

	if (argc != 1)
		return usage_error(c, "'dev show' takes one DEV\n"
				   "Try 'topoctl dev help'.");
	r = load_topology(c, &t);
	if (r)
		return r;
	r = pt_dev_resolve(&t, argv[0], &d);
	r = r ? bad_dev(c, argv[0], r) : print_devs(c, &t, d);
	pt_topology_free(&t);
	return r;
}

static const struct cmd dev_cmds[] = {
	{ "list", dev_list, NULL },
	{ "show", dev_show, NULL },
	{ NULL, NULL, NULL }
};

int do_dev(struct ctx *c, int argc, char **argv)
{
	return dispatch(c, "dev", dev_cmds, argc, argv);
}
