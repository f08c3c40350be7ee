// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor: NCCL's view of each pair (notes), by core's rules
 * (model/nccl.c, NCCL 2.30.7): the transport of a GPU pair (P2P, SHM
 * through host memory, or the network) and GPUDirect RDMA for a GPU-NIC
 * pair, under NCCL's defaults and under the NCCL_* variables set now, with
 * the variable that would change the answer.
 *
 * The CPU vendor (NCCL allows P2P at any distance on x86 AMD with at most
 * two GPUs) comes from --cpuinfo FILE, else /proc/cpuinfo when judging the
 * running machine (sysfs "/sys"); a saved tree's CPU is unknown and taken as
 * not AMD. The GPUs' compute capability is unknown here and taken as Ampere
 * or later, which only matters for GDR reads.
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

static u8 cpu_vendor(const struct dr_run *r, const char **src)
{
	const char *file = r->cpuinfo;
	char line[256];
	u8 v = PTC_NCCL_CPU_OTHER;
	FILE *f;

	if (!file && strcmp(r->c->sysfs, "/sys")) {
		*src = "unknown (a saved tree; --cpuinfo FILE tells)";
		return v;
	}
	if (!file)
		file = "/proc/cpuinfo";
	f = fopen(file, "re");
	*src = "unknown";
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "vendor_id", 9))
			continue;
		if (strstr(line, "AuthenticAMD")) {
			v = PTC_NCCL_CPU_AMD;
			*src = "AMD";
		} else if (strstr(line, "GenuineIntel")) {
			v = PTC_NCCL_CPU_INTEL;
			*src = "Intel";
		}
		break;
	}
	fclose(f);
	return v;
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

static void gpu_pair(struct dr_run *r, const struct dr_pair *p,
		     const struct ptc_nccl_sys *sys,
		     const struct ptc_nccl_env *def, const struct ptc_nccl_env *now,
		     const char *cpu)
{
	struct ptc_nccl_verdict d, v;
	char obj[96], fix[256];
	u8 cls = p->path.path_class;

	ptc_nccl_gpu_pair(sys, def, cls, &d);
	ptc_nccl_gpu_pair(sys, now, cls, &v);
	if (v.transport == PTC_NCCL_T_P2P)
		snprintf(fix, sizeof(fix), "NCCL_P2P_DISABLE=1 (or NCCL_P2P_LEVEL "
			 "below %s) would use SHM", ptc_nccl_path_name(v.path));
	else
		snprintf(fix, sizeof(fix), "NCCL_P2P_LEVEL=%s would use P2P%s",
			 ptc_nccl_path_name(v.path),
			 now->p2p_disable == 1 ? " (with NCCL_P2P_DISABLE unset)" : "");
	dr_pair_name(r, p, obj, sizeof(obj));
	dr_add(r, DR_NOTE, DR_NCCL, obj, fix,
	       "NCCL %s %s: path %s (nvidia-smi %s) %s P2P level %s (%s); "
	       "default: %s; CPU %s; rules of NCCL 2.30.7",
	       v.transport == d.transport ? "picks" : "now picks",
	       transport_name(v.transport), ptc_nccl_path_name(v.path),
	       ptc_class_name(cls), v.path <= v.level ? "<=" : ">",
	       ptc_nccl_path_name(v.level), why_text(v.why),
	       transport_name(d.transport), cpu);
}

static void gpu_nic(struct dr_run *r, const struct dr_pair *p,
		    const struct ptc_nccl_sys *sys,
		    const struct ptc_nccl_env *def, const struct ptc_nccl_env *now)
{
	struct ptc_nccl_verdict d, v;
	char obj[96], fix[256];
	u8 cls = p->path.path_class;

	ptc_nccl_gpu_nic(sys, def, cls, &d);
	ptc_nccl_gpu_nic(sys, now, cls, &v);
	if (v.transport == PTC_NCCL_T_GDR)
		snprintf(fix, sizeof(fix), "NCCL_NET_GDR_LEVEL=LOC would turn it "
			 "off%s", v.read ? "; NCCL_NET_GDR_READ=0 for sends only" : "");
	else
		snprintf(fix, sizeof(fix), "NCCL_NET_GDR_LEVEL=%s would turn it on",
			 ptc_nccl_path_name(v.path));
	dr_pair_name(r, p, obj, sizeof(obj));
	dr_add(r, DR_NOTE, DR_NCCL, obj, fix,
	       "NCCL %s %s%s: path %s (nvidia-smi %s) %s GDR level %s (%s); "
	       "default: %s; rules of NCCL 2.30.7",
	       v.transport == d.transport && v.read == d.read ? "picks" : "now picks",
	       transport_name(v.transport),
	       v.transport == PTC_NCCL_T_GDR ?
	       (v.read ? " for receives and sends" : " for receives only") : "",
	       ptc_nccl_path_name(v.path), ptc_class_name(cls),
	       v.path <= v.level ? "<=" : ">", ptc_nccl_path_name(v.level),
	       why_text(v.read_why != PTC_NCCL_WHY_DEFAULT ? v.read_why : v.why),
	       transport_name(d.transport));
}

void dr_check_nccl(struct dr_run *r)
{
	struct ptc_nccl_env def, now;
	struct ptc_nccl_sys sys = { 0 };
	const char *cpu;
	size_t i, k;

	no_env(&def);
	read_env(&now);
	sys.cpu = cpu_vendor(r, &cpu);
	for (i = 0; i < r->t->n_devices; i++)
		sys.gpus += r->t->devices[i].role == PCITOPO_ROLE_ENDPOINT &&
			    r->t->devices[i].kind == PCITOPO_KIND_GPU;
	for (k = 0; k < r->n_pairs; k++) {
		const struct dr_pair *p = &r->pairs[k];
		bool ga = p->a->kind == PCITOPO_KIND_GPU;
		bool gb = p->b->kind == PCITOPO_KIND_GPU;

		if (ga && gb)
			gpu_pair(r, p, &sys, &def, &now, cpu);
		else if ((ga && p->b->kind == PCITOPO_KIND_NIC) ||
			 (gb && p->a->kind == PCITOPO_KIND_NIC))
			gpu_nic(r, p, &sys, &def, &now);
	}
}
