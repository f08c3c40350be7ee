// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl path show A B: the module's class, hop count, common bridge and
 * bottleneck for a pair of endpoints, and the route itself, walked from the
 * device table: up from A to the common bridge (or to the root ports and host
 * bridges when there is none), then down to B. Text and -j come from the
 * same calls (print.h): each hop has its name and its marks ("common",
 * "bottleneck") in both.
 */
#include <errno.h>
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

#define MAX_DEPTH	64

struct hop {
	const struct pt_device *d;	/* NULL: a host bridge */
	const char *host_bridge;
};

/* The chain from d up to its root bus device; returns its length. */
static size_t chain(const struct pt_topology *t, const struct pt_device *d,
		    const struct pt_device **out)
{
	size_t n = 0;

	while (d && n < MAX_DEPTH) {
		out[n++] = d;
		d = d->parent[0] ? pt_topology_find(t, d->parent) : NULL;
	}
	return n;
}

/* The route from a to b; returns the number of hops. */
static size_t route(const struct pt_topology *t, const struct pt_device *a,
		    const struct pt_device *b, struct hop *out, size_t max)
{
	const struct pt_device *ca[MAX_DEPTH], *cb[MAX_DEPTH];
	size_t na = chain(t, a, ca), nb = chain(t, b, cb), i, j, n = 0;
	size_t ia = na, ib = nb;

	for (i = 0; i < na && ia == na; i++)
		for (j = 0; j < nb; j++)
			if (ca[i] == cb[j]) {
				ia = i;
				ib = j;
				break;
			}
	for (i = 0; i < ia && n < max; i++)
		out[n++] = (struct hop){ .d = ca[i] };
	if (ia < na) {
		if (n < max)
			out[n++] = (struct hop){ .d = ca[ia] };
	} else {
		const char *ha = na ? ca[na - 1]->host_bridge : "";
		const char *hb = nb ? cb[nb - 1]->host_bridge : "";

		if (n < max)
			out[n++] = (struct hop){ .host_bridge = ha };
		if (strcmp(ha, hb) && n < max)
			out[n++] = (struct hop){ .host_bridge = hb };
	}
	for (j = ib; j-- > 0 && n < max;)
		out[n++] = (struct hop){ .d = cb[j] };
	return n;
}

/* One hop of the route: a device, or a host bridge (d NULL). The text is
 * "ADDR ROLE NAME (MARKS)" in columns with no trailing blanks, so a column
 * is padded only when something follows it. */
static void print_hop(struct pr *o, const struct pt_topology *t,
		      const struct pt_path *p, const struct hop *h)
{
	const struct pt_device *d = h->d;
	bool common = d && !strcmp(d->addr, p->common);
	bool neck = d && !strcmp(d->addr, p->bottleneck);
	bool marks = common || neck;
	char name[16] = "";

	if (d)
		pt_dev_name(t, d, name, sizeof(name));
	pr_open_object(o, PRINT_ANY, NULL);
	pr_string(o, PRINT_ANY, "addr", "    %-13s",
		  d ? d->addr : h->host_bridge);
	pr_string(o, PRINT_ANY, "role", name[0] || marks ? " %-10s" : " %s",
		  d ? ptc_role_name(d->role) : "host-bridge");
	pr_string_or(o, PRINT_ANY, "name", marks ? " %-5s" : " %s", name,
		     marks ? "" : NULL);
	pr_open_array(o, PRINT_ANY, "marks", " (", ", ");
	if (common)
		pr_string(o, PRINT_ANY, NULL, "%s", "common");
	if (neck)
		pr_string(o, PRINT_ANY, NULL, "%s", "bottleneck");
	pr_close_array(o, ")\n", "\n");
	pr_close_object(o);
}

