/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcitopo.ko: the "pcitopo" generic netlink family (pcitopo_netlink.c).
 * pcitopo_main.c subscribes pcitopo_nl_subscriber after pcitopo_nl_init()
 * and unsubscribes it before pcitopo_nl_exit().
 */
#ifndef PCITOPO_KMOD_NETLINK_H
#define PCITOPO_KMOD_NETLINK_H

#include "pcitopo_internal.h"

int pcitopo_nl_init(void);
void pcitopo_nl_exit(void);

/* Multicasts each change to the "events" group. */
extern struct pcitopo_subscriber pcitopo_nl_subscriber;

#endif /* PCITOPO_KMOD_NETLINK_H */
