// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl export [--format { json | nccl | dot | prometheus }]
 *                [--output FILE]: the whole model in a form other tools read.
 *
 *   json  {"summary", "devices", "paths"}: every object as the other -j
 *         commands print it; a snapshot to feed scripts, or for
 *         `topoctl diff` to compare a later model with (diff.c).
 *   nccl  an NCCL topology file (NCCL_TOPO_FILE): <system version="1">, one
 *         <cpu numaid=N> per NUMA node of a host bridge (numaid="-1" when the
 *         firmware gave none), and below it one <pci> element per switch
 *         (named after its upstream port) and per GPU, NIC or NVMe device,
 *         nested as NCCL's own sysfs walk nests them: root ports and
 *         downstream ports never appear, cascaded switches nest. Only <cpu>
 *         and <pci> elements with bus ids, IDs and max link figures: NCCL
 *         fills in the rest, as with a hand-written file.
 *   dot   a Graphviz digraph of the PCIe tree from the host bridges down,
 *         edges labelled with their current link.
 *   prometheus
 *         the Prometheus text format (0.0.4) for node_exporter's textfile
 *         collector: the layout as a state set, the summary's counts, each
 *         upstream link's figures and flags, each path's class, hops,
 *         bottleneck and flags (see "Prometheus" below), and what
 *         `topoctl doctor` finds, by check and severity.
 *
 * --output FILE replaces FILE atomically instead of writing to stdout (see
 * export_to_file()).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "print.h"
#include "ptc.h"
#include "topoctl.h"

struct json_object *export_tree(struct ctx *c, const struct pt_topology *t)
{
	struct pr o;

	pr_begin_tree(&o, c);
	pr_export_object(&o, t);
	return pr_end_tree(&o);
}

/* JSON whatever -j says: the format asked for */
static int export_json(struct ctx *c, const struct pt_topology *t)
{
	struct json_object *o = export_tree(c, t);

	if (!o)
		return 1;
	emit_json(c, o);
	return 0;
}

/* --- NCCL ------------------------------------------------------------- */

static bool nccl_endpoint(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT &&
	       (d->kind == PCITOPO_KIND_GPU || d->kind == PCITOPO_KIND_NIC ||
		d->kind == PCITOPO_KIND_NVME);
}

/* Whether d is an element of NCCL's tree: a switch or an endpoint. */
static bool nccl_node(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_UPSTREAM || nccl_endpoint(d);
}

/* The closest switch upstream port above d, or NULL (under the CPU). */
static const struct pt_device *nccl_parent(const struct pt_topology *t,
					   const struct pt_device *d)
{
	int depth = 0;

	for (d = pt_topology_find(t, d->parent); d && depth++ < 64;
	     d = pt_topology_find(t, d->parent))
		if (d->role == PCITOPO_ROLE_UPSTREAM)
			return d;
	return NULL;
}

static void nccl_speed(char *buf, size_t len, unsigned int mts)
{
	/* as sysfs max_link_speed prints it: "2.5 GT/s PCIe", "16.0 GT/s PCIe" */
	snprintf(buf, len, "%u.%u GT/s PCIe", mts / 1000, mts % 1000 / 100);
}

static void nccl_tree(struct ctx *c, const struct pt_topology *t,
		      const struct pt_device *parent, int numa, int indent)
{
	char speed[32];
	size_t i;
	bool kids;

	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];
		size_t j;

		if (!nccl_node(d) || nccl_parent(t, d) != parent)
			continue;
		if (!parent && d->numa_node != numa)
			continue;
		fprintf(c->out, "%*s<pci busid=\"%s\" class=\"0x%06x\" "
			"vendor=\"0x%04x\" device=\"0x%04x\"", indent, "",
			d->addr, d->class_code, d->vendor, d->device);
		if (pt_device_has_link(d) && d->link_max_speed) {
			nccl_speed(speed, sizeof(speed), d->link_max_speed);
			fprintf(c->out, " link_speed=\"%s\" link_width=\"%u\"",
				speed, d->link_max_width);
		}
		for (j = 0, kids = false; j < t->n_devices && !kids; j++)
			kids = nccl_node(&t->devices[j]) &&
			       nccl_parent(t, &t->devices[j]) == d;
		if (!kids) {
			fputs("/>\n", c->out);
			continue;
		}
		fputs(">\n", c->out);
		nccl_tree(c, t, d, numa, indent + 2);
		fprintf(c->out, "%*s</pci>\n", indent, "");
	}
}

