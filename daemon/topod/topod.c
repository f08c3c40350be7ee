// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: start-up, the event loop, and the worker's messages.
 *
 *   topod [--config FILE] [--debug] [--test-fault WHERE:N[:stop]]
 *
 * Event-driven: while idle the loop sleeps in sd_event_run() on the bus,
 * the module's event socket and signals; nothing polls.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hostside.h"
#include "nfd.h"
#include "topod.h"

static bool exit_after_job;

static int on_module_event(sd_event_source *s, int fd, uint32_t revents,
			   void *userdata);

/*
 * The module, for reads and its events. It may be loaded after topod
 * starts, or unloaded and loaded again (udev's module events call
 * Recheck): module_attach() opens it where it is missing, and
 * module_snapshot() opens it again when it went away or came back.
 */
/* 0 with or without the module (d->hw says which); -errno when its event
 * source cannot be added to the loop */
static int module_attach(struct topod *d)
{
	char err[256];
	int r = 0;

	if (hw_open(&d->cfg, &d->plat, true, &d->hw, err, sizeof(err))) {
		d->hw = NULL;
		tlog(LOG_DEBUG, "%s", err);
		return 0;
	}
	if (hw_add_ids(d->hw, &d->plat))
		tlog(LOG_WARNING, "could not add the platform's GPU IDs");
	if (hw_fd(d->hw) >= 0) {
		r = sd_event_add_io(d->event, &d->hw_source, hw_fd(d->hw),
				    EPOLLIN, on_module_event, d);
		if (r < 0)
			tlog(LOG_ERR, "module events: %s", strerror(-r));
	}
	return r;
}

static void module_detach(struct topod *d)
{
	d->hw_source = sd_event_source_disable_unref(d->hw_source);
	hw_close(d->hw);
	d->hw = NULL;
	d->module_generation = 0;
}

static int module_snapshot(struct topod *d, struct hw_snap *s)
{
	char err[256];
	int r;

	if (!d->hw) {
		(void)module_attach(d);
		if (!d->hw)
			return -ENOENT;
		tlog(LOG_NOTICE, "pcitopo module loaded");
	}
	r = hw_snapshot(d->hw, s, err, sizeof(err));
	/* the generation only grows while the module is loaded: a smaller
	 * one is a module loaded again, whose events go to a new group */
	if (!r && s->generation >= d->module_generation)
		return 0;
	tlog(LOG_NOTICE, "pcitopo module %s: opening it again",
	     r ? err : "loaded again");
	module_detach(d);
	(void)module_attach(d);	/* a lost event source is logged there */
	if (!d->hw)
		return -ENOENT;
	return hw_snapshot(d->hw, s, err, sizeof(err));
}

void topod_refresh(struct topod *d, bool check_drift)
{
	struct hw_snap s;
	bool changed;

	if (module_snapshot(d, &s)) {
		/* no module: nothing to compare, no drift to report */
		if (d->layout || d->gpus) {
			tlog(LOG_WARNING, "pcitopo module not loaded: layout "
			     "unknown");
			d->layout = PCITOPO_LAYOUT_UNKNOWN;
			snprintf(d->reason, sizeof(d->reason),
				 "pcitopo module not loaded");
			d->gpus = 0;
			if (d->bus)
				bus_props_changed(d);
		}
		return;
	}
	changed = s.layout != d->layout;
	d->layout = s.layout;
	snprintf(d->reason, sizeof(d->reason), "%s", s.reason);
	d->gpus = s.ngpus;
	d->module_generation = s.generation;
	if (check_drift && !d->job && d->state == TS_IDLE &&
	    d->committed.layout) {
		if (d->layout != d->committed.layout) {
			char msg[TJ_ERR_LEN];

			snprintf(msg, sizeof(msg),
				 "drift: the module reports %s (%.100s, %u GPUs) "
				 "but the committed layout is %s; no switch "
				 "asked for it", ptc_layout_name(d->layout),
				 d->reason, d->gpus,
				 ptc_layout_name(d->committed.layout));
			if (strcmp(msg, d->last_error)) {
				tlog(LOG_WARNING, "%s", msg);
				snprintf(d->last_error, sizeof(d->last_error),
					 "%s", msg);
				bus_emit_drift(d, msg);
				changed = true;
			}
		} else if (!strncmp(d->last_error, "drift:", 6)) {
			tlog(LOG_NOTICE, "layout %s again",
			     ptc_layout_name(d->layout));
			d->last_error[0] = '\0';
			changed = true;
		}
	}
	if (changed && d->bus)
		bus_props_changed(d);
	nfd_update(d);	/* also a retry: the labels' directory may be back */
}

