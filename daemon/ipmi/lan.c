// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * LAN transport: RMCP+ (IPMI 2.0 "lanplus") through libOpenIPMI's low-level
 * connection (ipmi_lanp_setup_con), driven by its POSIX single-threaded OS
 * handler: everything is a callback, run from os_hnd->perform_one_op(),
 * which we call in a loop bounded by our own deadlines.
 *
 * One session is opened by pt_ipmi_open_lan() and reused for every request.
 * It is reopened by itself before the next request when the BMC dropped it
 * or a request timed out.
 *
 * Resends: libOpenIPMI resends an unanswered request up to 6 times, with a
 * new session sequence number, i.e. the BMC runs it again. That is fine for
 * a read and wrong for a Select. So requests with side effects get a
 * library timeout longer than our own; when ours expires we close the
 * session, which discards the request inside the library before it could
 * be resent. Reads keep a short library timeout (one in-session resend
 * within our window) and are retried by ipmi.c on a fresh session.
 *
 * Deadlines: an unreachable BMC makes libOpenIPMI give up after ~7 s with
 * a misleading message; session setup is bounded by opts.session_timeout_ms
 * instead, with our own message.
 *
 * libOpenIPMI logs through the OS handler; those lines are captured (never
 * printed) and appended to our message when they explain a failure.
 *
 * libOpenIPMI is not linked: the first pt_ipmi_open_lan() loads it
 * (openipmi-dl.c) and every call goes through the table pt_oi, so that a
 * process using only the in-band transport does not map it (nor libcrypto).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <OpenIPMI/ipmi_auth.h>
#include <OpenIPMI/ipmi_conn.h>
#include <OpenIPMI/ipmi_err.h>
#include <OpenIPMI/ipmi_lan.h>
#include <OpenIPMI/ipmi_posix.h>
#include <OpenIPMI/ipmiif.h>

#include "ipmi_int.h"
#include "openipmi-dl.h"

enum lan_state {
	LAN_DOWN,		/* no connection object */
	LAN_CONNECTING,		/* start_con() called, no answer yet */
	LAN_UP,			/* session active */
	LAN_FAILED,		/* session setup or session failed: con_err */
};

struct pt_lan {
	ipmi_con_t *con;
	enum lan_state state;
	int con_err;			/* libOpenIPMI error of LAN_FAILED */
	int closed;			/* close_connection_done() reported */
	int setup_done;			/* left LAN_CONNECTING */
	char host[PT_IPMI_HOST_MAX + 1];
	char port[8];
	int suite;
	struct pt_ipmi_creds creds;
	unsigned int priv;
	/* the outstanding request */
	unsigned long seq;
	int done;
	uint8_t *rsp;
	size_t rsp_cap;
	size_t rsp_len;
	char liblog[128];		/* last line libOpenIPMI logged */
};

/* libOpenIPMI's global state: one OS handler for every handle. */
static os_handler_t *lan_os;
static unsigned int lan_users;
static struct pt_ipmi *lan_cur;		/* handle being pumped (for logs) */

/* IPMI 2.0 table 22-20; what libOpenIPMI implements. */
#define AUTH(x)  IPMI_LANP_AUTHENTICATION_ALGORITHM_RAKP_##x
#define INTEG(x) IPMI_LANP_INTEGRITY_ALGORITHM_##x
#define CONF(x)  IPMI_LANP_CONFIDENTIALITY_ALGORITHM_##x
static const struct {
	int auth, integ, conf;
	const char *name;
} lan_suites[] = {
	[0]  = { AUTH(NONE), INTEG(NONE), CONF(NONE), "none/none/none" },
	[1]  = { AUTH(HMAC_SHA1), INTEG(NONE), CONF(NONE),
		 "RAKP-HMAC-SHA1/none/none" },
	[2]  = { AUTH(HMAC_SHA1), INTEG(HMAC_SHA1_96), CONF(NONE),
		 "RAKP-HMAC-SHA1/HMAC-SHA1-96/none" },
	[3]  = { AUTH(HMAC_SHA1), INTEG(HMAC_SHA1_96), CONF(AES_CBC_128),
		 "RAKP-HMAC-SHA1/HMAC-SHA1-96/AES-CBC-128" },
	[6]  = { AUTH(HMAC_MD5), INTEG(NONE), CONF(NONE),
		 "RAKP-HMAC-MD5/none/none" },
	[7]  = { AUTH(HMAC_MD5), INTEG(HMAC_MD5_128), CONF(NONE),
		 "RAKP-HMAC-MD5/HMAC-MD5-128/none" },
	[8]  = { AUTH(HMAC_MD5), INTEG(HMAC_MD5_128), CONF(AES_CBC_128),
		 "RAKP-HMAC-MD5/HMAC-MD5-128/AES-CBC-128" },
	[11] = { AUTH(HMAC_MD5), INTEG(MD5_128), CONF(NONE),
		 "RAKP-HMAC-MD5/MD5-128/none" },
	[12] = { AUTH(HMAC_MD5), INTEG(MD5_128), CONF(AES_CBC_128),
		 "RAKP-HMAC-MD5/MD5-128/AES-CBC-128" },
};
#define LAN_NSUITES ((int)(sizeof(lan_suites) / sizeof(lan_suites[0])))

