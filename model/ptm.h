/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptmodel: a bandwidth model of an 8-GPU PCIe server, used by
 * `topoctl advise` (which layout for this job?) and `topoctl bench` (the
 * prediction beside each measured figure).
 *
 * Input is a resolved core topology (struct ptc_topo, core/ptc.h): the one
 * the server has now (topoctl converts its device table with pt_derive_open())
 * or one of the three candidate layouts that ptm_layout_build() generates
 * from a hardware description (struct ptm_hw). The model never reads
 * hardware (cpuinfo.c and smbios.c read files, conf.c the override file;
 * none of them computes), allocates only in ptm_layout_build() and ptm_eval_*() scratch,
 * and never prints. Errors are negative errno values.
 *
 * Units: bandwidth in MB/s (10^6 bytes per second, one direction), sizes in
 * bytes, times in seconds. Documentation/bandwidth-model.md gives every
 * constant with its source and every formula.
 *
 * One job per file:
 *   params.c    the constants, their defaults and KEY=VALUE overrides;
 *               the figures they resolve to for a machine
 *   conf.c      the override file /etc/pcitopo/model.conf (libconfig)
 *   cpugen.c    the CPU generations: socket interconnect and memory figures
 *   cpuinfo.c   reads /proc/cpuinfo (or a saved copy): vendor, family,
 *               model, packages
 *   smbios.c    reads SMBIOS type 17 (memory devices) from sysfs
 *   hwdesc.c    a hardware description: "gen5x16" figures, or read off a
 *               topology (switches and their GPUs)
 *   layouts.c   the three candidate topologies from a hardware description
 *   flow.c      flows over shared resources (links per direction, root
 *               complex, UPI, host memory): the time a set of transfers takes
 *   eval.c      per layout: pair bandwidth per class, ring all-reduce bus
 *               bandwidth, host-to-GPU bandwidth per uplink
 *   workload.c  reference workloads and a workload's per-step cost
 *   rank.c      the ranking of the three layouts and its reason
 *   linkcheck.c trained links against what both ends support
 */
#ifndef PCITOPO_MODEL_PTM_H
#define PCITOPO_MODEL_PTM_H

#include <stdbool.h>
#include <stddef.h>

#include "ptc.h"

#define PTM_MAX_GPUS		64
#define PTM_MAX_SOCKETS		8
#define PTM_MAX_UPLINKS		16
#define PTM_MAX_SWITCHES	16
#define PTM_MAX_PACKAGES	64	/* distinct physical ids counted */
#define PTM_SRC_LEN		128
#define PTM_SHAPE_LEN		160
#define PTM_LIMIT_LEN		96	/* "UPI socket 0->1 (22.0 GB/s)" */
#define PTM_REASON_LEN		512
#define PTM_NAME_LEN		32

/* --- constants (params.c) ------------------------------------------------ */

enum ptm_param_id {
	PTM_P_PCIE_EFF,		/* fraction of the encoded rate data gets */
	PTM_P_RC_P2P_EFF,	/* P2P through a root complex: fraction left */
	PTM_P_UPI_MBS,		/* socket interconnect, MB/s per direction;
				 * 0 = by root port generation (see params.c) */
	PTM_P_MEM_MBS,		/* host memory per socket, MB/s; 0 = by gen */
	PTM_P_MEM_EFF,		/* fraction of the memory peak achievable */
	PTM_P_MEM_CHANNELS,	/* memory channels per socket; 0 = SMBIOS, else
				 * the CPU generation's */
	PTM_P_MEM_MTS,		/* memory MT/s; 0 = SMBIOS, else the CPU's */
	PTM_P_SOCKETS,		/* sockets; 0 = cpuinfo, else NUMA nodes */
	PTM_P_CPU,		/* CPU generation: 1 + index in cpugen.c's
				 * table (set by name: cpu=genoa); 0 = cpuinfo */
	__PTM_P_COUNT,
};

/* --- CPUs and memory of the machine (cpuinfo.c, smbios.c, cpugen.c) ---- */

enum ptm_cpu_vendor { PTM_CPU_UNKNOWN, PTM_CPU_INTEL, PTM_CPU_AMD,
		      PTM_CPU_OTHER };

struct ptm_cpuinfo {
	enum ptm_cpu_vendor vendor;
	char vendor_id[16];		/* "GenuineIntel", "AuthenticAMD" */
	int family, model, stepping;	/* of the first processor; -1: none */
	char model_name[64];
	unsigned int processors;
	unsigned int packages;		/* distinct "physical id"; 0: none */
};
/* Parse /proc/cpuinfo text (NUL-terminated). -ENODATA: no processor. */
int ptm_cpuinfo_parse(const char *text, struct ptm_cpuinfo *out);
/* Read and parse the file at path (lib/rfile.h: a regular file only):
 * -errno of stat/open/read, -PT_ENOTREG, -ENOMEM, -ENODATA. */
