// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Compile-time check that cudart.h's declarations match CUDA's own: with
 * CUDA's types substituted, every function of PT_CUDART_FUNCS is declared
 * again after cuda_runtime_api.h; a different parameter or return type is
 * a "conflicting types" error. Built only where the header exists
 * (model/tests/run-tests); never linked.
 */
#include <cuda_runtime_api.h>

#define PT_CUDART_CHECK
typedef cudaError_t pt_cuda_err;
typedef cudaStream_t pt_cuda_stream;
typedef cudaEvent_t pt_cuda_event;
typedef enum cudaMemcpyKind pt_cuda_kind;
#include "cudart.h"

#define PT_CUDART_DECL(name, ret, params) extern ret name params;
PT_CUDART_FUNCS(PT_CUDART_DECL)

_Static_assert(sizeof(cudaError_t) == sizeof(int), "cudaError_t is int-sized");
_Static_assert(sizeof(enum cudaMemcpyKind) == sizeof(int),
	       "cudaMemcpyKind is int-sized");
_Static_assert(cudaSuccess == PT_CUDA_SUCCESS, "cudaSuccess is 0");
_Static_assert(cudaMemcpyHostToDevice == PT_CUDA_H2D, "H2D is 1");
_Static_assert(cudaMemcpyDeviceToHost == PT_CUDA_D2H, "D2H is 2");
_Static_assert(sizeof(cudaStream_t) == sizeof(void *), "streams are pointers");
_Static_assert(sizeof(cudaEvent_t) == sizeof(void *), "events are pointers");
