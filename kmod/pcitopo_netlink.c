// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo: the "pcitopo" generic netlink family, as include/uapi/linux/
 * pcitopo.h describes it (and Documentation/netlink/specs/pcitopo.yaml).
 *
 * Every request is validated strictly by a per-command policy; commands
 * without a policy accept no attributes. Replies are built from one
 * snapshot. A dump takes the current snapshot on each call and keeps no
 * reference between calls; cb->seq carries the generation, so a change in
 * the middle of a dump marks it NLM_F_DUMP_INTR. The netlink core holds a
 * reference on this module while a dump is in progress.
 *
 * Error messages point at the offending attribute (NL_SET_ERR_MSG_ATTR);
 * where the kernel has formatted messages (pcitopo_compat.h), they also name
 * the address.
 */
#define pr_fmt(fmt) "pcitopo: " fmt

#include <linux/pci.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "pcitopo_compat.h"
#include "pcitopo_internal.h"
#include "pcitopo_netlink.h"

#ifdef PCITOPO_HAVE_EXTACK_FMT
#define PCITOPO_ERR_ADDR(extack, attr, msg)				\
	pcitopo_nl_err_addr(extack, attr, msg)

static void pcitopo_nl_err_addr(struct netlink_ext_ack *extack,
				const struct nlattr *attr, const char *msg)
{
	NL_SET_ERR_MSG_ATTR_FMT(extack, attr, "%s: %s", (char *)nla_data(attr),
				msg);
}
#else
#define PCITOPO_ERR_ADDR(extack, attr, msg)				\
	NL_SET_ERR_MSG_ATTR(extack, attr, msg)
#endif

enum {
	PCITOPO_NL_GRP_EVENTS,
};

static struct genl_family pcitopo_nl_family;

/* ---- policies ---- */

#define PCITOPO_NL_ADDR_POLICY \
	{ .type = NLA_NUL_STRING, .len = PCITOPO_ADDR_LEN - 1 }

static const struct nla_policy pcitopo_nl_dev_policy[PCITOPO_A_MAX + 1] = {
	[PCITOPO_A_DEV_ADDR] = PCITOPO_NL_ADDR_POLICY,
};

static const struct nla_policy pcitopo_nl_path_policy[PCITOPO_A_MAX + 1] = {
	[PCITOPO_A_PATH_A] = PCITOPO_NL_ADDR_POLICY,
	[PCITOPO_A_PATH_B] = PCITOPO_NL_ADDR_POLICY,
};

static const struct nla_policy pcitopo_nl_add_id_policy[PCITOPO_A_MAX + 1] = {
	[PCITOPO_A_ID_VENDOR] = { .type = NLA_U16 },
	[PCITOPO_A_ID_DEVICE] = { .type = NLA_U16 },
	[PCITOPO_A_ID_KIND] = NLA_POLICY_RANGE(NLA_U8, PCITOPO_KIND_GPU,
					       PCITOPO_KIND_NVME),
};

static const struct nla_policy pcitopo_nl_del_id_policy[PCITOPO_A_MAX + 1] = {
	[PCITOPO_A_ID_VENDOR] = { .type = NLA_U16 },
	[PCITOPO_A_ID_DEVICE] = { .type = NLA_U16 },
};

/* ---- message bodies ---- */

/* Upper bounds of the message bodies, so that events stay small. */
static size_t pcitopo_nl_summary_size(void)
{
	return nla_total_size_64bit(sizeof(u64)) +	/* GENERATION */
	       nla_total_size(sizeof(u8)) +		/* LAYOUT */
	       nla_total_size(PCITOPO_REASON_LEN) +	/* LAYOUT_REASON */
	       8 * nla_total_size(sizeof(u32));		/* COUNT_* */
}

static size_t pcitopo_nl_dev_size(void)
{
	return nla_total_size_64bit(sizeof(u64)) +	/* GENERATION */
	       5 * nla_total_size(PCITOPO_ADDR_LEN) +	/* addresses */
	       5 * nla_total_size(sizeof(u8)) +		/* ROLE .. HOTPLUG */
	       4 * nla_total_size(sizeof(u16)) +	/* IDs, ACS */
	       8 * nla_total_size(sizeof(u32));		/* CLASS .. SLOT */
}

