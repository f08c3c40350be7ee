// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Platform files, parsed with libconfig.
 *
 * Why libconfig (Debian libconfig-dev): maintained and packaged everywhere
 * we run; typed values (an integer is not a string, hex like 0x3c is an
 * integer), groups and arrays for the nested request/status layout; '#'
 * comments, which the template needs to document every key; and it reports
 * file and line for a syntax error, and the line of every setting
 * (config_setting_source_line) for our own semantic errors. The
 * alternatives in Debian: inih (no types, no nesting), json-c (no
 * comments, no line numbers), libyaml (an event parser: far more code for
 * the same checks).
 *
 * Every key is checked; unknown keys are errors (a misspelt optional key
 * would otherwise be silently ignored). This file reads what every
 * platform has; the transport's own keys are its section's
 * (platform_section.h), the checked reads platform_parse.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform_section.h"
#include "ptc.h"

/* the file's spelling, which topod's D-Bus properties and logs repeat */
static const char *const method_names[] = {
	[PT_PLAT_METHOD_SWITCHFW] = "switchfw",
	[PT_PLAT_METHOD_MUX] = "mux",
};
static const char *const apply_names[] = {
	[PT_PLAT_APPLY_ONLINE] = "online",
	[PT_PLAT_APPLY_POWER_CYCLE] = "power-cycle",
};

const char *pt_platform_method_name(enum pt_plat_method m)
{
	return m <= PT_PLAT_METHOD_MUX ? method_names[m] : "unknown";
}

const char *pt_platform_apply_name(enum pt_plat_apply a)
{
	return a <= PT_PLAT_APPLY_POWER_CYCLE ? apply_names[a] : "unknown";
}

static const char *const state_names[] = {
	"idle", "busy", "done", "failed", "unknown",
};

const char *pt_platform_state_name(enum pt_plat_state s)
{
	return s <= PT_PLAT_STATE_UNKNOWN ? state_names[s] : "unknown";
}

const char *pt_platform_transport_name(const struct pt_platform *plat)
{
	return plat->transport ? plat->transport->name : "";
}

const char *pt_platform_transports(char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; pt_plat_transports[i] && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				 pt_plat_transports[i]->name);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

/* keys of a, then of b, into out (max entries, NULL-terminated) */
static void join_keys(const char *const *a, const char *const *b,
		      const char **out, size_t max)
{
	size_t n = 0;

	for (; a && *a && n + 1 < max; a++)
		out[n++] = *a;
	for (; b && *b && n + 1 < max; b++)
		out[n++] = *b;
	out[n] = NULL;
}

static int parse_layouts(struct plat_ctx *c, config_setting_t *root,
			 struct pt_platform *p, config_setting_t **out)
{
	static const char *const own[] = { "gpus", NULL };
	const struct pt_plat_transport *t = p->transport;
	const char *keys[16];
	config_setting_t *ls;
	char list[64];
	int ret = 0, n, count = 0;

	join_keys(own, t->layout_keys, keys, sizeof(keys) / sizeof(keys[0]));
	ls = plat_need(c, root, "layouts", CONFIG_TYPE_GROUP, &ret);
	if (!ls)
		return ret;
	n = config_setting_length(ls);
	for (int i = 0; i < n; i++) {
		config_setting_t *l = config_setting_get_elem(ls, (unsigned int)i);
		const char *name = config_setting_name(l);
		enum pcitopo_layout id = ptc_layout_by_name(name);
		struct pt_plat_layout *pl;
		long long v;

		if (!id)
			return plat_err(c, l, "layouts.%s: unknown layout "
					"(expected one of: %s)", name,
					ptc_layout_list(list, sizeof(list),
							", "));
		if (config_setting_type(l) != CONFIG_TYPE_GROUP)
			return plat_err(c, l, "layouts.%s must be a group "
					"{ ... }", name);
		pl = &p->layouts[id];
		ret = plat_check_keys(c, l, keys);
		if (!ret)
			ret = plat_need_int(c, l, "gpus", 0, 64, &v);
		if (ret)
			return ret;
		pl->gpus = (unsigned int)v;
		ret = t->layout(c, l, id, p);
		if (ret)
			return ret;
		pl->present = 1;
		pl->line = config_setting_source_line(l);
		count++;
	}
	if (count < 2)
		return plat_err(c, ls, "layouts: %d layout%s defined; a server "
				"that switches needs at least two of %s", count,
				count == 1 ? "" : "s",
				ptc_layout_list(list, sizeof(list), ", "));
	*out = ls;
	return 0;
}