static int export_nccl(struct ctx *c, const struct pt_topology *t)
{
	int nodes[256], n = 0, k, m;
	size_t i;

	/* the NUMA nodes of top-level elements, ascending, -1 first */
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];

		if (!nccl_node(d) || nccl_parent(t, d))
			continue;
		for (k = 0; k < n && nodes[k] != d->numa_node; k++)
			;
		if (k == n && n < 256)
			nodes[n++] = d->numa_node;
	}
	for (k = 1; k < n; k++)
		for (m = k; m > 0 && nodes[m - 1] > nodes[m]; m--) {
			int x = nodes[m];

			nodes[m] = nodes[m - 1];
			nodes[m - 1] = x;
		}
	fputs("<system version=\"1\">\n", c->out);
	for (k = 0; k < n; k++) {
		fprintf(c->out, "  <cpu numaid=\"%d\">\n", nodes[k]);
		nccl_tree(c, t, NULL, nodes[k], 4);
		fputs("  </cpu>\n", c->out);
	}
	fputs("</system>\n", c->out);
	return 0;
}

/* --- Graphviz --------------------------------------------------------- */

static int export_dot(struct ctx *c, const struct pt_topology *t)
{
	char name[16], link[32];
	const char *hb[256];
	size_t i, nhb = 0, k;

	fputs("digraph pcitopo {\n"
	      "\trankdir=TB;\n"
	      "\tnode [shape=box, fontname=\"monospace\"];\n", c->out);
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];

		if (d->parent[0] || !d->host_bridge[0])
			continue;
		for (k = 0; k < nhb && strcmp(hb[k], d->host_bridge); k++)
			;
		if (k < nhb || nhb == 256)
			continue;
		hb[nhb++] = d->host_bridge;
		if (d->numa_node >= 0)
			fprintf(c->out, "\t\"%s\" [label=\"host bridge %s\\nNUMA %d\", shape=ellipse];\n",
				d->host_bridge, d->host_bridge, d->numa_node);
		else
			fprintf(c->out, "\t\"%s\" [label=\"host bridge %s\", shape=ellipse];\n",
				d->host_bridge, d->host_bridge);
	}
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];
		const char *style = "";

		pt_dev_name(t, d, name, sizeof(name));
		if (d->kind == PCITOPO_KIND_GPU)
			style = ", style=filled, fillcolor=palegreen";
		else if (d->kind == PCITOPO_KIND_NIC)
			style = ", style=filled, fillcolor=lightblue";
		else if (d->kind == PCITOPO_KIND_NVME)
			style = ", style=filled, fillcolor=khaki";
		else if (pt_device_acs_redirect(d))
			style = ", color=red";
		fprintf(c->out, "\t\"%s\" [label=\"%s%s%s\\n%s\"%s];\n", d->addr,
			name[0] ? name : "", name[0] ? " " : "", d->addr,
			ptc_role_name(d->role), style);
	}
	for (i = 0; i < t->n_devices; i++) {
		const struct pt_device *d = &t->devices[i];
		const char *from = d->parent[0] ? d->parent : d->host_bridge;

		if (!from[0])
			continue;
		if (pt_device_has_link(d)) {
			fmt_link(link, sizeof(link), d->link_speed, d->link_width);
			fprintf(c->out, "\t\"%s\" -> \"%s\" [label=\"%s\"%s];\n",
				from, d->addr, link,
				d->link_flags & PCITOPO_LINK_F_WIDTH_DOWN ?
				", color=red" : "");
		} else {
			fprintf(c->out, "\t\"%s\" -> \"%s\";\n", from, d->addr);
		}
	}
	fputs("}\n", c->out);
	return 0;
}

/* --- Prometheus ------------------------------------------------------- */

