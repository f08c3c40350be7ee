// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl advise: which layout for this job. The three layouts are built
 * from this server's hardware (read off the current topology, or given with
 * --gpu-link/--uplink/--root-link/--cpus/--switches/--gpus-per-switch, or
 * --synthetic for the emulated server's Gen5 x16 figures), with the CPUs
 * and memory the machine has (/proc/cpuinfo, SMBIOS; assumed where they
 * cannot be read), and ranked by the model
 * (model/ptm.h) for a workload: a reference (resnet50, vgg16, hpl), a kind
 * (p2p-heavy, host-io-heavy, compute) or parameters.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptm_cli.h"
#include "quantity.h"
#include "rfile.h"

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

struct advise_opts {
	struct ptm_workload w;
	struct ptm_hw hw;
	bool synthetic, hw_given[6];
	unsigned int switches;		/* --switches */
	struct model_opts model;
};

enum { HW_GPU, HW_UPLINK, HW_ROOT, HW_CPUS, HW_GPS, HW_SWITCHES };

static int parse_advise(struct ctx *c, int argc, char **argv,
			struct advise_opts *o)
{
	bool have_workload = false, have_param = false;
	unsigned long n;
	const char *v;
	double x;
	int i, r;

	ptm_workload_ref("custom", &o->w);
	ptm_hw_default(&o->hw);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-') {
			if (have_workload)
				return usage_error(c, "'advise' takes one "
						   "WORKLOAD, got '%s' too", a);
			if (ptm_workload_ref(a, &o->w))
				return usage_error(c, "unknown workload '%s' "
					"(resnet50, vgg16, hpl, compute, "
					"p2p-heavy, host-io-heavy, custom)", a);
			have_workload = true;
		} else if (opt_is("--model-size", argc, argv, &i, &v)) {
			if (parse_size(v, &x))
				return bad_value(c, "--model-size", v,
						 "bytes all-reduced per step, "
						 "e.g. 102M or 553MB");
			o->w.grad_bytes = x;
			have_param = true;
		} else if (opt_is("--batch-size", argc, argv, &i, &v)) {
			if (parse_count(v, 1, 1UL << 24, &n))
				return bad_value(c, "--batch-size", v,
						 "samples per step per GPU, "
						 "1..16777216");
			o->w.batch = (double)n;
			have_param = true;
		} else if (opt_is("--samples-per-sec", argc, argv, &i, &v)) {
			if (parse_number(v, &x))
				return bad_value(c, "--samples-per-sec", v,
						 "per GPU, a number >= 0");
			o->w.samples_per_sec = x;
			have_param = true;
		} else if (opt_is("--bytes-per-sample", argc, argv, &i, &v)) {
			if (parse_size(v, &x))
				return bad_value(c, "--bytes-per-sample", v,
						 "bytes read from host per "
						 "sample, e.g. 150528 or 147K");
			o->w.bytes_per_sample = x;
			have_param = true;
		} else if (opt_is("--host-data", argc, argv, &i, &v)) {
			if (v && !strcmp(v, "local"))
				o->w.placement = PTM_HOST_LOCAL;
			else if (v && !strcmp(v, "spread"))
				o->w.placement = PTM_HOST_SPREAD;
			else
				return bad_value(c, "--host-data", v,
						 "local or spread");
			have_param = true;
		} else if (opt_is("--gpu-link", argc, argv, &i, &v)) {
			if (!v || ptm_link_parse(v, &o->hw.gpu))
				return bad_value(c, "--gpu-link", v,
						 "e.g. gen5x16");
			o->hw_given[HW_GPU] = true;
		} else if (opt_is("--uplink", argc, argv, &i, &v)) {
			if (!v || ptm_link_parse(v, &o->hw.uplink))
				return bad_value(c, "--uplink", v,
						 "e.g. gen5x16");
			o->hw_given[HW_UPLINK] = true;
		} else if (opt_is("--root-link", argc, argv, &i, &v)) {
			if (!v || ptm_link_parse(v, &o->hw.root))
				return bad_value(c, "--root-link", v,
						 "e.g. gen5x16");
			o->hw_given[HW_ROOT] = true;
		} else if (opt_is("--cpus", argc, argv, &i, &v)) {
			if (parse_count(v, 1, PTM_MAX_SOCKETS, &n))
				return bad_value(c, "--cpus", v, "1..8");
			o->hw.cpus = (unsigned int)n;
			o->hw_given[HW_CPUS] = true;
		} else if (opt_is("--gpus-per-switch", argc, argv, &i, &v)) {
			if (parse_count(v, 1, 16, &n))
				return bad_value(c, "--gpus-per-switch", v,
						 "1..16");
			o->hw.gpus_per_switch = (unsigned int)n;
			o->hw_given[HW_GPS] = true;
		} else if (opt_is("--switches", argc, argv, &i, &v)) {
			if (parse_count(v, 1, PTM_MAX_SWITCHES, &n))
				return bad_value(c, "--switches", v, "1..16");
			o->switches = (unsigned int)n;
			o->hw_given[HW_SWITCHES] = true;
		} else if (flag_is("--synthetic", a)) {
			o->synthetic = true;
		} else if (model_opt(c, argc, argv, &i, &o->model, &r)) {
			if (r)
				return r;
		} else {
			return usage_error(c, "unknown option '%s' to 'advise'\n"
					   "Try 'topoctl advise help'.", a);
		}
	}
	if (o->hw_given[HW_SWITCHES] && o->hw_given[HW_GPS] &&
	    o->switches * o->hw.gpus_per_switch > PTM_MAX_GPUS)
		return usage_error(c, "%u switches of %u GPUs: more than %d "
				   "GPUs", o->switches, o->hw.gpus_per_switch,
				   PTM_MAX_GPUS);
	if (!have_workload && !have_param)
		return usage_error(c, "'advise' needs a WORKLOAD or "
				   "--model-size/--batch-size/"
				   "--bytes-per-sample\nTry 'topoctl advise help'.");
	if (o->w.grad_bytes <= 0 && o->w.batch * o->w.bytes_per_sample <= 0)
		return usage_error(c, "the workload moves nothing: give "
				   "--model-size, or --batch-size with "
				   "--bytes-per-sample");
	if (have_param && have_workload && strcmp(o->w.name, "custom")) {
		char base[PTM_NAME_LEN];

		snprintf(base, sizeof(base), "%s", o->w.name);
		snprintf(o->w.name, sizeof(o->w.name), "%.20s+changes", base);
	}
	return -1;
}

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
static int advise_hw(struct ctx *c, struct advise_opts *o,
		     struct ptm_params *p, const struct machine_files *mf,
		     unsigned int *now, const char **from,
		     const char **cpus_src)
{
	struct ptm_hw given = o->hw;
	struct pt_topology t;
	struct ptc_topo pt;
	int r;

	*now = PCITOPO_LAYOUT_UNKNOWN;
	*from = "synthetic";
	*cpus_src = "synthetic";
	if (!o->synthetic) {
		r = model_topo(c, &t, &pt);
		if (r)
			return r;
		r = ptm_hw_from_topo(&pt, &o->hw);
		*now = t.summary.layout;
		if (pt_has(&t.summary, PCITOPO_A_LAYOUT) == 0) {
			struct ptc_layout l;

			ptc_layout(&pt, &l);
			*now = l.layout;
		}
		model_topo_free(&t, &pt);
		if (r == -ENODEV) {
			fprintf(c->err, "topoctl: no GPU in the topology: "
				"describe the hardware with --synthetic and "
				"--gpu-link, --uplink, --root-link, --cpus\n");
			return 1;
		}
		*from = source_name(c);
		*cpus_src = "NUMA nodes of the root ports";
		/* packages, where cpuinfo counts them (AMD NPS4 has more
		 * NUMA nodes than sockets); else the machine's NUMA nodes */
		if (p->m.sockets_src && strcmp(p->m.sockets_src, "NUMA nodes")) {
			o->hw.cpus = p->m.sockets;
			*cpus_src = p->m.sockets_src;
		} else if (mf->numa_nodes > o->hw.cpus &&
			   mf->numa_nodes <= PTM_MAX_SOCKETS) {
			o->hw.cpus = mf->numa_nodes;
			*cpus_src = "NUMA nodes";
		}
	} else if (p->m.sockets_src && !strcmp(p->m.sockets_src, "set")) {
		o->hw.cpus = p->m.sockets;
		*cpus_src = "set";
	}
	if (o->hw_given[HW_GPU])
		o->hw.gpu = given.gpu;
	if (o->hw_given[HW_UPLINK])
		o->hw.uplink = given.uplink;
	if (o->hw_given[HW_ROOT])
		o->hw.root = given.root;
	if (o->hw_given[HW_CPUS]) {
		o->hw.cpus = given.cpus;
		*cpus_src = "--cpus";
	}
	apply_switches(o, &given);
	/* SMBIOS devices are shared out over the sockets the model uses */
	p->m.sockets = o->hw.cpus;
	return 0;
}

