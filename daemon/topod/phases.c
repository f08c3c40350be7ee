// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the phases after preflight, each on the phase layer (phase.h) and
 * each journalled before it acts, shared by a switch, its rollback and a
 * recovery:
 *
 *   quiesce      stop the platform's active units, unbind the moving GPUs
 *   detach       pt_nl_detach() of the ports the moving GPUs hang from,
 *                their slots taken down
 *   bmc          the Select, sent once, then the status until done/failed
 *                within the budget (after a timeout: the status, never a
 *                second Select)
 *   reenumerate  the slots up, rescan, wait for the devices (module events)
 *   verify       the module reports the layout, every GPU, links as good
 *   restore      the drivers bound again, the units started again
 *   commit       the committed state written, the journal removed
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "phase.h"

int do_quiesce(struct run *r)
{
	char err[TOPOD_MSG_LEN];
	unsigned int stopped = 0, unbound = 0;

	if (phase_begin(r, "quiesce", r->to) && journal_refused(r))
		return -1;
	open_units(r);
	for (unsigned int i = 0; i < r->plat->nunits; i++) {
		int e = unit_to_stop(r, i);

		/* a unit that may run is never left running by a guess */
		if (e < 0)
			return phase_fail(r, TERR_DEVICE_BUSY, "cannot tell whether "
				    "%s runs: %s", r->plat->units[i],
				    strerror(-e));
		if (!e)
			continue;
		/* journal first: a crash after the stop restarts it */
		snprintf(r->jr.units[r->jr.nunits++], TJ_UNIT_LEN, "%s",
			 r->plat->units[i]);
		if (journal_need(r)) {
			r->jr.nunits--;		/* not stopped after all */
			return -1;
		}
		if (units_stop(&r->units, r->plat->units[i], err, sizeof(err)))
			return phase_fail(r, TERR_DEVICE_BUSY, "%s", err);
		stopped++;
	}
	for (unsigned int i = 0; i < r->ndevs && r->plat->apply ==
	     PT_PLAT_APPLY_ONLINE; i++) {
		char drv[TJ_DRV_LEN];
		bool known = false;
		int e = hw_driver(r->hw, r->devs[i], drv, sizeof(drv));

		if (e < 0)
			return phase_fail(r, TERR_DEVICE_BUSY, "driver of %s: %s",
				    r->devs[i], strerror(-e));
		if (!e)
			continue;	/* none bound: none to give back */
		/* journal first: whoever ends this switch (this thread, or
		 * the next start after a crash) binds it again */
		for (unsigned int k = 0; k < r->jr.nunbound; k++)
			known |= !strcmp(r->jr.unbound[k].addr, r->devs[i]);
		if (!known) {
			struct tj_dev *d;

			if (r->jr.nunbound >= TJ_MAX_DEVS)
				return phase_fail(r, TERR_INTERNAL, "more than %u "
					    "drivers to unbind", TJ_MAX_DEVS);
			d = &r->jr.unbound[r->jr.nunbound++];
			tcopy(d->addr, sizeof(d->addr), r->devs[i]);
			tcopy(d->driver, sizeof(d->driver), drv);
			if (journal_need(r)) {
				r->jr.nunbound--;	/* not unbound */
				return -1;
			}
		}
		fault_point("hw_unbind");
		e = hw_unbind(r->hw, r->devs[i], err, sizeof(err));
		if (e < 0)
			return phase_fail(r, TERR_DEVICE_BUSY, "%s", err);
		unbound += (unsigned int)e;
	}
	if (r->plat->apply == PT_PLAT_APPLY_ONLINE)
		phase_post(r, "done", "%u unit(s) stopped%s, %u driver(s) "
			   "unbound", stopped, r->units.systemd ? "" :
			   " (systemd not on the bus)", unbound);
	else
		phase_post(r, "done", "%u unit(s) stopped%s", stopped,
			   r->units.systemd ? "" : " (systemd not on the bus)");
	return 0;
}

/*
 * The slots below the detached ports, taken down before the lanes change:
 * power off through the hotplug controller, or Link Disable where the port
 * has no power control (hostside.h), so that the GPUs see an orderly power
 * off and nothing a surprise link down (no AER, no DPC). Each slot is
 * journalled first: whoever ends the switch brings it up (slots_up()). A
 * port that has neither (not a PCIe port) stays detached only. *n: how
 * many went down.
 */
