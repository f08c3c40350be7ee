/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: the one way a small file of a sysfs tree (live, or saved by
 * `topoctl snapshot` and attached to a bug report), /proc/cpuinfo or a copy
 * of it is opened and read. A saved tree is a plain directory: anything can
 * stand where an attribute should, and a FIFO blocks open() until a writer
 * comes, /dev/zero never ends. So: regular files only (the type is checked
 * before open, and again on the descriptor), and never more than the
 * caller's buffer.
 */
#ifndef PCITOPO_LIB_RFILE_H
#define PCITOPO_LIB_RFILE_H

#include <errno.h>
#include <stddef.h>

/*
 * Returned, negated, for a path that exists but is not a regular file (a
 * FIFO, socket, device or directory). Linux has no "wrong file type" errno
 * (BSD's EFTYPE); EMEDIUMTYPE is one no read of sysfs or procfs returns,
 * so it cannot be mistaken for a failed read. pt_file_strerror() words it.
 */
#define PT_ENOTREG	EMEDIUMTYPE

/* A descriptor (O_RDONLY, O_CLOEXEC) of the regular file at path, or
 * -PT_ENOTREG, or -errno of stat()/open(). */
int pt_file_open(const char *path);

/*
 * Read the regular file at path from its start: at most size - 1 bytes
 * into buf, then a NUL (size >= 1); *len (may be NULL) the bytes read. A
 * longer file is cut at size - 1 bytes: callers size buf for what the file
 * can hold. Returns 0, -PT_ENOTREG, or -errno.
 */
int pt_file_read(const char *path, void *buf, size_t size, size_t *len);

/* strerror(-e), except "not a regular file" for -PT_ENOTREG. */
const char *pt_file_strerror(int e);

#endif /* PCITOPO_LIB_RFILE_H */
