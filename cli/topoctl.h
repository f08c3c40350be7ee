/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl: shared declarations. Each object lives in its own file (show.c,
 * topo.c, port.c, dev.c, path.c, monitor.c, id.c, admin.c, diff.c); main.c
 * parses the options and dispatches through one table; fmt.c words
 * figures for the text, print.c prints text and JSON from the same calls
 * (print.h). What is the library's (device names, derived paths, where the
 * model comes from) is in lib/: devname.h, derive.h, load.h.
 *
 * Printers take the model (lib/model.h) and write to ctx->out, so that the
 * unit tests run them on synthetic topologies.
 */
#ifndef PCITOPO_CLI_TOPOCTL_H
#define PCITOPO_CLI_TOPOCTL_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "derive.h"
#include "devname.h"
#include "load.h"
#include "model.h"
#include "nl.h"
#include "sysfs.h"

/* the project's version: the top VERSION file, passed by cli/Makefile */
#ifndef TOPOCTL_VERSION
#define TOPOCTL_VERSION	"unknown"
#endif

/* Exit codes: 0 ok, 1 runtime error, 2 usage error. */
#define EXIT_USAGE	2

struct ctx {
	bool json;
	bool pretty;
	FILE *out;
	FILE *err;
	const char *sysfs;	/* "/sys", --sysfs DIR, or $TOPOCTL_SYSFS (tests) */
	struct pt_nl *nl;
	enum pt_source source;	/* --source: asked for (lib/load.h) */
	bool from_sysfs;	/* what load_topology() used */
	const char *ids_file;	/* extra IDs of the sysfs source */
	struct pt_id *ids;	/* --extra-id, then the file's */
	size_t n_ids;
	bool all_nics;		/* --all-nics: plain NICs in topo and paths */
	bool emitted;		/* emit_json() printed a document */
	/* why the automatic source read sysfs (the module not loaded, and
	 * why: modwhy.c), "" otherwise; -j adds it as "source_note" */
	char source_note[768];
};

struct cmd {
	const char *name;
	int (*fn)(struct ctx *c, int argc, char **argv);
	const char *help;	/* usage lines, "\n"-separated */
};

/* modwhy.c: why pcitopo.ko is not loaded, naming the kernels (the running
 * one, those a pcitopo.ko exists for, the one a module was built for) */
void module_why(char *buf, size_t len);

/* cli.c */
void usage(FILE *f);
/* Match argv word against a table of names by exact name or unique prefix;
 * returns the index, -1 unknown, -2 ambiguous. */
int match_cmd(const struct cmd *cmds, const char *word);
int dispatch(struct ctx *c, const char *object, const struct cmd *cmds,
	     int argc, char **argv);
