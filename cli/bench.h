/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl bench: the measurement (bench_cuda.c) apart from the options and
 * printing (bench.c).
 */
#ifndef PCITOPO_CLI_BENCH_H
#define PCITOPO_CLI_BENCH_H

#include <stddef.h>

#include "cudart.h"

struct bench_cfg {
	size_t size;		/* bytes per copy, bandwidth runs */
	unsigned long iters;	/* copies timed per figure */
	unsigned long warmup;	/* copies before timing */
	unsigned long lat_iters;/* 4-byte copies per latency figure */
};

/* Results for n CUDA devices; matrices are n x n, row = source. MB/s and
 * microseconds; 0 on the diagonal. */
struct bench_out {
	int n;
	char (*busid)[32];	/* cudaDeviceGetPCIBusId */
	int *peer;		/* n x n: cudaDeviceCanAccessPeer */
	double *uni, *bidir, *lat_us;
	double *h2d, *d2h;
};

/* Measure everything; err says what failed (a CUDA call and its error).
 * -EIO on a CUDA error, -ENOMEM. */
int bench_measure(struct pt_cudart *rt, const struct bench_cfg *cfg, int n,
		  struct bench_out *out, char *err, size_t len);
void bench_out_free(struct bench_out *out);

#endif /* PCITOPO_CLI_BENCH_H */
