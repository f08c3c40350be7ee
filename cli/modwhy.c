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
 * module, and the module's vermagic: Debian 13's DKMS installs it
 * compressed (.ko.xz, as the kernel's own modules), read through the
 * decompressor its suffix names (xz, zstd, gzip), which kmod's packages
 * bring; without one the vermagic is not read and the note says less.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
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

/* A module of up to 64 MiB, whole, from f into a new buffer with a NUL
 * after it; NULL if it is larger or unreadable. */
static char *read_module(FILE *f, size_t *n)
{
	size_t cap = 1 << 20, len = 0, r;
	char *buf = malloc(cap + 1), *more;

	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len < cap)
			continue;
		if (cap >= (size_t)64 << 20)
			goto fail;
		more = realloc(buf, cap * 2 + 1);
		if (!more)
			goto fail;
		buf = more;
		cap *= 2;
	}
	if (!buf || ferror(f))
		goto fail;
	buf[len] = '\0';
	*n = len;
	return buf;
fail:
	free(buf);
	return NULL;
}

/* The decompressor of a module's suffix, NULL for a plain .ko; "" for a
 * suffix not known here. */
static const char *decompressor(const char *path)
{
	static const char *const sfx[][2] = {
		{ ".ko", NULL }, { ".ko.xz", "xz" }, { ".ko.zst", "zstd" },
		{ ".ko.gz", "gzip" },
	};
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t m = strlen(sfx[i][0]);

		if (n > m && !strcmp(path + n - m, sfx[i][0]))
			return sfx[i][1];
	}
	return "";
}

/* The module at path, decompressed by prog -dc (found on PATH) when prog
 * is set; NULL if it cannot be had. */
static char *load_module(const char *path, const char *prog, size_t *n)
{
	char *buf;
	FILE *f;
	int fd[2], st;
	pid_t pid;

	if (!prog) {
		f = fopen(path, "re");
		if (!f)
			return NULL;
		buf = read_module(f, n);
		fclose(f);
		return buf;
	}
	if (pipe2(fd, O_CLOEXEC) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (dup2(fd[1], STDOUT_FILENO) < 0 ||
		    (null >= 0 && dup2(null, STDERR_FILENO) < 0))
			_exit(127);
		execlp(prog, prog, "-dc", "--", path, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "re");
	buf = f ? read_module(f, n) : NULL;
	if (f)
		fclose(f);	/* a larger module: the decompressor gets EPIPE */
	else
		close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (buf && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/* The kernel release a module was built for (the first word of its
 * vermagic) into out; false if it cannot be read. */
static bool module_vermagic(const char *path, char *out, size_t len)
{
	static const char key[] = "vermagic=";
	const char *prog = decompressor(path);
	bool found = false;
	size_t size;
	char *buf, *v;

	if (prog && !*prog)
		return false;
	buf = load_module(path, prog, &size);
	if (!buf)
		return false;
	v = memmem(buf, size, key, sizeof(key) - 1);
	if (v && v + sizeof(key) - 1 < buf + size) {
		v += sizeof(key) - 1;
		snprintf(out, len, "%.*s", (int)strcspn(v, " "), v);
		found = out[0] != '\0';
	}
	free(buf);
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
