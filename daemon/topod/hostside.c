// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the host side of a switch (hostside.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/pci_regs.h>

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
 *   fake-slots-off  the ports whose slots are powered off, one a line: their
 *                   GPUs are absent, and a rescan does not bring them back
 *                   (the stand-in's ports all have power control)
 *   fake-unbound    the GPUs without a driver (all others have "fake-gpu");
 *                   a rescan probes what it adds, not what stayed, as the
 *                   kernel does
 *   fake-layout     (tests) the layout the "module" reports while nothing
 *                   is detached, whatever the BMC says: a MUX that did not
 *                   move
 *   fake-link-x0    (tests) a layout: in it, the moving GPUs' links are x0
 *   fake-boot-id    (tests) the boot id, for "the host went down"
 *   fake-missing    (tests) layouts, one a line: in them, the last moving
 *                   GPU does not come back (7 GPUs, layout other)
 *   fake-no-slot    (tests) ports, one a line, without a hotplug slot: their
 *                   link is disabled instead (Link Disable, which takes
 *                   CAP_SYS_ADMIN, as on the real host), and what a clear
 *                   brings back only a rescan enumerates
 * A slot powered on is enumerated at once (pciehp does that on the real
 * host): its port is no longer detached and its GPU is probed.
 */
#define FAKE_UNBOUND	"fake-unbound"
#define FAKE_SLOTS_OFF	"fake-slots-off"
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

static unsigned int fake_count(const struct hw *h, const char *name)
{
	char lines[FAKE_MAX_LINES][PCITOPO_ADDR_LEN + 8];

	return fake_lines(h, name, lines);
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
	if (fake_detached(h) || fake_count(h, FAKE_SLOTS_OFF)) {
		unsigned int n = 0;

		/* a GPU whose port is detached, or its slot off, is gone */
		for (unsigned int i = 0; i < 8; i++)
			if (!fake_listed(h, "fake-detached", s->gpus[i].parent) &&
			    !fake_listed(h, FAKE_SLOTS_OFF, s->gpus[i].parent))
				s->gpus[n++] = s->gpus[i];
		s->ngpus = n;
		s->layout = PCITOPO_LAYOUT_OTHER;
		snprintf(s->reason, sizeof(s->reason), "%u GPUs", n);
	} else if (cur >= 0 && ptc_layout_switchable((u8)cur)) {
		s->layout = (enum pcitopo_layout)cur;
		snprintf(s->reason, sizeof(s->reason), "stand-in: BMC state");
	} else {
		s->layout = PCITOPO_LAYOUT_UNKNOWN;
	}
	snprintf(line, sizeof(line), "%d", cur);
	if (h->plat->ngpus && fake_listed(h, "fake-missing", line)) {
		unsigned int gone = h->plat->gpus[h->plat->ngpus - 1], n = 0;

		for (unsigned int i = 0; i < s->ngpus; i++)
			if (i != gone)
				s->gpus[n++] = s->gpus[i];
		if (n < s->ngpus) {
			s->ngpus = n;
			s->layout = PCITOPO_LAYOUT_OTHER;
			snprintf(s->reason, sizeof(s->reason), "%u GPUs", n);
		}
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
				if (!strcmp(ports[k], parent) &&
				    !fake_listed(h, FAKE_SLOTS_OFF, parent))
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
	    unsigned int budget_ms, unsigned int rescan_ms, struct hw_snap *s,
	    char *err, size_t len)
{
	uint64_t start = now_usec(), deadline = start +
			 (uint64_t)budget_ms * 1000u, progress = start;
	unsigned int seen = 0;
	bool rescanned = !rescan_ms;
	int r;

	for (;;) {
		uint64_t now, until;
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
		if (s->ngpus > seen) {
			seen = s->ngpus;
			progress = now;
		}
		/* GPUs missing and none arrived for rescan_ms, or the budget
		 * spent: one rescan, for a GPU that no hotplug slot of the
		 * kernel's enumerates (it does not hurry pciehp: both take
		 * the same lock) */
		if (!rescanned && (now >= progress + (uint64_t)rescan_ms * 1000u ||
				   now >= deadline)) {
			rescanned = true;
			tlog(LOG_NOTICE, "%u of %u GPUs after %llu ms, none new for "
			     "%llu ms: rescanning", s->ngpus, gpus,
			     (unsigned long long)(now - start) / 1000u,
			     (unsigned long long)(now - progress) / 1000u);
			fault_point("hw_rescan");
			r = hw_rescan(h, err, len);
			if (r)
				return r;
			continue;
		}
		if (now >= deadline) {
			snprintf(err, len,
				 "after %u ms: layout %s (%s), %u of %u GPUs (%s wanted)",
				 budget_ms,
				 ptc_layout_name(s->layout), s->reason,
				 s->ngpus, gpus, ptc_layout_name(want));
			return -ETIMEDOUT;
		}
		until = deadline;
		if (!rescanned &&
		    progress + (uint64_t)rescan_ms * 1000u < until)
			until = progress + (uint64_t)rescan_ms * 1000u;
		wait_ms = (int)((until - now + 999u) / 1000u);
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

/* --- slots: taken down before the lanes change ------------------------ */

/* Whether topod holds CAP_SYS_ADMIN (CapEff in /proc/self/status): the
 * kernel gives a PCI device's config space past its first 64 bytes (the
 * PCIe capability, Link Control) only to it. */
static bool has_sys_admin(void)
{
	unsigned long long eff = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << 21);	/* CAP_SYS_ADMIN */
}

static int cfg_open(const char *port, int flags)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", port);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int cfg_read(int fd, unsigned int off, void *buf, size_t n)
{
	ssize_t r = pread(fd, buf, n, off);

	if (r < 0)
		return -errno;
	return (size_t)r == n ? 0 : -EIO;
}

/* Offset of port's PCIe capability, 0 if it has none (or -errno). */
static int pcie_cap(int fd)
{
	uint16_t status;
	uint8_t pos, hdr[2];
	int guard = 48, r;

	r = cfg_read(fd, PCI_STATUS, &status, sizeof(status));
	if (r)
		return r;
	if (!(status & PCI_STATUS_CAP_LIST))
		return 0;		/* no capability list */
	r = cfg_read(fd, PCI_CAPABILITY_LIST, &pos, 1);
	while (!r && pos >= 0x40 && guard--) {
		r = cfg_read(fd, pos & ~3u, hdr, sizeof(hdr));
		if (r)
			break;
		if (hdr[0] == PCI_CAP_ID_EXP)
			return pos & ~3;
		pos = hdr[1];
	}
	return r ? r : 0;
}

/* The pciehp slot whose bus is port's secondary bus (sysfs only: no
 * config read, which needs CAP_SYS_ADMIN beyond 64 bytes), into dir: 0, or
 * -ENOENT when the port has no hotplug slot the kernel drives. */
static int slot_dir(const char *port, char *dir, size_t len)
{
	char want[32] = "", path[PATH_MAX], buf[64];
	struct dirent *de;
	DIR *d;
	int r;

	/* the port's secondary bus: pci_bus/DDDD:BB */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/pci_bus", port);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ENOENT : -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strlen(de->d_name) < 16)
			snprintf(want, sizeof(want), "%s:00", de->d_name);
	closedir(d);
	if (!*want)
		return -ENOENT;
	/* a slot's address is DOMAIN:BUS:SLOT of what sits in it */
	d = opendir("/sys/bus/pci/slots");
	if (!d)
		return -ENOENT;
	r = -ENOENT;
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/slots/%s/address",
			 de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		if (strcmp(buf, want))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/slots/%s/power",
			 de->d_name);
		if (access(path, F_OK))
			continue;	/* a slot, but no hotplug driver on it */
		snprintf(dir, len, "/sys/bus/pci/slots/%s", de->d_name);
		r = 0;
		break;
	}
	closedir(d);
	return r;
}

int hw_slot_how(struct hw *h, const char *port)
{
	char dir[PATH_MAX];
	uint16_t flags = 0;
	uint32_t sltcap = 0;
	bool slot, cfg_ok = false;
	int fd, cap = 0, type = 0;

	if (h->cfg->fake_hw && fake_listed(h, "fake-no-slot", port))
		return has_sys_admin() ? TJ_SLOT_LINK : -EPERM;
	if (h->cfg->fake_hw)
		return TJ_SLOT_POWER;
	slot = !slot_dir(port, dir, sizeof(dir));
	fd = cfg_open(port, O_RDONLY);
	if (fd >= 0) {
		cap = pcie_cap(fd);
		if (cap > 0 &&
		    !cfg_read(fd, (unsigned int)cap + PCI_EXP_FLAGS, &flags,
			      sizeof(flags)) &&
		    (!(flags & PCI_EXP_FLAGS_SLOT) ||
		     !cfg_read(fd, (unsigned int)cap + PCI_EXP_SLTCAP, &sltcap,
			       sizeof(sltcap))))
			cfg_ok = true;
		close(fd);
	}
	type = (flags & PCI_EXP_FLAGS_TYPE) >> 4;
	/* pciehp's power file: where the config space cannot be read (it
	 * takes CAP_SYS_ADMIN past 64 bytes) pciehp's word is taken that it
	 * powers the slot off; where it can, a slot without a power
	 * controller has its link disabled instead */
	if (slot && (!cfg_ok || (sltcap & PCI_EXP_SLTCAP_PCP)))
		return TJ_SLOT_POWER;
	/* no slot, and the PCIe capability unread: a short read past 64
	 * bytes without CAP_SYS_ADMIN, not a port without one */
	if (!cfg_ok && fd >= 0 && !has_sys_admin())
		return -EPERM;
	if (!cfg_ok)
		return fd < 0 ? fd : cap < 0 ? cap : -EOPNOTSUPP;
	if (type == PCI_EXP_TYPE_ROOT_PORT || type == PCI_EXP_TYPE_DOWNSTREAM)
		return TJ_SLOT_LINK;
	return -EOPNOTSUPP;
}

/* 0/1 from a slot's attribute file (power, adapter), -errno */
static int slot_read(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[8] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] == '1' ? 1 : buf[0] == '0' ? 0 : -EIO;
}

