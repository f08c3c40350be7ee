// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the job journal and the committed state (journal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "ptc.h"

/* 2: unbound drivers, the GPUs' links before, boot id, a failed rollback.
 * 3: the slots taken down (slots=PORT/power,PORT/link).
 * 4: what the BMC reported after the Select (bmc_current, bmc_pending).
 * An older journal (a switch in flight across an upgrade) is still read:
 * it lacks those, and recovery says what it cannot check. A newer one
 * is not (-EPROTONOSUPPORT). TJ_VERSION is in journal.h. */

static const char *const state_names[__TJ_STATE_MAX] = {
	[TJ_NONE] = "none",
	[TJ_SWITCHING] = "switching",
	[TJ_ROLLING_BACK] = "rolling-back",
	[TJ_AWAITING_POWER_CYCLE] = "awaiting-power-cycle",
};

const char *tj_state_name(enum tj_state s)
{
	return (unsigned int)s < __TJ_STATE_MAX ? state_names[s] : "?";
}

static const char *const slot_how_names[] = {
	[TJ_SLOT_POWER] = "power",
	[TJ_SLOT_LINK] = "link",
};

const char *tj_slot_how_name(enum tj_slot_how h)
{
	return h == TJ_SLOT_POWER || h == TJ_SLOT_LINK ? slot_how_names[h] :
	       "?";
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

int tj_check_dir(const char *dir)
{
	struct statvfs vfs;
	struct stat st;

	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (statvfs(dir, &vfs) < 0)
		return -errno;
	if (vfs.f_flag & ST_RDONLY)
		return -EROFS;
	/* access() answers for this process's credentials and capabilities
	 * (root without CAP_DAC_OVERRIDE is refused a 0555 folder) */
	if (access(dir, W_OK | X_OK) < 0)
		return errno == EROFS ? -EROFS : -EACCES;
	if ((uint64_t)vfs.f_bavail * vfs.f_frsize < TJ_SPACE_MIN ||
	    (vfs.f_files && !vfs.f_favail))
		return -ENOSPC;
	return 0;
}

int tj_atomic_write(const char *dir, const char *name, const char *buf,
		    size_t len)
{
	char tmp[4096], dst[4096];
	int fd, r = 0;
	size_t off = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >=
	    sizeof(tmp) ||
	    (size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, name) >=
	    sizeof(dst))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto fail;
		}
		off += (size_t)n;
	}
	if (fsync(fd) < 0) {
		r = -errno;
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		r = -errno;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, dst) < 0) {
		r = -errno;
		goto fail;
	}
	return fsync_dir(dir);
fail:
	if (fd >= 0)
		close(fd);
	(void)unlink(tmp);
	return r;
}

static enum pcitopo_layout lparse(const char *s, int *ok)
{
	enum pcitopo_layout l;

	if (!strcmp(s, "unknown"))
		return PCITOPO_LAYOUT_UNKNOWN;
	l = ptc_layout_by_name(s);
	if (!l)
		*ok = 0;
	return l;
}

/* Append "key=a,b,c\n"; items must not contain ',' or newlines. */
static void put_list(FILE *f, const char *key, const char *base,
		     size_t stride, unsigned int n)
{
	fprintf(f, "%s=", key);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", base + i * stride);
	fputc('\n', f);
}

static int get_list(char *val, char *base, size_t stride, unsigned int max,
		    unsigned int *n)
{
	char *save = NULL, *tok;

	*n = 0;
	for (tok = strtok_r(val, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max || strlen(tok) >= stride)
			return -EBADMSG;
		strcpy(base + (*n)++ * stride, tok);
	}
	return 0;
}

/* The next '/'-separated field of *s (empty fields kept), NULL at the end. */
static char *field(char **s)
{
	return strsep(s, "/");
}

static int copy_field(char *dst, size_t cap, const char *src)
{
	if (!src || strlen(src) >= cap)
		return -EBADMSG;
	strcpy(dst, src);
	return 0;
}

static int parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	if (!s)
		return -EBADMSG;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *end || x > UINT32_MAX)
		return -EBADMSG;
	*v = (uint32_t)x;
	return 0;
}

