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
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libconfig.h>

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

static const char *const known[] = {
	"platform", "bmc", "state_dir", "check_dmi", "profile", "hardware",
	"fake_bmc_state", NULL,
};

int config_load(const char *path, struct tconfig *c, char *err, size_t len)
{
	config_t cf;
	config_setting_t *root;
	const char *s;
	int v, r = -EINVAL;

	memset(c, 0, sizeof(*c));
	strcpy(c->state_dir, TOPOD_STATE_DIR);
	strcpy(c->device, "/dev/ipmi0");
	strcpy(c->creds, PT_IPMI_CREDS_DEFAULT);
	strcpy(c->profile, "/etc/pcitopo/profile");
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
		bool ok = false;

		for (int k = 0; known[k]; k++)
			ok |= !strcmp(name, known[k]);
		if (!ok) {
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
	if (config_lookup_bool(&cf, "check_dmi", &v))
		c->check_dmi = v;
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
	if (!config_lookup_string(&cf, "bmc.transport", &s)) {
		snprintf(err, len, "%s: bmc.transport: missing (\"inband\" or \"lan\")",
			 path);
		goto out;
	}
	if (!strcmp(s, "inband")) {
		c->transport = BMC_INBAND;
		if (copy_str(&cf, "bmc.device", c->device, sizeof(c->device),
			     false, err, len, path))
			goto out;
	} else if (!strcmp(s, "lan")) {
		c->transport = BMC_LAN;
		if (copy_str(&cf, "bmc.host", c->host, sizeof(c->host), true,
			     err, len, path) ||
		    copy_str(&cf, "bmc.creds", c->creds, sizeof(c->creds),
			     false, err, len, path))
			goto out;
		if (config_lookup_int(&cf, "bmc.port", &v)) {
			if (v < 1 || v > 65535) {
				snprintf(err, len, "%s: bmc.port: 1..65535", path);
				goto out;
			}
			c->port = (unsigned int)v;
		}
		if (config_lookup_int(&cf, "bmc.cipher", &v))
			c->cipher = v;
	} else {
		snprintf(err, len, "%s: bmc.transport: \"inband\" or \"lan\", not \"%s\"",
			 path, s);
		goto out;
	}
	if (config_lookup_int(&cf, "bmc.timeout_ms", &v)) {
		if (v < 1 || v > 600000) {
			snprintf(err, len, "%s: bmc.timeout_ms: 1..600000", path);
			goto out;
		}
		c->timeout_ms = (unsigned int)v;
	}
	r = 0;
out:
	config_destroy(&cf);
	return r;
}