/* RMCP+ and RAKP message status codes, IPMI 2.0 table 13-15. */
static const char *const lan_rmcpp_status[] = {
	[0x01] = "insufficient resources to create a session",
	[0x02] = "invalid session ID",
	[0x03] = "invalid payload type",
	[0x04] = "invalid authentication algorithm",
	[0x05] = "invalid integrity algorithm",
	[0x06] = "no matching authentication payload",
	[0x07] = "no matching integrity payload",
	[0x08] = "inactive session ID",
	[0x09] = "invalid role",
	[0x0a] = "unauthorized role or privilege level requested",
	[0x0b] = "insufficient resources to create a session at the requested role",
	[0x0c] = "invalid name length",
	[0x0d] = "unauthorized name",
	[0x0e] = "unauthorized GUID",
	[0x0f] = "invalid integrity check value",
	[0x10] = "invalid confidentiality algorithm",
	[0x11] = "no cipher suite match with proposed security algorithms",
	[0x12] = "illegal or unrecognized parameter",
};

static void lan_log(os_handler_t *h, const char *fmt,
		    enum ipmi_log_type_e type, va_list ap)
{
	struct pt_lan *lan;

	(void)h;
	if (!lan_cur || type == IPMI_LOG_DEBUG || type == IPMI_LOG_DEBUG_START ||
	    type == IPMI_LOG_DEBUG_CONT || type == IPMI_LOG_DEBUG_END)
		return;
	lan = lan_cur->priv;
	vsnprintf(lan->liblog, sizeof(lan->liblog), fmt, ap);
}

static int lan_global_get(void)
{
	int rv;

	if (lan_users++)
		return 0;
	lan_os = pt_oi.ipmi_posix_setup_os_handler();
	if (!lan_os) {
		lan_users = 0;
		return -ENOMEM;
	}
	lan_os->set_log_handler(lan_os, lan_log);
	rv = pt_oi.ipmi_init(lan_os);
	if (rv) {
		lan_os->free_os_handler(lan_os);
		lan_os = NULL;
		lan_users = 0;
		return -(rv & 0xff ? rv & 0xff : EIO);
	}
	return 0;
}

static void lan_global_put(void)
{
	struct timeval tv = { 0, 0 };

	if (!lan_users || --lan_users)
		return;
	/* Let the selector free what closed connections left behind. */
	(void)lan_os->perform_one_op(lan_os, &tv);
	pt_oi.ipmi_shutdown();
	lan_os->free_os_handler(lan_os);
	lan_os = NULL;
}

/* Run libOpenIPMI's callbacks until *flag is set or deadline (ms). */
static int lan_pump(struct pt_ipmi *ipmi, const int *flag, uint64_t deadline)
{
	while (!*flag) {
		uint64_t now = pt_ipmi_now_ms(), left;
		struct timeval tv;
		int rv;

		if (now >= deadline)
			return -ETIMEDOUT;
		left = deadline - now;
		tv.tv_sec = (time_t)(left / 1000);
		tv.tv_usec = (suseconds_t)(left % 1000) * 1000;
		lan_cur = ipmi;
		rv = lan_os->perform_one_op(lan_os, &tv);
		lan_cur = NULL;
		if (rv && rv != ETIMEDOUT && rv != EINTR)
			return -rv;
	}
	return 0;
}

