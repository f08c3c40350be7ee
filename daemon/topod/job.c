// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: one switch, phase by phase, in the worker thread.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bmc.h"
#include "hostside.h"
#include "units.h"

struct run {
	struct tjob *j;
	const struct tconfig *cfg;
	const struct pt_platform *plat;
	struct bmc *bmc;
	struct hw *hw;
	struct units units;
	bool units_open;
	struct tj_job jr;		/* the journal being kept */
	struct hw_snap before;
	struct pt_plat_job bj;		/* last BMC status */
	enum pcitopo_layout from, to;
	char phase[TJ_PHASE_LEN];
	enum pcitopo_layout phase_layout;
	uint64_t t0;
	enum terr terr;
	char err[TOPOD_MSG_LEN];
	char warn[TOPOD_MSG_LEN];	/* units restore could not start */
	char devs[TPLAN_MAX_GPUS][PCITOPO_ADDR_LEN];
	unsigned int ndevs;
	char ports[TJ_MAX_PORTS][PCITOPO_ADDR_LEN];	/* the devs hang from */
	unsigned int nports;
	bool rescan;			/* a detached port no slot power-on
					 * enumerates again (slots_down) */
	struct tplan *plan;		/* a dry run: check, note, never act */
};

/* A port with no hotplug slot gets its link disabled (Link Control), which
 * reads the config space past 64 bytes: the kernel allows that only with
 * CAP_SYS_ADMIN, and the shipped unit withholds it (systemd/topod.service).
 * Without it the lanes would change under a live link: refused. */
static const char no_link_disable[] =
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

static void post_phase(struct run *r, const char *status, const char *fmt,
		       ...) __attribute__((format(printf, 3, 4)));
static void post_phase(struct run *r, const char *status, const char *fmt,
		       ...)
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

static void journal_save(struct run *r)
{
	int e;

	if (r->jr.state == TJ_NONE || r->plan)
		return;
	e = tj_job_write(r->cfg->state_dir, &r->jr);
	if (e)
		tlog(LOG_ERR, "journal %s/%s: %s", r->cfg->state_dir,
		     TJ_JOB_FILE, strerror(-e));
}

static void phase(struct run *r, const char *name, enum pcitopo_layout l)
{
	snprintf(r->phase, sizeof(r->phase), "%s", name);
	r->phase_layout = l;
	r->t0 = now_usec();
	snprintf(r->jr.phase, sizeof(r->jr.phase), "%s", name);
	journal_save(r);
	post_phase(r, "started", "%s", "");
	fault_point(name);	/* tests: a crash with the journal written */
}

/* The GPUs and links before the switch, into the journal and back: a
 * recovery verifies against what was there before, not what it finds. */
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

/*
 * GPUn: the nth GPU in bus order (hw_snapshot()'s order, the module's
 * numbering and nvidia-smi's); -1 if addr is none of s's GPUs. The one place
 * here that numbers GPUs, so that the library's rule can replace it.
 */
static int gpu_number(const struct hw_snap *s, const char *addr)
{
	for (unsigned int i = 0; i < s->ngpus; i++)
		if (!strcmp(s->gpus[i].addr, addr))
			return (int)i;
	return -1;
}

/* Fail the phase: sets r->terr/err, announces it, returns -1. */
static int fail(struct run *r, enum terr e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct run *r, enum terr e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->terr = e;
	post_phase(r, "failed", "%s", r->err);
	return -1;
}

/* A check of preflight says no. A switch fails the phase there (-1); a dry
 * run notes the first refusal (what SetLayout would answer) and goes on
 * checking (0). */
