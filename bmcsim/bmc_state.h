/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bmcsim: the emulated BMC's persistent state (current layout, pending
 * layout, last job) and its file format. No ipmi_sim dependency, so the
 * parser and writer can be exercised on their own.
 *
 * File format (text, one "key=value" per line, unknown keys ignored):
 *   version=1
 *   method=switchfw|mux
 *   current=1..3       layout the hardware is wired as now
 *   pending=0..3       layout after the next power cycle (0: none)
 *   job_state=0..3     0 idle, 1 busy, 2 done, 3 failed
 *   job_id=0..255
 *   job_layout=0..3    layout the last job asked for
 *   job_error=0..255   vendor error code of the last job
 */
#ifndef BMCSIM_BMC_STATE_H
#define BMCSIM_BMC_STATE_H

#include <stddef.h>

enum bmc_method {
	BMC_METHOD_SWITCHFW,
	BMC_METHOD_MUX,
};

enum bmc_job_state {
	BMC_JOB_IDLE,
	BMC_JOB_BUSY,
	BMC_JOB_DONE,
	BMC_JOB_FAILED,
};

/* Vendor error codes of the status reply. */
#define BMC_ERR_SWITCHFW_WRITE	1
#define BMC_ERR_MUX_SETTLE	2

struct bmc_state {
	enum bmc_method method;
	int current;
	int pending;
	int job_state;
	int job_id;
	int job_layout;
	int job_error;
};

/* Layout code (1..3) <-> name ("balance", "common", "cascade"). */
const char *bmc_layout_name(int layout);
int bmc_layout_code(const char *name);	/* 0 if unknown */
const char *bmc_method_name(enum bmc_method m);
int bmc_method_code(const char *name);	/* -EINVAL if unknown */
const char *bmc_job_state_name(int st);

/* Parse the text of a state file into *st (fields absent keep their value).
 * Returns 0 or -EINVAL (bad value or version). */
int bmc_state_parse(struct bmc_state *st, const char *text);

/* Render *st as the text of a state file into buf. Returns the length or
 * -ENOSPC. */
int bmc_state_format(const struct bmc_state *st, char *buf, size_t len);

/* Load path into *st: 0, -ENOENT if there is no file, other -errno. */
int bmc_state_load(struct bmc_state *st, const char *path);

/* Write path atomically (temp file, fsync, rename, fsync of the folder). */
int bmc_state_save(const struct bmc_state *st, const char *path);

#endif /* BMCSIM_BMC_STATE_H */