static int slot_power(const char *dir, bool on)
{
	char path[PATH_MAX];
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/power", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* pciehp answers once the slot is off (it waits the 1 s the spec
	 * asks after a power off) or on and its device enumerated */
	if (write(fd, on ? "1" : "0", 1) < 0)
		e = -errno;
	close(fd);
	/* -ENODEV: pciehp was already there (its own presence-detect
	 * handling, or an earlier call): the state is what counts */
	if (e && slot_read(dir, "power") == (on ? 1 : 0))
		e = 0;
	return e;
}

/* Set or clear port's Link Disable; after a clear, wait for the link
 * (at most 1 s, then the 100 ms the spec gives the device) */
static int link_disable(const char *port, bool disable)
{
	uint16_t ctl, sta;
	uint32_t lnkcap;
	int fd, cap, r;

	fd = cfg_open(port, O_RDWR);
	if (fd < 0)
		return fd;
	cap = pcie_cap(fd);
	r = cap < 0 ? cap : cap ? 0 : -EOPNOTSUPP;
	if (!r)
		r = cfg_read(fd, (unsigned int)cap + PCI_EXP_LNKCTL, &ctl,
			     sizeof(ctl));
	if (!r && !!(ctl & PCI_EXP_LNKCTL_LD) != disable) {
		ctl = disable ? ctl | PCI_EXP_LNKCTL_LD : ctl & ~PCI_EXP_LNKCTL_LD;
		if (pwrite(fd, &ctl, sizeof(ctl), cap + PCI_EXP_LNKCTL) !=
		    sizeof(ctl))
			r = errno ? -errno : -EIO;
		if (!r && !disable &&
		    !cfg_read(fd, (unsigned int)cap + PCI_EXP_LNKCAP, &lnkcap,
			      sizeof(lnkcap)) && (lnkcap & PCI_EXP_LNKCAP_DLLLARC)) {
			for (int i = 0; i < 100; i++) {
				if (!cfg_read(fd, (unsigned int)cap +
					      PCI_EXP_LNKSTA, &sta, sizeof(sta)) &&
				    (sta & PCI_EXP_LNKSTA_DLLLA))
					break;
				sleep_ms(10);
			}
			sleep_ms(100);
		}
	}
	close(fd);
	return r;
}

