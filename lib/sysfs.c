// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: the model from sysfs through libpci, for machines without
 * pcitopo.ko. Mirrors kmod/pcitopo_walk.c (which nodes, roles, link fields)
 * and kmod/pcitopo_model.c + pcitopo_netlink.c (paths, summary, which
 * attributes are present), so that topoctl prints the same either way.
 *
 * libpci's error callback must not return; it longjmp()s back here, and
 * ordinary failures (a missing tree) are checked before libpci is asked.
 *
 * libpci (with libz and libudev behind it) is loaded by pt_sysfs_load()
 * only (dl.h): topoctl's other commands, the module's, start without it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>

#include "dl.h"
#include "ptc.h"
#include "sysfs.h"

#define LIBPCI_SYMBOLS(X)						\
	X(pci_alloc) X(pci_init) X(pci_cleanup) X(pci_scan_bus)		\
	X(pci_set_param) X(pci_fill_info) X(pci_setup_cache)		\
	X(pci_find_cap) X(pci_read_byte) X(pci_read_word)		\
	X(pci_read_long) X(pci_read_block)
LIBPCI_SYMBOLS(PT_DL_DEFINE)
static const struct pt_dl_sym libpci_syms[] = { LIBPCI_SYMBOLS(PT_DL_ENTRY) };
static struct pt_dl libpci = PT_DL_INIT("libpci.so.3", "libpci3", libpci_syms);
#define pci_alloc	sym_pci_alloc
#define pci_init	sym_pci_init
#define pci_cleanup	sym_pci_cleanup
#define pci_scan_bus	sym_pci_scan_bus
#define pci_set_param	sym_pci_set_param
#define pci_fill_info	sym_pci_fill_info
#define pci_setup_cache	sym_pci_setup_cache
#define pci_find_cap	sym_pci_find_cap
#define pci_read_byte	sym_pci_read_byte
#define pci_read_word	sym_pci_read_word
#define pci_read_long	sym_pci_read_long
#define pci_read_block	sym_pci_read_block

/* PCIe capability registers (include/uapi/linux/pci_regs.h) */
#define EXP_FLAGS		0x02
#define EXP_FLAGS_TYPE(f)	(((f) >> 4) & 0xf)
#define EXP_FLAGS_SLOT		0x0100
#define EXP_LNKCAP		0x0c
#define EXP_LNKSTA		0x12
#define EXP_SLTCAP		0x14
#define LNKCAP_SLS(c)		((c) & 0xf)
#define LNKCAP_MLW(c)		(((c) >> 4) & 0x3f)
#define LNKCAP_DLLLARC		0x00100000
#define LNKSTA_CLS(s)		((s) & 0xf)
#define LNKSTA_NLW(s)		(((s) >> 4) & 0x3f)
#define LNKSTA_DLLLA		0x2000
#define SLTCAP_HPC		0x00000040
#define SLTCAP_PSN(c)		((c) >> 19)
#define EXT_CAP_ACS		0x0d

enum {	/* PCI_EXP_TYPE_* */
	T_ENDPOINT = 0, T_LEG_END = 1, T_ROOT_PORT = 4, T_UPSTREAM = 5,
	T_DOWNSTREAM = 6, T_PCI_BRIDGE = 7, T_PCIE_BRIDGE = 8,
};

static __thread char last_err[512];
static __thread jmp_buf *pci_jmp;

const char *pt_sysfs_last_error(void)
{
	return last_err;
}

static void set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
}

static void pci_err_cb(char *msg, ...) __attribute__((format(printf, 1, 2), noreturn));
static void pci_err_cb(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(last_err, sizeof(last_err), msg, ap);
	va_end(ap);
	if (pci_jmp)
		longjmp(*pci_jmp, 1);
	abort();	/* libpci called outside pt_sysfs_load(): cannot happen */
}

static void pci_quiet_cb(char *msg, ...) __attribute__((format(printf, 1, 2)));
static void pci_quiet_cb(char *msg, ...)
{
	(void)msg;
}

/* --- extra IDs: the syntax is the core's (core/ptc_ids.c) --------------- */

int pt_id_parse(const char *s, size_t len, struct pt_id *id)
{
	struct ptc_extra_id e;

	if (ptc_parse_id(s, len, 0, &e))
		return -EINVAL;
	id->vendor = e.vendor;
	id->device = e.device;
	id->kind = e.kind;
	return 0;
}

struct ids_list {
	struct pt_id **ids;
	size_t *n;
};

