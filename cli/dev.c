// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl dev: every device pcitopo tracks (ports and endpoints of
 * interest), in PCI bus order.
 */
#include <errno.h>
#include <string.h>

#include "ptc.h"
#include "topoctl.h"

static void kv(struct ctx *c, const char *k, const char *v)
{
	fprintf(c->out, "  %-12s %s\n", k, v && *v ? v : "-");
}

void print_detail(struct ctx *c, const struct pt_topology *t,
		  const struct pt_device *dev, bool port)
{
	char name[16], buf[160], a[32], b[32];
	struct pt_device d;
	const struct pt_device *h;
	size_t i;
	int n;

	(void)port;	/* every view shows the link a port sits on */
	port_link_view(t, dev, &d);
	if (c->json) {
		emit_json(c, json_device(t, &d));
		return;
	}
	dev_name(t, &d, name, sizeof(name));
	fprintf(c->out, "%s%s%s%s\n", d.addr, name[0] ? " (" : "", name,
		name[0] ? ")" : "");
	kv(c, "role:", ptc_role_name(d.role));
	kv(c, "kind:", ptc_kind_name(d.kind));
	snprintf(buf, sizeof(buf), "%04x:%04x class %06x", d.vendor, d.device,
		 d.class_code);
	kv(c, "id:", buf);
	kv(c, "parent:", d.parent);
	kv(c, "switch:", d.sw);
	kv(c, "root-port:", d.root_port);
	kv(c, "host-bridge:", d.host_bridge);
	if (d.numa_node >= 0)
		snprintf(buf, sizeof(buf), "%d", d.numa_node);
	else
		snprintf(buf, sizeof(buf), "unknown");
	kv(c, "numa-node:", buf);
	if (d.kind == PCITOPO_KIND_NIC) {
		kv(c, "rdma:", d.rdma[0] ? d.rdma : "none (not an RDMA device: "
		   "nvidia-smi and NCCL's IB transport skip it)");
		if (d.netdev[0])
			kv(c, "netdev:", d.netdev);
	}
	if (dev_has_link(&d)) {
		fmt_link(a, sizeof(a), d.link_speed, d.link_width);
		fmt_link(b, sizeof(b), d.link_max_speed, d.link_max_width);
		h = link_holder(t, dev);
		snprintf(buf, sizeof(buf), "%s (max %s)%s%s", a, b,
			 h && h != dev ? " to " : "",
			 h && h != dev ? h->addr : "");
		kv(c, "link:", buf);
		fmt_bw(a, sizeof(a), d.link_bw);
		fmt_bw(b, sizeof(b), d.link_max_bw);
		snprintf(buf, sizeof(buf), "%s (max %s) each way", a, b);
		kv(c, "bandwidth:", buf);
	} else {
		kv(c, "link:", "none");
	}
	if (pt_has(&d, PCITOPO_A_DEV_SLOT)) {
		snprintf(buf, sizeof(buf), "%u%s", d.slot,
			 d.hotplug ? " (hotplug)" : "");
		kv(c, "slot:", buf);
	}
	if (pt_has(&d, PCITOPO_A_DEV_ACS_CAP) && d.acs_cap) {
		snprintf(buf, sizeof(buf), "cap %04x ctrl %04x%s", d.acs_cap,
			 d.acs_ctrl,
			 pt_device_acs_redirect(&d) ? " (P2P redirect on)" : "");
		kv(c, "acs:", buf);
	}
	fmt_dev_flags(buf, sizeof(buf), &d);
	kv(c, "flags:", buf);
	buf[0] = '\0';
	for (i = 0, n = 0; i < t->n_devices; i++) {
		size_t len = strlen(buf);

		if (strcmp(t->devices[i].parent, d.addr))
			continue;
		snprintf(buf + len, sizeof(buf) - len, "%s%s", n++ ? " " : "",
			 t->devices[i].addr);
	}
	if (n)
		kv(c, "children:", buf);
}

int print_devs(struct ctx *c, const struct pt_topology *t,
	       const struct pt_device *only)
{
	char name[16], numa[12];
	struct json_object *a;
	size_t i;

	if (only) {
		print_detail(c, t, only, false);
		return 0;
	}
	if (c->json) {
		a = json_object_new_array();
		for (i = 0; i < t->n_devices; i++)
			json_object_array_add(a, json_device(t, &t->devices[i]));
		emit_json(c, a);
		return 0;
	}
	fprintf(c->out, "%-13s %-6s %-10s %-7s %-9s %-6s %-4s %-13s %s\n",
		"ADDRESS", "NAME", "ROLE", "KIND", "ID", "CLASS", "NUMA",
		"PARENT", "RDMA");
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];
		char id[12];

		dev_name(t, d, name, sizeof(name));
		snprintf(id, sizeof(id), "%04x:%04x", d->vendor, d->device);
		if (d->numa_node >= 0)
			snprintf(numa, sizeof(numa), "%d", d->numa_node);
		else
			strcpy(numa, "-");
		fprintf(c->out, "%-13s %-6s %-10s %-7s %-9s %06x %-4s %-13s %s\n",
			d->addr, name[0] ? name : "-", ptc_role_name(d->role),
			ptc_kind_name(d->kind), id, d->class_code, numa,
			d->parent[0] ? d->parent : "-",
			d->rdma[0] ? d->rdma : "-");
	}
	return 0;
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
	r = resolve_dev(&t, argv[0], &d);
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