static int on_module_event(sd_event_source *s, int fd, uint32_t revents,
			   void *userdata)
{
	struct topod *d = userdata;

	(void)s; (void)fd; (void)revents;
	if (hw_drain(d->hw))
		topod_refresh(d, true);
	return 0;
}

/*
 * State waiting-bmc: a rollback needs the BMC and it did not answer. The
 * rollback's job has ended (the GPUs that can be are back); this timer
 * starts another, which asks the BMC once and, if it answers, finishes
 * the rollback from the journal (recover.c), else ends at once and the
 * timer is set again, twice as far (at most TOPOD_BMC_RETRY_MAX_MS).
 */
static int on_bmc_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct topod *d = userdata;
	struct tj_job journal;
	int r;

	(void)s; (void)usec;
	d->bmc_timer = sd_event_source_unref(d->bmc_timer);
	if (d->job || d->state != TS_WAITING_BMC)
		return 0;	/* set again when that job ends */
	r = tj_job_read(d->cfg.state_dir, &journal, NULL);
	if (r) {
		/* nothing to finish from: left for a human, as at start */
		tlog(LOG_ERR, "waiting for the BMC, but the journal %s/%s: %s",
		     d->cfg.state_dir, TJ_JOB_FILE, strerror(-r));
		d->state = TS_FAILED;
		bus_props_changed(d);
		return 0;
	}
	tlog(LOG_INFO, "asking the BMC again (the rollback waits for it)");
	r = topod_start_job(d, JOB_RECOVER, journal.to, journal.flags, &journal,
			    true);
	if (r)
		tlog(LOG_ERR, "the BMC's retry: %s", strerror(-r));
	d->bmc_retry_ms = d->bmc_retry_ms * 2 > TOPOD_BMC_RETRY_MAX_MS ?
			  TOPOD_BMC_RETRY_MAX_MS : d->bmc_retry_ms * 2;
	return 0;
}

static void bmc_retry_arm(struct topod *d)
{
	uint64_t now = 0;
	int r;

	if (d->bmc_timer || exit_after_job)
		return;
	if (!d->bmc_retry_ms)
		d->bmc_retry_ms = TOPOD_BMC_RETRY_FIRST_MS;
	(void)sd_event_now(d->event, CLOCK_MONOTONIC, &now);
	r = sd_event_add_time(d->event, &d->bmc_timer, CLOCK_MONOTONIC,
			      now + (uint64_t)d->bmc_retry_ms * 1000u, 0,
			      on_bmc_retry, d);
	if (r < 0)
		tlog(LOG_ERR, "the BMC's retry timer: %s (the next start "
		     "finishes the rollback)", strerror(-r));
}

