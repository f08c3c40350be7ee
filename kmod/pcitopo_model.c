// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo: the model.
 *
 * A snapshot (struct pcitopo_snap) is built from a walk of the PCI tree,
 * resolved and classified by the core, then published; once published it
 * never changes. Readers (sysfs, netlink) take a reference to the current
 * snapshot under a spinlock held for a pointer load and a kref_get, and
 * drop it when done; they never rebuild.
 *
 * Rebuilds are serialized by pcitopo_rebuild_lock. A rebuild compares the
 * new snapshot with the current one by PCI address; only if something
 * changed is it published with generation + 1, then handed to every
 * subscriber (sysfs, netlink: struct pcitopo_subscriber), snapshot first,
 * then the changes, all under pcitopo_rebuild_lock so that the events of
 * one change precede the next change's. The model does not know who its
 * subscribers are; pcitopo_main.c subscribes them.
 *
 * Rebuilds come from: module load (generation 1), the PCI bus notifier
 * (debounced, see PCITOPO_DEBOUNCE_MS), the REFRESH command and sysfs
 * refresh file, extra ID changes, and DETACH/RESCAN.
 *
 * Lock order: pcitopo_rebuild_lock, then pci_lock_rescan_remove(). The bus
 * notifier runs under the latter and only queues work.
 */
#define pr_fmt(fmt) "pcitopo: " fmt

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "pcitopo_internal.h"

/*
 * Bus events come in bursts: removing a switch sends one DEL_DEVICE per
 * device below it, a rescan one ADD_DEVICE per device found, a few
 * microseconds to milliseconds apart. Each event pushes the rebuild back by
 * this much, so a burst costs one walk and one generation, not one per
 * device. 50 ms is far below the time a hotplug takes (pciehp alone waits
 * seconds), so readers still see the change promptly.
 */
#define PCITOPO_DEBOUNCE_MS	50

static DEFINE_MUTEX(pcitopo_rebuild_lock);
static DEFINE_SPINLOCK(pcitopo_snap_lock);
static struct pcitopo_snap *pcitopo_cur;	/* written under both locks */
static LIST_HEAD(pcitopo_subscribers);		/* under pcitopo_rebuild_lock */

static void pcitopo_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(pcitopo_work, pcitopo_work_fn);

/* ---- snapshots ---- */

static u64 pcitopo_key(u32 domain, u8 bus, u8 devfn)
{
	return ((u64)domain << 16) | ((u32)bus << 8) | devfn;
}

static u64 pcitopo_node_key(const struct ptc_node *n)
{
	return pcitopo_key(n->domain, n->bus, n->devfn);
}

static void pcitopo_snap_free(struct pcitopo_snap *s)
{
	kvfree(s->topo.nodes);
	kvfree(s->addr);
	kvfree(s->by_addr);
	kvfree(s->paths);
	kvfree(s->path_first);
	kfree(s);
}

static void pcitopo_snap_release(struct kref *ref)
{
	pcitopo_snap_free(container_of(ref, struct pcitopo_snap, ref));
}

struct pcitopo_snap *pcitopo_snap_get(void)
{
	struct pcitopo_snap *s;

	spin_lock(&pcitopo_snap_lock);
	s = pcitopo_cur;
	if (s)
		kref_get(&s->ref);
	spin_unlock(&pcitopo_snap_lock);
	return s;
}

void pcitopo_snap_put(struct pcitopo_snap *s)
{
	if (s)
		kref_put(&s->ref, pcitopo_snap_release);
}

int pcitopo_snap_find_bdf(const struct pcitopo_snap *s, u32 domain, u8 bus,
			  u8 devfn)
{
	u64 key = pcitopo_key(domain, bus, devfn);
	u32 lo = 0, hi = s->topo.count;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		u64 k = pcitopo_node_key(&s->topo.nodes[s->by_addr[mid]]);

		if (k == key)
			return s->by_addr[mid];
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENODEV;
}

