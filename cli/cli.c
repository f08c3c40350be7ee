// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: the table of objects (as wireguard-tools' wg.c), command matching
 * by exact name or unique prefix (as iproute2), and the helpers every object
 * shares: errors, the netlink handle, JSON output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "topoctl.h"

static int do_help(struct ctx *c, int argc, char **argv);


const struct cmd topoctl_objects[] = {
	{ "show", do_show, "topoctl show" },
	{ "topo", do_topo, "topoctl topo [ -m | matrix ]" },
	{ "port", do_port, "topoctl port { list | show PORT }" },
	{ "dev", do_dev, "topoctl dev { list | show DEV }" },
	{ "path", do_path, "topoctl path show DEV DEV" },
	{ "monitor", do_monitor, "topoctl monitor" },
	{ "id", do_id,
	  "topoctl id { list | add VVVV:DDDD [ gpu | nic | nvme ] | del VVVV:DDDD }" },
	{ "rescan", do_rescan, "topoctl rescan [PORT]" },
	{ "detach", do_detach, "topoctl detach PORT" },
	{ "refresh", do_refresh, "topoctl refresh" },
	{ "export", do_export,
	  "topoctl export [ --format { json | nccl | dot } ]" },
	{ "help", do_help, "topoctl help" },
	{ NULL, NULL, NULL }
};

void usage(FILE *f)
{
	const struct cmd *o;

	fputs("Usage: topoctl [OPTIONS] OBJECT { COMMAND | help }\n"
	      "       topoctl { -V | --version | -h | --help }\n"
	      "OPTIONS := { -j[son] | -p[retty] }\n"
	      "DEV := { GPUn | NICn | NVMEn | [DDDD:]BB:DD.F }\n"
	      "PORT := [DDDD:]BB:DD.F\n"
	      "Commands:\n", f);
	for (o = topoctl_objects; o->name; o++)
		fprintf(f, "  %s\n", o->help);
}

int match_cmd(const struct cmd *cmds, const char *word)
{
	size_t len = strlen(word);
	int i, found = -1;

	if (!len)
		return -1;
	for (i = 0; cmds[i].name; i++) {
		if (!strcmp(cmds[i].name, word))
			return i;
		if (!strncmp(cmds[i].name, word, len))
			found = found == -1 ? i : -2;
	}
	return found;
}

int usage_error(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	fputs("topoctl: ", c->err);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
	return EXIT_USAGE;
}

void print_object_help(struct ctx *c, const char *object,
		       const struct cmd *cmds)
{
	const struct cmd *o;

	(void)cmds;
	for (o = topoctl_objects; o->name; o++)
		if (!strcmp(o->name, object))
			fprintf(c->out, "Usage: %s\n", o->help);
}

int dispatch(struct ctx *c, const char *object, const struct cmd *cmds,
	     int argc, char **argv)
{
	int i;

	if (argc < 1)
		return cmds[0].fn(c, 0, argv);	/* the first command is the default */
	if (!strcmp(argv[0], "help")) {
		print_object_help(c, object, cmds);
		return 0;
	}
	i = match_cmd(cmds, argv[0]);
	if (i == -2)
		return usage_error(c, "ambiguous command '%s' for object '%s'\n"
				   "Try 'topoctl %s help'.", argv[0], object,
				   object);
	if (i < 0)
		return usage_error(c, "unknown command '%s' for object '%s'\n"
				   "Try 'topoctl %s help'.", argv[0], object,
				   object);
	return cmds[i].fn(c, argc - 1, argv + 1);
}

int nl_error(struct ctx *c, const char *what, int err)
{
	const char *ext = pt_nl_last_error(c->nl);

	fprintf(c->err, "topoctl: %s: %s", what, strerror(-err));
	if (ext)
		fprintf(c->err, ": %s", ext);
	if (err == -EPERM)
		fputs(" (needs CAP_NET_ADMIN)", c->err);
	fputc('\n', c->err);
	return 1;
}

int open_nl(struct ctx *c)
{
	int r;

	if (c->nl)
		return 0;
	r = pt_nl_open(&c->nl);
	if (r == -ENOENT) {
		fputs("topoctl: pcitopo module not loaded (modprobe pcitopo)\n",
		      c->err);
		return 1;
	}
	if (r == -EPROTO) {
		fprintf(c->err,
			"topoctl: pcitopo module ABI too old: family \"%s\" "
			"older than version %d (update the module)\n",
			PCITOPO_GENL_NAME, PCITOPO_GENL_VERSION);
		return 1;
	}
	if (r) {
		fprintf(c->err, "topoctl: generic netlink: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}

int load_topology(struct ctx *c, struct pt_topology *t)
{
	int r = open_nl(c);

	if (r)
		return r;
	r = pt_nl_load_topology(c->nl, t);
	if (r)
		return nl_error(c, "reading the topology", r);
	return 0;
}

void emit_json(struct ctx *c, struct json_object *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	flags |= c->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			     JSON_C_TO_STRING_PLAIN;
	fprintf(c->out, "%s\n", json_object_to_json_string_ext(o, flags));
	json_object_put(o);
}

static int do_help(struct ctx *c, int argc, char **argv)
{
	int i;

	if (argc > 0) {
		i = match_cmd(topoctl_objects, argv[0]);
		if (i < 0)
			return usage_error(c, "unknown object '%s'\n"
					   "Try 'topoctl help'.", argv[0]);
		fprintf(c->out, "Usage: %s\n", topoctl_objects[i].help);
		return 0;
	}
	usage(c->out);
	return 0;
}