static int ids_append(const struct ptc_extra_id *e, void *arg)
{
	struct ids_list *l = arg;
	struct pt_id *na;
	size_t i;

	for (i = 0; i < *l->n; i++)
		if ((*l->ids)[i].vendor == e->vendor &&
		    (*l->ids)[i].device == e->device)
			return 0;	/* the module also keeps a repeat once */
	if (*l->n >= PCITOPO_MAX_EXTRA_IDS)
		return -ENOSPC;
	na = realloc(*l->ids, (*l->n + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	*l->ids = na;
	na[(*l->n)++] = (struct pt_id){ .vendor = e->vendor,
					.device = e->device, .kind = e->kind };
	return 0;
}

int pt_ids_parse_text(const char *text, struct pt_id **ids, size_t *n,
		      unsigned int *bad_line)
{
	struct ids_list l = { .ids = ids, .n = n };
	struct ptc_ids_pos bad;
	int r;

	r = ptc_parse_ids(text, strlen(text), ids_append, &l, &bad);
	if (r && r != -ENOMEM && bad_line)
		*bad_line = bad.line;
	return r;
}

int pt_ids_load_file(const char *path, struct pt_id **ids, size_t *n,
		     unsigned int *bad_line)
{
	char buf[16384];
	size_t got;
	FILE *f = fopen(path, "re");
	int r;

	if (!f)
		return -errno;
	got = fread(buf, 1, sizeof(buf) - 1, f);
	r = ferror(f) ? -EIO : 0;
	fclose(f);
	if (r)
		return r;
	buf[got] = '\0';
	return pt_ids_parse_text(buf, ids, n, bad_line);
}

/* --- the walk ----------------------------------------------------------- */

struct ent {
	struct pci_dev *pd;
	uint8_t *cfg;			/* config space read in one go */
	char addr[PCITOPO_ADDR_LEN];
	char parent[PCITOPO_ADDR_LEN];	/* "" on a root bus */
	unsigned int root_bus;
	int up;				/* index of the parent in ents, -1 */
	int node;			/* index in nodes, -1 if not of interest */
};

static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Parent address and root bus from the realpath of the device's link. */
static int locate(const char *root, struct ent *e)
{
	char link[PATH_MAX], *rp, *comp, *save = NULL, *prev = NULL;
	unsigned int dom, bus, dev, fn, rb = 0;
	bool have_rb = false;
	int n;

	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", root, e->addr);
	rp = realpath(link, NULL);
	if (!rp)
		return -errno;
	e->parent[0] = '\0';
	for (comp = strtok_r(rp, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		if (!strcmp(comp, e->addr))
			break;
		n = -1;
		if (sscanf(comp, "pci%x:%x%n", &dom, &bus, &n) == 2 &&
		    n > 0 && !comp[n] && bus <= 0xff) {
			rb = bus;
			have_rb = true;
		}
		prev = comp;
	}
	if (prev && comp) {
		n = -1;
		if (sscanf(prev, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) == 4 &&
		    n > 0 && !prev[n])
			snprintf(e->parent, sizeof(e->parent), "%s", prev);
	}
	free(rp);
	if (!comp)
		return -EINVAL;
	e->root_bus = have_rb ? rb : e->pd->bus;
	return 0;
}

static bool lnkctl_regs(int type)
{
	return type == T_ENDPOINT || type == T_LEG_END || type == T_ROOT_PORT ||
	       type == T_UPSTREAM || type == T_DOWNSTREAM ||
	       type == T_PCI_BRIDGE || type == T_PCIE_BRIDGE;
}

static bool upstream_link(int type)
{
	return type == T_ENDPOINT || type == T_LEG_END || type == T_UPSTREAM ||
	       type == T_PCI_BRIDGE;
}

/* PCIe capability offset, 0 if none; *flags its flags register. */
static int exp_cap(struct pci_dev *pd, uint16_t *flags)
{
	struct pci_cap *cap = pci_find_cap(pd, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
	uint16_t f;

	if (!cap)
		return 0;
	f = pci_read_word(pd, cap->addr + EXP_FLAGS);
	if (f == 0xffff)
		return 0;
	*flags = f;
	return cap->addr;
}

static void read_link(struct pci_dev *pd, int pos, int type, struct ptc_node *n)
{
	uint32_t lnkcap = 0;
	uint16_t lnksta = 0;

	if (lnkctl_regs(type)) {	/* pcie_capability_read_*() */
		lnkcap = pci_read_long(pd, pos + EXP_LNKCAP);
		lnksta = pci_read_word(pd, pos + EXP_LNKSTA);
	}
	if (lnkcap == ~0U)
		lnkcap = 0;
	if (lnksta == 0xffff)
		lnksta = 0;
	n->cap.speed = ptc_speed_from_lnk(LNKCAP_SLS(lnkcap));
	n->cap.width = LNKCAP_MLW(lnkcap);
	n->cur.speed = ptc_speed_from_lnk(LNKSTA_CLS(lnksta));
	n->cur.width = LNKSTA_NLW(lnksta);
	n->has_link = upstream_link(type);
	n->link_active = n->has_link && n->cur.width > 0;
}

static void read_link_active(struct pci_dev *port, struct ptc_node *n)
{
	uint16_t flags;
	uint32_t lnkcap;
	uint16_t lnksta;
	int pos;

	if (!n->has_link || !port)
		return;
	pos = exp_cap(port, &flags);
	if (!pos || !lnkctl_regs(EXP_FLAGS_TYPE(flags)))
		return;
	lnkcap = pci_read_long(port, pos + EXP_LNKCAP);
	if (lnkcap == ~0U || !(lnkcap & LNKCAP_DLLLARC))
		return;
	lnksta = pci_read_word(port, pos + EXP_LNKSTA);
	if (lnksta != 0xffff)
		n->link_active = !!(lnksta & LNKSTA_DLLLA);
}

static void read_acs(struct pci_dev *pd, struct ptc_node *n)
{
	struct pci_cap *cap = pci_find_cap(pd, EXT_CAP_ACS, PCI_CAP_EXTENDED);

	if (!cap)
		return;
	n->acs_cap = pci_read_word(pd, cap->addr + 4);
	n->acs_ctrl = pci_read_word(pd, cap->addr + 6);
	if (n->acs_cap == 0xffff) {
		n->acs_cap = 0;
		n->acs_ctrl = 0;
	}
}

static void read_slot(struct pci_dev *pd, int pos, uint16_t flags,
		      struct ptc_node *n)
{
	uint32_t sltcap;
	int type = EXP_FLAGS_TYPE(flags);

	n->slot = -1;
	if (n->role != PCITOPO_ROLE_ROOT_PORT &&
	    n->role != PCITOPO_ROLE_DOWNSTREAM)
		return;
	/* pcie_cap_has_sltctl(): a downstream port with a slot */
	if (!pos || !(flags & EXP_FLAGS_SLOT) ||
	    !(type == T_ROOT_PORT || type == T_DOWNSTREAM ||
	      type == T_PCIE_BRIDGE))
		return;
	sltcap = pci_read_long(pd, pos + EXP_SLTCAP);
	if (sltcap == ~0U)
		return;
	n->slot = (s32)SLTCAP_PSN(sltcap);
	/* is_hotplug_bridge: set by the PCI core from the same bit */
	if (sltcap & SLTCAP_HPC)
		n->hotplug = true;
}

static uint8_t extra_kind(const struct pt_sysfs_opts *o, uint16_t v,
			  uint16_t d)
{
	size_t i;

	for (i = 0; i < o->n_ids; i++)
		if (o->ids[i].vendor == v && o->ids[i].device == d)
			return o->ids[i].kind;
	return PCITOPO_KIND_NONE;
}

static uint8_t bridge_role(int pos, uint16_t flags)
{
	if (!pos)
		return PCITOPO_ROLE_BRIDGE;
	switch (EXP_FLAGS_TYPE(flags)) {
	case T_ROOT_PORT:	return PCITOPO_ROLE_ROOT_PORT;
	case T_UPSTREAM:	return PCITOPO_ROLE_UPSTREAM;
	case T_DOWNSTREAM:	return PCITOPO_ROLE_DOWNSTREAM;
	default:		return PCITOPO_ROLE_BRIDGE;
	}
}

/* Whether the bridge above puts the device on a conventional PCI bus (its
 * role is BRIDGE), for ptc_endpoint_kind(). */
static bool on_pci_bus(const struct ent *ents, int up)
{
	uint16_t flags = 0;
	struct pci_dev *pd;
	int pos;

	if (up < 0)
		return false;
	pd = ents[up].pd;
	pci_fill_info(pd, PCI_FILL_CAPS);
	pos = exp_cap(pd, &flags);
	return bridge_role(pos, flags) == PCITOPO_ROLE_BRIDGE;
}

static int find_ent(const struct ent *e, size_t n, const char *addr)
{
	size_t i;

	if (!addr[0])
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(e[i].addr, addr))
			return (int)i;
	return -1;
}

static void put_ref(char *dst, const struct ptc_topo *pt, s32 i)
{
	dst[0] = '\0';
	if (i != PTC_NONE)
		ptc_addr_format(dst, PCITOPO_ADDR_LEN, pt->nodes[i].domain,
				pt->nodes[i].bus, pt->nodes[i].devfn);
}

/* The model as pcitopo_netlink.c would send it. */
static int to_model(const struct ptc_topo *pt, const struct ptc_layout *lay,
		    struct pt_topology *t)
{
	struct pt_summary *s = &t->summary;
	u32 a, b;
	int r;

	for (a = 0; a < pt->count; a++) {
		const struct ptc_node *n = &pt->nodes[a];
		struct pt_device d = { 0 };

		d.present = PT_BIT(PCITOPO_A_GENERATION) |
			    PT_BIT(PCITOPO_A_DEV_ADDR) |
			    PT_BIT(PCITOPO_A_DEV_ROLE) |
			    PT_BIT(PCITOPO_A_DEV_KIND) |
			    PT_BIT(PCITOPO_A_DEV_VENDOR) |
			    PT_BIT(PCITOPO_A_DEV_DEVICE) |
			    PT_BIT(PCITOPO_A_DEV_CLASS) |
			    PT_BIT(PCITOPO_A_DEV_HOST_BRIDGE) |
			    PT_BIT(PCITOPO_A_DEV_NUMA_NODE) |
			    PT_BIT(PCITOPO_A_DEV_LINK_FLAGS) |
			    PT_BIT(PCITOPO_A_DEV_HOTPLUG);
		ptc_addr_format(d.addr, sizeof(d.addr), n->domain, n->bus,
				n->devfn);
		d.role = n->role;
		d.kind = n->kind;
		d.vendor = n->vendor;
		d.device = n->device;
		d.class_code = n->class;
		put_ref(d.parent, pt, n->parent);
		put_ref(d.root_port, pt, n->root_port);
		put_ref(d.sw, pt, n->sw);
		if (d.parent[0])
			d.present |= PT_BIT(PCITOPO_A_DEV_PARENT);
		if (d.root_port[0])
			d.present |= PT_BIT(PCITOPO_A_DEV_ROOT_PORT);
		if (d.sw[0])
			d.present |= PT_BIT(PCITOPO_A_DEV_SWITCH);
		snprintf(d.host_bridge, sizeof(d.host_bridge), "%04x:%02x",
			 n->domain, n->root_bus);
		d.numa_node = n->numa_node;
		d.link_flags = n->link_flags;
		if (n->link_flags & PCITOPO_LINK_F_PRESENT) {
			d.present |= PT_BIT(PCITOPO_A_DEV_LINK_SPEED) |
				     PT_BIT(PCITOPO_A_DEV_LINK_WIDTH) |
				     PT_BIT(PCITOPO_A_DEV_LINK_MAX_SPEED) |
				     PT_BIT(PCITOPO_A_DEV_LINK_MAX_WIDTH) |
				     PT_BIT(PCITOPO_A_DEV_LINK_BW) |
				     PT_BIT(PCITOPO_A_DEV_LINK_MAX_BW);
			d.link_speed = n->cur.speed;
			d.link_width = n->cur.width;
			d.link_max_speed = n->link_max.speed;
			d.link_max_width = n->link_max.width;
			d.link_bw = n->link_bw;
			d.link_max_bw = n->link_max_bw;
		}
		if (n->slot >= 0) {
			d.present |= PT_BIT(PCITOPO_A_DEV_SLOT);
			d.slot = (uint32_t)n->slot;
		}
		d.hotplug = n->hotplug;
		if (n->acs_cap) {
			d.present |= PT_BIT(PCITOPO_A_DEV_ACS_CAP) |
				     PT_BIT(PCITOPO_A_DEV_ACS_CTRL);
			d.acs_cap = n->acs_cap;
			d.acs_ctrl = n->acs_ctrl;
		}
		r = pt_topology_add_device(t, &d);
		if (r)
			return r;
	}
	for (a = 0; a < pt->count; a++) {
		if (pt->nodes[a].role != PCITOPO_ROLE_ENDPOINT)
			continue;
		for (b = 0; b < pt->count; b++) {
			struct ptc_path cp;
			struct pt_path p = { 0 };

			if (pt->nodes[b].role != PCITOPO_ROLE_ENDPOINT ||
			    !ptc_pair_of_interest(pt, a, b))
				continue;
			ptc_path(pt, a, b, &cp);
			p.present = PT_BIT(PCITOPO_A_GENERATION) |
				    PT_BIT(PCITOPO_A_PATH_A) |
				    PT_BIT(PCITOPO_A_PATH_B) |
				    PT_BIT(PCITOPO_A_PATH_CLASS) |
				    PT_BIT(PCITOPO_A_PATH_HOPS) |
				    PT_BIT(PCITOPO_A_PATH_FLAGS);
			put_ref(p.a, pt, (s32)a);
			put_ref(p.b, pt, (s32)b);
			p.path_class = cp.class;
			p.hops = cp.hops;
			put_ref(p.common, pt, cp.common);
			if (p.common[0])
				p.present |= PT_BIT(PCITOPO_A_PATH_COMMON);
			put_ref(p.bottleneck, pt, cp.bottleneck);
			if (p.bottleneck[0]) {
				p.present |= PT_BIT(PCITOPO_A_PATH_BOTTLENECK) |
					PT_BIT(PCITOPO_A_PATH_BOTTLENECK_BW);
				p.bottleneck_bw = cp.bottleneck_bw;
			}
			p.flags = cp.flags;
			r = pt_topology_add_path(t, &p);
			if (r)
				return r;
		}
	}
	s->present = PT_BIT(PCITOPO_A_GENERATION) | PT_BIT(PCITOPO_A_LAYOUT) |
		     PT_BIT(PCITOPO_A_LAYOUT_REASON) |
		     PT_BIT(PCITOPO_A_COUNT_DEVICES) |
		     PT_BIT(PCITOPO_A_COUNT_GPUS) | PT_BIT(PCITOPO_A_COUNT_NICS) |
		     PT_BIT(PCITOPO_A_COUNT_NVMES) |
		     PT_BIT(PCITOPO_A_COUNT_SWITCHES) |
		     PT_BIT(PCITOPO_A_COUNT_ROOT_PORTS) |
		     PT_BIT(PCITOPO_A_COUNT_NUMA_NODES) |
		     PT_BIT(PCITOPO_A_COUNT_PATHS);
	s->layout = lay->layout;
	snprintf(s->reason, sizeof(s->reason), "%s", lay->reason);
	s->count_devices = pt->count;
	s->count_gpus = lay->gpus;
	s->count_nics = lay->nics;
	s->count_nvmes = lay->nvmes;
	s->count_switches = lay->switches;
	s->count_root_ports = lay->root_ports;
	s->count_numa_nodes = lay->numa_nodes;
	s->count_paths = (uint32_t)t->n_paths;
	return 0;
}

struct load_state {
	struct pci_access *acc;
	struct ent *ents;
	size_t n;
	struct ptc_node *nodes;
	u32 count;
	int err;
};

/* The class code as the kernel keeps it (quirks applied): the class file,
 * else config space. */
static uint32_t class_of(const char *root, const struct ent *e)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/class", root,
		 e->addr);
	if (!read_text(path, buf, sizeof(buf)))
		return (uint32_t)strtoul(buf, NULL, 0) & 0xffffff;
	return (uint32_t)e->pd->device_class << 8 |
	       pci_read_byte(e->pd, PCI_CLASS_PROG);
}

/* dev_to_node(): the numa_node file, -1 when absent */
/*
 * The CPU socket of NUMA node `node`, as the module finds it: the package
 * of the node's first CPU (ROOT/devices/system/node/nodeN/cpulist, then
 * ROOT/devices/system/cpu/cpuK/topology/physical_package_id). -1 if the
 * tree does not say (a snapshot or fixture without CPU topology). Cached
 * per node: the files are read once per load.
 */
#define SOCKET_CACHE	64
struct socket_cache {
	int socket[SOCKET_CACHE];	/* -2: not read yet */
};

static int socket_of(const char *root, struct socket_cache *sc, int node)
{
	char path[PATH_MAX], buf[64];
	long cpu;
	char *end;

	if (node < 0 || node >= SOCKET_CACHE)
		return -1;
	if (sc->socket[node] != -2)
		return sc->socket[node];
	sc->socket[node] = -1;
	snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpulist",
		 root, node);
	if (read_text(path, buf, sizeof(buf)))
		return -1;
	cpu = strtol(buf, &end, 10);
	if (end == buf || cpu < 0)
		return -1;
	snprintf(path, sizeof(path),
		 "%s/devices/system/cpu/cpu%ld/topology/physical_package_id",
		 root, cpu);
	if (read_text(path, buf, sizeof(buf)))
		return -1;
	cpu = strtol(buf, &end, 10);
	if (end != buf && cpu >= 0 && cpu <= UINT16_MAX)
		sc->socket[node] = (int)cpu;
	return sc->socket[node];
}

