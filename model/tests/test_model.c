// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of libptmodel on synthetic topologies, against figures
 * computed by hand in the comments (defaults: pcie_eff 0.83, rc_p2p_eff
 * 5/6, UPI 22000 MB/s at Gen5 and 10000 up to Gen4, memory 8 x DDR5-4800 x
 * 0.8 = 245760 MB/s per socket at Gen5). TAP output.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptm.h"
#include "tap.h"

/* Gen5 x16: 32000 MT/s * 16 * 128/130 / 8 = 63015 MB/s; x 0.83 = 52302.45 */
#define G5X16	52302.45
/* Gen4 x16: 31507 MB/s x 0.83 = 26150.81 */
#define G4X16	26150.81
/* Gen3 x16: 15753 MB/s x 0.83 = 13074.99 */
#define G3X16	13074.99

static int near(double got, double exp, const char *what)
{
	int ok = fabs(got - exp) <= fabs(exp) * 1e-4 + 1e-9;

	tap_ok(ok, "%s = %.2f", what, exp);
	if (!ok)
		tap_diag("got %.4f", got);
	return ok;
}

static struct ptm_params P;

static void eval_layout(const struct ptm_hw *hw, unsigned int l,
			struct ptc_topo *t, struct ptm_eval *e)
{
	int r = ptm_layout_build(hw, l, t);

	if (r || ptm_eval_topo(t, &P, e)) {
		tap_ok(0, "build and evaluate %s", ptc_layout_name((u8)l));
		tap_diag("error %d", r);
		exit(1);
	}
}

static void test_params(void)
{
	struct ptm_params p;
	char path[] = "/tmp/ptm-confXXXXXX", err[256];
	FILE *f;
	int fd;

	ptm_params_default(&p);
	tap_eq(ptm_param_set(&p, "upi_mbs=10000"), 0, "--set upi_mbs=10000");
	near(p.v[PTM_P_UPI_MBS], 10000, "upi_mbs after --set");
	tap_eq(ptm_param_set(&p, "bogus=1"), -EINVAL, "unknown key refused");
	tap_eq(ptm_param_set(&p, "pcie_eff=0"), -EINVAL, "pcie_eff=0 refused");
	tap_eq(ptm_param_set(&p, "pcie_eff=1.5"), -EINVAL,
	       "pcie_eff=1.5 refused");
	tap_eq(ptm_param_set(&p, "upi_mbs=fast"), -EINVAL,
	       "non-number refused");
	tap_eq(ptm_param_set(&p, "upi_mbs"), -EINVAL, "KEY without = refused");
	tap_eq(ptm_param_set(&p, "mem_mbs=-1"), -EINVAL,
	       "negative bandwidth refused");

	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs("# model overrides\nupi_mbs = 9000;\npcie_eff = 0.8;\n", f);
	fclose(f);
	ptm_params_default(&p);
	tap_eq(ptm_params_load(&p, path, err, sizeof(err)), 0,
	       "model.conf with two keys loads");
	near(p.v[PTM_P_UPI_MBS] + p.v[PTM_P_PCIE_EFF], 9000.8,
	     "upi_mbs + pcie_eff from model.conf");
	f = fopen(path, "w");
	fputs("upi_mbs = 9000;\nfrob = 1;\n", f);
	fclose(f);
	ptm_params_default(&p);
	tap_eq(ptm_params_load(&p, path, err, sizeof(err)), -EINVAL,
	       "model.conf with an unknown key refused");
	tap_ok(strstr(err, ":2: unknown key 'frob'") != NULL,
	       "error names line 2 and the key");
	tap_ok(p.v[PTM_P_UPI_MBS] == 0, "a refused file changes nothing");
	unlink(path);
	tap_eq(ptm_params_load(&p, "/nonexistent/model.conf", err, sizeof(err)),
	       -ENOENT, "missing model.conf is -ENOENT");
}

static void test_link_parse(void)
{
	struct ptc_link l;

	tap_ok(!ptm_link_parse("gen4x16", &l) && l.speed == 16000 &&
	       l.width == 16, "gen4x16 parses");
	tap_ok(!ptm_link_parse("16GT/s x8", &l) && l.speed == 16000 &&
	       l.width == 8, "16GT/s x8 parses");
	tap_ok(!ptm_link_parse("2.5x1", &l) && l.speed == 2500 && l.width == 1,
	       "2.5x1 parses");
	tap_eq(ptm_link_parse("gen7x16", &l), -EINVAL, "gen7 refused");
	tap_eq(ptm_link_parse("gen4x3", &l), -EINVAL, "width 3 refused");
	tap_eq(ptm_link_parse("gen4", &l), -EINVAL, "no width refused");
}

