// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptplatform: the checked reads of the platform parser
 * (platform_section.h), for platform.c and every transport's section: a
 * key of the wrong type, out of range or unknown is an error naming file,
 * line and the key's dotted path, never a default.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "platform_section.h"

__attribute__((format(printf, 3, 4)))
int plat_err(struct plat_ctx *c, const config_setting_t *s, const char *fmt,
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

void plat_path(const config_setting_t *s, char *buf, size_t len)
{
	const config_setting_t *p = config_setting_parent(s);
	char tmp[128];
	int n;

	if (!p) {
		buf[0] = '\0';
		return;
	}
	plat_path(p, tmp, sizeof(tmp));
	/* A path too long for buf is cut; the line number still points. */
	if (config_setting_name(s))
		n = snprintf(buf, len, "%s%s%s", tmp, tmp[0] ? "." : "",
			     config_setting_name(s));
	else
		n = snprintf(buf, len, "%s[%d]", tmp, config_setting_index(s));
	if (n < 0)
		buf[0] = '\0';
}

int plat_check_keys(struct plat_ctx *c, const config_setting_t *grp,
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
			plat_path(m, where, sizeof(where));
			return plat_err(c, m, "unknown key \"%s\"", where);
		}
	}
	return 0;
}

config_setting_t *plat_need(struct plat_ctx *c, config_setting_t *grp,
			    const char *key, int type, int *ret)
{
	config_setting_t *s = config_setting_get_member(grp, key);
	char where[128];

	plat_path(grp, where, sizeof(where));
	if (!s) {
		*ret = plat_err(c, grp, "%s%s%s missing", where, where[0] ? "." : "",
			    key);
		return NULL;
	}
	if (type == CONFIG_TYPE_INT) {
		if (config_setting_type(s) != CONFIG_TYPE_INT &&
		    config_setting_type(s) != CONFIG_TYPE_INT64) {
			plat_path(s, where, sizeof(where));
			*ret = plat_err(c, s, "%s must be an integer", where);
			return NULL;
		}
	} else if (type == CONFIG_TYPE_ARRAY) {
		if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
		    config_setting_type(s) != CONFIG_TYPE_LIST) {
			plat_path(s, where, sizeof(where));
			*ret = plat_err(c, s, "%s must be a list [ ... ]", where);
			return NULL;
		}
	} else if (config_setting_type(s) != type) {
		plat_path(s, where, sizeof(where));
		*ret = plat_err(c, s, "%s must be %s", where,
			    type == CONFIG_TYPE_STRING ? "a string" :
			    type == CONFIG_TYPE_GROUP ? "a group { ... }" :
			    "of another type");
		return NULL;
	}
	return s;
}

int plat_get_int(struct plat_ctx *c, const config_setting_t *s,
		 long long min, long long max, long long *out)
{
	char where[128];
	long long v;

	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64) {
		plat_path(s, where, sizeof(where));
		return plat_err(c, s, "%s must be an integer", where);
	}
	v = config_setting_get_int64(s);
	if (v < min || v > max) {
		plat_path(s, where, sizeof(where));
		if (min == 0 && max == 255)
			return plat_err(c, s, "%s = %lld is not a byte (0..0xff)",
				    where, v);
		if (v < 0 && min >= 0)
			return plat_err(c, s, "%s = %lld must not be negative",
				    where, v);
		return plat_err(c, s, "%s = %lld is out of range (%lld..%lld)",
			    where, v, min, max);
	}
	*out = v;
	return 0;
}

int plat_need_int(struct plat_ctx *c, config_setting_t *grp, const char *key,
		  long long min, long long max, long long *out)
{
	int ret = 0;
	config_setting_t *s = plat_need(c, grp, key, CONFIG_TYPE_INT, &ret);

	return s ? plat_get_int(c, s, min, max, out) : ret;
}

int plat_need_str(struct plat_ctx *c, config_setting_t *grp, const char *key,
		  char *out, size_t len)
{
	int ret = 0;
	config_setting_t *s = plat_need(c, grp, key, CONFIG_TYPE_STRING, &ret);
	const char *v;
	char where[128];

	if (!s)
		return ret;
	v = config_setting_get_string(s);
	if (!v[0] || strlen(v) >= len) {
		plat_path(s, where, sizeof(where));
		return plat_err(c, s, "%s must be 1..%zu characters", where,
			    len - 1);
	}
	snprintf(out, len, "%s", v);
	return 0;
}