struct advise_out {
	unsigned int now;
	const char *from;		/* "sysfs", "netlink", "synthetic" */
	const char *cpus_src;		/* where hw.cpus comes from */
	const struct ptm_params *p;
	const struct machine_files *mf;
	bool synthetic;
};

/* Why a machine file gave nothing: "--synthetic", "PATH: reason". */
static void why_not(char *buf, size_t len, const char *path, int err,
		    bool synthetic)
{
	if (synthetic || !path[0])
		snprintf(buf, len, "not read: --synthetic");
	else if (err == -EACCES || err == -EPERM)
		snprintf(buf, len, "%s: %s (readable by root)", path,
			 strerror(-err));
	else if (err == -ENODATA)
		snprintf(buf, len, "%s: no populated device", path);
	else
		snprintf(buf, len, "%s: %s", path, pt_file_strerror(err));
}

/* The CPU as text: "AMD EPYC 9654 96-Core Processor, Genoa (cpuinfo)". */
static void cpu_text(char *buf, size_t len, const struct ptm_consts *cs,
		     const struct advise_out *out)
{
	const struct ptm_machine *m = &out->p->m;
	char why[4200];

	if (!strcmp(cs->cpu_src, "set")) {
		snprintf(buf, len, "%s (set)", cs->cpu->name);
		return;
	}
	if (!strcmp(cs->cpu_src, "cpuinfo")) {
		snprintf(buf, len, "%s, %s (cpuinfo: %s family 0x%x model "
			 "0x%x)", m->cpu.model_name[0] ? m->cpu.model_name :
			 "?", cs->cpu->name, m->cpu.vendor_id,
			 (unsigned int)m->cpu.family,
			 (unsigned int)m->cpu.model);
		return;
	}
	if (m->have_cpu)
		snprintf(why, sizeof(why), "%s, %s family 0x%x model 0x%x: "
			 "not a generation the model knows",
			 m->cpu.model_name[0] ? m->cpu.model_name : "?",
			 m->cpu.vendor_id[0] ? m->cpu.vendor_id : "no vendor",
			 (unsigned int)(m->cpu.family < 0 ? 0 : m->cpu.family),
			 (unsigned int)(m->cpu.model < 0 ? 0 : m->cpu.model));
	else
		why_not(why, sizeof(why), out->mf->cpuinfo, out->mf->cpu_err,
			out->synthetic && !out->mf->cpuinfo[0]);
	snprintf(buf, len, "assumed %s from the root ports (%s)", cs->cpu->name,
		 why);
}

