// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Benchmark of the core: ptc_resolve() and every ordered GPU pair's
 * ptc_path() on synthetic trees of 8 to 4096 GPUs (GPUs under switches of 4
 * to 16 ports; a top switch per root port once there are more leaf switches
 * than root ports; root ports on their own host bridges across 2 to 4 NUMA
 * nodes). Prints figures, and the per-pair cost at N against N = 8 measured
 * in the same run: a ratio near 1 means the path table grows linearly in
 * pairs. Asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "synth.h"

struct shape {
	int gpus, ports, numa;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Build the tree; GPU indexes go to gpu[]. */
static void build(struct synth *s, const struct shape *sh, int *gpu)
{
	int leafs = (sh->gpus + sh->ports - 1) / sh->ports;
	int roots = leafs / sh->ports > 2 * sh->numa ? leafs / sh->ports :
						       2 * sh->numa;
	int per_root, r, l, k, n = 0, port, up, top[64], ds[64];

	if (roots > leafs)
		roots = leafs;
	per_root = (leafs + roots - 1) / roots;
	for (r = 0; r < roots && n < sh->gpus; r++) {
		port = synth_root_port(s, (u32)(r / 8), (u8)((r % 8) * 0x20),
				       r % sh->numa);
		if (per_root > 1)
			synth_switch(s, port, 0x10b5, 0xc040, per_root, top);
		for (l = 0; l < per_root && n < sh->gpus; l++) {
			up = synth_switch(s, per_root > 1 ? top[l] : port,
					  0x10b5, 0xc040, sh->ports, ds);
			(void)up;
			for (k = 0; k < sh->ports && n < sh->gpus; k++)
				gpu[n++] = synth_gpu(s, ds[k]);
		}
	}
}

/* Nanoseconds per call of ptc_resolve(), repeated for at least 20 ms. */
static double time_resolve(struct synth *s)
{
	double t0 = now_ns(), t;
	long reps = 0;

	do {
		if (synth_resolve(s))
			abort();
		reps++;
		t = now_ns() - t0;
	} while (t < 20e6);
	return t / reps;
}

/* Nanoseconds per ordered pair, all pairs, repeated for at least 20 ms. */
static double time_pairs(const struct synth *s, const int *gpu, int n,
			 unsigned long *sum)
{
	double t0 = now_ns(), t;
	struct ptc_path p;
	long reps = 0;
	int a, b;

	do {
		for (a = 0; a < n; a++)
			for (b = 0; b < n; b++) {
				if (a == b)
					continue;
				ptc_path(&s->topo, gpu[a], gpu[b], &p);
				*sum += p.class + p.hops;
			}
		reps++;
		t = now_ns() - t0;
	} while (t < 20e6);
	return t / ((double)reps * n * (n - 1));
}

int main(void)
{
	static const struct shape shapes[] = {
		{ 8, 4, 2 }, { 64, 8, 2 }, { 512, 16, 4 }, { 4096, 16, 4 },
	};
	double base = 0, per_pair, res, t0, lay;
	unsigned long sum = 0;
	struct ptc_layout l;
	struct synth s;
	unsigned int i;
	int *gpu;

	printf("# core benchmark: resolve and all ordered GPU pairs\n");
	printf("# %6s %6s %6s %10s %12s %10s %10s %11s  %s\n", "gpus", "nodes",
	       "depth", "pairs", "resolve_us", "ns/node", "ns/pair",
	       "pair_ratio", "layout");
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *sh = &shapes[i];
		unsigned long pairs = (unsigned long)sh->gpus * (sh->gpus - 1);

		synth_init(&s, (unsigned int)sh->gpus * 2 + 1024);
		gpu = calloc((size_t)sh->gpus, sizeof(*gpu));
		if (!gpu)
			return 2;
		build(&s, sh, gpu);
		res = time_resolve(&s);
		per_pair = time_pairs(&s, gpu, sh->gpus, &sum);
		if (!base)
			base = per_pair;
		t0 = now_ns();
		ptc_layout(&s.topo, &l);
		lay = now_ns() - t0;
		printf("  %6d %6u %6u %10lu %12.1f %10.1f %10.1f %11.2f  %s (%s), %.0f us\n",
		       sh->gpus, s.topo.count, s.nodes[gpu[0]].depth, pairs,
		       res / 1e3, res / s.topo.count, per_pair,
		       per_pair / base, ptc_layout_name(l.layout), l.reason,
		       lay / 1e3);
		free(gpu);
		synth_free(&s);
	}
	printf("# checksum %lu\n", sum);
	return 0;
}