static size_t pcitopo_nl_path_size(void)
{
	return nla_total_size_64bit(sizeof(u64)) +	/* GENERATION */
	       4 * nla_total_size(PCITOPO_ADDR_LEN) +	/* A, B, COMMON, BOTTLENECK */
	       2 * nla_total_size(sizeof(u8)) +		/* CLASS, HOPS */
	       2 * nla_total_size(sizeof(u32));		/* BOTTLENECK_BW, FLAGS */
}

static int pcitopo_nl_put_ref(struct sk_buff *skb, int attr,
			      const struct pcitopo_snap *s, s32 i)
{
	if (i == PTC_NONE)
		return 0;
	return nla_put_string(skb, attr, s->addr[i]);
}

static int pcitopo_nl_put_gen(struct sk_buff *skb, u64 gen)
{
	return nla_put_u64_64bit(skb, PCITOPO_A_GENERATION, gen,
				 PCITOPO_A_PAD);
}

static int pcitopo_nl_put_summary(struct sk_buff *skb,
				  const struct pcitopo_snap *s)
{
	const struct ptc_layout *l = &s->layout;
	char reason[PCITOPO_REASON_LEN];

	strscpy(reason, l->reason, sizeof(reason));
	if (pcitopo_nl_put_gen(skb, s->gen) ||
	    nla_put_u8(skb, PCITOPO_A_LAYOUT, l->layout) ||
	    nla_put_string(skb, PCITOPO_A_LAYOUT_REASON, reason) ||
	    nla_put_u32(skb, PCITOPO_A_COUNT_DEVICES, s->topo.count) ||
	    nla_put_u32(skb, PCITOPO_A_COUNT_GPUS, l->gpus) ||
	    nla_put_u32(skb, PCITOPO_A_COUNT_NICS, l->nics) ||
	    nla_put_u32(skb, PCITOPO_A_COUNT_NVMES, l->nvmes) ||
	    nla_put_u32(skb, PCITOPO_A_COUNT_SWITCHES, l->switches) ||
	    nla_put_u32(skb, PCITOPO_A_COUNT_ROOT_PORTS, l->root_ports) ||
	    nla_put_u32(skb, PCITOPO_A_COUNT_NUMA_NODES, l->numa_nodes) ||
	    nla_put_u32(skb, PCITOPO_A_COUNT_PATHS, s->npaths))
		return -EMSGSIZE;
	return 0;
}

static bool pcitopo_nl_has(u64 attrs, int attr)
{
	return attrs & PTC_ATTR(attr);
}

