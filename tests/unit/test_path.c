// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ptc_path(): class matrices of real server shapes (read them like
 * `nvidia-smi topo -m`; GPUs first, then NICs), hops, the common bridge,
 * the bottleneck link and the flags; ptc_pair_of_interest().
 */
#include "servers.h"
#include "tap.h"

/* GPUs then NICs of a server, into idx; returns the count. */
static int endpoints(const struct server *v, int *idx)
{
	int i, n = 0;

	for (i = 0; i < v->ngpu; i++)
		idx[n++] = v->gpu[i];
	for (i = 0; i < v->nnic; i++)
		idx[n++] = v->nic[i];
	return n;
}

static void test_balance(void)
{
	static const char *const rows[] = {
		"X    PIX  PIX  PIX  SYS  SYS  SYS  SYS  PIX",
		"PIX  X    PIX  PIX  SYS  SYS  SYS  SYS  PIX",
		"PIX  PIX  X    PIX  SYS  SYS  SYS  SYS  PIX",
		"PIX  PIX  PIX  X    SYS  SYS  SYS  SYS  PIX",
		"SYS  SYS  SYS  SYS  X    PIX  PIX  PIX  SYS",
		"SYS  SYS  SYS  SYS  PIX  X    PIX  PIX  SYS",
		"SYS  SYS  SYS  SYS  PIX  PIX  X    PIX  SYS",
		"SYS  SYS  SYS  SYS  PIX  PIX  PIX  X    SYS",
		"PIX  PIX  PIX  PIX  SYS  SYS  SYS  SYS  X",
	};
	struct synth s;
	struct server v;
	struct ptc_path p;
	int idx[SERVER_MAX], n;

	synth_init(&s, 64);
	server_balance(&s, &v, 0, 1);
	tap_eq(synth_resolve(&s), 0, "balance resolves");
	n = endpoints(&v, idx);
	check_matrix(&s, idx, n, rows, "balance");

	ptc_path(&s.topo, v.gpu[0], v.gpu[1], &p);
	tap_ok(p.hops == 3 && p.common == v.sw[0],
	       "balance GPU0-GPU1: 3 hops (port, switch, port), common = switch 0");
	tap_ok(p.bottleneck == v.gpu[0] && p.bottleneck_bw == 63015 && !p.flags,
	       "balance GPU0-GPU1: all Gen5 x16, bottleneck = GPU0 (tie, nearest a), no flags");
	ptc_path(&s.topo, v.gpu[0], v.gpu[4], &p);
	tap_ok(p.hops == 6 && p.common == PTC_NONE && !p.flags,
	       "balance GPU0-GPU4: 6 hops up to both root ports, no common bridge, no flags");
	ptc_path(&s.topo, v.gpu[2], v.gpu[2], &p);
	tap_ok(p.class == PCITOPO_PATH_X && p.hops == 0 &&
	       p.common == PTC_NONE && p.bottleneck == PTC_NONE,
	       "a GPU to itself: X, 0 hops");
	synth_free(&s);

	/* The same server whose firmware gives no NUMA node. */
	synth_init(&s, 64);
	server_balance(&s, &v, -1, -1);
	synth_resolve(&s);
	ptc_path(&s.topo, v.gpu[0], v.gpu[5], &p);
	tap_ok(p.class == PCITOPO_PATH_SYS &&
	       p.flags == PCITOPO_PATH_F_NUMA_UNKNOWN,
	       "NUMA unknown, two host bridges: SYS flagged NUMA_UNKNOWN");
	ptc_path(&s.topo, v.gpu[0], v.gpu[1], &p);
	tap_ok(p.class == PCITOPO_PATH_PIX && !p.flags,
	       "NUMA unknown, one switch: PIX, not flagged");
	synth_free(&s);

	/* NUMA known on one side only. */
	synth_init(&s, 64);
	server_balance(&s, &v, 0, -1);
	synth_resolve(&s);
	ptc_path(&s.topo, v.gpu[0], v.gpu[5], &p);
	tap_ok(p.class == PCITOPO_PATH_SYS &&
	       p.flags == PCITOPO_PATH_F_NUMA_UNKNOWN,
	       "NUMA unknown on one side: SYS flagged NUMA_UNKNOWN");
	synth_free(&s);
}

