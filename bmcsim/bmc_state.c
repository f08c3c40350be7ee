// SPDX-License-Identifier: GPL-2.0
/*
 * bmcsim: state file of the emulated BMC (see bmc_state.h for the format).
 */
#include "bmc_state.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const layout_names[] = {
	[1] = "balance",
	[2] = "common",
	[3] = "cascade",
};

const char *bmc_layout_name(int layout)
{
	if (layout >= 1 && layout <= 3)
		return layout_names[layout];
	return "none";
}

int bmc_layout_code(const char *name)
{
	for (int i = 1; i <= 3; i++)
		if (strcmp(name, layout_names[i]) == 0)
			return i;
	return 0;
}

const char *bmc_method_name(enum bmc_method m)
{
	return m == BMC_METHOD_MUX ? "mux" : "switchfw";
}

int bmc_method_code(const char *name)
{
	if (strcmp(name, "switchfw") == 0)
		return BMC_METHOD_SWITCHFW;
	if (strcmp(name, "mux") == 0)
		return BMC_METHOD_MUX;
	return -EINVAL;
}

const char *bmc_job_state_name(int st)
{
	static const char *const n[] = { "idle", "busy", "done", "failed" };

	return st >= 0 && st <= 3 ? n[st] : "?";
}

static int parse_int(const char *v, int lo, int hi, int *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 0);
	if (errno || end == v || *end || x < lo || x > hi)
		return -EINVAL;
	*out = (int)x;
	return 0;
}

int bmc_state_parse(struct bmc_state *st, const char *text)
{
	struct bmc_state n = *st;
	char line[256];
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n");
		char *eq, *key, *val;
		int r = 0, ver;

		if (len >= sizeof(line))
			return -EINVAL;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len;
		if (*p == '\n')
			p++;
		if (line[0] == '#' || line[0] == '\0')
			continue;
		eq = strchr(line, '=');
		if (!eq)
			return -EINVAL;
		*eq = '\0';
		key = line;
		val = eq + 1;
		if (strcmp(key, "version") == 0) {
			r = parse_int(val, 1, 1, &ver);
		} else if (strcmp(key, "method") == 0) {
			r = bmc_method_code(val);
			if (r >= 0) {
				n.method = r;
				r = 0;
			}
		} else if (strcmp(key, "current") == 0) {
			r = parse_int(val, 1, 3, &n.current);
		} else if (strcmp(key, "pending") == 0) {
			r = parse_int(val, 0, 3, &n.pending);
		} else if (strcmp(key, "job_state") == 0) {
			r = parse_int(val, 0, 3, &n.job_state);
		} else if (strcmp(key, "job_id") == 0) {
			r = parse_int(val, 0, 255, &n.job_id);
		} else if (strcmp(key, "job_layout") == 0) {
			r = parse_int(val, 0, 3, &n.job_layout);
		} else if (strcmp(key, "job_error") == 0) {
			r = parse_int(val, 0, 255, &n.job_error);
		}
		if (r)
			return r;
	}
	*st = n;
	return 0;
}

int bmc_state_format(const struct bmc_state *st, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "# pcitopo emulated BMC state (bmcsim/pcitopo_bmc.so)\n"
			 "version=1\nmethod=%s\ncurrent=%d\npending=%d\n"
			 "job_state=%d\njob_id=%d\njob_layout=%d\njob_error=%d\n",
			 bmc_method_name(st->method), st->current, st->pending,
			 st->job_state, st->job_id, st->job_layout,
			 st->job_error);

	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return n;
}

int bmc_state_load(struct bmc_state *st, const char *path)
{
	char buf[2048];
	ssize_t n;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r)
		return r;
	if ((size_t)n == sizeof(buf) - 1)
		return -EFBIG;
	buf[n] = '\0';
	return bmc_state_parse(st, buf);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int bmc_state_save(const struct bmc_state *st, const char *path)
{
	char buf[1024], tmp[PATH_MAX], dir[PATH_MAX];
	int fd, r, len;

	len = bmc_state_format(st, buf, sizeof(buf));
	if (len < 0)
		return len;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = write_all(fd, buf, (size_t)len);
	if (!r && fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		unlink(tmp);
		return r;
	}
	/* Make the rename itself durable. */
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	return 0;
}
