// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: /etc/pcitopo/topod.conf (libconfig, as the platform files).
 *
 *   platform = "/etc/pcitopo/platforms/MODEL.conf";    required
 *   bmc = { transport = "KIND"; ... };       required: its backend's keys
 *                            (bmc_backend.h; IPMI's: bmc_ipmi.c)
 *   state_dir = "/var/lib/pcitopo";                     optional
 *   check_dmi = true;        refuse a platform file for another model
 *   profile = "/etc/pcitopo/profile";                   optional
 *   nfd_features_dir = "/etc/kubernetes/node-feature-discovery/features.d";
 *                            optional; "" writes no node labels (nfd.h)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libconfig.h>

#include "config.h"
#include "nfd.h"
#include "topod.h"

static const char *const known[] = {
	"platform", "bmc", "state_dir", "check_dmi", "profile",
	"nfd_features_dir", NULL,
};

/* Keys an older topod took for its test stand-in: a topod.conf that still
 * has one is refused with why, not as a typo, and never believed (a
 * stand-in on a real server would report a layout the BMC never wired). */
static const char *const standin_keys[] = {
	"hardware", "fake_bmc_state", NULL,
};

/* every top-level key known; an old stand-in key refused with why */
static int check_root_keys(config_setting_t *root, char *err, size_t len,
			   const char *path)
{
	for (int i = 0; i < config_setting_length(root); i++) {
		config_setting_t *k = config_setting_get_elem(root,
							      (unsigned int)i);
		const char *name = config_setting_name(k);

		if (conf_listed(standin_keys, name)) {
			snprintf(err, len, "%s:%d: %s: topod drives this host's "
				 "pcitopo.ko and nothing else; the stand-in "
				 "hardware is the host tests' (their "
				 "topod-standin build), never a server's: "
				 "remove the line", path,
				 config_setting_source_line(k), name);
			return -EINVAL;
		}
		if (!conf_listed(known, name)) {
			snprintf(err, len, "%s:%d: unknown key \"%s\"", path,
				 config_setting_source_line(k), name);
			return -EINVAL;
		}
	}
	return 0;
}

int config_names_platform(const char *path, char *err, size_t len)
{
	config_t cf;
	int r;

	config_init(&cf);
	if (!config_read_file(&cf, path)) {
		if (config_error_type(&cf) == CONFIG_ERR_FILE_IO) {
			r = errno ? -errno : -EIO;
			snprintf(err, len, "%s: %s", path, strerror(-r));
			if (r == -ENOENT)
				r = 0;	/* no file: nothing configured */
		} else {
			snprintf(err, len, "%s:%d: %s", path,
				 config_error_line(&cf), config_error_text(&cf));
			r = -EINVAL;
		}
	} else if (config_lookup(&cf, "platform")) {
		r = 1;
	} else {
		snprintf(err, len, "%s names no platform", path);
		r = 0;
	}
	config_destroy(&cf);
	return r;
}

void config_nfd_dir(const char *path, char *dir, size_t len)
{
	const char *s;
	config_t cf;

	snprintf(dir, len, "%s", NFD_FEATURES_DIR);
	config_init(&cf);
	if (config_read_file(&cf, path) &&
	    config_lookup_string(&cf, "nfd_features_dir", &s) &&
	    (!*s || *s == '/'))
		snprintf(dir, len, "%s", s);
	config_destroy(&cf);
}

int config_load(const char *path, struct tconfig *c, char *err, size_t len)
{
	config_t cf;
	config_setting_t *root, *set;
	const char *s;
	int r = -EINVAL, e;

	memset(c, 0, sizeof(*c));
	strcpy(c->state_dir, TOPOD_STATE_DIR);
	strcpy(c->profile, "/etc/pcitopo/profile");
	strcpy(c->nfd_dir, NFD_FEATURES_DIR);
	c->check_dmi = true;

	config_init(&cf);
	if (!config_read_file(&cf, path)) {
		if (config_error_type(&cf) == CONFIG_ERR_FILE_IO) {
			snprintf(err, len, "%s: cannot read: %m", path);
			r = errno ? -errno : -ENOENT;
		} else {
			snprintf(err, len, "%s:%d: %s", path,
				 config_error_line(&cf), config_error_text(&cf));
		}
		goto out;
	}
	root = config_root_setting(&cf);
	if (check_root_keys(root, err, len, path))
		goto out;
	if (conf_string(&cf, "platform", c->platform, sizeof(c->platform),
			true, err, len, path) ||
	    conf_string(&cf, "state_dir", c->state_dir, sizeof(c->state_dir),
			false, err, len, path) ||
	    conf_string(&cf, "profile", c->profile, sizeof(c->profile), false,
			err, len, path))
		goto out;
	/* "" is a value here (no labels), not a mistake: not conf_string() */
	set = conf_typed(&cf, "nfd_features_dir", CONFIG_TYPE_STRING,
			 "a string", err, len, path, &e);
	if (e)
		goto out;
	if (set) {
		s = config_setting_get_string(set);
		if (strlen(s) >= sizeof(c->nfd_dir) || (*s && *s != '/')) {
			snprintf(err, len, "%s:%d: nfd_features_dir: an absolute "
				 "path or \"\" (no node labels)", path,
				 config_setting_source_line(set));
			goto out;
		}
		strcpy(c->nfd_dir, s);
	}
	set = conf_typed(&cf, "check_dmi", CONFIG_TYPE_BOOL, "true or false",
			 err, len, path, &e);
	if (e)
		goto out;
	if (set)
		c->check_dmi = config_setting_get_bool(set);
	conf_typed(&cf, "bmc", CONFIG_TYPE_GROUP, "a group ({ ... })", err, len,
		   path, &e);
	if (e || bmc_conf_load(&cf, path, &c->bmc, err, len))
		goto out;
	r = 0;
out:
	config_destroy(&cf);
	return r;
}