static int get_unbound(char *val, struct tj_job *j)
{
	char *save = NULL, *tok;

	j->nunbound = 0;
	for (tok = strtok_r(val, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct tj_dev *d;
		char *s = tok;

		if (j->nunbound >= TJ_MAX_DEVS)
			return -EBADMSG;
		d = &j->unbound[j->nunbound++];
		if (copy_field(d->addr, sizeof(d->addr), field(&s)) ||
		    copy_field(d->driver, sizeof(d->driver), field(&s)) || s ||
		    !*d->addr || !*d->driver)
			return -EBADMSG;
	}
	return 0;
}

static int get_slots(char *val, struct tj_job *j)
{
	char *save = NULL, *tok;

	j->nslots = 0;
	for (tok = strtok_r(val, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct tj_slot *sl;
		char *s = tok, *how;

		if (j->nslots >= TJ_MAX_PORTS)
			return -EBADMSG;
		sl = &j->slots[j->nslots++];
		if (copy_field(sl->port, sizeof(sl->port), field(&s)) ||
		    !*sl->port)
			return -EBADMSG;
		how = field(&s);
		if (!how || s)
			return -EBADMSG;
		if (!strcmp(how, slot_how_names[TJ_SLOT_POWER]))
			sl->how = TJ_SLOT_POWER;
		else if (!strcmp(how, slot_how_names[TJ_SLOT_LINK]))
			sl->how = TJ_SLOT_LINK;
		else
			return -EBADMSG;
	}
	return 0;
}

static int get_gpus(char *val, struct tj_job *j)
{
	char *save = NULL, *tok;

	j->ngpus = 0;
	for (tok = strtok_r(val, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct tj_gpu *g;
		char *s = tok;

		if (j->ngpus >= TJ_MAX_DEVS)
			return -EBADMSG;
		g = &j->gpus[j->ngpus++];
		if (copy_field(g->addr, sizeof(g->addr), field(&s)) ||
		    copy_field(g->parent, sizeof(g->parent), field(&s)) ||
		    parse_u32(field(&s), &g->link_max_speed) ||
		    parse_u32(field(&s), &g->link_max_width) ||
		    parse_u32(field(&s), &g->link_flags) || s || !*g->addr)
			return -EBADMSG;
	}
	return 0;
}

/* Error text goes on one line. */
static void put_text(FILE *f, const char *key, const char *s)
{
	fprintf(f, "%s=", key);
	for (; *s; s++)
		fputc(*s == '\n' ? ' ' : *s, f);
	fputc('\n', f);
}

static int write_mem(const char *dir, const char *name,
		     void (*fill)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return -ENOMEM;
	fill(f, arg);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	r = tj_atomic_write(dir, name, buf, len);
	free(buf);
	return r;
}

static void fill_job(FILE *f, const void *arg)
{
	const struct tj_job *j = arg;

	fprintf(f, "# topod: the layout switch in flight (do not edit)\n");
	fprintf(f, "version=%d\n", TJ_VERSION);
	fprintf(f, "state=%s\n", tj_state_name(j->state));
	fprintf(f, "phase=%s\n", j->phase);
	fprintf(f, "from=%s\nto=%s\n", ptc_layout_name(j->from),
		ptc_layout_name(j->to));
	fprintf(f, "flags=%" PRIu64 "\n", j->flags);
	fprintf(f, "bmc_sent=%d\n", j->bmc_sent ? 1 : 0);
	fprintf(f, "bmc_current=%s\nbmc_pending=%s\n",
		ptc_layout_name(j->bmc_current), ptc_layout_name(j->bmc_pending));
	fprintf(f, "started_usec=%" PRIu64 "\n", j->started_usec);
	put_list(f, "units", &j->units[0][0], TJ_UNIT_LEN, j->nunits);
	put_list(f, "ports", &j->ports[0][0], PCITOPO_ADDR_LEN, j->nports);
	/* port/how: a port address holds no '/' or ',' */
	fprintf(f, "slots=");
	for (unsigned int i = 0; i < j->nslots; i++)
		fprintf(f, "%s%s/%s", i ? "," : "", j->slots[i].port,
			tj_slot_how_name(j->slots[i].how));
	fputc('\n', f);
	put_text(f, "error", j->error);
	fprintf(f, "rollback_failed=%d\n", j->rollback_failed ? 1 : 0);
	put_text(f, "rollback_error", j->rollback_error);
	/* addr/driver: neither holds a '/' or ',' (sysfs names) */
	fprintf(f, "unbound=");
	for (unsigned int i = 0; i < j->nunbound; i++)
		fprintf(f, "%s%s/%s", i ? "," : "", j->unbound[i].addr,
			j->unbound[i].driver);
	fputc('\n', f);
	/* addr/parent/speed/width/flags, GPU0 first */
	fprintf(f, "gpus=");
	for (unsigned int i = 0; i < j->ngpus; i++)
		fprintf(f, "%s%s/%s/%" PRIu32 "/%" PRIu32 "/%" PRIu32,
			i ? "," : "", j->gpus[i].addr, j->gpus[i].parent,
			j->gpus[i].link_max_speed, j->gpus[i].link_max_width,
			j->gpus[i].link_flags);
	fputc('\n', f);
	fprintf(f, "boot_id=%s\n", j->boot_id);
	fprintf(f, "end=1\n");
}

int tj_job_write(const char *dir, const struct tj_job *j)
{
	return write_mem(dir, TJ_JOB_FILE, fill_job, j);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || end == s || *end) ? -EBADMSG : 0;
}

/* Reads dir/name line by line, calling kv() for each key=value. */
static int read_kv(const char *dir, const char *name,
		   int (*kv)(void *, char *, char *), void *arg,
		   unsigned int *line_out)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	unsigned int lineno = 0;
	int r = 0, end = 0;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *eq, *nl;

		lineno++;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			r = -EBADMSG;
			break;
		}
		*eq = '\0';
		if (!strcmp(line, "end")) {
			end = 1;
			continue;
		}
		if (!strcmp(line, "version")) {
			uint64_t v;

			if (parse_u64(eq + 1, &v) || !v) {
				r = -EBADMSG;
				break;
			}
			/* a newer topod's (a downgrade): its fields may mean
			 * what this one cannot know, so nothing is guessed */
			if (v > TJ_VERSION) {
				r = -EPROTONOSUPPORT;
				break;
			}
			continue;
		}
		r = kv(arg, line, eq + 1);
		if (r)
			break;
	}
	if (!r && !end)
		r = -EBADMSG;	/* torn: the end marker is missing */
	if (r && line_out)
		*line_out = lineno;
	free(line);
	fclose(f);
	return r;
}

