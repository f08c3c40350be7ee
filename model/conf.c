// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the override file, /etc/pcitopo/model.conf by default, in
 * libconfig syntax like the platform files:
 *
 *   upi_mbs = 10000;      # this server has Cascade Lake CPUs
 *   pcie_eff = 0.8;
 *
 * Only the keys of params.c, each an int or a float. Kept apart from the
 * platform files (daemon/platform) so that their strict parser, which
 * refuses unknown keys, stays as it is.
 */
#include <errno.h>
#include <stdio.h>

#include <libconfig.h>

#include "ptm.h"

int ptm_params_load(struct ptm_params *p, const char *path, char *err,
		    size_t errlen)
{
	struct ptm_params tmp = *p;
	config_setting_t *root, *s;
	config_t cf;
	int i, n, r = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot read", path);
		return r;
	}
	config_init(&cf);
	if (config_read(&cf, f) != CONFIG_TRUE) {
		snprintf(err, errlen, "%s:%d: %s", path, config_error_line(&cf),
			 config_error_text(&cf));
		r = -EINVAL;
		goto out;
	}
	root = config_root_setting(&cf);
	n = config_setting_length(root);
	for (i = 0; i < n; i++) {
		const char *name;
		double v;
		int id;

		s = config_setting_get_elem(root, (unsigned int)i);
		name = config_setting_name(s);
		id = ptm_param_lookup(name);
		if (id < 0) {
			snprintf(err, errlen, "%s:%d: unknown key '%s'", path,
				 config_setting_source_line(s), name);
			r = -EINVAL;
			goto out;
		}
		switch (config_setting_type(s)) {
		case CONFIG_TYPE_INT:
		case CONFIG_TYPE_INT64:
			v = (double)config_setting_get_int64(s);
			break;
		case CONFIG_TYPE_FLOAT:
			v = config_setting_get_float(s);
			break;
		default:
			snprintf(err, errlen, "%s:%d: '%s' must be a number",
				 path, config_setting_source_line(s), name);
			r = -EINVAL;
			goto out;
		}
		if (ptm_param_set_value(&tmp, (enum ptm_param_id)id, v)) {
			snprintf(err, errlen, "%s:%d: '%s' out of range (%s)",
				 path, config_setting_source_line(s), name,
				 ptm_param_help((enum ptm_param_id)id));
			r = -EINVAL;
			goto out;
		}
	}
	*p = tmp;
out:
	config_destroy(&cf);
	fclose(f);
	return r;
}
