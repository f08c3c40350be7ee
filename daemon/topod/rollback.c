// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the rollback of a switch that failed after preflight, to the old
 * layout, the same way from every phase: rollback-bmc (only where the MUX
 * may have moved: a job still running ends first; the moved GPUs off the
 * bus, then the old layout selected if the BMC is not at it), then
 * rollback-reenumerate, rollback-verify, rollback-restore. A rollback that
 * fails leaves the journal, marked, for the next start, with no GPU
 * detached nor unbound; one whose BMC does not answer puts back what it
 * can and waits for it (waiting-bmc), the journal kept.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "phase.h"

/*
 * Before the MUX flips back: the moving GPUs that are enumerated now, on the
 * ports the switch moved them to (maybe with their drivers bound by the
 * kernel's probe at add), are taken off the bus, as the forward path does
 * before its Select: the BMC never pulls a live device. Which ones: every
 * GPU now present but those that do not move (before the switch, at the
 * same address). Their ports go into the journal first. *n: how many.
 */
static int detach_moved(struct run *r, unsigned int *n)
{
	char err[TOPOD_MSG_LEN];
	struct hw_snap now;
	unsigned int np = 0, down;
	char ports[TJ_MAX_PORTS][PCITOPO_ADDR_LEN];

	*n = 0;
	if (r->plat->apply != PT_PLAT_APPLY_ONLINE)
		return 0;
	if (!r->before.ngpus) {
		tlog(LOG_WARNING, "rollback: no GPUs from before the switch in "
		     "the journal: cannot tell which GPUs moved");
		return 0;
	}
	if (!r->hw && hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err)))
		return phase_fail(r, TERR_INTERNAL, "%s", err);
	if (hw_snapshot(r->hw, &now, err, sizeof(err)))
		return phase_fail(r, TERR_INTERNAL, "%s", err);
	for (unsigned int i = 0; i < now.ngpus; i++) {
		const struct hw_gpu *g = &now.gpus[i];
		bool stays = false, seen = false;

		for (unsigned int k = 0; k < r->before.ngpus; k++)
			stays |= !strcmp(r->before.gpus[k].addr, g->addr);
		for (unsigned int k = 0; k < r->ndevs; k++)
			if (!strcmp(r->devs[k], g->addr))
				stays = false;
		if (stays || !g->parent[0])
			continue;
		for (unsigned int k = 0; k < np; k++)
			seen |= !strcmp(ports[k], g->parent);
		if (seen)
			continue;
		if (np >= TJ_MAX_PORTS)
			return phase_fail(r, TERR_INTERNAL, "more than %u ports to "
				    "detach", TJ_MAX_PORTS);
		memcpy(ports[np++], g->parent, PCITOPO_ADDR_LEN);
	}
	for (unsigned int i = 0; i < np; i++) {
		bool known = false;

		for (unsigned int k = 0; k < r->jr.nports; k++)
			known |= !strcmp(r->jr.ports[k], ports[i]);
		if (!known && r->jr.nports < TJ_MAX_PORTS)
			memcpy(r->jr.ports[r->jr.nports++], ports[i],
			       PCITOPO_ADDR_LEN);
	}
	if (journal_need(r))	/* a rollback: goes on without */
		return -1;
	for (unsigned int i = 0; i < np; i++) {
		fault_point("hw_detach");
		if (hw_detach(r->hw, ports[i], err, sizeof(err)))
			return phase_fail(r, TERR_INTERNAL, "%s", err);
	}
	*n = np;
	return slots_down(r, ports, np, &down);
}

/* A recovery of a rollback that had its Select done: the journal it found
 * says a phase after rollback-bmc (reached only once that Select's job
 * was done, the BMC at the old layout). */
static bool rollback_selected(const struct run *r)
{
	static const char *const after[] = { "rollback-reenumerate",
		"rollback-verify", "rollback-restore" };
	const struct tj_job *jj = &r->j->journal;

	if (r->j->kind != JOB_RECOVER || jj->state != TJ_ROLLING_BACK)
		return false;
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		if (!strcmp(jj->phase, after[i]))
			return true;
	return false;
}

