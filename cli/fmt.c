// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: figures as words, and the JSON objects every command builds its
 * output from. Units in JSON: speeds in MT/s, bandwidth in MB/s each way.
 */
#include <errno.h>
#include <string.h>

#include "ptc.h"
#include "rfile.h"
#include "topoctl.h"

void fmt_speed(char *buf, size_t len, unsigned int mts)
{
	if (!mts)
		snprintf(buf, len, "?");
	else if (mts % 1000)
		snprintf(buf, len, "%u.%uGT/s", mts / 1000, mts % 1000 / 100);
	else
		snprintf(buf, len, "%uGT/s", mts / 1000);
}

void fmt_link(char *buf, size_t len, unsigned int mts, unsigned int width)
{
	char s[16];

	if (!mts && !width) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_speed(s, sizeof(s), mts);
	snprintf(buf, len, "%s x%u", s, width);
}

void fmt_bw(char *buf, size_t len, unsigned int mbs)
{
	if (!mbs)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u.%u GB/s", mbs / 1000, mbs % 1000 / 100);
}

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

static void add_word(char *buf, size_t len, const char *w)
{
	size_t n = strlen(buf);

	if (n)
		snprintf(buf + n, len - n, ",%s", w);
	else
		snprintf(buf, len, "%s", w);
}

/* Calls fn for each word of the device's flags, in a fixed order. */
static void dev_words(const struct pt_device *d,
		      void (*fn)(const char *w, void *arg), void *arg)
{
	size_t i;

	if (pt_device_has_link(d)) {
		if (pt_has(d, PCITOPO_A_DEV_LINK_FLAGS) &&
		    !(d->link_flags & PCITOPO_LINK_F_ACTIVE))
			fn("link-down", arg);
		for (i = 0; i < sizeof(link_words) / sizeof(link_words[0]); i++)
			if (d->link_flags & link_words[i].bit)
				fn(link_words[i].name, arg);
	}
	if (pt_device_acs_redirect(d))
		fn("acs-redirect", arg);
	if (d->hotplug)
		fn("hotplug", arg);
}

struct wbuf {
	char *buf;
	size_t len;
};

static void word_to_buf(const char *w, void *arg)
{
	struct wbuf *b = arg;

	add_word(b->buf, b->len, w);
}

static void word_to_json(const char *w, void *arg)
{
	json_object_array_add(arg, json_object_new_string(w));
}

void fmt_dev_flags(char *buf, size_t len, const struct pt_device *d)
{
	struct wbuf b = { buf, len };

	buf[0] = '\0';
	dev_words(d, word_to_buf, &b);
	if (!buf[0])
		snprintf(buf, len, "-");
}

struct json_object *json_dev_flags(const struct pt_device *d)
{
	struct json_object *a = json_object_new_array();

	dev_words(d, word_to_json, a);
	return a;
}

void fmt_path_flags(char *buf, size_t len, unsigned int flags)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(path_words) / sizeof(path_words[0]); i++)
		if (flags & path_words[i].bit)
			add_word(buf, len, path_words[i].name);
	if (!buf[0])
		snprintf(buf, len, "-");
}

struct json_object *json_path_flags(unsigned int flags)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < sizeof(path_words) / sizeof(path_words[0]); i++)
		if (flags & path_words[i].bit)
			json_object_array_add(a,
				json_object_new_string(path_words[i].name));
	return a;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v && *v ? json_object_new_string(v) :
					       NULL);
}

static void add_int(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_hex(struct json_object *o, const char *k, unsigned int v,
		    int digits)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%0*x", digits, v);
	add_str(o, k, buf);
}

struct json_object *json_link(const struct pt_device *d)
{
	struct json_object *o;

	if (!pt_device_has_link(d))
		return NULL;
	o = json_object_new_object();
	add_int(o, "speed", d->link_speed);
	add_int(o, "width", d->link_width);
	add_int(o, "max_speed", d->link_max_speed);
	add_int(o, "max_width", d->link_max_width);
	add_int(o, "bw", d->link_bw);
	add_int(o, "max_bw", d->link_max_bw);
	json_object_object_add(o, "active",
		json_object_new_boolean(!pt_has(d, PCITOPO_A_DEV_LINK_FLAGS) ||
					(d->link_flags & PCITOPO_LINK_F_ACTIVE)));
	json_object_object_add(o, "speed_low", json_object_new_boolean(
		(d->link_flags & PCITOPO_LINK_F_SPEED_DOWN) != 0));
	json_object_object_add(o, "downtrained_width", json_object_new_boolean(
		(d->link_flags & PCITOPO_LINK_F_WIDTH_DOWN) != 0));
	return o;
}

