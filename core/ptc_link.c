// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: PCIe link speeds and bandwidth.
 *
 * Bandwidth is one direction, in MB/s (10^6 bytes per second), after line
 * encoding and before any protocol overhead (TLP headers, DLLPs, flow
 * control): speed_mts * width * enc_num / enc_den / 8, integer math rounded
 * down. Gen1 x1 = 250, Gen3 x16 = 15753, Gen5 x16 = 63015, Gen6 x16 = 121000.
 */
#include "ptc.h"

struct ptc_speed {
	u32 mts;	/* MT/s per lane */
	u16 enc_num;	/* payload bits ... */
	u16 enc_den;	/* ... per this many line bits */
};

/* Indexed by generation - 1, which is also the LnkSta/LnkCap field value - 1. */
static const struct ptc_speed ptc_speeds[] = {
	{  2500,   8,  10 },	/* Gen1, 8b/10b */
	{  5000,   8,  10 },	/* Gen2, 8b/10b */
	{  8000, 128, 130 },	/* Gen3, 128b/130b */
	{ 16000, 128, 130 },	/* Gen4, 128b/130b */
	{ 32000, 128, 130 },	/* Gen5, 128b/130b */
	{ 64000, 242, 256 },	/* Gen6, FLIT mode: 242 payload bytes of 256 */
};

#define PTC_NR_SPEEDS	ARRAY_SIZE(ptc_speeds)

u8 ptc_speed_gen(u32 speed_mts)
{
	u8 i;

	for (i = 0; i < PTC_NR_SPEEDS; i++)
		if (ptc_speeds[i].mts == speed_mts)
			return i + 1;
	return 0;
}

u32 ptc_speed_from_lnk(u8 field)
{
	if (field < 1 || field > PTC_NR_SPEEDS)
		return 0;
	return ptc_speeds[field - 1].mts;
}

u32 ptc_link_bw(u32 speed_mts, u8 width)
{
	const struct ptc_speed *sp;
	u8 gen = ptc_speed_gen(speed_mts);
	u64 bits;

	if (!gen || !width)
		return 0;
	sp = &ptc_speeds[gen - 1];
	bits = (u64)sp->mts * width * sp->enc_num;
	return (u32)ptc_div_u64(bits, (u32)sp->enc_den * 8);
}
