// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl bench: the measurement, through the CUDA runtime loaded by
 * cudart.c, after CUDA's p2pBandwidthLatencyTest and OSU's latency, bw and
 * bibw:
 *   uni     cfg->iters copies of cfg->size bytes GPUi -> GPUj with
 *           cudaMemcpyPeerAsync on a stream of GPUi, timed by events;
 *   bidir   the same both ways at once (two streams, the second waiting on
 *           the first's start event); the figure is the rate of EACH
 *           direction (OSU bibw prints the sum, twice this);
 *   lat_us  cfg->lat_iters 4-byte copies, time per copy: copy latency,
 *           launch overhead included;
 *   h2d/d2h cudaMemcpyAsync from/to one pinned (cudaMallocHost) buffer,
 *           allocated by this thread (its NUMA node's memory).
 * Peer access is enabled wherever cudaDeviceCanAccessPeer allows; other
 * pairs are copied by the runtime through host memory (peer = 0).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define CUDA_PEER_ALREADY_ENABLED	704	/* cudaErrorPeerAccessAlreadyEnabled */

struct dev {
	void *a, *b;		/* source and destination buffers */
	pt_cuda_stream s;
	pt_cuda_event start, stop;
};

#define CK(call)							\
	do {								\
		pt_cuda_err e_ = rt->call;				\
		if (e_ != PT_CUDA_SUCCESS) {				\
			snprintf(err, len, "%s: %s", #call,		\
				 rt->cudaGetErrorString(e_));		\
			r = -EIO;					\
			goto out;					\
		}							\
	} while (0)

static double mbs(size_t bytes, unsigned long n, float ms)
{
	return ms > 0 ? (double)bytes * n / (ms / 1e3) / 1e6 : 0;
}

void bench_out_free(struct bench_out *o)
{
	free(o->busid);
	free(o->peer);
	free(o->uni);
	free(o->bidir);
	free(o->lat_us);
	free(o->h2d);
	free(o->d2h);
	memset(o, 0, sizeof(*o));
}

static int alloc_out(struct bench_out *o, int n)
{
	size_t nn = (size_t)n * (size_t)n;

	memset(o, 0, sizeof(*o));
	o->n = n;
	o->busid = calloc((size_t)n, sizeof(*o->busid));
	o->peer = calloc(nn, sizeof(int));
	o->uni = calloc(nn, sizeof(double));
	o->bidir = calloc(nn, sizeof(double));
	o->lat_us = calloc(nn, sizeof(double));
	o->h2d = calloc((size_t)n, sizeof(double));
	o->d2h = calloc((size_t)n, sizeof(double));
	if (!o->busid || !o->peer || !o->uni || !o->bidir || !o->lat_us ||
	    !o->h2d || !o->d2h) {
		bench_out_free(o);
		return -ENOMEM;
	}
	return 0;
}

int bench_measure(struct pt_cudart *rt, const struct bench_cfg *cfg, int n,
		  struct bench_out *o, char *err, size_t len)
{
	struct dev *d = calloc((size_t)n, sizeof(*d));
	void *host = NULL;
	unsigned long k;
	int i, j, r;
	float ms;

	if (!d)
		return -ENOMEM;
	r = alloc_out(o, n);
	if (r) {
		free(d);
		return r;
	}
	for (i = 0; i < n; i++) {
		CK(cudaDeviceGetPCIBusId(o->busid[i], (int)sizeof(o->busid[i]), i));
		CK(cudaSetDevice(i));
		CK(cudaMalloc(&d[i].a, cfg->size));
		CK(cudaMalloc(&d[i].b, cfg->size));
		CK(cudaStreamCreate(&d[i].s));
		CK(cudaEventCreate(&d[i].start));
		CK(cudaEventCreate(&d[i].stop));
		for (j = 0; j < n; j++) {
			int ok = 0;
			pt_cuda_err e;

			if (i == j)
				continue;
			CK(cudaDeviceCanAccessPeer(&ok, i, j));
			o->peer[i * n + j] = ok;
			if (!ok)
				continue;
			e = rt->cudaDeviceEnablePeerAccess(j, 0);
			if (e != PT_CUDA_SUCCESS &&
			    e != CUDA_PEER_ALREADY_ENABLED) {
				snprintf(err, len, "cudaDeviceEnablePeerAccess"
					 "(%d -> %d): %s", i, j,
					 rt->cudaGetErrorString(e));
				r = -EIO;
				goto out;
			}
		}
	}
	CK(cudaMallocHost(&host, cfg->size));

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			struct dev *a = &d[i], *b = &d[j];

			if (i == j)
				continue;
			/* unidirectional */
			CK(cudaSetDevice(i));
			for (k = 0; k < cfg->warmup; k++)
				CK(cudaMemcpyPeerAsync(b->b, j, a->a, i,
						       cfg->size, a->s));
			CK(cudaEventRecord(a->start, a->s));
			for (k = 0; k < cfg->iters; k++)
				CK(cudaMemcpyPeerAsync(b->b, j, a->a, i,
						       cfg->size, a->s));
			CK(cudaEventRecord(a->stop, a->s));
			CK(cudaEventSynchronize(a->stop));
			CK(cudaEventElapsedTime(&ms, a->start, a->stop));
			o->uni[i * n + j] = mbs(cfg->size, cfg->iters, ms);

			/* bidirectional: b's stream starts with a's */
			CK(cudaEventRecord(a->start, a->s));
			CK(cudaStreamWaitEvent(b->s, a->start, 0));
			for (k = 0; k < cfg->iters; k++) {
				CK(cudaMemcpyPeerAsync(b->b, j, a->a, i,
						       cfg->size, a->s));
				CK(cudaMemcpyPeerAsync(a->b, i, b->a, j,
						       cfg->size, b->s));
			}
			CK(cudaEventRecord(b->stop, b->s));
			CK(cudaStreamWaitEvent(a->s, b->stop, 0));
			CK(cudaEventRecord(a->stop, a->s));
			CK(cudaEventSynchronize(a->stop));
			CK(cudaEventElapsedTime(&ms, a->start, a->stop));
			o->bidir[i * n + j] = mbs(cfg->size, cfg->iters, ms);

			/* latency */
			CK(cudaEventRecord(a->start, a->s));
			for (k = 0; k < cfg->lat_iters; k++)
				CK(cudaMemcpyPeerAsync(b->b, j, a->a, i, 4,
						       a->s));
			CK(cudaEventRecord(a->stop, a->s));
			CK(cudaEventSynchronize(a->stop));
			CK(cudaEventElapsedTime(&ms, a->start, a->stop));
			o->lat_us[i * n + j] = ms * 1e3 / cfg->lat_iters;
		}
	}
	for (i = 0; i < n; i++) {
		struct dev *a = &d[i];
		int dir;

		CK(cudaSetDevice(i));
		for (dir = 0; dir < 2; dir++) {
			void *dst = dir ? host : a->a;
			const void *src = dir ? a->a : host;
			pt_cuda_kind kind = dir ? PT_CUDA_D2H : PT_CUDA_H2D;

			for (k = 0; k < cfg->warmup; k++)
				CK(cudaMemcpyAsync(dst, src, cfg->size, kind,
						   a->s));
			CK(cudaEventRecord(a->start, a->s));
			for (k = 0; k < cfg->iters; k++)
				CK(cudaMemcpyAsync(dst, src, cfg->size, kind,
						   a->s));
			CK(cudaEventRecord(a->stop, a->s));
			CK(cudaEventSynchronize(a->stop));
			CK(cudaEventElapsedTime(&ms, a->start, a->stop));
			(dir ? o->d2h : o->h2d)[i] = mbs(cfg->size, cfg->iters,
							 ms);
		}
	}
	r = 0;
out:
	for (i = 0; i < n; i++) {
		if (rt->cudaSetDevice(i) != PT_CUDA_SUCCESS)
			continue;
		if (d[i].s)
			(void)rt->cudaStreamSynchronize(d[i].s);
		if (d[i].start)
			(void)rt->cudaEventDestroy(d[i].start);
		if (d[i].stop)
			(void)rt->cudaEventDestroy(d[i].stop);
		if (d[i].s)
			(void)rt->cudaStreamDestroy(d[i].s);
		if (d[i].a)
			(void)rt->cudaFree(d[i].a);
		if (d[i].b)
			(void)rt->cudaFree(d[i].b);
	}
	if (host)
		(void)rt->cudaFreeHost(host);
	free(d);
	if (r)
		bench_out_free(o);
	return r;
}
