// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: the model from sysfs through libpci, for machines without
 * pcitopo.ko. Each PCI function is copied into a struct ptc_raw, registers
 * as read, and decoded by the core (core/ptc_decode.c) exactly as
 * kmod/pcitopo_walk.c has it decoded; which attributes a device carries is
 * the core's too (ptc_dev_attrs(), as pcitopo_netlink.c sends them), so
 * topoctl prints the same either way.
 *
 * libpci's error callback must not return; it longjmp()s back here, and
 * ordinary failures (a missing tree) are checked before libpci is asked.
 * libpci itself is loaded by pt_sysfs_load() only (libpci_dl.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpci_dl.h"
#include "ptc_raw.h"
#include "rfile.h"
#include "sysfs.h"
#include "sysfs_err.h"

/* Offsets in the PCIe and ACS capabilities (include/uapi/linux/pci_regs.h) */
#define EXP_FLAGS		0x02
#define EXP_LNKCAP		0x0c
#define EXP_LNKSTA		0x12
#define EXP_SLTCAP		0x14
#define EXT_CAP_ACS		0x0d
#define ACS_CAP			0x04
#define ACS_CTRL		0x06

__thread char pt_sysfs_err[PT_SYSFS_ERR_LEN];
static __thread jmp_buf *pci_jmp;

const char *pt_sysfs_last_error(void)
{
	return pt_sysfs_err;
}

void pt_sysfs_vset_err(const char *fmt, va_list ap)
{
	vsnprintf(pt_sysfs_err, sizeof(pt_sysfs_err), fmt, ap);
}

void pt_sysfs_set_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_sysfs_vset_err(fmt, ap);
	va_end(ap);
}

static void pci_err_cb(char *msg, ...) __attribute__((format(printf, 1, 2), noreturn));
static void pci_err_cb(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	pt_sysfs_vset_err(msg, ap);
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
	int exp_pos;			/* PCIe capability offset, 0 if none */
	struct ptc_raw_exp exp;		/* its registers, for its children too */
	char addr[PCITOPO_ADDR_LEN];
	char parent[PCITOPO_ADDR_LEN];	/* "" on a root bus */
	unsigned int root_bus;
	int up;				/* index of the parent in ents, -1 */
	int node;			/* index in nodes, -1 if not of interest */
};

/*
 * The first file of the tree found to be no regular file (a FIFO where an
 * attribute should be: rfile.h): the load fails, naming it, once the walk
 * is over; per thread, like the message.
 */
static __thread bool bad_seen;

static int note_bad(const char *path, int r)
{
	if (r == -PT_ENOTREG && !bad_seen) {
		bad_seen = true;
		pt_sysfs_set_err("%s: %s", path, pt_file_strerror(r));
	}
	return r;
}