/*
 * Whether the rollback to l asks the BMC at all; if not, why (into why).
 * On an online platform the MUX may have moved only where the Select may
 * have gone out (bmc_sent: set before it, cleared where the BMC refused it
 * unacted) and the BMC has not reported l since, its job over and nothing
 * else pending. Where it cannot have moved, the slots come up and the GPUs
 * are re-enumerated without the BMC, so that a BMC that is gone holds
 * nothing up; unless the platform's cards come back only through its BMC
 * (moves.rollback_select = "always", a property of the hardware that no
 * journal can tell) and slots are still down.
 */
bool rollback_needs_bmc(const struct run *r, enum pcitopo_layout l,
			char *why, size_t len)
{
	const struct tj_job *j = &r->jr;

	/* a power-cycle platform's rollback is about what is pending, which
	 * only the BMC knows (another client may have changed it: Redfish's
	 * 412), and no GPU waits on it: always asked */
	if (r->plat->apply != PT_PLAT_APPLY_ONLINE)
		return true;
	if (j->bmc_sent && (j->bmc_current != l ||
			    (j->bmc_pending && j->bmc_pending != l)))
		return true;
	if (r->plat->rollback_select_always && j->nslots) {
		snprintf(why, len, "the platform selects %s again for the "
			 "slots taken down (moves.rollback_select)",
			 ptc_layout_name(l));
		return true;
	}
	if (!j->bmc_sent)
		snprintf(why, len, "the Select was never sent");
	else
		snprintf(why, len, "the BMC reported %s after its job",
			 ptc_layout_name(l));
	return false;
}

/* rollback-bmc: where the MUX may have moved (rollback_needs_bmc()), a job
 * still running (a hung Select) ends first; then, unless the BMC is at l
 * already with nothing left to put back, the moved GPUs are taken off the
 * bus and l is selected. 0, or -1 (phase failed; r->bmc_gone: because
 * the BMC did not answer). */
static int rollback_bmc(struct run *r, enum pcitopo_layout l)
{
	char err[TOPOD_MSG_LEN], waited[TOPOD_MSG_LEN], waited2[TOPOD_MSG_LEN];
	char why[160];
	unsigned int ndet = 0;
	int e;

	(void)phase_begin(r, "rollback-bmc", l);	/* an undo: goes on */
	if (!rollback_needs_bmc(r, l, why, sizeof(why))) {
		phase_post(r, "done", "the BMC not asked: %s, the MUX never "
			   "moved", why);
		return 0;
	}
	r->bmc_gone = false;
	if (open_bmc(r))
		return -1;
	bmc_budget(r->bmc, r->plat->bmc_job_ms);
	e = bmc_follow(r->bmc, &r->bj, err, sizeof(err));
	if (e) {
		r->bmc_gone = e == -EAGAIN;
		return phase_fail(r, e == -ETIMEDOUT ? TERR_TIMEOUT : TERR_BMC,
				  "%s", err);
	}
	/* what it reports now decides, whatever it remembers of the job (a
	 * BMC back from a reset may know none, or have finished it) */
	bmc_note(r);
	(void)journal_save(r);
	/* slots still down on a platform whose cards come back only through
	 * the BMC (moves.rollback_select): the old layout is selected again
	 * before they come up (the emulated MUX puts back the devices QEMU
	 * dropped at power off). Not when this rollback's own Select had
	 * completed before topod stopped (its journal past rollback-bmc, the
	 * BMC at l): a BMC command is sent once. */
	if (r->bj.current != l || (r->bj.pending && r->bj.pending != l) ||
	    (r->plat->rollback_select_always && r->jr.nslots &&
	     !rollback_selected(r))) {
		/* what the follow waited for, before bmc_to() forgets it */
		bmc_waited(r->bmc, waited, sizeof(waited));
		if (detach_moved(r, &ndet) || bmc_to(r, l, false))
			return -1;
		bmc_waited(r->bmc, waited2, sizeof(waited2));
		phase_post(r, "done", "BMC job %d done: current %s%s%s%s%s%s",
			   r->bj.job, ptc_layout_name(r->bj.current),
			   ndet ? " (the moved GPUs' ports detached first)" : "",
			   *waited ? "; " : "", waited, *waited2 ? "; " : "",
			   waited2);
	} else {
		bmc_waited(r->bmc, waited, sizeof(waited));
		phase_post(r, "done", "BMC still at %s (job %d %s): nothing to "
			   "select%s%s", ptc_layout_name(l), r->bj.job,
			   pt_platform_state_name(r->bj.state),
			   *waited ? "; " : "", waited);
	}
	return 0;
}