static int valid_addr(const char *a)
{
	unsigned int d, b, s, f;
	int n = 0;

	if (sscanf(a, "%4x:%2x:%2x.%1x%n", &d, &b, &s, &f, &n) != 4 ||
	    a[n] || strlen(a) != 12 || s > 0x1f || f > 7)
		return 0;
	return 1;
}

static int parse_moves(struct plat_ctx *c, config_setting_t *root,
		       struct pt_platform *p)
{
	static const char *const keys[] = {
		"switch", "gpus", "addresses", "rollback_select", NULL,
	};
	config_setting_t *m, *g, *a, *rs;
	int ret = 0, n;
	long long v;

	m = plat_need(c, root, "moves", CONFIG_TYPE_GROUP, &ret);
	if (!m)
		return ret;
	ret = plat_check_keys(c, m, keys);
	if (!ret)
		ret = plat_need_int(c, m, "switch", 0, 255, &v);
	if (ret)
		return ret;
	p->switch_index = (unsigned int)v;
	g = config_setting_get_member(m, "gpus");
	if (g) {
		g = plat_need(c, m, "gpus", CONFIG_TYPE_ARRAY, &ret);
		if (!g)
			return ret;
		n = config_setting_length(g);
		if (n > PT_PLAT_MAX_GPUS)
			return plat_err(c, g, "moves.gpus: %d entries, at most %d",
				    n, PT_PLAT_MAX_GPUS);
		for (int i = 0; i < n; i++) {
			ret = plat_get_int(c, config_setting_get_elem(g, (unsigned int)i),
				      0, 63, &v);
			if (ret)
				return ret;
			p->gpus[i] = (uint8_t)v;
		}
		p->ngpus = (unsigned int)n;
	}
	a = config_setting_get_member(m, "addresses");
	if (a) {
		a = plat_need(c, m, "addresses", CONFIG_TYPE_ARRAY, &ret);
		if (!a)
			return ret;
		n = config_setting_length(a);
		if (n > PT_PLAT_MAX_ADDRS)
			return plat_err(c, a, "moves.addresses: %d entries, at most "
				    "%d", n, PT_PLAT_MAX_ADDRS);
		for (int i = 0; i < n; i++) {
			config_setting_t *e = config_setting_get_elem(a, (unsigned int)i);
			const char *s = config_setting_get_string(e);

			if (!s || !valid_addr(s))
				return plat_err(c, e, "moves.addresses[%d]: not a PCI "
					    "address \"DDDD:BB:DD.F\"", i);
			snprintf(p->addrs[i], sizeof(p->addrs[i]), "%s", s);
		}
		p->naddrs = (unsigned int)n;
	}
	if (!p->ngpus && !p->naddrs)
		return plat_err(c, m, "moves: neither gpus nor addresses: nothing "
			    "would move");
	/* Whether a card comes back when its slot is powered on again is the
	 * hardware's, not something a journal can tell: pciehp enumerates it
	 * (real servers: "if-moved"), the emulated server's QEMU drops it at
	 * power off and only its MUX puts it back ("always"). */
	rs = config_setting_get_member(m, "rollback_select");
	if (rs) {
		const char *v;

		rs = plat_need(c, m, "rollback_select", CONFIG_TYPE_STRING, &ret);
		if (!rs)
			return ret;
		v = config_setting_get_string(rs);
		if (!strcmp(v, "always"))
			p->rollback_select_always = 1;
		else if (strcmp(v, "if-moved"))
			return plat_err(c, rs, "moves.rollback_select \"%s\": "
					"expected \"if-moved\" or \"always\"", v);
	}
	return 0;
}