const struct pcitopo_path_ent *
pcitopo_snap_path(const struct pcitopo_snap *s, u32 a, u32 b)
{
	u32 i;

	if (a >= s->topo.count)
		return NULL;
	for (i = s->path_first[a]; i < s->path_first[a + 1]; i++)
		if (s->paths[i].b == b)
			return &s->paths[i];
	return NULL;
}

void pcitopo_host_bridge_name(const struct ptc_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%02x", n->domain, n->root_bus);
}

static int pcitopo_cmp_addr(const void *a, const void *b, const void *priv)
{
	const struct ptc_node *nodes = priv;
	u64 ka = pcitopo_node_key(&nodes[*(const u32 *)a]);
	u64 kb = pcitopo_node_key(&nodes[*(const u32 *)b]);

	return ka < kb ? -1 : ka > kb;
}

/* Address strings and the index sorted by address. */
static int pcitopo_snap_index(struct pcitopo_snap *s)
{
	u32 i, n = s->topo.count;

	s->addr = kvcalloc(max(n, 1U), sizeof(*s->addr), GFP_KERNEL);
	s->by_addr = kvcalloc(max(n, 1U), sizeof(*s->by_addr), GFP_KERNEL);
	if (!s->addr || !s->by_addr)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct ptc_node *nd = &s->topo.nodes[i];

		ptc_addr_format(s->addr[i], PCITOPO_ADDR_LEN, nd->domain,
				nd->bus, nd->devfn);
		s->by_addr[i] = i;
	}
	sort_r(s->by_addr, n, sizeof(*s->by_addr), pcitopo_cmp_addr, NULL,
	       s->topo.nodes);
	for (i = 1; i < n; i++)
		if (pcitopo_node_key(&s->topo.nodes[s->by_addr[i]]) ==
		    pcitopo_node_key(&s->topo.nodes[s->by_addr[i - 1]]))
			return -EINVAL;
	return 0;
}

static bool pcitopo_is_endpoint(const struct pcitopo_snap *s, u32 i)
{
	return s->topo.nodes[i].role == PCITOPO_ROLE_ENDPOINT;
}

/* The path table: every ordered pair ptc_pair_of_interest() accepts. */
static int pcitopo_snap_paths(struct pcitopo_snap *s)
{
	const struct ptc_topo *t = &s->topo;
	u32 a, b, n = 0;

	s->path_first = kvcalloc(t->count + 1, sizeof(*s->path_first),
				 GFP_KERNEL);
	if (!s->path_first)
		return -ENOMEM;
	for (a = 0; a < t->count; a++) {
		if (!pcitopo_is_endpoint(s, a))
			continue;
		for (b = 0; b < t->count; b++)
			if (pcitopo_is_endpoint(s, b) &&
			    ptc_pair_of_interest(t, a, b))
				n++;
	}
	s->paths = kvcalloc(max(n, 1U), sizeof(*s->paths), GFP_KERNEL);
	if (!s->paths)
		return -ENOMEM;
	n = 0;
	for (a = 0; a < t->count; a++) {
		s->path_first[a] = n;
		if (!pcitopo_is_endpoint(s, a))
			continue;
		for (b = 0; b < t->count; b++) {
			if (!pcitopo_is_endpoint(s, b) ||
			    !ptc_pair_of_interest(t, a, b))
				continue;
			s->paths[n].a = a;
			s->paths[n].b = b;
			ptc_path(t, a, b, &s->paths[n].path);
			n++;
		}
	}
	s->path_first[t->count] = n;
	s->npaths = n;
	return 0;
}

static struct pcitopo_snap *pcitopo_snap_build(void)
{
	struct pcitopo_id_table ids;
	struct pcitopo_snap *s;
	u32 count, got = 0;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	kref_init(&s->ref);
	pcitopo_ids_copy(&ids);