int slots_down(struct run *r, char ports[][PCITOPO_ADDR_LEN],
		      unsigned int nports, unsigned int *n)
{
	char err[TOPOD_MSG_LEN];
	struct tj_slot act[TJ_MAX_PORTS];

	*n = 0;
	for (unsigned int i = 0; i < nports && i < TJ_MAX_PORTS; i++) {
		int how = hw_slot_how(r->hw, ports[i]);
		bool known = false;

		if (how == -EPERM)
			return phase_fail(r, TERR_UNSUPPORTED, "%s", no_link_disable);
		if (how < 0) {
			tlog(LOG_NOTICE, "port %s: slot not taken down: %s",
			     ports[i], strerror(-how));
			r->rescan = true;
			continue;
		}
		if (how == TJ_SLOT_LINK)
			r->rescan = true;
		act[*n].how = (enum tj_slot_how)how;
		memcpy(act[*n].port, ports[i], PCITOPO_ADDR_LEN);
		(*n)++;
		for (unsigned int k = 0; k < r->jr.nslots; k++)
			known |= !strcmp(r->jr.slots[k].port, ports[i]);
		if (!known && r->jr.nslots < TJ_MAX_PORTS)
			r->jr.slots[r->jr.nslots++] = act[*n - 1];
	}
	if (!*n)
		return 0;
	if (journal_need(r))
		return -1;
	fault_point("hw_slot_down");
	if (hw_slots_down(r->hw, act, *n, err, sizeof(err))) {
		r->rescan = true;	/* detached, and maybe still powered */
		return phase_fail(r, TERR_INTERNAL, "%s", err);
	}
	return 0;
}

/* Bring up the slots the journal has down: after the Select (forward,
 * rollback, recovery: the lanes are where the layout wants them), or when
 * a rollback gives up. A slot leaves the journal once it is up, or empty
 * (its GPU moved to another port). One that does not come up (a card
 * whose lanes the MUX took elsewhere: no link) is logged, not fatal: the
 * verify that follows counts the GPUs and their links. *n: how many came
 * up. */
static int slots_up(struct run *r, unsigned int *n)
{
	char err[TOPOD_MSG_LEN];

	*n = 0;
	if (!r->jr.nslots)
		return 0;
	if (!r->hw && hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err)))
		return phase_fail(r, TERR_INTERNAL, "%s", err);
	fault_point("hw_slot_up");
	if (hw_slots_up(r->hw, r->jr.slots, r->jr.nslots, n, err, sizeof(err)))
		tlog(LOG_WARNING, "%s", err);
	r->jr.nslots = 0;
	(void)journal_save(r);	/* done: a stale list only brings up again */
	return 0;
}

int do_detach(struct run *r)
{
	char err[TOPOD_MSG_LEN];
	unsigned int nports, down;
	char devs[TJ_MAX_PORTS][PCITOPO_ADDR_LEN];

	if (phase_begin(r, "detach", r->to) && journal_refused(r))
		return -1;
	(void)hw_moving(r->plat, &r->before, devs, TJ_MAX_PORTS, r->jr.ports,
			TJ_MAX_PORTS, &nports);
	r->jr.nports = nports;
	if (journal_need(r))
		return -1;
	for (unsigned int i = 0; i < nports; i++) {
		fault_point("hw_detach");
		if (hw_detach(r->hw, r->jr.ports[i], err, sizeof(err)))
			return phase_fail(r, TERR_INTERNAL, "%s", err);
	}
	if (slots_down(r, r->jr.ports, nports, &down))
		return -1;
	phase_post(r, "done", "%u port(s) detached, %u slot(s) taken down",
		   nports, down);
	return 0;
}

/* Select l and follow it to done; on power-cycle platforms l becomes
 * pending (or, for the current layout, nothing is pending any more). */
