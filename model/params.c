// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the model's constants, their defaults and overrides.
 *
 * Sources (Documentation/bandwidth-model.md has the details):
 *   pcie_eff    0.83: measured transfers reach 80-86 % of the encoded rate
 *               (TLP/DLLP overhead at 256-byte payloads; Gen5 x16 H2D about
 *               54 GB/s of 63). NCCL plans with width x rate / 80 (0.76 at
 *               Gen3 x16), the low end.
 *   rc_p2p_eff  5/6: NCCL src/graph/topo.h, INTEL_P2P_OVERHEAD(bw) = bw*6/5
 *               ("Intel CPUs convert GPU P2P traffic into 64B PCI TLPs"):
 *               P2P forwarded by a root complex costs 1.2x the bytes on every
 *               link it uses.
 *   upi_mbs     auto: the CPU generation's socket interconnect
 *               (cpugen.c: NCCL's planning figures, Intel UPI and AMD
 *               xGMI); the generation is cpu=, else cpuinfo's, else
 *               assumed from the root ports: Skylake-SP (SKL_QPI_BW 10 GB/s)
 *               up to Gen3, Ice Lake-SP (10) at Gen4, Sapphire Rapids
 *               (SRP_QPI_BW 22) from Gen5.
 *   mem_mbs     auto: per socket, channels x MT/s x 8 bytes; channels and
 *               MT/s each: mem_channels/mem_mts, else SMBIOS (populated
 *               devices per socket, at most the generation's channels;
 *               the lowest configured speed), else the generation's
 *               maximum (assumed). Gen3 platform Skylake-SP
 *               6 x DDR4-2666 = 127968; Gen4 Ice Lake-SP 8 x DDR4-3200 =
 *               204800; Gen5 Sapphire Rapids 8 x DDR5-4800 = 307200 MB/s.
 *   mem_eff     0.8: STREAM Triad reaches about 80 % of that peak.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptm.h"

struct ptm_param_def {
	const char *name;
	double def, min, max;	/* valid range, inclusive; min > 0 excludes 0
				 * through 'open' */
	bool open_min;		/* min itself not allowed */
	const char *help;
};

static const struct ptm_param_def defs[__PTM_P_COUNT] = {
	[PTM_P_PCIE_EFF] = { "pcie_eff", 0.83, 0, 1, true,
		"fraction of a PCIe link's encoded rate that data gets" },
	[PTM_P_RC_P2P_EFF] = { "rc_p2p_eff", 5.0 / 6.0, 0, 1, true,
		"fraction of bandwidth left to P2P through a root complex" },
	[PTM_P_UPI_MBS] = { "upi_mbs", 0, 0, 1e7, false,
		"socket interconnect MB/s per direction (0: 10000 up to Gen4, "
		"22000 from Gen5)" },
	[PTM_P_MEM_MBS] = { "mem_mbs", 0, 0, 1e8, false,
		"host memory peak MB/s per socket (0: by root port generation)" },
	[PTM_P_MEM_EFF] = { "mem_eff", 0.8, 0, 1, true,
		"fraction of the host memory peak achievable" },
	[PTM_P_MEM_CHANNELS] = { "mem_channels", 0, 0, 64, false,
		"memory channels per socket (0: SMBIOS, else the CPU's)" },
	[PTM_P_MEM_MTS] = { "mem_mts", 0, 0, 100000, false,
		"memory speed, MT/s (0: SMBIOS, else the CPU's)" },
	[PTM_P_SOCKETS] = { "sockets", 0, 0, PTM_MAX_SOCKETS, false,
		"CPU sockets (0: cpuinfo's packages, else NUMA nodes)" },
	[PTM_P_CPU] = { "cpu", 0, 0, 255, false,
		"CPU generation (auto: cpuinfo; skylake, cascade-lake, "
		"ice-lake, sapphire-rapids, emerald-rapids, granite-rapids, "
		"sierra-forest, naples, rome, milan, genoa, bergamo, turin)" },
};

