/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: switches the PCIe layout of a GPU server through its BMC, as a
 * D-Bus system service (org.pcitopo.Topod, Documentation/topod.md).
 *
 * Threads: the main thread owns the bus and the event loop and is the only
 * one to touch the bus objects; a switch (or the recovery of one at start)
 * runs in one worker thread (job.c, phase.h), which owns its BMC session, its
 * netlink sockets and its own bus connection to systemd, and reports to the
 * main thread through a pipe of struct tmsg (topod.c emits the signals).
 *
 * Files, one job each:
 *   topod.c    options, start-up, event loop, messages from the worker
 *   config.c   /etc/pcitopo/topod.conf
 *   bus.c      the org.pcitopo.Topod1 vtable, properties, signals, errors
 *   enums.c    the names of topod's enums (errors, states, outcomes)
 *   request.c  what SetLayout and PlanLayout check of a request
 *   polkit.c   authorization of SetLayout (and PlanLayout's question)
 *   job.c      a switch's orchestration, the dry run, the worker thread,
 *              on the phase layer (phase.h, phase.c): preflight.c,
 *              phases.c, rollback.c, recover.c
 *   plan.c     PlanLayout: the dry run's queue, thread and answer
 *   bmc.c      the BMC (bmc.h) on its backends (bmc_backend.h): the
 *              one for topod.conf's bmc group, a job followed to its end
 *   bmc_ipmi.c the IPMI backend (libptipmi, the platform's IPMI part)
 *   config_read.c  topod.conf's checked reads (config.h), for config.c
 *              and the BMC backends
 *   clock.c    the monotonic clock, sleeps
 *   hostside.c the host side (hostside.h) on the build's backend
 *              (hw_backend.h): waiting for the GPUs, which of them move
 *   hw_host.c  the production build's backend: hw_module.c (pcitopo.ko
 *              through libpcitopo), hw_slots.c (pciehp slots, Link
 *              Disable), hw_drivers.c (sysfs); the host tests' stand-in
 *              is tests/topod/hw_standin.c, in their topod-standin only;
 *              hw_common.c what both use
 *   holders.c  which processes hold a GPU open
 *   units.c    stopping and starting systemd units over the bus
 *   journal.c  the job journal and committed state (journal.h)
 *   fault.c    fault injection for tests (--test-fault)
 *   nfd.c      node labels for Kubernetes (NFD's feature file; nfd.h)
 *   log.c      logging with priorities
 */
#ifndef PCITOPO_TOPOD_H
#define PCITOPO_TOPOD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bmc.h"
#include "journal.h"
#include "pcitopo/topod1.h"
#include "platform.h"
#include "ptc.h"

#define TOPOD_POLKIT_ACTION	"org.pcitopo.set-layout"
/* the project's version: the top VERSION file, passed by daemon/Makefile */
#ifndef TOPOD_VERSION
#define TOPOD_VERSION		"unknown"
#endif
#define TOPOD_CONFIG		"/etc/pcitopo/topod.conf"
#define TOPOD_STATE_DIR		"/var/lib/pcitopo"

#define TOPOD_MSG_LEN		512

/* Named errors: TERR_BUSY ... TERR_VERIFY are org.pcitopo.Topod1.Error.*,
 * in the order of TOPOD_ERRORS (pcitopo/topod1.h), which gives each its
 * errno (bus.c registers the map); then two of freedesktop's. */
enum terr {
	TERR_OK,
#define TERR_ID(id, errnum) TERR_##id,
	TOPOD_ERRORS(TERR_ID)
#undef TERR_ID
	TERR_INVALID_ARGS,	/* EINVAL: unknown flag bits (freedesktop's) */
	TERR_INTERNAL,		/* other errno: org.freedesktop.DBus.Error.Failed */
	__TERR_MAX,
};

const char *terr_name(enum terr e);	/* full D-Bus error name (enums.c) */

/* State property: TOPOD_STATES (pcitopo/topod1.h), in its order */
enum tstate {
#define TS_ID(id) TS_##id,
	TOPOD_STATES(TS_ID)
#undef TS_ID
	__TS_MAX,
};
const char *tstate_name(enum tstate s);

struct tconfig {
	char platform[4096];
	struct bmc_conf bmc;		/* bmc = { ... }: its backend's */
	char state_dir[4096];
	bool check_dmi;
	char profile[4096];
	/* NFD's features.d (nfd.h); "": no node labels */
	char nfd_dir[4096];
};

int config_load(const char *path, struct tconfig *c, char *err, size_t len);
/*
 * Whether path names a platform: 1 it does; 0 it names none (it parses and
 * has no platform key, or there is no such file: the node is not
 * configured for switching), with err saying which; -errno (-EINVAL for a
 * syntax error) when it cannot be told: a misconfiguration, which the
 * start itself reports (config_load()). topod --configured, the unit's
 * ExecCondition.
 */
int config_names_platform(const char *path, char *err, size_t len);

/*
 * nfd_features_dir of path into dir: the default (NFD_FEATURES_DIR) where
 * the file cannot be read or parsed or does not set it, "" where it turns
 * the labels off. For removing the labels (topod --remove-labels), which
 * must work whatever state the configuration is in.
 */
void config_nfd_dir(const char *path, char *dir, size_t len);

/* topod's exit status when its configuration (topod.conf, the platform
 * file, the DMI match) is wrong: sysexits' EX_CONFIG, which systemd shows
 * as status=78/CONFIG and topod.service does not restart on
 * (RestartPreventExitStatus=): a restart cannot mend a file. */
#define TOPOD_EXIT_CONFIG	TOPOD_EXIT_STATUS_CONFIG

/* fault.c: tests only (topod --test-fault WHERE:N[:stop]): at the Nth
 * fault_point(WHERE) topod kills (or stops) itself. -EINVAL: bad spec. */
int fault_setup(const char *spec);
void fault_point(const char *where);

/* clock.c */
uint64_t now_usec(void);	/* CLOCK_MONOTONIC */
void sleep_ms(unsigned int ms);

/* log.c: "<prio>msg" under journald (JOURNAL_STREAM), else "topod: msg" */
void tlog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_set_debug(bool on);
/* Copy src into dst[cap], truncating. */
void tcopy(char *dst, size_t cap, const char *src);

/* Worker -> main thread messages (topod.c handles them). */
enum tmsg_type {
	TM_PHASE,	/* Phase signal */
	TM_ACCEPT,	/* preflight finished: reply to SetLayout (err, text) */
	TM_STATE,	/* State/PendingLayout changed */
	TM_FINISH,	/* Finished signal; committed state updated */
	TM_DONE,	/* the thread is about to exit: join it */
	TM_PLAN,	/* a dry run's thread is done (job): answer, join it */
};

struct tmsg {
	enum tmsg_type type;
	enum pcitopo_layout layout;
	char phase[TJ_PHASE_LEN];
	char status[12];		/* started | done | failed */
	uint64_t elapsed_usec;
	enum terr err;
	int errnum;
	enum tstate state;
	enum pcitopo_layout pending;
	bool ok;
	char text[TOPOD_MSG_LEN];
	struct tjob *job;		/* TM_PLAN */
};

enum tjob_kind {
	JOB_SWITCH,	/* SetLayout */
	JOB_RECOVER,	/* at start: a journal says a job was in flight */
	JOB_PLAN,	/* PlanLayout: preflight's checks only, nothing acts */
};

/* What a switch that passes preflight goes on to do. */
enum toutcome {
	TO_UNKNOWN,		/* not checked (a switch is in flight) */
	TO_NONE,		/* already in the layout: commit only */
	TO_ONLINE,		/* quiesce, detach, bmc, reenumerate, ... */
	TO_PENDING,		/* bmc: pending until the next power cycle */
	TO_POWER_CYCLE,		/* bmc, quiesce, power-cycle (flag 2) */
	TO_CLEAR_PENDING,	/* select the current layout: nothing pending */
};
const char *toutcome_name(enum toutcome o);

#define TPLAN_MAX_HOLDERS	16
#define TPLAN_MAX_GPUS		(PT_PLAT_MAX_GPUS + PT_PLAT_MAX_ADDRS)

/* A process holding a GPU open (holders.c). */
struct holder {
	long pid;
	char comm[64];
	char file[256];
};

/* A dry run's findings (PlanLayout), filled by preflight's own checks in
 * the plan thread (preflight.c, job.c); plan.c turns it into the answer. */
struct tplan {
	enum pcitopo_layout from, to;	/* from: as preflight takes it */
	uint64_t flags;
	bool checked;			/* preflight's checks ran */
	enum toutcome outcome;
	bool select;			/* the BMC's Select would go out */
	/* the first refusal, as SetLayout would answer it; TERR_OK: none */
	enum terr err;
	char msg[TOPOD_MSG_LEN];
	/* BMC */
	bool bmc_ok;			/* it answered its status */
	char bmc_error[TOPOD_MSG_LEN];
	struct pt_plat_job bj;
	/* module */
	bool hw_ok;
	enum pcitopo_layout module_layout;
	unsigned int gpus, gpus_expected;
	unsigned int nmoving;
	char moving[TPLAN_MAX_GPUS][PCITOPO_ADDR_LEN];
	int moving_index[TPLAN_MAX_GPUS];	/* GPUn, -1 if not a GPU */
	unsigned int nports;
	char ports[TJ_MAX_PORTS][PCITOPO_ADDR_LEN];
	/* holders of the moving GPUs (also with --force) */
	unsigned int nholders;
	struct holder holders[TPLAN_MAX_HOLDERS];
	char holder_gpu[TPLAN_MAX_HOLDERS][PCITOPO_ADDR_LEN];
	/* the platform's stop_units */
	bool systemd;			/* systemd is on the bus */
	bool unit_active[PT_PLAT_MAX_UNITS];
	bool unit_stop[PT_PLAT_MAX_UNITS];
	/* the platform's budgets for this outcome, ms */
	uint64_t budget_ms;
};

struct topod;

/* State waiting-bmc: the BMC is asked again 1 s after the rollback gave
 * up on it, then at doubling intervals up to 30 s (a BMC resetting takes
 * minutes; one status a try costs it nothing), until it answers. */
/* what LastError says before the BMC's error while waiting-bmc (rollback.c
 * writes it, request.c's Busy quotes what follows) */
#define ROLLBACK_WAITS_BMC	" waits for the BMC: "
#define TOPOD_BMC_RETRY_FIRST_MS	1000
#define TOPOD_BMC_RETRY_MAX_MS		30000

struct tjob {
	struct topod *d;
	enum tjob_kind kind;
	bool retry_bmc;			/* JOB_RECOVER: waiting-bmc's try */
	enum pcitopo_layout to;
	uint64_t flags;
	struct tj_job journal;		/* JOB_RECOVER: what was read */
	pthread_t thread;
	int msg_fd;			/* write end of the pipe */
	struct tplan *plan;		/* JOB_PLAN: filled by the thread */
	bool joined;			/* JOB_PLAN: plan_shutdown() joined it */
};

struct plan_call;

/* Everything the main thread keeps; the worker reads cfg/plat only. */
struct topod {
	struct tconfig cfg;
	struct pt_platform plat;
	sd_event *event;
	sd_bus *bus;
	sd_bus_slot *vtable_slot;
	int msg_pipe[2];
	struct tjob *job;		/* in flight, or NULL */
	sd_bus_message *pending_call;	/* SetLayout waiting for TM_ACCEPT */
	/* PlanLayout: one dry run at a time, the others wait in a queue;
	 * independent of job (a dry run never holds a switch off) */
	struct tjob *plan_job;
	struct plan_call *plan_running, *plan_queue;
	unsigned int plan_queued;
	/* properties */
	enum pcitopo_layout layout;	/* what the module reports */
	char reason[PCITOPO_REASON_LEN];
	enum pcitopo_layout pending;
	enum tstate state;
	char last_error[TJ_ERR_LEN];
	char phase[TJ_PHASE_LEN];	/* of the job in flight */
	enum pcitopo_layout target;
	struct tj_committed committed;
	/* State waiting-bmc: the BMC asked again by a job at this timer,
	 * after bmc_retry_ms (TOPOD_BMC_RETRY_*: doubling between tries) */
	sd_event_source *bmc_timer;
	unsigned int bmc_retry_ms;
	struct hw *hw;			/* main thread's: reads, events */
	sd_event_source *hw_source;
	unsigned int gpus;
	uint64_t module_generation;
};

/* bus.c */
int bus_setup(struct topod *d);
void bus_emit_phase(struct topod *d, const struct tmsg *m);
void bus_emit_finished(struct topod *d, const struct tmsg *m);
void bus_emit_drift(struct topod *d, const char *msg);
void bus_props_changed(struct topod *d);
int bus_reply_error(sd_bus_message *m, enum terr e, int errnum,
		    const char *text);

/* polkit.c: calls done(d, m, 0) once authorized, or replies itself. */
typedef void (*auth_done_fn)(struct topod *d, sd_bus_message *m);
int polkit_check(struct topod *d, sd_bus_message *m, auth_done_fn done,
		 sd_bus_error *error);
/* Would SetLayout by m's sender be authorized now, without asking anyone
 * (logind's CanReboot)? answer(userdata, "yes" | "challenge" | "no"),
 * later; never replies to m. */
typedef void (*auth_query_fn)(void *userdata, const char *answer);
int polkit_query(struct topod *d, sd_bus_message *m, auth_query_fn answer,
		 void *userdata, sd_bus_error *error);

/* request.c: SetLayout's and PlanLayout's checks of a request, in
 * SetLayout's order (InvalidLayout, InvalidArgs, Unsupported, Busy), each
 * refusal with its one message; TERR_OK, or the refusal with msg set.
 * request_supported() reads the platform only (preflight's thread too),
 * the others the main thread's state. */
enum terr request_check(const struct topod *d, const char *name,
			uint64_t flags, enum pcitopo_layout *l, char *msg,
			size_t len);
enum terr request_supported(const struct pt_platform *p,
			    enum pcitopo_layout l, char *msg, size_t len);
enum terr request_busy(const struct topod *d, char *msg, size_t len);
/* SetLayout's and PlanLayout's request: its arguments ("st"), and
 * request_check()'s verdict on them */
struct request {
	enum pcitopo_layout layout;
	uint64_t flags;
	enum terr err;			/* TERR_OK, or the refusal: */
	char msg[TOPOD_MSG_LEN];	/* its message */
};
/* m's request, read and checked: -errno of sd-bus, or 0 with q filled */
int request_read(const struct topod *d, sd_bus_message *m,
		 struct request *q);

/* plan.c: PlanLayout after bus.c validated it (err: Unsupported, found
 * there, else TERR_OK); TM_PLAN; at exit, the dry runs still waiting. */
int plan_request(struct topod *d, sd_bus_message *m, enum pcitopo_layout to,
		 uint64_t flags, enum terr err, const char *msg,
		 sd_bus_error *error);
void plan_finished(struct topod *d, struct tjob *j);
void plan_shutdown(struct topod *d);

/* topod.c */
/* retry_bmc: a JOB_RECOVER that is waiting-bmc's try (recover.c) */
int topod_start_job(struct topod *d, enum tjob_kind kind,
		    enum pcitopo_layout to, uint64_t flags,
		    const struct tj_job *journal, bool retry_bmc);
void topod_refresh(struct topod *d, bool check_drift);

/* job.c: a job's thread; phase.c: its messages to the main thread */
void *job_main(void *arg);
void job_post(struct tjob *j, const struct tmsg *m);
/* the platform's budgets for what a switch does, ms */
uint64_t job_budget_ms(const struct pt_platform *p, enum toutcome o);

#endif
