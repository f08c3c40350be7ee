// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: at start, a journal of a switch in flight (JOB_RECOVER): after a
 * power cycle that should have applied the layout, verify and commit (or
 * stay pending); after a crash, a kill or a power cut, finish the switch if
 * the Select went out and the BMC is at the new layout, else roll back.
 * LastError and Finished keep the first cause and say what interrupted it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "phase.h"

/* The GPUs and links from before the switch, as the journal kept them: a
 * recovery verifies against those, not against what it finds. */
static void before_from_journal(struct run *r)
{
	memset(&r->before, 0, sizeof(r->before));
	r->before.layout = r->jr.from;
	for (unsigned int i = 0; i < r->jr.ngpus && i < HW_MAX_GPUS; i++) {
		const struct tj_gpu *t = &r->jr.gpus[i];
		struct hw_gpu *g = &r->before.gpus[r->before.ngpus++];

		memcpy(g->addr, t->addr, sizeof(g->addr));
		memcpy(g->parent, t->parent, sizeof(g->parent));
		g->link_max_speed = t->link_max_speed;
		g->link_max_width = (uint8_t)t->link_max_width;
		g->link_flags = t->link_flags;
	}
	r->ndevs = (unsigned int)hw_moving(r->plat, &r->before, r->devs,
					   sizeof(r->devs) / sizeof(r->devs[0]),
					   r->ports, TJ_MAX_PORTS, &r->nports);
}

/* At start, after a power cycle that should have applied r->to. */
static void recover_power_cycle(struct run *r)
{
	char err[TOPOD_MSG_LEN];
	struct hw_snap after;

	before_from_journal(r);
	post_state(r, TS_SWITCHING, r->to);
	(void)phase_begin(r, "reenumerate", r->to);	/* it only looks */
	if (hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err))) {
		phase_fail(r, TERR_INTERNAL, "%s", err);
		goto failed;
	}
	if (open_bmc(r))
		goto failed;
	bmc_budget(r->bmc, r->plat->bmc_job_ms);
	if (bmc_status(r->bmc, &r->bj, err, sizeof(err))) {
		phase_fail(r, TERR_BMC, "%s", err);
		goto failed;
	}
	if (r->bj.pending == r->to && r->bj.current != r->to) {
		/* no power cycle yet: still pending */
		phase_post(r, "done", "%s still pending: no power cycle yet",
			   ptc_layout_name(r->to));
		do_restore(r, "restore", r->to);
		post_state(r, TS_AWAITING_POWER_CYCLE, r->to);
		return;
	}
	/* the boot enumerated everything: no rescan */
	if (hw_wait(r->hw, r->to, r->plat->layouts[r->to].gpus,
		    r->plat->reenumerate_ms, 0, &after, err, sizeof(err))) {
		phase_fail(r, TERR_VERIFY, "after the power cycle: %s", err);
		goto failed;
	}
	phase_post(r, "done", "%u GPUs, layout %s", after.ngpus,
		   ptc_layout_name(after.layout));
	/* links against the journal's, from before the power cycle */
	if (do_verify(r, "verify", r->to, &after))
		goto failed;
	do_restore(r, "restore", r->to);
	finish_ok(r, "committed after the power cycle");
	return;
failed:
	{
		char msg[TOPOD_MSG_LEN];

		snprintf(msg, sizeof(msg), "power cycle to %s: %.400s",
			 ptc_layout_name(r->to), r->err);
		char why[TOPOD_MSG_LEN];

		if (job_commit(r, PCITOPO_LAYOUT_UNKNOWN, msg, why, sizeof(why)))
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
				 "; %.300s", why);
		post_finish(r, r->to, false, TS_FAILED, msg);
	}
}

/*
 * What the journal of an interrupted switch says happened, for LastError
 * and Finished: the first error (if a rollback had begun), what
 * interrupted it (topod gone; the host down, from another boot id; or a
 * rollback that failed while topod stayed up, State failed) and, once the
 * BMC was asked (bj_known), a BMC job of ours that failed meanwhile.
 */
static void interrupted_cause(struct run *r, bool bj_known, char *buf,
			      size_t len)
{
	char boot[TJ_BOOT_ID_LEN];
	bool down = r->jr.boot_id[0] &&
		    !hw_boot_id(r->cfg, boot, sizeof(boot)) &&
		    strcmp(boot, r->jr.boot_id);
	size_t w;

	if (r->jr.rollback_failed)
		w = (size_t)snprintf(buf, len, "%.200s; rollback to %s failed: "
				     "%.160s; tried again at the next start",
				     r->jr.error, ptc_layout_name(r->from),
				     r->jr.rollback_error);
	else
		w = (size_t)snprintf(buf, len, "%.200s%s%s in phase %s of the "
				     "switch from %s to %s%s", r->jr.error,
				     *r->jr.error ? "; then " : "",
				     down ? "the host went down (power cut or "
				     "reset)" : "topod stopped", r->j->journal.phase,
				     ptc_layout_name(r->from),
				     ptc_layout_name(r->to),
				     down ? "" : " (killed or crashed)");
	if (bj_known && r->jr.bmc_sent && r->bj.state == PT_PLAT_STATE_FAILED &&
	    w < len)
		snprintf(buf + w, len - w, "; the BMC job %d failed (error %d)",
			 r->bj.job, r->bj.error);
}