/* The attributes ptc_dev_attrs() says the device carries, no others. */
static int pcitopo_nl_put_dev(struct sk_buff *skb,
			      const struct pcitopo_snap *s, u32 i, u64 gen)
{
	const struct ptc_node *n = &s->topo.nodes[i];
	u64 m = ptc_dev_attrs(n);
	char hb[PCITOPO_ADDR_LEN];

	pcitopo_host_bridge_name(n, hb, sizeof(hb));
	if ((pcitopo_nl_has(m, PCITOPO_A_GENERATION) &&
	     pcitopo_nl_put_gen(skb, gen)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_ADDR) &&
	     nla_put_string(skb, PCITOPO_A_DEV_ADDR, s->addr[i])) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_ROLE) &&
	     nla_put_u8(skb, PCITOPO_A_DEV_ROLE, n->role)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_KIND) &&
	     nla_put_u8(skb, PCITOPO_A_DEV_KIND, n->kind)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_VENDOR) &&
	     nla_put_u16(skb, PCITOPO_A_DEV_VENDOR, n->vendor)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_DEVICE) &&
	     nla_put_u16(skb, PCITOPO_A_DEV_DEVICE, n->device)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_CLASS) &&
	     nla_put_u32(skb, PCITOPO_A_DEV_CLASS, n->class)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_PARENT) &&
	     nla_put_string(skb, PCITOPO_A_DEV_PARENT, s->addr[n->parent])) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_ROOT_PORT) &&
	     nla_put_string(skb, PCITOPO_A_DEV_ROOT_PORT,
			    s->addr[n->root_port])) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_SWITCH) &&
	     nla_put_string(skb, PCITOPO_A_DEV_SWITCH, s->addr[n->sw])) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_HOST_BRIDGE) &&
	     nla_put_string(skb, PCITOPO_A_DEV_HOST_BRIDGE, hb)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_NUMA_NODE) &&
	     nla_put_s32(skb, PCITOPO_A_DEV_NUMA_NODE, n->numa_node)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_LINK_FLAGS) &&
	     nla_put_u32(skb, PCITOPO_A_DEV_LINK_FLAGS, n->link_flags)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_LINK_SPEED) &&
	     nla_put_u32(skb, PCITOPO_A_DEV_LINK_SPEED, n->cur.speed)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_LINK_WIDTH) &&
	     nla_put_u8(skb, PCITOPO_A_DEV_LINK_WIDTH, n->cur.width)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_LINK_MAX_SPEED) &&
	     nla_put_u32(skb, PCITOPO_A_DEV_LINK_MAX_SPEED,
			 n->link_max.speed)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_LINK_MAX_WIDTH) &&
	     nla_put_u8(skb, PCITOPO_A_DEV_LINK_MAX_WIDTH,
			n->link_max.width)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_LINK_BW) &&
	     nla_put_u32(skb, PCITOPO_A_DEV_LINK_BW, n->link_bw)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_LINK_MAX_BW) &&
	     nla_put_u32(skb, PCITOPO_A_DEV_LINK_MAX_BW, n->link_max_bw)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_SLOT) &&
	     nla_put_u32(skb, PCITOPO_A_DEV_SLOT, n->slot)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_HOTPLUG) &&
	     nla_put_u8(skb, PCITOPO_A_DEV_HOTPLUG, n->hotplug)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_ACS_CAP) &&
	     nla_put_u16(skb, PCITOPO_A_DEV_ACS_CAP, n->acs_cap)) ||
	    (pcitopo_nl_has(m, PCITOPO_A_DEV_ACS_CTRL) &&
	     nla_put_u16(skb, PCITOPO_A_DEV_ACS_CTRL, n->acs_ctrl)))
		return -EMSGSIZE;
	return 0;
}

static int pcitopo_nl_put_path(struct sk_buff *skb,
			       const struct pcitopo_snap *s, u32 a, u32 b,
			       const struct ptc_path *p)
{
	if (pcitopo_nl_put_gen(skb, s->gen) ||
	    nla_put_string(skb, PCITOPO_A_PATH_A, s->addr[a]) ||
	    nla_put_string(skb, PCITOPO_A_PATH_B, s->addr[b]) ||
	    nla_put_u8(skb, PCITOPO_A_PATH_CLASS, p->class) ||
	    nla_put_u8(skb, PCITOPO_A_PATH_HOPS, p->hops) ||
	    pcitopo_nl_put_ref(skb, PCITOPO_A_PATH_COMMON, s, p->common) ||
	    pcitopo_nl_put_ref(skb, PCITOPO_A_PATH_BOTTLENECK, s,
			       p->bottleneck) ||
	    (p->bottleneck != PTC_NONE &&
	     nla_put_u32(skb, PCITOPO_A_PATH_BOTTLENECK_BW,
			 p->bottleneck_bw)) ||
	    nla_put_u32(skb, PCITOPO_A_PATH_FLAGS, p->flags))
		return -EMSGSIZE;
	return 0;
}

static int pcitopo_nl_put_id(struct sk_buff *skb, const struct pcitopo_id *id)
{
	if (nla_put_u16(skb, PCITOPO_A_ID_VENDOR, id->vendor) ||
	    nla_put_u16(skb, PCITOPO_A_ID_DEVICE, id->device) ||
	    nla_put_u8(skb, PCITOPO_A_ID_KIND, id->kind))
		return -EMSGSIZE;
	return 0;
}

/* ---- helpers ---- */

