// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod-standin's hardware (daemon/topod/hw_backend.h): the host tests'
 * stand-in for the module, the slots and the drivers, linked into their
 * build of topod only (daemon/Makefile: topod-standin), never into the
 * topod that is installed. Its layout is the simulated BMC's current one
 * (tests/bmc), its GPUs those of the emulated server (tests/vm: GPU i at
 * 0000:(0x23+i):00.0 below the port 0000:(0x13+i):00.0), and it keeps in
 * topod's state dir what the kernel would, so that it survives a SIGKILL
 * of topod:
 *   fake-bmc-state  (tests) the simulated BMC's state file, a link to it
 *                   (tests/topod/topod-host.sh): current=CODE is the layout
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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw_backend.h"

/* the emulated server's GPUs (tests/vm/server), as the stand-in has them */
#define FAKE_GPUS	8
#define FAKE_GPU_BUS	0x23	/* GPU i: 0000:(FAKE_GPU_BUS + i):00.0 */
#define FAKE_PORT_BUS	0x13	/* its port: 0000:(FAKE_PORT_BUS + i):00.0 */

#define FAKE_BMC_STATE	"fake-bmc-state"
#define FAKE_DETACHED	"fake-detached"
#define FAKE_UNBOUND	"fake-unbound"
#define FAKE_SLOTS_OFF	"fake-slots-off"
#define FAKE_DRIVER	"fake-gpu"
#define FAKE_MAX_LINES	64

struct standin {
	char fake_flag[4200];		/* state_dir/fake-detached */
	char bmc_state[4200];		/* state_dir/fake-bmc-state */
};

static void gpu_addr(unsigned int i, char *addr, char *parent)
{
	snprintf(addr, PCITOPO_ADDR_LEN, "0000:%02x:00.0", FAKE_GPU_BUS + i);
	snprintf(parent, PCITOPO_ADDR_LEN, "0000:%02x:00.0", FAKE_PORT_BUS + i);
}

static int fake_open(struct hw *h, bool monitor, char *err, size_t len)
{
	struct standin *f = calloc(1, sizeof(*f));

	(void)monitor;	/* no events: hw_wait() polls */
	(void)err;
	(void)len;
	if (!f)
		return -ENOMEM;
	snprintf(f->fake_flag, sizeof(f->fake_flag), "%.4000s/" FAKE_DETACHED,
		 h->cfg->state_dir);
	snprintf(f->bmc_state, sizeof(f->bmc_state), "%.4000s/" FAKE_BMC_STATE,
		 h->cfg->state_dir);
	h->priv = f;
	return 0;
}

