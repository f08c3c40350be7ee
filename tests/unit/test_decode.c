// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The one decoder of what a reader collects (core/ptc_decode.c): records as
 * the module and the sysfs source fill them, and the node each must give
 * (role, kind, link figures, link active, slot, hotplug, ACS); then which
 * attributes a device's message carries (core/ptc_dev_attrs.c).
 */
#include "ptc_raw.h"
#include "tap.h"

#define EXP(type)		((u16)((type) << 4 | 0x2))
#define EXP_SLOT(type)		((u16)(EXP(type) | PTC_EXP_FLAGS_SLOT))
#define LNKCAP(sls, mlw)	((u32)(sls) | (u32)(mlw) << 4)
#define LNKSTA(cls, nlw)	((u16)((cls) | (nlw) << 4))
#define SLTCAP(psn)		((u32)(psn) << 19)

/* The PCIe capability of a switch downstream port above an endpoint. */
#define DS_PORT(cap_, sta_) \
	{ .present = true, .flags = EXP(PTC_EXP_TYPE_DOWNSTREAM), \
	  .lnkcap = (cap_), .lnksta = (sta_) }

#define GPU_IDS		.vendor = 0x10de, .device = 0x2330, .class = 0x030200
#define EP_GEN5_X16 \
	.exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_ENDPOINT), \
		 .lnkcap = LNKCAP(5, 16), .lnksta = LNKSTA(5, 16) }

struct want {
	bool of_interest;
	u8 role, kind;
	bool has_link, active;
	u32 cap_speed;
	u8 cap_width;
	u32 cur_speed;
	u8 cur_width;
	s32 slot;
	bool hotplug;
	u16 acs_cap, acs_ctrl;
};

