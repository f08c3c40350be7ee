// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the slots below the ports the moving GPUs hang from (the host's
 * backend, hw_host.c), taken down before the lanes change and brought up
 * after, so that nothing sees a surprise link down (no AER, no DPC):
 * power through pciehp's slot (/sys/bus/pci/slots/N/power) where the port
 * has a power controller, else the port's Link Disable (Link Control bit
 * 4, in its config space); all slots at once, one thread each (pciehp
 * waits 1 s after each power off). hostside.h says what each returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/pci_regs.h>

#include "hw_backend.h"

/* A PCI device's config space in sysfs: past its first 64 bytes only with
 * CAP_SYS_ADMIN (a short read otherwise). */
static int pcicfg_open(const char *port, int flags)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", port);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int pcicfg_read(int fd, unsigned int off, void *buf, size_t n)
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

	r = pcicfg_read(fd, PCI_STATUS, &status, sizeof(status));
	if (r)
		return r;
	if (!(status & PCI_STATUS_CAP_LIST))
		return 0;		/* no capability list */
	r = pcicfg_read(fd, PCI_CAPABILITY_LIST, &pos, 1);
	while (!r && pos >= 0x40 && guard--) {
		r = pcicfg_read(fd, pos & ~3u, hdr, sizeof(hdr));
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

static int host_slot_how(struct hw *h, const char *port)
{
	char dir[PATH_MAX];
	uint16_t flags = 0;
	uint32_t sltcap = 0;
	bool slot, cfg_ok = false;
	int fd, cap = 0, type = 0;

	(void)h;
	slot = !slot_dir(port, dir, sizeof(dir));
	fd = pcicfg_open(port, O_RDONLY);
	if (fd >= 0) {
		cap = pcie_cap(fd);
		if (cap > 0 &&
		    !pcicfg_read(fd, (unsigned int)cap + PCI_EXP_FLAGS, &flags,
			      sizeof(flags)) &&
		    (!(flags & PCI_EXP_FLAGS_SLOT) ||
		     !pcicfg_read(fd, (unsigned int)cap + PCI_EXP_SLTCAP, &sltcap,
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
	if (!cfg_ok && fd >= 0 && !hw_has_sys_admin())
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

	fd = pcicfg_open(port, O_RDWR);
	if (fd < 0)
		return fd;
	cap = pcie_cap(fd);
	r = cap < 0 ? cap : cap ? 0 : -EOPNOTSUPP;
	if (!r)
		r = pcicfg_read(fd, (unsigned int)cap + PCI_EXP_LNKCTL, &ctl,
			     sizeof(ctl));
	if (!r && !!(ctl & PCI_EXP_LNKCTL_LD) != disable) {
		ctl = disable ? ctl | PCI_EXP_LNKCTL_LD : ctl & ~PCI_EXP_LNKCTL_LD;
		if (pwrite(fd, &ctl, sizeof(ctl), cap + PCI_EXP_LNKCTL) !=
		    sizeof(ctl))
			r = errno ? -errno : -EIO;
		if (!r && !disable &&
		    !pcicfg_read(fd, (unsigned int)cap + PCI_EXP_LNKCAP, &lnkcap,
			      sizeof(lnkcap)) && (lnkcap & PCI_EXP_LNKCAP_DLLLARC)) {
			for (int i = 0; i < 100; i++) {
				if (!pcicfg_read(fd, (unsigned int)cap +
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

static int host_slots_set(struct hw *h, const struct tj_slot *s,
			  unsigned int n, bool up, unsigned int *count,
			  char *err, size_t len)
{
	struct slot_op ops[TJ_MAX_PORTS];
	pthread_t th[TJ_MAX_PORTS];
	bool started[TJ_MAX_PORTS] = { 0 };
	int first = 0;

	(void)h;
	*count = 0;
	for (unsigned int i = 0; i < n; i++) {
		ops[i] = (struct slot_op){ .s = &s[i], .up = up };
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

const struct hw_slot_ops hw_slot_ops = {
	.how = host_slot_how,
	.set = host_slots_set,
};
