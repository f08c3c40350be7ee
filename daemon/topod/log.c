// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: log lines with priorities. Under systemd (JOURNAL_STREAM set)
 * each line starts with "<N>" (sd-daemon(3) prefixes), which journald turns
 * into the entry's priority; elsewhere "topod[SECONDS.ms] LEVEL: ", the
 * monotonic clock and the level's word.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topod.h"

static bool debug;

void log_set_debug(bool on)
{
	debug = on;
}

void tlog(int prio, const char *fmt, ...)
{
	static const char *const words[] = {
		"emerg", "alert", "crit", "error", "warning", "notice",
		"info", "debug",
	};
	char buf[1024];
	va_list ap;

	if (prio == LOG_DEBUG && !debug)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (getenv("JOURNAL_STREAM")) {
		fprintf(stderr, "<%d>%s\n", prio & 7, buf);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		fprintf(stderr, "topod[%ld.%03ld] %s: %s\n", (long)ts.tv_sec,
			ts.tv_nsec / 1000000, words[prio & 7], buf);
	}
}

void tcopy(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}
