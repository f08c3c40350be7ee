// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: pt_sysfs_snapshot(), a copy of what the sysfs source reads
 * (sysfs.h): the PCI device directories with their attribute files and
 * config space, the bus/pci links, slots, NUMA nodes, CPU packages, IOMMU
 * groups, the class/net and class/infiniband entries of PCI functions, and
 * the peer-memory modules' files doctor reads.
 * A tree saved here reads back with pt_sysfs_load() as the live one did.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health.h"
#include "rfile.h"
#include "sysfs.h"
#include "sysfs_err.h"

/* mkdir -p of path (absolute or relative). */
static int mkdirs(const char *path)
{
	char buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Copy one regular file (at most max bytes); -ENOENT if src is absent. */
static int copy_file(const char *src, const char *dst, size_t max)
{
	char buf[4096];
	size_t done = 0;
	ssize_t n;
	int in, out, r = 0;

	in = pt_file_open(src);	/* rfile.h: a FIFO in a saved ROOT blocks */
	if (in < 0)
		return in;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while (done < max) {
		size_t want = max - done < sizeof(buf) ? max - done : sizeof(buf);

		n = read(in, buf, want);
		if (n < 0) {
			/* some attributes refuse reads (EIO, EINVAL): skip */
			r = errno == EIO || errno == EINVAL || errno == ENODEV ||
			    errno == EPERM || errno == EACCES ? 0 : -errno;
			break;
		}
		if (!n)
			break;
		if (write(out, buf, (size_t)n) != n) {
			r = -EIO;
			break;
		}
		done += (size_t)n;
	}
	close(in);
	if (close(out) && !r)
		r = -errno;
	return r;
}

/* What the fallback, lspci and a reader of a bug report look at. */
static const char *const dev_attrs[] = {
	"config", "vendor", "device", "class", "revision", "subsystem_vendor",
	"subsystem_device", "numa_node", "irq", "resource", "local_cpulist",
	"secondary_bus_number", "subordinate_bus_number", "current_link_speed",
	"current_link_width", "max_link_speed", "max_link_width", "label",
	"modalias", "enable", "d3cold_allowed", "msi_bus", "ari_enabled",
};

#define N_DEV_ATTRS	(sizeof(dev_attrs) / sizeof(dev_attrs[0]))

/* dev_attrs[k], then the AER counters `topoctl doctor` reads, named where
 * health.c reads them (pt_aer_file()); NULL past the last. */
static const char *dev_file(size_t k)
{
	if (k < N_DEV_ATTRS)
		return dev_attrs[k];
	if (k - N_DEV_ATTRS < PT_AER_KINDS)
		return pt_aer_file((enum pt_aer_kind)(k - N_DEV_ATTRS));
	return NULL;
}

/*
 * The device's iommu_group link, pointing into DIR/kernel/iommu_groups/N as
 * the live one does, and that group's type (health.h reads both): whether
 * the IOMMU translates the GPU's DMA is evidence a saved tree must carry.
 */
static int snap_iommu(const char *root, const char *rp, const char *dir,
		      const char *sub)
{
	char src[PATH_MAX + 32], dst[PATH_MAX + 64], target[PATH_MAX];
	char rel[PATH_MAX];
	const char *base, *p;
	size_t len = 0;
	ssize_t n;
	int r;

	snprintf(src, sizeof(src), "%s/iommu_group", rp);
	n = readlink(src, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	snprintf(dst, sizeof(dst), "%s/kernel/iommu_groups/%s", dir, base);
	r = mkdirs(dst);
	snprintf(src, sizeof(src), "%s/kernel/iommu_groups/%s/type", root, base);
	snprintf(dst, sizeof(dst), "%s/kernel/iommu_groups/%s/type", dir, base);
	if (!r && access(dst, F_OK)) {
		r = copy_file(src, dst, 64);
		if (r == -ENOENT || r == -EACCES || r == -EPERM)
			r = 0;
	}
	if (r)
		return r;
	/* sub is "devices/pci0000:00/ADDR": one "../" per component */
	rel[0] = '\0';
	for (p = sub; p && len + 3 < sizeof(rel); p = strchr(p + 1, '/'))
		len += (size_t)snprintf(rel + len, sizeof(rel) - len, "../");
	snprintf(rel + len, sizeof(rel) - len, "kernel/iommu_groups/%s", base);
	snprintf(dst, sizeof(dst), "%s/%s/iommu_group", dir, sub);
	return symlink(rel, dst) ? -errno : 0;
}

static int is_dir_empty(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return errno == ENOENT ? 1 : -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n == 0;
}

/* The names in a device's net/ directory, as empty directories. */
static int snap_netdevs(const char *rp, const char *dir, const char *sub)
{
	char src[PATH_MAX], dst[PATH_MAX];
	struct dirent *de;
	int r = 0;
	DIR *d;

	snprintf(src, sizeof(src), "%s/net", rp);
	d = opendir(src);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dst, sizeof(dst), "%s/%s/net/%s", dir, sub, de->d_name);
		r = mkdirs(dst);
		if (r)
			pt_sysfs_set_err("%s: %s", dst, pt_file_strerror(r));
	}
	closedir(d);
	return r;
}

