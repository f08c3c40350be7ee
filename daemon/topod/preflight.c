// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: preflight, the first phase of a switch and the whole of a dry run
 * (PlanLayout): layout supported, BMC answers and is idle, every GPU
 * present, nobody holds a moving GPU, no port that would change lanes under
 * a live link; then SetLayout is answered. Nothing here acts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "phase.h"

/* The BMC answers its status and runs no job; *ok: it answered. */
static int check_bmc(struct run *r, bool *ok)
{
	struct tplan *pl = r->plan;
	char err[TOPOD_MSG_LEN];

	*ok = false;
	if (!r->bmc && bmc_open(&r->cfg->bmc, r->plat, &r->bmc, err,
				sizeof(err))) {
		r->bmc = NULL;
		if (phase_refuse(r, TERR_BMC, "%s", err))
			return -1;
		if (pl)
			tcopy(pl->bmc_error, sizeof(pl->bmc_error), err);
		return 0;
	}
	/* SetLayout is answered after preflight, its caller waiting (D-Bus's
	 * default: 25 s): a BMC not ready is waited for that long at most */
	bmc_budget(r->bmc, r->plat->bmc_job_ms < PREFLIGHT_BMC_WAIT_MS ?
		   r->plat->bmc_job_ms : PREFLIGHT_BMC_WAIT_MS);
	if (bmc_status(r->bmc, &r->bj, err, sizeof(err))) {
		if (phase_refuse(r, TERR_BMC, "BMC does not answer: %s", err))
			return -1;
		if (pl)
			tcopy(pl->bmc_error, sizeof(pl->bmc_error), err);
		memset(&r->bj, 0, sizeof(r->bj));
		return 0;
	}
	*ok = true;
	/* a layout the BMC cannot be set to is refused here, before anything
	 * moves, not by the BMC once GPUs are stopped (Redfish: the value is
	 * not in its AttributeRegistry) */
	if (r->bj.current != r->to &&
	    bmc_can_select(r->bmc, r->to, err, sizeof(err)) &&
	    phase_refuse(r, TERR_BMC, "%s", err))
		return -1;
	if (r->bj.state == PT_PLAT_STATE_BUSY &&
	    phase_refuse(r, TERR_BMC, "a BMC job (%d) is already running",
			 r->bj.job))
		return -1;
	return 0;
}

/* Nothing moves without a journal on disk: a state dir that cannot take
 * one (full, read-only, not writable) refuses the switch, not even
 * --force, and the dry run says so (checked first, after the layout: its
 * first refusal, SetLayout's answer). */
static int check_state_dir(struct run *r)
{
	int e = tj_check_dir(r->cfg->state_dir);

	/* removed under a running topod (an rm -rf, a cleanup tool): made
	 * again as at start, where systemd's StateDirectory= would make it;
	 * the committed state comes back with this switch's commit */
	if (e == -ENOENT) {
		if (mkdir(r->cfg->state_dir, 0755) < 0 && errno != EEXIST)
			e = -errno;
		else
			e = tj_check_dir(r->cfg->state_dir);
		if (!e)
			tlog(LOG_WARNING, "state dir %s was removed under "
			     "topod: made again", r->cfg->state_dir);
	}
	if (!e)
		return 0;
	return phase_refuse(r, TERR_INTERNAL, "state dir %s: the journal "
			    "cannot be written (%s): nothing moves without it",
			    r->cfg->state_dir, e == -ENOSPC ?
			    "less than 64 KiB free" : strerror(-e));
}

/* Not even --force: the lanes of an online switch would change under a
 * live link where a port can be neither powered off nor link-disabled. */
static int check_lanes(struct run *r)
{
	if (r->plat->apply != PT_PLAT_APPLY_ONLINE || r->from == r->to)
		return 0;
	for (unsigned int i = 0; i < r->nports; i++)
		if (hw_slot_how(r->hw, r->ports[i]) == -EPERM)
			return phase_refuse(r, TERR_UNSUPPORTED, "port %s: %s",
					    r->ports[i], no_link_disable);
	return 0;
}

/* Nobody holds a moving GPU open. With --force nobody is asked; a dry run
 * still says who holds one. */
static int check_holders(struct run *r, bool force)
{
	struct tplan *pl = r->plan;
	char who[TOPOD_MSG_LEN];

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
		    phase_refuse(r, TERR_DEVICE_BUSY, "GPU %s is in use: %s "
				 "(stop it, or --force)", r->devs[i], who))
			return -1;
	}
	return 0;
}

/*
 * Preflight's checks, in SetLayout's order; shared by a switch (the first
 * refusal fails the phase) and a dry run (r->plan: every check that can
 * still run does, and what it found is noted). Nothing here acts: the BMC
 * is asked its status only, the module for a snapshot.
 */
int preflight_checks(struct run *r)
{
	const struct pt_platform *p = r->plat;
	struct tplan *pl = r->plan;
	bool force = r->j->flags & TOPOD_F_FORCE, bmc_ok, hw_ok = false;
	char err[TOPOD_MSG_LEN];
	unsigned int want;

	if (request_supported(p, r->to, err, sizeof(err)) != TERR_OK &&
	    phase_refuse(r, TERR_UNSUPPORTED, "%s", err))
		return -1;
	if (check_state_dir(r))
		return -1;
	/* a switch follows the module's events later; a dry run does not */
	if (hw_open(r->cfg, p, !pl, &r->hw, err, sizeof(err))) {
		r->hw = NULL;
		if (phase_refuse(r, TERR_INTERNAL, "%s", err))
			return -1;
	} else {
		hw_ok = true;
	}
	if (check_bmc(r, &bmc_ok))
		return -1;
	if (hw_ok && hw_snapshot(r->hw, &r->before, err, sizeof(err))) {
		hw_ok = false;
		if (phase_refuse(r, TERR_INTERNAL, "%s", err))
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
	    phase_refuse(r, TERR_VERIFY, "%u of %u GPUs present before the "
			 "switch (--force to switch anyway)", r->before.ngpus,
			 want))
		return -1;
	r->ndevs = (unsigned int)hw_moving(p, &r->before, r->devs,
					   sizeof(r->devs) / sizeof(r->devs[0]),
					   r->ports, TJ_MAX_PORTS, &r->nports);
	if (check_lanes(r))
		return -1;
	return check_holders(r, force);
}

int do_preflight(struct run *r)
{
	char waited[TOPOD_MSG_LEN];

	phase_begin(r, "preflight", r->to);
	if (preflight_checks(r))
		return -1;
	bmc_waited(r->bmc, waited, sizeof(waited));
	phase_post(r, "done", "from %s to %s; %u GPUs, %u move; BMC %s%s%s",
		   ptc_layout_name(r->from), ptc_layout_name(r->to),
		   r->before.ngpus, r->ndevs, bmc_name(r->bmc),
		   *waited ? "; " : "", waited);
	return 0;
}
