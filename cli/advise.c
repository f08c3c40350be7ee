// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl advise: which layout for this job. The three layouts are built
 * from this server's hardware (read off the current topology, or given with
 * --gpu-link/--uplink/--root-link/--cpus/--switches/--gpus-per-switch, or
 * --synthetic for the emulated server's Gen5 x16 figures), with the CPUs
 * and memory the machine has (/proc/cpuinfo, SMBIOS; assumed where they
 * cannot be read), and ranked by the model
 * (model/ptm.h) for a workload: a reference (resnet50, vgg16, hpl), a kind
 * (p2p-heavy, host-io-heavy, compute) or parameters. The jobs are apart
 * (advise.h); this file runs them in turn.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "advise.h"

int do_advise(struct ctx *c, int argc, char **argv)
{
	struct advise_opts o = { 0 };
	struct machine_files mf = { 0 };
	struct advise_out out = { 0 };
	struct ptm_advice a;
	struct ptm_params p;
	int r;

	if (argc > 0 && !strcmp(argv[0], "help")) {
		print_object_help(c, "advise", NULL);
		return 0;
	}
	r = parse_advise(c, argc, argv, &o);
	if (r >= 0)
		return r;
	o.model.no_machine = true;
	r = model_params(c, &o.model, &p);
	if (r)
		return r;
	if (!o.synthetic || o.model.cpuinfo) {
		model_machine(c, &o.model, &p, &mf);
		if (o.synthetic) {
			/* the CPUs of --cpuinfo; nothing of this host */
			p.m.have_mem = false;
			mf.smbios[0] = '\0';
			if (!p.m.sockets_src || strcmp(p.m.sockets_src, "set"))
				p.m.sockets_src = NULL;
		}
	} else if (p.v[PTM_P_SOCKETS] > 0) {
		p.m.sockets = (unsigned int)p.v[PTM_P_SOCKETS];
		p.m.sockets_src = "set";
	}
	r = advise_hw(c, &o, &p, &mf, &out);
	if (r)
		return r;
	r = ptm_advise(&o.hw, &p, &o.w, &a);
	if (r) {
		fprintf(c->err, "topoctl: cannot evaluate the layouts: %s\n",
			strerror(-r));
		return 1;
	}
	out.p = &p;
	out.mf = &mf;
	out.synthetic = o.synthetic;
	return print_advice(c, &o, &a, &out) ? 1 : 0;
}
