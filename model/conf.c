// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the override file, /etc/pcitopo/model.conf by default, in
 * libconfig syntax like the platform files:
 *
 *   upi_mbs = 10000;      # this server's sockets, measured
 *   cpu = "genoa";        # the CPUs, where /proc/cpuinfo is not at hand
 *   mem_channels = 12;    # memory, where SMBIOS is not readable
 *   pcie_eff = 0.8;
 *
 * Only the keys of params.c, each an int or a float; cpu a string (a
 * generation's name, cpugen.c, or "auto"). Kept apart from the
 * platform files (daemon/platform) so that their strict parser, which
 * refuses unknown keys, stays as it is.
 *
 * libconfig is loaded when a file is there to read (lib/dl.h), so topoctl
 * starts without it and `advise` needs it only on a machine with overrides.
 */
#include <errno.h>
#include <stdio.h>

#include <libconfig.h>

#include "dl.h"
#include "ptm.h"

/* The rest of what conf.c uses (config_setting_type...) are macros. */
#define LIBCONFIG_SYMBOLS(X)						\
	X(config_init) X(config_read) X(config_destroy)			\
	X(config_setting_length) X(config_setting_get_elem)		\
	X(config_setting_get_int64) X(config_setting_get_float)		\
	X(config_setting_get_string)
LIBCONFIG_SYMBOLS(PT_DL_DEFINE)
static const struct pt_dl_sym libconfig_syms[] = {
	LIBCONFIG_SYMBOLS(PT_DL_ENTRY)
};
/* the SONAME built against (model/Makefile): libconfig.so.9 (Debian 12),
 * libconfig.so.11 (Debian 13) */
#ifndef PTM_LIBCONFIG_SONAME
#define PTM_LIBCONFIG_SONAME	"libconfig.so.9"
#define PTM_LIBCONFIG_PACKAGE	"libconfig9"
#endif
static struct pt_dl libconfig = PT_DL_INIT(PTM_LIBCONFIG_SONAME,
					   PTM_LIBCONFIG_PACKAGE,
					   libconfig_syms);
#define config_init			sym_config_init
#define config_read			sym_config_read
#define config_destroy			sym_config_destroy
#define config_setting_length		sym_config_setting_length
#define config_setting_get_elem		sym_config_setting_get_elem
#define config_setting_get_int64	sym_config_setting_get_int64
#define config_setting_get_float	sym_config_setting_get_float
#define config_setting_get_string	sym_config_setting_get_string

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
	r = pt_dl_open(&libconfig, err, errlen);
	if (r) {
		fclose(f);
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
		if (id == PTM_P_CPU &&
		    config_setting_type(s) == CONFIG_TYPE_STRING) {
			if (ptm_param_set_cpu(&tmp,
					      config_setting_get_string(s))) {
				snprintf(err, errlen, "%s:%d: unknown cpu '%s' "
					 "(%s)", path,
					 config_setting_source_line(s),
					 config_setting_get_string(s),
					 ptm_param_help(PTM_P_CPU));
				r = -EINVAL;
				goto out;
			}
			continue;
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
