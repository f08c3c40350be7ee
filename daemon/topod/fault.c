// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: fault injection for tests (topod --test-fault WHERE:N[:stop]).
 *
 * A crash at an exact point of a switch, without a sleep that hopes to hit
 * a window: the Nth time the worker reaches WHERE (a phase it enters, after
 * its journal line is written, or one of the points below, before it
 * acts), topod raises SIGKILL on itself, or with ":stop" SIGSTOP: the whole
 * process stops there, its journal on disk, so that a test can look at
 * (and change) what it left, then SIGCONT it or SIGKILL it at that exact
 * point. The option may be given up to FAULT_MAX times, each WHERE counted
 * on its own (hold at one point to change the stand-in, die at another).
 * Nothing here runs unless the option was given; a service never passes it.
 *
 *   phases   preflight quiesce detach bmc reenumerate verify restore
 *            commit rollback-bmc rollback-reenumerate rollback-verify
 *            rollback-restore recover power-cycle pending
 *   actions  hw_unbind hw_detach hw_slot_down hw_slot_up hw_bind hw_rescan
 *            bmc_select bmc_follow
 *   ends     rollback-commit (a rollback verified and restored, before
 *            its commit), committed (the committed state written and the
 *            journal removed, before Finished), rollback-failed (the
 *            journal marked rollback_failed, before the rescan and the
 *            drivers' rebind of a failed rollback)
 *
 * tests/topod/t-faults.sh holds topod at the points of an online switch
 * and of its rollback, one by one, and kills it there (Documentation/
 * topod.md, "Fault matrix": which points, and which are not covered).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topod.h"

#define FAULT_MAX	4

struct fault {
	char where[32];
	unsigned long n, seen;
	bool stop;
};

static struct {
	unsigned int nfaults;
	struct fault f[FAULT_MAX];
	pthread_mutex_t lock;
} faults = { .lock = PTHREAD_MUTEX_INITIALIZER };

int fault_setup(const char *spec)
{
	const char *colon = strchr(spec, ':');
	struct fault f = { 0 };
	char *end;
	size_t len;

	if (!colon || colon == spec || faults.nfaults >= FAULT_MAX)
		return -EINVAL;
	len = (size_t)(colon - spec);
	if (len >= sizeof(f.where))
		return -EINVAL;
	memcpy(f.where, spec, len);
	f.where[len] = '\0';
	errno = 0;
	f.n = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || !f.n)
		return -EINVAL;
	if (!strcmp(end, ":stop"))
		f.stop = true;
	else if (*end && strcmp(end, ":kill"))
		return -EINVAL;
	faults.f[faults.nfaults++] = f;
	return 0;
}

void fault_point(const char *where)
{
	struct fault *hit = NULL;

	if (!faults.nfaults)
		return;
	pthread_mutex_lock(&faults.lock);
	for (unsigned int i = 0; i < faults.nfaults && !hit; i++)
		if (!strcmp(where, faults.f[i].where) &&
		    ++faults.f[i].seen == faults.f[i].n)
			hit = &faults.f[i];
	pthread_mutex_unlock(&faults.lock);
	if (!hit)
		return;
	/* the log line first: the test finds in it where topod stopped */
	tlog(LOG_WARNING, "test fault: %s at %s:%lu", hit->stop ? "SIGSTOP" :
	     "SIGKILL", where, hit->n);
	fflush(stderr);
	raise(hit->stop ? SIGSTOP : SIGKILL);
}
