// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the host side of a switch (hostside.h).
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
#include "hostside.h"
#include "journal.h"
#include "nl.h"

struct hw {
	const struct tconfig *cfg;
	const struct pt_platform *plat;
	struct pt_nl *nl;		/* requests (module) */
	struct pt_nl *mon;		/* events (module), may be NULL */
	char fake_flag[4096];		/* fake: the ports detached */
};

/*
 * The stand-in ("hardware = fake") keeps what the kernel would in the state
 * dir, so that it survives a SIGKILL of topod:
 *   fake-detached   the ports detached, one a line: their GPUs are absent
 *   fake-unbound    the GPUs without a driver (all others have "fake-gpu");
 *                   a rescan probes what it adds, not what stayed, as the
 *                   kernel does
 *   fake-layout     (tests) the layout the "module" reports while nothing
 *                   is detached, whatever the BMC says: a MUX that did not
 *                   move
 *   fake-link-x0    (tests) a layout: in it, the moving GPUs' links are x0
 *   fake-boot-id    (tests) the boot id, for "the host went down"
 */
#define FAKE_UNBOUND	"fake-unbound"
#define FAKE_DRIVER	"fake-gpu"
#define FAKE_MAX_LINES	64

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

/* Lines of state_dir/name into lines[]; the count (0 if absent). */
static unsigned int fake_lines(const struct hw *h, const char *name,
			       char lines[][PCITOPO_ADDR_LEN + 8])
{
	char path[4200], buf[256];
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", h->cfg->state_dir, name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (n < FAKE_MAX_LINES && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (*buf)
			tcopy(lines[n++], PCITOPO_ADDR_LEN + 8, buf);
	}
	fclose(f);
	return n;
}

static bool fake_listed(const struct hw *h, const char *name, const char *item)
{
	char lines[FAKE_MAX_LINES][PCITOPO_ADDR_LEN + 8];
	unsigned int n = fake_lines(h, name, lines);

	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(lines[i], item))
			return true;
	return false;
}

/* Add item to (add) or take it from the list state_dir/name, atomically. */
static int fake_list_set(const struct hw *h, const char *name,
			 const char *item, bool add)
{
	char lines[FAKE_MAX_LINES][PCITOPO_ADDR_LEN + 8], buf[FAKE_MAX_LINES *
	     (PCITOPO_ADDR_LEN + 9)];
	unsigned int n = fake_lines(h, name, lines);
	size_t len = 0;
	bool there = false;

	for (unsigned int i = 0; i < n; i++) {
		if (!strcmp(lines[i], item)) {
			there = true;
			if (!add)
				continue;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s\n",
					lines[i]);
	}
	if (add && !there && n < FAKE_MAX_LINES)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s\n",
					item);
	if (there == add)
		return 0;
	return tj_atomic_write(h->cfg->state_dir, name, buf, len);
}

static int fake_detached(const struct hw *h)
{
	return access(h->fake_flag, F_OK) == 0;
}

