// SPDX-License-Identifier: GPL-2.0
/*
 * pcitopo: /sys/kernel/pcitopo/, one value per file
 * (Documentation/ABI/testing/sysfs-kernel-pcitopo).
 *
 * The kobjects under devices/ follow the published snapshots:
 * pcitopo_sysfs_sync() is the snapshot hook of pcitopo_sysfs_subscriber, so
 * it runs after each publish (and once at subscription, for the snapshot
 * already there), under the model's rebuild lock, and adds or removes
 * directories. A kobject keeps only an address;
 * show() looks the value up in the current snapshot (taking a reference;
 * -ENODEV if the device is gone), so no kobject holds a stale pointer.
 * show() never takes the rebuild lock, so removing a kobject (which waits
 * for its readers) cannot deadlock with one. Only the top-level store files
 * take the rebuild lock, and they are removed before the rest at exit.
 *
 * A value that does not apply (no upstream link, no slot, no ACS, no
 * parent...) reads as an empty line: every device directory has the same
 * files.
 */
#define pr_fmt(fmt) "pcitopo: " fmt

#include <linux/bitmap.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "pcitopo_internal.h"
#include "pcitopo_sysfs.h"

struct pcitopo_sdev {
	struct kobject kobj;
	struct list_head list;
	u32 domain;
	u8 bus;
	u8 devfn;
	u8 role;
	struct kobject *paths;		/* endpoints only */
	struct list_head peers;		/* struct pcitopo_speer */
};

struct pcitopo_speer {
	struct kobject kobj;
	struct list_head list;
	struct pcitopo_sdev *dev;	/* owner; outlives its peers */
	u32 domain;
	u8 bus;
	u8 devfn;
};

/* Guarded by the model's rebuild lock (pcitopo_model_lock()). */
static struct kobject *pcitopo_sysfs_root;
static struct kobject *pcitopo_sysfs_devices;
static LIST_HEAD(pcitopo_sdevs);

/* ---- value formatting ---- */

/* "16.0 GT/s PCIe", as the PCI core prints current_link_speed. */
static ssize_t pcitopo_emit_speed(char *buf, u32 mts)
{
	return sysfs_emit(buf, "%u.%u GT/s PCIe\n", mts / 1000,
			  (mts % 1000) / 100);
}

static ssize_t pcitopo_emit_ref(char *buf, const struct pcitopo_snap *s,
				s32 i)
{
	return sysfs_emit(buf, "%s\n", i == PTC_NONE ? "" : s->addr[i]);
}

static ssize_t pcitopo_emit_empty(char *buf)
{
	return sysfs_emit(buf, "\n");
}

/* ---- devices/<addr>/ ---- */

enum {
	PCITOPO_D_ROLE, PCITOPO_D_KIND, PCITOPO_D_VENDOR, PCITOPO_D_DEVICE,
	PCITOPO_D_CLASS, PCITOPO_D_PARENT, PCITOPO_D_ROOT_PORT,
	PCITOPO_D_SWITCH, PCITOPO_D_HOST_BRIDGE, PCITOPO_D_NUMA_NODE,
	PCITOPO_D_LINK_SPEED, PCITOPO_D_LINK_WIDTH, PCITOPO_D_LINK_MAX_SPEED,
	PCITOPO_D_LINK_MAX_WIDTH, PCITOPO_D_LINK_BW, PCITOPO_D_LINK_MAX_BW,
	PCITOPO_D_LINK_ACTIVE, PCITOPO_D_LINK_DOWNTRAINED, PCITOPO_D_SLOT,
	PCITOPO_D_HOTPLUG, PCITOPO_D_ACS_CAP, PCITOPO_D_ACS_CTRL,
	PCITOPO_D_ACS_REDIRECT,
};

enum {
	PCITOPO_P_CLASS, PCITOPO_P_HOPS, PCITOPO_P_COMMON,
	PCITOPO_P_BOTTLENECK, PCITOPO_P_BOTTLENECK_BW, PCITOPO_P_ACS_REDIRECT,
	PCITOPO_P_NUMA_UNKNOWN, PCITOPO_P_WIDTH_DOWN,
};

