// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: which processes hold a GPU open. Scans /proc/PID/fd for the GPU's
 * /dev/nvidiaN (minor from /proc/driver/nvidia/gpus/ADDR/information), its
 * DRM nodes (/sys/bus/pci/devices/ADDR/drm/NAME -> /dev/dri/NAME) and its
 * sysfs resource and config files (mmap'ed BARs, user-space drivers).
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostside.h"

#define MAX_TARGETS	16

static int nvidia_minor_of(const char *addr)
{
	char path[PATH_MAX], line[256];
	int minor = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information",
		 addr);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Device Minor: %d", &minor) == 1)
			break;
	fclose(f);
	return minor;
}

static bool is_target(const char *link, const char *addr,
		      char targets[][64], int n)
{
	char needle[PCITOPO_ADDR_LEN + 16];

	for (int i = 0; i < n; i++)
		if (!strcmp(link, targets[i]))
			return true;
	/* /sys/devices/.../ADDR/resourceN, .../ADDR/config */
	snprintf(needle, sizeof(needle), "/%s/", addr);
	{
		const char *p = strstr(link, needle);

		if (p && !strncmp(link, "/sys/", 5)) {
			p += strlen(needle);
			if (!strncmp(p, "resource", 8) || !strcmp(p, "config"))
				return true;
		}
	}
	return false;
}

int holders_list(const char *addr, int nvidia_minor, struct holder *out,
		 unsigned int max)
{
	char targets[MAX_TARGETS][64], path[PATH_MAX];
	int n = 0, found = 0;
	DIR *proc, *drm;
	struct dirent *e;

	if (nvidia_minor < 0)
		nvidia_minor = nvidia_minor_of(addr);
	if (nvidia_minor >= 0)
		snprintf(targets[n++], 64, "/dev/nvidia%d", nvidia_minor);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/drm", addr);
	drm = opendir(path);
	if (drm) {
		while ((e = readdir(drm)) && n < MAX_TARGETS)
			if (e->d_name[0] != '.')
				snprintf(targets[n++], 64, "/dev/dri/%.50s",
					 e->d_name);
		closedir(drm);
	}
	proc = opendir("/proc");
	if (!proc)
		return 0;
	while ((e = readdir(proc))) {
		char fddir[PATH_MAX];
		DIR *fds;
		struct dirent *f;
		long pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = strtol(e->d_name, NULL, 10);
		if (pid == (long)getpid())
			continue;
		snprintf(fddir, sizeof(fddir), "/proc/%ld/fd", pid);
		fds = opendir(fddir);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			char fdpath[PATH_MAX], link[PATH_MAX];
			ssize_t k;

			if (f->d_name[0] == '.')
				continue;
			snprintf(fdpath, sizeof(fdpath), "%.64s/%.64s", fddir,
				 f->d_name);
			k = readlink(fdpath, link, sizeof(link) - 1);
			if (k < 0)
				continue;
			link[k] = '\0';
			if (!is_target(link, addr, targets, n))
				continue;
			if ((unsigned int)found < max) {
				struct holder *h = &out[found];
				char cpath[64];
				FILE *c;

				h->pid = pid;
				snprintf(h->comm, sizeof(h->comm), "?");
				snprintf(cpath, sizeof(cpath), "/proc/%ld/comm",
					 pid);
				c = fopen(cpath, "re");
				if (c) {
					if (fgets(h->comm, sizeof(h->comm), c))
						h->comm[strcspn(h->comm, "\n")] = '\0';
					fclose(c);
				}
				snprintf(h->file, sizeof(h->file), "%.200s", link);
			}
			found++;
			break;	/* one per process */
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

void holders_format(const struct holder *h, unsigned int n, char *buf,
		    size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned int i = 0; i < n && used < len; i++) {
		used += (size_t)snprintf(buf + used, len - used,
					 "%spid %ld (%s) holds %s",
					 used ? "; " : "", h[i].pid, h[i].comm,
					 h[i].file);
	}
}
