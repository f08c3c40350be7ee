/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptipmi: one way to send an IPMI request to the BMC and read its answer,
 * over two transports:
 *
 *   in-band  the kernel IPMI driver (/dev/ipmi0, ipmi_devintf), no library;
 *   LAN      RMCP+ ("lanplus") through libOpenIPMI's low-level connection,
 *            one session opened by pt_ipmi_open_lan() and reused for every
 *            request. libOpenIPMI is not linked: the first
 *            pt_ipmi_open_lan() loads it (dlopen, openipmi-dl.h).
 *
 * Every function returns 0 or a negative errno and never prints. What went
 * wrong is in pt_ipmi_errmsg(): a sentence naming the BMC (device or
 * host:port) and the step ("session setup", "request netfn 0x3c cmd 0x11").
 *
 * A response whose completion code is not 0 is an error: pt_ipmi_cmd()
 * returns -EREMOTEIO and the code is in *cc (pt_ipmi_cc_str() says what it
 * means). There is no way to get "success" with a non-zero completion code.
 *
 * Retries are explicit. A request is resent only when the caller passes
 * PT_IPMI_F_RETRY, meaning that sending it twice is harmless (a read: Get
 * Device ID, a status query). Without it (the default: a Select, a power
 * cycle) a request that is not answered within opts.timeout_ms returns
 * -ETIMEDOUT and is never sent again, not even by the library underneath;
 * the caller reads the status to learn whether it took effect.
 *
 * Not thread-safe: LAN handles share libOpenIPMI's one (single-threaded)
 * OS handler, so use every handle of a process from one thread.
 */
#ifndef PCITOPO_DAEMON_IPMI_H
#define PCITOPO_DAEMON_IPMI_H

#include <stddef.h>
#include <stdint.h>

struct pt_ipmi;

/* Room for any message pt_ipmi_errmsg() or an open function writes. */
#define PT_IPMI_ERRLEN			256

/* Longest IPMI 2.0 user name and password, in bytes. */
#define PT_IPMI_USER_MAX		16
#define PT_IPMI_PASSWORD_MAX		20

/* Defaults used for a NULL opts or a 0 field. */
#define PT_IPMI_DEFAULT_TIMEOUT_MS	2000
#define PT_IPMI_DEFAULT_RETRIES		2
#define PT_IPMI_DEFAULT_SESSION_MS	5000
#define PT_IPMI_DEFAULT_CIPHER_SUITE	3

/* Privilege levels (IPMI 2.0 table 22-24). */
enum pt_ipmi_priv {
	PT_IPMI_PRIV_DEFAULT	= 0,	/* administrator */
	PT_IPMI_PRIV_CALLBACK	= 1,
	PT_IPMI_PRIV_USER	= 2,
	PT_IPMI_PRIV_OPERATOR	= 3,
	PT_IPMI_PRIV_ADMIN	= 4,
};

struct pt_ipmi_opts {
	/* Time to wait for one answer, ms; 0: PT_IPMI_DEFAULT_TIMEOUT_MS. */
	unsigned int timeout_ms;
	/* Extra attempts for a PT_IPMI_F_RETRY request after a timeout;
	 * -1: none, 0: PT_IPMI_DEFAULT_RETRIES. */
	int retries;
	/* Bound on opening an RMCP+ session (LAN only), ms;
	 * 0: PT_IPMI_DEFAULT_SESSION_MS. */
	unsigned int session_timeout_ms;
	/* Session privilege (LAN only); 0: administrator. */
	enum pt_ipmi_priv privilege;
};

/* A credentials file's longest user name and password for any transport:
 * Redfish accounts allow more than IPMI's 16 and 20 bytes (OpenBMC's and
 * iDRAC's passwords go past 20); each loader applies its transport's own. */
#define PT_CREDS_FIELD_MAX	127

struct pt_ipmi_creds {
	char user[PT_CREDS_FIELD_MAX + 1];
	char password[PT_CREDS_FIELD_MAX + 1];
};

/* pt_ipmi_cmd() flags. */
enum pt_ipmi_flags {
	/* Resending this request is harmless (idempotent read). */
	PT_IPMI_F_RETRY		= 1U << 0,
};

/*
 * Open the kernel IPMI driver's device (NULL: "/dev/ipmi0").
 * -ENOENT: no such device (ipmi_devintf and ipmi_si loaded?);
 * -ENOTTY: the file is not an IPMI device. On failure *out is NULL and err
 * (PT_IPMI_ERRLEN bytes, may be NULL) says why.
 */
int pt_ipmi_open_inband(struct pt_ipmi **out, const char *dev,
			const struct pt_ipmi_opts *opts,
			char *err, size_t errlen);

