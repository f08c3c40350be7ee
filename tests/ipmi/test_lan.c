// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptipmi's LAN transport against a live BMC (ipmi_sim on loopback,
 * started by tests/ipmi/t-ipmi.sh):
 *
 *   test_lan PORT CREDS_FILE DEAD_PORT [PLATFORM SIM_PID]
 *
 * DEAD_PORT: a loopback UDP port where nothing listens. With PLATFORM (a
 * platforms/NAME.conf matching the BMC's OEM plugin, bmcsim/) and SIM_PID
 * (the ipmi_sim process, stopped and continued to make it miss a request)
 * the OEM select/status commands are tested too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <signal.h>
#include <unistd.h>

#include "ipmi.h"
#include "platform_ipmi.h"
#include "ptc.h"
#include "tap.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int status(struct pt_ipmi *h, const struct pt_platform *p,
		  struct pt_plat_job *job)
{
	const struct pt_plat_req *r = &pt_plat_ipmi(p)->status.request;
	uint8_t rsp[64];
	size_t n;
	int ret;

	ret = pt_ipmi_cmd(h, r->netfn, r->cmd, PT_IPMI_F_RETRY, r->data,
			  r->len, rsp, sizeof(rsp), &n, NULL);
	if (ret)
		return ret;
	return pt_plat_ipmi_decode_status(p, rsp, n, job, NULL, 0);
}

static int select_layout(struct pt_ipmi *h, const struct pt_platform *p,
			 enum pcitopo_layout l, uint8_t *cc)
{
	const struct pt_plat_req *r = &pt_plat_ipmi(p)->layouts[l].select;
	uint8_t rsp[8];
	size_t n;

	return pt_ipmi_cmd(h, r->netfn, r->cmd, 0, r->data, r->len, rsp,
			   sizeof(rsp), &n, cc);
}

/* Poll until the job leaves busy; 0 or the error. */
static int wait_job(struct pt_ipmi *h, const struct pt_platform *p,
		    struct pt_plat_job *job)
{
	double end = now_ms() + p->bmc_job_ms;
	int ret;

	do {
		ret = status(h, p, job);
		if (ret || job->state != PT_PLAT_STATE_BUSY)
			return ret;
		usleep(p->poll_ms * 1000);
	} while (now_ms() < end);
	return -ETIMEDOUT;
}