	/* Count, then fill, under one hold of the lock: the tree is stable. */
	pci_lock_rescan_remove();
	count = pcitopo_walk(NULL, 0, &ids);
	s->topo.nodes = kvcalloc(max(count, 1U), sizeof(*s->topo.nodes),
				 GFP_KERNEL);
	if (s->topo.nodes)
		got = pcitopo_walk(s->topo.nodes, count, &ids);
	pci_unlock_rescan_remove();

	ret = -ENOMEM;
	if (!s->topo.nodes)
		goto err;
	ret = -EIO;
	if (WARN_ON(got != count))
		goto err;
	s->topo.count = count;

	ret = ptc_resolve(&s->topo);
	if (ret) {
		pr_err("the core rejected the PCI tree (%d)\n", ret);
		goto err;
	}
	ret = pcitopo_snap_index(s);
	if (ret)
		goto err;
	ptc_layout(&s->topo, &s->layout);
	ret = pcitopo_snap_paths(s);
	if (ret)
		goto err;
	return s;
err:
	pcitopo_snap_free(s);
	return ERR_PTR(ret);
}

/* ---- subscribers ---- */

static void pcitopo_publish_snapshot(const struct pcitopo_snap *s)
{
	struct pcitopo_subscriber *sub;

	lockdep_assert_held(&pcitopo_rebuild_lock);
	list_for_each_entry(sub, &pcitopo_subscribers, list)
		if (sub->snapshot)
			sub->snapshot(s);
}

static void pcitopo_publish_event(enum pcitopo_event_type type,
				  const struct pcitopo_snap *s, u32 i, u64 gen)
{
	const struct pcitopo_event ev = {
		.type = type, .snap = s, .index = i, .gen = gen,
	};
	struct pcitopo_subscriber *sub;

	lockdep_assert_held(&pcitopo_rebuild_lock);
	list_for_each_entry(sub, &pcitopo_subscribers, list)
		if (sub->event)
			sub->event(&ev);
}

void pcitopo_model_subscribe(struct pcitopo_subscriber *sub)
{
	mutex_lock(&pcitopo_rebuild_lock);
	list_add_tail(&sub->list, &pcitopo_subscribers);
	/* pcitopo_cur changes only under the rebuild lock: no reference */
	if (pcitopo_cur && sub->snapshot)
		sub->snapshot(pcitopo_cur);
	mutex_unlock(&pcitopo_rebuild_lock);
}

void pcitopo_model_unsubscribe(struct pcitopo_subscriber *sub)
{
	mutex_lock(&pcitopo_rebuild_lock);
	list_del_init(&sub->list);
	mutex_unlock(&pcitopo_rebuild_lock);
}

/* ---- diff ---- */

static const char *pcitopo_ref_addr(const struct pcitopo_snap *s, s32 i)
{
	return i == PTC_NONE ? "" : s->addr[i];
}

/* Same device at the same place: otherwise it counts as removed and added. */
static bool pcitopo_same_device(const struct pcitopo_snap *o, u32 i,
				const struct pcitopo_snap *n, u32 j)
{
	const struct ptc_node *a = &o->topo.nodes[i], *b = &n->topo.nodes[j];

	return a->vendor == b->vendor && a->device == b->device &&
	       a->class == b->class && a->role == b->role &&
	       a->kind == b->kind && a->root_bus == b->root_bus &&
	       !strcmp(pcitopo_ref_addr(o, a->parent),
		       pcitopo_ref_addr(n, b->parent));
}

static bool pcitopo_link_eq(const struct ptc_link *a, const struct ptc_link *b)
{
	return a->speed == b->speed && a->width == b->width;
}

/* Link figures, ACS and the other per-device state. */
static bool pcitopo_same_state(const struct ptc_node *a,
			       const struct ptc_node *b)
{
	return pcitopo_link_eq(&a->cur, &b->cur) &&
	       pcitopo_link_eq(&a->cap, &b->cap) &&
	       pcitopo_link_eq(&a->link_max, &b->link_max) &&
	       a->has_link == b->has_link && a->link_active == b->link_active &&
	       a->link_flags == b->link_flags && a->link_bw == b->link_bw &&
	       a->acs_cap == b->acs_cap && a->acs_ctrl == b->acs_ctrl &&
	       a->numa_node == b->numa_node && a->slot == b->slot &&
	       a->hotplug == b->hotplug;
}

