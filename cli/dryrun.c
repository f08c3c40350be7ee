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

#include "print.h"
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

/* The BMC's line, and its object: what PlanLayout says of it. */
static void print_bmc(struct pr *o, enum pr_where w, const struct plan *p)
{
	char job[16];

	pr_open_object(o, w, "bmc");
	pr_string_keep(o, w, "address", "BMC:         %s", p->bmc);
	pr_bool(o, PRINT_JSON, "reachable", NULL, p->bmc_ok);
	if (p->bmc_ok) {
		pr_string(o, PRINT_JSON, "error", NULL, p->bmc_error);
		pr_string(o, w, "state", ": %s", p->bmc_state);
		if (p->bmc_job >= 0) {
			pr_int(o, w, "job", ", job %d", p->bmc_job);
		} else {
			snprintf(job, sizeof(job), "%" PRId32, p->bmc_job);
			pr_null(o, w, "job", ", job %s", job);
		}
		pr_string(o, w, "current", ", current %s", p->bmc_current);
		pr_string_or(o, w, "pending", ", pending %s\n", p->bmc_pending,
			     "none");
	} else {
		pr_string(o, w, "error", ": not reachable: %s\n", p->bmc_error);
		pr_string(o, PRINT_JSON, "state", NULL, p->bmc_state);
		pr_null(o, PRINT_JSON, "job", NULL, NULL);
		pr_string(o, PRINT_JSON, "current", NULL, p->bmc_current);
		pr_string(o, PRINT_JSON, "pending", NULL, p->bmc_pending);
	}
	pr_close_object(o);
}

/* "Stop units:" the units stopped, then those not active; the JSON has
 * every unit with both answers. */
static void print_units(struct pr *o, enum pr_where w, const struct plan *p)
{
	unsigned int nstop = 0, k = 0;

	if (w == PRINT_ANY) {
		pr_text(o, "Stop units:  ");
		for (unsigned int i = 0; i < p->nunits; i++)
			if (p->units[i].stop)
				pr_text(o, "%s%s", nstop++ ? ", " : "",
					p->units[i].name);
		if (!nstop)
			pr_text(o, "none");
		if (p->nunits && !p->systemd)
			pr_text(o, " (systemd not on the bus)");
		else
			for (unsigned int i = 0; i < p->nunits; i++)
				if (!p->units[i].active)
					pr_text(o, "%s%s", k++ ? ", " :
						" (not active: ", p->units[i].name);
		if (p->systemd && nstop < p->nunits)
			pr_text(o, ")");
		pr_nl(o);
	}
	pr_bool(o, PRINT_JSON, "systemd", NULL, p->systemd);
	pr_open_array(o, PRINT_JSON, "units", NULL, NULL);
	for (unsigned int i = 0; i < p->nunits; i++) {
		pr_open_object(o, PRINT_JSON, NULL);
		pr_string_keep(o, PRINT_JSON, "name", NULL, p->units[i].name);
		pr_bool(o, PRINT_JSON, "active", NULL, p->units[i].active);
		pr_bool(o, PRINT_JSON, "stop", NULL, p->units[i].stop);
		pr_close_object(o);
	}
	pr_close_array(o, NULL, NULL);
}

/* "Detach:" the GPUs whose ports an online switch detaches. */
static void print_detach(struct pr *o, enum pr_where w, const struct plan *p,
			 bool change)
{
	enum pr_where list = w == PRINT_ANY && p->detach ? PRINT_ANY :
			     PRINT_JSON;

	if (w == PRINT_ANY)
		pr_text(o, "Detach:      ");
	pr_open_array(o, list, "moving_gpus", NULL, ", ");
	for (unsigned int i = 0; i < p->nmoving; i++) {
		pr_open_object(o, list, NULL);
		pr_string_or(o, list, "name", "%s ", p->moving[i].name, NULL);
		pr_string_keep(o, list, "address", "%s", p->moving[i].addr);
		pr_close_object(o);
	}
	pr_close_array(o, NULL, "none");
	if (w == PRINT_ANY && !p->detach)
		pr_text(o, "none");
	if (w == PRINT_ANY && !p->detach && change && p->nmoving)
		pr_text(o, " (%u GPUs move at the power cycle)", p->nmoving);
	if (w == PRINT_ANY)
		pr_nl(o);
	pr_bool(o, PRINT_JSON, "detach", NULL, p->detach);
	pr_open_array(o, PRINT_JSON, "detach_ports", NULL, NULL);
	for (unsigned int i = 0; i < p->nports; i++)
		pr_string_keep(o, PRINT_JSON, NULL, NULL, p->ports[i]);
	pr_close_array(o, NULL, NULL);
}