struct pcitopo_sattr {
	struct attribute attr;
	u8 id;
};

#define PCITOPO_ATTR(_prefix, _name, _id)				\
	static struct pcitopo_sattr pcitopo_##_prefix##_attr_##_name = {	\
		.attr = { .name = __stringify(_name), .mode = 0444 },	\
		.id = (_id),						\
	}

static ssize_t pcitopo_dev_link(char *buf, const struct ptc_node *n, u8 id)
{
	const char *down;

	if (!(n->link_flags & PCITOPO_LINK_F_PRESENT))
		return pcitopo_emit_empty(buf);
	switch (id) {
	case PCITOPO_D_LINK_SPEED:
		return pcitopo_emit_speed(buf, n->cur.speed);
	case PCITOPO_D_LINK_WIDTH:
		return sysfs_emit(buf, "%u\n", n->cur.width);
	case PCITOPO_D_LINK_MAX_SPEED:
		return pcitopo_emit_speed(buf, n->link_max.speed);
	case PCITOPO_D_LINK_MAX_WIDTH:
		return sysfs_emit(buf, "%u\n", n->link_max.width);
	case PCITOPO_D_LINK_BW:
		return sysfs_emit(buf, "%u\n", n->link_bw);
	case PCITOPO_D_LINK_MAX_BW:
		return sysfs_emit(buf, "%u\n", n->link_max_bw);
	case PCITOPO_D_LINK_ACTIVE:
		return sysfs_emit(buf, "%d\n",
				  !!(n->link_flags & PCITOPO_LINK_F_ACTIVE));
	default:	/* PCITOPO_D_LINK_DOWNTRAINED */
		switch (n->link_flags & (PCITOPO_LINK_F_SPEED_DOWN |
					 PCITOPO_LINK_F_WIDTH_DOWN)) {
		case PCITOPO_LINK_F_SPEED_DOWN:
			down = "speed";
			break;
		case PCITOPO_LINK_F_WIDTH_DOWN:
			down = "width";
			break;
		case 0:
			down = "none";
			break;
		default:
			down = "speed,width";
			break;
		}
		return sysfs_emit(buf, "%s\n", down);
	}
}

static ssize_t pcitopo_dev_emit(char *buf, const struct pcitopo_snap *s,
				u32 i, u8 id)
{
	const struct ptc_node *n = &s->topo.nodes[i];
	char hb[PCITOPO_ADDR_LEN];

	switch (id) {
	case PCITOPO_D_ROLE:
		return sysfs_emit(buf, "%s\n", ptc_role_name(n->role));
	case PCITOPO_D_KIND:
		return sysfs_emit(buf, "%s\n", ptc_kind_name(n->kind));
	case PCITOPO_D_VENDOR:
		return sysfs_emit(buf, "0x%04x\n", n->vendor);
	case PCITOPO_D_DEVICE:
		return sysfs_emit(buf, "0x%04x\n", n->device);
	case PCITOPO_D_CLASS:
		return sysfs_emit(buf, "0x%06x\n", n->class);
	case PCITOPO_D_PARENT:
		return pcitopo_emit_ref(buf, s, n->parent);
	case PCITOPO_D_ROOT_PORT:
		return pcitopo_emit_ref(buf, s, n->root_port);
	case PCITOPO_D_SWITCH:
		return pcitopo_emit_ref(buf, s, n->sw);
	case PCITOPO_D_HOST_BRIDGE:
		pcitopo_host_bridge_name(n, hb, sizeof(hb));
		return sysfs_emit(buf, "%s\n", hb);
	case PCITOPO_D_NUMA_NODE:
		return sysfs_emit(buf, "%d\n", n->numa_node);
	case PCITOPO_D_LINK_SPEED ... PCITOPO_D_LINK_DOWNTRAINED:
		return pcitopo_dev_link(buf, n, id);
	case PCITOPO_D_SLOT:
		if (n->slot < 0)
			return pcitopo_emit_empty(buf);
		return sysfs_emit(buf, "%d\n", n->slot);
	case PCITOPO_D_HOTPLUG:
		return sysfs_emit(buf, "%d\n", n->hotplug);
	case PCITOPO_D_ACS_CAP:
	case PCITOPO_D_ACS_CTRL:
	case PCITOPO_D_ACS_REDIRECT:
		if (!n->acs_cap)
			return pcitopo_emit_empty(buf);
		if (id == PCITOPO_D_ACS_CAP)
			return sysfs_emit(buf, "0x%04x\n", n->acs_cap);
		if (id == PCITOPO_D_ACS_CTRL)
			return sysfs_emit(buf, "0x%04x\n", n->acs_ctrl);
		return sysfs_emit(buf, "%d\n",
				  ptc_acs_redirect(n->role, n->acs_cap,
						   n->acs_ctrl));
	default:
		return -EINVAL;
	}
}

