// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NCCL's transport rules (model/nccl.c), table-tested against cases
 * worked out by hand from NCCL 2.30.7's src/graph/paths.cc (tag v2.30.7-1,
 * commit 5067397c of github.com/NVIDIA/nccl) and, for GPUDirect RDMA's
 * preconditions, src/transport/net_ib/gdr.cc and init.cc; each row cites
 * the lines it derives from. Classes are nvidia-smi's (PIX, PXB, PHB, NODE, SYS); NCCL sees NODE
 * as PHB (one CPU node per NUMA node, topo.h).
 */
#include <string.h>

#include "nccl.h"
#include "tap.h"	/* tests/unit/tap.h */

#define U PTC_NCCL_UNSET
#define INTEL PTC_NCCL_CPU_INTEL
#define AMD PTC_NCCL_CPU_AMD
#define UNK PTC_NCCL_CPU_UNKNOWN
#define PM_NONE PTC_NCCL_PEERMEM_NONE
#define PM_UNK PTC_NCCL_PEERMEM_UNKNOWN
#define PM_LOADED PTC_NCCL_PEERMEM_LOADED
#define C_CPU PTC_NCCL_COND_CPU
#define C_GPUS PTC_NCCL_COND_GPUS
#define C_PM PTC_NCCL_COND_PEERMEM
#define C_DMABUF PTC_NCCL_COND_DMABUF

struct p2p_case {
	const char *line;	/* paths.cc lines the answer comes from */
	u8 cpu;
	u32 gpus;
	u8 class;
	struct ptc_nccl_env env;	/* p2p_disable, p2p_level, shm_disable, ... */
	u8 transport;
	u8 why;
	u8 cond;	/* what transport needs that is unknown; 0 definite */
	u8 alt;		/* the answer where cond does not hold */
};

#define ENV(dis, lvl, shm) { dis, lvl, shm, U, U, U, U }

