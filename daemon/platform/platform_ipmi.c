// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptplatform: the IPMI transport's section of the platform parser
 * (platform_ipmi.h says what it reads), and the decoding of its status
 * answer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform_ipmi.h"
#include "platform_section.h"
#include "ptc.h"

/* the part being filled (pt_plat_ipmi() reads it) */
static struct pt_plat_ipmi *ipmi_of(struct pt_platform *p)
{
	return (struct pt_plat_ipmi *)(void *)p->bmc.data;
}

static int parse_req(struct plat_ctx *c, config_setting_t *grp, const char *key,
		     struct pt_plat_req *req)
{
	static const char *const keys[] = { "netfn", "cmd", "data", NULL };
	config_setting_t *s, *d;
	char where[128];
	long long v;
	int ret = 0, n;

	s = plat_need(c, grp, key, CONFIG_TYPE_GROUP, &ret);
	if (!s)
		return ret;
	ret = plat_check_keys(c, s, keys);
	if (!ret)
		ret = plat_need_int(c, s, "netfn", 0, 255, &v);
	if (ret)
		return ret;
	if ((v & 1) || v > 0x3e) {
		plat_path(config_setting_get_member(s, "netfn"), where,
		      sizeof(where));
		return plat_err(c, config_setting_get_member(s, "netfn"),
			    "%s = 0x%02llx is not a request NetFn (even, "
			    "<= 0x3e; OEM is 0x2e or 0x30-0x3e)", where, v);
	}
	req->netfn = (uint8_t)v;
	ret = plat_need_int(c, s, "cmd", 0, 255, &v);
	if (ret)
		return ret;
	req->cmd = (uint8_t)v;
	d = plat_need(c, s, "data", CONFIG_TYPE_ARRAY, &ret);
	if (!d)
		return ret;
	n = config_setting_length(d);
	if (n > PT_PLAT_DATA_MAX) {
		plat_path(d, where, sizeof(where));
		return plat_err(c, d, "%s has %d bytes, at most %d", where, n,
			    PT_PLAT_DATA_MAX);
	}
	for (int i = 0; i < n; i++) {
		ret = plat_get_int(c, config_setting_get_elem(d, (unsigned int)i), 0,
			      255, &v);
		if (ret)
			return ret;
		req->data[i] = (uint8_t)v;
	}
	req->len = (uint8_t)n;
	return 0;
}

/* layouts.NAME: its code and select */
static int ipmi_layout(struct plat_ctx *c, config_setting_t *l,
		       enum pcitopo_layout id, struct pt_platform *p)
{
	struct pt_plat_ipmi_layout *il = &ipmi_of(p)->layouts[id];
	long long v;
	int ret;

	ret = plat_need_int(c, l, "code", 0, 255, &v);
	if (ret)
		return ret;
	il->code = (uint8_t)v;
	return parse_req(c, l, "select", &il->select);
}

static int parse_offset(struct plat_ctx *c, config_setting_t *st, const char *key,
			int required, unsigned int length, int *out)
{
	config_setting_t *s = config_setting_get_member(st, key);
	long long v;
	int ret;

	*out = -1;
	if (!s && !required)
		return 0;
	ret = plat_need_int(c, st, key, 0, 255, &v);
	if (ret)
		return ret;
	if (v >= length)
		return plat_err(c, s, "status.%s = %lld is beyond the response "
			    "length (status.length = %u bytes: offsets 0..%u)",
			    key, v, length, length - 1);
	*out = (int)v;
	return 0;
}

static int parse_status(struct plat_ctx *c, config_setting_t *root,
			struct pt_platform *p)
{
	static const char *const keys[] = {
		"request", "length", "state", "current", "pending", "job",
		"error", "states", "no_layout", NULL,
	};
	static const char *const skeys[] = {
		"idle", "busy", "done", "failed", NULL,
	};
	struct pt_plat_ipmi *ip = ipmi_of(p);
	struct pt_plat_status *sp = &ip->status;
	config_setting_t *st, *ss;
	int ret = 0;
	u8 l;
	long long v;