static int refuse(struct run *r, enum terr e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(struct run *r, enum terr e, const char *fmt, ...)
{
	struct tplan *pl = r->plan;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->terr = e;
	if (!pl) {
		post_phase(r, "failed", "%s", r->err);
		return -1;
	}
	if (pl->err == TERR_OK) {
		pl->err = e;
		tcopy(pl->msg, sizeof(pl->msg), r->err);
	}
	return 0;
}

static void post_state(struct run *r, enum tstate s, enum pcitopo_layout p)
{
	struct tmsg m = { .type = TM_STATE, .state = s, .pending = p };

	job_post(r->j, &m);
}

static void post_accept(struct run *r, enum terr e, const char *text)
{
	struct tmsg m = { .type = TM_ACCEPT, .err = e };

	snprintf(m.text, sizeof(m.text), "%s", text);
	job_post(r->j, &m);
}

static void post_finish(struct run *r, enum pcitopo_layout l, bool ok,
			enum tstate s, const char *error)
{
	struct tmsg m = { .type = TM_FINISH, .layout = l, .ok = ok,
			  .state = s };

	tcopy(m.text, sizeof(m.text), error);
	job_post(r->j, &m);
}

static void commit(struct run *r, enum pcitopo_layout l, const char *error)
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
	e = tj_committed_write(r->cfg->state_dir, &c);
	if (e)
		tlog(LOG_ERR, "committed state: %s", strerror(-e));
	e = tj_job_remove(r->cfg->state_dir);
	if (e)
		tlog(LOG_ERR, "journal: %s", strerror(-e));
	r->jr.state = TJ_NONE;
	fault_point("committed");	/* tests: done, Finished not sent */
}

/* --- phases ------------------------------------------------------------ */

static int open_bmc(struct run *r)
{
	char err[TOPOD_MSG_LEN];

	if (r->bmc)
		return 0;
	if (bmc_open(&r->cfg->bmc, r->plat, &r->bmc, err, sizeof(err)))
		return fail(r, TERR_BMC, "%s", err);
	return 0;
}

/*
 * Preflight's checks, in SetLayout's order; shared by a switch (the first
 * refusal fails the phase) and a dry run (r->plan: every check that can
 * still run does, and what it found is noted). Nothing here acts: the BMC
 * is asked its status only, the module for a snapshot.
 */
static int preflight_checks(struct run *r)
{
	const struct pt_platform *p = r->plat;
	struct tplan *pl = r->plan;
	bool force = r->j->flags & TOPOD_F_FORCE, bmc_ok = false, hw_ok = false;
	char err[TOPOD_MSG_LEN], who[TOPOD_MSG_LEN];
	unsigned int want;

	if (request_supported(p, r->to, err, sizeof(err)) != TERR_OK &&
	    refuse(r, TERR_UNSUPPORTED, "%s", err))
		return -1;
	/* a switch follows the module's events later; a dry run does not */
	if (hw_open(r->cfg, p, !pl, &r->hw, err, sizeof(err))) {
		r->hw = NULL;
		if (refuse(r, TERR_INTERNAL, "%s", err))
			return -1;
	} else {
		hw_ok = true;
	}
	if (!r->bmc && bmc_open(&r->cfg->bmc, p, &r->bmc, err, sizeof(err))) {
		r->bmc = NULL;
		if (refuse(r, TERR_BMC, "%s", err))
			return -1;
		if (pl)
			tcopy(pl->bmc_error, sizeof(pl->bmc_error), err);
	} else if (bmc_status(r->bmc, &r->bj, err, sizeof(err))) {
		if (refuse(r, TERR_BMC, "BMC does not answer: %s", err))
			return -1;
		if (pl)
			tcopy(pl->bmc_error, sizeof(pl->bmc_error), err);
		memset(&r->bj, 0, sizeof(r->bj));
	} else {
		bmc_ok = true;
		if (r->bj.state == PT_PLAT_STATE_BUSY &&
		    refuse(r, TERR_BMC, "a BMC job (%d) is already running",
			   r->bj.job))
			return -1;
	}
	if (hw_ok && hw_snapshot(r->hw, &r->before, err, sizeof(err))) {
		hw_ok = false;
		if (refuse(r, TERR_INTERNAL, "%s", err))
			return -1;
	}
	if (pl) {
		pl->bmc_ok = bmc_ok;
		pl->bj = r->bj;
		pl->hw_ok = hw_ok;
	}
	if (!hw_ok) {
		r->from = r->bj.current;
		return 0;	/* a dry run: nothing more to look at */
	}
	r->from = r->bj.current ? r->bj.current : r->before.layout;
	if (r->before.layout != r->bj.current && !pl)
		tlog(LOG_WARNING, "the module reports %s, the BMC %s",
		     ptc_layout_name(r->before.layout),
		     ptc_layout_name(r->bj.current));
	want = r->from && p->layouts[r->from].present ?
	       p->layouts[r->from].gpus : p->layouts[r->to].gpus;
	if (pl) {
		pl->module_layout = r->before.layout;
		pl->gpus = r->before.ngpus;
		pl->gpus_expected = want;
	}
	if (r->before.ngpus < want && !force &&
	    refuse(r, TERR_VERIFY, "%u of %u GPUs present before the switch "
		   "(--force to switch anyway)", r->before.ngpus, want))
		return -1;
	r->ndevs = (unsigned int)hw_moving(p, &r->before, r->devs,
					   sizeof(r->devs) / sizeof(r->devs[0]),
					   r->ports, TJ_MAX_PORTS, &r->nports);
	/* not even --force: the lanes would change under a live link */
	for (unsigned int i = 0; p->apply == PT_PLAT_APPLY_ONLINE &&
	     r->from != r->to && i < r->nports; i++)
		if (hw_slot_how(r->hw, r->ports[i]) == -EPERM) {
			if (refuse(r, TERR_UNSUPPORTED, "port %s: %s",
				   r->ports[i], no_link_disable))
				return -1;
			break;
		}
	/* with --force nobody is asked; a dry run still says who holds one */
	for (unsigned int i = 0; i < r->ndevs && (!force || pl); i++) {
		struct holder h[TPLAN_MAX_HOLDERS];
		int n = holders_list(r->devs[i], -1, h, TPLAN_MAX_HOLDERS);
		unsigned int shown = n < TPLAN_MAX_HOLDERS ?
				     (unsigned int)n : TPLAN_MAX_HOLDERS;

		if (!n)
			continue;
		for (unsigned int k = 0; pl && k < shown &&
		     pl->nholders < TPLAN_MAX_HOLDERS; k++) {
			pl->holders[pl->nholders] = h[k];
			memcpy(pl->holder_gpu[pl->nholders++], r->devs[i],
			       PCITOPO_ADDR_LEN);
		}
		holders_format(h, shown, who, sizeof(who));
		if (!force &&
		    refuse(r, TERR_DEVICE_BUSY, "GPU %s is in use: %s (stop it, "
			   "or --force)", r->devs[i], who))
			return -1;
	}
	return 0;
}

