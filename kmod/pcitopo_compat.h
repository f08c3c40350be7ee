/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcitopo.ko on every kernel from 5.10 to the newest Debian ships: the one
 * place that knows how kernel APIs differ. Each difference is one feature
 * test, named with the kernel and the commit that changed the API; the rest
 * of the module calls one spelling and never tests a version.
 *
 * Two kinds of test: a macro the kernel defines or not is tested here with
 * the preprocessor; anything else (a function, a struct member) is compiled
 * against the kernel by kmod/scripts/conftest, whose answers Kbuild puts in
 * pcitopo_conftest.h (PCITOPO_HAVE_*) before any of the module is built.
 * Kernel versions are named for the reader only: RHEL and others backport
 * these APIs into older version numbers, and a feature test sees that.
 */
#ifndef PCITOPO_COMPAT_H
#define PCITOPO_COMPAT_H

#include <net/genetlink.h>
#include <net/netlink.h>

#include "pcitopo_conftest.h"

/*
 * v6.1, "netlink: add helpers for extack attr presence checking" (Jakub
 * Kicinski, Aug 2022): GENL_REQ_ATTR_CHECK() tests a required attribute and
 * reports it missing in the extack (NLMSGERR_ATTR_MISS_TYPE). Before it
 * there is no missing-attribute report: the test alone, and the caller's
 * message (pcitopo_nl_missing() sets one either way) says which.
 */
#ifndef GENL_REQ_ATTR_CHECK
#define GENL_REQ_ATTR_CHECK(info, attr) (!(info)->attrs[(attr)])
#endif

/*
 * v6.3, "netlink: Add a macro to set policy message with format string"
 * (Shay Agroskin, 2023): NL_SET_ERR_MSG_ATTR_FMT(), on v6.2's formatted
 * extack messages. Without it an error message is a fixed string: it points
 * at the attribute but does not repeat the address in the text.
 */
#ifdef NL_SET_ERR_MSG_ATTR_FMT
#define PCITOPO_HAVE_EXTACK_FMT 1
#endif

/*
 * The attributes of a dump request (parsed by the op's policy): in
 * genl_dumpit_info's own attrs until v6.6, where "genetlink: add struct
 * genl_info to struct genl_dumpit_info" (Jakub Kicinski, Aug 2023) gave
 * dumps a struct genl_info (genl_info_dump()) and "genetlink: use attrs
 * from struct genl_info" removed the old member. Test: conftest's
 * GENL_INFO_DUMP.
 */
static inline struct nlattr **pcitopo_dump_attrs(struct netlink_callback *cb)
{
#ifdef PCITOPO_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* PCITOPO_COMPAT_H */
