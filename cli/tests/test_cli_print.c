// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl's printers and name parsers on synthetic topologies of the three
 * layouts (synthtopo.c): golden text files (tests/golden/, regenerate with
 * UPDATE_GOLDEN=1 after checking the diff), JSON that json-c parses back with
 * the expected content, and the device name grammar.
 *
 *   test_cli_print              run the tests (TAP), from cli/
 *   test_cli_print emit LAYOUT OBJECT [-j]
 *                               print one printer's output (for jq checks)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "synthtopo.h"
#include "tap.h"	/* tests/unit/tap.h */
#include "topoctl.h"

#define GOLDEN	"tests/golden/"
#define SYSFS	"tests/sysfs"

typedef int (*printer)(struct ctx *c, const struct pt_topology *t);

static const struct pt_device *by(const struct pt_topology *t, const char *n)
{
	const struct pt_device *d = NULL;

	return pt_dev_resolve(t, n, &d) ? NULL : d;
}

static int p_show(struct ctx *c, const struct pt_topology *t)
{
	return print_show(c, t);
}

static int p_topo(struct ctx *c, const struct pt_topology *t)
{
	return print_topo(c, t);
}

static int p_port(struct ctx *c, const struct pt_topology *t)
{
	return print_ports(c, t, NULL);
}

static int p_dev(struct ctx *c, const struct pt_topology *t)
{
	return print_devs(c, t, NULL);
}

static int p_devshow(struct ctx *c, const struct pt_topology *t)
{
	return print_devs(c, t, by(t, "GPU6"));
}

static int p_portshow(struct ctx *c, const struct pt_topology *t)
{
	return print_ports(c, t, pt_topology_find(t, "0000:22:01.0"));
}

static int p_path(struct ctx *c, const struct pt_topology *t)
{
	const struct pt_path *p = pt_topology_find_path(t, by(t, "GPU1")->addr,
							by(t, "GPU6")->addr);

	return print_path(c, t, p);
}

static int p_path_pix(struct ctx *c, const struct pt_topology *t)
{
	const struct pt_path *p = pt_topology_find_path(t, by(t, "GPU0")->addr,
							by(t, "GPU1")->addr);

	return print_path(c, t, p);
}

static int p_export_json(struct ctx *c, const struct pt_topology *t)
{
	return print_export(c, t, export_format("json"));
}

static int p_export_nccl(struct ctx *c, const struct pt_topology *t)
{
	return print_export(c, t, export_format("nccl"));
}

static int p_export_dot(struct ctx *c, const struct pt_topology *t)
{
	return print_export(c, t, export_format("dot"));
}

static int p_export_prom(struct ctx *c, const struct pt_topology *t)
{
	return print_export(c, t, export_format("prometheus"));
}

static const struct {
	const char *name;
	printer fn;
} exports[] = {
	{ "export-json", p_export_json },
	{ "export-nccl", p_export_nccl },
	{ "export-dot", p_export_dot },
	{ "export-prometheus", p_export_prom },
};

static const struct {
	const char *name;
	printer fn;
} printers[] = {
	{ "show", p_show },
	{ "topo", p_topo },
	{ "port", p_port },
	{ "dev", p_dev },
	{ "dev-show", p_devshow },
	{ "port-show", p_portshow },
	{ "path", p_path },
	{ "path-pix", p_path_pix },
};
#define N_PRINTERS (sizeof(printers) / sizeof(printers[0]))

/* Run a printer into a malloc()ed string, with or without --all-nics. */
static char *capture_nics(printer fn, const struct pt_topology *t, bool json,
			  bool all_nics)
{
	struct ctx c = { .json = json, .err = stderr, .sysfs = SYSFS,
			 .all_nics = all_nics };
	char *buf = NULL;
	size_t len = 0;

	c.out = open_memstream(&buf, &len);
	if (!c.out)
		abort();
	fn(&c, t);
	fclose(c.out);
	return buf;
}

static char *capture(printer fn, const struct pt_topology *t, bool json)
{
	return capture_nics(fn, t, json, false);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Compare with the golden file; print the first differing line. */
static void golden(const char *name, const char *got)
{
	char path[256];
	char *exp;
	int line = 1;
	size_t i;

	snprintf(path, sizeof(path), GOLDEN "%s", name);
	if (getenv("UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "we");

		if (f) {
			fputs(got, f);
			fclose(f);
		}
	}
	exp = slurp(path);
	if (!exp) {
		tap_ok(0, "golden %s (missing; UPDATE_GOLDEN=1 writes it)", name);
		return;
	}
	for (i = 0; exp[i] && exp[i] == got[i]; i++)
		if (exp[i] == '\n')
			line++;
	if (!tap_ok(!exp[i] && !got[i], "golden %s", name))
		printf("# first difference at line %d\n", line);
	free(exp);
}

static struct json_object *parse_json(const char *s)
{
	enum json_tokener_error e;
	struct json_object *o = json_tokener_parse_verbose(s, &e);

	return e == json_tokener_success ? o : NULL;
}

static const char *jstr(struct json_object *o, const char *path)
{
	char buf[128], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o;
	     tok = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(tok));
		else if (!json_object_object_get_ex(o, tok, &o))
			o = NULL;
	}
	return o ? json_object_get_string(o) : NULL;
}