static void lan_closed_cb(ipmi_con_t *con, void *cb_data)
{
	struct pt_lan *lan = cb_data;

	(void)con;
	lan->closed = 1;
}

/* Close the connection; pending requests die inside the library unsent. */
static void lan_drop(struct pt_ipmi *ipmi)
{
	struct pt_lan *lan = ipmi->priv;
	ipmi_con_t *con = lan->con;

	if (!con)
		return;
	lan->con = NULL;
	lan->state = LAN_DOWN;
	lan->closed = 0;
	lan->seq++;			/* whatever comes now is stale */
	if (con->close_connection_done(con, lan_closed_cb, lan))
		return;
	/* Bounded: the close is local, nothing waits for the BMC. */
	(void)lan_pump(ipmi, &lan->closed, pt_ipmi_now_ms() + 2000);
}

static void lan_con_changed(ipmi_con_t *con, int err, unsigned int port,
			    int any_port_up, void *cb_data)
{
	struct pt_ipmi *ipmi = cb_data;
	struct pt_lan *lan = ipmi->priv;

	(void)port;
	if (con != lan->con)
		return;
	if (!err && any_port_up) {
		lan->state = LAN_UP;
	} else if (err) {
		lan->state = LAN_FAILED;
		lan->con_err = err;
	}
	lan->setup_done = 1;
}

static int lan_setup_failed(struct pt_ipmi *ipmi)
{
	struct pt_lan *lan = ipmi->priv;
	int err = lan->con_err;
	const char *log = lan->liblog;
	const char *sep = log[0] ? "; libOpenIPMI: " : "";

	if (IPMI_IS_RMCPP_ERR(err)) {
		unsigned int st = IPMI_GET_RMCPP_ERR(err);
		const char *what = st < sizeof(lan_rmcpp_status) /
				   sizeof(lan_rmcpp_status[0]) &&
				   lan_rmcpp_status[st] ?
				   lan_rmcpp_status[st] : "unknown status";

		switch (st) {
		case 0x0a: case 0x0c: case 0x0d: case 0x0e: case 0x0f:
			pt_ipmi_seterr(ipmi, "session setup: authentication "
				       "failed: wrong user name or password "
				       "for user \"%s\" (RMCP+ status 0x%02x "
				       "%s)", lan->creds.user, st, what);
			return -EACCES;
		case 0x04: case 0x05: case 0x10: case 0x11:
			pt_ipmi_seterr(ipmi, "session setup: the BMC refused "
				       "cipher suite %d (%s) (RMCP+ status "
				       "0x%02x %s)", lan->suite,
				       lan_suites[lan->suite].name, st, what);
			return -EPROTONOSUPPORT;
		default:
			pt_ipmi_seterr(ipmi, "session setup: refused (RMCP+ "
				       "status 0x%02x %s)", st, what);
			return -ECONNREFUSED;
		}
	}
	if (IPMI_IS_IPMI_ERR(err)) {
		uint8_t cc = IPMI_GET_IPMI_ERR(err);

		if (cc == 0xD4) {
			pt_ipmi_seterr(ipmi, "session setup: user \"%s\" may "
				       "not have the requested privilege "
				       "(completion code 0xD4 %s)",
				       lan->creds.user, pt_ipmi_cc_str(cc));
			return -EACCES;
		}
		pt_ipmi_seterr(ipmi, "session setup: completion code 0x%02X "
			       "%s%s%s", cc, pt_ipmi_cc_str(cc), sep, log);
		/* a BMC starting up (0xD2) or busy refuses sessions for a
		 * while: the caller may try again (ipmi.h) */
		if (cc == 0xC0 || cc == 0xC3 || cc == 0xD2)
			return -EAGAIN;
		return -ECONNREFUSED;
	}
	if (err == EINVAL) {
		/*
		 * The BMC answered the RAKP exchange but its key exchange
		 * code did not verify with our password: libOpenIPMI
		 * reports that as a bare EINVAL.
		 */
		pt_ipmi_seterr(ipmi, "session setup: authentication failed: "
			       "wrong password for user \"%s\" (the BMC's "
			       "RAKP key exchange code does not match)%s%s",
			       lan->creds.user, sep, log);
		return -EACCES;
	}
	pt_ipmi_seterr(ipmi, "session setup: %s%s%s",
		       strerror(IPMI_GET_OS_ERR(err)), sep, log);
	return -(IPMI_GET_OS_ERR(err) ? IPMI_GET_OS_ERR(err) : EIO);
}