int ptm_cpuinfo_read(const char *path, struct ptm_cpuinfo *out);

/* One SMBIOS type 17 structure. */
struct ptm_dimm {
	bool populated;			/* Size != 0 */
	u64 size_mb;			/* 0 if unknown */
	unsigned int rated_mts;		/* Speed; 0 unknown */
	unsigned int mts;		/* Configured Memory Speed; 0 unknown */
	const char *type;		/* "DDR5", ...; NULL unknown */
	char locator[32];		/* Device Locator */
};
/* raw: the structure and its strings (sysfs entries/17-N/raw). -EINVAL if it
 * is not a type 17 structure or is too short. */
int ptm_smbios17_parse(const u8 *raw, size_t len, struct ptm_dimm *out);

struct ptm_meminfo {
	unsigned int devices;		/* type 17 structures read */
	unsigned int populated;		/* of them, with a module */
	u64 total_mb;
	unsigned int mts;		/* lowest configured speed of the
					 * populated ones (else rated); 0 */
	unsigned int rated_mts;
	const char *type;
};
/* Every 17-* entry of dir (SYSFS/firmware/dmi/entries). -errno of opendir,
 * -EACCES if entries exist but none could be read (not root), -ENOENT if
 * there is none. */
int ptm_smbios_read(const char *dir, struct ptm_meminfo *out);

/* One CPU generation (cpugen.c documents each figure's source). */
struct ptm_cpu_gen {
	const char *key;		/* "sapphire-rapids": cpu=KEY */
	const char *name;		/* "Sapphire Rapids" */
	enum ptm_cpu_vendor vendor;
	int family, model_lo, model_hi, step_lo, step_hi;	/* -1: any */
	const char *bus;		/* "UPI", "xGMI" */
	double link_gts;		/* 0: not known for the class */
	const char *links;		/* "4", "3-4" per socket pair */
	double link_mbs;		/* usable MB/s per direction */
	const char *link_src;		/* "NCCL SRP_QPI_BW" */
	unsigned int mem_channels, mem_mts;	/* per socket; 0: unknown */
	const char *mem_type;
};
unsigned int ptm_cpu_gen_count(void);
const struct ptm_cpu_gen *ptm_cpu_gen_at(unsigned int i);
const struct ptm_cpu_gen *ptm_cpu_gen_lookup(const char *key);
/* The generation of a CPU; NULL for one the table does not know. */
const struct ptm_cpu_gen *ptm_cpu_gen_match(const struct ptm_cpuinfo *ci);
/* What was assumed before the machine could say: by root port generation,
 * Skylake-SP up to Gen3, Ice Lake-SP at Gen4, Sapphire Rapids from Gen5. */
const struct ptm_cpu_gen *ptm_cpu_gen_for_pcie(unsigned int gen);

/*
 * What was read off the machine, used where a constant is auto (0): the
 * caller (topoctl) fills it; zero means nothing is known, and the figures
 * are assumed from the PCIe generation as before.
 */
struct ptm_machine {
	bool have_cpu;
	struct ptm_cpuinfo cpu;
	bool have_mem;			/* SMBIOS read, a device populated */
	struct ptm_meminfo mem;
	unsigned int sockets;		/* 0: unknown */
	const char *sockets_src;	/* "cpuinfo", "NUMA nodes", "set", ... */
};

struct ptm_params {
	double v[__PTM_P_COUNT];
	struct ptm_machine m;
};

void ptm_params_default(struct ptm_params *p);
/* "pcie_eff", ...; NULL if out of range. */
const char *ptm_param_name(enum ptm_param_id id);
const char *ptm_param_help(enum ptm_param_id id);
/* Index by name, -EINVAL if unknown. */
int ptm_param_lookup(const char *name);
/*
 * Set one constant: "KEY=VALUE" (as --set takes it). -EINVAL: no '=', an
 * unknown key, not a number, or out of its range (efficiencies in (0, 1],
 * bandwidths >= 0). cpu takes a generation's key (cpu=genoa) or "auto".
 */
