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
