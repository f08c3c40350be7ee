/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcitopo's Slurm programs (slurm/): the feature helper, the RebootProgram
 * and the Prolog share what is here: the node's actual layout, the target
 * the helper records for the RebootProgram, the last failure the Prolog
 * names in the drain reason, and a child run with a deadline.
 *
 * They talk to topod through topoctl (PT_SLURM_TOPOCTL), its one client:
 * its D-Bus code, polkit handling and messages are not written twice.
 *
 * Environment (for tests; the defaults are a real node's):
 *   PCITOPO_SYSFS       the module's folder      /sys/kernel/pcitopo
 *   PCITOPO_RUN_DIR     target, error, log       /run/pcitopo
 *   PCITOPO_TOPOCTL     topoctl                  $(BINDIR)/topoctl
 *   PCITOPO_SYSTEMCTL   systemctl                /bin/systemctl
 */
#ifndef PCITOPO_SLURM_PT_SLURM_H
#define PCITOPO_SLURM_PT_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#ifndef PT_SLURM_TOPOCTL
#define PT_SLURM_TOPOCTL	"/usr/bin/topoctl"
#endif

#define PT_LAYOUT_LEN		32

/* The switchable layouts' names (core's ptc_layout_first(), _next()). */
bool pt_layout_switchable(const char *name);
/* "balance, common, cascade", for messages */
const char *pt_layout_list(void);

/*
 * The layout the node is in now: the module's sysfs file, else topod's
 * Status (through `topoctl -j status`) within timeout_ms. 0 with the name
 * in out ("other" and "unknown" included), or a negative errno with a
 * message in why: -ENOENT neither source answered, -ETIMEDOUT topod did
 * not answer in time.
 */
int pt_layout_now(char *out, size_t len, int timeout_ms, char *why,
		  size_t wlen);

/* topoctl's path ($PCITOPO_TOPOCTL, else PT_SLURM_TOPOCTL) */
const char *pt_topoctl(void);

/* systemctl's path ($PCITOPO_SYSTEMCTL, else /bin/systemctl) */
const char *pt_systemctl(void);

/* scontrol's path ($PCITOPO_SCONTROL, else /usr/bin/scontrol) */
const char *pt_scontrol(void);

/*
 * Seconds since this boot (CLOCK_BOOTTIME): the age of a record under
 * /run, which a boot empties, whatever the wall clock does meanwhile.
 */
long long pt_boottime_s(void);

/* $PCITOPO_RUN_DIR/NAME (NAME: "slurm-target", "slurm-error", ...) */
const char *pt_run_path(const char *name, char *buf, size_t len);

/*
 * A small key=value record written atomically (a temporary file in the
 * same folder, fsync, rename): a reader never sees half of it. The value
 * is one line (newlines become spaces). 0 or a negative errno.
 */
int pt_record_write(const char *name, const char *const *keys,
		    const char *const *values, size_t n);
/* Value of key in record name into out; 0, -ENOENT (no file, no key). */
int pt_record_get(const char *name, const char *key, char *out, size_t len);
/* Remove record name; 0 if it is gone (was never there included). */
int pt_record_remove(const char *name);
/* Move record name to name.taken (consumed); 0, -ENOENT if absent. */
int pt_record_take(const char *name);

/*
 * Run argv (argv[0] a path) with stdin /dev/null, stdout and stderr
 * captured together into out (NUL-terminated, truncated to len), killed
 * (its process group) after timeout_ms (0: no deadline). Returns the exit
 * status (0-255), -ETIMEDOUT when killed at the deadline, or a negative
 * errno when it could not be started.
 */
int pt_run(char *const argv[], char *out, size_t len, int timeout_ms);

/* The last non-empty line of s, without "topoctl: " (for reasons). */
const char *pt_last_line(char *s);

/*
 * This node as slurmctld knows it (node_ctl.c, through scontrol):
 * pt_node_name: $PCITOPO_SLURM_NODE (tests), $SLURM_NODE_NAME (26.05
 * gives it), the -N NAME of a slurmd among the caller's ancestors, then
 * of slurmd.service's MainPID, else the short host name (Slurm's default
 * NodeName); pt_node_drain: drained with reason;
 * pt_node_set_layout: layout as its active feature. The two updates
 * return 0, or scontrol's exit status or a negative errno with the
 * failure in why.
 */
void pt_node_name(char *out, size_t len);
int pt_node_drain(const char *node, const char *reason, char *why,
		  size_t wlen);
int pt_node_set_layout(const char *node, const char *layout, char *why,
		       size_t wlen);

#endif
