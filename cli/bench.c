// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl bench: measure GPU-to-GPU bandwidth (one way and both ways) and
 * latency, and host<->GPU bandwidth per GPU, each beside the model's
 * prediction (model/ptm.h) and the theoretical ceiling of the links on the
 * way (encoded rate, no protocol overhead). `--link-check` compares every
 * trained link with what both its ends support, without CUDA.
 *
 * Exit codes: 0 done; 1 error (or, with --link-check, a link narrower than
 * both ends support, or down); 2 usage; 77 nothing to measure (no
 * libcudart, no CUDA device), the automake "skipped" code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "print.h"
#include "ptm_cli.h"
#include "quantity.h"

struct bench_opts {
	struct bench_cfg cfg;
	bool link_check;
	struct model_opts model;
};

static int parse_bench(struct ctx *c, int argc, char **argv,
		       struct bench_opts *o)
{
	unsigned long n;
	const char *v;
	double x;
	int i, r;

	o->cfg.size = 64UL << 20;
	o->cfg.iters = 20;
	o->cfg.warmup = 2;
	o->cfg.lat_iters = 1000;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (opt_is("--size", argc, argv, &i, &v)) {
			if (parse_size(v, &x) || x < 4 || x > (double)(16UL << 30))
				return bad_value(c, "--size", v,
						 "4 bytes to 16G, e.g. 64M");
			o->cfg.size = (size_t)x;
		} else if (opt_is("--iterations", argc, argv, &i, &v)) {
			if (parse_count(v, 1, 100000, &n))
				return bad_value(c, "--iterations", v,
						 "1..100000");
			o->cfg.iters = n;
		} else if (opt_is("--warmup", argc, argv, &i, &v)) {
			if (parse_count(v, 0, 1000, &n))
				return bad_value(c, "--warmup", v, "0..1000");
			o->cfg.warmup = n;
		} else if (opt_is("--latency-iterations", argc, argv, &i, &v)) {
			if (parse_count(v, 1, 1000000, &n))
				return bad_value(c, "--latency-iterations", v,
						 "1..1000000");
			o->cfg.lat_iters = n;
		} else if (flag_is("--link-check", a)) {
			o->link_check = true;
		} else if (model_opt(c, argc, argv, &i, &o->model, &r)) {
			if (r)
				return r;
		} else if (a[0] == '-') {
			return usage_error(c, "unknown option '%s' to 'bench'\n"
					   "Try 'topoctl bench help'.", a);
		} else {
			return usage_error(c, "unexpected argument '%s' to "
					   "'bench'", a);
		}
	}
	return -1;
}

/* --- link check ------------------------------------------------------ */

/* One trained link against what both its ends support. */
static void print_link(struct pr *o, const struct pt_topology *t,
		       const struct ptm_link_check *lc)
{
	const struct pt_device *d = &t->devices[lc->node];
	char name[PT_NAME_LEN], cur[24], max[24];

	pt_dev_name(t, d, name, sizeof(name));
	fmt_link(cur, sizeof(cur), lc->cur.speed, lc->cur.width);
	fmt_link(max, sizeof(max), lc->max.speed, lc->max.width);
	pr_open_object(o, PRINT_ANY, NULL);
	pr_string_keep(o, PRINT_ANY, "addr", "%-14s", d->addr);
	/* a device without a name has no key, and "-" in its column */
	pr_string_or(o, name[0] ? PRINT_ANY : PRINT_FP, "name", " %-6s", name,
		     "-");
	pr_string_keep(o, PRINT_ANY, "trained", " %-12s", cur);
	pr_string_keep(o, PRINT_ANY, "supported", " %-12s", max);
	pr_u64(o, PRINT_JSON, "trained_mbs", NULL, lc->cur_mbs);
	pr_u64(o, PRINT_JSON, "supported_mbs", NULL, lc->max_mbs);
	pr_string_keep(o, PRINT_ANY, "verdict", " %s",
		       ptm_link_verdict_name(lc->verdict));
	pr_text(o, "%s\n", lc->verdict == PTM_LINK_WIDTH_DOWN ?
		" (fault: lane, riser or seating)" :
		lc->verdict == PTM_LINK_SPEED_LOW ?
		" (idle power saving; trains up under load)" : "");
	pr_close_object(o);
}