static void test_layout(enum synth_layout l)
{
	const char *ln = synth_layout_names[l];
	struct pt_topology t;
	struct json_object *o;
	char name[64];
	size_t i;
	char *s;

	if (!tap_ok(!synth_build(&t, l), "%s: synthetic topology built", ln))
		return;
	for (i = 0; i < N_PRINTERS; i++) {
		/* per-device views only for balance, whose names they use */
		if (l != SY_BALANCE && strcmp(printers[i].name, "topo") &&
		    strcmp(printers[i].name, "show"))
			continue;
		s = capture(printers[i].fn, &t, false);
		snprintf(name, sizeof(name), "%s-%s.txt", printers[i].name, ln);
		golden(name, s);
		free(s);
		s = capture(printers[i].fn, &t, true);
		o = parse_json(s);
		tap_ok(o != NULL, "%s: %s -j is valid JSON", ln, printers[i].name);
		json_object_put(o);
		free(s);
	}
	for (i = 0; i < sizeof(exports) / sizeof(exports[0]); i++) {
		s = capture(exports[i].fn, &t, false);
		snprintf(name, sizeof(name), "%s-%s.txt", exports[i].name, ln);
		golden(name, s);
		if (i == 0) {
			o = parse_json(s);
			tap_ok(o && jstr(o, "paths.0.class") &&
			   json_object_array_length(json_object_object_get(o, "devices")) ==
			   t.n_devices, "%s: export json parses, has every device", ln);
			json_object_put(o);
		}
		free(s);
	}

	/* core/ (as the module and derive.c use it) classes every pair the
	 * way the synthetic model does */
	{
		struct ptc_topo pt;
		struct pt_path dp;
		size_t bad = 0;
		int r = pt_derive_open(&t, &pt);

		for (i = 0; !r && i < t.n_paths; i++) {
			const struct pt_path *p = &t.paths[i];

			if (pt_derive_path(&pt, &t, pt_topology_find(&t, p->a),
					pt_topology_find(&t, p->b), &dp) ||
			    dp.path_class != p->path_class ||
			    dp.flags != p->flags ||
			    strcmp(dp.common, p->common) ||
			    dp.bottleneck_bw != p->bottleneck_bw) {
				if (!bad++)
					printf("# %s -> %s: core %s flags %x common '%s' bw %u, synth %s flags %x common '%s' bw %u\n",
					       p->a, p->b, ptc_class_name(dp.path_class),
					       dp.flags, dp.common, dp.bottleneck_bw,
					       ptc_class_name(p->path_class), p->flags,
					       p->common, p->bottleneck_bw);
			}
		}
		tap_ok(!r && !bad, "%s: core's ptc_path agrees on all %zu paths (%zu differ)",
		   ln, t.n_paths, bad);
		pt_derive_close(&pt);
	}

	/* JSON content of the matrix agrees with the text */
	s = capture(p_topo, &t, true);
	o = parse_json(s);
	if (l == SY_BALANCE) {
		const char *g0g1 = jstr(o, "devices.0.paths.GPU1.class");
		const char *g0g4 = jstr(o, "devices.0.paths.GPU4.class");
		const char *nic1 = jstr(o, "devices.9.name");
		const char *unk = jstr(o, "devices.9.paths.GPU0.flags.0");

		tap_ok(g0g1 && !strcmp(g0g1, "PIX"), "balance: JSON GPU0-GPU1 is PIX");
		tap_ok(g0g4 && !strcmp(g0g4, "SYS"), "balance: JSON GPU0-GPU4 is SYS");
		tap_ok(nic1 && !strcmp(nic1, "NIC1"), "balance: JSON row 9 is NIC1");
		tap_ok(unk && !strcmp(unk, "numa-unknown"),
		   "balance: JSON NIC1-GPU0 flagged numa-unknown");
		tap_ok(jstr(o, "devices.9.numa_affinity") == NULL,
		   "balance: JSON NIC1 numa_affinity is null");
		tap_ok(jstr(o, "devices.0.cpu_affinity") &&
		   !strcmp(jstr(o, "devices.0.cpu_affinity"), "0-31,64-95"),
		   "balance: JSON GPU0 cpu_affinity from sysfs cpulist");
	} else if (l == SY_CASCADE) {
		const char *a = jstr(o, "devices.0.paths.GPU4.class");
		const char *r = jstr(o, "devices.7.paths.GPU4.flags.0");

		tap_ok(a && !strcmp(a, "PXB"), "cascade: JSON GPU0-GPU4 is PXB");
		tap_ok(r && !strcmp(r, "acs-redirect"),
		   "cascade: JSON GPU7-GPU4 flagged acs-redirect");
	} else {
		const char *a = jstr(o, "devices.0.paths.GPU4.class");

		tap_ok(a && !strcmp(a, "PHB"), "common: JSON GPU0-GPU4 is PHB");
	}
	json_object_put(o);
	free(s);
	pt_topology_free(&t);
}

