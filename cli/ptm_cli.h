/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl: what `advise` (advise.c) and `bench` (bench.c, bench_cuda.c,
 * cudart.c) share: the model's constants from /etc/pcitopo/model.conf,
 * --config and --set, the machine's CPUs and memory (cpuinfo, SMBIOS), and
 * the current topology as the model sees it (ptm_cli.c).
 */
#ifndef PCITOPO_CLI_PTM_CLI_H
#define PCITOPO_CLI_PTM_CLI_H

#include "ptm.h"
#include "topoctl.h"

/* Exit code of `bench` when there is nothing to measure (no libcudart, no
 * CUDA device): 77, the automake convention for a skipped test. */
#define EXIT_SKIP	77

#define MAX_SETS	32

/* --config FILE, each --set KEY=VALUE and --cpuinfo FILE, as both
 * commands take them. */
struct model_opts {
	const char *config;		/* NULL: PTM_CONF_DEFAULT */
	const char *sets[MAX_SETS];
	int nsets;
	const char *cpuinfo;		/* NULL: machine_files() chooses */
	bool no_machine;		/* model_params() reads no machine
					 * files (advise reads them itself) */
};

/* Where the machine's figures were read from, and how that went. */
struct machine_files {
	char cpuinfo[4096];		/* "" when there is none to read */
	int cpu_err;			/* 0, or -errno: assumed */
	char smbios[4096];		/* SYSFS/firmware/dmi/entries */
	int mem_err;			/* 0, or -errno (-EACCES: not root) */
	unsigned int numa_nodes;	/* machine_cpus() */
};

/* The usage error of an option without a value (val NULL) or with a bad
 * one; want says what it takes. Returns EXIT_USAGE. */
int bad_value(struct ctx *c, const char *opt, const char *val,
	      const char *want);
/* Whether argv[*i] is --config, --set or --cpuinfo (its value taken as
 * opt_is() does);
 * if so, it is recorded in m and *rc is 0 or an exit code after a message. */
bool model_opt(struct ctx *c, int argc, char **argv, int *i,
	       struct model_opts *m, int *rc);
/* The model's constants: defaults, then m->config (PTM_CONF_DEFAULT when
 * NULL; a missing default file is fine), then each --set KEY=VALUE; then,
 * unless m->no_machine, what the machine says (model_machine()).
 * Returns 0 or an exit code after a message. */
int model_params(struct ctx *c, const struct model_opts *m,
		 struct ptm_params *p);
/*
 * Read the machine into p->m: the CPUs from m->cpuinfo, else /proc/cpuinfo
 * for the live system (sysfs /sys), else SYSFS/../proc/cpuinfo if that
 * exists (a copy saved beside a --sysfs tree); the memory from SMBIOS type
 * 17 under SYSFS/firmware/dmi/entries; sockets from the sockets key, else
 * cpuinfo's packages, else the NUMA nodes. Nothing here is an error: what
 * cannot be read is assumed, and f (may be NULL) says why.
 */
void model_machine(struct ctx *c, const struct model_opts *m,
		   struct ptm_params *p, struct machine_files *f);
/*
 * Where a /proc file of the machine is read from (the one rule for advise,
 * bench and doctor): opt when given (--cpuinfo FILE), /proc/NAME when
 * judging the live system (sysfs "/sys"), else SYSFS/../proc/NAME: a copy
 * saved beside a --sysfs tree (as hwloc's gather-topology keeps them).
 */
void machine_proc_path(const struct ctx *c, const char *name, const char *opt,
		       char *buf, size_t len);
/* The topology now, as core nodes (index i is t->devices[i]). Returns 0 or
 * an exit code after a message; on 0 free with model_topo_free(). */
int model_topo(struct ctx *c, struct pt_topology *t, struct ptc_topo *pt);
void model_topo_free(struct pt_topology *t, struct ptc_topo *pt);
/* NUMA nodes of the machine (SYSFS/devices/system/node/nodeN), 0 if
 * unknown. */
unsigned int machine_cpus(const struct ctx *c);

#endif /* PCITOPO_CLI_PTM_CLI_H */