static int link_check(struct ctx *c)
{
	struct ptm_link_check *lc;
	struct pt_topology t;
	struct ptc_topo pt;
	int n, i, faults = 0, idle = 0, r;
	struct pr o;

	r = model_topo(c, &t, &pt);
	if (r)
		return r;
	n = ptm_link_check(&pt, NULL, 0);
	lc = calloc(n > 0 ? (size_t)n : 1, sizeof(*lc));
	if (!lc) {
		model_topo_free(&t, &pt);
		fputs("topoctl: out of memory\n", c->err);
		return 1;
	}
	ptm_link_check(&pt, lc, (unsigned int)n);
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_text(&o, "%-14s %-6s %-12s %-12s %s\n", "device", "name", "trained",
		"supported", "verdict");
	pr_open_array(&o, PRINT_ANY, "links", NULL, NULL);
	for (i = 0; i < n; i++) {
		print_link(&o, &t, &lc[i]);
		if (lc[i].verdict == PTM_LINK_WIDTH_DOWN ||
		    lc[i].verdict == PTM_LINK_DOWN)
			faults++;
		else if (lc[i].verdict == PTM_LINK_SPEED_LOW)
			idle++;
	}
	pr_close_array(&o, NULL, NULL);
	pr_text(&o, "%d links: ", n);
	pr_int(&o, PRINT_ANY, "faults", "%d fault", faults);
	pr_text(&o, "%s", faults == 1 ? "" : "s");
	pr_int(&o, PRINT_ANY, "speed_low", ", %d at low speed\n", idle);
	pr_close_object(&o);
	r = pr_end(&o);
	free(lc);
	model_topo_free(&t, &pt);
	return r || faults ? 1 : 0;
}

/* --- measurement and predictions --------------------------------------- */

struct pred {
	bool have;
	struct pt_topology t;
	struct ptc_topo pt;
	struct ptm_consts model, ceil;
	int *node;		/* CUDA device -> node index, -1 */
};

