/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptplatform: what topod needs to know about one server model to switch
 * its PCIe layout through the BMC, read from a platform file
 * (platforms/NAME.conf, libconfig syntax; platforms/template.conf documents
 * every key). Parsing never talks to a BMC.
 *
 * What the BMC is sent, and how its answers read, is its transport's
 * ("transport = ..." in the file; "ipmi", the default, or "redfish"):
 * the transport's section of the parser (platform_section.h; IPMI's in
 * platform_ipmi.c) reads its keys into the platform's bmc part, which only
 * that transport's own code reads (platform_ipmi.h). Nothing here names a
 * transport's requests.
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

/* The state of the BMC's job, as its status says it. */
enum pt_plat_state {
	PT_PLAT_STATE_IDLE,
	PT_PLAT_STATE_BUSY,
	PT_PLAT_STATE_DONE,
	PT_PLAT_STATE_FAILED,
	PT_PLAT_STATE_COUNT,
	PT_PLAT_STATE_UNKNOWN = PT_PLAT_STATE_COUNT,
};

struct pt_plat_layout {
	int present;			/* the server supports this layout */
	unsigned int gpus;		/* GPUs expected after the change */
	int line;			/* where it is defined */
};

struct pt_plat_id {
	uint16_t vendor;
	uint16_t device;
};

/* A transport's section of the parser (platform_section.h). */
struct pt_plat_transport;

/* Room for a transport's part of a platform: IPMI's requests and status
 * bytes take a few hundred; a transport that names resources by path has
 * room for some. */
#define PT_PLAT_BMC_MAX		4096

struct pt_platform {
	char name[PT_PLAT_NAME_MAX];
	char vendor[PT_PLAT_MATCH_MAX];	/* DMI sys_vendor */
	char model[PT_PLAT_MATCH_MAX];	/* DMI product_name */
	enum pt_plat_method method;
	enum pt_plat_apply apply;
	/* the BMC's transport ("transport = ..."; default ipmi) */
	const struct pt_plat_transport *transport;
	/* indexed by enum pcitopo_layout (BALANCE, COMMON, CASCADE) */
	struct pt_plat_layout layouts[__PCITOPO_LAYOUT_MAX];
	/* what moves */
	unsigned int switch_index;	/* the switch whose devices move */
	unsigned int ngpus;
	uint8_t gpus[PT_PLAT_MAX_GPUS];	/* GPU indices */
	unsigned int naddrs;
	char addrs[PT_PLAT_MAX_ADDRS][PCITOPO_ADDR_LEN];
	/* moves.rollback_select = "always": a rollback selects the old
	 * layout again whenever slots were taken down, even where the
	 * journal shows the MUX never moved (a card whose slot was powered
	 * off comes back only through the BMC: the emulated server); false,
	 * "if-moved" (the default): only where the MUX may have moved */
	int rollback_select_always;
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
	/*
	 * The transport's part (what selects each layout, how the status
	 * reads), filled by its section of the parser and read by its code
	 * alone, through its own type (platform_ipmi.h): opaque here, as
	 * struct sockaddr_storage is to socket code.
	 */
	union {
		max_align_t align;
		unsigned char data[PT_PLAT_BMC_MAX];
	} bmc;
};

/* What the BMC's status says of its job. */
struct pt_plat_job {
	enum pt_plat_state state;
	enum pcitopo_layout current;	/* UNKNOWN if it names none */
	enum pcitopo_layout pending;	/* UNKNOWN: none pending */
	int job;			/* -1 if the platform has no job id */
	int error;			/* -1 if no error code */
};

int pt_platform_load(const char *path, struct pt_platform *plat,
		     char *err, size_t errlen);

/* layout names: ptc_layout_name() and ptc_layout_by_name() (core/ptc.h) */
const char *pt_platform_state_name(enum pt_plat_state s);
/* "switchfw", "mux"; "online", "power-cycle": as the platform file has them */
const char *pt_platform_method_name(enum pt_plat_method m);
const char *pt_platform_apply_name(enum pt_plat_apply a);
/* "ipmi": the platform's transport, as the file names it */
const char *pt_platform_transport_name(const struct pt_platform *plat);
/* The transports this build knows, "ipmi, ..." into buf (messages). */
const char *pt_platform_transports(char *buf, size_t len);

#endif /* PCITOPO_DAEMON_PLATFORM_H */