static void handle(struct topod *d, struct tmsg *m)
{
	switch (m->type) {
	case TM_PHASE:
		snprintf(d->phase, sizeof(d->phase), "%s", m->phase);
		if (!strcmp(m->status, "started"))
			tlog(LOG_INFO, "%s %s: started",
			     ptc_layout_name(m->layout), m->phase);
		else
			tlog(strcmp(m->status, "failed") ? LOG_INFO : LOG_ERR,
			     "%s %s: %s in %.3f s%s%s",
			     ptc_layout_name(m->layout), m->phase, m->status,
			     m->elapsed_usec / 1e6,
			     m->text[0] ? ": " : "", m->text);
		bus_emit_phase(d, m);
		break;
	case TM_ACCEPT:
		if (d->pending_call) {
			if (m->err == TERR_OK)
				(void)sd_bus_reply_method_return(d->pending_call,
								 "");
			else
				(void)bus_reply_error(d->pending_call, m->err,
						      m->errnum, m->text);
			d->pending_call = sd_bus_message_unref(d->pending_call);
		}
		break;
	case TM_STATE:
		d->state = m->state;
		d->pending = m->pending;
		bus_props_changed(d);
		break;
	case TM_FINISH:
		if (m->state == TS_WAITING_BMC && d->state != TS_WAITING_BMC)
			d->bmc_retry_ms = TOPOD_BMC_RETRY_FIRST_MS;	/* afresh */
		d->state = m->state;
		d->pending = m->state == TS_AWAITING_POWER_CYCLE ? m->layout :
			     PCITOPO_LAYOUT_UNKNOWN;
		tcopy(d->last_error, sizeof(d->last_error), m->text);
		{
			/* a state that cannot be read (a commit that could
			 * not be written) leaves the last one known, never
			 * an empty one */
			struct tj_committed c;

			if (!tj_committed_read(d->cfg.state_dir, &c))
				d->committed = c;
		}
		if (m->ok)
			tlog(LOG_NOTICE, "switch to %s: done",
			     ptc_layout_name(m->layout));
		else
			tlog(LOG_ERR, "switch to %s: failed: %s",
			     ptc_layout_name(m->layout), m->text);
		topod_refresh(d, false);
		bus_emit_finished(d, m);
		bus_props_changed(d);
		break;
	case TM_DONE:
		if (d->job) {
			pthread_join(d->job->thread, NULL);
			free(d->job);
			d->job = NULL;
		}
		d->phase[0] = '\0';
		if (d->state == TS_SWITCHING || d->state == TS_ROLLING_BACK) {
			/* a job that ended without saying how */
			d->state = TS_IDLE;
			bus_props_changed(d);
		}
		if (d->pending_call) {
			(void)sd_bus_reply_method_errorf(d->pending_call,
				SD_BUS_ERROR_FAILED, "the switch ended early");
			d->pending_call = sd_bus_message_unref(d->pending_call);
		}
		if (d->state == TS_WAITING_BMC)
			bmc_retry_arm(d);
		if (exit_after_job) {
			plan_shutdown(d);
			(void)sd_event_exit(d->event, 0);
		}
		break;
	case TM_PLAN:
		plan_finished(d, m->job);
		break;
	}
}

static int on_msg(sd_event_source *s, int fd, uint32_t revents,
		  void *userdata)
{
	struct tmsg *m;

	(void)s; (void)revents;
	while (read(fd, &m, sizeof(m)) == sizeof(m)) {
		handle(userdata, m);
		free(m);
	}
	return 0;
}

int topod_start_job(struct topod *d, enum tjob_kind kind,
		    enum pcitopo_layout to, uint64_t flags,
		    const struct tj_job *journal, bool retry_bmc)
{
	struct tjob *j;
	int r;

	if (d->job)
		return -EBUSY;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->d = d;
	j->kind = kind;
	j->to = to;
	j->flags = flags;
	j->msg_fd = d->msg_pipe[1];
	j->retry_bmc = retry_bmc;
	if (journal)
		j->journal = *journal;
	d->target = to;
	d->phase[0] = '\0';
	r = pthread_create(&j->thread, NULL, job_main, j);
	if (r) {
		free(j);
		return -r;
	}
	d->job = j;
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si,
		     void *userdata)
{
	struct topod *d = userdata;

	(void)s;
	if (d->job && !exit_after_job) {
		tlog(LOG_WARNING, "signal %u: exiting when the switch in "
		     "flight ends (again to exit now; the journal recovers "
		     "it at the next start)", si->ssi_signo);
		exit_after_job = true;
		return 0;
	}
	/* the dry runs are answered while the bus is still up (sd-bus closes
	 * it when the loop exits) */
	if (!d->job)
		plan_shutdown(d);
	return sd_event_exit(d->event, 0);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: topod [--config FILE] [--debug]\n"
		"       topod --check [--config FILE]\n"
		"       topod --discover-redfish [--config FILE] [--system ID] "
		"[--attribute NAME]\n"
		"       topod --configured [--config FILE]\n"
		"       topod --remove-labels [--config FILE]\n"
		"       topod --version\n"
		"  the PCIe layout service (org.pcitopo.Topod on the system "
		"bus); default config %s\n"
		"  --check: read the config, platform and credentials files as "
		"at start,\n  say what is wrong with each, and exit (0: all "
		"good)\n"
		"  --discover-redfish: list the Redfish BMC's BIOS attributes "
		"about the PCIe\n  topology, their values, and a platform "
		"file's part for one; its Fabrics,\n  their zones and "
		"endpoints (reads only the config's bmc group)\n"
		"  --configured: exit 1 if the config names no platform (the "
		"node has nothing\n  to switch), else 0 (topod.service's "
		"ExecCondition)\n"
		"  --remove-labels: remove the node labels (NFD feature file; "
		"the package's\n  removal)\n", TOPOD_CONFIG);
}