static int kv_job(void *arg, char *k, char *v)
{
	struct tj_job *j = arg;
	int ok = 1;

	if (!strcmp(k, "state")) {
		for (int s = 0; s < __TJ_STATE_MAX; s++)
			if (!strcmp(v, state_names[s])) {
				j->state = (enum tj_state)s;
				return 0;
			}
		return -EBADMSG;
	}
	if (!strcmp(k, "phase")) {
		if (strlen(v) >= sizeof(j->phase))
			return -EBADMSG;
		strcpy(j->phase, v);
		return 0;
	}
	if (!strcmp(k, "from")) {
		j->from = lparse(v, &ok);
		return ok ? 0 : -EBADMSG;
	}
	if (!strcmp(k, "to")) {
		j->to = lparse(v, &ok);
		return ok ? 0 : -EBADMSG;
	}
	if (!strcmp(k, "flags"))
		return parse_u64(v, &j->flags);
	if (!strcmp(k, "bmc_sent")) {
		j->bmc_sent = !strcmp(v, "1");
		return 0;
	}
	if (!strcmp(k, "bmc_current")) {
		j->bmc_current = lparse(v, &ok);
		return ok ? 0 : -EBADMSG;
	}
	if (!strcmp(k, "bmc_pending")) {
		j->bmc_pending = lparse(v, &ok);
		return ok ? 0 : -EBADMSG;
	}
	if (!strcmp(k, "started_usec"))
		return parse_u64(v, &j->started_usec);
	if (!strcmp(k, "units"))
		return get_list(v, &j->units[0][0], TJ_UNIT_LEN, TJ_MAX_UNITS,
				&j->nunits);
	if (!strcmp(k, "ports"))
		return get_list(v, &j->ports[0][0], PCITOPO_ADDR_LEN,
				TJ_MAX_PORTS, &j->nports);
	if (!strcmp(k, "slots"))
		return get_slots(v, j);
	if (!strcmp(k, "error")) {
		snprintf(j->error, sizeof(j->error), "%s", v);
		return 0;
	}
	if (!strcmp(k, "rollback_failed")) {
		j->rollback_failed = !strcmp(v, "1");
		return 0;
	}
	if (!strcmp(k, "rollback_error")) {
		snprintf(j->rollback_error, sizeof(j->rollback_error), "%s", v);
		return 0;
	}
	if (!strcmp(k, "unbound"))
		return get_unbound(v, j);
	if (!strcmp(k, "gpus"))
		return get_gpus(v, j);
	if (!strcmp(k, "boot_id"))
		return copy_field(j->boot_id, sizeof(j->boot_id), v);
	return -EBADMSG;
}