static int lan_connect(struct pt_ipmi *ipmi, unsigned int bound_ms)
{
	struct pt_lan *lan = ipmi->priv;
	char *addrs[1] = { lan->host };
	char *ports[1] = { lan->port };
	long long t_short = (long long)ipmi->timeout_ms * 1000 / 2;
	long long t_long = ((long long)ipmi->timeout_ms * 4 +
			    ipmi->session_ms + 1000) * 1000;
	ipmi_lanp_parm_t parms[12];
	unsigned int n = 0;
	uint64_t deadline;
	int rv, ret;

	if (t_short < 100000)
		t_short = 100000;
	if (t_long > INT_MAX)
		t_long = INT_MAX;

	lan_drop(ipmi);
	lan->liblog[0] = '\0';

#define PARM(id, val, data, len) \
	parms[n++] = (ipmi_lanp_parm_t){ (id), (val), (data), (len) }
	PARM(IPMI_LANP_PARMID_ADDRS, 0, addrs, 1);
	PARM(IPMI_LANP_PARMID_PORTS, 0, ports, 1);
	PARM(IPMI_LANP_PARMID_AUTHTYPE, IPMI_AUTHTYPE_RMCP_PLUS, NULL, 0);
	PARM(IPMI_LANP_PARMID_PRIVILEGE, (int)lan->priv, NULL, 0);
	PARM(IPMI_LANP_PARMID_USERNAME, 0, lan->creds.user,
	     (unsigned int)strlen(lan->creds.user));
	PARM(IPMI_LANP_PARMID_PASSWORD, 0, lan->creds.password,
	     (unsigned int)strlen(lan->creds.password));
	PARM(IPMI_LANP_AUTHENTICATION_ALGORITHM, lan_suites[lan->suite].auth,
	     NULL, 0);
	PARM(IPMI_LANP_INTEGRITY_ALGORITHM, lan_suites[lan->suite].integ,
	     NULL, 0);
	PARM(IPMI_LANP_CONFIDENTIALITY_ALGORITHM, lan_suites[lan->suite].conf,
	     NULL, 0);
	PARM(IPMI_LANP_DEFAULT_TIMEOUT, (int)t_short, NULL, 0);
	PARM(IPMI_LANP_DEFAULT_SIDEEFFECT_TIMEOUT, (int)t_long, NULL, 0);
#undef PARM

	rv = pt_oi.ipmi_lanp_setup_con(parms, n, lan_os, NULL, &lan->con);
	if (rv) {
		lan->con = NULL;
		pt_ipmi_seterr(ipmi, "session setup: cannot set up the "
			       "connection: %s (is \"%s\" a valid host?)",
			       strerror(IPMI_GET_OS_ERR(rv)), lan->host);
		return -(IPMI_GET_OS_ERR(rv) ? IPMI_GET_OS_ERR(rv) : EINVAL);
	}
	lan->state = LAN_CONNECTING;
	lan->con_err = 0;
	lan->setup_done = 0;
	rv = lan->con->add_con_change_handler(lan->con, lan_con_changed, ipmi);
	if (!rv)
		rv = lan->con->start_con(lan->con);
	if (rv) {
		pt_ipmi_seterr(ipmi, "session setup: cannot start: %s",
			       strerror(IPMI_GET_OS_ERR(rv)));
		lan_drop(ipmi);
		return -EIO;
	}

	deadline = pt_ipmi_now_ms() + bound_ms;
	/* lan_con_changed() sets lan->state and lan->setup_done. */
	ret = lan_pump(ipmi, &lan->setup_done, deadline);
	if (ret && ret != -ETIMEDOUT) {
		pt_ipmi_seterr(ipmi, "session setup: %s", strerror(-ret));
		lan_drop(ipmi);
		return ret;
	}
	if (lan->state == LAN_UP) {
		ipmi->sessions++;
		return 0;
	}
	if (lan->state == LAN_CONNECTING) {
		pt_ipmi_seterr(ipmi, "session setup: no session within %u ms "
			       "(BMC unreachable, wrong port, IPMI over LAN "
			       "disabled, or cipher suite %d not enabled?)%s%s",
			       bound_ms, lan->suite,
			       lan->liblog[0] ? "; libOpenIPMI: " : "",
			       lan->liblog);
		ret = -ETIMEDOUT;
	} else {
		ret = lan_setup_failed(ipmi);
	}
	lan_drop(ipmi);
	return ret;
}

