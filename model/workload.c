// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: workloads and what one training (or solver) step costs in
 * communication on a given topology.
 *
 * A workload is figures, never an answer: bytes all-reduced per step
 * (gradients: parameters x 4 bytes in fp32), samples per step per GPU,
 * bytes each sample brings from host memory, the GPU's compute rate, and
 * where the host data lives. Per step:
 *
 *   allreduce_s = 2(n-1)/n * grad_bytes / ring_busbw
 *   host_io_s   = time for every GPU to receive batch * bytes_per_sample
 *                 from host memory at once (flow.c: shared uplinks, UPI,
 *                 memory); local data comes from the GPU's own socket,
 *                 spread data from socket i*cpus/n for GPU i
 *   comm_s      = allreduce_s + host_io_s (not overlapped: an upper bound;
 *                 the ranking is the same under full overlap whenever one
 *                 term dominates)
 *   compute_s   = batch / samples_per_sec: the same in every layout.
 *
 * Reference figures (Documentation/bandwidth-model.md, "Workloads"):
 *   resnet50  25,557,032 parameters (torchvision resnet50; He et al. 2015)
 *             -> 102,228,128 bytes; batch 256 per GPU (NVIDIA
 *             DeepLearningExamples ResNet50 v1.5, AMP); 224x224x3 uint8 =
 *             150,528 bytes per image into the GPU (DALI's decoded crop;
 *             the ImageNet JPEG averages ~110 KB); 2,500 images/s per GPU
 *             (A100 class, AMP).
 *   vgg16     138,357,544 parameters (torchvision vgg16; Simonyan &
 *             Zisserman 2014) -> 553,430,176 bytes; batch 64 per GPU (the
 *             paper's 256 over 4 GPUs); 150,528 bytes per image; 750
 *             images/s per GPU.
 *   hpl       host-memory bound: each GPU streams 1 GiB per step between
 *             host memory and itself (out-of-core trailing-matrix tiles);
 *             the matrix fills the memory of every socket, each rank's part
 *             in its own socket (spread); 64 MiB of GPU-GPU exchange per
 *             step (panel broadcast, row swaps). Orders of magnitude, not a
 *             measurement.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ptm.h"

struct ref {
	const char *name;
	double grad, batch, sps, bps;
	enum ptm_placement place;
	const char *about;
};

static const struct ref refs[] = {
	{ "resnet50", 25557032.0 * 4, 256, 2500, 224 * 224 * 3, PTM_HOST_LOCAL,
	  "ResNet50: 25.6M params (102 MB fp32 gradients), batch 256/GPU, "
	  "150528 B decoded image/sample, 2500 img/s/GPU" },
	{ "vgg16", 138357544.0 * 4, 64, 750, 224 * 224 * 3, PTM_HOST_LOCAL,
	  "VGG16: 138M params (553 MB fp32 gradients), batch 64/GPU, "
	  "150528 B decoded image/sample, 750 img/s/GPU" },
	{ "hpl", 64.0 * 1048576, 1, 0, 1073741824.0, PTM_HOST_SPREAD,
	  "HPL: 1 GiB host<->GPU per GPU per step from memory of both sockets, "
	  "64 MiB GPU-GPU" },
	{ "compute", 64.0 * 1048576, 1, 0, 1073741824.0, PTM_HOST_SPREAD,
	  "compute (as hpl): host-memory bound, little P2P" },
	{ "p2p-heavy", 1e9, 32, 0, 224 * 224 * 3, PTM_HOST_LOCAL,
	  "P2P heavy: 1 GB all-reduced per step, 32 samples of 150528 B per GPU" },
	{ "host-io-heavy", 25e6, 512, 0, 224 * 224 * 3 * 4, PTM_HOST_LOCAL,
	  "host I/O heavy: 25 MB all-reduced, 512 samples of 602112 B "
	  "(fp32 tensors) per GPU" },
	{ "custom", 0, 0, 0, 0, PTM_HOST_LOCAL, "given by parameters" },
};

const char *const ptm_workload_names[] = {
	"resnet50", "vgg16", "hpl", "compute", "p2p-heavy", "host-io-heavy",
	"custom", NULL
};

int ptm_workload_ref(const char *name, struct ptm_workload *w)
{
	size_t i;

	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		if (strcmp(refs[i].name, name))
			continue;
		memset(w, 0, sizeof(*w));
		snprintf(w->name, sizeof(w->name), "%s", refs[i].name);
		w->grad_bytes = refs[i].grad;
		w->batch = refs[i].batch;
		w->samples_per_sec = refs[i].sps;
		w->bytes_per_sample = refs[i].bps;
		w->placement = refs[i].place;
		w->about = refs[i].about;
		return 0;
	}
	return -EINVAL;
}

static bool bad(double x)
{
	return !isfinite(x) || x < 0;
}

int ptm_cost(const struct ptc_topo *t, const struct ptm_eval *e,
	     unsigned int cpus, const struct ptm_workload *w,
	     struct ptm_cost *out)
{
	struct ptm_flows *f;
	double bytes;
	unsigned int i, n = e->ngpus, s;
	int r;

	memset(out, 0, sizeof(*out));
	if (bad(w->grad_bytes) || bad(w->batch) || bad(w->samples_per_sec) ||
	    bad(w->bytes_per_sample) || !cpus || cpus > PTM_MAX_SOCKETS || !n)
		return -EINVAL;
	if (n > 1 && w->grad_bytes > 0) {
		if (e->ring_busbw <= 0)
			return -EINVAL;
		out->allreduce_s = 2.0 * (n - 1) / n * w->grad_bytes /
				   (e->ring_busbw * 1e6);
		snprintf(out->ar_limit, sizeof(out->ar_limit), "%s",
			 e->ring_limit);
	}
	bytes = w->batch * w->bytes_per_sample;
	if (bytes > 0) {
		r = ptm_flows_new(t, &e->c, &f);
		if (r)
			return r;
		for (i = 0; i < n && !r; i++) {
			s = w->placement == PTM_HOST_SPREAD ? i * cpus / n :
			    ptm_socket(t, e->gpu[i]);
			r = ptm_flow_host(f, s, e->gpu[i], bytes, 1);
		}
		if (!r)
			out->host_io_s = ptm_flows_time(f, out->io_limit,
							sizeof(out->io_limit));
		ptm_flows_free(f);
		if (r)
			return r;
	}
	out->comm_s = out->allreduce_s + out->host_io_s;
	if (w->samples_per_sec > 0 && w->batch > 0) {
		out->compute_s = w->batch / w->samples_per_sec;
		out->samples_per_sec = w->batch / (out->compute_s + out->comm_s);
	}
	return 0;
}
