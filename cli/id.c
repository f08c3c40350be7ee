// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl id: the extra vendor:device IDs the module treats as GPU, NIC or
 * NVMe endpoints on top of the class-code rules.
 */
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

/* The syntax of every extra-ID input: core/ptc_ids.c. */
int parse_id(const char *s, unsigned int *vendor, unsigned int *device)
{
	struct ptc_extra_id id;

	if (ptc_parse_id(s, strlen(s), PTC_ID_NO_KIND, &id))
		return -EINVAL;
	*vendor = id.vendor;
	*device = id.device;
	return 0;
}

int parse_kind(const char *s)
{
	u8 kind;

	if (ptc_parse_kind(s, strlen(s), &kind))
		return -EINVAL;
	return kind;
}

/* "10de:2330 gpu" a line; -j an array of {"vendor", "device", "kind"} */
void print_ids(struct ctx *c, const struct pt_id *ids, int n)
{
	char vendor[8], device[8];
	struct pr o;
	int i;

	pr_begin(&o, c);
	pr_open_array(&o, PRINT_ANY, NULL, NULL, NULL);
	for (i = 0; i < n; i++) {
		snprintf(vendor, sizeof(vendor), "%04x", ids[i].vendor);
		snprintf(device, sizeof(device), "%04x", ids[i].device);
		pr_open_object(&o, PRINT_ANY, NULL);
		pr_string(&o, PRINT_ANY, "vendor", "%s", vendor);
		pr_string(&o, PRINT_ANY, "device", ":%s", device);
		pr_string(&o, PRINT_ANY, "kind", " %s\n",
			  ptc_kind_name(ids[i].kind));
		pr_close_object(&o);
	}
	pr_close_array(&o, NULL, NULL);
	(void)pr_end(&o);
}

static int id_list(struct ctx *c, int argc, char **argv)
{
	struct pt_id *ids;
	int n;

	if (argc > 0)
		return usage_error(c, "unexpected argument '%s' to 'id list'\n"
				   "Try 'topoctl id help'.", argv[0]);
	n = open_nl(c);
	if (n)
		return n;
	n = pt_nl_dump_ids(c->nl, &ids);
	if (n < 0)
		return nl_error(c, "id list", n);
	print_ids(c, ids, n);
	free(ids);
	return 0;
}

static int id_change(struct ctx *c, int argc, char **argv, bool add)
{
	unsigned int vendor, device;
	char what[48];
	int kind = PCITOPO_KIND_GPU, r;

	if (argc < 1 || argc > (add ? 2 : 1))
		return usage_error(c, "'id %s' takes VVVV:DDDD%s\n"
				   "Try 'topoctl id help'.", add ? "add" : "del",
				   add ? " [ gpu | nic | nvme ]" : "");
	if (parse_id(argv[0], &vendor, &device))
		return usage_error(c, "'%s' is not a VVVV:DDDD ID (hex)", argv[0]);
	if (argc == 2) {
		kind = parse_kind(argv[1]);
		if (kind < 0)
			return usage_error(c, "unknown kind '%s' (gpu, nic or nvme)",
					   argv[1]);
	}
	r = open_nl(c);
	if (r)
		return r;
	r = add ? pt_nl_add_id(c->nl, (uint16_t)vendor, (uint16_t)device,
			       (uint8_t)kind) :
		  pt_nl_del_id(c->nl, (uint16_t)vendor, (uint16_t)device);
	if (r) {
		snprintf(what, sizeof(what), "id %s %04x:%04x", add ? "add" : "del",
			 vendor, device);
		return nl_error(c, what, r);
	}
	return 0;
}

static int id_add(struct ctx *c, int argc, char **argv)
{
	return id_change(c, argc, argv, true);
}

static int id_del(struct ctx *c, int argc, char **argv)
{
	return id_change(c, argc, argv, false);
}

static const struct cmd id_cmds[] = {
	{ "list", id_list, NULL },
	{ "add", id_add, NULL },
	{ "del", id_del, NULL },
	{ NULL, NULL, NULL }
};

int do_id(struct ctx *c, int argc, char **argv)
{
	return dispatch(c, "id", id_cmds, argc, argv);
}
