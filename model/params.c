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
 *   upi_mbs     auto: NCCL's planning figures for the socket interconnect,
 *               SKL_QPI_BW 10 GB/s (Skylake/Cascade Lake/Ice Lake, root
 *               ports up to Gen4) and SRP_QPI_BW 22 GB/s (Sapphire Rapids,
 *               Gen5 root ports). Theory: UPI 10.4 GT/s x 20 lanes is about
 *               20.8 GB/s per link per direction.
 *   mem_mbs     auto: per socket, channels x MT/s x 8 bytes: Gen3 platform
 *               Skylake-SP 6 x DDR4-2666 = 127968; Gen4 Ice Lake-SP
 *               8 x DDR4-3200 = 204800; Gen5 Sapphire Rapids 8 x DDR5-4800
 *               = 307200 MB/s.
 *   mem_eff     0.8: STREAM Triad reaches about 80 % of that peak.
 */
#include <errno.h>
#include <math.h>
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
};

void ptm_params_default(struct ptm_params *p)
{
	int i;

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
	errno = 0;
	v = strtod(eq + 1, &end);
	if (errno || end == eq + 1 || *end)
		return -EINVAL;
	return ptm_param_set_value(p, (enum ptm_param_id)id, v);
}

void ptm_consts_for(const struct ptm_params *p, unsigned int gen,
		    struct ptm_consts *c)
{
	c->pcie_eff = p->v[PTM_P_PCIE_EFF];
	c->rc_p2p_eff = p->v[PTM_P_RC_P2P_EFF];
	if (p->v[PTM_P_UPI_MBS] > 0) {
		c->upi_mbs = p->v[PTM_P_UPI_MBS];
		c->upi_src = "set";
	} else if (gen >= 5) {
		c->upi_mbs = 22000;
		c->upi_src = "NCCL SRP_QPI_BW (Sapphire Rapids)";
	} else {
		c->upi_mbs = 10000;
		c->upi_src = "NCCL SKL_QPI_BW (Skylake)";
	}
	if (p->v[PTM_P_MEM_MBS] > 0) {
		c->mem_mbs = p->v[PTM_P_MEM_MBS];
		c->mem_src = "set";
	} else if (gen >= 5) {
		c->mem_mbs = 8 * 4800 * 8;
		c->mem_src = "8 x DDR5-4800 (Sapphire Rapids)";
	} else if (gen == 4) {
		c->mem_mbs = 8 * 3200 * 8;
		c->mem_src = "8 x DDR4-3200 (Ice Lake-SP)";
	} else {
		c->mem_mbs = 6 * 2666 * 8;
		c->mem_src = "6 x DDR4-2666 (Skylake-SP)";
	}
	c->mem_mbs *= p->v[PTM_P_MEM_EFF];
}
