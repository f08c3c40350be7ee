// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the BMC backends (bmc_backend.h), one line each. The platform
 * parser's transports are listed in daemon/platform/platform_transports.c.
 */
#include "bmc_backend.h"

extern const struct bmc_ops bmc_ipmi;	/* bmc_ipmi.c */
extern const struct bmc_ops bmc_redfish;	/* bmc_redfish.c */

const struct bmc_ops *const bmc_backends[] = {
	&bmc_ipmi,
	&bmc_redfish,
	NULL,
};
