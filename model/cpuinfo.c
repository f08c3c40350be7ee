// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: what /proc/cpuinfo says about the CPUs: vendor_id, cpu
 * family, model, stepping and model name of the first processor, how many
 * processors and how many packages (distinct "physical id"). The parser
 * takes text (tests give it samples); ptm_cpuinfo_read() reads a file
 * whose path the caller chooses (/proc/cpuinfo, or one saved beside a
 * --sysfs tree) through lib/rfile.h. x86 only: other architectures' files have no vendor_id
 * and give PTM_CPU_UNKNOWN.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptm.h"
#include "rfile.h"

#define CPUINFO_MAX	(8u << 20)	/* 1000+ processors fit */

/* "key\t\t: value": the value if line's key is key, else NULL. */
static const char *value_of(const char *line, size_t len, const char *key,
			    size_t *vlen)
{
	size_t k = strlen(key), i;

	if (len < k || strncmp(line, key, k))
		return NULL;
	for (i = k; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i >= len || line[i] != ':')
		return NULL;
	for (i++; i < len && line[i] == ' '; i++)
		;
	*vlen = len - i;
	return line + i;
}

static int num(const char *v, size_t len)
{
	char buf[16], *end;
	long x;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	x = strtol(buf, &end, 0);
	return end != buf && *end == '\0' && x >= 0 && x < 1 << 20 ? (int)x : -1;
}

static void copy(char *dst, size_t size, const char *v, size_t len)
{
	while (len && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

int ptm_cpuinfo_parse(const char *text, struct ptm_cpuinfo *ci)
{
	unsigned char seen[(PTM_MAX_PACKAGES + 7) / 8] = { 0 };
	const char *p = text, *nl, *v;
	bool first_done = false;
	size_t len, vlen;
	int x;

	memset(ci, 0, sizeof(*ci));
	ci->family = ci->model = ci->stepping = -1;
	for (; *p; p = nl + (*nl ? 1 : 0)) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		len = (size_t)(nl - p);
		if ((v = value_of(p, len, "processor", &vlen))) {
			if (ci->processors)
				first_done = true;
			ci->processors++;
		} else if ((v = value_of(p, len, "physical id", &vlen))) {
			x = num(v, vlen);
			if (x >= 0 && x < PTM_MAX_PACKAGES &&
			    !(seen[x / 8] & (1u << (x % 8)))) {
				seen[x / 8] |= (unsigned char)(1u << (x % 8));
				ci->packages++;
			}
		} else if (first_done) {
			continue;
		} else if ((v = value_of(p, len, "vendor_id", &vlen))) {
			copy(ci->vendor_id, sizeof(ci->vendor_id), v, vlen);
		} else if ((v = value_of(p, len, "cpu family", &vlen))) {
			ci->family = num(v, vlen);
		} else if ((v = value_of(p, len, "model name", &vlen))) {
			copy(ci->model_name, sizeof(ci->model_name), v, vlen);
		} else if ((v = value_of(p, len, "model", &vlen))) {
			ci->model = num(v, vlen);
		} else if ((v = value_of(p, len, "stepping", &vlen))) {
			ci->stepping = num(v, vlen);
		}
	}
	if (!ci->processors)
		return -ENODATA;
	if (!strcmp(ci->vendor_id, "GenuineIntel"))
		ci->vendor = PTM_CPU_INTEL;
	else if (!strcmp(ci->vendor_id, "AuthenticAMD"))
		ci->vendor = PTM_CPU_AMD;
	else
		ci->vendor = ci->vendor_id[0] ? PTM_CPU_OTHER : PTM_CPU_UNKNOWN;
	return 0;
}

int ptm_cpuinfo_read(const char *path, struct ptm_cpuinfo *ci)
{
	char *buf = malloc(CPUINFO_MAX + 1);
	int r;

	if (!buf)
		return -ENOMEM;
	/*
	 * rfile.h: a regular file only (--cpuinfo /dev/zero never ends, a
	 * FIFO blocks), CPUINFO_MAX bytes at most; a longer file is cut there
	 * and its first processor still parsed.
	 */
	r = pt_file_read(path, buf, CPUINFO_MAX + 1, NULL);
	if (!r)
		r = ptm_cpuinfo_parse(buf, ci);
	free(buf);
	return r;
}