static void test_common(void)
{
	static const char *const rows[] = {
		"X    PIX  PIX  PIX  PHB  PHB  PHB  PHB  PIX",
		"PIX  X    PIX  PIX  PHB  PHB  PHB  PHB  PIX",
		"PIX  PIX  X    PIX  PHB  PHB  PHB  PHB  PIX",
		"PIX  PIX  PIX  X    PHB  PHB  PHB  PHB  PIX",
		"PHB  PHB  PHB  PHB  X    PIX  PIX  PIX  PHB",
		"PHB  PHB  PHB  PHB  PIX  X    PIX  PIX  PHB",
		"PHB  PHB  PHB  PHB  PIX  PIX  X    PIX  PHB",
		"PHB  PHB  PHB  PHB  PIX  PIX  PIX  X    PHB",
		"PIX  PIX  PIX  PIX  PHB  PHB  PHB  PHB  X",
	};
	struct synth s;
	struct server v;
	struct ptc_path p;
	int idx[SERVER_MAX], n;

	synth_init(&s, 64);
	server_common(&s, &v, -1);
	tap_eq(synth_resolve(&s), 0, "common resolves");
	n = endpoints(&v, idx);
	check_matrix(&s, idx, n, rows, "common (NUMA unknown)");
	ptc_path(&s.topo, v.gpu[3], v.gpu[4], &p);
	tap_ok(p.hops == 6 && p.common == PTC_NONE && !p.flags,
	       "common GPU3-GPU4: PHB, 6 hops, no NUMA_UNKNOWN (one host bridge is certain)");
	synth_free(&s);
}

static void test_cascade(void)
{
	static const char *const rows[] = {
		"X    PIX  PIX  PIX  PXB  PXB  PXB  PXB  PIX",
		"PIX  X    PIX  PIX  PXB  PXB  PXB  PXB  PIX",
		"PIX  PIX  X    PIX  PXB  PXB  PXB  PXB  PIX",
		"PIX  PIX  PIX  X    PXB  PXB  PXB  PXB  PIX",
		"PXB  PXB  PXB  PXB  X    PIX  PIX  PIX  PXB",
		"PXB  PXB  PXB  PXB  PIX  X    PIX  PIX  PXB",
		"PXB  PXB  PXB  PXB  PIX  PIX  X    PIX  PXB",
		"PXB  PXB  PXB  PXB  PIX  PIX  PIX  X    PXB",
		"PIX  PIX  PIX  PIX  PXB  PXB  PXB  PXB  X",
	};
	struct synth s;
	struct server v;
	struct ptc_path p;
	int idx[SERVER_MAX], n, a, b, hops[9 * 9];

	synth_init(&s, 64);
	server_cascade(&s, &v);
	/* Switch 1 hangs on a Gen4 x16 link. */
	synth_cap(&s, v.ds[0][5], SYNTH_GEN4, 16);
	synth_cur(&s, v.sw[1], SYNTH_GEN4, 16);
	tap_eq(synth_resolve(&s), 0, "cascade resolves");
	n = endpoints(&v, idx);
	check_matrix(&s, idx, n, rows, "cascade");
	/* Same leaf switch: 3 ports; switch 0 <-> switch 1: 1 + 3 + 1. */
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			hops[a * n + b] = a == b ? 0 :
				((a < 4 || a == 8) == (b < 4 || b == 8)) ? 3 : 5;
	check_hops(&s, idx, n, hops, "cascade");

	ptc_path(&s.topo, v.gpu[0], v.gpu[5], &p);
	tap_ok(p.common == v.sw[0] && p.bottleneck == v.sw[1] &&
	       p.bottleneck_bw == 31507,
	       "cascade GPU0-GPU5: common = switch 0, bottleneck = switch 1's Gen4 x16 uplink (31507)");
	ptc_path(&s.topo, v.gpu[4], v.gpu[5], &p);
	tap_ok(p.common == v.sw[1] && p.bottleneck == v.gpu[4] &&
	       p.bottleneck_bw == 63015,
	       "cascade GPU4-GPU5: the slow uplink above the common switch is not on the path");
	synth_free(&s);
}

static void test_straight_on_root_ports(void)
{
	static const char *const rows[] = {
		"X    PHB  NODE NODE SYS",
		"PHB  X    NODE NODE SYS",
		"NODE NODE X    PHB  SYS",
		"NODE NODE PHB  X    SYS",
		"SYS  SYS  SYS  SYS  X",
	};
	struct synth s;
	struct ptc_path p;
	int idx[5], i, rp;

	synth_init(&s, 32);
	for (i = 0; i < 5; i++) {
		rp = synth_root_port(&s, 0, i < 2 ? 0x00 : i < 4 ? 0x40 : 0x80,
				     i < 4 ? 0 : 1);
		idx[i] = synth_gpu(&s, rp);
	}
	tap_eq(synth_resolve(&s), 0, "GPUs straight on root ports resolve");
	check_matrix(&s, idx, 5, rows, "straight on root ports");
	ptc_path(&s.topo, idx[0], idx[1], &p);
	tap_ok(p.hops == 2 && p.common == PTC_NONE,
	       "two root ports of one host bridge: PHB with 2 hops");
	synth_free(&s);
}

