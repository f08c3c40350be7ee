// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl advise: which layout for this job. The three layouts are built
 * from this server's hardware (read off the current topology, or given with
 * --gpu-link/--uplink/--root-link/--cpus/--gpus-per-switch, or --synthetic
 * for the emulated server's Gen5 x16 figures) and ranked by the model
 * (model/ptm.h) for a workload: a reference (resnet50, vgg16, hpl), a kind
 * (p2p-heavy, host-io-heavy, compute) or parameters.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptm_cli.h"
#include "units.h"

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
	return 0;
}

int model_topo(struct ctx *c, struct pt_topology *t, struct ptc_topo *pt)
{
	int r;

	memset(t, 0, sizeof(*t));
	r = load_topology(c, t);
	if (r)
		return r;
	r = derive_open(t, pt);
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
	derive_close(pt);
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
	bool synthetic, hw_given[5];
	struct model_opts model;
};

enum { HW_GPU, HW_UPLINK, HW_ROOT, HW_CPUS, HW_GPS };

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

/* The hardware: the current topology's, then the options. */
static int advise_hw(struct ctx *c, struct advise_opts *o, unsigned int *now,
		     const char **from)
{
	struct ptm_hw given = o->hw;
	struct pt_topology t;
	struct ptc_topo pt;
	unsigned int cpus;
	int r;

	*now = PCITOPO_LAYOUT_UNKNOWN;
	*from = "synthetic";
	if (o->synthetic)
		return 0;
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
		fprintf(c->err, "topoctl: no GPU in the topology: describe the "
			"hardware with --synthetic and --gpu-link, --uplink, "
			"--root-link, --cpus\n");
		return 1;
	}
	cpus = machine_cpus(c);
	if (cpus > o->hw.cpus && cpus <= PTM_MAX_SOCKETS)
		o->hw.cpus = cpus;
	if (o->hw_given[HW_GPU])
		o->hw.gpu = given.gpu;
	if (o->hw_given[HW_UPLINK])
		o->hw.uplink = given.uplink;
	if (o->hw_given[HW_ROOT])
		o->hw.root = given.root;
	if (o->hw_given[HW_CPUS])
		o->hw.cpus = given.cpus;
	if (o->hw_given[HW_GPS])
		o->hw.gpus_per_switch = given.gpus_per_switch;
	*from = source_name(c);
	return 0;
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

static void print_json(struct ctx *c, const struct advise_opts *o,
		       const struct ptm_advice *a, unsigned int now,
		       const char *from)
{
	struct json_object *root = json_object_new_object(), *w, *hw, *arr, *k;
	const struct ptm_consts *cs = NULL;
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
	json_object_object_add(hw, "gpus_per_switch",
			       json_object_new_int((int)o->hw.gpus_per_switch));
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
		json_object_object_add(root, "constants", k);
	}
	emit_json(c, root);
}

static void print_text(struct ctx *c, const struct advise_opts *o,
		       const struct ptm_advice *a, unsigned int now,
		       const char *from)
{
	const struct ptm_consts *cs = NULL;
	char g[24], u[24], r[24], b1[24], b2[24];
	unsigned int i, j;

	fmt_bytes(b1, sizeof(b1), o->w.grad_bytes);
	fmt_bytes(b2, sizeof(b2), o->w.bytes_per_sample);
	fprintf(c->out, "workload %s: %s all-reduced, %.0f samples x %s from "
		"host %s per GPU per step\n", o->w.name, b1, o->w.batch, b2,
		o->w.placement == PTM_HOST_SPREAD ? "(spread over sockets)" :
		"(local socket)");
	ptm_link_format(g, sizeof(g), &o->hw.gpu);
	ptm_link_format(u, sizeof(u), &o->hw.uplink);
	ptm_link_format(r, sizeof(r), &o->hw.root);
	fprintf(c->out, "hardware (%s): GPUs %s, switch ports %s, root ports "
		"%s, %u CPUs, 2 switches of %u GPUs", from, g, u, r,
		o->hw.cpus, o->hw.gpus_per_switch);
	if (now != PCITOPO_LAYOUT_UNKNOWN)
		fprintf(c->out, "; now %s", ptc_layout_name((u8)now));
	fputs("\n\n", c->out);
	fprintf(c->out, "%-4s %-9s %10s %10s %10s %11s %11s %10s\n", "rank",
		"layout", "allreduce", "host-io", "comm/step", "ring-busbw",
		"host->GPU", "samples/s");
	for (i = 0; i < PTM_NLAYOUTS; i++) {
		const struct ptm_choice *ch = &a->c[a->order[i]];
		const char *name = ptc_layout_name((u8)ch->layout);
		char sps[16] = "-";

		if (ch->err) {
			fprintf(c->out, "-    %-9s unavailable: %s\n", name,
				ch->err == -EOPNOTSUPP ? "needs two CPUs" :
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
	struct ptm_advice a;
	struct ptm_params p;
	unsigned int now;
	const char *from;
	int r;

	if (argc > 0 && !strcmp(argv[0], "help")) {
		print_object_help(c, "advise", NULL);
		return 0;
	}
	r = parse_advise(c, argc, argv, &o);
	if (r >= 0)
		return r;
	r = model_params(c, &o.model, &p);
	if (r)
		return r;
	r = advise_hw(c, &o, &now, &from);
	if (r)
		return r;
	r = ptm_advise(&o.hw, &p, &o.w, &a);
	if (r) {
		fprintf(c->err, "topoctl: cannot evaluate the layouts: %s\n",
			strerror(-r));
		return 1;
	}
	if (c->json)
		print_json(c, &o, &a, now, from);
	else
		print_text(c, &o, &a, now, from);
	return 0;
}
