// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: which attributes a device's message carries, decided once
 * for the module's netlink replies (kmod/pcitopo_netlink.c) and the sysfs
 * source's present bits (lib/sysfs.c), so topoctl prints the same from
 * either. An attribute that does not apply is absent, never 0 or "": a root
 * bus device has no parent, a port outside any switch no switch, a root
 * port no link of its own (its link is its child's), a port without Slot
 * Implemented no slot, a function without an ACS capability no ACS
 * registers.
 */
#include "ptc.h"

/* The module's u64 attribute mask: the enum must stay below 64 entries. */
static_assert(PCITOPO_A_MAX < 64, "enum pcitopo_attr outgrew a u64");

#define PTC_DEV_ALWAYS	(PTC_ATTR(PCITOPO_A_GENERATION) |		\
			 PTC_ATTR(PCITOPO_A_DEV_ADDR) |			\
			 PTC_ATTR(PCITOPO_A_DEV_ROLE) |			\
			 PTC_ATTR(PCITOPO_A_DEV_KIND) |			\
			 PTC_ATTR(PCITOPO_A_DEV_VENDOR) |		\
			 PTC_ATTR(PCITOPO_A_DEV_DEVICE) |		\
			 PTC_ATTR(PCITOPO_A_DEV_CLASS) |		\
			 PTC_ATTR(PCITOPO_A_DEV_HOST_BRIDGE) |		\
			 PTC_ATTR(PCITOPO_A_DEV_NUMA_NODE) |		\
			 PTC_ATTR(PCITOPO_A_DEV_LINK_FLAGS) |		\
			 PTC_ATTR(PCITOPO_A_DEV_HOTPLUG))

#define PTC_DEV_LINK	(PTC_ATTR(PCITOPO_A_DEV_LINK_SPEED) |		\
			 PTC_ATTR(PCITOPO_A_DEV_LINK_WIDTH) |		\
			 PTC_ATTR(PCITOPO_A_DEV_LINK_MAX_SPEED) |	\
			 PTC_ATTR(PCITOPO_A_DEV_LINK_MAX_WIDTH) |	\
			 PTC_ATTR(PCITOPO_A_DEV_LINK_BW) |		\
			 PTC_ATTR(PCITOPO_A_DEV_LINK_MAX_BW))

#define PTC_DEV_ACS	(PTC_ATTR(PCITOPO_A_DEV_ACS_CAP) |		\
			 PTC_ATTR(PCITOPO_A_DEV_ACS_CTRL))

u64 ptc_dev_attrs(const struct ptc_node *n)
{
	u64 m = PTC_DEV_ALWAYS;

	if (n->parent != PTC_NONE)
		m |= PTC_ATTR(PCITOPO_A_DEV_PARENT);
	if (n->root_port != PTC_NONE)
		m |= PTC_ATTR(PCITOPO_A_DEV_ROOT_PORT);
	if (n->sw != PTC_NONE)
		m |= PTC_ATTR(PCITOPO_A_DEV_SWITCH);
	if (n->link_flags & PCITOPO_LINK_F_PRESENT)
		m |= PTC_DEV_LINK;
	if (n->slot >= 0)
		m |= PTC_ATTR(PCITOPO_A_DEV_SLOT);
	if (n->acs_cap)
		m |= PTC_DEV_ACS;
	return m;
}
