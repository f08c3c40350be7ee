// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl advise: the advice as text or JSON, from the same calls
 * (print.h): the workload, the hardware and the platform the layouts are
 * built on, the ranking with each layout's figures, the model's constants
 * and the reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "advise.h"
#include "print.h"
#include "quantity.h"
#include "rfile.h"

/* Why a machine file gave nothing: "--synthetic", "PATH: reason". */
static void why_not(char *buf, size_t len, const char *path, int err,
		    bool synthetic)
{
	if (synthetic || !path[0])
		snprintf(buf, len, "not read: --synthetic");
	else if (err == -EACCES || err == -EPERM)
		snprintf(buf, len, "%s: %s (readable by root)", path,
			 strerror(-err));
	else if (err == -ENODATA)
		snprintf(buf, len, "%s: no populated device", path);
	else
		snprintf(buf, len, "%s: %s", path, pt_file_strerror(err));
}

/* The CPU as text: "AMD EPYC 9654 96-Core Processor, Genoa (cpuinfo)". */
static void cpu_text(char *buf, size_t len, const struct ptm_consts *cs,
		     const struct advise_out *out)
{
	const struct ptm_machine *m = &out->p->m;
	char why[4200];

	if (!strcmp(cs->cpu_src, "set")) {
		snprintf(buf, len, "%s (set)", cs->cpu->name);
		return;
	}
	if (!strcmp(cs->cpu_src, "cpuinfo")) {
		snprintf(buf, len, "%s, %s (cpuinfo: %s family 0x%x model "
			 "0x%x)", m->cpu.model_name[0] ? m->cpu.model_name :
			 "?", cs->cpu->name, m->cpu.vendor_id,
			 (unsigned int)m->cpu.family,
			 (unsigned int)m->cpu.model);
		return;
	}
	if (m->have_cpu)
		snprintf(why, sizeof(why), "%s, %s family 0x%x model 0x%x: "
			 "not a generation the model knows",
			 m->cpu.model_name[0] ? m->cpu.model_name : "?",
			 m->cpu.vendor_id[0] ? m->cpu.vendor_id : "no vendor",
			 (unsigned int)(m->cpu.family < 0 ? 0 : m->cpu.family),
			 (unsigned int)(m->cpu.model < 0 ? 0 : m->cpu.model));
	else
		why_not(why, sizeof(why), out->mf->cpuinfo, out->mf->cpu_err,
			out->synthetic && !out->mf->cpuinfo[0]);
	snprintf(buf, len, "assumed %s from the root ports (%s)", cs->cpu->name,
		 why);
}

static void link_text(char *buf, size_t len, const struct ptm_consts *cs)
{
	const struct ptm_cpu_gen *g = cs->cpu;

	if (!strcmp(cs->upi_src, "set")) {
		snprintf(buf, len, "%s %.1f GB/s per direction (set)", g->bus,
			 cs->upi_mbs / 1e3);
		return;
	}
	if (g->link_gts > 0)
		snprintf(buf, len, "%s%s %.4g GT/s x%s links, %.1f GB/s per "
			 "direction (%s)", cs->upi_assumed ? "assumed " : "",
			 g->bus, g->link_gts, g->links, cs->upi_mbs / 1e3,
			 g->link_src);
	else
		snprintf(buf, len, "%s%s %.1f GB/s per direction (%s)",
			 cs->upi_assumed ? "assumed " : "", g->bus,
			 cs->upi_mbs / 1e3, g->link_src);
}

static double mem_peak(const struct ptm_consts *cs, const struct ptm_params *p)
{
	return cs->mem_channels ? (double)cs->mem_channels * cs->mem_mts * 8 :
	       cs->mem_mbs / p->v[PTM_P_MEM_EFF];
}

