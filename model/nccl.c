// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the transport NCCL picks for a GPU pair and whether it uses
 * GPUDirect RDMA for a GPU-NIC pair, from the pair's path class, the CPU and
 * the NCCL_* variables. Written from the rules of NCCL 2.30.7
 * (makefiles/version.mk, tag v2.30.7-1), src/graph/paths.cc: ncclGetLevel(),
 * ncclTopoCheckP2p(), ncclTopoCheckGdr() and ncclTopoComputePaths(), and
 * the GDR support of src/transport/net_ib/ (gdr.cc, init.cc); no code of
 * NCCL is copied. Bare line numbers below are those of that paths.cc.
 *
 * NCCL's path types are not nvidia-smi's: NCCL models each NUMA node as one
 * CPU node with the PCI trees below it (topo.h: "CPU ... Actually NUMA
 * domains"), so two host bridges of one NUMA node (nvidia-smi's NODE) meet
 * at that CPU node, a PHB path to NCCL. The other classes map one to one.
 * NVLink, C2C and PXN paths do not occur on the PCIe-only paths pcitopo
 * knows.
 *
 * The P2P level is decided by a table of rules, later rows overriding
 * earlier ones, as the statements of ncclTopoCheckP2p() do.
 */
#include "nccl.h"

/* topo.cc: topoPathTypeStr, the names NCCL_P2P_LEVEL and
 * NCCL_NET_GDR_LEVEL accept (paths.cc:258-263 matches LOC..SYS only) */
static const char *const ptc_nccl_names[] = {
	[PTC_NCCL_LOC] = "LOC", [PTC_NCCL_NVL] = "NVL", [PTC_NCCL_NVB] = "NVB",
	[PTC_NCCL_C2C] = "C2C", [PTC_NCCL_PIX] = "PIX", [PTC_NCCL_PXB] = "PXB",
	[PTC_NCCL_P2C] = "P2C", [PTC_NCCL_PXN] = "PXN", [PTC_NCCL_PHB] = "PHB",
	[PTC_NCCL_SYS] = "SYS", [PTC_NCCL_NET] = "NET", [PTC_NCCL_DIS] = "DIS",
};

/* paths.cc:243: the numbers of NCCL's old levels, 0..5 */
static const u8 ptc_nccl_old_levels[] = {
	PTC_NCCL_LOC, PTC_NCCL_PIX, PTC_NCCL_PXB, PTC_NCCL_PHB, PTC_NCCL_SYS,
	PTC_NCCL_SYS,
};

/* nvidia-smi class (enum pcitopo_path_class) -> NCCL path type */
static const u8 ptc_nccl_of_class[] = {
	[PCITOPO_PATH_UNKNOWN] = PTC_NCCL_SYS,	/* unknown: the worst case */
	[PCITOPO_PATH_X] = PTC_NCCL_LOC,
	[PCITOPO_PATH_PIX] = PTC_NCCL_PIX,
	[PCITOPO_PATH_PXB] = PTC_NCCL_PXB,
	[PCITOPO_PATH_PHB] = PTC_NCCL_PHB,
	[PCITOPO_PATH_NODE] = PTC_NCCL_PHB,	/* one CPU node per NUMA node */
	[PCITOPO_PATH_SYS] = PTC_NCCL_SYS,
};

u8 ptc_nccl_path_of(u8 class)
{
	if (class >= ARRAY_SIZE(ptc_nccl_of_class))
		return PTC_NCCL_SYS;
	return ptc_nccl_of_class[class];
}

const char *ptc_nccl_path_name(u8 path)
{
	return path < ARRAY_SIZE(ptc_nccl_names) ? ptc_nccl_names[path] : "?";
}

static bool ptc_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* strtol(s, NULL, 0) on a string starting with a digit, saturated */
static long ptc_strtol0(const char *s)
{
	unsigned int base = 10, d;
	long v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	for (;; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > 1000000)	/* only "more than 5" matters */
			return v;
		v = v * base + d;
	}
	return v;
}

int ptc_nccl_level(const char *s)
{
	long old;
	int i;

	if (!s)
		return PTC_NCCL_UNSET;
	/* paths.cc:258-263: a name, case-sensitive, LOC to SYS */
	for (i = 0; i <= PTC_NCCL_SYS; i++)
		if (ptc_streq(s, ptc_nccl_names[i]))
			return i;
	/* paths.cc:268-272: an old number, larger ones taken as the last */
	if (s[0] >= '0' && s[0] <= '9') {
		old = ptc_strtol0(s);
		if (old >= (long)ARRAY_SIZE(ptc_nccl_old_levels))
			old = ARRAY_SIZE(ptc_nccl_old_levels) - 1;
		return ptc_nccl_old_levels[old];
	}
	/* paths.cc:275: anything else leaves the level unset */
	return PTC_NCCL_UNSET;
}

