/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: paths the module does not report (it computes those with a
 * GPU on at least one side: not NIC-to-NIC), derived from the device table
 * by core/, the same code that computes the module's own paths, and the
 * bandwidth model's view of the tree (model/ptm.h takes core's nodes).
 *
 * Index i of the ptc_topo is t->devices[i]: t must not change while it is
 * open. Nothing here prints.
 */
#ifndef PCITOPO_LIB_DERIVE_H
#define PCITOPO_LIB_DERIVE_H

#include "model.h"
#include "ptc.h"

/* Core's nodes of t's devices, resolved. 0; -EINVAL if t has no devices or
 * does not resolve (out is then empty: nodes NULL); -ENOMEM. */
int pt_derive_open(const struct pt_topology *t, struct ptc_topo *out);
/* Core's path between a and b (devices of t) into *p. -EINVAL if pt is
 * empty or core knows no class for the pair. */
int pt_derive_path(const struct ptc_topo *pt, const struct pt_topology *t,
		   const struct pt_device *a, const struct pt_device *b,
		   struct pt_path *p);
void pt_derive_close(struct ptc_topo *pt);

/*
 * The path between a and b: the module's (in either direction), else the
 * one core derives (into *tmp, and tmp returned); NULL if neither knows one.
 */
const struct pt_path *pt_path_of(const struct ptc_topo *pt,
				 const struct pt_topology *t,
				 const struct pt_device *a,
				 const struct pt_device *b, struct pt_path *tmp);

#endif /* PCITOPO_LIB_DERIVE_H */