int usage_error(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int nl_error(struct ctx *c, const char *what, int err);
int open_nl(struct ctx *c);
/* The model from the chosen source (pt_load()), the sysfs source at
 * generation 0; else a message on c->err and an exit code. */
int load_topology(struct ctx *c, struct pt_topology *t);
/* "netlink" or "sysfs": where the last load_topology() read from */
const char *source_name(const struct ctx *c);
void emit_json(struct ctx *c, struct json_object *o);	/* consumes o */
void print_object_help(struct ctx *c, const char *object,
		       const struct cmd *cmds);

/* errjson.c: with -j, a failure that printed no JSON prints
 * {"error": FIRST MESSAGE LINE, "exit": RC}. errjson_open() gives the c->err
 * that keeps the line (NULL: use stderr). */
FILE *errjson_open(void);
void errjson_finish(struct ctx *c, int rc);

/* id.c */
/* "VVVV:DDDD" without a kind (`id add`, `id del`), the syntax of
 * core/ptc_ids.c; -EINVAL otherwise. */
int parse_id(const char *s, unsigned int *vendor, unsigned int *device);
/* "gpu", "nic", "nvme" in either case -> enum pcitopo_kind; -EINVAL otherwise. */
int parse_kind(const char *s);
/* opts.c: "VVVV:DDDD[:kind]" of --extra-id (core/ptc_ids.c: exactly 4 hex
 * digits each, as the module's extra_ids and new_id), added to c->ids once;
 * -EINVAL if malformed, -ENOSPC past PCITOPO_MAX_EXTRA_IDS. */
int add_extra_id(struct ctx *c, const char *s);

/* fmt.c */
void fmt_speed(char *buf, size_t len, unsigned int mts);
/* "32GT/s x16", "-" when the device has no upstream link. */
void fmt_link(char *buf, size_t len, unsigned int mts, unsigned int width);
void fmt_bw(char *buf, size_t len, unsigned int mbs);	/* "31.5 GB/s" */
/* CPUs of NUMA node n from SYSFS/devices/system/node/nodeN/cpulist; "N/A"
 * for n < 0 or when unreadable. */
void numa_cpulist(const struct ctx *c, int node, char *buf, size_t len);
/* The device carrying the link of a port: itself for an upstream-facing
 * device, its only child for a downstream-facing one (NULL if none). */
const struct pt_device *link_holder(const struct pt_topology *t,
				    const struct pt_device *d);

/* A copy of port d carrying the figures of its link (from link_holder()):
 * what `lspci -vv` shows at either end of that link. */
void port_link_view(const struct pt_topology *t, const struct pt_device *d,
		    struct pt_device *out);
/* Every field of one device, as "key: value" lines or one JSON object. */
void print_detail(struct ctx *c, const struct pt_topology *t,
		  const struct pt_device *d, bool port);

/* printers: the data behind each read command */
int print_show(struct ctx *c, const struct pt_topology *t);
int print_topo(struct ctx *c, const struct pt_topology *t);
int print_ports(struct ctx *c, const struct pt_topology *t,
		const struct pt_device *only);
int print_devs(struct ctx *c, const struct pt_topology *t,
	       const struct pt_device *only);
int print_path(struct ctx *c, const struct pt_topology *t,
	       const struct pt_path *p);
void print_event(struct ctx *c, const struct pt_event *ev);
void print_ids(struct ctx *c, const struct pt_id *ids, int n);
/* export.c: format "json", "nccl", "dot" or "prometheus" -> index, -1 if
 * unknown */
int export_format(const char *name);
int print_export(struct ctx *c, const struct pt_topology *t, int format);
/* The tree of `export --format json`, {"summary", "devices", "paths"}
 * (pr_export_object()), for diff to compare; NULL after a message. */
struct json_object *export_tree(struct ctx *c, const struct pt_topology *t);
/* diff.c: FILE's text (len bytes and a NUL; name: FILE in messages) as an
 * export object in *out, checked as `diff` needs it; else a message on
 * c->err and EXIT_USAGE. */
int diff_parse(struct ctx *c, const char *name, const char *text, size_t len,
	       struct json_object **out);
/* Compare an export (diff_parse()) with t and print the differences; as
 * diff(1): 0 none, 1 some, 2 trouble. name is FILE's, for the text. */
int print_diff(struct ctx *c, const char *name, struct json_object *was,
	       const struct pt_topology *t);

/* objects */
int do_show(struct ctx *c, int argc, char **argv);
int do_topo(struct ctx *c, int argc, char **argv);
int do_port(struct ctx *c, int argc, char **argv);
int do_dev(struct ctx *c, int argc, char **argv);
int do_path(struct ctx *c, int argc, char **argv);
int do_monitor(struct ctx *c, int argc, char **argv);
int do_id(struct ctx *c, int argc, char **argv);
int do_rescan(struct ctx *c, int argc, char **argv);
int do_detach(struct ctx *c, int argc, char **argv);
int do_refresh(struct ctx *c, int argc, char **argv);
int do_export(struct ctx *c, int argc, char **argv);
int do_snapshot(struct ctx *c, int argc, char **argv);
int do_diff(struct ctx *c, int argc, char **argv);	/* diff.c */
int do_advise(struct ctx *c, int argc, char **argv);	/* advise.c */
int do_bench(struct ctx *c, int argc, char **argv);	/* bench.c */
int do_doctor(struct ctx *c, int argc, char **argv);	/* doctor.c */

/* main.c's option parsing, apart so that the fuzzer drives it: fills c from
 * argv; returns -1 to go on with argv[*optind_out...], else an exit code
 * (0 after -V/-h, EXIT_USAGE). Writes only to c->out and c->err. */
int parse_options(struct ctx *c, int argc, char **argv, int *optind_out);
void ctx_free(struct ctx *c);

/* the whole command table, for `help` (main.c) */
extern const struct cmd topoctl_objects[];

#endif /* PCITOPO_CLI_TOPOCTL_H */