/* a small number in state_dir/name, -1 if absent */
static int fake_number(const struct hw *h, const char *name)
{
	char lines[FAKE_MAX_LINES][PCITOPO_ADDR_LEN + 8];

	return fake_lines(h, name, lines) ? atoi(lines[0]) : -1;
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
	if (fake_number(h, "fake-layout") >= 0 && !fake_detached(h))
		cur = fake_number(h, "fake-layout");
	if (cur == fake_number(h, "fake-link-x0"))
		for (unsigned int k = 0; k < h->plat->ngpus; k++)
			if (h->plat->gpus[k] < 8)
				s->gpus[h->plat->gpus[k]].link_max_width = 0;
	if (fake_detached(h)) {
		unsigned int n = 0;

		/* a GPU whose port is detached is gone */
		for (unsigned int i = 0; i < 8; i++)
			if (!fake_listed(h, "fake-detached", s->gpus[i].parent))
				s->gpus[n++] = s->gpus[i];
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
		r = fake_list_set(h, "fake-detached", port, true);
		if (r)
			snprintf(err, len, "detach %s: %s", port, strerror(-r));
		return r;
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
		char ports[FAKE_MAX_LINES][PCITOPO_ADDR_LEN + 8];
		unsigned int n = fake_lines(h, "fake-detached", ports);

		/* what comes back is probed: its driver binds (the kernel's
		 * probe at add); what stayed unbound stays so */
		for (unsigned int i = 0; i < 8; i++) {
			char addr[PCITOPO_ADDR_LEN], parent[PCITOPO_ADDR_LEN];

			snprintf(addr, sizeof(addr), "0000:%02x:00.0", 0x23 + i);
			snprintf(parent, sizeof(parent), "0000:%02x:00.0",
				 0x13 + i);
			for (unsigned int k = 0; k < n; k++)
				if (!strcmp(ports[k], parent))
					(void)fake_list_set(h, FAKE_UNBOUND,
							    addr, false);
		}
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
		/* every GPU back: the tree is complete, and so is the
		 * module's verdict on it. A layout that is not the one asked
		 * for will not become it by waiting (a MUX that reported
		 * done without moving anything): verify says so at once. */
		if (s->ngpus >= gpus)
			return 0;
		now = now_usec();
		if (now >= deadline) {
			snprintf(err, len,
				 "after %u ms: layout %s (%s), %u of %u GPUs (%s wanted)",
				 budget_ms,
				 s->layout ? (pt_platform_layout_name(s->layout) ?
					      pt_platform_layout_name(s->layout) :
					      "other") : "unknown",
				 s->reason, s->ngpus, gpus,
				 pt_platform_layout_name(want) ?
				 pt_platform_layout_name(want) : "?");
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

	if (h->cfg->fake_hw) {
		char drv[TJ_DRV_LEN];

		if (hw_driver(h, addr, drv, sizeof(drv)) <= 0)
			return 0;
		e = fake_list_set(h, FAKE_UNBOUND, addr, true);
		if (e)
			snprintf(err, len, "unbind %s: %s", addr, strerror(-e));
		return e ? e : 1;
	}
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

/* drivers_probe: the driver core offers addr to every driver */
static int reprobe(const char *addr)
{
	int fd, e = 0;

	fd = open("/sys/bus/pci/drivers_probe", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, addr, strlen(addr)) < 0)
		e = -errno;
	close(fd);
	return e;
}

static bool fake_present(struct hw *h, const char *addr)
{
	struct hw_snap s;
	char err[256];

	if (fake_snapshot(h, &s, err, sizeof(err)))
		return false;
	for (unsigned int i = 0; i < s.ngpus; i++)
		if (!strcmp(s.gpus[i].addr, addr))
			return true;
	return false;
}

int hw_driver(struct hw *h, const char *addr, char *drv, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;
	const char *base;

	*drv = '\0';
	if (h->cfg->fake_hw) {
		if (!fake_present(h, addr) || fake_listed(h, FAKE_UNBOUND, addr))
			return 0;
		tcopy(drv, len, FAKE_DRIVER);
		return 1;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", addr);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	link[n] = '\0';
	base = strrchr(link, '/');
	tcopy(drv, len, base ? base + 1 : link);
	return 1;
}

int hw_bind(struct hw *h, const char *addr, const char *driver, char *err,
	    size_t len)
{
	char path[PATH_MAX], drv[TJ_DRV_LEN];
	int fd, e = 0, r;

	if (h->cfg->fake_hw) {
		if (!fake_present(h, addr))
			return 0;
		e = fake_list_set(h, FAKE_UNBOUND, addr, false);
		if (e)
			snprintf(err, len, "bind %s to %s: %s", addr, driver,
				 strerror(-e));
		return e ? e : 1;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", addr);
	if (access(path, F_OK) < 0)
		return 0;	/* not there (any more): nothing to bind */
	r = hw_driver(h, addr, drv, sizeof(drv));
	if (r > 0)
		return 1;	/* the kernel's probe at add was first */
	/* the driver it had, by name: drivers_probe alone could pick
	 * another one that claims the ID (vfio-pci, a stub) */
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/%s/bind", driver);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, addr, strlen(addr)) < 0)
			e = -errno;
		close(fd);
	} else {
		/* the driver went away (its module unloaded): let any
		 * driver that matches have it rather than none */
		e = -errno;
		if (reprobe(addr) == 0)
			e = 0;
	}
	r = hw_driver(h, addr, drv, sizeof(drv));
	if (r > 0)
		return 1;
	snprintf(err, len, "%s has no driver: bind to %s: %s", addr, driver,
		 strerror(e ? -e : ENODEV));
	return e ? e : -ENODEV;
}

int hw_boot_id(const struct tconfig *c, char *buf, size_t len)
{
	char path[4200];
	FILE *f = NULL;

	if (c->fake_hw) {
		snprintf(path, sizeof(path), "%s/fake-boot-id", c->state_dir);
		f = fopen(path, "re");
	}
	if (!f)
		f = fopen("/proc/sys/kernel/random/boot_id", "re");
	*buf = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		*buf = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return *buf ? 0 : -ENODATA;
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
