// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the checked reads of topod.conf (config.h), for config.c and the
 * BMC backends' own keys: a key of the wrong type, out of range or not its
 * transport's is an error naming file, line and key, never a default.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

bool conf_listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

int conf_string(config_t *cf, const char *key, char *dst, size_t cap,
		bool required, char *err, size_t len, const char *path)
{
	const char *s;

	if (!config_lookup_string(cf, key, &s)) {
		if (config_lookup(cf, key)) {
			snprintf(err, len, "%s: %s: not a string", path, key);
			return -EINVAL;
		}
		if (required) {
			snprintf(err, len, "%s: %s: missing", path, key);
			return -EINVAL;
		}
		return 0;
	}
	if (strlen(s) >= cap || !*s) {
		snprintf(err, len, "%s: %s: empty or too long", path, key);
		return -EINVAL;
	}
	strcpy(dst, s);
	return 0;
}

/* A key of the wrong type is an error naming it, never a silent default
 * (check_dmi = 1 would otherwise leave the check on, port = "623" the
 * port at its default). */
config_setting_t *conf_typed(config_t *cf, const char *key, int type,
			     const char *what, char *err, size_t len,
			     const char *path, int *r)
{
	config_setting_t *s = config_lookup(cf, key);

	*r = 0;
	if (s && config_setting_type(s) != type) {
		snprintf(err, len, "%s:%d: %s: not %s", path,
			 config_setting_source_line(s), key, what);
		*r = -EINVAL;
		return NULL;
	}
	return s;
}

int conf_int(config_t *cf, const char *key, int lo, int hi, int *v,
	     char *err, size_t len, const char *path)
{
	config_setting_t *s;
	int r;

	s = conf_typed(cf, key, CONFIG_TYPE_INT, "an integer", err, len, path, &r);
	if (!s)
		return r;
	*v = config_setting_get_int(s);
	if (*v < lo || *v > hi) {
		snprintf(err, len, "%s:%d: %s: %d is not in %d..%d", path,
			 config_setting_source_line(s), key, *v, lo, hi);
		return -EINVAL;
	}
	return 0;
}

int conf_group_keys(config_t *cf, const char *group, const char *kind,
		    const char *const *keys, char *err, size_t len,
		    const char *path)
{
	config_setting_t *g = config_lookup(cf, group);

	for (int i = 0; g && i < config_setting_length(g); i++) {
		config_setting_t *k = config_setting_get_elem(g, (unsigned int)i);

		if (!conf_listed(keys, config_setting_name(k))) {
			snprintf(err, len, "%s:%d: %s.%s: unknown for "
				 "transport \"%s\"", path,
				 config_setting_source_line(k), group,
				 config_setting_name(k), kind);
			return -EINVAL;
		}
	}
	return 0;
}
