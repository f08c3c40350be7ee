/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptmodel: what NCCL would do with a pair, from the pair's path class,
 * the CPU and the NCCL_* variables (nccl.c). Pure, no I/O; userspace only:
 * the module has no use for NCCL's rules.
 */
#ifndef PCITOPO_MODEL_NCCL_H
#define PCITOPO_MODEL_NCCL_H

#include "ptc.h"

/*
 * NCCL's view (nccl.c, the rules of NCCL 2.30.7): its path types, in its
 * order (src/include/graph.h PATH_*), and what it picks for a pair.
 */
enum ptc_nccl_path {
	PTC_NCCL_LOC, PTC_NCCL_NVL, PTC_NCCL_NVB, PTC_NCCL_C2C, PTC_NCCL_PIX,
	PTC_NCCL_PXB, PTC_NCCL_P2C, PTC_NCCL_PXN, PTC_NCCL_PHB, PTC_NCCL_SYS,
	PTC_NCCL_NET, PTC_NCCL_DIS,
};

#define PTC_NCCL_UNSET	(-1)

/* the CPU vendor; UNKNOWN where nothing says (a saved tree, no cpuinfo) */
enum ptc_nccl_cpu {
	PTC_NCCL_CPU_OTHER, PTC_NCCL_CPU_INTEL, PTC_NCCL_CPU_AMD,
	PTC_NCCL_CPU_UNKNOWN,
};

/* Whether a peer-memory module is loaded (net_ib/gdr.cc:18-20: the files
 * NCCL looks for); UNKNOWN where the tree does not say. */
enum ptc_nccl_peermem {
	PTC_NCCL_PEERMEM_UNKNOWN, PTC_NCCL_PEERMEM_NONE, PTC_NCCL_PEERMEM_LOADED,
};

/*
 * What an answer depends on that pcitopo does not know (ptc_nccl_verdict
 * cond, a mask): the GPU pair's AMD rule needs an AMD CPU AND at most two
 * GPUs in the job on this node; GPUDirect RDMA needs a peer-memory module
 * OR working DMA-BUF.
 */
#define PTC_NCCL_COND_CPU	0x01	/* the CPU is AMD */
#define PTC_NCCL_COND_GPUS	0x02	/* the job has <= 2 GPUs on the node */
#define PTC_NCCL_COND_PEERMEM	0x04	/* nvidia_peermem/nv_peer_mem loaded */
#define PTC_NCCL_COND_DMABUF	0x08	/* DMA-BUF works (driver, kernel, NIC) */

/* Which rule set the level a verdict compared with. */
enum ptc_nccl_why {
	PTC_NCCL_WHY_DEFAULT,		/* NCCL's default */
	PTC_NCCL_WHY_AMD,		/* x86 AMD CPU, at most 2 GPUs */
	PTC_NCCL_WHY_P2P_LEVEL,		/* NCCL_P2P_LEVEL */
	PTC_NCCL_WHY_P2P_DISABLE,	/* NCCL_P2P_DISABLE=1 */
	PTC_NCCL_WHY_GDR_C2C,		/* NCCL_NET_GDR_C2C=0 */
	PTC_NCCL_WHY_GDR_LEVEL,		/* NCCL_NET_GDR_LEVEL */
	PTC_NCCL_WHY_GDR_READ,		/* NCCL_NET_GDR_READ=0 */
	PTC_NCCL_WHY_CC,		/* GPU older than Ampere, no NVLink */
	PTC_NCCL_WHY_NO_PEERMEM,	/* no peer-memory module, DMA-BUF off */
};

enum ptc_nccl_transport {
	PTC_NCCL_T_P2P,		/* GPU pair: direct P2P */
	PTC_NCCL_T_SHM,		/* GPU pair: through host memory */
	PTC_NCCL_T_NET,		/* GPU pair: through the network (SHM disabled) */
	PTC_NCCL_T_GDR,		/* GPU-NIC: GPUDirect RDMA */
	PTC_NCCL_T_NO_GDR,	/* GPU-NIC: staged through host memory */
};

/* The NCCL_* variables, parsed; PTC_NCCL_UNSET where unset or unparsable. */
struct ptc_nccl_env {
	int p2p_disable;	/* NCCL_P2P_DISABLE */
	int p2p_level;		/* NCCL_P2P_LEVEL, by ptc_nccl_level() */
	int shm_disable;	/* NCCL_SHM_DISABLE */
	int gdr_level;		/* NCCL_NET_GDR_LEVEL, by ptc_nccl_level() */
	int gdr_read;		/* NCCL_NET_GDR_READ (unset: NCCL's -2) */
	int gdr_c2c;		/* NCCL_NET_GDR_C2C (unset: 1) */
	int dmabuf_enable;	/* NCCL_DMABUF_ENABLE (unset: 1) */
};

struct ptc_nccl_sys {
	u8 cpu;			/* enum ptc_nccl_cpu (x86 vendors) */
	u32 gpus;		/* GPUs of the job on this node (NCCL's DEV
				 * count: its ranks' GPUs); 0 unknown */
	u8 peermem;		/* enum ptc_nccl_peermem */
	u8 cc;			/* compute capability x 10; 0: unknown, taken
				 * as Ampere or later */
	bool nvlink;		/* a GPU has an NVLink peer */
};

struct ptc_nccl_verdict {
	u8 path;		/* enum ptc_nccl_path of the pair */
	u8 level;		/* the level the path was compared with */
	u8 why;			/* enum ptc_nccl_why: what set the level */
	u8 transport;		/* enum ptc_nccl_transport */
	bool read;		/* GPU-NIC: GDR for sends (GPU reads) too */
	u8 read_why;		/* what decided read */
	u8 cond;		/* PTC_NCCL_COND_*: transport holds only if
				 * these hold (GPU pair: all; GPU-NIC: any);
				 * 0 for a definite answer */
	u8 alt;			/* the transport where they do not */
};

/* nvidia-smi class -> NCCL path type (NODE is PHB to NCCL). */
u8 ptc_nccl_path_of(u8 class);
/* "PIX", "SYS", ...; "?" out of range */
const char *ptc_nccl_path_name(u8 path);
/* A level as NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL give it: a name LOC..SYS
 * or an old number 0..5; PTC_NCCL_UNSET for NULL or anything else. */
int ptc_nccl_level(const char *s);
/* GPU pair of nvidia-smi class `class`: P2P, SHM or NET. With the CPU or
 * the job's GPU count unknown, transport is the answer without the AMD
 * rule and, where that rule would change it, cond says what it needs and
 * alt is its answer (P2P). */
void ptc_nccl_gpu_pair(const struct ptc_nccl_sys *sys,
		       const struct ptc_nccl_env *env, u8 class,
		       struct ptc_nccl_verdict *v);
/* GPU-NIC pair: GDR or not, and for sends (read) too. GDR within the
 * level but with the peer-memory module not known loaded: cond says what
 * it needs (the module, DMA-BUF) and alt is the answer without (NO_GDR). */
void ptc_nccl_gpu_nic(const struct ptc_nccl_sys *sys,
		      const struct ptc_nccl_env *env, u8 class,
		      struct ptc_nccl_verdict *v);

#endif /* PCITOPO_MODEL_NCCL_H */
