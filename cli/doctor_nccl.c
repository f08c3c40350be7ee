// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor: NCCL's view of each pair (notes), by core's rules
 * (model/nccl.c, NCCL 2.30.7): the transport of a GPU pair (P2P, SHM
 * through host memory, or the network) and GPUDirect RDMA for a GPU-NIC
 * pair, under NCCL's defaults and under the NCCL_* variables set now, with
 * the variable that would change the answer.
 *
 * What the answer depends on and the tree does not show is said, not
 * guessed (doctor_facts.c): the CPU vendor and the job's GPUs on the node
 * (NCCL allows P2P at any distance on x86 AMD with at most two:
 * --cpuinfo FILE, --gpus-per-node N), and whether a peer-memory module is
 * loaded or DMA-BUF works (GPUDirect RDMA needs one). Pairs with a GPU NCCL
 * does not drive (dr_nccl_gpu(): another vendor's accelerator) get no
 * note. The GPUs' compute capability is unknown here and taken as Ampere or
 * later, which only matters for GDR reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

/* NCCL's integer parameters: strtoll base 0; unparsable keeps the default */
static int env_int(const char *name)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return PTC_NCCL_UNSET;
	errno = 0;
	v = strtol(s, &end, 0);
	if (end == s || errno || v < -1000000 || v > 1000000)
		return PTC_NCCL_UNSET;
	return (int)v;
}

static void read_env(struct ptc_nccl_env *e)
{
	e->p2p_disable = env_int("NCCL_P2P_DISABLE");
	e->p2p_level = ptc_nccl_level(getenv("NCCL_P2P_LEVEL"));
	e->shm_disable = env_int("NCCL_SHM_DISABLE");
	e->gdr_level = ptc_nccl_level(getenv("NCCL_NET_GDR_LEVEL"));
	e->gdr_read = env_int("NCCL_NET_GDR_READ");
	e->gdr_c2c = env_int("NCCL_NET_GDR_C2C");
	e->dmabuf_enable = env_int("NCCL_DMABUF_ENABLE");
}

static void no_env(struct ptc_nccl_env *e)
{
	e->p2p_disable = e->p2p_level = e->shm_disable = PTC_NCCL_UNSET;
	e->gdr_level = e->gdr_read = e->gdr_c2c = PTC_NCCL_UNSET;
	e->dmabuf_enable = PTC_NCCL_UNSET;
}

static const char *why_text(u8 why)
{
	switch (why) {
	case PTC_NCCL_WHY_AMD:
		return "AMD CPU with at most 2 GPUs, paths.cc:361";
	case PTC_NCCL_WHY_P2P_LEVEL:
		return "NCCL_P2P_LEVEL";
	case PTC_NCCL_WHY_P2P_DISABLE:
		return "NCCL_P2P_DISABLE=1";
	case PTC_NCCL_WHY_GDR_C2C:
		return "NCCL_NET_GDR_C2C=0";
	case PTC_NCCL_WHY_GDR_LEVEL:
		return "NCCL_NET_GDR_LEVEL";
	case PTC_NCCL_WHY_GDR_READ:
		return "NCCL_NET_GDR_READ=0";
	case PTC_NCCL_WHY_CC:
		return "GPU before Ampere without NVLink";
	case PTC_NCCL_WHY_NO_PEERMEM:
		return "no peer-memory module, NCCL_DMABUF_ENABLE=0, "
		       "net_ib/gdr.cc:16-21";
	default:
		return "default";
	}
}