static const struct p2p_case p2p_cases[] = {
	/* 356, 368: default level PXB: PIX and PXB P2P, PHB/NODE/SYS not */
	{ "356,368", INTEL, 8, PCITOPO_PATH_PIX, ENV(U, U, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	{ "356,368", INTEL, 8, PCITOPO_PATH_PXB, ENV(U, U, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	/* 356,368 then 769: PHB > PXB: through the CPU (SHM) */
	{ "356,368,769", INTEL, 8, PCITOPO_PATH_PHB, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	/* NODE is PHB to NCCL: SHM too */
	{ "356,368,769", INTEL, 8, PCITOPO_PATH_NODE, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	{ "356,368,769", INTEL, 8, PCITOPO_PATH_SYS, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	/* 361-362: AMD x86 with <= 2 GPUs: level SYS, every class P2P */
	{ "361-362", AMD, 2, PCITOPO_PATH_SYS, ENV(U, U, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_AMD, 0, 0 },
	{ "361-362", AMD, 2, PCITOPO_PATH_PHB, ENV(U, U, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_AMD, 0, 0 },
	/* 361: more than 2 GPUs on AMD: the default PXB stays */
	{ "356,361", AMD, 8, PCITOPO_PATH_PHB, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	{ "356,361", AMD, 8, PCITOPO_PATH_PIX, ENV(U, U, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	/* 361: Intel with 2 GPUs: no special case */
	{ "356,361", INTEL, 2, PCITOPO_PATH_SYS, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	/* 250-251, 365: NCCL_P2P_DISABLE=1 is LOC: no P2P even on PIX */
	{ "251,365", INTEL, 8, PCITOPO_PATH_PIX, ENV(1, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_P2P_DISABLE, 0, 0 },
	/* 251: DISABLE=1 wins over NCCL_P2P_LEVEL (checked before it) */
	{ "249-256", INTEL, 8, PCITOPO_PATH_PIX, ENV(1, PTC_NCCL_SYS, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_P2P_DISABLE, 0, 0 },
	/* 251,255: DISABLE=0 is no override; LEVEL then applies */
	{ "251,255-263", INTEL, 8, PCITOPO_PATH_SYS, ENV(0, PTC_NCCL_SYS, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_P2P_LEVEL, 0, 0 },
	/* 365: NCCL_P2P_LEVEL=PHB on Intel: PHB and NODE P2P, SYS not */
	{ "365,368", INTEL, 8, PCITOPO_PATH_PHB, ENV(U, PTC_NCCL_PHB, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_P2P_LEVEL, 0, 0 },
	{ "365,368", INTEL, 8, PCITOPO_PATH_NODE, ENV(U, PTC_NCCL_PHB, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_P2P_LEVEL, 0, 0 },
	{ "365,368", INTEL, 8, PCITOPO_PATH_SYS, ENV(U, PTC_NCCL_PHB, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_P2P_LEVEL, 0, 0 },
	/* 365: the user level overrides the AMD case too (PIX on AMD, 2 GPUs) */
	{ "362,365", AMD, 2, PCITOPO_PATH_PXB, ENV(U, PTC_NCCL_PIX, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_P2P_LEVEL, 0, 0 },
	/* shm.cc:66 + 789: no P2P and NCCL_SHM_DISABLE=1: the network */
	{ "368,789", INTEL, 8, PCITOPO_PATH_SYS, ENV(U, U, 1), PTC_NCCL_T_NET, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	/* SHM_DISABLE does not touch a P2P pair */
	{ "368", INTEL, 8, PCITOPO_PATH_PIX, ENV(U, U, 1), PTC_NCCL_T_P2P, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	/* 361: a 2-GPU job on an 8-GPU AMD server: the job's count decides */
	{ "361-362", AMD, 2, PCITOPO_PATH_NODE, ENV(U, U, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_AMD, 0, 0 },
	/* 361 undecided: the CPU unknown, 2 GPUs: SHM, or P2P if AMD */
	{ "356,361,769", UNK, 2, PCITOPO_PATH_PHB, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, C_CPU, PTC_NCCL_T_P2P },
	/* 361 undecided: AMD, the job's GPUs on the node unknown */
	{ "356,361,769", AMD, 0, PCITOPO_PATH_SYS, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, C_GPUS, PTC_NCCL_T_P2P },
	{ "356,361,769", UNK, 0, PCITOPO_PATH_NODE, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, C_CPU | C_GPUS, PTC_NCCL_T_P2P },
	/* 361 decided whatever the CPU: more than 2 GPUs; or a PXB path */
	{ "356,361", UNK, 8, PCITOPO_PATH_PHB, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	{ "356,368", UNK, 0, PCITOPO_PATH_PXB, ENV(U, U, U), PTC_NCCL_T_P2P, PTC_NCCL_WHY_DEFAULT, 0, 0 },
	/* 361, 365: NCCL_P2P_LEVEL overrides the AMD rule: nothing undecided */
	{ "361,365", UNK, 0, PCITOPO_PATH_PHB, ENV(U, PTC_NCCL_PXB, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_P2P_LEVEL, 0, 0 },
	/* Intel known, count unknown: the AMD rule cannot apply */
	{ "356,361", INTEL, 0, PCITOPO_PATH_PHB, ENV(U, U, U), PTC_NCCL_T_SHM, PTC_NCCL_WHY_DEFAULT, 0, 0 },
};

struct gdr_case {
	const char *line;
	u8 class;
	struct ptc_nccl_env env;
	u8 cc;
	u8 transport;
	bool read;
	u8 peermem;	/* enum ptc_nccl_peermem */
	u8 cond;
};

#define GENV(lvl, rd, c2c) { U, U, U, lvl, rd, c2c, U }
#define GENV_DMABUF(v) { U, U, U, U, U, U, v }

static const struct gdr_case gdr_cases[] = {
	/* 465, 511, 528: default level P2C (C2C on): PIX and PXB <= P2C */
	{ "511,528", PCITOPO_PATH_PIX, GENV(U, U, U), 0, PTC_NCCL_T_GDR, true, PM_LOADED, 0 },
	{ "511,528", PCITOPO_PATH_PXB, GENV(U, U, U), 0, PTC_NCCL_T_GDR, true, PM_LOADED, 0 },
	/* 528: PHB (and NODE) > P2C: no GDR */
	{ "511,528", PCITOPO_PATH_PHB, GENV(U, U, U), 0, PTC_NCCL_T_NO_GDR, false, PM_LOADED, 0 },
	{ "511,528", PCITOPO_PATH_NODE, GENV(U, U, U), 0, PTC_NCCL_T_NO_GDR, false, PM_LOADED, 0 },
	{ "511,528", PCITOPO_PATH_SYS, GENV(U, U, U), 0, PTC_NCCL_T_NO_GDR, false, PM_LOADED, 0 },
	/* 511: NCCL_NET_GDR_C2C=0: level PXB, same answer on PCIe paths */
	{ "511", PCITOPO_PATH_PXB, GENV(U, U, 0), 0, PTC_NCCL_T_GDR, true, PM_LOADED, 0 },
	{ "511", PCITOPO_PATH_PHB, GENV(U, U, 0), 0, PTC_NCCL_T_NO_GDR, false, PM_LOADED, 0 },
	/* 512-513: NCCL_NET_GDR_LEVEL=PHB admits PHB and NODE, not SYS */
	{ "512-513,528", PCITOPO_PATH_PHB, GENV(PTC_NCCL_PHB, U, U), 0, PTC_NCCL_T_GDR, true, PM_LOADED, 0 },
	{ "512-513,528", PCITOPO_PATH_SYS, GENV(PTC_NCCL_PHB, U, U), 0, PTC_NCCL_T_NO_GDR, false, PM_LOADED, 0 },
	/* 512-513: NCCL_NET_GDR_LEVEL=LOC: off even on PIX */
	{ "512-513,528", PCITOPO_PATH_PIX, GENV(PTC_NCCL_LOC, U, U), 0, PTC_NCCL_T_NO_GDR, false, PM_LOADED, 0 },
	/* 492: NCCL_NET_GDR_READ=0: GDR for receives only */
	{ "492", PCITOPO_PATH_PIX, GENV(U, 0, U), 0, PTC_NCCL_T_GDR, false, PM_LOADED, 0 },
	/* 494: default read param on a pre-Ampere GPU (cc 70), no NVLink */
	{ "494-505", PCITOPO_PATH_PIX, GENV(U, U, U), 70, PTC_NCCL_T_GDR, false, PM_LOADED, 0 },
	/* 494: NCCL_NET_GDR_READ=1 keeps reads on pre-Ampere */
	{ "492-494", PCITOPO_PATH_PIX, GENV(U, 1, U), 70, PTC_NCCL_T_GDR, true, PM_LOADED, 0 },
	/* 494: Ampere (cc 80) reads by default */
	{ "494", PCITOPO_PATH_PXB, GENV(U, U, U), 80, PTC_NCCL_T_GDR, true, PM_LOADED, 0 },
	/*
	 * paths.cc:485 via topo.cc:1651-1652: GDR needs a peer-memory module
	 * (gdr.cc:16-21, init.cc:547-549) or DMA-BUF (init.cc:551-553)
	 */
	{ "485,gdr.cc:16-21", PCITOPO_PATH_PIX, GENV(U, U, U), 0, PTC_NCCL_T_GDR, true, PM_NONE, C_DMABUF },
	{ "485,gdr.cc:16-21", PCITOPO_PATH_PXB, GENV(U, U, U), 0, PTC_NCCL_T_GDR, true, PM_UNK, C_PM | C_DMABUF },
	/* src/init.cc:399-420: NCCL_DMABUF_ENABLE=0 leaves the module alone */
	{ "485,init.cc:403", PCITOPO_PATH_PIX, GENV_DMABUF(0), 0, PTC_NCCL_T_NO_GDR, false, PM_NONE, 0 },
	{ "485,init.cc:403", PCITOPO_PATH_PIX, GENV_DMABUF(0), 0, PTC_NCCL_T_GDR, true, PM_UNK, C_PM },
	/* 528 before 485 matters not: beyond the level, no GDR either way */
	{ "528", PCITOPO_PATH_SYS, GENV(U, U, U), 0, PTC_NCCL_T_NO_GDR, false, PM_NONE, 0 },
};

static const struct {
	const char *s;
	int level;
	const char *line;
} levels[] = {
	{ "PIX", PTC_NCCL_PIX, "258-263" }, { "PXB", PTC_NCCL_PXB, "258-263" },
	{ "PHB", PTC_NCCL_PHB, "258-263" }, { "SYS", PTC_NCCL_SYS, "258-263" },
	{ "LOC", PTC_NCCL_LOC, "258-263" }, { "NVL", PTC_NCCL_NVL, "258-263" },
	{ "phb", U, "259 (strcmp: case-sensitive)" },
	{ "NODE", U, "258-263 (no such NCCL level)" },
	{ "NET", U, "258 (i <= PATH_SYS only)" },
	{ "0", PTC_NCCL_LOC, "243,268-272" }, { "1", PTC_NCCL_PIX, "243" },
	{ "2", PTC_NCCL_PXB, "243" }, { "3", PTC_NCCL_PHB, "243" },
	{ "4", PTC_NCCL_SYS, "243" }, { "5", PTC_NCCL_SYS, "243" },
	{ "9", PTC_NCCL_SYS, "271 (clamped)" },
	{ "0x3", PTC_NCCL_PHB, "270 (strtol base 0)" },
	{ "", U, "275" },
};

int main(void)
{
	struct ptc_nccl_verdict v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(p2p_cases); i++) {
		const struct p2p_case *k = &p2p_cases[i];
		struct ptc_nccl_sys sys = { .cpu = k->cpu, .gpus = k->gpus };

		ptc_nccl_gpu_pair(&sys, &k->env, k->class, &v);
		tap_ok(v.transport == k->transport && v.why == k->why &&
		   v.cond == k->cond && (!k->cond || v.alt == k->alt),
		   "nccl p2p %s %s %u GPUs dis=%d lvl=%d shm=%d -> %u/%u "
		   "cond 0x%x alt %u (paths.cc:%s)", ptc_class_name(k->class),
		   k->cpu == AMD ? "AMD" : k->cpu == UNK ? "CPU?" : "Intel",
		   k->gpus, k->env.p2p_disable, k->env.p2p_level,
		   k->env.shm_disable, v.transport, v.why, v.cond, v.alt, k->line);
	}
	for (i = 0; i < ARRAY_SIZE(gdr_cases); i++) {
		const struct gdr_case *k = &gdr_cases[i];
		struct ptc_nccl_sys sys = { .cpu = INTEL, .gpus = 8, .cc = k->cc,
					    .peermem = k->peermem };

		ptc_nccl_gpu_nic(&sys, &k->env, k->class, &v);
		tap_ok(v.transport == k->transport && v.read == k->read &&
		   v.cond == k->cond && (!k->cond || v.alt == PTC_NCCL_T_NO_GDR),
		   "nccl gdr %s lvl=%d read=%d c2c=%d cc=%u peermem %u "
		   "dmabuf=%d -> %u read %d cond 0x%x (paths.cc:%s)",
		   ptc_class_name(k->class), k->env.gdr_level, k->env.gdr_read,
		   k->env.gdr_c2c, k->cc, k->peermem, k->env.dmabuf_enable,
		   v.transport, v.read, v.cond, k->line);
	}
	for (i = 0; i < ARRAY_SIZE(levels); i++)
		tap_ok(ptc_nccl_level(levels[i].s) == levels[i].level,
		   "nccl level \"%s\" -> %d (paths.cc:%s)", levels[i].s,
		   levels[i].level, levels[i].line);
	tap_ok(ptc_nccl_level(NULL) == U, "nccl level unset -> unset");
	tap_ok(!strcmp(ptc_nccl_path_name(ptc_nccl_path_of(PCITOPO_PATH_NODE)), "PHB"),
	   "nvidia-smi NODE is NCCL's PHB (topo.h: CPU nodes are NUMA domains)");
	/* the shared ACS rule, core/ptc_acs.c */
	tap_ok(ptc_acs_redirect(PCITOPO_ROLE_ROOT_PORT, 0x001f, 0x000c),
	   "acs: root port RR|CR implemented and set: redirect");
	tap_ok(!ptc_acs_redirect(PCITOPO_ROLE_ROOT_PORT, 0x0003, 0x000c),
	   "acs: control bits the capability lacks do not count");
	tap_ok(ptc_acs_redirect(PCITOPO_ROLE_DOWNSTREAM, 0x0020, 0x0020),
	   "acs: egress control counts");
	tap_ok(!ptc_acs_redirect(PCITOPO_ROLE_ENDPOINT, 0x001f, 0x000c),
	   "acs: an endpoint's ACS is no P2P redirect on a path");
	tap_ok(!ptc_acs_redirect(PCITOPO_ROLE_UPSTREAM, 0x001f, 0x000c),
	   "acs: a switch upstream port routes no P2P between its links");
	return tap_done();
}
