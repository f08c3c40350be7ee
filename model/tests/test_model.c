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
#include <sys/stat.h>
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

/* --- the machine: cpuinfo, SMBIOS, CPU generations ----------------------- */

static const char spr_cpuinfo[] =
	"processor\t: 0\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 143\n"
	"model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
	"stepping\t: 8\n"
	"physical id\t: 0\n"
	"core id\t\t: 0\n"
	"\n"
	"processor\t: 1\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 143\n"
	"model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
	"stepping\t: 8\n"
	"physical id\t: 1\n"
	"core id\t\t: 0\n"
	"\n";

static const char genoa_cpuinfo[] =
	"processor\t: 0\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 25\n"
	"model\t\t: 17\n"
	"model name\t: AMD EPYC 9654 96-Core Processor\n"
	"stepping\t: 1\n"
	"physical id\t: 0\n"
	"\n"
	"processor\t: 1\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 25\n"
	"model\t\t: 17\n"
	"model name\t: AMD EPYC 9654 96-Core Processor\n"
	"stepping\t: 1\n"
	"physical id\t: 0\n"
	"\n"
	"processor\t: 2\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 25\n"
	"model\t\t: 17\n"
	"model name\t: AMD EPYC 9654 96-Core Processor\n"
	"stepping\t: 1\n"
	"physical id\t: 1\n"
	"\n";

static char tmpdir[] = "/tmp/ptm-machineXXXXXX";

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len) {
		tap_ok(0, "write %s", path);
		exit(1);
	}
	fclose(f);
}

static void test_cpuinfo(void)
{
	struct ptm_cpuinfo ci;
	const struct ptm_cpu_gen *g;
	char path[256];

	snprintf(path, sizeof(path), "%s/cpuinfo-spr", tmpdir);
	write_file(path, spr_cpuinfo, strlen(spr_cpuinfo));
	tap_eq(ptm_cpuinfo_read(path, &ci), 0, "Sapphire Rapids cpuinfo reads");
	tap_ok(ci.vendor == PTM_CPU_INTEL && ci.family == 6 && ci.model == 143 &&
	       ci.stepping == 8 && ci.processors == 2 && ci.packages == 2,
	       "SPR: GenuineIntel family 6 model 143 stepping 8, 2 packages");
	tap_streq(ci.model_name, "Intel(R) Xeon(R) Platinum 8480+",
		  "SPR: model name");
	g = ptm_cpu_gen_match(&ci);
	tap_ok(g && !strcmp(g->key, "sapphire-rapids") && g->link_mbs == 22000 &&
	       !strcmp(g->bus, "UPI"), "SPR: Sapphire Rapids, UPI 22000");

	snprintf(path, sizeof(path), "%s/cpuinfo-genoa", tmpdir);
	write_file(path, genoa_cpuinfo, strlen(genoa_cpuinfo));
	tap_eq(ptm_cpuinfo_read(path, &ci), 0, "Genoa cpuinfo reads");
	tap_ok(ci.vendor == PTM_CPU_AMD && ci.family == 25 && ci.model == 17 &&
	       ci.processors == 3 && ci.packages == 2,
	       "Genoa: AuthenticAMD family 25 model 17, 3 processors, 2 packages");
	g = ptm_cpu_gen_match(&ci);
	tap_ok(g && !strcmp(g->key, "genoa") && g->link_mbs == 24000 &&
	       !strcmp(g->bus, "xGMI") && g->mem_channels == 12,
	       "Genoa: xGMI 24000 (NCCL AMD_ZEN34_BW), 12 channels");

	/* Cascade Lake shares model 0x55 with Skylake: the stepping decides */
	tap_ok(!ptm_cpuinfo_parse("processor : 0\nvendor_id : GenuineIntel\n"
				  "cpu family : 6\nmodel : 85\nstepping : 7\n",
				  &ci) &&
	       !strcmp(ptm_cpu_gen_match(&ci)->key, "cascade-lake"),
	       "model 85 stepping 7: Cascade Lake");
	ci.stepping = 4;
	tap_streq(ptm_cpu_gen_match(&ci)->key, "skylake",
		  "model 85 stepping 4: Skylake-SP");
	/* NCCL's classes for models not named: Granite Rapids is ERP class */
	ci.model = 0xad;
	tap_streq(ptm_cpu_gen_match(&ci)->key, "granite-rapids",
		  "model 0xad: Granite Rapids");
	ci.model = 0x9a;
	tap_ok(ptm_cpu_gen_match(&ci)->link_mbs == 22000,
	       "unnamed Intel model 0x9a: NCCL SRP class");
	ci.vendor = PTM_CPU_AMD;
	ci.family = 0x1a;
	ci.model = 0x02;
	tap_streq(ptm_cpu_gen_match(&ci)->key, "turin", "AMD 0x1a model 2: Turin");
	tap_ok(!ptm_cpuinfo_parse("processor : 0\nBogoMIPS : 50.00\n"
				  "CPU implementer : 0x41\n", &ci) &&
	       ci.vendor == PTM_CPU_UNKNOWN && !ptm_cpu_gen_match(&ci),
	       "an Arm cpuinfo: vendor unknown, no generation");
	tap_eq(ptm_cpuinfo_parse("", &ci), -ENODATA, "empty cpuinfo: -ENODATA");
	tap_eq(ptm_cpuinfo_read("/nonexistent/cpuinfo", &ci), -ENOENT,
	       "missing cpuinfo: -ENOENT");
}