static int do_preflight(struct run *r)
{
	phase(r, "preflight", r->to);
	if (preflight_checks(r))
		return -1;
	post_phase(r, "done", "from %s to %s; %u GPUs, %u move; BMC %s",
		   ptc_layout_name(r->from), ptc_layout_name(r->to),
		   r->before.ngpus, r->ndevs, bmc_name(r->bmc));
	return 0;
}

/* units.c on the worker's own connection; without systemd none is active */
static void open_units(struct run *r)
{
	if (r->units_open)
		return;
	if (units_open(&r->units) < 0)
		r->units.systemd = false;
	r->units_open = true;
}

/* quiesce stops the platform's unit i: it is active now */
/* 1 if the platform's unit i runs (and so is to be stopped), 0 if not,
 * -errno when systemd cannot tell */
static int unit_to_stop(struct run *r, unsigned int i)
{
	bool active;
	int e = units_is_active(&r->units, r->plat->units[i], &active);

	return e < 0 ? e : active;
}

static int do_quiesce(struct run *r)
{
	char err[TOPOD_MSG_LEN];
	unsigned int stopped = 0, unbound = 0;

	phase(r, "quiesce", r->to);
	open_units(r);
	for (unsigned int i = 0; i < r->plat->nunits; i++) {
		int e = unit_to_stop(r, i);

		/* a unit that may run is never left running by a guess */
		if (e < 0)
			return fail(r, TERR_DEVICE_BUSY, "cannot tell whether "
				    "%s runs: %s", r->plat->units[i],
				    strerror(-e));
		if (!e)
			continue;
		/* journal first: a crash after the stop restarts it */
		snprintf(r->jr.units[r->jr.nunits++], TJ_UNIT_LEN, "%s",
			 r->plat->units[i]);
		journal_save(r);
		if (units_stop(&r->units, r->plat->units[i], err, sizeof(err)))
			return fail(r, TERR_DEVICE_BUSY, "%s", err);
		stopped++;
	}
	for (unsigned int i = 0; i < r->ndevs && r->plat->apply ==
	     PT_PLAT_APPLY_ONLINE; i++) {
		char drv[TJ_DRV_LEN];
		bool known = false;
		int e = hw_driver(r->hw, r->devs[i], drv, sizeof(drv));

		if (e < 0)
			return fail(r, TERR_DEVICE_BUSY, "driver of %s: %s",
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
				return fail(r, TERR_INTERNAL, "more than %u "
					    "drivers to unbind", TJ_MAX_DEVS);
			d = &r->jr.unbound[r->jr.nunbound++];
			tcopy(d->addr, sizeof(d->addr), r->devs[i]);
			tcopy(d->driver, sizeof(d->driver), drv);
			journal_save(r);
		}
		fault_point("hw_unbind");
		e = hw_unbind(r->hw, r->devs[i], err, sizeof(err));
		if (e < 0)
			return fail(r, TERR_DEVICE_BUSY, "%s", err);
		unbound += (unsigned int)e;
	}
	if (r->plat->apply == PT_PLAT_APPLY_ONLINE)
		post_phase(r, "done", "%u unit(s) stopped%s, %u driver(s) "
			   "unbound", stopped, r->units.systemd ? "" :
			   " (systemd not on the bus)", unbound);
	else
		post_phase(r, "done", "%u unit(s) stopped%s", stopped,
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
static int slots_down(struct run *r, char ports[][PCITOPO_ADDR_LEN],
		      unsigned int nports, unsigned int *n)
{
	char err[TOPOD_MSG_LEN];
	struct tj_slot act[TJ_MAX_PORTS];

	*n = 0;
	for (unsigned int i = 0; i < nports && i < TJ_MAX_PORTS; i++) {
		int how = hw_slot_how(r->hw, ports[i]);
		bool known = false;

		if (how == -EPERM)
			return fail(r, TERR_UNSUPPORTED, "%s", no_link_disable);
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
	journal_save(r);
	fault_point("hw_slot_down");
	if (hw_slots_down(r->hw, act, *n, err, sizeof(err))) {
		r->rescan = true;	/* detached, and maybe still powered */
		return fail(r, TERR_INTERNAL, "%s", err);
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
		return fail(r, TERR_INTERNAL, "%s", err);
	fault_point("hw_slot_up");
	if (hw_slots_up(r->hw, r->jr.slots, r->jr.nslots, n, err, sizeof(err)))
		tlog(LOG_WARNING, "%s", err);
	r->jr.nslots = 0;
	journal_save(r);
	return 0;
}

static int do_detach(struct run *r)
{
	char err[TOPOD_MSG_LEN];
	unsigned int nports, down;
	char devs[TJ_MAX_PORTS][PCITOPO_ADDR_LEN];

	phase(r, "detach", r->to);
	(void)hw_moving(r->plat, &r->before, devs, TJ_MAX_PORTS, r->jr.ports,
			TJ_MAX_PORTS, &nports);
	r->jr.nports = nports;
	journal_save(r);
	for (unsigned int i = 0; i < nports; i++) {
		fault_point("hw_detach");
		if (hw_detach(r->hw, r->jr.ports[i], err, sizeof(err)))
			return fail(r, TERR_INTERNAL, "%s", err);
	}
	if (slots_down(r, r->jr.ports, nports, &down))
		return -1;
	post_phase(r, "done", "%u port(s) detached, %u slot(s) taken down",
		   nports, down);
	return 0;
}

/* Select l and follow it to done; on power-cycle platforms l becomes
 * pending (or, for the current layout, nothing is pending any more). */
static int bmc_to(struct run *r, enum pcitopo_layout l, bool journal)
{
	const struct pt_platform *p = r->plat;
	char err[TOPOD_MSG_LEN];
	int sent = 0, e;

	if (open_bmc(r))
		return -1;
	if (journal) {
		r->jr.bmc_sent = 1;
		journal_save(r);
	}
	fault_point("bmc_select");
	e = bmc_select(r->bmc, l, &sent, err, sizeof(err));
	if (e && e != -ETIMEDOUT)
		return fail(r, TERR_BMC, "%s", err);
	if (e == -ETIMEDOUT)
		tlog(LOG_WARNING, "%s; reading the status instead", err);
	fault_point("bmc_follow");	/* tests: the Select is out */
	e = bmc_follow(r->bmc, p->bmc_job_ms, &r->bj, err, sizeof(err));
	if (e == -ETIMEDOUT)
		return fail(r, TERR_TIMEOUT, "%s", err);
	if (e)
		return fail(r, TERR_BMC, "%s", err);
	if (r->bj.state == PT_PLAT_STATE_FAILED)
		return fail(r, TERR_BMC, "BMC job %d failed (error %d)",
			    r->bj.job, r->bj.error);
	if (r->bj.state != PT_PLAT_STATE_DONE)
		return fail(r, TERR_BMC, "BMC job state %s after select",
			    pt_platform_state_name(r->bj.state));
	if (p->apply == PT_PLAT_APPLY_ONLINE && r->bj.current != l)
		return fail(r, TERR_BMC, "BMC job done but current layout is %s",
			    ptc_layout_name(r->bj.current));
	if (p->apply == PT_PLAT_APPLY_POWER_CYCLE && r->bj.pending != l &&
	    !(r->bj.current == l && !r->bj.pending))
		return fail(r, TERR_BMC, "BMC job done but pending layout is %s",
			    ptc_layout_name(r->bj.pending));
	return 0;
}

static int do_bmc(struct run *r, const char *name, enum pcitopo_layout l,
		  bool journal)
{
	phase(r, name, l);
	if (bmc_to(r, l, journal))
		return -1;
	post_phase(r, "done", "BMC job %d done: current %s, pending %s",
		   r->bj.job, ptc_layout_name(r->bj.current),
		   r->bj.pending ? ptc_layout_name(r->bj.pending) : "none");
	return 0;
}

/* GPUs missing and none arriving for this long: pciehp is not bringing
 * them (it enumerates a slot within ~1.1 s of powering it on: up to 1 s
 * for the link, then 100 ms), a rescan may. */
#define REENUM_RESCAN_MS	2000

static int do_reenumerate(struct run *r, const char *name,
			  enum pcitopo_layout l, struct hw_snap *after)
{
	char err[TOPOD_MSG_LEN], slots_msg[80] = "";
	unsigned int had, up;
	bool rescan = r->rescan;
	int e;

	phase(r, name, l);
	if (!r->hw && hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err)))
		return fail(r, TERR_INTERNAL, "%s", err);
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
			return fail(r, TERR_INTERNAL, "%s", err);
		r->rescan = false;
	}
	e = hw_wait(r->hw, l, r->plat->layouts[l].gpus,
		    r->plat->reenumerate_ms, rescan ? 0 : REENUM_RESCAN_MS,
		    after, err, sizeof(err));
	if (e == -ETIMEDOUT)
		return fail(r, TERR_TIMEOUT, "devices not back: %s", err);
	if (e)
		return fail(r, TERR_INTERNAL, "%s", err);
	if (had)
		snprintf(slots_msg, sizeof(slots_msg),
			 "; %u of %u slot(s) up (the others empty)", up, had);
	post_phase(r, "done", "%u GPUs, layout %s (generation %llu)%s",
		   after->ngpus, ptc_layout_name(after->layout),
		   (unsigned long long)after->generation, slots_msg);
	return 0;
}

/* The layout, the GPU count, and each GPU's link (max width and speed
 * per GPU index, no new downtrained width) no worse than before the switch
 * (r->before: preflight's snapshot, or the journal's copy of it): on every
 * path, a rollback's and a recovery's too. */
static int do_verify(struct run *r, const char *name, enum pcitopo_layout l,
		     const struct hw_snap *after)
{
	unsigned int want = r->plat->layouts[l].gpus;

	phase(r, name, l);
	if (after->layout != l)
		return fail(r, TERR_VERIFY, "the module reports %s (%s) with "
			    "%u GPUs, not %s", ptc_layout_name(after->layout),
			    after->reason, after->ngpus, ptc_layout_name(l));
	if (after->ngpus != want)
		return fail(r, TERR_VERIFY, "%u GPUs, %u expected", after->ngpus,
			    want);
	for (unsigned int i = 0; i < after->ngpus && i < r->before.ngpus; i++) {
		const struct hw_gpu *a = &after->gpus[i], *b = &r->before.gpus[i];

		if (a->link_max_width < b->link_max_width ||
		    a->link_max_speed < b->link_max_speed ||
		    ((a->link_flags & PCITOPO_LINK_F_WIDTH_DOWN) &&
		     !(b->link_flags & PCITOPO_LINK_F_WIDTH_DOWN)))
			return fail(r, TERR_VERIFY,
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
	post_phase(r, "done", "layout %s, %u GPUs%s", ptc_layout_name(l),
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
static unsigned int rebind(struct run *r, unsigned int *bound, char *buf,
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
static void do_restore(struct run *r, const char *name, enum pcitopo_layout l)
{
	bool wait = r->j->kind != JOB_RECOVER;
	unsigned int started = 0, running = 0, bad = 0, n = r->jr.nunits;
	unsigned int bound, nodrv;
	char err[TOPOD_MSG_LEN], ok[160];
	size_t w = 0;

	phase(r, name, l);
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
	journal_save(r);
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
		post_phase(r, "failed", "%s; %u did not start: %s", ok, bad,
			   r->warn);
	else if (nodrv)
		post_phase(r, "failed", "%s; %s", ok, r->warn);
	else
		post_phase(r, "done", "%s", ok);
}

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
		return fail(r, TERR_INTERNAL, "%s", err);
	if (hw_snapshot(r->hw, &now, err, sizeof(err)))
		return fail(r, TERR_INTERNAL, "%s", err);
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
			return fail(r, TERR_INTERNAL, "more than %u ports to "
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
	journal_save(r);
	for (unsigned int i = 0; i < np; i++) {
		fault_point("hw_detach");
		if (hw_detach(r->hw, ports[i], err, sizeof(err)))
			return fail(r, TERR_INTERNAL, "%s", err);
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

/* Back to r->from after a failure (r->err says why; why_prefix, if any,
 * goes before it: together they are the first cause, kept to the end). */
static void rollback(struct run *r, const char *why_prefix)
{
	char first[TOPOD_MSG_LEN + 64], err[TOPOD_MSG_LEN + 256],
	     err2[TOPOD_MSG_LEN], drv[TOPOD_MSG_LEN];
	enum terr first_e = r->terr;
	struct hw_snap after;
	enum pcitopo_layout l = r->from;
	unsigned int ndet = 0, bound;
	int e;

	snprintf(first, sizeof(first), "%s%s", why_prefix, r->err);
	tlog(LOG_WARNING, "rolling back to %s: %s", ptc_layout_name(l), first);
	r->jr.state = TJ_ROLLING_BACK;
	tcopy(r->jr.error, sizeof(r->jr.error), first);
	r->jr.rollback_failed = 0;
	r->jr.rollback_error[0] = '\0';
	journal_save(r);
	post_state(r, TS_ROLLING_BACK, PCITOPO_LAYOUT_UNKNOWN);

	if (!l || !r->plat->layouts[l].present) {
		snprintf(r->err, sizeof(r->err), "old layout unknown");
		goto failed;
	}
	phase(r, "rollback-bmc", l);
	if (open_bmc(r))
		goto failed;
	/* a job still running (a hung Select) must end first */
	e = bmc_follow(r->bmc, r->plat->bmc_job_ms, &r->bj, err, sizeof(err));
	if (e) {
		fail(r, e == -ETIMEDOUT ? TERR_TIMEOUT : TERR_BMC, "%s", err);
		goto failed;
	}
	/* slots still down (the Select failed or never went out): the old
	 * layout is selected again before they come up, so that the lanes
	 * are surely where it has them (a MUX at l moves nothing; the
	 * emulated one puts back the devices QEMU dropped at power off).
	 * Not when this rollback's own Select had completed before topod
	 * stopped (its journal past rollback-bmc, the BMC at l): a BMC
	 * command is sent once. */
	if (r->bj.current != l || (r->bj.pending && r->bj.pending != l) ||
	    (r->jr.nslots && !rollback_selected(r))) {
		if (detach_moved(r, &ndet) || bmc_to(r, l, false))
			goto failed;
		post_phase(r, "done", "BMC job %d done: current %s%s",
			   r->bj.job, ptc_layout_name(r->bj.current),
			   ndet ? " (the moved GPUs' ports detached first)" : "");
	} else {
		post_phase(r, "done", "BMC still at %s: nothing to select",
			   ptc_layout_name(l));
	}
	if (do_reenumerate(r, "rollback-reenumerate", l, &after) ||
	    do_verify(r, "rollback-verify", l, &after))
		goto failed;
	do_restore(r, "rollback-restore", l);
	if (*r->warn)
		snprintf(first + strlen(first), sizeof(first) - strlen(first),
			 "; rolled back to %s, but %.200s", ptc_layout_name(l),
			 r->warn);
	fault_point("rollback-commit");	/* tests: verified, not committed */
	commit(r, l, first);
	r->terr = first_e;
	tcopy(r->err, sizeof(r->err), first);
	post_finish(r, r->to, false, TS_IDLE, first);
	return;
failed:
	snprintf(err, sizeof(err), "%.300s; rollback to %s failed: %.180s",
		 first, ptc_layout_name(l), r->err);
	tlog(LOG_CRIT, "%s", err);
	/* the journal stays, saying so: the next start tries again, and
	 * knows that topod did not stop here, its rollback failed */
	r->jr.rollback_failed = 1;
	tcopy(r->jr.rollback_error, sizeof(r->jr.rollback_error), r->err);
	journal_save(r);
	fault_point("rollback-failed");	/* tests: marked, nothing rebound */
	/* whatever the layout now, no GPU stays detached (nor its slot down) */
	if (r->hw || !hw_open(r->cfg, r->plat, true, &r->hw, err2, sizeof(err2))) {
		struct hw_snap now;
		unsigned int up;

		if (r->jr.nslots &&
		    hw_slots_up(r->hw, r->jr.slots, r->jr.nslots, &up, err2,
				sizeof(err2)))
			tlog(LOG_ERR, "%s", err2);
		fault_point("hw_rescan");
		if (hw_rescan(r->hw, err2, sizeof(err2)))
			tlog(LOG_ERR, "%s", err2);
		else if (!hw_snapshot(r->hw, &now, err2, sizeof(err2)))
			tlog(LOG_NOTICE, "after a rescan: layout %s, %u GPUs",
			     ptc_layout_name(now.layout), now.ngpus);
	}
	/* and none stays without its driver where it can have it */
	if (rebind(r, &bound, drv, sizeof(drv)))
		snprintf(err + strlen(err), sizeof(err) - strlen(err),
			 "; %.200s", drv);
	{
		struct tj_committed c;

		if (tj_committed_read(r->cfg->state_dir, &c))
			memset(&c, 0, sizeof(c));
		tcopy(c.last_error, sizeof(c.last_error), err);
		(void)tj_committed_write(r->cfg->state_dir, &c);
	}
	post_finish(r, r->to, false, TS_FAILED, err);
}

/* --- jobs -------------------------------------------------------------- */

/* Commit r->to. Units restore could not start (r->warn) are no reason to
 * undo a verified layout: they are the commit's LastError and Finished's
 * error, with ok true. */
static void finish_ok(struct run *r, const char *msg)
{
	char warn[TOPOD_MSG_LEN + 32] = "";

	if (*r->warn)
		snprintf(warn, sizeof(warn), "switched to %s, but %s",
			 ptc_layout_name(r->to), r->warn);
	phase(r, "commit", r->to);
	commit(r, r->to, warn);
	post_phase(r, "done", "%s", msg);
	post_finish(r, r->to, true, TS_IDLE, warn);
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
	char err[TOPOD_MSG_LEN];
	int e;

	if (do_quiesce(r))
		goto undo;
	phase(r, "power-cycle", r->to);
	e = bmc_power_cycle(r->bmc, err, sizeof(err));
	if (e && e != -ETIMEDOUT) {
		fail(r, TERR_BMC, "%s", err);
		goto undo;
	}
	post_phase(r, "done",
		   "power cycle requested; topod finishes the switch to %s "
		   "when the host is up again", ptc_layout_name(r->to));
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
	journal_save(r);
	post_state(r, TS_AWAITING_POWER_CYCLE, r->to);
	if (r->j->flags & TOPOD_F_POWER_CYCLE) {
		power_cycle(r);
		return;
	}
	phase(r, "pending", r->to);
	post_phase(r, "done",
		   "%s takes effect at the next power cycle (topoctl set %s "
		   "--power-cycle)", ptc_layout_name(r->to),
		   ptc_layout_name(r->to));
	post_finish(r, r->to, true, TS_AWAITING_POWER_CYCLE, "");
}

static const char *const outcome_names[] = {
	[TO_UNKNOWN] = "",
	[TO_NONE] = "none",
	[TO_ONLINE] = "online",
	[TO_PENDING] = "pending",
	[TO_POWER_CYCLE] = "power-cycle",
	[TO_CLEAR_PENDING] = "clear-pending",
};

const char *toutcome_name(enum toutcome o)
{
	return (unsigned int)o < sizeof(outcome_names) / sizeof(outcome_names[0]) ?
	       outcome_names[o] : "";
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
	journal_save(r);
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

/* At start, after a power cycle that should have applied r->to. */
static void recover_power_cycle(struct run *r)
{
	char err[TOPOD_MSG_LEN];
	struct hw_snap after;

	before_from_journal(r);
	post_state(r, TS_SWITCHING, r->to);
	phase(r, "reenumerate", r->to);
	if (hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err))) {
		fail(r, TERR_INTERNAL, "%s", err);
		goto failed;
	}
	if (open_bmc(r))
		goto failed;
	if (bmc_status(r->bmc, &r->bj, err, sizeof(err))) {
		fail(r, TERR_BMC, "%s", err);
		goto failed;
	}
	if (r->bj.pending == r->to && r->bj.current != r->to) {
		/* no power cycle yet: still pending */
		post_phase(r, "done", "%s still pending: no power cycle yet",
			   ptc_layout_name(r->to));
		do_restore(r, "restore", r->to);
		post_state(r, TS_AWAITING_POWER_CYCLE, r->to);
		return;
	}
	/* the boot enumerated everything: no rescan */
	if (hw_wait(r->hw, r->to, r->plat->layouts[r->to].gpus,
		    r->plat->reenumerate_ms, 0, &after, err, sizeof(err))) {
		fail(r, TERR_VERIFY, "after the power cycle: %s", err);
		goto failed;
	}
	post_phase(r, "done", "%u GPUs, layout %s", after.ngpus,
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
		commit(r, PCITOPO_LAYOUT_UNKNOWN, msg);
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
	struct hw_snap after;
	int e;

	before_from_journal(r);
	post_state(r, r->jr.state == TJ_ROLLING_BACK ? TS_ROLLING_BACK :
		   TS_SWITCHING, PCITOPO_LAYOUT_UNKNOWN);
	phase(r, "recover", r->to);
	if (hw_open(r->cfg, r->plat, true, &r->hw, err, sizeof(err))) {
		fail(r, TERR_INTERNAL, "%s", err);
		goto rollback;
	}
	/* nothing stays detached */
	fault_point("hw_rescan");
	if (hw_rescan(r->hw, err, sizeof(err)))
		tlog(LOG_ERR, "%s", err);
	if (open_bmc(r))
		goto rollback;
	e = bmc_follow(r->bmc, r->plat->bmc_job_ms, &r->bj, err, sizeof(err));
	if (e) {
		fail(r, e == -ETIMEDOUT ? TERR_TIMEOUT : TERR_BMC, "%s", err);
		goto rollback;
	}
	interrupted_cause(r, true, cause, sizeof(cause));
	if (r->jr.state == TJ_SWITCHING && r->jr.bmc_sent &&
	    r->plat->apply == PT_PLAT_APPLY_ONLINE &&
	    r->bj.state == PT_PLAT_STATE_DONE && r->bj.current == r->to) {
		post_phase(r, "done", "the Select went through: finishing "
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
	fail(r, TERR_INTERNAL, "%s", cause);
	rollback(r, "");
	return;
rollback:
	/* the recovery's own error comes after what the journal says */
	interrupted_cause(r, false, cause, sizeof(cause));
	snprintf(prefix, sizeof(prefix), "%s; at start: ", cause);
	rollback(r, prefix);
}

static void run_recover(struct run *r)
{
	r->jr = r->j->journal;
	r->from = r->jr.from;
	r->to = r->jr.to;
	tlog(LOG_NOTICE, "journal: %s switch %s -> %s, last phase %s",
	     tj_state_name(r->jr.state), ptc_layout_name(r->from),
	     ptc_layout_name(r->to), r->jr.phase);
	if (r->jr.state == TJ_AWAITING_POWER_CYCLE)
		recover_power_cycle(r);
	else
		recover_interrupted(r);
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
