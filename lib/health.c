// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: the health reader (health.h). Every file is optional: a saved
 * tree from an older topoctl, a kernel without AER or an IOMMU, or a user
 * who cannot read config space past 64 bytes all leave fields unknown
 * rather than failing the whole read. What is there but is no regular file
 * (a FIFO where aer_dev_correctable should be) fails it, named: reading
 * it would block (rfile.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health.h"
#include "rfile.h"
#include "sysfs_err.h"

#define CFG_SIZE	4096
#define PCI_CAP_PTR	0x34
#define PCI_CAP_EXP	0x10
#define PCI_ECAP_DPC	0x1d

static const char *const aer_files[PT_AER_KINDS] = {
	"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal",
};

const char *pt_aer_file(enum pt_aer_kind k)
{
	return k < PT_AER_KINDS ? aer_files[k] : "?";
}

/* A file of the tree that is no regular file: named, and the read fails. */
static int bad_file(const char *path)
{
	pt_sysfs_set_err("%s: %s", path, pt_file_strerror(-PT_ENOTREG));
	return -PT_ENOTREG;
}

static const char *root_or_sys(const char *root)
{
	return root && *root ? root : "/sys";
}

/* "NAME count" lines; TOTAL_* is the sum the kernel keeps, the others are
 * named in the detail when non-zero. The kernel prints them into one page. */
static int read_aer(const char *dir, enum pt_aer_kind k, struct pt_health *h)
{
	char path[PATH_MAX + 32], buf[4096], name[64];
	unsigned long long v;
	const char *p;
	size_t len = 0;
	int r, used;

	snprintf(path, sizeof(path), "%s/%s", dir, aer_files[k]);
	r = pt_file_read(path, buf, sizeof(buf), NULL);
	if (r == -PT_ENOTREG)
		return bad_file(path);
	if (r)
		return 0;
	h->has_aer[k] = true;
	for (p = buf; sscanf(p, "%63s %llu%n", name, &v, &used) == 2; p += used) {
		if (!strncmp(name, "TOTAL_", 6)) {
			h->aer_total[k] = v;
			continue;
		}
		if (!v || len >= sizeof(h->aer_detail[k]) - 1)
			continue;
		len += (size_t)snprintf(h->aer_detail[k] + len,
					sizeof(h->aer_detail[k]) - len,
					"%s%s %llu", len ? ", " : "", name, v);
	}
	return 0;
}

static int read_iommu(const char *root, const char *dir, struct pt_health *h)
{
	char path[PATH_MAX + 32], target[PATH_MAX], *base, *end;
	ssize_t n;
	long g;
	int r;

	snprintf(path, sizeof(path), "%s/iommu_group", dir);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	g = strtol(base, &end, 10);
	if (end == base || *end || g < 0 || g > INT_MAX)
		return 0;
	h->iommu_group = (int)g;
	snprintf(path, sizeof(path), "%s/kernel/iommu_groups/%ld/type", root, g);
	r = pt_file_read(path, h->iommu_type, sizeof(h->iommu_type), NULL);
	if (r == -PT_ENOTREG)
		return bad_file(path);
	h->iommu_type_err = r;
	if (r)
		h->iommu_type[0] = '\0';
	h->iommu_type[strcspn(h->iommu_type, "\n")] = '\0';
	return 0;
}

static unsigned int cfg16(const uint8_t *c, int off)
{
	return c[off] | c[off + 1] << 8;
}

static uint32_t cfg32(const uint8_t *c, int off)
{
	return cfg16(c, off) | (uint32_t)cfg16(c, off + 2) << 16;
}

/* The PCIe capability in the standard list (bounded against loops). */
static int find_cap(const uint8_t *c, size_t len, unsigned int id)
{
	unsigned int pos, guard;

	if (len < 64 || !(cfg16(c, 0x06) & 0x10))	/* Status: cap list */
		return -1;
	pos = c[PCI_CAP_PTR] & ~3u;
	for (guard = 0; pos >= 0x40 && pos + 2 <= len && guard < 48; guard++) {
		if (c[pos] == id)
			return (int)pos;
		pos = c[pos + 1] & ~3u;
	}
	return -1;
}

static int find_ecap(const uint8_t *c, size_t len, unsigned int id)
{
	unsigned int pos = 0x100, guard;
	uint32_t hdr;

	for (guard = 0; pos >= 0x100 && pos + 4 <= len && guard < 256; guard++) {
		hdr = cfg32(c, (int)pos);
		if (!hdr || hdr == 0xffffffff)
			return -1;
		if ((hdr & 0xffff) == id)
			return (int)pos;
		pos = (hdr >> 20) & ~3u;
	}
	return -1;
}

static int read_config(const char *dir, struct pt_health *h)
{
	char path[PATH_MAX + 32];
	uint8_t c[CFG_SIZE + 1];
	size_t n;
	int r;

	snprintf(path, sizeof(path), "%s/config", dir);
	r = pt_file_read(path, c, sizeof(c), &n);
	if (r == -PT_ENOTREG)
		return bad_file(path);
	if (r || n < 64)
		return 0;
	h->pcie_cap = find_cap(c, n, PCI_CAP_EXP);
	if (h->pcie_cap >= 0 && (size_t)h->pcie_cap + 0x0a <= n) {
		/* DevCap +0x04 bits 2:0, DevCtl +0x08 bits 7:5: 128 << v */
		h->mps_sup = 128 << (cfg16(c, h->pcie_cap + 0x04) & 7);
		h->mps = 128 << ((cfg16(c, h->pcie_cap + 0x08) >> 5) & 7);
	}
	h->dpc_cap = find_ecap(c, n, PCI_ECAP_DPC);
	if (h->dpc_cap >= 0 && (size_t)h->dpc_cap + 0x0a <= n)
		h->dpc_status = (uint16_t)cfg16(c, h->dpc_cap + 0x08);
	else
		h->dpc_cap = -1;
	return 0;
}

int pt_health_read(const char *root, const char *addr, struct pt_health *h)
{
	char dir[PATH_MAX];
	struct stat st;
	int k, r;

	memset(h, 0, sizeof(*h));
	h->iommu_group = -1;
	h->pcie_cap = -1;
	h->mps = -1;
	h->mps_sup = -1;
	h->dpc_cap = -1;
	root = root_or_sys(root);
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, addr);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	h->present = true;
	r = read_iommu(root, dir, h);
	for (k = 0; !r && k < PT_AER_KINDS; k++)
		r = read_aer(dir, (enum pt_aer_kind)k, h);
	return r ? r : read_config(dir, h);
}

bool pt_iommu_enabled(const char *root)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool any = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/kernel/iommu_groups",
		 root_or_sys(root));
	d = opendir(path);
	if (!d)
		return false;
	while (!any && (de = readdir(d)))
		any = de->d_name[0] != '.';
	closedir(d);
	return any;
}
