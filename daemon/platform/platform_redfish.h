/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptplatform: the Redfish transport's part of a platform file
 * (transport = "redfish"), in one of two forms. Read by topod's Redfish
 * backend only (daemon/topod/bmc_redfish.c, bmc_redfish_zone.c).
 *
 * The BIOS-attribute form: each layout is one value of one attribute of
 * the system's Bios resource, written to Bios/Settings and applied by the
 * next ComputerSystem.Reset, so the platform's apply is "power-cycle".
 *
 *   redfish = { system = "1"; reset_type = "PowerCycle"; };   optional
 *   layouts.NAME.bios_attribute  the attribute (the same in every layout)
 *   layouts.NAME.value           its value for this layout
 *
 * The zone form (redfish.fabric set): each layout is which endpoints each
 * zone of one fabric has (Fabrics/{fabric}/Zones/{zone}'s
 * Links.Endpoints), changed at once, so apply is "online".
 *
 *   redfish = { fabric = "PCIe"; };
 *   layouts.NAME.zones = ( { zone = "ID"; endpoints = [ "ID", ... ]; }, ... );
 *       every layout names the same zones, each with all its endpoints
 *       (a zone of no endpoint: [ ]); no two layouts alike
 */
#ifndef PCITOPO_DAEMON_PLATFORM_REDFISH_H
#define PCITOPO_DAEMON_PLATFORM_REDFISH_H

#include "platform.h"

#include <stdint.h>

#define PT_RF_NAME_MAX	128	/* attribute names, values, ids */
#define PT_RF_ID_MAX	64	/* zone and endpoint ids */
#define PT_RF_ZONES_MAX	8	/* zones named by the platform */
#define PT_RF_EPS_MAX	32	/* endpoints named (a bit of zmask each) */

struct pt_plat_redfish {
	char system[PT_RF_NAME_MAX];	/* Systems/{system}; default "1" */
	char reset_type[32];		/* ComputerSystem.Reset's ResetType */
	char attribute[PT_RF_NAME_MAX];
	/* indexed by enum pcitopo_layout, as pt_platform's layouts */
	char value[__PCITOPO_LAYOUT_MAX][PT_RF_NAME_MAX];
	/* the zone form: fabric[0] != 0 */
	char fabric[PT_RF_NAME_MAX];	/* Fabrics/{fabric} */
	unsigned int nzones, neps;
	char zone[PT_RF_ZONES_MAX][PT_RF_ID_MAX];
	char ep[PT_RF_EPS_MAX][PT_RF_ID_MAX];
	/* the endpoints (bit i: ep[i]) zone z has in layout l */
	uint32_t zmask[__PCITOPO_LAYOUT_MAX][PT_RF_ZONES_MAX];
};

_Static_assert(sizeof(struct pt_plat_redfish) <=
	       sizeof(((struct pt_platform *)0)->bmc.data),
	       "the Redfish part fits a platform's bmc part");

static inline const struct pt_plat_redfish *
pt_plat_redfish(const struct pt_platform *plat)
{
	return (const struct pt_plat_redfish *)(const void *)plat->bmc.data;
}

static inline int pt_plat_redfish_zones(const struct pt_platform *plat)
{
	return pt_plat_redfish(plat)->fabric[0] != '\0';
}

extern const struct pt_plat_transport pt_plat_redfish_transport;

#endif
