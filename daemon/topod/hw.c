// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the host side of a switch (hw.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bmc.h"
#include "hw.h"
#include "nl.h"

struct hw {
	const struct tconfig *cfg;
	const struct pt_platform *plat;
	struct pt_nl *nl;		/* requests (module) */
	struct pt_nl *mon;		/* events (module), may be NULL */
	char fake_flag[4096];		/* fake: "detached" flag file */
};

int hw_open(const struct tconfig *c, const struct pt_platform *p,
	    bool monitor, struct hw **out, char *err, size_t len)
{
	struct hw *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return -ENOMEM;
	h->cfg = c;
	h->plat = p;
	if (c->fake_hw) {
		snprintf(h->fake_flag, sizeof(h->fake_flag), "%.4000s/fake-detached",
			 c->state_dir);
		*out = h;
		return 0;
	}
	r = pt_nl_open(&h->nl);
	if (r) {
		snprintf(err, len, r == -ENOENT ?
			 "pcitopo module not loaded (modprobe pcitopo)" :
			 "generic netlink: %s", strerror(-r));
		free(h);
		return r;
	}
	if (monitor) {
		r = pt_nl_monitor_open(&h->mon);
		if (r) {
			snprintf(err, len, "module events: %s", strerror(-r));
			pt_nl_close(h->nl);
			free(h);
			return r;
		}
	}
	*out = h;
	return 0;
}

void hw_close(struct hw *h)
{
	if (!h)
		return;
	pt_nl_close(h->nl);
	pt_nl_close(h->mon);
	free(h);
}

int hw_fd(const struct hw *h)
{
	return h->mon ? pt_nl_monitor_fd(h->mon) : -1;
}

int hw_drain(struct hw *h)
{
	struct pt_event ev;
	int any = 0, r;

	if (!h->mon)
		return 0;
	while ((r = pt_nl_monitor_read(h->mon, &ev)) != -EAGAIN) {
		if (r == -ENOBUFS || !r)
			any = 1;
		else
			break;
	}
	return any;
}

/* --- the stand-in ------------------------------------------------------ */

static int fake_detached(const struct hw *h)
{
	return access(h->fake_flag, F_OK) == 0;
}

static int fake_snapshot(struct hw *h, struct hw_snap *s, char *err,
			 size_t len)
{
	char line[256];
	int cur = -1;
	FILE *f = fopen(h->cfg->fake_bmc_state, "re");

	if (!f) {
		snprintf(err, len, "%s: %m", h->cfg->fake_bmc_state);
		return -errno;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "current=", 8))
			cur = atoi(line + 8);
	fclose(f);
	memset(s, 0, sizeof(*s));
	s->ngpus = 8;
	for (unsigned int i = 0; i < 8; i++) {
		snprintf(s->gpus[i].addr, PCITOPO_ADDR_LEN, "0000:%02x:00.0",
			 0x23 + i);
		snprintf(s->gpus[i].parent, PCITOPO_ADDR_LEN, "0000:%02x:00.0",
			 0x13 + i);
		s->gpus[i].link_max_speed = 2500;
		s->gpus[i].link_max_width = 1;
		s->gpus[i].link_flags = PCITOPO_LINK_F_PRESENT |
					PCITOPO_LINK_F_ACTIVE;
	}
	if (fake_detached(h)) {
		unsigned int n = 0;

		for (unsigned int i = 0; i < 8; i++) {
			bool moves = false;

			for (unsigned int k = 0; k < h->plat->ngpus; k++)
				moves |= h->plat->gpus[k] == i;
			if (!moves)
				s->gpus[n++] = s->gpus[i];
		}
		s->ngpus = n;
		s->layout = PCITOPO_LAYOUT_OTHER;
		snprintf(s->reason, sizeof(s->reason), "%u GPUs", n);
	} else if (cur >= PCITOPO_LAYOUT_BALANCE &&
		   cur <= PCITOPO_LAYOUT_CASCADE) {
		s->layout = (enum pcitopo_layout)cur;
		snprintf(s->reason, sizeof(s->reason), "stand-in: BMC state");
	} else {
		s->layout = PCITOPO_LAYOUT_UNKNOWN;
	}
	return 0;
}

/* --- the module -------------------------------------------------------- */

int hw_snapshot(struct hw *h, struct hw_snap *s, char *err, size_t len)
{
	struct pt_topology t = { 0 };
	int r;

	if (h->cfg->fake_hw)
		return fake_snapshot(h, s, err, len);
	memset(s, 0, sizeof(*s));
	for (int tries = 0; tries < PT_NL_RETRIES; tries++) {
		pt_topology_free(&t);
		r = pt_nl_get_summary(h->nl, &t.summary);
		if (!r)
			r = pt_nl_dump_devices(h->nl, &t);
		if (r == -EAGAIN || (!r && t.generation &&
				     t.generation != t.summary.generation))
			continue;
		break;
	}
	if (r) {
		snprintf(err, len, "module: %s", strerror(-r));
		pt_topology_free(&t);
		return r;
	}
	pt_topology_sort(&t);
	s->layout = t.summary.layout;
	snprintf(s->reason, sizeof(s->reason), "%s", t.summary.reason);
	s->generation = t.summary.generation;
	for (size_t i = 0; i < t.n_devices && s->ngpus < HW_MAX_GPUS; i++) {
		const struct pt_device *d = &t.devices[i];
		struct hw_gpu *g;

		if (d->role != PCITOPO_ROLE_ENDPOINT ||
		    d->kind != PCITOPO_KIND_GPU)
			continue;
		g = &s->gpus[s->ngpus++];
		memcpy(g->addr, d->addr, sizeof(g->addr));
		memcpy(g->parent, d->parent, sizeof(g->parent));
		g->link_max_speed = d->link_max_speed;
		g->link_max_width = d->link_max_width;
		g->link_flags = d->link_flags;
	}
	pt_topology_free(&t);
	return 0;
}