static void test_names(void)
{
	static const struct {
		const char *arg;
		int err;
		const char *addr;
	} cases[] = {
		{ "GPU0", 0, "0000:23:00.0" },
		{ "gpu3", 0, "0000:26:00.0" },
		{ "Gpu4", 0, "0000:83:00.0" },
		{ "GPU7", 0, "0000:86:00.0" },
		{ "NIC0", 0, "0000:27:00.0" },
		{ "nic1", 0, "0000:87:00.0" },
		{ "0000:85:00.0", 0, "0000:85:00.0" },
		{ "85:00.0", 0, "0000:85:00.0" },
		{ "0000:22:01.0", 0, "0000:22:01.0" },
		{ "GPU8", -ENODEV, NULL },
		{ "NIC2", -ENODEV, NULL },
		{ "NVME0", -ENODEV, NULL },
		{ "0000:99:00.0", -ENODEV, NULL },
		{ "1:85:00.0", -ENODEV, NULL },
		{ "GPU", -EINVAL, NULL },
		{ "GPU-1", -EINVAL, NULL },
		{ "GPU1x", -EINVAL, NULL },
		{ "GPU99999999999", -EINVAL, NULL },
		{ "foo", -EINVAL, NULL },
		{ "", -EINVAL, NULL },
		{ "85:00", -EINVAL, NULL },
		{ "0000:85:00.8", -EINVAL, NULL },
		{ " 85:00.0", -EINVAL, NULL },
	};
	const struct pt_device *d;
	struct pt_topology t, u;
	size_t i;
	int r;

	if (synth_build(&t, SY_BALANCE))
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = pt_dev_resolve(&t, cases[i].arg, &d);
		tap_ok(r == cases[i].err &&
		   (!cases[i].addr || (d && !strcmp(d->addr, cases[i].addr))),
		   "pt_dev_resolve(\"%s\") = %d%s%s", cases[i].arg,
		   cases[i].err, cases[i].addr ? " " : "",
		   cases[i].addr ? cases[i].addr : "");
	}
	/* GPU numbering follows bus order, not the order the kernel dumped */
	u = t;
	u.devices = malloc(t.n_devices * sizeof(*t.devices));
	for (i = 0; i < t.n_devices; i++)
		u.devices[i] = t.devices[t.n_devices - 1 - i];
	u.paths = NULL;
	u.n_paths = 0;
	pt_topology_sort(&u);
	r = pt_dev_resolve(&u, "GPU5", &d);
	tap_ok(!r && !strcmp(d->addr, "0000:84:00.0"),
	   "GPU5 is the sixth GPU in bus order after sorting a reversed dump");
	free(u.devices);
	pt_topology_free(&t);

	{
		unsigned int v = 0, dv = 0;

		tap_ok(!parse_id("10de:2330", &v, &dv) && v == 0x10de && dv == 0x2330,
		   "parse_id 10de:2330");
		tap_ok(!parse_id("1AF4:1050", &v, &dv) && v == 0x1af4 && dv == 0x1050,
		   "parse_id upper case");
		tap_ok(parse_id("10de", &v, &dv) == -EINVAL, "parse_id rejects 10de");
		tap_ok(parse_id("10de:233", &v, &dv) == -EINVAL,
		   "parse_id rejects 3 device digits");
		tap_ok(parse_id("0x10:2330", &v, &dv) == -EINVAL, "parse_id rejects 0x");
		tap_ok(parse_id("10de:2330x", &v, &dv) == -EINVAL,
		   "parse_id rejects trailing text");
	}
	tap_ok(parse_kind("gpu") == PCITOPO_KIND_GPU && parse_kind("NIC") ==
	   PCITOPO_KIND_NIC && parse_kind("nvme") == PCITOPO_KIND_NVME &&
	   parse_kind("port") == -EINVAL, "parse_kind gpu/nic/nvme only");
}

static char *topo_text(const struct pt_topology *t, bool all_nics)
{
	return capture_nics(p_topo, t, false, all_nics);
}

