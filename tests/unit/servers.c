// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The server topologies the core tests share; see servers.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "servers.h"
#include "tap.h"

static int server_switch(struct synth *s, struct server *v, int port,
			 int nds)
{
	int k = v->nsw++;

	v->sw[k] = synth_switch(s, port, 0x10b5, 0xc040, nds, v->ds[k]);
	return k;
}

static void server_gpus(struct synth *s, struct server *v, int k, int n)
{
	int i;

	for (i = 0; i < n; i++)
		v->gpu[v->ngpu++] = synth_gpu(s, v->ds[k][i]);
}

void server_balance(struct synth *s, struct server *v, int numa0, int numa1)
{
	int k;

	memset(v, 0, sizeof(*v));
	v->rp[v->nrp++] = synth_root_port(s, 0, 0x00, numa0);
	v->rp[v->nrp++] = synth_root_port(s, 0, 0x80, numa1);
	k = server_switch(s, v, v->rp[0], 5);
	server_gpus(s, v, k, 4);
	v->nic[v->nnic++] = synth_nic(s, v->ds[k][4]);
	k = server_switch(s, v, v->rp[1], 4);
	server_gpus(s, v, k, 4);
}

void server_common(struct synth *s, struct server *v, int numa)
{
	int k;

	memset(v, 0, sizeof(*v));
	v->rp[v->nrp++] = synth_root_port(s, 0, 0x00, numa);
	v->rp[v->nrp++] = synth_root_port(s, 0, 0x00, numa);
	k = server_switch(s, v, v->rp[0], 5);
	server_gpus(s, v, k, 4);
	v->nic[v->nnic++] = synth_nic(s, v->ds[k][4]);
	k = server_switch(s, v, v->rp[1], 4);
	server_gpus(s, v, k, 4);
}

void server_cascade(struct synth *s, struct server *v)
{
	int k0, k1;

	memset(v, 0, sizeof(*v));
	v->rp[v->nrp++] = synth_root_port(s, 0, 0x00, 0);
	k0 = server_switch(s, v, v->rp[0], 6);
	server_gpus(s, v, k0, 4);
	v->nic[v->nnic++] = synth_nic(s, v->ds[k0][4]);
	k1 = server_switch(s, v, v->ds[k0][5], 4);
	server_gpus(s, v, k1, 4);
}

/* The i-th whitespace-separated word of row into buf. */
static const char *row_word(const char *row, int i, char *buf, size_t len)
{
	size_t n;

	for (;;) {
		while (*row == ' ')
			row++;
		n = strcspn(row, " ");
		if (!i--)
			break;
		row += n;
	}
	if (n >= len)
		n = len - 1;
	memcpy(buf, row, n);
	buf[n] = '\0';
	return buf;
}

void check_matrix(const struct synth *s, const int *idx, int n,
		  const char *const *rows, const char *what)
{
	struct ptc_path p, q;
	int a, b, bad = 0, asym = 0;
	char want[8];

	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++) {
			ptc_path(&s->topo, idx[a], idx[b], &p);
			row_word(rows[a], b, want, sizeof(want));
			if (strcmp(ptc_class_name(p.class), want)) {
				if (bad++ < 8)
					tap_diag("%s: [%d][%d] %s -> %s: expected %s, got %s",
						 what, a, b, synth_addr(s, idx[a]),
						 synth_addr(s, idx[b]), want,
						 ptc_class_name(p.class));
			}
			ptc_path(&s->topo, idx[b], idx[a], &q);
			if (p.class != q.class || p.hops != q.hops ||
			    p.common != q.common ||
			    p.bottleneck_bw != q.bottleneck_bw)
				asym++;
		}
	}
	tap_ok(!bad, "%s: path class matrix (%d x %d)", what, n, n);
	tap_ok(!asym, "%s: matrix symmetric in class, hops, common, bottleneck bw", what);
	if (asym)
		tap_diag("%d asymmetric pairs", asym);
}

void check_hops(const struct synth *s, const int *idx, int n, const int *hops,
		const char *what)
{
	struct ptc_path p;
	int a, b, bad = 0;

	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++) {
			ptc_path(&s->topo, idx[a], idx[b], &p);
			if (p.hops == hops[a * n + b])
				continue;
			if (bad++ < 8)
				tap_diag("%s: [%d][%d]: expected %d hops, got %u",
					 what, a, b, hops[a * n + b], p.hops);
		}
	}
	tap_ok(!bad, "%s: hops matrix (%d x %d)", what, n, n);
}
