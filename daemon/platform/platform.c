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
 * would otherwise be silently ignored).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libconfig.h>

#include "platform.h"
#include "ptc.h"

struct pctx {
	const char *path;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4)))
static int perr(struct pctx *c, const config_setting_t *s, const char *fmt,
		...)
{
	va_list ap;
	int n = 0;
	int line = s ? config_setting_source_line(s) : 0;

	if (!c->err || !c->errlen)
		return -EINVAL;
	if (line > 0)
		n = snprintf(c->err, c->errlen, "%s:%d: ", c->path, line);
	else
		n = snprintf(c->err, c->errlen, "%s: ", c->path);
	if (n < 0 || (size_t)n >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Dotted path of a setting, for messages: "status.request.data[2]". */
static void spath(const config_setting_t *s, char *buf, size_t len)
{
	const config_setting_t *p = config_setting_parent(s);
	char tmp[128];
	int n;

	if (!p) {
		buf[0] = '\0';
		return;
	}
	spath(p, tmp, sizeof(tmp));
	/* A path too long for buf is cut; the line number still points. */
	if (config_setting_name(s))
		n = snprintf(buf, len, "%s%s%s", tmp, tmp[0] ? "." : "",
			     config_setting_name(s));
	else
		n = snprintf(buf, len, "%s[%d]", tmp, config_setting_index(s));
	if (n < 0)
		buf[0] = '\0';
}

static int check_keys(struct pctx *c, const config_setting_t *grp,
		      const char *const *allowed)
{
	int n = config_setting_length(grp);

	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(grp, (unsigned int)i);
		const char *name = config_setting_name(m);
		int ok = 0;
		char where[128];

		for (const char *const *a = allowed; *a; a++)
			if (!strcmp(name, *a))
				ok = 1;
		if (!ok) {
			spath(m, where, sizeof(where));
			return perr(c, m, "unknown key \"%s\"", where);
		}
	}
	return 0;
}

static config_setting_t *need(struct pctx *c, config_setting_t *grp,
			      const char *key, int type, int *ret)
{
	config_setting_t *s = config_setting_get_member(grp, key);
	char where[128];

	spath(grp, where, sizeof(where));
	if (!s) {
		*ret = perr(c, grp, "%s%s%s missing", where, where[0] ? "." : "",
			    key);
		return NULL;
	}
	if (type == CONFIG_TYPE_INT) {
		if (config_setting_type(s) != CONFIG_TYPE_INT &&
		    config_setting_type(s) != CONFIG_TYPE_INT64) {
			spath(s, where, sizeof(where));
			*ret = perr(c, s, "%s must be an integer", where);
			return NULL;
		}
	} else if (type == CONFIG_TYPE_ARRAY) {
		if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
		    config_setting_type(s) != CONFIG_TYPE_LIST) {
			spath(s, where, sizeof(where));
			*ret = perr(c, s, "%s must be a list [ ... ]", where);
			return NULL;
		}
	} else if (config_setting_type(s) != type) {
		spath(s, where, sizeof(where));
		*ret = perr(c, s, "%s must be %s", where,
			    type == CONFIG_TYPE_STRING ? "a string" :
			    type == CONFIG_TYPE_GROUP ? "a group { ... }" :
			    "of another type");
		return NULL;
	}
	return s;
}

static int get_int(struct pctx *c, const config_setting_t *s, long long min,
		   long long max, long long *out)
{
	char where[128];
	long long v;

	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64) {
		spath(s, where, sizeof(where));
		return perr(c, s, "%s must be an integer", where);
	}
	v = config_setting_get_int64(s);
	if (v < min || v > max) {
		spath(s, where, sizeof(where));
		if (min == 0 && max == 255)
			return perr(c, s, "%s = %lld is not a byte (0..0xff)",
				    where, v);
		if (v < 0 && min >= 0)
			return perr(c, s, "%s = %lld must not be negative",
				    where, v);
		return perr(c, s, "%s = %lld is out of range (%lld..%lld)",
			    where, v, min, max);
	}
	*out = v;
	return 0;
}

static int need_int(struct pctx *c, config_setting_t *grp, const char *key,
		    long long min, long long max, long long *out)
{
	int ret = 0;
	config_setting_t *s = need(c, grp, key, CONFIG_TYPE_INT, &ret);

	return s ? get_int(c, s, min, max, out) : ret;
}