static const struct {
	const char *what;
	struct ptc_raw raw;
	struct want want;
} cases[] = {
	{ "GPU below a port reporting DLL Link Active: active, Gen5 x16",
	  { GPU_IDS, EP_GEN5_X16, .has_up = true,
	    .up = DS_PORT(LNKCAP(5, 16) | PTC_EXP_LNKCAP_DLLLARC,
			  LNKSTA(5, 16) | PTC_EXP_LNKSTA_DLLLA) },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, true, true,
	    32000, 16, 32000, 16, -1, false, 0, 0 } },
	{ "link down under a DLLLARC port: LnkSta's old x16 is not active",
	  { GPU_IDS, EP_GEN5_X16, .has_up = true,
	    .up = DS_PORT(LNKCAP(5, 16) | PTC_EXP_LNKCAP_DLLLARC,
			  LNKSTA(5, 16)) },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, true, false,
	    32000, 16, 32000, 16, -1, false, 0, 0 } },
	{ "port without DLLLARC: a trained width is active",
	  { GPU_IDS, EP_GEN5_X16, .has_up = true,
	    .up = DS_PORT(LNKCAP(5, 16), 0) },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, true, true,
	    32000, 16, 32000, 16, -1, false, 0, 0 } },
	{ "port without DLLLARC, width 0: not active",
	  { GPU_IDS, .has_up = true, .up = DS_PORT(LNKCAP(5, 16), 0),
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_ENDPOINT),
		     .lnkcap = LNKCAP(5, 16), .lnksta = LNKSTA(5, 0) } },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, true, false,
	    32000, 16, 32000, 0, -1, false, 0, 0 } },
	{ "device gone (all ones): no figures, not active",
	  { GPU_IDS, .has_up = true, .up = DS_PORT(LNKCAP(5, 16), 0),
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_ENDPOINT),
		     .lnkcap = 0xffffffff, .lnksta = 0xffff } },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, true, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "port above reads all ones: its DLLLA bit is not believed",
	  { GPU_IDS, EP_GEN5_X16, .has_up = true,
	    .up = DS_PORT(0xffffffff, 0xffff) },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, true, true,
	    32000, 16, 32000, 16, -1, false, 0, 0 } },
	{ "port above with DLLLARC but LnkSta all ones: width decides",
	  { GPU_IDS, EP_GEN5_X16, .has_up = true,
	    .up = DS_PORT(LNKCAP(5, 16) | PTC_EXP_LNKCAP_DLLLARC, 0xffff) },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, true, true,
	    32000, 16, 32000, 16, -1, false, 0, 0 } },
	{ "root port: its link is its child's; slot 7, hotplug capable",
	  { .vendor = 0x8086, .device = 0x352a, .class = 0x060400,
	    .bridge = true,
	    .exp = { .present = true,
		     .flags = EXP_SLOT(PTC_EXP_TYPE_ROOT_PORT),
		     .lnkcap = LNKCAP(4, 16), .lnksta = LNKSTA(4, 16) },
	    .sltcap = SLTCAP(7) | PTC_EXP_SLTCAP_HPC },
	  { true, PCITOPO_ROLE_ROOT_PORT, PCITOPO_KIND_PORT, false, false,
	    16000, 16, 16000, 16, 7, true, 0, 0 } },
	{ "slot number 8191, the widest field",
	  { .bridge = true, .class = 0x060400,
	    .exp = { .present = true,
		     .flags = EXP_SLOT(PTC_EXP_TYPE_DOWNSTREAM) },
	    .sltcap = SLTCAP(8191) },
	  { true, PCITOPO_ROLE_DOWNSTREAM, PCITOPO_KIND_PORT, false, false,
	    0, 0, 0, 0, 8191, false, 0, 0 } },
	{ "downstream port without Slot Implemented: no slot",
	  { .bridge = true, .class = 0x060400,
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_DOWNSTREAM) },
	    .sltcap = SLTCAP(3) | PTC_EXP_SLTCAP_HPC },
	  { true, PCITOPO_ROLE_DOWNSTREAM, PCITOPO_KIND_PORT, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "Slot Capabilities all ones: no slot, not hotplug",
	  { .bridge = true, .class = 0x060400,
	    .exp = { .present = true,
		     .flags = EXP_SLOT(PTC_EXP_TYPE_ROOT_PORT) },
	    .sltcap = 0xffffffff },
	  { true, PCITOPO_ROLE_ROOT_PORT, PCITOPO_KIND_PORT, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "hotplug bridge by the PCI core (ACPI), no slot register",
	  { .bridge = true, .class = 0x060400, .hotplug_bridge = true,
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_DOWNSTREAM) } },
	  { true, PCITOPO_ROLE_DOWNSTREAM, PCITOPO_KIND_PORT, false, false,
	    0, 0, 0, 0, -1, true, 0, 0 } },
	{ "switch upstream port: has the link",
	  { .vendor = 0x1000, .device = 0xc010, .class = 0x060400,
	    .bridge = true,
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_UPSTREAM),
		     .lnkcap = LNKCAP(4, 16), .lnksta = LNKSTA(3, 8) } },
	  { true, PCITOPO_ROLE_UPSTREAM, PCITOPO_KIND_PORT, true, true,
	    16000, 16, 8000, 8, -1, false, 0, 0 } },
	{ "PCIe-to-PCI bridge: role BRIDGE, link upstream",
	  { .vendor = 0x1a03, .device = 0x1150, .class = 0x060400,
	    .bridge = true,
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_PCI_BRIDGE),
		     .lnkcap = LNKCAP(1, 1), .lnksta = LNKSTA(1, 1) } },
	  { true, PCITOPO_ROLE_BRIDGE, PCITOPO_KIND_PORT, true, true,
	    2500, 1, 2500, 1, -1, false, 0, 0 } },
	{ "PCI-to-PCIe bridge with Slot Implemented: role BRIDGE, no slot",
	  { .bridge = true, .class = 0x060400,
	    .exp = { .present = true,
		     .flags = EXP_SLOT(PTC_EXP_TYPE_PCIE_BRIDGE) },
	    .sltcap = SLTCAP(2) },
	  { true, PCITOPO_ROLE_BRIDGE, PCITOPO_KIND_PORT, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "conventional PCI bridge: no PCIe registers count",
	  { .bridge = true, .class = 0x060400,
	    .exp = { .present = false, .flags = EXP(PTC_EXP_TYPE_UPSTREAM),
		     .lnkcap = LNKCAP(5, 16), .lnksta = LNKSTA(5, 16) } },
	  { true, PCITOPO_ROLE_BRIDGE, PCITOPO_KIND_PORT, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "root-complex integrated endpoint: no link registers",
	  { GPU_IDS,
	    .exp = { .present = true, .flags = EXP(0x9),
		     .lnkcap = LNKCAP(5, 16), .lnksta = LNKSTA(5, 16) } },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "legacy endpoint NIC: has its link",
	  { .vendor = 0x15b3, .device = 0x1021, .class = 0x020000,
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_LEG_END),
		     .lnkcap = LNKCAP(3, 8), .lnksta = LNKSTA(3, 8) } },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_NIC, true, true,
	    8000, 8, 8000, 8, -1, false, 0, 0 } },
	{ "VGA with an extra GPU ID behind a conventional bridge: display",
	  { .vendor = 0x1234, .device = 0x1111, .class = 0x030000,
	    .extra_kind = PCITOPO_KIND_GPU, .has_up = true },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_DISPLAY, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "same VGA below a PCIe downstream port: the extra ID's GPU",
	  { .vendor = 0x1234, .device = 0x1111, .class = 0x030000,
	    .extra_kind = PCITOPO_KIND_GPU, .has_up = true,
	    .up = DS_PORT(0, 0) },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "same VGA on a root bus: the extra ID's GPU",
	  { .vendor = 0x1234, .device = 0x1111, .class = 0x030000,
	    .extra_kind = PCITOPO_KIND_GPU },
	  { true, PCITOPO_ROLE_ENDPOINT, PCITOPO_KIND_GPU, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "downstream port's ACS kept as read",
	  { .bridge = true, .class = 0x060400, .acs_cap = 0x5f,
	    .acs_ctrl = 0x1d,
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_DOWNSTREAM) } },
	  { true, PCITOPO_ROLE_DOWNSTREAM, PCITOPO_KIND_PORT, false, false,
	    0, 0, 0, 0, -1, false, 0x5f, 0x1d } },
	{ "ACS capability register all ones: no ACS",
	  { .bridge = true, .class = 0x060400, .acs_cap = 0xffff,
	    .acs_ctrl = 0x1d,
	    .exp = { .present = true, .flags = EXP(PTC_EXP_TYPE_DOWNSTREAM) } },
	  { true, PCITOPO_ROLE_DOWNSTREAM, PCITOPO_KIND_PORT, false, false,
	    0, 0, 0, 0, -1, false, 0, 0 } },
	{ "USB controller: not of interest",
	  { .vendor = 0x8086, .device = 0x1234, .class = 0x0c0330,
	    EP_GEN5_X16 },
	  { .of_interest = false } },
	{ "NVIDIA HD audio function: not of interest",
	  { .vendor = 0x10de, .device = 0x22ba, .class = 0x040300,
	    EP_GEN5_X16 },
	  { .of_interest = false } },
};