static int numa_of(const char *root, const struct ent *e)
{
	char path[PATH_MAX], buf[32];

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/numa_node", root,
		 e->addr);
	if (read_text(path, buf, sizeof(buf)))
		return -1;
	return (int)strtol(buf, NULL, 0);
}

/*
 * Config space in one read: 256 bytes, the whole 4 KiB for a PCIe device
 * (ACS lives past 256), handed to libpci as the device's cache. One read()
 * instead of one per register: the sysfs source costs a few syscalls per
 * device, which is what keeps it near the module's speed.
 */
static void load_config(const char *root, struct ent *e)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", root,
		 e->addr);
	e->cfg = malloc(4096);
	if (!e->cfg)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = pread(fd, e->cfg, 256, 0);
	/* Capabilities List bit and a PCIe capability in the chain: read on */
	if (n == 256 && (e->cfg[PCI_STATUS] & PCI_STATUS_CAP_LIST)) {
		unsigned int pos = e->cfg[PCI_CAPABILITY_LIST] & ~3U, hops = 0;

		while (pos >= 0x40 && pos < 256 && hops++ < 48) {
			if (e->cfg[pos] == PCI_CAP_ID_EXP) {
				ssize_t m = pread(fd, e->cfg + 256, 4096 - 256, 256);

				if (m > 0)
					n += m;
				break;
			}
			pos = e->cfg[pos + 1] & ~3U;
		}
	}
	close(fd);
	if (n > 0)
		pci_setup_cache(e->pd, e->cfg, (int)n);
}

