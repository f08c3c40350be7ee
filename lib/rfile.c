// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: reading one small regular file (rfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rfile.h"

int pt_file_open(const char *path)
{
	struct stat st;
	int fd;

	/*
	 * The type before open(): opening a FIFO for reading waits for a
	 * writer, and opening a device may act on it.
	 */
	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -PT_ENOTREG;
	/*
	 * O_NONBLOCK: should the path turn into a FIFO between stat() and
	 * open(), open() still returns (regular files, sysfs and procfs
	 * included, ignore the flag), and fstat() below sees what it got.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -PT_ENOTREG;
	}
	return fd;
}

int pt_file_read(const char *path, void *buf, size_t size, size_t *len)
{
	char *p = buf;
	size_t done = 0;
	ssize_t n;
	int fd, r = 0;

	if (len)
		*len = 0;
	if (!size)
		return -EINVAL;
	p[0] = '\0';
	fd = pt_file_open(path);
	if (fd < 0)
		return fd;
	/* procfs hands out a page per read(): loop, but never past size */
	while (done < size - 1) {
		n = read(fd, p + done, size - 1 - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (!n)
			break;
		done += (size_t)n;
	}
	close(fd);
	p[done] = '\0';
	if (len)
		*len = done;
	return r;
}

const char *pt_file_strerror(int e)
{
	return e == -PT_ENOTREG ? "not a regular file" : strerror(-e);
}
