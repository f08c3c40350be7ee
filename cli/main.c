// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: PCIe switch, link and GPU P2P path inspection for pcitopo.ko.
 *
 *   topoctl [OPTIONS] OBJECT { COMMAND | help }
 *
 * main() parses the options and hands the rest to the object table (cli.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "topoctl.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctx c = { .out = stdout, .err = stderr, .sysfs = "/sys" };
	const char *env = getenv("TOPOCTL_SYSFS");
	int opt, i, r;

	if (env && *env)
		c.sysfs = env;
	opterr = 0;
	/* '+': stop at the object, so that "topo -m" reaches the object */
	while ((opt = getopt_long(argc, argv, "+jpVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case 'p':
			c.pretty = true;
			break;
		case 'V':
			printf("topoctl %s (pcitopo genl version %d)\n",
			       TOPOCTL_VERSION, PCITOPO_GENL_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt)
				return usage_error(&c, "unknown option '-%c'\n"
						   "Try 'topoctl help'.", optopt);
			return usage_error(&c, "unknown option '%s'\n"
					   "Try 'topoctl help'.",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	i = match_cmd(topoctl_objects, argv[optind]);
	if (i == -2)
		return usage_error(&c, "ambiguous object '%s'\n"
				   "Try 'topoctl help'.", argv[optind]);
	if (i < 0)
		return usage_error(&c, "unknown object '%s'\n"
				   "Try 'topoctl help'.", argv[optind]);
	r = topoctl_objects[i].fn(&c, argc - optind - 1, argv + optind + 1);
	pt_nl_close(c.nl);
	if (fflush(stdout) && !r) {
		fprintf(stderr, "topoctl: writing output: %s\n", strerror(errno));
		r = 1;
	}
	return r;
}