/* Fill nodes from the libpci device list; the part that may longjmp. */
static int walk(struct pt_sysfs_opts *o, const char *root,
		struct load_state *ls)
{
	struct socket_cache sockets;
	struct pci_dev *pd;
	struct ent *ents;
	struct ptc_node *nodes;
	size_t n = 0, i;
	u32 count = 0;
	int r, sock;

	for (pd = ls->acc->devices; pd; pd = pd->next)
		n++;
	ls->n = n;
	ls->ents = ents = calloc(n ? n : 1, sizeof(*ents));
	ls->nodes = nodes = calloc(n ? n : 1, sizeof(*nodes));
	if (!ents || !nodes) {
		set_err("out of memory");
		return -ENOMEM;
	}
	for (pd = ls->acc->devices, i = 0; pd; pd = pd->next, i++) {
		ents[i].pd = pd;
		ents[i].node = -1;
		ptc_addr_format(ents[i].addr, sizeof(ents[i].addr),
				(u32)pd->domain, pd->bus,
				(u8)(pd->dev << 3 | pd->func));
		load_config(root, &ents[i]);
		r = locate(root, &ents[i]);
		if (r) {
			set_err("%s/bus/pci/devices/%s: %s", root, ents[i].addr,
				r == -EINVAL ? "not a device directory" :
				strerror(-r));
			return r == -EINVAL ? -EINVAL : -EIO;
		}
	}
	for (i = 0; i < n; i++)
		ents[i].up = find_ent(ents, n, ents[i].parent);
	for (i = 0; i < SOCKET_CACHE; i++)
		sockets.socket[i] = -2;

