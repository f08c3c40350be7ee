// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl path show A B: the module's class, hop count, common bridge and
 * bottleneck for a pair of endpoints, and the route itself, walked from the
 * device table: up from A to the common bridge (or to the root ports and host
 * bridges when there is none), then down to B.
 */
#include <errno.h>
#include <string.h>

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

int print_path(struct ctx *c, const struct pt_topology *t,
	       const struct pt_path *p)
{
	const struct pt_device *a = pt_topology_find(t, p->a);
	const struct pt_device *b = pt_topology_find(t, p->b);
	char na[16] = "", nb[16] = "", buf[64], name[16];
	struct hop hops[2 * MAX_DEPTH + 2];
	struct json_object *o = NULL, *r = NULL, *h;
	size_t n = 0, i, len;

	if (a)
		dev_name(t, a, na, sizeof(na));
	if (b)
		dev_name(t, b, nb, sizeof(nb));
	if (a && b)
		n = route(t, a, b, hops, sizeof(hops) / sizeof(hops[0]));
	if (c->json) {
		o = json_path(t, p);
		r = json_object_new_array();
	} else {
		fprintf(c->out, "%s%s%s%s -> %s%s%s%s\n", p->a,
			na[0] ? " (" : "", na, na[0] ? ")" : "", p->b,
			nb[0] ? " (" : "", nb, nb[0] ? ")" : "");
		fprintf(c->out, "  %-12s %s\n", "class:",
			ptc_class_name(p->path_class));
		fprintf(c->out, "  %-12s %u\n", "hops:", p->hops);
		fprintf(c->out, "  %-12s %s\n", "common:",
			p->common[0] ? p->common : "- (host bridge or above)");
		fmt_bw(buf, sizeof(buf), p->bottleneck_bw);
		fprintf(c->out, "  %-12s %s, %s each way\n", "bottleneck:",
			p->bottleneck[0] ? p->bottleneck : "-", buf);
		fmt_path_flags(buf, sizeof(buf), p->flags);
		fprintf(c->out, "  %-12s %s\n", "flags:", buf);
		fprintf(c->out, "  route:\n");
	}
	for (i = 0; i < n; i++) {
		const struct pt_device *d = hops[i].d;
		const char *mark = "";

		if (d && !strcmp(d->addr, p->common))
			mark = "common";
		if (d && !strcmp(d->addr, p->bottleneck))
			mark = *mark ? "common, bottleneck" : "bottleneck";
		if (r) {
			h = json_object_new_object();
			json_object_object_add(h, "addr", json_object_new_string(
				d ? d->addr : hops[i].host_bridge));
			json_object_object_add(h, "role", json_object_new_string(
				d ? ptc_role_name(d->role) : "host-bridge"));
			json_object_array_add(r, h);
			continue;
		}
		if (!d) {
			fprintf(c->out, "    %-13s %s\n", hops[i].host_bridge,
				"host-bridge");
			continue;
		}
		dev_name(t, d, name, sizeof(name));
		snprintf(buf, sizeof(buf), "%-13s %-10s %-5s %s%s%s", d->addr,
			 ptc_role_name(d->role), name, *mark ? "(" : "", mark,
			 *mark ? ")" : "");
		for (len = strlen(buf); len && buf[len - 1] == ' ';)
			buf[--len] = '\0';
		fprintf(c->out, "    %s\n", buf);
	}
	if (o) {
		json_object_object_add(o, "route", r);
		emit_json(c, o);
	}
	return 0;
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
		r = resolve_dev(&t, argv[i], &d[i]);
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
		const struct pt_path *f = pt_topology_find_path(&t, d[0]->addr,
								d[1]->addr);
		struct ptc_topo pt;

		r = 0;
		if (f) {
			p = *f;
		} else if (derive_open(&t, &pt) ||
			   derive_path(&pt, &t, d[0], d[1], &p)) {
			fprintf(c->err, "topoctl: no path between %s and %s\n",
				argv[0], argv[1]);
			r = 1;
		}
		if (!f)
			derive_close(&pt);
		if (!r)
			r = print_path(c, &t, &p);
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
