/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: which NICs are RDMA-capable, and under which name.
 *
 * The module cannot know this: RDMA device names (mlx5_0, what NCCL_IB_HCA
 * takes and nvidia-smi's NIC legend prints) belong to the RDMA subsystem,
 * and are read here from sysfs, for the module's topology and the sysfs
 * fallback's alike.
 */
#ifndef PCITOPO_LIB_RDMA_H
#define PCITOPO_LIB_RDMA_H

#include "model.h"

/*
 * Fill every device's rdma and netdev names from ROOT (NULL: "/sys"):
 *   rdma    for each ROOT/class/infiniband/NAME: the PCI function its
 *           `device` link points at (a hardware adapter: mlx5_0 on its
 *           ConnectX function). A soft RDMA device (rxe, siw) has no
 *           device link; its `parent` attribute names the netdev it runs
 *           on, whose ROOT/class/net/NETDEV/device gives the function. A
 *           function with both keeps the hardware name; with several of
 *           one sort, the first in name order.
 *   netdev  the first (in name order) of ROOT/bus/pci/devices/ADDR/net/.
 * Names are reset first. A tree without class/infiniband or class/net is
 * no error (no RDMA, no netdevs). Returns 0, -ENOMEM, or -PT_ENOTREG
 * (rfile.h) for a `parent` that is no regular file, named in
 * pt_sysfs_last_error().
 */
int pt_rdma_join(const char *root, struct pt_topology *t);

/*
 * Order of two RDMA names as nvidia-smi numbers NICs: by name, digit runs
 * compared as numbers (mlx5_2 before mlx5_10). <0, 0, >0 as strcmp().
 */
int pt_rdma_name_cmp(const char *a, const char *b);

#endif /* PCITOPO_LIB_RDMA_H */
