/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Synthetic PCIe trees for the core tests and benchmark, built the way one
 * describes a server: root ports on host bridges, switches below ports,
 * endpoints below ports. Every device defaults to a trained Gen5 x16 link
 * (ports: Gen5 x16 LnkCap); synth_cur()/synth_cap() change that.
 *
 * Bus numbers are handed out in creation order (secondary buses count up
 * from the root bus + 1); addresses are unique while there are fewer than 256
 * bridges per domain, which the benchmark does not need.
 */
#ifndef PCITOPO_TESTS_SYNTH_H
#define PCITOPO_TESTS_SYNTH_H

#include "ptc.h"

struct synth {
	struct ptc_node *nodes;
	struct ptc_topo topo;	/* nodes and count, kept up to date */
	unsigned int cap;
	unsigned char *sec_bus;	/* secondary bus of each bridge */
	unsigned char *kids;	/* devices placed below each bridge so far */
	unsigned int next_bus;
	unsigned int next_rp;	/* root port device numbers on root buses */
};

#define SYNTH_GEN1	2500
#define SYNTH_GEN2	5000
#define SYNTH_GEN3	8000
#define SYNTH_GEN4	16000
#define SYNTH_GEN5	32000
#define SYNTH_GEN6	64000

void synth_init(struct synth *s, unsigned int cap);
void synth_free(struct synth *s);

/* A root port on host bridge (domain, root_bus) of NUMA node numa (-1: unknown). */
int synth_root_port(struct synth *s, u32 domain, u8 root_bus, int numa);
/* A switch below port: its upstream port and n downstream ports, whose
 * indexes go to ds[] (if not NULL). Returns the upstream port's index. */
int synth_switch(struct synth *s, int port, u16 vendor, u16 device, int n,
		 int *ds);
/* A plain PCI bridge (role BRIDGE) below port. */
int synth_bridge(struct synth *s, int port);
/* An endpoint below port. */
int synth_endpoint(struct synth *s, int port, u32 class, u16 vendor,
		   u16 device);
int synth_gpu(struct synth *s, int port);	/* 0x030200 10de:2330 */
int synth_nic(struct synth *s, int port);	/* 0x020000 15b3:1021 */
int synth_nvme(struct synth *s, int port);	/* 0x010802 144d:a80a */
/* A GPU straight on a root bus, with no root port (an RCiEP-like device). */
int synth_root_bus_gpu(struct synth *s, u32 domain, u8 root_bus, int numa);

/* Link figures: LnkSta (cur) and LnkCap (cap), and the link state. */
void synth_cur(struct synth *s, int i, u32 speed, u8 width);
void synth_cap(struct synth *s, int i, u32 speed, u8 width);
void synth_active(struct synth *s, int i, bool active);
void synth_acs(struct synth *s, int i, u16 cap, u16 ctrl);

int synth_resolve(struct synth *s);
/* "dddd:bb:dd.f" of node i, in a static buffer (one of 4, rotating). */
const char *synth_addr(const struct synth *s, int i);

#endif /* PCITOPO_TESTS_SYNTH_H */
