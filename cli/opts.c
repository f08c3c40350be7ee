// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: the global options, apart from main() so that the fuzzer
 * (fuzz/fuzz_argv.c) drives them without I/O.
 *
 *   -j, --json           JSON output
 *   -p, --pretty         indented JSON
 *   --source SRC         netlink (pcitopo.ko) or sysfs (libpci); default:
 *                        netlink when the module is loaded, else sysfs
 *   --sysfs DIR          read a sysfs tree saved by `topoctl snapshot`
 *                        (implies --source sysfs)
 *   --extra-id ID        VVVV:DDDD[:gpu|nic|nvme], repeatable: extra IDs of
 *                        the sysfs source, besides /etc/pcitopo/extra-ids
 *   --all-nics           topo and path list show every NIC, not only the
 *                        RDMA-capable ones nvidia-smi lists
 *   -V, --version, -h, --help
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ptc.h"
#include "topoctl.h"

int add_extra_id(struct ctx *c, const char *s)
{
	struct ptc_extra_id id;
	unsigned int vendor, device;
	struct pt_id *na;
	size_t i;
	int kind;

	if (ptc_parse_id(s, strlen(s), 0, &id))
		return -EINVAL;
	vendor = id.vendor;
	device = id.device;
	kind = id.kind;
	for (i = 0; i < c->n_ids; i++)
		if (c->ids[i].vendor == vendor && c->ids[i].device == device) {
			c->ids[i].kind = (uint8_t)kind;	/* the last one wins */
			return 0;
		}
	if (c->n_ids >= PCITOPO_MAX_EXTRA_IDS)
		return -ENOSPC;
	na = realloc(c->ids, (c->n_ids + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	c->ids = na;
	c->ids[c->n_ids].vendor = (uint16_t)vendor;
	c->ids[c->n_ids].device = (uint16_t)device;
	c->ids[c->n_ids].kind = (uint8_t)kind;
	c->n_ids++;
	return 0;
}

enum { OPT_SOURCE = 256, OPT_SYSFS, OPT_EXTRA_ID, OPT_ALL_NICS };

int parse_options(struct ctx *c, int argc, char **argv, int *optind_out)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "extra-id", required_argument, NULL, OPT_EXTRA_ID },
		{ "all-nics", no_argument, NULL, OPT_ALL_NICS },
		{ NULL, 0, NULL, 0 }
	};
	bool sysfs_dir = false;
	int opt, r;

	opterr = 0;
	optind = 0;	/* full reinitialisation: parse_options may run again */
	/* '+': stop at the object, so that "topo -m" reaches the object */
	while ((opt = getopt_long(argc, argv, "+:jpVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			c->json = true;
			break;
		case 'p':
			c->pretty = true;
			break;
		case 'V':
			fprintf(c->out, "topoctl %s (pcitopo genl version %d)\n",
				TOPOCTL_VERSION, PCITOPO_GENL_VERSION);
			return 0;
		case 'h':
			usage(c->out);
			return 0;
		case OPT_SOURCE:
			if (!strcmp(optarg, "netlink"))
				c->source = PT_SOURCE_NETLINK;
			else if (!strcmp(optarg, "sysfs"))
				c->source = PT_SOURCE_SYSFS;
			else
				return usage_error(c, "unknown source '%s' (netlink or sysfs)",
						   optarg);
			break;
		case OPT_SYSFS:
			if (!*optarg)
				return usage_error(c, "'--sysfs' needs a directory");
			c->sysfs = optarg;
			sysfs_dir = true;
			break;
		case OPT_EXTRA_ID:
			r = add_extra_id(c, optarg);
			if (r == -ENOSPC)
				return usage_error(c, "more than %d extra IDs",
						   PCITOPO_MAX_EXTRA_IDS);
			if (r)
				return usage_error(c, "'%s' is not a VVVV:DDDD[:gpu|nic|nvme] ID",
						   optarg);
			break;
		case OPT_ALL_NICS:
			c->all_nics = true;
			break;
		case ':':
			return usage_error(c, "option '%s' needs an argument\n"
					   "Try 'topoctl help'.", argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return usage_error(c, "unknown option '-%c'\n"
						   "Try 'topoctl help'.", optopt);
			return usage_error(c, "unknown option '%s'\n"
					   "Try 'topoctl help'.",
					   argv[optind - 1]);
		}
	}
	if (sysfs_dir) {
		if (c->source == PT_SOURCE_NETLINK)
			return usage_error(c, "'--sysfs' reads a saved tree: it "
					   "cannot go with '--source netlink'");
		c->source = PT_SOURCE_SYSFS;
	}
	*optind_out = optind;
	return -1;
}

void ctx_free(struct ctx *c)
{
	pt_nl_close(c->nl);
	c->nl = NULL;
	free(c->ids);
	c->ids = NULL;
	c->n_ids = 0;
}