void ptm_params_default(struct ptm_params *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < __PTM_P_COUNT; i++)
		p->v[i] = defs[i].def;
}

const char *ptm_param_name(enum ptm_param_id id)
{
	return (unsigned int)id < __PTM_P_COUNT ? defs[id].name : NULL;
}

const char *ptm_param_help(enum ptm_param_id id)
{
	return (unsigned int)id < __PTM_P_COUNT ? defs[id].help : NULL;
}

int ptm_param_lookup(const char *name)
{
	int i;

	for (i = 0; i < __PTM_P_COUNT; i++)
		if (!strcmp(defs[i].name, name))
			return i;
	return -EINVAL;
}

int ptm_param_set_value(struct ptm_params *p, enum ptm_param_id id, double v)
{
	const struct ptm_param_def *d;

	if ((unsigned int)id >= __PTM_P_COUNT)
		return -EINVAL;
	d = &defs[id];
	if (!isfinite(v) || v < d->min || v > d->max ||
	    (d->open_min && v <= d->min))
		return -EINVAL;
	if ((id == PTM_P_CPU || id == PTM_P_SOCKETS ||
	     id == PTM_P_MEM_CHANNELS) && v != floor(v))
		return -EINVAL;
	if (id == PTM_P_CPU && v > ptm_cpu_gen_count())
		return -EINVAL;
	p->v[id] = v;
	return 0;
}

int ptm_param_set(struct ptm_params *p, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char name[32], *end;
	size_t len;
	double v;
	int id;

	if (!eq)
		return -EINVAL;
	len = (size_t)(eq - kv);
	if (!len || len >= sizeof(name))
		return -EINVAL;
	memcpy(name, kv, len);
	name[len] = '\0';
	id = ptm_param_lookup(name);
	if (id < 0)
		return id;
	if (id == PTM_P_CPU)
		return ptm_param_set_cpu(p, eq + 1);
	errno = 0;
	v = strtod(eq + 1, &end);
	if (errno || end == eq + 1 || *end)
		return -EINVAL;
	return ptm_param_set_value(p, (enum ptm_param_id)id, v);
}

int ptm_param_set_cpu(struct ptm_params *p, const char *key)
{
	const struct ptm_cpu_gen *g;
	unsigned int i;

	if (!strcmp(key, "auto") || !strcmp(key, "0")) {
		p->v[PTM_P_CPU] = 0;
		return 0;
	}
	g = ptm_cpu_gen_lookup(key);
	if (!g)
		return -EINVAL;
	for (i = 0; ptm_cpu_gen_at(i) != g; i++)
		;
	p->v[PTM_P_CPU] = i + 1;
	return 0;
}

static void gen_label(char *buf, size_t len, const struct ptm_cpu_gen *g)
{
	if (g->link_gts > 0)
		snprintf(buf, len, "%s %s %.4g GT/s x%s", g->name, g->bus,
			 g->link_gts, g->links);
	else
		snprintf(buf, len, "%s %s", g->name, g->bus);
}

/* The CPU generation: cpu=, cpuinfo's, or assumed from the PCIe gen. */
static const struct ptm_cpu_gen *which_cpu(const struct ptm_params *p,
					   unsigned int gen, const char **src)
{
	const struct ptm_cpu_gen *g = NULL;

	if (p->v[PTM_P_CPU] >= 1) {
		g = ptm_cpu_gen_at((unsigned int)p->v[PTM_P_CPU] - 1);
		*src = "set";
	}
	if (!g && p->m.have_cpu) {
		g = ptm_cpu_gen_match(&p->m.cpu);
		*src = "cpuinfo";
	}
	if (!g) {
		g = ptm_cpu_gen_for_pcie(gen);
		*src = "assumed";
	}
	return g;
}

void ptm_consts_for(const struct ptm_params *p, unsigned int gen,
		    struct ptm_consts *c)
{
	const struct ptm_cpu_gen *g, *fb = ptm_cpu_gen_for_pcie(gen);
	const struct ptm_meminfo *mi = &p->m.mem;
	unsigned int ch = 0, mts = 0, sockets;
	const char *type;
	char label[80];

