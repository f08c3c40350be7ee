/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl advise, by job: its options (advise_opts.c), the hardware the
 * layouts are built from (advise_hw.c), the printing of the advice
 * (advise_print.c), and the command that runs them (advise.c).
 */
#ifndef PCITOPO_CLI_ADVISE_H
#define PCITOPO_CLI_ADVISE_H

#include "ptm_cli.h"

/* Which hardware options were given (advise_opts.hw_given[]). */
enum { HW_GPU, HW_UPLINK, HW_ROOT, HW_CPUS, HW_GPS, HW_SWITCHES, HW_COUNT };

struct advise_opts {
	struct ptm_workload w;
	struct ptm_hw hw;
	bool synthetic, hw_given[HW_COUNT];
	unsigned int switches;		/* --switches */
	struct model_opts model;
};

/* Where the figures came from, for the printing. */
struct advise_out {
	unsigned int now;		/* the layout now, or UNKNOWN */
	const char *from;		/* "sysfs", "netlink", "synthetic" */
	const char *cpus_src;		/* where hw.cpus comes from */
	const struct ptm_params *p;
	const struct machine_files *mf;
	bool synthetic;
};

/* The arguments of `advise` into *o: -1 to go on, else an exit code after
 * a message (usage errors: EXIT_USAGE). */
int parse_advise(struct ctx *c, int argc, char **argv, struct advise_opts *o);

/*
 * The hardware the layouts are built from, into o->hw: the current
 * topology's (unless --synthetic), then the machine's sockets, then the
 * options given; p->m.sockets follows. Where it came from goes to out.
 * 0, or an exit code after a message.
 */
int advise_hw(struct ctx *c, struct advise_opts *o, struct ptm_params *p,
	      const struct machine_files *mf, struct advise_out *out);

/* The advice as text, or with -j one JSON object, from the same calls. */
int print_advice(struct ctx *c, const struct advise_opts *o,
		 const struct ptm_advice *a, const struct advise_out *out);

#endif /* PCITOPO_CLI_ADVISE_H */