/*
 * The text exposition format, version 0.0.4, for node_exporter's textfile
 * collector. Every family is a gauge (0.0.4 has no state set or info type:
 * those are gauges by convention, 1 for the state or the info that holds),
 * in base units (transfers and bytes per second, never MT/s or MB/s), with
 * HELP and TYPE before its samples, its samples together, and no timestamps
 * (the collector refuses files that carry them). Devices and paths come in
 * the model's bus order, so that two runs on one machine diff clean.
 *
 * Labels of a device: device (its address), name (GPU0, NIC1; "" for ports,
 * which Prometheus treats as absent), kind and role as the JSON has them. Of
 * a path: a, b (addresses) and a_name, b_name, as the JSON's path objects:
 * the address stays right when a GPU falls off the bus and the names shift,
 * the name is what an alert shows.
 */

/* A label value: backslash, double quote and newline escaped, as the format
 * wants. The strings are ASCII by construction (addresses, enum names, the
 * layout reason core/ formats); any other byte becomes '?' so that one odd
 * byte never turns the file into a parse error that drops every figure. */
static void prom_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '\\')
			fputs("\\\\", f);
		else if (ch == '"')
			fputs("\\\"", f);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch < 0x20 || ch > 0x7e)
			fputc('?', f);
		else
			fputc(ch, f);
	}
}

/* ", key=\"value\"" (or "{key=\"value\"" for the first label) */
static void prom_label(FILE *f, bool first, const char *key, const char *v)
{
	fprintf(f, "%s%s=\"", first ? "{" : ",", key);
	prom_value(f, v);
	fputc('"', f);
}

