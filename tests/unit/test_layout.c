// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ptc_layout(): the three 8-GPU layouts and everything else, with the
 * counts and the reason a user reads.
 */
#include "servers.h"
#include "tap.h"

static void expect(struct synth *s, u8 layout, const char *reason,
		   const char *what)
{
	struct ptc_layout l;

	tap_eq(synth_resolve(s), 0, "%s: resolves", what);
	ptc_layout(&s->topo, &l);
	tap_streq(ptc_layout_name(l.layout), ptc_layout_name(layout),
		  "%s: layout %s", what, ptc_layout_name(layout));
	tap_streq(l.reason, reason, "%s: reason", what);
}

static void expect_counts(struct synth *s, u32 gpus, u32 nics, u32 nvmes,
			  u32 sws, u32 rps, u32 numa, const char *what)
{
	struct ptc_layout l;

	ptc_layout(&s->topo, &l);
	tap_ok(l.gpus == gpus && l.nics == nics && l.nvmes == nvmes &&
	       l.switches == sws && l.root_ports == rps && l.numa_nodes == numa,
	       "%s: counts %u GPUs %u NICs %u NVMe %u switches %u root ports %u NUMA nodes",
	       what, gpus, nics, nvmes, sws, rps, numa);
	if (l.gpus != gpus || l.nics != nics || l.nvmes != nvmes ||
	    l.switches != sws || l.root_ports != rps || l.numa_nodes != numa)
		tap_diag("got %u %u %u %u %u %u", l.gpus, l.nics, l.nvmes,
			 l.switches, l.root_ports, l.numa_nodes);
}

static void test_eight_gpu_layouts(void)
{
	struct synth s;
	struct server v;

	synth_init(&s, 64);
	server_balance(&s, &v, 0, 1);
	expect(&s, PCITOPO_LAYOUT_BALANCE,
	       "8 GPUs behind 2 switches on 2 root ports, 4 per NUMA node", "balance");
	expect_counts(&s, 8, 1, 0, 2, 2, 2, "balance");
	synth_free(&s);

	synth_init(&s, 64);
	server_balance(&s, &v, -1, -1);
	expect(&s, PCITOPO_LAYOUT_BALANCE,
	       "8 GPUs behind 2 switches on 2 root ports, 4 per host bridge (NUMA unknown, host bridges stand in for CPUs)",
	       "balance, NUMA unknown");
	expect_counts(&s, 8, 1, 0, 2, 2, 0, "balance, NUMA unknown");
	synth_free(&s);

	synth_init(&s, 64);
	server_balance(&s, &v, 0, -1);
	expect(&s, PCITOPO_LAYOUT_OTHER,
	       "8 GPUs behind 2 switches on 2 root ports, NUMA node known for only 4 of them",
	       "balance, NUMA known on one side");
	synth_free(&s);

	synth_init(&s, 64);
	server_common(&s, &v, 0);
	expect(&s, PCITOPO_LAYOUT_COMMON,
	       "8 GPUs behind 2 switches on 2 root ports, all on NUMA node 0", "common");
	expect_counts(&s, 8, 1, 0, 2, 2, 1, "common");
	synth_free(&s);

	synth_init(&s, 64);
	server_common(&s, &v, -1);
	expect(&s, PCITOPO_LAYOUT_COMMON,
	       "8 GPUs behind 2 switches on 2 root ports, all on 1 host bridge (NUMA unknown, host bridges stand in for CPUs)",
	       "common, NUMA unknown");
	synth_free(&s);

	synth_init(&s, 64);
	server_cascade(&s, &v);
	expect(&s, PCITOPO_LAYOUT_CASCADE,
	       "8 GPUs behind 2 switches under 1 root port, cascaded", "cascade");
	expect_counts(&s, 8, 1, 0, 2, 1, 1, "cascade");
	synth_free(&s);
}

static void test_one_switch(void)
{
	struct synth s;
	int rp, ds[6], k;

	synth_init(&s, 32);
	rp = synth_root_port(&s, 0, 0, 0);
	synth_switch(&s, rp, 0x10b5, 0xc040, 6, ds);
	for (k = 0; k < 4; k++)
		synth_gpu(&s, ds[k]);
	synth_nic(&s, ds[4]);
	synth_nvme(&s, ds[5]);
	expect(&s, PCITOPO_LAYOUT_OTHER,
	       "4 GPUs behind 1 switch under 1 root port, no cascaded switch", "one switch");
	expect_counts(&s, 4, 1, 1, 1, 1, 1, "one switch");
	synth_free(&s);
}

