// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: policy-checked parsing of the family's replies and events.
 */
#include <errno.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "attr.h"

#define U8	{ .type = NLA_U8, .minlen = 1, .maxlen = 1 }
#define U16	{ .type = NLA_U16, .minlen = 2, .maxlen = 2 }
#define U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define S32	{ .type = NLA_S32, .minlen = 4, .maxlen = 4 }
#define U64	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }
#define ADDR	{ .type = NLA_STRING, .maxlen = PCITOPO_ADDR_LEN }

const struct nla_policy pt_policy[PCITOPO_A_MAX + 1] = {
	[PCITOPO_A_GENERATION]		= U64,
	[PCITOPO_A_LAYOUT]		= U8,
	[PCITOPO_A_LAYOUT_REASON]	= { .type = NLA_STRING,
					    .maxlen = PCITOPO_REASON_LEN },
	[PCITOPO_A_COUNT_DEVICES]	= U32,
	[PCITOPO_A_COUNT_GPUS]		= U32,
	[PCITOPO_A_COUNT_NICS]		= U32,
	[PCITOPO_A_COUNT_NVMES]		= U32,
	[PCITOPO_A_COUNT_SWITCHES]	= U32,
	[PCITOPO_A_COUNT_ROOT_PORTS]	= U32,
	[PCITOPO_A_COUNT_NUMA_NODES]	= U32,
	[PCITOPO_A_COUNT_PATHS]		= U32,
	[PCITOPO_A_DEV_ADDR]		= ADDR,
	[PCITOPO_A_DEV_ROLE]		= U8,
	[PCITOPO_A_DEV_KIND]		= U8,
	[PCITOPO_A_DEV_VENDOR]		= U16,
	[PCITOPO_A_DEV_DEVICE]		= U16,
	[PCITOPO_A_DEV_CLASS]		= U32,
	[PCITOPO_A_DEV_PARENT]		= ADDR,
	[PCITOPO_A_DEV_ROOT_PORT]	= ADDR,
	[PCITOPO_A_DEV_SWITCH]		= ADDR,
	[PCITOPO_A_DEV_HOST_BRIDGE]	= ADDR,
	[PCITOPO_A_DEV_NUMA_NODE]	= S32,
	[PCITOPO_A_DEV_LINK_SPEED]	= U32,
	[PCITOPO_A_DEV_LINK_WIDTH]	= U8,
	[PCITOPO_A_DEV_LINK_MAX_SPEED]	= U32,
	[PCITOPO_A_DEV_LINK_MAX_WIDTH]	= U8,
	[PCITOPO_A_DEV_LINK_BW]		= U32,
	[PCITOPO_A_DEV_LINK_MAX_BW]	= U32,
	[PCITOPO_A_DEV_LINK_FLAGS]	= U32,
	[PCITOPO_A_DEV_SLOT]		= U32,
	[PCITOPO_A_DEV_HOTPLUG]		= U8,
	[PCITOPO_A_DEV_ACS_CAP]		= U16,
	[PCITOPO_A_DEV_ACS_CTRL]	= U16,
	[PCITOPO_A_PATH_A]		= ADDR,
	[PCITOPO_A_PATH_B]		= ADDR,
	[PCITOPO_A_PATH_CLASS]		= U8,
	[PCITOPO_A_PATH_HOPS]		= U8,
	[PCITOPO_A_PATH_COMMON]		= ADDR,
	[PCITOPO_A_PATH_BOTTLENECK]	= ADDR,
	[PCITOPO_A_PATH_BOTTLENECK_BW]	= U32,
	[PCITOPO_A_PATH_FLAGS]		= U32,
	[PCITOPO_A_ID_VENDOR]		= U16,
	[PCITOPO_A_ID_DEVICE]		= U16,
	[PCITOPO_A_ID_KIND]		= U8,
};

static int parse(struct nlmsghdr *nlh, struct nlattr **tb, uint64_t *present)
{
	int i;

	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	if (genlmsg_parse(nlh, 0, tb, PCITOPO_A_MAX, (struct nla_policy *)pt_policy))
		return -EBADMSG;
	*present = 0;
	for (i = 1; i <= PCITOPO_A_MAX; i++)
		if (tb[i])
			*present |= PT_BIT(i);
	return 0;
}