/*
 * The edges of real servers: the two functions of one ConnectX on one root
 * port (nvidia-smi prints PIX), a GPU beside them, and a GPU with no NUMA
 * node on another host bridge (SYS, flagged: NODE or SYS is a guess).
 */
static void test_real_edges(void)
{
	static const char *const rows[] = {
		"X    PIX  PHB  SYS",
		"PIX  X    PHB  SYS",
		"PHB  PHB  X    SYS",
		"SYS  SYS  SYS  X",
	};
	struct synth s;
	struct ptc_path p;
	int idx[4], rp, rp2, rp3;

	synth_init(&s, 32);
	rp = synth_root_port(&s, 0, 0x10, 0);
	idx[0] = synth_nic(&s, rp);
	idx[1] = synth_nic(&s, rp);
	s.nodes[idx[1]].devfn = s.nodes[idx[0]].devfn | 1;	/* .1 */
	rp2 = synth_root_port(&s, 0, 0x10, 0);
	idx[2] = synth_gpu(&s, rp2);
	rp3 = synth_root_port(&s, 0, 0x80, -1);
	idx[3] = synth_gpu(&s, rp3);
	tap_eq(synth_resolve(&s), 0, "NIC functions, GPUs with and without NUMA resolve");
	check_matrix(&s, idx, 4, rows, "NIC .0/.1 on a root port, GPU without NUMA");
	ptc_path(&s.topo, idx[0], idx[1], &p);
	tap_ok(p.class == PCITOPO_PATH_PIX && p.hops == 1 &&
	       p.common == rp, "ConnectX .0/.1 on one root port: PIX through it");
	ptc_path(&s.topo, idx[2], idx[3], &p);
	tap_ok(p.flags & PCITOPO_PATH_F_NUMA_UNKNOWN,
	       "a GPU with no NUMA node: the path says the class is a guess");
	synth_free(&s);
}

/* Two PCI segments: the same root bus number in different domains. */
static void test_segments(void)
{
	static const char *const rows[] = {
		"X    PIX  NODE NODE",
		"PIX  X    NODE NODE",
		"NODE NODE X    PIX",
		"NODE NODE PIX  X",
	};
	struct synth s;
	int idx[4], rp, ds[2], i, k;

	synth_init(&s, 32);
	for (i = 0; i < 2; i++) {
		rp = synth_root_port(&s, (u32)i, 0x00, 0);
		synth_switch(&s, rp, 0x10b5, 0xc040, 2, ds);
		for (k = 0; k < 2; k++)
			idx[i * 2 + k] = synth_gpu(&s, ds[k]);
	}
	tap_eq(synth_resolve(&s), 0, "two segments resolve");
	check_matrix(&s, idx, 4, rows, "segments 0000 and 0001, both root bus 00");
	tap_ok(!strncmp(synth_addr(&s, idx[1]), "0000:", 5) &&
	       !strncmp(synth_addr(&s, idx[2]), "0001:", 5),
	       "the GPUs are named in segments 0000 and 0001");
	synth_free(&s);
}

static void test_four_numa(void)
{
	static const char *const rows[] = {
		"X    PIX  SYS  SYS  SYS  SYS  SYS  SYS",
		"PIX  X    SYS  SYS  SYS  SYS  SYS  SYS",
		"SYS  SYS  X    PIX  SYS  SYS  SYS  SYS",
		"SYS  SYS  PIX  X    SYS  SYS  SYS  SYS",
		"SYS  SYS  SYS  SYS  X    PIX  SYS  SYS",
		"SYS  SYS  SYS  SYS  PIX  X    SYS  SYS",
		"SYS  SYS  SYS  SYS  SYS  SYS  X    PIX",
		"SYS  SYS  SYS  SYS  SYS  SYS  PIX  X",
	};
	struct synth s;
	int idx[8], rp, ds[2], i, k;

	synth_init(&s, 64);
	for (i = 0; i < 4; i++) {
		rp = synth_root_port(&s, 0, (u8)(i * 0x40), i);
		synth_switch(&s, rp, 0x10b5, 0xc040, 2, ds);
		for (k = 0; k < 2; k++)
			idx[i * 2 + k] = synth_gpu(&s, ds[k]);
	}
	tap_eq(synth_resolve(&s), 0, "four NUMA nodes resolve");
	check_matrix(&s, idx, 8, rows, "four NUMA nodes");
	synth_free(&s);
}

