// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: the path between two endpoints, in nvidia-smi's terms.
 *
 * The walk: climb from both endpoints to their closest common bridge (the
 * "common" bridge; PTC_NONE when the two only meet at or above a host
 * bridge). The path's bridges are every ancestor of a and of b strictly below
 * the common bridge, plus the common bridge itself.
 *
 *   X     a == b.
 *   PIX   a common bridge, and every bridge on the path has the same
 *         bridge_id: one switch (with a split Broadcom level folded in), or a
 *         single root port / bridge.
 *   PXB   a common bridge, and more than one distinct bridge_id on the path
 *         (cascaded switches, a switch under a PCI bridge, ...).
 *   PHB   no common bridge, same host bridge (domain and root bus).
 *   NODE  different host bridges, both NUMA nodes known and equal.
 *   SYS   different host bridges on different NUMA nodes, or a NUMA node
 *         unknown on either side; the latter adds PCITOPO_PATH_F_NUMA_UNKNOWN
 *         (the devices may well share a CPU: NODE vs SYS is a guess).
 *
 *   hops        ports on the path from a to b, a and b excluded, the common
 *               bridge counted once; without a common bridge, every port up to
 *               and including both root ports (the host bridge is no port).
 *   bottleneck  among a, b and the path's bridges below the common one, the
 *               node with an upstream link (has_link) whose current link_bw is
 *               lowest; on a tie the one closest to a. The common bridge's
 *               own upstream link carries no traffic of this path.
 *   flags       ACS_REDIRECT: PIX/PXB, and a root port or downstream port
 *               below the common bridge enables ACS P2P Request or Completion
 *               Redirect or P2P Egress Control (ptc_acs_redirect(), the
 *               definition shared with userspace): P2P TLPs go up to the
 *               root complex instead.
 *               WIDTH_DOWN: a link on the path (the bottleneck candidates)
 *               is narrower than both its ends support.
 *
 * All walks are bounded by PTC_MAX_DEPTH; the cost is O(depth), with
 * no memory beyond two arrays of PTC_MAX_DEPTH indexes on the stack.
 */
#include "ptc.h"

/* Ancestors of one endpoint strictly below the common bridge, nearest first. */
struct ptc_side {
	s32 up[PTC_MAX_DEPTH];
	u32 n;
};

static int ptc_depth_of(const struct ptc_topo *t, s32 i)
{
	return i == PTC_NONE ? -1 : t->nodes[i].depth;
}

/*
 * Climb one step on a side; false if it would exceed PTC_MAX_DEPTH (the
 * topology was not resolved).
 */
static bool ptc_climb(const struct ptc_topo *t, struct ptc_side *s, s32 *x)
{
	if (s->n >= PTC_MAX_DEPTH)
		return false;
	s->up[s->n++] = *x;
	*x = t->nodes[*x].parent;
	return true;
}

/* Fill both sides; *common gets the closest common bridge or PTC_NONE. */
static bool ptc_meet(const struct ptc_topo *t, u32 a, u32 b,
		     struct ptc_side *sa, struct ptc_side *sb, s32 *common)
{
	s32 x = t->nodes[a].parent, y = t->nodes[b].parent;

	sa->n = 0;
	sb->n = 0;
	while (x != y) {
		if (ptc_depth_of(t, x) >= ptc_depth_of(t, y)) {
			if (!ptc_climb(t, sa, &x))
				return false;
		} else if (!ptc_climb(t, sb, &y)) {
			return false;
		}
	}
	*common = x;
	return true;
}

/* The class of a path whose sides meet at no bridge. */
static u8 ptc_host_class(const struct ptc_node *na, const struct ptc_node *nb,
			 u32 *flags)
{
	if (na->domain == nb->domain && na->root_bus == nb->root_bus)
		return PCITOPO_PATH_PHB;
	if (na->numa_node < 0 || nb->numa_node < 0) {
		*flags |= PCITOPO_PATH_F_NUMA_UNKNOWN;
		return PCITOPO_PATH_SYS;
	}
	return na->numa_node == nb->numa_node ? PCITOPO_PATH_NODE :
						PCITOPO_PATH_SYS;
}

