// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: what an endpoint is, from its class code, and which switch
 * IDs come as two nested levels of one physical switch.
 */
#include "ptc.h"

/*
 * class is the 24-bit class code: base << 16 | sub << 8 | prog-if.
 *   GPU:  0x0300 VGA, 0x0302 3D controller, 0x0380 other display,
 *         0x1200 processing accelerator (the prog-if is ignored)
 *   NIC:  base class 0x02, any network controller
 *   NVME: 0x0108 non-volatile memory controller
 * Everything else (bridges, SAS, Broadcom placeholder endpoints 0x0880, ...)
 * is PCITOPO_KIND_NONE.
 */
u8 ptc_kind_of_class(u32 class)
{
	u32 base_sub = (class >> 8) & 0xffff;

	switch (base_sub) {
	case 0x0300:
	case 0x0302:
	case 0x0380:
	case 0x1200:
		return PCITOPO_KIND_GPU;
	case 0x0108:
		return PCITOPO_KIND_NVME;
	}
	if ((base_sub >> 8) == 0x02)
		return PCITOPO_KIND_NIC;
	return PCITOPO_KIND_NONE;
}

/*
 * Broadcom PEX Gen4 switches (PCI ID 1000:c010) can enumerate as two nested
 * levels for one physical switch; NCCL merges them
 * (ncclTopoFlattenBcmSwitches) and so does pcitopo: a switch with such an
 * upstream port, hanging directly on a downstream port of a switch whose
 * upstream port has the same ID, counts as part of that parent switch.
 */
bool ptc_switch_is_split_level(u16 vendor, u16 device)
{
	return vendor == 0x1000 && device == 0xc010;
}
