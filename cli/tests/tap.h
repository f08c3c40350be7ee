/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal TAP for topoctl's unit tests: "ok N - what", "# " comments. */
#ifndef PCITOPO_CLI_TESTS_TAP_H
#define PCITOPO_CLI_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int ok(int pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!pass)
		tap_failed++;
	fflush(stdout);
	return pass;
}

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
