// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: org.pcitopo.Topod1 on /org/pcitopo/Topod (one sd-bus vtable, as
 * systemd-timedated). Documentation/org.pcitopo.Topod1.xml is the API.
 */
#include <errno.h>
#include <string.h>

#include "nfd.h"
#include "topod.h"

/* Our names' errno, for sd-bus (bus_setup() registers it): the errno
 * sd_bus_error_set() returns and sd_bus_error_get_errno() gives is then
 * EBUSY for Busy, not the EIO of an unknown name. */
static const sd_bus_error_map topod_error_map[] = {
#define TERR_MAP(id, errnum) SD_BUS_ERROR_MAP(TOPOD_ERR_##id, errnum),
	TOPOD_ERRORS(TERR_MAP)
#undef TERR_MAP
	SD_BUS_ERROR_MAP_END
};

int bus_reply_error(sd_bus_message *m, enum terr e, int errnum,
		    const char *text)
{
	(void)errnum;
	return sd_bus_reply_method_errorf(m, terr_name(e), "%s", text);
}

/* --- methods ----------------------------------------------------------- */

static void set_layout_authorized(struct topod *d, sd_bus_message *m)
{
	char msg[TOPOD_MSG_LEN];
	const char *name;
	uint64_t flags;
	enum pcitopo_layout l;
	int r;

	r = sd_bus_message_rewind(m, true);
	if (r >= 0)
		r = sd_bus_message_read(m, "st", &name, &flags);
	if (r < 0) {
		(void)sd_bus_reply_method_errno(m, r, NULL);
		return;
	}
	l = ptc_layout_by_name(name);
	/* a request that raced ours while polkit thought */
	if (request_busy(d, msg, sizeof(msg)) != TERR_OK) {
		(void)bus_reply_error(m, TERR_BUSY, 0, msg);
		return;
	}
	r = topod_start_job(d, JOB_SWITCH, l, flags, NULL, false);
	if (r < 0) {
		(void)sd_bus_reply_method_errno(m, r, NULL);
		return;
	}
	d->pending_call = sd_bus_message_ref(m);
}

static int method_set_layout(sd_bus_message *m, void *userdata,
			     sd_bus_error *error)
{
	struct request q;
	int r = request_read(userdata, m, &q);

	if (r < 0)
		return r;
	if (q.err != TERR_OK)
		return sd_bus_error_set(error, terr_name(q.err), q.msg);
	return polkit_check(userdata, m, set_layout_authorized, error);
}

/* The dry run: an unknown layout or flag is the caller's error; every
 * other refusal is the plan's verdict (Busy: plan.c, at its turn). */
static int method_plan_layout(sd_bus_message *m, void *userdata,
			      sd_bus_error *error)
{
	struct request q;
	int r = request_read(userdata, m, &q);

	if (r < 0)
		return r;
	if (q.err == TERR_INVALID_LAYOUT || q.err == TERR_INVALID_ARGS)
		return sd_bus_error_set(error, terr_name(q.err), q.msg);
	return plan_request(userdata, m, q.layout, q.flags,
			    q.err == TERR_UNSUPPORTED ? q.err : TERR_OK, q.msg,
			    error);
}

static int method_get_layout(sd_bus_message *m, void *userdata,
			     sd_bus_error *error)
{
	struct topod *d = userdata;

	(void)error;
	topod_refresh(d, false);
	return sd_bus_reply_method_return(m, "ss", ptc_layout_name(d->layout),
					  d->reason);
}

static int method_recheck(sd_bus_message *m, void *userdata,
			  sd_bus_error *error)
{
	struct topod *d = userdata;

	(void)error;
	topod_refresh(d, true);
	return sd_bus_reply_method_return(m, "");
}

/* one {sv} of an answer: k is topod1.h's key (name, signature) */
#define APPEND(k, val) do { \
	r = sd_bus_message_append(reply, "{sv}", k, val); \
	if (r < 0) goto fail; } while (0)