/* Gen5 x16 everywhere, 2 CPUs, 4 GPUs per switch. */
static void test_layouts_gen5(void)
{
	struct ptm_hw hw, back;
	struct ptc_topo t;
	struct ptm_eval e;

	ptm_hw_default(&hw);

	/* cascade: every pair inside switches; PIX and PXB (GPU0 -> GPU4:
	 * GPU0 link up, cascade link down, GPU4 link down) all Gen5 x16. */
	eval_layout(&hw, PCITOPO_LAYOUT_CASCADE, &t, &e);
	tap_eq(e.ngpus, 8, "cascade: 8 GPUs");
	near(e.class_mbs[PCITOPO_PATH_PIX], G5X16, "cascade: PIX pair MB/s");
	near(e.class_mbs[PCITOPO_PATH_PXB], G5X16, "cascade: PXB pair MB/s");
	tap_eq(e.class_pairs[PCITOPO_PATH_PIX], 12, "cascade: 2 x C(4,2) PIX pairs");
	tap_eq(e.class_pairs[PCITOPO_PATH_PXB], 16, "cascade: 4 x 4 PXB pairs");
	/* ring: each link direction carries one edge: bus bw = one link */
	near(e.ring_busbw, G5X16, "cascade: ring bus bw MB/s");
	/* host: 8 GPUs share the one x16 uplink: 52302.45 in all */
	near(e.h2d_mbs, G5X16, "cascade: host->GPU aggregate MB/s");
	tap_ok(e.nuplinks == 1 && e.uplinks[0].gpus == 8,
	       "cascade: one uplink carries 8 GPUs");
	tap_ok(strstr(e.h2d_limit, "switch uplink") != NULL,
	       "cascade: host I/O limited by the switch uplink");
	tap_ok(!ptm_hw_from_topo(&t, &back) && back.gpus_per_switch == 4 &&
	       back.gpu.speed == 32000 && back.root.width == 16,
	       "cascade: hardware read back from the built topology");
	ptm_layout_free(&t);

	/* common: cross-switch pairs meet at the host bridge: PHB, 1.2x the
	 * bytes on every link: 52302.45 * 5/6 = 43585.38 */
	eval_layout(&hw, PCITOPO_LAYOUT_COMMON, &t, &e);
	near(e.class_mbs[PCITOPO_PATH_PIX], G5X16, "common: PIX pair MB/s");
	near(e.class_mbs[PCITOPO_PATH_PHB], G5X16 * 5 / 6,
	     "common: PHB pair MB/s");
	tap_eq(e.class_pairs[PCITOPO_PATH_PHB], 16, "common: 16 PHB pairs");
	/* ring: GPU3->GPU4 and GPU7->GPU0 through the root complex, each
	 * link direction carries one of them at 1.2x: 43585.38 */
	near(e.ring_busbw, G5X16 * 5 / 6, "common: ring bus bw MB/s");
	/* host: two uplinks of 4 GPUs: 2 x 52302.45 = 104604.90 */
	near(e.h2d_mbs, 2 * G5X16, "common: host->GPU aggregate MB/s");
	tap_ok(e.nuplinks == 2 && e.uplinks[0].socket == 0 &&
	       e.uplinks[1].socket == 0, "common: two uplinks, both socket 0");
	/* one socket's memory: 8 * 4800 * 8 * 0.8 = 245760 */
	near(e.mem_mbs, 245760, "common: host memory of one socket MB/s");
	ptm_layout_free(&t);

	/* balance: cross pairs over UPI, 1.2 x bytes: 22000 / 1.2 = 18333.33 */
	eval_layout(&hw, PCITOPO_LAYOUT_BALANCE, &t, &e);
	near(e.class_mbs[PCITOPO_PATH_SYS], 22000 / 1.2, "balance: SYS pair MB/s");
	/* ring crosses UPI twice, once per direction: 18333.33 */
	near(e.ring_busbw, 22000 / 1.2, "balance: ring bus bw MB/s");
	tap_ok(strstr(e.ring_limit, "UPI") != NULL,
	       "balance: ring limited by UPI");
	near(e.h2d_mbs, 2 * G5X16, "balance: host->GPU aggregate MB/s");
	near(e.mem_mbs, 2 * 245760, "balance: host memory of two sockets MB/s");

	{
		struct ptm_pair pp;

		/* GPU0 -> GPU4: GPU0 link, switch 0 uplink, root complex,
		 * UPI, switch 1 uplink, GPU4 link: UPI at 22000 / 1.2 is
		 * the bottleneck */
		tap_ok(!ptm_pair_detail(&t, &e.c, e.gpu[0], e.gpu[4], &pp) &&
		       pp.class == PCITOPO_PATH_SYS && pp.via_rc && pp.via_upi &&
		       strstr(pp.limit, "UPI socket 0->1"),
		       "balance GPU0->GPU4: SYS, through the root complex and "
		       "UPI 0->1, UPI the bottleneck");
		near(pp.mbs, 22000 / 1.2, "balance GPU0->GPU4 MB/s");
		tap_ok(!ptm_pair_detail(&t, &e.c, e.gpu[0], e.gpu[1], &pp) &&
		       pp.class == PCITOPO_PATH_PIX && !pp.via_rc &&
		       strstr(pp.limit, "GPU link"),
		       "balance GPU0->GPU1: PIX, in the switch, GPU link");
		/* core's hops: downstream port, switch, downstream port */
		tap_eq(pp.hops, 3, "balance GPU0->GPU1: 3 hops (core)");
	}
	ptm_layout_free(&t);

	hw.cpus = 1;
	tap_eq(ptm_layout_build(&hw, PCITOPO_LAYOUT_BALANCE, &t), -EOPNOTSUPP,
	       "balance needs two CPUs");
}

