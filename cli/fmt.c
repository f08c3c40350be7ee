// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: figures as the text words them ("32GT/s x16", "31.5 GB/s"), a
 * NUMA node's CPUs and the device that carries a port's link. The JSON of
 * the model's objects is print_objects.c's.
 */
#include <string.h>

#include "ptc.h"
#include "rfile.h"
#include "topoctl.h"

void fmt_speed(char *buf, size_t len, unsigned int mts)
{
	if (!mts)
		snprintf(buf, len, "?");
	else if (mts % 1000)
		snprintf(buf, len, "%u.%uGT/s", mts / 1000, mts % 1000 / 100);
	else
		snprintf(buf, len, "%uGT/s", mts / 1000);
}

void fmt_link(char *buf, size_t len, unsigned int mts, unsigned int width)
{
	char s[16];

	if (!mts && !width) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_speed(s, sizeof(s), mts);
	snprintf(buf, len, "%s x%u", s, width);
}

void fmt_bw(char *buf, size_t len, unsigned int mbs)
{
	if (!mbs)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u.%u GB/s", mbs / 1000, mbs % 1000 / 100);
}

void numa_cpulist(const struct ctx *c, int node, char *buf, size_t len)
{
	char path[512];
	size_t n;

	snprintf(buf, len, "N/A");
	if (node < 0)
		return;
	snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpulist",
		 c->sysfs, node);
	/* rfile.h: never blocks on what a saved tree holds there */
	if (pt_file_read(path, buf, len, NULL))
		buf[0] = '\0';
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	if (!n)
		snprintf(buf, len, "N/A");
}

const struct pt_device *link_holder(const struct pt_topology *t,
				    const struct pt_device *d)
{
	size_t i;

	if (!pt_device_is_dsp(d))
		return d;
	/* functions of one device share its link: the first in bus order */
	for (i = 0; i < t->n_devices; i++)
		if (!strcmp(t->devices[i].parent, d->addr))
			return &t->devices[i];
	return NULL;
}
