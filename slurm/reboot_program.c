// SPDX-License-Identifier: GPL-2.0
/*
 * slurm-reboot-program: slurm.conf's RebootProgram for nodes whose layout
 * Slurm changes (node_features/helpers). slurmd runs it from inside its
 * reboot RPC, after the feature helper recorded the target
 * (slurm-feature-helper LAYOUT), holding its configuration lock on 22.05
 * to 25.05 (system()): so it checks the target, forks the work away and
 * returns at once.
 *
 *   slurm-reboot-program            22.05, or any release's plain
 *                                   `scontrol reboot`: the target is the
 *                                   helper's record, if one was written
 *                                   for this request (TARGET_MAX_AGE_S)
 *   slurm-reboot-program FEATURES   23.02 and later with a features
 *                                   reboot: FEATURES is the request's
 *                                   comma-separated changeable features
 *                                   (`RebootProgram 'cascade'` through
 *                                   system() up to 25.05, one argv word
 *                                   from 26.05). The one layout among them
 *                                   is the target; other features are not
 *                                   pcitopo's and are ignored; two layouts
 *                                   are refused.
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
 * No layout target (a plain `scontrol reboot`, a reboot for features that
 * are not pcitopo's): the node is rebooted as a RebootProgram without
 * pcitopo would (`systemctl reboot`, or $PCITOPO_REBOOT); the layout is
 * not touched, so the node comes back in the one it had.
 *
 * The restart: $PCITOPO_SLURMD_RESTART (a shell command) if set, else
 * /run/pcitopo/slurmd-boot.env (SLURMD_OPTIONS: the running slurmd's own
 * with -b added, read once by the shipped slurmd.service drop-in, which
 * only adds that EnvironmentFile= to the distribution's unit, then
 * removed) and `systemctl --no-block restart slurmd.service`.
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
/*
 * How old the helper's record may be and still be this request's: the
 * helper runs just before, once per feature, each run within ExecTime.
 */
#define TARGET_MAX_AGE_S	300

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

/*
 * The target as the helper records it, when the RebootProgram learns it
 * from its argument instead (no record for this layout): the log and the
 * record say where it came from.
 */
static int record_target(const char *layout)
{
	static const char *const keys[] = { "layout", "verdict", "apply",
					    "since" };
	char since[32];
	const char *values[] = { layout, "unchecked: from the RebootProgram's "
				 "argument, no helper record", "", since };
	int r;

	snprintf(since, sizeof(since), "%lld", pt_boottime_s());
	r = pt_record_write("slurm-target", keys, values, 4);
	if (r < 0)
		logf_("cannot record the target %s: %s", layout, strerror(-r));
	return r;
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

/*
 * The options systemd gave the running slurmd ($SLURMD_OPTIONS of its
 * environment: the unit's EnvironmentFile= lines, /etc/default/slurmd,
 * a site's own drop-ins, all resolved), without a -b of an earlier such
 * start. The shipped drop-in adds /run/pcitopo/slurmd-boot.env after the
 * unit's own files, so its SLURMD_OPTIONS wins for the next start: it
 * must carry the site's options too, not replace them (--conf-server of
 * a configless site, say). 0, or -ENOENT when slurmd is not systemd's
 * (then this program's own environment, which slurmd passed on up to
 * 25.05).
 */
static int slurmd_options(char *out, size_t len)
{
	char *argv[] = { (char *)pt_systemctl(), "show", "-P", "MainPID",
			 "slurmd.service", NULL };
	char buf[256], path[64], env[16384], opts[4096] = "";
	const char *src = NULL;
	long pid = 0;
	size_t n = 0, used = 0;
	FILE *f;

	if (!pt_run(argv, buf, sizeof(buf), 10000))
		pid = atol(buf);
	if (pid > 0) {
		snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
		f = fopen(path, "re");
		if (f) {
			n = fread(env, 1, sizeof(env) - 1, f);
			fclose(f);
		}
		env[n] = '\0';
		/* NUL-separated VAR=value entries */
		for (size_t i = 0; i < n; i += strlen(env + i) + 1)
			if (!strncmp(env + i, "SLURMD_OPTIONS=", 15))
				src = env + i + 15;
		if (!src && n)
			src = "";	/* slurmd's, and it has none */
	}
	if (!src)
		src = getenv("SLURMD_OPTIONS");
	/* systemd splits an unbraced $SLURMD_OPTIONS at white space */
	for (const char *p = src ? src : ""; *p;) {
		size_t w;

		p += strspn(p, " \t\n");
		w = strcspn(p, " \t\n");
		/* a word that does not fit is dropped whole, never cut */
		if (w && !(w == 2 && !strncmp(p, "-b", 2)) &&
		    used + w + 2 < sizeof(opts))
			used += (size_t)sprintf(opts + used, "%s%.*s",
						used ? " " : "", (int)w, p);
		p += w;
	}
	snprintf(out, len, "%s", opts);
	return pid > 0 && n ? 0 : -ENOENT;
}

/*
 * VALUE as a double-quoted EnvironmentFile= value (systemd.exec(5): \"
 * and \\ are escapes there), so that a quote or backslash in a site's
 * options reaches slurmd as the site wrote it.
 */
static void env_quote(const char *value, char *out, size_t len)
{
	size_t o = 0;

	if (len < 3) {
		if (len)
			out[0] = '\0';
		return;
	}
	out[o++] = '"';
	for (const char *v = value; *v && o + 3 < len; v++) {
		if (*v == '"' || *v == '\\' || *v == '$' || *v == '`')
			out[o++] = '\\';
		out[o++] = *v;
	}
	out[o++] = '"';
	out[o] = '\0';
}

static int restart_slurmd(void)
{
	const char *cmd = getenv("PCITOPO_SLURMD_RESTART");
	static const char *const keys[] = { "SLURMD_OPTIONS" };
	char opts[4096], boot[4100], quoted[8300];
	const char *values[] = { quoted };
	char out[4096];
	int r;

	if (cmd && *cmd) {
		char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };

		logf_("restarting slurmd with -b: %s", cmd);
		r = pt_run(argv, out, sizeof(out), 60000);
	} else {
		char *argv[] = { (char *)pt_systemctl(), "--no-block",
				 "restart", "slurmd.service", NULL };

		if (slurmd_options(opts, sizeof(opts)) < 0)
			logf_("slurmd.service has no running slurmd to take "
			      "its options from: this program's ('%s')", opts);
		snprintf(boot, sizeof(boot), "%s%s-b", opts, opts[0] ? " " : "");
		env_quote(boot, quoted, sizeof(quoted));
		r = pt_record_write("slurmd-boot.env", keys, values, 1);
		if (r < 0) {
			logf_("cannot write slurmd-boot.env: %s", strerror(-r));
			return 1;
		}
		logf_("restarting slurmd with -b: systemctl restart slurmd "
		      "(SLURMD_OPTIONS=%s)", quoted);
		r = pt_run(argv, out, sizeof(out), 60000);
	}
	if (r)
		logf_("slurmd restart failed (%d): %s", r, pt_last_line(out));
	return r ? 1 : 0;
}

