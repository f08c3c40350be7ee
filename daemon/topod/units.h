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

struct units {
	sd_bus *bus;
	bool systemd;		/* org.freedesktop.systemd1 is on the bus */
};

int units_open(struct units *u);
void units_close(struct units *u);
/* active: anything but inactive or failed (deactivating included: its
 * processes still run) */
int units_is_active(struct units *u, const char *name, bool *active);
/* StopUnit and wait until it is inactive, within timeout_ms. */
int units_stop(struct units *u, const char *name, unsigned int timeout_ms,
	       char *err, size_t len);
int units_start(struct units *u, const char *name, char *err, size_t len);

#endif
