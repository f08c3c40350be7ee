// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pt-bmc: talk to the BMC the way topod will, for tests and benchmarks
 * (not the user CLI; that is topoctl).
 *
 *   pt-bmc [--inband DEV | --lan HOST[:PORT] --creds FILE] [--cipher N]
 *          [--timeout MS] [--retries N] [--platform FILE] COMMAND
 *
 *   status              the platform's status request, decoded
 *   select LAYOUT       the platform's select request (sent once)
 *   raw NETFN CMD [DATA...]   any request (bytes in hex or decimal);
 *                       prints the answer's data bytes in hex
 *   bench N             session setup time, then N Get Device ID
 *                       requests over the one session
 *
 * Exit: 0 done, 1 failed (message on stderr), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipmi.h"
#include "platform_ipmi.h"
#include "ptc.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pt-bmc [--inband DEV | --lan HOST[:PORT] --creds FILE]\n"
		"              [--cipher N] [--timeout MS] [--retries N]\n"
		"              [--platform FILE] COMMAND\n"
		"commands: status | select LAYOUT | raw NETFN CMD [DATA...] |"
		" bench N\n");
}

static int parse_byte(const char *s, uint8_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > 0xff)
		return -EINVAL;
	*out = (uint8_t)v;
	return 0;
}

static int need_plat(const struct pt_platform *plat, const char *file)
{
	if (!file) {
		fprintf(stderr, "pt-bmc: this command needs --platform FILE\n");
		return 2;
	}
	/* its requests are IPMI's part of the file (platform_ipmi.h) */
	if (plat->transport != &pt_plat_ipmi_transport) {
		fprintf(stderr, "pt-bmc: platform %s speaks %s to its BMC, "
			"pt-bmc IPMI\n", plat->name,
			pt_platform_transport_name(plat));
		return 2;
	}
	return 0;
}

static int do_status(struct pt_ipmi *h, const struct pt_platform *p)
{
	const struct pt_plat_req *r = &pt_plat_ipmi(p)->status.request;
	uint8_t rsp[64];
	size_t n;
	struct pt_plat_job job;
	char err[PT_PLAT_ERRLEN];
	int ret;

	ret = pt_ipmi_cmd(h, r->netfn, r->cmd, PT_IPMI_F_RETRY, r->data,
			  r->len, rsp, sizeof(rsp), &n, NULL);
	if (ret) {
		fprintf(stderr, "pt-bmc: status: %s\n", pt_ipmi_errmsg(h));
		return 1;
	}
	if (pt_plat_ipmi_decode_status(p, rsp, n, &job, err, sizeof(err))) {
		fprintf(stderr, "pt-bmc: %s\n", err);
		return 1;
	}
	printf("state=%s current=%s pending=%s job=%d error=%d\n",
	       pt_platform_state_name(job.state),
	       ptc_layout_name(job.current),
	       job.pending ? ptc_layout_name(job.pending) : "none",
	       job.job, job.error);
	return 0;
}

static int do_select(struct pt_ipmi *h, const struct pt_platform *p,
		     const char *name)
{
	enum pcitopo_layout l = ptc_layout_by_name(name);
	const struct pt_plat_req *r;
	uint8_t rsp[64], cc = 0;
	size_t n;

	if (!l || !p->layouts[l].present) {
		fprintf(stderr, "pt-bmc: platform %s has no layout \"%s\"\n",
			p->name, name);
		return 2;
	}
	r = &pt_plat_ipmi(p)->layouts[l].select;
	/* Not PT_IPMI_F_RETRY: a Select is never resent blindly. */
	if (pt_ipmi_cmd(h, r->netfn, r->cmd, 0, r->data, r->len, rsp,
			sizeof(rsp), &n, &cc)) {
		fprintf(stderr, "pt-bmc: select %s: %s\n", name,
			pt_ipmi_errmsg(h));
		return 1;
	}
	if (n)
		printf("job=%u\n", rsp[0]);
	else
		printf("selected\n");
	return 0;
}

