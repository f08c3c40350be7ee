/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptplatform: what topod needs to know about one server model to switch
 * its PCIe layout through the BMC, read from a platform file
 * (platforms/NAME.conf, libconfig syntax; platforms/template.conf documents
 * every key). Parsing never talks to a BMC.
 *
 * pt_platform_load() accepts a file only if it is complete and consistent;
 * otherwise it returns -EINVAL (-ENOENT, -EACCES: cannot read) and err says
 * "file:line: reason".
 */
#ifndef PCITOPO_DAEMON_PLATFORM_H
#define PCITOPO_DAEMON_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include <linux/pcitopo.h>

#define PT_PLAT_ERRLEN		320
#define PT_PLAT_NAME_MAX	64
#define PT_PLAT_MATCH_MAX	128
#define PT_PLAT_DATA_MAX	32	/* request data bytes */
#define PT_PLAT_STATUS_MAX	32	/* status response bytes */
#define PT_PLAT_MAX_GPUS	16	/* GPU indices that move */
#define PT_PLAT_MAX_ADDRS	16	/* PCI addresses that move */
#define PT_PLAT_MAX_UNITS	16
#define PT_PLAT_UNIT_MAX	128
#define PT_PLAT_MAX_IDS		16

enum pt_plat_method {
	PT_PLAT_METHOD_SWITCHFW,	/* switch firmware: "switchfw" */
	PT_PLAT_METHOD_MUX,		/* BMC-driven MUXes: "mux" */
};

enum pt_plat_apply {
	PT_PLAT_APPLY_ONLINE,		/* takes effect at once: "online" */
	PT_PLAT_APPLY_POWER_CYCLE,	/* after a power cycle: "power-cycle" */
};

/* Job state in the status response. */
enum pt_plat_state {
	PT_PLAT_STATE_IDLE,
	PT_PLAT_STATE_BUSY,
	PT_PLAT_STATE_DONE,
	PT_PLAT_STATE_FAILED,
	PT_PLAT_STATE_COUNT,
	PT_PLAT_STATE_UNKNOWN = PT_PLAT_STATE_COUNT,
};

/* One IPMI request: NetFn, command, data. */
struct pt_plat_req {
	uint8_t netfn;
	uint8_t cmd;
	uint8_t len;
	uint8_t data[PT_PLAT_DATA_MAX];
};

struct pt_plat_layout {
	int present;			/* the server supports this layout */
	uint8_t code;			/* its value in the status bytes */
	struct pt_plat_req select;	/* the request that selects it */
	unsigned int gpus;		/* GPUs expected after the change */
	int line;			/* where it is defined */
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

struct pt_plat_id {
	uint16_t vendor;
	uint16_t device;
};

struct pt_platform {
	char name[PT_PLAT_NAME_MAX];
	char vendor[PT_PLAT_MATCH_MAX];	/* DMI sys_vendor */
	char model[PT_PLAT_MATCH_MAX];	/* DMI product_name */
	enum pt_plat_method method;
	enum pt_plat_apply apply;
	/* indexed by enum pcitopo_layout (BALANCE, COMMON, CASCADE) */
	struct pt_plat_layout layouts[__PCITOPO_LAYOUT_MAX];
	struct pt_plat_status status;
	/* what moves */
	unsigned int switch_index;	/* the switch whose devices move */
	unsigned int ngpus;
	uint8_t gpus[PT_PLAT_MAX_GPUS];	/* GPU indices */
	unsigned int naddrs;
	char addrs[PT_PLAT_MAX_ADDRS][PCITOPO_ADDR_LEN];
	/* time budgets, ms */
	unsigned int bmc_job_ms;
	unsigned int reenumerate_ms;
	unsigned int power_cycle_ms;
	unsigned int poll_ms;		/* status poll interval */
	/* systemd units to stop around a change */
	unsigned int nunits;
	char units[PT_PLAT_MAX_UNITS][PT_PLAT_UNIT_MAX];
	/* extra vendor:device IDs to treat as GPUs */
	unsigned int nids;
	struct pt_plat_id gpu_ids[PT_PLAT_MAX_IDS];
};

/* What a status response says. */
struct pt_plat_job {
	enum pt_plat_state state;
	enum pcitopo_layout current;	/* UNKNOWN if the byte matches none */
	enum pcitopo_layout pending;	/* UNKNOWN: none pending */
	int job;			/* -1 if the platform has no job byte */
	int error;			/* -1 if no error byte */
	uint8_t raw_current, raw_pending, raw_state;
};

int pt_platform_load(const char *path, struct pt_platform *plat,
		     char *err, size_t errlen);

/* layout names: ptc_layout_name() and ptc_layout_by_name() (core/ptc.h) */
const char *pt_platform_state_name(enum pt_plat_state s);
/* "switchfw", "mux"; "online", "power-cycle": as the platform file has them */
const char *pt_platform_method_name(enum pt_plat_method m);
const char *pt_platform_apply_name(enum pt_plat_apply a);

/*
 * Decode a status response (data after the completion code). -EBADMSG if
 * it is shorter than status.length, err says so.
 */
int pt_platform_decode_status(const struct pt_platform *plat,
			      const uint8_t *rsp, size_t len,
			      struct pt_plat_job *job, char *err,
			      size_t errlen);

#endif /* PCITOPO_DAEMON_PLATFORM_H */
