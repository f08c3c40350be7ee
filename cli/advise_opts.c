// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl advise: its arguments (advise.h): a workload, by reference
 * (resnet50, vgg16, hpl), by kind (p2p-heavy, host-io-heavy, compute) or by
 * its parameters, the hardware to build the layouts from, and the model's
 * options (ptm_cli.h).
 */
#include <string.h>

#include "advise.h"
#include "quantity.h"

/* Whether argv[*i] is one of the workload's parameters (its value taken as
 * opt_is() does); if so, *rc is 0, or the exit code after a message. */
static bool workload_opt(struct ctx *c, int argc, char **argv, int *i,
			 struct ptm_workload *w, int *rc)
{
	unsigned long n;
	const char *v;
	double x;

	*rc = 0;
	if (opt_is("--model-size", argc, argv, i, &v)) {
		if (parse_size(v, &x))
			*rc = bad_value(c, "--model-size", v, "bytes "
					"all-reduced per step, e.g. 102M or "
					"553MB");
		else
			w->grad_bytes = x;
	} else if (opt_is("--batch-size", argc, argv, i, &v)) {
		if (parse_count(v, 1, 1UL << 24, &n))
			*rc = bad_value(c, "--batch-size", v, "samples per "
					"step per GPU, 1..16777216");
		else
			w->batch = (double)n;
	} else if (opt_is("--samples-per-sec", argc, argv, i, &v)) {
		if (parse_number(v, &x))
			*rc = bad_value(c, "--samples-per-sec", v,
					"per GPU, a number >= 0");
		else
			w->samples_per_sec = x;
	} else if (opt_is("--bytes-per-sample", argc, argv, i, &v)) {
		if (parse_size(v, &x))
			*rc = bad_value(c, "--bytes-per-sample", v, "bytes "
					"read from host per sample, e.g. "
					"150528 or 147K");
		else
			w->bytes_per_sample = x;
	} else if (opt_is("--host-data", argc, argv, i, &v)) {
		if (v && !strcmp(v, "local"))
			w->placement = PTM_HOST_LOCAL;
		else if (v && !strcmp(v, "spread"))
			w->placement = PTM_HOST_SPREAD;
		else
			*rc = bad_value(c, "--host-data", v, "local or spread");
	} else {
		return false;
	}
	return true;
}

/* A link option (--gpu-link, --uplink, --root-link) into *l. */
static int link_opt(struct ctx *c, const char *opt, const char *v,
		    struct ptc_link *l)
{
	if (!v || ptm_link_parse(v, l))
		return bad_value(c, opt, v, "e.g. gen5x16");
	return 0;
}

/* Whether argv[*i] describes the hardware (recorded in o->hw_given[]);
 * if so, *rc as workload_opt(). */
static bool hw_opt(struct ctx *c, int argc, char **argv, int *i,
		   struct advise_opts *o, int *rc)
{
	unsigned long n;
	const char *v;
	int k;

	*rc = 0;
	if (opt_is("--gpu-link", argc, argv, i, &v)) {
		k = HW_GPU;
		*rc = link_opt(c, "--gpu-link", v, &o->hw.gpu);
	} else if (opt_is("--uplink", argc, argv, i, &v)) {
		k = HW_UPLINK;
		*rc = link_opt(c, "--uplink", v, &o->hw.uplink);
	} else if (opt_is("--root-link", argc, argv, i, &v)) {
		k = HW_ROOT;
		*rc = link_opt(c, "--root-link", v, &o->hw.root);
	} else if (opt_is("--cpus", argc, argv, i, &v)) {
		k = HW_CPUS;
		if (parse_count(v, 1, PTM_MAX_SOCKETS, &n))
			*rc = bad_value(c, "--cpus", v, "1..8");
		else
			o->hw.cpus = (unsigned int)n;
	} else if (opt_is("--gpus-per-switch", argc, argv, i, &v)) {
		k = HW_GPS;
		if (parse_count(v, 1, 16, &n))
			*rc = bad_value(c, "--gpus-per-switch", v, "1..16");
		else
			o->hw.gpus_per_switch = (unsigned int)n;
	} else if (opt_is("--switches", argc, argv, i, &v)) {
		k = HW_SWITCHES;
		if (parse_count(v, 1, PTM_MAX_SWITCHES, &n))
			*rc = bad_value(c, "--switches", v, "1..16");
		else
			o->switches = (unsigned int)n;
	} else {
		return false;
	}
	o->hw_given[k] = true;
	return true;
}

int parse_advise(struct ctx *c, int argc, char **argv, struct advise_opts *o)
{
	bool have_workload = false, have_param = false;
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
		} else if (workload_opt(c, argc, argv, &i, &o->w, &r)) {
			if (r)
				return r;
			have_param = true;
		} else if (hw_opt(c, argc, argv, &i, o, &r)) {
			if (r)
				return r;
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
