/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptipmi internals: the handle and the back-end operations. ipmi.c owns
 * the request loop (retries, completion codes, messages); a back end only
 * moves one request and its raw answer.
 */
#ifndef PCITOPO_DAEMON_IPMI_INT_H
#define PCITOPO_DAEMON_IPMI_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "ipmi.h"

/* Longest IPMI message data we handle (completion code included). */
#define PT_IPMI_MAX_DATA	272

struct pt_ipmi_ops {
	/*
	 * Send one request, wait at most timeout_ms for its answer and
	 * store the answer (completion code first) in rsp/rsp_len.
	 * side_effects: the request must not be resent by anyone.
	 * Returns 0 (answer stored), -ETIMEDOUT, or another negative errno;
	 * on an error the back end has set the message with pt_ipmi_seterr().
	 */
	int (*xfer)(struct pt_ipmi *ipmi, uint8_t netfn, uint8_t cmd,
		    const uint8_t *req, size_t req_len, uint8_t *rsp,
		    size_t *rsp_len, unsigned int timeout_ms,
		    int side_effects);
	void (*close)(struct pt_ipmi *ipmi);
};

struct pt_ipmi {
	const struct pt_ipmi_ops *ops;
	void *priv;			/* back end state */
	char name[128];			/* "host:port" or device path */
	unsigned int timeout_ms;
	unsigned int retries;
	unsigned int session_ms;
	unsigned int sessions;		/* sessions opened (LAN) */
	char err[PT_IPMI_ERRLEN];
};

/* Fill in the handle's common part from opts (NULL: defaults). */
void pt_ipmi_init_common(struct pt_ipmi *ipmi, const char *name,
			 const struct pt_ipmi_opts *opts);

/* Set the handle's message: "BMC NAME: ..." */
__attribute__((format(printf, 2, 3)))
void pt_ipmi_seterr(struct pt_ipmi *ipmi, const char *fmt, ...);

/* Copy the handle's message to a caller's buffer (may be NULL). */
void pt_ipmi_copyerr(const struct pt_ipmi *ipmi, char *err, size_t errlen);

/* Monotonic milliseconds. */
uint64_t pt_ipmi_now_ms(void);

#endif /* PCITOPO_DAEMON_IPMI_INT_H */