struct json_object *json_device(const struct pt_topology *t,
				const struct pt_device *d)
{
	struct json_object *o = json_object_new_object();
	char name[16];

	pt_dev_name(t, d, name, sizeof(name));
	add_str(o, "name", name);
	add_str(o, "addr", d->addr);
	add_str(o, "role", ptc_role_name(d->role));
	add_str(o, "kind", ptc_kind_name(d->kind));
	add_hex(o, "vendor", d->vendor, 4);
	add_hex(o, "device", d->device, 4);
	add_hex(o, "class", d->class_code, 6);
	add_str(o, "parent", d->parent);
	add_str(o, "root_port", d->root_port);
	add_str(o, "switch", d->sw);
	add_str(o, "host_bridge", d->host_bridge);
	json_object_object_add(o, "numa_node", d->numa_node >= 0 ?
			       json_object_new_int(d->numa_node) : NULL);
	json_object_object_add(o, "link", json_link(d));
	json_object_object_add(o, "slot", pt_has(d, PCITOPO_A_DEV_SLOT) ?
			       json_object_new_int64(d->slot) : NULL);
	json_object_object_add(o, "hotplug", json_object_new_boolean(d->hotplug));
	if (pt_has(d, PCITOPO_A_DEV_ACS_CAP)) {
		add_hex(o, "acs_cap", d->acs_cap, 4);
		add_hex(o, "acs_ctrl", d->acs_ctrl, 4);
	}
	json_object_object_add(o, "acs_redirect",
			       json_object_new_boolean(pt_device_acs_redirect(d)));
	json_object_object_add(o, "flags", json_dev_flags(d));
	if (d->kind == PCITOPO_KIND_NIC) {
		json_object_object_add(o, "rdma_capable",
				       json_object_new_boolean(d->rdma[0]));
		add_str(o, "rdma", d->rdma);
		add_str(o, "netdev", d->netdev);
	}
	return o;
}

struct json_object *json_path(const struct pt_topology *t,
			      const struct pt_path *p)
{
	struct json_object *o = json_object_new_object();
	const struct pt_device *d;
	char name[16] = "";

	add_str(o, "a", p->a);
	d = t ? pt_topology_find(t, p->a) : NULL;
	if (d)
		pt_dev_name(t, d, name, sizeof(name));
	add_str(o, "a_name", name);
	add_str(o, "b", p->b);
	name[0] = '\0';
	d = t ? pt_topology_find(t, p->b) : NULL;
	if (d)
		pt_dev_name(t, d, name, sizeof(name));
	add_str(o, "b_name", name);
	add_str(o, "class", ptc_class_name(p->path_class));
	add_int(o, "hops", p->hops);
	add_str(o, "common", p->common);
	add_str(o, "bottleneck", p->bottleneck);
	add_int(o, "bottleneck_bw", p->bottleneck_bw);
	json_object_object_add(o, "flags", json_path_flags(p->flags));
	return o;
}

struct json_object *json_summary(const struct pt_summary *s)
{
	struct json_object *o = json_object_new_object();

	add_int(o, "generation", (int64_t)s->generation);
	add_str(o, "layout", ptc_layout_name(s->layout));
	add_str(o, "reason", s->reason);
	add_int(o, "devices", s->count_devices);
	add_int(o, "gpus", s->count_gpus);
	add_int(o, "nics", s->count_nics);
	add_int(o, "nvmes", s->count_nvmes);
	add_int(o, "switches", s->count_switches);
	add_int(o, "root_ports", s->count_root_ports);
	add_int(o, "numa_nodes", s->count_numa_nodes);
	add_int(o, "paths", s->count_paths);
	return o;
}

void numa_cpulist(const struct ctx *c, int node, char *buf, size_t len)
{
	char path[512];
	size_t n;

	snprintf(buf, len, "N/A");
	if (node < 0)
		return;
	snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpulist",
		 c->sysfs, node);
	/* rfile.h: never blocks on what a saved tree holds there */
	if (pt_file_read(path, buf, len, NULL))
		buf[0] = '\0';
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	if (!n)
		snprintf(buf, len, "N/A");
}

const struct pt_device *link_holder(const struct pt_topology *t,
				    const struct pt_device *d)
{
	size_t i;

	if (!pt_device_is_dsp(d))
		return d;
	/* functions of one device share its link: the first in bus order */
	for (i = 0; i < t->n_devices; i++)
		if (!strcmp(t->devices[i].parent, d->addr))
			return &t->devices[i];
	return NULL;
}