	st = plat_need(c, root, "status", CONFIG_TYPE_GROUP, &ret);
	if (!st)
		return ret;
	ret = plat_check_keys(c, st, keys);
	if (!ret)
		ret = parse_req(c, st, "request", &sp->request);
	if (!ret)
		ret = plat_need_int(c, st, "length", 1, PT_PLAT_STATUS_MAX, &v);
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
		ret = plat_need_int(c, st, "no_layout", 0, 255, &v);
		if (ret)
			return ret;
		sp->no_layout = (uint8_t)v;
	}
	ss = plat_need(c, st, "states", CONFIG_TYPE_GROUP, &ret);
	if (!ss)
		return ret;
	ret = plat_check_keys(c, ss, skeys);
	if (ret)
		return ret;
	for (int i = 0; i < PT_PLAT_STATE_COUNT; i++) {
		ret = plat_need_int(c, ss, skeys[i], 0, 255, &v);
		if (ret)
			return ret;
		sp->state_val[i] = (uint8_t)v;
		for (int j = 0; j < i; j++)
			if (sp->state_val[j] == sp->state_val[i])
				return plat_err(c, ss, "status.states: %s and %s "
					    "have the same value %u",
					    skeys[j], skeys[i],
					    sp->state_val[i]);
	}
	for (l = ptc_layout_first(); l; l = ptc_layout_next(l))
		if (p->layouts[l].present &&
		    ip->layouts[l].code == sp->no_layout)
			return plat_err(c, st, "status.no_layout = %u is also the "
				    "code of layout %s", sp->no_layout,
				    ptc_layout_name(l));
	return 0;
}

/* the status group, and one code per layout */
static int ipmi_section(struct plat_ctx *c, config_setting_t *root,
			config_setting_t *layouts, struct pt_platform *p)
{
	const struct pt_plat_ipmi *ip = ipmi_of(p);
	u8 a, b;

	for (a = ptc_layout_first(); a; a = ptc_layout_next(a))
		for (b = ptc_layout_next(a); b; b = ptc_layout_next(b))
			if (p->layouts[a].present && p->layouts[b].present &&
			    ip->layouts[a].code == ip->layouts[b].code)
				return plat_err(c, layouts, "layouts: %s and %s "
						"have the same code %u",
						ptc_layout_name(a),
						ptc_layout_name(b),
						ip->layouts[a].code);
	return parse_status(c, root, p);
}

static const char *const ipmi_root_keys[] = { "status", NULL };
static const char *const ipmi_layout_keys[] = { "code", "select", NULL };

const struct pt_plat_transport pt_plat_ipmi_transport = {
	.name = "ipmi",
	.root_keys = ipmi_root_keys,
	.layout_keys = ipmi_layout_keys,
	.layout = ipmi_layout,
	.section = ipmi_section,
};

int pt_plat_ipmi_decode_status(const struct pt_platform *plat,
			       const uint8_t *rsp, size_t len,
			       struct pt_plat_job *job, char *err,
			       size_t errlen)
{
	const struct pt_plat_ipmi *ip = pt_plat_ipmi(plat);
	const struct pt_plat_status *sp = &ip->status;
	uint8_t raw_state, raw_current, raw_pending;
	u8 l;

	memset(job, 0, sizeof(*job));
	if (len < sp->length) {
		if (err && errlen)
			snprintf(err, errlen, "platform %s: status answer of %zu "
				 "bytes, expected %u", plat->name, len,
				 sp->length);
		return -EBADMSG;
	}
	raw_state = rsp[sp->state_off];
	job->state = PT_PLAT_STATE_UNKNOWN;
	for (int i = 0; i < PT_PLAT_STATE_COUNT; i++)
		if (sp->state_val[i] == raw_state)
			job->state = (enum pt_plat_state)i;
	raw_current = rsp[sp->current_off];
	raw_pending = sp->pending_off >= 0 ? rsp[sp->pending_off] :
		      sp->no_layout;
	job->current = job->pending = PCITOPO_LAYOUT_UNKNOWN;
	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		if (!plat->layouts[l].present)
			continue;
		if (ip->layouts[l].code == raw_current)
			job->current = (enum pcitopo_layout)l;
		if (ip->layouts[l].code == raw_pending)
			job->pending = (enum pcitopo_layout)l;
	}
	job->job = sp->job_off >= 0 ? rsp[sp->job_off] : -1;
	job->error = sp->error_off >= 0 ? rsp[sp->error_off] : -1;
	return 0;
}
