// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl set LAYOUT [--force] [--power-cycle] [--no-wait]: ask topod to
 * switch the PCIe layout, and follow it phase by phase. (--dry-run [-j]:
 * dryrun.c.)
 *
 * The Phase and Finished matches are in place before SetLayout is called,
 * so no phase is missed. On a terminal each phase is a line that ends with
 * its time when it ends; otherwise one plain line per finished phase.
 * Exit 0 when the switch is done (or pending a power cycle, or the power
 * cycle is under way), 1 with the reason otherwise.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ptc.h"
#include "topod-client.h"

static uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct follow {
	struct ctx *c;
	bool tty;
	bool open_line;		/* a "started" line waits for its end */
	bool finished;
	bool ok;
	bool vanished;
	bool power_cycling;
	char error[512];
};

static int on_phase(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct follow *f = userdata;
	const char *layout, *phase, *status, *msg;
	uint64_t usec;

	(void)e;
	if (sd_bus_message_read(m, "sssts", &layout, &phase, &status, &usec,
				&msg) < 0)
		return 0;
	if (!strcmp(status, "started")) {
		if (!f->tty && !strcmp(phase, "power-cycle")) {
			/* said now: the host may go down before "done" */
			fprintf(f->c->out, "  %-22s started  the host goes down "
				"now; topod finishes the switch after the boot\n",
				phase);
			fflush(f->c->out);
		} else if (f->tty) {
			fprintf(f->c->out, "  %-22s ...", phase);
			f->open_line = true;
			fflush(f->c->out);
		}
		return 0;
	}
	if (f->tty && f->open_line)
		fputs("\r\033[K", f->c->out);
	f->open_line = false;
	fprintf(f->c->out, "  %-22s %-6s %7.2f s%s%s\n", phase, status,
		(double)usec / 1e6, *msg ? "  " : "", msg);
	fflush(f->c->out);
	if (!strcmp(phase, "power-cycle") && !strcmp(status, "done")) {
		/* the host goes down now; topod finishes after the boot */
		f->finished = true;
		f->ok = true;
		f->power_cycling = true;
	}
	return 0;
}

static int on_finished(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct follow *f = userdata;
	const char *layout, *error;
	int ok;

	(void)e;
	if (sd_bus_message_read(m, "sbs", &layout, &ok, &error) < 0)
		return 0;
	f->finished = true;
	f->ok = ok;
	snprintf(f->error, sizeof(f->error), "%s", error);
	return 0;
}

static int on_owner(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct follow *f = userdata;
	const char *name, *old, *new;

	(void)e;
	if (sd_bus_message_read(m, "sss", &name, &old, &new) >= 0 &&
	    !strcmp(name, TOPOD_BUS_NAME) && !*new)
		f->vanished = true;
	return 0;
}

