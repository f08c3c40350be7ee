// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: PlanLayout, the dry run of SetLayout (Documentation/topod.md).
 *
 * Anyone may ask (it changes nothing: no Select, no detach, no unit
 * stopped, no journal). The caller's authorization for the real switch is
 * asked of polkit without interaction and reported, not enforced. Then
 * preflight's own checks (preflight.c) run in a thread of their own, apart from
 * the switch: a dry run never holds the one-switch-at-a-time slot (d->job),
 * so no caller can keep a real switch off with dry runs, and a switch that
 * starts meanwhile turns the verdict into SetLayout's Busy. One dry run
 * at a time (one BMC session for them all), the others wait their turn in
 * a queue of PLAN_QUEUE_MAX. While a switch is in flight nothing is
 * checked: the answer is Busy at once.
 *
 * The processes that hold a GPU open are named (pid, command, file) only
 * to callers polkit would let switch: topod reads /proc/PID/fd with
 * capabilities ordinary users lack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topod.h"

#define PLAN_QUEUE_MAX	8

struct plan_call {
	struct topod *d;
	sd_bus_message *m;
	enum pcitopo_layout to;
	uint64_t flags;
	enum terr err;			/* found by bus.c: Unsupported */
	char msg[TOPOD_MSG_LEN];
	char auth[12];			/* polkit: yes | challenge | no */
	bool asked;			/* polkit answered */
	struct plan_call *next;
};

static void call_free(struct plan_call *c)
{
	sd_bus_message_unref(c->m);
	free(c);
}

/* --- the answer --------------------------------------------------------- */

/* one {sv} of the plan: k is topod1.h's key (name, signature) */
#define ADD(k, ...) do { \
	r = sd_bus_message_append(reply, "{sv}", k, __VA_ARGS__); \
	if (r < 0) return r; } while (0)

/* An array entry of the plan: {sv} with key, a variant of its signature
 * sig ("aX", topod1.h's: open_array(reply, k)) and the array of X, whose
 * items the caller appends with the signature sig + 1; close_array() closes
 * all three. */
static int open_array(sd_bus_message *reply, const char *key, const char *sig)
{
	int r = sd_bus_message_open_container(reply, 'e', "sv");

	if (r >= 0)
		r = sd_bus_message_append(reply, "s", key);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'v', sig);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', sig + 1);
	return r;
}

