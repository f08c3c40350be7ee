// SPDX-License-Identifier: GPL-2.0
/*
 * What pcitopo's Slurm programs tell slurmctld about this node, through
 * scontrol (slurm-client): its name, a drain with pcitopo's reason, and
 * the layout it is in as its active feature. One home for the three calls
 * the helper (--sync), the RebootProgram (a failed switch) and the Prolog
 * make.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt_slurm.h"

/* The -N NAME of pid's command line into out if it is a slurmd's (or,
 * with any_prog, any program's): true if found. */
static bool cmdline_node(long pid, bool any_prog, char *out, size_t len)
{
	char path[64], cmd[8192];
	const char *base;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(cmd, 1, sizeof(cmd) - 1, f);
	fclose(f);
	cmd[n] = '\0';
	base = strrchr(cmd, '/');
	base = base ? base + 1 : cmd;
	if (!n || (!any_prog && strcmp(base, "slurmd")))
		return false;
	/* NUL-separated words: "-N" "NAME" or "-NNAME" */
	for (size_t i = 0; i < n; i += strlen(cmd + i) + 1) {
		const char *w = cmd + i;

		if (!strcmp(w, "-N") && i + 3 < n) {
			snprintf(out, len, "%s", w + 3);
			return true;
		}
		if (!strncmp(w, "-N", 2) && w[2]) {
			snprintf(out, len, "%s", w + 2);
			return true;
		}
	}
	return false;
}

/* pid's parent from /proc/PID/stat ("PID (COMM) STATE PPID ..."), 0 if
 * unknown */
static long parent_of(long pid)
{
	char path[64], buf[1024], *p;
	long ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
	    sscanf(p + 1, " %*c %ld", &ppid) != 1)
		ppid = 0;
	fclose(f);
	return ppid;
}

void pt_node_name(char *out, size_t len)
{
	char *argv[] = { (char *)pt_systemctl(), "show", "-P", "MainPID",
			 "slurmd.service", NULL };
	const char *e = getenv("PCITOPO_SLURM_NODE");
	char buf[256];
	long pid;

	if (e && *e) {
		snprintf(out, len, "%s", e);
		return;
	}
	/* 26.05 names it to the programs slurmd runs (req.c) */
	e = getenv("SLURM_NODE_NAME");
	if (e && *e) {
		snprintf(out, len, "%s", e);
		return;
	}
	/* a slurmd among the callers: the RebootProgram's (through sh -c
	 * up to 25.05), however it was started */
	pid = getppid();
	for (int i = 0; i < 4 && pid > 1; i++, pid = parent_of(pid))
		if (cmdline_node(pid, false, out, len))
			return;
	if (!pt_run(argv, buf, sizeof(buf), 10000) && (pid = atol(buf)) > 0 &&
	    cmdline_node(pid, true, out, len))
		return;
	if (gethostname(buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	buf[sizeof(buf) - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
	snprintf(out, len, "%s", buf);
}

/* scontrol update nodename=NODE A [B]: 0, or the exit status or a
 * negative errno with scontrol's last line in why */
static int node_update(const char *node, const char *a, const char *b,
		       char *why, size_t wlen)
{
	char nodearg[300], out[2048];
	char *argv[] = { (char *)pt_scontrol(), "update", nodearg, (char *)a,
			 (char *)b, NULL };
	int r;

	snprintf(nodearg, sizeof(nodearg), "nodename=%s", node);
	r = pt_run(argv, out, sizeof(out), 15000);
	if (r)
		snprintf(why, wlen, "scontrol update %s %s: %s", nodearg, a,
			 r < 0 ? strerror(-r) : pt_last_line(out));
	return r;
}

int pt_node_drain(const char *node, const char *reason, char *why,
		  size_t wlen)
{
	char reasonarg[1420];

	/* one argv word: scontrol takes all of it as the reason */
	snprintf(reasonarg, sizeof(reasonarg), "reason=%s", reason);
	return node_update(node, "state=drain", reasonarg, why, wlen);
}

int pt_node_set_layout(const char *node, const char *layout, char *why,
		       size_t wlen)
{
	char featarg[64];

	snprintf(featarg, sizeof(featarg), "activefeatures=%s", layout);
	return node_update(node, featarg, NULL, why, wlen);
}