static void link_text(char *buf, size_t len, const struct ptm_consts *cs)
{
	const struct ptm_cpu_gen *g = cs->cpu;

	if (!strcmp(cs->upi_src, "set")) {
		snprintf(buf, len, "%s %.1f GB/s per direction (set)", g->bus,
			 cs->upi_mbs / 1e3);
		return;
	}
	if (g->link_gts > 0)
		snprintf(buf, len, "%s%s %.4g GT/s x%s links, %.1f GB/s per "
			 "direction (%s)", cs->upi_assumed ? "assumed " : "",
			 g->bus, g->link_gts, g->links, cs->upi_mbs / 1e3,
			 g->link_src);
	else
		snprintf(buf, len, "%s%s %.1f GB/s per direction (%s)",
			 cs->upi_assumed ? "assumed " : "", g->bus,
			 cs->upi_mbs / 1e3, g->link_src);
}

static double mem_peak(const struct ptm_consts *cs, const struct ptm_params *p)
{
	return cs->mem_channels ? (double)cs->mem_channels * cs->mem_mts * 8 :
	       cs->mem_mbs / p->v[PTM_P_MEM_EFF];
}

static void mem_text(char *buf, size_t len, const struct ptm_consts *cs,
		     const struct advise_out *out)
{
	const struct ptm_machine *m = &out->p->m;
	char why[4200], what[96];

	if (!cs->mem_channels)
		snprintf(what, sizeof(what), "%.1f GB/s peak per socket (set)",
			 mem_peak(cs, out->p) / 1e3);
	else
		snprintf(what, sizeof(what), "%s%u x %s-%u per socket, %.1f "
			 "GB/s peak", cs->mem_assumed ? "assumed " : "",
			 cs->mem_channels, cs->mem_type ? cs->mem_type : "DDR",
			 cs->mem_mts, mem_peak(cs, out->p) / 1e3);
	if (m->have_mem)
		snprintf(why, sizeof(why), "SMBIOS: %u of %u devices "
			 "populated, %.0f GB", m->mem.populated,
			 m->mem.devices, (double)m->mem.total_mb / 1024);
	else
		why_not(why, sizeof(why), out->mf->smbios, out->mf->mem_err,
			!out->mf->smbios[0]);
	snprintf(buf, len, "%s (%s)", what, why);
}