int tj_job_read(const char *dir, struct tj_job *j, unsigned int *line)
{
	int r;

	memset(j, 0, sizeof(*j));
	r = read_kv(dir, TJ_JOB_FILE, kv_job, j, line);
	if (!r && j->state == TJ_NONE)
		r = -EBADMSG;
	return r;
}

int tj_job_remove(const char *dir)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, TJ_JOB_FILE) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	if (unlink(path) < 0)
		return errno == ENOENT ? 0 : -errno;
	return fsync_dir(dir);
}

int tj_job_set_aside(const char *dir, char *name, size_t len)
{
	char src[4096], dst[4096], stamp[32];
	struct tm tm;
	time_t now = time(NULL);

	if ((size_t)snprintf(src, sizeof(src), "%s/%s", dir, TJ_JOB_FILE) >=
	    sizeof(src))
		return -ENAMETOOLONG;
	if (!gmtime_r(&now, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		return -EINVAL;
	for (unsigned int n = 1; n < 100; n++) {
		int w = n == 1 ?
			snprintf(name, len, "%s.corrupt-%s", TJ_JOB_FILE, stamp) :
			snprintf(name, len, "%s.corrupt-%s-%u", TJ_JOB_FILE,
				 stamp, n);

		if (w < 0 || (size_t)w >= len ||
		    (size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, name) >=
		    sizeof(dst))
			return -ENAMETOOLONG;
		/* never over an older one: link() refuses an existing name */
		if (link(src, dst) < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		if (unlink(src) < 0)
			return -errno;
		return fsync_dir(dir);
	}
	return -EEXIST;
}

static void fill_committed(FILE *f, const void *arg)
{
	const struct tj_committed *c = arg;

	fprintf(f, "# topod: the committed layout (do not edit)\n");
	fprintf(f, "version=%d\n", TJ_VERSION);
	fprintf(f, "layout=%s\n", ptc_layout_name(c->layout));
	fprintf(f, "generation=%" PRIu64 "\n", c->generation);
	put_text(f, "last_error", c->last_error);
	fprintf(f, "end=1\n");
}

int tj_committed_write(const char *dir, const struct tj_committed *c)
{
	return write_mem(dir, TJ_STATE_FILE, fill_committed, c);
}

static int kv_committed(void *arg, char *k, char *v)
{
	struct tj_committed *c = arg;
	int ok = 1;

	if (!strcmp(k, "layout")) {
		c->layout = lparse(v, &ok);
		return ok ? 0 : -EBADMSG;
	}
	if (!strcmp(k, "generation"))
		return parse_u64(v, &c->generation);
	if (!strcmp(k, "last_error")) {
		snprintf(c->last_error, sizeof(c->last_error), "%s", v);
		return 0;
	}
	return -EBADMSG;
}

int tj_committed_read(const char *dir, struct tj_committed *c)
{
	memset(c, 0, sizeof(*c));
	return read_kv(dir, TJ_STATE_FILE, kv_committed, c, NULL);
}