static int need_str(struct pctx *c, config_setting_t *grp, const char *key,
		    char *out, size_t len)
{
	int ret = 0;
	config_setting_t *s = need(c, grp, key, CONFIG_TYPE_STRING, &ret);
	const char *v;
	char where[128];

	if (!s)
		return ret;
	v = config_setting_get_string(s);
	if (!v[0] || strlen(v) >= len) {
		spath(s, where, sizeof(where));
		return perr(c, s, "%s must be 1..%zu characters", where,
			    len - 1);
	}
	snprintf(out, len, "%s", v);
	return 0;
}

static int parse_req(struct pctx *c, config_setting_t *grp, const char *key,
		     struct pt_plat_req *req)
{
	static const char *const keys[] = { "netfn", "cmd", "data", NULL };
	config_setting_t *s, *d;
	char where[128];
	long long v;
	int ret = 0, n;

	s = need(c, grp, key, CONFIG_TYPE_GROUP, &ret);
	if (!s)
		return ret;
	ret = check_keys(c, s, keys);
	if (!ret)
		ret = need_int(c, s, "netfn", 0, 255, &v);
	if (ret)
		return ret;
	if ((v & 1) || v > 0x3e) {
		spath(config_setting_get_member(s, "netfn"), where,
		      sizeof(where));
		return perr(c, config_setting_get_member(s, "netfn"),
			    "%s = 0x%02llx is not a request NetFn (even, "
			    "<= 0x3e; OEM is 0x2e or 0x30-0x3e)", where, v);
	}
	req->netfn = (uint8_t)v;
	ret = need_int(c, s, "cmd", 0, 255, &v);
	if (ret)
		return ret;
	req->cmd = (uint8_t)v;
	d = need(c, s, "data", CONFIG_TYPE_ARRAY, &ret);
	if (!d)
		return ret;
	n = config_setting_length(d);
	if (n > PT_PLAT_DATA_MAX) {
		spath(d, where, sizeof(where));
		return perr(c, d, "%s has %d bytes, at most %d", where, n,
			    PT_PLAT_DATA_MAX);
	}
	for (int i = 0; i < n; i++) {
		ret = get_int(c, config_setting_get_elem(d, (unsigned int)i), 0,
			      255, &v);
		if (ret)
			return ret;
		req->data[i] = (uint8_t)v;
	}
	req->len = (uint8_t)n;
	return 0;
}

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

static int parse_layouts(struct pctx *c, config_setting_t *root,
			 struct pt_platform *p)
{
	static const char *const keys[] = { "code", "gpus", "select", NULL };
	config_setting_t *ls;
	int ret = 0, n, count = 0;

	ls = need(c, root, "layouts", CONFIG_TYPE_GROUP, &ret);
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
			return perr(c, l, "layouts.%s: unknown layout (expected "
				    "balance, common or cascade)", name);
		if (config_setting_type(l) != CONFIG_TYPE_GROUP)
			return perr(c, l, "layouts.%s must be a group { ... }",
				    name);
		pl = &p->layouts[id];
		ret = check_keys(c, l, keys);
		if (!ret)
			ret = need_int(c, l, "code", 0, 255, &v);
		if (ret)
			return ret;
		pl->code = (uint8_t)v;
		ret = need_int(c, l, "gpus", 0, 64, &v);
		if (ret)
			return ret;
		pl->gpus = (unsigned int)v;
		ret = parse_req(c, l, "select", &pl->select);
		if (ret)
			return ret;
		pl->present = 1;
		pl->line = config_setting_source_line(l);
		count++;
	}
	if (count < 2)
		return perr(c, ls, "layouts: %d layout%s defined; a server "
			    "that switches needs at least two of balance, "
			    "common, cascade", count, count == 1 ? "" : "s");
	for (int a = 1; a < __PCITOPO_LAYOUT_MAX; a++)
		for (int b = a + 1; b < __PCITOPO_LAYOUT_MAX; b++)
			if (p->layouts[a].present && p->layouts[b].present &&
			    p->layouts[a].code == p->layouts[b].code)
				return perr(c, ls, "layouts: %s and %s have the "
					    "same code %u", ptc_layout_name(a),
					    ptc_layout_name(b),
					    p->layouts[a].code);
	return 0;
}