struct slot_op {
	struct hw *h;
	const struct tj_slot *s;
	bool up;
	int r;			/* 0, 1 (came up), -errno */
	char err[160];
};

static void *slot_thread(void *arg)
{
	struct slot_op *o = arg;
	char dir[PATH_MAX];
	int r;

	o->r = 0;
	if (o->s->how == TJ_SLOT_LINK) {
		r = link_disable(o->s->port, !o->up);
		o->r = r ? r : o->up;
		if (r)
			snprintf(o->err, sizeof(o->err), "%s link %s %s: %s",
				 o->s->port, o->up ? "enable" : "disable",
				 o->up ? "(clear Link Disable)" :
				 "(set Link Disable)", strerror(-r));
		return NULL;
	}
	r = slot_dir(o->s->port, dir, sizeof(dir));
	if (!r && o->up) {
		/* an empty slot stays off: its GPU is elsewhere now */
		r = slot_read(dir, "adapter");
		if (r > 0)
			r = slot_read(dir, "power") == 1 ? 0 :
			    slot_power(dir, true);
		o->r = r < 0 ? r : slot_read(dir, "power") == 1;
	} else if (!r) {
		r = slot_read(dir, "power") == 0 ? 0 : slot_power(dir, false);
		o->r = r;
	} else {
		o->r = r;
	}
	if (o->r < 0)
		snprintf(o->err, sizeof(o->err), "%s slot power %s: %s",
			 o->s->port, o->up ? "on" : "off", strerror(-o->r));
	return NULL;
}