/* NICs as nvidia-smi names them: RDMA ones first, by RDMA name. */
static void test_nic_names(void)
{
	struct pt_device *n0, *n1;
	struct pt_topology t;
	const struct pt_device *d;
	char *txt;

	if (synth_build(&t, SY_BALANCE))
		return;
	n0 = (struct pt_device *)pt_topology_find(&t, "0000:27:00.0");
	n1 = (struct pt_device *)pt_topology_find(&t, "0000:87:00.0");
	snprintf(n0->rdma, sizeof(n0->rdma), "mlx5_10");
	snprintf(n1->rdma, sizeof(n1->rdma), "mlx5_2");
	tap_ok(!pt_dev_resolve(&t, "NIC0", &d) && d == n1,
	   "NIC0 is mlx5_2 (RDMA name order, digits as numbers), not the first in bus order");
	txt = topo_text(&t, false);
	tap_ok(strstr(txt, "  NIC0: mlx5_2 (0000:87:00.0)\n") &&
	   strstr(txt, "  NIC1: mlx5_10 (0000:27:00.0)\n"),
	   "topo: NIC legend names the RDMA device beside its address");
	free(txt);

	n1->rdma[0] = '\0';		/* a plain Ethernet port */
	snprintf(n1->netdev, sizeof(n1->netdev), "eno1");
	tap_ok(!pt_dev_resolve(&t, "NIC0", &d) && d == n0 &&
	   !pt_dev_resolve(&t, "NIC1", &d) && d == n1,
	   "a plain NIC is named after the RDMA ones");
	txt = topo_text(&t, false);
	tap_ok(strstr(txt, "\tNIC0\tCPU Affinity") && !strstr(txt, "NIC1") &&
	   !strstr(txt, "0000:87:00.0"),
	   "topo: the plain NIC has no row, column or legend line");
	free(txt);
	txt = topo_text(&t, true);
	tap_ok(strstr(txt, "\tNIC0\tNIC1\tCPU Affinity") &&
	   strstr(txt, "  NIC1: eno1 (0000:87:00.0, no RDMA)\n"),
	   "topo --all-nics: the plain NIC too, named by its netdev");
	free(txt);
	pt_topology_free(&t);
}

static int nop(struct ctx *c, int argc, char **argv)
{
	(void)c; (void)argc; (void)argv;
	return 0;
}

static void test_match(void)
{
	static const struct cmd t[] = {
		{ "list", nop, NULL }, { "show", nop, NULL },
		{ "dev", nop, NULL }, { "detach", nop, NULL },
		{ "de", nop, NULL }, { NULL, NULL, NULL },
	};

	tap_ok(match_cmd(t, "l") == 0 && match_cmd(t, "sh") == 1,
	   "match_cmd: unique prefixes");
	tap_ok(match_cmd(t, "dev") == 2 && match_cmd(t, "de") == 4,
	   "match_cmd: an exact name wins over longer names");
	tap_ok(match_cmd(t, "d") == -2, "match_cmd: 'd' is ambiguous");
	tap_ok(match_cmd(t, "x") == -1 && match_cmd(t, "") == -1 &&
	   match_cmd(t, "listx") == -1, "match_cmd: unknown words");
}

static void test_fmt(void)
{
	char b[64];

	fmt_speed(b, sizeof(b), 2500);
	tap_ok(!strcmp(b, "2.5GT/s"), "fmt_speed 2500 -> 2.5GT/s");
	fmt_speed(b, sizeof(b), 64000);
	tap_ok(!strcmp(b, "64GT/s"), "fmt_speed 64000 -> 64GT/s");
	fmt_bw(b, sizeof(b), 63015);
	tap_ok(!strcmp(b, "63.0 GB/s"), "fmt_bw 63015 -> 63.0 GB/s");
}

/* Label values of the Prometheus export: the format's three escapes, and
 * '?' for bytes a scrape would choke on; the layout reason is the one free
 * text that reaches a label. */
static void test_prom_escape(void)
{
	struct pt_topology t;
	char *s;

	if (!tap_ok(!synth_build(&t, SY_BALANCE), "prometheus: topology built"))
		return;
	snprintf(t.summary.reason, sizeof(t.summary.reason),
		 "a \"b\" c\\d\ne\tf\xff");
	s = capture(p_export_prom, &t, false);
	tap_ok(s && strstr(s, "pcitopo_layout_info{layout=\"balance\","
		       "reason=\"a \\\"b\\\" c\\\\d\\ne?f?\"} 1\n"),
	   "prometheus: reason label escaped (\\, \\\", \\n; tab and 0xff as ?)");
	tap_ok(s && !strstr(s, "\t") && !strstr(s, "\xff"),
	   "prometheus: no raw control or non-ASCII byte in the output");
	free(s);
	pt_topology_free(&t);
}

/* Whether the value at path (jstr()'s) is want. */
static bool jeq(struct json_object *o, const char *path, const char *want)
{
	const char *v = jstr(o, path);

	return v && !strcmp(v, want);
}

