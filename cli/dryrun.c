// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl set LAYOUT --dry-run [--force] [--power-cycle] [-j]: what the
 * switch would do, from topod's PlanLayout (its preflight's own checks),
 * without doing any of it. As "Key: value" lines, or with -j one JSON
 * object. Exit 0 if the switch would proceed, 1 if it would be refused
 * (the verdict says why, as SetLayout would), 2 for usage errors (an
 * unknown layout or flag included).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "topod-client.h"

#define PLAN_MAX	32

struct plan {
	char current[32], target[32], error[128], message[512], auth[16];
	char state[32], phase[32], outcome[24], method[16], apply[16];
	char platform[80], bmc[256], bmc_error[512], bmc_state[16];
	char bmc_current[32], bmc_pending[32], module_layout[32];
	uint64_t flags, budget_ms;
	int checked, proceed, noop, pc_needed, pc_allowed, select, bmc_ok;
	int detach, named, systemd;
	int32_t bmc_job;
	uint32_t gpus, gpus_expected;
	unsigned int nmoving, nports, nholders, nunits;
	struct { char name[16], addr[32]; } moving[PLAN_MAX];
	char ports[PLAN_MAX][32];
	struct {
		char gpu[32], comm[64], file[256];
		uint32_t pid;
	} holders[PLAN_MAX];
	struct {
		char name[128];
		int active, stop;
	} units[PLAN_MAX];
};

#define OFF(f)	offsetof(struct plan, f), sizeof(((struct plan *)0)->f)
static const struct topod_field fields[] = {
	{ TOPOD_PLAN_CURRENT_LAYOUT, OFF(current) },
	{ TOPOD_PLAN_TARGET_LAYOUT, OFF(target) },
	{ TOPOD_PLAN_ERROR, OFF(error) },
	{ TOPOD_PLAN_MESSAGE, OFF(message) },
	{ TOPOD_PLAN_AUTHORIZATION, OFF(auth) },
	{ TOPOD_PLAN_STATE, OFF(state) },
	{ TOPOD_PLAN_PHASE, OFF(phase) },
	{ TOPOD_PLAN_OUTCOME, OFF(outcome) },
	{ TOPOD_PLAN_METHOD, OFF(method) },
	{ TOPOD_PLAN_APPLY, OFF(apply) },
	{ TOPOD_PLAN_PLATFORM, OFF(platform) },
	{ TOPOD_PLAN_BMC, OFF(bmc) },
	{ TOPOD_PLAN_BMC_ERROR, OFF(bmc_error) },
	{ TOPOD_PLAN_BMC_STATE, OFF(bmc_state) },
	{ TOPOD_PLAN_BMC_CURRENT, OFF(bmc_current) },
	{ TOPOD_PLAN_BMC_PENDING, OFF(bmc_pending) },
	{ TOPOD_PLAN_MODULE_LAYOUT, OFF(module_layout) },
	{ TOPOD_PLAN_FLAGS, OFF(flags) },
	{ TOPOD_PLAN_BUDGET_MS, OFF(budget_ms) },
	{ TOPOD_PLAN_CHECKED, OFF(checked) },
	{ TOPOD_PLAN_PROCEED, OFF(proceed) },
	{ TOPOD_PLAN_NOOP, OFF(noop) },
	{ TOPOD_PLAN_POWER_CYCLE_NEEDED, OFF(pc_needed) },
	{ TOPOD_PLAN_POWER_CYCLE_ALLOWED, OFF(pc_allowed) },
	{ TOPOD_PLAN_SELECT, OFF(select) },
	{ TOPOD_PLAN_BMC_REACHABLE, OFF(bmc_ok) },
	{ TOPOD_PLAN_DETACH, OFF(detach) },
	{ TOPOD_PLAN_HOLDERS_NAMED, OFF(named) },
	{ TOPOD_PLAN_SYSTEMD, OFF(systemd) },
	{ TOPOD_PLAN_BMC_JOB, OFF(bmc_job) },
	{ TOPOD_PLAN_GPUS, OFF(gpus) },
	{ TOPOD_PLAN_GPUS_EXPECTED, OFF(gpus_expected) },
};
#undef OFF