static int snap_devices(const char *root, const char *rroot, const char *dir)
{
	char src[PATH_MAX], dst[PATH_MAX], rel[PATH_MAX], *rp;
	const char *sub;
	struct dirent *de;
	int count = 0, r = 0;
	size_t k, rlen = strlen(rroot);
	DIR *d;

	snprintf(src, sizeof(src), "%s/bus/pci/devices", root);
	d = opendir(src);
	if (!d) {
		r = -errno;
		pt_sysfs_set_err("%s: %s", src, strerror(errno));
		return r;
	}
	snprintf(dst, sizeof(dst), "%s/bus/pci/devices", dir);
	r = mkdirs(dst);
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/bus/pci/devices/%s", root,
			 de->d_name);
		rp = realpath(src, NULL);
		if (!rp) {
			r = -errno;
			pt_sysfs_set_err("%s: %s", src, strerror(errno));
			break;
		}
		if (strncmp(rp, rroot, rlen) || rp[rlen] != '/') {
			pt_sysfs_set_err("%s points outside %s", src, rroot);
			free(rp);
			r = -EINVAL;
			break;
		}
		sub = rp + rlen + 1;	/* "devices/pci0000:00/0000:00:01.0" */
		snprintf(dst, sizeof(dst), "%s/%s", dir, sub);
		r = mkdirs(dst);
		for (k = 0; !r && dev_file(k); k++) {
			snprintf(src, sizeof(src), "%s/%s", rp, dev_file(k));
			snprintf(dst, sizeof(dst), "%s/%s/%s", dir, sub,
				 dev_file(k));
			r = copy_file(src, dst, 4096);
			if (r == -ENOENT || r == -EACCES || r == -EPERM)
				r = 0;	/* not every device has every file */
			if (r)
				pt_sysfs_set_err("%s: %s", src, pt_file_strerror(r));
		}
		if (!r)
			r = snap_netdevs(rp, dir, sub);
		if (!r) {
			r = snap_iommu(root, rp, dir, sub);
			if (r)
				pt_sysfs_set_err("%s/iommu_group: %s", sub, pt_file_strerror(r));
		}
		snprintf(rel, sizeof(rel), "../../../%s", sub);
		snprintf(dst, sizeof(dst), "%s/bus/pci/devices/%s", dir,
			 de->d_name);
		if (!r && symlink(rel, dst)) {
			r = -errno;
			pt_sysfs_set_err("%s: %s", dst, strerror(errno));
		}
		free(rp);
		if (!r)
			count++;
	}
	closedir(d);
	return r ? r : count;
}

/* bus/pci/slots/N/address and devices/system/node/nodeN/cpulist */
static int snap_dir_files(const char *root, const char *dir, const char *sub,
			  const char *prefix, const char *file)
{
	char src[PATH_MAX], dst[PATH_MAX];
	struct dirent *de;
	int r = 0;
	DIR *d;

	snprintf(src, sizeof(src), "%s/%s", root, sub);
	d = opendir(src);
	if (!d)
		return 0;	/* no slots, no NUMA: nothing to save */
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(src, sizeof(src), "%s/%s/%s/%s", root, sub, de->d_name,
			 file);
		if (access(src, R_OK))
			continue;
		snprintf(dst, sizeof(dst), "%s/%s/%s/%s", dir, sub, de->d_name,
			 file);
		*strrchr(dst, '/') = '\0';	/* file may be "topology/x" */
		r = mkdirs(dst);
		snprintf(dst, sizeof(dst), "%s/%s/%s/%s", dir, sub, de->d_name,
			 file);
		if (!r)
			r = copy_file(src, dst, 4096);
		if (r)
			pt_sysfs_set_err("%s: %s", src, pt_file_strerror(r));
	}
	closedir(d);
	return r;
}

/*
 * class/CLASS/NAME/device of the PCI functions (rdma.h reads infiniband's
 * and net's), as links to DIR's bus/pci/devices/ADDR, and the `parent` of
 * soft RDMA devices. Entries not on a PCI function are left out.
 */