static int read_text(const char *path, char *buf, size_t len)
{
	return note_bad(path, pt_file_read(path, buf, len, NULL));
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

/* The PCIe registers ptc_raw_decode() looks at, for e and its children. */
static void read_exp(struct ent *e)
{
	struct pci_dev *pd = e->pd;

	e->exp_pos = exp_cap(pd, &e->exp.flags);
	e->exp.present = e->exp_pos != 0;
	if (!e->exp.present)
		return;
	e->exp.lnkcap = pci_read_long(pd, e->exp_pos + EXP_LNKCAP);
	e->exp.lnksta = pci_read_word(pd, e->exp_pos + EXP_LNKSTA);
}

static void read_acs(struct pci_dev *pd, struct ptc_raw *r)
{
	struct pci_cap *cap = pci_find_cap(pd, EXT_CAP_ACS, PCI_CAP_EXTENDED);

	if (!cap)
		return;
	r->acs_cap = pci_read_word(pd, cap->addr + ACS_CAP);
	r->acs_ctrl = pci_read_word(pd, cap->addr + ACS_CTRL);
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

		d.present = ptc_dev_attrs(n);
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
		snprintf(d.host_bridge, sizeof(d.host_bridge), "%04x:%02x",
			 n->domain, n->root_bus);
		d.numa_node = n->numa_node;
		d.link_flags = n->link_flags;
		if (pt_has(&d, PCITOPO_A_DEV_LINK_SPEED)) {
			d.link_speed = n->cur.speed;
			d.link_width = n->cur.width;
			d.link_max_speed = n->link_max.speed;
			d.link_max_width = n->link_max.width;
			d.link_bw = n->link_bw;
			d.link_max_bw = n->link_max_bw;
		}
		if (pt_has(&d, PCITOPO_A_DEV_SLOT))
			d.slot = (uint32_t)n->slot;
		d.hotplug = n->hotplug;
		if (pt_has(&d, PCITOPO_A_DEV_ACS_CAP)) {
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
 * Config space in one read, the whole 4 KiB where the device has it (ACS
 * lives past 256), handed to libpci as the device's cache: one read()
 * instead of one per register, which keeps the sysfs source near the
 * module's speed, and libpci never opens the file itself.
 */
static void load_config(const char *root, struct ent *e)
{
	char path[PATH_MAX];
	size_t n;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", root,
		 e->addr);
	e->cfg = malloc(4096 + 1);	/* + the NUL pt_file_read() adds */
	if (!e->cfg)
		return;
	if (!note_bad(path, pt_file_read(path, e->cfg, 4096 + 1, &n)) && n > 0)
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
		pt_sysfs_set_err("out of memory");
		return -ENOMEM;
	}
	for (pd = ls->acc->devices, i = 0; pd; pd = pd->next, i++) {
		ents[i].pd = pd;
		ents[i].node = -1;
		ptc_addr_format(ents[i].addr, sizeof(ents[i].addr),
				(u32)pd->domain, pd->bus,
				(u8)(pd->dev << 3 | pd->func));
		load_config(root, &ents[i]);
		if (bad_seen)
			return -PT_ENOTREG;	/* before libpci reads it */
		r = locate(root, &ents[i]);
		if (r) {
			pt_sysfs_set_err("%s/bus/pci/devices/%s: %s", root, ents[i].addr,
				r == -EINVAL ? "not a device directory" :
				strerror(-r));
			return r == -EINVAL ? -EINVAL : -EIO;
		}
	}
	for (i = 0; i < n; i++) {
		ents[i].up = find_ent(ents, n, ents[i].parent);
		pci_fill_info(ents[i].pd, PCI_FILL_IDENT | PCI_FILL_CLASS |
			      PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
		read_exp(&ents[i]);
	}
	for (i = 0; i < SOCKET_CACHE; i++)
		sockets.socket[i] = -2;

	for (i = 0; i < n; i++) {
		struct ent *e = &ents[i];
		struct ptc_raw raw = { 0 };
		uint8_t hdr;

		pd = e->pd;
		hdr = pci_read_byte(pd, PCI_HEADER_TYPE) & 0x7f;
		raw.domain = (u32)pd->domain;
		raw.bus = pd->bus;
		raw.devfn = (u8)(pd->dev << 3 | pd->func);
		raw.vendor = pd->vendor_id;
		raw.device = pd->device_id;
		raw.class = class_of(root, e);
		/* dev->subordinate: every bridge gets a bus */
		raw.bridge = hdr == PCI_HEADER_TYPE_BRIDGE ||
			     hdr == PCI_HEADER_TYPE_CARDBUS;
		raw.extra_kind = extra_kind(o, pd->vendor_id, pd->device_id);
		raw.exp = e->exp;
		raw.has_up = e->up >= 0;
		if (raw.has_up)
			raw.up = ents[e->up].exp;
		if (ptc_raw_kind(&raw) == PCITOPO_KIND_NONE)
			continue;
		raw.numa_node = numa_of(root, e);
		sock = socket_of(root, &sockets, raw.numa_node);
		raw.has_socket = sock >= 0;
		raw.socket = (u16)(sock >= 0 ? sock : 0);
		raw.root_bus = (u8)e->root_bus;
		if (e->exp.present)
			raw.sltcap = pci_read_long(pd, e->exp_pos + EXP_SLTCAP);
		read_acs(pd, &raw);
		ptc_raw_decode(&raw, &nodes[count]);
		e->node = (int)count++;
	}
	for (i = 0; i < n; i++) {
		int up = ents[i].up;

		if (ents[i].node < 0)
			continue;
		if (up >= 0 && ents[up].node < 0) {
			/* a parent that is no bridge: the core would refuse */
			pt_sysfs_set_err("%s: parent %s is not a bridge", ents[i].addr,
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
	if (!ls->err && bad_seen)
		ls->err = -PT_ENOTREG;
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
	pt_sysfs_err[0] = '\0';
	bad_seen = false;
	o->flags = 0;
	if (snprintf(dir, sizeof(dir), "%s/bus/pci", root) >= (int)sizeof(dir) ||
	    snprintf(devs, sizeof(devs), "%s/bus/pci/devices", root) >=
	    (int)sizeof(devs)) {
		pt_sysfs_set_err("%s: path too long", root);
		return -ENAMETOOLONG;
	}
	if (access(devs, R_OK | X_OK)) {
		r = -errno;
		pt_sysfs_set_err("%s: %s", devs, strerror(errno));
		return r;
	}
	r = pt_libpci_open(pt_sysfs_err, sizeof(pt_sysfs_err));
	if (r)
		return r;
	ls = calloc(1, sizeof(*ls));
	if (ls)
		ls->acc = pci_alloc();
	if (!ls || !ls->acc) {
		free(ls);
		pt_sysfs_set_err("out of memory");
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
		pt_sysfs_set_err("the core rejected the PCI tree of %s (%s)", root,
			strerror(-r));
		goto out;
	}
	ptc_layout(&pt, &lay);
	r = to_model(&pt, &lay, t);
	if (r) {
		pt_sysfs_set_err("out of memory");
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
