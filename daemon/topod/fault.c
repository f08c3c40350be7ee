// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: fault injection for tests (topod --test-fault WHERE:N[:stop]).
 *
 * A crash at an exact point of a switch, without a sleep that hopes to hit
 * a window: the Nth time the worker reaches WHERE (a phase it enters, after
 * its journal line is written, or one of the actions below, before it
 * acts), topod raises SIGKILL on itself, or with ":stop" SIGSTOP, so that a
 * test can look at (and change) what it left and SIGCONT it. Nothing here
 * runs unless the option was given; a service never passes it.
 *
 *   phases   preflight quiesce detach bmc reenumerate verify restore
 *            commit rollback-bmc rollback-reenumerate rollback-verify
 *            rollback-restore recover ...
 *   actions  hw_unbind hw_detach hw_bind hw_rescan bmc_select bmc_follow
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topod.h"

static struct {
	bool armed;
	char where[32];
	unsigned long n, seen;
	bool stop;
	pthread_mutex_t lock;
} fault = { .lock = PTHREAD_MUTEX_INITIALIZER };

int fault_setup(const char *spec)
{
	const char *colon = strchr(spec, ':');
	char *end;
	size_t len;

	if (!colon || colon == spec)
		return -EINVAL;
	len = (size_t)(colon - spec);
	if (len >= sizeof(fault.where))
		return -EINVAL;
	memcpy(fault.where, spec, len);
	fault.where[len] = '\0';
	errno = 0;
	fault.n = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || !fault.n)
		return -EINVAL;
	if (!strcmp(end, ":stop"))
		fault.stop = true;
	else if (*end && strcmp(end, ":kill"))
		return -EINVAL;
	fault.armed = true;
	return 0;
}

void fault_point(const char *where)
{
	bool hit;

	if (!fault.armed)
		return;
	pthread_mutex_lock(&fault.lock);
	hit = !strcmp(where, fault.where) && ++fault.seen == fault.n;
	pthread_mutex_unlock(&fault.lock);
	if (!hit)
		return;
	/* the log line first: the test finds in it where topod stopped */
	tlog(LOG_WARNING, "test fault: %s at %s:%lu", fault.stop ? "SIGSTOP" :
	     "SIGKILL", where, fault.n);
	fflush(stderr);
	raise(fault.stop ? SIGSTOP : SIGKILL);
}
