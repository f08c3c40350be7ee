// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: the model's objects through the print layer (print.h): the
 * summary, a device, a path and their flags, with the keys and values
 * every -j command and `export` share. Units: speeds in MT/s, bandwidth in
 * MB/s each way; IDs as hex strings; "no value" is null.
 */
#include <stdio.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

struct word {
	unsigned int bit;
	const char *name;
};

static const struct word link_words[] = {
	{ PCITOPO_LINK_F_WIDTH_DOWN, "downtrained-width" },
	{ PCITOPO_LINK_F_SPEED_DOWN, "speed-low" },
};

static const struct word path_words[] = {
	{ PCITOPO_PATH_F_ACS_REDIRECT, "acs-redirect" },
	{ PCITOPO_PATH_F_NUMA_UNKNOWN, "numa-unknown" },
	{ PCITOPO_PATH_F_WIDTH_DOWN, "downtrained-width" },
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))
/* the most words a device's flags give: link-down, the link words,
 * acs-redirect, hotplug */
#define DEV_WORDS	(N(link_words) + 3)

void pr_dev_flags(struct pr *p, enum pr_where w, const char *key,
		  const char *fmt, const struct pt_device *d)
{
	const char *words[DEV_WORDS];
	size_t i, n = 0;

	if (pt_device_has_link(d)) {
		if (pt_has(d, PCITOPO_A_DEV_LINK_FLAGS) &&
		    !(d->link_flags & PCITOPO_LINK_F_ACTIVE))
			words[n++] = "link-down";
		for (i = 0; i < N(link_words); i++)
			if (d->link_flags & link_words[i].bit)
				words[n++] = link_words[i].name;
	}
	if (pt_device_acs_redirect(d))
		words[n++] = "acs-redirect";
	if (d->hotplug)
		words[n++] = "hotplug";
	pr_words(p, w, key, fmt, words, n);
}

void pr_path_flags(struct pr *p, enum pr_where w, const char *key,
		   const char *fmt, unsigned int flags)
{
	const char *words[N(path_words)];
	size_t i, n = 0;

	for (i = 0; i < N(path_words); i++)
		if (flags & path_words[i].bit)
			words[n++] = path_words[i].name;
	pr_words(p, w, key, fmt, words, n);
}

static void hex(struct pr *p, const char *key, unsigned int v, int digits)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%0*x", digits, v);
	pr_string(p, PRINT_JSON, key, NULL, buf);
}

/* The device's upstream link, null without one. */
static void link_object(struct pr *p, const struct pt_device *d)
{
	if (!pt_device_has_link(d)) {
		pr_null(p, PRINT_JSON, "link", NULL, NULL);
		return;
	}
	pr_open_object(p, PRINT_JSON, "link");
	pr_uint(p, PRINT_JSON, "speed", NULL, d->link_speed);
	pr_uint(p, PRINT_JSON, "width", NULL, d->link_width);
	pr_uint(p, PRINT_JSON, "max_speed", NULL, d->link_max_speed);
	pr_uint(p, PRINT_JSON, "max_width", NULL, d->link_max_width);
	pr_uint(p, PRINT_JSON, "bw", NULL, d->link_bw);
	pr_uint(p, PRINT_JSON, "max_bw", NULL, d->link_max_bw);
	/* without flags (an older module), a link with a speed is up */
	pr_bool(p, PRINT_JSON, "active", NULL,
		!pt_has(d, PCITOPO_A_DEV_LINK_FLAGS) ||
		(d->link_flags & PCITOPO_LINK_F_ACTIVE));
	pr_bool(p, PRINT_JSON, "speed_low", NULL,
		d->link_flags & PCITOPO_LINK_F_SPEED_DOWN);
	pr_bool(p, PRINT_JSON, "downtrained_width", NULL,
		d->link_flags & PCITOPO_LINK_F_WIDTH_DOWN);
	pr_close_object(p);
}

