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
 *
 * Nothing here times out while topod answers: SetLayout (answered after
 * preflight, which may wait for a BMC) is called without a timeout, and
 * the switch is followed by its signals for as long as it takes; topod's
 * Status every STATUS_EVERY_MS tells a job that ended without a Finished
 * signal. What ends the wait early is topod itself (topod-live.c): no
 * answer to its Pings (exit EXIT_NOT_ANSWERING: the switch may go on), or
 * its bus name gone (topod exited: its journal decides at its next
 * start). A D-Bus timeout on the call said "failed" of a switch that went
 * on. With -j (before the object) the phases go to stderr and stdout gets
 * one JSON object, the outcome.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "print.h"
#include "ptc.h"
#include "topod-client.h"

/* a Status now and then: Finished is the end, but a job that ended
 * without it (topod could not post it) is seen there (Target empty) */
#define STATUS_EVERY_MS		10000

struct follow {
	struct ctx *c;
	FILE *out;		/* the phases: c->out, or c->err under -j */
	bool tty;
	bool open_line;		/* a "started" line waits for its end */
	bool finished;
	bool ok;
	bool power_cycling;
	bool pending;		/* the layout made pending (power-cycle apply) */
	char error[512];
	struct json_object *phases;	/* -j: the finished phases */
	/* SetLayout's answer */
	bool answered;
	int set_r;
	sd_bus_error set_e;
	/* the last Status, asked every STATUS_EVERY_MS */
	bool status_asked;
	bool ended_unseen;	/* Status: no job any more, and no Finished */
	struct topod_status st;
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
			fprintf(f->out, "  %-22s started  the host goes down "
				"now; topod finishes the switch after the boot\n",
				phase);
			fflush(f->out);
		} else if (f->tty) {
			fprintf(f->out, "  %-22s ...", phase);
			f->open_line = true;
			fflush(f->out);
		}
		return 0;
	}
	if (f->tty && f->open_line)
		fputs("\r\033[K", f->out);
	f->open_line = false;
	fprintf(f->out, "  %-22s %-6s %7.2f s%s%s\n", phase, status,
		(double)usec / 1e6, *msg ? "  " : "", msg);
	fflush(f->out);
	if (f->phases) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "phase", json_object_new_string(phase));
		json_object_object_add(o, "status",
				       json_object_new_string(status));
		json_object_object_add(o, "seconds",
				       pr_fixed((double)usec / 1e6, 2));
		json_object_object_add(o, "message", *msg ?
				       json_object_new_string(msg) : NULL);
		json_object_array_add(f->phases, o);
	}
	if (!strcmp(phase, "pending") && !strcmp(status, "done"))
		f->pending = true;
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

static int on_set_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct follow *f = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(m);

	(void)ret;
	f->answered = true;
	if (e) {
		f->set_r = sd_bus_error_copy(&f->set_e, e);
		f->set_r = f->set_r < 0 ? f->set_r : -EIO;
	}
	return 0;
}

static int on_status(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct follow *f = userdata;
	struct topod_status s = { 0 };

	(void)ret;
	f->status_asked = false;
	if (sd_bus_message_get_error(m) || topod_read_status(m, &s) < 0)
		return 0;	/* the next one, then */
	/* in order: a Finished sent before this answer was dispatched first */
	if (!f->finished && !s.target[0]) {
		f->ended_unseen = true;
		f->st = s;
	}
	return 0;
}

/* a call to topod without a timeout (UINT64_MAX): topod_live watches */
static int call_async(sd_bus *bus, const char *member,
		      sd_bus_message_handler_t fn, struct follow *f,
		      const char *layout, uint64_t flags)
{
	sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, TOPOD_BUS_NAME,
					   TOPOD_OBJECT, TOPOD_IFACE, member);
	if (r >= 0 && layout)
		r = sd_bus_message_append(m, "st", layout, flags);
	if (r >= 0)
		r = sd_bus_call_async(bus, NULL, m, fn, f, UINT64_MAX);
	sd_bus_message_unref(m);
	return r;
}

