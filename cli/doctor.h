/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl doctor: shared between the command (doctor.c), its checks
 * (doctor_acs.c: ACS; doctor_pcie.c: links, MPS, AER, DPC; doctor_host.c:
 * IOMMU, NUMA; doctor_nccl.c: NCCL's view), what it knows of the machine
 * beyond the PCI tree (doctor_facts.c) and the Prometheus export
 * (export.c).
 *
 * A run gathers the pairs to judge (every GPU-GPU and GPU-NIC pair, or the
 * one named, GPU first), the devices on their paths, each device's health
 * (lib/health.h, read once) and the machine's facts; each check then
 * appends findings. Every rule names the reference it follows beside it.
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
	char evidence[1024];
	char fix[1024];
};

struct dr_pair {
	const struct pt_device *a, *b;	/* a GPU first where one is */
	bool judged;		/* this run reports on it (all, or the one
				 * named); the others are the machine's
				 * context: nearest NICs, the MPS floor */
	struct pt_path path;	/* the module's, or derived by core/ */
	/* the devices the pair's traffic crosses, a first, b last */
	const struct pt_device *on[2 * PTC_MAX_DEPTH + 3];
	size_t n_on;
};

/* What the operator tells doctor that the tree cannot (doctor(8)). */
struct dr_opts {
	const char *cpuinfo;		/* --cpuinfo FILE; NULL: beside */
	unsigned int gpus_per_node;	/* --gpus-per-node N; 0: not given */
	const char *since;		/* --since DIR: a saved tree whose AER
					 * counters are the baseline */
};

enum dr_known { DR_UNKNOWN, DR_NO, DR_YES };

/* The machine beyond the PCI tree (doctor_facts.c): each fact, and the
 * words for where it came from or why it is unknown. */
struct dr_facts {
	unsigned char cpu;		/* enum ptc_nccl_cpu */
	char cpu_src[4352];		/* "AMD (FILE)", "unknown: ..." */
	unsigned char peermem;		/* enum ptc_nccl_peermem */
	char peermem_src[4352];
	unsigned char passthrough;	/* enum dr_known: the command line's
					 * iommu=pt / iommu.passthrough= */
	char cmdline_src[4352];
	unsigned int box_gpus;		/* GPUs NCCL would count on the box */
	unsigned int job_gpus;		/* NCCL's count for the job; 0 unknown */
};

struct dr_run {
	struct ctx *c;
	const struct pt_topology *t;
	struct dr_opts o;
	struct dr_facts fx;
	struct dr_pair *pairs;	/* every GPU-GPU and GPU-NIC pair (+ the one
				 * named, if of another sort) */
	size_t n_pairs;
	size_t n_judged;
	bool *on_path;		/* per device index: on a judged pair's path */
	bool *is_end;		/* per device index: an end of a judged pair */
	bool *scope;		/* per device index: on a path of the full run
				 * (every GPU and NIC and the bridges above),
				 * whichever pairs this run judges */
	struct pt_health *h;	/* per device index: on_path or scope */
	struct pt_health *base;	/* per device index: --since DIR's, or NULL */
	struct dr_finding *f;
	size_t n_f;
	int err;		/* -ENOMEM while adding */
};

/* doctor.c */
const char *dr_sev_name(unsigned int sev);
const char *dr_check_name(unsigned int check);
/* Gather pairs (a and b NULL: all), health and facts; 0 or a negative
 * errno, with dr_last_error() saying what (a file named). */
int dr_open(struct dr_run *r, struct ctx *c, const struct pt_topology *t,
	    const struct pt_device *a, const struct pt_device *b,
	    const struct dr_opts *o);
const char *dr_last_error(void);
void dr_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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
/* An end of the pairs: a GPU, or a NIC that `topo` shows. */
bool dr_is_gpu(const struct pt_device *d);
bool dr_is_nic(const struct ctx *c, const struct pt_device *d);
/* Whether pair p crosses device x. */
bool dr_pair_crosses(const struct dr_pair *p, const struct pt_device *x);
/* Count findings by check and severity (for export.c): 0 or a negative
 * errno (dr_last_error()). */
int doctor_counts(struct ctx *c, const struct pt_topology *t,
		  unsigned int counts[DR_NCHECK][DR_NSEV]);

/* doctor_facts.c */
/* Fill r->fx; 0, or a negative errno for a file that was given or is in
 * the tree but unreadable as a regular file (dr_last_error() names it). */
int dr_facts_read(struct dr_run *r);
/* A GPU NCCL would drive: not another vendor's accelerator. */
bool dr_nccl_gpu(const struct pt_device *d);

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
