// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_ioctl [N] [DEV]: the reference point for the in-band round trip.
 *
 * bare       a bare loop on the kernel IPMI driver, no library:
 *            IPMICTL_SEND_COMMAND Get Device ID (netfn 6 cmd 1) to the BMC's
 *            system interface address, poll(), IPMICTL_RECEIVE_MSG_TRUNC
 *            (round_trip() below, on its own descriptor);
 * libptipmi  the same request through pt_ipmi_cmd() on a handle from
 *            pt_ipmi_open_inband().
 *
 * N requests of each (default 200), alternating bare / libptipmi one by
 * one, so that load bursts on the host (the guest runs under TCG on a
 * shared machine) hit both alike. Each request is timed on its own. Prints:
 *
 *   requests=N bare_median_us=M bare_mean_us=A bare_min_us=L
 *   lib_median_us=M lib_mean_us=A lib_min_us=L   (one line)
 *
 * Exit: 0 done, 1 failed (message on stderr), 2 usage.
 * tests/ipmi/bench-inband runs it in the emulated server.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ipmi.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "ipmi.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One Get Device ID; 0 or -1 (message printed). */
static int round_trip(int fd, long id)
{
	struct ipmi_system_interface_addr si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
		.lun = 0,
	};
	struct ipmi_req req;
	unsigned char data[64];

	memset(&req, 0, sizeof(req));
	req.addr = (unsigned char *)&si;
	req.addr_len = sizeof(si);
	req.msgid = id;
	req.msg.netfn = 0x06;
	req.msg.cmd = 0x01;
	if (ioctl(fd, IPMICTL_SEND_COMMAND, &req) < 0) {
		perror("bench_ioctl: IPMICTL_SEND_COMMAND");
		return -1;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct ipmi_addr raddr;
		struct ipmi_recv recv;
		int r = poll(&pfd, 1, 5000);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fprintf(stderr, "bench_ioctl: request %ld: %s\n", id,
				r ? strerror(errno) : "no answer in 5 s");
			return -1;
		}
		memset(&recv, 0, sizeof(recv));
		recv.addr = (unsigned char *)&raddr;
		recv.addr_len = sizeof(raddr);
		recv.msg.data = data;
		recv.msg.data_len = sizeof(data);
		if (ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, &recv) < 0 &&
		    errno != EMSGSIZE) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			perror("bench_ioctl: IPMICTL_RECEIVE_MSG_TRUNC");
			return -1;
		}
		if (recv.recv_type != IPMI_RESPONSE_RECV_TYPE ||
		    recv.msgid != id)
			continue;
		if (recv.msg.data_len < 1 || data[0] != 0) {
			fprintf(stderr, "bench_ioctl: request %ld: completion "
				"code 0x%02x\n", id,
				recv.msg.data_len ? data[0] : 0xff);
			return -1;
		}
		return 0;
	}
}

struct stats {
	double median, mean, min;
};

static struct stats stats(double *t, long count)
{
	struct stats st = { 0 };

	for (long i = 0; i < count; i++)
		st.mean += t[i];
	st.mean /= (double)count;
	qsort(t, (size_t)count, sizeof(*t), cmp_double);
	st.median = count % 2 ? t[count / 2] :
		(t[count / 2 - 1] + t[count / 2]) / 2;
	st.min = t[0];
	return st;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_ioctl [N] [DEV]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 2 ? argv[2] : "/dev/ipmi0";
	char err[PT_IPMI_ERRLEN];
	struct pt_ipmi *h = NULL;
	long count = 200;
	double *tb, *tl, t0;
	struct stats b, l;
	int fd = -1, ret = 1;

	if (argc > 3 || (argc > 1 && !strcmp(argv[1], "--help")))
		return usage();
	if (argc > 1) {
		char *end;

		count = strtol(argv[1], &end, 10);
		if (*end || count < 1 || count > 10000000)
			return usage();
	}
	tb = calloc((size_t)count, sizeof(*tb));
	tl = calloc((size_t)count, sizeof(*tl));
	if (!tb || !tl) {
		perror("bench_ioctl");
		goto out;
	}
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "bench_ioctl: %s: %s\n", dev, strerror(errno));
		goto out;
	}
	if (pt_ipmi_open_inband(&h, dev, NULL, err, sizeof(err))) {
		fprintf(stderr, "bench_ioctl: %s\n", err);
		goto out;
	}
	for (long i = 0; i < count; i++) {
		uint8_t rsp[32];
		size_t n;

		t0 = now_us();
		if (round_trip(fd, i + 1))
			goto out;
		tb[i] = now_us() - t0;
		t0 = now_us();
		if (pt_ipmi_cmd(h, 0x06, 0x01, PT_IPMI_F_RETRY, NULL, 0, rsp,
				sizeof(rsp), &n, NULL)) {
			fprintf(stderr, "bench_ioctl: libptipmi request %ld: "
				"%s\n", i + 1, pt_ipmi_errmsg(h));
			goto out;
		}
		tl[i] = now_us() - t0;
	}
	b = stats(tb, count);
	l = stats(tl, count);
	printf("requests=%ld bare_median_us=%.1f bare_mean_us=%.1f "
	       "bare_min_us=%.1f lib_median_us=%.1f lib_mean_us=%.1f "
	       "lib_min_us=%.1f\n", count, b.median, b.mean, b.min,
	       l.median, l.mean, l.min);
	ret = 0;
out:
	pt_ipmi_close(h);
	if (fd >= 0)
		close(fd);
	free(tb);
	free(tl);
	return ret;
}