static int parse_offset(struct pctx *c, config_setting_t *st, const char *key,
			int required, unsigned int length, int *out)
{
	config_setting_t *s = config_setting_get_member(st, key);
	long long v;
	int ret;

	*out = -1;
	if (!s && !required)
		return 0;
	ret = need_int(c, st, key, 0, 255, &v);
	if (ret)
		return ret;
	if (v >= length)
		return perr(c, s, "status.%s = %lld is beyond the response "
			    "length (status.length = %u bytes: offsets 0..%u)",
			    key, v, length, length - 1);
	*out = (int)v;
	return 0;
}

static int parse_status(struct pctx *c, config_setting_t *root,
			struct pt_platform *p)
{
	static const char *const keys[] = {
		"request", "length", "state", "current", "pending", "job",
		"error", "states", "no_layout", NULL,
	};
	static const char *const skeys[] = {
		"idle", "busy", "done", "failed", NULL,
	};
	struct pt_plat_status *sp = &p->status;
	config_setting_t *st, *ss;
	int ret = 0;
	long long v;

	st = need(c, root, "status", CONFIG_TYPE_GROUP, &ret);
	if (!st)
		return ret;
	ret = check_keys(c, st, keys);
	if (!ret)
		ret = parse_req(c, st, "request", &sp->request);
	if (!ret)
		ret = need_int(c, st, "length", 1, PT_PLAT_STATUS_MAX, &v);
	if (ret)
		return ret;
	sp->length = (uint8_t)v;
	if ((ret = parse_offset(c, st, "state", 1, sp->length, &sp->state_off)) ||
	    (ret = parse_offset(c, st, "current", 1, sp->length,
				&sp->current_off)) ||
	    (ret = parse_offset(c, st, "pending",
				p->apply == PT_PLAT_APPLY_POWER_CYCLE,
				sp->length, &sp->pending_off)) ||
	    (ret = parse_offset(c, st, "job", 0, sp->length, &sp->job_off)) ||
	    (ret = parse_offset(c, st, "error", 0, sp->length,
				&sp->error_off)))
		return ret;
	sp->no_layout = 0;
	if (config_setting_get_member(st, "no_layout")) {
		ret = need_int(c, st, "no_layout", 0, 255, &v);
		if (ret)
			return ret;
		sp->no_layout = (uint8_t)v;
	}
	ss = need(c, st, "states", CONFIG_TYPE_GROUP, &ret);
	if (!ss)
		return ret;
	ret = check_keys(c, ss, skeys);
	if (ret)
		return ret;
	for (int i = 0; i < PT_PLAT_STATE_COUNT; i++) {
		ret = need_int(c, ss, skeys[i], 0, 255, &v);
		if (ret)
			return ret;
		sp->state_val[i] = (uint8_t)v;
		for (int j = 0; j < i; j++)
			if (sp->state_val[j] == sp->state_val[i])
				return perr(c, ss, "status.states: %s and %s "
					    "have the same value %u",
					    skeys[j], skeys[i],
					    sp->state_val[i]);
	}
	for (int l = 1; l < __PCITOPO_LAYOUT_MAX; l++)
		if (p->layouts[l].present &&
		    p->layouts[l].code == sp->no_layout)
			return perr(c, st, "status.no_layout = %u is also the "
				    "code of layout %s", sp->no_layout,
				    ptc_layout_name(l));
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

static int parse_moves(struct pctx *c, config_setting_t *root,
		       struct pt_platform *p)
{
	static const char *const keys[] = {
		"switch", "gpus", "addresses", NULL,
	};
	config_setting_t *m, *g, *a;
	int ret = 0, n;
	long long v;