int bmc_to(struct run *r, enum pcitopo_layout l, bool journal)
{
	const struct pt_platform *p = r->plat;
	char err[TOPOD_MSG_LEN], sel[TOPOD_MSG_LEN] = "";
	int sent = 0, e, was_sent = r->jr.bmc_sent;

	r->bmc_gone = false;
	if (open_bmc(r))
		return -1;
	/* the Select and its job together: transient waits count too */
	bmc_budget(r->bmc, p->bmc_job_ms);
	/* the journal first: the Select may go out, and what the BMC said
	 * before it is no answer to it (a rollback's Select too: whoever
	 * ends the switch must ask the BMC where its job went) */
	r->jr.bmc_sent = 1;
	r->jr.bmc_current = r->jr.bmc_pending = PCITOPO_LAYOUT_UNKNOWN;
	if (!journal)
		(void)journal_save(r);	/* a rollback's: goes on without */
	else if (journal_need(r))
		return -1;
	fault_point("bmc_select");
	e = bmc_select(r->bmc, l, &sent, err, sizeof(err));
	if (e && !sent) {
		/* refused before it acted (0xC0, 0xD2, another completion
		 * code): the MUX never moved, and the journal says so, so
		 * that the rollback needs no BMC for it */
		r->jr.bmc_sent = was_sent;
		(void)journal_save(r);
	}
	if (e == -EAGAIN)
		r->bmc_gone = true;	/* not ready through the budget */
	if (e && e != -ETIMEDOUT)
		return phase_fail(r, TERR_BMC, "%s", err);
	if (e == -ETIMEDOUT) {
		/* the first cause, before whatever the status then says */
		tlog(LOG_WARNING, "%s; reading the status instead", err);
		snprintf(sel, sizeof(sel), "%.300s; the status then: ", err);
	}
	fault_point("bmc_follow");	/* tests: the Select is out */
	e = bmc_follow(r->bmc, &r->bj, err, sizeof(err));
	r->bmc_gone = e == -EAGAIN;
	if (!e)
		bmc_note(r);
	if (e == -ETIMEDOUT)
		return phase_fail(r, TERR_TIMEOUT, "%s%s", sel, err);
	if (e)
		return phase_fail(r, TERR_BMC, "%s%s", sel, err);
	if (r->bj.state == PT_PLAT_STATE_FAILED)
		return phase_fail(r, TERR_BMC, "%sBMC job %d failed (error %d)",
				  sel, r->bj.job, r->bj.error);
	if (r->bj.state != PT_PLAT_STATE_DONE)
		return phase_fail(r, TERR_BMC, "%sBMC job state %s after select",
				  sel, pt_platform_state_name(r->bj.state));
	if (p->apply == PT_PLAT_APPLY_ONLINE && r->bj.current != l)
		return phase_fail(r, TERR_BMC, "%sBMC job done but current "
				  "layout is %s", sel,
				  ptc_layout_name(r->bj.current));
	if (p->apply == PT_PLAT_APPLY_POWER_CYCLE && r->bj.pending != l &&
	    !(r->bj.current == l && !r->bj.pending))
		return phase_fail(r, TERR_BMC, "%sBMC job done but pending "
				  "layout is %s", sel,
				  ptc_layout_name(r->bj.pending));
	return 0;
}

void bmc_note(struct run *r)
{
	if (r->bj.state == PT_PLAT_STATE_BUSY ||
	    r->bj.state == PT_PLAT_STATE_UNKNOWN)
		return;
	r->jr.bmc_current = r->bj.current;
	r->jr.bmc_pending = r->bj.pending;
}

int do_bmc(struct run *r, const char *name, enum pcitopo_layout l,
		  bool journal)
{
	char waited[TOPOD_MSG_LEN];

	if (phase_begin(r, name, l) && journal_refused(r))
		return -1;
	if (bmc_to(r, l, journal))
		return -1;
	bmc_waited(r->bmc, waited, sizeof(waited));
	phase_post(r, "done", "BMC job %d done: current %s, pending %s%s%s",
		   r->bj.job, ptc_layout_name(r->bj.current),
		   r->bj.pending ? ptc_layout_name(r->bj.pending) : "none",
		   *waited ? "; " : "", waited);
	return 0;
}

int do_reenumerate(struct run *r, const char *name,
			  enum pcitopo_layout l, struct hw_snap *after)
{
	char err[TOPOD_MSG_LEN], slots_msg[80] = "";
	unsigned int had, up;
	bool rescan = r->rescan;
	int e;