/* A type 17 structure, SMBIOS 3.3 layout (0x5C bytes), then strings. */
static size_t dimm(u8 *b, unsigned int size, u32 ext_mb, unsigned int speed,
		   unsigned int conf, const char *locator)
{
	size_t n = 0x5c, l = strlen(locator);

	memset(b, 0, 0x5c + l + 2);
	b[0] = 17;
	b[1] = 0x5c;
	b[0x0c] = (u8)size;
	b[0x0d] = (u8)(size >> 8);
	b[0x10] = 1;			/* Device Locator: string 1 */
	b[0x12] = 0x22;			/* DDR5 */
	b[0x15] = (u8)speed;
	b[0x16] = (u8)(speed >> 8);
	b[0x1c] = (u8)ext_mb;
	b[0x1d] = (u8)(ext_mb >> 8);
	b[0x1e] = (u8)(ext_mb >> 16);
	b[0x20] = (u8)conf;
	b[0x21] = (u8)(conf >> 8);
	memcpy(b + n, locator, l);
	return n + l + 2;		/* string NUL, set NUL */
}

static void smbios_entry(const char *dir, const char *name, const u8 *b,
			 size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/raw", dir, name);
	write_file(path, b, len);
}

static void test_smbios(void)
{
	struct ptm_meminfo mi;
	struct ptm_dimm d;
	char dir[256];
	u8 b[256];
	size_t n;

	/* 32 GB needs Extended Size (0x7FFF); 4800 MT/s rated, 4400 set */
	n = dimm(b, 0x7fff, 32768, 4800, 4400, "P0 CHANNEL A");
	tap_eq(ptm_smbios17_parse(b, n, &d), 0, "type 17 blob parses");
	tap_ok(d.populated && d.size_mb == 32768 && d.rated_mts == 4800 &&
	       d.mts == 4400 && !strcmp(d.type, "DDR5"),
	       "32 GB (extended size) DDR5, rated 4800, configured 4400");
	tap_streq(d.locator, "P0 CHANNEL A", "device locator string");
	b[0] = 16;
	tap_eq(ptm_smbios17_parse(b, n, &d), -EINVAL, "type 16 refused");
	tap_eq(ptm_smbios17_parse(b, 8, &d), -EINVAL, "short blob refused");

	snprintf(dir, sizeof(dir), "%s/entries", tmpdir);
	mkdir(dir, 0755);
	n = dimm(b, 0x7fff, 32768, 4800, 4400, "P0 CHANNEL A");
	smbios_entry(dir, "17-0", b, n);
	n = dimm(b, 0x4000, 0, 4800, 4800, "P1 CHANNEL A");	/* 16 GB */
	smbios_entry(dir, "17-1", b, n);
	n = dimm(b, 0, 0, 0, 0, "P1 CHANNEL B");		/* empty slot */
	smbios_entry(dir, "17-2", b, n);
	b[0] = 16;
	smbios_entry(dir, "16-0", b, n);			/* not a DIMM */
	tap_eq(ptm_smbios_read(dir, &mi), 0, "SMBIOS entries read");
	tap_ok(mi.devices == 3 && mi.populated == 2 && mi.total_mb == 49152 &&
	       mi.mts == 4400 && mi.rated_mts == 4800 && !strcmp(mi.type, "DDR5"),
	       "3 devices, 2 populated, 48 GB, slowest configured 4400 MT/s");
	tap_eq(ptm_smbios_read("/nonexistent/entries", &mi), -ENOENT,
	       "no entries directory: -ENOENT");
}

