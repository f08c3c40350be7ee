// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the Redfish backend's zone form (platform_redfish.h). A layout is
 * which endpoints each zone of one fabric has: Fabrics/{fabric}/Zones/{id}'s
 * Links.Endpoints (Zone, DMTF), as a PCIe fabric's management (H3
 * Platform's Falcon: one zone per host port) has them. A change is online.
 *
 * The status reads every zone the platform names: the layout is the one
 * whose zones all have exactly the endpoints they have now; none (a zone
 * in between, an endpoint the platform does not name) is UNKNOWN.
 *
 * A Select makes the zones so, each by a PATCH of its Links.Endpoints with
 * If-Match (the ETag it was read with: another client's change in between
 * is the BMC's 412, refused, not overwritten). First every zone loses what
 * it must lose, then every zone gains: an endpoint of a PCIe fabric is in
 * one host's zone at a time, and a BMC may refuse it in two. A Select is
 * convergent (it reads the zones and changes only what differs), so a 503
 * on any PATCH is -EAGAIN with *sent 0: bmc.c runs it again, and nothing
 * is changed twice.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bmc_redfish.h"
#include "platform_redfish.h"
#include "ptc.h"

#define RFZ_LIST_MAX	1024	/* "a, b, c" of what the BMC has */

static void fabric_path(const struct pt_plat_redfish *rf, const char *what,
			char *buf, size_t len)
{
	snprintf(buf, len, "/redfish/v1/Fabrics/%s%s%s", rf->fabric,
		 what ? "/" : "", what ? what : "");
}

static void zone_path(const struct pt_plat_redfish *rf, unsigned int z,
		      char *buf, size_t len)
{
	snprintf(buf, len, "/redfish/v1/Fabrics/%s/Zones/%s", rf->fabric,
		 rf->zone[z]);
}

static void ep_path(const struct pt_plat_redfish *rf, unsigned int k,
		    char *buf, size_t len)
{
	snprintf(buf, len, "/redfish/v1/Fabrics/%s/Endpoints/%s", rf->fabric,
		 rf->ep[k]);
}

/* the platform's endpoint a link names (its @odata.id), -1 if none */
static int ep_of(const struct pt_plat_redfish *rf, const char *id)
{
	char path[RF_PATH_MAX];
	size_t n;

	if (!id)
		return -1;
	n = strlen(id);
	while (n > 1 && id[n - 1] == '/')
		n--;
	for (unsigned int k = 0; k < rf->neps; k++) {
		ep_path(rf, k, path, sizeof(path));
		if (strlen(path) == n && !strncmp(path, id, n))
			return (int)k;
	}
	return -1;
}

/* "GPU0, GPU1": the endpoints of mask */
static void mask_names(const struct pt_plat_redfish *rf, uint32_t mask,
		       char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned int k = 0; k < rf->neps; k++) {
		if (!(mask & (1u << k)))
			continue;
		if (buf[0])
			rf_tcat(buf, len, ", ");
		rf_tcat(buf, len, rf->ep[k]);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

struct zone_now {
	uint32_t mask;			/* the platform's endpoints it has */
	char other[RF_PATH_MAX];	/* the first one it has that the
					 * platform does not name, or "" */
	char etag[256];
};

/* zone z as it is now */
static int zone_read(struct rf *s, const struct pt_plat_redfish *rf,
		     unsigned int z, struct zone_now *now, char *err,
		     size_t len)
{
	char path[RF_PATH_MAX];
	json_object *j = NULL, *eps;
	int r;

	memset(now, 0, sizeof(*now));
	zone_path(rf, z, path, sizeof(path));
	r = rf_get(s, path, &j, err, len);
	if (r)
		return r;
	snprintf(now->etag, sizeof(now->etag), "%s", s->etag[0] ? s->etag :
		 rf_jstr(j, "@odata.etag", NULL) ?: "");
	eps = rf_jget(rf_jget(j, "Links"), "Endpoints");
	if (!eps || !json_object_is_type(eps, json_type_array)) {
		json_object_put(j);
		snprintf(err, len, "GET %s: no Links.Endpoints (not a Zone)",
			 path);
		return -EBADMSG;
	}
	for (size_t i = 0; i < json_object_array_length(eps); i++) {
		const char *id = rf_jstr(json_object_array_get_idx(eps, i),
					 "@odata.id", NULL);
		int k = ep_of(rf, id);

		if (k >= 0)
			now->mask |= 1u << k;
		else if (!now->other[0])
			snprintf(now->other, sizeof(now->other), "%s",
				 id ? id : "(a link without @odata.id)");
	}
	json_object_put(j);
	return 0;
}

static enum pcitopo_layout layout_of(const struct pt_platform *p,
				     const struct zone_now *now)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	u8 l;

	for (unsigned int z = 0; z < rf->nzones; z++)
		if (now[z].other[0])
			return PCITOPO_LAYOUT_UNKNOWN;
	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		unsigned int z;

		if (!p->layouts[l].present)
			continue;
		for (z = 0; z < rf->nzones; z++)
			if (now[z].mask != rf->zmask[l][z])
				break;
		if (z == rf->nzones)
			return (enum pcitopo_layout)l;
	}
	return PCITOPO_LAYOUT_UNKNOWN;
}