static void mem_text(char *buf, size_t len, const struct ptm_consts *cs,
		     const struct advise_out *out)
{
	const struct ptm_machine *m = &out->p->m;
	char why[4200], what[96];

	if (!cs->mem_channels)
		snprintf(what, sizeof(what), "%.1f GB/s peak per socket (set)",
			 mem_peak(cs, out->p) / 1e3);
	else
		snprintf(what, sizeof(what), "%s%u x %s-%u per socket, %.1f "
			 "GB/s peak", cs->mem_assumed ? "assumed " : "",
			 cs->mem_channels, cs->mem_type ? cs->mem_type : "DDR",
			 cs->mem_mts, mem_peak(cs, out->p) / 1e3);
	if (m->have_mem)
		snprintf(why, sizeof(why), "SMBIOS: %u of %u devices "
			 "populated, %.0f GB", m->mem.populated,
			 m->mem.devices, (double)m->mem.total_mb / 1024);
	else
		why_not(why, sizeof(why), out->mf->smbios, out->mf->mem_err,
			!out->mf->smbios[0]);
	snprintf(buf, len, "%s (%s)", what, why);
}

static const char *const class_names[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };
static const u8 class_ids[] = { PCITOPO_PATH_PIX, PCITOPO_PATH_PXB,
				PCITOPO_PATH_PHB, PCITOPO_PATH_NODE,
				PCITOPO_PATH_SYS };

/* "4.0" of 4000 MB/s: the text's GB/s of the JSON's MB/s */
static void gbs(char *buf, size_t len, const char *fmt, double mbs)
{
	snprintf(buf, len, fmt, mbs / 1e3);
}

/* workload NAME: what one step moves, per GPU */
static void print_workload(struct pr *o, const struct advise_opts *ao)
{
	const struct ptm_workload *w = &ao->w;
	bool spread = w->placement == PTM_HOST_SPREAD;
	char b[24];

	pr_open_object(o, PRINT_ANY, "workload");
	pr_string_keep(o, PRINT_ANY, "name", "workload %s: ", w->name);
	fmt_bytes(b, sizeof(b), w->grad_bytes);
	pr_float_as(o, PRINT_ANY, "model_size", w->grad_bytes, 0,
		    "%s all-reduced, ", b);
	pr_float(o, PRINT_ANY, "batch_size", 0, "%.0f samples x ", w->batch);
	pr_float(o, PRINT_JSON, "samples_per_sec", 1, NULL,
		 w->samples_per_sec);
	fmt_bytes(b, sizeof(b), w->bytes_per_sample);
	pr_float_as(o, PRINT_ANY, "bytes_per_sample", w->bytes_per_sample, 0,
		    "%s from host ", b);
	/* the text words the placement: fmt is the whole text */
	pr_string_keep(o, PRINT_ANY, "host_data", spread ?
		       "(spread over sockets)" : "(local socket)",
		       spread ? "spread" : "local");
	pr_text(o, " per GPU per step\n");
	pr_close_object(o);
}

/* hardware (FROM): the links, CPUs and switches the layouts are built of */
static void print_hardware(struct pr *o, const struct advise_opts *ao,
			   const struct advise_out *out)
{
	unsigned int sw[PTM_MAX_SWITCHES], nsw, i, total = 0;
	char l[24], text[96];

	pr_open_object(o, PRINT_ANY, "hardware");
	pr_string_keep(o, PRINT_ANY, "from", "hardware (%s): ", out->from);
	ptm_link_format(l, sizeof(l), &ao->hw.gpu);
	pr_string_keep(o, PRINT_ANY, "gpu_link", "GPUs %s, ", l);
	ptm_link_format(l, sizeof(l), &ao->hw.uplink);
	pr_string_keep(o, PRINT_ANY, "uplink", "switch ports %s, ", l);
	ptm_link_format(l, sizeof(l), &ao->hw.root);
	pr_string_keep(o, PRINT_ANY, "root_link", "root ports %s, ", l);
	pr_uint(o, PRINT_ANY, "cpus", "%u CPUs, ", ao->hw.cpus);
	pr_string_keep(o, PRINT_JSON, "cpus_source", NULL, out->cpus_src);
	pr_uint(o, PRINT_JSON, "gpus_per_switch", NULL,
		ao->hw.gpus_per_switch);
	nsw = ptm_hw_switches(&ao->hw, sw);
	pr_open_array(o, PRINT_JSON, "switches", NULL, NULL);
	for (i = 0; i < nsw; i++) {
		pr_uint(o, PRINT_JSON, NULL, NULL, sw[i]);
		total += sw[i];
	}
	pr_close_array(o, NULL, NULL);
	pr_uint(o, PRINT_JSON, "gpus", NULL, total);
	ptm_hw_format_switches(text, sizeof(text), &ao->hw);
	pr_text(o, "%s", text);
	pr_string_keep(o, out->now != PCITOPO_LAYOUT_UNKNOWN ? PRINT_ANY :
		       PRINT_JSON, "current_layout", "; now %s",
		       ptc_layout_name((u8)out->now));
	pr_nl(o);
	pr_close_object(o);
}