static void test_events(void)
{
	struct pt_topology t;
	struct pt_event ev = { 0 };
	struct ctx c = { .err = stderr, .sysfs = SYSFS };
	struct json_object *o;
	char *buf = NULL;
	size_t len = 0;

	if (synth_build(&t, SY_BALANCE))
		return;
	ev.type = PCITOPO_CMD_LINK_CHANGE_NTF;
	ev.generation = 9;
	ev.device = *by(&t, "GPU1");
	c.out = open_memstream(&buf, &len);
	print_event(&c, &ev);
	fclose(c.out);
	tap_ok(!strcmp(buf, "[9] link-change 0000:24:00.0 endpoint gpu link 2.5GT/s x16 max 32GT/s x16 flags speed-low\n"),
	   "monitor text: link-change line");
	free(buf);
	c.json = true;
	buf = NULL;
	c.out = open_memstream(&buf, &len);
	print_event(&c, &ev);
	fclose(c.out);
	o = parse_json(buf);
	tap_ok(o && jeq(o, "event", "link-change") &&
	   jeq(o, "generation", "9") &&
	   jeq(o, "device.addr", "0000:24:00.0") &&
	   jeq(o, "device.role", "endpoint") &&
	   jeq(o, "device.kind", "gpu") &&
	   jeq(o, "device.link.width", "16") &&
	   jeq(o, "device.flags.0", "speed-low") &&
	   !jstr(o, "device.flags.1"),
	   "monitor -j: the link-change line's fields (generation, addr, role, kind, link, flags)");
	json_object_put(o);
	free(buf);
	c.json = false;

	ev.type = PCITOPO_CMD_LAYOUT_CHANGE_NTF;
	ev.summary = t.summary;
	c.json = true;
	buf = NULL;
	c.out = open_memstream(&buf, &len);
	print_event(&c, &ev);
	ev.type = PCITOPO_CMD_DEVICE_DEL_NTF;
	print_event(&c, &ev);
	fclose(c.out);
	{
		int lines = 0;
		char *q;

		for (q = buf; *q; q++)
			lines += *q == '\n';
		tap_ok(lines == 2, "monitor -j: one line per event (2 events, %d lines)",
		   lines);
	}
	*strchr(buf, '\n') = '\0';
	o = parse_json(buf);
	tap_ok(o && jstr(o, "event") && !strcmp(jstr(o, "event"), "layout-change") &&
	   jstr(o, "summary.layout") && !strcmp(jstr(o, "summary.layout"), "balance"),
	   "monitor -j: layout-change object");
	json_object_put(o);
	free(buf);
	pt_topology_free(&t);
}

/* print_diff() of FILE (an export of was, through its text as do_diff()
 * reads it) against t, into a malloc()ed string; *rc its exit status. */
static char *diff_capture(const struct pt_topology *was,
			  const struct pt_topology *t, bool json, int *rc)
{
	struct ctx c = { .json = json, .err = stderr, .sysfs = SYSFS };
	struct json_object *e = export_tree(&c, was), *o = NULL;
	const char *text = json_object_to_json_string(e);
	char *buf = NULL;
	size_t len = 0;

	*rc = diff_parse(&c, "FILE", text, strlen(text), &o);
	json_object_put(e);
	if (*rc)
		return NULL;
	c.out = open_memstream(&buf, &len);
	if (!c.out)
		abort();
	*rc = print_diff(&c, "FILE", o, t);
	fclose(c.out);
	json_object_put(o);
	return buf;
}

/* topoctl diff on the synthetic layouts: each against itself and the others,
 * and one fault in balance (the module's figures, not sysfs's) */
static void test_diff(void)
{
	struct pt_topology t[SY_COUNT], x;
	struct pt_device *d;
	char want[128];
	int l, m, rc;
	char *s;

	for (l = 0; l < SY_COUNT; l++)
		if (synth_build(&t[l], (enum synth_layout)l))
			return;
	for (l = 0; l < SY_COUNT; l++)
		for (m = 0; m < SY_COUNT; m++) {
			s = diff_capture(&t[m], &t[l], false, &rc);
			snprintf(want, sizeof(want), "~ layout: %s -> %s "
				 "(FILE was taken in another layout)\n",
				 synth_layout_names[m], synth_layout_names[l]);
			if (l == m)
				tap_ok(rc == 0 && s && !strcmp(s, "no differences\n"),
				   "diff: %s export against itself: no differences (exit %d)",
				   synth_layout_names[l], rc);
			else
				tap_ok(rc == 1 && s && !strncmp(s, want, strlen(want)),
				   "diff: %s export against %s: the layout first (exit %d)",
				   synth_layout_names[m], synth_layout_names[l], rc);
			free(s);
		}

	/* GPU6 of balance trained x8 of x16: now its slot gives x8 at most,
	 * and it trains at all it has; the speeds, bandwidths and generation
	 * that move at idle do not count */
	if (synth_build(&x, SY_BALANCE))
		goto out;
	d = (struct pt_device *)by(&x, "GPU6");
	d->link_max_width = 8;
	d->link_flags &= ~PCITOPO_LINK_F_WIDTH_DOWN;
	d->link_max_bw /= 2;
	x.summary.generation += 7;
	((struct pt_device *)by(&x, "GPU1"))->link_speed = 32000;
	x.paths[0].bottleneck_bw /= 3;
	s = diff_capture(&t[SY_BALANCE], &x, false, &rc);
	if (!tap_ok(rc == 1 && s && !strcmp(s,
		"~ GPU6 0000:85:00.0: link max width x16 -> x8\n"
		"~ GPU6 0000:85:00.0: link downtrained-width yes -> no\n"
		"2 differences\n"),
		"diff: balance GPU6 x16 -> x8, flag cleared, nothing else (exit %d)",
		rc))
		printf("# got:\n%s", s ? s : "(nothing)\n");
	free(s);
	s = diff_capture(&t[SY_BALANCE], &x, true, &rc);
	{
		struct json_object *o = s ? parse_json(s) : NULL;
		const char *f = jstr(o, "differences.0.field");
		const char *w = jstr(o, "differences.0.was");
		const char *n = jstr(o, "differences.1.now");

		tap_ok(rc == 1 && o && !strcmp(jstr(o, "same"), "false") &&
		   f && !strcmp(f, "link.max_width") && w && !strcmp(w, "16") &&
		   n && !strcmp(n, "false") && !jstr(o, "differences.2"),
		   "diff -j: balance GPU6 link.max_width 16, downtrained_width now false");
		json_object_put(o);
	}
	free(s);
	pt_topology_free(&x);
out:
	for (l = 0; l < SY_COUNT; l++)
		pt_topology_free(&t[l]);
}