int ptm_param_set(struct ptm_params *p, const char *kv);
int ptm_param_set_value(struct ptm_params *p, enum ptm_param_id id, double v);
/* cpu=KEY: a generation's key (ptm_cpu_gen_lookup()) or "auto". -EINVAL. */
int ptm_param_set_cpu(struct ptm_params *p, const char *key);
/*
 * Read overrides from a libconfig file: `upi_mbs = 10000;` per key (int or
 * float). -ENOENT if absent (not an error for the default path), -EINVAL with
 * "file:line: reason" in err for a syntax error, an unknown key or a bad
 * value; nothing is changed then. libconfig is loaded only for a file that
 * exists: -ELIBACC or -ELIBBAD when it cannot be (err names the library and
 * its package; lib/dl.h).
 */
int ptm_params_load(struct ptm_params *p, const char *path, char *err,
		    size_t errlen);
#define PTM_CONF_DEFAULT	"/etc/pcitopo/model.conf"

/*
 * Figures resolved for one topology: "auto" values filled in from the
 * machine (p->m), else assumed from the PCIe generation.
 */
struct ptm_consts {
	double pcie_eff, rc_p2p_eff, upi_mbs, mem_mbs;	/* mem_mbs x mem_eff */
	char upi_src[PTM_SRC_LEN], mem_src[PTM_SRC_LEN]; /* "set", or where
					 * from; "assumed: ..." if guessed */
	bool upi_assumed, mem_assumed;
	const struct ptm_cpu_gen *cpu;	/* the generation used */
	const char *cpu_src;		/* "set", "cpuinfo" or "assumed" */
	const char *bus;		/* "UPI" or "xGMI" (limit strings) */
	unsigned int mem_channels, mem_mts;	/* what mem_mbs is from; 0 when
						 * mem_mbs was set */
	const char *mem_channels_src, *mem_mts_src;	/* "set", "SMBIOS",
							 * "assumed" */
	const char *mem_type;
};
/* The constants for a platform whose root ports run at gen (1..6). */
void ptm_consts_for(const struct ptm_params *p, unsigned int gen,
		    struct ptm_consts *c);

/* --- hardware description (hwdesc.c) ----------------------------------------- */

struct ptm_hw {
	struct ptc_link gpu;		/* GPU LnkCap */
	struct ptc_link uplink;		/* switch ports' LnkCap */
	struct ptc_link root;		/* root port LnkCap */
	unsigned int cpus;		/* sockets, 1..PTM_MAX_SOCKETS */
	unsigned int gpus_per_switch;	/* 1..16: with nswitches 0, two
					 * switches of this many; else the
					 * most on one switch (informative) */
	unsigned int nswitches;		/* 0, or 1..PTM_MAX_SWITCHES: */
	unsigned int sw_gpus[PTM_MAX_SWITCHES];	/* GPUs on each, 1..16 */
};

/* The emulated server's figures: Gen5 x16 everywhere, 2 CPUs, 4 GPUs per
 * switch. */
void ptm_hw_default(struct ptm_hw *hw);
/* The switches hw describes: GPUs on each into gpus[PTM_MAX_SWITCHES];
 * returns how many. */
unsigned int ptm_hw_switches(const struct ptm_hw *hw, unsigned int *gpus);
/* "4 switches of 2 GPUs", "3 switches of 4+2+2 GPUs" */
void ptm_hw_format_switches(char *buf, size_t len, const struct ptm_hw *hw);
/* "gen4x16", "Gen5x8", "16GT/s x16", "16x16" (GT/s x width). -EINVAL. */
int ptm_link_parse(const char *s, struct ptc_link *l);
/* "Gen4 x16" */
void ptm_link_format(char *buf, size_t len, const struct ptc_link *l);
/*
 * Read the description off a resolved topology: the best GPU LnkCap, the
 * switch ports' and the root ports' (link_max on both ends), the switches
 * with GPUs below them (nswitches, sw_gpus[] in the bus order of their
 * first GPU; a GPU counts for the switch nearest it; GPUs on no switch are
 * not described) and gpus_per_switch = the most on one; CPUs = distinct
 * NUMA nodes among root ports (at least 1; topoctl overrides it with the
 * machine's sockets). -ENODEV if there is no GPU.
 */
int ptm_hw_from_topo(const struct ptc_topo *t, struct ptm_hw *hw);

/* --- candidate layouts (layouts.c) --------------------------------------- */

/*
 * Build layout (PCITOPO_LAYOUT_BALANCE, _COMMON or _CASCADE) from hw into a
 * newly allocated, resolved topology (free with ptm_layout_free()). Every
 * link trains at the best both ends support. -EINVAL for another layout or a
 * bad description, -EOPNOTSUPP for balance with one CPU or one switch,
 * -E2BIG when the switches do not fit a bus range, -ENOMEM.
 */
int ptm_layout_build(const struct ptm_hw *hw, unsigned int layout,
		     struct ptc_topo *out);