/* One physical Broadcom Gen4 switch seen as two levels; and a look-alike. */
static void broadcom_tree(struct synth *s, u16 device, int *idx)
{
	int rp, ds[2], ids[2], i, k;

	rp = synth_root_port(s, 0, 0, 0);
	synth_switch(s, rp, 0x1000, device, 2, ds);
	for (i = 0; i < 2; i++) {
		synth_switch(s, ds[i], 0x1000, device, 2, ids);
		for (k = 0; k < 2; k++)
			idx[i * 2 + k] = synth_gpu(s, ids[k]);
	}
}

static void test_broadcom(void)
{
	static const char *const split[] = {
		"X   PIX PIX PIX", "PIX X   PIX PIX",
		"PIX PIX X   PIX", "PIX PIX PIX X",
	};
	static const char *const cascaded[] = {
		"X   PIX PXB PXB", "PIX X   PXB PXB",
		"PXB PXB X   PIX", "PXB PXB PIX X",
	};
	struct synth s;
	struct ptc_path p;
	int idx[4];

	synth_init(&s, 32);
	broadcom_tree(&s, 0xc010, idx);
	tap_eq(synth_resolve(&s), 0, "Broadcom 1000:c010 two-level switch resolves");
	check_matrix(&s, idx, 4, split, "Broadcom c010 split levels fold: one switch");
	ptc_path(&s.topo, idx[0], idx[2], &p);
	tap_eq(p.hops, 7, "Broadcom inner level to inner level: 7 ports crossed (both levels count as ports)");
	synth_free(&s);

	synth_init(&s, 32);
	broadcom_tree(&s, 0xc030, idx);
	synth_resolve(&s);
	check_matrix(&s, idx, 4, cascaded, "Broadcom c030 nested: real cascade");
	synth_free(&s);
}

static void test_acs(void)
{
	static const char *const rows[] = {
		"X   PIX PIX PIX", "PIX X   PIX PIX",
		"PIX PIX X   PIX", "PIX PIX PIX X",
	};
	struct synth s;
	struct ptc_path p;
	int rp, up, ds[4], g[4], k;

	synth_init(&s, 32);
	rp = synth_root_port(&s, 0, 0, 0);
	up = synth_switch(&s, rp, 0x10b5, 0xc040, 4, ds);
	for (k = 0; k < 4; k++)
		g[k] = synth_gpu(&s, ds[k]);
	synth_acs(&s, ds[0], 0x005f, 0x001d);	/* SV RR CR UF: power-on default */
	synth_acs(&s, ds[1], 0x005f, 0x0001);	/* SV only */
	synth_acs(&s, ds[2], 0x0053, 0x000c);	/* RR, CR enabled but not capable */
	synth_acs(&s, rp, 0x005f, 0x001d);	/* above the switch */
	tap_eq(synth_resolve(&s), 0, "ACS tree resolves");
	check_matrix(&s, g, 4, rows, "ACS does not change the class");
	ptc_path(&s.topo, g[0], g[1], &p);
	tap_eq(p.flags, PCITOPO_PATH_F_ACS_REDIRECT,
	       "GPU on a downstream port with RR/CR enabled: ACS_REDIRECT");
	ptc_path(&s.topo, g[3], g[0], &p);
	tap_eq(p.flags, PCITOPO_PATH_F_ACS_REDIRECT,
	       "the same pair the other way round: ACS_REDIRECT");
	ptc_path(&s.topo, g[1], g[3], &p);
	tap_eq(p.flags, 0, "SV only, and RR/CR bits without the capability: no redirect");
	ptc_path(&s.topo, g[2], g[3], &p);
	tap_eq(p.flags, 0, "redirect on the root port above the common switch: no flag");
	synth_acs(&s, ds[3], 0x005f, 0x0008);
	ptc_path(&s.topo, g[2], g[3], &p);
	tap_eq(p.flags, PCITOPO_PATH_F_ACS_REDIRECT, "Completion Redirect alone: ACS_REDIRECT");
	synth_acs(&s, ds[3], 0x005f, 0x0004);
	ptc_path(&s.topo, g[2], g[3], &p);
	tap_eq(p.flags, PCITOPO_PATH_F_ACS_REDIRECT, "Request Redirect alone: ACS_REDIRECT");
	synth_acs(&s, up, 0x005f, 0x001d);
	synth_acs(&s, ds[3], 0, 0);
	ptc_path(&s.topo, g[2], g[3], &p);
	tap_eq(p.flags, 0, "ACS bits on an upstream port are not redirect points");
	synth_free(&s);
}