static ssize_t pcitopo_sdev_show(struct kobject *kobj, struct attribute *attr,
				 char *buf)
{
	struct pcitopo_sdev *d = container_of(kobj, struct pcitopo_sdev, kobj);
	struct pcitopo_sattr *a = container_of(attr, struct pcitopo_sattr, attr);
	struct pcitopo_snap *s = pcitopo_snap_get();
	ssize_t ret = -ENODEV;
	int i;

	if (!s)
		return -ENODEV;
	i = pcitopo_snap_find_bdf(s, d->domain, d->bus, d->devfn);
	if (i >= 0)
		ret = pcitopo_dev_emit(buf, s, i, a->id);
	pcitopo_snap_put(s);
	return ret;
}

PCITOPO_ATTR(dev, role, PCITOPO_D_ROLE);
PCITOPO_ATTR(dev, kind, PCITOPO_D_KIND);
PCITOPO_ATTR(dev, vendor, PCITOPO_D_VENDOR);
PCITOPO_ATTR(dev, device, PCITOPO_D_DEVICE);
PCITOPO_ATTR(dev, class, PCITOPO_D_CLASS);
PCITOPO_ATTR(dev, parent, PCITOPO_D_PARENT);
PCITOPO_ATTR(dev, root_port, PCITOPO_D_ROOT_PORT);
PCITOPO_ATTR(dev, switch, PCITOPO_D_SWITCH);
PCITOPO_ATTR(dev, host_bridge, PCITOPO_D_HOST_BRIDGE);
PCITOPO_ATTR(dev, numa_node, PCITOPO_D_NUMA_NODE);
PCITOPO_ATTR(dev, link_speed, PCITOPO_D_LINK_SPEED);
PCITOPO_ATTR(dev, link_width, PCITOPO_D_LINK_WIDTH);
PCITOPO_ATTR(dev, link_max_speed, PCITOPO_D_LINK_MAX_SPEED);
PCITOPO_ATTR(dev, link_max_width, PCITOPO_D_LINK_MAX_WIDTH);
PCITOPO_ATTR(dev, link_bandwidth, PCITOPO_D_LINK_BW);
PCITOPO_ATTR(dev, link_max_bandwidth, PCITOPO_D_LINK_MAX_BW);
PCITOPO_ATTR(dev, link_active, PCITOPO_D_LINK_ACTIVE);
PCITOPO_ATTR(dev, link_downtrained, PCITOPO_D_LINK_DOWNTRAINED);
PCITOPO_ATTR(dev, slot, PCITOPO_D_SLOT);
PCITOPO_ATTR(dev, hotplug, PCITOPO_D_HOTPLUG);
PCITOPO_ATTR(dev, acs_cap, PCITOPO_D_ACS_CAP);
PCITOPO_ATTR(dev, acs_ctrl, PCITOPO_D_ACS_CTRL);
PCITOPO_ATTR(dev, acs_redirect, PCITOPO_D_ACS_REDIRECT);