/* What ptm_layout_build() builds, in words ("CPU0: 4 GPUs, CPU1: 4 GPUs; a
 * root port per switch"), or why it cannot (-EOPNOTSUPP, -EINVAL: "needs
 * two CPUs"). */
int ptm_layout_shape(const struct ptm_hw *hw, unsigned int layout, char *buf,
		     size_t len);
void ptm_layout_free(struct ptc_topo *t);

/* --- flows over shared resources (flow.c) -------------------------------- */

enum ptm_res_kind { PTM_RES_LINK_UP, PTM_RES_LINK_DOWN, PTM_RES_UPI,
		    PTM_RES_MEM };

struct ptm_flows;	/* opaque: loads per resource of one topology */

int ptm_flows_new(const struct ptc_topo *t, const struct ptm_consts *c,
		  struct ptm_flows **out);
void ptm_flows_free(struct ptm_flows *f);
void ptm_flows_clear(struct ptm_flows *f);
/* bytes from endpoint a to endpoint b (P2P). -EINVAL on a bad index. */
int ptm_flow_p2p(struct ptm_flows *f, u32 a, u32 b, double bytes);
/* bytes from the memory of socket to endpoint g (dir > 0) or back (< 0). */
int ptm_flow_host(struct ptm_flows *f, unsigned int socket, u32 g,
		  double bytes, int dir);
/*
 * Seconds until every flow added is done when all run at once and share
 * each resource fairly: max over resources of load / capacity. limit (may
 * be NULL) names the resource that takes longest. 0 with no flow.
 */
double ptm_flows_time(const struct ptm_flows *f, char *limit, size_t len);

/* Effective bandwidth of node i's upstream link, MB/s: the encoded rate of
 * link_max speed at the trained width (a narrower width is a fault that load
 * does not fix; a lower speed is idle power saving that it does), times
 * pcie_eff. 0 without a link. */
double ptm_link_eff(const struct ptc_topo *t, u32 i,
		    const struct ptm_consts *c);
/* The socket of node i: its NUMA node, 0 when unknown. */
unsigned int ptm_socket(const struct ptc_topo *t, u32 i);

/* --- per layout figures (eval.c) ----------------------------------------- */

struct ptm_uplink {
	s32 node;		/* node whose upstream link it is */
	unsigned int socket;
	unsigned int gpus;	/* GPUs below it */
	double mbs;		/* effective, one direction */
};

struct ptm_eval {
	unsigned int ngpus;
	u32 gpu[PTM_MAX_GPUS];		/* node index of GPUi (bus order) */
	/* a GPU pair of each class alone: MB/s one direction; 0: no such pair */
	double class_mbs[__PCITOPO_PATH_MAX];
	unsigned int class_pairs[__PCITOPO_PATH_MAX];	/* unordered pairs */
	double ring_busbw;		/* ring all-reduce bus bandwidth, MB/s */
	char ring_limit[PTM_LIMIT_LEN];
	double h2d_mbs;			/* all GPUs read host memory at once */
	char h2d_limit[PTM_LIMIT_LEN];
	double gpu_h2d_mbs;		/* one GPU alone */
	unsigned int nuplinks;		/* links above the GPUs nearest the CPU */
	struct ptm_uplink uplinks[PTM_MAX_UPLINKS];
	unsigned int sockets_used;	/* sockets with GPUs attached */
	double mem_mbs;			/* host memory bw of those sockets */
	struct ptm_consts c;
};

/* The GPUs of t in index (bus) order; -ENODEV without GPUs, -E2BIG past
 * PTM_MAX_GPUS. */
int ptm_gpus(const struct ptc_topo *t, u32 *gpu, unsigned int *n);
int ptm_eval_topo(const struct ptc_topo *t, const struct ptm_params *p,
		  struct ptm_eval *out);
/* Bandwidth of one GPU pair a -> b alone (and both ways at once). */
int ptm_pair_mbs(const struct ptc_topo *t, const struct ptm_consts *c, u32 a,
		 u32 b, double *uni, double *bidir);
/* One GPU pair a -> b in detail: core's class and hops, the bandwidth
 * alone, the resource that limits it, and what it crosses. */
struct ptm_pair {
	u8 class;			/* enum pcitopo_path_class */
	u8 hops;			/* PCIe ports crossed (ptc_path) */
	bool via_rc;			/* through a root complex (1/rc_p2p_eff) */
	bool via_upi;			/* and across sockets */
	double mbs;			/* one direction, alone */
	char limit[PTM_LIMIT_LEN];	/* the bottleneck */
};
int ptm_pair_detail(const struct ptc_topo *t, const struct ptm_consts *c,
		    u32 a, u32 b, struct ptm_pair *out);
