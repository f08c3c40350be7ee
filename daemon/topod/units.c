// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: systemd units over org.freedesktop.systemd1 (units.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcitopo/topod1.h"
#include "topod.h"
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
	r = sd_bus_call_method(u->bus, TOPOD_DBUS_NAME, TOPOD_DBUS_OBJECT,
			       TOPOD_DBUS_IFACE, TOPOD_DBUS_NAME_HAS_OWNER, &e,
			       &reply, "s", SD_DEST);
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

/* The unit's object path, to free(); -ENOENT when systemd has no such unit
 * loaded (GetUnit's NoSuchUnit: for us, a unit at rest). */
static int unit_path(struct units *u, const char *name, char **path)
{
	sd_bus_message *reply = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	const char *p;
	int r;

	*path = NULL;
	r = sd_bus_call_method(u->bus, SD_DEST, SD_PATH, SD_MGR, "GetUnit", &e,
			       &reply, "s", name);
	if (r < 0 && sd_bus_error_has_name(&e,
					   "org.freedesktop.systemd1.NoSuchUnit"))
		r = -ENOENT;
	if (r >= 0)
		r = sd_bus_message_read(reply, "o", &p);
	if (r >= 0) {
		*path = strdup(p);
		r = *path ? 0 : -ENOMEM;
	}
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	return r;
}

static int active_state(struct units *u, const char *name, char *out,
			size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *path, *state = NULL;
	int r;

	r = unit_path(u, name, &path);
	if (r == -ENOENT) {
		snprintf(out, len, "inactive");
		return 0;
	}
	if (r >= 0)
		r = sd_bus_get_property_string(u->bus, SD_DEST, path,
					       "org.freedesktop.systemd1.Unit",
					       "ActiveState", &e, &state);
	if (r >= 0)
		snprintf(out, len, "%s", state);
	free(state);
	free(path);
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

/*
 * How long systemd may take over a unit's job: its own timeout (a service's
 * TimeoutStartUSec or TimeoutStopUSec; other unit types have none we read),
 * times n (a stop is SIGTERM, then SIGKILL, each given the timeout), plus a
 * margin for the bus and the reaping. topod must not give up while systemd
 * is still within its rights: a stop abandoned at exactly systemd's own
 * 90 s default raced the SIGKILL. Infinity, or a timeout we cannot read,
 * is bounded by UNITS_WAIT_MAX_MS so that a switch never hangs for good.
 */
static unsigned int wait_ms(struct units *u, const char *name,
			    const char *prop, unsigned int n)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint64_t usec = 0, ms;
	char *path;
	int r;

	r = unit_path(u, name, &path);
	if (r >= 0)
		r = sd_bus_get_property_trivial(u->bus, SD_DEST, path,
						"org.freedesktop.systemd1.Service",
						prop, &e, 't', &usec);
	free(path);
	sd_bus_error_free(&e);
	if (r < 0 || !usec)
		usec = UNITS_DEFAULT_TIMEOUT_MS * 1000ull;
	if (usec == UINT64_MAX || usec / 1000u > UNITS_WAIT_MAX_MS)
		return UNITS_WAIT_MAX_MS;
	ms = usec / 1000u * n + UNITS_MARGIN_MS;
	return ms > UNITS_WAIT_MAX_MS ? UNITS_WAIT_MAX_MS : (unsigned int)ms;
}

int units_stop(struct units *u, const char *name, char *err, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	unsigned int timeout_ms;
	uint64_t deadline;
	char st[32];
	int r;

	if (!u->systemd)
		return 0;
	timeout_ms = wait_ms(u, name, "TimeoutStopUSec", 2);
	deadline = now_usec() + (uint64_t)timeout_ms * 1000u;
	r = sd_bus_call_method(u->bus, SD_DEST, SD_PATH, SD_MGR, "StopUnit", &e,
			       NULL, "ss", name, "replace");
	if (r < 0) {
		snprintf(err, len, "StopUnit %s: %s", name,
			 e.message ? e.message : strerror(-r));
		sd_bus_error_free(&e);
		return r;
	}
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

struct start_job {
	char *path;		/* the job StartUnit queued */
	char result[32];	/* its JobRemoved result, once removed */
};

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct start_job *j = userdata;
	const char *path, *unit, *result;
	uint32_t id;

	(void)e;
	if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
		return 0;
	if (j->path && !strcmp(path, j->path))
		snprintf(j->result, sizeof(j->result), "%s", result);
	return 0;
}