static void test_layouts_gen4_gen3(void)
{
	struct ptm_hw hw;
	struct ptc_topo t;
	struct ptm_eval e;

	ptm_hw_default(&hw);
	hw.gpu.speed = hw.uplink.speed = hw.root.speed = 16000;
	eval_layout(&hw, PCITOPO_LAYOUT_CASCADE, &t, &e);
	near(e.class_mbs[PCITOPO_PATH_PIX], G4X16, "Gen4 x16 PIX pair MB/s");
	ptm_layout_free(&t);
	/* up to Gen4: UPI 10000 (Skylake); SYS 10000 / 1.2 = 8333.33 */
	eval_layout(&hw, PCITOPO_LAYOUT_BALANCE, &t, &e);
	near(e.ring_busbw, 10000 / 1.2, "Gen4 balance: ring bus bw MB/s");
	ptm_layout_free(&t);

	/* Gen3 x16 GPUs and switches, but the root port trained x8: the
	 * uplink runs x8 (15753/2 = 7876 MB/s x 0.83 = 6537.08) */
	hw.gpu.speed = hw.uplink.speed = hw.root.speed = 8000;
	hw.root.width = 8;
	eval_layout(&hw, PCITOPO_LAYOUT_COMMON, &t, &e);
	near(e.class_mbs[PCITOPO_PATH_PIX], G3X16, "Gen3 PIX pair MB/s");
	/* PHB: bottleneck the x8 uplink at 1.2x: 6537.08 / 1.2 = 5447.57 */
	near(e.class_mbs[PCITOPO_PATH_PHB], 7876 * 0.83 / 1.2,
	     "Gen3, x8 root ports: PHB pair MB/s");
	ptm_layout_free(&t);

	P.v[PTM_P_UPI_MBS] = 15000;
	hw.root.width = 16;
	eval_layout(&hw, PCITOPO_LAYOUT_BALANCE, &t, &e);
	/* SYS with UPI 15000: link 13074.99 / 1.2 = 10895.82 is lower */
	near(e.class_mbs[PCITOPO_PATH_SYS], G3X16 / 1.2,
	     "upi_mbs=15000: SYS pair limited by the Gen3 link");
	ptm_layout_free(&t);
	P.v[PTM_P_UPI_MBS] = 0;
}

