/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: the message pt_sysfs_last_error() returns, one per thread,
 * shared by the sysfs reader (sysfs.c) and the snapshot copier
 * (sysfs_copy.c) so that either one's failure is named there.
 */
#ifndef PCITOPO_LIB_SYSFS_ERR_H
#define PCITOPO_LIB_SYSFS_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define PT_SYSFS_ERR_LEN	512

extern __thread char pt_sysfs_err[PT_SYSFS_ERR_LEN];

void pt_sysfs_set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pt_sysfs_vset_err(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif /* PCITOPO_LIB_SYSFS_ERR_H */