int rfz_status(struct rf *s, const struct pt_platform *p,
	       struct pt_plat_job *job, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	struct zone_now now[PT_RF_ZONES_MAX];
	int r;

	memset(job, 0, sizeof(*job));
	job->job = job->error = -1;
	for (unsigned int z = 0; z < rf->nzones; z++) {
		r = zone_read(s, rf, z, &now[z], err, len);
		if (r)
			return r;
	}
	job->current = layout_of(p, now);
	job->pending = PCITOPO_LAYOUT_UNKNOWN;	/* online: nothing waits */
	/* a PATCH is done when answered: there is no job to be busy */
	job->state = s->selected ? PT_PLAT_STATE_DONE : PT_PLAT_STATE_IDLE;
	return 0;
}

/* PATCH zone z's Links.Endpoints to mask, If-Match etag, for layout l */
static int zone_patch(struct rf *s, const struct pt_platform *p,
		      enum pcitopo_layout l, unsigned int z, uint32_t mask,
		      const char *etag, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	char path[RF_PATH_MAX], ep[RF_PATH_MAX], names[512];
	char what[RF_PATH_MAX + 600];
	json_object *req = json_object_new_object();
	json_object *links = json_object_new_object();
	json_object *eps = json_object_new_array();
	int r;

	for (unsigned int k = 0; k < rf->neps; k++) {
		json_object *o;

		if (!(mask & (1u << k)))
			continue;
		o = json_object_new_object();
		ep_path(rf, k, ep, sizeof(ep));
		json_object_object_add(o, "@odata.id",
				       json_object_new_string(ep));
		json_object_array_add(eps, o);
	}
	json_object_object_add(links, "Endpoints", eps);
	json_object_object_add(req, "Links", links);
	zone_path(rf, z, path, sizeof(path));
	snprintf(s->if_match, sizeof(s->if_match), "%s", etag);
	r = rf_call(s, "PATCH", path, json_object_to_json_string_ext(req,
		    JSON_C_TO_STRING_PLAIN), err, len);
	json_object_put(req);
	mask_names(rf, mask, names, sizeof(names));
	snprintf(what, sizeof(what), "select %s (PATCH %s Links.Endpoints = "
		 "%s)", ptc_layout_name(l), path, names);
	r = rf_change_lost(s, r, what, err, len);
	if (r)
		return r;	/* -EAGAIN: never connected, sent nothing */
	if (s->code == 412) {
		rf_bad_answer(s, what, err, len);
		rf_tcat(err, len, " (the zone changed by another client since "
			"topod read it: not overwritten)");
		return -EBUSY;
	}
	if (s->code == 202)
		return rf_follow_task(s, what, p->bmc_job_ms, err, len);
	if (s->code != 200 && s->code != 204)
		return rf_bad_answer(s, what, err, len);
	return 0;
}