static void diff_u(char *buf, size_t len, size_t *off, const char *name,
		   long long got, long long want)
{
	if (got != want && *off < len)
		*off += (size_t)snprintf(buf + *off, len - *off,
					 " %s=%lld (want %lld)", name, got,
					 want);
}

static void test_cases(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct want *w = &cases[i].want;
		struct ptc_node n;
		char d[512] = "";
		size_t off = 0;
		bool got;

		memset(&n, 0x5a, sizeof(n));
		got = ptc_raw_decode(&cases[i].raw, &n);
		diff_u(d, sizeof(d), &off, "of_interest", got, w->of_interest);
		if (!got) {
			/* untouched: still the fill pattern */
			diff_u(d, sizeof(d), &off, "touched", n.role != 0x5a, 0);
			diff_u(d, sizeof(d), &off, "kind()",
			       ptc_raw_kind(&cases[i].raw), PCITOPO_KIND_NONE);
		} else {
			diff_u(d, sizeof(d), &off, "role", n.role, w->role);
			diff_u(d, sizeof(d), &off, "role()",
			       ptc_raw_role(&cases[i].raw), w->role);
			diff_u(d, sizeof(d), &off, "kind", n.kind, w->kind);
			diff_u(d, sizeof(d), &off, "parent", n.parent, PTC_NONE);
			diff_u(d, sizeof(d), &off, "has_link", n.has_link,
			       w->has_link);
			diff_u(d, sizeof(d), &off, "active", n.link_active,
			       w->active);
			diff_u(d, sizeof(d), &off, "cap.speed", n.cap.speed,
			       w->cap_speed);
			diff_u(d, sizeof(d), &off, "cap.width", n.cap.width,
			       w->cap_width);
			diff_u(d, sizeof(d), &off, "cur.speed", n.cur.speed,
			       w->cur_speed);
			diff_u(d, sizeof(d), &off, "cur.width", n.cur.width,
			       w->cur_width);
			diff_u(d, sizeof(d), &off, "slot", n.slot, w->slot);
			diff_u(d, sizeof(d), &off, "hotplug", n.hotplug,
			       w->hotplug);
			diff_u(d, sizeof(d), &off, "acs_cap", n.acs_cap,
			       w->acs_cap);
			diff_u(d, sizeof(d), &off, "acs_ctrl", n.acs_ctrl,
			       w->acs_ctrl);
		}
		if (!tap_ok(off == 0, "%s", cases[i].what))
			tap_diag("got%s", d);
	}
}

