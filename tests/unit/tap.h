/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Minimal TAP output for the unit tests: "ok N - what" / "not ok N - what",
 * "# " lines for commentary (expected vs got on a failure), the plan last.
 */
#ifndef PCITOPO_TESTS_TAP_H
#define PCITOPO_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

__attribute__((format(printf, 2, 3)))
int tap_ok(int pass, const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void tap_diag(const char *fmt, ...);
/* Integer equality; a failure comment gives expected and got. */
__attribute__((format(printf, 4, 5)))
int tap_eq_(long long got, long long exp, const char *expr, const char *fmt, ...);
/* String equality; a failure comment gives expected and got. */
__attribute__((format(printf, 3, 4)))
int tap_streq(const char *got, const char *exp, const char *fmt, ...);
/* Print the plan; returns the exit status of the test binary. */
int tap_done(void);

#define tap_eq(got, exp, ...) \
	tap_eq_((long long)(got), (long long)(exp), #got, __VA_ARGS__)

#endif /* PCITOPO_TESTS_TAP_H */
