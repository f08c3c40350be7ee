// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libpcitopo: the matrix of `nvidia-smi topo -m` (matrix.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "matrix.h"

/* Whether a device has a row: a GPU, or a NIC nvidia-smi lists. */
static bool has_row(const struct pt_device *d, bool all_nics)
{
	if (d->role != PCITOPO_ROLE_ENDPOINT)
		return false;
	if (d->kind == PCITOPO_KIND_GPU)
		return true;
	return d->kind == PCITOPO_KIND_NIC &&
	       (all_nics || pt_device_is_rdma_nic(d));
}

struct row {
	struct pt_matrix_end e;
	int index;
};

/* GPUs before NICs, each kind by its index. */
static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->e.d->kind != b->e.d->kind)
		return a->e.d->kind == PCITOPO_KIND_GPU ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

int pt_matrix_open(const struct pt_topology *t, bool all_nics,
		   struct pt_matrix *m)
{
	struct row *rows;
	size_t i, n = 0;

	memset(m, 0, sizeof(*m));
	m->t = t;
	/* no derived cells if the table does not resolve: they show "-" */
	(void)pt_derive_open(t, &m->pt);
	rows = calloc(t->n_devices ? t->n_devices : 1, sizeof(*rows));
	m->end = calloc(t->n_devices ? t->n_devices : 1, sizeof(*m->end));
	if (!rows || !m->end) {
		free(rows);
		pt_matrix_close(m);
		return -ENOMEM;
	}
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];

		if (!has_row(d, all_nics))
			continue;
		rows[n].e.d = d;
		rows[n].index = pt_dev_index(t, d);
		pt_dev_name(t, d, rows[n].e.name, sizeof(rows[n].e.name));
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_row);
	for (i = 0; i < n; i++)
		m->end[i] = rows[i].e;
	m->n = n;
	free(rows);
	return 0;
}

const struct pt_path *pt_matrix_cell(const struct pt_matrix *m, size_t i,
				     size_t j, struct pt_path *tmp)
{
	if (i == j || i >= m->n || j >= m->n)
		return NULL;
	return pt_path_of(&m->pt, m->t, m->end[i].d, m->end[j].d, tmp);
}

void pt_matrix_close(struct pt_matrix *m)
{
	pt_derive_close(&m->pt);
	free(m->end);
	m->end = NULL;
	m->n = 0;
}
