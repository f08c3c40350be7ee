/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The few kernel types and helpers the pcitopo core uses, so that the same
 * source compiles in pcitopo.ko and in userspace tests (tools/testing/vma
 * does the same for mm/vma.c).
 */
#ifndef PCITOPO_CORE_PTC_TYPES_H
#define PCITOPO_CORE_PTC_TYPES_H

#ifdef __KERNEL__
#include <linux/build_bug.h>	/* static_assert() */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

/*
 * do_div() comes with <linux/kernel.h> (linux/math.h, asm/div64.h) and keeps
 * 64-bit division out of libgcc on 32-bit architectures.
 */
static inline u64 ptc_div_u64(u64 n, u32 d)
{
	do_div(n, d);
	return n;
}
#else
#include <assert.h>		/* static_assert() */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

/* The kernel build checks the formats of __printf functions; this one not. */
#ifndef __printf
#define __printf(a, b)
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static inline u64 ptc_div_u64(u64 n, u32 d)
{
	return n / d;
}
#endif

#endif /* PCITOPO_CORE_PTC_TYPES_H */