static void prom_family(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void prom_dev_labels(FILE *f, const struct pt_topology *t,
			    const struct pt_device *d)
{
	char name[16];

	pt_dev_name(t, d, name, sizeof(name));
	prom_label(f, true, "device", d->addr);
	prom_label(f, false, "name", name);
	prom_label(f, false, "kind", ptc_kind_name(d->kind));
	prom_label(f, false, "role", ptc_role_name(d->role));
	fputc('}', f);
}

static void prom_path_labels(FILE *f, const struct pt_topology *t,
			     const struct pt_path *p)
{
	const struct pt_device *d;
	char name[16] = "";

	prom_label(f, true, "a", p->a);
	d = pt_topology_find(t, p->a);
	if (d)
		pt_dev_name(t, d, name, sizeof(name));
	prom_label(f, false, "a_name", name);
	prom_label(f, false, "b", p->b);
	name[0] = '\0';
	d = pt_topology_find(t, p->b);
	if (d)
		pt_dev_name(t, d, name, sizeof(name));
	prom_label(f, false, "b_name", name);
}

/* The figures of a device's upstream link, in base units: MT/s and MB/s
 * (10^6) from the model become transfers and bytes per second. */
enum link_fig {
	LF_SPEED, LF_MAX_SPEED, LF_WIDTH, LF_MAX_WIDTH, LF_BW, LF_MAX_BW,
	LF_ACTIVE, LF_WIDTH_DOWN, LF_SPEED_DOWN,
};

static const struct {
	enum link_fig fig;
	const char *name;
	const char *help;
} link_families[] = {
	{ LF_SPEED, "pcitopo_link_speed_transfers_per_second",
	  "Current speed of the device's upstream PCIe link, per lane." },
	{ LF_MAX_SPEED, "pcitopo_link_max_speed_transfers_per_second",
	  "Best speed both ends of the device's upstream PCIe link support, per lane." },
	{ LF_WIDTH, "pcitopo_link_width_lanes",
	  "Current width of the device's upstream PCIe link." },
	{ LF_MAX_WIDTH, "pcitopo_link_max_width_lanes",
	  "Widest width both ends of the device's upstream PCIe link support." },
	{ LF_BW, "pcitopo_link_bandwidth_bytes_per_second",
	  "Bandwidth of the upstream PCIe link at its current speed and width, each way, after encoding." },
	{ LF_MAX_BW, "pcitopo_link_max_bandwidth_bytes_per_second",
	  "Bandwidth of the upstream PCIe link at its best speed and width, each way, after encoding." },
	{ LF_ACTIVE, "pcitopo_link_active",
	  "1 if the upstream PCIe link is trained (data link layer active), else 0." },
	{ LF_WIDTH_DOWN, "pcitopo_link_width_down",
	  "1 if the upstream PCIe link trained narrower than both ends support: "
	  "a fault (lane, riser, seating) to alert on; else 0." },
	{ LF_SPEED_DOWN, "pcitopo_link_speed_down",
	  "1 if the upstream PCIe link runs slower than both ends support, else 0. "
	  "Normal on an idle GPU, which drops its link speed to save power and "
	  "speeds up under load: alert on pcitopo_link_width_down, not on this." },
};

static uint64_t link_fig(const struct pt_device *d, enum link_fig fig)
{
	switch (fig) {
	case LF_SPEED:
		return (uint64_t)d->link_speed * 1000000;
	case LF_MAX_SPEED:
		return (uint64_t)d->link_max_speed * 1000000;
	case LF_WIDTH:
		return d->link_width;
	case LF_MAX_WIDTH:
		return d->link_max_width;
	case LF_BW:
		return (uint64_t)d->link_bw * 1000000;
	case LF_MAX_BW:
		return (uint64_t)d->link_max_bw * 1000000;
	case LF_ACTIVE:
		/* as the JSON's "link": without flags, a link with a speed is
		 * up */
		return !pt_has(d, PCITOPO_A_DEV_LINK_FLAGS) ||
		       (d->link_flags & PCITOPO_LINK_F_ACTIVE);
	case LF_WIDTH_DOWN:
		return (d->link_flags & PCITOPO_LINK_F_WIDTH_DOWN) != 0;
	case LF_SPEED_DOWN:
		return (d->link_flags & PCITOPO_LINK_F_SPEED_DOWN) != 0;
	}
	return 0;
}

enum path_fig { PF_HOPS, PF_BOTTLENECK_BW, PF_ACS_REDIRECT, PF_NUMA_UNKNOWN };

static const struct {
	enum path_fig fig;
	const char *name;
	const char *help;
} path_families[] = {
	{ PF_HOPS, "pcitopo_path_hops", "PCIe ports the path crosses." },
	{ PF_BOTTLENECK_BW, "pcitopo_path_bottleneck_bytes_per_second",
	  "Current bandwidth of the slowest PCIe link on the path, each way, after encoding." },
	{ PF_ACS_REDIRECT, "pcitopo_path_acs_redirect",
	  "1 if ACS on a downstream port of the path redirects P2P traffic up "
	  "to the root complex, else 0." },
	/* the class of a pair with a NUMA node of -1 is a guess between NODE
	 * and SYS: say so next to it rather than hide it */
	{ PF_NUMA_UNKNOWN, "pcitopo_path_numa_unknown",
	  "1 if the NUMA node of either end is unknown, so NODE or SYS in the "
	  "path's class is a guess, else 0." },
};

static uint64_t path_fig(const struct pt_path *p, enum path_fig fig)
{
	switch (fig) {
	case PF_HOPS:
		return p->hops;
	case PF_BOTTLENECK_BW:
		return (uint64_t)p->bottleneck_bw * 1000000;
	case PF_ACS_REDIRECT:
		return (p->flags & PCITOPO_PATH_F_ACS_REDIRECT) != 0;
	case PF_NUMA_UNKNOWN:
		return (p->flags & PCITOPO_PATH_F_NUMA_UNKNOWN) != 0;
	}
	return 0;
}

/*
 * What `topoctl doctor` finds, counted by check and severity; every pair of
 * the two is written, zeros included, so that an alert such as
 * pcitopo_doctor_findings{severity="error"} > 0 always has its series.
 */
static int prom_doctor(struct ctx *c, const struct pt_topology *t)
{
	unsigned int n[DR_NCHECK][DR_NSEV], k, s;
	int r = doctor_counts(c, t, n);

	if (r) {
		fprintf(c->err, "topoctl: doctor: %s\n", dr_last_error());
		return 1;
	}
	prom_family(c->out, "pcitopo_doctor_findings",
		    "Findings of topoctl doctor by check (acs, iommu, numa, link, "
		    "mps, aer, dpc, nccl) and severity (error, warning, note).");
	for (k = 0; k < DR_NCHECK; k++)
		for (s = 0; s < DR_NSEV; s++) {
			fputs("pcitopo_doctor_findings", c->out);
			prom_label(c->out, true, "check", dr_check_name(k));
			prom_label(c->out, false, "severity", dr_sev_name(s));
			fprintf(c->out, "} %u\n", n[k][s]);
		}
	return 0;
}

static int export_prometheus(struct ctx *c, const struct pt_topology *t)
{
	const struct pt_summary *s = &t->summary;
	const struct {
		const char *name;
		const char *help;
		uint64_t v;
	} counts[] = {
		{ "pcitopo_generation",
		  "Generation of the pcitopo model: grows by one on every change "
		  "of the topology; 0 when read from sysfs (module not loaded).",
		  s->generation },
		{ "pcitopo_devices", "PCIe ports and endpoints of interest in the model.",
		  s->count_devices },
		{ "pcitopo_gpus", "GPUs in the model.", s->count_gpus },
		{ "pcitopo_nics", "NICs in the model.", s->count_nics },
		{ "pcitopo_nvmes", "NVMe drives in the model.", s->count_nvmes },
		{ "pcitopo_switches", "PCIe switches in the model, GPUs below or not.",
		  s->count_switches },
		{ "pcitopo_root_ports", "Distinct PCIe root ports above the GPUs.",
		  s->count_root_ports },
		{ "pcitopo_numa_nodes", "Distinct known NUMA nodes of the GPUs.",
		  s->count_numa_nodes },
		{ "pcitopo_paths", "Endpoint pairs (ordered) in the path table.",
		  s->count_paths },
	};
	FILE *f = c->out;
	size_t i, k;
	unsigned int l;

	/* a state set: one series per layout, so that an alert on the one
	 * expected reads pcitopo_layout{layout="cascade"} == 0 */
	prom_family(f, "pcitopo_layout",
		    "Detected PCIe layout of the GPUs: 1 for the detected one, 0 for the others.");
	for (l = 0; l < __PCITOPO_LAYOUT_MAX; l++) {
		fputs("pcitopo_layout", f);
		prom_label(f, true, "layout", ptc_layout_name((u8)l));
		fprintf(f, "} %d\n", l == s->layout);
	}
	prom_family(f, "pcitopo_layout_info",
		    "The detected layout and why, for an alert's text; always 1.");
	fputs("pcitopo_layout_info", f);
	prom_label(f, true, "layout", ptc_layout_name(s->layout));
	prom_label(f, false, "reason", s->reason);
	fputs("} 1\n", f);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		prom_family(f, counts[i].name, counts[i].help);
		fprintf(f, "%s %" PRIu64 "\n", counts[i].name, counts[i].v);
	}

	/* upstream links live on endpoints and switch upstream ports; root and
	 * downstream ports carry none (pt_device_has_link(), as the JSON's
	 * "link") */
	for (k = 0; k < sizeof(link_families) / sizeof(link_families[0]); k++) {
		prom_family(f, link_families[k].name, link_families[k].help);
		for (i = 0; i < t->n_devices; i++) {
			const struct pt_device *d = &t->devices[i];

			if (!pt_device_has_link(d))
				continue;
			fputs(link_families[k].name, f);
			prom_dev_labels(f, t, d);
			fprintf(f, " %" PRIu64 "\n",
				link_fig(d, link_families[k].fig));
		}
	}

	prom_family(f, "pcitopo_path_info",
		    "P2P path class between two endpoints, as nvidia-smi topo -m "
		    "names it (PIX, PXB, PHB, NODE, SYS); always 1.");
	for (i = 0; i < t->n_paths; i++) {
		fputs("pcitopo_path_info", f);
		prom_path_labels(f, t, &t->paths[i]);
		prom_label(f, false, "class",
			   ptc_class_name(t->paths[i].path_class));
		fputs("} 1\n", f);
	}
	for (k = 0; k < sizeof(path_families) / sizeof(path_families[0]); k++) {
		prom_family(f, path_families[k].name, path_families[k].help);
		for (i = 0; i < t->n_paths; i++) {
			fputs(path_families[k].name, f);
			prom_path_labels(f, t, &t->paths[i]);
			fprintf(f, "} %" PRIu64 "\n",
				path_fig(&t->paths[i], path_families[k].fig));
		}
	}
	return prom_doctor(c, t);
}