static struct attribute *pcitopo_sdev_attrs[] = {
	&pcitopo_dev_attr_role.attr,
	&pcitopo_dev_attr_kind.attr,
	&pcitopo_dev_attr_vendor.attr,
	&pcitopo_dev_attr_device.attr,
	&pcitopo_dev_attr_class.attr,
	&pcitopo_dev_attr_parent.attr,
	&pcitopo_dev_attr_root_port.attr,
	&pcitopo_dev_attr_switch.attr,
	&pcitopo_dev_attr_host_bridge.attr,
	&pcitopo_dev_attr_numa_node.attr,
	&pcitopo_dev_attr_link_speed.attr,
	&pcitopo_dev_attr_link_width.attr,
	&pcitopo_dev_attr_link_max_speed.attr,
	&pcitopo_dev_attr_link_max_width.attr,
	&pcitopo_dev_attr_link_bandwidth.attr,
	&pcitopo_dev_attr_link_max_bandwidth.attr,
	&pcitopo_dev_attr_link_active.attr,
	&pcitopo_dev_attr_link_downtrained.attr,
	&pcitopo_dev_attr_slot.attr,
	&pcitopo_dev_attr_hotplug.attr,
	&pcitopo_dev_attr_acs_cap.attr,
	&pcitopo_dev_attr_acs_ctrl.attr,
	&pcitopo_dev_attr_acs_redirect.attr,
	NULL
};
ATTRIBUTE_GROUPS(pcitopo_sdev);

static void pcitopo_sdev_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct pcitopo_sdev, kobj));
}

static const struct sysfs_ops pcitopo_sdev_sysfs_ops = {
	.show = pcitopo_sdev_show,
};

static struct kobj_type pcitopo_sdev_ktype = {
	.release = pcitopo_sdev_release,
	.sysfs_ops = &pcitopo_sdev_sysfs_ops,
	.default_groups = pcitopo_sdev_groups,
};

/* ---- devices/<a>/paths/<b>/ ---- */

static ssize_t pcitopo_path_emit(char *buf, const struct pcitopo_snap *s,
				 const struct ptc_path *p, u8 id)
{
	switch (id) {
	case PCITOPO_P_CLASS:
		return sysfs_emit(buf, "%s\n", ptc_class_name(p->class));
	case PCITOPO_P_HOPS:
		return sysfs_emit(buf, "%u\n", p->hops);
	case PCITOPO_P_COMMON:
		return pcitopo_emit_ref(buf, s, p->common);
	case PCITOPO_P_BOTTLENECK:
		return pcitopo_emit_ref(buf, s, p->bottleneck);
	case PCITOPO_P_BOTTLENECK_BW:
		if (p->bottleneck == PTC_NONE)
			return pcitopo_emit_empty(buf);
		return sysfs_emit(buf, "%u\n", p->bottleneck_bw);
	case PCITOPO_P_ACS_REDIRECT:
		return sysfs_emit(buf, "%d\n",
				  !!(p->flags & PCITOPO_PATH_F_ACS_REDIRECT));
	case PCITOPO_P_NUMA_UNKNOWN:
		return sysfs_emit(buf, "%d\n",
				  !!(p->flags & PCITOPO_PATH_F_NUMA_UNKNOWN));
	case PCITOPO_P_WIDTH_DOWN:
		return sysfs_emit(buf, "%d\n",
				  !!(p->flags & PCITOPO_PATH_F_WIDTH_DOWN));
	default:
		return -EINVAL;
	}
}

static ssize_t pcitopo_speer_show(struct kobject *kobj, struct attribute *attr,
				  char *buf)
{
	struct pcitopo_speer *p = container_of(kobj, struct pcitopo_speer,
					       kobj);
	struct pcitopo_sattr *a = container_of(attr, struct pcitopo_sattr, attr);
	struct pcitopo_snap *s = pcitopo_snap_get();
	const struct pcitopo_path_ent *e = NULL;
	ssize_t ret = -ENODEV;
	int i, j;

	if (!s)
		return -ENODEV;
	i = pcitopo_snap_find_bdf(s, p->dev->domain, p->dev->bus,
				  p->dev->devfn);
	j = pcitopo_snap_find_bdf(s, p->domain, p->bus, p->devfn);
	if (i >= 0 && j >= 0)
		e = pcitopo_snap_path(s, i, j);
	if (e)
		ret = pcitopo_path_emit(buf, s, &e->path, a->id);
	pcitopo_snap_put(s);
	return ret;
}