static void test_broadcom(void)
{
	struct synth s;
	int rp, ds[2], ids[2], i, k;
	u16 dev;

	for (dev = 0xc010; dev <= 0xc030; dev += 0x20) {
		synth_init(&s, 32);
		rp = synth_root_port(&s, 0, 0, 0);
		synth_switch(&s, rp, 0x1000, dev, 2, ds);
		for (i = 0; i < 2; i++) {
			synth_switch(&s, ds[i], 0x1000, dev, 2, ids);
			for (k = 0; k < 2; k++)
				synth_gpu(&s, ids[k]);
		}
		if (dev == 0xc010) {
			expect(&s, PCITOPO_LAYOUT_OTHER,
			       "4 GPUs behind 1 switch under 1 root port, no cascaded switch",
			       "Broadcom c010 two levels (one switch)");
			expect_counts(&s, 4, 0, 0, 1, 1, 1, "Broadcom c010");
		} else {
			expect(&s, PCITOPO_LAYOUT_CASCADE,
			       "4 GPUs behind 3 switches under 1 root port, cascaded",
			       "Broadcom c030 nested (three switches)");
		}
		synth_free(&s);
	}
}

static void test_other(void)
{
	struct synth s;
	int i, rp, ds[4];

	synth_init(&s, 8);
	synth_nic(&s, synth_root_port(&s, 0, 0, 0));
	expect(&s, PCITOPO_LAYOUT_OTHER, "no GPUs found", "a NIC only");
	expect_counts(&s, 0, 1, 0, 0, 0, 0, "a NIC only");
	synth_free(&s);

	synth_init(&s, 16);
	for (i = 0; i < 4; i++)
		synth_gpu(&s, synth_root_port(&s, 0, 0, i / 2));
	expect(&s, PCITOPO_LAYOUT_OTHER,
	       "4 GPUs straight on root ports, no switch", "GPUs on root ports");
	expect_counts(&s, 4, 0, 0, 0, 4, 2, "GPUs on root ports");
	rp = synth_root_port(&s, 0, 0, 0);
	synth_switch(&s, rp, 0x10b5, 0xc040, 2, ds);
	synth_gpu(&s, ds[0]);
	expect(&s, PCITOPO_LAYOUT_OTHER,
	       "4 of 5 GPUs straight on root ports, no switch above them",
	       "some GPUs on root ports");
	synth_free(&s);

	synth_init(&s, 8);
	synth_root_bus_gpu(&s, 0, 0, 0);
	expect(&s, PCITOPO_LAYOUT_OTHER,
	       "1 of 1 GPUs have no switch above, 1 on a root bus with no root port",
	       "GPU on a root bus");
	synth_free(&s);

	synth_init(&s, 64);
	for (i = 0; i < 4; i++) {
		rp = synth_root_port(&s, 0, (u8)(i * 0x40), i);
		synth_switch(&s, rp, 0x10b5, 0xc040, 2, ds);
		synth_gpu(&s, ds[0]);
		synth_gpu(&s, ds[1]);
	}
	expect(&s, PCITOPO_LAYOUT_BALANCE,
	       "8 GPUs behind 4 switches on 4 root ports, 2 per NUMA node",
	       "four NUMA nodes, two GPUs each");
	expect_counts(&s, 8, 0, 0, 4, 4, 4, "four NUMA nodes");
	synth_free(&s);
}

/*
 * Four switches of two GPUs, each on its own root port (and root complex,
 * as on AMD EPYC), over sockets and NUMA nodes as given per switch.
 */
static void four_switches(struct synth *s, const int *numa, const int *socket,
			  int gpus_last)
{
	int i, k, rp, ds[4];

	synth_init(s, 64);
	for (i = 0; i < 4; i++) {
		rp = synth_root_port(s, 0, (u8)(0x20 + i * 0x20), numa[i]);
		synth_switch(s, rp, 0x1000, 0xc030, 4, ds);
		for (k = 0; k < (i == 3 ? gpus_last : 2); k++) {
			int g = synth_gpu(s, ds[k]);

			if (socket) {
				s->nodes[g].has_socket = true;
				s->nodes[g].socket = (u16)socket[i];
			}
		}
	}
}