	for (i = 0; i < n; i++) {
		struct ent *e = &ents[i];
		struct ptc_node *nd = &nodes[count];
		uint16_t flags = 0;
		uint8_t hdr, role, kind;
		uint32_t cls;
		int pos;

		pd = e->pd;
		pci_fill_info(pd, PCI_FILL_IDENT | PCI_FILL_CLASS |
			      PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
		hdr = pci_read_byte(pd, PCI_HEADER_TYPE) & 0x7f;
		pos = exp_cap(pd, &flags);
		cls = class_of(root, e);
		if (hdr == PCI_HEADER_TYPE_BRIDGE ||
		    hdr == PCI_HEADER_TYPE_CARDBUS) {
			/* dev->subordinate: every bridge gets a bus */
			role = bridge_role(pos, flags);
			kind = PCITOPO_KIND_PORT;
		} else {
			role = PCITOPO_ROLE_ENDPOINT;
			kind = ptc_endpoint_kind(pd->vendor_id, cls,
						 extra_kind(o, pd->vendor_id,
							    pd->device_id),
						 on_pci_bus(ents, e->up));
			if (kind == PCITOPO_KIND_NONE)
				continue;
		}
		memset(nd, 0, sizeof(*nd));
		nd->domain = (u32)pd->domain;
		nd->bus = pd->bus;
		nd->devfn = (u8)(pd->dev << 3 | pd->func);
		nd->parent = PTC_NONE;	/* linked below, by address */
		nd->role = role;
		nd->vendor = pd->vendor_id;
		nd->device = pd->device_id;
		nd->class = cls;
		nd->kind = kind;
		nd->numa_node = numa_of(root, e);
		sock = socket_of(root, &sockets, nd->numa_node);
		nd->has_socket = sock >= 0;
		nd->socket = (u16)(sock >= 0 ? sock : 0);
		nd->root_bus = (u8)e->root_bus;
		nd->slot = -1;
		if (pos) {
			read_link(pd, pos, EXP_FLAGS_TYPE(flags), nd);
			read_link_active(e->up >= 0 ? ents[e->up].pd : NULL, nd);
		}
		read_acs(pd, nd);
		read_slot(pd, pos, flags, nd);
		e->node = (int)count++;
	}
	for (i = 0; i < n; i++) {
		int up = ents[i].up;

		if (ents[i].node < 0)
			continue;
		if (up >= 0 && ents[up].node < 0) {
			/* a parent that is no bridge: the core would refuse */
			set_err("%s: parent %s is not a bridge", ents[i].addr,
				ents[up].addr);
			return -EINVAL;
		}
		nodes[ents[i].node].parent = up >= 0 ? ents[up].node : PTC_NONE;
	}
	ls->count = count;
	return 0;
}

/* libpci's part: everything here may longjmp out through pci_err_cb. */
static int load_pci(struct pt_sysfs_opts *o, const char *root, char *dir,
		    struct load_state *ls)
{
	jmp_buf jb;