PCITOPO_ATTR(path, class, PCITOPO_P_CLASS);
PCITOPO_ATTR(path, hops, PCITOPO_P_HOPS);
PCITOPO_ATTR(path, common, PCITOPO_P_COMMON);
PCITOPO_ATTR(path, bottleneck, PCITOPO_P_BOTTLENECK);
PCITOPO_ATTR(path, bottleneck_bandwidth, PCITOPO_P_BOTTLENECK_BW);
PCITOPO_ATTR(path, acs_redirect, PCITOPO_P_ACS_REDIRECT);
PCITOPO_ATTR(path, numa_unknown, PCITOPO_P_NUMA_UNKNOWN);
PCITOPO_ATTR(path, width_down, PCITOPO_P_WIDTH_DOWN);

static struct attribute *pcitopo_speer_attrs[] = {
	&pcitopo_path_attr_class.attr,
	&pcitopo_path_attr_hops.attr,
	&pcitopo_path_attr_common.attr,
	&pcitopo_path_attr_bottleneck.attr,
	&pcitopo_path_attr_bottleneck_bandwidth.attr,
	&pcitopo_path_attr_acs_redirect.attr,
	&pcitopo_path_attr_numa_unknown.attr,
	&pcitopo_path_attr_width_down.attr,
	NULL
};
ATTRIBUTE_GROUPS(pcitopo_speer);

static void pcitopo_speer_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct pcitopo_speer, kobj));
}

static const struct sysfs_ops pcitopo_speer_sysfs_ops = {
	.show = pcitopo_speer_show,
};

static struct kobj_type pcitopo_speer_ktype = {
	.release = pcitopo_speer_release,
	.sysfs_ops = &pcitopo_speer_sysfs_ops,
	.default_groups = pcitopo_speer_groups,
};

/* ---- following the snapshots ---- */

static void pcitopo_speer_del(struct pcitopo_speer *p)
{
	list_del(&p->list);
	kobject_put(&p->kobj);
}

static void pcitopo_speer_add(struct pcitopo_sdev *d,
			      const struct pcitopo_snap *s, u32 b)
{
	const struct ptc_node *n = &s->topo.nodes[b];
	struct pcitopo_speer *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return;
	p->dev = d;
	p->domain = n->domain;
	p->bus = n->bus;
	p->devfn = n->devfn;
	if (kobject_init_and_add(&p->kobj, &pcitopo_speer_ktype, d->paths,
				 "%s", s->addr[b])) {
		pr_warn_ratelimited("cannot add paths/%s\n", s->addr[b]);
		kobject_put(&p->kobj);
		return;
	}
	list_add_tail(&p->list, &d->peers);
}

/* Bring d's paths/ in line with the paths from node i of s. */
static void pcitopo_sdev_sync_paths(struct pcitopo_sdev *d,
				    const struct pcitopo_snap *s, u32 i)
{
	u32 first = s->path_first[i], n = s->path_first[i + 1] - first, k;
	struct pcitopo_speer *p, *tmp;
	unsigned long *seen;
	int b;

	if (!d->paths)
		return;
	seen = bitmap_zalloc(max(n, 1U), GFP_KERNEL);
	if (!seen)
		return;
	list_for_each_entry_safe(p, tmp, &d->peers, list) {
		const struct pcitopo_path_ent *e = NULL;

		b = pcitopo_snap_find_bdf(s, p->domain, p->bus, p->devfn);
		if (b >= 0)
			e = pcitopo_snap_path(s, i, b);
		if (e)
			__set_bit(e - &s->paths[first], seen);
		else
			pcitopo_speer_del(p);
	}
	for (k = 0; k < n; k++)
		if (!test_bit(k, seen))
			pcitopo_speer_add(d, s, s->paths[first + k].b);
	bitmap_free(seen);
}

