// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptplatform: the Redfish transport's section of the platform parser
 * (platform_redfish.h says what it reads).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform_redfish.h"
#include "platform_section.h"
#include "ptc.h"

static struct pt_plat_redfish *rf_of(struct pt_platform *p)
{
	return (struct pt_plat_redfish *)(void *)p->bmc.data;
}

/* layouts.NAME: bios_attribute and value; one attribute for all (the
 * status reads one attribute and names the layout its value is) */
static int rf_layout(struct plat_ctx *c, config_setting_t *l,
		     enum pcitopo_layout id, struct pt_platform *p)
{
	struct pt_plat_redfish *rf = rf_of(p);
	char attr[PT_RF_NAME_MAX];
	int ret;

	ret = plat_need_str(c, l, "bios_attribute", attr, sizeof(attr));
	if (!ret)
		ret = plat_need_str(c, l, "value", rf->value[id],
				    sizeof(rf->value[id]));
	if (ret)
		return ret;
	if (rf->attribute[0] && strcmp(rf->attribute, attr))
		return plat_err(c, config_setting_get_member(l, "bios_attribute"),
				"layouts.%s.bios_attribute \"%s\": every layout "
				"is a value of one attribute (another layout "
				"has \"%s\")", ptc_layout_name(id), attr,
				rf->attribute);
	strcpy(rf->attribute, attr);
	return 0;
}

static int rf_section(struct plat_ctx *c, config_setting_t *root,
		      config_setting_t *layouts, struct pt_platform *p)
{
	static const char *const keys[] = { "system", "reset_type", NULL };
	struct pt_plat_redfish *rf = rf_of(p);
	config_setting_t *g = config_setting_get_member(root, "redfish");
	int ret = 0;
	u8 a, b;

	/* the zone form (online) is not here yet: a BIOS attribute takes
	 * effect at the next start only */
	if (p->apply != PT_PLAT_APPLY_POWER_CYCLE)
		return plat_err(c, layouts, "transport \"redfish\": a BIOS "
				"attribute takes effect at the next start: apply "
				"must be \"power-cycle\"");
	for (a = ptc_layout_first(); a; a = ptc_layout_next(a))
		for (b = ptc_layout_next(a); b; b = ptc_layout_next(b))
			if (p->layouts[a].present && p->layouts[b].present &&
			    !strcmp(rf->value[a], rf->value[b]))
				return plat_err(c, layouts, "layouts: %s and %s "
						"have the same value \"%s\"",
						ptc_layout_name(a),
						ptc_layout_name(b), rf->value[a]);
	strcpy(rf->system, "1");
	strcpy(rf->reset_type, "PowerCycle");
	if (!g)
		return 0;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return plat_err(c, g, "redfish must be a group { ... }");
	ret = plat_check_keys(c, g, keys);
	if (!ret && config_setting_get_member(g, "system"))
		ret = plat_need_str(c, g, "system", rf->system,
				    sizeof(rf->system));
	if (!ret && config_setting_get_member(g, "reset_type"))
		ret = plat_need_str(c, g, "reset_type", rf->reset_type,
				    sizeof(rf->reset_type));
	/* a path segment: no slash, nothing to escape in a URL */
	if (!ret && strpbrk(rf->system, "/?#% \"\\"))
		return plat_err(c, g, "redfish.system \"%s\": a system's Id, "
				"not a path", rf->system);
	return ret;
}

static const char *const rf_root_keys[] = { "redfish", NULL };
static const char *const rf_layout_keys[] = { "bios_attribute", "value", NULL };

const struct pt_plat_transport pt_plat_redfish_transport = {
	.name = "redfish",
	.root_keys = rf_root_keys,
	.layout_keys = rf_layout_keys,
	.layout = rf_layout,
	.section = rf_section,
};