int hw_detach(struct hw *h, const char *port, char *err, size_t len)
{
	int r;

	if (h->cfg->fake_hw) {
		int fd = open(h->fake_flag, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0)
			return -errno;
		fsync(fd);
		close(fd);
		return 0;
	}
	r = pt_nl_detach(h->nl, port);
	if (r)
		snprintf(err, len, "detach %s: %s%s%s", port, strerror(-r),
			 pt_nl_last_error(h->nl) ? ": " : "",
			 pt_nl_last_error(h->nl) ? pt_nl_last_error(h->nl) : "");
	return r;
}

int hw_rescan(struct hw *h, char *err, size_t len)
{
	int r;

	if (h->cfg->fake_hw) {
		if (unlink(h->fake_flag) < 0 && errno != ENOENT)
			return -errno;
		return 0;
	}
	r = pt_nl_rescan(h->nl, NULL);
	if (r)
		snprintf(err, len, "rescan: %s", strerror(-r));
	return r;
}

int hw_wait(struct hw *h, enum pcitopo_layout want, unsigned int gpus,
	    unsigned int budget_ms, struct hw_snap *s, char *err, size_t len)
{
	uint64_t deadline = now_usec() + (uint64_t)budget_ms * 1000u;
	int r;

	for (;;) {
		uint64_t now;
		int wait_ms;

		r = hw_snapshot(h, s, err, len);
		if (r)
			return r;
		if (s->layout == want && s->ngpus >= gpus)
			return 0;
		now = now_usec();
		if (now >= deadline) {
			snprintf(err, len,
				 "after %u ms: layout %s (%s), %u of %u GPUs",
				 budget_ms,
				 s->layout ? (pt_platform_layout_name(s->layout) ?
					      pt_platform_layout_name(s->layout) :
					      "other") : "unknown",
				 s->reason, s->ngpus, gpus);
			return -ETIMEDOUT;
		}
		wait_ms = (int)((deadline - now) / 1000u);
		if (h->mon) {
			struct pollfd pfd = { .fd = hw_fd(h), .events = POLLIN };

			/* events wake us; the 1 s cap only guards against a
			 * missed one during the wait */
			(void)poll(&pfd, 1, wait_ms > 1000 ? 1000 : wait_ms);
			(void)hw_drain(h);
		} else {
			sleep_ms(wait_ms > 100 ? 100 : (unsigned int)wait_ms);
		}
	}
}

int hw_unbind(struct hw *h, const char *addr, char *err, size_t len)
{
	char path[PATH_MAX];
	int fd, e;
	ssize_t n;

	if (h->cfg->fake_hw)
		return 0;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind",
		 addr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT)
			return 0;	/* no driver bound */
		snprintf(err, len, "unbind %s: %s", addr, strerror(e));
		return -e;
	}
	n = write(fd, addr, strlen(addr));
	e = errno;
	close(fd);
	if (n < 0) {
		snprintf(err, len, "unbind %s: %s", addr, strerror(e));
		return -e;
	}
	return 1;
}

int hw_reprobe(struct hw *h, const char *addr, char *err, size_t len)
{
	int fd, e;
	ssize_t n;

	if (h->cfg->fake_hw)
		return 0;
	fd = open("/sys/bus/pci/drivers_probe", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(err, len, "drivers_probe: %s", strerror(e));
		return -e;
	}
	n = write(fd, addr, strlen(addr));
	e = errno;
	close(fd);
	/* ENODEV: detached, and the rescan will add and probe it */
	if (n < 0 && e != ENODEV) {
		snprintf(err, len, "drivers_probe %s: %s", addr, strerror(e));
		return -e;
	}
	return 0;
}

int hw_moving(const struct pt_platform *p, const struct hw_snap *s,
	      char devs[][PCITOPO_ADDR_LEN], unsigned int maxdevs,
	      char ports[][PCITOPO_ADDR_LEN], unsigned int maxports,
	      unsigned int *nports)
{
	unsigned int n = 0;

	*nports = 0;
	for (unsigned int i = 0; i < s->ngpus; i++) {
		const struct hw_gpu *g = &s->gpus[i];
		bool moves = false;

		for (unsigned int k = 0; k < p->ngpus; k++)
			moves |= p->gpus[k] == i;
		for (unsigned int k = 0; k < p->naddrs; k++)
			moves |= !strcmp(p->addrs[k], g->addr);
		if (!moves || n >= maxdevs)
			continue;
		memcpy(devs[n++], g->addr, PCITOPO_ADDR_LEN);
		if (g->parent[0]) {
			bool seen = false;

			for (unsigned int k = 0; k < *nports; k++)
				seen |= !strcmp(ports[k], g->parent);
			if (!seen && *nports < maxports)
				memcpy(ports[(*nports)++], g->parent,
				       PCITOPO_ADDR_LEN);
		}
	}
	return (int)n;
}

int hw_add_ids(struct hw *h, const struct pt_platform *p)
{
	int r;

	if (!h->nl)
		return 0;
	for (unsigned int i = 0; i < p->nids; i++) {
		r = pt_nl_add_id(h->nl, p->gpu_ids[i].vendor,
				 p->gpu_ids[i].device, PCITOPO_KIND_GPU);
		if (r && r != -EEXIST)
			return r;
	}
	return 0;
}
