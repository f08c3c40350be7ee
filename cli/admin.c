// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl rescan [PORT], detach PORT, refresh: the module's admin
 * operations. The kernel checks CAP_NET_ADMIN and says what is wrong in its
 * extended ACK, which is printed as it comes.
 */
#include <inttypes.h>
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

static int want_help(struct ctx *c, const char *object, int argc, char **argv)
{
	if (argc > 0 && !strcmp(argv[0], "help")) {
		print_object_help(c, object, NULL);
		return 1;
	}
	return 0;
}

static int port_arg(struct ctx *c, const char *arg, char *addr, size_t len)
{
	if (pt_addr_canon(arg, addr, len))
		return usage_error(c, "'%s' is not a port address ([DDDD:]BB:DD.F)",
				   arg);
	return 0;
}

/* Run the module's operation op on port addr (NULL: none given); an error
 * names it as "op ADDR". */
static int port_op(struct ctx *c, const char *op,
		   int (*fn)(struct pt_nl *h, const char *addr),
		   const char *addr)
{
	char what[48];
	int r;

	r = open_nl(c);
	if (r)
		return r;
	r = fn(c->nl, addr);
	if (r) {
		snprintf(what, sizeof(what), "%s%s%s", op, addr ? " " : "",
			 addr ? addr : "");
		return nl_error(c, what, r);
	}
	return 0;
}

int do_rescan(struct ctx *c, int argc, char **argv)
{
	char addr[PCITOPO_ADDR_LEN];
	int r;

	if (want_help(c, "rescan", argc, argv))
		return 0;
	if (argc > 1)
		return usage_error(c, "unexpected argument '%s' to 'rescan'\n"
				   "Try 'topoctl rescan help'.", argv[1]);
	if (argc == 1 && (r = port_arg(c, argv[0], addr, sizeof(addr))))
		return r;
	return port_op(c, "rescan", pt_nl_rescan, argc ? addr : NULL);
}

int do_detach(struct ctx *c, int argc, char **argv)
{
	char addr[PCITOPO_ADDR_LEN];
	int r;

	if (want_help(c, "detach", argc, argv))
		return 0;
	if (argc != 1)
		return usage_error(c, "'detach' takes one PORT\n"
				   "Try 'topoctl detach help'.");
	r = port_arg(c, argv[0], addr, sizeof(addr));
	if (r)
		return r;
	return port_op(c, "detach", pt_nl_detach, addr);
}

int do_refresh(struct ctx *c, int argc, char **argv)
{
	struct pt_summary s;
	struct pr o;
	int r;

	if (want_help(c, "refresh", argc, argv))
		return 0;
	if (argc > 0)
		return usage_error(c, "unexpected argument '%s' to 'refresh'\n"
				   "Try 'topoctl refresh help'.", argv[0]);
	r = open_nl(c);
	if (r)
		return r;
	r = pt_nl_refresh(c->nl, &s);
	if (r)
		return nl_error(c, "refresh", r);
	/* the JSON is the summary; the text only says that there was one */
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_JSON, NULL);
	pr_summary_object(&o, &s);
	pr_close_object(&o);
	if (s.generation)
		pr_text(&o, "refreshed: generation %" PRIu64 ", layout %s\n",
			s.generation, ptc_layout_name(s.layout));
	return pr_end(&o) ? 1 : 0;
}