	pci_jmp = &jb;
	if (setjmp(jb)) {
		pci_jmp = NULL;
		return -EIO;
	}
	pci_set_param(ls->acc, "sysfs.path", dir);
	pci_init(ls->acc);
	pci_scan_bus(ls->acc);
	ls->count = 0;
	ls->err = walk(o, root, ls);
	/* whether config space was readable past the first 64 bytes */
	for (size_t i = 0; !ls->err && i < ls->n; i++) {
		uint8_t b[4];

		if (!pci_read_block(ls->ents[i].pd, 0x40, b, sizeof(b))) {
			o->flags |= PT_SYSFS_F_SHORT_CONFIG;
			break;
		}
	}
	pci_jmp = NULL;
	return ls->err;
}

int pt_sysfs_load(struct pt_sysfs_opts *o, struct pt_topology *t)
{
	const char *root = o->root ? o->root : "/sys";
	char dir[PATH_MAX], devs[PATH_MAX];
	struct load_state *ls;
	struct ptc_topo pt = { 0 };
	struct ptc_layout lay;
	int r;

	memset(t, 0, sizeof(*t));
	last_err[0] = '\0';
	o->flags = 0;
	if (snprintf(dir, sizeof(dir), "%s/bus/pci", root) >= (int)sizeof(dir) ||
	    snprintf(devs, sizeof(devs), "%s/bus/pci/devices", root) >=
	    (int)sizeof(devs)) {
		set_err("%s: path too long", root);
		return -ENAMETOOLONG;
	}
	if (access(devs, R_OK | X_OK)) {
		r = -errno;
		set_err("%s: %s", devs, strerror(errno));
		return r;
	}
	r = pt_dl_open(&libpci, last_err, sizeof(last_err));
	if (r)
		return r;
	ls = calloc(1, sizeof(*ls));
	if (ls)
		ls->acc = pci_alloc();
	if (!ls || !ls->acc) {
		free(ls);
		set_err("out of memory");
		return -ENOMEM;
	}
	ls->acc->error = pci_err_cb;
	ls->acc->warning = pci_quiet_cb;
	ls->acc->debug = pci_quiet_cb;
	ls->acc->method = PCI_ACCESS_SYS_BUS_PCI;
	/* IDs from config space, no resource or irq files needed; the
	 * class and NUMA node are read from their sysfs files */
	ls->acc->buscentric = 1;
	r = load_pci(o, root, dir, ls);
	pci_cleanup(ls->acc);
	for (size_t i = 0; ls->ents && i < ls->n; i++)
		free(ls->ents[i].cfg);
	free(ls->ents);
	if (r)
		goto out;
	pt.nodes = ls->nodes;
	pt.count = ls->count;
	r = ptc_resolve(&pt);
	if (r) {
		set_err("the core rejected the PCI tree of %s (%s)", root,
			strerror(-r));
		goto out;
	}
	ptc_layout(&pt, &lay);
	r = to_model(&pt, &lay, t);
	if (r) {
		set_err("out of memory");
		goto out;
	}
	t->generation = 0;
	t->summary.generation = 0;
	pt_topology_sort(t);
out:
	free(ls->nodes);
	free(ls);
	if (r)
		pt_topology_free(t);
	return r;
}

/* --- snapshot ----------------------------------------------------------- */

/* mkdir -p of path (absolute or relative). */
static int mkdirs(const char *path)
{
	char buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Copy one regular file (at most max bytes); -ENOENT if src is absent. */
static int copy_file(const char *src, const char *dst, size_t max)
{
	char buf[4096];
	size_t done = 0;
	ssize_t n;
	int in, out, r = 0;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while (done < max) {
		size_t want = max - done < sizeof(buf) ? max - done : sizeof(buf);

		n = read(in, buf, want);
		if (n < 0) {
			/* some attributes refuse reads (EIO, EINVAL): skip */
			r = errno == EIO || errno == EINVAL || errno == ENODEV ||
			    errno == EPERM || errno == EACCES ? 0 : -errno;
			break;
		}
		if (!n)
			break;
		if (write(out, buf, (size_t)n) != n) {
			r = -EIO;
			break;
		}
		done += (size_t)n;
	}
	close(in);
	if (close(out) && !r)
		r = -errno;
	return r;
}

/* What the fallback, lspci and a reader of a bug report look at. */
static const char *const dev_attrs[] = {
	"config", "vendor", "device", "class", "revision", "subsystem_vendor",
	"subsystem_device", "numa_node", "irq", "resource", "local_cpulist",
	"secondary_bus_number", "subordinate_bus_number", "current_link_speed",
	"current_link_width", "max_link_speed", "max_link_width", "label",
	"modalias", "enable", "d3cold_allowed", "msi_bus", "ari_enabled",
	/* the evidence `topoctl doctor` reads (health.h) */
	"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal",
};

/*
 * The device's iommu_group link, pointing into DIR/kernel/iommu_groups/N as
 * the live one does, and that group's type (health.h reads both): whether
 * the IOMMU translates the GPU's DMA is evidence a saved tree must carry.
 */
static int snap_iommu(const char *root, const char *rp, const char *dir,
		      const char *sub)
{
	char src[PATH_MAX + 32], dst[PATH_MAX + 64], target[PATH_MAX];
	char rel[PATH_MAX];
	const char *base, *p;
	size_t len = 0;
	ssize_t n;
	int r;

	snprintf(src, sizeof(src), "%s/iommu_group", rp);
	n = readlink(src, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	snprintf(dst, sizeof(dst), "%s/kernel/iommu_groups/%s", dir, base);
	r = mkdirs(dst);
	snprintf(src, sizeof(src), "%s/kernel/iommu_groups/%s/type", root, base);
	snprintf(dst, sizeof(dst), "%s/kernel/iommu_groups/%s/type", dir, base);
	if (!r && access(dst, F_OK)) {
		r = copy_file(src, dst, 64);
		if (r == -ENOENT || r == -EACCES || r == -EPERM)
			r = 0;
	}
	if (r)
		return r;
	/* sub is "devices/pci0000:00/ADDR": one "../" per component */
	rel[0] = '\0';
	for (p = sub; p && len + 3 < sizeof(rel); p = strchr(p + 1, '/'))
		len += (size_t)snprintf(rel + len, sizeof(rel) - len, "../");
	snprintf(rel + len, sizeof(rel) - len, "kernel/iommu_groups/%s", base);
	snprintf(dst, sizeof(dst), "%s/%s/iommu_group", dir, sub);
	return symlink(rel, dst) ? -errno : 0;
}

static int is_dir_empty(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return errno == ENOENT ? 1 : -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n == 0;
}

/* The names in a device's net/ directory, as empty directories. */
static int snap_netdevs(const char *rp, const char *dir, const char *sub)
{
	char src[PATH_MAX], dst[PATH_MAX];
	struct dirent *de;
	int r = 0;
	DIR *d;

	snprintf(src, sizeof(src), "%s/net", rp);
	d = opendir(src);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dst, sizeof(dst), "%s/%s/net/%s", dir, sub, de->d_name);
		r = mkdirs(dst);
		if (r)
			set_err("%s: %s", dst, strerror(-r));
	}
	closedir(d);
	return r;
}

static int snap_devices(const char *root, const char *rroot, const char *dir)
{
	char src[PATH_MAX], dst[PATH_MAX], rel[PATH_MAX], *rp;
	const char *sub;
	struct dirent *de;
	int count = 0, r = 0;
	size_t k, rlen = strlen(rroot);
	DIR *d;

	snprintf(src, sizeof(src), "%s/bus/pci/devices", root);
	d = opendir(src);
	if (!d) {
		r = -errno;
		set_err("%s: %s", src, strerror(errno));
		return r;
	}
	snprintf(dst, sizeof(dst), "%s/bus/pci/devices", dir);
	r = mkdirs(dst);
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/bus/pci/devices/%s", root,
			 de->d_name);
		rp = realpath(src, NULL);
		if (!rp) {
			r = -errno;
			set_err("%s: %s", src, strerror(errno));
			break;
		}
		if (strncmp(rp, rroot, rlen) || rp[rlen] != '/') {
			set_err("%s points outside %s", src, rroot);
			free(rp);
			r = -EINVAL;
			break;
		}
		sub = rp + rlen + 1;	/* "devices/pci0000:00/0000:00:01.0" */
		snprintf(dst, sizeof(dst), "%s/%s", dir, sub);
		r = mkdirs(dst);
		for (k = 0; !r && k < sizeof(dev_attrs) / sizeof(dev_attrs[0]);
		     k++) {
			snprintf(src, sizeof(src), "%s/%s", rp, dev_attrs[k]);
			snprintf(dst, sizeof(dst), "%s/%s/%s", dir, sub,
				 dev_attrs[k]);
			r = copy_file(src, dst, 4096);
			if (r == -ENOENT || r == -EACCES || r == -EPERM)
				r = 0;	/* not every device has every file */
			if (r)
				set_err("%s: %s", src, strerror(-r));
		}
		if (!r)
			r = snap_netdevs(rp, dir, sub);
		if (!r) {
			r = snap_iommu(root, rp, dir, sub);
			if (r)
				set_err("%s/iommu_group: %s", sub, strerror(-r));
		}
		snprintf(rel, sizeof(rel), "../../../%s", sub);
		snprintf(dst, sizeof(dst), "%s/bus/pci/devices/%s", dir,
			 de->d_name);
		if (!r && symlink(rel, dst)) {
			r = -errno;
			set_err("%s: %s", dst, strerror(errno));
		}
		free(rp);
		if (!r)
			count++;
	}
	closedir(d);
	return r ? r : count;
}