/* Whether a required attribute is missing; if so, say which. */
static bool pcitopo_nl_missing(struct genl_info *info, int attr)
{
	if (!GENL_REQ_ATTR_CHECK(info, attr))
		return false;
	switch (attr) {
	case PCITOPO_A_DEV_ADDR:
		GENL_SET_ERR_MSG(info, "missing PCITOPO_A_DEV_ADDR: the PCI address of the device");
		break;
	case PCITOPO_A_PATH_A:
		GENL_SET_ERR_MSG(info, "missing PCITOPO_A_PATH_A: address of one endpoint");
		break;
	case PCITOPO_A_PATH_B:
		GENL_SET_ERR_MSG(info, "missing PCITOPO_A_PATH_B: address of the other endpoint");
		break;
	case PCITOPO_A_ID_VENDOR:
		GENL_SET_ERR_MSG(info, "missing PCITOPO_A_ID_VENDOR: the vendor ID");
		break;
	case PCITOPO_A_ID_DEVICE:
		GENL_SET_ERR_MSG(info, "missing PCITOPO_A_ID_DEVICE: the device ID");
		break;
	default:
		GENL_SET_ERR_MSG(info, "missing a required attribute");
		break;
	}
	return true;
}

static struct pcitopo_snap *pcitopo_nl_snap(struct netlink_ext_ack *extack)
{
	struct pcitopo_snap *s = pcitopo_snap_get();

	if (!s)
		NL_SET_ERR_MSG(extack, "pcitopo has no model (unloading)");
	return s;
}

/* The node named by attr in s, or a negative errno with extack set. */
static int pcitopo_nl_lookup(const struct pcitopo_snap *s,
			     const struct nlattr *attr,
			     struct netlink_ext_ack *extack)
{
	u32 domain;
	u8 bus, devfn;
	int i;

	if (ptc_addr_parse(nla_data(attr), &domain, &bus, &devfn)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "malformed PCI address (want DDDD:BB:DD.F)");
		return -EINVAL;
	}
	i = pcitopo_snap_find_bdf(s, domain, bus, devfn);
	if (i < 0)
		PCITOPO_ERR_ADDR(extack, attr,
				 "no such device among pcitopo's ports and endpoints");
	return i;
}

/* The pci_dev named by attr (a reference), or an ERR_PTR with extack set. */
static struct pci_dev *pcitopo_nl_pci_dev(const struct nlattr *attr,
					  struct netlink_ext_ack *extack)
{
	struct pci_dev *pdev;
	u32 domain;
	u8 bus, devfn;

	if (ptc_addr_parse(nla_data(attr), &domain, &bus, &devfn)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "malformed PCI address (want DDDD:BB:DD.F)");
		return ERR_PTR(-EINVAL);
	}
	pdev = pci_get_domain_bus_and_slot(domain, bus, devfn);
	if (!pdev) {
		PCITOPO_ERR_ADDR(extack, attr, "no such PCI device");
		return ERR_PTR(-ENODEV);
	}
	return pdev;
}

static int pcitopo_nl_reply(struct genl_info *info, struct sk_buff *msg,
			    void *hdr, int ret)
{
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int pcitopo_nl_reply_summary(struct genl_info *info,
				    const struct pcitopo_snap *s)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(pcitopo_nl_summary_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &pcitopo_nl_family, 0,
				info->genlhdr->cmd);
	if (!hdr) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return pcitopo_nl_reply(info, msg, hdr,
				pcitopo_nl_put_summary(msg, s));
}

static void *pcitopo_nl_dump_hdr(struct sk_buff *skb,
				 struct netlink_callback *cb, u8 cmd)
{
	void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq, &pcitopo_nl_family,
				NLM_F_MULTI, cmd);

	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

/* ---- GET_SUMMARY, REFRESH ---- */

static int pcitopo_nl_get_summary_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	struct pcitopo_snap *s = pcitopo_nl_snap(info->extack);
	int ret;

	if (!s)
		return -ENODEV;
	ret = pcitopo_nl_reply_summary(info, s);
	pcitopo_snap_put(s);
	return ret;
}

static int pcitopo_nl_refresh_doit(struct sk_buff *skb,
				   struct genl_info *info)
{
	int ret = pcitopo_model_rebuild(false);

	if (ret) {
		GENL_SET_ERR_MSG(info, "rebuilding the model failed");
		return ret;
	}
	return pcitopo_nl_get_summary_doit(skb, info);
}