static int parse_budgets(struct plat_ctx *c, config_setting_t *root,
			 struct pt_platform *p)
{
	static const char *const keys[] = {
		"bmc_job_ms", "reenumerate_ms", "power_cycle_ms", "poll_ms",
		NULL,
	};
	config_setting_t *b;
	int ret = 0;
	long long v;

	b = plat_need(c, root, "budgets", CONFIG_TYPE_GROUP, &ret);
	if (!b)
		return ret;
	ret = plat_check_keys(c, b, keys);
	if (!ret)
		ret = plat_need_int(c, b, "bmc_job_ms", 1, 3600000, &v);
	if (ret)
		return ret;
	p->bmc_job_ms = (unsigned int)v;
	ret = plat_need_int(c, b, "reenumerate_ms", 1, 3600000, &v);
	if (ret)
		return ret;
	p->reenumerate_ms = (unsigned int)v;
	ret = plat_need_int(c, b, "power_cycle_ms",
		       p->apply == PT_PLAT_APPLY_POWER_CYCLE ? 1 : 0,
		       3600000, &v);
	if (ret)
		return ret;
	p->power_cycle_ms = (unsigned int)v;
	p->poll_ms = 250;
	if (config_setting_get_member(b, "poll_ms")) {
		ret = plat_need_int(c, b, "poll_ms", 10, 60000, &v);
		if (ret)
			return ret;
		p->poll_ms = (unsigned int)v;
	}
	return 0;
}

static int valid_unit(const char *u)
{
	static const char *const types[] = {
		".service", ".socket", ".target", ".timer", ".path", NULL,
	};
	size_t len = strlen(u);

	if (!len || len >= PT_PLAT_UNIT_MAX)
		return 0;
	for (const char *s = u; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(":-_.\\@", *s))
			return 0;
	for (const char *const *t = types; *t; t++)
		if (len > strlen(*t) && !strcmp(u + len - strlen(*t), *t))
			return 1;
	return 0;
}

static int parse_lists(struct plat_ctx *c, config_setting_t *root,
		       struct pt_platform *p)
{
	config_setting_t *s;
	int ret = 0, n;

	s = plat_need(c, root, "stop_units", CONFIG_TYPE_ARRAY, &ret);
	if (!s)
		return ret;
	n = config_setting_length(s);
	if (n > PT_PLAT_MAX_UNITS)
		return plat_err(c, s, "stop_units: %d entries, at most %d", n,
			    PT_PLAT_MAX_UNITS);
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned int)i);
		const char *u = config_setting_get_string(e);

		if (!u || !valid_unit(u))
			return plat_err(c, e, "stop_units[%d]: not a systemd unit "
				    "name (e.g. \"nvidia-dcgm.service\")", i);
		snprintf(p->units[i], sizeof(p->units[i]), "%s", u);
	}
	p->nunits = (unsigned int)n;

	s = config_setting_get_member(root, "gpu_ids");
	if (!s)
		return 0;
	s = plat_need(c, root, "gpu_ids", CONFIG_TYPE_ARRAY, &ret);
	if (!s)
		return ret;
	n = config_setting_length(s);
	if (n > PT_PLAT_MAX_IDS)
		return plat_err(c, s, "gpu_ids: %d entries, at most %d", n,
			    PT_PLAT_MAX_IDS);
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned int)i);
		const char *id = config_setting_get_string(e);
		struct ptc_extra_id x;

		/* the one ID grammar (core/ptc_ids.c), without a kind */
		if (!id || ptc_parse_id(id, strlen(id), PTC_ID_NO_KIND, &x))
			return plat_err(c, e, "gpu_ids[%d]: not a \"vvvv:dddd\" "
				    "vendor:device ID in hex", i);
		p->gpu_ids[i].vendor = x.vendor;
		p->gpu_ids[i].device = x.device;
	}
	p->nids = (unsigned int)n;
	return 0;
}

/* transport = "NAME" (optional: the first of pt_plat_transports) */
static int parse_transport(struct plat_ctx *c, config_setting_t *root,
			   struct pt_platform *p)
{
	config_setting_t *s = config_setting_get_member(root, "transport");
	char list[128];
	const char *v;
	int ret = 0;