static int lan_rsp(ipmi_con_t *con, ipmi_msgi_t *rspi)
{
	struct pt_ipmi *ipmi = rspi->data1;
	struct pt_lan *lan = ipmi->priv;
	size_t n = rspi->msg.data_len;

	(void)con;
	if ((unsigned long)(uintptr_t)rspi->data2 != lan->seq || lan->done)
		return IPMI_MSG_ITEM_NOT_USED;
	if (n > lan->rsp_cap)
		n = lan->rsp_cap;
	memcpy(lan->rsp, rspi->msg.data, n);
	lan->rsp_len = n;
	lan->done = 1;
	return IPMI_MSG_ITEM_NOT_USED;
}

static int lan_xfer(struct pt_ipmi *ipmi, uint8_t netfn, uint8_t cmd,
		    const uint8_t *req, size_t req_len, uint8_t *rsp,
		    size_t *rsp_len, unsigned int timeout_ms,
		    int side_effects)
{
	struct pt_lan *lan = ipmi->priv;
	ipmi_system_interface_addr_t si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
		.lun = 0,
	};
	ipmi_con_option_t opt[2] = {
		{ .option = IPMI_CON_MSG_OPTION_SIDE_EFFECTS, .ival = 1 },
		{ .option = IPMI_CON_OPTION_LIST_END },
	};
	uint8_t reqbuf[PT_IPMI_MAX_DATA];
	ipmi_msgi_t *rspi;
	ipmi_msg_t msg;
	uint64_t deadline = pt_ipmi_now_ms() + timeout_ms, now;
	int rv, ret;

	/* A reconnect counts against this attempt's timeout. */
	if (!lan->con || lan->state != LAN_UP) {
		ret = lan_connect(ipmi, timeout_ms < ipmi->session_ms ?
				  timeout_ms : ipmi->session_ms);
		if (ret)
			return ret;
	}
	now = pt_ipmi_now_ms();
	if (now >= deadline)
		return -ETIMEDOUT;

	rspi = pt_oi.ipmi_alloc_msg_item();
	if (!rspi) {
		pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: out of "
			       "memory", netfn, cmd);
		return -ENOMEM;
	}
	if (req_len)
		memcpy(reqbuf, req, req_len);
	msg.netfn = netfn;
	msg.cmd = cmd;
	msg.data = reqbuf;
	msg.data_len = (unsigned short)req_len;
	lan->seq++;
	lan->done = 0;
	lan->rsp = rsp;
	lan->rsp_cap = *rsp_len;
	lan->rsp_len = 0;
	rspi->data1 = ipmi;
	rspi->data2 = (void *)(uintptr_t)lan->seq;

	if (lan->con->send_command_option)
		rv = lan->con->send_command_option(lan->con,
					(ipmi_addr_t *)&si, sizeof(si), &msg,
					side_effects ? opt : opt + 1,
					lan_rsp, rspi);
	else
		rv = lan->con->send_command(lan->con, (ipmi_addr_t *)&si,
					    sizeof(si), &msg, lan_rsp, rspi);
	if (rv) {
		pt_oi.ipmi_free_msg_item(rspi);
		pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: send: "
			       "%s", netfn, cmd,
			       strerror(IPMI_GET_OS_ERR(rv)));
		lan_drop(ipmi);
		return -EIO;
	}

	ret = lan_pump(ipmi, &lan->done, deadline);
	if (ret) {
		/* Closing discards the request inside libOpenIPMI. */
		lan_drop(ipmi);
		if (ret != -ETIMEDOUT)
			pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x:"
				       " %s", netfn, cmd, strerror(-ret));
		return ret;
	}
	*rsp_len = lan->rsp_len;
	return 0;
}