/* ---- GET_DEVICE ---- */

static int pcitopo_nl_get_device_doit(struct sk_buff *skb,
				      struct genl_info *info)
{
	struct pcitopo_snap *s;
	struct sk_buff *msg;
	void *hdr;
	int i, ret;

	if (pcitopo_nl_missing(info, PCITOPO_A_DEV_ADDR))
		return -EINVAL;
	s = pcitopo_nl_snap(info->extack);
	if (!s)
		return -ENODEV;
	i = pcitopo_nl_lookup(s, info->attrs[PCITOPO_A_DEV_ADDR],
			      info->extack);
	ret = i < 0 ? i : -ENOMEM;
	if (i < 0)
		goto out;
	msg = genlmsg_new(pcitopo_nl_dev_size(), GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &pcitopo_nl_family, 0,
				PCITOPO_CMD_GET_DEVICE);
	ret = hdr ? pcitopo_nl_put_dev(msg, s, i, s->gen) : -EMSGSIZE;
	ret = pcitopo_nl_reply(info, msg, hdr, ret);
out:
	pcitopo_snap_put(s);
	return ret;
}

/* cb->args[0]: index of the next node. */
static int pcitopo_nl_get_device_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb)
{
	struct pcitopo_snap *s = pcitopo_nl_snap(cb->extack);
	u32 i;
	void *hdr;

	if (!s)
		return -ENODEV;
	cb->seq = (u32)s->gen;
	for (i = cb->args[0]; i < s->topo.count; i++) {
		hdr = pcitopo_nl_dump_hdr(skb, cb, PCITOPO_CMD_GET_DEVICE);
		if (!hdr)
			break;
		if (pcitopo_nl_put_dev(skb, s, i, s->gen)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = i;
	pcitopo_snap_put(s);
	return skb->len;
}

/* ---- GET_PATH ---- */

static int pcitopo_nl_get_path_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	const struct pcitopo_path_ent *e;
	struct pcitopo_snap *s;
	struct ptc_path path;
	struct sk_buff *msg;
	int a, b, ret;
	void *hdr;

	if (pcitopo_nl_missing(info, PCITOPO_A_PATH_A) ||
	    pcitopo_nl_missing(info, PCITOPO_A_PATH_B))
		return -EINVAL;
	s = pcitopo_nl_snap(info->extack);
	if (!s)
		return -ENODEV;
	a = pcitopo_nl_lookup(s, info->attrs[PCITOPO_A_PATH_A], info->extack);
	ret = a;
	if (a < 0)
		goto out;
	b = pcitopo_nl_lookup(s, info->attrs[PCITOPO_A_PATH_B], info->extack);
	ret = b;
	if (b < 0)
		goto out;
	ret = -EINVAL;
	if (s->topo.nodes[a].role != PCITOPO_ROLE_ENDPOINT) {
		PCITOPO_ERR_ADDR(info->extack, info->attrs[PCITOPO_A_PATH_A],
				 "not an endpoint of interest");
		goto out;
	}
	if (s->topo.nodes[b].role != PCITOPO_ROLE_ENDPOINT) {
		PCITOPO_ERR_ADDR(info->extack, info->attrs[PCITOPO_A_PATH_B],
				 "not an endpoint of interest");
		goto out;
	}
	/*
	 * Pairs outside the table (two NICs, a device with itself) are
	 * computed on the fly from the same snapshot.
	 */
	e = pcitopo_snap_path(s, a, b);
	if (e)
		path = e->path;
	else
		ptc_path(&s->topo, a, b, &path);

	ret = -ENOMEM;
	msg = genlmsg_new(pcitopo_nl_path_size(), GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &pcitopo_nl_family, 0,
				PCITOPO_CMD_GET_PATH);
	ret = hdr ? pcitopo_nl_put_path(msg, s, a, b, &path) : -EMSGSIZE;
	ret = pcitopo_nl_reply(info, msg, hdr, ret);
out:
	pcitopo_snap_put(s);
	return ret;
}

/*
 * cb->args[0]: paths sent so far. With PCITOPO_A_PATH_A the range is the
 * paths from that device, looked up again in each call's snapshot.
 */
static int pcitopo_nl_get_path_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct nlattr **attrs = pcitopo_dump_attrs(cb);
	const struct nlattr *filter = attrs ? attrs[PCITOPO_A_PATH_A] : NULL;
	struct pcitopo_snap *s = pcitopo_nl_snap(cb->extack);
	u32 first = 0, end, k;
	int a, ret = 0;
	void *hdr;

	if (!s)
		return -ENODEV;
	cb->seq = (u32)s->gen;
	end = s->npaths;
	if (filter) {
		a = pcitopo_nl_lookup(s, filter, cb->extack);
		if (a < 0) {
			/*
			 * Fail on the first call; later, the device went
			 * away: end the dump, the generation marks it.
			 */
			ret = cb->args[0] || cb->args[1] ? 0 : a;
			goto out;
		}
		first = s->path_first[a];
		end = s->path_first[a + 1];
	}
	cb->args[1] = 1;
	for (k = first + cb->args[0]; k < end; k++) {
		const struct pcitopo_path_ent *e = &s->paths[k];

		hdr = pcitopo_nl_dump_hdr(skb, cb, PCITOPO_CMD_GET_PATH);
		if (!hdr)
			break;
		if (pcitopo_nl_put_path(skb, s, e->a, e->b, &e->path)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = k - first;
	ret = skb->len;
out:
	pcitopo_snap_put(s);
	return ret;
}

/* ---- DETACH, RESCAN ---- */

static int pcitopo_nl_detach_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[PCITOPO_A_DEV_ADDR];
	struct pci_dev *pdev, *child, *tmp;
	int type, ret = 0;

	if (pcitopo_nl_missing(info, PCITOPO_A_DEV_ADDR))
		return -EINVAL;
	pdev = pcitopo_nl_pci_dev(attr, info->extack);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	type = pci_is_pcie(pdev) ? pci_pcie_type(pdev) : -1;
	if (type != PCI_EXP_TYPE_ROOT_PORT && type != PCI_EXP_TYPE_DOWNSTREAM) {
		PCITOPO_ERR_ADDR(info->extack, attr,
				 "not a downstream-facing port (root port or switch downstream port)");
		ret = -EINVAL;
		goto out;
	}

	pci_lock_rescan_remove();
	if (pdev->subordinate) {
		list_for_each_entry_safe_reverse(child, tmp,
						 &pdev->subordinate->devices,
						 bus_list)
			pci_stop_and_remove_bus_device(child);
	} else {
		ret = -ENODEV;
	}
	pci_unlock_rescan_remove();
	if (ret) {
		PCITOPO_ERR_ADDR(info->extack, attr,
				 "the port has no bus below it");
		goto out;
	}
	pcitopo_model_rebuild(false);
out:
	pci_dev_put(pdev);
	return ret;
}

static int pcitopo_nl_rescan_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[PCITOPO_A_DEV_ADDR];
	struct pci_dev *pdev = NULL;
	struct pci_bus *bus = NULL;
	int ret = 0;

	if (attr) {
		pdev = pcitopo_nl_pci_dev(attr, info->extack);
		if (IS_ERR(pdev))
			return PTR_ERR(pdev);
	}

	pci_lock_rescan_remove();
	if (!pdev) {
		while ((bus = pci_find_next_bus(bus)) != NULL)
			pci_rescan_bus(bus);
	} else if (pdev->subordinate) {
		pci_rescan_bus(pdev->subordinate);
	} else {
		ret = -EINVAL;
	}
	pci_unlock_rescan_remove();

	if (ret)
		PCITOPO_ERR_ADDR(info->extack, attr,
				 "not a bridge with a bus below it");
	else
		pcitopo_model_rebuild(false);
	pci_dev_put(pdev);
	return ret;
}