static int emit(int argc, char **argv)
{
	struct pt_topology t;
	struct ctx c = { .out = stdout, .err = stderr, .sysfs = SYSFS };
	size_t i;
	int l;

	if (argc < 4)
		return 2;
	for (l = 0; l < SY_COUNT; l++)
		if (!strcmp(argv[2], synth_layout_names[l]))
			break;
	if (l == SY_COUNT || synth_build(&t, (enum synth_layout)l))
		return 2;
	c.json = argc > 4 && !strcmp(argv[4], "-j");
	for (i = 0; i < N_PRINTERS; i++)
		if (!strcmp(printers[i].name, argv[3]))
			printers[i].fn(&c, &t);
	for (i = 0; i < sizeof(exports) / sizeof(exports[0]); i++)
		if (!strcmp(exports[i].name, argv[3]))
			exports[i].fn(&c, &t);
	pt_topology_free(&t);
	return 0;
}

/* print.c: one sequence of calls, as text and as JSON */
static void layer_calls(struct ctx *c, bool empty, bool unbalanced)
{
	struct pr o;

	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	/* laid down first, k then replaced in place */
	pr_uint(&o, PRINT_JSON, "k", NULL, 1);
	pr_uint(&o, PRINT_JSON, "m", NULL, 2);
	pr_string(&o, PRINT_ANY, "a", "a=%s", "x");
	pr_string_or(&o, PRINT_ANY, "b", " b=%s", "", "-");
	pr_string_or(&o, PRINT_ANY, "c", " c=%s", NULL, NULL);
	pr_uint(&o, PRINT_FP, "t", " t=%u", 7);
	pr_uint(&o, PRINT_JSON, "j", " j=%u", 8);
	pr_uint(&o, PRINT_ANY, "k", " k=%u", 5);
	pr_open_array(&o, PRINT_ANY, "l", " [", "|");
	if (!empty) {
		pr_string(&o, PRINT_ANY, NULL, "%s", "p");
		pr_string(&o, PRINT_ANY, NULL, "%s", "q");
	}
	pr_close_array(&o, "]", " none");
	pr_open_array(&o, PRINT_JSON, "hidden", "X", "X");
	pr_string(&o, PRINT_ANY, NULL, "X%s", "h");
	pr_close_array(&o, "X", "X");
	pr_path_flags(&o, PRINT_ANY, "w", " w=%s", 0);
	pr_nl(&o);
	if (!unbalanced)
		pr_close_object(&o);
	(void)pr_end(&o);
}

static char *layer_capture(bool json, bool empty, bool unbalanced)
{
	struct ctx c = { .json = json, .sysfs = SYSFS };
	char *buf = NULL, *ebuf = NULL;
	size_t len = 0, elen = 0;

	c.out = open_memstream(&buf, &len);
	c.err = open_memstream(&ebuf, &elen);
	if (!c.out || !c.err)
		abort();
	layer_calls(&c, empty, unbalanced);
	fclose(c.out);
	fclose(c.err);
	free(ebuf);
	return buf;
}

static void test_print_layer(void)
{
	static const struct {
		bool json, empty, unbalanced;
		const char *want;
	} cases[] = {
		{ false, false, false, "a=x b=- t=7 k=5 [p|q] w=-\n" },
		{ false, true, false, "a=x b=- t=7 k=5 none w=-\n" },
		{ true, false, false, "{\"k\":5,\"m\":2,\"a\":\"x\",\"b\":null,"
		  "\"c\":null,\"j\":8,\"l\":[\"p\",\"q\"],\"hidden\":[\"h\"],"
		  "\"w\":[]}\n" },
		{ true, true, false, "{\"k\":5,\"m\":2,\"a\":\"x\",\"b\":null,"
		  "\"c\":null,\"j\":8,\"l\":[],\"hidden\":[\"h\"],\"w\":[]}\n" },
		{ true, false, true, "" },	/* no partial document */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = layer_capture(cases[i].json, cases[i].empty,
					cases[i].unbalanced);

		if (!tap_ok(s && !strcmp(s, cases[i].want),
			    "print layer: %s%s%s as expected", cases[i].json ?
			    "JSON" : "text", cases[i].empty ? ", empty list" : "",
			    cases[i].unbalanced ? ", unbalanced" : ""))
			printf("# got '%s'\n# want '%s'\n", s ? s : "(null)",
			       cases[i].want);
		free(s);
	}
}

