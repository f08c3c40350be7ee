/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The server topologies the core tests share, described the way a data
 * sheet would, plus a path-matrix check that reads like `nvidia-smi topo -m`.
 */
#ifndef PCITOPO_TESTS_SERVERS_H
#define PCITOPO_TESTS_SERVERS_H

#include "synth.h"

#define SERVER_MAX	16

struct server {
	int gpu[SERVER_MAX];
	int ngpu;
	int nic[SERVER_MAX];
	int nnic;
	int sw[SERVER_MAX];	/* upstream ports, in creation order */
	int nsw;
	int rp[SERVER_MAX];
	int nrp;
	int ds[SERVER_MAX][SERVER_MAX];	/* downstream ports of each switch */
};

/* Balance: two host bridges (pxb) 0000:00 on NUMA 0 and 0000:80 on NUMA 1,
 * one x16 root port each, one switch each with 4 GPUs on its first four
 * downstream ports; a NIC on switch 0's fifth port. numa < 0 builds the same
 * with NUMA unknown. */
void server_balance(struct synth *s, struct server *v, int numa0, int numa1);
/* Common: one host bridge 0000:00 (NUMA 0), two root ports, a switch of 4
 * GPUs on each; a NIC on switch 0's fifth port. */
void server_common(struct synth *s, struct server *v, int numa);
/* Cascade: one root port; switch 0 with GPUs 0-3 on ports 0-3, a NIC on
 * port 4 and switch 1 (GPUs 4-7) on port 5. */
void server_cascade(struct synth *s, struct server *v);

/*
 * Check the path class of every ordered pair of the endpoints idx[0..n-1]
 * against rows of names ("X PIX SYS ..."), one TAP line, with a comment per
 * mismatch. A second TAP line checks the matrix is symmetric in class, hops,
 * common and bottleneck bandwidth.
 */
void check_matrix(const struct synth *s, const int *idx, int n,
		  const char *const *rows, const char *what);
/* Hops of every ordered pair against a table, one TAP line. */
void check_hops(const struct synth *s, const int *idx, int n, const int *hops,
		const char *what);

#endif /* PCITOPO_TESTS_SERVERS_H */