	if (phase_begin(r, name, l) && journal_refused(r))
		return -1;
	if (!r->hw && hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err)))
		return phase_fail(r, TERR_INTERNAL, "%s", err);
	had = r->jr.nslots;
	for (unsigned int i = 0; i < had; i++)
		rescan |= r->jr.slots[i].how == TJ_SLOT_LINK;
	if (slots_up(r, &up))
		return -1;
	/*
	 * pciehp enumerates what it powers on: when every slot taken down
	 * came up with its card (the GPUs back on their ports: a rollback of
	 * a MUX that moved nothing, a recovery), a rescan would only take
	 * the lock pciehp enumerates under. A module rescan is needed at once
	 * for what none of that brings back: a cleared Link Disable, a port
	 * detached whose slot was not taken down, and a slot left empty, its
	 * GPU on a port topod did not power on (the MUX's move: in the
	 * emulated server pciehp had not enumerated those 2 s later, the
	 * rescan found them in 0.5 s). Else hw_wait() rescans only if GPUs
	 * are still missing once none has arrived for a while.
	 */
	rescan |= up < had;
	if (rescan) {
		fault_point("hw_rescan");
		if (hw_rescan(r->hw, err, sizeof(err)))
			return phase_fail(r, TERR_INTERNAL, "%s", err);
		r->rescan = false;
	}
	e = hw_wait(r->hw, l, r->plat->layouts[l].gpus,
		    r->plat->reenumerate_ms, rescan ? 0 : REENUM_RESCAN_MS,
		    after, err, sizeof(err));
	if (e == -ETIMEDOUT)
		return phase_fail(r, TERR_TIMEOUT, "devices not back: %s", err);
	if (e)
		return phase_fail(r, TERR_INTERNAL, "%s", err);
	if (had)
		snprintf(slots_msg, sizeof(slots_msg),
			 "; %u of %u slot(s) up (the others empty)", up, had);
	phase_post(r, "done", "%u GPUs, layout %s (generation %llu)%s",
		   after->ngpus, ptc_layout_name(after->layout),
		   (unsigned long long)after->generation, slots_msg);
	return 0;
}

/* The layout, the GPU count, and each GPU's link (max width and speed
 * per GPU index, no new downtrained width) no worse than before the switch
 * (r->before: preflight's snapshot, or the journal's copy of it): on every
 * path, a rollback's and a recovery's too. */
int do_verify(struct run *r, const char *name, enum pcitopo_layout l,
		     const struct hw_snap *after)
{
	unsigned int want = r->plat->layouts[l].gpus;

	/* it only looks: it goes on without a journal */
	(void)phase_begin(r, name, l);
	if (after->layout != l)
		return phase_fail(r, TERR_VERIFY, "the module reports %s (%s) with "
			    "%u GPUs, not %s", ptc_layout_name(after->layout),
			    after->reason, after->ngpus, ptc_layout_name(l));
	if (after->ngpus != want)
		return phase_fail(r, TERR_VERIFY, "%u GPUs, %u expected", after->ngpus,
			    want);
	for (unsigned int i = 0; i < after->ngpus && i < r->before.ngpus; i++) {
		const struct hw_gpu *a = &after->gpus[i], *b = &r->before.gpus[i];

		if (a->link_max_width < b->link_max_width ||
		    a->link_max_speed < b->link_max_speed ||
		    ((a->link_flags & PCITOPO_LINK_F_WIDTH_DOWN) &&
		     !(b->link_flags & PCITOPO_LINK_F_WIDTH_DOWN)))
			return phase_fail(r, TERR_VERIFY,
				    "GPU%d (%s): link x%u %u MT/s%s, was x%u %u MT/s",
				    gpu_number(after, a->addr), a->addr,
				    a->link_max_width,
				    a->link_max_speed,
				    (a->link_flags & PCITOPO_LINK_F_WIDTH_DOWN) ?
				    " downtrained" : "", b->link_max_width,
				    b->link_max_speed);
	}
	/* only a journal of an older topod lacks them */
	if (!r->before.ngpus)
		tlog(LOG_WARNING, "%s: no link figures from before the switch: "
		     "links not checked", name);
	phase_post(r, "done", "layout %s, %u GPUs%s", ptc_layout_name(l),
		   after->ngpus,
		   r->before.ngpus ? ", links as before" : ", links not checked");
	return 0;
}

/*
 * Give each device quiesce unbound (the journal's list: also a dead
 * topod's) its driver back. A device at its old address without a driver
 * is bound to the driver it had; one that is not there any more moved (the
 * kernel offered it to its drivers when it appeared at its new port).
 * What stays without a driver is named in buf; returns how many.
 */