/* bus/pci/slots/N/address and devices/system/node/nodeN/cpulist */
static int snap_dir_files(const char *root, const char *dir, const char *sub,
			  const char *prefix, const char *file)
{
	char src[PATH_MAX], dst[PATH_MAX];
	struct dirent *de;
	int r = 0;
	DIR *d;

	snprintf(src, sizeof(src), "%s/%s", root, sub);
	d = opendir(src);
	if (!d)
		return 0;	/* no slots, no NUMA: nothing to save */
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(src, sizeof(src), "%s/%s/%s/%s", root, sub, de->d_name,
			 file);
		if (access(src, R_OK))
			continue;
		snprintf(dst, sizeof(dst), "%s/%s/%s/%s", dir, sub, de->d_name,
			 file);
		*strrchr(dst, '/') = '\0';	/* file may be "topology/x" */
		r = mkdirs(dst);
		snprintf(dst, sizeof(dst), "%s/%s/%s/%s", dir, sub, de->d_name,
			 file);
		if (!r)
			r = copy_file(src, dst, 4096);
		if (r)
			set_err("%s: %s", src, strerror(-r));
	}
	closedir(d);
	return r;
}

/*
 * class/CLASS/NAME/device of the PCI functions (rdma.h reads infiniband's
 * and net's), as links to DIR's bus/pci/devices/ADDR, and the `parent` of
 * soft RDMA devices. Entries not on a PCI function are left out.
 */
