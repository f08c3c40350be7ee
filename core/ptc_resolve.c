// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: validate a topology and fill the derived node fields.
 *
 * The nodes may come in any order. ptc_resolve() first validates every node
 * without writing anything, then computes depths and fills the other derived
 * fields level by level, so that a node's parent is always done first. Cost:
 * O(count * depth), no memory beyond a few locals.
 *
 * Derived fields (the contract):
 *   depth      number of bridges above (0 on a root bus).
 *   root_port  the ROOT_PORT node above, the node itself for a root port,
 *              PTC_NONE if there is none (a device on a root bus).
 *   sw         UPSTREAM: itself (the switch it is part of).
 *              DOWNSTREAM: its parent, if that is an UPSTREAM port, else
 *              PTC_NONE.
 *              ROOT_PORT: PTC_NONE.
 *              Anything else (endpoint, BRIDGE, unknown): the switch its
 *              parent is part of or sits on, i.e. the parent's sw; so an
 *              endpoint below a switch downstream port sits on that switch,
 *              one below a root port on none.
 *   bridge_id  one id per "PCIe bridge" as nvidia-smi counts them:
 *              UPSTREAM: itself, unless it is a split level (see ptc_kind.c)
 *              of the switch above, then that switch's bridge_id.
 *              DOWNSTREAM: the bridge_id of its switch (itself if none).
 *              ROOT_PORT, BRIDGE: itself. Endpoints: PTC_NONE.
 *   kind       if the caller left PCITOPO_KIND_NONE: PCITOPO_KIND_PORT for
 *              bridges, ptc_endpoint_kind() for endpoints (no extra ID;
 *              behind a PCI bridge if the parent's role is BRIDGE). Written back into
 *              the input field: a caller that re-resolves after a class change
 *              resets it to NONE first.
 *   link_max   per figure (speed, width): the lower of the node's LnkCap and
 *              its parent port's LnkCap; a 0 (unknown) on one side gives the
 *              other. All zero without has_link.
 *   link_bw    ptc_link_bw() of cur, if has_link and link_active; else 0 (a
 *              link that is down carries nothing).
 *   link_max_bw ptc_link_bw() of link_max (0 without has_link).
 *   link_flags PRESENT if has_link; ACTIVE if also link_active; then
 *              SPEED_DOWN if cur.speed < link_max.speed and WIDTH_DOWN if
 *              cur.width < link_max.width.
 */
#include "ptc.h"

#define PTC_MAX_COUNT	0x7fffffffU	/* indexes are s32 */

static bool ptc_valid_parent(const struct ptc_topo *t, s32 p)
{
	if (p == PTC_NONE)
		return true;
	if (p < 0 || (u32)p >= t->count)
		return false;
	return ptc_role_is_bridge(t->nodes[p].role);
}

/*
 * Bridges above node i, or -1 if the chain is longer than PTC_MAX_DEPTH
 * (which is what a parent cycle looks like). Parents must be validated.
 */
static int ptc_walk_depth(const struct ptc_topo *t, u32 i)
{
	s32 p = t->nodes[i].parent;
	int depth = 0;

	while (p != PTC_NONE) {
		if (++depth > PTC_MAX_DEPTH)
			return -1;
		p = t->nodes[p].parent;
	}
	return depth;
}

static int ptc_validate(const struct ptc_topo *t)
{
	const struct ptc_node *n;
	u32 i;

	if (t->count > PTC_MAX_COUNT || (t->count && !t->nodes))
		return -EINVAL;
	for (i = 0; i < t->count; i++) {
		n = &t->nodes[i];
		if (n->role >= __PCITOPO_ROLE_MAX ||
		    n->kind >= __PCITOPO_KIND_MAX ||
		    !ptc_valid_parent(t, n->parent))
			return -EINVAL;
	}
	for (i = 0; i < t->count; i++)
		if (ptc_walk_depth(t, i) < 0)
			return -EINVAL;
	return 0;
}

static s32 ptc_derive_sw(const struct ptc_topo *t, s32 i)
{
	const struct ptc_node *n = &t->nodes[i];
	const struct ptc_node *p;

	if (n->role == PCITOPO_ROLE_UPSTREAM)
		return i;
	if (n->role == PCITOPO_ROLE_ROOT_PORT || n->parent == PTC_NONE)
		return PTC_NONE;
	p = &t->nodes[n->parent];
	if (n->role == PCITOPO_ROLE_DOWNSTREAM)
		return p->role == PCITOPO_ROLE_UPSTREAM ? n->parent : PTC_NONE;
	return p->sw;
}

/* The bridge_id of the switch an UPSTREAM port i folds into, or i. */
static s32 ptc_upstream_bridge_id(const struct ptc_topo *t, s32 i)
{
	const struct ptc_node *n = &t->nodes[i];
	const struct ptc_node *p, *up;

	if (!ptc_switch_is_split_level(n->vendor, n->device) ||
	    n->parent == PTC_NONE)
		return i;
	p = &t->nodes[n->parent];
	if (p->role != PCITOPO_ROLE_DOWNSTREAM || p->sw == PTC_NONE)
		return i;
	up = &t->nodes[p->sw];
	if (up->vendor != n->vendor || up->device != n->device)
		return i;
	return up->bridge_id;
}

static s32 ptc_derive_bridge_id(const struct ptc_topo *t, s32 i)
{
	const struct ptc_node *n = &t->nodes[i];

	switch (n->role) {
	case PCITOPO_ROLE_UPSTREAM:
		return ptc_upstream_bridge_id(t, i);
	case PCITOPO_ROLE_DOWNSTREAM:
		return n->sw == PTC_NONE ? i : t->nodes[n->sw].bridge_id;
	case PCITOPO_ROLE_ROOT_PORT:
	case PCITOPO_ROLE_BRIDGE:
		return i;
	default:
		return PTC_NONE;
	}
}

static u8 ptc_derive_kind(const struct ptc_topo *t, const struct ptc_node *n)
{
	bool pci_bus;

	if (n->kind != PCITOPO_KIND_NONE)
		return n->kind;
	if (ptc_role_is_bridge(n->role))
		return PCITOPO_KIND_PORT;
	if (n->role != PCITOPO_ROLE_ENDPOINT)
		return PCITOPO_KIND_NONE;
	pci_bus = n->parent != PTC_NONE &&
		  t->nodes[n->parent].role == PCITOPO_ROLE_BRIDGE;
	return ptc_endpoint_kind(n->vendor, n->class, PCITOPO_KIND_NONE,
				 pci_bus);
}

/* The lower of two figures where 0 means unknown. */
static u32 ptc_min_known(u32 a, u32 b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

static void ptc_derive_link(struct ptc_node *n, const struct ptc_node *p)
{
	struct ptc_link pcap = { 0, 0 };

	n->link_max = pcap;
	n->link_bw = 0;
	n->link_max_bw = 0;
	n->link_flags = 0;
	if (!n->has_link)
		return;
	if (p)
		pcap = p->cap;
	n->link_max.speed = ptc_min_known(n->cap.speed, pcap.speed);
	n->link_max.width = (u8)ptc_min_known(n->cap.width, pcap.width);
	n->link_max_bw = ptc_link_bw(n->link_max.speed, n->link_max.width);
	n->link_flags = PCITOPO_LINK_F_PRESENT;
	if (!n->link_active)
		return;
	n->link_flags |= PCITOPO_LINK_F_ACTIVE;
	n->link_bw = ptc_link_bw(n->cur.speed, n->cur.width);
	if (n->cur.speed < n->link_max.speed)
		n->link_flags |= PCITOPO_LINK_F_SPEED_DOWN;
	if (n->cur.width < n->link_max.width)
		n->link_flags |= PCITOPO_LINK_F_WIDTH_DOWN;
}

/* Fill node i; its parent is already done. */
static void ptc_derive(struct ptc_topo *t, s32 i)
{
	struct ptc_node *n = &t->nodes[i];
	const struct ptc_node *p = NULL;

	if (n->parent != PTC_NONE)
		p = &t->nodes[n->parent];
	if (n->role == PCITOPO_ROLE_ROOT_PORT)
		n->root_port = i;
	else
		n->root_port = p ? p->root_port : PTC_NONE;
	n->sw = ptc_derive_sw(t, i);
	n->bridge_id = ptc_derive_bridge_id(t, i);
	n->kind = ptc_derive_kind(t, n);
	ptc_derive_link(n, p);
}

int ptc_resolve(struct ptc_topo *t)
{
	u8 max_depth = 0, d;
	u32 i;
	int ret;

	if (!t)
		return -EINVAL;
	ret = ptc_validate(t);
	if (ret)
		return ret;
	for (i = 0; i < t->count; i++) {
		t->nodes[i].depth = (u8)ptc_walk_depth(t, i);
		if (t->nodes[i].depth > max_depth)
			max_depth = t->nodes[i].depth;
	}
	for (d = 0; d <= max_depth; d++)
		for (i = 0; i < t->count; i++)
			if (t->nodes[i].depth == d)
				ptc_derive(t, (s32)i);
	return 0;
}