/* ---- extra IDs ---- */

static int pcitopo_nl_add_id_doit(struct sk_buff *skb, struct genl_info *info)
{
	u8 kind = PCITOPO_KIND_GPU;
	int ret;

	if (pcitopo_nl_missing(info, PCITOPO_A_ID_VENDOR) ||
	    pcitopo_nl_missing(info, PCITOPO_A_ID_DEVICE))
		return -EINVAL;
	if (info->attrs[PCITOPO_A_ID_KIND])
		kind = nla_get_u8(info->attrs[PCITOPO_A_ID_KIND]);
	ret = pcitopo_ids_add(nla_get_u16(info->attrs[PCITOPO_A_ID_VENDOR]),
			      nla_get_u16(info->attrs[PCITOPO_A_ID_DEVICE]),
			      kind);
	if (ret == -EEXIST)
		GENL_SET_ERR_MSG(info, "this vendor:device ID is already in the table");
	else if (ret == -ENOSPC)
		GENL_SET_ERR_MSG(info, "the table of extra IDs is full");
	else if (ret)
		GENL_SET_ERR_MSG(info, "invalid extra ID");
	if (ret)
		return ret;
	pcitopo_model_rebuild(true);
	return 0;
}

static int pcitopo_nl_del_id_doit(struct sk_buff *skb, struct genl_info *info)
{
	int ret;

	if (pcitopo_nl_missing(info, PCITOPO_A_ID_VENDOR) ||
	    pcitopo_nl_missing(info, PCITOPO_A_ID_DEVICE))
		return -EINVAL;
	ret = pcitopo_ids_del(nla_get_u16(info->attrs[PCITOPO_A_ID_VENDOR]),
			      nla_get_u16(info->attrs[PCITOPO_A_ID_DEVICE]));
	if (ret) {
		GENL_SET_ERR_MSG(info, "this vendor:device ID is not in the table");
		return ret;
	}
	pcitopo_model_rebuild(true);
	return 0;
}

