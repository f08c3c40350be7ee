// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: PCIe switch, link and GPU P2P path inspection for pcitopo.ko.
 *
 *   topoctl [OPTIONS] OBJECT { COMMAND | help }
 *
 * main() parses the options (opts.c) and hands the rest to the object table
 * (cli.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topoctl.h"

int main(int argc, char **argv)
{
	struct ctx c = { .out = stdout, .err = stderr, .sysfs = "/sys",
			 .ids_file = PT_EXTRA_IDS_FILE };
	const char *env = getenv("TOPOCTL_SYSFS");
	FILE *tee = errjson_open();
	int first, i, r;

	if (tee)
		c.err = tee;

	if (env && *env)
		c.sysfs = env;
	env = getenv("TOPOCTL_EXTRA_IDS");	/* tests */
	if (env && *env)
		c.ids_file = env;
	r = parse_options(&c, argc, argv, &first);
	if (r < 0 && first >= argc) {
		usage(stderr);
		fputs("topoctl: no object given\n", c.err);
		r = EXIT_USAGE;
	} else if (r < 0) {
		i = match_cmd(topoctl_objects, argv[first]);
		if (i == -2)
			r = usage_error(&c, "ambiguous object '%s'\n"
					"Try 'topoctl help'.", argv[first]);
		else if (i < 0)
			r = usage_error(&c, "unknown object '%s'\n"
					"Try 'topoctl help'.", argv[first]);
		else
			r = topoctl_objects[i].fn(&c, argc - first - 1,
						  argv + first + 1);
	}
	errjson_finish(&c, r);
	ctx_free(&c);
	if (fflush(stdout) && !r) {
		fprintf(stderr, "topoctl: writing output: %s\n", strerror(errno));
		r = 1;
	}
	if (tee)
		fclose(tee);
	return r;
}