static int close_array(sd_bus_message *reply)
{
	int r = sd_bus_message_close_container(reply);

	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* the verdict, and what the switch would do */
static int append_verdict(sd_bus_message *reply, const struct topod *d,
			  const struct plan_call *c, const struct tplan *pl)
{
	const struct pt_platform *p = &d->plat;
	int r;

	ADD(TOPOD_PLAN_CURRENT_LAYOUT, ptc_layout_name(pl->from));
	ADD(TOPOD_PLAN_TARGET_LAYOUT, ptc_layout_name(pl->to));
	ADD(TOPOD_PLAN_FLAGS, pl->flags);
	ADD(TOPOD_PLAN_CHECKED, (int)pl->checked);
	ADD(TOPOD_PLAN_PROCEED, (int)(pl->err == TERR_OK));
	ADD(TOPOD_PLAN_ERROR, pl->err == TERR_OK ? "" : terr_name(pl->err));
	ADD(TOPOD_PLAN_MESSAGE, pl->msg);
	ADD(TOPOD_PLAN_AUTHORIZATION, c->auth);
	ADD(TOPOD_PLAN_STATE, tstate_name(d->state));
	ADD(TOPOD_PLAN_PHASE, d->phase);
	ADD(TOPOD_PLAN_NOOP, (int)(pl->outcome == TO_NONE));
	ADD(TOPOD_PLAN_OUTCOME, toutcome_name(pl->outcome));
	ADD(TOPOD_PLAN_METHOD, pt_platform_method_name(p->method));
	ADD(TOPOD_PLAN_APPLY, pt_platform_apply_name(p->apply));
	/* for this switch (unknown while a switch is in flight: the platform) */
	ADD(TOPOD_PLAN_POWER_CYCLE_NEEDED, (int)(pl->outcome == TO_PENDING ||
	    pl->outcome == TO_POWER_CYCLE || (pl->outcome == TO_UNKNOWN &&
	    p->apply == PT_PLAT_APPLY_POWER_CYCLE)));
	ADD(TOPOD_PLAN_POWER_CYCLE_ALLOWED,
	    (int)!!(pl->flags & TOPOD_F_POWER_CYCLE));
	ADD(TOPOD_PLAN_SELECT, (int)pl->select);
	ADD(TOPOD_PLAN_BUDGET_MS, pl->budget_ms);
	ADD(TOPOD_PLAN_PLATFORM, p->name);
	return 0;
}

/* the BMC, as its status said, and the module */
static int append_bmc_module(sd_bus_message *reply, const struct topod *d,
			     const struct tplan *pl)
{
	char bmc[TOPOD_MSG_LEN];
	int r;

	bmc_describe(&d->cfg.bmc, bmc, sizeof(bmc));
	ADD(TOPOD_PLAN_BMC, bmc);
	ADD(TOPOD_PLAN_BMC_REACHABLE, (int)pl->bmc_ok);
	ADD(TOPOD_PLAN_BMC_ERROR, pl->bmc_error);
	ADD(TOPOD_PLAN_BMC_STATE,
	    pl->bmc_ok ? pt_platform_state_name(pl->bj.state) : "");
	ADD(TOPOD_PLAN_BMC_JOB, pl->bmc_ok ? pl->bj.job : -1);
	ADD(TOPOD_PLAN_BMC_CURRENT,
	    pl->bmc_ok ? ptc_layout_name(pl->bj.current) : "");
	ADD(TOPOD_PLAN_BMC_PENDING, pl->bmc_ok && pl->bj.pending ?
	    ptc_layout_name(pl->bj.pending) : "");
	ADD(TOPOD_PLAN_MODULE_LAYOUT,
	    pl->hw_ok ? ptc_layout_name(pl->module_layout) : "");
	ADD(TOPOD_PLAN_GPUS, pl->gpus);
	ADD(TOPOD_PLAN_GPUS_EXPECTED, pl->gpus_expected);
	return 0;
}

/* the GPUs that move (GPUn, address) and the ports detached for them */
static int append_moving(sd_bus_message *reply, const struct tplan *pl)
{
	int r;

	r = open_array(reply, TOPOD_PLAN_MOVING_GPUS);
	for (unsigned int i = 0; r >= 0 && i < pl->nmoving; i++) {
		char name[16] = "";

		if (pl->moving_index[i] >= 0)
			snprintf(name, sizeof(name), "GPU%d", pl->moving_index[i]);
		r = sd_bus_message_append(reply,
					  TOPOD_SIG(TOPOD_PLAN_MOVING_GPUS) + 1,
					  name, pl->moving[i]);
	}
	if (r >= 0)
		r = close_array(reply);
	if (r < 0)
		return r;
	ADD(TOPOD_PLAN_DETACH, (int)(pl->outcome == TO_ONLINE));
	r = open_array(reply, TOPOD_PLAN_DETACH_PORTS);
	for (unsigned int i = 0; r >= 0 && i < pl->nports; i++)
		r = sd_bus_message_append(reply,
					  TOPOD_SIG(TOPOD_PLAN_DETACH_PORTS) + 1,
					  pl->ports[i]);
	return r < 0 ? r : close_array(reply);
}

/* holders: (GPU address, pid, command, file); 0, "", "" unless the caller
 * may switch (named) */
static int append_holders(sd_bus_message *reply, const struct tplan *pl,
			  bool named)
{
	int r;

	r = open_array(reply, TOPOD_PLAN_HOLDERS);
	for (unsigned int i = 0; r >= 0 && i < pl->nholders; i++)
		r = sd_bus_message_append(reply,
					  TOPOD_SIG(TOPOD_PLAN_HOLDERS) + 1,
					  pl->holder_gpu[i],
					  named ? (uint32_t)pl->holders[i].pid : 0u,
					  named ? pl->holders[i].comm : "",
					  named ? pl->holders[i].file : "");
	if (r >= 0)
		r = close_array(reply);
	if (r < 0)
		return r;
	ADD(TOPOD_PLAN_HOLDERS_NAMED, (int)named);
	return 0;
}

/* the platform's stop_units: (name, active now, would be stopped) */
static int append_units(sd_bus_message *reply, const struct pt_platform *p,
			const struct tplan *pl)
{
	int r;

	ADD(TOPOD_PLAN_SYSTEMD, (int)pl->systemd);
	r = open_array(reply, TOPOD_PLAN_UNITS);
	for (unsigned int i = 0; r >= 0 && i < p->nunits; i++)
		r = sd_bus_message_append(reply, TOPOD_SIG(TOPOD_PLAN_UNITS) + 1,
					  p->units[i], (int)pl->unit_active[i],
					  (int)pl->unit_stop[i]);
	return r < 0 ? r : close_array(reply);
}

static int append_plan(sd_bus_message *reply, const struct topod *d,
		       const struct plan_call *c, const struct tplan *pl)
{
	int r = append_verdict(reply, d, c, pl);

	if (r >= 0)
		r = append_bmc_module(reply, d, pl);
	if (r >= 0)
		r = append_moving(reply, pl);
	if (r >= 0)
		r = append_holders(reply, pl, !strcmp(c->auth, "yes"));
	if (r >= 0)
		r = append_units(reply, &d->plat, pl);
	return r;
}

/* The holders' names stay with topod: the refusal counts them instead. */
static void redact_message(const struct plan_call *c, struct tplan *pl)
{
	if (!strcmp(c->auth, "yes") || pl->err != TERR_DEVICE_BUSY ||
	    !pl->nholders)
		return;
	{
		unsigned int n = 0;

		for (unsigned int i = 0; i < pl->nholders; i++)
			n += !strcmp(pl->holder_gpu[i], pl->holder_gpu[0]);
		snprintf(pl->msg, sizeof(pl->msg),
			 "GPU %s is in use: %u process(es) hold it, named only "
			 "to callers allowed to switch (stop it, or --force)",
			 pl->holder_gpu[0], n);
	}
}

static void reply_plan(struct topod *d, struct plan_call *c, struct tplan *pl)
{
	sd_bus_message *reply = NULL;
	int r;

	/* a switch that started meanwhile: SetLayout says Busy now (only
	 * Unsupported comes before it) */
	if (pl->err != TERR_UNSUPPORTED &&
	    request_busy(d, pl->msg, sizeof(pl->msg)) != TERR_OK)
		pl->err = TERR_BUSY;
	redact_message(c, pl);
	r = sd_bus_message_new_method_return(c->m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "{sv}");
	if (r >= 0)
		r = append_plan(reply, d, c, pl);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	if (r < 0) {
		tlog(LOG_ERR, "PlanLayout: answer: %s", strerror(-r));
		(void)sd_bus_reply_method_errno(c->m, r, NULL);
	}
	sd_bus_message_unref(reply);
	tlog(LOG_DEBUG, "PlanLayout %s: %s%s%s", ptc_layout_name(pl->to),
	     pl->err == TERR_OK ? "would proceed" : "would be refused",
	     pl->err == TERR_OK ? "" : ": ", pl->msg);
}

/* --- the queue ---------------------------------------------------------- */

static struct plan_call *dequeue(struct topod *d)
{
	struct plan_call *c = d->plan_queue;

	if (c) {
		d->plan_queue = c->next;
		d->plan_queued--;
	}
	return c;
}

/* Start the next dry run whose caller polkit has answered for. */
static void plan_next(struct topod *d)
{
	struct plan_call *c;

	while (!d->plan_running && d->plan_queue && d->plan_queue->asked) {
		struct tplan *pl;
		struct tjob *j;
		int r;

		c = dequeue(d);
		pl = calloc(1, sizeof(*pl));
		j = calloc(1, sizeof(*j));
		if (!pl || !j) {
			(void)sd_bus_reply_method_errno(c->m, -ENOMEM, NULL);
			goto drop;
		}
		pl->from = d->layout;
		pl->to = c->to;
		pl->flags = c->flags;
		pl->err = c->err;
		tcopy(pl->msg, sizeof(pl->msg), c->msg);
		if (d->job) {
			/* a switch in flight: Busy, and nothing to check */
			reply_plan(d, c, pl);
			goto drop;
		}
		j->d = d;
		j->kind = JOB_PLAN;
		j->to = c->to;
		j->flags = c->flags;
		j->msg_fd = d->msg_pipe[1];
		j->plan = pl;
		r = pthread_create(&j->thread, NULL, job_main, j);
		if (r) {
			(void)sd_bus_reply_method_errno(c->m, -r, NULL);
			goto drop;
		}
		d->plan_job = j;
		d->plan_running = c;
		continue;
drop:		/* answered already: forget the call */
		free(pl);
		free(j);
		call_free(c);
	}
}

static void plan_authorized(void *userdata, const char *answer)
{
	struct plan_call *c = userdata;

	tcopy(c->auth, sizeof(c->auth), answer);
	c->asked = true;
	plan_next(c->d);
}

int plan_request(struct topod *d, sd_bus_message *m, enum pcitopo_layout to,
		 uint64_t flags, enum terr err, const char *msg,
		 sd_bus_error *error)
{
	struct plan_call *c, **tail;
	int r;

	if (d->plan_queued >= PLAN_QUEUE_MAX)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "%u dry runs are waiting already; "
					 "try again", d->plan_queued);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->d = d;
	c->m = sd_bus_message_ref(m);
	c->to = to;
	c->flags = flags;
	c->err = err;
	if (err != TERR_OK)
		tcopy(c->msg, sizeof(c->msg), msg);
	/* queued now, so that the order of the calls is kept */
	for (tail = &d->plan_queue; *tail; tail = &(*tail)->next)
		;
	*tail = c;
	d->plan_queued++;
	r = polkit_query(d, m, plan_authorized, c, error);
	if (r < 0) {
		*tail = NULL;
		d->plan_queued--;
		call_free(c);
		return r;
	}
	return 1;	/* answered by reply_plan() */
}

