// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the host side of a switch (hostside.h), on the build's backend
 * (hw_backend.h): what does not depend on it (waiting for the GPUs, which
 * of them move) and the calls into it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_backend.h"

int hw_open(const struct tconfig *c, const struct pt_platform *p,
	    bool monitor, struct hw **out, char *err, size_t len)
{
	struct hw *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return -ENOMEM;
	h->cfg = c;
	h->plat = p;
	r = hw_backend.module->open(h, monitor, err, len);
	if (r) {
		free(h);
		return r;
	}
	*out = h;
	return 0;
}

void hw_close(struct hw *h)
{
	if (!h)
		return;
	hw_backend.module->close(h);
	free(h);
}

const char *hw_what(void)
{
	return hw_backend.what;
}

int hw_snapshot(struct hw *h, struct hw_snap *s, char *err, size_t len)
{
	return hw_backend.module->snapshot(h, s, err, len);
}

int hw_fd(const struct hw *h)
{
	return hw_backend.module->fd(h);
}

int hw_drain(struct hw *h)
{
	return hw_backend.module->drain(h);
}

int hw_detach(struct hw *h, const char *port, char *err, size_t len)
{
	return hw_backend.module->detach(h, port, err, len);
}

int hw_rescan(struct hw *h, char *err, size_t len)
{
	return hw_backend.module->rescan(h, err, len);
}

int hw_add_ids(struct hw *h, const struct pt_platform *p)
{
	return hw_backend.module->add_ids(h, p);
}

int hw_wait(struct hw *h, enum pcitopo_layout want, unsigned int gpus,
	    unsigned int budget_ms, unsigned int rescan_ms, struct hw_snap *s,
	    char *err, size_t len)
{
	uint64_t start = now_usec(), deadline = start +
			 (uint64_t)budget_ms * 1000u, progress = start;
	unsigned int seen = 0;
	bool rescanned = !rescan_ms;
	int r;

	for (;;) {
		uint64_t now, until;
		int wait_ms;

		r = hw_snapshot(h, s, err, len);
		if (r)
			return r;
		/* every GPU back: the tree is complete, and so is the
		 * module's verdict on it. A layout that is not the one asked
		 * for will not become it by waiting (a MUX that reported
		 * done without moving anything): verify says so at once. */
		if (s->ngpus >= gpus)
			return 0;
		now = now_usec();
		if (s->ngpus > seen) {
			seen = s->ngpus;
			progress = now;
		}
		/* GPUs missing and none arrived for rescan_ms, or the budget
		 * spent: one rescan, for a GPU that no hotplug slot of the
		 * kernel's enumerates (it does not hurry pciehp: both take
		 * the same lock) */
		if (!rescanned && (now >= progress + (uint64_t)rescan_ms * 1000u ||
				   now >= deadline)) {
			rescanned = true;
			tlog(LOG_NOTICE, "%u of %u GPUs after %llu ms, none new for "
			     "%llu ms: rescanning", s->ngpus, gpus,
			     (unsigned long long)(now - start) / 1000u,
			     (unsigned long long)(now - progress) / 1000u);
			fault_point("hw_rescan");
			r = hw_rescan(h, err, len);
			if (r)
				return r;
			continue;
		}
		if (now >= deadline) {
			snprintf(err, len,
				 "after %u ms: layout %s (%s), %u of %u GPUs (%s wanted)",
				 budget_ms,
				 ptc_layout_name(s->layout), s->reason,
				 s->ngpus, gpus, ptc_layout_name(want));
			return -ETIMEDOUT;
		}
		until = deadline;
		if (!rescanned &&
		    progress + (uint64_t)rescan_ms * 1000u < until)
			until = progress + (uint64_t)rescan_ms * 1000u;
		wait_ms = (int)((until - now + 999u) / 1000u);
		if (hw_fd(h) >= 0) {
			struct pollfd pfd = { .fd = hw_fd(h), .events = POLLIN };

			/* events wake us; the 1 s cap only guards against a
			 * missed one during the wait */
			(void)poll(&pfd, 1, wait_ms > 1000 ? 1000 : wait_ms);
			(void)hw_drain(h);
		} else {
			sleep_ms(wait_ms > 100 ? 100 : (unsigned int)wait_ms);
		}
	}
}

int hw_slot_how(struct hw *h, const char *port)
{
	return hw_backend.slots->how(h, port);
}

int hw_slots_down(struct hw *h, const struct tj_slot *s, unsigned int n,
		  char *err, size_t len)
{
	unsigned int count = 0;

	if (n > TJ_MAX_PORTS)
		return -E2BIG;
	return hw_backend.slots->set(h, s, n, false, &count, err, len);
}

int hw_slots_up(struct hw *h, const struct tj_slot *s, unsigned int n,
		unsigned int *up, char *err, size_t len)
{
	*up = 0;
	if (n > TJ_MAX_PORTS)
		return -E2BIG;
	return hw_backend.slots->set(h, s, n, true, up, err, len);
}

int hw_unbind(struct hw *h, const char *addr, char *err, size_t len)
{
	return hw_backend.drivers->unbind(h, addr, err, len);
}

int hw_driver(struct hw *h, const char *addr, char *drv, size_t len)
{
	*drv = '\0';
	return hw_backend.drivers->driver(h, addr, drv, len);
}

int hw_bind(struct hw *h, const char *addr, const char *driver, char *err,
	    size_t len)
{
	return hw_backend.drivers->bind(h, addr, driver, err, len);
}

int hw_boot_id(const struct tconfig *c, char *buf, size_t len)
{
	return hw_backend.boot_id(c, buf, len);
}

int hw_moving(const struct pt_platform *p, const struct hw_snap *s,
	      char devs[][PCITOPO_ADDR_LEN], unsigned int maxdevs,
	      char ports[][PCITOPO_ADDR_LEN], unsigned int maxports,
	      unsigned int *nports)
{
	unsigned int n = 0;

	*nports = 0;
	for (unsigned int i = 0; i < s->ngpus; i++) {
		const struct hw_gpu *g = &s->gpus[i];
		bool moves = false;

		for (unsigned int k = 0; k < p->ngpus; k++)
			moves |= p->gpus[k] == i;
		for (unsigned int k = 0; k < p->naddrs; k++)
			moves |= !strcmp(p->addrs[k], g->addr);
		if (!moves || n >= maxdevs)
			continue;
		memcpy(devs[n++], g->addr, PCITOPO_ADDR_LEN);
		if (g->parent[0]) {
			bool seen = false;

			for (unsigned int k = 0; k < *nports; k++)
				seen |= !strcmp(ports[k], g->parent);
			if (!seen && *nports < maxports)
				memcpy(ports[(*nports)++], g->parent,
				       PCITOPO_ADDR_LEN);
		}
	}
	return (int)n;
}
