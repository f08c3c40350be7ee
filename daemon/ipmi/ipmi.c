// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptipmi: the request loop shared by both transports (retries,
 * completion codes, messages) and the completion code table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ipmi_int.h"

/* IPMI 2.0 rev 1.1, table 5-2 "Completion Codes". */
static const struct {
	uint8_t cc;
	const char *what;
} pt_cc_table[] = {
	{ 0x00, "command completed normally" },
	{ 0xC0, "node busy" },
	{ 0xC1, "invalid command" },
	{ 0xC2, "command invalid for given LUN" },
	{ 0xC3, "timeout while processing command" },
	{ 0xC4, "out of space" },
	{ 0xC5, "reservation canceled or invalid reservation ID" },
	{ 0xC6, "request data truncated" },
	{ 0xC7, "request data length invalid" },
	{ 0xC8, "request data field length limit exceeded" },
	{ 0xC9, "parameter out of range" },
	{ 0xCA, "cannot return number of requested data bytes" },
	{ 0xCB, "requested sensor, data, or record not present" },
	{ 0xCC, "invalid data field in request" },
	{ 0xCD, "command illegal for specified sensor or record type" },
	{ 0xCE, "command response could not be provided" },
	{ 0xCF, "cannot execute duplicated request" },
	{ 0xD0, "SDR repository in update mode" },
	{ 0xD1, "device in firmware update mode" },
	{ 0xD2, "BMC initialization in progress" },
	{ 0xD3, "destination unavailable" },
	{ 0xD4, "insufficient privilege level" },
	{ 0xD5, "command not supported in present state" },
	{ 0xD6, "command sub-function disabled or unavailable" },
	{ 0xFF, "unspecified error" },
};

const char *pt_ipmi_cc_str(uint8_t cc)
{
	for (size_t i = 0; i < sizeof(pt_cc_table) / sizeof(pt_cc_table[0]); i++)
		if (pt_cc_table[i].cc == cc)
			return pt_cc_table[i].what;
	if (cc >= 0x01 && cc <= 0x7E)
		return "device specific (OEM) completion code";
	if (cc >= 0x80 && cc <= 0xBE)
		return "command specific completion code";
	return "reserved completion code";
}

uint64_t pt_ipmi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void pt_ipmi_init_common(struct pt_ipmi *ipmi, const char *name,
			 const struct pt_ipmi_opts *opts)
{
	snprintf(ipmi->name, sizeof(ipmi->name), "%s", name);
	ipmi->timeout_ms = PT_IPMI_DEFAULT_TIMEOUT_MS;
	ipmi->retries = PT_IPMI_DEFAULT_RETRIES;
	ipmi->session_ms = PT_IPMI_DEFAULT_SESSION_MS;
	if (!opts)
		return;
	if (opts->timeout_ms)
		ipmi->timeout_ms = opts->timeout_ms;
	if (opts->retries < 0)
		ipmi->retries = 0;
	else if (opts->retries > 0)
		ipmi->retries = (unsigned int)opts->retries;
	if (opts->session_timeout_ms)
		ipmi->session_ms = opts->session_timeout_ms;
}

void pt_ipmi_seterr(struct pt_ipmi *ipmi, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ipmi->err, sizeof(ipmi->err), "BMC %s: ", ipmi->name);
	if (n < 0 || (size_t)n >= sizeof(ipmi->err))
		return;
	va_start(ap, fmt);
	vsnprintf(ipmi->err + n, sizeof(ipmi->err) - (size_t)n, fmt, ap);
	va_end(ap);
}

void pt_ipmi_copyerr(const struct pt_ipmi *ipmi, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", ipmi->err);
}

const char *pt_ipmi_errmsg(const struct pt_ipmi *ipmi)
{
	return ipmi ? ipmi->err : "no IPMI handle";
}

const char *pt_ipmi_name(const struct pt_ipmi *ipmi)
{
	return ipmi->name;
}

unsigned int pt_ipmi_sessions(const struct pt_ipmi *ipmi)
{
	return ipmi->sessions;
}

int pt_ipmi_cmd(struct pt_ipmi *ipmi, uint8_t netfn, uint8_t cmd,
		unsigned int flags, const uint8_t *req, size_t req_len,
		uint8_t *rsp, size_t rsp_cap, size_t *rsp_len, uint8_t *cc)
{
	uint8_t buf[PT_IPMI_MAX_DATA];
	size_t len = 0, n;
	unsigned int attempt, attempts = 1;
	int ret;

	if (rsp_len)
		*rsp_len = 0;
	ipmi->err[0] = '\0';
	if ((netfn & 1) || netfn > 0x3f || req_len > PT_IPMI_MAX_DATA - 1 ||
	    (req_len && !req) || (rsp_cap && !rsp)) {
		pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: invalid "
			       "request (netfn must be an even request netfn "
			       "<= 0x3e, data <= %d bytes)", netfn, cmd,
			       PT_IPMI_MAX_DATA - 1);
		return -EINVAL;
	}
	if (flags & PT_IPMI_F_RETRY)
		attempts += ipmi->retries;

	for (attempt = 1;; attempt++) {
		len = sizeof(buf);
		ret = ipmi->ops->xfer(ipmi, netfn, cmd, req, req_len, buf, &len,
				      ipmi->timeout_ms,
				      !(flags & PT_IPMI_F_RETRY));
		if (ret != -ETIMEDOUT || attempt >= attempts)
			break;
	}
	if (ret == -ETIMEDOUT) {
		pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: no answer "
			       "within %u ms (%u attempt%s)", netfn, cmd,
			       ipmi->timeout_ms, attempts,
			       attempts > 1 ? "s" : "");
		if (!(flags & PT_IPMI_F_RETRY))
			strncat(ipmi->err, " (not resent: not safe to retry; "
				"read the status)",
				sizeof(ipmi->err) - strlen(ipmi->err) - 1);
		return ret;
	}
	if (ret)
		return ret;
	if (len < 1) {
		pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: answer "
			       "without a completion code", netfn, cmd);
		return -EBADMSG;
	}
	if (cc)
		*cc = buf[0];
	n = len - 1;
	if (rsp_len)
		*rsp_len = n;
	if (rsp_cap)
		memcpy(rsp, buf + 1, n < rsp_cap ? n : rsp_cap);
	if (buf[0]) {
		pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: "
			       "completion code 0x%02X %s", netfn, cmd, buf[0],
			       pt_ipmi_cc_str(buf[0]));
		return -EREMOTEIO;
	}
	if (n > rsp_cap) {
		pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: answer "
			       "of %zu bytes does not fit in %zu", netfn, cmd,
			       n, rsp_cap);
		return -EMSGSIZE;
	}
	return 0;
}

void pt_ipmi_close(struct pt_ipmi *ipmi)
{
	if (!ipmi)
		return;
	ipmi->ops->close(ipmi);
}
