// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Link figures: bandwidth after encoding, LnkSta/LnkCap speed fields, the
 * class-code rules, and the link fields ptc_resolve() derives (a slow idle
 * GPU is not a narrow faulty one).
 */
#include "synth.h"
#include "tap.h"

static void test_bandwidth(void)
{
	static const struct { u32 speed; u8 width; u32 mbs; } t[] = {
		{ SYNTH_GEN1, 1, 250 },     { SYNTH_GEN1, 16, 4000 },
		{ SYNTH_GEN2, 1, 500 },     { SYNTH_GEN2, 16, 8000 },
		{ SYNTH_GEN3, 1, 984 },     { SYNTH_GEN3, 8, 7876 },
		{ SYNTH_GEN3, 16, 15753 },  { SYNTH_GEN4, 1, 1969 },
		{ SYNTH_GEN4, 4, 7876 },    { SYNTH_GEN4, 16, 31507 },
		{ SYNTH_GEN5, 1, 3938 },    { SYNTH_GEN5, 2, 7876 },
		{ SYNTH_GEN5, 8, 31507 },   { SYNTH_GEN5, 16, 63015 },
		{ SYNTH_GEN6, 1, 7562 },    { SYNTH_GEN6, 16, 121000 },
		{ SYNTH_GEN6, 32, 242000 }, { 3000, 16, 0 },
		{ SYNTH_GEN5, 0, 0 },       { 0, 16, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		tap_eq(ptc_link_bw(t[i].speed, t[i].width), t[i].mbs,
		       "bw %u MT/s x%u = %u MB/s", t[i].speed, t[i].width,
		       t[i].mbs);
}

static void test_speed_fields(void)
{
	static const u32 mts[] = { 0, 2500, 5000, 8000, 16000, 32000, 64000, 0 };
	int bad = 0;
	u8 f;

	for (f = 0; f < 8; f++) {
		if (ptc_speed_from_lnk(f) != mts[f])
			bad++;
		if (mts[f] && ptc_speed_gen(mts[f]) != f)
			bad++;
	}
	tap_ok(!bad, "LnkSta speed field 1..6 <-> 2.5..64 GT/s <-> Gen1..6");
	tap_eq(ptc_speed_from_lnk(15), 0, "speed field 15 unknown");
	tap_eq(ptc_speed_gen(20000), 0, "20 GT/s is no generation");
}

static void test_kinds(void)
{
	/* vendor, class, extra ID's kind, on a conventional PCI bus */
	static const struct {
		u16 vendor; u32 class; u8 extra; bool pci; u8 kind;
		const char *what;
	} t[] = {
		{ 0x10de, 0x030200, 0, false, PCITOPO_KIND_GPU, "NVIDIA 3D controller (H100)" },
		{ 0x10de, 0x030000, 0, false, PCITOPO_KIND_GPU, "NVIDIA VGA (GeForce, workstation)" },
		{ 0x10de, 0x038000, 0, false, PCITOPO_KIND_GPU, "NVIDIA other display" },
		{ 0x10de, 0x040300, 0, false, PCITOPO_KIND_NONE, "NVIDIA HD audio function" },
		{ 0x10de, 0x068000, 0, false, PCITOPO_KIND_NONE, "NVIDIA NVSwitch (bridge class)" },
		{ 0x1002, 0x038000, 0, false, PCITOPO_KIND_GPU, "AMD Instinct MI250X" },
		{ 0x1002, 0x030200, 0, false, PCITOPO_KIND_GPU, "AMD 3D controller" },
		{ 0x1002, 0x030000, 0, false, PCITOPO_KIND_DISPLAY, "AMD Radeon VGA" },
		{ 0x8086, 0x038000, 0, false, PCITOPO_KIND_GPU, "Intel Data Center GPU Max" },
		{ 0x8086, 0x030000, 0, false, PCITOPO_KIND_DISPLAY, "Intel integrated VGA" },
		{ 0x1da3, 0x120000, 0, false, PCITOPO_KIND_GPU, "Habana Gaudi (accelerator class)" },
		{ 0x1a03, 0x030000, 0, true, PCITOPO_KIND_DISPLAY, "ASPEED AST2600 behind its PCIe-to-PCI bridge" },
		{ 0x1a03, 0x030000, 0, false, PCITOPO_KIND_DISPLAY, "ASPEED VGA on a PCIe port" },
		{ 0x102b, 0x030000, 0, true, PCITOPO_KIND_DISPLAY, "Matrox G200 BMC VGA" },
		{ 0x1a03, 0x030000, PCITOPO_KIND_GPU, true, PCITOPO_KIND_DISPLAY, "ASPEED with an extra GPU ID" },
		{ 0x1234, 0x030000, PCITOPO_KIND_GPU, true, PCITOPO_KIND_DISPLAY, "VGA behind a PCI bridge, extra GPU ID" },
		{ 0x1234, 0x038000, PCITOPO_KIND_GPU, false, PCITOPO_KIND_GPU, "stand-in display with an extra GPU ID" },
		{ 0x1234, 0x038000, 0, false, PCITOPO_KIND_DISPLAY, "stand-in display without an extra ID" },
		{ 0x1af4, 0x00ff00, PCITOPO_KIND_NIC, false, PCITOPO_KIND_NIC, "unclassified device, extra NIC ID" },
		{ 0x1234, 0x030100, 0, false, PCITOPO_KIND_DISPLAY, "XGA display" },
		{ 0x15b3, 0x020000, 0, false, PCITOPO_KIND_NIC, "ConnectX Ethernet" },
		{ 0x15b3, 0x020700, 0, false, PCITOPO_KIND_NIC, "ConnectX InfiniBand" },
		{ 0x144d, 0x010802, 0, false, PCITOPO_KIND_NVME, "NVMe" },
		{ 0x1000, 0x010700, 0, false, PCITOPO_KIND_NONE, "SAS (Broadcom management)" },
		{ 0x1000, 0x088000, 0, false, PCITOPO_KIND_NONE, "Broadcom placeholder endpoint" },
		{ 0x1000, 0x060400, 0, false, PCITOPO_KIND_NONE, "PCI bridge" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		tap_streq(ptc_kind_name(ptc_endpoint_kind(t[i].vendor,
							  t[i].class,
							  t[i].extra,
							  t[i].pci)),
			  ptc_kind_name(t[i].kind), "%04x class %06x (%s) is %s",
			  t[i].vendor, t[i].class, t[i].what,
			  ptc_kind_name(t[i].kind));
	tap_ok(ptc_switch_is_split_level(0x1000, 0xc010) &&
	       !ptc_switch_is_split_level(0x1000, 0xc030) &&
	       !ptc_switch_is_split_level(0x10b5, 0xc010),
	       "only Broadcom 1000:c010 is a split-level switch");
}

/* One switch below a root port: GPUs with the given links. */
static void test_link_fields(void)
{
	struct synth s;
	int rp, up, ds[6], idle, narrow, slow_port, nocap, down, rbgpu;
	const struct ptc_node *n;

	synth_init(&s, 64);
	rp = synth_root_port(&s, 0, 0, 0);
	up = synth_switch(&s, rp, 0x10b5, 0xc040, 6, ds);
	idle = synth_gpu(&s, ds[0]);
	synth_cur(&s, idle, SYNTH_GEN1, 16);
	narrow = synth_gpu(&s, ds[1]);
	synth_cur(&s, narrow, SYNTH_GEN5, 8);
	slow_port = synth_gpu(&s, ds[2]);
	synth_cap(&s, ds[2], SYNTH_GEN4, 16);
	synth_cur(&s, slow_port, SYNTH_GEN4, 16);
	nocap = synth_gpu(&s, ds[3]);
	synth_cap(&s, ds[3], 0, 0);
	synth_cap(&s, nocap, SYNTH_GEN4, 8);
	synth_cur(&s, nocap, SYNTH_GEN4, 8);
	down = synth_gpu(&s, ds[4]);
	synth_active(&s, down, false);
	rbgpu = synth_root_bus_gpu(&s, 0, 0, 0);
	s.nodes[rbgpu].has_link = false;
	tap_eq(synth_resolve(&s), 0, "link tree resolves");

	n = &s.nodes[idle];
	tap_eq(n->link_flags, PCITOPO_LINK_F_PRESENT | PCITOPO_LINK_F_ACTIVE |
	       PCITOPO_LINK_F_SPEED_DOWN,
	       "idle Gen5 x16 GPU at 2.5 GT/s x16: SPEED_DOWN only, no WIDTH_DOWN");
	tap_eq(n->link_bw, 4000, "idle GPU: current bw 4000 MB/s");
	tap_eq(n->link_max_bw, 63015, "idle GPU: max bw 63015 MB/s");
	tap_ok(n->link_max.speed == SYNTH_GEN5 && n->link_max.width == 16,
	       "idle GPU: link max Gen5 x16");

	n = &s.nodes[narrow];
	tap_eq(n->link_flags, PCITOPO_LINK_F_PRESENT | PCITOPO_LINK_F_ACTIVE |
	       PCITOPO_LINK_F_WIDTH_DOWN,
	       "Gen5 x16 GPU trained x8: WIDTH_DOWN, no SPEED_DOWN");
	tap_eq(n->link_bw, 31507, "narrow GPU: current bw 31507 MB/s");

	n = &s.nodes[slow_port];
	tap_ok(n->link_max.speed == SYNTH_GEN4 && n->link_max.width == 16,
	       "Gen5 GPU on a Gen4 port: link max Gen4 x16 (lower end wins)");
	tap_eq(n->link_flags, PCITOPO_LINK_F_PRESENT | PCITOPO_LINK_F_ACTIVE,
	       "Gen5 GPU on a Gen4 port at Gen4: not downgraded");

	n = &s.nodes[nocap];
	tap_ok(n->link_max.speed == SYNTH_GEN4 && n->link_max.width == 8,
	       "port without LnkCap: the device's own cap is the max");

	n = &s.nodes[down];
	tap_eq(n->link_flags, PCITOPO_LINK_F_PRESENT,
	       "link down: PRESENT only, no SPEED/WIDTH_DOWN");
	tap_eq(n->link_bw, 0, "link down: current bw 0");
	tap_eq(n->link_max_bw, 63015, "link down: max bw still 63015");

	tap_eq(s.nodes[rp].link_flags, 0, "root port: no upstream link, no flags");
	tap_eq(s.nodes[rp].link_bw, 0, "root port: no bw");
	tap_eq(s.nodes[ds[0]].link_flags, 0, "downstream port: its link is its child's");
	tap_eq(s.nodes[up].link_bw, 63015, "switch upstream link Gen5 x16: 63015");
	tap_eq(s.nodes[rbgpu].link_flags, 0, "root-bus GPU without link: no flags");
	synth_free(&s);
}

int main(void)
{
	test_bandwidth();
	test_speed_fields();
	test_kinds();
	test_link_fields();
	return tap_done();
}
