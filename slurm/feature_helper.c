// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo-slurm-helper: the Helper of Slurm's node_features/helpers plugin
 * (helpers.conf: Feature=cascade Helper=/usr/libexec/pcitopo/
 * slurm-feature-helper, one line per layout).
 *
 *   slurm-feature-helper          print the layout the node is in now (one
 *                                 line; nothing if it is none of the
 *                                 switchable ones). slurmd runs it at start
 *                                 and at reconfigure, once per feature.
 *   slurm-feature-helper LAYOUT   slurmd runs it inside a reboot request,
 *                                 before the RebootProgram: check that
 *                                 LAYOUT is possible (topod's PlanLayout,
 *                                 `topoctl set LAYOUT --dry-run`) and record
 *                                 it as the target the RebootProgram
 *                                 applies. Switches nothing.
 *   slurm-feature-helper --sync   tell slurmctld the layout the node is in
 *                                 now (`scontrol update nodename=NODE
 *                                 activefeatures=LAYOUT`), before slurmd's
 *                                 reload reports it (pcitopo-slurm-reconfig
 *                                 .service, after a switch Slurm did not
 *                                 ask for). From 23.02 slurmctld drains a
 *                                 node whose registration's active
 *                                 changeable features are not a superset of
 *                                 those it holds active ("Reported active
 *                                 features (common) are not a superset of
 *                                 currently active changeable features
 *                                 (balance)", commit 44a7a41c53,
 *                                 _valid_reported_active_features in
 *                                 src/slurmctld/node_mgr.c): the reload
 *                                 alone drained the node there. slurmctld
 *                                 keeps the node's other (fixed) features
 *                                 (the helpers plugin's node_xlate). NODE:
 *                                 $PCITOPO_SLURM_NODE, else the running
 *                                 slurmd.service's -N NAME (its MainPID's
 *                                 command line), else the short hostname
 *                                 (Slurm's default NodeName). Exit 0 when
 *                                 told, or when there is no layout to tell
 *                                 (none of the switchable ones, not
 *                                 known); 1 when scontrol fails.
 *
 * slurmd kills a helper after ExecTime (helpers.conf, default 10 s) and
 * reads stdout and stderr from one pipe: every wait here is bounded below
 * that (PCITOPO_HELPER_TIMEOUT_MS, default 4000 for each topoctl call).
 *
 * Exit status, as Slurm wants it (Documentation/slurm.md, "Slurm
 * releases"):
 *   - the query exits 0 even when the layout is not known (then it prints
 *     no feature; the reason goes to stderr, which slurmd filters out):
 *     helpers.conf(5) from 24.05.2 says a node whose query fails is
 *     drained, and every release reads a failed query as no feature at
 *     all anyway;
 *   - the set exits 0 once the target is recorded, even when topod's dry
 *     run refused it: 24.05 and later set the node DOWN "Failed to set
 *     node feature(s)" on a failed set, skip the RebootProgram and discard
 *     the helper's output, so topod's reason would be lost; recorded, the
 *     RebootProgram's SetLayout fails with it and the Prolog drains the
 *     node naming it (22.05 to 23.11 ignore the status anyway). 1 only when
 *     the target cannot be recorded, 2 for an argument that is no layout.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt_slurm.h"

static int timeout_ms(void)
{
	const char *t = getenv("PCITOPO_HELPER_TIMEOUT_MS");
	int v = t ? atoi(t) : 0;

	return v > 0 ? v : 4000;
}

static int print_layout(void)
{
	char layout[PT_LAYOUT_LEN], why[512];
	int r = pt_layout_now(layout, sizeof(layout), timeout_ms(), why,
			      sizeof(why));

	if (r < 0) {
		/*
		 * not a feature name: slurmd filters the line out. Exit 0: no
		 * layout is active, which is what the node reports; a failed
		 * query drains the node on 24.05.2+ (helpers.conf(5)), for a
		 * topod that is only slow.
		 */
		fprintf(stderr, "slurm-feature-helper: %s\n", why);
		return 0;
	}
	/* "other" or "unknown": no layout feature is active */
	if (pt_layout_switchable(layout))
		printf("%s\n", layout);
	return 0;
}

/*
 * The dry run's verdict, as "proceed" or "refused: MESSAGE", and how the
 * platform applies a layout (topod's Apply: "online", "power-cycle"; ""
 * if unknown): the RebootProgram then needs no call of its own to know.
 */
static void dry_run(const char *layout, char *verdict, size_t len,
		    char *apply, size_t alen)
{
	char *argv[] = { (char *)pt_topoctl(), "set", (char *)layout,
			 "--dry-run", "-j", NULL };
	struct json_object *o = NULL, *p, *m, *a;
	char buf[16384];
	int r = pt_run(argv, buf, sizeof(buf), timeout_ms());

	apply[0] = '\0';
	if (r == -ETIMEDOUT) {
		snprintf(verdict, len, "unchecked: topod did not answer within "
			 "%d ms", timeout_ms());
		return;
	}
	if (r == 0 || r == 1)
		o = json_tokener_parse(buf);
	if (o && json_object_object_get_ex(o, "apply", &a) &&
	    json_object_is_type(a, json_type_string))
		snprintf(apply, alen, "%s", json_object_get_string(a));
	if (!o || !json_object_object_get_ex(o, "proceed", &p)) {
		snprintf(verdict, len, "unchecked: %s",
			 r < 0 ? strerror(-r) : pt_last_line(buf));
	} else if (json_object_get_boolean(p)) {
		snprintf(verdict, len, "proceed");
	} else {
		json_object_object_get_ex(o, "message", &m);
		snprintf(verdict, len, "refused: %s",
			 m ? json_object_get_string(m) : "(no message)");
	}
	json_object_put(o);
}

static int record_target(const char *layout)
{
	static const char *const keys[] = { "layout", "verdict", "apply",
					    "since" };
	char verdict[1024], apply[32], since[32];
	const char *values[4] = { layout, verdict, apply, since };
	int r;

	dry_run(layout, verdict, sizeof(verdict), apply, sizeof(apply));
	/* the RebootProgram takes only a record this fresh as its request's */
	snprintf(since, sizeof(since), "%lld", pt_boottime_s());
	/* a new request: an older failure is not this one's */
	pt_record_remove("slurm-error");
	/*
	 * Recorded even when refused: the RebootProgram's SetLayout then
	 * fails with topod's own error, the node comes back in its old
	 * layout and the Prolog refuses the job naming it. Not recording
	 * would leave the node booting until ResumeTimeout (22.05) or DOWN
	 * with Slurm's "Failed to set node feature(s)" (24.05+), and say
	 * nothing of why.
	 */
	r = pt_record_write("slurm-target", keys, values, 4);
	if (r < 0) {
		fprintf(stderr, "slurm-feature-helper: cannot record the target "
			"%s: %s\n", layout, strerror(-r));
		return 1;
	}
	printf("slurm-feature-helper: target %s recorded (%s)\n", layout,
	       verdict);
	/* refused too: the reason reaches the operator through the Prolog */
	return 0;
}

static int sync_controller(void)
{
	char layout[PT_LAYOUT_LEN], why[512], node[256];
	int r = pt_layout_now(layout, sizeof(layout), timeout_ms(), why,
			      sizeof(why));

	if (r < 0 || !pt_layout_switchable(layout)) {
		printf("slurm-feature-helper: no layout to tell slurmctld (%s)\n",
		       r < 0 ? why : layout);
		return 0;
	}
	pt_node_name(node, sizeof(node));
	if (pt_node_set_layout(node, layout, why, sizeof(why))) {
		fprintf(stderr, "slurm-feature-helper: %s\n", why);
		return 1;
	}
	printf("slurm-feature-helper: slurmctld told: node %s, active layout %s\n",
	       node, layout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return print_layout();
	if (argc == 2 && !strcmp(argv[1], "--sync"))
		return sync_controller();
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		puts("usage: slurm-feature-helper          print the active layout\n"
		     "       slurm-feature-helper LAYOUT   record LAYOUT as the target of\n"
		     "                                     the next RebootProgram run\n"
		     "       slurm-feature-helper --sync   tell slurmctld the active layout\n"
		     "                                     (before slurmd's reload)");
		return 0;
	}
	if (argc != 2) {
		fputs("slurm-feature-helper: usage: slurm-feature-helper [LAYOUT | --sync]\n",
		      stderr);
		return 2;
	}
	if (!pt_layout_switchable(argv[1])) {
		fprintf(stderr, "slurm-feature-helper: '%s' is not a layout "
			"(one of: %s)\n", argv[1], pt_layout_list());
		return 2;
	}
	return record_target(argv[1]);
}