/* why a unit whose start job failed is down: its Result, e.g. exit-code */
static void unit_result(struct units *u, const char *name, char *out,
			size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *path, *res = NULL;

	*out = '\0';
	if (unit_path(u, name, &path) >= 0 &&
	    sd_bus_get_property_string(u->bus, SD_DEST, path,
				       "org.freedesktop.systemd1.Service",
				       "Result", &e, &res) >= 0 && res &&
	    strcmp(res, "success"))
		snprintf(out, len, ", %s", res);
	free(res);
	free(path);
	sd_bus_error_free(&e);
}

int units_start(struct units *u, const char *name, bool wait,
		bool *was_active, char *err, size_t len)
{
	struct start_job j = { NULL, "" };
	sd_bus_message *reply = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_slot *slot = NULL;
	unsigned int timeout_ms = 0;
	uint64_t deadline = 0;
	const char *path;
	char res[48];
	int r;

	*was_active = false;
	if (!u->systemd)
		return 0;
	r = units_is_active(u, name, was_active);
	if (r || *was_active) {
		if (r)
			snprintf(err, len, "%s: state: %s", name, strerror(-r));
		return r;
	}
	if (wait) {
		timeout_ms = wait_ms(u, name, "TimeoutStartUSec", 1);
		deadline = now_usec() + (uint64_t)timeout_ms * 1000u;
		/* the match first: the job may end before StartUnit answers */
		r = sd_bus_match_signal(u->bus, &slot, SD_DEST, SD_PATH, SD_MGR,
					"JobRemoved", on_job_removed, &j);
		/* systemd sends JobRemoved only while a client subscribed */
		if (r >= 0 && !u->subscribed) {
			r = sd_bus_call_method(u->bus, SD_DEST, SD_PATH, SD_MGR,
					       "Subscribe", &e, NULL, "");
			u->subscribed = r >= 0;
		}
		if (r < 0) {
			snprintf(err, len, "%s: cannot follow its start job: %s",
				 name, e.message ? e.message : strerror(-r));
			goto out;
		}
	}
	r = sd_bus_call_method(u->bus, SD_DEST, SD_PATH, SD_MGR, "StartUnit", &e,
			       &reply, "ss", name, "replace");
	if (r >= 0)
		r = sd_bus_message_read(reply, "o", &path);
	if (r < 0) {
		snprintf(err, len, "StartUnit %s: %s", name,
			 e.message ? e.message : strerror(-r));
		goto out;
	}
	r = 0;
	if (!wait)
		goto out;
	j.path = strdup(path);
	if (!j.path) {
		r = -ENOMEM;
		snprintf(err, len, "%s: %s", name, strerror(-r));
		goto out;
	}
	while (!*j.result) {
		uint64_t now = now_usec();

		r = sd_bus_process(u->bus, NULL);
		if (r > 0)
			continue;
		if (r >= 0 && now > deadline)
			r = -ETIMEDOUT;
		if (r >= 0)
			r = sd_bus_wait(u->bus, deadline - now);
		if (r == -EINTR)
			continue;
		if (r == -ETIMEDOUT) {
			snprintf(err, len, "%s: start job still running after "
				 "%u ms", name, timeout_ms);
			goto out;
		}
		if (r < 0) {
			snprintf(err, len, "%s: following its start job: %s",
				 name, strerror(-r));
			goto out;
		}
	}
	r = 0;
	if (strcmp(j.result, "done")) {
		unit_result(u, name, res, sizeof(res));
		snprintf(err, len, "%s did not start: job %s%s (journalctl "
			 "-u %s)", name, j.result, res, name);
		r = -EIO;
	}
out:
	free(j.path);
	sd_bus_slot_unref(slot);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	return r;
}