	memset(c, 0, sizeof(*c));
	c->pcie_eff = p->v[PTM_P_PCIE_EFF];
	c->rc_p2p_eff = p->v[PTM_P_RC_P2P_EFF];
	g = which_cpu(p, gen, &c->cpu_src);
	c->cpu = g;
	c->bus = g->bus;
	gen_label(label, sizeof(label), g);
	if (p->v[PTM_P_UPI_MBS] > 0) {
		c->upi_mbs = p->v[PTM_P_UPI_MBS];
		snprintf(c->upi_src, sizeof(c->upi_src), "set");
	} else {
		c->upi_mbs = g->link_mbs;
		c->upi_assumed = !strcmp(c->cpu_src, "assumed");
		if (c->upi_assumed)
			snprintf(c->upi_src, sizeof(c->upi_src),
				 "assumed: %s by Gen%u root ports, %s", label,
				 gen, g->link_src);
		else
			snprintf(c->upi_src, sizeof(c->upi_src), "%s (%s), %s",
				 label, c->cpu_src, g->link_src);
	}
	if (p->v[PTM_P_MEM_MBS] > 0) {
		c->mem_mbs = p->v[PTM_P_MEM_MBS] * p->v[PTM_P_MEM_EFF];
		snprintf(c->mem_src, sizeof(c->mem_src), "set");
		return;
	}
	/* a class row without memory figures: the PCIe generation's */
	if (!g->mem_channels)
		g = fb;
	sockets = p->m.sockets ? p->m.sockets : 1;
	type = g->mem_type;
	if (p->v[PTM_P_MEM_CHANNELS] > 0) {
		ch = (unsigned int)p->v[PTM_P_MEM_CHANNELS];
		c->mem_channels_src = "set";
	} else if (p->m.have_mem && mi->populated) {
		ch = (mi->populated + sockets - 1) / sockets;
		/* two DIMMs per channel add capacity, not bandwidth */
		if (c->cpu == g && strcmp(c->cpu_src, "assumed") &&
		    ch > g->mem_channels)
			ch = g->mem_channels;
		c->mem_channels_src = "SMBIOS";
	} else {
		ch = g->mem_channels;
		c->mem_channels_src = "assumed";
	}
	if (p->v[PTM_P_MEM_MTS] > 0) {
		mts = (unsigned int)p->v[PTM_P_MEM_MTS];
		c->mem_mts_src = "set";
	} else if (p->m.have_mem && mi->mts) {
		mts = mi->mts;
		c->mem_mts_src = "SMBIOS";
	} else {
		mts = g->mem_mts;
		c->mem_mts_src = "assumed";
	}
	if (p->m.have_mem && mi->type)
		type = mi->type;
	c->mem_channels = ch;
	c->mem_mts = mts;
	c->mem_type = type;
	c->mem_mbs = (double)ch * mts * 8 * p->v[PTM_P_MEM_EFF];
	c->mem_assumed = !strcmp(c->mem_channels_src, "assumed") ||
			 !strcmp(c->mem_mts_src, "assumed");
	if (!strcmp(c->mem_channels_src, c->mem_mts_src))
		snprintf(c->mem_src, sizeof(c->mem_src), "%s%u x %s-%u (%s)",
			 c->mem_assumed ? "assumed: " : "", ch, type, mts,
			 strcmp(c->mem_channels_src, "assumed") ?
			 c->mem_channels_src : g->name);
	else
		snprintf(c->mem_src, sizeof(c->mem_src),
			 "%s%u x %s-%u (channels %s, speed %s%s%s)",
			 c->mem_assumed ? "assumed: " : "", ch, type, mts,
			 c->mem_channels_src, c->mem_mts_src,
			 c->mem_assumed ? ", " : "",
			 c->mem_assumed ? g->name : "");
}
