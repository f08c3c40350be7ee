// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: what `advise` and `bench` share (ptm_cli.h): the model's options
 * and constants, the machine's CPUs and memory, and the topology as the
 * model sees it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptm_cli.h"
#include "quantity.h"

int bad_value(struct ctx *c, const char *opt, const char *val,
	      const char *want)
{
	if (!val)
		return usage_error(c, "'%s' needs a value (%s)", opt, want);
	return usage_error(c, "bad value '%s' for %s (%s)", val, opt, want);
}

bool model_opt(struct ctx *c, int argc, char **argv, int *i,
	       struct model_opts *m, int *rc)
{
	const char *v;

	*rc = 0;
	if (opt_is("--cpuinfo", argc, argv, i, &v)) {
		if (!v)
			*rc = bad_value(c, "--cpuinfo", v, "a file");
		else
			m->cpuinfo = v;
		return true;
	}
	if (opt_is("--config", argc, argv, i, &v)) {
		if (!v)
			*rc = bad_value(c, "--config", v, "a file");
		else
			m->config = v;
		return true;
	}
	if (!opt_is("--set", argc, argv, i, &v))
		return false;
	if (!v)
		*rc = bad_value(c, "--set", v, "KEY=VALUE");
	else if (m->nsets == MAX_SETS)
		*rc = usage_error(c, "more than %d --set", MAX_SETS);
	else
		m->sets[m->nsets++] = v;
	return true;
}

int model_params(struct ctx *c, const struct model_opts *m,
		 struct ptm_params *p)
{
	const char *config = m->config ? m->config : PTM_CONF_DEFAULT;
	char err[320];
	int i, r;

	ptm_params_default(p);
	r = ptm_params_load(p, config, err, sizeof(err));
	if (r == -ENOENT && !m->config)
		r = 0;
	if (r == -EINVAL) {
		fprintf(c->err, "topoctl: %s\n", err);
		return 1;
	}
	if (r == -ELIBACC || r == -ELIBBAD) {
		fprintf(c->err, "topoctl: reading %s needs %s\n", config, err);
		return 1;
	}
	if (r) {
		fprintf(c->err, "topoctl: %s: %s\n", config, strerror(-r));
		return 1;
	}
	for (i = 0; i < m->nsets; i++) {
		if (!ptm_param_set(p, m->sets[i]))
			continue;
		fprintf(c->err, "topoctl: bad --set '%s': KEY=VALUE with KEY "
			"one of:\n", m->sets[i]);
		for (r = 0; r < __PTM_P_COUNT; r++)
			fprintf(c->err, "  %-11s %s\n",
				ptm_param_name((enum ptm_param_id)r),
				ptm_param_help((enum ptm_param_id)r));
		return EXIT_USAGE;
	}
	if (!m->no_machine)
		model_machine(c, m, p, NULL);
	return 0;
}

void machine_proc_path(const struct ctx *c, const char *name, const char *opt,
		       char *buf, size_t len)
{
	if (opt)
		snprintf(buf, len, "%s", opt);
	else if (!strcmp(c->sysfs, "/sys"))
		snprintf(buf, len, "/proc/%s", name);
	else
		snprintf(buf, len, "%s/../proc/%s", c->sysfs, name);
}

void model_machine(struct ctx *c, const struct model_opts *m,
		   struct ptm_params *p, struct machine_files *f)
{
	struct machine_files own;
	struct ptm_machine *mc = &p->m;

	if (!f)
		f = &own;
	memset(f, 0, sizeof(*f));
	memset(mc, 0, sizeof(*mc));
	machine_proc_path(c, "cpuinfo", m->cpuinfo, f->cpuinfo,
			  sizeof(f->cpuinfo));
	f->cpu_err = ptm_cpuinfo_read(f->cpuinfo, &mc->cpu);
	mc->have_cpu = !f->cpu_err;
	snprintf(f->smbios, sizeof(f->smbios), "%s/firmware/dmi/entries",
		 c->sysfs);
	f->mem_err = ptm_smbios_read(f->smbios, &mc->mem);
	if (!f->mem_err && !mc->mem.populated)
		f->mem_err = -ENODATA;
	mc->have_mem = !f->mem_err;
	f->numa_nodes = machine_cpus(c);
	if (p->v[PTM_P_SOCKETS] > 0) {
		mc->sockets = (unsigned int)p->v[PTM_P_SOCKETS];
		mc->sockets_src = "set";
	} else if (mc->have_cpu && mc->cpu.packages) {
		mc->sockets = mc->cpu.packages;
		mc->sockets_src = "cpuinfo";
	} else if (f->numa_nodes) {
		mc->sockets = f->numa_nodes;
		mc->sockets_src = "NUMA nodes";
	}
	if (mc->sockets > PTM_MAX_SOCKETS) {
		mc->sockets = PTM_MAX_SOCKETS;
	}
}

int model_topo(struct ctx *c, struct pt_topology *t, struct ptc_topo *pt)
{
	int r;

	memset(t, 0, sizeof(*t));
	r = load_topology(c, t);
	if (r)
		return r;
	r = pt_derive_open(t, pt);
	if (r) {
		fprintf(c->err, "topoctl: the topology does not resolve: %s\n",
			strerror(-r));
		pt_topology_free(t);
		return 1;
	}
	return 0;
}

void model_topo_free(struct pt_topology *t, struct ptc_topo *pt)
{
	pt_derive_close(pt);
	pt_topology_free(t);
}

unsigned int machine_cpus(const struct ctx *c)
{
	char path[4096];
	struct dirent *de;
	unsigned int n = 0, x;
	DIR *d;

	snprintf(path, sizeof(path), "%s/devices/system/node", c->sysfs);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "node%u", &x) == 1)
			n++;
	closedir(d);
	return n;
}
