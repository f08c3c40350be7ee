/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcitopo.ko: /sys/kernel/pcitopo/ (pcitopo_sysfs.c). pcitopo_main.c
 * subscribes pcitopo_sysfs_subscriber after pcitopo_sysfs_init() and
 * unsubscribes it before pcitopo_sysfs_exit().
 */
#ifndef PCITOPO_KMOD_SYSFS_H
#define PCITOPO_KMOD_SYSFS_H

#include "pcitopo_internal.h"

int pcitopo_sysfs_init(void);
void pcitopo_sysfs_exit(void);

/* Brings devices/ in line with each snapshot. */
extern struct pcitopo_subscriber pcitopo_sysfs_subscriber;

#endif /* PCITOPO_KMOD_SYSFS_H */
