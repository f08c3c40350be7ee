// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: one switch, phase by phase, in the worker thread: which phases it
 * runs, in which order, and what it comes to (committed, pending, rolled
 * back); the dry run; the thread. The phases are on phase.h's layer, each
 * in the file of its part (preflight.c, phases.c, rollback.c, recover.c).
 *
 *   preflight    layout supported, BMC answers and is idle, every GPU
 *                present, nobody holds a moving GPU (unless forced); then
 *                SetLayout is answered
 *   quiesce      stop the platform's active units, unbind the moving GPUs
 *   detach       pt_nl_detach() of the ports the moving GPUs hang from
 *   bmc          the Select, sent once, then the status until done/failed
 *                within the budget (after a timeout: the status, never a
 *                second Select)
 *   reenumerate  rescan, wait for the devices (module events)
 *   verify       the module reports the layout, every GPU, links as good
 *   restore      start the units again
 *   commit       the committed state, the journal removed
 *
 * A dry run (PlanLayout, JOB_PLAN) runs preflight's own checks in its own
 * thread with r->plan set: nothing is announced, nothing written, nothing
 * stopped, detached or selected; a refusal is noted (the first one is
 * SetLayout's answer) and the checks go on, to report everything at once.
 *
 * Power-cycle platforms: preflight, bmc (the layout becomes pending),
 * then with TOPOD_F_POWER_CYCLE quiesce and power-cycle; the next start
 * (JOB_RECOVER of an awaiting-power-cycle journal) verifies and commits.
 *
 * Any failure after preflight rolls back the same way to the old layout
 * (rollback-bmc, rollback-reenumerate, rollback-verify, rollback-restore).
 * The journal (journal.h) is written before each phase acts, so that a
 * restart after a crash knows what to undo (JOB_RECOVER): the units it
 * stopped, each driver before it is unbound, the ports before they are
 * detached, the GPUs' links before the switch. Every way out (commit,
 * rollback, recovery, a failed rollback) binds the unbound drivers again
 * and every verify holds the links to the journalled ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "phase.h"

/* The GPUs and links before the switch, into the journal: a recovery
 * verifies against what was there before (recover.c reads them back), not
 * against what it finds. */
static void journal_before(struct run *r)
{
	r->jr.ngpus = 0;
	for (unsigned int i = 0; i < r->before.ngpus && i < TJ_MAX_DEVS; i++) {
		const struct hw_gpu *g = &r->before.gpus[i];
		struct tj_gpu *t = &r->jr.gpus[r->jr.ngpus++];

		memcpy(t->addr, g->addr, sizeof(t->addr));
		memcpy(t->parent, g->parent, sizeof(t->parent));
		t->link_max_speed = g->link_max_speed;
		t->link_max_width = g->link_max_width;
		t->link_flags = g->link_flags;
	}
}

static void switch_online(struct run *r)
{
	struct hw_snap after;

	if (do_quiesce(r) || do_detach(r) || do_bmc(r, "bmc", r->to, true) ||
	    do_reenumerate(r, "reenumerate", r->to, &after) ||
	    do_verify(r, "verify", r->to, &after)) {
		rollback(r, "");
		return;
	}
	do_restore(r, "restore", r->to);
	finish_ok(r, "committed");
}

static void power_cycle(struct run *r)
{
	char err[TOPOD_MSG_LEN], waited[TOPOD_MSG_LEN];
	int e;

	if (do_quiesce(r))
		goto undo;
	if (phase_begin(r, "power-cycle", r->to) && journal_refused(r))
		goto undo;
	bmc_budget(r->bmc, r->plat->bmc_job_ms);
	e = bmc_power_cycle(r->bmc, err, sizeof(err));
	if (e && e != -ETIMEDOUT) {
		phase_fail(r, TERR_BMC, "%s", err);
		goto undo;
	}
	bmc_waited(r->bmc, waited, sizeof(waited));
	phase_post(r, "done",
		   "power cycle requested; topod finishes the switch to %s "
		   "when the host is up again%s%s", ptc_layout_name(r->to),
		   *waited ? "; " : "", waited);
	return;
undo:
	/* the layout stays pending; restart what we stopped */
	do_restore(r, "restore", r->to);
	post_finish(r, r->to, false, TS_AWAITING_POWER_CYCLE, r->err);
}

static void switch_power_cycle(struct run *r)
{
	bool pending_already = r->bj.pending == r->to;

	if (!pending_already) {
		if (do_bmc(r, "bmc", r->to, true)) {
			rollback(r, "");
			return;
		}
	}
	if (r->bj.current == r->to && !r->bj.pending) {
		/* selecting the current layout cleared what was pending */
		finish_ok(r, "nothing pending any more");
		return;
	}
	r->jr.state = TJ_AWAITING_POWER_CYCLE;
	if (journal_need(r)) {
		/* the layout pending with no journal to say so: undone */
		r->jr.state = TJ_SWITCHING;
		rollback(r, "");
		return;
	}
	post_state(r, TS_AWAITING_POWER_CYCLE, r->to);
	if (r->j->flags & TOPOD_F_POWER_CYCLE) {
		power_cycle(r);
		return;
	}
	(void)phase_begin(r, "pending", r->to);	/* written just above */
	phase_post(r, "done",
		   "%s takes effect at the next power cycle (topoctl set %s "
		   "--power-cycle)", ptc_layout_name(r->to),
		   ptc_layout_name(r->to));
	post_finish(r, r->to, true, TS_AWAITING_POWER_CYCLE, "");
}