/* cb->args[0]: index of the next ID. */
static int pcitopo_nl_get_id_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct pcitopo_snap *s = pcitopo_nl_snap(cb->extack);
	struct pcitopo_id_table *t;
	unsigned int i;
	void *hdr;

	if (!s)
		return -ENODEV;
	t = kmalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		pcitopo_snap_put(s);
		return -ENOMEM;
	}
	/* ID changes make a new generation: the same consistency check. */
	cb->seq = (u32)s->gen;
	pcitopo_snap_put(s);
	pcitopo_ids_copy(t);
	for (i = cb->args[0]; i < t->count; i++) {
		hdr = pcitopo_nl_dump_hdr(skb, cb, PCITOPO_CMD_GET_ID);
		if (!hdr)
			break;
		if (pcitopo_nl_put_id(skb, &t->ids[i])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = i;
	kfree(t);
	return skb->len;
}

/* ---- notifications ---- */

static bool pcitopo_nl_listening(void)
{
	return genl_has_listeners(&pcitopo_nl_family, &init_net,
				  PCITOPO_NL_GRP_EVENTS);
}

static void pcitopo_nl_multicast(struct sk_buff *msg, void *hdr, int ret)
{
	if (ret) {
		nlmsg_free(msg);
		pr_warn_ratelimited("event too large, dropped\n");
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&pcitopo_nl_family, msg, 0, PCITOPO_NL_GRP_EVENTS,
			  GFP_KERNEL);
}

static void pcitopo_nl_notify_dev(u8 cmd, const struct pcitopo_snap *s,
				  u32 i, u64 gen)
{
	struct sk_buff *msg;
	void *hdr;

	if (!pcitopo_nl_listening())
		return;
	msg = genlmsg_new(pcitopo_nl_dev_size(), GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pcitopo_nl_family, 0, cmd);
	pcitopo_nl_multicast(msg, hdr,
			     hdr ? pcitopo_nl_put_dev(msg, s, i, gen) : -EMSGSIZE);
}

static void pcitopo_nl_notify_layout(const struct pcitopo_snap *s)
{
	struct sk_buff *msg;
	void *hdr;

	if (!pcitopo_nl_listening())
		return;
	msg = genlmsg_new(pcitopo_nl_summary_size(), GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pcitopo_nl_family, 0,
			  PCITOPO_CMD_LAYOUT_CHANGE_NTF);
	pcitopo_nl_multicast(msg, hdr,
			     hdr ? pcitopo_nl_put_summary(msg, s) : -EMSGSIZE);
}

/* The model's changes, as the notifications of include/uapi/linux/pcitopo.h */
static void pcitopo_nl_event(const struct pcitopo_event *ev)
{
	switch (ev->type) {
	case PCITOPO_EV_DEVICE_DEL:
		pcitopo_nl_notify_dev(PCITOPO_CMD_DEVICE_DEL_NTF, ev->snap,
				      ev->index, ev->gen);
		break;
	case PCITOPO_EV_DEVICE_ADD:
		pcitopo_nl_notify_dev(PCITOPO_CMD_DEVICE_ADD_NTF, ev->snap,
				      ev->index, ev->gen);
		break;
	case PCITOPO_EV_DEVICE_CHANGE:
		pcitopo_nl_notify_dev(PCITOPO_CMD_LINK_CHANGE_NTF, ev->snap,
				      ev->index, ev->gen);
		break;
	case PCITOPO_EV_LAYOUT_CHANGE:
		pcitopo_nl_notify_layout(ev->snap);
		break;
	}
}

struct pcitopo_subscriber pcitopo_nl_subscriber = {
	.event = pcitopo_nl_event,
};

/* ---- family ---- */

#define PCITOPO_NL_POLICY(p)	.policy = (p), .maxattr = PCITOPO_A_MAX

static const struct genl_ops pcitopo_nl_ops[] = {
	{
		.cmd = PCITOPO_CMD_GET_SUMMARY,
		.doit = pcitopo_nl_get_summary_doit,
	},
	{
		.cmd = PCITOPO_CMD_GET_DEVICE,
		.doit = pcitopo_nl_get_device_doit,
		.dumpit = pcitopo_nl_get_device_dumpit,
		PCITOPO_NL_POLICY(pcitopo_nl_dev_policy),
	},
	{
		.cmd = PCITOPO_CMD_GET_PATH,
		.doit = pcitopo_nl_get_path_doit,
		.dumpit = pcitopo_nl_get_path_dumpit,
		PCITOPO_NL_POLICY(pcitopo_nl_path_policy),
	},
	{
		.cmd = PCITOPO_CMD_DETACH,
		.flags = GENL_ADMIN_PERM,
		.doit = pcitopo_nl_detach_doit,
		PCITOPO_NL_POLICY(pcitopo_nl_dev_policy),
	},
	{
		.cmd = PCITOPO_CMD_RESCAN,
		.flags = GENL_ADMIN_PERM,
		.doit = pcitopo_nl_rescan_doit,
		PCITOPO_NL_POLICY(pcitopo_nl_dev_policy),
	},
	{
		.cmd = PCITOPO_CMD_REFRESH,
		.flags = GENL_ADMIN_PERM,
		.doit = pcitopo_nl_refresh_doit,
	},
	{
		.cmd = PCITOPO_CMD_ADD_ID,
		.flags = GENL_ADMIN_PERM,
		.doit = pcitopo_nl_add_id_doit,
		PCITOPO_NL_POLICY(pcitopo_nl_add_id_policy),
	},
	{
		.cmd = PCITOPO_CMD_DEL_ID,
		.flags = GENL_ADMIN_PERM,
		.doit = pcitopo_nl_del_id_doit,
		PCITOPO_NL_POLICY(pcitopo_nl_del_id_policy),
	},
	{
		.cmd = PCITOPO_CMD_GET_ID,
		.dumpit = pcitopo_nl_get_id_dumpit,
	},
};

static const struct genl_multicast_group pcitopo_nl_mcgrps[] = {
	[PCITOPO_NL_GRP_EVENTS] = { .name = PCITOPO_MCGRP_EVENTS },
};

static struct genl_family pcitopo_nl_family __ro_after_init = {
	.name = PCITOPO_GENL_NAME,
	.version = PCITOPO_GENL_VERSION,
	.netnsok = false,
	.parallel_ops = false,
	.module = THIS_MODULE,
	.ops = pcitopo_nl_ops,
	.n_ops = ARRAY_SIZE(pcitopo_nl_ops),
	.mcgrps = pcitopo_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(pcitopo_nl_mcgrps),
};

int pcitopo_nl_init(void)
{
	return genl_register_family(&pcitopo_nl_family);
}

void pcitopo_nl_exit(void)
{
	genl_unregister_family(&pcitopo_nl_family);
}