static void test_real_shapes(void)
{
	static const int two[] = { 0, 0, 1, 1 }, one[] = { 0, 0, 0, 0 };
	static const int nps2[] = { 0, 1, 2, 3 }, sock_one[] = { 0, 0, 0, 0 };
	static const int sock_two[] = { 0, 0, 1, 1 };
	struct synth s;
	int rp, ds[4];

	four_switches(&s, two, NULL, 2);
	expect(&s, PCITOPO_LAYOUT_BALANCE,
	       "8 GPUs behind 4 switches on 4 root ports, 4 per NUMA node",
	       "4 switches of 2, two per socket (Gen5 design)");
	expect_counts(&s, 8, 0, 0, 4, 4, 2, "4 switches of 2");
	synth_free(&s);

	four_switches(&s, one, NULL, 2);
	expect(&s, PCITOPO_LAYOUT_COMMON,
	       "8 GPUs behind 4 switches on 4 root ports, all on NUMA node 0",
	       "4 switches of 2 on one socket");
	synth_free(&s);

	four_switches(&s, two, NULL, 4);
	expect(&s, PCITOPO_LAYOUT_OTHER,
	       "10 GPUs behind 4 switches on 4 root ports, 4 to 6 per NUMA node",
	       "uneven split over the sockets");
	synth_free(&s);

	/* NPS2: two NUMA nodes per socket; the socket decides */
	four_switches(&s, nps2, sock_one, 2);
	expect(&s, PCITOPO_LAYOUT_COMMON,
	       "8 GPUs behind 4 switches on 4 root ports, all on CPU socket 0",
	       "4 NUMA nodes on one socket (NPS4) is common");
	synth_free(&s);
	four_switches(&s, nps2, sock_two, 2);
	expect(&s, PCITOPO_LAYOUT_BALANCE,
	       "8 GPUs behind 4 switches on 4 root ports, 4 per CPU socket",
	       "NPS2 on two sockets is balance");
	expect_counts(&s, 8, 0, 0, 4, 4, 4, "NPS2 counts NUMA nodes");
	synth_free(&s);

	/* a socket known for some GPUs only: NUMA decides */
	four_switches(&s, two, NULL, 2);
	s.nodes[s.topo.count - 1].has_socket = true;
	expect(&s, PCITOPO_LAYOUT_BALANCE,
	       "8 GPUs behind 4 switches on 4 root ports, 4 per NUMA node",
	       "socket of one GPU only: NUMA nodes stand for CPUs");
	synth_free(&s);

	/* mixed shape: one switch of 4, 4 GPUs straight on root ports */
	four_switches(&s, two, NULL, 2);
	rp = synth_root_port(&s, 0, 0xc0, 1);
	synth_gpu(&s, rp);
	expect(&s, PCITOPO_LAYOUT_OTHER,
	       "1 of 9 GPUs straight on root ports, no switch above them",
	       "a direct-attached GPU beside switches");
	synth_free(&s);

	/* GPUs of two vendors count together, in bus order */
	synth_init(&s, 32);
	rp = synth_root_port(&s, 0, 0x20, 0);
	synth_switch(&s, rp, 0x1000, 0xc030, 4, ds);
	synth_gpu(&s, ds[0]);
	synth_endpoint(&s, ds[1], 0x038000, 0x1002, 0x740c);	/* MI250X */
	expect(&s, PCITOPO_LAYOUT_OTHER,
	       "2 GPUs behind 1 switch under 1 root port, no cascaded switch",
	       "an NVIDIA and an AMD GPU");
	expect_counts(&s, 2, 0, 0, 1, 1, 1, "two vendors");
	synth_free(&s);
}

/* The BMC's VGA behind its PCIe-to-PCI bridge is no GPU. */
static void test_bmc_vga(void)
{
	struct synth s;
	struct server v;
	int rp, br;

	synth_init(&s, 64);
	server_balance(&s, &v, 0, 1);
	rp = synth_root_port(&s, 0, 0x60, 0);
	br = synth_bridge(&s, rp);
	synth_endpoint(&s, br, 0x030000, 0x1a03, 0x2000);
	expect(&s, PCITOPO_LAYOUT_BALANCE,
	       "8 GPUs behind 2 switches on 2 root ports, 4 per NUMA node",
	       "balance with an ASPEED BMC VGA");
	expect_counts(&s, 8, 1, 0, 2, 2, 2, "balance with a BMC VGA");
	tap_streq(ptc_kind_name(s.nodes[s.topo.count - 1].kind), "display",
		  "the ASPEED VGA resolves as display");
	synth_free(&s);

	/* a VGA-class device of any vendor on a conventional PCI bus */
	synth_init(&s, 16);
	rp = synth_root_port(&s, 0, 0x60, 0);
	br = synth_bridge(&s, rp);
	synth_endpoint(&s, br, 0x030000, 0x10de, 0x2330);
	expect(&s, PCITOPO_LAYOUT_OTHER, "no GPUs found",
	       "VGA behind a PCI bridge, NVIDIA ID");
	synth_free(&s);
}

int main(void)
{
	test_eight_gpu_layouts();
	test_one_switch();
	test_broadcom();
	test_other();
	test_real_shapes();
	test_bmc_vga();
	return tap_done();
}