static int find_node(const struct pt_topology *t, const char *busid)
{
	unsigned int dom, bus, dev, fn;
	char addr[PCITOPO_ADDR_LEN];
	const struct pt_device *d;

	if (sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4 ||
	    bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	snprintf(addr, sizeof(addr), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	d = pt_topology_find(t, addr);
	return d ? (int)(d - t->devices) : -1;
}

static void pred_open(struct ctx *c, const struct ptm_params *p,
		      const struct bench_out *o, struct pred *pr)
{
	struct ptm_params ideal = *p;
	int i;

	memset(pr, 0, sizeof(*pr));
	pr->node = calloc((size_t)o->n, sizeof(int));
	if (!pr->node || model_topo(c, &pr->t, &pr->pt)) {
		fputs("topoctl: note: no topology, no model figures\n", c->err);
		return;
	}
	ptm_consts_of(&pr->pt, p, &pr->model);
	ideal.v[PTM_P_PCIE_EFF] = 1;
	ideal.v[PTM_P_RC_P2P_EFF] = 1;
	ptm_consts_of(&pr->pt, &ideal, &pr->ceil);
	for (i = 0; i < o->n; i++)
		pr->node[i] = find_node(&pr->t, o->busid[i]);
	pr->have = true;
}

static void pred_close(struct pred *pr)
{
	if (pr->have)
		model_topo_free(&pr->t, &pr->pt);
	free(pr->node);
}

/* model and ceiling of i -> j (j < 0: host); 0 when unknown */
static void predict(const struct pred *pr, int i, int j, bool bidir,
		    double *model, double *ceil)
{
	double uni, bi;

	*model = *ceil = 0;
	if (!pr->have || pr->node[i] < 0 || (j >= 0 && pr->node[j] < 0))
		return;
	if (j < 0) {
		ptm_h2d_mbs(&pr->pt, &pr->model, (u32)pr->node[i], model);
		ptm_h2d_mbs(&pr->pt, &pr->ceil, (u32)pr->node[i], ceil);
		return;
	}
	if (!ptm_pair_mbs(&pr->pt, &pr->model, (u32)pr->node[i],
			  (u32)pr->node[j], &uni, &bi))
		*model = bidir ? bi : uni;
	if (!ptm_pair_mbs(&pr->pt, &pr->ceil, (u32)pr->node[i],
			  (u32)pr->node[j], &uni, &bi))
		*ceil = bidir ? bi : uni;
}

static void gpu_label(const struct pred *pr, const struct bench_out *o, int i,
		      char *buf, size_t len)
{
	if (pr->have && pr->node[i] >= 0) {
		pt_dev_name(&pr->t, &pr->t.devices[pr->node[i]], buf, len);
		if (buf[0])
			return;
	}
	snprintf(buf, len, "cuda%d", i);
	(void)o;
}

/* A figure measured, with the model's and the ceiling where known: MB/s in
 * the JSON, "meas / model / ceiling" GB/s in one column of the text (fmt,
 * taking that string). */
static void print_fig(struct pr *o, const char *key, const char *fmt,
		      double meas, double model, double ceil)
{
	char buf[40];

	if (model > 0)
		snprintf(buf, sizeof(buf), "%5.1f /%5.1f /%5.1f", meas / 1e3,
			 model / 1e3, ceil / 1e3);
	else
		snprintf(buf, sizeof(buf), "%5.1f /    - /    -", meas / 1e3);
	pr_open_object(o, PRINT_ANY, key);
	pr_u64(o, PRINT_JSON, "mbs", NULL, (uint64_t)(int64_t)meas);
	if (model > 0) {
		pr_u64(o, PRINT_JSON, "model_mbs", NULL,
		       (uint64_t)(int64_t)model);
		pr_u64(o, PRINT_JSON, "ceiling_mbs", NULL,
		       (uint64_t)(int64_t)ceil);
	}
	pr_text(o, fmt, buf);
	pr_close_object(o);
}

/* GPU i to GPU j: the class and limit the model sees, the figures. Peer
 * access leads the JSON entry (laid down first) and ends the row. */
static void print_pair(struct pr *o, const struct bench_out *b,
		       const struct pred *pr, int i, int j)
{
	char from[16], to[16], limit[PTM_LIMIT_LEN] = "";
	const char *cls = "-";
	bool peer = b->peer[i * b->n + j];
	struct ptm_pair pp;
	double m, cl;

	gpu_label(pr, b, i, from, sizeof(from));
	gpu_label(pr, b, j, to, sizeof(to));
	if (pr->have && pr->node[i] >= 0 && pr->node[j] >= 0 &&
	    !ptm_pair_detail(&pr->pt, &pr->model, (u32)pr->node[i],
			     (u32)pr->node[j], &pp)) {
		cls = ptc_class_name(pp.class);
		snprintf(limit, sizeof(limit), "%s", pp.limit);
	}
	pr_open_object(o, PRINT_ANY, NULL);
	pr_string_keep(o, PRINT_ANY, "from", "%-6s", from);
	pr_string_keep(o, PRINT_ANY, "to", " %-6s", to);
	pr_string_keep(o, PRINT_ANY, "class", " %-5s", cls);
	if (limit[0])
		pr_string_keep(o, PRINT_JSON, "model_limit", NULL, limit);
	pr_null(o, PRINT_JSON, "peer_access", NULL, NULL);
	predict(pr, i, j, false, &m, &cl);
	print_fig(o, "uni", " %-20s", b->uni[i * b->n + j], m, cl);
	predict(pr, i, j, true, &m, &cl);
	print_fig(o, "bidir", " %-20s", b->bidir[i * b->n + j], m, cl);
	pr_double(o, PRINT_ANY, "latency_us", " %6.2f us",
		  b->lat_us[i * b->n + j]);
	pr_bool(o, PRINT_ANY, "peer_access", peer ? "\n" :
		"  (no peer access)\n", peer);
	pr_close_object(o);
}

/* GPU i from and to the host. */
static void print_host(struct pr *o, const struct bench_out *b,
		       const struct pred *pr, int i)
{
	char gpu[16];
	double m, cl;

	gpu_label(pr, b, i, gpu, sizeof(gpu));
	predict(pr, i, -1, false, &m, &cl);
	pr_open_object(o, PRINT_ANY, NULL);
	pr_string_keep(o, PRINT_ANY, "gpu", "%-6s", gpu);
	pr_string_keep(o, PRINT_ANY, "bus_id", " %-18s", b->busid[i]);
	print_fig(o, "h2d", " %-20s", b->h2d[i], m, cl);
	print_fig(o, "d2h", " %s", b->d2h[i], m, cl);
	pr_nl(o);
	pr_close_object(o);
}

static int print_bench(struct ctx *c, const struct pt_cudart *rt,
		       const struct bench_opts *bo, const struct bench_out *b,
		       const struct pred *pr)
{
	char sz[24];
	struct pr o;
	int i, j;

	fmt_bytes(sz, sizeof(sz), (double)bo->cfg.size);
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_string_keep(&o, PRINT_ANY, "runtime", "%s, ", rt->soname);
	pr_text(&o, "%d devices, ", b->n);
	pr_uint_as(&o, PRINT_ANY, "size", bo->cfg.size, "%s x ", sz);
	pr_u64(&o, PRINT_ANY, "iterations", "%" PRIu64 " copies; GB/s one "
	       "direction: measured / model / ceiling\n\n", bo->cfg.iters);
	pr_text(&o, "%-6s %-6s %-5s %-20s %-20s %s\n", "from", "to", "class",
		"uni", "bidir (each way)", "latency");
	pr_open_array(&o, PRINT_ANY, "pairs", NULL, NULL);
	for (i = 0; i < b->n; i++)
		for (j = 0; j < b->n; j++)
			if (i != j)
				print_pair(&o, b, pr, i, j);
	pr_close_array(&o, NULL, NULL);
	pr_text(&o, "\n%-6s %-18s %-20s %s\n", "gpu", "bus id", "host->GPU",
		"GPU->host");
	pr_open_array(&o, PRINT_ANY, "host", NULL, NULL);
	for (i = 0; i < b->n; i++)
		print_host(&o, b, pr, i);
	pr_close_array(&o, NULL, NULL);
	pr_close_object(&o);
	return pr_end(&o);
}

int do_bench(struct ctx *c, int argc, char **argv)
{
	struct bench_opts o = { 0 };
	struct ptm_params p;
	struct pt_cudart rt;
	struct bench_out out;
	struct pred pr;
	char what[160];
	int r, n = 0;
	pt_cuda_err e;

	if (argc > 0 && !strcmp(argv[0], "help")) {
		print_object_help(c, "bench", NULL);
		return 0;
	}
	r = parse_bench(c, argc, argv, &o);
	if (r >= 0)
		return r;
	r = model_params(c, &o.model, &p);
	if (r)
		return r;
	if (o.link_check)
		return link_check(c);
	r = pt_cudart_open(&rt, what, sizeof(what));
	if (r == -ENOENT) {
		fprintf(c->err, "topoctl: no CUDA runtime (%s not found): "
			"nothing to measure\n", what);
		return EXIT_SKIP;
	}
	if (r) {
		fprintf(c->err, "topoctl: CUDA runtime unusable: %s missing\n",
			what);
		return 1;
	}
	e = rt.cudaGetDeviceCount(&n);
	if (e != PT_CUDA_SUCCESS || n < 1) {
		fprintf(c->err, "topoctl: no CUDA device (%s): nothing to "
			"measure\n", e != PT_CUDA_SUCCESS ?
			rt.cudaGetErrorString(e) : "count 0");
		pt_cudart_close(&rt);
		return EXIT_SKIP;
	}
	r = bench_measure(&rt, &o.cfg, n, &out, what, sizeof(what));
	if (r) {
		fprintf(c->err, "topoctl: measuring: %s\n",
			r == -EIO ? what : strerror(-r));
		pt_cudart_close(&rt);
		return 1;
	}
	pred_open(c, &p, &out, &pr);
	r = print_bench(c, &rt, &o, &out, &pr);
	pred_close(&pr);
	bench_out_free(&out);
	pt_cudart_close(&rt);
	return r ? 1 : 0;
}