static void pcitopo_sdev_del(struct pcitopo_sdev *d)
{
	struct pcitopo_speer *p, *tmp;

	list_for_each_entry_safe(p, tmp, &d->peers, list)
		pcitopo_speer_del(p);
	kobject_put(d->paths);
	list_del(&d->list);
	kobject_put(&d->kobj);
}

static struct pcitopo_sdev *pcitopo_sdev_add(const struct pcitopo_snap *s,
					     u32 i)
{
	const struct ptc_node *n = &s->topo.nodes[i];
	struct pcitopo_sdev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	d->domain = n->domain;
	d->bus = n->bus;
	d->devfn = n->devfn;
	d->role = n->role;
	INIT_LIST_HEAD(&d->peers);
	if (kobject_init_and_add(&d->kobj, &pcitopo_sdev_ktype,
				 pcitopo_sysfs_devices, "%s", s->addr[i])) {
		pr_warn_ratelimited("cannot add devices/%s\n", s->addr[i]);
		kobject_put(&d->kobj);
		return NULL;
	}
	if (n->role == PCITOPO_ROLE_ENDPOINT) {
		d->paths = kobject_create_and_add("paths", &d->kobj);
		if (!d->paths)
			pr_warn_ratelimited("cannot add devices/%s/paths\n",
					    s->addr[i]);
	}
	list_add_tail(&d->list, &pcitopo_sdevs);
	return d;
}

/*
 * Called with the model's rebuild lock held, after s was published; only
 * while subscribed, i.e. between pcitopo_sysfs_init() creating devices/ and
 * pcitopo_sysfs_exit() removing it.
 */
static void pcitopo_sysfs_sync(const struct pcitopo_snap *s)
{
	struct pcitopo_sdev *d, *tmp;
	unsigned long *seen;
	u32 i;
	int k;

	seen = bitmap_zalloc(max(s->topo.count, 1U), GFP_KERNEL);
	if (!seen)
		return;
	list_for_each_entry_safe(d, tmp, &pcitopo_sdevs, list) {
		k = pcitopo_snap_find_bdf(s, d->domain, d->bus, d->devfn);
		if (k < 0 || s->topo.nodes[k].role != d->role) {
			pcitopo_sdev_del(d);
			continue;
		}
		__set_bit(k, seen);
		pcitopo_sdev_sync_paths(d, s, k);
	}
	for (i = 0; i < s->topo.count; i++) {
		if (test_bit(i, seen))
			continue;
		d = pcitopo_sdev_add(s, i);
		if (d)
			pcitopo_sdev_sync_paths(d, s, i);
	}
	bitmap_free(seen);
}

struct pcitopo_subscriber pcitopo_sysfs_subscriber = {
	.snapshot = pcitopo_sysfs_sync,
};

static void pcitopo_sysfs_exit_devices(void)
{
	struct pcitopo_sdev *d, *tmp;

	pcitopo_model_lock();
	list_for_each_entry_safe(d, tmp, &pcitopo_sdevs, list)
		pcitopo_sdev_del(d);
	kobject_put(pcitopo_sysfs_devices);
	pcitopo_sysfs_devices = NULL;
	pcitopo_model_unlock();
}

/* ---- top level ---- */

enum {
	PCITOPO_T_GENERATION, PCITOPO_T_LAYOUT, PCITOPO_T_LAYOUT_REASON,
	PCITOPO_T_GPUS, PCITOPO_T_NICS, PCITOPO_T_NVMES, PCITOPO_T_SWITCHES,
	PCITOPO_T_ROOT_PORTS, PCITOPO_T_NUMA_NODES, PCITOPO_T_DEVICES,
	PCITOPO_T_PATHS,
};

struct pcitopo_top_attr {
	struct kobj_attribute ka;
	u8 id;
};

