// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor: what it knows of the machine beyond the PCI tree, and
 * from where (struct dr_facts). Nothing here guesses: a fact that neither
 * the tree nor an option gives is unknown, and every finding that depends
 * on it says so and names the option that tells.
 *
 *   cpu          vendor_id of cpuinfo, read by model/cpuinfo.c (advise's
 *                reader) from machine_proc_path(): --cpuinfo FILE,
 *                /proc/cpuinfo on the machine itself, or the copy saved
 *                beside a --sysfs tree (SYSFS/../proc/cpuinfo). A file with
 *                processors but no vendor_id is not x86: not AMD to NCCL
 *                (paths.cc:361 tests arch x86 and vendor AMD).
 *   peermem      the files NCCL itself tests (v2.30.7-1,
 *                src/transport/net_ib/gdr.cc:16-21, access(F_OK)):
 *                SYSFS/kernel/mm/memory_peers/nv_mem{,_nc}/version
 *                (nv_peer_mem) and SYSFS/module/nvidia_peermem/version.
 *                Their absence means "not loaded" only where the tree
 *                records modules at all (SYSFS/module: /sys always; a
 *                topoctl snapshot saves it); else unknown.
 *   passthrough  the kernel command line (/proc/cmdline, or beside a saved
 *                tree): iommu=pt / iommu=nopt (x86,
 *                arch/x86/kernel/pci-dma.c) and iommu.passthrough=0|1
 *                (drivers/iommu/iommu.c), the last one winning
 *                (Documentation/admin-guide/kernel-parameters.txt); what
 *                the IOMMU check falls back to where a kernel has no
 *                iommu_groups/N/type.
 *   GPUs         NCCL's AMD rule counts the GPUs of the job's ranks on the
 *                node (paths.cc:361, system->nodes[DEV].count: each rank
 *                detects its own GPU, topo.cc:1800-1803, and fuses its
 *                node's ranks, 1895-1900), which no tree shows: --gpus-per-node N; else the machine's own GPUs
 *                where they are at most two (no job has more); else
 *                unknown.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "ptm.h"
#include "ptm_cli.h"
#include "rfile.h"

#define PCI_VENDOR_NVIDIA	0x10de
#define PCI_VENDOR_AMD		0x1002
#define PCI_VENDOR_INTEL	0x8086
#define PCI_CLASS_ACCEL		0x1200	/* processing accelerator */

/*
 * NCCL drives CUDA devices: NVIDIA's GPUs, and the emulated server's
 * stand-ins (an operator's extra ID). Not one of the other stacks' parts
 * that pcitopo also counts as GPUs (Documentation/identity.md, rows 3-4):
 * AMD's and Intel's (ROCm, Level Zero), or another vendor's processing
 * accelerator (class 0x1200: Habana's Gaudi and the like).
 */
bool dr_nccl_gpu(const struct pt_device *d)
{
	if (!dr_is_gpu(d))
		return false;
	if (d->vendor == PCI_VENDOR_NVIDIA)
		return true;
	if (d->vendor == PCI_VENDOR_AMD || d->vendor == PCI_VENDOR_INTEL)
		return false;
	return (d->class_code >> 8) != PCI_CLASS_ACCEL;
}

static int read_cpu(struct dr_run *r)
{
	struct dr_facts *fx = &r->fx;
	struct ptm_cpuinfo ci;
	char path[4096];
	int e;

	machine_proc_path(r->c, "cpuinfo", r->o.cpuinfo, path, sizeof(path));
	fx->cpu = PTC_NCCL_CPU_UNKNOWN;
	e = ptm_cpuinfo_read(path, &ci);
	if (e == -PT_ENOTREG || (e && r->o.cpuinfo)) {
		/* what was given, or a tree's file that cannot be read */
		dr_set_error("%s%s: %s", r->o.cpuinfo ? "--cpuinfo " : "", path,
			     e == -ENODATA ? "no processor in it" :
			     pt_file_strerror(e));
		return e;
	}
	if (e == -ENOENT && strcmp(r->c->sysfs, "/sys")) {
		snprintf(fx->cpu_src, sizeof(fx->cpu_src), "unknown: a saved "
			 "tree without %s (--cpuinfo FILE tells)", path);
		return 0;
	}
	if (e) {
		snprintf(fx->cpu_src, sizeof(fx->cpu_src), "unknown: %s: %s",
			 path, e == -ENODATA ? "no processor in it" :
			 pt_file_strerror(e));
		return 0;
	}
	fx->cpu = ci.vendor == PTM_CPU_AMD ? PTC_NCCL_CPU_AMD :
		  ci.vendor == PTM_CPU_INTEL ? PTC_NCCL_CPU_INTEL :
					       PTC_NCCL_CPU_OTHER;
	snprintf(fx->cpu_src, sizeof(fx->cpu_src), "%s (%s)",
		 fx->cpu == PTC_NCCL_CPU_AMD ? "AMD" :
		 fx->cpu == PTC_NCCL_CPU_INTEL ? "Intel" :
		 ci.vendor_id[0] ? ci.vendor_id : "not x86", path);
	return 0;
}

static void read_peermem(struct dr_run *r)
{
	/* gdr.cc:18-20, in its order */
	static const char *const files[] = {
		"kernel/mm/memory_peers/nv_mem/version",
		"kernel/mm/memory_peers/nv_mem_nc/version",
		"module/nvidia_peermem/version",
	};
	struct dr_facts *fx = &r->fx;
	char path[4096];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", r->c->sysfs, files[i]);
		if (!access(path, F_OK)) {
			fx->peermem = PTC_NCCL_PEERMEM_LOADED;
			snprintf(fx->peermem_src, sizeof(fx->peermem_src),
				 "%s exists", path);
			return;
		}
	}
	snprintf(path, sizeof(path), "%s/module", r->c->sysfs);
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		fx->peermem = PTC_NCCL_PEERMEM_NONE;
		snprintf(fx->peermem_src, sizeof(fx->peermem_src),
			 "neither is: no %s/module/nvidia_peermem/version, no "
			 "kernel/mm/memory_peers/nv_mem", r->c->sysfs);
		return;
	}
	fx->peermem = PTC_NCCL_PEERMEM_UNKNOWN;
	snprintf(fx->peermem_src, sizeof(fx->peermem_src),
		 "which modules are loaded is unknown: the tree has no %s", path);
}

