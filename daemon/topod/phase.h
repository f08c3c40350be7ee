/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: the phase layer of a switch, shared by its parts, each in its own
 * file and all in the job's one worker thread (or a dry run's):
 *
 *   job.c        orchestration: which phases a switch runs, in which
 *                order, what its outcome is; the dry run; the thread
 *   preflight.c  preflight's checks (a switch's and a dry run's)
 *   phases.c     quiesce, detach, bmc, reenumerate, verify, restore,
 *                commit
 *   rollback.c   back to the old layout after a failure
 *   recover.c    at start: the journal of a switch in flight
 *   phase.c      this layer: a phase begun (journalled first, announced,
 *                a fault point for the tests), failed or refused, the
 *                worker's messages, the commit, the BMC and systemd
 *                opened once per job
 *
 * Every phase journals what it is about to do before it does it, so that
 * whoever ends the switch (this thread, or the next start after a crash)
 * can undo it.
 */
#ifndef PCITOPO_TOPOD_PHASE_H
#define PCITOPO_TOPOD_PHASE_H

#include "bmc.h"
#include "hostside.h"
#include "topod.h"
#include "units.h"

/* One job (a switch, a dry run, a recovery) in its thread. */
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
	char jerr[TOPOD_MSG_LEN];	/* the journal not written: why */
	char devs[TPLAN_MAX_GPUS][PCITOPO_ADDR_LEN];
	unsigned int ndevs;
	char ports[TJ_MAX_PORTS][PCITOPO_ADDR_LEN];	/* the devs hang from */
	unsigned int nports;
	bool rescan;			/* a detached port no slot power-on
					 * enumerates again (slots_down) */
	struct tplan *plan;		/* a dry run: check, note, never act */
	bool bmc_gone;			/* the last BMC failure: it did not
					 * answer (open failed, or still not
					 * ready after the budget), not a no */
};

/* GPUs missing and none arriving for this long: pciehp is not bringing
 * them (it enumerates a slot within ~1.1 s of powering it on: up to 1 s
 * for the link, then 100 ms), a rescan may. */
#define REENUM_RESCAN_MS	2000

/* Preflight waits for a BMC not ready at most this long (or the
 * platform's bmc_job_ms, if less): SetLayout's caller waits for its
 * answer, D-Bus's default timeout is 25 s. */
#define PREFLIGHT_BMC_WAIT_MS	10000

/* phase.c: the layer */
/* Phase name (for l) begins: the journal says so first, then the Phase
 * signal, then the tests' fault point of that name. 0, or the journal's
 * -errno (journal_save()): a phase that acts then asks journal_refused(). */
int phase_begin(struct run *r, const char *name, enum pcitopo_layout l);
/* The phase's Phase signal (status started | done | failed); none in a
 * dry run. */
void phase_post(struct run *r, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Fail the phase: sets r->terr/err, announces it, returns -1. */
int phase_fail(struct run *r, enum terr e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A check of preflight says no. A switch fails the phase there (-1); a dry
 * run notes the first refusal (what SetLayout would answer) and goes on
 * checking (0). */
int phase_refuse(struct run *r, enum terr e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The journal rewritten as r->jr says (not in a dry run, nor without
 * one): 0, or -errno, logged, with r->jerr saying what could not be
 * written and why. */
int journal_save(struct run *r);
/* After a journal that could not be written: a switch going forward does
 * nothing more without its journal on disk (a crash would leave nothing to
 * undo it from): -1, the phase failed (TERR_INTERNAL, r->jerr), so that it
 * rolls back. A rollback goes on without (0): an undo stopped half-way
 * leaves more undone than one without a journal. */
int journal_refused(struct run *r);
/* journal_save() before an act: 0, or journal_refused()'s -1 */
int journal_need(struct run *r);
void post_state(struct run *r, enum tstate s, enum pcitopo_layout p);
void post_accept(struct run *r, enum terr e, const char *text);
void post_finish(struct run *r, enum pcitopo_layout l, bool ok,
		 enum tstate s, const char *error);
/* The committed state (l, or as it was for PCITOPO_LAYOUT_UNKNOWN, with
 * error as its LastError) written, then the journal removed. 0, or -errno
 * when the committed state cannot be written: the journal is kept (the
 * next start finishes from it), why says so. */
int job_commit(struct run *r, enum pcitopo_layout l, const char *error,
	       char *why, size_t len);
/* the job's one BMC session (phase_fail()s BMC), its systemd connection */
int open_bmc(struct run *r);
void open_units(struct run *r);
/* 1 if the platform's unit i runs (and so is to be stopped), 0 if not,
 * -errno when systemd cannot tell */
int unit_to_stop(struct run *r, unsigned int i);
int gpu_number(const struct hw_snap *s, const char *addr);

/* phase.c: why a port that can be neither powered off nor link-disabled
 * is refused (preflight, detach) */
extern const char no_link_disable[];

/* preflight.c: preflight's checks, shared by a switch and a dry run (r->plan) */
int preflight_checks(struct run *r);
int do_preflight(struct run *r);

/* phases.c: each 0, or -1 with the phase failed (r->terr, r->err) */
int do_quiesce(struct run *r);
int do_detach(struct run *r);
/* the slots below ports[], journalled, taken down; *n: how many */
int slots_down(struct run *r, char ports[][PCITOPO_ADDR_LEN],
	       unsigned int nports, unsigned int *n);
/* Select l and follow it to done (journal: a journal that cannot note
 * the Select first refuses it) */
int bmc_to(struct run *r, enum pcitopo_layout l, bool journal);
/* r->bj into the journal's bmc_current/bmc_pending if its job is over
 * (what the BMC reports after a Select: rollback.c decides by it) */
void bmc_note(struct run *r);
int do_bmc(struct run *r, const char *name, enum pcitopo_layout l,
	   bool journal);
int do_reenumerate(struct run *r, const char *name, enum pcitopo_layout l,
		   struct hw_snap *after);
int do_verify(struct run *r, const char *name, enum pcitopo_layout l,
	      const struct hw_snap *after);
/* the journal's unbound devices given their drivers back; how many stay
 * without (named in buf) */
unsigned int rebind(struct run *r, unsigned int *bound, char *buf,
		    size_t len);
/* never fails the switch: r->warn says which units did not start */
void do_restore(struct run *r, const char *name, enum pcitopo_layout l);
/* commit: r->to committed (r->warn: its LastError, with ok true) */
void finish_ok(struct run *r, const char *msg);

/* rollback.c: back to r->from after r->err (why_prefix before it) */
void rollback(struct run *r, const char *why_prefix);
/* whether the rollback to l must ask the BMC (the MUX may have moved, or
 * the platform's cards come back only through it); if not, why */
bool rollback_needs_bmc(const struct run *r, enum pcitopo_layout l,
			char *why, size_t len);

/* recover.c: JOB_RECOVER */
void run_recover(struct run *r);

#endif
