// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the CPU generations the model knows, with the figures a
 * generation implies: the socket interconnect (Intel UPI, AMD xGMI) and the
 * memory a socket has at most. Pure: a table and lookups; cpuinfo.c reads
 * what the machine is, params.c resolves the constants from it.
 *
 * link_mbs is a usable figure per direction between two sockets, not the
 * signalling rate: NCCL's planning figures (src/graph/topo.h,
 * ncclTopoGetInterCpuBw(); the family/model rule of ncclTopoAddCpu() in
 * src/graph/topo.cc), which are what collectives reach in practice. Intel
 * family 6: model >= 0xCF and Granite Rapids/Sierra Forest (0xAD, 0xAE,
 * 0xAF) ERP_QPI_BW 40 GB/s; >= 0x8F SRP_QPI_BW 22; >= 0x55 SKL_QPI_BW 10;
 * older BDW_QPI_BW 6. AMD: family 0x1A (Zen 5) AMD_ZEN5_BW 32; 0x19 (Zen
 * 3/4) AMD_ZEN34_BW 24; older AMD_ZEN12_BW 16. The rate and link count are
 * the vendors' (Intel ARK "UPI speed"/"number of UPI links", AMD EPYC
 * platform briefs) and only printed: raw per link and direction is
 * GT/s x 2 bytes (UPI, 20 lanes) or GT/s x 16 lanes / 8 (xGMI x16).
 *
 * mem_channels x mem_mts: the most a socket of that generation supports at
 * one DIMM per channel (Intel ARK, AMD product pages); used only where
 * SMBIOS does not say what is fitted, and printed as assumed.
 *
 * The first row that matches wins: named generations first, then one row
 * per NCCL class for models not named here (no memory figures: those come
 * from the PCIe generation, as before).
 */
#include <stddef.h>
#include <string.h>

#include "ptm.h"

#define ANY	-1

