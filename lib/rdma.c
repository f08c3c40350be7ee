// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: the RDMA and network device names of PCI functions, from
 * sysfs (rdma.h says where each comes from).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdma.h"
#include "rfile.h"
#include "sysfs_err.h"

int pt_rdma_name_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;
			int r;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			r = strncmp(a, b, la);
			if (r)
				return r;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

/* The PCI address a sysfs `device` link at path points at, or -1. */
static int link_addr(const char *path, char *addr, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	uint64_t key;

	if (n <= 0)
		return -1;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len || pt_addr_key(base, &key))
		return -1;
	snprintf(addr, len, "%s", base);
	return 0;
}

static struct pt_device *find_dev(struct pt_topology *t, const char *addr)
{
	return (struct pt_device *)pt_topology_find(t, addr);
}

/* The first line of a small file, without its newline; -1 if unreadable,
 * -PT_ENOTREG (named in pt_sysfs_last_error()) if no regular file. */
static int read_line(const char *path, char *buf, size_t len)
{
	int r = pt_file_read(path, buf, len, NULL);

	if (r == -PT_ENOTREG) {
		pt_sysfs_set_err("%s: %s", path, pt_file_strerror(r));
		return r;
	}
	if (r)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -1;
}

/* Whether name should replace cur: none yet, or first in name order. */
static void offer(char *cur, size_t len, const char *name)
{
	if (strlen(name) >= len)
		return;
	if (!cur[0] || pt_rdma_name_cmp(name, cur) < 0)
		snprintf(cur, len, "%s", name);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * One pass over ROOT/class/infiniband: hardware names (device links) when
 * soft is false, else the soft ones (parent netdevs) of functions still
 * without a name.
 */
static int ib_pass(const char *root, struct pt_topology *t,
		   struct dirent **ents, int n, bool soft)
{
	char path[PATH_MAX], addr[PCITOPO_ADDR_LEN], netdev[64];
	struct pt_device *d;
	int i, r;

	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		snprintf(path, sizeof(path), "%s/class/infiniband/%s/device",
			 root, name);
		if (!soft) {
			if (link_addr(path, addr, sizeof(addr)))
				continue;
		} else {
			if (!access(path, F_OK))
				continue;	/* hardware, done */
			snprintf(path, sizeof(path),
				 "%s/class/infiniband/%s/parent", root, name);
			r = read_line(path, netdev, sizeof(netdev));
			if (r == -PT_ENOTREG)
				return r;
			if (r || strchr(netdev, '/'))
				continue;
			snprintf(path, sizeof(path), "%s/class/net/%s/device",
				 root, netdev);
			if (link_addr(path, addr, sizeof(addr)))
				continue;
		}
		d = find_dev(t, addr);
		if (d && (!soft || !d->rdma_hw))
			offer(d->rdma, sizeof(d->rdma), name);
		if (d && !soft)
			d->rdma_hw = true;
	}
	return 0;
}

int pt_rdma_join(const char *root, struct pt_topology *t)
{
	char path[PATH_MAX];
	struct dirent **ents;
	size_t k;
	int n, i, r = 0;

	if (!root)
		root = "/sys";
	for (k = 0; k < t->n_devices; k++) {
		t->devices[k].rdma[0] = '\0';
		t->devices[k].rdma_hw = false;
		t->devices[k].netdev[0] = '\0';
	}
	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	n = scandir(path, &ents, visible, by_name);
	if (n < 0 && errno == ENOMEM)
		return -ENOMEM;
	if (n > 0) {
		r = ib_pass(root, t, ents, n, false);
		if (!r)
			r = ib_pass(root, t, ents, n, true);
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	if (n >= 0)
		free(ents);
	if (r)
		return r;
	for (k = 0; k < t->n_devices; k++) {
		struct pt_device *d = &t->devices[k];

		if (d->role != PCITOPO_ROLE_ENDPOINT)
			continue;
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/net", root,
			 d->addr);
		n = scandir(path, &ents, visible, by_name);
		if (n < 0 && errno == ENOMEM)
			return -ENOMEM;
		if (n > 0 && strlen(ents[0]->d_name) < sizeof(d->netdev))
			snprintf(d->netdev, sizeof(d->netdev), "%s",
				 ents[0]->d_name);
		for (i = 0; i < n; i++)
			free(ents[i]);
		if (n >= 0)
			free(ents);
	}
	return 0;
}
