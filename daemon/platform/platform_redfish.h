/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptplatform: the Redfish transport's part of a platform file
 * (transport = "redfish"), the BIOS-attribute form: each layout is one
 * value of one attribute of the system's Bios resource, written to
 * Bios/Settings and applied by the next ComputerSystem.Reset, so the
 * platform's apply is "power-cycle". Read by topod's Redfish backend only
 * (daemon/topod/bmc_redfish.c).
 *
 *   redfish = { system = "1"; reset_type = "PowerCycle"; };   optional
 *   layouts.NAME.bios_attribute  the attribute (the same in every layout)
 *   layouts.NAME.value           its value for this layout
 */
#ifndef PCITOPO_DAEMON_PLATFORM_REDFISH_H
#define PCITOPO_DAEMON_PLATFORM_REDFISH_H

#include "platform.h"

#define PT_RF_NAME_MAX	128	/* attribute names, values, ids */

struct pt_plat_redfish {
	char system[PT_RF_NAME_MAX];	/* Systems/{system}; default "1" */
	char reset_type[32];		/* ComputerSystem.Reset's ResetType */
	char attribute[PT_RF_NAME_MAX];
	/* indexed by enum pcitopo_layout, as pt_platform's layouts */
	char value[__PCITOPO_LAYOUT_MAX][PT_RF_NAME_MAX];
};

_Static_assert(sizeof(struct pt_plat_redfish) <=
	       sizeof(((struct pt_platform *)0)->bmc.data),
	       "the Redfish part fits a platform's bmc part");

static inline const struct pt_plat_redfish *
pt_plat_redfish(const struct pt_platform *plat)
{
	return (const struct pt_plat_redfish *)(const void *)plat->bmc.data;
}

extern const struct pt_plat_transport pt_plat_redfish_transport;

#endif