static void str(char *dst, size_t len, struct nlattr *a)
{
	if (a)
		nla_strlcpy(dst, a, len);
	else
		dst[0] = '\0';
}

#define GET(tb, a, fn)	((tb)[a] ? fn((tb)[a]) : 0)

static void fill_summary(struct nlattr **tb, struct pt_summary *s)
{
	s->generation = GET(tb, PCITOPO_A_GENERATION, nla_get_u64);
	s->layout = GET(tb, PCITOPO_A_LAYOUT, nla_get_u8);
	str(s->reason, sizeof(s->reason), tb[PCITOPO_A_LAYOUT_REASON]);
	s->count_devices = GET(tb, PCITOPO_A_COUNT_DEVICES, nla_get_u32);
	s->count_gpus = GET(tb, PCITOPO_A_COUNT_GPUS, nla_get_u32);
	s->count_nics = GET(tb, PCITOPO_A_COUNT_NICS, nla_get_u32);
	s->count_nvmes = GET(tb, PCITOPO_A_COUNT_NVMES, nla_get_u32);
	s->count_switches = GET(tb, PCITOPO_A_COUNT_SWITCHES, nla_get_u32);
	s->count_root_ports = GET(tb, PCITOPO_A_COUNT_ROOT_PORTS, nla_get_u32);
	s->count_numa_nodes = GET(tb, PCITOPO_A_COUNT_NUMA_NODES, nla_get_u32);
	s->count_paths = GET(tb, PCITOPO_A_COUNT_PATHS, nla_get_u32);
}

static void fill_device(struct nlattr **tb, struct pt_device *d)
{
	d->generation = GET(tb, PCITOPO_A_GENERATION, nla_get_u64);
	str(d->addr, sizeof(d->addr), tb[PCITOPO_A_DEV_ADDR]);
	d->role = GET(tb, PCITOPO_A_DEV_ROLE, nla_get_u8);
	d->kind = GET(tb, PCITOPO_A_DEV_KIND, nla_get_u8);
	d->vendor = GET(tb, PCITOPO_A_DEV_VENDOR, nla_get_u16);
	d->device = GET(tb, PCITOPO_A_DEV_DEVICE, nla_get_u16);
	d->class_code = GET(tb, PCITOPO_A_DEV_CLASS, nla_get_u32);
	str(d->parent, sizeof(d->parent), tb[PCITOPO_A_DEV_PARENT]);
	str(d->root_port, sizeof(d->root_port), tb[PCITOPO_A_DEV_ROOT_PORT]);
	str(d->sw, sizeof(d->sw), tb[PCITOPO_A_DEV_SWITCH]);
	str(d->host_bridge, sizeof(d->host_bridge),
	    tb[PCITOPO_A_DEV_HOST_BRIDGE]);
	d->numa_node = tb[PCITOPO_A_DEV_NUMA_NODE] ?
		       nla_get_s32(tb[PCITOPO_A_DEV_NUMA_NODE]) : -1;
	d->link_speed = GET(tb, PCITOPO_A_DEV_LINK_SPEED, nla_get_u32);
	d->link_width = GET(tb, PCITOPO_A_DEV_LINK_WIDTH, nla_get_u8);
	d->link_max_speed = GET(tb, PCITOPO_A_DEV_LINK_MAX_SPEED, nla_get_u32);
	d->link_max_width = GET(tb, PCITOPO_A_DEV_LINK_MAX_WIDTH, nla_get_u8);
	d->link_bw = GET(tb, PCITOPO_A_DEV_LINK_BW, nla_get_u32);
	d->link_max_bw = GET(tb, PCITOPO_A_DEV_LINK_MAX_BW, nla_get_u32);
	d->link_flags = GET(tb, PCITOPO_A_DEV_LINK_FLAGS, nla_get_u32);
	d->slot = GET(tb, PCITOPO_A_DEV_SLOT, nla_get_u32);
	d->hotplug = GET(tb, PCITOPO_A_DEV_HOTPLUG, nla_get_u8);
	d->acs_cap = GET(tb, PCITOPO_A_DEV_ACS_CAP, nla_get_u16);
	d->acs_ctrl = GET(tb, PCITOPO_A_DEV_ACS_CTRL, nla_get_u16);
}