/* The CPU: the generation the model uses, and what cpuinfo said */
static void print_cpu(struct pr *o, const struct ptm_consts *cs,
		      const struct advise_out *out)
{
	const struct ptm_machine *m = &out->p->m;
	const struct machine_files *mf = out->mf;
	char buf[4400];

	pr_open_object(o, PRINT_ANY, "cpu");
	pr_string_keep(o, PRINT_JSON, "generation", NULL, cs->cpu->key);
	pr_string_keep(o, PRINT_JSON, "name", NULL, cs->cpu->name);
	pr_string_keep(o, PRINT_JSON, "source", NULL, cs->cpu_src);
	pr_bool(o, PRINT_JSON, "assumed", NULL, !strcmp(cs->cpu_src, "assumed"));
	if (m->have_cpu) {
		pr_string_keep(o, PRINT_JSON, "vendor_id", NULL,
			       m->cpu.vendor_id);
		pr_int(o, PRINT_JSON, "family", NULL, m->cpu.family);
		pr_int(o, PRINT_JSON, "model", NULL, m->cpu.model);
		pr_int(o, PRINT_JSON, "stepping", NULL, m->cpu.stepping);
		pr_string_keep(o, PRINT_JSON, "model_name", NULL,
			       m->cpu.model_name);
		pr_uint(o, PRINT_JSON, "packages", NULL, m->cpu.packages);
	}
	cpu_text(buf, sizeof(buf), cs, out);
	pr_string_keep(o, PRINT_ANY, "text", "platform: CPU %s", buf);
	if (mf->cpuinfo[0])
		pr_string_keep(o, PRINT_JSON, "cpuinfo", NULL, mf->cpuinfo);
	if (mf->cpu_err) {
		why_not(buf, sizeof(buf), mf->cpuinfo, mf->cpu_err, false);
		pr_string_keep(o, PRINT_JSON, "error", NULL, buf);
	}
	pr_close_object(o);
}

/* The sockets' interconnect (UPI, xGMI) */
static void print_interconnect(struct pr *o, const struct ptm_consts *cs)
{
	char buf[4400];

	pr_open_object(o, PRINT_ANY, "interconnect");
	pr_string_keep(o, PRINT_JSON, "bus", NULL, cs->bus);
	if (cs->cpu->link_gts > 0) {
		pr_float(o, PRINT_JSON, "gts", 1, NULL, cs->cpu->link_gts);
		pr_string_keep(o, PRINT_JSON, "links", NULL, cs->cpu->links);
	}
	pr_float(o, PRINT_JSON, "mbs", 0, NULL, cs->upi_mbs);
	pr_string_keep(o, PRINT_JSON, "source", NULL, cs->upi_src);
	pr_bool(o, PRINT_JSON, "assumed", NULL, cs->upi_assumed);
	link_text(buf, sizeof(buf), cs);
	pr_string_keep(o, PRINT_ANY, "text", "  socket link: %s\n", buf);
	pr_close_object(o);
}

