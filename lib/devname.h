/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: the names of devices, as `nvidia-smi topo -m` gives them and
 * topoctl, topod and the tests take them:
 *   GPUn   the nth GPU in PCI bus order (pt_gpu_number(): the one rule);
 *   NICn   the nth NIC in nvidia-smi's order: the RDMA-capable ones first,
 *          by RDMA name (NIC0 is mlx5_0, rdma.h), then the plain ones in
 *          bus order, so that showing every NIC renames none;
 *   NVMEn  the nth NVMe drive in bus order.
 * Any device can also be named by its bus address, with or without domain.
 * Nothing here prints.
 */
#ifndef PCITOPO_LIB_DEVNAME_H
#define PCITOPO_LIB_DEVNAME_H

#include <stddef.h>

#include "model.h"

/* Room for "NVME4095" and its NUL. */
#define PT_NAME_LEN	16

/*
 * GPUn is the nth GPU in bus order: the number of addresses in gpus[] (the
 * addresses of every GPU, in any order) that come before addr in PCI bus
 * order (pt_addr_cmp()). -1 if addr is not among them.
 */
int pt_gpu_number(const char *addr, const char *const gpus[], size_t n);

/* Index of an endpoint among the endpoints of its kind (GPU, NIC, NVME) in
 * the order above, or -1 for a device without one. */
int pt_dev_index(const struct pt_topology *t, const struct pt_device *d);
/* "GPU3", "NIC0", "NVME1", or "" for a device without an index. */
void pt_dev_name(const struct pt_topology *t, const struct pt_device *d,
		 char *buf, size_t len);
/*
 * The device named arg: "GPU3" or "gpu3", "NIC0", "NVME0", "DDDD:BB:DD.F"
 * or "BB:DD.F". -EINVAL: not a device name; -ENODEV: no such device in t.
 */
int pt_dev_resolve(const struct pt_topology *t, const char *arg,
		   const struct pt_device **out);
/* The canonical address "DDDD:BB:DD.F" of a bus address; -EINVAL if arg is
 * none. */
int pt_addr_canon(const char *arg, char *buf, size_t len);

#endif /* PCITOPO_LIB_DEVNAME_H */