/* The text or the JSON of fn(c, arg), malloc()ed. */
static char *capture_view(void (*fn)(struct ctx *c, const void *arg),
			  const void *arg, bool json)
{
	struct ctx c = { .json = json, .err = stderr, .sysfs = SYSFS };
	char *buf = NULL;
	size_t len = 0;

	c.out = open_memstream(&buf, &len);
	if (!c.out)
		abort();
	fn(&c, arg);
	fclose(c.out);
	return buf;
}

static void kept_calls(struct ctx *c, const void *arg)
{
	struct pr o;

	(void)arg;
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_string_keep(&o, PRINT_ANY, "e", "e=%s|", "");
	pr_string_keep(&o, PRINT_ANY, "s", "s=%s", "v");
	pr_json_as(&o, PRINT_ANY, "n", json_object_new_int(16), " n=%s", "x16");
	pr_json_as(&o, PRINT_FP, "f", json_object_new_int(1), " f=%s", "one");
	pr_json_as(&o, PRINT_JSON, "z", NULL, " z=%s", "none");
	pr_nl(&o);
	pr_close_object(&o);
	(void)pr_end(&o);
}

static void figure_calls(struct ctx *c, const void *arg)
{
	static const char *const words[] = { "one", "two" };
	struct pr o;

	(void)arg;
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_float(&o, PRINT_ANY, "f", 1, "f=%.2f", 22000.04);
	pr_float_as(&o, PRINT_ANY, "g", 43567.8912, 3, " g=%s", "43.6 GB/s");
	pr_double(&o, PRINT_ANY, "d", " d=%.1f", 0.25);
	pr_words(&o, PRINT_ANY, "w", " w=%s", words, 2);
	pr_path_flags(&o, PRINT_ANY, "p", " p=%-31s|",
		      PCITOPO_PATH_F_ACS_REDIRECT | PCITOPO_PATH_F_WIDTH_DOWN);
	pr_nl(&o);
	pr_close_object(&o);
	(void)pr_end(&o);
}

/* Figures: fixed decimals in the JSON, the text's own wording; words
 * joined in the text (padded whole), an array in the JSON. */
static void test_print_figures(void)
{
	char *t = capture_view(figure_calls, NULL, false);
	char *j = capture_view(figure_calls, NULL, true);

	if (!tap_ok(t && !strcmp(t, "f=22000.04 g=43.6 GB/s d=0.2 w=one,two "
				 "p=acs-redirect,downtrained-width |\n"),
		    "print layer: figures and words, text"))
		printf("# got '%s'\n", t ? t : "(null)");
	if (!tap_ok(j && !strcmp(j, "{\"f\":22000.0,\"g\":43567.891,"
				 "\"d\":0.25,\"w\":[\"one\",\"two\"],"
				 "\"p\":[\"acs-redirect\","
				 "\"downtrained-width\"]}\n"),
		    "print layer: figures and words, JSON"))
		printf("# got '%s'\n", j ? j : "(null)");
	free(t);
	free(j);
}

/* pr_begin_tree(): the JSON kept whatever -j says, nothing printed */
static void test_print_tree(void)
{
	struct ctx c = { .json = false, .err = stderr, .sysfs = SYSFS };
	struct json_object *o;
	char *buf = NULL;
	size_t len = 0;
	struct pr p;

	c.out = open_memstream(&buf, &len);
	if (!c.out)
		abort();
	pr_begin_tree(&p, &c);
	pr_open_object(&p, PRINT_ANY, NULL);
	pr_uint(&p, PRINT_ANY, "n", "n=%u", 3);
	pr_close_object(&p);
	o = pr_end_tree(&p);
	fclose(c.out);
	tap_ok(o && !strcmp(json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN), "{\"n\":3}") && !len,
	       "print layer: a kept tree, nothing printed");
	json_object_put(o);
	free(buf);
}

/* pr_string_keep(): "" stays "" (doctor's fix, status's reason);
 * pr_json_as(): a value whose text is worded apart (diff's "x16") */
static void test_print_kept(void)
{
	char *t = capture_view(kept_calls, NULL, false);
	char *j = capture_view(kept_calls, NULL, true);

	if (!tap_ok(t && !strcmp(t, "e=|s=v n=x16 f=one\n"),
		    "print layer: kept strings and worded values, text"))
		printf("# got '%s'\n", t ? t : "(null)");
	if (!tap_ok(j && !strcmp(j, "{\"e\":\"\",\"s\":\"v\",\"n\":16,"
				 "\"z\":null}\n"),
		    "print layer: kept strings and worded values, JSON"))
		printf("# got '%s'\n", j ? j : "(null)");
	free(t);
	free(j);
}

struct ids {
	const struct pt_id *v;
	int n;
};

