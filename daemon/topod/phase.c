// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the phase layer every part of a switch stands on (phase.h): a
 * phase announced and journalled before it acts, failed or refused with
 * its error, the worker's messages to the main thread, the commit, and the
 * BMC session and systemd connection opened once per job.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include <unistd.h>

#include "devname.h"
#include "phase.h"

/* A port with no hotplug slot gets its link disabled (Link Control), which
 * reads the config space past 64 bytes: the kernel allows that only with
 * CAP_SYS_ADMIN, and the shipped unit withholds it (systemd/topod.service).
 * Without it the lanes would change under a live link: refused. */
const char no_link_disable[] =
	"a moving GPU's port has no hotplug slot: its link must be disabled "
	"(Link Disable), which needs CAP_SYS_ADMIN to read its config space, "
	"and topod does not have it (add CAP_SYS_ADMIN to the unit's "
	"CapabilityBoundingSet on such a platform)";

void job_post(struct tjob *j, const struct tmsg *m)
{
	struct tmsg *copy = malloc(sizeof(*copy));

	if (!copy)
		return;		/* the main loop misses one signal */
	*copy = *m;
	/* a pointer is far below PIPE_BUF: written whole */
	if (write(j->msg_fd, &copy, sizeof(copy)) != sizeof(copy))
		free(copy);
}

void phase_post(struct run *r, const char *status, const char *fmt, ...)
{
	struct tmsg m = { .type = TM_PHASE, .layout = r->phase_layout };
	va_list ap;

	if (r->plan)
		return;		/* a dry run is no switch: no Phase signals */
	snprintf(m.phase, sizeof(m.phase), "%s", r->phase);
	snprintf(m.status, sizeof(m.status), "%s", status);
	m.elapsed_usec = strcmp(status, "started") ? now_usec() - r->t0 : 0;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	job_post(r->j, &m);
}

int journal_save(struct run *r)
{
	int e;

	if (r->jr.state == TJ_NONE || r->plan)
		return 0;
	e = tj_job_write(r->cfg->state_dir, &r->jr);
	if (e) {
		snprintf(r->jerr, sizeof(r->jerr), "the journal %.300s/%s "
			 "cannot be written: %s", r->cfg->state_dir,
			 TJ_JOB_FILE, strerror(-e));
		tlog(LOG_ERR, "%s", r->jerr);
	}
	return e;
}

int journal_refused(struct run *r)
{
	if (r->jr.state == TJ_ROLLING_BACK) {
		tlog(LOG_WARNING, "rollback: going on without the journal");
		return 0;
	}
	return phase_fail(r, TERR_INTERNAL, "%s; nothing more is changed "
			  "without it", r->jerr);
}

int journal_need(struct run *r)
{
	return journal_save(r) ? journal_refused(r) : 0;
}

int phase_begin(struct run *r, const char *name, enum pcitopo_layout l)
{
	int e;

	snprintf(r->phase, sizeof(r->phase), "%s", name);
	r->phase_layout = l;
	r->t0 = now_usec();
	snprintf(r->jr.phase, sizeof(r->jr.phase), "%s", name);
	e = journal_save(r);
	phase_post(r, "started", "%s", "");
	fault_point(name);	/* tests: a crash with the journal written */
	return e;
}

/*
 * GPUn: the nth GPU in bus order, the library's one rule (pt_gpu_number(),
 * what topoctl and nvidia-smi name GPUs by), over s's GPUs; -1 if addr is
 * none of them. The one place here that numbers GPUs.
 */
int gpu_number(const struct hw_snap *s, const char *addr)
{
	const char *gpus[HW_MAX_GPUS];

	for (unsigned int i = 0; i < s->ngpus; i++)
		gpus[i] = s->gpus[i].addr;
	return pt_gpu_number(addr, gpus, s->ngpus);
}

int phase_fail(struct run *r, enum terr e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->terr = e;
	phase_post(r, "failed", "%s", r->err);
	return -1;
}

int phase_refuse(struct run *r, enum terr e, const char *fmt, ...)
{
	struct tplan *pl = r->plan;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->terr = e;
	if (!pl) {
		phase_post(r, "failed", "%s", r->err);
		return -1;
	}
	if (pl->err == TERR_OK) {
		pl->err = e;
		tcopy(pl->msg, sizeof(pl->msg), r->err);
	}
	return 0;
}

void post_state(struct run *r, enum tstate s, enum pcitopo_layout p)
{
	struct tmsg m = { .type = TM_STATE, .state = s, .pending = p };

	job_post(r->j, &m);
}

void post_accept(struct run *r, enum terr e, const char *text)
{
	struct tmsg m = { .type = TM_ACCEPT, .err = e };

	snprintf(m.text, sizeof(m.text), "%s", text);
	job_post(r->j, &m);
}

void post_finish(struct run *r, enum pcitopo_layout l, bool ok,
			enum tstate s, const char *error)
{
	struct tmsg m = { .type = TM_FINISH, .layout = l, .ok = ok,
			  .state = s };

	tcopy(m.text, sizeof(m.text), error);
	job_post(r->j, &m);
}

int job_commit(struct run *r, enum pcitopo_layout l, const char *error,
	       char *why, size_t len)
{
	struct tj_committed c;
	int e;

	if (tj_committed_read(r->cfg->state_dir, &c))
		memset(&c, 0, sizeof(c));
	if (l && l != c.layout)
		c.generation++;
	if (l)
		c.layout = l;
	tcopy(c.last_error, sizeof(c.last_error), error);
	/* written whole or not at all (journal.h): the old state stays */
	e = tj_committed_write(r->cfg->state_dir, &c);
	if (e) {
		/* the journal is the one record of what was done: kept */
		snprintf(why, len, "the committed state %.300s/%s cannot be "
			 "written: %s; the journal is kept, the next start "
			 "finishes from it", r->cfg->state_dir, TJ_STATE_FILE,
			 strerror(-e));
		tlog(LOG_ERR, "%s", why);
		return e;
	}
	e = tj_job_remove(r->cfg->state_dir);
	if (e)
		tlog(LOG_ERR, "journal: %s", strerror(-e));
	r->jr.state = TJ_NONE;
	fault_point("committed");	/* tests: done, Finished not sent */
	return 0;
}

int open_bmc(struct run *r)
{
	char err[TOPOD_MSG_LEN];

	if (r->bmc)
		return 0;
	if (bmc_open(&r->cfg->bmc, r->plat, &r->bmc, err, sizeof(err))) {
		/* no session: the BMC unreachable (or its credentials
		 * unreadable): either way nothing was asked of it */
		r->bmc_gone = true;
		return phase_fail(r, TERR_BMC, "%s", err);
	}
	return 0;
}

/* units.c on the worker's own connection; without systemd none is active */
void open_units(struct run *r)
{
	if (r->units_open)
		return;
	if (units_open(&r->units) < 0)
		r->units.systemd = false;
	r->units_open = true;
}

/* 1 if the platform's unit i runs (and so is to be stopped), 0 if not,
 * -errno when systemd cannot tell */
int unit_to_stop(struct run *r, unsigned int i)
{
	bool active;
	int e = units_is_active(&r->units, r->plat->units[i], &active);

	return e < 0 ? e : active;
}