static void test_oem(unsigned int port, const struct pt_ipmi_creds *creds,
		     const char *plat_file, pid_t sim)
{
	struct pt_ipmi_opts opts = { .timeout_ms = 600, .retries = -1 };
	static struct pt_platform p;
	struct pt_plat_job job, before;
	char err[PT_PLAT_ERRLEN];
	enum pcitopo_layout cur, a, b;
	struct pt_ipmi *h;
	uint8_t cc = 0;
	double t;
	int ret;

	if (pt_platform_load(plat_file, &p, err, sizeof(err))) {
		tap_ok(0, "OEM: platform loads: %s", err);
		return;
	}
	if (pt_ipmi_open_lan(&h, "127.0.0.1", port, creds, -1, &opts, err,
			     sizeof(err))) {
		tap_ok(0, "OEM: session: %s", err);
		return;
	}
	ret = wait_job(h, &p, &job);
	cur = job.current;
	tap_ok(ret == 0 && job.state != PT_PLAT_STATE_UNKNOWN && cur,
	       "OEM %s: status decodes (state %s, current %s)", p.name,
	       pt_platform_state_name(job.state),
	       ptc_layout_name(cur));
	if (ret) {
		tap_diag("%s", pt_ipmi_errmsg(h));
		pt_ipmi_close(h);
		return;
	}
	/* two layouts other than the current one */
	a = cur == PCITOPO_LAYOUT_CASCADE ? PCITOPO_LAYOUT_BALANCE :
	    PCITOPO_LAYOUT_CASCADE;
	b = cur == PCITOPO_LAYOUT_COMMON ? PCITOPO_LAYOUT_BALANCE :
	    PCITOPO_LAYOUT_COMMON;
	before = job;

	ret = select_layout(h, &p, a, &cc);
	tap_eq(ret, 0, "OEM %s: select %s accepted", p.name,
	       ptc_layout_name(a));
	ret = select_layout(h, &p, b, &cc);
	tap_ok(ret == -EREMOTEIO && cc == 0xC0 &&
	       strstr(pt_ipmi_errmsg(h), "0xC0 node busy"),
	       "OEM %s: select while busy: -EREMOTEIO, 0xC0 node busy", p.name);
	ret = wait_job(h, &p, &job);
	tap_ok(ret == 0 && job.state == PT_PLAT_STATE_DONE &&
	       job.job == (before.job + 1) % 256 &&
	       (p.apply == PT_PLAT_APPLY_POWER_CYCLE ?
		job.pending == a && job.current == cur : job.current == a),
	       "OEM %s: job done, %s %s", p.name,
	       p.apply == PT_PLAT_APPLY_POWER_CYCLE ? "pending" : "current",
	       ptc_layout_name(a));

	/*
	 * The BMC misses a Select (stopped): -ETIMEDOUT after one timeout,
	 * never resent. When it runs again it executes the one queued
	 * request: the job id grows by exactly one.
	 */
	before = job;
	kill(sim, SIGSTOP);
	t = now_ms();
	ret = select_layout(h, &p, b, &cc);
	t = now_ms() - t;
	kill(sim, SIGCONT);
	tap_ok(ret == -ETIMEDOUT && t >= 550 && t < 1200 &&
	       strstr(pt_ipmi_errmsg(h), "not resent"),
	       "OEM %s: unanswered select: -ETIMEDOUT after one 600 ms timeout "
	       "(%.0f ms), not resent", p.name, t);
	tap_diag("%s", pt_ipmi_errmsg(h));
	ret = wait_job(h, &p, &job);
	tap_ok(ret == 0 && job.job == (before.job + 1) % 256 &&
	       pt_ipmi_sessions(h) == 2,
	       "OEM %s: status after it: the select ran once (job %d -> %d), "
	       "new session", p.name, before.job, job.job);
	if (ret)
		tap_diag("%s", pt_ipmi_errmsg(h));
	pt_ipmi_close(h);
}

