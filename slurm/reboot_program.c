// SPDX-License-Identifier: GPL-2.0
/*
 * slurm-reboot-program: slurm.conf's RebootProgram for nodes whose layout
 * Slurm changes (node_features/helpers). slurmd runs it with no argument
 * after the feature helper recorded the target (slurm-feature-helper
 * LAYOUT), from inside its reboot RPC and holding its configuration lock:
 * so it checks the target, forks the work away and returns at once.
 *
 * The work (logged to /run/pcitopo/slurm-reboot.log):
 *   - online platform (MUX; Apply "online", from the helper's dry run,
 *     else topoctl status): `topoctl set TARGET` (topod's SetLayout),
 *     waiting for the job to finish; then
 *     slurmd is restarted with -b, which makes its own start count as the
 *     node's boot: slurmctld accepts the node back (boot time after the
 *     reboot request) without a real reboot;
 *   - power-cycle platform (switch firmware): `topoctl set TARGET
 *     --power-cycle`: topod has the BMC power cycle the host, a real boot;
 *   - the switch failed: the error is recorded (slurm-error) and slurmd
 *     restarted with -b all the same: the node comes back in its old layout
 *     at once and the Prolog refuses the job, draining the node with the
 *     error as reason (instead of a node left booting until ResumeTimeout).
 * No target recorded (a plain `scontrol reboot`, or no layout asked): it
 * does nothing, says so in the log and on stderr, and exits 1.
 *
 * The restart: $PCITOPO_SLURMD_RESTART (a shell command) if set, else
 * /run/pcitopo/slurmd-boot.env (PCITOPO_SLURMD_BOOT=-b, read once by the
 * shipped slurmd.service drop-in, then removed) and `systemctl --no-block
 * restart slurmd.service`.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pt_slurm.h"

#define SWITCH_TIMEOUT_MS	(30 * 60 * 1000)

static void logf_(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "%lld.%03ld slurm-reboot-program[%ld]: ",
		(long long)ts.tv_sec, ts.tv_nsec / 1000000, (long)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static void open_log(void)
{
	char path[512];
	int fd;

	pt_run_path("", path, sizeof(path));
	mkdir(path, 0755);
	fd = open(pt_run_path("slurm-reboot.log", path, sizeof(path)),
		  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
}

static void record_error(const char *msg)
{
	static const char *const keys[] = { "error" };
	const char *values[] = { msg };
	int r = pt_record_write("slurm-error", keys, values, 1);

	if (r < 0)
		logf_("cannot record the error: %s", strerror(-r));
}

/* "online" or "power-cycle" (topod's Apply), or "" */
static void apply_of(char *out, size_t len)
{
	char *argv[] = { (char *)pt_topoctl(), "-j", "status", NULL };
	struct json_object *o, *a;
	char buf[4096];

	out[0] = '\0';
	if (pt_run(argv, buf, sizeof(buf), 10000))
		return;
	o = json_tokener_parse(buf);
	if (o && json_object_object_get_ex(o, "apply", &a))
		snprintf(out, len, "%s", json_object_get_string(a));
	json_object_put(o);
}

static int restart_slurmd(void)
{
	const char *cmd = getenv("PCITOPO_SLURMD_RESTART");
	static const char *const keys[] = { "PCITOPO_SLURMD_BOOT" };
	static const char *const values[] = { "-b" };
	char out[4096];
	int r;

	if (cmd && *cmd) {
		char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };

		logf_("restarting slurmd with -b: %s", cmd);
		r = pt_run(argv, out, sizeof(out), 60000);
	} else {
		char *argv[] = { "/bin/systemctl", "--no-block", "restart",
				 "slurmd.service", NULL };

		r = pt_record_write("slurmd-boot.env", keys, values, 1);
		if (r < 0) {
			logf_("cannot write slurmd-boot.env: %s", strerror(-r));
			return 1;
		}
		logf_("restarting slurmd with -b: systemctl restart slurmd");
		r = pt_run(argv, out, sizeof(out), 60000);
	}
	if (r)
		logf_("slurmd restart failed (%d): %s", r, pt_last_line(out));
	return r ? 1 : 0;
}

static int do_switch(const char *target, const char *recorded_apply)
{
	char apply[32], out[16384], msg[1200];
	const char *line;
	char *argv[] = { (char *)pt_topoctl(), "set", (char *)target,
			 "--power-cycle", NULL };
	bool pc;
	int r;

	/* the helper's dry run said it; ask topod only if it could not */
	if (*recorded_apply)
		snprintf(apply, sizeof(apply), "%s", recorded_apply);
	else
		apply_of(apply, sizeof(apply));
	pc = !strcmp(apply, "power-cycle");
	if (!pc)
		argv[3] = NULL;
	logf_("switch to %s starts (apply %s): topoctl set %s%s", target,
	      apply[0] ? apply : "unknown", target, pc ? " --power-cycle" : "");
	r = pt_run(argv, out, sizeof(out), SWITCH_TIMEOUT_MS);
	if (r == 0 && pc) {
		/* the BMC cuts the power under us: the boot is real */
		logf_("switch to %s pending, the BMC power cycles the host",
		      target);
		return 0;
	}
	if (r == 0) {
		logf_("switch to %s done", target);
		return restart_slurmd();
	}
	line = r == -ETIMEDOUT ? "no answer in 30 min" :
	       r < 0 ? strerror(-r) : pt_last_line(out);
	/* topod's own message mostly says it already */
	if (!strncmp(line, "switch to ", 10))
		snprintf(msg, sizeof(msg), "%s", line);
	else
		snprintf(msg, sizeof(msg), "switch to %s failed: %s", target,
			 line);
	logf_("%s", msg);
	record_error(msg);
	restart_slurmd();
	return 1;
}

int main(int argc, char **argv)
{
	char target[PT_LAYOUT_LEN], apply[32] = "";
	pid_t pid;

	(void)argv;
	if (argc > 1) {
		fputs("slurm-reboot-program: takes no arguments (slurm.conf "
		      "RebootProgram)\n", stderr);
		return 2;
	}
	open_log();
	if (pt_record_get("slurm-target", "layout", target, sizeof(target)) ||
	    !pt_layout_switchable(target)) {
		logf_("no layout target recorded (no layout in the reboot "
		      "request: a plain scontrol reboot?): nothing done");
		return 1;
	}
	pt_record_get("slurm-target", "apply", apply, sizeof(apply));
	/* consumed: a later request must record its own */
	pt_record_take("slurm-target");
	logf_("reboot request for layout %s", target);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		logf_("fork: %s", strerror(errno));
		return 1;
	}
	if (pid > 0)
		return 0;	/* slurmd's RPC thread goes on */
	setsid();
	return do_switch(target, apply);
}
