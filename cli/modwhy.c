// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: why pcitopo.ko is not loaded, in the words of the one note the
 * automatic sysfs fallback prints (cli.c, load_topology()).
 *
 * The module's genl family is missing. The kernel's genl controller would
 * have loaded an installed pcitopo.ko by its alias at topoctl's request, so
 * the usual reasons are the kernels: DKMS did not build it for the running
 * one (outside BUILD_EXCLUSIVE_KERNEL, or without its headers) though it
 * did for another, or the one under the running kernel's directory was
 * built for another kernel, which the kernel refuses (ENOEXEC: its
 * vermagic). Each answer names the kernels concerned. Read here: MODULES
 * (/lib/modules, or $TOPOCTL_MODULES for tests), each kernel's modules.dep
 * (what modprobe finds) and the places DKMS and make install put the
 * module, and an uncompressed module's vermagic.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "topoctl.h"

/* The first path (relative to dir) of pcitopo.ko in dir/modules.dep, or in
 * dir/updates/dkms or dir/extra, into out; false if none. */
static bool find_module(const char *dir, char *out, size_t len)
{
	static const char *const places[] = { "updates/dkms", "extra" };
	static const char *const names[] = {
		"pcitopo.ko", "pcitopo.ko.xz", "pcitopo.ko.zst", "pcitopo.ko.gz",
	};
	char path[4096], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (strcmp(base, names[i]))
				continue;
			snprintf(out, len, "%s", line);
			fclose(f);
			return true;
		}
	}
	if (f)
		fclose(f);
	for (size_t p = 0; p < sizeof(places) / sizeof(places[0]); p++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s/%s", dir, places[p],
				 names[i]);
			if (!access(path, F_OK)) {
				snprintf(out, len, "%s/%s", places[p], names[i]);
				return true;
			}
		}
	return false;
}

/* The kernel release an uncompressed module was built for (the first word
 * of its vermagic) into out; false if it cannot be read. */
static bool module_vermagic(const char *path, char *out, size_t len)
{
	static const char key[] = "vermagic=";
	bool found = false;
	size_t n = strlen(path);
	char *buf = NULL, *v;
	long size;
	FILE *f;

	if (n < 3 || strcmp(path + n - 3, ".ko"))
		return false;	/* compressed: not read here */
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 &&
	    size < 64L << 20 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)size + 1)) &&
	    fread(buf, 1, (size_t)size, f) == (size_t)size) {
		buf[size] = '\0';
		v = memmem(buf, (size_t)size, key, sizeof(key) - 1);
		if (v && v + sizeof(key) - 1 < buf + size) {
			v += sizeof(key) - 1;
			snprintf(out, len, "%.*s", (int)strcspn(v, " "), v);
			found = out[0] != '\0';
		}
	}
	free(buf);
	fclose(f);
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

void module_why(char *buf, size_t len)
{
	const char *root = getenv("TOPOCTL_MODULES");	/* tests */
	char dir[4096], rel_path[4096], path[8192], built[256], others[512];
	char kern[8][128];
	struct utsname u;
	struct dirent *e;
	size_t nothers = 0;
	DIR *d;

	if (!root || !*root)
		root = "/lib/modules";
	if (uname(&u) < 0) {
		snprintf(buf, len, "not loaded");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/%s", root, u.release);
	if (find_module(dir, rel_path, sizeof(rel_path))) {
		snprintf(path, sizeof(path), "%s/%s", dir, rel_path);
		if (module_vermagic(path, built, sizeof(built)) &&
		    strcmp(built, u.release))
			snprintf(buf, len, "the one for the running kernel %s "
				 "(%s) is built for %s, which the kernel refuses "
				 "(vermagic: rebuild it for %s)", u.release, path,
				 built, u.release);
		else
			snprintf(buf, len, "%s is there for the running kernel "
				 "%s but not loaded (modprobe pcitopo says why)",
				 path, u.release);
		return;
	}
	d = opendir(root);
	while (d && (e = readdir(d)) && nothers < 8) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, u.release) ||
		    strlen(e->d_name) >= sizeof(kern[0]))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, e->d_name);
		if (find_module(dir, rel_path, sizeof(rel_path)))
			strcpy(kern[nothers++], e->d_name);
	}
	if (d)
		closedir(d);
	/* readdir's order is the file system's: sorted, the note is stable */
	qsort(kern, nothers, sizeof(kern[0]), cmp_str);
	others[0] = '\0';
	for (size_t i = 0; i < nothers && i < 3; i++) {
		size_t off = strlen(others);

		/* at most 3 names of fewer than 128: no truncation, which
		 * gcc 14 cannot see through the loop without the precision */
		snprintf(others + off, sizeof(others) - off, "%s%.*s",
			 i ? ", " : "", (int)sizeof(kern[0]) - 1, kern[i]);
	}
	if (nothers)
		snprintf(buf, len, "no pcitopo.ko for the running kernel %s, "
			 "only for %s%s (DKMS builds it for %s with its headers, "
			 "linux-headers-%s, within 5.10-7.2)", u.release, others,
			 nothers > 3 ? ", ..." : "", u.release, u.release);
	else
		snprintf(buf, len, "no pcitopo.ko is installed for the running "
			 "kernel %s (pcitopo-dkms builds it)", u.release);
}
