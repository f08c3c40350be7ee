// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Minimal TAP output for the unit tests; see tap.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

static unsigned int tap_count, tap_failed;

static int tap_vok(int pass, const char *fmt, va_list ap)
{
	printf("%sok %u - ", pass ? "" : "not ", ++tap_count);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass)
		tap_failed++;
	return pass;
}

int tap_ok(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vok(pass, fmt, ap);
	va_end(ap);
	return pass;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Integer equality; a failure comment gives expected and got. */
int tap_eq_(long long got, long long exp, const char *expr,
	    const char *fmt, ...)
{
	va_list ap;
	int pass = got == exp;

	va_start(ap, fmt);
	tap_vok(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		tap_diag("%s: expected %lld, got %lld", expr, exp, got);
	return pass;
}

/* String equality; a failure comment gives expected and got. */
int tap_streq(const char *got, const char *exp, const char *fmt, ...)
{
	va_list ap;
	int pass = got && !strcmp(got, exp);

	va_start(ap, fmt);
	tap_vok(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		tap_diag("expected \"%s\", got \"%s\"", exp, got ? got : "(null)");
	return pass;
}

int tap_done(void)
{
	printf("1..%u\n", tap_count);
	if (tap_failed)
		printf("# %u of %u failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}
