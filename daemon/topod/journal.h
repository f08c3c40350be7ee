/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod's on-disk state, in the state dir (/var/lib/pcitopo):
 *
 *   job     the switch in flight, rewritten at every phase: what it asked
 *           for, how far it got, what it changed (units stopped, ports
 *           detached, the slots taken down (powered off or link
 *           disabled), whether the Select went out, the drivers unbound,
 *           the GPUs and links before the switch, the boot it began in).
 *           Absent when idle.
 *   state   the committed layout and the switch counter.
 *
 * Both are "key=value" text, written atomically: temp file, fsync, rename,
 * fsync of the folder. A file that is torn or from a newer version is
 * refused with -EBADMSG. No I/O outside the state dir, no printing.
 */
#ifndef PCITOPO_TOPOD_JOURNAL_H
#define PCITOPO_TOPOD_JOURNAL_H

#include <stdint.h>
#include <linux/pcitopo.h>

#define TJ_MAX_UNITS	16
#define TJ_UNIT_LEN	128
#define TJ_MAX_PORTS	16
#define TJ_ERR_LEN	512
#define TJ_PHASE_LEN	24
#define TJ_MAX_DEVS	64		/* HW_MAX_GPUS */
#define TJ_DRV_LEN	64
#define TJ_BOOT_ID_LEN	40

enum tj_state {
	TJ_NONE,		/* no job */
	TJ_SWITCHING,
	TJ_ROLLING_BACK,
	TJ_AWAITING_POWER_CYCLE,
	__TJ_STATE_MAX,
};

/* A device quiesce unbound, and the driver it had (to bind it again). */
struct tj_dev {
	char addr[PCITOPO_ADDR_LEN];
	char driver[TJ_DRV_LEN];
};

/* How a port's slot was taken down before the lanes change (hostside.c):
 * its hotplug controller's power off (pciehp), or the port's Link Disable
 * where it has no power control. Whoever ends the switch brings it up. */
enum tj_slot_how {
	TJ_SLOT_POWER = 1,
	TJ_SLOT_LINK,
};

struct tj_slot {
	char port[PCITOPO_ADDR_LEN];
	enum tj_slot_how how;
};

/* A GPU before the switch, with its link: what every verify (forward,
 * rollback, recovery) holds the links to. */
struct tj_gpu {
	char addr[PCITOPO_ADDR_LEN];
	char parent[PCITOPO_ADDR_LEN];
	uint32_t link_max_speed;
	uint32_t link_max_width;
	uint32_t link_flags;
};

struct tj_job {
	enum tj_state state;
	char phase[TJ_PHASE_LEN];		/* the phase entered last */
	enum pcitopo_layout from, to;
	uint64_t flags;
	int bmc_sent;				/* the Select may have gone out
						 * (set before it; cleared where
						 * the BMC refused it unacted) */
	/* the BMC's current and pending layout as it reported them after
	 * the Select, its job over (UNKNOWN: not reported since; pending
	 * UNKNOWN: none): where it reported the old layout, the MUX never
	 * moved and a rollback needs no BMC */
	enum pcitopo_layout bmc_current, bmc_pending;
	uint64_t started_usec;			/* CLOCK_REALTIME */
	unsigned int nunits;
	char units[TJ_MAX_UNITS][TJ_UNIT_LEN];	/* stopped by us */
	unsigned int nports;
	char ports[TJ_MAX_PORTS][PCITOPO_ADDR_LEN];	/* detached by us */
	unsigned int nslots;
	struct tj_slot slots[TJ_MAX_PORTS];	/* down: written before */
	char error[TJ_ERR_LEN];			/* why a rollback started (the
						 * first cause, never replaced) */
	/* the rollback failed (topod stayed up, State failed): why */
	int rollback_failed;
	char rollback_error[TJ_ERR_LEN];
	unsigned int nunbound;
	struct tj_dev unbound[TJ_MAX_DEVS];	/* written before each unbind */
	unsigned int ngpus;
	struct tj_gpu gpus[TJ_MAX_DEVS];	/* GPU0.. before the switch */
	char boot_id[TJ_BOOT_ID_LEN];		/* the boot the switch began in */
};

struct tj_committed {
	enum pcitopo_layout layout;		/* UNKNOWN: never switched */
	uint64_t generation;			/* switches committed */
	char last_error[TJ_ERR_LEN];
};

/* the journal's format (journal.c says what each version added); a
 * journal of a later one is refused, -EPROTONOSUPPORT */
#define TJ_VERSION	4
#define TJ_JOB_FILE	"job"
#define TJ_STATE_FILE	"state"

const char *tj_state_name(enum tj_state s);
const char *tj_slot_how_name(enum tj_slot_how h);	/* power | link */

/* Room a switch needs in the state dir: a journal at its largest (every
 * GPU, unit, port and slot listed: about 12 KiB) twice over (the temporary
 * file beside the old one), and the committed state. */
#define TJ_SPACE_MIN	(64 * 1024)

/* Whether dir can take a journal, without writing anything (a dry run
 * asks too): 0, or -ENOENT/-ENOTDIR, -EROFS (a read-only file system),
 * -EACCES (not writable by this process), -ENOSPC (less than TJ_SPACE_MIN
 * bytes or no inode free to it). A write can still fail (quota, I/O):
 * every write is checked as well. */
int tj_check_dir(const char *dir);

/* Atomically replace dir/name with len bytes of buf: a temporary file in
 * dir, written, fsync'd, renamed over dir/name, dir fsync'd. On failure
 * dir/name is as it was and the temporary file removed. */
int tj_atomic_write(const char *dir, const char *name, const char *buf,
		    size_t len);

int tj_job_write(const char *dir, const struct tj_job *j);
/* -ENOENT: no job in flight; -EBADMSG: unreadable (line in *line). */
int tj_job_read(const char *dir, struct tj_job *j, unsigned int *line);
int tj_job_remove(const char *dir);	/* unlink + fsync dir; 0 if absent */
/* A journal that cannot be read, kept for whoever looks into it: renamed
 * to job.corrupt-YYYYMMDDTHHMMSSZ (UTC, now; -2, -3... if taken), the
 * folder fsync'd, so that the next switch does not write over it. The
 * name given in name (len bytes). 0, or -errno (-ENOENT: no journal). */
int tj_job_set_aside(const char *dir, char *name, size_t len);

int tj_committed_write(const char *dir, const struct tj_committed *c);
int tj_committed_read(const char *dir, struct tj_committed *c);

#endif
