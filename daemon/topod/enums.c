// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the names of its enums (topod.h), for the bus, the dry run's
 * answer, the node labels and the log: an error's D-Bus name, the State
 * property's values, a switch's outcomes.
 */
#include "topod.h"

static const char *const terr_names[__TERR_MAX] = {
#define TERR_NAME(id, errnum) [TERR_##id] = TOPOD_ERR_##id,
	TOPOD_ERRORS(TERR_NAME)
#undef TERR_NAME
	[TERR_INVALID_ARGS] = SD_BUS_ERROR_INVALID_ARGS,
	[TERR_INTERNAL] = SD_BUS_ERROR_FAILED,
};

const char *terr_name(enum terr e)
{
	return (unsigned int)e < __TERR_MAX && terr_names[e] ?
	       terr_names[e] : SD_BUS_ERROR_FAILED;
}

static const char *const state_names[__TS_MAX] = {
#define TS_NAME(id) [TS_##id] = TOPOD_STATE_##id,
	TOPOD_STATES(TS_NAME)
#undef TS_NAME
};

const char *tstate_name(enum tstate s)
{
	return (unsigned int)s < __TS_MAX ? state_names[s] : "?";
}

static const char *const outcome_names[] = {
	[TO_UNKNOWN] = "",
	[TO_NONE] = "none",
	[TO_ONLINE] = "online",
	[TO_PENDING] = "pending",
	[TO_POWER_CYCLE] = "power-cycle",
	[TO_CLEAR_PENDING] = "clear-pending",
};

const char *toutcome_name(enum toutcome o)
{
	return (unsigned int)o < sizeof(outcome_names) / sizeof(outcome_names[0]) ?
	       outcome_names[o] : "";
}