static int method_status(sd_bus_message *m, void *userdata,
			 sd_bus_error *error)
{
	struct topod *d = userdata;
	sd_bus_message *reply = NULL;
	char bmc[TOPOD_MSG_LEN];
	int r;

	(void)error;
	topod_refresh(d, false);
	r = sd_bus_message_new_method_return(m, &reply);
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(reply, 'a', "{sv}");
	if (r < 0)
		goto fail;
	APPEND(TOPOD_STATUS_LAYOUT, ptc_layout_name(d->layout));
	APPEND(TOPOD_STATUS_REASON, d->reason);
	APPEND(TOPOD_STATUS_PENDING_LAYOUT,
	       d->pending ? ptc_layout_name(d->pending) : "");
	APPEND(TOPOD_STATUS_STATE, tstate_name(d->state));
	APPEND(TOPOD_STATUS_PHASE, d->phase);
	/* waiting-bmc: the switch whose rollback waits, no job between tries */
	APPEND(TOPOD_STATUS_TARGET, d->job || d->state == TS_WAITING_BMC ?
	       ptc_layout_name(d->target) : "");
	APPEND(TOPOD_STATUS_LAST_ERROR, d->last_error);
	APPEND(TOPOD_STATUS_GENERATION, d->committed.generation);
	APPEND(TOPOD_STATUS_COMMITTED_LAYOUT,
	       ptc_layout_name(d->committed.layout));
	APPEND(TOPOD_STATUS_PLATFORM, d->plat.name);
	APPEND(TOPOD_STATUS_METHOD, pt_platform_method_name(d->plat.method));
	APPEND(TOPOD_STATUS_APPLY, pt_platform_apply_name(d->plat.apply));
	APPEND(TOPOD_STATUS_GPUS, d->gpus);
	APPEND(TOPOD_STATUS_MODULE_GENERATION, d->module_generation);
	bmc_describe(&d->cfg.bmc, bmc, sizeof(bmc));
	APPEND(TOPOD_STATUS_BMC, bmc);
	{
		const char *supported[__PCITOPO_LAYOUT_MAX + 1] = { NULL };
		unsigned int n = 0;
		u8 l;

		for (l = ptc_layout_first(); l; l = ptc_layout_next(l))
			if (d->plat.layouts[l].present)
				supported[n++] = ptc_layout_name(l);
		r = sd_bus_message_open_container(reply, 'e', "sv");
		if (r >= 0)
			r = sd_bus_message_append(reply, "s",
						  TOPOD_KEY(TOPOD_STATUS_LAYOUTS));
		if (r >= 0)
			r = sd_bus_message_open_container(reply, 'v',
							  TOPOD_SIG(TOPOD_STATUS_LAYOUTS));
		if (r >= 0)
			r = sd_bus_message_append_strv(reply, (char **)supported);
		if (r >= 0)
			r = sd_bus_message_close_container(reply);
		if (r >= 0)
			r = sd_bus_message_close_container(reply);
		if (r < 0)
			goto fail;
	}
	r = sd_bus_message_close_container(reply);
	if (r < 0)
		goto fail;
	r = sd_bus_send(NULL, reply, NULL);
fail:
	sd_bus_message_unref(reply);
	return r;
}

/* --- properties -------------------------------------------------------- */

static int prop_get(sd_bus *bus, const char *path, const char *iface,
		    const char *prop, sd_bus_message *reply, void *userdata,
		    sd_bus_error *error)
{
	struct topod *d = userdata;

	(void)bus; (void)path; (void)iface; (void)error;
	if (!strcmp(prop, TOPOD_PROP_LAYOUT))
		return sd_bus_message_append(reply, "s",
					     ptc_layout_name(d->layout));
	if (!strcmp(prop, TOPOD_PROP_PENDING_LAYOUT))
		return sd_bus_message_append(reply, "s",
					     d->pending ?
					     ptc_layout_name(d->pending) : "");
	if (!strcmp(prop, TOPOD_PROP_STATE))
		return sd_bus_message_append(reply, "s", tstate_name(d->state));
	if (!strcmp(prop, TOPOD_PROP_LAST_ERROR))
		return sd_bus_message_append(reply, "s", d->last_error);
	if (!strcmp(prop, TOPOD_PROP_GENERATION))
		return sd_bus_message_append(reply, "t",
					     d->committed.generation);
	if (!strcmp(prop, TOPOD_PROP_PLATFORM))
		return sd_bus_message_append(reply, "s", d->plat.name);
	return -ENOENT;
}