/* What a switch does once preflight has passed (run_switch() goes by it,
 * a dry run reports it). */
static enum toutcome switch_outcome(const struct run *r)
{
	if (r->from == r->to && !r->bj.pending)
		return TO_NONE;
	if (r->plat->apply == PT_PLAT_APPLY_ONLINE)
		return TO_ONLINE;
	if (r->bj.current == r->to && r->bj.pending != r->to)
		return TO_CLEAR_PENDING;	/* switch_power_cycle() */
	return r->j->flags & TOPOD_F_POWER_CYCLE ? TO_POWER_CYCLE : TO_PENDING;
}

uint64_t job_budget_ms(const struct pt_platform *p, enum toutcome o)
{
	switch (o) {
	case TO_ONLINE:
		return (uint64_t)p->bmc_job_ms + p->reenumerate_ms;
	case TO_PENDING:
	case TO_CLEAR_PENDING:
		return p->bmc_job_ms;
	case TO_POWER_CYCLE:
		return (uint64_t)p->bmc_job_ms + p->power_cycle_ms +
		       p->reenumerate_ms;
	default:
		return 0;
	}
}

static void run_switch(struct run *r)
{
	r->to = r->j->to;
	if (do_preflight(r)) {
		post_accept(r, r->terr, r->err);
		return;
	}
	if (switch_outcome(r) == TO_NONE) {
		post_accept(r, TERR_OK, "");
		finish_ok(r, "already in this layout");
		return;
	}
	r->jr.state = TJ_SWITCHING;
	r->jr.from = r->from;
	r->jr.to = r->to;
	r->jr.flags = r->j->flags;
	journal_before(r);
	if (hw_boot_id(r->cfg, r->jr.boot_id, sizeof(r->jr.boot_id)))
		r->jr.boot_id[0] = '\0';	/* then "topod stopped" */
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		r->jr.started_usec = (uint64_t)ts.tv_sec * 1000000u +
				     (uint64_t)ts.tv_nsec / 1000u;
	}
	/* nothing moves without the journal on disk: refused, as preflight
	 * would have (it checks the state dir; this is the write itself) */
	if (journal_save(r)) {
		r->jr.state = TJ_NONE;
		snprintf(r->err, sizeof(r->err), "%.400s: the switch is "
			 "refused, nothing was changed", r->jerr);
		post_accept(r, TERR_INTERNAL, r->err);
		return;
	}
	post_state(r, TS_SWITCHING, PCITOPO_LAYOUT_UNKNOWN);
	post_accept(r, TERR_OK, "");
	if (r->plat->apply == PT_PLAT_APPLY_POWER_CYCLE)
		switch_power_cycle(r);
	else
		switch_online(r);
}

/* PlanLayout: preflight's checks and what would follow them; nothing is
 * announced, written, stopped, detached or selected. */
static void run_plan(struct run *r)
{
	struct tplan *pl = r->plan;
	bool quiesce;

	r->to = r->j->to;
	pl->to = r->to;
	pl->flags = r->j->flags;
	(void)preflight_checks(r);
	pl->checked = true;
	pl->from = r->from;
	pl->outcome = switch_outcome(r);
	pl->select = pl->outcome != TO_NONE &&
		     !(r->plat->apply == PT_PLAT_APPLY_POWER_CYCLE &&
		       r->bj.pending == r->to);
	pl->budget_ms = job_budget_ms(r->plat, pl->outcome);
	pl->nmoving = r->ndevs;
	for (unsigned int i = 0; i < r->ndevs; i++) {
		memcpy(pl->moving[i], r->devs[i], PCITOPO_ADDR_LEN);
		pl->moving_index[i] = gpu_number(&r->before, r->devs[i]);
	}
	/* ports are detached (and drivers unbound) by online switches only */
	if (pl->outcome == TO_ONLINE) {
		pl->nports = r->nports;
		memcpy(pl->ports, r->ports, sizeof(pl->ports));
	}
	quiesce = pl->outcome == TO_ONLINE || pl->outcome == TO_POWER_CYCLE;
	open_units(r);
	pl->systemd = r->units.systemd;
	for (unsigned int i = 0; i < r->plat->nunits; i++) {
		pl->unit_active[i] = unit_to_stop(r, i) > 0;
		pl->unit_stop[i] = quiesce && pl->unit_active[i];
	}
}

void *job_main(void *arg)
{
	struct tjob *j = arg;
	struct run *r = calloc(1, sizeof(*r));
	struct tmsg done = { .type = TM_DONE };

	if (r) {
		r->j = j;
		r->cfg = &j->d->cfg;
		r->plat = &j->d->plat;
		r->plan = j->plan;
		if (j->kind == JOB_PLAN)
			run_plan(r);
		else if (j->kind == JOB_SWITCH)
			run_switch(r);
		else
			run_recover(r);
		bmc_close(r->bmc);
		hw_close(r->hw);
		if (r->units_open)
			units_close(&r->units);
		free(r);
	} else if (j->kind == JOB_PLAN) {
		j->plan->err = TERR_INTERNAL;
		snprintf(j->plan->msg, sizeof(j->plan->msg), "out of memory");
	} else {
		struct tmsg m = { .type = TM_ACCEPT, .err = TERR_INTERNAL };

		snprintf(m.text, sizeof(m.text), "out of memory");
		job_post(j, &m);
	}
	if (j->kind == JOB_PLAN) {
		done.type = TM_PLAN;
		done.job = j;
	}
	job_post(j, &done);
	return NULL;
}