/* A rule: the level it sets, or PTC_NCCL_UNSET where it does not apply. */
struct ptc_nccl_rule {
	u8 why;
	int (*level)(const struct ptc_nccl_sys *sys,
		     const struct ptc_nccl_env *env);
};

/* paths.cc:356: no P2P across host bridges by default */
static int ptc_p2p_default(const struct ptc_nccl_sys *sys,
			   const struct ptc_nccl_env *env)
{
	(void)sys;
	(void)env;
	return PTC_NCCL_PXB;
}

/*
 * paths.cc:361-362: x86 AMD with at most two GPUs: P2P at any distance.
 * The count is system->nodes[DEV].count: the GPUs of the communicator's
 * ranks on this node (topo.cc:1800-1803 detects the rank's own GPU,
 * 1895-1900 fuses the node's ranks), not the machine's (a 2-GPU job on an
 * 8-GPU AMD server gets it); 0 here is unknown, and the rule does not apply until
 * known (ptc_nccl_gpu_pair() says what it would change).
 */
static bool ptc_amd_rule(const struct ptc_nccl_sys *sys)
{
	return sys->cpu == PTC_NCCL_CPU_AMD && sys->gpus && sys->gpus <= 2;
}

static int ptc_p2p_amd(const struct ptc_nccl_sys *sys,
		       const struct ptc_nccl_env *env)
{
	(void)env;
	return ptc_amd_rule(sys) ? PTC_NCCL_SYS : PTC_NCCL_UNSET;
}

/* paths.cc:365 via ncclGetLevel(): NCCL_P2P_LEVEL, when set and known */
static int ptc_p2p_user_level(const struct ptc_nccl_sys *sys,
			      const struct ptc_nccl_env *env)
{
	(void)sys;
	return env->p2p_level;
}

/* paths.cc:250-251: NCCL_P2P_DISABLE=1 wins over NCCL_P2P_LEVEL (checked
 * first there, so last here) and means LOC: no P2P between two GPUs */
static int ptc_p2p_disable(const struct ptc_nccl_sys *sys,
			   const struct ptc_nccl_env *env)
{
	(void)sys;
	return env->p2p_disable == 1 ? PTC_NCCL_LOC : PTC_NCCL_UNSET;
}

static const struct ptc_nccl_rule ptc_p2p_rules[] = {
	{ PTC_NCCL_WHY_DEFAULT, ptc_p2p_default },
	{ PTC_NCCL_WHY_AMD, ptc_p2p_amd },
	{ PTC_NCCL_WHY_P2P_LEVEL, ptc_p2p_user_level },
	{ PTC_NCCL_WHY_P2P_DISABLE, ptc_p2p_disable },
};

/* paths.cc:511: with NCCL_NET_GDR_C2C (default 1) the level is P2C, which on
 * PCIe-only paths admits the same classes as PXB */
static int ptc_gdr_default(const struct ptc_nccl_sys *sys,
			   const struct ptc_nccl_env *env)
{
	(void)sys;
	return env->gdr_c2c == 0 ? PTC_NCCL_UNSET : PTC_NCCL_P2C;
}

static int ptc_gdr_no_c2c(const struct ptc_nccl_sys *sys,
			  const struct ptc_nccl_env *env)
{
	(void)sys;
	return env->gdr_c2c == 0 ? PTC_NCCL_PXB : PTC_NCCL_UNSET;
}

/* paths.cc:512-513: NCCL_NET_GDR_LEVEL */
static int ptc_gdr_user_level(const struct ptc_nccl_sys *sys,
			      const struct ptc_nccl_env *env)
{
	(void)sys;
	return env->gdr_level;
}

static const struct ptc_nccl_rule ptc_gdr_rules[] = {
	{ PTC_NCCL_WHY_DEFAULT, ptc_gdr_default },
	{ PTC_NCCL_WHY_GDR_C2C, ptc_gdr_no_c2c },
	{ PTC_NCCL_WHY_GDR_LEVEL, ptc_gdr_user_level },
};

static void ptc_nccl_apply(const struct ptc_nccl_rule *rules, u32 n,
			   const struct ptc_nccl_sys *sys,
			   const struct ptc_nccl_env *env,
			   struct ptc_nccl_verdict *v)
{
	u32 i;
	int l;

	for (i = 0; i < n; i++) {
		l = rules[i].level(sys, env);
		if (l == PTC_NCCL_UNSET)
			continue;
		v->level = (u8)l;
		v->why = rules[i].why;
	}
}

