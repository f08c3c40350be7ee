// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the IPMI backend of the BMC (bmc_backend.h), on libptipmi and the
 * platform file's IPMI part (platform_ipmi.h): in-band through the
 * kernel's /dev/ipmi0, or RMCP+ over the LAN.
 *
 *   bmc = { transport = "inband"; device = "/dev/ipmi0"; timeout_ms = N; };
 *   bmc = { transport = "lan"; host = "10.0.0.5"; port = 623;
 *           creds = "/etc/pcitopo/bmc.conf"; cipher = 3; timeout_ms = N; };
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bmc_backend.h"
#include "config.h"
#include "ipmi.h"
#include "platform_ipmi.h"
#include "ptc.h"

/* What bmc = { ... } says, read by ipmi_conf(). */
struct ipmi_conf {
	bool lan;
	char device[256];		/* in-band */
	char host[PT_IPMI_HOST_MAX + 1];	/* LAN */
	unsigned int port;
	char creds[4096];
	int cipher;			/* -1: libptipmi's default */
	unsigned int timeout_ms;	/* 0: libptipmi's default */
};

_Static_assert(sizeof(struct ipmi_conf) <= BMC_CONF_MAX,
	       "the IPMI configuration fits bmc_conf");

/*
 * libptipmi's LAN transport keeps global state (one libOpenIPMI OS handler
 * for every session, run by whichever thread waits on it): a switch's
 * worker and a dry run's thread (PlanLayout) take turns, call by call.
 * Waits between calls (bmc_follow()'s polls) hold nothing.
 */
static pthread_mutex_t ipmi_lock = PTHREAD_MUTEX_INITIALIZER;

/* what bmc = { ... } may hold, by transport; a key of the other transport
 * (host with in-band) is a mistake worth naming */
static const char *const inband_keys[] = {
	"transport", "device", "timeout_ms", NULL,
};
static const char *const lan_keys[] = {
	"transport", "host", "port", "creds", "cipher", "timeout_ms", NULL,
};

static int ipmi_conf(config_t *cf, const char *path, const char *kind,
		     void *conf, char *err, size_t len)
{
	struct ipmi_conf *c = conf;
	char msg[256];
	int v;

	memset(c, 0, sizeof(*c));
	strcpy(c->device, "/dev/ipmi0");
	strcpy(c->creds, PT_IPMI_CREDS_DEFAULT);
	c->cipher = -1;
	c->lan = !strcmp(kind, "lan");
	if (!c->lan) {
		if (conf_group_keys(cf, "bmc", kind, inband_keys, err, len,
				    path) ||
		    conf_string(cf, "bmc.device", c->device, sizeof(c->device),
				false, err, len, path))
			return -EINVAL;
	} else {
		if (conf_group_keys(cf, "bmc", kind, lan_keys, err, len, path) ||
		    conf_string(cf, "bmc.host", c->host, sizeof(c->host), true,
				err, len, path) ||
		    conf_string(cf, "bmc.creds", c->creds, sizeof(c->creds),
				false, err, len, path))
			return -EINVAL;
		v = 0;
		if (conf_int(cf, "bmc.port", 1, 65535, &v, err, len, path))
			return -EINVAL;
		c->port = (unsigned int)v;
		if (conf_int(cf, "bmc.cipher", 0, 19, &c->cipher, err, len,
			     path))
			return -EINVAL;
		/* a suite libOpenIPMI cannot speak fails here, at start,
		 * not at the first switch */
		if (pt_ipmi_check_cipher(c->cipher, msg, sizeof(msg))) {
			snprintf(err, len, "%s: bmc.cipher: %s", path, msg);
			return -EINVAL;
		}
	}
	v = 0;
	if (conf_int(cf, "bmc.timeout_ms", 1, 600000, &v, err, len, path))
		return -EINVAL;
	c->timeout_ms = (unsigned int)v;
	return 0;
}

static void ipmi_describe(const void *conf, char *buf, size_t len)
{
	const struct ipmi_conf *c = conf;

	snprintf(buf, len, "%s", c->lan ? c->host : c->device);
}