int pt_parse_summary(struct nlmsghdr *nlh, struct pt_summary *s)
{
	struct nlattr *tb[PCITOPO_A_MAX + 1];
	int r;

	memset(s, 0, sizeof(*s));
	r = parse(nlh, tb, &s->present);
	if (r)
		return r;
	if (!tb[PCITOPO_A_GENERATION] || !tb[PCITOPO_A_LAYOUT])
		return -EBADMSG;
	fill_summary(tb, s);
	return 0;
}

int pt_parse_device(struct nlmsghdr *nlh, struct pt_device *d)
{
	struct nlattr *tb[PCITOPO_A_MAX + 1];
	int r;

	memset(d, 0, sizeof(*d));
	r = parse(nlh, tb, &d->present);
	if (r)
		return r;
	if (!tb[PCITOPO_A_DEV_ADDR])
		return -EBADMSG;
	fill_device(tb, d);
	return 0;
}

int pt_parse_path(struct nlmsghdr *nlh, struct pt_path *p)
{
	struct nlattr *tb[PCITOPO_A_MAX + 1];
	int r;

	memset(p, 0, sizeof(*p));
	r = parse(nlh, tb, &p->present);
	if (r)
		return r;
	if (!tb[PCITOPO_A_PATH_A] || !tb[PCITOPO_A_PATH_B])
		return -EBADMSG;
	p->generation = GET(tb, PCITOPO_A_GENERATION, nla_get_u64);
	str(p->a, sizeof(p->a), tb[PCITOPO_A_PATH_A]);
	str(p->b, sizeof(p->b), tb[PCITOPO_A_PATH_B]);
	p->path_class = GET(tb, PCITOPO_A_PATH_CLASS, nla_get_u8);
	p->hops = GET(tb, PCITOPO_A_PATH_HOPS, nla_get_u8);
	str(p->common, sizeof(p->common), tb[PCITOPO_A_PATH_COMMON]);
	str(p->bottleneck, sizeof(p->bottleneck), tb[PCITOPO_A_PATH_BOTTLENECK]);
	p->bottleneck_bw = GET(tb, PCITOPO_A_PATH_BOTTLENECK_BW, nla_get_u32);
	p->flags = GET(tb, PCITOPO_A_PATH_FLAGS, nla_get_u32);
	return 0;
}

int pt_parse_id(struct nlmsghdr *nlh, struct pt_id *id)
{
	struct nlattr *tb[PCITOPO_A_MAX + 1];
	uint64_t present;
	int r;

	memset(id, 0, sizeof(*id));
	r = parse(nlh, tb, &present);
	if (r)
		return r;
	if (!tb[PCITOPO_A_ID_VENDOR] || !tb[PCITOPO_A_ID_DEVICE])
		return -EBADMSG;
	id->vendor = nla_get_u16(tb[PCITOPO_A_ID_VENDOR]);
	id->device = nla_get_u16(tb[PCITOPO_A_ID_DEVICE]);
	id->kind = tb[PCITOPO_A_ID_KIND] ? nla_get_u8(tb[PCITOPO_A_ID_KIND]) :
					   PCITOPO_KIND_GPU;
	return 0;
}

int pt_parse_event(struct nlmsghdr *nlh, struct pt_event *ev)
{
	struct genlmsghdr *gh;
	int r;

	memset(ev, 0, sizeof(*ev));
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	gh = nlmsg_data(nlh);
	ev->type = gh->cmd;
	switch (gh->cmd) {
	case PCITOPO_CMD_DEVICE_ADD_NTF:
	case PCITOPO_CMD_DEVICE_DEL_NTF:
	case PCITOPO_CMD_LINK_CHANGE_NTF:
		r = pt_parse_device(nlh, &ev->device);
		ev->generation = ev->device.generation;
		return r;
	case PCITOPO_CMD_LAYOUT_CHANGE_NTF:
		r = pt_parse_summary(nlh, &ev->summary);
		ev->generation = ev->summary.generation;
		return r;
	default:
		return -EOPNOTSUPP;
	}
}