static void lan_close(struct pt_ipmi *ipmi)
{
	struct pt_lan *lan = ipmi->priv;

	if (lan) {
		lan_drop(ipmi);
		pt_ipmi_creds_wipe(&lan->creds);
		free(lan);
		lan_global_put();
	}
	free(ipmi);
}

static const struct pt_ipmi_ops lan_ops = {
	.xfer = lan_xfer,
	.close = lan_close,
};

int pt_ipmi_check_cipher(int suite, char *msg, size_t len)
{
	if (suite < 0)
		suite = PT_IPMI_DEFAULT_CIPHER_SUITE;
	if (suite < 0 || suite > 19) {
		snprintf(msg, len, "cipher suite %d does not exist (IPMI 2.0 "
			 "defines 0-19)", suite);
		return -EINVAL;
	}
	if (suite >= 15) {
		snprintf(msg, len, "cipher suite %d (RAKP-HMAC-SHA256) is not "
			 "supported: libOpenIPMI implements no HMAC-SHA256; "
			 "use cipher suite 3 (RAKP-HMAC-SHA1/HMAC-SHA1-96/"
			 "AES-CBC-128) and enable it on the BMC", suite);
		return -EPROTONOSUPPORT;
	}
	if (suite >= LAN_NSUITES || !lan_suites[suite].name) {
		snprintf(msg, len, "cipher suite %d (xRC4 encryption) is not "
			 "supported by libOpenIPMI; use cipher suite 3 "
			 "(RAKP-HMAC-SHA1/HMAC-SHA1-96/AES-CBC-128)", suite);
		return -EPROTONOSUPPORT;
	}
	return 0;
}

int pt_ipmi_open_lan(struct pt_ipmi **out, const char *host,
		     unsigned int port, const struct pt_ipmi_creds *creds,
		     int cipher_suite, const struct pt_ipmi_opts *opts,
		     char *err, size_t errlen)
{
	struct pt_ipmi *ipmi;
	struct pt_lan *lan;
	char name[96], msg[PT_IPMI_ERRLEN];
	int ret;

	*out = NULL;
	if (!port)
		port = IPMI_LAN_STD_PORT;
	if (cipher_suite < 0)
		cipher_suite = PT_IPMI_DEFAULT_CIPHER_SUITE;
	snprintf(name, sizeof(name), "%s:%u", host ? host : "(null)", port);
	if (!host || !host[0] || strlen(host) >= sizeof(lan->host) ||
	    port > 65535 || !creds) {
		if (err && errlen)
			snprintf(err, errlen, "BMC %s: invalid host, port or "
				 "credentials", name);
		return -EINVAL;
	}

	ipmi = calloc(1, sizeof(*ipmi));
	lan = calloc(1, sizeof(*lan));
	if (!ipmi || !lan) {
		free(ipmi);
		free(lan);
		if (err && errlen)
			snprintf(err, errlen, "BMC %s: out of memory", name);
		return -ENOMEM;
	}
	ipmi->ops = &lan_ops;
	pt_ipmi_init_common(ipmi, name, opts);

	ret = pt_ipmi_check_cipher(cipher_suite, msg, sizeof(msg));
	if (ret)
		goto fail;
	/* libOpenIPMI is loaded now, not linked: see openipmi-dl.h */
	ret = pt_openipmi_load(msg, sizeof(msg));
	if (ret)
		goto fail;
	ret = lan_global_get();
	if (ret) {
		snprintf(msg, sizeof(msg), "cannot initialise libOpenIPMI: %s",
			 strerror(-ret));
		goto fail;
	}
	ipmi->priv = lan;
	snprintf(lan->host, sizeof(lan->host), "%s", host);
	snprintf(lan->port, sizeof(lan->port), "%u", port);
	lan->suite = cipher_suite;
	lan->creds = *creds;
	lan->priv = opts && opts->privilege ? (unsigned int)opts->privilege :
		    IPMI_PRIVILEGE_ADMIN;

	ret = lan_connect(ipmi, ipmi->session_ms);
	if (ret) {
		pt_ipmi_copyerr(ipmi, err, errlen);
		lan_close(ipmi);
		return ret;
	}
	*out = ipmi;
	return 0;

fail:
	pt_ipmi_seterr(ipmi, "%s", msg);
	pt_ipmi_copyerr(ipmi, err, errlen);
	free(lan);
	free(ipmi);
	return ret;
}