static const char *const class_names[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };
static const u8 class_ids[] = { PCITOPO_PATH_PIX, PCITOPO_PATH_PXB,
				PCITOPO_PATH_PHB, PCITOPO_PATH_NODE,
				PCITOPO_PATH_SYS };

static struct json_object *jnum(double x, int digits)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.*f", digits, x);
	return json_object_new_double_s(x, buf);
}

static struct json_object *json_choice(const struct ptm_choice *ch, int rank,
				       bool now)
{
	struct json_object *o = json_object_new_object(), *pairs, *ups;
	const struct ptm_eval *e = &ch->eval;
	const struct ptm_cost *k = &ch->cost;
	unsigned int i;

	json_object_object_add(o, "layout",
		json_object_new_string(ptc_layout_name((u8)ch->layout)));
	json_object_object_add(o, "current", json_object_new_boolean(now));
	json_object_object_add(o, "shape", json_object_new_string(ch->shape));
	if (ch->err) {
		json_object_object_add(o, "available",
				       json_object_new_boolean(false));
		json_object_object_add(o, "error",
				       json_object_new_string(strerror(-ch->err)));
		return o;
	}
	json_object_object_add(o, "available", json_object_new_boolean(true));
	json_object_object_add(o, "rank", json_object_new_int(rank));
	json_object_object_add(o, "allreduce_ms", jnum(k->allreduce_s * 1e3, 3));
	json_object_object_add(o, "host_io_ms", jnum(k->host_io_s * 1e3, 3));
	json_object_object_add(o, "comm_ms", jnum(k->comm_s * 1e3, 3));
	if (k->compute_s > 0) {
		json_object_object_add(o, "compute_ms",
				       jnum(k->compute_s * 1e3, 3));
		json_object_object_add(o, "samples_per_sec_per_gpu",
				       jnum(k->samples_per_sec, 1));
	}
	json_object_object_add(o, "allreduce_limit",
			       json_object_new_string(k->ar_limit));
	json_object_object_add(o, "host_io_limit",
			       json_object_new_string(k->io_limit));
	json_object_object_add(o, "ring_busbw_mbs", jnum(e->ring_busbw, 1));
	json_object_object_add(o, "host_to_gpu_mbs", jnum(e->h2d_mbs, 1));
	json_object_object_add(o, "host_memory_mbs", jnum(e->mem_mbs, 1));
	pairs = json_object_new_object();
	for (i = 0; i < sizeof(class_ids); i++)
		if (e->class_pairs[class_ids[i]])
			json_object_object_add(pairs, class_names[i],
				jnum(e->class_mbs[class_ids[i]], 1));
	json_object_object_add(o, "pair_mbs", pairs);
	ups = json_object_new_array();
	for (i = 0; i < e->nuplinks; i++) {
		struct json_object *u = json_object_new_object();

		json_object_object_add(u, "socket",
				       json_object_new_int((int)e->uplinks[i].socket));
		json_object_object_add(u, "gpus",
				       json_object_new_int((int)e->uplinks[i].gpus));
		json_object_object_add(u, "mbs", jnum(e->uplinks[i].mbs, 1));
		json_object_array_add(ups, u);
	}
	json_object_object_add(o, "uplinks", ups);
	return o;
}

