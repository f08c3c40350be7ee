// SPDX-License-Identifier: GPL-2.0
/*
 * The records under /run/pcitopo/ that the three Slurm programs pass to one
 * another: slurm-target (the helper: the layout a reboot request wants),
 * slurm-error (the RebootProgram: why the switch failed, for the Prolog's
 * drain reason). /run: a real reboot (switch firmware) must forget them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pt_slurm.h"

const char *pt_run_path(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("PCITOPO_RUN_DIR");

	snprintf(buf, len, "%s/%s", dir && *dir ? dir : "/run/pcitopo", name);
	return buf;
}

const char *pt_systemctl(void)
{
	const char *p = getenv("PCITOPO_SYSTEMCTL");

	return p && *p ? p : "/bin/systemctl";
}

const char *pt_scontrol(void)
{
	const char *p = getenv("PCITOPO_SCONTROL");

	return p && *p ? p : "/usr/bin/scontrol";
}

long long pt_boottime_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec;
}

int pt_record_write(const char *name, const char *const *keys,
		    const char *const *values, size_t n)
{
	char path[512], tmp[560], dir[512];
	int fd, err = 0;
	FILE *f;

	pt_run_path("", dir, sizeof(dir));
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	pt_run_path(name, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s=", keys[i]);
		for (const char *v = values[i] ? values[i] : ""; *v; v++)
			fputc(*v == '\n' ? ' ' : *v, f);
		fputc('\n', f);
	}
	if (fflush(f) || fsync(fd))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int pt_record_get(const char *name, const char *key, char *out, size_t len)
{
	char path[512], line[1024];
	size_t klen = strlen(key);
	int r = -ENOENT;
	FILE *f;

	f = fopen(pt_run_path(name, path, sizeof(path)), "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != '=')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "%s", line + klen + 1);
		r = 0;
	}
	fclose(f);
	return r;
}

int pt_record_remove(const char *name)
{
	char path[512];

	if (unlink(pt_run_path(name, path, sizeof(path))) < 0 &&
	    errno != ENOENT)
		return -errno;
	return 0;
}

int pt_record_take(const char *name)
{
	char path[512], taken[560];

	pt_run_path(name, path, sizeof(path));
	snprintf(taken, sizeof(taken), "%s.taken", path);
	return rename(path, taken) < 0 ? -errno : 0;
}
