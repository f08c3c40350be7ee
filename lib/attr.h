/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: netlink attributes <-> model. The userspace policy that every
 * reply is checked against, and the parsers of one message each. Internal to
 * the library (and its unit tests): applications use nl.h.
 */
#ifndef PCITOPO_LIB_ATTR_H
#define PCITOPO_LIB_ATTR_H

#include <linux/netlink.h>
#include <netlink/attr.h>

#include "model.h"

/* One policy for every attribute: exact sizes for integers, bounded strings. */
extern const struct nla_policy pt_policy[PCITOPO_A_MAX + 1];

/*
 * Parse one generic netlink message of the family. Unknown (newer) attributes
 * are ignored; a known attribute of the wrong size, an unterminated or too
 * long string, or a missing mandatory attribute gives -EBADMSG.
 * Mandatory: summary GENERATION and LAYOUT; device DEV_ADDR; path PATH_A and
 * PATH_B; ID ID_VENDOR and ID_DEVICE.
 */
int pt_parse_summary(struct nlmsghdr *nlh, struct pt_summary *s);
int pt_parse_device(struct nlmsghdr *nlh, struct pt_device *d);
int pt_parse_path(struct nlmsghdr *nlh, struct pt_path *p);
int pt_parse_id(struct nlmsghdr *nlh, struct pt_id *id);
/* Any of the four *_NTF commands; -EOPNOTSUPP for another command. */
int pt_parse_event(struct nlmsghdr *nlh, struct pt_event *ev);

#endif /* PCITOPO_LIB_ATTR_H */