static void machine_genoa(struct ptm_params *p, unsigned int populated)
{
	ptm_params_default(p);
	ptm_cpuinfo_parse(genoa_cpuinfo, &p->m.cpu);
	p->m.have_cpu = true;
	p->m.have_mem = true;
	p->m.mem.devices = 48;
	p->m.mem.populated = populated;
	p->m.mem.mts = 4800;
	p->m.mem.type = "DDR5";
	p->m.sockets = 2;
}

static void test_consts_machine(void)
{
	struct ptm_params p;
	struct ptm_consts c;
	char path[256], err[256];
	FILE *f;

	/* nothing known: by the PCIe generation, as before, and said so */
	ptm_params_default(&p);
	ptm_consts_for(&p, 5, &c);
	tap_ok(c.upi_mbs == 22000 && c.upi_assumed && c.mem_assumed &&
	       !strcmp(c.cpu_src, "assumed") && !strcmp(c.bus, "UPI") &&
	       strstr(c.upi_src, "assumed: Sapphire Rapids") &&
	       strstr(c.mem_src, "assumed: 8 x DDR5-4800"),
	       "unknown machine, Gen5: Sapphire Rapids assumed");
	near(c.mem_mbs, 245760, "assumed memory, Gen5: 8 x 4800 x 8 x 0.8");

	/* dual Genoa, 24 DIMMs: 12 per socket, the xGMI figure */
	machine_genoa(&p, 24);
	ptm_consts_for(&p, 5, &c);
	tap_ok(!strcmp(c.cpu->key, "genoa") && !strcmp(c.cpu_src, "cpuinfo") &&
	       !c.upi_assumed && !c.mem_assumed && !strcmp(c.bus, "xGMI") &&
	       c.mem_channels == 12 && c.mem_mts == 4800 &&
	       !strcmp(c.mem_channels_src, "SMBIOS"),
	       "Genoa: cpuinfo generation, SMBIOS 12 x DDR5-4800, nothing assumed");
	near(c.upi_mbs, 24000, "Genoa: xGMI MB/s per direction");
	/* 12 x 4800 x 8 x 0.8 = 368640 */
	near(c.mem_mbs, 368640, "Genoa: memory MB/s per socket");
	/* 48 DIMMs on 2 sockets: two per channel, still 12 channels */
	machine_genoa(&p, 48);
	ptm_consts_for(&p, 5, &c);
	tap_eq(c.mem_channels, 12, "48 DIMMs on 2 Genoa sockets: 12 channels");
	/* SMBIOS not readable: Genoa's channels and speed, assumed */
	p.m.have_mem = false;
	ptm_consts_for(&p, 5, &c);
	tap_ok(c.mem_assumed && !c.upi_assumed && c.mem_channels == 12 &&
	       strstr(c.mem_src, "assumed: 12 x DDR5-4800 (Genoa)"),
	       "Genoa without SMBIOS: memory assumed, xGMI not");
	/* overrides: cpu=, mem_channels, mem_mts, upi_mbs */
	tap_eq(ptm_param_set(&p, "cpu=turin"), 0, "--set cpu=turin");
	tap_eq(ptm_param_set(&p, "mem_channels=8"), 0, "--set mem_channels=8");
	tap_eq(ptm_param_set(&p, "mem_mts=5600"), 0, "--set mem_mts=5600");
	ptm_consts_for(&p, 5, &c);
	tap_ok(!strcmp(c.cpu->key, "turin") && !strcmp(c.cpu_src, "set") &&
	       c.upi_mbs == 32000 && c.mem_channels == 8 && c.mem_mts == 5600 &&
	       !c.mem_assumed, "cpu=turin: AMD_ZEN5_BW; 8 x 5600 as set");
	tap_eq(ptm_param_set(&p, "cpu=bogus"), -EINVAL, "cpu=bogus refused");
	tap_eq(ptm_param_set(&p, "mem_channels=1.5"), -EINVAL,
	       "mem_channels=1.5 refused");
	tap_eq(ptm_param_set(&p, "sockets=9"), -EINVAL, "sockets=9 refused");
	tap_eq(ptm_param_set(&p, "cpu=auto"), 0, "cpu=auto");
	tap_ok(p.v[PTM_P_CPU] == 0, "cpu=auto clears the generation");

	/* model.conf: a cpu string */
	snprintf(path, sizeof(path), "%s/model.conf", tmpdir);
	f = fopen(path, "w");
	fputs("cpu = \"emerald-rapids\";\nmem_channels = 8;\n", f);
	fclose(f);
	ptm_params_default(&p);
	tap_eq(ptm_params_load(&p, path, err, sizeof(err)), 0,
	       "model.conf with cpu = \"emerald-rapids\" loads");
	ptm_consts_for(&p, 5, &c);
	tap_ok(!strcmp(c.cpu->key, "emerald-rapids") && c.upi_mbs == 40000,
	       "model.conf cpu: Emerald Rapids, NCCL ERP_QPI_BW 40000");
	f = fopen(path, "w");
	fputs("cpu = \"pentium\";\n", f);
	fclose(f);
	tap_eq(ptm_params_load(&p, path, err, sizeof(err)), -EINVAL,
	       "model.conf with an unknown cpu refused");
	tap_ok(strstr(err, ":1: unknown cpu 'pentium'") != NULL,
	       "error names line 1 and the cpu");
}

