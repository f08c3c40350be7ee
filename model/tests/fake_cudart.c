// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A stand-in libcudart for the tests of `topoctl bench` on machines without
 * a GPU: two devices at the bus addresses of GPU0 and GPU1 of the saved
 * cascade tree, copies that do nothing, and every event pair 10 ms apart.
 * Loaded through TOPOCTL_CUDART; it checks what a runtime would refuse
 * (bad device numbers, copies into unallocated memory are not detected).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int err_t;
static int cur;
static int events[64], nevents;

err_t cudaGetDeviceCount(int *n) { *n = 2; return 0; }
err_t cudaSetDevice(int d) { if (d < 0 || d > 1) return 101; cur = d; return 0; }
err_t cudaMalloc(void **p, size_t n) { *p = malloc(n); return *p ? 0 : 2; }
err_t cudaMallocHost(void **p, size_t n) { *p = malloc(n); return *p ? 0 : 2; }
err_t cudaFree(void *p) { free(p); return 0; }
err_t cudaFreeHost(void *p) { free(p); return 0; }
err_t cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t n,
			  void *s)
{
	(void)s;
	if (dd < 0 || dd > 1 || sd < 0 || sd > 1 || !dst || !src)
		return 1;
	memcpy(dst, src, n);
	return 0;
}
err_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *s)
{
	(void)s;
	if (kind != 1 && kind != 2)
		return 21;
	memcpy(dst, src, n);
	return 0;
}
err_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
	return peer == cur || flags ? 1 : 0;
}
err_t cudaDeviceCanAccessPeer(int *ok, int d, int peer) { *ok = d != peer; return 0; }
err_t cudaEventCreate(void **e)
{
	if (nevents == 64)
		return 2;
	*e = &events[nevents++];
	return 0;
}
err_t cudaEventRecord(void *e, void *s) { (void)s; return e ? 0 : 400; }
err_t cudaEventSynchronize(void *e) { return e ? 0 : 400; }
err_t cudaEventElapsedTime(float *ms, void *a, void *b)
{
	*ms = 10.0f;
	return a && b ? 0 : 400;
}
err_t cudaEventDestroy(void *e) { (void)e; return 0; }
err_t cudaStreamCreate(void **s) { static int st[2]; *s = &st[cur]; return 0; }
err_t cudaStreamSynchronize(void *s) { (void)s; return 0; }
err_t cudaStreamWaitEvent(void *s, void *e, unsigned int f) { (void)s; return e && !f ? 0 : 1; }
err_t cudaStreamDestroy(void *s) { (void)s; return 0; }
const char *cudaGetErrorString(err_t e) { return e ? "fake error" : "no error"; }
err_t cudaDeviceGetPCIBusId(char *buf, int len, int d)
{
	snprintf(buf, (size_t)len, "00000000:%02X:00.0", d ? 0x24 : 0x23);
	return 0;
}