static void ipmi_check(const void *conf,
		       void (*bad)(const char *what, const char *why))
{
	const struct ipmi_conf *c = conf;
	char err[PT_IPMI_ERRLEN];
	struct pt_ipmi_creds cr;
	struct stat st;
	int r;

	if (!c->lan) {
		/* the kernel's IPMI device: ipmi_si finds the BMC, ipmi_devintf
		 * makes the node; without them every switch fails in preflight */
		if (stat(c->device, &st) < 0)
			bad(c->device, errno == ENOENT ?
			    "no such device (modprobe ipmi_si ipmi_devintf)" :
			    strerror(errno));
		else if (!S_ISCHR(st.st_mode))
			bad(c->device, "not a character device");
		else
			printf("bmc:      in-band %s\n", c->device);
		return;
	}
	r = pt_ipmi_creds_load(c->creds, &cr, err, sizeof(err));
	if (r) {
		bad("credentials", err[0] ? err : strerror(-r));
		return;
	}
	/* what pt_ipmi_open_lan() will use: 0 and -1 are its defaults */
	printf("bmc:      RMCP+ %s:%u, cipher suite %d, user \"%s\" from %s\n",
	       c->host, c->port ? c->port : 623,
	       c->cipher < 0 ? PT_IPMI_DEFAULT_CIPHER_SUITE : c->cipher, cr.user,
	       c->creds);
	pt_ipmi_creds_wipe(&cr);
}

static int ipmi_open(const void *conf, const struct pt_platform *p,
		     void **session, char *err, size_t len)
{
	const struct ipmi_conf *c = conf;
	struct pt_ipmi_opts opts = { .timeout_ms = c->timeout_ms };
	struct pt_ipmi_creds creds;
	struct pt_ipmi *h = NULL;
	int r;

	(void)p;
	pthread_mutex_lock(&ipmi_lock);
	if (!c->lan) {
		r = pt_ipmi_open_inband(&h, c->device, &opts, err, len);
		goto out;
	}
	r = pt_ipmi_creds_load(c->creds, &creds, err, len);
	if (r)
		goto out;
	r = pt_ipmi_open_lan(&h, c->host, c->port, &creds, c->cipher, &opts,
			     err, len);
	pt_ipmi_creds_wipe(&creds);
out:
	pthread_mutex_unlock(&ipmi_lock);
	if (!r)
		*session = h;
	return r;
}

static void ipmi_close(void *session)
{
	pthread_mutex_lock(&ipmi_lock);
	pt_ipmi_close(session);
	pthread_mutex_unlock(&ipmi_lock);
}

static const char *ipmi_name(const void *session)
{
	return pt_ipmi_name(session);
}

/*
 * What IPMI calls transient (IPMI 2.0 table 5-2): 0xC0 node busy, 0xC3
 * timeout while processing, 0xD2 BMC initialization in progress (a BMC
 * coming back from a reset answers that for a minute or more). A request
 * answered so may be sent again once the BMC is ready.
 */
static bool cc_transient(uint8_t cc)
{
	return cc == 0xC0 || cc == 0xC3 || cc == 0xD2;
}

/* bmc_backend.h's -EAGAIN: err is what the BMC is waited for, short (the
 * phase message says "BMC not ready (that): waited N s"). */
static int transient(int r, uint8_t cc, const struct pt_ipmi *h, char *err,
		     size_t len)
{
	if (r == -ETIMEDOUT)
		snprintf(err, len, "no answer");
	else if (r == -EAGAIN)	/* the LAN session refused while it starts */
		snprintf(err, len, "%s", pt_ipmi_errmsg(h));
	else
		snprintf(err, len, "0x%02X %s", cc, pt_ipmi_cc_str(cc));
	return -EAGAIN;
}

static int ipmi_status(void *session, const struct pt_platform *p,
		       struct pt_plat_job *job, char *err, size_t len)
{
	const struct pt_plat_req *q = &pt_plat_ipmi(p)->status.request;
	struct pt_ipmi *h = session;
	uint8_t rsp[64], cc = 0;
	size_t n = 0;
	int r;