static void test_pair_and_links(void)
{
	struct ptm_link_check lc[64];
	struct ptm_consts c;
	struct ptm_hw hw;
	struct ptc_topo t;
	struct ptm_eval e;
	double uni, bi;
	int n, i, width_down = 0, speed_low = 0, ok = 0;

	ptm_hw_default(&hw);
	eval_layout(&hw, PCITOPO_LAYOUT_CASCADE, &t, &e);
	ptm_consts_of(&t, &P, &c);
	tap_ok(!ptm_pair_mbs(&t, &c, e.gpu[0], e.gpu[1], &uni, &bi),
	       "pair GPU0-GPU1 evaluates");
	/* both ways at once: each direction has its own lanes */
	near(bi, G5X16, "bidirectional PIX pair MB/s per direction");
	/* GPU1 idles at 2.5 GT/s, GPU2 trained x8 */
	t.nodes[e.gpu[1]].cur.speed = 2500;
	t.nodes[e.gpu[2]].cur.width = 8;
	tap_eq(ptc_resolve(&t), 0, "re-resolve with the two bad links");
	n = ptm_link_check(&t, lc, 64);
	/* links: 8 GPUs + 2 switch upstream ports */
	tap_eq(n, 10, "link check sees 10 links");
	for (i = 0; i < n && i < 64; i++) {
		if (lc[i].verdict == PTM_LINK_WIDTH_DOWN &&
		    lc[i].node == e.gpu[2] && lc[i].cur.width == 8 &&
		    lc[i].max.width == 16)
			width_down++;
		else if (lc[i].verdict == PTM_LINK_SPEED_LOW &&
			 lc[i].node == e.gpu[1])
			speed_low++;
		else if (lc[i].verdict == PTM_LINK_OK)
			ok++;
	}
	tap_ok(width_down == 1 && speed_low == 1 && ok == 8,
	       "link check: GPU2 width-down (fault), GPU1 speed-low, 8 ok");
	tap_streq(ptm_link_verdict_name(PTM_LINK_WIDTH_DOWN), "width-down",
		  "verdict name");
	/* the model plans at trained width, max speed: GPU1 still 52302.45,
	 * GPU2 at x8: 31507 x 0.83 = 26150.81 */
	tap_ok(!ptm_pair_mbs(&t, &c, e.gpu[0], e.gpu[1], &uni, NULL),
	       "pair GPU0-GPU1 evaluates");
	near(uni, G5X16, "idle (speed-low) GPU planned at full speed");
	tap_ok(!ptm_pair_mbs(&t, &c, e.gpu[0], e.gpu[2], &uni, NULL),
	       "pair GPU0-GPU2 evaluates");
	near(uni, G4X16, "x8-trained GPU planned at x8");
	/* ACS redirect on GPU3's downstream port: P2P goes up to the root
	 * complex: GPU0 up, switch uplink up then down at 1.2x */
	t.nodes[t.nodes[e.gpu[3]].parent].acs_cap = 0x5f;
	t.nodes[t.nodes[e.gpu[3]].parent].acs_ctrl = 0x0c;
	ptc_resolve(&t);
	tap_ok(!ptm_pair_mbs(&t, &c, e.gpu[0], e.gpu[3], &uni, &bi),
	       "pair GPU0-GPU3 evaluates");
	near(uni, G5X16 / 1.2, "ACS redirect: P2P through the root complex");
	/* both ways: each flow turns around at the root complex, so the
	 * uplink carries both in each direction: 52302.45 / 2.4 = 21792.69 */
	near(bi, G5X16 / 2.4, "ACS redirect, bidirectional: uplink hairpin");
	ptm_layout_free(&t);
}

static const char *best(const struct ptm_advice *a)
{
	return ptc_layout_name((u8)a->c[a->order[0]].layout);
}

static void check_ref(const char *name, const char *want, double comm_ms[3])
{
	struct ptm_workload w;
	struct ptm_advice a;
	struct ptm_hw hw;
	int i;

	ptm_hw_default(&hw);
	tap_eq(ptm_workload_ref(name, &w), 0, "reference workload %s", name);
	tap_eq(ptm_advise(&hw, &P, &w, &a), 0, "advise %s", name);
	tap_streq(best(&a), want, "%s is best on %s", name, want);
	for (i = 0; i < 3; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s on %s: comm ms per step", name,
			 ptc_layout_name((u8)a.c[i].layout));
		near(a.c[i].cost.comm_s * 1e3, comm_ms[i], what);
	}
	tap_diag("%s", a.reason);
}

