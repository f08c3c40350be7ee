// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl advise: the hardware the three layouts are built from (advise.h):
 * read off the current topology, or --synthetic's Gen5 x16 figures, with
 * the machine's sockets, then what the options say.
 */
#include <stdio.h>
#include <string.h>

#include "advise.h"

/* --switches and --gpus-per-switch on what was found: every switch the
 * same size. */
static void apply_switches(struct advise_opts *o, const struct ptm_hw *given)
{
	unsigned int n, g, i;

	if (!o->hw_given[HW_SWITCHES] && !o->hw_given[HW_GPS])
		return;
	g = o->hw_given[HW_GPS] ? given->gpus_per_switch :
	    o->hw.gpus_per_switch;
	n = o->hw_given[HW_SWITCHES] ? o->switches : o->hw.nswitches;
	o->hw.gpus_per_switch = g;
	o->hw.nswitches = n;
	memset(o->hw.sw_gpus, 0, sizeof(o->hw.sw_gpus));
	for (i = 0; i < n; i++)
		o->hw.sw_gpus[i] = g;
}

/* The hardware: the current topology's, then the machine's sockets, then
 * the options. */
int advise_hw(struct ctx *c, struct advise_opts *o, struct ptm_params *p,
	      const struct machine_files *mf, struct advise_out *out)
{
	struct ptm_hw given = o->hw;
	struct pt_topology t;
	struct ptc_topo pt;
	int r;

	out->now = PCITOPO_LAYOUT_UNKNOWN;
	out->from = "synthetic";
	out->cpus_src = "synthetic";
	if (!o->synthetic) {
		r = model_topo(c, &t, &pt);
		if (r)
			return r;
		r = ptm_hw_from_topo(&pt, &o->hw);
		out->now = t.summary.layout;
		if (pt_has(&t.summary, PCITOPO_A_LAYOUT) == 0) {
			struct ptc_layout l;

			ptc_layout(&pt, &l);
			out->now = l.layout;
		}
		model_topo_free(&t, &pt);
		if (r == -ENODEV) {
			fprintf(c->err, "topoctl: no GPU in the topology: "
				"describe the hardware with --synthetic and "
				"--gpu-link, --uplink, --root-link, --cpus\n");
			return 1;
		}
		out->from = source_name(c);
		out->cpus_src = "NUMA nodes of the root ports";
		/* packages, where cpuinfo counts them (AMD NPS4 has more
		 * NUMA nodes than sockets); else the machine's NUMA nodes */
		if (p->m.sockets_src && strcmp(p->m.sockets_src, "NUMA nodes")) {
			o->hw.cpus = p->m.sockets;
			out->cpus_src = p->m.sockets_src;
		} else if (mf->numa_nodes > o->hw.cpus &&
			   mf->numa_nodes <= PTM_MAX_SOCKETS) {
			o->hw.cpus = mf->numa_nodes;
			out->cpus_src = "NUMA nodes";
		}
	} else if (p->m.sockets_src && !strcmp(p->m.sockets_src, "set")) {
		o->hw.cpus = p->m.sockets;
		out->cpus_src = "set";
	}
	if (o->hw_given[HW_GPU])
		o->hw.gpu = given.gpu;
	if (o->hw_given[HW_UPLINK])
		o->hw.uplink = given.uplink;
	if (o->hw_given[HW_ROOT])
		o->hw.root = given.root;
	if (o->hw_given[HW_CPUS]) {
		o->hw.cpus = given.cpus;
		out->cpus_src = "--cpus";
	}
	apply_switches(o, &given);
	/* SMBIOS devices are shared out over the sockets the model uses */
	p->m.sockets = o->hw.cpus;
	return 0;
}