/* a(...) in a variant (vsig "aX": its items are "X"): enter both; the
 * caller reads the items */
static int enter_array(sd_bus_message *m, const char *vsig)
{
	int r = sd_bus_message_enter_container(m, 'v', vsig);

	return r < 0 ? r : sd_bus_message_enter_container(m, 'a', vsig + 1);
}

static int exit_array(sd_bus_message *m)
{
	int r = sd_bus_message_exit_container(m);

	return r < 0 ? r : sd_bus_message_exit_container(m);
}

static void cp(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static int read_arrays(sd_bus_message *m, const char *key, void *base,
		       bool *done)
{
	struct plan *p = base;
	const char *a, *b, *f;
	uint32_t pid;
	int x, y, r = 0;

	*done = true;
	if (!strcmp(key, TOPOD_KEY(TOPOD_PLAN_MOVING_GPUS))) {
		r = enter_array(m, TOPOD_SIG(TOPOD_PLAN_MOVING_GPUS));
		while (r >= 0 && (r = sd_bus_message_read(m, "(ss)", &a, &b)) > 0)
			if (p->nmoving < PLAN_MAX) {
				cp(p->moving[p->nmoving].name, 16, a);
				cp(p->moving[p->nmoving++].addr, 32, b);
			}
	} else if (!strcmp(key, TOPOD_KEY(TOPOD_PLAN_DETACH_PORTS))) {
		r = enter_array(m, TOPOD_SIG(TOPOD_PLAN_DETACH_PORTS));
		while (r >= 0 && (r = sd_bus_message_read(m, "s", &a)) > 0)
			if (p->nports < PLAN_MAX)
				cp(p->ports[p->nports++], 32, a);
	} else if (!strcmp(key, TOPOD_KEY(TOPOD_PLAN_HOLDERS))) {
		r = enter_array(m, TOPOD_SIG(TOPOD_PLAN_HOLDERS));
		while (r >= 0 && (r = sd_bus_message_read(m, "(suss)", &a, &pid,
							   &b, &f)) > 0)
			if (p->nholders < PLAN_MAX) {
				cp(p->holders[p->nholders].gpu, 32, a);
				p->holders[p->nholders].pid = pid;
				cp(p->holders[p->nholders].comm, 64, b);
				cp(p->holders[p->nholders++].file, 256, f);
			}
	} else if (!strcmp(key, TOPOD_KEY(TOPOD_PLAN_UNITS))) {
		r = enter_array(m, TOPOD_SIG(TOPOD_PLAN_UNITS));
		while (r >= 0 && (r = sd_bus_message_read(m, "(sbb)", &a, &x,
							   &y)) > 0)
			if (p->nunits < PLAN_MAX) {
				cp(p->units[p->nunits].name, 128, a);
				p->units[p->nunits].active = x;
				p->units[p->nunits++].stop = y;
			}
	} else {
		*done = false;
		return 0;
	}
	return r < 0 ? r : exit_array(m);
}

/* "DeviceBusy" of org.pcitopo.Topod1.Error.DeviceBusy */
static const char *short_error(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

static struct json_object *jstr(const char *s)
{
	return *s ? json_object_new_string(s) : NULL;
}

static void print_json(struct ctx *c, const struct plan *p)
{
	struct json_object *o = json_object_new_object(), *a, *b;

	json_object_object_add(o, "dry_run", json_object_new_boolean(1));
	json_object_object_add(o, "verdict", json_object_new_string(
		p->proceed ? "proceed" : "refused"));
	json_object_object_add(o, "proceed", json_object_new_boolean(p->proceed));
	json_object_object_add(o, "error", jstr(short_error(p->error)));
	json_object_object_add(o, "error_name", jstr(p->error));
	json_object_object_add(o, "message", jstr(p->message));
	json_object_object_add(o, "current_layout", json_object_new_string(p->current));
	json_object_object_add(o, "target_layout", json_object_new_string(p->target));
	json_object_object_add(o, "noop", json_object_new_boolean(p->noop));
	json_object_object_add(o, "checked", json_object_new_boolean(p->checked));
	json_object_object_add(o, "outcome", jstr(p->outcome));
	json_object_object_add(o, "force", json_object_new_boolean(p->flags & 1));
	json_object_object_add(o, "platform", json_object_new_string(p->platform));
	json_object_object_add(o, "method", json_object_new_string(p->method));
	json_object_object_add(o, "apply", json_object_new_string(p->apply));
	json_object_object_add(o, "power_cycle_needed",
			       json_object_new_boolean(p->pc_needed));
	json_object_object_add(o, "power_cycle_allowed",
			       json_object_new_boolean(p->pc_allowed));
	json_object_object_add(o, "select", json_object_new_boolean(p->select));
	json_object_object_add(o, "budget_ms",
			       json_object_new_int64((int64_t)p->budget_ms));
	json_object_object_add(o, "state", json_object_new_string(p->state));
	json_object_object_add(o, "phase", jstr(p->phase));
	json_object_object_add(o, "authorization", json_object_new_string(p->auth));
	b = json_object_new_object();
	json_object_object_add(b, "address", json_object_new_string(p->bmc));
	json_object_object_add(b, "reachable", json_object_new_boolean(p->bmc_ok));
	json_object_object_add(b, "error", jstr(p->bmc_error));
	json_object_object_add(b, "state", jstr(p->bmc_state));
	json_object_object_add(b, "job", p->bmc_ok && p->bmc_job >= 0 ?
			       json_object_new_int(p->bmc_job) : NULL);
	json_object_object_add(b, "current", jstr(p->bmc_current));
	json_object_object_add(b, "pending", jstr(p->bmc_pending));
	json_object_object_add(o, "bmc", b);
	json_object_object_add(o, "module_layout", jstr(p->module_layout));
	json_object_object_add(o, "gpus", json_object_new_int64(p->gpus));
	json_object_object_add(o, "gpus_expected",
			       json_object_new_int64(p->gpus_expected));
	a = json_object_new_array();
	for (unsigned int i = 0; i < p->nmoving; i++) {
		b = json_object_new_object();
		json_object_object_add(b, "name", jstr(p->moving[i].name));
		json_object_object_add(b, "address",
				       json_object_new_string(p->moving[i].addr));
		json_object_array_add(a, b);
	}
	json_object_object_add(o, "moving_gpus", a);
	json_object_object_add(o, "detach", json_object_new_boolean(p->detach));
	a = json_object_new_array();
	for (unsigned int i = 0; i < p->nports; i++)
		json_object_array_add(a, json_object_new_string(p->ports[i]));
	json_object_object_add(o, "detach_ports", a);
	a = json_object_new_array();
	for (unsigned int i = 0; i < p->nholders; i++) {
		b = json_object_new_object();
		json_object_object_add(b, "gpu",
				       json_object_new_string(p->holders[i].gpu));
		json_object_object_add(b, "pid", p->named ?
				       json_object_new_int64(p->holders[i].pid) : NULL);
		json_object_object_add(b, "comm", p->named ?
				       jstr(p->holders[i].comm) : NULL);
		json_object_object_add(b, "file", p->named ?
				       jstr(p->holders[i].file) : NULL);
		json_object_array_add(a, b);
	}
	json_object_object_add(o, "holders", a);
	json_object_object_add(o, "systemd", json_object_new_boolean(p->systemd));
	a = json_object_new_array();
	for (unsigned int i = 0; i < p->nunits; i++) {
		b = json_object_new_object();
		json_object_object_add(b, "name",
				       json_object_new_string(p->units[i].name));
		json_object_object_add(b, "active",
				       json_object_new_boolean(p->units[i].active));
		json_object_object_add(b, "stop",
				       json_object_new_boolean(p->units[i].stop));
		json_object_array_add(a, b);
	}
	json_object_object_add(o, "units", a);
	emit_json(c, o);
}

static void print_text(struct ctx *c, const struct plan *p)
{
	FILE *f = c->out;
	bool change = p->checked && !p->noop;
	unsigned int nstop = 0;

	fprintf(f, "Dry run: nothing was changed.\n");
	fprintf(f, "Layout:      %s -> %s (platform %s: %s, %s)\n", p->current,
		p->target, p->platform, p->method, p->apply);
	if (!p->checked) {
		fprintf(f, "State:       %s%s%s%s: not checked while a switch "
			"is in flight\n", p->state, p->phase[0] ? " (" : "",
			p->phase, p->phase[0] ? ")" : "");
	} else {
		if (p->bmc_ok)
			fprintf(f, "BMC:         %s: %s, job %" PRId32 ", current "
				"%s, pending %s\n", p->bmc, p->bmc_state,
				p->bmc_job, p->bmc_current,
				p->bmc_pending[0] ? p->bmc_pending : "none");
		else
			fprintf(f, "BMC:         %s: not reachable: %s\n", p->bmc,
				p->bmc_error);
		if (p->module_layout[0])
			fprintf(f, "GPUs:        %u present, %u expected "
				"(module: %s)\n", p->gpus, p->gpus_expected,
				p->module_layout);
		fputs("Stop units:  ", f);
		for (unsigned int i = 0; i < p->nunits; i++)
			if (p->units[i].stop)
				fprintf(f, "%s%s", nstop++ ? ", " : "",
					p->units[i].name);
		if (!nstop)
			fputs("none", f);
		if (p->nunits && !p->systemd)
			fputs(" (systemd not on the bus)", f);
		else
			for (unsigned int i = 0, k = 0; i < p->nunits; i++)
				if (!p->units[i].active)
					fprintf(f, "%s%s", k++ ? ", " : " (not active: ",
						p->units[i].name);
		if (p->systemd && nstop < p->nunits)
			fputc(')', f);
		fputc('\n', f);
		fputs("Detach:      ", f);
		for (unsigned int i = 0; p->detach && i < p->nmoving; i++)
			fprintf(f, "%s%s%s%s", i ? ", " : "", p->moving[i].name,
				p->moving[i].name[0] ? " " : "", p->moving[i].addr);
		if (!p->detach || !p->nmoving)
			fputs("none", f);
		if (!p->detach && change && p->nmoving)
			fprintf(f, " (%u GPUs move at the power cycle)",
				p->nmoving);
		fputc('\n', f);
		fputs("Holders:     ", f);
		for (unsigned int i = 0; i < p->nholders; i++) {
			if (p->named)
				fprintf(f, "%spid %" PRIu32 " (%s) holds %s",
					i ? "; " : "", p->holders[i].pid,
					p->holders[i].comm, p->holders[i].file);
			else
				fprintf(f, "%sa process holds %s", i ? "; " : "",
					p->holders[i].gpu);
		}
		if (!p->nholders)
			fputs("none", f);
		else if (p->flags & 1)
			fputs(" (--force: switching anyway)", f);
		if (p->nholders && !p->named)
			fputs(" (names only for callers allowed to switch)", f);
		fputc('\n', f);
		fprintf(f, "BMC Select:  %s\n", !p->select ? "no" :
			!p->pc_needed ? "yes, once" :
			"yes, once: the layout becomes pending");
		if (!p->pc_needed)
			fputs("Power cycle: not needed\n", f);
		else
			fprintf(f, "Power cycle: needed; %s\n", p->pc_allowed ?
				"allowed (--power-cycle): the host power cycles" :
				"not allowed without --power-cycle: the layout "
				"stays pending until the next power cycle");
		if (change)
			fprintf(f, "Budget:      up to %.1f s (the platform's "
				"budgets%s)\n", (double)p->budget_ms / 1e3,
				strcmp(p->outcome, "online") &&
				strcmp(p->outcome, "power-cycle") ? "" :
				"; on top, each unit stopped gets its own stop and "
				"start timeouts");
	}
	if (!strcmp(p->auth, "yes"))
		fputs("You:         may switch\n", f);
	else if (!strcmp(p->auth, "challenge"))
		fputs("You:         may switch after authenticating (polkit; "
		      "run it on a terminal)\n", f);
	else
		fputs("You:         may not switch (polkit, or root only "
		      "without polkit)\n", f);
	if (!p->proceed)
		fprintf(f, "Verdict:     would be refused (%s): %s\n",
			short_error(p->error), p->message);
	else if (p->noop)
		fprintf(f, "Verdict:     would proceed: already in %s, nothing "
			"to switch\n", p->target);
	else if (!strcmp(p->outcome, "pending"))
		fprintf(f, "Verdict:     would proceed: %s becomes pending and "
			"applies at the next power cycle (--power-cycle to "
			"power cycle now)\n", p->target);
	else if (!strcmp(p->outcome, "power-cycle"))
		fprintf(f, "Verdict:     would proceed: %s is selected and the "
			"host power cycles into it\n", p->target);
	else if (!strcmp(p->outcome, "clear-pending"))
		fprintf(f, "Verdict:     would proceed: %s selected again, "
			"nothing pending any more\n", p->target);
	else
		fprintf(f, "Verdict:     would proceed: %s -> %s\n", p->current,
			p->target);
}

int set_plan(struct ctx *c, const char *layout, uint64_t flags, bool dry_run,
	     bool json, bool wait)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	struct plan *p;
	int r, ret = 1;

	if (!dry_run)
		return usage_error(c, "set: -j goes with --dry-run (a switch "
				   "prints its phases)\nTry 'topoctl set help'.");
	if (!wait)
		return usage_error(c, "set: --dry-run and --no-wait do not go "
				   "together\nTry 'topoctl set help'.");
	if (json)
		c->json = true;
	/* loads libsystemd: no sd_bus_* before it */
	if (topod_connect(c, &bus))
		return 1;
	p = calloc(1, sizeof(*p));
	if (!p) {
		fputs("topoctl: out of memory\n", c->err);
		goto out;
	}
	r = sd_bus_call_method(bus, TOPOD_BUS_NAME, TOPOD_OBJECT, TOPOD_IFACE,
			       TOPOD_METHOD_PLAN_LAYOUT, &e, &reply, "st",
			       layout, flags);
	if (r < 0) {
		ret = topod_error(c, "set", &e, r);
		/* the caller's mistake, as a usage error is: EINVAL, topod's
		 * (InvalidLayout) or freedesktop's (InvalidArgs: flags) */
		if (topod_errno_of(e.name) == EINVAL ||
		    sd_bus_error_has_name(&e, SD_BUS_ERROR_INVALID_ARGS))
			ret = EXIT_USAGE;
		else if (sd_bus_error_has_name(&e, SD_BUS_ERROR_UNKNOWN_METHOD))
			fputs("topoctl: this topod has no dry run (PlanLayout); "
			      "update it\n", c->err);
		goto out;
	}
	r = topod_read_dict(reply, fields, sizeof(fields) / sizeof(fields[0]), p,
			    read_arrays);
	if (r < 0) {
		fprintf(c->err, "topoctl: set: malformed answer: %s\n",
			strerror(-r));
		goto out;
	}
	if (c->json)
		print_json(c, p);
	else
		print_text(c, p);
	ret = p->proceed ? 0 : 1;
out:
	free(p);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	sd_bus_flush_close_unref(bus);
	return ret;
}