/* -j: the outcome, one object on stdout */
static void emit_outcome(struct follow *f, const char *layout,
			 const char *outcome, const char *error, double secs,
			 int rc)
{
	struct json_object *o;

	if (!f->c->json)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "layout", json_object_new_string(layout));
	json_object_object_add(o, "outcome", json_object_new_string(outcome));
	json_object_object_add(o, "error", error && *error ?
			       json_object_new_string(error) : NULL);
	json_object_object_add(o, "seconds", secs >= 0 ?
			       pr_fixed(secs, 1) : NULL);
	json_object_object_add(o, "phases", f->phases);
	f->phases = NULL;
	json_object_object_add(o, "exit", json_object_new_int(rc));
	emit_json(f->c, o);
}

/*
 * topod stopped answering, or went away: what is known is said, not a
 * failure. The words are the same before and after SetLayout's answer:
 * whether the job had been accepted is what topoctl cannot know then.
 */
static int gone(struct follow *f, const struct topod_live *l,
		const char *layout)
{
	char msg[400];

	if (f->open_line)
		fputc('\n', f->out);
	f->open_line = false;
	if (l->vanished)
		snprintf(msg, sizeof(msg), "topod exited during the switch to "
			 "%s; it finishes or rolls back at its next start, "
			 "from its journal (topoctl status)", layout);
	else
		snprintf(msg, sizeof(msg), "topod is not answering (no answer "
			 "for %.1f s); the switch to %s may still be running "
			 "(topoctl status)", topod_live_silent_s(l), layout);
	fprintf(f->c->err, "topoctl: %s\n", msg);
	emit_outcome(f, layout, l->vanished ? "topod-exited" : "not-answering",
		     msg, -1, EXIT_NOT_ANSWERING);
	return EXIT_NOT_ANSWERING;
}

/* The job ended and no Finished said how: Status does (State, layout,
 * LastError), as `topoctl status` would. */
static int ended_unseen(struct follow *f, const char *layout, double secs)
{
	const struct topod_status *s = &f->st;
	bool done = !strcmp(s->state, "idle") && !strcmp(s->layout, layout) &&
		    !s->last_error[0];
	bool pending = !strcmp(s->state, "awaiting-power-cycle") &&
		       !strcmp(s->pending, layout);
	char msg[700];

	snprintf(msg, sizeof(msg), "topod ended the switch without its "
		 "Finished signal; it reports: State %s, layout %s%s%s",
		 s->state, s->layout, s->last_error[0] ? ", last error: " : "",
		 s->last_error);
	fprintf(f->c->err, "topoctl: %s\n", msg);
	if (done || pending) {
		fprintf(f->out, "%s: %s\n", layout, done ? "done" :
			"pending a power cycle");
		emit_outcome(f, layout, done ? "done" : "pending", msg, secs, 0);
		return 0;
	}
	emit_outcome(f, layout, "failed", msg, secs, 1);
	return 1;
}