static void test_advise(void)
{
	struct ptm_workload w;
	struct ptm_advice a;
	struct ptm_hw hw;
	/*
	 * ResNet50, 8 GPUs, Gen5 x16: all-reduce 2*7/8 * 102228128 B =
	 * 178899224 B at the ring bus bw; host I/O 256 * 150528 = 38535168 B
	 * per GPU.
	 *   balance: 178899224 / 18333.33e6 = 9.7581 ms; 4 GPUs per uplink:
	 *            4 * 38535168 / 52302.45e6 = 2.9471 ms; 12.7052
	 *   common:  178899224 / 43585.38e6 = 4.1046 ms; 2.9471 ms; 7.0517
	 *   cascade: 178899224 / 52302.45e6 = 3.4205 ms; 8 GPUs on one
	 *            uplink: 5.8942 ms; 9.3147
	 */
	double resnet[3] = { 12.7052, 7.0517, 9.3147 };
	/*
	 * VGG16: 1.75 * 553430176 = 968502808 B; 64 * 150528 = 9633792 B.
	 *   balance: 52.8274 + 0.7368 = 53.5642
	 *   common:  22.2209 + 0.7368 = 22.9577
	 *   cascade: 18.5175 + 1.4736 = 19.9911
	 */
	double vgg[3] = { 53.5642, 22.9577, 19.9911 };
	/*
	 * HPL: 1.75 * 64 MiB = 117440512 B; 1 GiB per GPU from the socket
	 * of its rank (GPUs 4-7: socket 1).
	 *   balance: 6.4058 + max(uplink 4 GiB / 52302.45e6 = 82.1179,
	 *            memory 4 GiB / 245760e6 = 17.48) = 88.5237
	 *   common:  2.6945 + UPI 1->0 4 GiB / 22000e6 = 195.2258 -> 197.9203
	 *   cascade: 2.2454 + max(uplink 8 GiB: 164.2358, UPI 195.2258)
	 *            = 197.4712
	 */
	double hpl[3] = { 88.5237, 197.9203, 197.4712 };

	check_ref("resnet50", "common", resnet);
	check_ref("vgg16", "cascade", vgg);
	check_ref("hpl", "balance", hpl);

	/*
	 * Sensitivity: ResNet50's gradients, batch 256, bytes per sample
	 * varied. Cascade beats common while
	 *   4 * 256 * bps / L < 1.75 * S * (1.2 - 1) / L
	 *   bps < 0.35 * 102228128 / 1024 = 34941 bytes.
	 */
	ptm_hw_default(&hw);
	tap_eq(ptm_workload_ref("custom", &w), 0, "custom workload");
	w.grad_bytes = 102228128;
	w.batch = 256;
	w.bytes_per_sample = 30000;
	ptm_advise(&hw, &P, &w, &a);
	tap_streq(best(&a), "cascade", "30000 B/sample: cascade");
	w.bytes_per_sample = 40000;
	ptm_advise(&hw, &P, &w, &a);
	tap_streq(best(&a), "common", "40000 B/sample: common");
	/* no host I/O at all: the ring decides, cascade > common > balance */
	w.bytes_per_sample = 0;
	ptm_advise(&hw, &P, &w, &a);
	tap_ok(a.order[0] == 2 && a.order[1] == 1 && a.order[2] == 0,
	       "no host I/O: cascade, common, balance");
	/* VGG16 with fp32 tensors (602112 B) and batch 128: host I/O
	 * 4 * 128 * 602112 / L = 5.894 ms more on cascade than common,
	 * all-reduce 3.704 ms less: common wins */
	tap_eq(ptm_workload_ref("vgg16", &w), 0, "vgg16 again");
	w.batch = 128;
	w.bytes_per_sample = 602112;
	ptm_advise(&hw, &P, &w, &a);
	tap_streq(best(&a), "common", "VGG16 with fp32 input, batch 128: common");
	/* HPL on one CPU: balance impossible, ranked last */
	hw.cpus = 1;
	tap_eq(ptm_workload_ref("hpl", &w), 0, "hpl again");
	tap_eq(ptm_advise(&hw, &P, &w, &a), 0, "advise hpl on one CPU");
	tap_ok(a.navailable == 2 && a.c[a.order[2]].layout ==
	       PCITOPO_LAYOUT_BALANCE, "one CPU: balance unavailable, last");
	/* Skylake UPI (10 GB/s) only widens balance's loss on ResNet50 */
	ptm_hw_default(&hw);
	P.v[PTM_P_UPI_MBS] = 10000;
	ptm_workload_ref("resnet50", &w);
	ptm_advise(&hw, &P, &w, &a);
	tap_ok(a.c[a.order[2]].layout == PCITOPO_LAYOUT_BALANCE,
	       "upi_mbs=10000: balance last for ResNet50");
	P.v[PTM_P_UPI_MBS] = 0;
	w.batch = -1;
	tap_eq(ptm_advise(&hw, &P, &w, &a), -EINVAL, "negative batch refused");
}

int main(void)
{
	ptm_params_default(&P);
	test_params();
	test_link_parse();
	test_layouts_gen5();
	test_layouts_gen4_gen3();
	test_pair_and_links();
	test_advise();
	return tap_done();
}