int rfz_select(struct rf *s, const struct pt_platform *p,
	       enum pcitopo_layout l, int *sent, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	int r;

	*sent = 0;
	/* pass 0 takes away, pass 1 adds: no endpoint in two zones at once */
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned int z = 0; z < rf->nzones; z++) {
			struct zone_now now;
			uint32_t want = rf->zmask[l][z];

			r = zone_read(s, rf, z, &now, err, len);
			if (r == -EAGAIN)
				*sent = 0;	/* as a PATCH's 503 */
			if (r)
				return r;
			if (!pass)
				want &= now.mask;
			if (want == now.mask && !now.other[0])
				continue;
			r = zone_patch(s, p, l, z, want, now.etag, err, len);
			if (r == -EAGAIN) {
				*sent = 0;	/* run again, it converges */
				return r;
			}
			if (r == -ETIMEDOUT)
				*sent = 1;	/* it may have acted */
			if (r)
				return r;	/* refused: what went before stays */
			*sent = 1;
		}
	}
	s->selected = true;
	return 0;
}

/* a collection's members' Ids (the last segment of each @odata.id) */
static bool members_have(json_object *coll, const char *id)
{
	json_object *m = rf_jget(coll, "Members");

	for (size_t i = 0; m && i < json_object_array_length(m); i++) {
		const char *p = rf_jstr(json_object_array_get_idx(m, i),
					"@odata.id", NULL);
		const char *last = p ? strrchr(p, '/') : NULL;

		if (last && !strcmp(last + 1, id))
			return true;
	}
	return false;
}