static const char *transport_name(u8 t)
{
	static const char *const n[] = {
		[PTC_NCCL_T_P2P] = "P2P", [PTC_NCCL_T_SHM] = "SHM",
		[PTC_NCCL_T_NET] = "NET", [PTC_NCCL_T_GDR] = "GPUDirect RDMA",
		[PTC_NCCL_T_NO_GDR] = "no GPUDirect RDMA",
	};

	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

/*
 * What a conditional answer needs, in words: for a GPU pair the AMD rule's
 * facts (all must hold), for a GPU-NIC pair GPUDirect RDMA's (any one).
 */
static void cond_text(const struct dr_run *r, u8 cond, char *buf, size_t len)
{
	const struct dr_facts *fx = &r->fx;
	size_t n = 0;

	buf[0] = '\0';
	if (cond & PTC_NCCL_COND_CPU)
		n += (size_t)snprintf(buf + n, len - n, "the CPU is AMD (see CPU "
				      "below)");
	if ((cond & PTC_NCCL_COND_GPUS) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sthe job uses at most 2 "
				      "of this node's %u GPUs (--gpus-per-node N "
				      "tells; NCCL counts the job's, paths.cc:361)",
				      n ? " and " : "", fx->box_gpus);
	if ((cond & PTC_NCCL_COND_PEERMEM) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "nvidia_peermem or "
				      "nv_peer_mem is loaded%s",
				      cond & PTC_NCCL_COND_DMABUF ? " or " : "");
	if ((cond & PTC_NCCL_COND_DMABUF) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "DMA-BUF works");
	if ((cond & (PTC_NCCL_COND_PEERMEM | PTC_NCCL_COND_DMABUF)) && n < len)
		snprintf(buf + n, len - n, " (%.480s%s)", fx->peermem_src,
			 cond & PTC_NCCL_COND_DMABUF ? "; DMA-BUF support does "
			 "not show in sysfs: NCCL_DEBUG=INFO says 'DMA-BUF is "
			 "available'" : "");
}

static u8 nccl_class(const struct dr_pair *p)
{
	u8 cls = p->path.path_class;

	if (cls == PCITOPO_PATH_PHB &&
	    (p->a->numa_node < 0) != (p->b->numa_node < 0))
		return PCITOPO_PATH_SYS;
	return cls;
}

static void gpu_pair(struct dr_run *r, const struct dr_pair *p,
		     const struct ptc_nccl_sys *sys,
		     const struct ptc_nccl_env *def, const struct ptc_nccl_env *now)
{
	struct ptc_nccl_verdict d, v;
	char obj[96], fix[256], cond[640], pick[720];
	u8 cls = nccl_class(p);

	ptc_nccl_gpu_pair(sys, def, cls, &d);
	ptc_nccl_gpu_pair(sys, now, cls, &v);
	if (v.transport == PTC_NCCL_T_P2P)
		snprintf(fix, sizeof(fix), "NCCL_P2P_DISABLE=1 (or NCCL_P2P_LEVEL "
			 "below %s) would use SHM", ptc_nccl_path_name(v.path));
	else
		snprintf(fix, sizeof(fix), "NCCL_P2P_LEVEL=%s would use P2P%s",
			 ptc_nccl_path_name(v.path),
			 now->p2p_disable == 1 ? " (with NCCL_P2P_DISABLE unset)" : "");
	cond_text(r, v.cond, cond, sizeof(cond));
	if (v.cond)
		snprintf(pick, sizeof(pick), "%s %s, or %s if %s",
			 v.transport == d.transport ? "picks" : "now picks",
			 transport_name(v.transport), transport_name(v.alt), cond);
	else
		snprintf(pick, sizeof(pick), "%s %s",
			 v.transport == d.transport ? "picks" : "now picks",
			 transport_name(v.transport));
	dr_pair_name(r, p, obj, sizeof(obj));
	dr_add(r, DR_NOTE, DR_NCCL, obj, fix,
	       "NCCL %s: path %s (nvidia-smi %s) %s P2P level %s (%s); "
	       "default: %s; CPU %s; rules of NCCL 2.30.7",
	       pick, ptc_nccl_path_name(v.path),
	       ptc_class_name(p->path.path_class),
	       v.path <= v.level ? "<=" : ">", ptc_nccl_path_name(v.level),
	       why_text(v.why), transport_name(d.transport), r->fx.cpu_src);
}

static void gpu_nic(struct dr_run *r, const struct dr_pair *p,
		    const struct ptc_nccl_sys *sys,
		    const struct ptc_nccl_env *def, const struct ptc_nccl_env *now)
{
	struct ptc_nccl_verdict d, v;
	char obj[96], fix[256], cond[640], pick[760];
	u8 cls = nccl_class(p);

	ptc_nccl_gpu_nic(sys, def, cls, &d);
	ptc_nccl_gpu_nic(sys, now, cls, &v);
	if (v.transport == PTC_NCCL_T_GDR)
		snprintf(fix, sizeof(fix), "NCCL_NET_GDR_LEVEL=LOC would turn it "
			 "off%s", v.read ? "; NCCL_NET_GDR_READ=0 for sends only" : "");
	else if (v.why == PTC_NCCL_WHY_NO_PEERMEM)
		snprintf(fix, sizeof(fix), "modprobe nvidia_peermem (or unset "
			 "NCCL_DMABUF_ENABLE=0) would turn it on");
	else
		snprintf(fix, sizeof(fix), "NCCL_NET_GDR_LEVEL=%s would turn it on",
			 ptc_nccl_path_name(v.path));
	cond_text(r, v.cond, cond, sizeof(cond));
	snprintf(pick, sizeof(pick), "%s %s%s%s%s%s%s",
		 v.transport == d.transport && v.read == d.read && v.cond == d.cond ?
		 "picks" : "now picks", transport_name(v.transport),
		 v.transport == PTC_NCCL_T_GDR ?
		 (v.read ? " for receives and sends" : " for receives only") : "",
		 v.cond ? " if " : "", v.cond ? cond : "",
		 v.cond ? ", else " : "", v.cond ? transport_name(v.alt) : "");
	dr_pair_name(r, p, obj, sizeof(obj));
	dr_add(r, DR_NOTE, DR_NCCL, obj, fix,
	       "NCCL %s: path %s (nvidia-smi %s) %s GDR level %s (%s); "
	       "default: %s; rules of NCCL 2.30.7",
	       pick, ptc_nccl_path_name(v.path),
	       ptc_class_name(p->path.path_class),
	       v.path <= v.level ? "<=" : ">", ptc_nccl_path_name(v.level),
	       why_text(v.read_why != PTC_NCCL_WHY_DEFAULT ? v.read_why : v.why),
	       transport_name(d.transport));
}

void dr_check_nccl(struct dr_run *r)
{
	struct ptc_nccl_env def, now;
	struct ptc_nccl_sys sys = { 0 };
	size_t k;

	no_env(&def);
	read_env(&now);
	sys.cpu = r->fx.cpu;
	sys.gpus = r->fx.job_gpus;
	sys.peermem = r->fx.peermem;
	for (k = 0; k < r->n_pairs; k++) {
		const struct dr_pair *p = &r->pairs[k];
		bool ga = p->a->kind == PCITOPO_KIND_GPU;
		bool gb = p->b->kind == PCITOPO_KIND_GPU;

		if (!p->judged || (ga && !dr_nccl_gpu(p->a)) ||
		    (gb && !dr_nccl_gpu(p->b)))
			continue;
		/* add_pair() puts a GPU first */
		if (ga && gb)
			gpu_pair(r, p, &sys, &def, &now);
		else if (ga && p->b->kind == PCITOPO_KIND_NIC)
			gpu_nic(r, p, &sys, &def, &now);
	}
}
