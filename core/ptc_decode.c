// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: a struct ptc_raw, as a reader collected it, into the input
 * fields of a struct ptc_node: the rules both readers used to repeat.
 *
 *   role     a bridge's PCIe port type (root port, upstream, downstream),
 *            BRIDGE for a conventional bridge and any other type.
 *   kind     PORT for a bridge; for an endpoint ptc_endpoint_kind(), "on a
 *            conventional PCI bus" meaning the bridge above has role BRIDGE.
 *   link     LnkCap and LnkSta count only for the port types that implement
 *            the link registers (the kernel's pcie_cap_has_lnkctl()); a
 *            register of all ones (a device that no longer answers) reads
 *            as 0. The link a node reports is the one on its upstream side:
 *            endpoints, legacy endpoints, switch upstream ports and
 *            PCIe-to-PCI bridges have one; a root port's or downstream
 *            port's link is its child's.
 *   active   trained (a negotiated width), unless the port above implements
 *            Data Link Layer Link Active Reporting: then its DLLLA bit,
 *            which is what says a link is up on a port that keeps LnkSta's
 *            last figures after the link went down.
 *   slot     on root and downstream ports whose PCIe Capabilities say Slot
 *            Implemented: SltCap's Physical Slot Number, and Hot-Plug
 *            Capable making the port hotplug (as the PCI core sets
 *            is_hotplug_bridge from the same bit); -1 otherwise.
 *   ACS      a capability register of all ones reads as no ACS at all.
 */
#include "ptc_raw.h"

#define PTC_ALL_ONES16	0xffffU
#define PTC_ALL_ONES32	0xffffffffU

static u8 ptc_exp_type(const struct ptc_raw_exp *e)
{
	return (e->flags & PTC_EXP_FLAGS_TYPE) >> 4;
}

/* Port types with Link Capabilities/Status: pcie_cap_has_lnkctl(). */
static bool ptc_exp_has_link_regs(const struct ptc_raw_exp *e)
{
	switch (ptc_exp_type(e)) {
	case PTC_EXP_TYPE_ENDPOINT:
	case PTC_EXP_TYPE_LEG_END:
	case PTC_EXP_TYPE_ROOT_PORT:
	case PTC_EXP_TYPE_UPSTREAM:
	case PTC_EXP_TYPE_DOWNSTREAM:
	case PTC_EXP_TYPE_PCI_BRIDGE:
	case PTC_EXP_TYPE_PCIE_BRIDGE:
		return e->present;
	default:
		return false;
	}
}

/* Port types whose link is on their upstream side. */
static bool ptc_exp_has_upstream_link(const struct ptc_raw_exp *e)
{
	switch (ptc_exp_type(e)) {
	case PTC_EXP_TYPE_ENDPOINT:
	case PTC_EXP_TYPE_LEG_END:
	case PTC_EXP_TYPE_UPSTREAM:
	case PTC_EXP_TYPE_PCI_BRIDGE:
		return e->present;
	default:
		return false;
	}
}

static u8 ptc_exp_bridge_role(const struct ptc_raw_exp *e)
{
	if (!e->present)
		return PCITOPO_ROLE_BRIDGE;
	switch (ptc_exp_type(e)) {
	case PTC_EXP_TYPE_ROOT_PORT:
		return PCITOPO_ROLE_ROOT_PORT;
	case PTC_EXP_TYPE_UPSTREAM:
		return PCITOPO_ROLE_UPSTREAM;
	case PTC_EXP_TYPE_DOWNSTREAM:
		return PCITOPO_ROLE_DOWNSTREAM;
	default:
		return PCITOPO_ROLE_BRIDGE;
	}
}

u8 ptc_raw_role(const struct ptc_raw *r)
{
	return r->bridge ? ptc_exp_bridge_role(&r->exp) : PCITOPO_ROLE_ENDPOINT;
}

u8 ptc_raw_kind(const struct ptc_raw *r)
{
	if (r->bridge)
		return PCITOPO_KIND_PORT;
	return ptc_endpoint_kind(r->vendor, r->class, r->extra_kind,
				 r->has_up && ptc_exp_bridge_role(&r->up) ==
					      PCITOPO_ROLE_BRIDGE);
}

static void ptc_decode_link(const struct ptc_raw *r, struct ptc_node *n)
{
	const struct ptc_raw_exp *up = &r->up;
	u32 lnkcap = 0;
	u16 lnksta = 0;

	if (ptc_exp_has_link_regs(&r->exp)) {
		lnkcap = r->exp.lnkcap;
		lnksta = r->exp.lnksta;
	}
	if (lnkcap == PTC_ALL_ONES32)
		lnkcap = 0;
	if (lnksta == PTC_ALL_ONES16)
		lnksta = 0;
	n->cap.speed = ptc_speed_from_lnk(lnkcap & PTC_EXP_LNKCAP_SLS);
	n->cap.width = (lnkcap & PTC_EXP_LNKCAP_MLW) >> 4;
	n->cur.speed = ptc_speed_from_lnk(lnksta & PTC_EXP_LNKSTA_CLS);
	n->cur.width = (lnksta & PTC_EXP_LNKSTA_NLW) >> 4;
	n->has_link = ptc_exp_has_upstream_link(&r->exp);
	n->link_active = n->has_link && n->cur.width > 0;

	if (!n->has_link || !r->has_up || !ptc_exp_has_link_regs(up) ||
	    up->lnkcap == PTC_ALL_ONES32 ||
	    !(up->lnkcap & PTC_EXP_LNKCAP_DLLLARC))
		return;
	if (up->lnksta != PTC_ALL_ONES16)
		n->link_active = !!(up->lnksta & PTC_EXP_LNKSTA_DLLLA);
}

static void ptc_decode_slot(const struct ptc_raw *r, struct ptc_node *n)
{
	n->slot = -1;
	n->hotplug = r->hotplug_bridge;
	/* the role says PCIe root or downstream port: pcie_cap_has_sltctl() */
	if (n->role != PCITOPO_ROLE_ROOT_PORT &&
	    n->role != PCITOPO_ROLE_DOWNSTREAM)
		return;
	if (!(r->exp.flags & PTC_EXP_FLAGS_SLOT) ||
	    r->sltcap == PTC_ALL_ONES32)
		return;
	n->slot = (s32)((r->sltcap & PTC_EXP_SLTCAP_PSN) >> 19);
	if (r->sltcap & PTC_EXP_SLTCAP_HPC)
		n->hotplug = true;
}

bool ptc_raw_decode(const struct ptc_raw *r, struct ptc_node *n)
{
	u8 kind = ptc_raw_kind(r);

	if (kind == PCITOPO_KIND_NONE)
		return false;
	memset(n, 0, sizeof(*n));
	n->domain = r->domain;
	n->bus = r->bus;
	n->devfn = r->devfn;
	n->parent = PTC_NONE;
	n->role = ptc_raw_role(r);
	n->vendor = r->vendor;
	n->device = r->device;
	n->class = r->class;
	n->kind = kind;
	n->numa_node = r->numa_node;
	n->has_socket = r->has_socket;
	n->socket = r->has_socket ? r->socket : 0;
	n->root_bus = r->root_bus;
	ptc_decode_link(r, n);
	if (r->acs_cap != PTC_ALL_ONES16) {
		n->acs_cap = r->acs_cap;
		n->acs_ctrl = r->acs_ctrl;
	}
	ptc_decode_slot(r, n);
	return true;
}
