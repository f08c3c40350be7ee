/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: stop and start the platform's systemd units over the bus
 * (org.freedesktop.systemd1), from the worker thread on its own connection.
 * Where systemd is not on the bus (a container, the test guest) there is
 * nothing to stop: units_open() says so and the rest are no-ops.
 */
#ifndef PCITOPO_TOPOD_UNITS_H
#define PCITOPO_TOPOD_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include <systemd/sd-bus.h>

/* systemd's DefaultTimeoutStartSec/StopSec, for a unit whose own we cannot
 * read; the most topod waits for one job; what it adds for bus and reaping */
#define UNITS_DEFAULT_TIMEOUT_MS	90000u
#define UNITS_WAIT_MAX_MS		600000u
#define UNITS_MARGIN_MS			5000u

struct units {
	sd_bus *bus;
	bool systemd;		/* org.freedesktop.systemd1 is on the bus */
	bool subscribed;	/* Subscribe()d: JobRemoved comes */
};

int units_open(struct units *u);
void units_close(struct units *u);
/* active: anything but inactive or failed (deactivating included: its
 * processes still run) */
int units_is_active(struct units *u, const char *name, bool *active);
/* StopUnit and wait until it is inactive or failed, within twice its
 * TimeoutStopUSec (SIGTERM, then SIGKILL) and a margin. */
int units_stop(struct units *u, const char *name, char *err, size_t len);
/*
 * StartUnit, unless it is active already (*was_active, 0). With wait, until
 * its start job ends (JobRemoved), within its TimeoutStartUSec and a
 * margin: a job that ends other than "done" is -EIO, err naming the unit,
 * the job's result and the unit's (exit-code, timeout, ...). Without wait,
 * the job is queued only: at boot, a unit ordered after pcitopo-boot would
 * wait for it, and pcitopo-boot waits for topod.
 */
int units_start(struct units *u, const char *name, bool wait,
		bool *was_active, char *err, size_t len);

#endif
