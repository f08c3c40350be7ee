/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: the matrix of `nvidia-smi topo -m`, as topoctl topo prints
 * it. Rows and columns alike: the GPUs (GPU0 first), then the NICs
 * nvidia-smi lists, the RDMA-capable ones (every NIC with all_nics), NIC0
 * first (devname.h). A cell holds the module's path, else the one core
 * derives from the device table (derive.h: the NIC-to-NIC cells).
 * Nothing here prints.
 */
#ifndef PCITOPO_LIB_MATRIX_H
#define PCITOPO_LIB_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "devname.h"
#include "model.h"
#include "ptc.h"

struct pt_matrix_end {
	const struct pt_device *d;	/* in t */
	char name[PT_NAME_LEN];		/* "GPU0", "NIC1" */
};

struct pt_matrix {
	const struct pt_topology *t;
	struct pt_matrix_end *end;	/* rows, and columns in that order */
	size_t n;
	struct ptc_topo pt;		/* core's nodes; empty if t does not
					 * resolve (no derived cells then) */
};

/* The rows of t (which must not change while m is open). 0 or -ENOMEM
 * (m is then closed). */
int pt_matrix_open(const struct pt_topology *t, bool all_nics,
		   struct pt_matrix *m);
/* The path of row i to column j (i != j), tmp holding a derived one
 * (derived: the result is tmp); NULL when none is known. */
const struct pt_path *pt_matrix_cell(const struct pt_matrix *m, size_t i,
				     size_t j, struct pt_path *tmp);
void pt_matrix_close(struct pt_matrix *m);

#endif /* PCITOPO_LIB_MATRIX_H */