/*
 * A switch that failed, on 23.02 and later (told by the features argument,
 * which 22.05 does not pass): there slurmctld took the requested layout as
 * the node's active feature at the reboot request and checks it at the
 * registration that follows: a node reporting another is drained
 * "Reported active features (common) are not a superset of currently
 * active changeable features (cascade)", INVALID_REG, before any Prolog
 * runs (seen on 24.11.5: t-slurm-deb13.sh (e)), so the operator never sees
 * pcitopo's reason and slurmctld keeps a layout the node is not in. So,
 * before slurmd comes back: the node drained with pcitopo's reason (the
 * failure, the layout it stays in), and its active feature set to that
 * layout, which its registration then reports. 22.05 checks nothing at
 * registration; the Prolog drains the node there, naming the job.
 */
static char node[256];	/* slurmd's NodeName: main() asks before the fork */

static void tell_controller(const char *msg)
{
	char now[PT_LAYOUT_LEN], why[600], reason[1400];

	if (pt_layout_now(now, sizeof(now), 8000, why, sizeof(why)) < 0)
		snprintf(now, sizeof(now), "unknown");
	snprintf(reason, sizeof(reason), "pcitopo: %s; the node is in %s", msg,
		 now);
	if (pt_node_drain(node, reason, why, sizeof(why)))
		logf_("%s", why);
	else
		logf_("node %s drained: %s", node, reason);
	if (!pt_layout_switchable(now))
		return;
	if (pt_node_set_layout(node, now, why, sizeof(why)))
		logf_("%s", why);
	else
		logf_("slurmctld told: node %s, active layout %s", node, now);
}

static int do_switch(const char *target, const char *recorded_apply,
		     bool features_given)
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
	if (features_given)
		tell_controller(msg);
	restart_slurmd();
	return 1;
}

/*
 * The layout among the request's features (23.02+: "cascade", or
 * "cascade,bigmem" with another changeable feature of helpers.conf): 0
 * with it in out ("" if none is a layout), -EINVAL if two differ (both
 * named in why). A site without MutuallyExclusive in helpers.conf can
 * send two; the Prolog refuses such a job too.
 */
static int layout_of_features(const char *features, char *out, size_t len,
			      char *why, size_t wlen)
{
	char buf[1024], *save = NULL;

	out[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", features);
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (!pt_layout_switchable(t))
			continue;
		if (out[0] && strcmp(out, t)) {
			snprintf(why, wlen, "the reboot request asks for two "
				 "layouts, %s and %s (features '%s'): refused",
				 out, t, features);
			return -EINVAL;
		}
		snprintf(out, len, "%s", t);
	}
	return 0;
}

/*
 * The helper's record, if it was written for this request: the helper
 * runs in the same RPC just before (each helper run bounded by ExecTime),
 * so an older one is left from a request whose RebootProgram never ran
 * (24.05+ skips it when a helper fails) and must not turn a later plain
 * `scontrol reboot` into a switch. 0 with the layout (and Apply), or
 * -ENOENT (none, stale: said in the log).
 */
