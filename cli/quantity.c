// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: option values of `advise` and `bench` (quantity.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "quantity.h"

int parse_size(const char *s, double *bytes)
{
	static const char units[] = "KMGT";
	double v, mul = 1;
	const char *u;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (*end) {
		u = strchr(units, end[0] & ~0x20);
		if (!u || !end[0])
			return -EINVAL;
		end++;
		if (!strcasecmp(end, "B"))
			mul = pow(1000, (double)(u - units + 1));
		else if (!*end || !strcasecmp(end, "iB"))
			mul = pow(1024, (double)(u - units + 1));
		else
			return -EINVAL;
	}
	v *= mul;
	if (v > 1125899906842624.0)	/* 2^50 */
		return -EINVAL;
	*bytes = v;
	return 0;
}

int parse_count(const char *s, unsigned long min, unsigned long max,
		unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_number(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

bool opt_is(const char *name, int argc, char **argv, int *i,
	    const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return false;
	if (a[n] == '=') {
		*val = a + n + 1;
		return true;
	}
	if (a[n])
		return false;
	if (*i + 1 < argc)
		*val = argv[++*i];
	else
		*val = NULL;
	return true;
}

bool flag_is(const char *name, const char *arg)
{
	return !strcmp(name, arg);
}

void fmt_bytes(char *buf, unsigned long len, double bytes)
{
	if (bytes >= 1e9)
		snprintf(buf, len, "%.2f GB", bytes / 1e9);
	else if (bytes >= 1e6)
		snprintf(buf, len, "%.1f MB", bytes / 1e6);
	else if (bytes >= 1e3)
		snprintf(buf, len, "%.1f KB", bytes / 1e3);
	else
		snprintf(buf, len, "%.0f B", bytes);
}