static void fake_close(struct hw *h)
{
	free(h->priv);
}

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
	const struct standin *f = h->priv;

	return access(f->fake_flag, F_OK) == 0;
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
	const struct standin *fs = h->priv;
	char line[256];
	int cur = -1;
	FILE *f = fopen(fs->bmc_state, "re");

	if (!f) {
		snprintf(err, len, "%s: %m", fs->bmc_state);
		return -errno;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "current=", 8))
			cur = atoi(line + 8);
	fclose(f);
	memset(s, 0, sizeof(*s));
	s->ngpus = FAKE_GPUS;
	for (unsigned int i = 0; i < FAKE_GPUS; i++) {
		gpu_addr(i, s->gpus[i].addr, s->gpus[i].parent);
		s->gpus[i].link_max_speed = 2500;
		s->gpus[i].link_max_width = 1;
		s->gpus[i].link_flags = PCITOPO_LINK_F_PRESENT |
					PCITOPO_LINK_F_ACTIVE;
	}
	if (fake_number(h, "fake-layout") >= 0 && !fake_detached(h))
		cur = fake_number(h, "fake-layout");
	if (cur == fake_number(h, "fake-link-x0"))
		for (unsigned int k = 0; k < h->plat->ngpus; k++)
			if (h->plat->gpus[k] < FAKE_GPUS)
				s->gpus[h->plat->gpus[k]].link_max_width = 0;
	if (fake_detached(h) || fake_count(h, FAKE_SLOTS_OFF)) {
		unsigned int n = 0;

		/* a GPU whose port is detached, or its slot off, is gone */
		for (unsigned int i = 0; i < FAKE_GPUS; i++)
			if (!fake_listed(h, FAKE_DETACHED, s->gpus[i].parent) &&
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

static int fake_fd(const struct hw *h)
{
	(void)h;
	return -1;
}

static int fake_drain(struct hw *h)
{
	(void)h;
	return 0;
}

static int fake_detach(struct hw *h, const char *port, char *err, size_t len)
{
	int r = fake_list_set(h, FAKE_DETACHED, port, true);

	if (r)
		snprintf(err, len, "detach %s: %s", port, strerror(-r));
	return r;
}

static int fake_rescan(struct hw *h, char *err, size_t len)
{
	const struct standin *f = h->priv;
	char ports[FAKE_MAX_LINES][PCITOPO_ADDR_LEN + 8];
	unsigned int n = fake_lines(h, FAKE_DETACHED, ports);

	/* what comes back is probed: its driver binds (the kernel's probe
	 * at add); what stayed unbound stays so */
	for (unsigned int i = 0; i < FAKE_GPUS; i++) {
		char addr[PCITOPO_ADDR_LEN], parent[PCITOPO_ADDR_LEN];

		gpu_addr(i, addr, parent);
		for (unsigned int k = 0; k < n; k++)
			if (!strcmp(ports[k], parent) &&
			    !fake_listed(h, FAKE_SLOTS_OFF, parent))
				(void)fake_list_set(h, FAKE_UNBOUND,
						    addr, false);
	}
	if (unlink(f->fake_flag) < 0 && errno != ENOENT) {
		int e = errno;

		snprintf(err, len, "rescan: %s: %s", f->fake_flag, strerror(e));
		return -e;
	}
	return 0;
}

static int fake_add_ids(struct hw *h, const struct pt_platform *p)
{
	(void)h;
	(void)p;	/* its GPUs are GPUs already */
	return 0;
}

static const struct hw_module_ops fake_module = {
	.open = fake_open,
	.close = fake_close,
	.snapshot = fake_snapshot,
	.fd = fake_fd,
	.drain = fake_drain,
	.detach = fake_detach,
	.rescan = fake_rescan,
	.add_ids = fake_add_ids,
};

/* a port of fake-no-slot has its link disabled, as the host's would */
static int fake_slot_how(struct hw *h, const char *port)
{
	if (fake_listed(h, "fake-no-slot", port))
		return hw_has_sys_admin() ? TJ_SLOT_LINK : -EPERM;
	return TJ_SLOT_POWER;
}

static int fake_slots(struct hw *h, const struct tj_slot *s, unsigned int n,
		      bool up, unsigned int *count, char *err, size_t len)
{
	const struct standin *f = h->priv;

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
			e = fake_list_set(h, FAKE_DETACHED, s[i].port, false);
			if (!e && !fake_count(h, FAKE_DETACHED))
				e = unlink(f->fake_flag) < 0 && errno != ENOENT ?
				    -errno : 0;
			if (e) {
				snprintf(err, len, "slot %s: %s", s[i].port,
					 strerror(-e));
				return e;
			}
		}
		for (unsigned int g = 0; g < FAKE_GPUS; g++) {
			char addr[PCITOPO_ADDR_LEN], parent[PCITOPO_ADDR_LEN];

			gpu_addr(g, addr, parent);
			if (!strcmp(parent, s[i].port) &&
			    !fake_listed(h, FAKE_DETACHED, parent))
				(void)fake_list_set(h, FAKE_UNBOUND, addr, false);
		}
		(*count)++;
	}
	return 0;
}

static const struct hw_slot_ops fake_slot_ops = {
	.how = fake_slot_how,
	.set = fake_slots,
};

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

static int fake_driver(struct hw *h, const char *addr, char *drv, size_t len)
{
	if (!fake_present(h, addr) || fake_listed(h, FAKE_UNBOUND, addr))
		return 0;
	tcopy(drv, len, FAKE_DRIVER);
	return 1;
}

static int fake_unbind(struct hw *h, const char *addr, char *err, size_t len)
{
	char drv[TJ_DRV_LEN];
	int e;

	if (fake_driver(h, addr, drv, sizeof(drv)) <= 0)
		return 0;
	e = fake_list_set(h, FAKE_UNBOUND, addr, true);
	if (e)
		snprintf(err, len, "unbind %s: %s", addr, strerror(-e));
	return e ? e : 1;
}

static int fake_bind(struct hw *h, const char *addr, const char *driver,
		     char *err, size_t len)
{
	int e;

	if (!fake_present(h, addr))
		return 0;
	e = fake_list_set(h, FAKE_UNBOUND, addr, false);
	if (e)
		snprintf(err, len, "bind %s to %s: %s", addr, driver,
			 strerror(-e));
	return e ? e : 1;
}

static const struct hw_driver_ops fake_driver_ops = {
	.driver = fake_driver,
	.unbind = fake_unbind,
	.bind = fake_bind,
};

/* the tests' boot id if they gave one, else this host's */
static int fake_boot_id(const struct tconfig *c, char *buf, size_t len)
{
	char path[4200];

	snprintf(path, sizeof(path), "%.4000s/fake-boot-id", c->state_dir);
	if (!access(path, F_OK))
		return hw_read_boot_id(path, buf, len);
	return hw_read_boot_id("/proc/sys/kernel/random/boot_id", buf, len);
}

const struct hw_backend hw_backend = {
	.what = "the tests' stand-in (no module; the layout is the simulated "
		"BMC's, the rest in the state dir's fake-* files)",
	.module = &fake_module,
	.slots = &fake_slot_ops,
	.drivers = &fake_driver_ops,
	.boot_id = fake_boot_id,
};