int do_set(struct ctx *c, int argc, char **argv)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus *bus = NULL;
	const char *layout = NULL;
	uint64_t flags = 0;
	bool wait = true, dry_run = false, json = false;
	struct follow f = { .c = c, .tty = isatty(fileno(c->out)) };
	char list[64];
	uint64_t t0;
	int r, ret = 1;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--force"))
			flags |= TOPOD_F_FORCE;
		else if (!strcmp(argv[i], "--power-cycle"))
			flags |= TOPOD_F_POWER_CYCLE;
		else if (!strcmp(argv[i], "--no-wait"))
			wait = false;
		else if (!strcmp(argv[i], "--dry-run"))
			dry_run = true;
		else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "help") && !layout) {
			print_object_help(c, "set", NULL);
			return 0;
		} else if (argv[i][0] == '-' || layout)
			return usage_error(c, "set: unexpected argument '%s'\n"
					   "Try 'topoctl set help'.", argv[i]);
		else
			layout = argv[i];
	}
	if (!layout)
		return usage_error(c, "set: which layout? (%s)\nTry 'topoctl "
				   "set help'.", ptc_layout_list(list, sizeof(list),
								 ", "));
	if (json)
		c->json = true;	/* an error too is JSON (errjson.c) */
	if (dry_run || json)	/* dryrun.c */
		return set_plan(c, layout, flags, dry_run, json, wait);
	if (topod_connect(c, &bus))
		return 1;
	(void)sd_bus_set_allow_interactive_authorization(bus, isatty(0));
	if (wait) {
		r = sd_bus_match_signal(bus, NULL, TOPOD_BUS_NAME, TOPOD_OBJECT,
					TOPOD_IFACE, TOPOD_SIGNAL_PHASE,
					on_phase, &f);
		if (r >= 0)
			r = sd_bus_match_signal(bus, NULL, TOPOD_BUS_NAME,
						TOPOD_OBJECT, TOPOD_IFACE,
						TOPOD_SIGNAL_FINISHED,
						on_finished, &f);
		if (r >= 0)
			r = sd_bus_add_match(bus, NULL,
					     "type='signal',sender='" TOPOD_DBUS_NAME "',"
					     "interface='" TOPOD_DBUS_IFACE "',"
					     "member='" TOPOD_DBUS_NAME_OWNER_CHANGED "',"
					     "arg0='" TOPOD_BUS_NAME "'", on_owner, &f);
		if (r < 0) {
			fprintf(c->err, "topoctl: cannot follow topod's signals: %s\n",
				strerror(-r));
			goto out;
		}
	}
	t0 = mono_usec();
	/* preflight runs before the answer: allow it its time */
	r = sd_bus_call_method(bus, TOPOD_BUS_NAME, TOPOD_OBJECT, TOPOD_IFACE,
			       TOPOD_METHOD_SET_LAYOUT, &e, NULL, "st", layout,
			       flags);
	if (r < 0) {
		/* print the phases that came before the refusal */
		while (sd_bus_process(bus, NULL) > 0)
			;
		if (f.open_line)
			fputc('\n', c->out);
		ret = topod_error(c, "set", &e, r);
		goto out;
	}
	if (!wait) {
		fprintf(c->out, "switch to %s accepted; follow it with "
			"'topoctl status'\n", layout);
		ret = 0;
		goto out;
	}
	if (!f.tty)
		fprintf(c->out, "switching to %s\n", layout);
	while (!f.finished && !f.vanished) {
		r = sd_bus_process(bus, NULL);
		if (r < 0) {
			fprintf(c->err, "topoctl: bus: %s\n", strerror(-r));
			goto out;
		}
		if (r > 0)
			continue;
		r = sd_bus_wait(bus, UINT64_MAX);
		if (r < 0 && r != -EINTR) {
			fprintf(c->err, "topoctl: bus: %s\n", strerror(-r));
			goto out;
		}
	}
	if (f.open_line)
		fputc('\n', c->out);
	if (!f.finished) {
		fputs("topoctl: topod exited during the switch; it finishes or "
		      "rolls back at its next start (topoctl status)\n", c->err);
		goto out;
	}
	{
		uint64_t t1 = mono_usec();

		if (f.ok && f.power_cycling) {
			fprintf(c->out, "%s: the server is power cycling; topod "
				"finishes the switch when it is up again "
				"(topoctl status)\n", layout);
			ret = 0;
		} else if (f.ok && *f.error) {
			/* the layout is in place; a unit stopped for it is not
			 * running again: not a failed switch, not a clean one */
			fprintf(c->out, "%s: done in %.1f s\n", layout,
				(double)(t1 - t0) / 1e6);
			fprintf(c->err, "topoctl: %s\n", f.error);
			ret = 3;
		} else if (f.ok) {
			fprintf(c->out, "%s: done in %.1f s\n", layout,
				(double)(t1 - t0) / 1e6);
			ret = 0;
		} else {
			fprintf(c->err, "topoctl: switch to %s failed: %s\n",
				layout, f.error);
		}
	}
out:
	sd_bus_error_free(&e);
	sd_bus_flush_close_unref(bus);
	return ret;
}