/*
 * topod --configured: topod.service's ExecCondition. A node whose
 * topod.conf names no platform (the shipped one) has nothing to switch:
 * exit 1, and systemd skips the unit, neither failed nor restarted, so such
 * a node does not boot "degraded". Anything else exits 0, a topod.conf that
 * cannot be read or parsed too: then the start itself fails loudly, once,
 * with the reason (TOPOD_EXIT_CONFIG).
 */
/*
 * topod --remove-labels: the package's prerm, on removal, once topod is
 * stopped. The labels of the configured directory and of NFD's default one
 * (where an earlier configuration may have had them); a configuration that
 * cannot be read still leaves the default's to remove.
 */
static int topod_remove_labels(const char *config)
{
	char dir[sizeof(((struct tconfig *)0)->nfd_dir)], err[512];
	const char *dirs[2];
	int ret = 0;

	config_nfd_dir(config, dir, sizeof(dir));
	dirs[0] = NFD_FEATURES_DIR;
	dirs[1] = dir[0] && strcmp(dir, NFD_FEATURES_DIR) ? dir : NULL;
	for (int i = 0; i < 2 && dirs[i]; i++) {
		int r = nfd_remove(dirs[i], err, sizeof(err));

		if (r < 0) {
			fprintf(stderr, "topod: node labels: %s\n", err);
			ret = 1;
		} else if (r) {
			printf("topod: node labels removed: %s/%s (NFD)\n",
			       dirs[i], NFD_FILE);
		}
	}
	return ret;
}

static int topod_configured(const char *config)
{
	char err[PT_PLAT_ERRLEN + 64];
	int r = config_names_platform(config, err, sizeof(err));

	if (r)
		return 0;
	printf("topod: %s: not started, this node has nothing to switch "
	       "(name the server's platform file there: topod.conf(5); "
	       "topod --check)\n", err);
	return 1;
}

/* topod.conf, the platform file (for this machine, for the configured
 * BMC's transport), the state dir and the workers' pipe. 0, or the exit
 * status, said in the log: TOPOD_EXIT_CONFIG for what the configuration
 * got wrong (the unit does not restart on it), 1 for the rest. */
