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

/* a path segment of a URL: no slash, nothing to escape */
static int rf_segment(const char *s)
{
	return s[0] && !strpbrk(s, "/?#% \"\\");
}

/* the index of name in names[*n], added if add and there is room; -1 */
static int rf_index(char (*names)[PT_RF_ID_MAX], unsigned int *n,
		    unsigned int max, const char *name, int add)
{
	for (unsigned int i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	if (!add || *n >= max)
		return -1;
	snprintf(names[*n], PT_RF_ID_MAX, "%s", name);
	return (int)(*n)++;
}

/* one zone's endpoints (group g of layouts.NAME.zones) into zmask[id] */
static int rf_zone(struct plat_ctx *c, config_setting_t *g,
		   enum pcitopo_layout id, int first, uint32_t *seen,
		   struct pt_platform *p)
{
	static const char *const keys[] = { "zone", "endpoints", NULL };
	struct pt_plat_redfish *rf = rf_of(p);
	const char *name = ptc_layout_name(id);
	char zid[PT_RF_ID_MAX];
	config_setting_t *eps;
	uint32_t mask = 0;
	int ret = 0, z;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return plat_err(c, g, "layouts.%s.zones: each zone is a group "
				"{ zone = \"ID\"; endpoints = [ ... ]; }", name);
	ret = plat_check_keys(c, g, keys);
	if (!ret)
		ret = plat_need_str(c, g, "zone", zid, sizeof(zid));
	eps = ret ? NULL : plat_need(c, g, "endpoints", CONFIG_TYPE_ARRAY,
				     &ret);
	if (ret)
		return ret;
	if (!rf_segment(zid))
		return plat_err(c, g, "layouts.%s: zone \"%s\": a zone's Id, "
				"not a path", name, zid);
	/* the status reads every zone the platform names and finds the
	 * layout they all agree with: so every layout names each */
	z = rf_index(rf->zone, &rf->nzones, PT_RF_ZONES_MAX, zid, first);
	if (z < 0 && first)
		return plat_err(c, g, "layouts.%s: more than %d zones", name,
				PT_RF_ZONES_MAX);
	if (z < 0)
		return plat_err(c, g, "layouts.%s: zone \"%s\" is not in the "
				"layouts before (every layout names the same "
				"zones)", name, zid);
	if (*seen & (1u << z))
		return plat_err(c, g, "layouts.%s: zone \"%s\" named twice",
				name, zid);
	*seen |= 1u << z;
	for (int i = 0; i < config_setting_length(eps); i++) {
		const char *e = config_setting_get_string_elem(eps, i);
		int k;

		if (!e || !rf_segment(e) || strlen(e) >= PT_RF_ID_MAX)
			return plat_err(c, eps, "layouts.%s: zone \"%s\": "
					"endpoints are endpoint Ids (strings of "
					"1..%d characters, not paths)", name,
					zid, PT_RF_ID_MAX - 1);
		k = rf_index(rf->ep, &rf->neps, PT_RF_EPS_MAX, e, 1);
		if (k < 0)
			return plat_err(c, eps, "layouts.%s: more than %d "
					"endpoints in all", name, PT_RF_EPS_MAX);
		if (mask & (1u << k))
			return plat_err(c, eps, "layouts.%s: zone \"%s\": "
					"endpoint \"%s\" named twice", name,
					zid, e);
		mask |= 1u << k;
	}
	rf->zmask[id][z] = mask;
	return 0;
}

/* layouts.NAME.zones: the zone form */
static int rf_zones(struct plat_ctx *c, config_setting_t *l,
		    enum pcitopo_layout id, struct pt_platform *p)
{
	struct pt_plat_redfish *rf = rf_of(p);
	config_setting_t *zs = config_setting_get_member(l, "zones");
	int first = rf->nzones == 0, ret;
	uint32_t seen = 0;

	if (config_setting_type(zs) != CONFIG_TYPE_LIST ||
	    !config_setting_length(zs))
		return plat_err(c, zs, "layouts.%s.zones must be a list ( { zone "
				"= \"ID\"; endpoints = [ \"ID\", ... ]; }, ... )",
				ptc_layout_name(id));
	for (int i = 0; i < config_setting_length(zs); i++) {
		ret = rf_zone(c, config_setting_get_elem(zs, (unsigned int)i),
			      id, first, &seen, p);
		if (ret)
			return ret;
	}
	for (unsigned int z = 0; z < rf->nzones; z++)
		if (!(seen & (1u << z)))
			return plat_err(c, zs, "layouts.%s.zones: no zone \"%s\" "
					"(every layout names the same zones)",
					ptc_layout_name(id), rf->zone[z]);
	return 0;
}

/* layouts.NAME: bios_attribute and value (one attribute for all: the
 * status reads one attribute and names the layout its value is), or the
 * zone form's zones; one form in a file */
static int rf_layout(struct plat_ctx *c, config_setting_t *l,
		     enum pcitopo_layout id, struct pt_platform *p)
{
	struct pt_plat_redfish *rf = rf_of(p);
	char attr[PT_RF_NAME_MAX];
	int ret, zones = config_setting_get_member(l, "zones") != NULL;

	if (zones && (config_setting_get_member(l, "bios_attribute") ||
		      config_setting_get_member(l, "value")))
		return plat_err(c, l, "layouts.%s: zones (the zone form) or "
				"bios_attribute and value (the BIOS form), not "
				"both", ptc_layout_name(id));
	if (zones != !!rf->nzones && (rf->nzones || rf->attribute[0]))
		return plat_err(c, l, "layouts.%s: %s, another layout %s: one "
				"form in a platform file", ptc_layout_name(id),
				zones ? "zones" : "bios_attribute",
				zones ? "bios_attribute" : "zones");
	if (zones)
		return rf_zones(c, l, id, p);
	if (!config_setting_get_member(l, "bios_attribute"))
		return plat_err(c, l, "layouts.%s: bios_attribute and value "
				"(the BIOS form) or zones (the zone form, with "
				"redfish.fabric) missing", ptc_layout_name(id));
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

/* the zone form's rules across layouts */
static int rf_zone_section(struct plat_ctx *c, config_setting_t *g,
			   config_setting_t *layouts, struct pt_platform *p)
{
	struct pt_plat_redfish *rf = rf_of(p);
	u8 a, b;

	if (!rf->nzones)
		return plat_err(c, g, "redfish.fabric \"%s\": the zone form: "
				"each layout's zones, not bios_attribute",
				rf->fabric);
	if (!rf_segment(rf->fabric))
		return plat_err(c, g, "redfish.fabric \"%s\": a fabric's Id, "
				"not a path", rf->fabric);
	/* a zone's endpoints change at once: the devices go and come */
	if (p->apply != PT_PLAT_APPLY_ONLINE)
		return plat_err(c, layouts, "transport \"redfish\" with zones: "
				"a zone change takes effect at once: apply must "
				"be \"online\"");
	for (a = ptc_layout_first(); a; a = ptc_layout_next(a))
		for (b = ptc_layout_next(a); b; b = ptc_layout_next(b))
			if (p->layouts[a].present && p->layouts[b].present &&
			    !memcmp(rf->zmask[a], rf->zmask[b],
				    sizeof(rf->zmask[a])))
				return plat_err(c, layouts, "layouts: %s and %s "
						"have the same zones",
						ptc_layout_name(a),
						ptc_layout_name(b));
	return 0;
}

/* the BIOS form's rules across layouts */
static int rf_bios_section(struct plat_ctx *c, config_setting_t *layouts,
			   struct pt_platform *p)
{
	struct pt_plat_redfish *rf = rf_of(p);
	u8 a, b;

	/* a BIOS attribute takes effect at the next start only */
	if (p->apply != PT_PLAT_APPLY_POWER_CYCLE)
		return plat_err(c, layouts, "transport \"redfish\": a BIOS "
				"attribute takes effect at the next start: apply "
				"must be \"power-cycle\" (or the zone form: "
				"redfish.fabric and each layout's zones)");
	for (a = ptc_layout_first(); a; a = ptc_layout_next(a))
		for (b = ptc_layout_next(a); b; b = ptc_layout_next(b))
			if (p->layouts[a].present && p->layouts[b].present &&
			    !strcmp(rf->value[a], rf->value[b]))
				return plat_err(c, layouts, "layouts: %s and %s "
						"have the same value \"%s\"",
						ptc_layout_name(a),
						ptc_layout_name(b), rf->value[a]);
	return 0;
}

static int rf_section(struct plat_ctx *c, config_setting_t *root,
		      config_setting_t *layouts, struct pt_platform *p)
{
	static const char *const keys[] = { "system", "reset_type", "fabric",
					    NULL };
	struct pt_plat_redfish *rf = rf_of(p);
	config_setting_t *g = config_setting_get_member(root, "redfish");
	int ret = 0;

	if (g && config_setting_type(g) == CONFIG_TYPE_GROUP &&
	    config_setting_get_member(g, "fabric")) {
		ret = plat_check_keys(c, g, keys);
		if (!ret)
			ret = plat_need_str(c, g, "fabric", rf->fabric,
					    sizeof(rf->fabric));
		if (!ret)
			ret = rf_zone_section(c, g, layouts, p);
	} else if (rf->nzones) {
		ret = plat_err(c, layouts, "layouts: zones (the zone form) need "
			       "redfish = { fabric = \"ID\"; }");
	} else {
		ret = rf_bios_section(c, layouts, p);
	}
	if (ret)
		return ret;
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
static const char *const rf_layout_keys[] = { "bios_attribute", "value",
					       "zones", NULL };

const struct pt_plat_transport pt_plat_redfish_transport = {
	.name = "redfish",
	.root_keys = rf_root_keys,
	.layout_keys = rf_layout_keys,
	.layout = rf_layout,
	.section = rf_section,
};
