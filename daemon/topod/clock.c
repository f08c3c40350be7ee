// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the monotonic clock and sleeps every wait of a switch counts on
 * (the BMC's job, the GPUs' return, a slot's link).
 */
#include <errno.h>
#include <time.h>

#include "topod.h"

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