/* The memory per socket: channels and speed, from SMBIOS or assumed */
static void print_memory(struct pr *o, const struct ptm_consts *cs,
			 const struct advise_out *out)
{
	const struct ptm_machine *m = &out->p->m;
	const struct machine_files *mf = out->mf;
	char buf[4400];

	pr_open_object(o, PRINT_ANY, "memory");
	if (cs->mem_channels) {
		pr_uint(o, PRINT_JSON, "channels", NULL, cs->mem_channels);
		pr_string_keep(o, PRINT_JSON, "channels_source", NULL,
			       cs->mem_channels_src);
		pr_uint(o, PRINT_JSON, "mts", NULL, cs->mem_mts);
		pr_string_keep(o, PRINT_JSON, "mts_source", NULL,
			       cs->mem_mts_src);
		pr_string_keep(o, PRINT_JSON, "type", NULL,
			       cs->mem_type ? cs->mem_type : "DDR");
	}
	pr_float(o, PRINT_JSON, "peak_mbs", 0, NULL, mem_peak(cs, out->p));
	pr_float(o, PRINT_JSON, "mbs", 0, NULL, cs->mem_mbs);
	pr_string_keep(o, PRINT_JSON, "source", NULL, cs->mem_src);
	pr_bool(o, PRINT_JSON, "assumed", NULL, cs->mem_assumed);
	if (m->have_mem) {
		pr_open_object(o, PRINT_JSON, "smbios");
		pr_uint(o, PRINT_JSON, "devices", NULL, m->mem.devices);
		pr_uint(o, PRINT_JSON, "populated", NULL, m->mem.populated);
		pr_u64(o, PRINT_JSON, "total_mb", NULL, m->mem.total_mb);
		pr_uint(o, PRINT_JSON, "mts", NULL, m->mem.mts);
		pr_close_object(o);
	} else {
		why_not(buf, sizeof(buf), mf->smbios, mf->mem_err,
			!mf->smbios[0]);
		pr_string_keep(o, PRINT_JSON, "smbios_error", NULL, buf);
	}
	mem_text(buf, sizeof(buf), cs, out);
	pr_string_keep(o, PRINT_ANY, "text", "  memory: %s\n", buf);
	pr_close_object(o);
}

/* platform: the CPU, its sockets and their link, the memory; each with
 * where it came from, and its line of text */
static void print_platform(struct pr *o, const struct ptm_consts *cs,
			   const struct advise_opts *ao,
			   const struct advise_out *out)
{
	pr_open_object(o, PRINT_ANY, "platform");
	print_cpu(o, cs, out);
	pr_open_object(o, PRINT_ANY, "sockets");
	pr_uint(o, PRINT_ANY, "count", "; %u socket", ao->hw.cpus);
	pr_text(o, "%s", ao->hw.cpus == 1 ? "" : "s");
	pr_string_keep(o, PRINT_ANY, "source", " (%s)\n", out->cpus_src);
	pr_close_object(o);
	print_interconnect(o, cs);
	print_memory(o, cs, out);
	pr_close_object(o);
}

/*
 * A layout's GPU pairs by class, its uplinks and its host memory: in its
 * ranking entry (w PRINT_JSON) and on its "pairs:" line below the table
 * (w PRINT_FP), by the same calls.
 */