	m = need(c, root, "moves", CONFIG_TYPE_GROUP, &ret);
	if (!m)
		return ret;
	ret = check_keys(c, m, keys);
	if (!ret)
		ret = need_int(c, m, "switch", 0, 255, &v);
	if (ret)
		return ret;
	p->switch_index = (unsigned int)v;
	g = config_setting_get_member(m, "gpus");
	if (g) {
		g = need(c, m, "gpus", CONFIG_TYPE_ARRAY, &ret);
		if (!g)
			return ret;
		n = config_setting_length(g);
		if (n > PT_PLAT_MAX_GPUS)
			return perr(c, g, "moves.gpus: %d entries, at most %d",
				    n, PT_PLAT_MAX_GPUS);
		for (int i = 0; i < n; i++) {
			ret = get_int(c, config_setting_get_elem(g, (unsigned int)i),
				      0, 63, &v);
			if (ret)
				return ret;
			p->gpus[i] = (uint8_t)v;
		}
		p->ngpus = (unsigned int)n;
	}
	a = config_setting_get_member(m, "addresses");
	if (a) {
		a = need(c, m, "addresses", CONFIG_TYPE_ARRAY, &ret);
		if (!a)
			return ret;
		n = config_setting_length(a);
		if (n > PT_PLAT_MAX_ADDRS)
			return perr(c, a, "moves.addresses: %d entries, at most "
				    "%d", n, PT_PLAT_MAX_ADDRS);
		for (int i = 0; i < n; i++) {
			config_setting_t *e = config_setting_get_elem(a, (unsigned int)i);
			const char *s = config_setting_get_string(e);

			if (!s || !valid_addr(s))
				return perr(c, e, "moves.addresses[%d]: not a PCI "
					    "address \"DDDD:BB:DD.F\"", i);
			snprintf(p->addrs[i], sizeof(p->addrs[i]), "%s", s);
		}
		p->naddrs = (unsigned int)n;
	}
	if (!p->ngpus && !p->naddrs)
		return perr(c, m, "moves: neither gpus nor addresses: nothing "
			    "would move");
	return 0;
}

static int parse_budgets(struct pctx *c, config_setting_t *root,
			 struct pt_platform *p)
{
	static const char *const keys[] = {
		"bmc_job_ms", "reenumerate_ms", "power_cycle_ms", "poll_ms",
		NULL,
	};
	config_setting_t *b;
	int ret = 0;
	long long v;

	b = need(c, root, "budgets", CONFIG_TYPE_GROUP, &ret);
	if (!b)
		return ret;
	ret = check_keys(c, b, keys);
	if (!ret)
		ret = need_int(c, b, "bmc_job_ms", 1, 3600000, &v);
	if (ret)
		return ret;
	p->bmc_job_ms = (unsigned int)v;
	ret = need_int(c, b, "reenumerate_ms", 1, 3600000, &v);
	if (ret)
		return ret;
	p->reenumerate_ms = (unsigned int)v;
	ret = need_int(c, b, "power_cycle_ms",
		       p->apply == PT_PLAT_APPLY_POWER_CYCLE ? 1 : 0,
		       3600000, &v);
	if (ret)
		return ret;
	p->power_cycle_ms = (unsigned int)v;
	p->poll_ms = 250;
	if (config_setting_get_member(b, "poll_ms")) {
		ret = need_int(c, b, "poll_ms", 10, 60000, &v);
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

static int parse_lists(struct pctx *c, config_setting_t *root,
		       struct pt_platform *p)
{
	config_setting_t *s;
	int ret = 0, n;

	s = need(c, root, "stop_units", CONFIG_TYPE_ARRAY, &ret);
	if (!s)
		return ret;
	n = config_setting_length(s);
	if (n > PT_PLAT_MAX_UNITS)
		return perr(c, s, "stop_units: %d entries, at most %d", n,
			    PT_PLAT_MAX_UNITS);
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned int)i);
		const char *u = config_setting_get_string(e);

		if (!u || !valid_unit(u))
			return perr(c, e, "stop_units[%d]: not a systemd unit "
				    "name (e.g. \"nvidia-dcgm.service\")", i);
		snprintf(p->units[i], sizeof(p->units[i]), "%s", u);
	}
	p->nunits = (unsigned int)n;

	s = config_setting_get_member(root, "gpu_ids");
	if (!s)
		return 0;
	s = need(c, root, "gpu_ids", CONFIG_TYPE_ARRAY, &ret);
	if (!s)
		return ret;
	n = config_setting_length(s);
	if (n > PT_PLAT_MAX_IDS)
		return perr(c, s, "gpu_ids: %d entries, at most %d", n,
			    PT_PLAT_MAX_IDS);
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned int)i);
		const char *id = config_setting_get_string(e);
		struct ptc_extra_id x;

		/* the one ID grammar (core/ptc_ids.c), without a kind */
		if (!id || ptc_parse_id(id, strlen(id), PTC_ID_NO_KIND, &x))
			return perr(c, e, "gpu_ids[%d]: not a \"vvvv:dddd\" "
				    "vendor:device ID in hex", i);
		p->gpu_ids[i].vendor = x.vendor;
		p->gpu_ids[i].device = x.device;
	}
	p->nids = (unsigned int)n;
	return 0;
}