static struct json_object *json_platform(const struct ptm_consts *cs,
					 const struct advise_opts *o,
					 const struct advise_out *out)
{
	const struct ptm_machine *m = &out->p->m;
	struct json_object *pl = json_object_new_object(), *x, *sm;
	char buf[4400];

	x = json_object_new_object();
	json_object_object_add(x, "generation",
			       json_object_new_string(cs->cpu->key));
	json_object_object_add(x, "name", json_object_new_string(cs->cpu->name));
	json_object_object_add(x, "source", json_object_new_string(cs->cpu_src));
	json_object_object_add(x, "assumed", json_object_new_boolean(
		!strcmp(cs->cpu_src, "assumed")));
	if (m->have_cpu) {
		json_object_object_add(x, "vendor_id",
				       json_object_new_string(m->cpu.vendor_id));
		json_object_object_add(x, "family",
				       json_object_new_int(m->cpu.family));
		json_object_object_add(x, "model",
				       json_object_new_int(m->cpu.model));
		json_object_object_add(x, "stepping",
				       json_object_new_int(m->cpu.stepping));
		json_object_object_add(x, "model_name",
				       json_object_new_string(m->cpu.model_name));
		json_object_object_add(x, "packages",
				       json_object_new_int((int)m->cpu.packages));
	}
	cpu_text(buf, sizeof(buf), cs, out);
	json_object_object_add(x, "text", json_object_new_string(buf));
	if (out->mf->cpuinfo[0])
		json_object_object_add(x, "cpuinfo",
				       json_object_new_string(out->mf->cpuinfo));
	if (out->mf->cpu_err) {
		why_not(buf, sizeof(buf), out->mf->cpuinfo, out->mf->cpu_err,
			false);
		json_object_object_add(x, "error", json_object_new_string(buf));
	}
	json_object_object_add(pl, "cpu", x);

	x = json_object_new_object();
	json_object_object_add(x, "count", json_object_new_int((int)o->hw.cpus));
	json_object_object_add(x, "source",
			       json_object_new_string(out->cpus_src));
	json_object_object_add(pl, "sockets", x);

	x = json_object_new_object();
	json_object_object_add(x, "bus", json_object_new_string(cs->bus));
	if (cs->cpu->link_gts > 0) {
		json_object_object_add(x, "gts", jnum(cs->cpu->link_gts, 1));
		json_object_object_add(x, "links",
				       json_object_new_string(cs->cpu->links));
	}
	json_object_object_add(x, "mbs", jnum(cs->upi_mbs, 0));
	json_object_object_add(x, "source", json_object_new_string(cs->upi_src));
	json_object_object_add(x, "assumed",
			       json_object_new_boolean(cs->upi_assumed));
	link_text(buf, sizeof(buf), cs);
	json_object_object_add(x, "text", json_object_new_string(buf));
	json_object_object_add(pl, "interconnect", x);

	x = json_object_new_object();
	if (cs->mem_channels) {
		json_object_object_add(x, "channels",
				       json_object_new_int((int)cs->mem_channels));
		json_object_object_add(x, "channels_source",
			json_object_new_string(cs->mem_channels_src));
		json_object_object_add(x, "mts",
				       json_object_new_int((int)cs->mem_mts));
		json_object_object_add(x, "mts_source",
			json_object_new_string(cs->mem_mts_src));
		json_object_object_add(x, "type", json_object_new_string(
			cs->mem_type ? cs->mem_type : "DDR"));
	}
	json_object_object_add(x, "peak_mbs", jnum(mem_peak(cs, out->p), 0));
	json_object_object_add(x, "mbs", jnum(cs->mem_mbs, 0));
	json_object_object_add(x, "source", json_object_new_string(cs->mem_src));
	json_object_object_add(x, "assumed",
			       json_object_new_boolean(cs->mem_assumed));
	if (m->have_mem) {
		sm = json_object_new_object();
		json_object_object_add(sm, "devices",
				       json_object_new_int((int)m->mem.devices));
		json_object_object_add(sm, "populated",
				       json_object_new_int((int)m->mem.populated));
		json_object_object_add(sm, "total_mb",
				       json_object_new_int64((int64_t)m->mem.total_mb));
		json_object_object_add(sm, "mts", json_object_new_int(
			(int)m->mem.mts));
		json_object_object_add(x, "smbios", sm);
	} else {
		why_not(buf, sizeof(buf), out->mf->smbios, out->mf->mem_err,
			!out->mf->smbios[0]);
		json_object_object_add(x, "smbios_error",
				       json_object_new_string(buf));
	}
	mem_text(buf, sizeof(buf), cs, out);
	json_object_object_add(x, "text", json_object_new_string(buf));
	json_object_object_add(pl, "memory", x);
	return pl;
}