int main(int argc, char **argv)
{
	struct pt_ipmi_opts opts = { .session_timeout_ms = 1500 };
	struct pt_ipmi_creds creds, wrong;
	char err[PT_IPMI_ERRLEN], name[64];
	uint8_t rsp[64], cc;
	struct pt_ipmi *h;
	unsigned int port, dead;
	size_t n;
	double t;
	int ret, okcount;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: test_lan PORT CREDS_FILE DEAD_PORT "
			"[PLATFORM SIM_PID]\n");
		return 2;
	}
	port = (unsigned int)atoi(argv[1]);
	dead = (unsigned int)atoi(argv[3]);
	if (pt_ipmi_creds_load(argv[2], &creds, err, sizeof(err))) {
		tap_ok(0, "credentials load: %s", err);
		return tap_done();
	}

	t = now_ms();
	ret = pt_ipmi_open_lan(&h, "127.0.0.1", port, &creds, -1, &opts, err,
			       sizeof(err));
	t = now_ms() - t;
	tap_eq(ret, 0, "RMCP+ session (cipher suite 3) opens");
	if (ret) {
		tap_diag("%s", err);
		return tap_done();
	}
	tap_diag("session setup %.1f ms", t);
	snprintf(name, sizeof(name), "127.0.0.1:%u", port);
	tap_streq(pt_ipmi_name(h), name, "handle is named host:port");

	ret = pt_ipmi_cmd(h, 0x06, 0x01, PT_IPMI_F_RETRY, NULL, 0, rsp,
			  sizeof(rsp), &n, &cc);
	tap_ok(ret == 0 && cc == 0 && n >= 11,
	       "Get Device ID answers with cc 0 and >= 11 bytes (%zu)", n);
	/* the bytes, for the comparison with ipmitool in t-ipmi.sh */
	printf("# devid");
	for (size_t i = 0; i < n; i++)
		printf(" %02x", rsp[i]);
	printf("\n");

	okcount = 0;
	for (int i = 0; i < 500; i++)
		okcount += !pt_ipmi_cmd(h, 0x06, 0x01, PT_IPMI_F_RETRY, NULL, 0,
					rsp, sizeof(rsp), &n, NULL);
	tap_ok(okcount == 500 && pt_ipmi_sessions(h) == 1,
	       "500 requests over one session (%d ok, %u sessions)", okcount,
	       pt_ipmi_sessions(h));

	cc = 0;
	ret = pt_ipmi_cmd(h, 0x06, 0x7f, 0, NULL, 0, rsp, sizeof(rsp), &n, &cc);
	tap_ok(ret == -EREMOTEIO && cc == 0xC1 &&
	       strstr(pt_ipmi_errmsg(h), "0xC1 invalid command") &&
	       strstr(pt_ipmi_errmsg(h), name) &&
	       strstr(pt_ipmi_errmsg(h), "netfn 0x06 cmd 0x7f"),
	       "unsupported command: -EREMOTEIO, cc 0xC1 \"invalid command\"");
	tap_diag("%s", pt_ipmi_errmsg(h));

	ret = pt_ipmi_cmd(h, 0x06, 0x01, PT_IPMI_F_RETRY, NULL, 0, rsp, 4, &n,
			  NULL);
	tap_ok(ret == -EMSGSIZE && n > 4,
	       "answer larger than the buffer: -EMSGSIZE, length reported");
	ret = pt_ipmi_cmd(h, 0x07, 0x01, 0, NULL, 0, rsp, sizeof(rsp), &n,
			  NULL);
	tap_eq(ret, -EINVAL, "a response netfn (odd) is refused locally");
	ret = pt_ipmi_cmd(h, 0x06, 0x01, PT_IPMI_F_RETRY, NULL, 0, rsp,
			  sizeof(rsp), &n, NULL);
	tap_ok(ret == 0 && pt_ipmi_sessions(h) == 1,
	       "the session survives errors (still one session)");
	pt_ipmi_close(h);

	wrong = creds;
	snprintf(wrong.password, sizeof(wrong.password), "not-%.12s",
		 creds.password);
	t = now_ms();
	ret = pt_ipmi_open_lan(&h, "127.0.0.1", port, &wrong, -1, &opts, err,
			       sizeof(err));
	t = now_ms() - t;
	tap_ok(ret == -EACCES && strstr(err, "wrong password") &&
	       strstr(err, name) && t < 1000,
	       "wrong password: -EACCES within 1 s (%.0f ms), says so", t);
	tap_diag("%s", err);

	wrong = creds;
	snprintf(wrong.user, sizeof(wrong.user), "nosuchuser");
	t = now_ms();
	ret = pt_ipmi_open_lan(&h, "127.0.0.1", port, &wrong, -1, &opts, err,
			       sizeof(err));
	t = now_ms() - t;
	tap_ok(ret == -EACCES && strstr(err, "user name") && t < 1000,
	       "unknown user: -EACCES within 1 s (%.0f ms), says so", t);
	tap_diag("%s", err);

	snprintf(name, sizeof(name), "127.0.0.1:%u", dead);
	t = now_ms();
	ret = pt_ipmi_open_lan(&h, "127.0.0.1", dead, &creds, -1, &opts, err,
			       sizeof(err));
	t = now_ms() - t;
	tap_ok(ret == -ETIMEDOUT && strstr(err, name) &&
	       strstr(err, "session setup") && t >= 1400 && t < 2500,
	       "nothing listening: -ETIMEDOUT after the 1500 ms bound (%.0f ms),"
	       " message names the BMC", t);
	tap_diag("%s", err);

	ret = pt_ipmi_open_lan(&h, "127.0.0.1", port, &creds, 17, &opts, err,
			       sizeof(err));
	tap_ok(ret == -EPROTONOSUPPORT && strstr(err, "HMAC-SHA256"),
	       "cipher suite 17 refused with the documented message");

	ret = pt_ipmi_open_lan(&h, "127.0.0.1", port, &creds, 0, &opts, err,
			       sizeof(err));
	if (!ret) {
		ret = pt_ipmi_cmd(h, 0x06, 0x01, PT_IPMI_F_RETRY, NULL, 0, rsp,
				  sizeof(rsp), &n, NULL);
		pt_ipmi_close(h);
	}
	tap_eq(ret, 0, "cipher suite 0 (no authentication) also works "
	       "against ipmi_sim");

	if (argc == 6)
		test_oem(port, &creds, argv[4], (pid_t)atoi(argv[5]));

	pt_ipmi_creds_wipe(&creds);
	return tap_done();
}