/* At start: a switch was in flight when topod stopped (or its rollback
 * failed and topod was restarted). */
static void recover_interrupted(struct run *r)
{
	char err[TOPOD_MSG_LEN], cause[TOPOD_MSG_LEN], prefix[TOPOD_MSG_LEN + 32];
	char why[160];
	struct hw_snap after;
	int e;

	before_from_journal(r);
	post_state(r, r->jr.state == TJ_ROLLING_BACK ? TS_ROLLING_BACK :
		   TS_SWITCHING, PCITOPO_LAYOUT_UNKNOWN);
	/* it undoes (a rescan) and asks the BMC: with a journal or not */
	(void)phase_begin(r, "recover", r->to);
	if (hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err))) {
		phase_fail(r, TERR_INTERNAL, "%s", err);
		goto rollback;
	}
	/* nothing stays detached */
	fault_point("hw_rescan");
	if (hw_rescan(r->hw, err, sizeof(err)))
		tlog(LOG_ERR, "%s", err);
	/* the journal shows the MUX never moved (no Select out, or the BMC
	 * reported the old layout): nothing to finish, nothing to ask the
	 * BMC; rolled back without it */
	if (!rollback_needs_bmc(r, r->from, why, sizeof(why))) {
		tlog(LOG_NOTICE, "recovery: %s: rolled back without the BMC",
		     why);
		interrupted_cause(r, false, cause, sizeof(cause));
		phase_fail(r, TERR_INTERNAL, "%s", cause);
		rollback(r, "");
		return;
	}
	if (open_bmc(r))
		goto rollback;
	bmc_budget(r->bmc, r->plat->bmc_job_ms);
	e = bmc_follow(r->bmc, &r->bj, err, sizeof(err));
	if (e) {
		phase_fail(r, e == -ETIMEDOUT ? TERR_TIMEOUT : TERR_BMC, "%s", err);
		goto rollback;
	}
	bmc_note(r);
	interrupted_cause(r, true, cause, sizeof(cause));
	if (r->jr.state == TJ_SWITCHING && r->jr.bmc_sent &&
	    r->plat->apply == PT_PLAT_APPLY_ONLINE &&
	    r->bj.state == PT_PLAT_STATE_DONE && r->bj.current == r->to) {
		phase_post(r, "done", "the Select went through: finishing "
			   "the switch to %s", ptc_layout_name(r->to));
		/* verified against the journal's links from before */
		if (do_reenumerate(r, "reenumerate", r->to, &after) ||
		    do_verify(r, "verify", r->to, &after)) {
			snprintf(prefix, sizeof(prefix), "%s; finishing the "
				 "switch failed: ", cause);
			rollback(r, prefix);
			return;
		}
		do_restore(r, "restore", r->to);
		finish_ok(r, "committed (recovered)");
		return;
	}
	phase_fail(r, TERR_INTERNAL, "%s", cause);
	rollback(r, "");
	return;
rollback:
	/* the recovery's own error comes after what the journal says */
	interrupted_cause(r, false, cause, sizeof(cause));
	snprintf(prefix, sizeof(prefix), "%s; at start: ", cause);
	rollback(r, prefix);
}

/*
 * State waiting-bmc: topod.c's timer's try. The BMC is asked once, its
 * status without waiting (the timer's backoff is the wait); if it does not
 * answer, nothing changes (no signal: State stays waiting-bmc, the timer
 * is set again). If it does, the rollback is finished from the journal,
 * deciding by the layout the BMC reports now (a BMC back from a reset may
 * have no memory of the job, or have finished it meanwhile), the first
 * cause kept.
 */
static void recover_retry_bmc(struct run *r)
{
	char err[TOPOD_MSG_LEN] = "";

	before_from_journal(r);
	if (!bmc_open(&r->cfg->bmc, r->plat, &r->bmc, err, sizeof(err))) {
		bmc_budget(r->bmc, 0);
		if (!bmc_status(r->bmc, &r->bj, err, sizeof(err))) {
			tlog(LOG_NOTICE, "the BMC answers again (job %d %s, "
			     "current %s): finishing the rollback to %s",
			     r->bj.job, pt_platform_state_name(r->bj.state),
			     ptc_layout_name(r->bj.current),
			     ptc_layout_name(r->from));
			post_state(r, TS_ROLLING_BACK, PCITOPO_LAYOUT_UNKNOWN);
			tcopy(r->err, sizeof(r->err), r->jr.error);
			r->terr = TERR_BMC;
			rollback(r, "");
			return;
		}
	}
	tlog(LOG_INFO, "the BMC still does not answer: %s", err);
}

void run_recover(struct run *r)
{
	r->jr = r->j->journal;
	r->from = r->jr.from;
	r->to = r->jr.to;
	if (r->j->retry_bmc) {
		recover_retry_bmc(r);
		return;
	}
	tlog(LOG_NOTICE, "journal: %s switch %s -> %s, last phase %s",
	     tj_state_name(r->jr.state), ptc_layout_name(r->from),
	     ptc_layout_name(r->to), r->jr.phase);
	if (r->jr.state == TJ_AWAITING_POWER_CYCLE)
		recover_power_cycle(r);
	else
		recover_interrupted(r);
}
