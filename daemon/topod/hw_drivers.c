// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the moving GPUs' drivers in sysfs (the host's backend,
 * hw_host.c): which one is bound, unbind before the switch, bind again
 * after it. hostside.h says what each returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hw_backend.h"

static int host_driver(struct hw *h, const char *addr, char *drv, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	(void)h;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", addr);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	link[n] = '\0';
	base = strrchr(link, '/');
	tcopy(drv, len, base ? base + 1 : link);
	return 1;
}

static int host_unbind(struct hw *h, const char *addr, char *err, size_t len)
{
	char path[PATH_MAX];
	int fd, e;
	ssize_t n;

	(void)h;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind",
		 addr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT)
			return 0;	/* no driver bound */
		snprintf(err, len, "unbind %s: %s", addr, strerror(e));
		return -e;
	}
	n = write(fd, addr, strlen(addr));
	e = errno;
	close(fd);
	if (n < 0) {
		snprintf(err, len, "unbind %s: %s", addr, strerror(e));
		return -e;
	}
	return 1;
}

/* drivers_probe: the driver core offers addr to every driver */
static int reprobe(const char *addr)
{
	int fd, e = 0;

	fd = open("/sys/bus/pci/drivers_probe", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, addr, strlen(addr)) < 0)
		e = -errno;
	close(fd);
	return e;
}

static int host_bind(struct hw *h, const char *addr, const char *driver,
		     char *err, size_t len)
{
	char path[PATH_MAX], drv[TJ_DRV_LEN];
	int fd, e = 0, r;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", addr);
	if (access(path, F_OK) < 0)
		return 0;	/* not there (any more): nothing to bind */
	r = host_driver(h, addr, drv, sizeof(drv));
	if (r > 0)
		return 1;	/* the kernel's probe at add was first */
	/* the driver it had, by name: drivers_probe alone could pick
	 * another one that claims the ID (vfio-pci, a stub) */
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/%s/bind", driver);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, addr, strlen(addr)) < 0)
			e = -errno;
		close(fd);
	} else {
		/* the driver went away (its module unloaded): let any
		 * driver that matches have it rather than none */
		e = -errno;
		if (reprobe(addr) == 0)
			e = 0;
	}
	r = host_driver(h, addr, drv, sizeof(drv));
	if (r > 0)
		return 1;
	snprintf(err, len, "%s has no driver: bind to %s: %s", addr, driver,
		 strerror(e ? -e : ENODEV));
	return e ? e : -ENODEV;
}

const struct hw_driver_ops hw_driver_ops = {
	.driver = host_driver,
	.unbind = host_unbind,
	.bind = host_bind,
};
