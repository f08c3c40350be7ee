// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl port: root ports, switch upstream and downstream ports (and other
 * bridges) with their links. A downstream-facing port shows the link below
 * it (both ends of a link report the same figures); an upstream port the
 * link above it. "downtrained-width" is a fault (lanes lost: riser, seating);
 * "speed-low" is often an idle GPU saving power.
 */
#include <errno.h>
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

static bool is_port(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ROOT_PORT ||
	       d->role == PCITOPO_ROLE_UPSTREAM ||
	       d->role == PCITOPO_ROLE_DOWNSTREAM ||
	       d->role == PCITOPO_ROLE_BRIDGE;
}

static const int link_attrs[] = {
	PCITOPO_A_DEV_LINK_SPEED, PCITOPO_A_DEV_LINK_WIDTH,
	PCITOPO_A_DEV_LINK_MAX_SPEED, PCITOPO_A_DEV_LINK_MAX_WIDTH,
	PCITOPO_A_DEV_LINK_BW, PCITOPO_A_DEV_LINK_MAX_BW,
	PCITOPO_A_DEV_LINK_FLAGS,
};

/* The link figures of out, and which of them are present, become from's. */
static void take_link(struct pt_device *out, const struct pt_device *from)
{
	size_t i;

	for (i = 0; i < sizeof(link_attrs) / sizeof(link_attrs[0]); i++) {
		out->present &= ~PT_BIT(link_attrs[i]);
		out->present |= from->present & PT_BIT(link_attrs[i]);
	}
	out->link_speed = from->link_speed;
	out->link_width = from->link_width;
	out->link_max_speed = from->link_max_speed;
	out->link_max_width = from->link_max_width;
	out->link_bw = from->link_bw;
	out->link_max_bw = from->link_max_bw;
	out->link_flags = from->link_flags;
}

void port_link_view(const struct pt_topology *t, const struct pt_device *d,
		    struct pt_device *out)
{
	static const struct pt_device no_link;
	const struct pt_device *h = link_holder(t, d);

	*out = *d;
	if (h == d)
		return;
	take_link(out, h ? h : &no_link);
	out->present |= PT_BIT(PCITOPO_A_DEV_LINK_FLAGS);	/* 0: "no link" */
}

/* One row of the table. The JSON is the device's object
 * (pr_device_object(), the schema `export` shares); each column the text
 * shows is written by the same call into it. LINK..MAX-BW are the text of its "link" object. */
static void print_port_row(struct pr *o, const struct pt_topology *t,
			   const struct pt_device *v)
{
	char link[32] = "-", max[32] = "-", bw[24], mbw[24];
	bool has = pt_device_has_link(v);

	if (has) {
		fmt_link(link, sizeof(link), v->link_speed, v->link_width);
		fmt_link(max, sizeof(max), v->link_max_speed, v->link_max_width);
	}
	fmt_bw(bw, sizeof(bw), has ? v->link_bw : 0);
	fmt_bw(mbw, sizeof(mbw), has ? v->link_max_bw : 0);
	pr_open_object(o, PRINT_ANY, NULL);
	pr_device_object(o, t, v);
	pr_string(o, PRINT_ANY, "addr", "%-13s", v->addr);
	pr_string(o, PRINT_ANY, "role", " %-10s", ptc_role_name(v->role));
	pr_string_or(o, PRINT_ANY, "switch", " %-13s", v->sw, "-");
	pr_text(o, " %-12s %-12s %-10s %-10s", link, max, bw, mbw);
	pr_dev_flags(o, PRINT_ANY, "flags", " %s\n", v);
	pr_close_object(o);
}

int print_ports(struct ctx *c, const struct pt_topology *t,
		const struct pt_device *only)
{
	struct pt_device v;
	struct pr o;
	size_t i;

	if (only) {
		print_detail(c, t, only, true);
		return 0;
	}
	pr_begin(&o, c);
	pr_text(&o, "%-13s %-10s %-13s %-12s %-12s %-10s %-10s %s\n", "PORT",
		"ROLE", "SWITCH", "LINK", "MAX", "BW", "MAX-BW", "FLAGS");
	pr_open_array(&o, PRINT_ANY, NULL, NULL, NULL);
	for (i = 0; i < t->n_devices; i++) {
		if (!is_port(&t->devices[i]))
			continue;
		port_link_view(t, &t->devices[i], &v);
		print_port_row(&o, t, &v);
	}
	pr_close_array(&o, NULL, NULL);
	return pr_end(&o) ? 1 : 0;
}

static int port_list(struct ctx *c, int argc, char **argv)
{
	struct pt_topology t = { 0 };
	int r;

	if (argc > 0)
		return usage_error(c, "unexpected argument '%s' to 'port list'\n"
				   "Try 'topoctl port help'.", argv[0]);
	r = load_topology(c, &t);
	if (!r)
		r = print_ports(c, &t, NULL);
	pt_topology_free(&t);
	return r;
}

static int port_show(struct ctx *c, int argc, char **argv)
{
	const struct pt_device *d;
	struct pt_topology t = { 0 };
	int r;

	if (argc != 1)
		return usage_error(c, "'port show' takes one PORT\n"
				   "Try 'topoctl port help'.");
	r = load_topology(c, &t);
	if (r)
		return r;
	r = pt_dev_resolve(&t, argv[0], &d);
	if (r || !is_port(d)) {
		fprintf(c->err, "topoctl: %s: %s\n", argv[0],
			r == -EINVAL ? "not a port address" :
			r ? "no such port" : "not a port");
		r = 1;
	} else {
		r = print_ports(c, &t, d);
	}
	pt_topology_free(&t);
	return r;
}

static const struct cmd port_cmds[] = {
	{ "list", port_list, NULL },
	{ "show", port_show, NULL },
	{ NULL, NULL, NULL }
};

int do_port(struct ctx *c, int argc, char **argv)
{
	return dispatch(c, "port", port_cmds, argc, argv);
}