static void print_json(struct ctx *c, const struct advise_opts *o,
		       const struct ptm_advice *a,
		       const struct advise_out *out)
{
	struct json_object *root = json_object_new_object(), *w, *hw, *arr, *k;
	const struct ptm_consts *cs = NULL;
	unsigned int now = out->now, sw[PTM_MAX_SWITCHES], nsw, total = 0;
	const char *from = out->from;
	char l[24];
	unsigned int i;

	w = json_object_new_object();
	json_object_object_add(w, "name", json_object_new_string(o->w.name));
	json_object_object_add(w, "model_size", jnum(o->w.grad_bytes, 0));
	json_object_object_add(w, "batch_size", jnum(o->w.batch, 0));
	json_object_object_add(w, "samples_per_sec", jnum(o->w.samples_per_sec, 1));
	json_object_object_add(w, "bytes_per_sample",
			       jnum(o->w.bytes_per_sample, 0));
	json_object_object_add(w, "host_data", json_object_new_string(
		o->w.placement == PTM_HOST_SPREAD ? "spread" : "local"));
	json_object_object_add(root, "workload", w);
	hw = json_object_new_object();
	ptm_link_format(l, sizeof(l), &o->hw.gpu);
	json_object_object_add(hw, "gpu_link", json_object_new_string(l));
	ptm_link_format(l, sizeof(l), &o->hw.uplink);
	json_object_object_add(hw, "uplink", json_object_new_string(l));
	ptm_link_format(l, sizeof(l), &o->hw.root);
	json_object_object_add(hw, "root_link", json_object_new_string(l));
	json_object_object_add(hw, "cpus", json_object_new_int((int)o->hw.cpus));
	json_object_object_add(hw, "cpus_source",
			       json_object_new_string(out->cpus_src));
	json_object_object_add(hw, "gpus_per_switch",
			       json_object_new_int((int)o->hw.gpus_per_switch));
	nsw = ptm_hw_switches(&o->hw, sw);
	arr = json_object_new_array();
	for (i = 0; i < nsw; i++) {
		json_object_array_add(arr, json_object_new_int((int)sw[i]));
		total += sw[i];
	}
	json_object_object_add(hw, "switches", arr);
	json_object_object_add(hw, "gpus", json_object_new_int((int)total));
	json_object_object_add(hw, "from", json_object_new_string(from));
	json_object_object_add(hw, "current_layout",
			       json_object_new_string(ptc_layout_name((u8)now)));
	json_object_object_add(root, "hardware", hw);
	arr = json_object_new_array();
	for (i = 0; i < PTM_NLAYOUTS; i++) {
		const struct ptm_choice *ch = &a->c[a->order[i]];

		if (!ch->err && !cs)
			cs = &ch->eval.c;
		json_object_array_add(arr, json_choice(ch, (int)i + 1,
						       ch->layout == now));
	}
	json_object_object_add(root, "ranking", arr);
	json_object_object_add(root, "best", json_object_new_string(
		ptc_layout_name((u8)a->c[a->order[0]].layout)));
	json_object_object_add(root, "reason", json_object_new_string(a->reason));
	if (cs) {
		k = json_object_new_object();
		json_object_object_add(k, "pcie_eff", jnum(cs->pcie_eff, 4));
		json_object_object_add(k, "rc_p2p_eff", jnum(cs->rc_p2p_eff, 4));
		json_object_object_add(k, "upi_mbs", jnum(cs->upi_mbs, 0));
		json_object_object_add(k, "upi_source",
				       json_object_new_string(cs->upi_src));
		json_object_object_add(k, "mem_mbs", jnum(cs->mem_mbs, 0));
		json_object_object_add(k, "mem_source",
				       json_object_new_string(cs->mem_src));
		json_object_object_add(k, "upi_assumed",
				       json_object_new_boolean(cs->upi_assumed));
		json_object_object_add(k, "mem_assumed",
				       json_object_new_boolean(cs->mem_assumed));
		json_object_object_add(root, "constants", k);
		json_object_object_add(root, "platform",
				       json_platform(cs, o, out));
	}
	emit_json(c, root);
}