static void members_list(json_object *coll, char *buf, size_t len)
{
	json_object *m = rf_jget(coll, "Members");

	buf[0] = '\0';
	for (size_t i = 0; m && i < json_object_array_length(m); i++) {
		const char *p = rf_jstr(json_object_array_get_idx(m, i),
					"@odata.id", NULL);
		const char *last = p ? strrchr(p, '/') : NULL;

		if (!last)
			continue;
		if (buf[0])
			rf_tcat(buf, len, ", ");
		rf_tcat(buf, len, last + 1);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* the fabric's Zones and Endpoints collections (put by the caller) */
static int fabric_read(struct rf *s, const struct pt_platform *p,
		       json_object **zones, json_object **eps, char *err,
		       size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	char path[RF_PATH_MAX], zp[RF_PATH_MAX], epp[RF_PATH_MAX];
	char have[RFZ_LIST_MAX];
	json_object *fab = NULL, *all = NULL;
	const char *v;
	int r;

	*zones = *eps = NULL;
	fabric_path(rf, NULL, path, sizeof(path));
	r = rf_get(s, path, &fab, err, len);
	if (r == -EREMOTEIO && s->code == 404) {
		/* the Fabrics it has, in place of a 404's words */
		if (!rf_get(s, "/redfish/v1/Fabrics", &all, err, len))
			members_list(all, have, sizeof(have));
		else
			snprintf(have, sizeof(have), "no /redfish/v1/Fabrics");
		json_object_put(all);
		snprintf(err, len, "redfish.fabric \"%s\": the BMC has no such "
			 "fabric (platform %s); it has: %s", rf->fabric,
			 p->name, have);
		return -ENOENT;
	}
	if (r)
		return r;
	/* as the fabric links them, else where Redfish puts them */
	v = rf_jstr(fab, "Zones", "@odata.id", NULL);
	if (v)
		snprintf(zp, sizeof(zp), "%s", v);
	else
		fabric_path(rf, "Zones", zp, sizeof(zp));
	v = rf_jstr(fab, "Endpoints", "@odata.id", NULL);
	if (v)
		snprintf(epp, sizeof(epp), "%s", v);
	else
		fabric_path(rf, "Endpoints", epp, sizeof(epp));
	json_object_put(fab);
	r = rf_get(s, zp, zones, err, len);
	if (!r)
		r = rf_get(s, epp, eps, err, len);
	if (r) {
		json_object_put(*zones);
		*zones = NULL;
	}
	return r;
}

/* layout l's zones and endpoints against the fabric's: the first one it
 * lacks into err (-ENOENT), or 0 */
static int layout_on_fabric(const struct pt_platform *p,
			    enum pcitopo_layout l, json_object *zones,
			    json_object *eps, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	char have[RFZ_LIST_MAX];

	for (unsigned int z = 0; z < rf->nzones; z++) {
		if (!members_have(zones, rf->zone[z])) {
			members_list(zones, have, sizeof(have));
			snprintf(err, len, "layout %s: zone \"%s\" (platform "
				 "%s): the BMC's fabric %s has no such zone; it "
				 "has: %s", ptc_layout_name(l), rf->zone[z],
				 p->name, rf->fabric, have);
			return -ENOENT;
		}
		for (unsigned int k = 0; k < rf->neps; k++) {
			if (!(rf->zmask[l][z] & (1u << k)) ||
			    members_have(eps, rf->ep[k]))
				continue;
			members_list(eps, have, sizeof(have));
			snprintf(err, len, "layout %s: endpoint \"%s\" of zone "
				 "\"%s\" (platform %s): the BMC's fabric %s has "
				 "no such endpoint; it has: %s",
				 ptc_layout_name(l), rf->ep[k], rf->zone[z],
				 p->name, rf->fabric, have);
			return -ENOENT;
		}
	}
	return 0;
}

int rfz_can_select(struct rf *s, const struct pt_platform *p,
		   enum pcitopo_layout l, char *err, size_t len)
{
	json_object *zones, *eps;
	int r;

	r = fabric_read(s, p, &zones, &eps, err, len);
	if (r)
		return r;
	r = layout_on_fabric(p, l, zones, eps, err, len);
	json_object_put(zones);
	json_object_put(eps);
	return r;
}

void rfz_check_bmc(struct rf *s, const struct pt_platform *p,
		   void (*bad)(const char *what, const char *why))
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	char err[2048], zl[RFZ_LIST_MAX], el[RFZ_LIST_MAX], names[512];
	struct zone_now now[PT_RF_ZONES_MAX];
	json_object *zones, *eps;
	bool all_there = true;
	u8 l;

	if (fabric_read(s, p, &zones, &eps, err, sizeof(err))) {
		bad("platform", err);
		return;
	}
	members_list(zones, zl, sizeof(zl));
	members_list(eps, el, sizeof(el));
	printf("bmc:      fabric %s: zones %s; endpoints %s\n", rf->fabric, zl,
	       el);
	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		if (!p->layouts[l].present ||
		    !layout_on_fabric(p, l, zones, eps, err, sizeof(err)))
			continue;
		bad("platform", err);
		all_there = false;
	}
	json_object_put(zones);
	json_object_put(eps);
	if (!all_there)
		return;
	for (unsigned int z = 0; z < rf->nzones; z++) {
		if (zone_read(s, rf, z, &now[z], err, sizeof(err))) {
			bad("bmc", err);
			return;
		}
		mask_names(rf, now[z].mask, names, sizeof(names));
		printf("bmc:      zone %s: %s%s%s\n", rf->zone[z], names,
		       now[z].other[0] ? ", and " : "", now[z].other);
	}
	printf("bmc:      the zones are layout %s\n",
	       ptc_layout_name(layout_of(p, now)));
}

/* --- topod --discover-redfish ------------------------------------------ */

/* the last segment of an @odata.id */
static const char *last_of(const char *id)
{
	const char *l = id ? strrchr(id, '/') : NULL;

	return l ? l + 1 : id ? id : "?";
}