static const struct {
	const char *name;
	int (*fn)(struct ctx *c, const struct pt_topology *t);
} formats[] = {
	{ "json", export_json },
	{ "nccl", export_nccl },
	{ "dot", export_dot },
	{ "prometheus", export_prometheus },
};

int export_format(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return (int)i;
	return -1;
}

int print_export(struct ctx *c, const struct pt_topology *t, int format)
{
	return formats[format].fn(c, t);
}

/*
 * --output FILE: node_exporter's textfile collector may read FILE at any
 * moment, so it must see the old file or the new one, never a part. The
 * text goes to a temporary file in FILE's directory (same file system, so
 * rename() is atomic), named ".FILE.XXXXXX" so that the collector's *.prom
 * glob never picks it up, made 0644 whatever the umask (the collector runs
 * as another user), flushed and fsync()ed (after a crash the new name never
 * points to blocks not yet written), then renamed over FILE. On any failure
 * the temporary file goes and FILE is untouched.
 */
static int export_to_file(struct ctx *c, const struct pt_topology *t,
			  int fmt, const char *path)
{
	const char *slash = strrchr(path, '/');
	int dlen = slash ? (int)(slash - path) + 1 : 0;
	const char *what = "writing";
	FILE *saved = c->out, *f;
	int fd, r = 0, err;
	char *tmp;

	/* "DIR/.NAME.XXXXXX" */
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", dlen, path, path + dlen) < 0) {
		fprintf(c->err, "topoctl: writing %s: %s\n", path, strerror(ENOMEM));
		return 1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		goto remove;
	}
	c->out = f;
	errno = 0;
	r = print_export(c, t, fmt);
	c->out = saved;
	err = 0;
	if (!r && (fflush(f) || ferror(f) || fsync(fileno(f))))
		err = errno ? errno : EIO;
	if (fclose(f) && !r && !err)
		err = errno;
	if (r || err)
		goto remove;
	if (rename(tmp, path)) {
		err = errno;
		what = "replacing";
		goto remove;
	}
	free(tmp);
	return 0;