static void print_text(struct ctx *c, const struct advise_opts *o,
		       const struct ptm_advice *a,
		       const struct advise_out *out)
{
	const struct ptm_consts *cs = NULL;
	char g[24], u[24], r[24], b1[24], b2[24], sw[96], line[4400];
	unsigned int i, j, now = out->now;
	const char *from = out->from;

	fmt_bytes(b1, sizeof(b1), o->w.grad_bytes);
	fmt_bytes(b2, sizeof(b2), o->w.bytes_per_sample);
	fprintf(c->out, "workload %s: %s all-reduced, %.0f samples x %s from "
		"host %s per GPU per step\n", o->w.name, b1, o->w.batch, b2,
		o->w.placement == PTM_HOST_SPREAD ? "(spread over sockets)" :
		"(local socket)");
	ptm_link_format(g, sizeof(g), &o->hw.gpu);
	ptm_link_format(u, sizeof(u), &o->hw.uplink);
	ptm_link_format(r, sizeof(r), &o->hw.root);
	ptm_hw_format_switches(sw, sizeof(sw), &o->hw);
	fprintf(c->out, "hardware (%s): GPUs %s, switch ports %s, root ports "
		"%s, %u CPUs, %s", from, g, u, r, o->hw.cpus, sw);
	if (now != PCITOPO_LAYOUT_UNKNOWN)
		fprintf(c->out, "; now %s", ptc_layout_name((u8)now));
	fputc('\n', c->out);
	for (i = 0; i < PTM_NLAYOUTS && !cs; i++)
		if (!a->c[i].err)
			cs = &a->c[i].eval.c;
	if (cs) {
		cpu_text(line, sizeof(line), cs, out);
		fprintf(c->out, "platform: CPU %s; %u socket%s (%s)\n", line,
			o->hw.cpus, o->hw.cpus == 1 ? "" : "s", out->cpus_src);
		link_text(line, sizeof(line), cs);
		fprintf(c->out, "  socket link: %s\n", line);
		mem_text(line, sizeof(line), cs, out);
		fprintf(c->out, "  memory: %s\n", line);
	}
	cs = NULL;
	fputs("layouts built:\n", c->out);
	for (i = 0; i < PTM_NLAYOUTS; i++)
		fprintf(c->out, "  %-9s %s\n",
			ptc_layout_name((u8)a->c[i].layout), a->c[i].shape);
	fputc('\n', c->out);
	fprintf(c->out, "%-4s %-9s %10s %10s %10s %11s %11s %10s\n", "rank",
		"layout", "allreduce", "host-io", "comm/step", "ring-busbw",
		"host->GPU", "samples/s");
	for (i = 0; i < PTM_NLAYOUTS; i++) {
		const struct ptm_choice *ch = &a->c[a->order[i]];
		const char *name = ptc_layout_name((u8)ch->layout);
		char sps[16] = "-";

		if (ch->err) {
			fprintf(c->out, "-    %-9s unavailable: %s\n", name,
				ch->err == -EOPNOTSUPP ? ch->shape :
				strerror(-ch->err));
			continue;
		}
		if (!cs)
			cs = &ch->eval.c;
		if (ch->cost.samples_per_sec > 0)
			snprintf(sps, sizeof(sps), "%.0f",
				 ch->cost.samples_per_sec);
		fprintf(c->out, "%-4u %-9s %7.2f ms %7.2f ms %7.2f ms "
			"%6.1f GB/s %6.1f GB/s %10s%s\n", i + 1, name,
			ch->cost.allreduce_s * 1e3, ch->cost.host_io_s * 1e3,
			ch->cost.comm_s * 1e3, ch->eval.ring_busbw / 1e3,
			ch->eval.h2d_mbs / 1e3, sps,
			ch->layout == now ? "  (now)" : "");
	}
	fputc('\n', c->out);
	for (i = 0; i < PTM_NLAYOUTS; i++) {
		const struct ptm_choice *ch = &a->c[a->order[i]];
		const struct ptm_eval *e = &ch->eval;

		if (ch->err)
			continue;
		fprintf(c->out, "%-9s pairs:", ptc_layout_name((u8)ch->layout));
		for (j = 0; j < sizeof(class_ids); j++)
			if (e->class_pairs[class_ids[j]])
				fprintf(c->out, " %s %.1f", class_names[j],
					e->class_mbs[class_ids[j]] / 1e3);
		fprintf(c->out, " GB/s; uplinks:");
		for (j = 0; j < e->nuplinks; j++)
			fprintf(c->out, "%s %u GPUs/%.1f GB/s (CPU%u)",
				j ? "," : "", e->uplinks[j].gpus,
				e->uplinks[j].mbs / 1e3, e->uplinks[j].socket);
		fprintf(c->out, "; host memory %.0f GB/s\n", e->mem_mbs / 1e3);
	}
	if (cs)
		fprintf(c->out, "constants: pcie_eff %.2f, rc_p2p_eff %.3f, "
			"upi_mbs %.0f (%s), mem_mbs %.0f (%s)\n", cs->pcie_eff,
			cs->rc_p2p_eff, cs->upi_mbs, cs->upi_src, cs->mem_mbs,
			cs->mem_src);
	fprintf(c->out, "\n%s\n", a->reason);
}

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
	r = advise_hw(c, &o, &p, &mf, &out.now, &out.from, &out.cpus_src);
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
	if (c->json)
		print_json(c, &o, &a, &out);
	else
		print_text(c, &o, &a, &out);
	return 0;
}