static bool pcitopo_same_layout(const struct ptc_layout *a,
				const struct ptc_layout *b)
{
	return a->layout == b->layout && a->gpus == b->gpus &&
	       a->nics == b->nics && a->nvmes == b->nvmes &&
	       a->switches == b->switches && a->root_ports == b->root_ports &&
	       a->numa_nodes == b->numa_nodes &&
	       !strncmp(a->reason, b->reason, sizeof(a->reason));
}

static bool pcitopo_same_paths(const struct pcitopo_snap *o,
			       const struct pcitopo_snap *n)
{
	u32 k;

	if (o->npaths != n->npaths)
		return false;
	for (k = 0; k < n->npaths; k++) {
		const struct pcitopo_path_ent *e = &n->paths[k], *f;
		const struct ptc_node *a = &n->topo.nodes[e->a];
		const struct ptc_node *b = &n->topo.nodes[e->b];
		int oa = pcitopo_snap_find_bdf(o, a->domain, a->bus, a->devfn);
		int ob = pcitopo_snap_find_bdf(o, b->domain, b->bus, b->devfn);

		if (oa < 0 || ob < 0)
			return false;
		f = pcitopo_snap_path(o, oa, ob);
		if (!f || f->path.class != e->path.class ||
		    f->path.hops != e->path.hops ||
		    f->path.flags != e->path.flags ||
		    f->path.bottleneck_bw != e->path.bottleneck_bw ||
		    strcmp(pcitopo_ref_addr(o, f->path.common),
			   pcitopo_ref_addr(n, e->path.common)) ||
		    strcmp(pcitopo_ref_addr(o, f->path.bottleneck),
			   pcitopo_ref_addr(n, e->path.bottleneck)))
			return false;
	}
	return true;
}

/*
 * Compare old snapshot o with new snapshot n. With gen == 0 only answer
 * whether anything changed; otherwise also publish the events, tagged gen:
 * removals, additions, link (and other per-device state) changes, layout.
 */
static bool pcitopo_diff(const struct pcitopo_snap *o,
			 const struct pcitopo_snap *n, u64 gen)
{
	bool changed = false;
	u32 i;
	int j;

	for (i = 0; i < o->topo.count; i++) {
		const struct ptc_node *a = &o->topo.nodes[i];

		j = pcitopo_snap_find_bdf(n, a->domain, a->bus, a->devfn);
		if (j >= 0 && pcitopo_same_device(o, i, n, j))
			continue;
		changed = true;
		if (!gen)
			return true;
		pcitopo_publish_event(PCITOPO_EV_DEVICE_DEL, o, i, gen);
	}
	for (i = 0; i < n->topo.count; i++) {
		const struct ptc_node *b = &n->topo.nodes[i];

		j = pcitopo_snap_find_bdf(o, b->domain, b->bus, b->devfn);
		if (j >= 0 && pcitopo_same_device(o, j, n, i))
			continue;
		changed = true;
		if (!gen)
			return true;
		pcitopo_publish_event(PCITOPO_EV_DEVICE_ADD, n, i, gen);
	}
	for (i = 0; i < n->topo.count; i++) {
		const struct ptc_node *b = &n->topo.nodes[i];

		j = pcitopo_snap_find_bdf(o, b->domain, b->bus, b->devfn);
		if (j < 0 || !pcitopo_same_device(o, j, n, i) ||
		    pcitopo_same_state(&o->topo.nodes[j], b))
			continue;
		changed = true;
		if (!gen)
			return true;
		pcitopo_publish_event(PCITOPO_EV_DEVICE_CHANGE, n, i, gen);
	}
	if (!pcitopo_same_layout(&o->layout, &n->layout)) {
		changed = true;
		if (!gen)
			return true;
		pcitopo_publish_event(PCITOPO_EV_LAYOUT_CHANGE, n, 0, gen);
	}
	if (!changed && !pcitopo_same_paths(o, n))
		changed = true;
	return changed;
}