/* Identity, NUMA node, socket and root bus go through as read. */
static void test_identity(void)
{
	struct ptc_raw r = {
		.domain = 1, .bus = 0x41, .devfn = 0x08, GPU_IDS,
		.numa_node = 3, .has_socket = true, .socket = 1,
		.root_bus = 0x40,
	};
	struct ptc_node n;

	ptc_raw_decode(&r, &n);
	tap_ok(n.domain == 1 && n.bus == 0x41 && n.devfn == 0x08 &&
	       n.vendor == 0x10de && n.device == 0x2330 &&
	       n.class == 0x030200 && n.root_bus == 0x40,
	       "address, IDs, class and root bus copied");
	tap_ok(n.numa_node == 3 && n.has_socket && n.socket == 1,
	       "NUMA node 3 on socket 1 copied");
	r.has_socket = false;
	r.numa_node = -1;
	ptc_raw_decode(&r, &n);
	tap_ok(n.numa_node == -1 && !n.has_socket && n.socket == 0,
	       "unknown NUMA node and socket stay unknown");
}

#define ALWAYS (PTC_ATTR(PCITOPO_A_GENERATION) | \
		PTC_ATTR(PCITOPO_A_DEV_ADDR) | PTC_ATTR(PCITOPO_A_DEV_ROLE) | \
		PTC_ATTR(PCITOPO_A_DEV_KIND) | \
		PTC_ATTR(PCITOPO_A_DEV_VENDOR) | \
		PTC_ATTR(PCITOPO_A_DEV_DEVICE) | \
		PTC_ATTR(PCITOPO_A_DEV_CLASS) | \
		PTC_ATTR(PCITOPO_A_DEV_HOST_BRIDGE) | \
		PTC_ATTR(PCITOPO_A_DEV_NUMA_NODE) | \
		PTC_ATTR(PCITOPO_A_DEV_LINK_FLAGS) | \
		PTC_ATTR(PCITOPO_A_DEV_HOTPLUG))

#define LINK (PTC_ATTR(PCITOPO_A_DEV_LINK_SPEED) | \
	      PTC_ATTR(PCITOPO_A_DEV_LINK_WIDTH) | \
	      PTC_ATTR(PCITOPO_A_DEV_LINK_MAX_SPEED) | \
	      PTC_ATTR(PCITOPO_A_DEV_LINK_MAX_WIDTH) | \
	      PTC_ATTR(PCITOPO_A_DEV_LINK_BW) | \
	      PTC_ATTR(PCITOPO_A_DEV_LINK_MAX_BW))

static void test_attrs(void)
{
	struct ptc_node bare = {
		.parent = PTC_NONE, .root_port = PTC_NONE, .sw = PTC_NONE,
		.slot = -1,
	};
	struct ptc_node n;

	tap_eq(ptc_dev_attrs(&bare), ALWAYS,
	       "root bus device, no link, slot or ACS: the 11 it always has");
	n = bare;
	n.parent = 0;
	n.root_port = 0;
	tap_eq(ptc_dev_attrs(&n), ALWAYS | PTC_ATTR(PCITOPO_A_DEV_PARENT) |
	       PTC_ATTR(PCITOPO_A_DEV_ROOT_PORT),
	       "below a root port: parent and root port, no switch");
	n = bare;
	n.sw = 3;
	tap_eq(ptc_dev_attrs(&n), ALWAYS | PTC_ATTR(PCITOPO_A_DEV_SWITCH),
	       "in a switch: the switch");
	n = bare;
	n.link_flags = PCITOPO_LINK_F_ACTIVE;
	tap_eq(ptc_dev_attrs(&n), ALWAYS,
	       "link flags without PRESENT: no link figures");
	n.link_flags = PCITOPO_LINK_F_PRESENT;
	tap_eq(ptc_dev_attrs(&n), ALWAYS | LINK,
	       "a link, even one down: its six figures");
	n = bare;
	n.slot = 0;
	tap_eq(ptc_dev_attrs(&n), ALWAYS | PTC_ATTR(PCITOPO_A_DEV_SLOT),
	       "slot 0 is a slot");
	n = bare;
	n.acs_ctrl = 0x1d;
	tap_eq(ptc_dev_attrs(&n), ALWAYS,
	       "ACS control without a capability: no ACS");
	n.acs_cap = 0x5f;
	tap_eq(ptc_dev_attrs(&n), ALWAYS | PTC_ATTR(PCITOPO_A_DEV_ACS_CAP) |
	       PTC_ATTR(PCITOPO_A_DEV_ACS_CTRL),
	       "an ACS capability: both registers");
}

int main(void)
{
	test_cases();
	test_identity();
	test_attrs();
	return tap_done();
}