/*
 * Open an RMCP+ session to host:port (port 0: 623) with cipher suite
 * cipher_suite (-1: PT_IPMI_DEFAULT_CIPHER_SUITE, i.e. 3:
 * RAKP-HMAC-SHA1 / HMAC-SHA1-96 / AES-CBC-128). The session stays open
 * until pt_ipmi_close() and is reopened by itself if the BMC drops it.
 *
 * Suites libOpenIPMI implements: 0-3, 6-8, 11, 12. Suites 15-19
 * (HMAC-SHA256, among them 17) and the xRC4 ones are refused with
 * -EPROTONOSUPPORT before anything is sent.
 * -EACCES: the BMC rejected the user name or password;
 * -ETIMEDOUT: no session within opts.session_timeout_ms (BMC unreachable,
 * wrong port, IPMI over LAN disabled); -EAGAIN: refused with a transient
 * completion code (a BMC initializing, 0xD2), try again later;
 * -ELIBACC: libOpenIPMI.so.0 or libOpenIPMIposix.so.0 cannot be loaded
 * (package libopenipmi0 not installed), -ELIBBAD: it lacks a function we
 * call; err names the library.
 */
int pt_ipmi_open_lan(struct pt_ipmi **out, const char *host,
		     unsigned int port, const struct pt_ipmi_creds *creds,
		     int cipher_suite, const struct pt_ipmi_opts *opts,
		     char *err, size_t errlen);

/*
 * Send netfn/cmd with req_len bytes of req to the BMC (LUN 0) and wait for
 * the answer. The response data after the completion code is copied to
 * rsp (rsp_cap bytes; rsp may be NULL if rsp_cap is 0) and its length
 * stored in *rsp_len (may be NULL). *cc (may be NULL) gets the completion
 * code whenever an answer came.
 *
 * 0: answered with completion code 0.
 * -EREMOTEIO: answered with a non-zero completion code (*cc).
 * -ETIMEDOUT: no answer within opts.timeout_ms (times 1 + retries with
 *	PT_IPMI_F_RETRY).
 * -EAGAIN: (LAN) the BMC refused the session with a transient completion
 *	code (0xC0 node busy, 0xC3 timeout, 0xD2 initialization in
 *	progress): nothing was sent; try again later.
 * -EMSGSIZE: the answer did not fit in rsp_cap (truncated copy in rsp).
 * -EINVAL: netfn is a response netfn (odd) or above 0x3f, or req too long.
 */
int pt_ipmi_cmd(struct pt_ipmi *ipmi, uint8_t netfn, uint8_t cmd,
		unsigned int flags, const uint8_t *req, size_t req_len,
		uint8_t *rsp, size_t rsp_cap, size_t *rsp_len, uint8_t *cc);

/* Close the session (LAN) or the device; NULL is fine. */
void pt_ipmi_close(struct pt_ipmi *ipmi);

/* The last error on this handle, "" if none. Valid until the next call. */
const char *pt_ipmi_errmsg(const struct pt_ipmi *ipmi);

/* "host:port" or the device path. */
const char *pt_ipmi_name(const struct pt_ipmi *ipmi);

/* Sessions opened on this handle so far (LAN; 0 in-band). */
unsigned int pt_ipmi_sessions(const struct pt_ipmi *ipmi);

/*
 * What a completion code means, per IPMI 2.0 table 5-2:
 * 0xC0 -> "node busy", 0xCC -> "invalid data field in request". Codes
 * 0x01-0x7E are "device specific (OEM) completion code", 0x80-0xBE
 * "command specific completion code". Never NULL.
 */
const char *pt_ipmi_cc_str(uint8_t cc);

/* Zero the password (and user) in memory. */
void pt_ipmi_creds_wipe(struct pt_ipmi_creds *creds);

/*
 * Read credentials from path (NULL: PT_IPMI_CREDS_DEFAULT). The file holds
 * "user=NAME" and "password=SECRET" lines ('#' comments, blank lines; the
 * platform-file spelling `user = "NAME";` is accepted as well). It must be
 * a regular file owned by root or by the caller and not readable or
 * writable by group or others (mode 0600 or 0400); otherwise -EPERM and
 * err names the file and its mode or owner.
 * -ENOENT: no such file; -EINVAL: "file:line: reason".
 */
/*
 * Whether libOpenIPMI can speak RMCP+ cipher suite suite (-1: the default,
 * 3): 0, or -EINVAL (no such suite) / -EPROTONOSUPPORT (SHA-256 or xRC4
 * suites) with the reason and what to use instead in msg. Checked when a
 * session opens, and by whoever reads a configuration (topod.conf).
 */
int pt_ipmi_check_cipher(int suite, char *msg, size_t len);
/* the longest BMC host name or address pt_ipmi_open_lan() takes */
#define PT_IPMI_HOST_MAX	63

#define PT_IPMI_CREDS_DEFAULT	"/etc/pcitopo/bmc.conf"
/* IPMI 2.0's limits (PT_IPMI_USER_MAX, PT_IPMI_PASSWORD_MAX) */
int pt_ipmi_creds_load(const char *path, struct pt_ipmi_creds *creds,
		       char *err, size_t errlen);
/* another transport's: at most user_max and password_max bytes (up to
 * PT_CREDS_FIELD_MAX), a longer one refused naming limit_by */
int pt_creds_load(const char *path, struct pt_ipmi_creds *creds,
		  size_t user_max, size_t password_max, const char *limit_by,
		  char *err, size_t errlen);

#endif /* PCITOPO_DAEMON_IPMI_H */