static void ptc_gpu_pair(const struct ptc_nccl_sys *sys,
			 const struct ptc_nccl_env *env, u8 class,
			 struct ptc_nccl_verdict *v)
{
	v->path = ptc_nccl_path_of(class);
	v->read = false;
	v->read_why = PTC_NCCL_WHY_DEFAULT;
	v->cond = 0;
	ptc_nccl_apply(ptc_p2p_rules, ARRAY_SIZE(ptc_p2p_rules), sys, env, v);
	/* paths.cc:368: P2P when the path is no longer than the level */
	if (v->path <= v->level) {
		v->transport = PTC_NCCL_T_P2P;
		return;
	}
	/*
	 * paths.cc:767-770: else through the CPU, i.e. SHM (shm.cc:66: unless
	 * NCCL_SHM_DISABLE=1, then paths.cc:789: through the network)
	 */
	v->transport = env->shm_disable == 1 ? PTC_NCCL_T_NET : PTC_NCCL_T_SHM;
}

void ptc_nccl_gpu_pair(const struct ptc_nccl_sys *sys,
		       const struct ptc_nccl_env *env, u8 class,
		       struct ptc_nccl_verdict *v)
{
	struct ptc_nccl_sys amd = *sys;
	struct ptc_nccl_verdict a;
	u8 cond = 0;

	ptc_gpu_pair(sys, env, class, v);
	v->alt = v->transport;
	/* the AMD rule undecided: what it would make of the pair */
	if (sys->cpu == PTC_NCCL_CPU_UNKNOWN)
		cond |= PTC_NCCL_COND_CPU;
	if (!sys->gpus)
		cond |= PTC_NCCL_COND_GPUS;
	if (!cond || (sys->cpu != PTC_NCCL_CPU_AMD &&
		      sys->cpu != PTC_NCCL_CPU_UNKNOWN) || sys->gpus > 2)
		return;
	amd.cpu = PTC_NCCL_CPU_AMD;
	amd.gpus = 2;
	ptc_gpu_pair(&amd, env, class, &a);
	if (a.transport == v->transport)
		return;
	v->cond = cond;
	v->alt = a.transport;
}

void ptc_nccl_gpu_nic(const struct ptc_nccl_sys *sys,
		      const struct ptc_nccl_env *env, u8 class,
		      struct ptc_nccl_verdict *v)
{
	v->path = ptc_nccl_path_of(class);
	v->cond = 0;
	ptc_nccl_apply(ptc_gdr_rules, ARRAY_SIZE(ptc_gdr_rules), sys, env, v);
	/* paths.cc:528: no GDR when the NIC is farther than the level */
	v->transport = v->path <= v->level ? PTC_NCCL_T_GDR : PTC_NCCL_T_NO_GDR;
	v->alt = v->transport;
	v->read = v->transport == PTC_NCCL_T_GDR;
	v->read_why = PTC_NCCL_WHY_DEFAULT;
	if (!v->read)
		return;
	/*
	 * paths.cc:485: none unless the NIC supports GDR, which topo.cc:1651-
	 * 1652 sets from the network plugin's pointer support: NCCL_PTR_CUDA
	 * with a peer-memory module loaded (net_ib/init.cc:547-549; gdr.cc:
	 * 16-21 looks for nv_peer_mem's memory_peers files or
	 * /sys/module/nvidia_peermem/version), or NCCL_PTR_DMABUF where
	 * DMA-BUF works (init.cc:551-553, gdr.cc:46-83: the NIC's
	 * ibv_reg_dmabuf_mr; src/init.cc:399-420: the GPU driver's, off with
	 * NCCL_DMABUF_ENABLE=0). Whether DMA-BUF works is never known here.
	 */
	if (sys->peermem != PTC_NCCL_PEERMEM_LOADED) {
		if (sys->peermem == PTC_NCCL_PEERMEM_UNKNOWN)
			v->cond |= PTC_NCCL_COND_PEERMEM;
		if (env->dmabuf_enable != 0)
			v->cond |= PTC_NCCL_COND_DMABUF;
		if (!v->cond) {
			v->transport = v->alt = PTC_NCCL_T_NO_GDR;
			v->why = PTC_NCCL_WHY_NO_PEERMEM;
			v->read = false;
			return;
		}
		v->alt = PTC_NCCL_T_NO_GDR;
	}
	/* paths.cc:492: NCCL_NET_GDR_READ=0: no GDR for sends */
	if (env->gdr_read == 0) {
		v->read = false;
		v->read_why = PTC_NCCL_WHY_GDR_READ;
		return;
	}
	/*
	 * paths.cc:494-505: default (unset, NCCL's -2): no GDR reads before
	 * Ampere (cc 80) unless an NVLink peer or a single GPU
	 */
	if (env->gdr_read < 0 && sys->cc && sys->cc < 80 && !sys->nvlink &&
	    sys->gpus != 1) {
		v->read = false;
		v->read_why = PTC_NCCL_WHY_CC;
	}
}