/* Host memory -> GPU g alone, from its own socket. */
int ptm_h2d_mbs(const struct ptc_topo *t, const struct ptm_consts *c, u32 g,
		double *mbs);
/* The constants resolved for t (generation of its root ports' links). */
void ptm_consts_of(const struct ptc_topo *t, const struct ptm_params *p,
		   struct ptm_consts *c);

/* --- workloads (workload.c) ---------------------------------------------- */

enum ptm_placement {
	PTM_HOST_LOCAL,		/* each GPU's host data on its own socket */
	PTM_HOST_SPREAD,	/* GPU i's host data on socket i*cpus/ngpus */
};

struct ptm_workload {
	char name[PTM_NAME_LEN];
	double grad_bytes;	/* all-reduced per step (model size) */
	double batch;		/* samples per step per GPU */
	double samples_per_sec;	/* per GPU, compute alone */
	double bytes_per_sample;/* host -> GPU per sample */
	enum ptm_placement placement;
	const char *about;	/* one line on where the figures come from */
};

/* resnet50, vgg16, hpl (alias compute), p2p-heavy, host-io-heavy, custom
 * (all zero). -EINVAL if unknown. */
int ptm_workload_ref(const char *name, struct ptm_workload *w);
/* The names ptm_workload_ref() knows, NULL-terminated. */
extern const char *const ptm_workload_names[];

struct ptm_cost {
	double allreduce_s;	/* 2(n-1)/n * grad_bytes / ring bus bw */
	double host_io_s;	/* batch * bytes_per_sample into every GPU */
	double comm_s;		/* the two, not overlapped */
	double compute_s;	/* batch / samples_per_sec (0 if unknown) */
	double samples_per_sec;	/* per GPU, batch / (compute + comm); 0 if unknown */
	char ar_limit[PTM_LIMIT_LEN];
	char io_limit[PTM_LIMIT_LEN];
};

/*
 * The per-step cost of w on t, whose figures e are (ptm_eval_topo()); cpus:
 * the machine's sockets (where PTM_HOST_SPREAD data lives, even those
 * without GPUs). -EINVAL for negative figures or cpus out of range.
 */
int ptm_cost(const struct ptc_topo *t, const struct ptm_eval *e,
	     unsigned int cpus, const struct ptm_workload *w,
	     struct ptm_cost *out);

/* --- advice (rank.c) --------------------------------------------------- */

#define PTM_NLAYOUTS	PTC_NSWITCHABLE	/* core's switchable layouts */

struct ptm_choice {
	unsigned int layout;	/* enum pcitopo_layout */
	int err;		/* 0, or why it could not be evaluated */
	char shape[PTM_SHAPE_LEN];	/* what was built, or why not */
	struct ptm_eval eval;
	struct ptm_cost cost;
};

struct ptm_advice {
	struct ptm_choice c[PTM_NLAYOUTS];	/* balance, common, cascade */
	unsigned int order[PTM_NLAYOUTS];	/* indexes into c[], best first;
						 * unavailable layouts last */
	unsigned int navailable;
	char reason[PTM_REASON_LEN];
};

/*
 * Evaluate the three layouts built from hw for workload w and rank them by
 * per-step communication time (all-reduce + host I/O; compute time is the
 * same in every layout); on a tie the faster ring, then the more host memory
 * bandwidth, then the order balance, common, cascade.
 * -ENODEV if no layout could be built.
 */
int ptm_advise(const struct ptm_hw *hw, const struct ptm_params *p,
	       const struct ptm_workload *w, struct ptm_advice *out);

/* --- link check (linkcheck.c) -------------------------------------------- */

enum ptm_link_verdict {
	PTM_LINK_OK,
	PTM_LINK_SPEED_LOW,	/* below both ends' best: idle power saving */
	PTM_LINK_WIDTH_DOWN,	/* narrower than both ends: a fault */
	PTM_LINK_DOWN,		/* not trained */
};

struct ptm_link_check {
	u32 node;
	enum ptm_link_verdict verdict;
	struct ptc_link cur, max;
	u32 cur_mbs, max_mbs;	/* encoded rate, one direction */
};

/* One entry per node with an upstream link, written to out[0..max-1];
 * returns how many there are (may exceed max). */
int ptm_link_check(const struct ptc_topo *t, struct ptm_link_check *out,
		   unsigned int max);
const char *ptm_link_verdict_name(enum ptm_link_verdict v);

#endif /* PCITOPO_MODEL_PTM_H */