/* iommu=pt|nopt (a comma list) and iommu.passthrough=BOOL; last wins */
static unsigned char passthrough_of(const char *cmdline)
{
	unsigned char v = DR_UNKNOWN;
	const char *p = cmdline, *w, *o;
	size_t n, k;

	for (;;) {
		p += strspn(p, " \t\n");
		if (!*p)
			return v;
		n = strcspn(p, " \t\n");
		if (n > 6 && !strncmp(p, "iommu=", 6)) {
			for (w = p + 6; w < p + n; w = o + (o < p + n)) {
				o = memchr(w, ',', (size_t)(p + n - w));
				if (!o)
					o = p + n;
				k = (size_t)(o - w);
				if (k == 2 && !strncmp(w, "pt", 2))
					v = DR_YES;
				else if (k == 4 && !strncmp(w, "nopt", 4))
					v = DR_NO;
			}
		} else if (n > 18 && !strncmp(p, "iommu.passthrough=", 18)) {
			/* kstrtobool: 1/y/Y/on is true, 0/n/N/off false */
			w = p + 18;
			if (strchr("1yY", *w) || !strncmp(w, "on", 2))
				v = DR_YES;
			else if (strchr("0nN", *w) || !strncmp(w, "of", 2))
				v = DR_NO;
		}
		p += n;
	}
}

static int read_cmdline(struct dr_run *r)
{
	struct dr_facts *fx = &r->fx;
	char path[4096], buf[8192];
	int e;

	machine_proc_path(r->c, "cmdline", NULL, path, sizeof(path));
	e = pt_file_read(path, buf, sizeof(buf), NULL);
	if (e == -PT_ENOTREG) {
		dr_set_error("%s: %s", path, pt_file_strerror(e));
		return e;
	}
	fx->passthrough = e ? DR_UNKNOWN : passthrough_of(buf);
	if (e)
		snprintf(fx->cmdline_src, sizeof(fx->cmdline_src),
			 "%s: %s", path, pt_file_strerror(e));
	else
		snprintf(fx->cmdline_src, sizeof(fx->cmdline_src),
			 "%s: %s", path, fx->passthrough == DR_YES ?
			 "IOMMU passthrough (iommu=pt or iommu.passthrough=1)" :
			 fx->passthrough == DR_NO ? "IOMMU translation "
			 "(iommu=nopt or iommu.passthrough=0)" :
			 "neither iommu=pt nor iommu.passthrough=");
	return 0;
}

static int count_gpus(struct dr_run *r)
{
	struct dr_facts *fx = &r->fx;
	size_t i;

	for (i = 0; i < r->t->n_devices; i++)
		fx->box_gpus += dr_nccl_gpu(&r->t->devices[i]);
	if (r->o.gpus_per_node > fx->box_gpus) {
		dr_set_error("'doctor --gpus-per-node %u': this machine has %u "
			     "GPU%s NCCL would use", r->o.gpus_per_node,
			     fx->box_gpus, fx->box_gpus == 1 ? "" : "s");
		return -EINVAL;
	}
	fx->job_gpus = r->o.gpus_per_node ? r->o.gpus_per_node :
		       fx->box_gpus <= 2 ? fx->box_gpus : 0;
	return 0;
}

int dr_facts_read(struct dr_run *r)
{
	int e;

	memset(&r->fx, 0, sizeof(r->fx));
	e = count_gpus(r);
	if (!e)
		e = read_cpu(r);
	if (!e)
		e = read_cmdline(r);
	if (!e)
		read_peermem(r);
	return e;
}
