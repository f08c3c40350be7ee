// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: what the hardware backends share (hw_backend.h): this boot's id
 * from a file, and whether topod may read a port's config space past 64
 * bytes. The host's backend and the tests' stand-in both use them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hw_backend.h"

int hw_read_boot_id(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	*buf = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		*buf = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return *buf ? 0 : -ENODATA;
}

/* CapEff in /proc/self/status */
bool hw_has_sys_admin(void)
{
	unsigned long long eff = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << 21);	/* CAP_SYS_ADMIN */
}
