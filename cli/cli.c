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
#include "topod-client.h"

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
	  "topoctl export [ --format { json | nccl | dot | prometheus } ] [ --output FILE ]" },
	{ "snapshot", do_snapshot, "topoctl snapshot DIR" },
	{ "doctor", do_doctor,
	  "topoctl doctor [ DEV DEV ] [ --cpuinfo FILE ] [ --gpus-per-node N ]\n"
	  "       [ --since DIR ]" },
	{ "diff", do_diff, "topoctl diff { FILE | - }" },
	{ "advise", do_advise,
	  "topoctl advise [ WORKLOAD ] [ --model-size SIZE ] [ --batch-size N ]\n"
	  "       [ --samples-per-sec N ] [ --bytes-per-sample SIZE ]\n"
	  "       [ --host-data { local | spread } ] [ --synthetic ]\n"
	  "       [ --gpu-link L ] [ --uplink L ] [ --root-link L ] [ --cpus N ]\n"
	  "       [ --switches N ] [ --gpus-per-switch N ] [ --cpuinfo FILE ]\n"
	  "       [ --config FILE ] [ --set KEY=VALUE ]...\n"
	  "  WORKLOAD := { resnet50 | vgg16 | hpl | compute | p2p-heavy |\n"
	  "                host-io-heavy | custom }   L := genNxW, e.g. gen5x16" },
	{ "bench", do_bench,
	  "topoctl bench [ --size SIZE ] [ --iterations N ] [ --warmup N ]\n"
	  "       [ --latency-iterations N ] [ --config FILE ] [ --set KEY=VALUE ]...\n"
	  "  topoctl bench --link-check" },
	{ "set", do_set,
	  "topoctl set { balance | common | cascade } [ --force ] [ --power-cycle ] [ --no-wait ]\n"
	  "  topoctl set { balance | common | cascade } --dry-run [ --force ] [ --power-cycle ] [ -j ]" },
	{ "status", do_status, "topoctl status [ -j ]" },
	{ "help", do_help, "topoctl help" },
	{ NULL, NULL, NULL }
};

void usage(FILE *f)
{
	const struct cmd *o;

	fputs("Usage: topoctl [OPTIONS] OBJECT { COMMAND | help }\n"
	      "       topoctl { -V | --version | -h | --help }\n"
	      "OPTIONS := { -j[son] | -p[retty] | --source { netlink | sysfs } |\n"
	      "             --sysfs DIR | --extra-id VVVV:DDDD[:KIND] | --all-nics }\n"
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

static int open_nl_error(struct ctx *c, int r)
{
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
	fprintf(c->err, "topoctl: generic netlink: %s\n", strerror(-r));
	return 1;
}

int open_nl(struct ctx *c)
{
	int r;

	if (c->nl)
		return 0;
	if (c->source == PT_SOURCE_SYSFS) {
		fputs("topoctl: this command needs the pcitopo module; "
		      "'--source sysfs' and '--sysfs' only read\n", c->err);
		return 1;
	}
	r = pt_nl_open(&c->nl);
	if (r) {
		c->nl = NULL;
		return open_nl_error(c, r);
	}
	return 0;
}

/* What went wrong in pt_load(), in topoctl's words, on c->err. */
static int load_error(struct ctx *c, const struct pt_load *l, int r)
{
	switch (l->failed) {
	case PT_LOAD_NL_OPEN:
		return open_nl_error(c, r);
	case PT_LOAD_NL_READ:
		return nl_error(c, "reading the topology", r);
	case PT_LOAD_IDS:
		if (r == -EINVAL)
			fprintf(c->err, "topoctl: %s:%u: not a VVVV:DDDD[:gpu|nic|nvme] ID\n",
				c->ids_file, l->bad_line);
		else if (r == -ENOSPC)
			fprintf(c->err, "topoctl: %s:%u: more than %d extra IDs\n",
				c->ids_file, l->bad_line, PCITOPO_MAX_EXTRA_IDS);
		else
			fprintf(c->err, "topoctl: %s: %s\n", c->ids_file,
				strerror(-r));
		return 1;
	case PT_LOAD_SYSFS:
		if (r == -ENOENT)
			fprintf(c->err, "topoctl: no PCI devices in %s (%s)\n",
				c->sysfs, pt_sysfs_last_error());
		else if (r == -ELIBACC || r == -ELIBBAD)
			fprintf(c->err, "topoctl: --source sysfs needs %s\n",
				pt_sysfs_last_error());
		else
			fprintf(c->err, "topoctl: reading %s: %s\n", c->sysfs,
				pt_sysfs_last_error()[0] ?
				pt_sysfs_last_error() : strerror(-r));
		return 1;
	default:
		fprintf(c->err, "topoctl: %s\n", r == -ENOMEM ? "out of memory" :
			pt_sysfs_last_error());
		return 1;
	}
}

int load_topology(struct ctx *c, struct pt_topology *t)
{
	struct pt_load l = {
		.source = c->source, .root = c->sysfs,
		.ids_file = c->ids_file, .ids = &c->ids, .n_ids = &c->n_ids,
		.nl = &c->nl,
	};
	int r = pt_load(&l, t);

	c->from_sysfs = l.used == PT_SOURCE_SYSFS;
	/* said once, one line on stderr (a note: with -j not taken for the
	 * error, errjson.c) and, with -j, as the document's "source_note"
	 * beside "source": sysfs */
	if ((l.flags & PT_LOAD_F_FALLBACK) && !c->source_note[0]) {
		char why[640];

		module_why(why, sizeof(why));
		snprintf(c->source_note, sizeof(c->source_note),
			 "pcitopo module not loaded: %s; reading sysfs instead",
			 why);
		fprintf(c->err, "topoctl: note: %s\n", c->source_note);
	}
	if (r)
		return load_error(c, &l, r);
	if ((l.flags & PT_LOAD_F_SHORT_CONFIG) && !c->json)
		fputs("topoctl: note: config space unreadable past 64 bytes "
		      "(not root): links, slots and ACS are missing\n", c->err);
	return 0;
}

const char *source_name(const struct ctx *c)
{
	return c->from_sysfs ? "sysfs" : "netlink";
}

void emit_json(struct ctx *c, struct json_object *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	/* a key more in the document's object: what a consumer reads stays */
	if (c->source_note[0] && json_object_is_type(o, json_type_object) &&
	    !json_object_object_get_ex(o, "source_note", NULL))
		json_object_object_add(o, "source_note",
				       json_object_new_string(c->source_note));

	flags |= c->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			     JSON_C_TO_STRING_PLAIN;
	fprintf(c->out, "%s\n", json_object_to_json_string_ext(o, flags));
	json_object_put(o);
	c->emitted = true;
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