static const struct ptm_cpu_gen gens[] = {
	/* Intel Xeon Scalable, family 6 */
	{ "skylake", "Skylake-SP", PTM_CPU_INTEL, 6, 0x55, 0x55, 0, 4,
	  "UPI", 10.4, "2-3", 10000, "NCCL SKL_QPI_BW", 6, 2666, "DDR4" },
	{ "cascade-lake", "Cascade Lake", PTM_CPU_INTEL, 6, 0x55, 0x55, 5, ANY,
	  "UPI", 10.4, "2-3", 10000, "NCCL SKL_QPI_BW", 6, 2933, "DDR4" },
	{ "ice-lake", "Ice Lake-SP", PTM_CPU_INTEL, 6, 0x6a, 0x6c, ANY, ANY,
	  "UPI", 11.2, "3", 10000, "NCCL SKL_QPI_BW", 8, 3200, "DDR4" },
	{ "sapphire-rapids", "Sapphire Rapids", PTM_CPU_INTEL, 6, 0x8f, 0x8f,
	  ANY, ANY, "UPI", 16, "4", 22000, "NCCL SRP_QPI_BW", 8, 4800, "DDR5" },
	{ "emerald-rapids", "Emerald Rapids", PTM_CPU_INTEL, 6, 0xcf, 0xcf,
	  ANY, ANY, "UPI", 20, "4", 40000, "NCCL ERP_QPI_BW", 8, 5600, "DDR5" },
	{ "granite-rapids", "Granite Rapids", PTM_CPU_INTEL, 6, 0xad, 0xae,
	  ANY, ANY, "UPI", 24, "4-6", 40000, "NCCL ERP_QPI_BW", 8, 6400,
	  "DDR5" },
	{ "sierra-forest", "Sierra Forest", PTM_CPU_INTEL, 6, 0xaf, 0xaf,
	  ANY, ANY, "UPI", 24, "4", 40000, "NCCL ERP_QPI_BW", 8, 6400, "DDR5" },
	/* AMD EPYC */
	{ "naples", "Naples", PTM_CPU_AMD, 0x17, 0x00, 0x0f, ANY, ANY,
	  "xGMI", 10.6, "4", 16000, "NCCL AMD_ZEN12_BW", 8, 2666, "DDR4" },
	{ "rome", "Rome", PTM_CPU_AMD, 0x17, 0x30, 0x3f, ANY, ANY,
	  "xGMI", 18, "3-4", 16000, "NCCL AMD_ZEN12_BW", 8, 3200, "DDR4" },
	{ "milan", "Milan", PTM_CPU_AMD, 0x19, 0x00, 0x0f, ANY, ANY,
	  "xGMI", 18, "3-4", 24000, "NCCL AMD_ZEN34_BW", 8, 3200, "DDR4" },
	{ "genoa", "Genoa", PTM_CPU_AMD, 0x19, 0x10, 0x1f, ANY, ANY,
	  "xGMI", 32, "3-4", 24000, "NCCL AMD_ZEN34_BW", 12, 4800, "DDR5" },
	{ "bergamo", "Bergamo", PTM_CPU_AMD, 0x19, 0xa0, 0xaf, ANY, ANY,
	  "xGMI", 32, "3-4", 24000, "NCCL AMD_ZEN34_BW", 12, 4800, "DDR5" },
	{ "turin", "Turin", PTM_CPU_AMD, 0x1a, 0x00, 0x1f, ANY, ANY,
	  "xGMI", 32, "3-4", 32000, "NCCL AMD_ZEN5_BW", 12, 6000, "DDR5" },
	/* NCCL's classes, for models not named above */
	{ "intel-erp", "Intel (ERP class)", PTM_CPU_INTEL, 6, 0xcf, 0xff,
	  ANY, ANY, "UPI", 0, "?", 40000, "NCCL ERP_QPI_BW", 0, 0, NULL },
	{ "intel-srp", "Intel (SRP class)", PTM_CPU_INTEL, 6, 0x8f, 0xce,
	  ANY, ANY, "UPI", 0, "?", 22000, "NCCL SRP_QPI_BW", 0, 0, NULL },
	{ "intel-skl", "Intel (SKL class)", PTM_CPU_INTEL, 6, 0x55, 0x8e,
	  ANY, ANY, "UPI", 0, "?", 10000, "NCCL SKL_QPI_BW", 0, 0, NULL },
	{ "intel-bdw", "Intel (BDW class)", PTM_CPU_INTEL, 6, 0x00, 0x54,
	  ANY, ANY, "QPI", 0, "?", 6000, "NCCL BDW_QPI_BW", 0, 0, NULL },
	{ "amd-zen5", "AMD Zen 5", PTM_CPU_AMD, 0x1a, 0x00, 0xff, ANY, ANY,
	  "xGMI", 0, "?", 32000, "NCCL AMD_ZEN5_BW", 0, 0, NULL },
	{ "amd-zen34", "AMD Zen 3/4", PTM_CPU_AMD, 0x19, 0x00, 0xff, ANY, ANY,
	  "xGMI", 0, "?", 24000, "NCCL AMD_ZEN34_BW", 0, 0, NULL },
	{ "amd-zen12", "AMD Zen 1/2", PTM_CPU_AMD, 0x17, 0x00, 0xff, ANY, ANY,
	  "xGMI", 0, "?", 16000, "NCCL AMD_ZEN12_BW", 0, 0, NULL },
};

#define NGENS	(sizeof(gens) / sizeof(gens[0]))

unsigned int ptm_cpu_gen_count(void)
{
	return NGENS;
}

const struct ptm_cpu_gen *ptm_cpu_gen_at(unsigned int i)
{
	return i < NGENS ? &gens[i] : NULL;
}

const struct ptm_cpu_gen *ptm_cpu_gen_lookup(const char *key)
{
	size_t i;

	for (i = 0; i < NGENS; i++)
		if (!strcmp(gens[i].key, key))
			return &gens[i];
	return NULL;
}

static bool in(int x, int lo, int hi)
{
	return (lo == ANY || x >= lo) && (hi == ANY || x <= hi);
}

const struct ptm_cpu_gen *ptm_cpu_gen_match(const struct ptm_cpuinfo *ci)
{
	size_t i;

	if (ci->vendor != PTM_CPU_INTEL && ci->vendor != PTM_CPU_AMD)
		return NULL;
	for (i = 0; i < NGENS; i++) {
		const struct ptm_cpu_gen *g = &gens[i];

		if (g->vendor == ci->vendor && g->family == ci->family &&
		    in(ci->model, g->model_lo, g->model_hi) &&
		    (ci->stepping < 0 || in(ci->stepping, g->step_lo, g->step_hi)))
			return g;
	}
	return NULL;
}

const struct ptm_cpu_gen *ptm_cpu_gen_for_pcie(unsigned int gen)
{
	return ptm_cpu_gen_lookup(gen >= 5 ? "sapphire-rapids" :
				  gen == 4 ? "ice-lake" : "skylake");
}
