// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo_bmc.so: an ipmi_sim plugin that makes the simulator the BMC of the
 * emulated 8-GPU server. It implements the OEM layout commands of
 * Documentation/bmc-oem-protocol.md (NetFn 0x3C: switch firmware 0x10/0x11,
 * MUX 0x20/0x21), keeps the layout state in a file that survives a
 * simulator restart, applies a pending layout when the host is powered on,
 * runs an external helper to move devices for the online (MUX) method, and
 * adds console commands for fault injection. See
 * Documentation/bmc-simulator.md.
 *
 * ipmi_sim is single-threaded: nothing here blocks. Jobs run on simulator
 * timers; the helper is forked and its exit status comes back over a pipe
 * watched by the simulator's main loop.
 *
 * Loaded with:  loadlib "/abs/pcitopo_bmc.so" "state=/path busy_ms=1500 ..."
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <OpenIPMI/serv.h>
#include <OpenIPMI/mcserv.h>

#include "bmc_state.h"

#define PT_NETFN		0x3C
#define PT_CMD_SELECT		0x10
#define PT_CMD_STATUS		0x11
#define PT_CMD_SET_MUX		0x20
#define PT_CMD_MUX_STATUS	0x21
#define PT_MUX_MASK		0x01

#define CC_OK			0x00
#define CC_BUSY			0xC0
#define CC_INVALID_CMD		0xC1
#define CC_BAD_LENGTH		0xC7
#define CC_BAD_DATA		0xCC

#define LAN_MEDIUM		4	/* IPMI_CHANNEL_MEDIUM_8023_LAN */

static struct {
	sys_data_t *sys;
	char state_path[PATH_MAX];
	char qemu_ctl[PATH_MAX];
	char vm_dir[PATH_MAX];
	unsigned int busy_ms;
	int init_layout;
	enum bmc_method method;
	struct bmc_state st;

	ipmi_timer_t *timer;

	/* Fault injection: armed from the console, latched by a Select. */
	int fail_next;		/* 0 or the error code the next job ends with */
	int hang_next;
	int cc_next;		/* -1 or the completion code of the next command */
	int cc_count;		/* that many commands (-1: every one) answer it */
	int job_fail;		/* latched for the running job */
	int job_hang;
	unsigned int asked;	/* OEM commands received (each one logged) */

	/* The qemu_ctl helper of a MUX job. */
	pid_t helper_pid;
	int helper_fd;
	ipmi_io_t *helper_io;
	int helper_old;

	/* Wrapped power control of channel 15 (the VM interface). */
	channel_t *vm_chan;
	int (*vm_hw_op)(channel_t *chan, unsigned int op);
} pt = {
	.busy_ms = 1500,
	.init_layout = 1,
	.cc_next = -1,
	.helper_fd = -1,
};

#define pt_log(type, fmt, ...) \
	pt.sys->log(pt.sys, (type), NULL, "pcitopo_bmc: " fmt, ##__VA_ARGS__)

static void save_state(void)
{
	int r = bmc_state_save(&pt.st, pt.state_path);

	if (r)
		pt_log(OS_ERROR, "cannot write %s: %s", pt.state_path,
		       strerror(-r));
}

/* ---- jobs ---- */

static void job_end(int ok, int err)
{
	if (ok) {
		if (pt.method == BMC_METHOD_SWITCHFW) {
			/* Takes effect at the next power cycle. */
			pt.st.pending = pt.st.job_layout == pt.st.current ?
					0 : pt.st.job_layout;
		} else {
			/* Online: in effect now. */
			pt.st.current = pt.st.job_layout;
			pt.st.pending = 0;
		}
		pt.st.job_state = BMC_JOB_DONE;
		pt.st.job_error = 0;
	} else {
		pt.st.job_state = BMC_JOB_FAILED;
		pt.st.job_error = err;
	}
	save_state();
	pt_log(INFO, "job %d %s (current %s, pending %s, error %d)",
	       pt.st.job_id, bmc_job_state_name(pt.st.job_state),
	       bmc_layout_name(pt.st.current), bmc_layout_name(pt.st.pending),
	       pt.st.job_error);
}

static void helper_done(int fd, void *cb_data)
{
	unsigned char rc = 255;
	ssize_t n;

	(void)cb_data;
	n = read(fd, &rc, 1);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n != 1)
		rc = 255;
	pt.sys->remove_io_hnd(pt.helper_io);
	pt.helper_io = NULL;
	close(fd);
	pt.helper_fd = -1;
	pt.helper_pid = 0;
	pt_log(INFO, "qemu_ctl exited %d", rc);
	if (pt.st.job_state == BMC_JOB_BUSY)
		job_end(rc == 0, BMC_ERR_MUX_SETTLE);
}

