// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the module, pcitopo.ko, through libpcitopo's generic netlink
 * (the host's backend, hw_host.c): snapshots of the layout and its GPUs,
 * the event socket, detach, rescan and the platform's extra GPU IDs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_backend.h"
#include "nl.h"

struct hw_mod {
	struct pt_nl *nl;		/* requests */
	struct pt_nl *mon;		/* events, may be NULL */
};

static int mod_open(struct hw *h, bool monitor, char *err, size_t len)
{
	struct hw_mod *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	r = pt_nl_open(&m->nl);
	if (r) {
		snprintf(err, len, r == -ENOENT ?
			 "pcitopo module not loaded (modprobe pcitopo)" :
			 "generic netlink: %s", strerror(-r));
		free(m);
		return r;
	}
	if (monitor) {
		r = pt_nl_monitor_open(&m->mon);
		if (r) {
			snprintf(err, len, "module events: %s", strerror(-r));
			pt_nl_close(m->nl);
			free(m);
			return r;
		}
	}
	h->priv = m;
	return 0;
}

static void mod_close(struct hw *h)
{
	struct hw_mod *m = h->priv;

	pt_nl_close(m->nl);
	pt_nl_close(m->mon);
	free(m);
}

static int mod_fd(const struct hw *h)
{
	const struct hw_mod *m = h->priv;

	return m->mon ? pt_nl_monitor_fd(m->mon) : -1;
}

static int mod_drain(struct hw *h)
{
	struct hw_mod *m = h->priv;
	struct pt_event ev;
	int any = 0, r;

	if (!m->mon)
		return 0;
	while ((r = pt_nl_monitor_read(m->mon, &ev)) != -EAGAIN) {
		if (r == -ENOBUFS || !r)
			any = 1;
		else
			break;
	}
	return any;
}

/* The summary and the devices at one generation (libpcitopo retries while
 * the topology changes under it), the GPUs in bus order. */
static int mod_snapshot(struct hw *h, struct hw_snap *s, char *err,
			size_t len)
{
	struct hw_mod *m = h->priv;
	struct pt_topology t;
	int r;

	memset(s, 0, sizeof(*s));
	r = pt_nl_load_devices(m->nl, &t);
	if (r) {
		snprintf(err, len, "module: %s", strerror(-r));
		return r;
	}
	s->layout = t.summary.layout;
	snprintf(s->reason, sizeof(s->reason), "%s", t.summary.reason);
	s->generation = t.summary.generation;
	for (size_t i = 0; i < t.n_devices && s->ngpus < HW_MAX_GPUS; i++) {
		const struct pt_device *d = &t.devices[i];
		struct hw_gpu *g;

		if (d->role != PCITOPO_ROLE_ENDPOINT ||
		    d->kind != PCITOPO_KIND_GPU)
			continue;
		g = &s->gpus[s->ngpus++];
		memcpy(g->addr, d->addr, sizeof(g->addr));
		memcpy(g->parent, d->parent, sizeof(g->parent));
		g->link_max_speed = d->link_max_speed;
		g->link_max_width = d->link_max_width;
		g->link_flags = d->link_flags;
	}
	pt_topology_free(&t);
	return 0;
}

static int mod_detach(struct hw *h, const char *port, char *err, size_t len)
{
	struct hw_mod *m = h->priv;
	int r = pt_nl_detach(m->nl, port);

	if (r)
		snprintf(err, len, "detach %s: %s%s%s", port, strerror(-r),
			 pt_nl_last_error(m->nl) ? ": " : "",
			 pt_nl_last_error(m->nl) ? pt_nl_last_error(m->nl) : "");
	return r;
}

static int mod_rescan(struct hw *h, char *err, size_t len)
{
	struct hw_mod *m = h->priv;
	int r = pt_nl_rescan(m->nl, NULL);

	if (r)
		snprintf(err, len, "rescan: %s", strerror(-r));
	return r;
}

static int mod_add_ids(struct hw *h, const struct pt_platform *p)
{
	struct hw_mod *m = h->priv;
	int r;

	for (unsigned int i = 0; i < p->nids; i++) {
		r = pt_nl_add_id(m->nl, p->gpu_ids[i].vendor,
				 p->gpu_ids[i].device, PCITOPO_KIND_GPU);
		if (r && r != -EEXIST)
			return r;
	}
	return 0;
}

const struct hw_module_ops hw_module_ops = {
	.open = mod_open,
	.close = mod_close,
	.snapshot = mod_snapshot,
	.fd = mod_fd,
	.drain = mod_drain,
	.detach = mod_detach,
	.rescan = mod_rescan,
	.add_ids = mod_add_ids,
};
