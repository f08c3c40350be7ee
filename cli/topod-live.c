// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: is topod still answering (topod-client.h's struct topod_live)?
 *
 * set and status call topod without a timeout of their own and drive the
 * bus here meanwhile: one Ping at a time, each bounded, a new one a second
 * after the last answer, and the bus name followed. Every message is
 * dispatched in the order it came, so that a caller's signal and reply
 * callbacks see topod's messages as topod sent them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topod-client.h"

uint64_t topod_mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int on_owner(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	struct topod_live *l = userdata;
	const char *name, *old, *new;

	(void)e;
	if (sd_bus_message_read(m, "sss", &name, &old, &new) >= 0 &&
	    !strcmp(name, TOPOD_BUS_NAME) && !*new)
		l->vanished = true;
	return 0;
}

static int on_ping(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct topod_live *l = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(m);
	uint64_t now = topod_mono_usec();

	(void)ret;
	l->probing = false;
	if (e && sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
		l->vanished = true;
	} else if (e && sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY)) {
		/* sd-bus's own timeout, or the bus's: topod read nothing */
		if (++l->misses >= TOPOD_LIVE_MISSES)
			l->silent = true;
		l->next_usec = now;
	} else {
		/* an answer; an error from topod's side is one too */
		l->misses = 0;
		l->answer_usec = now;
		l->next_usec = now + TOPOD_LIVE_EVERY_MS * 1000u;
	}
	return 0;
}

int topod_live_init(struct topod_live *l, sd_bus *bus)
{
	const char *env = getenv("TOPOCTL_PROBE_MS");	/* tests only */
	unsigned long ms = TOPOD_LIVE_PROBE_MS;

	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);

		if (!*end && v > 0 && v <= 600000)
			ms = v;
	}
	memset(l, 0, sizeof(*l));
	l->bus = bus;
	l->probe_usec = ms * 1000u;
	l->answer_usec = l->next_usec = topod_mono_usec();
	return sd_bus_add_match(bus, NULL,
				"type='signal',sender='" TOPOD_DBUS_NAME "',"
				"interface='" TOPOD_DBUS_IFACE "',"
				"member='" TOPOD_DBUS_NAME_OWNER_CHANGED "',"
				"arg0='" TOPOD_BUS_NAME "'", on_owner, l);
}

static int ping(struct topod_live *l)
{
	sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(l->bus, &m, TOPOD_BUS_NAME,
					   TOPOD_OBJECT, TOPOD_PEER_IFACE,
					   TOPOD_PEER_PING);
	if (r >= 0)
		r = sd_bus_call_async(l->bus, NULL, m, on_ping, l,
				      l->probe_usec);
	sd_bus_message_unref(m);
	if (r >= 0)
		l->probing = true;
	return r;
}

int topod_live_step(struct topod_live *l)
{
	uint64_t now, wait = UINT64_MAX;
	int r;

	r = sd_bus_process(l->bus, NULL);
	if (r != 0)
		return r < 0 ? r : 0;
	if (topod_live_gone(l))
		return 0;
	now = topod_mono_usec();
	if (!l->probing && now >= l->next_usec) {
		r = ping(l);
		if (r < 0)
			return r;
		return 0;	/* sent: process again before waiting */
	}
	/* a Ping's timeout is the bus's own timer, which sd_bus_wait()
	 * wakes for; the next Ping is ours */
	if (!l->probing)
		wait = l->next_usec - now;
	r = sd_bus_wait(l->bus, wait);
	return r < 0 && r != -EINTR ? r : 0;
}

double topod_live_silent_s(const struct topod_live *l)
{
	return (double)(topod_mono_usec() - l->answer_usec) / 1e6;
}