static int snap_class(const char *root, const char *dir, const char *cls)
{
	char src[PATH_MAX], dst[PATH_MAX], target[PATH_MAX];
	char rel[PATH_MAX + 32];
	const char *base;
	struct dirent *de;
	int r = 0;
	ssize_t n;
	DIR *d;

	snprintf(src, sizeof(src), "%s/class/%s", root, cls);
	d = opendir(src);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		bool parent;

		if (de->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/class/%s/%s/device", root, cls,
			 de->d_name);
		n = readlink(src, target, sizeof(target) - 1);
		snprintf(src, sizeof(src), "%s/class/%s/%s/parent", root, cls,
			 de->d_name);
		parent = n <= 0 && !access(src, R_OK);
		if (n <= 0 && !parent)
			continue;
		snprintf(dst, sizeof(dst), "%s/class/%s/%s", dir, cls,
			 de->d_name);
		r = mkdirs(dst);
		if (!r && parent) {
			snprintf(dst, sizeof(dst), "%s/class/%s/%s/parent", dir,
				 cls, de->d_name);
			r = copy_file(src, dst, 256);
		} else if (!r) {
			target[n] = '\0';
			base = strrchr(target, '/');
			snprintf(rel, sizeof(rel), "../../../bus/pci/devices/%s",
				 base ? base + 1 : target);
			snprintf(dst, sizeof(dst), "%s/class/%s/%s/device", dir,
				 cls, de->d_name);
			if (symlink(rel, dst))
				r = -errno;
		}
		if (r)
			pt_sysfs_set_err("%s: %s", dst, pt_file_strerror(r));
	}
	closedir(d);
	return r;
}

/*
 * What `topoctl doctor` reads of the loaded modules: the files NCCL tests
 * for GPUDirect RDMA (NCCL v2.30.7-1, src/transport/net_ib/gdr.cc:16-21).
 * DIR/module is made where ROOT has one, so that the copy tells "none
 * loaded" by what it lacks; each file is copied where it exists.
 */
static int snap_modules(const char *root, const char *dir)
{
	static const char *const files[] = {
		"module/nvidia_peermem/version",
		"kernel/mm/memory_peers/nv_mem/version",
		"kernel/mm/memory_peers/nv_mem_nc/version",
	};
	char src[PATH_MAX], dst[PATH_MAX];
	struct stat st;
	size_t i;
	int r;

	snprintf(src, sizeof(src), "%s/module", root);
	if (stat(src, &st) || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(dst, sizeof(dst), "%s/module", dir);
	r = mkdirs(dst);
	for (i = 0; !r && i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(src, sizeof(src), "%s/%s", root, files[i]);
		if (access(src, F_OK))
			continue;
		snprintf(dst, sizeof(dst), "%s/%s", dir, files[i]);
		*strrchr(dst, '/') = '\0';
		r = mkdirs(dst);
		snprintf(dst, sizeof(dst), "%s/%s", dir, files[i]);
		if (!r)
			r = copy_file(src, dst, 256);
	}
	if (r)
		pt_sysfs_set_err("%s: %s", dst, pt_file_strerror(r));
	return r;
}

int pt_sysfs_snapshot(const char *root, const char *dir)
{
	char *rroot;
	int r, count;

	pt_sysfs_err[0] = '\0';
	if (!root)
		root = "/sys";
	r = is_dir_empty(dir);
	if (r < 0) {
		pt_sysfs_set_err("%s: %s", dir, pt_file_strerror(r));
		return r;
	}
	if (!r) {
		pt_sysfs_set_err("%s: not empty", dir);
		return -EEXIST;
	}
	rroot = realpath(root, NULL);
	if (!rroot) {
		r = -errno;
		pt_sysfs_set_err("%s: %s", root, strerror(errno));
		return r;
	}
	r = mkdirs(dir);
	if (r)
		pt_sysfs_set_err("%s: %s", dir, pt_file_strerror(r));
	count = r ? r : snap_devices(root, rroot, dir);
	free(rroot);
	if (count < 0)
		return count;
	r = snap_dir_files(root, dir, "bus/pci/slots", "", "address");
	if (!r)
		r = snap_dir_files(root, dir, "devices/system/node", "node",
				   "cpulist");
	if (!r)
		r = snap_dir_files(root, dir, "devices/system/cpu", "cpu",
				   "topology/physical_package_id");
	if (!r)
		r = snap_class(root, dir, "infiniband");
	if (!r)
		r = snap_class(root, dir, "net");
	if (!r)
		r = snap_modules(root, dir);
	return r ? r : count;
}
