// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the NFD feature file (nfd.h), written from the main thread.
 *
 * nfd_update() is called where topod's state may have changed (the
 * property changes of the bus, each refresh of the module's view); it
 * writes only when the labels differ from the file last written, so a
 * Status() call costs a string compare. Written as NFD asks of a feature
 * file: the whole file under a dot-name in the same directory (NFD skips
 * dot-files), fsync, rename over the old one, fsync of the directory: the
 * worker, woken by inotify, reads the old labels or the new, never half.
 * The directory is NFD's (its worker's hostPath): topod never creates it,
 * and without it topod logs that once and goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nfd.h"
#include "ptc.h"
#include "topod.h"

static struct {
	bool started;
	bool written;			/* last holds what the file says */
	int last_err;			/* of the last failure logged, 0 */
	char last[4096];
	/* the model's P2P class of each layout, for the platform's GPUs */
	int p2p[__PCITOPO_LAYOUT_MAX];
} nfd;

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* dir/NFD_FILE = text, atomically; -errno with err set ("what: why") */
static int nfd_write(const char *dir, const char *text, char *err,
		     size_t len)
{
	int dfd, fd, r;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		snprintf(err, len, "%.300s: %s", dir, strerror(-r));
		return r;
	}
	fd = openat(dfd, NFD_TMP_FILE, O_WRONLY | O_CREAT | O_TRUNC |
		    O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		snprintf(err, len, "%.300s/%s: %s", dir, NFD_TMP_FILE, strerror(-r));
		goto out;
	}
	r = write_all(fd, text, strlen(text));
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (r) {
		snprintf(err, len, "%.300s/%s: %s", dir, NFD_TMP_FILE, strerror(-r));
		(void)unlinkat(dfd, NFD_TMP_FILE, 0);
		goto out;
	}
	if (renameat(dfd, NFD_TMP_FILE, dfd, NFD_FILE) < 0) {
		r = -errno;
		snprintf(err, len, "%.300s/%s: rename: %s", dir, NFD_FILE,
			 strerror(-r));
		(void)unlinkat(dfd, NFD_TMP_FILE, 0);
		goto out;
	}
	/* the rename itself, on disk */
	(void)fsync(dfd);
out:
	close(dfd);
	return r;
}

int nfd_remove(const char *dir, char *err, size_t len)
{
	static const char *const names[] = { NFD_FILE, NFD_TMP_FILE };
	char path[sizeof(((struct tconfig *)0)->nfd_dir) + sizeof(NFD_FILE) + 2];
	int n = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!unlink(path)) {
			n++;
		} else if (errno != ENOENT && errno != ENOTDIR) {
			int r = -errno;

			snprintf(err, len, "%.300s: %s", path, strerror(-r));
			return r;
		}
	}
	return n;
}

static bool present(const char *dir)
{
	char path[sizeof(((struct tconfig *)0)->nfd_dir) + sizeof(NFD_FILE) + 1];

	snprintf(path, sizeof(path), "%s/%s", dir, NFD_FILE);
	return !access(path, F_OK);
}

/* as the Layout property says it (core's names) */
static const char *name_of(enum pcitopo_layout l)
{
	return ptc_layout_name((u8)l);
}

void nfd_start(struct topod *d)
{
	if (!d->cfg.nfd_dir[0]) {
		tlog(LOG_INFO, "node labels (NFD): off (nfd_features_dir = \"\")");
		return;
	}
	u8 l;

	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		int c;

		if (!d->plat.layouts[l].present)
			continue;
		c = nfd_p2p_class(l, d->plat.layouts[l].gpus);
		if (c < 0)
			tlog(LOG_WARNING, "node labels: no p2p label for %s: "
			     "the model cannot build it (%s)", name_of(l),
			     strerror(-c));
		nfd.p2p[l] = c > 0 ? c : 0;
	}
	nfd.started = true;
	nfd_update(d);
}

void nfd_update(struct topod *d)
{
	struct nfd_input in = { 0 };
	char text[sizeof(nfd.last)], why[512];
	int n, r;
	u8 l;

	if (!nfd.started)
		return;
	in.layout = name_of(d->layout);
	in.gpus = d->gpus;
	in.state = tstate_name(d->state);
	/* where the node is going: the target of the switch in flight, or
	 * the layout waiting for a power cycle (not a rollback's: that is
	 * where it was) */
	if (d->state == TS_SWITCHING && d->job)
		in.pending = name_of(d->target);
	else if (d->state == TS_AWAITING_POWER_CYCLE && d->pending)
		in.pending = name_of(d->pending);
	in.apply = pt_platform_apply_name(d->plat.apply);
	in.drift = !strncmp(d->last_error, "drift:", 6);
	for (l = ptc_layout_first(); l; l = ptc_layout_next(l))
		in.switchable[l] = d->plat.layouts[l].present;
	if (ptc_layout_switchable((u8)d->layout))
		in.p2p_class = nfd.p2p[d->layout];
	n = nfd_format(&in, text, sizeof(text), why, sizeof(why));
	if (n < 0) {
		/* a label NFD would drop: topod's bug, said once */
		if (n != nfd.last_err)
			tlog(LOG_ERR, "node labels: not written: %s", why);
		nfd.last_err = n;
		return;
	}
	/* unchanged, and still there (not removed by hand): nothing to do */
	if (nfd.written && !strcmp(text, nfd.last) && present(d->cfg.nfd_dir))
		return;
	r = nfd_write(d->cfg.nfd_dir, text, why, sizeof(why));
	if (r) {
		/* tried again at the next change or refresh; logged once
		 * per cause, not at every Status() */
		tlog(r != nfd.last_err ? LOG_ERR : LOG_DEBUG,
		     "node labels (NFD): %s; topod goes on without them", why);
		nfd.last_err = r;
		nfd.written = false;
		return;
	}
	if (nfd.last_err)
		tlog(LOG_NOTICE, "node labels (NFD): %s/%s written again",
		     d->cfg.nfd_dir, NFD_FILE);
	else
		tlog(LOG_DEBUG, "node labels (NFD): %s/%s: layout %s, state %s",
		     d->cfg.nfd_dir, NFD_FILE, in.layout, in.state);
	nfd.last_err = 0;
	nfd.written = true;
	memcpy(nfd.last, text, (size_t)n + 1);
}
