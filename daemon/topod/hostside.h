/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: the host side of a switch: the module (snapshots, events, detach,
 * rescan), the slots below its ports, the GPUs' drivers. Each call goes to
 * the build's backend (hw_backend.h): this host's in topod, the host
 * tests' stand-in in their topod-standin.
 */
#ifndef PCITOPO_TOPOD_HOSTSIDE_H
#define PCITOPO_TOPOD_HOSTSIDE_H

#include "topod.h"

#define HW_MAX_GPUS	64

struct hw_gpu {
	char addr[PCITOPO_ADDR_LEN];
	char parent[PCITOPO_ADDR_LEN];		/* the port it hangs from */
	uint32_t link_max_speed;
	uint8_t link_max_width;
	uint32_t link_flags;
};

struct hw_snap {
	enum pcitopo_layout layout;
	char reason[PCITOPO_REASON_LEN];
	uint64_t generation;
	unsigned int ngpus;
	struct hw_gpu gpus[HW_MAX_GPUS];	/* bus order: GPU0, GPU1, ... */
};

struct hw;

/* monitor: also open the module's event socket (hw_fd()). */
int hw_open(const struct tconfig *c, const struct pt_platform *p,
	    bool monitor, struct hw **out, char *err, size_t len);
void hw_close(struct hw *h);
/* What the build's hardware is, in words (topod --check). */
const char *hw_what(void);
int hw_snapshot(struct hw *h, struct hw_snap *s, char *err, size_t len);
/* The event socket, -1 without one. hw_drain() reads what is ready:
 * 1 if the layout may have changed, 0 if not. */
int hw_fd(const struct hw *h);
int hw_drain(struct hw *h);
int hw_detach(struct hw *h, const char *port, char *err, size_t len);
int hw_rescan(struct hw *h, char *err, size_t len);
/* Wait (module events) until gpus GPUs are there, whatever the layout
 * (the caller verifies it: waiting does not mend a wrong one); -ETIMEDOUT
 * after budget_ms (s holds what was seen last). rescan_ms: 0, the caller
 * has rescanned (or a boot enumerated everything); else hw_rescan() once
 * when GPUs are missing and none has arrived for rescan_ms, or at the
 * deadline: pciehp enumerates what it powers on, and a rescan is for what
 * no hotplug slot brings (a port without one, a GPU late). */
int hw_wait(struct hw *h, enum pcitopo_layout want, unsigned int gpus,
	    unsigned int budget_ms, unsigned int rescan_ms, struct hw_snap *s,
	    char *err, size_t len);
/*
 * The slot below a port, taken down before the lanes change and brought up
 * after, so that nothing sees a surprise link down (no AER, no DPC):
 * hw_slot_how() says how port's can be: TJ_SLOT_POWER (a hotplug slot with
 * a power controller, owned by pciehp: /sys/bus/pci/slots/N/power),
 * TJ_SLOT_LINK (a PCIe root or downstream port without one: Link Disable,
 * Link Control bit 4), -EOPNOTSUPP (neither: not a PCIe port), -errno.
 * hw_slots_down() and hw_slots_up() act on n slots at once, one thread
 * each (pciehp waits 1 s after each power off); 0, or the first -errno
 * with err set. Up powers a slot on only if it holds a card (an empty one
 * stays off, as pciehp leaves any empty slot: its GPU moved away) and
 * clears Link Disable; *up counts the slots that came up.
 */
int hw_slot_how(struct hw *h, const char *port);
int hw_slots_down(struct hw *h, const struct tj_slot *s, unsigned int n,
		  char *err, size_t len);
int hw_slots_up(struct hw *h, const struct tj_slot *s, unsigned int n,
		unsigned int *up, char *err, size_t len);
/* Unbind addr's driver through sysfs: 1 unbound, 0 if it had none,
 * -errno with err set. */
int hw_unbind(struct hw *h, const char *addr, char *err, size_t len);
/* The driver bound to addr: 1 with its name in drv, 0 if none (or no
 * such device), -errno. */
int hw_driver(struct hw *h, const char *addr, char *drv, size_t len);
/* Give addr its driver back after quiesce unbound it: bind it to driver
 * by name (if that driver is gone, drivers_probe). 1: it has a driver now
 * (maybe from the kernel's probe when it was added again), 0: addr is not
 * there (it moved, or is absent), -errno with err set: it stays without. */
int hw_bind(struct hw *h, const char *addr, const char *driver, char *err,
	    size_t len);
/* This boot's id (/proc/sys/kernel/random/boot_id; the stand-in's may be
 * a file of the tests): a journal from another boot means the host went
 * down during the switch, not only topod. Needs no hw_open(). */
int hw_boot_id(const struct tconfig *c, char *buf, size_t len);

/* The devices that move (platform moves.gpus, moves.addresses) in snapshot
 * s, and the distinct ports they hang from. Returns the device count. */
int hw_moving(const struct pt_platform *p, const struct hw_snap *s,
	      char devs[][PCITOPO_ADDR_LEN], unsigned int maxdevs,
	      char ports[][PCITOPO_ADDR_LEN], unsigned int maxports,
	      unsigned int *nports);

/* holders.c: processes holding device addr (its /dev/nvidia*, DRM nodes,
 * sysfs resource files) open, one per process, the first max of them in
 * out. Returns how many found. */
int holders_list(const char *addr, int nvidia_minor, struct holder *out,
		 unsigned int max);
/* n holders as a sentence: "pid 42 (python3) holds /dev/dri/card1; ...". */
void holders_format(const struct holder *h, unsigned int n, char *buf,
		    size_t len);



/* Tell the module about the platform's extra GPU IDs (gpu_ids). */
int hw_add_ids(struct hw *h, const struct pt_platform *p);
#endif
