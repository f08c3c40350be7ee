/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl: the few CUDA runtime functions `topoctl bench` calls, loaded at
 * run time with dlopen("libcudart.so") (then .so.12, .so.11), so that
 * topoctl builds without CUDA and runs on a server without it.
 *
 * The types are declared here, not taken from CUDA's headers: cudaError_t
 * is an int-sized enum (0 = cudaSuccess), streams and events are opaque
 * pointers, cudaMemcpyKind an int-sized enum (1 host to device, 2 device to
 * host). tests/cudart_check.c (model/tests/run-tests compiles it where
 * /usr/local/cuda/include/cuda_runtime_api.h exists) redeclares every
 * function below with CUDA's types and fails to compile on any mismatch.
 */
#ifndef PCITOPO_CLI_CUDART_H
#define PCITOPO_CLI_CUDART_H

#include <stddef.h>

#ifndef PT_CUDART_CHECK
typedef int pt_cuda_err;
typedef struct pt_cuda_stream_s *pt_cuda_stream;
typedef struct pt_cuda_event_s *pt_cuda_event;
typedef int pt_cuda_kind;
#endif

#define PT_CUDA_SUCCESS		0
#define PT_CUDA_H2D		1
#define PT_CUDA_D2H		2

/* X(name, return type, parameters): one line per function used. */
#define PT_CUDART_FUNCS(X) \
	X(cudaGetDeviceCount, pt_cuda_err, (int *count)) \
	X(cudaSetDevice, pt_cuda_err, (int device)) \
	X(cudaMalloc, pt_cuda_err, (void **ptr, size_t size)) \
	X(cudaMallocHost, pt_cuda_err, (void **ptr, size_t size)) \
	X(cudaFree, pt_cuda_err, (void *ptr)) \
	X(cudaFreeHost, pt_cuda_err, (void *ptr)) \
	X(cudaMemcpyPeerAsync, pt_cuda_err, (void *dst, int dstDevice, \
		const void *src, int srcDevice, size_t count, \
		pt_cuda_stream stream)) \
	X(cudaMemcpyAsync, pt_cuda_err, (void *dst, const void *src, \
		size_t count, pt_cuda_kind kind, pt_cuda_stream stream)) \
	X(cudaDeviceEnablePeerAccess, pt_cuda_err, (int peerDevice, \
		unsigned int flags)) \
	X(cudaDeviceCanAccessPeer, pt_cuda_err, (int *canAccessPeer, \
		int device, int peerDevice)) \
	X(cudaEventCreate, pt_cuda_err, (pt_cuda_event *event)) \
	X(cudaEventRecord, pt_cuda_err, (pt_cuda_event event, \
		pt_cuda_stream stream)) \
	X(cudaEventSynchronize, pt_cuda_err, (pt_cuda_event event)) \
	X(cudaEventElapsedTime, pt_cuda_err, (float *ms, pt_cuda_event start, \
		pt_cuda_event end)) \
	X(cudaEventDestroy, pt_cuda_err, (pt_cuda_event event)) \
	X(cudaStreamCreate, pt_cuda_err, (pt_cuda_stream *stream)) \
	X(cudaStreamSynchronize, pt_cuda_err, (pt_cuda_stream stream)) \
	X(cudaStreamWaitEvent, pt_cuda_err, (pt_cuda_stream stream, \
		pt_cuda_event event, unsigned int flags)) \
	X(cudaStreamDestroy, pt_cuda_err, (pt_cuda_stream stream)) \
	X(cudaGetErrorString, const char *, (pt_cuda_err error)) \
	X(cudaDeviceGetPCIBusId, pt_cuda_err, (char *pciBusId, int len, \
		int device))

#define PT_CUDART_PTR(name, ret, params) ret (*name) params;
struct pt_cudart {
	void *handle;
	const char *soname;	/* the name that loaded */
	PT_CUDART_FUNCS(PT_CUDART_PTR)
};
#undef PT_CUDART_PTR

/*
 * Load the runtime: $TOPOCTL_CUDART if set (a path or soname; tests point
 * it at a library that does not exist), else libcudart.so, libcudart.so.12,
 * libcudart.so.11. -ENOENT if none loads, -ENOEXEC if one lacks a function
 * (what names which: missing, at least 64 bytes).
 */
int pt_cudart_open(struct pt_cudart *rt, char *what, size_t len);
void pt_cudart_close(struct pt_cudart *rt);

#endif /* PCITOPO_CLI_CUDART_H */