int do_set(struct ctx *c, int argc, char **argv)
{
	sd_bus *bus = NULL;
	const char *layout = NULL;
	uint64_t flags = 0;
	bool wait = true, dry_run = false, json = false;
	struct follow f = { .c = c, .set_e = SD_BUS_ERROR_NULL };
	struct topod_live l;
	char list[64];
	uint64_t t0, next_status;
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
	/* -j before the object: stdout is the outcome's JSON alone */
	f.out = c->json ? c->err : c->out;
	f.tty = isatty(fileno(f.out));
	if (c->json)
		f.phases = json_object_new_array();
	if (topod_connect(c, &bus)) {
		json_object_put(f.phases);
		return 1;
	}
	(void)sd_bus_set_allow_interactive_authorization(bus, isatty(0));
	r = topod_live_init(&l, bus);
	if (r >= 0 && wait) {
		r = sd_bus_match_signal(bus, NULL, TOPOD_BUS_NAME, TOPOD_OBJECT,
					TOPOD_IFACE, TOPOD_SIGNAL_PHASE,
					on_phase, &f);
		if (r >= 0)
			r = sd_bus_match_signal(bus, NULL, TOPOD_BUS_NAME,
						TOPOD_OBJECT, TOPOD_IFACE,
						TOPOD_SIGNAL_FINISHED,
						on_finished, &f);
	}
	if (r < 0) {
		fprintf(c->err, "topoctl: cannot follow topod's signals: %s\n",
			strerror(-r));
		goto out;
	}
	t0 = topod_mono_usec();
	/* preflight runs before the answer (a BMC not ready is waited for,
	 * polkit may ask for a password): no timeout, topod_live watches */
	r = call_async(bus, TOPOD_METHOD_SET_LAYOUT, on_set_reply, &f, layout,
		       flags);
	while (r >= 0 && !f.answered && !topod_live_gone(&l))
		r = topod_live_step(&l);
	if (r < 0) {
		fprintf(c->err, "topoctl: bus: %s\n", strerror(-r));
		goto out;
	}
	/* the bus's "recipient disconnected without replying": topod exited */
	if (f.answered && f.set_r < 0 &&
	    sd_bus_error_has_name(&f.set_e, SD_BUS_ERROR_NO_REPLY))
		l.vanished = true;
	if (!f.answered || l.vanished) {
		ret = gone(&f, &l, layout);
		goto out;
	}
	if (f.set_r < 0) {
		/* the phases before the refusal were dispatched before it */
		if (f.open_line)
			fputc('\n', f.out);
		ret = topod_error(c, "set", &f.set_e, f.set_r);
		goto out;
	}
	if (!wait) {
		fprintf(f.out, "switch to %s accepted; follow it with "
			"'topoctl status'\n", layout);
		ret = 0;
		emit_outcome(&f, layout, "accepted", "", -1, ret);
		goto out;
	}
	if (!f.tty)
		fprintf(f.out, "switching to %s\n", layout);
	next_status = topod_mono_usec() + STATUS_EVERY_MS * 1000u;
	while (!f.finished && !f.ended_unseen && !topod_live_gone(&l)) {
		if (!f.status_asked && topod_mono_usec() >= next_status) {
			r = call_async(bus, TOPOD_METHOD_STATUS, on_status, &f,
				       NULL, 0);
			if (r < 0)
				break;
			f.status_asked = true;
			next_status = topod_mono_usec() +
				      STATUS_EVERY_MS * 1000u;
		}
		r = topod_live_step(&l);
		if (r < 0)
			break;
	}
	if (r < 0) {
		fprintf(c->err, "topoctl: bus: %s\n", strerror(-r));
		goto out;
	}
	if (!f.finished && f.ended_unseen) {
		ret = ended_unseen(&f, layout,
				   (double)(topod_mono_usec() - t0) / 1e6);
		goto out;
	}
	if (!f.finished) {
		ret = gone(&f, &l, layout);
		goto out;
	}
	if (f.open_line)
		fputc('\n', f.out);
	{
		double secs = (double)(topod_mono_usec() - t0) / 1e6;

		if (f.ok && f.power_cycling) {
			fprintf(f.out, "%s: the server is power cycling; topod "
				"finishes the switch when it is up again "
				"(topoctl status)\n", layout);
			ret = 0;
			emit_outcome(&f, layout, "power-cycling", "", secs, ret);
		} else if (f.ok && *f.error) {
			/* the layout is in place; a unit stopped for it is not
			 * running again: not a failed switch, not a clean one */
			fprintf(f.out, "%s: done in %.1f s\n", layout, secs);
			fprintf(c->err, "topoctl: %s\n", f.error);
			ret = 3;
			emit_outcome(&f, layout, "done", f.error, secs, ret);
		} else if (f.ok) {
			fprintf(f.out, "%s: done in %.1f s\n", layout, secs);
			ret = 0;
			emit_outcome(&f, layout, f.pending ? "pending" : "done",
				     "", secs, ret);
		} else {
			fprintf(c->err, "topoctl: switch to %s failed: %s\n",
				layout, f.error);
			emit_outcome(&f, layout, "failed", f.error, secs, ret);
		}
	}
out:
	json_object_put(f.phases);
	sd_bus_error_free(&f.set_e);
	sd_bus_flush_close_unref(bus);
	return ret;
}
