// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: systemd units over org.freedesktop.systemd1 (units.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bmc.h"
#include "units.h"

#define SD_DEST	"org.freedesktop.systemd1"
#define SD_PATH	"/org/freedesktop/systemd1"
#define SD_MGR	"org.freedesktop.systemd1.Manager"

int units_open(struct units *u)
{
	sd_bus_message *reply = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int has = 0, r;

	memset(u, 0, sizeof(*u));
	r = sd_bus_open_system(&u->bus);
	if (r < 0)
		return r;
	r = sd_bus_call_method(u->bus, "org.freedesktop.DBus",
			       "/org/freedesktop/DBus", "org.freedesktop.DBus",
			       "NameHasOwner", &e, &reply, "s", SD_DEST);
	if (r >= 0)
		r = sd_bus_message_read(reply, "b", &has);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	u->systemd = r >= 0 && has;
	return 0;
}

void units_close(struct units *u)
{
	u->bus = sd_bus_flush_close_unref(u->bus);
}

static int active_state(struct units *u, const char *name, char *out,
			size_t len)
{
	sd_bus_message *reply = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	const char *path;
	char *state = NULL;
	int r;

	r = sd_bus_call_method(u->bus, SD_DEST, SD_PATH, SD_MGR, "GetUnit", &e,
			       &reply, "s", name);
	if (r < 0) {
		bool none = sd_bus_error_has_name(&e,
				"org.freedesktop.systemd1.NoSuchUnit");

		sd_bus_error_free(&e);
		if (none) {
			snprintf(out, len, "inactive");
			return 0;
		}
		return r;
	}
	r = sd_bus_message_read(reply, "o", &path);
	if (r >= 0)
		r = sd_bus_get_property_string(u->bus, SD_DEST, path,
					       "org.freedesktop.systemd1.Unit",
					       "ActiveState", &e, &state);
	if (r >= 0)
		snprintf(out, len, "%s", state);
	free(state);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

int units_is_active(struct units *u, const char *name, bool *active)
{
	char st[32];
	int r;

	*active = false;
	if (!u->systemd)
		return 0;
	r = active_state(u, name, st, sizeof(st));
	if (r)
		return r;
	/* whatever is not at rest: "deactivating" too (a stop or restart
	 * someone else started: its processes still run), which units_stop()
	 * then waits out */
	*active = strcmp(st, "inactive") && strcmp(st, "failed");
	return 0;
}

static int call_job(struct units *u, const char *method, const char *name,
		    char *err, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = sd_bus_call_method(u->bus, SD_DEST, SD_PATH, SD_MGR, method, &e,
			       NULL, "ss", name, "replace");
	if (r < 0)
		snprintf(err, len, "%s %s: %s", method, name,
			 e.message ? e.message : strerror(-r));
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

int units_stop(struct units *u, const char *name, unsigned int timeout_ms,
	       char *err, size_t len)
{
	uint64_t deadline = now_usec() + (uint64_t)timeout_ms * 1000u;
	char st[32];
	int r;

	if (!u->systemd)
		return 0;
	r = call_job(u, "StopUnit", name, err, len);
	if (r)
		return r;
	for (;;) {
		r = active_state(u, name, st, sizeof(st));
		if (r)
			return r;
		if (!strcmp(st, "inactive") || !strcmp(st, "failed"))
			return 0;
		if (now_usec() > deadline) {
			snprintf(err, len, "%s still %s after %u ms", name, st,
				 timeout_ms);
			return -ETIMEDOUT;
		}
		sleep_ms(100);
	}
}

int units_start(struct units *u, const char *name, char *err, size_t len)
{
	if (!u->systemd)
		return 0;
	return call_job(u, "StartUnit", name, err, len);
}
