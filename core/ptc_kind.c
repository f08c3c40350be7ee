// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: what an endpoint is (the one rule of what a GPU is), and
 * which switch IDs come as two nested levels of one physical switch.
 */
#include "ptc.h"

/* PCI vendor IDs the rule names. */
#define PTC_VENDOR_NVIDIA	0x10de
#define PTC_VENDOR_AMD		0x1002
#define PTC_VENDOR_INTEL	0x8086
#define PTC_VENDOR_ASPEED	0x1a03
#define PTC_VENDOR_MATROX	0x102b

/*
 * What an endpoint is, from its IDs, class code, the bridge above it and the
 * extra-ID table. class is the 24-bit class code (base << 16 | sub << 8 |
 * prog-if; the prog-if is ignored). First match wins:
 *
 *   1. DISPLAY: a display controller (base class 0x03) of ASPEED (1a03) or
 *      Matrox (102b), or a VGA controller (0x0300) on a conventional PCI bus
 *      (behind_pci_bridge). These are the BMC's VGA on every server
 *      (AST2500/AST2600 1a03:2000 behind ASPEED's PCIe-to-PCI bridge
 *      1a03:1150; some vendors a Matrox G200) and on-board VGAs like it. No
 *      accelerator stack enumerates them: counted as GPUs they make 9 GPUs
 *      of 8 and shift every GPU name above their bus number. This rule comes
 *      before the extra IDs so that an extra ID given for the GPUs cannot
 *      catch a BMC VGA that shares it (the emulated server's does).
 *   2. the kind of an extra ID (extra_kind, PCITOPO_KIND_NONE if none):
 *      the operator's word, for devices the class codes do not tell.
 *   3. GPU: a processing accelerator (class 0x1200: Habana Gaudi, AMD
 *      Instinct MI300 and others that report it).
 *   4. GPU: NVIDIA's display and 3D functions (0x0300, 0x0302, 0x0380):
 *      what nvidia-smi enumerates. AMD's and Intel's 3D and "other display"
 *      functions (0x0302, 0x0380): their data-center accelerators (AMD
 *      Instinct MI100-MI250, Intel Data Center GPU Max and Flex) report those;
 *      their VGA-class parts are desktop and integrated graphics.
 *   5. DISPLAY: any other display controller (an integrated GPU, a virtual
 *      display): listed, never part of the GPU set.
 *   6. NVME 0x0108; NIC: base class 0x02, any network controller.
 * Everything else (bridges, SAS, Broadcom placeholder endpoints 0x0880,
 * audio functions of GPUs, NVSwitches 0x0680, ...) is PCITOPO_KIND_NONE.
 */
u8 ptc_endpoint_kind(u16 vendor, u32 class, u8 extra_kind,
		     bool behind_pci_bridge)
{
	u32 base_sub = (class >> 8) & 0xffff;
	bool display = (base_sub >> 8) == 0x03;

	if (display && (vendor == PTC_VENDOR_ASPEED ||
			vendor == PTC_VENDOR_MATROX ||
			(base_sub == 0x0300 && behind_pci_bridge)))
		return PCITOPO_KIND_DISPLAY;
	if (extra_kind != PCITOPO_KIND_NONE)
		return extra_kind;
	if (base_sub == 0x1200)
		return PCITOPO_KIND_GPU;
	if (display) {
		if (vendor == PTC_VENDOR_NVIDIA)
			return PCITOPO_KIND_GPU;
		if ((vendor == PTC_VENDOR_AMD || vendor == PTC_VENDOR_INTEL) &&
		    (base_sub == 0x0302 || base_sub == 0x0380))
			return PCITOPO_KIND_GPU;
		return PCITOPO_KIND_DISPLAY;
	}
	if (base_sub == 0x0108)
		return PCITOPO_KIND_NVME;
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
