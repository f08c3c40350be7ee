// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl status: what topod says (org.pcitopo.Topod1.Status), as
 * "Key: value" lines or, with -j, one JSON object.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "topod-client.h"

/* one property of topod's unit as a string ("" if systemd cannot say) */
static void unit_prop(sd_bus *bus, const char *iface, const char *name,
		      char *buf, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *s = NULL;
	int32_t i = 0;
	int r;

	buf[0] = '\0';
	r = sd_bus_call_method(bus, TOPOD_SYSTEMD_NAME, TOPOD_UNIT_PATH,
			       TOPOD_PROPS_IFACE, "Get", &e, &reply, "ss",
			       iface, name);
	if (r >= 0 && !strcmp(name, "ExecMainStatus")) {
		if (sd_bus_message_read(reply, "v", "i", &i) >= 0)
			snprintf(buf, len, "%d", (int)i);
	} else if (r >= 0 && sd_bus_message_read(reply, "v", "s", &s) >= 0) {
		snprintf(buf, len, "%s", s);
	}
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
}

/*
 * topod has no bus name: say why, from what systemd knows of its unit (its
 * properties are readable by anyone). A node whose topod.conf names no
 * platform is not an error of topod's: its unit's ExecCondition skips it,
 * and "systemctl start topod" would only skip it again, so the message says
 * what to configure instead. Whether it would be skipped is asked of the
 * condition itself (unit_condition.c), not of what systemd remembers.
 */
static void topod_not_running(struct ctx *c, sd_bus *bus)
{
	char active[32], result[32], status[16];

	unit_prop(bus, TOPOD_UNIT_IFACE, "ActiveState", active, sizeof(active));
	unit_prop(bus, TOPOD_SERVICE_IFACE, "Result", result, sizeof(result));
	unit_prop(bus, TOPOD_SERVICE_IFACE, "ExecMainStatus", status,
		  sizeof(status));
	if (!strcmp(active, "inactive") && topod_unit_would_skip(bus) == 1)
		fputs("topoctl: topod is not running: this node is not "
		      "configured for switching (/etc/pcitopo/topod.conf names "
		      "no platform: topod.conf(5), topod --check)\n", c->err);
	else if (!strcmp(active, "failed") &&
		 atoi(status) == TOPOD_EXIT_STATUS_CONFIG)
		fputs("topoctl: topod is not running: it failed on its "
		      "configuration (topod --check says what is wrong; then "
		      "systemctl restart topod)\n", c->err);
	else if (!strcmp(active, "failed"))
		fprintf(c->err, "topoctl: topod is not running: topod.service "
			"failed (%s; systemctl status topod)\n",
			result[0] ? result : "unknown");
	else if (!strcmp(active, "activating"))
		fputs("topoctl: topod is not running yet: topod.service is "
		      "starting (try again)\n", c->err);
	else
		fputs("topoctl: topod is not running (systemctl start topod)\n",
		      c->err);
}

int topod_connect(struct ctx *c, sd_bus **bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	char why[256];
	int has = 0, r;

	r = sdbus_dl_open(why, sizeof(why));
	if (r < 0) {
		fprintf(c->err, "topoctl: cannot load %s\n"
			"topoctl talks to topod over D-Bus through it\n", why);
		return 1;
	}
	r = sd_bus_open_system(bus);
	if (r < 0) {
		fprintf(c->err, "topoctl: cannot connect to the system bus: %s\n"
			"topod is not running (systemctl start topod)\n",
			strerror(-r));
		return 1;
	}
	r = sd_bus_call_method(*bus, TOPOD_DBUS_NAME, TOPOD_DBUS_OBJECT,
			       TOPOD_DBUS_IFACE, TOPOD_DBUS_NAME_HAS_OWNER, &e,
			       &reply, "s", TOPOD_BUS_NAME);
	if (r >= 0)
		r = sd_bus_message_read(reply, "b", &has);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	if (r < 0 || !has) {
		topod_not_running(c, *bus);
		*bus = sd_bus_flush_close_unref(*bus);
		return 1;
	}
	return 0;
}

int topod_error(struct ctx *c, const char *what, const sd_bus_error *e,
		int r)
{
	/* libsystemd knows none of topod's own names (r is -EIO for each):
	 * their errno is topod1.h's */
	int errnum = e ? topod_errno_of(e->name) : 0;
	const char *msg = e && e->message ? e->message :
			  strerror(errnum ? errnum : -r);

	if (e && sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					SD_BUS_ERROR_NAME_HAS_NO_OWNER,
					SD_BUS_ERROR_NO_REPLY))
		fprintf(c->err, "topoctl: topod is not running (systemctl "
			"start topod)\n");
	else if (e && sd_bus_error_has_names(e, SD_BUS_ERROR_ACCESS_DENIED,
			SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED))
		fprintf(c->err, "topoctl: %s: access denied: %s\n", what, msg);
	else if (errnum == EBUSY)
		fprintf(c->err, "topoctl: %s: busy: %s\n", what, msg);
	else
		fprintf(c->err, "topoctl: %s: %s\n", what, msg);
	return 1;
}