static ssize_t pcitopo_top_emit(char *buf, const struct pcitopo_snap *s,
				u8 id)
{
	const struct ptc_layout *l = &s->layout;

	switch (id) {
	case PCITOPO_T_GENERATION:
		return sysfs_emit(buf, "%llu\n", s->gen);
	case PCITOPO_T_LAYOUT:
		return sysfs_emit(buf, "%s\n", ptc_layout_name(l->layout));
	case PCITOPO_T_LAYOUT_REASON:
		return sysfs_emit(buf, "%.*s\n", (int)sizeof(l->reason),
				  l->reason);
	case PCITOPO_T_GPUS:
		return sysfs_emit(buf, "%u\n", l->gpus);
	case PCITOPO_T_NICS:
		return sysfs_emit(buf, "%u\n", l->nics);
	case PCITOPO_T_NVMES:
		return sysfs_emit(buf, "%u\n", l->nvmes);
	case PCITOPO_T_SWITCHES:
		return sysfs_emit(buf, "%u\n", l->switches);
	case PCITOPO_T_ROOT_PORTS:
		return sysfs_emit(buf, "%u\n", l->root_ports);
	case PCITOPO_T_NUMA_NODES:
		return sysfs_emit(buf, "%u\n", l->numa_nodes);
	case PCITOPO_T_DEVICES:
		return sysfs_emit(buf, "%u\n", s->topo.count);
	case PCITOPO_T_PATHS:
		return sysfs_emit(buf, "%u\n", s->npaths);
	default:
		return -EINVAL;
	}
}

static ssize_t pcitopo_top_show(struct kobject *kobj,
				struct kobj_attribute *ka, char *buf)
{
	struct pcitopo_top_attr *a = container_of(ka, struct pcitopo_top_attr,
						  ka);
	struct pcitopo_snap *s = pcitopo_snap_get();
	ssize_t ret;

	if (!s)
		return -ENODEV;
	ret = pcitopo_top_emit(buf, s, a->id);
	pcitopo_snap_put(s);
	return ret;
}

#define PCITOPO_TOP_ATTR(_name, _id)					\
	static struct pcitopo_top_attr pcitopo_top_attr_##_name = {	\
		.ka = __ATTR(_name, 0444, pcitopo_top_show, NULL),	\
		.id = (_id),						\
	}

PCITOPO_TOP_ATTR(generation, PCITOPO_T_GENERATION);
PCITOPO_TOP_ATTR(layout, PCITOPO_T_LAYOUT);
PCITOPO_TOP_ATTR(layout_reason, PCITOPO_T_LAYOUT_REASON);
PCITOPO_TOP_ATTR(count_gpus, PCITOPO_T_GPUS);
PCITOPO_TOP_ATTR(count_nics, PCITOPO_T_NICS);
PCITOPO_TOP_ATTR(count_nvmes, PCITOPO_T_NVMES);
PCITOPO_TOP_ATTR(count_switches, PCITOPO_T_SWITCHES);
PCITOPO_TOP_ATTR(count_root_ports, PCITOPO_T_ROOT_PORTS);
PCITOPO_TOP_ATTR(count_numa_nodes, PCITOPO_T_NUMA_NODES);
PCITOPO_TOP_ATTR(count_devices, PCITOPO_T_DEVICES);
PCITOPO_TOP_ATTR(count_paths, PCITOPO_T_PATHS);

static ssize_t pcitopo_extra_ids_show(struct kobject *kobj,
				      struct kobj_attribute *ka, char *buf)
{
	struct pcitopo_id_table *t;
	ssize_t len = 0;
	unsigned int i;

	t = kmalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	pcitopo_ids_copy(t);
	for (i = 0; i < t->count; i++)
		len += sysfs_emit_at(buf, len, "%04x:%04x %s\n",
				     t->ids[i].vendor, t->ids[i].device,
				     ptc_kind_name(t->ids[i].kind));
	kfree(t);
	return len;
}

/*
 * new_id and remove_id take one ID in the syntax of every other input
 * (core/ptc_ids.c): "vvvv:dddd[:kind]", or "vvvv dddd [kind]" as a PCI
 * driver's new_id; remove_id without the kind.
 */