static int parse(struct pctx *c, config_setting_t *root, struct pt_platform *p)
{
	static const char *const keys[] = {
		"name", "match", "method", "apply", "layouts", "status",
		"moves", "budgets", "stop_units", "gpu_ids", NULL,
	};
	static const char *const mkeys[] = { "vendor", "model", NULL };
	config_setting_t *m, *s;
	const char *v;
	int ret = 0;

	ret = check_keys(c, root, keys);
	if (!ret)
		ret = need_str(c, root, "name", p->name, sizeof(p->name));
	if (ret)
		return ret;
	m = need(c, root, "match", CONFIG_TYPE_GROUP, &ret);
	if (!m)
		return ret;
	if ((ret = check_keys(c, m, mkeys)) ||
	    (ret = need_str(c, m, "vendor", p->vendor, sizeof(p->vendor))) ||
	    (ret = need_str(c, m, "model", p->model, sizeof(p->model))))
		return ret;

	s = need(c, root, "method", CONFIG_TYPE_STRING, &ret);
	if (!s)
		return ret;
	v = config_setting_get_string(s);
	if (!strcmp(v, method_names[PT_PLAT_METHOD_SWITCHFW]))
		p->method = PT_PLAT_METHOD_SWITCHFW;
	else if (!strcmp(v, method_names[PT_PLAT_METHOD_MUX]))
		p->method = PT_PLAT_METHOD_MUX;
	else
		return perr(c, s, "unknown method \"%s\" (expected switchfw "
			    "or mux)", v);

	s = need(c, root, "apply", CONFIG_TYPE_STRING, &ret);
	if (!s)
		return ret;
	v = config_setting_get_string(s);
	if (!strcmp(v, apply_names[PT_PLAT_APPLY_ONLINE]))
		p->apply = PT_PLAT_APPLY_ONLINE;
	else if (!strcmp(v, apply_names[PT_PLAT_APPLY_POWER_CYCLE]))
		p->apply = PT_PLAT_APPLY_POWER_CYCLE;
	else
		return perr(c, s, "unknown apply \"%s\" (expected online or "
			    "power-cycle)", v);

	if ((ret = parse_layouts(c, root, p)) ||
	    (ret = parse_status(c, root, p)) ||
	    (ret = parse_moves(c, root, p)) ||
	    (ret = parse_budgets(c, root, p)))
		return ret;
	return parse_lists(c, root, p);
}

int pt_platform_load(const char *path, struct pt_platform *plat,
		     char *err, size_t errlen)
{
	struct pctx c = { .path = path, .err = err, .errlen = errlen };
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

int pt_platform_decode_status(const struct pt_platform *plat,
			      const uint8_t *rsp, size_t len,
			      struct pt_plat_job *job, char *err,
			      size_t errlen)
{
	const struct pt_plat_status *sp = &plat->status;

	memset(job, 0, sizeof(*job));
	if (len < sp->length) {
		if (err && errlen)
			snprintf(err, errlen, "platform %s: status answer of %zu "
				 "bytes, expected %u", plat->name, len,
				 sp->length);
		return -EBADMSG;
	}
	job->raw_state = rsp[sp->state_off];
	job->state = PT_PLAT_STATE_UNKNOWN;
	for (int i = 0; i < PT_PLAT_STATE_COUNT; i++)
		if (sp->state_val[i] == job->raw_state)
			job->state = (enum pt_plat_state)i;
	job->raw_current = rsp[sp->current_off];
	job->raw_pending = sp->pending_off >= 0 ? rsp[sp->pending_off] :
			   sp->no_layout;
	job->current = job->pending = PCITOPO_LAYOUT_UNKNOWN;
	for (int l = 1; l < __PCITOPO_LAYOUT_MAX; l++) {
		if (!plat->layouts[l].present)
			continue;
		if (plat->layouts[l].code == job->raw_current)
			job->current = (enum pcitopo_layout)l;
		if (plat->layouts[l].code == job->raw_pending)
			job->pending = (enum pcitopo_layout)l;
	}
	job->job = sp->job_off >= 0 ? rsp[sp->job_off] : -1;
	job->error = sp->error_off >= 0 ? rsp[sp->error_off] : -1;
	return 0;
}