static int do_raw(struct pt_ipmi *h, int argc, char **argv)
{
	uint8_t netfn, cmd, req[64], rsp[300], cc = 0;
	size_t n = 0;
	int ret;

	if (argc < 2 || argc - 2 > (int)sizeof(req) ||
	    parse_byte(argv[0], &netfn) || parse_byte(argv[1], &cmd)) {
		usage(stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if (parse_byte(argv[i], &req[i - 2])) {
			fprintf(stderr, "pt-bmc: \"%s\" is not a byte\n",
				argv[i]);
			return 2;
		}
	ret = pt_ipmi_cmd(h, netfn, cmd, 0, req, (size_t)(argc - 2), rsp,
			  sizeof(rsp), &n, &cc);
	if (ret) {
		fprintf(stderr, "pt-bmc: %s\n", pt_ipmi_errmsg(h));
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		printf("%s%02x", i ? " " : "", rsp[i]);
	printf("\n");
	return 0;
}

static int do_bench(struct pt_ipmi *h, const char *arg, double setup_ms)
{
	char *end;
	long count = strtol(arg, &end, 10);
	uint8_t rsp[32];
	size_t n;
	double t0, t;

	if (*end || count < 1) {
		usage(stderr);
		return 2;
	}
	t0 = now_ms();
	for (long i = 0; i < count; i++)
		if (pt_ipmi_cmd(h, 0x06, 0x01, PT_IPMI_F_RETRY, NULL, 0, rsp,
				sizeof(rsp), &n, NULL)) {
			fprintf(stderr, "pt-bmc: bench: request %ld: %s\n", i,
				pt_ipmi_errmsg(h));
			return 1;
		}
	t = now_ms() - t0;
	printf("open_ms=%.3f requests=%ld total_ms=%.3f per_request_us=%.1f "
	       "sessions=%u\n", setup_ms, count, t, t * 1e3 / (double)count,
	       pt_ipmi_sessions(h));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inband", required_argument, NULL, 'i' },
		{ "lan", required_argument, NULL, 'l' },
		{ "creds", required_argument, NULL, 'c' },
		{ "cipher", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' },
		{ "platform", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inband = NULL, *lan = NULL, *creds_file = NULL;
	const char *plat_file = NULL;
	struct pt_ipmi_opts opts = { 0 };
	static struct pt_platform plat;
	struct pt_ipmi_creds creds;
	struct pt_ipmi *h = NULL;
	char err[PT_PLAT_ERRLEN], host[64];
	int cipher = -1, c, ret;
	unsigned int port = 0;
	const char *cmd;
	double t0, setup_ms;

	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': inband = optarg; break;
		case 'l': lan = optarg; break;
		case 'c': creds_file = optarg; break;
		case 'C': cipher = atoi(optarg); break;
		case 't': opts.timeout_ms = (unsigned int)atoi(optarg); break;
		case 'r':
			opts.retries = atoi(optarg) ? atoi(optarg) : -1;
			break;
		case 'p': plat_file = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc || (inband && lan) || (!inband && !lan)) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];

	/* The platform file first: a bad one sends nothing to the BMC. */
	if (plat_file && pt_platform_load(plat_file, &plat, err, sizeof(err))) {
		fprintf(stderr, "pt-bmc: %s\n", err);
		return 1;
	}
	if ((!strcmp(cmd, "status") || !strcmp(cmd, "select")) &&
	    need_plat(&plat, plat_file))
		return 2;

	t0 = now_ms();
	if (inband) {
		ret = pt_ipmi_open_inband(&h, inband, &opts, err, sizeof(err));
	} else {
		const char *colon = strrchr(lan, ':');
		size_t hl = colon ? (size_t)(colon - lan) : strlen(lan);

		if (!creds_file) {
			fprintf(stderr, "pt-bmc: --lan needs --creds FILE "
				"(credentials are never taken from the "
				"command line)\n");
			return 2;
		}
		if (hl >= sizeof(host)) {
			fprintf(stderr, "pt-bmc: host name too long\n");
			return 2;
		}
		memcpy(host, lan, hl);
		host[hl] = '\0';
		port = colon ? (unsigned int)atoi(colon + 1) : 0;
		if (pt_ipmi_creds_load(creds_file, &creds, err, sizeof(err))) {
			fprintf(stderr, "pt-bmc: %s\n", err);
			return 1;
		}
		ret = pt_ipmi_open_lan(&h, host, port, &creds, cipher, &opts,
				       err, sizeof(err));
		pt_ipmi_creds_wipe(&creds);
	}
	setup_ms = now_ms() - t0;
	if (ret) {
		fprintf(stderr, "pt-bmc: %s\n", err);
		return 1;
	}

	if (!strcmp(cmd, "status") && argc - optind == 1)
		ret = do_status(h, &plat);
	else if (!strcmp(cmd, "select") && argc - optind == 2)
		ret = do_select(h, &plat, argv[optind + 1]);
	else if (!strcmp(cmd, "raw"))
		ret = do_raw(h, argc - optind - 1, argv + optind + 1);
	else if (!strcmp(cmd, "bench") && argc - optind == 2)
		ret = do_bench(h, argv[optind + 1], setup_ms);
	else {
		usage(stderr);
		ret = 2;
	}
	pt_ipmi_close(h);
	return ret;
}