/*
 * Run "qemu_ctl OLD NEW" without blocking: a child forks the helper, waits
 * for it and writes its exit status (one byte) into a pipe that the main
 * loop watches. ipmi_sim's own SIGCHLD handler reaps the child.
 */
static int helper_start(int old_layout, int new_layout)
{
	char log[PATH_MAX + 16];
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	snprintf(log, sizeof(log), "%s.helper.log", pt.state_path);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	if (pid == 0) {
		static const int sigs[] = { SIGCHLD, SIGINT, SIGQUIT, SIGTERM,
					    SIGHUP, SIGPIPE };
		unsigned char rc = 255;
		sigset_t none;
		int status, lfd, nfd;
		pid_t g;

		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		g = fork();
		if (g == 0) {
			if (nfd >= 0)
				dup2(nfd, 0);
			if (lfd >= 0) {
				dup2(lfd, 1);
				dup2(lfd, 2);
			}
			/* Leave none of the simulator's sockets behind. */
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
			setenv("PCITOPO_BMC_STATE", pt.state_path, 1);
			setenv("PCITOPO_VM_DIR", pt.vm_dir, 1);
			execl(pt.qemu_ctl, pt.qemu_ctl,
			      bmc_layout_name(old_layout),
			      bmc_layout_name(new_layout), (char *)NULL);
			_exit(127);
		}
		if (g > 0) {
			while (waitpid(g, &status, 0) < 0 && errno == EINTR)
				;
			if (WIFEXITED(status))
				rc = (unsigned char)WEXITSTATUS(status);
			else
				rc = (unsigned char)(128 + WTERMSIG(status));
		}
		if (write(pfd[1], &rc, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (pt.sys->add_io_hnd(pt.sys, pfd[0], helper_done, NULL,
			       &pt.helper_io)) {
		close(pfd[0]);
		return -ENOMEM;
	}
	pt.helper_fd = pfd[0];
	pt.helper_pid = pid;
	return 0;
}

/* The busy time is over (or the job was unhung). */
static void job_complete(void)
{
	int r;

	if (pt.job_fail) {
		job_end(0, pt.job_fail);
		return;
	}
	if (pt.method == BMC_METHOD_MUX && pt.qemu_ctl[0]) {
		pt.helper_old = pt.st.current;
		r = helper_start(pt.st.current, pt.st.job_layout);
		if (r) {
			pt_log(OS_ERROR, "cannot run %s: %s", pt.qemu_ctl,
			       strerror(-r));
			job_end(0, BMC_ERR_MUX_SETTLE);
		}
		return;		/* stays busy until the helper exits */
	}
	job_end(1, 0);
}

static void job_timeout(void *cb_data)
{
	(void)cb_data;
	if (pt.st.job_state == BMC_JOB_BUSY && !pt.job_hang &&
	    !pt.helper_pid)
		job_complete();
}

static int job_start(int layout)
{
	struct timeval tv = {
		.tv_sec = pt.busy_ms / 1000,
		.tv_usec = (pt.busy_ms % 1000) * 1000,
	};

	pt.st.job_id = pt.st.job_id % 255 + 1;
	pt.st.job_state = BMC_JOB_BUSY;
	pt.st.job_layout = layout;
	pt.st.job_error = 0;
	pt.job_fail = pt.fail_next;
	pt.job_hang = pt.hang_next;
	pt.fail_next = 0;
	pt.hang_next = 0;
	save_state();
	pt_log(INFO, "job %d: %s -> %s%s%s", pt.st.job_id,
	       bmc_layout_name(pt.st.current), bmc_layout_name(layout),
	       pt.job_fail ? " (will fail)" : "",
	       pt.job_hang ? " (hangs)" : "");
	if (pt.job_hang)
		return 0;
	pt.sys->stop_timer(pt.timer);
	return pt.sys->start_timer(pt.timer, &tv);
}

/* ---- OEM command handlers ---- */

/* Common prologue: each OEM command logged (tests read what topod asked),
 * method check and injected completion code. */
static int pt_prologue(enum bmc_method m, const char *what,
		       unsigned char *rdata, unsigned int *rdata_len)
{
	pt.asked++;
	pt_log(INFO, "asked: %s (OEM command %u)", what, pt.asked);
	*rdata_len = 1;
	if (m != pt.method) {
		rdata[0] = CC_INVALID_CMD;
		return 1;
	}
	if (pt.cc_next >= 0) {
		rdata[0] = (unsigned char)pt.cc_next;
		if (pt.cc_count > 0 && !--pt.cc_count)
			pt.cc_next = -1;
		return 1;
	}
	return 0;
}

static void select_common(unsigned int want_len, unsigned int layout_at,
			  lmc_data_t *mc, msg_t *msg, unsigned char *rdata,
			  unsigned int *rdata_len, enum bmc_method m)
{
	int layout;

	(void)mc;
	if (pt_prologue(m, m == BMC_METHOD_MUX ? "mux select" : "select",
			rdata, rdata_len))
		return;
	if (msg->len != want_len) {
		rdata[0] = CC_BAD_LENGTH;
		return;
	}
	if (pt.st.job_state == BMC_JOB_BUSY) {
		rdata[0] = CC_BUSY;
		return;
	}
	layout = msg->data[layout_at];
	if (layout < 1 || layout > 3 ||
	    (m == BMC_METHOD_MUX && msg->data[0] != PT_MUX_MASK)) {
		rdata[0] = CC_BAD_DATA;
		return;
	}
	if (job_start(layout)) {
		rdata[0] = 0xFF;	/* unspecified error */
		return;
	}
	rdata[0] = CC_OK;
	rdata[1] = (unsigned char)pt.st.job_id;
	*rdata_len = 2;
}

static void status_common(lmc_data_t *mc, msg_t *msg, unsigned char *rdata,
			  unsigned int *rdata_len, enum bmc_method m)
{
	(void)mc;
	if (pt_prologue(m, m == BMC_METHOD_MUX ? "mux status" : "status",
			rdata, rdata_len))
		return;
	if (msg->len != 0) {
		rdata[0] = CC_BAD_LENGTH;
		return;
	}
	rdata[0] = CC_OK;
	rdata[1] = (unsigned char)pt.st.job_state;
	rdata[2] = (unsigned char)pt.st.current;
	rdata[3] = (unsigned char)pt.st.pending;
	rdata[4] = (unsigned char)pt.st.job_id;
	rdata[5] = (unsigned char)pt.st.job_error;
	*rdata_len = 6;
}

static void h_select(lmc_data_t *mc, msg_t *msg, unsigned char *rdata,
		     unsigned int *rdata_len, void *cb_data)
{
	(void)cb_data;
	select_common(1, 0, mc, msg, rdata, rdata_len, BMC_METHOD_SWITCHFW);
}

static void h_status(lmc_data_t *mc, msg_t *msg, unsigned char *rdata,
		     unsigned int *rdata_len, void *cb_data)
{
	(void)cb_data;
	status_common(mc, msg, rdata, rdata_len, BMC_METHOD_SWITCHFW);
}

static void h_set_mux(lmc_data_t *mc, msg_t *msg, unsigned char *rdata,
		      unsigned int *rdata_len, void *cb_data)
{
	(void)cb_data;
	select_common(2, 1, mc, msg, rdata, rdata_len, BMC_METHOD_MUX);
}

static void h_mux_status(lmc_data_t *mc, msg_t *msg, unsigned char *rdata,
			 unsigned int *rdata_len, void *cb_data)
{
	(void)cb_data;
	status_common(mc, msg, rdata, rdata_len, BMC_METHOD_MUX);
}

/* ---- power: pending -> current when the host is switched on ---- */

static int pt_hw_op(channel_t *chan, unsigned int op)
{
	startcmd_t *sc = pt.sys->mc_get_startcmdinfo(pt.sys->mc);

	if (op == HW_OP_POWERON && sc && !sc->vmpid && pt.st.pending) {
		pt_log(INFO, "power on: layout %s -> %s",
		       bmc_layout_name(pt.st.current),
		       bmc_layout_name(pt.st.pending));
		pt.st.current = pt.st.pending;
		pt.st.pending = 0;
		save_state();
	}
	return pt.vm_hw_op(chan, op);
}

/* ---- console commands ---- */

static const char *next_tok(char **toks)
{
	return mystrtok(NULL, " \t\n", toks);
}

static int parse_byte(const char *s, int *out)
{
	char *end;
	long v;

	if (!s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < 0 || v > 255)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static int c_fail_next(emu_out_t *out, emu_data_t *emu, lmc_data_t *mc,
		       char **toks)
{
	const char *t = next_tok(toks);
	int code = pt.method == BMC_METHOD_MUX ? BMC_ERR_MUX_SETTLE :
						 BMC_ERR_SWITCHFW_WRITE;

	(void)emu;
	(void)mc;
	if (t && (parse_byte(t, &code) || code == 0)) {
		out->eprintf(out, "**pcitopo_fail_next: bad error code %s\n", t);
		return EINVAL;
	}
	pt.fail_next = code;
	out->eprintf(out, "pcitopo: next job fails with error %d\n", code);
	return 0;
}

static int c_hang(emu_out_t *out, emu_data_t *emu, lmc_data_t *mc,
		  char **toks)
{
	(void)emu;
	(void)mc;
	(void)toks;
	pt.hang_next = 1;
	out->eprintf(out, "pcitopo: next job stays busy until pcitopo_unhang\n");
	return 0;
}

static int c_unhang(emu_out_t *out, emu_data_t *emu, lmc_data_t *mc,
		    char **toks)
{
	(void)emu;
	(void)mc;
	(void)toks;
	pt.hang_next = 0;
	if (pt.job_hang && pt.st.job_state == BMC_JOB_BUSY) {
		pt.job_hang = 0;
		out->eprintf(out, "pcitopo: job %d released\n", pt.st.job_id);
		job_complete();
	} else {
		pt.job_hang = 0;
		out->eprintf(out, "pcitopo: no hung job\n");
	}
	return 0;
}

/* pcitopo_cc CC [N|forever]: the next N OEM commands (1; forever: all,
 * a BMC stuck initializing) answer CC; pcitopo_cc off: none any more */
static int c_cc(emu_out_t *out, emu_data_t *emu, lmc_data_t *mc, char **toks)
{
	const char *t = next_tok(toks), *c = next_tok(toks);
	int cc, n = 1;
	char *end;

	(void)emu;
	(void)mc;
	if (t && !strcmp(t, "off") && !c) {
		pt.cc_next = -1;
		pt.cc_count = 0;
		out->eprintf(out, "pcitopo: OEM commands answer normally\n");
		return 0;
	}
	if (c && !strcmp(c, "forever")) {
		n = -1;
	} else if (c) {
		errno = 0;
		n = (int)strtol(c, &end, 0);
		if (errno || *end || end == c || n < 1)
			n = 0;
	}
	if (parse_byte(t, &cc) || !n || next_tok(toks)) {
		out->eprintf(out, "**usage: pcitopo_cc CC (0..0xff) [N|forever] "
			     "| pcitopo_cc off\n");
		return EINVAL;
	}
	pt.cc_next = cc;
	pt.cc_count = n;
	if (n < 0)
		out->eprintf(out, "pcitopo: every OEM command answers 0x%02x\n",
			     cc);
	else
		out->eprintf(out, "pcitopo: the next %d OEM command(s) answer "
			     "0x%02x\n", n, cc);
	return 0;
}

/* pcitopo_forget: the BMC back from a reset that lost its job: no job
 * (idle, id 0), a running or hung one dropped where it was (the layouts
 * as they are: a MUX that had not moved stays) */
static int c_forget(emu_out_t *out, emu_data_t *emu, lmc_data_t *mc,
		    char **toks)
{
	(void)emu;
	(void)mc;
	(void)toks;
	pt.sys->stop_timer(pt.timer);
	pt.job_hang = 0;
	pt.hang_next = 0;
	pt.job_fail = 0;
	pt.st.job_state = BMC_JOB_IDLE;
	pt.st.job_id = 0;
	pt.st.job_layout = 0;
	pt.st.job_error = 0;
	save_state();
	out->eprintf(out, "pcitopo: no job remembered (current %s)\n",
		     bmc_layout_name(pt.st.current));
	return 0;
}

/*
 * Close every LAN session: the session's inactivity time is set to zero, so
 * the LAN code itself closes it at its next tick (within 1 s). A client
 * holding the session gets no answer to its next request (the session id is
 * unknown) and must open a new session.
 */
static int c_drop(emu_out_t *out, emu_data_t *emu, lmc_data_t *mc,
		  char **toks)
{
	channel_t **chans = pt.sys->mc_get_channelset(pt.sys->mc);
	int n = 0;

	(void)emu;
	(void)mc;
	(void)toks;
	for (int c = 0; chans && c < IPMI_MAX_CHANNELS; c++) {
		lanserv_data_t *lan;

		if (!chans[c] || chans[c]->medium_type != LAN_MEDIUM ||
		    !chans[c]->chan_info)
			continue;
		lan = chans[c]->chan_info;
		for (int i = 1; i <= MAX_SESSIONS; i++) {
			if (lan->sessions[i].active) {
				lan->sessions[i].time_left = 0;
				n++;
			}
		}
	}
	out->eprintf(out, "pcitopo: dropping %d LAN session(s)\n", n);
	return 0;
}

static int c_state(emu_out_t *out, emu_data_t *emu, lmc_data_t *mc,
		   char **toks)
{
	startcmd_t *sc = pt.sys->mc_get_startcmdinfo(pt.sys->mc);

	(void)emu;
	(void)mc;
	(void)toks;
	out->eprintf(out, "pcitopo: method=%s current=%s pending=%s\n",
		     bmc_method_name(pt.method), bmc_layout_name(pt.st.current),
		     bmc_layout_name(pt.st.pending));
	out->eprintf(out, "pcitopo: job=%d state=%s layout=%s error=%d\n",
		     pt.st.job_id, bmc_job_state_name(pt.st.job_state),
		     bmc_layout_name(pt.st.job_layout), pt.st.job_error);
	out->eprintf(out, "pcitopo: fail_next=%d hang_next=%d hung=%d cc_next=%d cc_count=%d asked=%u helper_pid=%d host_pid=%d\n",
		     pt.fail_next, pt.hang_next, pt.job_hang, pt.cc_next,
		     pt.cc_count, pt.asked,
		     (int)pt.helper_pid, sc ? sc->vmpid : 0);
	return 0;
}

/* ---- module entry points ---- */

static int parse_options(const char *opts)
{
	char buf[4096], *save = NULL, *tok;
	int r;

	if (snprintf(buf, sizeof(buf), "%s", opts ? opts : "") >=
	    (int)sizeof(buf))
		return -E2BIG;
	for (tok = strtok_r(buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *v = strchr(tok, '=');
		char *end;
		unsigned long ms;

		if (!v)
			goto bad;
		*v++ = '\0';
		if (strcmp(tok, "state") == 0) {
			if (v[0] != '/' || strlen(v) >= sizeof(pt.state_path) - 16)
				goto bad;
			strcpy(pt.state_path, v);
		} else if (strcmp(tok, "busy_ms") == 0) {
			errno = 0;
			ms = strtoul(v, &end, 10);
			if (errno || *end || end == v || ms > 3600000)
				goto bad;
			pt.busy_ms = (unsigned int)ms;
		} else if (strcmp(tok, "method") == 0) {
			r = bmc_method_code(v);
			if (r < 0)
				goto bad;
			pt.method = r;
		} else if (strcmp(tok, "layout") == 0) {
			pt.init_layout = bmc_layout_code(v);
			if (!pt.init_layout)
				goto bad;
		} else if (strcmp(tok, "qemu_ctl") == 0) {
			if (strlen(v) >= sizeof(pt.qemu_ctl))
				goto bad;
			strcpy(pt.qemu_ctl, v);
		} else if (strcmp(tok, "vm_dir") == 0) {
			if (strlen(v) >= sizeof(pt.vm_dir))
				goto bad;
			strcpy(pt.vm_dir, v);
		} else {
			goto bad;
		}
		continue;
bad:
		fprintf(stderr, "pcitopo_bmc: bad option %s%s%s\n", tok,
			v ? "=" : "", v ? v : "");
		return -EINVAL;
	}
	if (!pt.state_path[0]) {
		fprintf(stderr, "pcitopo_bmc: option state=/abs/path is required\n");
		return -EINVAL;
	}
	if (!pt.vm_dir[0]) {
		char *slash;

		strcpy(pt.vm_dir, pt.state_path);
		slash = strrchr(pt.vm_dir, '/');
		strcpy(slash == pt.vm_dir ? slash + 1 : slash, "/vm");
	}
	return 0;
}

int ipmi_sim_module_print_version(sys_data_t *sys, const char *initstr);
int ipmi_sim_module_init(sys_data_t *sys, const char *initstr);
void ipmi_sim_module_post_init(sys_data_t *sys);

int ipmi_sim_module_print_version(sys_data_t *sys, const char *initstr)
{
	(void)sys;
	(void)initstr;
	printf("pcitopo_bmc 1 (OEM NetFn 0x%02x)\n", PT_NETFN);
	return 0;
}

int ipmi_sim_module_init(sys_data_t *sys, const char *initstr)
{
	static const struct {
		const char *name;
		ipmi_emu_cmd_handler fn;
	} cmds[] = {
		{ "pcitopo_fail_next", c_fail_next },
		{ "pcitopo_hang", c_hang },
		{ "pcitopo_unhang", c_unhang },
		{ "pcitopo_cc", c_cc },
		{ "pcitopo_drop", c_drop },
		{ "pcitopo_state", c_state },
		{ "pcitopo_forget", c_forget },
	};
	int r;

	pt.sys = sys;
	r = parse_options(initstr);
	if (r)
		return -r;

	pt.st = (struct bmc_state){ .method = pt.method,
				    .current = pt.init_layout };
	r = bmc_state_load(&pt.st, pt.state_path);
	if (r && r != -ENOENT) {
		fprintf(stderr, "pcitopo_bmc: cannot read %s: %s\n",
			pt.state_path, strerror(-r));
		return -r;
	}
	if (pt.st.method != pt.method) {
		/* The state came from the other method: keep the layouts,
		 * forget a pending layout that MUX cannot have. */
		if (pt.method == BMC_METHOD_MUX && pt.st.pending) {
			pt.st.current = pt.st.pending;
			pt.st.pending = 0;
		}
		pt.st.method = pt.method;
	}
	if (pt.st.job_state == BMC_JOB_BUSY) {
		/* The simulator stopped in the middle of a job: it failed. */
		pt.st.job_state = BMC_JOB_FAILED;
		pt.st.job_error = pt.method == BMC_METHOD_MUX ?
				  BMC_ERR_MUX_SETTLE : BMC_ERR_SWITCHFW_WRITE;
	}
	save_state();

	r = sys->alloc_timer(sys, job_timeout, NULL, &pt.timer);
	if (r)
		return r;
	r = ipmi_emu_register_cmd_handler(PT_NETFN, PT_CMD_SELECT, h_select,
					  NULL);
	r = r ? r : ipmi_emu_register_cmd_handler(PT_NETFN, PT_CMD_STATUS,
						  h_status, NULL);
	r = r ? r : ipmi_emu_register_cmd_handler(PT_NETFN, PT_CMD_SET_MUX,
						  h_set_mux, NULL);
	r = r ? r : ipmi_emu_register_cmd_handler(PT_NETFN, PT_CMD_MUX_STATUS,
						  h_mux_status, NULL);
	for (size_t i = 0; !r && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		r = ipmi_emu_add_cmd(cmds[i].name, NOMC, cmds[i].fn);
	if (r)
		return r;
	pt_log(INFO, "method %s, state %s, current %s, pending %s, busy %u ms",
	       bmc_method_name(pt.method), pt.state_path,
	       bmc_layout_name(pt.st.current), bmc_layout_name(pt.st.pending),
	       pt.busy_ms);
	return 0;
}

void ipmi_sim_module_post_init(sys_data_t *sys)
{
	channel_t **chans = sys->mc_get_channelset(sys->mc);

	/* Power on goes through channel 15's hw_op (serial ... codec VM +
	 * startcmd): wrap it to apply the pending layout first. */
	if (chans && chans[15] && chans[15]->hw_op) {
		pt.vm_chan = chans[15];
		pt.vm_hw_op = chans[15]->hw_op;
		chans[15]->hw_op = pt_hw_op;
	} else {
		pt_log(SETUP_ERROR, "no channel 15 power control: a pending layout is applied only at the next simulator start");
	}
}