	p->transport = pt_plat_transports[0];
	if (!s)
		return 0;
	s = plat_need(c, root, "transport", CONFIG_TYPE_STRING, &ret);
	if (!s)
		return ret;
	v = config_setting_get_string(s);
	for (size_t i = 0; pt_plat_transports[i]; i++)
		if (!strcmp(v, pt_plat_transports[i]->name)) {
			p->transport = pt_plat_transports[i];
			return 0;
		}
	return plat_err(c, s, "transport \"%s\": unknown (known: %s)", v,
			pt_platform_transports(list, sizeof(list)));
}

static int parse(struct plat_ctx *c, config_setting_t *root,
		 struct pt_platform *p)
{
	static const char *const own[] = {
		"name", "match", "method", "apply", "transport", "layouts",
		"moves", "budgets", "stop_units", "gpu_ids", NULL,
	};
	static const char *const mkeys[] = { "vendor", "model", NULL };
	config_setting_t *m, *s, *layouts = NULL;
	const char *keys[32];
	const char *v;
	int ret = 0;

	ret = parse_transport(c, root, p);
	if (ret)
		return ret;
	join_keys(own, p->transport->root_keys, keys,
		  sizeof(keys) / sizeof(keys[0]));
	ret = plat_check_keys(c, root, keys);
	if (!ret)
		ret = plat_need_str(c, root, "name", p->name, sizeof(p->name));
	if (ret)
		return ret;
	m = plat_need(c, root, "match", CONFIG_TYPE_GROUP, &ret);
	if (!m)
		return ret;
	if ((ret = plat_check_keys(c, m, mkeys)) ||
	    (ret = plat_need_str(c, m, "vendor", p->vendor, sizeof(p->vendor))) ||
	    (ret = plat_need_str(c, m, "model", p->model, sizeof(p->model))))
		return ret;

	s = plat_need(c, root, "method", CONFIG_TYPE_STRING, &ret);
	if (!s)
		return ret;
	v = config_setting_get_string(s);
	if (!strcmp(v, method_names[PT_PLAT_METHOD_SWITCHFW]))
		p->method = PT_PLAT_METHOD_SWITCHFW;
	else if (!strcmp(v, method_names[PT_PLAT_METHOD_MUX]))
		p->method = PT_PLAT_METHOD_MUX;
	else
		return plat_err(c, s, "unknown method \"%s\" (expected switchfw "
			    "or mux)", v);

	s = plat_need(c, root, "apply", CONFIG_TYPE_STRING, &ret);
	if (!s)
		return ret;
	v = config_setting_get_string(s);
	if (!strcmp(v, apply_names[PT_PLAT_APPLY_ONLINE]))
		p->apply = PT_PLAT_APPLY_ONLINE;
	else if (!strcmp(v, apply_names[PT_PLAT_APPLY_POWER_CYCLE]))
		p->apply = PT_PLAT_APPLY_POWER_CYCLE;
	else
		return plat_err(c, s, "unknown apply \"%s\" (expected online or "
			    "power-cycle)", v);

	if ((ret = parse_layouts(c, root, p, &layouts)) ||
	    (ret = p->transport->section(c, root, layouts, p)) ||
	    (ret = parse_moves(c, root, p)) ||
	    (ret = parse_budgets(c, root, p)))
		return ret;
	return parse_lists(c, root, p);
}

int pt_platform_load(const char *path, struct pt_platform *plat,
		     char *err, size_t errlen)
{
	struct plat_ctx c = { .path = path, .err = err, .errlen = errlen };
	config_t cfg;
	FILE *f;
	int ret;

	memset(plat, 0, sizeof(*plat));
	if (err && errlen)
		err[0] = '\0';
	/* Open it ourselves: libconfig reports a missing file as a parse
	 * error on line 0. */
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	config_init(&cfg);
	if (!config_read(&cfg, f)) {
		if (err && errlen)
			snprintf(err, errlen, "%s:%d: %s", path,
				 config_error_line(&cfg),
				 config_error_text(&cfg));
		ret = -EINVAL;
	} else {
		ret = parse(&c, config_root_setting(&cfg), plat);
	}
	config_destroy(&cfg);
	fclose(f);
	if (ret)
		memset(plat, 0, sizeof(*plat));
	return ret;
}