/* "Holders:" who holds a moving GPU; names, pids and files only for
 * callers allowed to switch. */
static void print_holders(struct pr *o, enum pr_where w, const struct plan *p)
{
	bool force = p->flags & 1;

	if (w == PRINT_ANY)
		pr_text(o, "Holders:     ");
	pr_open_array(o, w, "holders", NULL, "; ");
	for (unsigned int i = 0; i < p->nholders; i++) {
		pr_open_object(o, w, NULL);
		pr_string_keep(o, p->named ? PRINT_JSON : w, "gpu",
			       "a process holds %s", p->holders[i].gpu);
		if (p->named) {
			pr_uint(o, w, "pid", "pid %u", p->holders[i].pid);
			pr_string(o, w, "comm", " (%s)", p->holders[i].comm);
			pr_string(o, w, "file", " holds %s",
				  p->holders[i].file);
		} else {
			pr_null(o, PRINT_JSON, "pid", NULL, NULL);
			pr_null(o, PRINT_JSON, "comm", NULL, NULL);
			pr_null(o, PRINT_JSON, "file", NULL, NULL);
		}
		pr_close_object(o);
	}
	pr_close_array(o, NULL, "none");
	pr_bool(o, w == PRINT_ANY && p->nholders && force ? PRINT_ANY :
		PRINT_JSON, "force", " (--force: switching anyway)", force);
	if (w == PRINT_ANY && p->nholders && !p->named)
		pr_text(o, " (names only for callers allowed to switch)");
	if (w == PRINT_ANY)
		pr_nl(o);
}

/* BMC Select, Power cycle and Budget: what the switch would do. */
static void print_steps(struct pr *o, enum pr_where w, const struct plan *p,
			bool change)
{
	char budget[32];

	pr_bool_as(o, w, "select", p->select, "BMC Select:  %s\n",
		   !p->select ? "no" : !p->pc_needed ? "yes, once" :
		   "yes, once: the layout becomes pending");
	pr_bool_as(o, w, "power_cycle_needed", p->pc_needed, "Power cycle: %s",
		   p->pc_needed ? "needed; " : "not needed\n");
	pr_bool_as(o, p->pc_needed ? w : PRINT_JSON, "power_cycle_allowed",
		   p->pc_allowed, "%s\n", p->pc_allowed ?
		   "allowed (--power-cycle): the host power cycles" :
		   "not allowed without --power-cycle: the layout stays "
		   "pending until the next power cycle");
	pr_string(o, PRINT_JSON, "outcome", NULL, p->outcome);
	snprintf(budget, sizeof(budget), "%.1f", (double)p->budget_ms / 1e3);
	pr_uint_as(o, change ? w : PRINT_JSON, "budget_ms", p->budget_ms,
		   "Budget:      up to %s s", budget);
	if (change && w == PRINT_ANY)
		pr_text(o, " (the platform's budgets%s)\n",
			strcmp(p->outcome, "online") &&
			strcmp(p->outcome, "power-cycle") ? "" :
			"; on top, each unit stopped gets its own stop and "
			"start timeouts");
}

/* You: whether the caller may switch (polkit's answer). */
static const char *const auth_text[][2] = {
	{ "yes", "You:         may switch\n" },
	{ "challenge", "You:         may switch after authenticating (polkit; "
		       "run it on a terminal)\n" },
};