static int fake_slots(struct hw *h, const struct tj_slot *s, unsigned int n,
		      bool up, unsigned int *count, char *err, size_t len)
{
	for (unsigned int i = 0; i < n; i++) {
		int e = fake_list_set(h, FAKE_SLOTS_OFF, s[i].port, !up);

		if (e) {
			snprintf(err, len, "slot %s: %s", s[i].port,
				 strerror(-e));
			return e;
		}
		if (!up)
			continue;
		/* pciehp enumerates what it powers on (the module's detach
		 * is undone by it): probed. A cleared Link Disable brings
		 * the link back and nothing more: a rescan enumerates. */
		if (s[i].how == TJ_SLOT_POWER) {
			e = fake_list_set(h, "fake-detached", s[i].port, false);
			if (!e && !fake_count(h, "fake-detached"))
				e = unlink(h->fake_flag) < 0 && errno != ENOENT ?
				    -errno : 0;
			if (e) {
				snprintf(err, len, "slot %s: %s", s[i].port,
					 strerror(-e));
				return e;
			}
		}
		for (unsigned int g = 0; g < 8; g++) {
			char addr[PCITOPO_ADDR_LEN], parent[PCITOPO_ADDR_LEN];

			snprintf(addr, sizeof(addr), "0000:%02x:00.0", 0x23 + g);
			snprintf(parent, sizeof(parent), "0000:%02x:00.0",
				 0x13 + g);
			if (!strcmp(parent, s[i].port) &&
			    !fake_listed(h, "fake-detached", parent))
				(void)fake_list_set(h, FAKE_UNBOUND, addr, false);
		}
		(*count)++;
	}
	return 0;
}

static int slots_run(struct hw *h, const struct tj_slot *s, unsigned int n,
		     bool up, unsigned int *count, char *err, size_t len)
{
	struct slot_op ops[TJ_MAX_PORTS];
	pthread_t th[TJ_MAX_PORTS];
	bool started[TJ_MAX_PORTS] = { 0 };
	int first = 0;

	*count = 0;
	if (n > TJ_MAX_PORTS)
		return -E2BIG;
	if (h->cfg->fake_hw)
		return fake_slots(h, s, n, up, count, err, len);
	for (unsigned int i = 0; i < n; i++) {
		ops[i] = (struct slot_op){ .h = h, .s = &s[i], .up = up };
		/* without a thread, in this one: slower, not wrong */
		if (pthread_create(&th[i], NULL, slot_thread, &ops[i]))
			slot_thread(&ops[i]);
		else
			started[i] = true;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		if (ops[i].r < 0 && !first) {
			first = ops[i].r;
			snprintf(err, len, "%s", ops[i].err);
		}
		if (ops[i].r > 0)
			(*count)++;
	}
	return first;
}

int hw_slots_down(struct hw *h, const struct tj_slot *s, unsigned int n,
		  char *err, size_t len)
{
	unsigned int count;

	return slots_run(h, s, n, false, &count, err, len);
}

int hw_slots_up(struct hw *h, const struct tj_slot *s, unsigned int n,
		unsigned int *up, char *err, size_t len)
{
	return slots_run(h, s, n, true, up, err, len);
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