remove:
	unlink(tmp);
out:
	free(tmp);
	if (r)
		return r;	/* the printer said why */
	fprintf(c->err, "topoctl: %s %s: %s\n", what, path, strerror(err));
	return 1;
}

int do_export(struct ctx *c, int argc, char **argv)
{
	struct pt_topology t = { 0 };
	const char *output = NULL;
	int fmt = 0, r, i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "help")) {
			print_object_help(c, "export", NULL);
			return 0;
		}
		if (!strcmp(argv[i], "--output") || !strcmp(argv[i], "output") ||
		    !strcmp(argv[i], "-o")) {
			if (++i >= argc || !*argv[i])
				return usage_error(c, "'export %s' needs a FILE",
						   argv[i - 1]);
			output = argv[i];
			continue;
		}
		if (strcmp(argv[i], "--format") && strcmp(argv[i], "format") &&
		    strcmp(argv[i], "-f"))
			return usage_error(c, "unexpected argument '%s' to 'export'\n"
					   "Try 'topoctl export help'.", argv[i]);
		if (++i >= argc)
			return usage_error(c, "'export %s' needs json, nccl, dot or prometheus",
					   argv[i - 1]);
		fmt = export_format(argv[i]);
		if (fmt < 0)
			return usage_error(c, "unknown export format '%s' "
					   "(json, nccl, dot or prometheus)", argv[i]);
	}
	r = load_topology(c, &t);
	if (r)
		return r;
	r = output ? export_to_file(c, &t, fmt, output) :
		     print_export(c, &t, fmt);
	pt_topology_free(&t);
	return r;
}