	pthread_mutex_lock(&ipmi_lock);
	r = pt_ipmi_cmd(h, q->netfn, q->cmd, PT_IPMI_F_RETRY, q->data,
			q->len, rsp, sizeof(rsp), &n, &cc);
	/* a status is a read: any transient answer, and none at all (a BMC
	 * resetting; a LAN session it refuses while it starts, -EAGAIN), is
	 * asked again */
	if (r == -ETIMEDOUT || r == -EAGAIN ||
	    (r == -EREMOTEIO && cc_transient(cc)))
		r = transient(r, cc, h, err, len);
	else if (r)
		snprintf(err, len, "status: %s", pt_ipmi_errmsg(h));
	pthread_mutex_unlock(&ipmi_lock);
	if (r)
		return r;
	return pt_plat_ipmi_decode_status(p, rsp, n, job, err, len);
}

static int ipmi_select(void *session, const struct pt_platform *p,
		       enum pcitopo_layout l, int *sent, char *err, size_t len)
{
	const struct pt_plat_req *q = &pt_plat_ipmi(p)->layouts[l].select;
	struct pt_ipmi *h = session;
	uint8_t rsp[64], cc = 0;
	size_t n = 0;
	int r;

	pthread_mutex_lock(&ipmi_lock);
	/* never PT_IPMI_F_RETRY: a Select is sent once */
	r = pt_ipmi_cmd(h, q->netfn, q->cmd, 0, q->data, q->len, rsp,
			sizeof(rsp), &n, &cc);
	if (r == -EAGAIN || (r == -EREMOTEIO && (cc == 0xC0 || cc == 0xD2))) {
		/* node busy, initializing, or no session yet: refused before
		 * it acted, so it may be sent again (bmc.c does) */
		*sent = 0;
		r = transient(r, cc, h, err, len);
	} else if (r == -EREMOTEIO && cc == 0xC3) {
		/* 0xC3: it timed out processing it (the kernel's in-band
		 * driver also answers so for a BMC that never did): it may
		 * have acted, so it is not sent again; the status says */
		snprintf(err, len, "select %s: %s", ptc_layout_name(l),
			 pt_ipmi_errmsg(h));
		r = -ETIMEDOUT;
	} else if (r) {
		snprintf(err, len, "select %s: %s", ptc_layout_name(l),
			 pt_ipmi_errmsg(h));
		if (r == -EREMOTEIO)
			*sent = 0;	/* refused: it did nothing */
	}
	pthread_mutex_unlock(&ipmi_lock);
	return r;
}

static int ipmi_power_cycle(void *session, char *err, size_t len)
{
	static const uint8_t cycle = 0x02;	/* Chassis Control: power cycle */
	struct pt_ipmi *h = session;
	uint8_t cc = 0;
	int r;

	pthread_mutex_lock(&ipmi_lock);
	r = pt_ipmi_cmd(h, 0x00, 0x02, 0, &cycle, 1, NULL, 0, NULL, &cc);
	if (r == -EAGAIN || (r == -EREMOTEIO && (cc == 0xC0 || cc == 0xD2))) {
		/* refused before it acted: may be sent again */
		r = transient(r, cc, h, err, len);
	} else if (r == -EREMOTEIO && cc == 0xC3) {
		/* may have acted: never sent twice (power_cycle() takes a
		 * timeout as requested) */
		snprintf(err, len, "chassis power cycle: %s",
			 pt_ipmi_errmsg(h));
		r = -ETIMEDOUT;
	} else if (r) {
		snprintf(err, len, "chassis power cycle: %s",
			 pt_ipmi_errmsg(h));
	}
	pthread_mutex_unlock(&ipmi_lock);
	return r;
}

static const char *const ipmi_kinds[] = { "inband", "lan", NULL };

const struct bmc_ops bmc_ipmi = {
	.transport = &pt_plat_ipmi_transport,
	.kinds = ipmi_kinds,
	.conf = ipmi_conf,
	.describe = ipmi_describe,
	.check = ipmi_check,
	.open = ipmi_open,
	.close = ipmi_close,
	.name = ipmi_name,
	.status = ipmi_status,
	.select = ipmi_select,
	.power_cycle = ipmi_power_cycle,
};