int topod_read_dict(sd_bus_message *m, const struct topod_field *fields,
		    size_t nfields, void *base, topod_other_fn other)
{
	const char *key;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		bool done = false;

		r = sd_bus_message_read(m, "s", &key);
		if (r < 0)
			return r;
		for (size_t i = 0; !done && i < nfields; i++) {
			char *dst = (char *)base + fields[i].off;
			const char *v;

			if (strcmp(key, fields[i].key))
				continue;
			done = true;
			if (!strcmp(fields[i].sig, "s")) {
				r = sd_bus_message_read(m, "v", "s", &v);
				if (r >= 0)
					snprintf(dst, fields[i].len, "%s", v);
			} else {
				r = sd_bus_message_read(m, "v", fields[i].sig,
							dst);
			}
		}
		if (!done && other && r >= 0)
			r = other(m, key, base, &done);
		if (!done && r >= 0)
			r = sd_bus_message_skip(m, "v");
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

#define F(k, f) TOPOD_FIELD(k, struct topod_status, f)
static const struct topod_field status_fields[] = {
	F(TOPOD_STATUS_LAYOUT, layout), F(TOPOD_STATUS_REASON, reason),
	F(TOPOD_STATUS_PENDING_LAYOUT, pending),
	F(TOPOD_STATUS_STATE, state), F(TOPOD_STATUS_PHASE, phase),
	F(TOPOD_STATUS_TARGET, target),
	F(TOPOD_STATUS_LAST_ERROR, last_error),
	F(TOPOD_STATUS_COMMITTED_LAYOUT, committed),
	F(TOPOD_STATUS_PLATFORM, platform), F(TOPOD_STATUS_METHOD, method),
	F(TOPOD_STATUS_APPLY, apply), F(TOPOD_STATUS_BMC, bmc),
	F(TOPOD_STATUS_GENERATION, generation),
	F(TOPOD_STATUS_MODULE_GENERATION, module_generation),
	F(TOPOD_STATUS_GPUS, gpus),
};
#undef F

/* "Key: value" lines, or one JSON object with every field the text shows
 * and module_generation: the strings the text leaves out when empty (the
 * reason) are "" in it, those it shows as "-" null, as -j always wrote. */
static int print_status(struct ctx *c, const struct topod_status *s)
{
	struct pr o;

	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_string_keep(&o, PRINT_ANY, "layout", "Layout:      %s", s->layout);
	pr_string_keep(&o, s->reason[0] ? PRINT_ANY : PRINT_JSON, "reason",
		       " (%s)", s->reason);
	pr_nl(&o);
	pr_string_keep(&o, PRINT_ANY, "state", "State:       %s", s->state);
	pr_string_or(&o, PRINT_ANY, "phase", " (%s", s->phase, NULL);
	pr_string(&o, s->phase[0] ? PRINT_ANY : PRINT_JSON, "target",
		  " to %s)", s->target);
	/* between topod's tries no phase runs: what it waits for, said */
	if (!strcmp(s->state, TOPOD_STATE_WAITING_BMC))
		pr_string(&o, PRINT_FP, NULL, " (for the BMC, to finish the "
			  "rollback of the switch to %s; topod asks it again "
			  "by itself)", s->target);
	pr_nl(&o);
	pr_string_or(&o, PRINT_ANY, "pending_layout", "Pending:     %s\n",
		     s->pending, "-");
	pr_string_keep(&o, PRINT_ANY, "committed_layout", "Committed:   %s",
		       s->committed);
	pr_u64(&o, PRINT_ANY, "generation", " (switches: %" PRIu64 ")\n",
	       s->generation);
	pr_string_keep(&o, PRINT_ANY, "platform", "Platform:    %s",
		       s->platform);
	pr_string_keep(&o, PRINT_ANY, "method", " (%s", s->method);
	pr_string_keep(&o, PRINT_ANY, "apply", ", %s)", s->apply);
	pr_string_keep(&o, PRINT_ANY, "bmc", ", BMC %s\n", s->bmc);
	pr_uint(&o, PRINT_ANY, "gpus", "GPUs:        %u\n", s->gpus);
	pr_u64(&o, PRINT_JSON, "module_generation", NULL, s->module_generation);
	pr_string_or(&o, PRINT_ANY, "last_error", "Last error:  %s\n",
		     s->last_error, "-");
	pr_close_object(&o);
	return pr_end(&o);
}

int topod_read_status(sd_bus_message *m, struct topod_status *s)
{
	return topod_read_dict(m, status_fields, sizeof(status_fields) /
			       sizeof(status_fields[0]), s, NULL);
}

/*
 * topod does not answer: say so, and what is known without it, the
 * module's layout (the model topoctl's other commands read: netlink, else
 * sysfs), under keys of their own (module_*), so that no script takes
 * them for topod's layout and state. Exit EXIT_NOT_ANSWERING.
 */
static int status_not_answering(struct ctx *c, const struct topod_live *l)
{
	struct pt_topology t = { 0 };
	bool known = !load_topology(c, &t);
	double s = topod_live_silent_s(l);
	struct pr o;

	fprintf(c->err, "topoctl: topod is not answering (no answer for "
		"%.1f s): a switch may be in flight; what is known without "
		"topod follows\n", s);
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_bool(&o, PRINT_JSON, "answering", NULL, false);
	pr_text(&o, "State:       unknown: topod is not answering (no answer "
		"for %.1f s)\n", s);
	pr_string(&o, PRINT_JSON, "error", NULL, "topod is not answering");
	if (known) {
		pr_string(&o, PRINT_ANY, "module_layout",
			  "Module:      %s", ptc_layout_name(t.summary.layout));
		pr_string_keep(&o, t.summary.reason[0] ? PRINT_ANY : PRINT_JSON,
			       "module_reason", " (%s)", t.summary.reason);
		pr_uint(&o, PRINT_ANY, "module_gpus", ", %u GPUs",
			t.summary.count_gpus);
		pr_string(&o, PRINT_ANY, "source", " (%s)\n", source_name(c));
	} else {
		pr_null(&o, PRINT_ANY, "module_layout", "Module:      %s\n",
			"unknown");
	}
	pr_int(&o, PRINT_JSON, "exit", NULL, EXIT_NOT_ANSWERING);
	pr_close_object(&o);
	pt_topology_free(&t);
	(void)pr_end(&o);
	return EXIT_NOT_ANSWERING;
}

struct status_call {
	bool answered;
	sd_bus_error e;
	struct topod_status s;
	int r;
};

static int on_status(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct status_call *q = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(m);

	(void)ret;
	q->answered = true;
	if (e) {
		q->r = sd_bus_error_copy(&q->e, e);
		q->r = q->r < 0 ? q->r : -EIO;
		return 0;
	}
	q->r = topod_read_status(m, &q->s);
	if (q->r < 0)
		q->r = -EBADMSG;
	return 0;
}

int do_status(struct ctx *c, int argc, char **argv)
{
	struct status_call q = { .e = SD_BUS_ERROR_NULL };
	sd_bus_message *call = NULL;
	struct topod_live l;
	sd_bus *bus = NULL;
	int r, ret = 1;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			c->json = true;
		else
			return usage_error(c, "status: unknown argument '%s'\n"
					   "Try 'topoctl status help'.", argv[i]);
	}
	if (topod_connect(c, &bus))
		return 1;
	/* no timeout of its own: topod_live says when topod is silent */
	r = topod_live_init(&l, bus);
	if (r >= 0)
		r = sd_bus_message_new_method_call(bus, &call, TOPOD_BUS_NAME,
						   TOPOD_OBJECT, TOPOD_IFACE,
						   TOPOD_METHOD_STATUS);
	if (r >= 0)
		r = sd_bus_call_async(bus, NULL, call, on_status, &q,
				      UINT64_MAX);
	while (r >= 0 && !q.answered && !topod_live_gone(&l))
		r = topod_live_step(&l);
	if (r < 0) {
		fprintf(c->err, "topoctl: status: bus: %s\n", strerror(-r));
		goto out;
	}
	if (!q.answered && l.silent) {
		ret = status_not_answering(c, &l);
		goto out;
	}
	if (!q.answered) {
		fputs("topoctl: topod is not running (it exited before it "
		      "answered; systemctl status topod)\n", c->err);
		goto out;
	}
	if (q.r == -EBADMSG) {
		fprintf(c->err, "topoctl: status: malformed answer: %s\n",
			strerror(-q.r));
		goto out;
	}
	if (q.r < 0) {
		ret = topod_error(c, "status", &q.e, q.r);
		goto out;
	}
	ret = print_status(c, &q.s) ? 1 : 0;
out:
	sd_bus_message_unref(call);
	sd_bus_error_free(&q.e);
	sd_bus_flush_close_unref(bus);
	return ret;
}