unsigned int rebind(struct run *r, unsigned int *bound, char *buf,
			   size_t len)
{
	unsigned int bad = 0;
	char err[TOPOD_MSG_LEN];
	size_t w = 0;

	*bound = 0;
	*buf = '\0';
	if (!r->jr.nunbound)
		return 0;
	if (!r->hw && hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err))) {
		snprintf(buf, len, "%u GPU driver(s) not bound again: %.300s",
			 r->jr.nunbound, err);
		return r->jr.nunbound;
	}
	for (unsigned int i = 0; i < r->jr.nunbound; i++) {
		const struct tj_dev *d = &r->jr.unbound[i];
		int e;

		fault_point("hw_bind");
		e = hw_bind(r->hw, d->addr, d->driver, err, sizeof(err));
		if (e > 0) {
			(*bound)++;
		} else if (e < 0) {
			tlog(LOG_ERR, "%s", err);
			if (w < len)
				w += (size_t)snprintf(buf + w, len - w, "%s%s",
						      bad ? "; " : "GPU ", err);
			bad++;
		}
	}
	return bad;
}

/*
 * Start again the units quiesce stopped. A switch or a rollback, whose
 * caller waits for it, waits for each start job to end, so that topoctl set
 * returns with the GPU services up (or says which are not); at start
 * (JOB_RECOVER, maybe at boot) the jobs are only queued (units.h says why).
 * A unit that does not start does not put the hardware back: the layout
 * is verified by now, and a second reconfiguration would not mend a
 * service. The phase fails naming the units; r->warn keeps that for the
 * caller, which commits and reports it.
 */
void do_restore(struct run *r, const char *name, enum pcitopo_layout l)
{
	bool wait = r->j->kind != JOB_RECOVER;
	unsigned int started = 0, running = 0, bad = 0, n = r->jr.nunits;
	unsigned int bound, nodrv;
	char err[TOPOD_MSG_LEN], ok[160];
	size_t w = 0;

	/* it puts back what quiesce stopped: with a journal or without */
	(void)phase_begin(r, name, l);
	r->warn[0] = '\0';
	/* drivers before units: a GPU service wants its GPUs driven */
	nodrv = rebind(r, &bound, r->warn, sizeof(r->warn));
	if (nodrv) {
		w = strlen(r->warn);
		bad = 1;	/* what follows is joined with "; " */
	}
	if (n)
		open_units(r);
	for (unsigned int i = 0; i < n; i++) {
		bool was_active;

		if (units_start(&r->units, r->jr.units[i], wait, &was_active,
				err, sizeof(err))) {
			tlog(LOG_ERR, "%s", err);
			if (w < sizeof(r->warn))
				w += (size_t)snprintf(r->warn + w,
						      sizeof(r->warn) - w,
						      "%s%s", bad ? "; " : "",
						      err);
			bad++;
		} else if (was_active) {
			running++;
		} else {
			started++;
		}
	}
	r->jr.nunits = 0;
	(void)journal_save(r);
	bad -= nodrv ? 1 : 0;
	snprintf(ok, sizeof(ok), "%u unit(s) %s", started,
		 wait ? "started" : "start queued");
	if (running)
		snprintf(ok + strlen(ok), sizeof(ok) - strlen(ok),
			 ", %u already running", running);
	if (r->jr.nunbound)
		snprintf(ok + strlen(ok), sizeof(ok) - strlen(ok),
			 ", %u of %u driver(s) bound again", bound,
			 r->jr.nunbound);
	if (bad)
		phase_post(r, "failed", "%s; %u did not start: %s", ok, bad,
			   r->warn);
	else if (nodrv)
		phase_post(r, "failed", "%s; %s", ok, r->warn);
	else
		phase_post(r, "done", "%s", ok);
}

/* Commit r->to. Units restore could not start (r->warn) are no reason to
 * undo a verified layout: they are the commit's LastError and Finished's
 * error, with ok true. A committed state that cannot be written is an
 * error (State failed), the journal kept: the layout is switched and
 * verified, but nothing on disk says so but the journal. */
void finish_ok(struct run *r, const char *msg)
{
	char warn[TOPOD_MSG_LEN + 32] = "", why[TOPOD_MSG_LEN];
	char err[2 * TOPOD_MSG_LEN];

	if (*r->warn)
		snprintf(warn, sizeof(warn), "switched to %s, but %s",
			 ptc_layout_name(r->to), r->warn);
	(void)phase_begin(r, "commit", r->to);
	if (job_commit(r, r->to, warn, why, sizeof(why))) {
		snprintf(err, sizeof(err), "switched to %s and verified, but "
			 "%s", ptc_layout_name(r->to), why);
		phase_fail(r, TERR_INTERNAL, "%.400s", err);
		post_finish(r, r->to, false, TS_FAILED, err);
		return;
	}
	phase_post(r, "done", "%s", msg);
	post_finish(r, r->to, true, TS_IDLE, warn);
}