/* one fabric: its zones with their endpoints now, and a platform file's
 * zone part with them as one layout */
static int discover_fabric(struct rf *s, const char *path, FILE *out,
			   char *err, size_t len)
{
	json_object *fab = NULL, *zones = NULL, *eps = NULL, *m;
	const char *zp, *epp;
	char have[RFZ_LIST_MAX];
	int r;

	r = rf_get(s, path, &fab, err, len);
	if (r)
		return r;
	zp = rf_jstr(fab, "Zones", "@odata.id", NULL);
	epp = rf_jstr(fab, "Endpoints", "@odata.id", NULL);
	fprintf(out, "\nFabric %s (\"%s\"), %s:\n", last_of(path),
		rf_jstr(fab, "Name", NULL) ?: "",
		rf_jstr(fab, "FabricType", NULL) ?: "type not given");
	if (epp && !rf_get(s, epp, &eps, err, len)) {
		members_list(eps, have, sizeof(have));
		fprintf(out, "    endpoints: %s\n", have);
	}
	if (!zp || rf_get(s, zp, &zones, err, len)) {
		fprintf(out, "    no zones\n");
		goto out;
	}
	fprintf(out, "\n# A platform file's zone part for fabric %s (pcitopo-platform(5)):\n"
		"# the zones as they are now, as one layout: say which it is, and\n"
		"# give each other layout the endpoints each zone has then.\n"
		"transport = \"redfish\";\napply = \"online\";\n"
		"redfish = { fabric = \"%s\"; };\nlayouts = {\n"
		"\tbalance = { gpus = 8; zones = (\t# or common, or cascade?\n",
		last_of(path), last_of(path));
	m = rf_jget(zones, "Members");
	for (size_t i = 0; m && i < json_object_array_length(m); i++) {
		const char *zid = rf_jstr(json_object_array_get_idx(m, i),
					  "@odata.id", NULL);
		json_object *z = NULL, *links;

		if (!zid || rf_get(s, zid, &z, err, len))
			continue;
		fprintf(out, "\t\t{ zone = \"%s\"; endpoints = [", last_of(zid));
		links = rf_jget(rf_jget(z, "Links"), "Endpoints");
		for (size_t k = 0; links && k < json_object_array_length(links);
		     k++)
			fprintf(out, "%s\"%s\"", k ? ", " : " ",
				last_of(rf_jstr(json_object_array_get_idx(
					links, k), "@odata.id", NULL)));
		fprintf(out, " ]; }%s\t# %s\n",
			i + 1 < json_object_array_length(m) ? "," : "",
			rf_jstr(z, "Name", NULL) ?: "");
		json_object_put(z);
	}
	fprintf(out, "\t); };\n};\n");
out:
	json_object_put(zones);
	json_object_put(eps);
	json_object_put(fab);
	return 0;
}

int rfz_discover(struct rf *s, FILE *out, char *err, size_t len)
{
	json_object *root = NULL, *all = NULL, *m;
	const char *fp;
	int r, n = 0;

	r = rf_get(s, "/redfish/v1", &root, err, len);
	if (r)
		return r;
	fp = rf_jstr(root, "Fabrics", "@odata.id", NULL);
	if (!fp) {
		json_object_put(root);
		return 0;	/* the ServiceRoot names no Fabrics */
	}
	r = rf_get(s, fp, &all, err, len);
	json_object_put(root);
	if (r)
		return r;
	m = rf_jget(all, "Members");
	for (size_t i = 0; m && i < json_object_array_length(m); i++) {
		const char *id = rf_jstr(json_object_array_get_idx(m, i),
					 "@odata.id", NULL);

		if (!id)
			continue;
		r = discover_fabric(s, id, out, err, len);
		if (r)
			break;
		n++;
	}
	json_object_put(all);
	return r ? r : n;
}