static int recorded_target(char *target, size_t len, char *apply,
			   size_t alen)
{
	char since[32] = "";
	long long age;

	apply[0] = '\0';
	if (pt_record_get("slurm-target", "layout", target, len))
		return -ENOENT;
	pt_record_get("slurm-target", "since", since, sizeof(since));
	age = since[0] ? pt_boottime_s() - atoll(since) : -1;
	if (!pt_layout_switchable(target) || age < 0 ||
	    age > TARGET_MAX_AGE_S) {
		char when[64];

		if (age < 0)
			snprintf(when, sizeof(when), "at an unknown time");
		else
			snprintf(when, sizeof(when), "%lld s ago", age);
		logf_("the target '%s' recorded %s is not this request's "
		      "(the helper records one just before): ignored", target,
		      when);
		pt_record_take("slurm-target");
		target[0] = '\0';
		return -ENOENT;
	}
	pt_record_get("slurm-target", "apply", apply, alen);
	return 0;
}

/*
 * No layout asked: reboot as a RebootProgram without pcitopo would.
 * pcitopo switches nothing, so the node comes back in the layout the
 * hardware kept (unless /etc/pcitopo/profile names another: pcitopo-boot
 * applies it at every boot).
 */
static int plain_reboot(void)
{
	const char *cmd = getenv("PCITOPO_REBOOT");
	char *sh[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	char *sd[] = { (char *)pt_systemctl(), "reboot", NULL };
	char *rb[] = { "/sbin/reboot", NULL };
	char *const *argv = sd;
	char out[4096];
	int r;

	if (cmd && *cmd)
		argv = sh;
	else if (access("/run/systemd/system", F_OK))
		argv = rb;	/* not booted with systemd */
	logf_("no layout target (a plain scontrol reboot): rebooting the "
	      "node, layout unchanged: %s", argv == sh ? cmd : argv[0]);
	r = pt_run(argv, out, sizeof(out), 60000);
	if (r)
		logf_("the reboot command failed (%d): %s", r,
		      r < 0 ? strerror(-r) : pt_last_line(out));
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	char target[PT_LAYOUT_LEN], apply[32] = "", rec[PT_LAYOUT_LEN];
	char why[1200];
	pid_t pid;

	if (argc > 2) {
		fputs("slurm-reboot-program: usage: slurm-reboot-program "
		      "[FEATURES] (slurm.conf RebootProgram; Slurm 23.02+ "
		      "passes the requested features as one argument)\n",
		      stderr);
		return 2;
	}
	/*
	 * slurmd's reconfigure (SIGHUP, the reload of "Layout changes
	 * outside Slurm") re-execs it with SLURMD_BOOT_TIME, its own -b
	 * time, in its environment (24.11: _try_to_reconfig in
	 * src/slurmd/slurmd/slurmd.c), and every program it runs inherits
	 * it. A slurmd started with -b takes that variable as its boot time
	 * (slurmd.c, case 'b'): one started from here would report the old
	 * boot, and slurmctld would keep the node rebooting until
	 * ResumeTimeout. Seen on 24.11.5 (t-slurm-deb13.sh); systemd's
	 * restart does not pass it on anyway. The reconfigure's other
	 * variables go too: with them a new slurmd takes itself for a
	 * reconfigure's child and uses an inherited listening socket
	 * (SLURMD_RECONF_LISTEN_FD) instead of binding its port.
	 */
	static const char *const reconf_env[] = {
		"SLURMD_BOOT_TIME", "SLURMD_RECONF", "SLURMD_RECONF_LISTEN_FD",
		"SLURMD_RECONF_CONF_CACHE", "SLURMD_RECONF_PARENT_FD",
	};

	for (size_t i = 0; i < sizeof(reconf_env) / sizeof(reconf_env[0]); i++)
		unsetenv(reconf_env[i]);
	open_log();
	if (argc == 2) {
		/* for tell_controller(), while slurmd is an ancestor */
		pt_node_name(node, sizeof(node));
		logf_("reboot request with features '%s'", argv[1]);
		if (layout_of_features(argv[1], target, sizeof(target), why,
				       sizeof(why)) < 0) {
			/*
			 * The node comes back at once in its layout and the
			 * Prolog refuses the job naming this: not a node left
			 * rebooting until ResumeTimeout.
			 */
			logf_("%s", why);
			record_error(why);
			pt_record_take("slurm-target");
			tell_controller(why);
			restart_slurmd();
			return 1;
		}
		/*
		 * The argument is the request; the helper's record only adds
		 * its dry run's Apply, and only if it is about this layout.
		 */
		if (target[0] && (recorded_target(rec, sizeof(rec), apply,
						  sizeof(apply)) ||
				  strcmp(rec, target))) {
			apply[0] = '\0';
			/* bookkeeping: the switch does not depend on it */
			(void)record_target(target);
		}
		/* no layout asked: a record there is not this request's */
		if (!target[0])
			pt_record_take("slurm-target");
	} else {
		recorded_target(target, sizeof(target), apply, sizeof(apply));
	}
	if (!target[0])
		return plain_reboot();
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
	return do_switch(target, apply, argc == 2);
}