static void print_verdict(struct pr *o, const struct plan *p)
{
	const char *you = "You:         may not switch (polkit, or root only "
			  "without polkit)\n";

	for (size_t i = 0; i < sizeof(auth_text) / sizeof(auth_text[0]); i++)
		if (!strcmp(p->auth, auth_text[i][0]))
			you = auth_text[i][1];
	pr_string_keep(o, PRINT_ANY, "authorization", you, p->auth);
	pr_bool(o, PRINT_JSON, "noop", NULL, p->noop);
	pr_string(o, PRINT_JSON, "verdict", NULL,
		  p->proceed ? "proceed" : "refused");
	pr_bool(o, PRINT_JSON, "proceed", NULL, p->proceed);
	if (!p->proceed) {
		pr_string(o, PRINT_ANY, "error",
			  "Verdict:     would be refused (%s): ",
			  short_error(p->error));
		pr_string(o, PRINT_JSON, "error_name", NULL, p->error);
		pr_string(o, PRINT_ANY, "message", "%s\n", p->message);
		return;
	}
	pr_string(o, PRINT_JSON, "error", NULL, short_error(p->error));
	pr_string(o, PRINT_JSON, "error_name", NULL, p->error);
	pr_string(o, PRINT_JSON, "message", NULL, p->message);
	if (p->noop)
		pr_text(o, "Verdict:     would proceed: already in %s, nothing "
			"to switch\n", p->target);
	else if (!strcmp(p->outcome, "pending"))
		pr_text(o, "Verdict:     would proceed: %s becomes pending and "
			"applies at the next power cycle (--power-cycle to "
			"power cycle now)\n", p->target);
	else if (!strcmp(p->outcome, "power-cycle"))
		pr_text(o, "Verdict:     would proceed: %s is selected and the "
			"host power cycles into it\n", p->target);
	else if (!strcmp(p->outcome, "clear-pending"))
		pr_text(o, "Verdict:     would proceed: %s selected again, "
			"nothing pending any more\n", p->target);
	else
		pr_text(o, "Verdict:     would proceed: %s -> %s\n", p->current,
			p->target);
}

/* The verdict leads the JSON and its line ends the text: these keys are
 * laid down first, print_verdict() gives their values in place. */
static const char *const verdict_keys[] = {
	"verdict", "proceed", "error", "error_name", "message",
};

/*
 * The plan as "Key: value" lines, or with -j one object from the same
 * calls, its keys in the text's order but the verdict's: what the text
 * leaves out while a switch is in flight (not checked) is in the JSON all
 * the same.
 */
static int print_plan(struct ctx *c, const struct plan *p)
{
	bool change = p->checked && !p->noop;
	enum pr_where w;
	struct pr o;

	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_bool(&o, PRINT_ANY, "dry_run", "Dry run: nothing was changed.\n",
		true);
	for (size_t i = 0; i < sizeof(verdict_keys) / sizeof(verdict_keys[0]);
	     i++)
		pr_null(&o, PRINT_JSON, verdict_keys[i], NULL, NULL);
	pr_string_keep(&o, PRINT_ANY, "current_layout", "Layout:      %s",
		       p->current);
	pr_string_keep(&o, PRINT_ANY, "target_layout", " -> %s", p->target);
	pr_string_keep(&o, PRINT_ANY, "platform", " (platform %s",
		       p->platform);
	pr_string_keep(&o, PRINT_ANY, "method", ": %s", p->method);
	pr_string_keep(&o, PRINT_ANY, "apply", ", %s)\n", p->apply);
	pr_bool(&o, PRINT_JSON, "checked", NULL, p->checked);
	/* while a switch is in flight the text says where it is, only */
	w = p->checked ? PRINT_JSON : PRINT_ANY;
	pr_string_keep(&o, w, "state", "State:       %s", p->state);
	pr_string_or(&o, w, "phase", " (%s)", p->phase, NULL);
	if (!p->checked)
		pr_text(&o, ": not checked while a switch is in flight\n");
	w = p->checked ? PRINT_ANY : PRINT_JSON;
	print_bmc(&o, w, p);
	pr_uint(&o, p->module_layout[0] ? w : PRINT_JSON, "gpus",
		"GPUs:        %u present", p->gpus);
	pr_uint(&o, p->module_layout[0] ? w : PRINT_JSON, "gpus_expected",
		", %u expected", p->gpus_expected);
	pr_string(&o, p->module_layout[0] ? w : PRINT_JSON, "module_layout",
		  " (module: %s)\n", p->module_layout);
	print_units(&o, w, p);
	print_detach(&o, w, p, change);
	print_holders(&o, w, p);
	print_steps(&o, w, p, change);
	print_verdict(&o, p);
	pr_close_object(&o);
	return pr_end(&o);
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
	ret = print_plan(c, p) ? 1 : p->proceed ? 0 : 1;
out:
	free(p);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	sd_bus_flush_close_unref(bus);
	return ret;
}
