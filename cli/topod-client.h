/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl: the commands that talk to topod over D-Bus (set.c, status.c,
 * dryrun.c).
 */
#ifndef PCITOPO_CLI_TOPOD_CLIENT_H
#define PCITOPO_CLI_TOPOD_CLIENT_H

#include <stddef.h>

#include "pcitopo/topod1.h"
#include "sdbus-dl.h"

#include "topoctl.h"

int do_set(struct ctx *c, int argc, char **argv);
int do_status(struct ctx *c, int argc, char **argv);

/* topoctl set and status: topod stopped answering (or, set only, went away
 * during the switch): what it did or does is not known here (topoctl.8,
 * EXIT STATUS) */
#define EXIT_NOT_ANSWERING	4

/*
 * topod-live.c: whether topod still answers, while a call to it is in
 * flight. A D-Bus default timeout (25 s) on the call itself would say
 * "failed" of a switch that goes on; instead the call has none, and topod
 * is pinged meanwhile (TOPOD_PEER_PING, answered by its event loop): it
 * is "silent" after TOPOD_LIVE_MISSES Pings in a row got no answer within
 * probe_usec each (TOPOD_LIVE_PROBE_MS; $TOPOCTL_PROBE_MS, for the tests
 * only), "vanished" once its bus name has no owner. Generous on purpose:
 * topod's loop may wait seconds for the module while a rescan holds it
 * (its netlink family runs one request at a time), and a slow answer is
 * no reason to leave.
 */
#define TOPOD_LIVE_PROBE_MS	5000
#define TOPOD_LIVE_MISSES	6
#define TOPOD_LIVE_EVERY_MS	1000	/* between two answered Pings */
struct topod_live {
	sd_bus *bus;
	uint64_t probe_usec;
	uint64_t next_usec;	/* CLOCK_MONOTONIC: the next Ping */
	uint64_t answer_usec;	/* the last answer (or the start) */
	unsigned int misses;
	bool probing;		/* a Ping in flight */
	bool silent;
	bool vanished;
};
/* the NameOwnerChanged match; 0 or a negative errno of sd-bus */
int topod_live_init(struct topod_live *l, sd_bus *bus);
/* One step: dispatch a message (their callbacks in the order topod sent
 * them), else send the Ping that is due and wait for the next event. 0,
 * or a negative errno of the bus. */
int topod_live_step(struct topod_live *l);
static inline bool topod_live_gone(const struct topod_live *l)
{
	return l->silent || l->vanished;
}
/* seconds since topod last answered */
double topod_live_silent_s(const struct topod_live *l);
uint64_t topod_mono_usec(void);

/* status.c: Status()'s answer */
struct topod_status {
	char layout[32], reason[160], pending[32], state[32], phase[32];
	char target[32], last_error[512], committed[32], platform[80];
	char method[16], apply[16], bmc[256];
	uint64_t generation, module_generation;
	uint32_t gpus;
};
/* 0, or a negative errno of sd-bus (a malformed answer) */
int topod_read_status(sd_bus_message *m, struct topod_status *s);

/* status.c: load libsystemd, connect to the system bus and check that
 * topod is there; prints the reason and returns 1 otherwise. Called before
 * any other sd_bus_* function. */
int topod_connect(struct ctx *c, sd_bus **bus);
/* 1 if systemd would skip topod.service now (its ExecCondition says this
 * node is not configured), 0 if not, -errno if that cannot be asked */
int topod_unit_would_skip(sd_bus *bus);
/* Print a D-Bus error of a topod call in words; returns 1. */
int topod_error(struct ctx *c, const char *what, const sd_bus_error *e,
		int r);
/*
 * status.c: topod's a{sv} answers (Status, PlanLayout) into a struct. A
 * key of fields (name and signature: topod1.h's TOPOD_STATUS_*,
 * TOPOD_PLAN_*) is read into base + off: signature "s" copied into len
 * bytes, "b" into an int, "t", "u", "i" as their D-Bus type. Other keys go
 * to other (when given: *done true if it read the variant) or are skipped.
 * 0, or a negative errno of sd-bus.
 */
struct topod_field {
	const char *key;
	const char *sig;
	size_t off, len;
};
/* name, sig: one topod1.h key, through a macro of the caller's (it expands
 * to both) */
#define TOPOD_FIELD(name, sig, st, f) \
	{ name, sig, offsetof(st, f), sizeof(((st *)0)->f) }
typedef int (*topod_other_fn)(sd_bus_message *m, const char *key,
			      void *base, bool *done);
int topod_read_dict(sd_bus_message *m, const struct topod_field *fields,
		    size_t nfields, void *base, topod_other_fn other);
/* dryrun.c: set --dry-run [-j] (PlanLayout); usage errors for -j without
 * --dry-run and for --dry-run with --no-wait (wait false). */
int set_plan(struct ctx *c, const char *layout, uint64_t flags, bool dry_run,
	     bool json, bool wait);

#endif
