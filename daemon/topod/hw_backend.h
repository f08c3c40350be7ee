/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: the host side behind tables of operations, one per job, as the
 * kernel's file_operations: a backend fills them, hostside.c calls them
 * and names no backend. A build has one backend, hw_backend:
 *
 *   topod          the host's (hw_host.c): the module through libpcitopo
 *                  (hw_module.c), the slots below its ports (pciehp power,
 *                  Link Disable: hw_slots.c), the drivers in sysfs
 *                  (hw_drivers.c)
 *   topod-standin  the host tests' stand-in (tests/topod/hw_standin.c),
 *                  which keeps in the state dir what the kernel would; only
 *                  the tests' build links it (daemon/Makefile), so no
 *                  line of a real server's configuration can select it
 *
 * Every operation returns 0 (or what hostside.h says) or -errno with err
 * set, as the hw_*() function of hostside.h that calls it.
 */
#ifndef PCITOPO_TOPOD_HW_BACKEND_H
#define PCITOPO_TOPOD_HW_BACKEND_H

#include "hostside.h"

/* One open host side (hw_open()); priv is the backend's. */
struct hw {
	const struct tconfig *cfg;
	const struct pt_platform *plat;
	void *priv;
};

/* The module: its snapshots, events and admin operations. */
struct hw_module_ops {
	/* monitor: the event socket too (fd()); priv set */
	int (*open)(struct hw *h, bool monitor, char *err, size_t len);
	void (*close)(struct hw *h);
	int (*snapshot)(struct hw *h, struct hw_snap *s, char *err, size_t len);
	int (*fd)(const struct hw *h);
	int (*drain)(struct hw *h);
	int (*detach)(struct hw *h, const char *port, char *err, size_t len);
	int (*rescan)(struct hw *h, char *err, size_t len);
	int (*add_ids)(struct hw *h, const struct pt_platform *p);
};

/* The slots below the ports: how each is taken down, and n of them down or
 * up at once (up: *count, how many came up). */
struct hw_slot_ops {
	int (*how)(struct hw *h, const char *port);
	int (*set)(struct hw *h, const struct tj_slot *s, unsigned int n,
		   bool up, unsigned int *count, char *err, size_t len);
};

/* The devices' drivers. */
struct hw_driver_ops {
	int (*driver)(struct hw *h, const char *addr, char *drv, size_t len);
	int (*unbind)(struct hw *h, const char *addr, char *err, size_t len);
	int (*bind)(struct hw *h, const char *addr, const char *driver,
		    char *err, size_t len);
};

struct hw_backend {
	const char *what;		/* topod --check's "hardware:" line */
	const struct hw_module_ops *module;
	const struct hw_slot_ops *slots;
	const struct hw_driver_ops *drivers;
	/* this boot's id, without an open host side (hostside.h) */
	int (*boot_id)(const struct tconfig *c, char *buf, size_t len);
};

/* The build's one backend (see above). */
extern const struct hw_backend hw_backend;

/* The host's parts, which hw_host.c puts together. */
extern const struct hw_module_ops hw_module_ops;	/* hw_module.c */
extern const struct hw_slot_ops hw_slot_ops;		/* hw_slots.c */
extern const struct hw_driver_ops hw_driver_ops;	/* hw_drivers.c */

/* For backends (hw_common.c): whether topod holds CAP_SYS_ADMIN, which the
 * kernel wants before it shows a device's config space past 64 bytes (the
 * PCIe capability, Link Control); the first line of the file at path as a
 * boot id (0, -errno, -ENODATA if empty). */
bool hw_has_sys_admin(void);
int hw_read_boot_id(const char *path, char *buf, size_t len);

#endif
