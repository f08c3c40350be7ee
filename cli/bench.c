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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
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

static int link_check(struct ctx *c)
{
	struct ptm_link_check *lc;
	struct pt_topology t;
	struct ptc_topo pt;
	struct json_object *arr = NULL;
	int n, i, faults = 0, idle = 0, r;

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
	if (c->json)
		arr = json_object_new_array();
	else
		fprintf(c->out, "%-14s %-6s %-12s %-12s %s\n", "device", "name",
			"trained", "supported", "verdict");
	for (i = 0; i < n; i++) {
		const struct pt_device *d = &t.devices[lc[i].node];
		char name[16], cur[24], max[24];
		const char *v = ptm_link_verdict_name(lc[i].verdict);

		pt_dev_name(&t, d, name, sizeof(name));
		fmt_link(cur, sizeof(cur), lc[i].cur.speed, lc[i].cur.width);
		fmt_link(max, sizeof(max), lc[i].max.speed, lc[i].max.width);
		if (lc[i].verdict == PTM_LINK_WIDTH_DOWN ||
		    lc[i].verdict == PTM_LINK_DOWN)
			faults++;
		else if (lc[i].verdict == PTM_LINK_SPEED_LOW)
			idle++;
		if (arr) {
			struct json_object *o = json_object_new_object();

			json_object_object_add(o, "addr",
					       json_object_new_string(d->addr));
			if (name[0])
				json_object_object_add(o, "name",
					json_object_new_string(name));
			json_object_object_add(o, "trained",
					       json_object_new_string(cur));
			json_object_object_add(o, "supported",
					       json_object_new_string(max));
			json_object_object_add(o, "trained_mbs",
				json_object_new_int64(lc[i].cur_mbs));
			json_object_object_add(o, "supported_mbs",
				json_object_new_int64(lc[i].max_mbs));
			json_object_object_add(o, "verdict",
					       json_object_new_string(v));
			json_object_array_add(arr, o);
			continue;
		}
		fprintf(c->out, "%-14s %-6s %-12s %-12s %s%s\n", d->addr,
			name[0] ? name : "-", cur, max, v,
			lc[i].verdict == PTM_LINK_WIDTH_DOWN ?
			" (fault: lane, riser or seating)" :
			lc[i].verdict == PTM_LINK_SPEED_LOW ?
			" (idle power saving; trains up under load)" : "");
	}
	if (arr) {
		struct json_object *root = json_object_new_object();

		json_object_object_add(root, "links", arr);
		json_object_object_add(root, "faults",
				       json_object_new_int(faults));
		json_object_object_add(root, "speed_low",
				       json_object_new_int(idle));
		emit_json(c, root);
	} else {
		fprintf(c->out, "%d links: %d fault%s, %d at low speed\n", n,
			faults, faults == 1 ? "" : "s", idle);
	}
	free(lc);
	model_topo_free(&t, &pt);
	return faults ? 1 : 0;
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

static void fig(char *buf, size_t len, double meas, double model, double ceil)
{
	if (model > 0)
		snprintf(buf, len, "%5.1f /%5.1f /%5.1f", meas / 1e3,
			 model / 1e3, ceil / 1e3);
	else
		snprintf(buf, len, "%5.1f /    - /    -", meas / 1e3);
}

static struct json_object *jfig(double meas, double model, double ceil)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "mbs", json_object_new_int64((int64_t)meas));
	if (model > 0) {
		json_object_object_add(o, "model_mbs",
				       json_object_new_int64((int64_t)model));
		json_object_object_add(o, "ceiling_mbs",
				       json_object_new_int64((int64_t)ceil));
	}
	return o;
}