static int snap_class(const char *root, const char *dir, const char *cls)
{
	char src[PATH_MAX], dst[PATH_MAX], target[PATH_MAX];
	char rel[PATH_MAX + 32];
	const char *base;
	struct dirent *de;
	int r = 0;
	ssize_t n;
	DIR *d;

	snprintf(src, sizeof(src), "%s/class/%s", root, cls);
	d = opendir(src);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		bool parent;

		if (de->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/class/%s/%s/device", root, cls,
			 de->d_name);
		n = readlink(src, target, sizeof(target) - 1);
		snprintf(src, sizeof(src), "%s/class/%s/%s/parent", root, cls,
			 de->d_name);
		parent = n <= 0 && !access(src, R_OK);
		if (n <= 0 && !parent)
			continue;
		snprintf(dst, sizeof(dst), "%s/class/%s/%s", dir, cls,
			 de->d_name);
		r = mkdirs(dst);
		if (!r && parent) {
			snprintf(dst, sizeof(dst), "%s/class/%s/%s/parent", dir,
				 cls, de->d_name);
			r = copy_file(src, dst, 256);
		} else if (!r) {
			target[n] = '\0';
			base = strrchr(target, '/');
			snprintf(rel, sizeof(rel), "../../../bus/pci/devices/%s",
				 base ? base + 1 : target);
			snprintf(dst, sizeof(dst), "%s/class/%s/%s/device", dir,
				 cls, de->d_name);
			if (symlink(rel, dst))
				r = -errno;
		}
		if (r)
			set_err("%s: %s", dst, strerror(-r));
	}
	closedir(d);
	return r;
}


int pt_sysfs_snapshot(const char *root, const char *dir)
{
	char *rroot;
	int r, count;

	last_err[0] = '\0';
	if (!root)
		root = "/sys";
	r = is_dir_empty(dir);
	if (r < 0) {
		set_err("%s: %s", dir, strerror(-r));
		return r;
	}
	if (!r) {
		set_err("%s: not empty", dir);
		return -EEXIST;
	}
	rroot = realpath(root, NULL);
	if (!rroot) {
		r = -errno;
		set_err("%s: %s", root, strerror(errno));
		return r;
	}
	r = mkdirs(dir);
	if (r)
		set_err("%s: %s", dir, strerror(-r));
	count = r ? r : snap_devices(root, rroot, dir);
	free(rroot);
	if (count < 0)
		return count;
	r = snap_dir_files(root, dir, "bus/pci/slots", "", "address");
	if (!r)
		r = snap_dir_files(root, dir, "devices/system/node", "node",
				   "cpulist");
	if (!r)
		r = snap_dir_files(root, dir, "devices/system/cpu", "cpu",
				   "topology/physical_package_id");
	if (!r)
		r = snap_class(root, dir, "infiniband");
	if (!r)
		r = snap_class(root, dir, "net");
	return r ? r : count;
}
