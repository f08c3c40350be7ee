// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod's node labels (daemon/topod/nfdlabel.c): the rules a label must
 * follow for nfd-master to publish it, the feature file topod writes, and
 * the P2P character the bandwidth model gives each layout.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nfd.h"
#include "tap.h"

#define P NFD_PREFIX "/"

static int check(const char *key, const char *value, const char *want_why)
{
	char why[256] = "";
	int r = nfd_label_check(key, value, why, sizeof(why));

	if (!want_why)
		return tap_ok(r == 0, "accepted: \"%s=%s\"%s%s", key, value,
			      r ? ": " : "", r ? why : "");
	return tap_ok(r == -EINVAL && strstr(why, want_why),
		      "refused: \"%.70s=%.40s\": %s (got %d: %s)", key, value,
		      want_why, r, why);
}

static const char s63[] = "a23456789012345678901234567890123456789012345678901234567890123";
static const char s64[] = "a234567890123456789012345678901234567890123456789012345678901234";

static void rules(void)
{
	char key[600];

	check(P "layout", "cascade", NULL);
	check(P "switchable.balance", "true", NULL);
	check(P "empty", "", NULL);	/* an empty value is a valid one */
	check("feature.node.kubernetes.io/x", "1", NULL);
	check("sub.profile.node.kubernetes.io/x", "1", NULL);
	check("pcitopo.io/layout", "balance", NULL);	/* NFD >= 0.13 */
	check("example.com/A_b-c.D", "Z-9_y.x", NULL);
	snprintf(key, sizeof(key), "example.com/%s", s63);
	check(key, s63, NULL);
	/* the name */
	snprintf(key, sizeof(key), "example.com/%s", s64);
	check(key, "1", "name longer than 63");
	check("example.com/", "1", "name empty");
	check("example.com/-x", "1", "name does not start and end");
	check("example.com/x.", "1", "name does not start and end");
	check("example.com/a b", "1", "name has a character outside");
	check("example.com/a/b", "1", "name has a character outside");
	check("example.com/a=b", "1", "name has a character outside");
	/* the prefix */
	check("layout", "cascade", "no PREFIX/");
	check("/layout", "cascade", "prefix empty");
	check("Example.com/x", "1", "prefix has a character outside");
	check("exa_mple.com/x", "1", "prefix has a character outside");
	check("example..com/x", "1", "prefix has a part that does not");
	check("-example.com/x", "1", "prefix has a part that does not");
	check("example.com./x", "1", "prefix has a part that does not");
	memset(key, 'a', 254);
	strcpy(key + 254, "/x");
	check(key, "1", "prefix longer than 253");
	/* the namespace (NFD's) */
	check("kubernetes.io/x", "1", "namespace kubernetes.io");
	check("node.kubernetes.io/x", "1", "namespace kubernetes.io");
	check("nfd.node.kubernetes.io/x", "1", "namespace kubernetes.io");
	/* the value */
	check(P "v", s64, "longer than 63");
	check(P "v", s63, NULL);
	check(P "v", "-a", "does not start and end");
	check(P "v", "a_", "does not start and end");
	check(P "v", "a/b", "character outside");
	check(P "v", "a=b", "character outside");
	check(P "v", "a b", "character outside");
	check(P "v", "caf\xc3\xa9", "does not start and end");
}

static void file(void)
{
	struct nfd_input in = {
		.layout = "cascade", .gpus = 8, .state = "idle",
		.apply = "online",
		.p2p_class = PCITOPO_PATH_PXB,
	};
	char buf[4096], why[256];
	int n;

	in.switchable[PCITOPO_LAYOUT_BALANCE] = true;
	in.switchable[PCITOPO_LAYOUT_CASCADE] = true;
	n = nfd_format(&in, buf, sizeof(buf), why, sizeof(why));
	tap_eq(n, (int)strlen(buf), "nfd_format returns the length");
	tap_streq(buf,
		  "# pcitopo: topod's node labels, rewritten by topod (Documentation/kubernetes.md)\n"
		  P "layout=cascade\n"
		  P "gpus=8\n"
		  P "state=idle\n"
		  P "apply=online\n"
		  P "p2p=within-switches\n"
		  P "p2p.class=PXB\n"
		  P "switchable.balance=true\n"
		  P "switchable.cascade=true\n",
		  "idle in cascade: layout, GPUs, state, apply, p2p, the switchable layouts");

	in.state = "switching";
	in.pending = "balance";
	in.layout = "other";
	in.p2p_class = 0;
	in.drift = true;
	n = nfd_format(&in, buf, sizeof(buf), why, sizeof(why));
	tap_ok(n > 0 && strstr(buf, "\n" P "pending=balance\n") &&
	       strstr(buf, "\n" P "layout=other\n") &&
	       strstr(buf, "\n" P "drift=true\n") && !strstr(buf, "p2p"),
	       "switching: pending named; layout other: no p2p label; drift");

	in.state = "rolling back";	/* a space: NFD would drop the label */
	n = nfd_format(&in, buf, sizeof(buf), why, sizeof(why));
	tap_ok(n == -EINVAL && strstr(why, P "state"),
	       "a value NFD refuses: nothing to write, the label named (%s)", why);

	in.state = "idle";
	n = nfd_format(&in, buf, 120, why, sizeof(why));
	tap_eq(n, -E2BIG, "a buffer too small: -E2BIG");
}

static void p2p(void)
{
	static const struct { enum pcitopo_layout l; unsigned int gpus;
			      int cls; const char *name; } want[] = {
		{ PCITOPO_LAYOUT_BALANCE, 8, PCITOPO_PATH_SYS, "across-sockets" },
		{ PCITOPO_LAYOUT_COMMON, 8, PCITOPO_PATH_PHB, "root-complex" },
		{ PCITOPO_LAYOUT_CASCADE, 8, PCITOPO_PATH_PXB, "within-switches" },
		{ PCITOPO_LAYOUT_CASCADE, 3, PCITOPO_PATH_PXB, "within-switches" },
		{ PCITOPO_LAYOUT_BALANCE, 2, PCITOPO_PATH_SYS, "across-sockets" },
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int c = nfd_p2p_class(want[i].l, want[i].gpus);

		tap_ok(c == want[i].cls && !strcmp(nfd_p2p_name(c), want[i].name),
		       "model: layout %d with %u GPUs: worst pair %s (%s), got %d",
		       want[i].l, want[i].gpus, want[i].name,
		       want[i].cls == PCITOPO_PATH_SYS ? "SYS" :
		       want[i].cls == PCITOPO_PATH_PHB ? "PHB" : "PXB", c);
	}
	tap_eq(nfd_p2p_class(PCITOPO_LAYOUT_CASCADE, 1), 0,
	       "one GPU: no pair, no p2p character");
	tap_ok(nfd_p2p_class(PCITOPO_LAYOUT_OTHER, 8) < 0,
	       "layout other: the model cannot build it (negative errno)");
	tap_ok(nfd_p2p_name(PCITOPO_PATH_X) == NULL &&
	       !strcmp(nfd_p2p_name(PCITOPO_PATH_PIX), "within-switches") &&
	       !strcmp(nfd_p2p_name(PCITOPO_PATH_NODE), "host-bridges"),
	       "p2p names: PIX within switches, NODE between host bridges, X none");
}

int main(void)
{
	rules();
	file();
	p2p();
	return tap_done();
}
