// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl snapshot DIR: save the parts of sysfs the sysfs source reads
 * (lib/sysfs.h, pt_sysfs_snapshot), as hwloc's gather-topology does: a bug
 * report carries the machine, and `topoctl --sysfs DIR ...` replays it.
 * Run it as root: config space past 64 bytes (links, slots, ACS) is
 * readable to root only.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "topoctl.h"

int do_snapshot(struct ctx *c, int argc, char **argv)
{
	struct json_object *o;
	int n;

	if (argc == 1 && !strcmp(argv[0], "help")) {
		print_object_help(c, "snapshot", NULL);
		return 0;
	}
	if (argc != 1)
		return usage_error(c, "'snapshot' takes one DIR\n"
				   "Try 'topoctl snapshot help'.");
	n = pt_sysfs_snapshot(c->sysfs, argv[0]);
	if (n < 0) {
		fprintf(c->err, "topoctl: snapshot: %s\n",
			pt_sysfs_last_error()[0] ? pt_sysfs_last_error() :
			strerror(-n));
		return 1;
	}
	if (c->json) {
		o = json_object_new_object();
		json_object_object_add(o, "dir", json_object_new_string(argv[0]));
		json_object_object_add(o, "pci_devices", json_object_new_int(n));
		json_object_object_add(o, "root",
				       json_object_new_boolean(geteuid() == 0));
		emit_json(c, o);
	} else {
		fprintf(c->out, "saved %d PCI devices from %s to %s\n", n,
			c->sysfs, argv[0]);
	}
	if (geteuid() != 0)
		fputs("topoctl: note: not root: config space saved only up to "
		      "64 bytes (no links, slots or ACS)\n", c->err);
	return 0;
}