static void print_pairs(struct pr *o, enum pr_where w,
			const struct ptm_choice *ch)
{
	const struct ptm_eval *e = &ch->eval;
	char name[24], v[32];
	unsigned int i;

	/* host memory leads in the JSON, ends the line */
	pr_null(o, w & PRINT_JSON, "host_memory_mbs", NULL, NULL);
	if (w & PRINT_FP)
		pr_text(o, "%-9s pairs:", ptc_layout_name((u8)ch->layout));
	pr_open_object(o, w, "pair_mbs");
	for (i = 0; i < sizeof(class_ids); i++) {
		if (!e->class_pairs[class_ids[i]])
			continue;
		snprintf(name, sizeof(name), " %s %%s", class_names[i]);
		gbs(v, sizeof(v), "%.1f", e->class_mbs[class_ids[i]]);
		pr_float_as(o, w, class_names[i], e->class_mbs[class_ids[i]],
			    1, name, v);
	}
	pr_close_object(o);
	if (w & PRINT_FP)
		pr_text(o, " GB/s; uplinks:");
	pr_open_array(o, w, "uplinks", NULL, ",");
	for (i = 0; i < e->nuplinks; i++) {
		const struct ptm_uplink *u = &e->uplinks[i];

		pr_open_object(o, w, NULL);
		pr_null(o, w & PRINT_JSON, "socket", NULL, NULL);
		pr_uint(o, w, "gpus", " %u GPUs", u->gpus);
		gbs(v, sizeof(v), "%.1f", u->mbs);
		pr_float_as(o, w, "mbs", u->mbs, 1, "/%s GB/s", v);
		pr_uint(o, w, "socket", " (CPU%u)", u->socket);
		pr_close_object(o);
	}
	pr_close_array(o, NULL, NULL);
	gbs(v, sizeof(v), "%.0f", e->mem_mbs);
	pr_float_as(o, w, "host_memory_mbs", e->mem_mbs, 1,
		    "; host memory %s GB/s\n", v);
}

/* One row of the ranking table; its JSON entry has every figure. The
 * layout and whether it is the current one lead the entry (laid down
 * first), and end the row. */
static void print_choice(struct pr *o, const struct ptm_choice *ch,
			 unsigned int rank, bool now)
{
	const struct ptm_cost *k = &ch->cost;
	const char *name = ptc_layout_name((u8)ch->layout);
	char v[32], sps[16] = "-";

	pr_open_object(o, PRINT_ANY, NULL);
	pr_null(o, PRINT_JSON, "layout", NULL, NULL);
	pr_null(o, PRINT_JSON, "current", NULL, NULL);
	pr_string_keep(o, PRINT_JSON, "shape", NULL, ch->shape);
	pr_bool(o, PRINT_JSON, "available", NULL, !ch->err);
	if (ch->err) {
		pr_text(o, "-    ");
		pr_string_keep(o, PRINT_ANY, "layout", "%-9s", name);
		pr_bool(o, PRINT_JSON, "current", NULL, now);
		pr_string_keep(o, PRINT_JSON, "error", NULL, strerror(-ch->err));
		pr_text(o, " unavailable: %s\n", ch->err == -EOPNOTSUPP ?
			ch->shape : strerror(-ch->err));
		pr_close_object(o);
		return;
	}
	pr_uint(o, PRINT_ANY, "rank", "%-4u ", rank);
	pr_string_keep(o, PRINT_ANY, "layout", "%-9s", name);
	pr_float(o, PRINT_ANY, "allreduce_ms", 3, " %7.2f ms",
		 k->allreduce_s * 1e3);
	pr_float(o, PRINT_ANY, "host_io_ms", 3, " %7.2f ms",
		 k->host_io_s * 1e3);
	pr_float(o, PRINT_ANY, "comm_ms", 3, " %7.2f ms", k->comm_s * 1e3);
	if (k->compute_s > 0) {
		pr_float(o, PRINT_JSON, "compute_ms", 3, NULL,
			 k->compute_s * 1e3);
		pr_float(o, PRINT_JSON, "samples_per_sec_per_gpu", 1, NULL,
			 k->samples_per_sec);
	}
	pr_string_keep(o, PRINT_JSON, "allreduce_limit", NULL, k->ar_limit);
	pr_string_keep(o, PRINT_JSON, "host_io_limit", NULL, k->io_limit);
	gbs(v, sizeof(v), "%6.1f", ch->eval.ring_busbw);
	pr_float_as(o, PRINT_ANY, "ring_busbw_mbs", ch->eval.ring_busbw, 1,
		    " %s GB/s", v);
	gbs(v, sizeof(v), "%6.1f", ch->eval.h2d_mbs);
	pr_float_as(o, PRINT_ANY, "host_to_gpu_mbs", ch->eval.h2d_mbs, 1,
		    " %s GB/s", v);
	print_pairs(o, PRINT_JSON, ch);
	if (k->samples_per_sec > 0)
		snprintf(sps, sizeof(sps), "%.0f", k->samples_per_sec);
	pr_text(o, " %10s", sps);
	pr_bool(o, PRINT_ANY, "current", now ? "  (now)\n" : "\n", now);
	pr_close_object(o);
}