void plan_finished(struct topod *d, struct tjob *j)
{
	struct plan_call *c = d->plan_running;

	/* answered by plan_shutdown() already: only its memory is left */
	if (!j->joined) {
		pthread_join(j->thread, NULL);
		if (c && j == d->plan_job)
			reply_plan(d, c, j->plan);
		if (j == d->plan_job) {
			d->plan_job = NULL;
			d->plan_running = NULL;
			if (c)
				call_free(c);
		}
	}
	free(j->plan);
	free(j);
	plan_next(d);
}

void plan_shutdown(struct topod *d)
{
	struct plan_call *c;

	/* the dry run in flight is short (a BMC status, /proc): let it end;
	 * its TM_PLAN, still in the pipe, frees it (plan_finished()) */
	if (d->plan_job) {
		pthread_join(d->plan_job->thread, NULL);
		d->plan_job->joined = true;
		(void)sd_bus_reply_method_errorf(d->plan_running->m,
						 SD_BUS_ERROR_FAILED,
						 "topod is stopping");
		call_free(d->plan_running);
		d->plan_job = NULL;
		d->plan_running = NULL;
	}
	while ((c = dequeue(d))) {
		(void)sd_bus_reply_method_errorf(c->m, SD_BUS_ERROR_FAILED,
						 "topod is stopping");
		/* polkit may still answer: its callback must find nothing */
		if (!c->asked)
			continue;	/* leaked with its pending call, on exit */
		call_free(c);
	}
}