static ssize_t pcitopo_new_id_store(struct kobject *kobj,
				    struct kobj_attribute *ka, const char *buf,
				    size_t count)
{
	struct ptc_extra_id id;
	int ret;

	ret = ptc_parse_id(buf, count, 0, &id);
	if (!ret)
		ret = pcitopo_ids_add(id.vendor, id.device, id.kind);
	if (!ret)
		ret = pcitopo_model_rebuild(true);
	return ret ? ret : count;
}

static ssize_t pcitopo_remove_id_store(struct kobject *kobj,
				       struct kobj_attribute *ka,
				       const char *buf, size_t count)
{
	struct ptc_extra_id id;
	int ret;

	ret = ptc_parse_id(buf, count, PTC_ID_NO_KIND, &id);
	if (!ret)
		ret = pcitopo_ids_del(id.vendor, id.device);
	if (!ret)
		ret = pcitopo_model_rebuild(true);
	return ret ? ret : count;
}

static ssize_t pcitopo_refresh_store(struct kobject *kobj,
				     struct kobj_attribute *ka,
				     const char *buf, size_t count)
{
	int ret = pcitopo_model_rebuild(false);

	return ret ? ret : count;
}

static struct kobj_attribute pcitopo_top_attr_extra_ids =
	__ATTR(extra_ids, 0444, pcitopo_extra_ids_show, NULL);
static struct kobj_attribute pcitopo_top_attr_new_id =
	__ATTR(new_id, 0200, NULL, pcitopo_new_id_store);
static struct kobj_attribute pcitopo_top_attr_remove_id =
	__ATTR(remove_id, 0200, NULL, pcitopo_remove_id_store);
static struct kobj_attribute pcitopo_top_attr_refresh =
	__ATTR(refresh, 0200, NULL, pcitopo_refresh_store);

static struct attribute *pcitopo_top_attrs[] = {
	&pcitopo_top_attr_generation.ka.attr,
	&pcitopo_top_attr_layout.ka.attr,
	&pcitopo_top_attr_layout_reason.ka.attr,
	&pcitopo_top_attr_count_gpus.ka.attr,
	&pcitopo_top_attr_count_nics.ka.attr,
	&pcitopo_top_attr_count_nvmes.ka.attr,
	&pcitopo_top_attr_count_switches.ka.attr,
	&pcitopo_top_attr_count_root_ports.ka.attr,
	&pcitopo_top_attr_count_numa_nodes.ka.attr,
	&pcitopo_top_attr_count_devices.ka.attr,
	&pcitopo_top_attr_count_paths.ka.attr,
	&pcitopo_top_attr_extra_ids.attr,
	&pcitopo_top_attr_new_id.attr,
	&pcitopo_top_attr_remove_id.attr,
	&pcitopo_top_attr_refresh.attr,
	NULL
};

static const struct attribute_group pcitopo_top_group = {
	.attrs = pcitopo_top_attrs,
};

/*
 * The directories and top-level files; devices/ stays empty until
 * pcitopo_sysfs_subscriber is subscribed, which fills it from the current
 * snapshot.
 */
int pcitopo_sysfs_init(void)
{
	int ret = -ENOMEM;

	pcitopo_sysfs_root = kobject_create_and_add("pcitopo", kernel_kobj);
	if (!pcitopo_sysfs_root)
		return -ENOMEM;
	pcitopo_sysfs_devices = kobject_create_and_add("devices",
						       pcitopo_sysfs_root);
	if (!pcitopo_sysfs_devices)
		goto err_root;
	ret = sysfs_create_group(pcitopo_sysfs_root, &pcitopo_top_group);
	if (ret)
		goto err_devices;
	return 0;

err_devices:
	pcitopo_sysfs_exit_devices();
err_root:
	kobject_put(pcitopo_sysfs_root);
	pcitopo_sysfs_root = NULL;
	return ret;
}

void pcitopo_sysfs_exit(void)
{
	/* First the files that take the rebuild lock, without holding it. */
	sysfs_remove_group(pcitopo_sysfs_root, &pcitopo_top_group);
	pcitopo_sysfs_exit_devices();
	kobject_put(pcitopo_sysfs_root);
	pcitopo_sysfs_root = NULL;
}
