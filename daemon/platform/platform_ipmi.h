/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptplatform: the IPMI transport's part of a platform file
 * (transport = "ipmi", the default): the OEM request that selects each
 * layout, the status request and where its answer says what. Read by the
 * IPMI code only (topod's IPMI backend, pt-bmc, the IPMI tests), never by
 * what is above the BMC backends.
 *
 *   layouts.NAME.code    the layout's byte in the status answer
 *   layouts.NAME.select  { netfn; cmd; data = [ ... ]; }
 *   status = { request; length; state; current; pending; job; error;
 *              states; no_layout; }
 */
#ifndef PCITOPO_DAEMON_PLATFORM_IPMI_H
#define PCITOPO_DAEMON_PLATFORM_IPMI_H

#include "platform.h"

#define PT_PLAT_DATA_MAX	32	/* request data bytes */
#define PT_PLAT_STATUS_MAX	32	/* status response bytes */

/* One IPMI request: NetFn, command, data. */
struct pt_plat_req {
	uint8_t netfn;
	uint8_t cmd;
	uint8_t len;
	uint8_t data[PT_PLAT_DATA_MAX];
};

struct pt_plat_ipmi_layout {
	uint8_t code;			/* its value in the status bytes */
	struct pt_plat_req select;	/* the request that selects it */
};

struct pt_plat_status {
	struct pt_plat_req request;
	uint8_t length;			/* response data bytes (after the cc) */
	int state_off;			/* byte offsets; -1: absent */
	int current_off;
	int pending_off;
	int job_off;
	int error_off;
	uint8_t state_val[PT_PLAT_STATE_COUNT];	/* idle, busy, done, failed */
	uint8_t no_layout;		/* "pending: none" value */
};

struct pt_plat_ipmi {
	/* indexed by enum pcitopo_layout, as pt_platform's layouts */
	struct pt_plat_ipmi_layout layouts[__PCITOPO_LAYOUT_MAX];
	struct pt_plat_status status;
};

_Static_assert(sizeof(struct pt_plat_ipmi) <=
	       sizeof(((struct pt_platform *)0)->bmc.data),
	       "the IPMI part fits a platform's bmc part");

/* The IPMI part of plat, which must be an IPMI platform (its transport is
 * pt_plat_ipmi: topod's backend and pt-bmc check it). */
static inline const struct pt_plat_ipmi *
pt_plat_ipmi(const struct pt_platform *plat)
{
	return (const struct pt_plat_ipmi *)(const void *)plat->bmc.data;
}

/* The IPMI transport's section of the parser (platform_section.h). */
extern const struct pt_plat_transport pt_plat_ipmi_transport;

/*
 * Decode a status response (data after the completion code). -EBADMSG if
 * it is shorter than status.length, err says so.
 */
int pt_plat_ipmi_decode_status(const struct pt_platform *plat,
			       const uint8_t *rsp, size_t len,
			       struct pt_plat_job *job, char *err,
			       size_t errlen);

#endif