static int load(struct topod *d, const char *config)
{
	char err[PT_PLAT_ERRLEN + 64];
	int r;

	if (config_load(config, &d->cfg, err, sizeof(err)) ||
	    pt_platform_load(d->cfg.platform, &d->plat, err, sizeof(err)) ||
	    bmc_check_platform(&d->cfg.bmc, &d->plat, err, sizeof(err))) {
		tlog(LOG_ERR, "%s", err);
		return TOPOD_EXIT_CONFIG;
	}
	if (d->cfg.check_dmi) {
		r = check_dmi(&d->plat, err, sizeof(err));
		if (r < 0) {
			tlog(LOG_ERR, "%s", err);
			return TOPOD_EXIT_CONFIG;
		}
		if (r)
			tlog(LOG_WARNING, "no DMI: cannot check the platform "
			     "file's match");
	}
	if (mkdir(d->cfg.state_dir, 0755) < 0 && errno != EEXIST) {
		tlog(LOG_ERR, "state dir %s: %m", d->cfg.state_dir);
		return 1;
	}
	if (pipe2(d->msg_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		tlog(LOG_ERR, "pipe: %m");
		return 1;
	}
	return 0;
}

/* The event loop (signals, the workers' pipe, the module's events), then
 * the module's state and the committed one. 0, or 1. */
static int setup_loop(struct topod *d)
{
	sigset_t ss;
	int r;

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	r = sd_event_default(&d->event);
	if (r >= 0)
		r = sd_event_add_signal(d->event, NULL, SIGTERM, on_signal, d);
	if (r >= 0)
		r = sd_event_add_signal(d->event, NULL, SIGINT, on_signal, d);
	if (r >= 0)
		r = sd_event_add_io(d->event, NULL, d->msg_pipe[0], EPOLLIN,
				    on_msg, d);
	/* the loop first: the module's event source goes into it, here as
	 * when the module is opened again later (module_snapshot()) */
	if (r >= 0)
		r = module_attach(d);
	if (r < 0) {
		tlog(LOG_ERR, "event loop: %s", strerror(-r));
		return 1;
	}
	if (!d->hw)
		tlog(LOG_WARNING, "pcitopo module not loaded: the layout is "
		     "unknown until it is (modprobe pcitopo)");
	r = tj_committed_read(d->cfg.state_dir, &d->committed);
	if (r && r != -ENOENT)
		tlog(LOG_WARNING, "%s/%s unreadable (%s): starting afresh",
		     d->cfg.state_dir, TJ_STATE_FILE, strerror(-r));
	snprintf(d->last_error, sizeof(d->last_error), "%s",
		 d->committed.last_error);
	topod_refresh(d, false);
	if (!d->committed.layout && ptc_layout_switchable((u8)d->layout)) {
		d->committed.layout = d->layout;
		r = tj_committed_write(d->cfg.state_dir, &d->committed);
		if (r)
			tlog(LOG_WARNING, "%s/%s: %s: the layout found (%s) "
			     "not recorded", d->cfg.state_dir, TJ_STATE_FILE,
			     strerror(-r), ptc_layout_name(d->layout));
	}
	return 0;
}

/* On the system bus, with the name. 0, or 1. */
static int setup_bus(struct topod *d)
{
	char bmc[TOPOD_MSG_LEN];
	int r;

	r = sd_bus_open_system(&d->bus);
	if (r < 0) {
		tlog(LOG_ERR, "system bus: %s", strerror(-r));
		return 1;
	}
	r = bus_setup(d);
	if (r >= 0)
		r = sd_bus_attach_event(d->bus, d->event, 0);
	if (r >= 0)
		r = sd_bus_request_name(d->bus, TOPOD_BUS_NAME, 0);
	if (r < 0) {
		tlog(LOG_ERR, "bus name %s: %s", TOPOD_BUS_NAME, strerror(-r));
		return 1;
	}
	bmc_describe(&d->cfg.bmc, bmc, sizeof(bmc));
	tlog(LOG_NOTICE, "platform %s (%s, %s), BMC %s, layout %s, state %s",
	     d->plat.name, pt_platform_method_name(d->plat.method),
	     pt_platform_apply_name(d->plat.apply), bmc,
	     ptc_layout_name(d->layout), d->cfg.state_dir);
	return 0;
}

/* A journal of a switch in flight: its recovery starts; an unreadable one
 * is left for a human (State failed). */
static void start_recovery(struct topod *d)
{
	struct tj_job journal;
	int r = tj_job_read(d->cfg.state_dir, &journal, NULL);

	if (!r) {
		d->state = journal.state == TJ_AWAITING_POWER_CYCLE ?
			   TS_AWAITING_POWER_CYCLE : TS_SWITCHING;
		d->pending = journal.state == TJ_AWAITING_POWER_CYCLE ?
			     journal.to : PCITOPO_LAYOUT_UNKNOWN;
		r = topod_start_job(d, JOB_RECOVER, journal.to, journal.flags,
				    &journal, false);
		if (r)
			tlog(LOG_ERR, "recovery: %s", strerror(-r));
	} else if (r != -ENOENT) {
		char kept[100], why[200];
		int e;

		/* kept aside for whoever looks into it: the next switch would
		 * write its own journal over it */
		e = tj_job_set_aside(d->cfg.state_dir, kept, sizeof(kept));
		if (e)
			snprintf(kept, sizeof(kept), "%s (not set aside: %s)",
				 TJ_JOB_FILE, strerror(-e));
		if (r == -EPROTONOSUPPORT)
			snprintf(why, sizeof(why), "written by a newer topod "
				 "(a format after version %d): its switch is "
				 "neither finished nor rolled back; run that "
				 "topod again, or check the layout (topoctl "
				 "status) before switching", TJ_VERSION);
		else
			snprintf(why, sizeof(why), "%s", strerror(-r));
		tlog(LOG_ERR, "journal %s/%s unreadable (%s); kept as %s/%s, "
		     "left for a human", d->cfg.state_dir, TJ_JOB_FILE, why,
		     d->cfg.state_dir, kept);
		d->state = TS_FAILED;
		snprintf(d->last_error, sizeof(d->last_error),
			 "journal unreadable: %.200s; kept as %.150s/%.100s",
			 why, d->cfg.state_dir, kept);
	}
}

/* The loop, until a signal; then the dry runs answered, and the exit
 * status (a switch in flight: its journal left for the next start). */
static int run(struct topod *d)
{
	int r = sd_event_loop(d->event);

	if (!d->job) {
		struct tmsg *m;

		plan_shutdown(d);	/* if the loop ended otherwise */
		/* what the dry run's thread said last */
		while (read(d->msg_pipe[0], &m, sizeof(m)) == sizeof(m)) {
			if (m->type == TM_PLAN)
				plan_finished(d, m->job);
			free(m);
		}
	}
	if (d->job) {
		/* second signal: leave the journal for the next start */
		tlog(LOG_WARNING, "exiting with a switch in flight (phase %s)",
		     d->phase);
		_exit(r < 0 ? 1 : 0);
	}
	hw_close(d->hw);
	sd_bus_flush_close_unref(d->bus);
	sd_event_unref(d->event);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "debug", no_argument, NULL, 'd' },
		{ "check", no_argument, NULL, 't' },
		{ "discover-redfish", no_argument, NULL, 'D' },
		{ "system", required_argument, NULL, 'S' },
		{ "attribute", required_argument, NULL, 'A' },
		{ "configured", no_argument, NULL, 'C' },
		{ "remove-labels", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		/* tests only (fault.c): never in a unit */
		{ "test-fault", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	static struct topod d;
	const char *config = TOPOD_CONFIG;
	bool check = false, configured = false, remove_labels = false;
	bool discover = false;
	const char *system = "1", *attribute = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:dhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 'd': log_set_debug(true); break;
		case 't': check = true; break;
		case 'D': discover = true; break;
		case 'S': system = optarg; break;
		case 'A': attribute = optarg; break;
		case 'C': configured = true; break;
		case 'R': remove_labels = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("topod %s\n", TOPOD_VERSION); return 0;
		case 'F':
			if (fault_setup(optarg)) {
				fprintf(stderr, "topod: --test-fault %s: not "
					"WHERE:N[:stop]\n", optarg);
				return 2;
			}
			break;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (check)
		return topod_check(config);
	if (discover)
		return topod_discover(config, system, attribute);
	if (configured)
		return topod_configured(config);
	if (remove_labels)
		return topod_remove_labels(config);
	r = load(&d, config);
	if (r)
		return r;
	if (setup_loop(&d) || setup_bus(&d))
		return 1;
	start_recovery(&d);
	nfd_start(&d);	/* the state at start is known: the node labels */
	return run(&d);
}