static const sd_bus_vtable topod_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(TOPOD_PROP_LAYOUT, "s", prop_get, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY(TOPOD_PROP_PENDING_LAYOUT, "s", prop_get, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY(TOPOD_PROP_STATE, "s", prop_get, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY(TOPOD_PROP_LAST_ERROR, "s", prop_get, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY(TOPOD_PROP_GENERATION, "t", prop_get, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY(TOPOD_PROP_PLATFORM, "s", prop_get, 0,
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_METHOD_WITH_NAMES(TOPOD_METHOD_SET_LAYOUT, "st",
				 SD_BUS_PARAM(layout)
				 SD_BUS_PARAM(flags), "", ,
				 method_set_layout,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	/* a dry run changes nothing: no more privilege than Status */
	SD_BUS_METHOD_WITH_NAMES(TOPOD_METHOD_PLAN_LAYOUT, "st",
				 SD_BUS_PARAM(layout)
				 SD_BUS_PARAM(flags), "a{sv}",
				 SD_BUS_PARAM(plan), method_plan_layout,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES(TOPOD_METHOD_GET_LAYOUT, "", , "ss",
				 SD_BUS_PARAM(layout) SD_BUS_PARAM(reason),
				 method_get_layout, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES(TOPOD_METHOD_STATUS, "", , "a{sv}",
				 SD_BUS_PARAM(status), method_status,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD(TOPOD_METHOD_RECHECK, "", "", method_recheck,
		      SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL_WITH_NAMES(TOPOD_SIGNAL_PHASE, "sssts",
				 SD_BUS_PARAM(layout)
				 SD_BUS_PARAM(phase) SD_BUS_PARAM(status)
				 SD_BUS_PARAM(elapsed_usec)
				 SD_BUS_PARAM(message), 0),
	SD_BUS_SIGNAL_WITH_NAMES(TOPOD_SIGNAL_FINISHED, "sbs",
				 SD_BUS_PARAM(layout)
				 SD_BUS_PARAM(ok) SD_BUS_PARAM(error), 0),
	SD_BUS_SIGNAL_WITH_NAMES(TOPOD_SIGNAL_DRIFT, "ss",
				 SD_BUS_PARAM(layout)
				 SD_BUS_PARAM(message), 0),
	SD_BUS_VTABLE_END
};

int bus_setup(struct topod *d)
{
	int r;

	r = sd_bus_error_add_map(topod_error_map);
	if (r < 0)
		return r;
	r = sd_bus_add_object_vtable(d->bus, &d->vtable_slot, TOPOD_OBJECT,
				     TOPOD_IFACE, topod_vtable, d);
	if (r < 0)
		return r;
	return sd_bus_add_object_manager(d->bus, NULL, TOPOD_OBJECT_ROOT);
}

void bus_emit_phase(struct topod *d, const struct tmsg *m)
{
	(void)sd_bus_emit_signal(d->bus, TOPOD_OBJECT, TOPOD_IFACE,
				 TOPOD_SIGNAL_PHASE, "sssts",
				 ptc_layout_name(m->layout), m->phase,
				 m->status, m->elapsed_usec, m->text);
}

void bus_emit_finished(struct topod *d, const struct tmsg *m)
{
	(void)sd_bus_emit_signal(d->bus, TOPOD_OBJECT, TOPOD_IFACE,
				 TOPOD_SIGNAL_FINISHED, "sbs",
				 ptc_layout_name(m->layout), (int)m->ok,
				 m->text);
}

void bus_emit_drift(struct topod *d, const char *msg)
{
	(void)sd_bus_emit_signal(d->bus, TOPOD_OBJECT, TOPOD_IFACE,
				 TOPOD_SIGNAL_DRIFT, "ss",
				 ptc_layout_name(d->layout), msg);
}

void bus_props_changed(struct topod *d)
{
	nfd_update(d);	/* the node labels say what the properties say */
	(void)sd_bus_emit_properties_changed(d->bus, TOPOD_OBJECT, TOPOD_IFACE,
					     TOPOD_PROP_LAYOUT,
					     TOPOD_PROP_PENDING_LAYOUT,
					     TOPOD_PROP_STATE,
					     TOPOD_PROP_LAST_ERROR,
					     TOPOD_PROP_GENERATION, NULL);
}