/* Whatever the layout now, no GPU stays detached (nor its slot down): the
 * slots the journal has down brought up, a rescan; how many GPUs then
 * (*ngpus, 0 if unknown). Errors are logged: an undo goes on. */
static void bring_back(struct run *r, unsigned int *ngpus)
{
	char err[TOPOD_MSG_LEN];
	struct hw_snap now;
	unsigned int up;

	*ngpus = 0;
	if (!r->hw && hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err))) {
		tlog(LOG_ERR, "%s", err);
		return;
	}
	if (r->jr.nslots &&
	    hw_slots_up(r->hw, r->jr.slots, r->jr.nslots, &up, err, sizeof(err)))
		tlog(LOG_ERR, "%s", err);
	fault_point("hw_rescan");
	if (hw_rescan(r->hw, err, sizeof(err))) {
		tlog(LOG_ERR, "%s", err);
	} else if (!hw_snapshot(r->hw, &now, err, sizeof(err))) {
		tlog(LOG_NOTICE, "after a rescan: layout %s, %u GPUs",
		     ptc_layout_name(now.layout), now.ngpus);
		*ngpus = now.ngpus;
	}
}

/*
 * The rollback to l needs the BMC, and it does not answer (r->err): what
 * can be put back without it is, now: the slots up, a rescan, every
 * unbound driver bound again (a GPU the MUX may have moved comes back
 * where the lanes are, and is probed there). The units quiesce stopped
 * stay stopped: the layout is not settled. The journal stays (phase
 * waiting-bmc, its slots kept: a platform that selects again for them
 * still does), State waiting-bmc, LastError the first cause and what the
 * rollback waits for; topod.c asks the BMC again with backoff and
 * recover.c finishes the rollback when it answers.
 */
static void rollback_wait_bmc(struct run *r, const char *first,
			      enum pcitopo_layout l)
{
	char msg[TOPOD_MSG_LEN + 256], drv[TOPOD_MSG_LEN];
	struct tj_committed c;
	unsigned int bound, n, nodrv;

	snprintf(msg, sizeof(msg), "%.300s; rollback to %s" ROLLBACK_WAITS_BMC
		 "%.180s", first, ptc_layout_name(l), r->err);
	tlog(LOG_ERR, "%s", msg);
	(void)phase_begin(r, "waiting-bmc", l);	/* journalled: an undo */
	bring_back(r, &n);
	nodrv = rebind(r, &bound, drv, sizeof(drv));
	if (nodrv)
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
			 "; %.200s", drv);
	phase_post(r, nodrv ? "failed" : "done", "%u GPUs back, %u of %u "
		   "driver(s) bound again; the BMC is asked again by itself, "
		   "the rollback finishes when it answers", n, bound,
		   r->jr.nunbound);
	if (tj_committed_read(r->cfg->state_dir, &c))
		memset(&c, 0, sizeof(c));
	tcopy(c.last_error, sizeof(c.last_error), msg);
	if (tj_committed_write(r->cfg->state_dir, &c))
		tlog(LOG_ERR, "the committed state's LastError not written");
	post_finish(r, r->to, false, TS_WAITING_BMC, msg);
}

/* The rollback to l failed too (r->err): the journal stays, marked, for
 * the next start; no GPU stays detached, nor its slot down, nor without
 * its driver where it can have one; State failed. */
static void rollback_failed(struct run *r, const char *first,
			    enum pcitopo_layout l)
{
	char err[TOPOD_MSG_LEN + 256], drv[TOPOD_MSG_LEN];
	struct tj_committed c;
	unsigned int bound, n;

