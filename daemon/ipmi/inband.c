// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * In-band transport: the kernel IPMI driver's character device
 * (ipmi_devintf, /dev/ipmi0), ioctls only. A request goes to the BMC's
 * system interface address; its answer is the message whose msgid matches.
 * Answers to earlier requests that timed out are read and dropped. The
 * kernel does not resend system interface requests, so a request without
 * PT_IPMI_F_RETRY is sent exactly once.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ipmi.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ipmi_int.h"

struct pt_inband {
	int fd;
	long msgid;
};

static int inband_xfer(struct pt_ipmi *ipmi, uint8_t netfn, uint8_t cmd,
		       const uint8_t *req, size_t req_len, uint8_t *rsp,
		       size_t *rsp_len, unsigned int timeout_ms,
		       int side_effects)
{
	struct pt_inband *ib = ipmi->priv;
	struct ipmi_system_interface_addr si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
		.lun = 0,
	};
	uint8_t reqbuf[PT_IPMI_MAX_DATA];
	struct ipmi_req ireq;
	uint64_t deadline;
	long id;

	(void)side_effects;
	if (req_len)
		memcpy(reqbuf, req, req_len);
	id = ++ib->msgid;
	memset(&ireq, 0, sizeof(ireq));
	ireq.addr = (unsigned char *)&si;
	ireq.addr_len = sizeof(si);
	ireq.msgid = id;
	ireq.msg.netfn = netfn;
	ireq.msg.cmd = cmd;
	ireq.msg.data = reqbuf;
	ireq.msg.data_len = (unsigned short)req_len;
	if (ioctl(ib->fd, IPMICTL_SEND_COMMAND, &ireq) < 0) {
		int e = errno;

		pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: "
			       "IPMICTL_SEND_COMMAND: %s", netfn, cmd,
			       strerror(e));
		return -e;
	}

	deadline = pt_ipmi_now_ms() + timeout_ms;
	for (;;) {
		struct pollfd pfd = { .fd = ib->fd, .events = POLLIN };
		struct ipmi_addr raddr;
		struct ipmi_recv recv;
		uint64_t now = pt_ipmi_now_ms();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: "
				       "poll: %s", netfn, cmd, strerror(e));
			return -e;
		}
		if (r == 0)
			return -ETIMEDOUT;

		memset(&recv, 0, sizeof(recv));
		recv.addr = (unsigned char *)&raddr;
		recv.addr_len = sizeof(raddr);
		recv.msg.data = rsp;
		recv.msg.data_len = (unsigned short)*rsp_len;
		if (ioctl(ib->fd, IPMICTL_RECEIVE_MSG_TRUNC, &recv) < 0 &&
		    errno != EMSGSIZE) {
			int e = errno;

			if (e == EAGAIN || e == EINTR)
				continue;
			pt_ipmi_seterr(ipmi, "request netfn 0x%02x cmd 0x%02x: "
				       "IPMICTL_RECEIVE_MSG_TRUNC: %s", netfn,
				       cmd, strerror(e));
			return -e;
		}
		/* Events, commands, stale answers: not ours. */
		if (recv.recv_type != IPMI_RESPONSE_RECV_TYPE ||
		    recv.msgid != id)
			continue;
		*rsp_len = recv.msg.data_len;
		return 0;
	}
}

static void inband_close(struct pt_ipmi *ipmi)
{
	struct pt_inband *ib = ipmi->priv;

	if (ib) {
		if (ib->fd >= 0)
			close(ib->fd);
		free(ib);
	}
	free(ipmi);
}

static const struct pt_ipmi_ops inband_ops = {
	.xfer = inband_xfer,
	.close = inband_close,
};

int pt_ipmi_open_inband(struct pt_ipmi **out, const char *dev,
			const struct pt_ipmi_opts *opts,
			char *err, size_t errlen)
{
	struct pt_ipmi *ipmi;
	struct pt_inband *ib;
	unsigned int myaddr;
	int ret;

	*out = NULL;
	if (!dev)
		dev = "/dev/ipmi0";
	ipmi = calloc(1, sizeof(*ipmi));
	ib = calloc(1, sizeof(*ib));
	if (!ipmi || !ib) {
		free(ipmi);
		free(ib);
		if (err && errlen)
			snprintf(err, errlen, "BMC %s: out of memory", dev);
		return -ENOMEM;
	}
	ib->fd = -1;
	ipmi->ops = &inband_ops;
	ipmi->priv = ib;
	pt_ipmi_init_common(ipmi, dev, opts);

	ib->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (ib->fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			pt_ipmi_seterr(ipmi, "open: no such device (are the "
				       "ipmi_si and ipmi_devintf modules "
				       "loaded, is there a BMC?)");
		else
			pt_ipmi_seterr(ipmi, "open: %s", strerror(-ret));
		goto fail;
	}
	/* Any IPMI device answers this; anything else says ENOTTY. */
	if (ioctl(ib->fd, IPMICTL_GET_MY_ADDRESS_CMD, &myaddr) < 0) {
		ret = -errno;
		if (ret == -ENOTTY || ret == -EINVAL)
			pt_ipmi_seterr(ipmi, "open: not an IPMI device "
				       "(IPMICTL_GET_MY_ADDRESS_CMD: %s)",
				       strerror(-ret));
		else
			pt_ipmi_seterr(ipmi, "IPMICTL_GET_MY_ADDRESS_CMD: %s",
				       strerror(-ret));
		if (ret == -EINVAL)
			ret = -ENOTTY;
		goto fail;
	}
	*out = ipmi;
	return 0;
fail:
	pt_ipmi_copyerr(ipmi, err, errlen);
	inband_close(ipmi);
	return ret;
}