int print_path(struct ctx *c, const struct pt_topology *t,
	       const struct pt_path *p)
{
	const struct pt_device *a = pt_topology_find(t, p->a);
	const struct pt_device *b = pt_topology_find(t, p->b);
	char na[16] = "", nb[16] = "", bw[32];
	struct hop hops[2 * MAX_DEPTH + 2];
	struct pr o;
	size_t n = 0, i;

	if (a)
		pt_dev_name(t, a, na, sizeof(na));
	if (b)
		pt_dev_name(t, b, nb, sizeof(nb));
	if (a && b)
		n = route(t, a, b, hops, sizeof(hops) / sizeof(hops[0]));
	fmt_bw(bw, sizeof(bw), p->bottleneck_bw);
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	/* the path's object as `export` has it; each field the text shows is
	 * then written into it by the call that prints it */
	pr_path_object(&o, t, p);
	pr_string(&o, PRINT_ANY, "a", "%s", p->a);
	pr_string_or(&o, PRINT_ANY, "a_name", " (%s)", na, NULL);
	pr_string(&o, PRINT_ANY, "b", " -> %s", p->b);
	pr_string_or(&o, PRINT_ANY, "b_name", " (%s)", nb, NULL);
	pr_nl(&o);
	pr_string(&o, PRINT_ANY, "class", "  class:       %s\n",
		  ptc_class_name(p->path_class));
	pr_uint(&o, PRINT_ANY, "hops", "  hops:        %u\n", p->hops);
	pr_string_or(&o, PRINT_ANY, "common", "  common:      %s\n", p->common,
		     "- (host bridge or above)");
	pr_string_or(&o, PRINT_ANY, "bottleneck", "  bottleneck:  %s",
		     p->bottleneck, "-");
	pr_uint_as(&o, PRINT_ANY, "bottleneck_bw", p->bottleneck_bw,
		   ", %s each way\n", bw);
	pr_path_flags(&o, PRINT_ANY, "flags", "  flags:       %s\n", p->flags);
	pr_text(&o, "  route:\n");
	pr_open_array(&o, PRINT_ANY, "route", NULL, NULL);
	for (i = 0; i < n; i++)
		print_hop(&o, t, p, &hops[i]);
	pr_close_array(&o, NULL, NULL);
	pr_close_object(&o);
	return pr_end(&o) ? 1 : 0;
}

static int path_show(struct ctx *c, int argc, char **argv)
{
	const struct pt_device *d[2];
	struct pt_topology t = { 0 };
	struct pt_path p;
	int r, i;

	if (argc != 2)
		return usage_error(c, "'path show' takes two DEVs\n"
				   "Try 'topoctl path help'.");
	r = load_topology(c, &t);
	if (r)
		return r;
	for (i = 0; i < 2; i++) {
		r = pt_dev_resolve(&t, argv[i], &d[i]);
		if (r) {
			fprintf(c->err, "topoctl: %s: %s\n", argv[i],
				r == -EINVAL ? "not a device name (GPUn, NICn, NVMEn or a bus address)" :
					       "no such device");
			pt_topology_free(&t);
			return 1;
		}
	}
	if (c->from_sysfs) {
		/* the table the module would hold, else the core's answer */
		struct ptc_topo pt;
		const struct pt_path *f;

		(void)pt_derive_open(&t, &pt);
		f = pt_path_of(&pt, &t, d[0], d[1], &p);
		if (f) {
			r = print_path(c, &t, f);
		} else {
			fprintf(c->err, "topoctl: no path between %s and %s\n",
				argv[0], argv[1]);
			r = 1;
		}
		pt_derive_close(&pt);
	} else if ((r = pt_nl_get_path(c->nl, d[0]->addr, d[1]->addr, &p))) {
		char what[64];

		snprintf(what, sizeof(what), "path %s %s", argv[0], argv[1]);
		r = nl_error(c, what, r);
	} else {
		r = print_path(c, &t, &p);
	}
	pt_topology_free(&t);
	return r;
}

static const struct cmd path_cmds[] = {
	{ "show", path_show, NULL },
	{ NULL, NULL, NULL }
};

int do_path(struct ctx *c, int argc, char **argv)
{
	if (argc == 0)
		return usage_error(c, "'path' needs a command\n"
				   "Try 'topoctl path help'.");
	return dispatch(c, "path", path_cmds, argc, argv);
}