/* --- layouts of other shapes --------------------------------------------- */

static void hw_switches(struct ptm_hw *hw, unsigned int n,
			const unsigned int *g)
{
	unsigned int i;

	ptm_hw_default(hw);
	hw->nswitches = n;
	hw->gpus_per_switch = 0;
	for (i = 0; i < n; i++) {
		hw->sw_gpus[i] = g[i];
		if (g[i] > hw->gpus_per_switch)
			hw->gpus_per_switch = g[i];
	}
}

static void test_shapes(void)
{
	static const unsigned int four2[] = { 2, 2, 2, 2 }, uneven[] = { 4, 2, 2 };
	struct ptm_hw hw, back;
	struct ptm_params p;
	struct ptm_advice a;
	struct ptm_workload w;
	struct ptc_topo t;
	struct ptm_eval e;
	char shape[PTM_SHAPE_LEN];

	/* the default: two switches of 4, shapes as before */
	ptm_hw_default(&hw);
	ptm_layout_shape(&hw, PCITOPO_LAYOUT_BALANCE, shape, sizeof(shape));
	tap_streq(shape, "CPU0: 4 GPUs, CPU1: 4 GPUs; a root port per switch",
		  "2 x 4: balance shape");
	ptm_layout_shape(&hw, PCITOPO_LAYOUT_CASCADE, shape, sizeof(shape));
	tap_streq(shape, "CPU0: one root port, a switch of 4 GPUs with 1 switch "
		  "below it (4 GPUs)", "2 x 4: cascade shape");
	eval_layout(&hw, PCITOPO_LAYOUT_CASCADE, &t, &e);
	tap_ok(!ptm_hw_from_topo(&t, &back) && back.nswitches == 2 &&
	       back.sw_gpus[0] == 4 && back.sw_gpus[1] == 4 &&
	       back.gpus_per_switch == 4,
	       "cascade 2 x 4 read back: 2 switches of 4");
	ptm_layout_free(&t);

	/* four switches of two GPUs */
	hw_switches(&hw, 4, four2);
	ptm_layout_shape(&hw, PCITOPO_LAYOUT_BALANCE, shape, sizeof(shape));
	tap_streq(shape, "CPU0: 2+2 GPUs, CPU1: 2+2 GPUs; a root port per switch",
		  "4 x 2: balance = 2 switches per socket");
	ptm_layout_shape(&hw, PCITOPO_LAYOUT_COMMON, shape, sizeof(shape));
	tap_streq(shape, "CPU0: 2+2+2+2 GPUs on 4 root ports",
		  "4 x 2: common = 4 switches on CPU0's root ports");
	ptm_layout_shape(&hw, PCITOPO_LAYOUT_CASCADE, shape, sizeof(shape));
	tap_streq(shape, "CPU0: one root port, a switch of 2 GPUs with 3 "
		  "switches below it (2+2+2 GPUs)",
		  "4 x 2: cascade = the switches below one top switch");
	ptm_hw_format_switches(shape, sizeof(shape), &hw);
	tap_streq(shape, "4 switches of 2 GPUs", "4 x 2 described");

	eval_layout(&hw, PCITOPO_LAYOUT_BALANCE, &t, &e);
	tap_ok(e.ngpus == 8 && e.nuplinks == 4 && e.uplinks[0].socket == 0 &&
	       e.uplinks[1].socket == 0 && e.uplinks[2].socket == 1 &&
	       e.uplinks[3].socket == 1 && e.uplinks[0].gpus == 2,
	       "4 x 2 balance: 8 GPUs, 4 uplinks of 2, two per socket");
	/* 4 uplinks of 2 GPUs: 4 x 52302.45 = 209209.80 */
	near(e.h2d_mbs, 4 * G5X16, "4 x 2 balance: host->GPU aggregate MB/s");
	/* the ring crosses UPI once each way: 22000 / 1.2 */
	near(e.ring_busbw, 22000 / 1.2, "4 x 2 balance: ring bus bw MB/s");
	tap_ok(!ptm_hw_from_topo(&t, &back) && back.nswitches == 4 &&
	       back.sw_gpus[3] == 2 && back.cpus == 2,
	       "4 x 2 balance read back: 4 switches of 2, 2 CPUs");
	ptm_layout_free(&t);

	eval_layout(&hw, PCITOPO_LAYOUT_COMMON, &t, &e);
	/* every cross-switch edge through the root complex, one per uplink
	 * direction: 52302.45 / 1.2 */
	near(e.ring_busbw, G5X16 * 5 / 6, "4 x 2 common: ring bus bw MB/s");
	near(e.h2d_mbs, 4 * G5X16, "4 x 2 common: host->GPU aggregate MB/s");
	tap_eq(e.class_pairs[PCITOPO_PATH_PIX], 4, "4 x 2 common: 4 PIX pairs");
	ptm_layout_free(&t);

	eval_layout(&hw, PCITOPO_LAYOUT_CASCADE, &t, &e);
	/* star below switch 0: each cascade link one edge each way */
	near(e.ring_busbw, G5X16, "4 x 2 cascade: ring bus bw MB/s");
	near(e.h2d_mbs, G5X16, "4 x 2 cascade: 8 GPUs on one uplink");
	tap_ok(e.nuplinks == 1 && e.uplinks[0].gpus == 8,
	       "4 x 2 cascade: one uplink carries 8 GPUs");
	ptm_layout_free(&t);

	/* uneven: 4+2+2 */
	hw_switches(&hw, 3, uneven);
	ptm_layout_shape(&hw, PCITOPO_LAYOUT_BALANCE, shape, sizeof(shape));
	tap_streq(shape, "CPU0: 4+2 GPUs, CPU1: 2 GPUs; a root port per switch",
		  "4+2+2: balance shape");
	ptm_hw_format_switches(shape, sizeof(shape), &hw);
	tap_streq(shape, "3 switches of 4+2+2 GPUs", "4+2+2 described");
	eval_layout(&hw, PCITOPO_LAYOUT_CASCADE, &t, &e);
	tap_ok(e.ngpus == 8 && !ptm_hw_from_topo(&t, &back) &&
	       back.nswitches == 3 && back.sw_gpus[0] == 4 &&
	       back.sw_gpus[1] == 2 && back.sw_gpus[2] == 2,
	       "4+2+2 cascade: 8 GPUs, read back as 4+2+2");
	ptm_layout_free(&t);

	/* one switch: nothing to balance */
	hw.nswitches = 1;
	tap_eq(ptm_layout_shape(&hw, PCITOPO_LAYOUT_BALANCE, shape,
				sizeof(shape)), -EOPNOTSUPP,
	       "one switch: no balance");
	tap_streq(shape, "needs two switches", "one switch: why");
	tap_eq(ptm_layout_build(&hw, PCITOPO_LAYOUT_BALANCE, &t), -EOPNOTSUPP,
	       "one switch: balance not built");

	/* a dual Genoa with 4 x 2: xGMI in the figures and the limits */
	hw_switches(&hw, 4, four2);
	machine_genoa(&p, 24);
	ptm_workload_ref("vgg16", &w);
	tap_eq(ptm_advise(&hw, &p, &w, &a), 0, "advise vgg16 on 4 x 2 Genoa");
	tap_ok(a.navailable == 3 && !strcmp(a.c[0].eval.c.bus, "xGMI") &&
	       strstr(a.c[0].eval.ring_limit, "xGMI socket") &&
	       !strcmp(a.c[0].shape, "CPU0: 2+2 GPUs, CPU1: 2+2 GPUs; a root "
		       "port per switch"),
	       "Genoa balance: ring limited by xGMI, its shape recorded");
	near(a.c[0].eval.ring_busbw, 24000 / 1.2, "Genoa balance: ring bus bw");
	tap_streq(best(&a), "cascade", "vgg16 on 4 x 2 Genoa: cascade");
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
	if (!mkdtemp(tmpdir)) {
		tap_ok(0, "mkdtemp");
		return 1;
	}
	test_cpuinfo();
	test_smbios();
	test_consts_machine();
	test_shapes();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd))
			tap_diag("could not remove %s", tmpdir);
	}
	return tap_done();
}