static bool ptc_side_one_bridge(const struct ptc_topo *t,
				const struct ptc_side *s, s32 id)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (t->nodes[s->up[i]].bridge_id != id)
			return false;
	return true;
}

static u32 ptc_side_acs(const struct ptc_topo *t, const struct ptc_side *s)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (ptc_acs_redirect(t->nodes[s->up[i]].role,
				     t->nodes[s->up[i]].acs_cap,
				     t->nodes[s->up[i]].acs_ctrl))
			return PCITOPO_PATH_F_ACS_REDIRECT;
	return 0;
}

/* Consider node i as the bottleneck; strict "<" keeps the one nearest a. */
static void ptc_link_check(const struct ptc_topo *t, s32 i,
			   struct ptc_path *out)
{
	const struct ptc_node *n = &t->nodes[i];

	if (!n->has_link)
		return;
	if (n->link_flags & PCITOPO_LINK_F_WIDTH_DOWN)
		out->flags |= PCITOPO_PATH_F_WIDTH_DOWN;
	if (out->bottleneck == PTC_NONE || n->link_bw < out->bottleneck_bw) {
		out->bottleneck = i;
		out->bottleneck_bw = n->link_bw;
	}
}

/* Walk the links in order from a to b. */
static void ptc_links(const struct ptc_topo *t, u32 a, u32 b,
		      const struct ptc_side *sa, const struct ptc_side *sb,
		      struct ptc_path *out)
{
	u32 i;

	ptc_link_check(t, (s32)a, out);
	for (i = 0; i < sa->n; i++)
		ptc_link_check(t, sa->up[i], out);
	for (i = sb->n; i > 0; i--)
		ptc_link_check(t, sb->up[i - 1], out);
	ptc_link_check(t, (s32)b, out);
}

static void ptc_path_init(struct ptc_path *out, u8 class)
{
	out->class = class;
	out->hops = 0;
	out->common = PTC_NONE;
	out->bottleneck = PTC_NONE;
	out->bottleneck_bw = 0;
	out->flags = 0;
}

void ptc_path(const struct ptc_topo *t, u32 a, u32 b, struct ptc_path *out)
{
	struct ptc_side sa, sb;
	s32 common, id;

	ptc_path_init(out, PCITOPO_PATH_UNKNOWN);
	if (!t || a >= t->count || b >= t->count)
		return;
	if (a == b) {
		out->class = PCITOPO_PATH_X;
		return;
	}
	if (!ptc_meet(t, a, b, &sa, &sb, &common))
		return;
	out->common = common;
	out->hops = (u8)(sa.n + sb.n + (common != PTC_NONE));
	ptc_links(t, a, b, &sa, &sb, out);
	if (common == PTC_NONE) {
		out->class = ptc_host_class(&t->nodes[a], &t->nodes[b],
					    &out->flags);
		return;
	}
	id = t->nodes[common].bridge_id;
	if (ptc_side_one_bridge(t, &sa, id) && ptc_side_one_bridge(t, &sb, id))
		out->class = PCITOPO_PATH_PIX;
	else
		out->class = PCITOPO_PATH_PXB;
	out->flags |= ptc_side_acs(t, &sa) | ptc_side_acs(t, &sb);
}

static bool ptc_peer_kind(u8 kind)
{
	return kind == PCITOPO_KIND_GPU || kind == PCITOPO_KIND_NIC ||
	       kind == PCITOPO_KIND_NVME;
}

bool ptc_pair_of_interest(const struct ptc_topo *t, u32 a, u32 b)
{
	const struct ptc_node *na, *nb;

	if (!t || a == b || a >= t->count || b >= t->count)
		return false;
	na = &t->nodes[a];
	nb = &t->nodes[b];
	if (na->role != PCITOPO_ROLE_ENDPOINT ||
	    nb->role != PCITOPO_ROLE_ENDPOINT)
		return false;
	if (na->kind == PCITOPO_KIND_GPU)
		return ptc_peer_kind(nb->kind);
	return nb->kind == PCITOPO_KIND_GPU && ptc_peer_kind(na->kind);
}
