/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl doctor: shared between the command (doctor.c), its checks
 * (doctor_pcie.c: ACS, links, MPS, AER, DPC; doctor_host.c: IOMMU, NUMA;
 * doctor_nccl.c: NCCL's view) and the Prometheus export (export.c).
 *
 * A run gathers the pairs to judge (every GPU-GPU and GPU-NIC pair, or the
 * one named), the devices on their paths, and each device's health
 * (lib/health.h, read once); each check then appends findings.
 */
#ifndef PCITOPO_CLI_DOCTOR_H
#define PCITOPO_CLI_DOCTOR_H

#include "health.h"
#include "nccl.h"
#include "ptc.h"
#include "topoctl.h"

enum dr_sev { DR_NOTE, DR_WARNING, DR_ERROR, DR_NSEV };
enum dr_check {
	DR_ACS, DR_IOMMU, DR_NUMA, DR_LINK, DR_MPS, DR_AER, DR_DPC, DR_NCCL,
	DR_NCHECK
};

struct dr_finding {
	unsigned char sev;	/* enum dr_sev */
	unsigned char check;	/* enum dr_check */
	char object[96];	/* "GPU0-GPU1", "NIC0", "0000:20:00.0" */
	char evidence[768];
	char fix[768];
};

struct dr_pair {
	const struct pt_device *a, *b;
	struct pt_path path;	/* the module's, or derived by core/ */
	/* the devices the pair's traffic crosses, a first, b last */
	const struct pt_device *on[2 * PTC_MAX_DEPTH + 3];
	size_t n_on;
};

struct dr_run {
	struct ctx *c;
	const struct pt_topology *t;
	struct dr_pair *pairs;
	size_t n_pairs;
	bool *on_path;		/* per device index: on some pair's path */
	bool *is_end;		/* per device index: an end of some pair */
	struct pt_health *h;	/* per device index */
	const char *cpuinfo;	/* NULL: /proc/cpuinfo for /sys, else none */
	struct dr_finding *f;
	size_t n_f;
	int err;		/* -ENOMEM while adding */
};

/* doctor.c */
const char *dr_sev_name(unsigned int sev);
const char *dr_check_name(unsigned int check);
/* Gather pairs (a and b NULL: all) and health; 0 or a negative errno. */
int dr_open(struct dr_run *r, struct ctx *c, const struct pt_topology *t,
	    const struct pt_device *a, const struct pt_device *b);
void dr_run_checks(struct dr_run *r);
void dr_close(struct dr_run *r);
void dr_add(struct dr_run *r, enum dr_sev sev, enum dr_check check,
	    const char *object, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* "GPU0", else the address */
void dr_name(const struct dr_run *r, const struct pt_device *d, char *buf,
	     size_t len);
void dr_pair_name(const struct dr_run *r, const struct dr_pair *p, char *buf,
		  size_t len);
size_t dr_index(const struct dr_run *r, const struct pt_device *d);
/* "SYSFS/bus/pci/devices/ADDR" */
void dr_devdir(const struct dr_run *r, const struct pt_device *d, char *buf,
	       size_t len);
/* Count findings by check and severity (for export.c): 0 or -ENOMEM. */
int doctor_counts(struct ctx *c, const struct pt_topology *t,
		  unsigned int counts[DR_NCHECK][DR_NSEV]);

/* the checks */
void dr_check_acs(struct dr_run *r);
void dr_check_iommu(struct dr_run *r);
void dr_check_numa(struct dr_run *r);
void dr_check_link(struct dr_run *r);
void dr_check_mps(struct dr_run *r);
void dr_check_aer(struct dr_run *r);
void dr_check_dpc(struct dr_run *r);
void dr_check_nccl(struct dr_run *r);

#endif /* PCITOPO_CLI_DOCTOR_H */