static void print_bench(struct ctx *c, const struct pt_cudart *rt,
			const struct bench_opts *bo, const struct bench_out *o,
			const struct pred *pr)
{
	struct json_object *root = NULL, *pairs = NULL, *hosts = NULL;
	char a[16], b[16], f1[40], f2[40], sz[24];
	double m, cl;
	int i, j, n = o->n;

	if (c->json) {
		root = json_object_new_object();
		pairs = json_object_new_array();
		hosts = json_object_new_array();
	} else {
		fmt_bytes(sz, sizeof(sz), (double)bo->cfg.size);
		fprintf(c->out, "%s, %d devices, %s x %lu copies; GB/s one "
			"direction: measured / model / ceiling\n\n", rt->soname,
			n, sz, bo->cfg.iters);
		fprintf(c->out, "%-6s %-6s %-5s %-20s %-20s %s\n", "from", "to",
			"class", "uni", "bidir (each way)", "latency");
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			char limit[PTM_LIMIT_LEN];
			const char *cls = "-";
			struct ptm_pair pp;
			double bm, bc;

			if (i == j)
				continue;
			gpu_label(pr, o, i, a, sizeof(a));
			gpu_label(pr, o, j, b, sizeof(b));
			limit[0] = '\0';
			if (pr->have && pr->node[i] >= 0 && pr->node[j] >= 0 &&
			    !ptm_pair_detail(&pr->pt, &pr->model,
					     (u32)pr->node[i], (u32)pr->node[j],
					     &pp)) {
				cls = ptc_class_name(pp.class);
				snprintf(limit, sizeof(limit), "%s", pp.limit);
			}
			predict(pr, i, j, false, &m, &cl);
			predict(pr, i, j, true, &bm, &bc);
			if (pairs) {
				struct json_object *x = json_object_new_object();

				json_object_object_add(x, "from",
						       json_object_new_string(a));
				json_object_object_add(x, "to",
						       json_object_new_string(b));
				json_object_object_add(x, "class",
						       json_object_new_string(cls));
				if (limit[0])
					json_object_object_add(x, "model_limit",
						json_object_new_string(limit));
				json_object_object_add(x, "peer_access",
					json_object_new_boolean(o->peer[i * n + j]));
				json_object_object_add(x, "uni",
					jfig(o->uni[i * n + j], m, cl));
				json_object_object_add(x, "bidir",
					jfig(o->bidir[i * n + j], bm, bc));
				json_object_object_add(x, "latency_us",
					json_object_new_double(o->lat_us[i * n + j]));
				json_object_array_add(pairs, x);
				continue;
			}
			fig(f1, sizeof(f1), o->uni[i * n + j], m, cl);
			fig(f2, sizeof(f2), o->bidir[i * n + j], bm, bc);
			fprintf(c->out, "%-6s %-6s %-5s %-20s %-20s %6.2f us%s\n",
				a, b, cls, f1, f2, o->lat_us[i * n + j],
				o->peer[i * n + j] ? "" : "  (no peer access)");
		}
	}
	if (!c->json)
		fprintf(c->out, "\n%-6s %-18s %-20s %s\n", "gpu", "bus id",
			"host->GPU", "GPU->host");
	for (i = 0; i < n; i++) {
		gpu_label(pr, o, i, a, sizeof(a));
		predict(pr, i, -1, false, &m, &cl);
		if (hosts) {
			struct json_object *x = json_object_new_object();

			json_object_object_add(x, "gpu", json_object_new_string(a));
			json_object_object_add(x, "bus_id",
					       json_object_new_string(o->busid[i]));
			json_object_object_add(x, "h2d", jfig(o->h2d[i], m, cl));
			json_object_object_add(x, "d2h", jfig(o->d2h[i], m, cl));
			json_object_array_add(hosts, x);
			continue;
		}
		fig(f1, sizeof(f1), o->h2d[i], m, cl);
		fig(f2, sizeof(f2), o->d2h[i], m, cl);
		fprintf(c->out, "%-6s %-18s %-20s %s\n", a, o->busid[i], f1, f2);
	}
	if (root) {
		json_object_object_add(root, "runtime",
				       json_object_new_string(rt->soname));
		json_object_object_add(root, "size",
				       json_object_new_int64((int64_t)bo->cfg.size));
		json_object_object_add(root, "iterations",
				       json_object_new_int64((int64_t)bo->cfg.iters));
		json_object_object_add(root, "pairs", pairs);
		json_object_object_add(root, "host", hosts);
		emit_json(c, root);
	}
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
	print_bench(c, &rt, &o, &out, &pr);
	pred_close(&pr);
	bench_out_free(&out);
	pt_cudart_close(&rt);
	return 0;
}
