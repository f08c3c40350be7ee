// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the production build's hardware (hw_backend.h): this host's own
 * module, slots and drivers. The host tests' topod-standin links
 * tests/topod/hw_standin.c in this file's place.
 */
#include "hw_backend.h"

static int host_boot_id(const struct tconfig *c, char *buf, size_t len)
{
	(void)c;
	return hw_read_boot_id("/proc/sys/kernel/random/boot_id", buf, len);
}

const struct hw_backend hw_backend = {
	.what = "this host's: pcitopo.ko, the ports' pciehp slots or Link "
		"Disable, drivers in sysfs",
	.module = &hw_module_ops,
	.slots = &hw_slot_ops,
	.drivers = &hw_driver_ops,
	.boot_id = host_boot_id,
};