static void test_width_down_and_bottleneck(void)
{
	struct synth s;
	struct ptc_path p;
	int rp, ds[4], g[4], k;

	synth_init(&s, 32);
	rp = synth_root_port(&s, 0, 0, 0);
	synth_switch(&s, rp, 0x10b5, 0xc040, 4, ds);
	for (k = 0; k < 4; k++)
		g[k] = synth_gpu(&s, ds[k]);
	synth_cur(&s, g[1], SYNTH_GEN1, 16);	/* idle */
	synth_cur(&s, g[2], SYNTH_GEN5, 4);	/* bad riser */
	synth_cur(&s, g[3], SYNTH_GEN1, 16);	/* idle, same bw as g[1] */
	synth_resolve(&s);
	ptc_path(&s.topo, g[0], g[1], &p);
	tap_ok(p.bottleneck == g[1] && p.bottleneck_bw == 4000 && !p.flags,
	       "idle GPU: bottleneck at 2.5 GT/s x16 (4000), no WIDTH_DOWN");
	ptc_path(&s.topo, g[0], g[2], &p);
	tap_ok(p.bottleneck == g[2] && p.bottleneck_bw == 15753 &&
	       p.flags == PCITOPO_PATH_F_WIDTH_DOWN,
	       "GPU trained x4: bottleneck 15753, WIDTH_DOWN");
	ptc_path(&s.topo, g[3], g[1], &p);
	tap_eq(p.bottleneck, g[3], "equal bottlenecks: the one nearest a");
	synth_free(&s);
}

static void test_pairs(void)
{
	struct synth s;
	int rp, ds[6], gpu, gpu2, nic, nvme, ph, sas, n;

	synth_init(&s, 32);
	rp = synth_root_port(&s, 0, 0, 0);
	synth_switch(&s, rp, 0x1000, 0xc030, 6, ds);
	gpu = synth_gpu(&s, ds[0]);
	gpu2 = synth_gpu(&s, ds[1]);
	nic = synth_nic(&s, ds[2]);
	nvme = synth_nvme(&s, ds[3]);
	ph = synth_endpoint(&s, ds[4], 0x088000, 0x1000, 0x02b2);
	sas = synth_endpoint(&s, ds[5], 0x010700, 0x1000, 0x00b2);
	synth_resolve(&s);
	tap_ok(ptc_pair_of_interest(&s.topo, gpu, gpu2) &&
	       ptc_pair_of_interest(&s.topo, gpu, nic) &&
	       ptc_pair_of_interest(&s.topo, nic, gpu) &&
	       ptc_pair_of_interest(&s.topo, nvme, gpu2),
	       "GPU-GPU, GPU-NIC, NIC-GPU, NVMe-GPU are pairs of interest");
	tap_ok(!ptc_pair_of_interest(&s.topo, gpu, gpu) &&
	       !ptc_pair_of_interest(&s.topo, nic, nvme) &&
	       !ptc_pair_of_interest(&s.topo, gpu, ph) &&
	       !ptc_pair_of_interest(&s.topo, sas, gpu) &&
	       !ptc_pair_of_interest(&s.topo, gpu, ds[0]) &&
	       !ptc_pair_of_interest(&s.topo, gpu, (u32)s.topo.count),
	       "not: a GPU with itself, NIC-NVMe, placeholder/SAS endpoints, ports, bad index");
	n = 0;
	for (u32 a = 0; a < s.topo.count; a++)
		for (u32 b = 0; b < s.topo.count; b++)
			n += ptc_pair_of_interest(&s.topo, a, b);
	tap_eq(n, 2 + 2 * 2 * 2, "GPU, GPU, NIC, NVMe on one switch: 10 ordered pairs");
	{
		struct ptc_path p;

		ptc_path(&s.topo, gpu, nic, &p);
		tap_streq(ptc_class_name(p.class), "PIX", "GPU-NIC on one switch: PIX");
		ptc_path(&s.topo, gpu, (u32)s.topo.count, &p);
		tap_eq(p.class, PCITOPO_PATH_UNKNOWN, "path to a bad index: unknown");
	}
	synth_free(&s);
}

int main(void)
{
	test_real_edges();
	test_balance();
	test_common();
	test_cascade();
	test_straight_on_root_ports();
	test_segments();
	test_four_numa();
	test_broadcom();
	test_acs();
	test_width_down_and_bottleneck();
	test_pairs();
	return tap_done();
}