/* ---- rebuild ---- */

static int pcitopo_rebuild_locked(bool force)
{
	struct pcitopo_snap *old = pcitopo_cur, *s;

	lockdep_assert_held(&pcitopo_rebuild_lock);
	s = pcitopo_snap_build();
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (old && !force && !pcitopo_diff(old, s, 0)) {
		pcitopo_snap_put(s);
		return 0;
	}
	s->gen = old ? old->gen + 1 : 1;

	spin_lock(&pcitopo_snap_lock);
	pcitopo_cur = s;
	spin_unlock(&pcitopo_snap_lock);

	pcitopo_publish_snapshot(s);
	if (old) {
		pcitopo_diff(old, s, s->gen);
		pcitopo_snap_put(old);
	}
	return 0;
}

/* Rebuild now; force: publish a new generation even if nothing changed. */
int pcitopo_model_rebuild(bool force)
{
	int ret;

	mutex_lock(&pcitopo_rebuild_lock);
	ret = pcitopo_rebuild_locked(force);
	mutex_unlock(&pcitopo_rebuild_lock);
	if (ret)
		pr_warn_ratelimited("rebuild failed (%d), keeping the model\n",
				    ret);
	return ret;
}

void pcitopo_model_lock(void)
{
	mutex_lock(&pcitopo_rebuild_lock);
}

void pcitopo_model_unlock(void)
{
	mutex_unlock(&pcitopo_rebuild_lock);
}

static void pcitopo_work_fn(struct work_struct *work)
{
	pcitopo_model_rebuild(false);
}

/*
 * BUS_NOTIFY_DEL_DEVICE comes while the device is being removed, still on
 * its bus list; the work walks later, after pci_lock_rescan_remove() is
 * released by the remover, and sees the tree without it.
 */
static int pcitopo_bus_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	switch (action) {
	case BUS_NOTIFY_ADD_DEVICE:
	case BUS_NOTIFY_DEL_DEVICE:
		mod_delayed_work(system_wq, &pcitopo_work,
				 msecs_to_jiffies(PCITOPO_DEBOUNCE_MS));
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pcitopo_bus_nb = {
	.notifier_call = pcitopo_bus_notify,
};

/* Build generation 1. */
int pcitopo_model_init(void)
{
	int ret;

	mutex_lock(&pcitopo_rebuild_lock);
	ret = pcitopo_rebuild_locked(false);
	mutex_unlock(&pcitopo_rebuild_lock);
	return ret;
}

void pcitopo_model_exit(void)
{
	struct pcitopo_snap *s;

	mutex_lock(&pcitopo_rebuild_lock);
	WARN_ON(!list_empty(&pcitopo_subscribers));
	spin_lock(&pcitopo_snap_lock);
	s = pcitopo_cur;
	pcitopo_cur = NULL;
	spin_unlock(&pcitopo_snap_lock);
	mutex_unlock(&pcitopo_rebuild_lock);
	pcitopo_snap_put(s);
}

/*
 * Follow bus events; one rebuild right away catches what happened between
 * pcitopo_model_init() and now.
 */
int pcitopo_model_start(void)
{
	int ret;

	ret = bus_register_notifier(&pci_bus_type, &pcitopo_bus_nb);
	if (ret)
		return ret;
	mod_delayed_work(system_wq, &pcitopo_work, 0);
	return 0;
}

void pcitopo_model_stop(void)
{
	bus_unregister_notifier(&pci_bus_type, &pcitopo_bus_nb);
	cancel_delayed_work_sync(&pcitopo_work);
}