	snprintf(err, sizeof(err), "%.300s; rollback to %s failed: %.180s",
		 first, ptc_layout_name(l), r->err);
	tlog(LOG_CRIT, "%s", err);
	/* the journal says so: the next start tries again, and knows that
	 * topod did not stop here, its rollback failed */
	r->jr.rollback_failed = 1;
	tcopy(r->jr.rollback_error, sizeof(r->jr.rollback_error), r->err);
	(void)journal_save(r);
	fault_point("rollback-failed");	/* tests: marked, nothing rebound */
	/* whatever the layout now, no GPU stays detached (nor its slot down) */
	bring_back(r, &n);
	/* and none stays without its driver where it can have it */
	if (rebind(r, &bound, drv, sizeof(drv)))
		snprintf(err + strlen(err), sizeof(err) - strlen(err),
			 "; %.200s", drv);
	if (tj_committed_read(r->cfg->state_dir, &c))
		memset(&c, 0, sizeof(c));
	tcopy(c.last_error, sizeof(c.last_error), err);
	if (tj_committed_write(r->cfg->state_dir, &c))
		tlog(LOG_ERR, "the committed state's LastError not written");
	post_finish(r, r->to, false, TS_FAILED, err);
}

/* Back to r->from after a failure (r->err says why; why_prefix, if any,
 * goes before it: together they are the first cause, kept to the end). */
void rollback(struct run *r, const char *why_prefix)
{
	char first[TOPOD_MSG_LEN + 64], why[TOPOD_MSG_LEN];
	enum terr first_e = r->terr;
	struct hw_snap after;
	enum pcitopo_layout l = r->from;

	snprintf(first, sizeof(first), "%s%s", why_prefix, r->err);
	tlog(LOG_WARNING, "rolling back to %s: %s", ptc_layout_name(l), first);
	r->jr.state = TJ_ROLLING_BACK;
	tcopy(r->jr.error, sizeof(r->jr.error), first);
	r->jr.rollback_failed = 0;
	r->jr.rollback_error[0] = '\0';
	(void)journal_save(r);	/* an undo goes on without (logged) */
	post_state(r, TS_ROLLING_BACK, PCITOPO_LAYOUT_UNKNOWN);

	if (!l || !r->plat->layouts[l].present) {
		snprintf(r->err, sizeof(r->err), "old layout unknown");
		rollback_failed(r, first, l);
		return;
	}
	if (rollback_bmc(r, l)) {
		/* a BMC that does not answer is waited for; one that says
		 * no, or a job that does not end, fails the rollback */
		if (r->bmc_gone)
			rollback_wait_bmc(r, first, l);
		else
			rollback_failed(r, first, l);
		return;
	}
	if (do_reenumerate(r, "rollback-reenumerate", l, &after) ||
	    do_verify(r, "rollback-verify", l, &after)) {
		rollback_failed(r, first, l);
		return;
	}
	do_restore(r, "rollback-restore", l);
	if (*r->warn)
		snprintf(first + strlen(first), sizeof(first) - strlen(first),
			 "; rolled back to %s, but %.200s", ptc_layout_name(l),
			 r->warn);
	if (r->j->retry_bmc)
		snprintf(first + strlen(first), sizeof(first) - strlen(first),
			 "; rolled back to %s once the BMC answered again",
			 ptc_layout_name(l));
	fault_point("rollback-commit");	/* tests: verified, not committed */
	r->terr = first_e;
	if (job_commit(r, l, first, why, sizeof(why))) {
		/* back and verified, but only the journal says so */
		snprintf(first + strlen(first), sizeof(first) - strlen(first),
			 "; rolled back to %s, but %.300s", ptc_layout_name(l),
			 why);
		tcopy(r->err, sizeof(r->err), first);
		post_finish(r, r->to, false, TS_FAILED, first);
		return;
	}
	tcopy(r->err, sizeof(r->err), first);
	post_finish(r, r->to, false, TS_IDLE, first);
}