void pr_device_object(struct pr *p, const struct pt_topology *t,
		      const struct pt_device *d)
{
	char name[PT_NAME_LEN];

	pt_dev_name(t, d, name, sizeof(name));
	pr_string(p, PRINT_JSON, "name", NULL, name);
	pr_string(p, PRINT_JSON, "addr", NULL, d->addr);
	pr_string(p, PRINT_JSON, "role", NULL, ptc_role_name(d->role));
	pr_string(p, PRINT_JSON, "kind", NULL, ptc_kind_name(d->kind));
	hex(p, "vendor", d->vendor, 4);
	hex(p, "device", d->device, 4);
	hex(p, "class", d->class_code, 6);
	pr_string(p, PRINT_JSON, "parent", NULL, d->parent);
	pr_string(p, PRINT_JSON, "root_port", NULL, d->root_port);
	pr_string(p, PRINT_JSON, "switch", NULL, d->sw);
	pr_string(p, PRINT_JSON, "host_bridge", NULL, d->host_bridge);
	if (d->numa_node >= 0)
		pr_int(p, PRINT_JSON, "numa_node", NULL, d->numa_node);
	else
		pr_null(p, PRINT_JSON, "numa_node", NULL, NULL);
	link_object(p, d);
	if (pt_has(d, PCITOPO_A_DEV_SLOT))
		pr_uint(p, PRINT_JSON, "slot", NULL, d->slot);
	else
		pr_null(p, PRINT_JSON, "slot", NULL, NULL);
	pr_bool(p, PRINT_JSON, "hotplug", NULL, d->hotplug);
	if (pt_has(d, PCITOPO_A_DEV_ACS_CAP)) {
		hex(p, "acs_cap", d->acs_cap, 4);
		hex(p, "acs_ctrl", d->acs_ctrl, 4);
	}
	pr_bool(p, PRINT_JSON, "acs_redirect", NULL, pt_device_acs_redirect(d));
	pr_dev_flags(p, PRINT_JSON, "flags", NULL, d);
	if (d->kind == PCITOPO_KIND_NIC) {
		pr_bool(p, PRINT_JSON, "rdma_capable", NULL, d->rdma[0]);
		pr_string(p, PRINT_JSON, "rdma", NULL, d->rdma);
		pr_string(p, PRINT_JSON, "netdev", NULL, d->netdev);
	}
}

/* The name of the device at addr in t, "" if none. */
static void name_of(const struct pt_topology *t, const char *addr, char *buf,
		    size_t len)
{
	const struct pt_device *d = t ? pt_topology_find(t, addr) : NULL;

	buf[0] = '\0';
	if (d)
		pt_dev_name(t, d, buf, len);
}

void pr_path_object(struct pr *p, const struct pt_topology *t,
		    const struct pt_path *path)
{
	char name[PT_NAME_LEN];

	pr_string(p, PRINT_JSON, "a", NULL, path->a);
	name_of(t, path->a, name, sizeof(name));
	pr_string(p, PRINT_JSON, "a_name", NULL, name);
	pr_string(p, PRINT_JSON, "b", NULL, path->b);
	name_of(t, path->b, name, sizeof(name));
	pr_string(p, PRINT_JSON, "b_name", NULL, name);
	pr_string(p, PRINT_JSON, "class", NULL,
		  ptc_class_name(path->path_class));
	pr_uint(p, PRINT_JSON, "hops", NULL, path->hops);
	pr_string(p, PRINT_JSON, "common", NULL, path->common);
	pr_string(p, PRINT_JSON, "bottleneck", NULL, path->bottleneck);
	pr_uint(p, PRINT_JSON, "bottleneck_bw", NULL, path->bottleneck_bw);
	pr_path_flags(p, PRINT_JSON, "flags", NULL, path->flags);
}

void pr_summary_object(struct pr *p, const struct pt_summary *s)
{
	pr_u64(p, PRINT_JSON, "generation", NULL, s->generation);
	pr_string(p, PRINT_JSON, "layout", NULL, ptc_layout_name(s->layout));
	pr_string(p, PRINT_JSON, "reason", NULL, s->reason);
	pr_uint(p, PRINT_JSON, "devices", NULL, s->count_devices);
	pr_uint(p, PRINT_JSON, "gpus", NULL, s->count_gpus);
	pr_uint(p, PRINT_JSON, "nics", NULL, s->count_nics);
	pr_uint(p, PRINT_JSON, "nvmes", NULL, s->count_nvmes);
	pr_uint(p, PRINT_JSON, "switches", NULL, s->count_switches);
	pr_uint(p, PRINT_JSON, "root_ports", NULL, s->count_root_ports);
	pr_uint(p, PRINT_JSON, "numa_nodes", NULL, s->count_numa_nodes);
	pr_uint(p, PRINT_JSON, "paths", NULL, s->count_paths);
}

void pr_export_object(struct pr *p, const struct pt_topology *t)
{
	size_t i;

	pr_open_object(p, PRINT_JSON, NULL);
	pr_open_object(p, PRINT_JSON, "summary");
	pr_summary_object(p, &t->summary);
	pr_close_object(p);
	pr_open_array(p, PRINT_JSON, "devices", NULL, NULL);
	for (i = 0; i < t->n_devices; i++) {
		pr_open_object(p, PRINT_JSON, NULL);
		pr_device_object(p, t, &t->devices[i]);
		pr_close_object(p);
	}
	pr_close_array(p, NULL, NULL);
	pr_open_array(p, PRINT_JSON, "paths", NULL, NULL);
	for (i = 0; i < t->n_paths; i++) {
		pr_open_object(p, PRINT_JSON, NULL);
		pr_path_object(p, t, &t->paths[i]);
		pr_close_object(p);
	}
	pr_close_array(p, NULL, NULL);
	pr_close_object(p);
}
