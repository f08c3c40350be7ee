// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptplatform: the transports a platform file may name (transport =
 * "NAME"), one line each; the first is the default, for the files that
 * name none. topod's BMC backends are listed in daemon/topod/bmc_backends.c.
 */
#include "platform_ipmi.h"
#include "platform_redfish.h"
#include "platform_section.h"

const struct pt_plat_transport *const pt_plat_transports[] = {
	&pt_plat_ipmi_transport,
	&pt_plat_redfish_transport,
	NULL,
};