static void ids_view(struct ctx *c, const void *arg)
{
	const struct ids *i = arg;

	print_ids(c, i->v, i->n);
}

/* id list: one "VVVV:DDDD kind" line per ID; -j the same three fields */
static void test_ids(void)
{
	static const struct pt_id v[] = {
		{ 0x10de, 0x2330, PCITOPO_KIND_GPU },
		{ 0x15b3, 0x1021, PCITOPO_KIND_NIC },
	};
	struct ids two = { v, 2 }, none = { v, 0 };
	char *t = capture_view(ids_view, &two, false);
	char *j = capture_view(ids_view, &two, true);
	char *e = capture_view(ids_view, &none, true);
	char *et = capture_view(ids_view, &none, false);

	tap_ok(t && !strcmp(t, "10de:2330 gpu\n15b3:1021 nic\n"),
	       "id list: a line per ID, VVVV:DDDD kind");
	tap_ok(j && !strcmp(j, "[{\"vendor\":\"10de\",\"device\":\"2330\","
			    "\"kind\":\"gpu\"},{\"vendor\":\"15b3\","
			    "\"device\":\"1021\",\"kind\":\"nic\"}]\n"),
	       "id list -j: vendor, device and kind of each");
	tap_ok(e && !strcmp(e, "[]\n") && et && !*et,
	       "id list with no IDs: no text, -j an empty array");
	free(t);
	free(j);
	free(e);
	free(et);
}

/* path show: every mark of the route's text is in its JSON, and a hop that
 * is both the common bridge and the bottleneck carries both */
static void test_path_marks(void)
{
	struct pt_topology t;
	struct pt_path p;
	struct json_object *o, *r, *h, *m;
	const struct pt_path *f;
	char *text = NULL, *json = NULL, *line, *save = NULL, want[96];
	size_t len = 0, i, n, bad = 0, rows = 0;
	int both = -1;
	bool j, words;

	if (!tap_ok(!synth_build(&t, SY_BALANCE), "path marks: balance built"))
		return;
	f = pt_topology_find_path(&t, by(&t, "GPU0")->addr, by(&t, "GPU1")->addr);
	p = *f;
	snprintf(p.bottleneck, sizeof(p.bottleneck), "%s", p.common);
	for (j = false; ; j = true) {
		struct ctx c = { .json = j, .err = stderr, .sysfs = SYSFS };

		c.out = open_memstream(j ? &json : &text, &len);
		if (!c.out)
			abort();
		print_path(&c, &t, &p);
		fclose(c.out);
		if (j)
			break;
	}
	o = parse_json(json);
	r = o ? json_object_object_get(o, "route") : NULL;
	n = r ? json_object_array_length(r) : 0;
	words = strstr(text, "(common, bottleneck)") != NULL;
	/* the text's hop lines, after "  route:", one per JSON hop */
	line = strstr(text, "  route:\n");
	line = line ? strtok_r(line + 9, "\n", &save) : NULL;
	for (i = 0; line; i++, line = strtok_r(NULL, "\n", &save)) {
		size_t k, nm;

		rows++;
		h = i < n ? json_object_array_get_idx(r, i) : NULL;
		m = h ? json_object_object_get(h, "marks") : NULL;
		nm = m ? json_object_array_length(m) : 0;
		want[0] = '\0';
		for (k = 0; k < nm; k++) {
			size_t w = strlen(want);

			snprintf(want + w, sizeof(want) - w, "%s%s",
				 k ? ", " : "(", json_object_get_string(
					json_object_array_get_idx(m, k)));
		}
		if (nm)
			strncat(want, ")", sizeof(want) - strlen(want) - 1);
		if (nm == 2)
			both = !strcmp(want, "(common, bottleneck)") &&
			       strstr(line, p.common) ? 1 : 0;
		/* marks in the JSON end the line; none: no "(...)" at all */
		if (!m || (nm ? strlen(line) < strlen(want) ||
			   strcmp(line + strlen(line) - strlen(want), want) :
			   strchr(line, '(') != NULL)) {
			if (!bad++)
				printf("# hop %zu: text '%s', JSON marks '%s'\n",
				       i, line, want);
		}
	}
	tap_ok(rows && rows == n && !bad,
	       "path marks: each of %zu route lines' marks are its JSON hop's (%zu differ)",
	       rows, bad);
	tap_ok(both == 1 && words,
	       "path marks: the common bridge as bottleneck is \"(common, bottleneck)\" in text and both marks in JSON");
	json_object_put(o);
	free(text);
	free(json);
	pt_topology_free(&t);
}

int main(int argc, char **argv)
{
	int l;

	if (argc > 1 && !strcmp(argv[1], "emit"))
		return emit(argc, argv);
	for (l = 0; l < SY_COUNT; l++)
		test_layout((enum synth_layout)l);
	test_names();
	test_nic_names();
	test_match();
	test_fmt();
	test_prom_escape();
	test_events();
	test_diff();
	test_print_layer();
	test_print_kept();
	test_print_figures();
	test_print_tree();
	test_ids();
	test_path_marks();
	return tap_done();
}
