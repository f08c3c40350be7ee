// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: /etc/pcitopo/topod.conf (libconfig, as the platform files).
 *
 *   platform = "/etc/pcitopo/platforms/MODEL.conf";    required
 *   bmc = { transport = "inband"; device = "/dev/ipmi0"; };
 *   bmc = { transport = "lan"; host = "10.0.0.5"; port = 623;
 *           creds = "/etc/pcitopo/bmc.conf"; cipher = 3; };
 *   bmc.timeout_ms = 2000;                              optional
 *   state_dir = "/var/lib/pcitopo";                     optional
 *   check_dmi = true;        refuse a platform file for another model
 *   profile = "/etc/pcitopo/profile";                   optional
 *   hardware = "module";     or "fake" (tests only, with fake_bmc_state)
 *   nfd_features_dir = "/etc/kubernetes/node-feature-discovery/features.d";
 *                            optional; "" writes no node labels (nfd.h)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libconfig.h>

#include "nfd.h"
#include "topod.h"

static int copy_str(config_t *cf, const char *key, char *dst, size_t cap,
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
static config_setting_t *typed(config_t *cf, const char *key, int type,
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

static int get_int(config_t *cf, const char *key, int lo, int hi, int *v,
		   char *err, size_t len, const char *path)
{
	config_setting_t *s;
	int r;

	s = typed(cf, key, CONFIG_TYPE_INT, "an integer", err, len, path, &r);
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

static const char *const known[] = {
	"platform", "bmc", "state_dir", "check_dmi", "profile", "hardware",
	"fake_bmc_state", "nfd_features_dir", NULL,
};

/* what bmc = { ... } may hold, by transport; a key of the other transport
 * (host with in-band) is a mistake worth naming */
static const char *const bmc_inband[] = {
	"transport", "device", "timeout_ms", NULL,
};
static const char *const bmc_lan[] = {
	"transport", "host", "port", "creds", "cipher", "timeout_ms", NULL,
};

static bool in(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static int check_bmc_keys(config_t *cf, const char *transport,
			  const char *const *keys, char *err, size_t len,
			  const char *path)
{
	config_setting_t *bmc = config_lookup(cf, "bmc");

	for (int i = 0; i < config_setting_length(bmc); i++) {
		config_setting_t *k = config_setting_get_elem(bmc,
							      (unsigned int)i);

		if (!in(keys, config_setting_name(k))) {
			snprintf(err, len, "%s:%d: bmc.%s: unknown for "
				 "transport \"%s\"", path,
				 config_setting_source_line(k),
				 config_setting_name(k), transport);
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
	char msg[256];
	const char *s;
	int v, r = -EINVAL, e;

	memset(c, 0, sizeof(*c));
	strcpy(c->state_dir, TOPOD_STATE_DIR);
	strcpy(c->device, "/dev/ipmi0");
	strcpy(c->creds, PT_IPMI_CREDS_DEFAULT);
	strcpy(c->profile, "/etc/pcitopo/profile");
	strcpy(c->nfd_dir, NFD_FEATURES_DIR);
	c->cipher = -1;
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
	for (int i = 0; i < config_setting_length(root); i++) {
		const char *name = config_setting_name(
			config_setting_get_elem(root, (unsigned int)i));
		if (!in(known, name)) {
			snprintf(err, len, "%s:%d: unknown key \"%s\"", path,
				 config_setting_source_line(
					config_setting_get_elem(root,
							(unsigned int)i)),
				 name);
			goto out;
		}
	}
	if (copy_str(&cf, "platform", c->platform, sizeof(c->platform), true,
		     err, len, path) ||
	    copy_str(&cf, "state_dir", c->state_dir, sizeof(c->state_dir),
		     false, err, len, path) ||
	    copy_str(&cf, "profile", c->profile, sizeof(c->profile), false,
		     err, len, path))
		goto out;
	/* "" is a value here (no labels), not a mistake: not copy_str() */
	set = typed(&cf, "nfd_features_dir", CONFIG_TYPE_STRING, "a string",
		    err, len, path, &e);
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
	set = typed(&cf, "check_dmi", CONFIG_TYPE_BOOL, "true or false", err,
		    len, path, &e);
	if (e)
		goto out;
	if (set)
		c->check_dmi = config_setting_get_bool(set);
	typed(&cf, "hardware", CONFIG_TYPE_STRING, "a string", err, len, path,
	      &e);
	if (e)
		goto out;
	if (config_lookup_string(&cf, "hardware", &s)) {
		if (!strcmp(s, "fake")) {
			c->fake_hw = true;
			if (copy_str(&cf, "fake_bmc_state", c->fake_bmc_state,
				     sizeof(c->fake_bmc_state), true, err, len,
				     path))
				goto out;
		} else if (strcmp(s, "module")) {
			snprintf(err, len, "%s: hardware: \"module\" or \"fake\"",
				 path);
			goto out;
		}
	}
	typed(&cf, "bmc", CONFIG_TYPE_GROUP, "a group ({ ... })", err, len,
	      path, &e);
	if (e)
		goto out;
	if (!config_lookup_string(&cf, "bmc.transport", &s)) {
		snprintf(err, len, "%s: bmc.transport: missing (\"inband\" or \"lan\")",
			 path);
		goto out;
	}
	if (!strcmp(s, "inband")) {
		c->transport = BMC_INBAND;
		if (check_bmc_keys(&cf, s, bmc_inband, err, len, path) ||
		    copy_str(&cf, "bmc.device", c->device, sizeof(c->device),
			     false, err, len, path))
			goto out;
	} else if (!strcmp(s, "lan")) {
		c->transport = BMC_LAN;
		if (check_bmc_keys(&cf, s, bmc_lan, err, len, path) ||
		    copy_str(&cf, "bmc.host", c->host, PT_IPMI_HOST_MAX + 1,
			     true, err, len, path) ||
		    copy_str(&cf, "bmc.creds", c->creds, sizeof(c->creds),
			     false, err, len, path))
			goto out;
		v = 0;
		if (get_int(&cf, "bmc.port", 1, 65535, &v, err, len, path))
			goto out;
		c->port = (unsigned int)v;
		if (get_int(&cf, "bmc.cipher", 0, 19, &c->cipher, err, len,
			    path))
			goto out;
		/* a suite libOpenIPMI cannot speak fails here, at start,
		 * not at the first switch */
		if (pt_ipmi_check_cipher(c->cipher, msg, sizeof(msg))) {
			snprintf(err, len, "%s: bmc.cipher: %s", path, msg);
			goto out;
		}
	} else {
		snprintf(err, len, "%s: bmc.transport: \"inband\" or \"lan\", not \"%s\"",
			 path, s);
		goto out;
	}
	v = 0;
	if (get_int(&cf, "bmc.timeout_ms", 1, 600000, &v, err, len, path))
		goto out;
	c->timeout_ms = (unsigned int)v;
	r = 0;
out:
	config_destroy(&cf);
	return r;
}