/* the model's constants, as the ranking used them */
static void print_constants(struct pr *o, const struct ptm_consts *cs)
{
	pr_open_object(o, PRINT_ANY, "constants");
	pr_float(o, PRINT_ANY, "pcie_eff", 4, "constants: pcie_eff %.2f",
		 cs->pcie_eff);
	pr_float(o, PRINT_ANY, "rc_p2p_eff", 4, ", rc_p2p_eff %.3f",
		 cs->rc_p2p_eff);
	pr_float(o, PRINT_ANY, "upi_mbs", 0, ", upi_mbs %.0f", cs->upi_mbs);
	pr_string_keep(o, PRINT_ANY, "upi_source", " (%s)", cs->upi_src);
	pr_float(o, PRINT_ANY, "mem_mbs", 0, ", mem_mbs %.0f", cs->mem_mbs);
	pr_string_keep(o, PRINT_ANY, "mem_source", " (%s)\n", cs->mem_src);
	pr_bool(o, PRINT_JSON, "upi_assumed", NULL, cs->upi_assumed);
	pr_bool(o, PRINT_JSON, "mem_assumed", NULL, cs->mem_assumed);
	pr_close_object(o);
}

/*
 * The text: the workload, the hardware and platform, the layouts built,
 * the ranking table, each layout's pairs, the constants and the reason.
 * The JSON from the same calls keeps the order it always had (workload,
 * hardware, ranking, best, reason, constants, platform): the keys after
 * hardware are laid down first. The constants are the same for every
 * layout built (one root link): those of the best available one.
 */
int print_advice(struct ctx *c, const struct advise_opts *ao,
		 const struct ptm_advice *a, const struct advise_out *out)
{
	const struct ptm_consts *cs = NULL;
	struct pr o;
	unsigned int i;

	for (i = 0; i < PTM_NLAYOUTS && !cs; i++)
		if (!a->c[a->order[i]].err)
			cs = &a->c[a->order[i]].eval.c;
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	print_workload(&o, ao);
	print_hardware(&o, ao, out);
	pr_null(&o, PRINT_JSON, "ranking", NULL, NULL);
	pr_null(&o, PRINT_JSON, "best", NULL, NULL);
	pr_null(&o, PRINT_JSON, "reason", NULL, NULL);
	if (cs) {
		pr_null(&o, PRINT_JSON, "constants", NULL, NULL);
		print_platform(&o, cs, ao, out);
	}
	pr_text(&o, "layouts built:\n");
	for (i = 0; i < PTM_NLAYOUTS; i++)
		pr_text(&o, "  %-9s %s\n", ptc_layout_name((u8)a->c[i].layout),
			a->c[i].shape);
	pr_text(&o, "\n%-4s %-9s %10s %10s %10s %11s %11s %10s\n", "rank",
		"layout", "allreduce", "host-io", "comm/step", "ring-busbw",
		"host->GPU", "samples/s");
	pr_open_array(&o, PRINT_ANY, "ranking", NULL, NULL);
	for (i = 0; i < PTM_NLAYOUTS; i++)
		print_choice(&o, &a->c[a->order[i]], i + 1,
			     a->c[a->order[i]].layout == out->now);
	pr_close_array(&o, NULL, NULL);
	pr_string_keep(&o, PRINT_JSON, "best", NULL,
		       ptc_layout_name((u8)a->c[a->order[0]].layout));
	pr_nl(&o);
	for (i = 0; i < PTM_NLAYOUTS; i++)
		if (!a->c[a->order[i]].err)
			print_pairs(&o, PRINT_FP, &a->c[a->order[i]]);
	if (cs)
		print_constants(&o, cs);
	pr_string_keep(&o, PRINT_ANY, "reason", "\n%s\n", a->reason);
	pr_close_object(&o);
	return pr_end(&o);
}
