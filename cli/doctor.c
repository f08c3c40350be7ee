// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor [DEV DEV] [--cpuinfo FILE] [--gpus-per-node N]
 * [--since DIR]: judge every GPU-GPU and GPU-NIC path (or the one named)
 * and print findings: severity, check, object (the names `topo` uses),
 * evidence and fix. The checks live in doctor_*.c; this file gathers what
 * they judge, prints, and maps findings to the exit code: 0 nothing above a
 * note, 1 warnings, 3 errors (2 stays the usage error).
 *
 * The pairs are those `topoctl topo` shows: GPUs, and RDMA NICs (every NIC
 * with --all-nics); their paths come from the module, or from core/ as
 * `topo` derives them, so that doctor and topo never disagree on a class.
 * A pair is always a GPU first (then by bus order), whatever order the two
 * were named in: the verdict is the pair's, not the command line's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor.h"
#include "print.h"
#include "quantity.h"
#include "rfile.h"
#include "sysfs.h"

static const char *const sev_names[DR_NSEV] = { "note", "warning", "error" };
static const char *const check_names[DR_NCHECK] = {
	"acs", "iommu", "numa", "link", "mps", "aer", "dpc", "nccl",
};

const char *dr_sev_name(unsigned int sev)
{
	return sev < DR_NSEV ? sev_names[sev] : "?";
}

const char *dr_check_name(unsigned int check)
{
	return check < DR_NCHECK ? check_names[check] : "?";
}

size_t dr_index(const struct dr_run *r, const struct pt_device *d)
{
	return (size_t)(d - r->t->devices);
}

void dr_name(const struct dr_run *r, const struct pt_device *d, char *buf,
	     size_t len)
{
	pt_dev_name(r->t, d, buf, len);
	if (!buf[0])
		snprintf(buf, len, "%s", d->addr);
}

void dr_pair_name(const struct dr_run *r, const struct dr_pair *p, char *buf,
		  size_t len)
{
	char a[32], b[32];

	dr_name(r, p->a, a, sizeof(a));
	dr_name(r, p->b, b, sizeof(b));
	snprintf(buf, len, "%s-%s", a, b);
}

void dr_devdir(const struct dr_run *r, const struct pt_device *d, char *buf,
	       size_t len)
{
	snprintf(buf, len, "%s/bus/pci/devices/%s", r->c->sysfs, d->addr);
}

void dr_add(struct dr_run *r, enum dr_sev sev, enum dr_check check,
	    const char *object, const char *fix, const char *fmt, ...)
{
	struct dr_finding *f;
	va_list ap;

	if (r->err)
		return;
	if (!(r->n_f & (r->n_f - 1)) || !r->n_f) {	/* grow at powers of 2 */
		f = realloc(r->f, (r->n_f ? r->n_f * 2 : 8) * sizeof(*f));
		if (!f) {
			r->err = -ENOMEM;
			return;
		}
		r->f = f;
	}
	f = &r->f[r->n_f++];
	f->sev = (unsigned char)sev;
	f->check = (unsigned char)check;
	snprintf(f->object, sizeof(f->object), "%s", object);
	snprintf(f->fix, sizeof(f->fix), "%s", fix);
	va_start(ap, fmt);
	vsnprintf(f->evidence, sizeof(f->evidence), fmt, ap);
	va_end(ap);
}

static __thread char last_error[1024];

const char *dr_last_error(void)
{
	return last_error;
}

void dr_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

bool dr_is_gpu(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT && d->kind == PCITOPO_KIND_GPU;
}

bool dr_is_nic(const struct ctx *c, const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT &&
	       d->kind == PCITOPO_KIND_NIC &&
	       (c->all_nics || pt_device_is_rdma_nic(d));
}

bool dr_pair_crosses(const struct dr_pair *p, const struct pt_device *x)
{
	size_t j;

	for (j = 0; j < p->n_on; j++)
		if (p->on[j] == x)
			return true;
	return false;
}

/* The devices a pair's traffic crosses: a, its bridges up to the common
 * one (or to the root), the common bridge, b's bridges down, b. */
static void pair_chain(const struct pt_topology *t, struct dr_pair *p)
{
	const struct pt_device *up[PTC_MAX_DEPTH + 1], *x;
	size_t n = 0, k;

	p->n_on = 0;
	p->on[p->n_on++] = p->a;
	for (x = pt_topology_find(t, p->a->parent);
	     x && p->n_on < PTC_MAX_DEPTH + 1; x = pt_topology_find(t, x->parent)) {
		p->on[p->n_on++] = x;
		if (p->path.common[0] && !strcmp(x->addr, p->path.common))
			break;
	}
	for (x = pt_topology_find(t, p->b->parent); x && n < PTC_MAX_DEPTH;
	     x = pt_topology_find(t, x->parent)) {
		if (p->path.common[0] && !strcmp(x->addr, p->path.common))
			break;
		up[n++] = x;
	}
	for (k = n; k > 0; k--)
		p->on[p->n_on++] = up[k - 1];
	p->on[p->n_on++] = p->b;
}

/* Add pair a-b (a GPU first); judged: reported on. No path known: nothing
 * to judge, and nothing added. */
static void add_pair(struct dr_run *r, const struct ptc_topo *pt,
		     const struct pt_device *a, const struct pt_device *b,
		     bool judged)
{
	const struct pt_path *m;
	struct dr_pair *p = &r->pairs[r->n_pairs];
	const struct pt_device *x;
	size_t k;

	if ((!dr_is_gpu(a) && dr_is_gpu(b)) ||
	    (dr_is_gpu(a) == dr_is_gpu(b) && dr_index(r, b) < dr_index(r, a))) {
		x = a;
		a = b;
		b = x;
	}
	m = pt_topology_find_path(r->t, a->addr, b->addr);
	if (!m)
		m = pt_topology_find_path(r->t, b->addr, a->addr);
	p->a = a;
	p->b = b;
	p->judged = judged;
	if (m)
		p->path = *m;
	else if (pt_derive_path(pt, r->t, a, b, &p->path))
		return;
	pair_chain(r->t, p);
	for (k = 0; k < p->n_on; k++) {
		r->scope[dr_index(r, p->on[k])] = true;
		if (judged)
			r->on_path[dr_index(r, p->on[k])] = true;
	}
	if (judged) {
		r->is_end[dr_index(r, a)] = true;
		r->is_end[dr_index(r, b)] = true;
		r->n_judged++;
	}
	r->n_pairs++;
}

/* The health of the devices the checks look at, read once; with --since,
 * the same devices' in the baseline tree too. */
static int read_health(struct dr_run *r)
{
	size_t i;
	int e;

	for (i = 0; i < r->t->n_devices; i++) {
		const char *addr = r->t->devices[i].addr;

		r->h[i].present = false;
		if (!r->on_path[i] && !r->scope[i])
			continue;
		e = pt_health_read(r->c->sysfs, addr, &r->h[i]);
		if (e == -PT_ENOTREG) {
			dr_set_error("%s", pt_sysfs_last_error());
			return e;
		}
		if (!r->base)
			continue;
		e = pt_health_read(r->o.since, addr, &r->base[i]);
		if (e == -PT_ENOTREG) {
			dr_set_error("--since %s: %s", r->o.since,
				     pt_sysfs_last_error());
			return e;
		}
	}
	return 0;
}

int dr_open(struct dr_run *r, struct ctx *c, const struct pt_topology *t,
	    const struct pt_device *a, const struct pt_device *b,
	    const struct dr_opts *o)
{
	size_t n = t->n_devices ? t->n_devices : 1, i, j, k, gpus = 0, nics = 0;
	struct ptc_topo pt;
	int e;

	memset(r, 0, sizeof(*r));
	last_error[0] = '\0';
	r->c = c;
	r->t = t;
	if (o)
		r->o = *o;
	r->on_path = calloc(n, sizeof(*r->on_path));
	r->is_end = calloc(n, sizeof(*r->is_end));
	r->scope = calloc(n, sizeof(*r->scope));
	r->h = calloc(n, sizeof(*r->h));
	if (r->o.since)
		r->base = calloc(n, sizeof(*r->base));
	for (i = 0; i < t->n_devices; i++) {
		gpus += dr_is_gpu(&t->devices[i]);
		nics += dr_is_nic(c, &t->devices[i]);
	}
	r->pairs = calloc(gpus * (gpus - (gpus > 0)) / 2 + gpus * nics + 1,
			  sizeof(*r->pairs));
	if (!r->on_path || !r->is_end || !r->scope || !r->h || !r->pairs ||
	    (r->o.since && !r->base)) {
		dr_close(r);
		dr_set_error("%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/*
	 * Every GPU-GPU and GPU-NIC pair, judged unless two devices are
	 * named: the machine around the named pair still decides its nearest
	 * NIC and the MPS every end must come down to.
	 */
	(void)pt_derive_open(t, &pt);
	for (i = 0; i < t->n_devices; i++) {
		if (!dr_is_gpu(&t->devices[i]))
			continue;
		for (j = 0; j < t->n_devices; j++) {
			const struct pt_device *d = &t->devices[j];

			if (j == i || (dr_is_gpu(d) && j < i))
				continue;
			if (dr_is_gpu(d) || dr_is_nic(c, d))
				add_pair(r, &pt, &t->devices[i], d, !a);
		}
	}
	if (a) {
		for (k = 0; k < r->n_pairs; k++) {
			struct dr_pair *p = &r->pairs[k];

			if ((p->a == a && p->b == b) || (p->a == b && p->b == a))
				break;
		}
		if (k < r->n_pairs) {	/* judge it where it already is */
			struct dr_pair *p = &r->pairs[k];

			p->judged = true;
			r->n_judged++;
			for (j = 0; j < p->n_on; j++)
				r->on_path[dr_index(r, p->on[j])] = true;
			r->is_end[dr_index(r, p->a)] = true;
			r->is_end[dr_index(r, p->b)] = true;
		} else {		/* a NIC pair, an NVMe: the spare slot */
			add_pair(r, &pt, a, b, true);
		}
	}
	pt_derive_close(&pt);
	e = read_health(r);
	if (!e)
		e = dr_facts_read(r);
	if (e)
		dr_close(r);
	return e;
}

void dr_run_checks(struct dr_run *r)
{
	dr_check_acs(r);
	dr_check_iommu(r);
	dr_check_numa(r);
	dr_check_link(r);
	dr_check_mps(r);
	dr_check_aer(r);
	dr_check_dpc(r);
	dr_check_nccl(r);
}

void dr_close(struct dr_run *r)
{
	free(r->pairs);
	free(r->on_path);
	free(r->is_end);
	free(r->scope);
	free(r->h);
	free(r->base);
	free(r->f);
	memset(r, 0, sizeof(*r));
}

int doctor_counts(struct ctx *c, const struct pt_topology *t,
		  unsigned int counts[DR_NCHECK][DR_NSEV])
{
	struct dr_run r;
	size_t i;
	int e;

	memset(counts, 0, sizeof(unsigned int) * DR_NCHECK * DR_NSEV);
	e = dr_open(&r, c, t, NULL, NULL, NULL);
	if (e)
		return e;
	dr_run_checks(&r);
	e = r.err;
	for (i = 0; !e && i < r.n_f; i++)
		counts[r.f[i].check][r.f[i].sev]++;
	dr_close(&r);
	return e;
}

static int worst(const struct dr_run *r)
{
	size_t i;
	int w = -1;

	for (i = 0; i < r->n_f; i++)
		if (r->f[i].sev > w)
			w = r->f[i].sev;
	return w;
}

/* The findings, "SEVERITY CHECK OBJECT: EVIDENCE" and a "fix:" line each,
 * then the tally; -j an array of {"severity", "check", "object",
 * "evidence", "fix"} (fix "" where the text has no fix line). */
static int print_findings(struct ctx *c, const struct dr_run *r)
{
	unsigned int n[DR_NSEV] = { 0 };
	struct pr o;
	size_t i;

	pr_begin(&o, c);
	pr_open_array(&o, PRINT_ANY, NULL, NULL, NULL);
	for (i = 0; i < r->n_f; i++) {
		const struct dr_finding *f = &r->f[i];

		n[f->sev]++;
		pr_open_object(&o, PRINT_ANY, NULL);
		pr_string(&o, PRINT_ANY, "severity", "%-7s",
			  dr_sev_name(f->sev));
		pr_string(&o, PRINT_ANY, "check", " %-5s",
			  dr_check_name(f->check));
		pr_string_keep(&o, PRINT_ANY, "object", " %s:", f->object);
		pr_string_keep(&o, PRINT_ANY, "evidence", " %s\n", f->evidence);
		pr_string_keep(&o, f->fix[0] ? PRINT_ANY : PRINT_JSON, "fix",
			       "        fix: %s\n", f->fix);
		pr_close_object(&o);
	}
	pr_close_array(&o, NULL, NULL);
	if (!n[DR_ERROR] && !n[DR_WARNING])
		pr_text(&o, "doctor: no problems found on %zu path%s (%u note%s)\n",
			r->n_judged, r->n_judged == 1 ? "" : "s", n[DR_NOTE],
			n[DR_NOTE] == 1 ? "" : "s");
	else
		pr_text(&o, "doctor: %u error%s, %u warning%s, %u note%s on %zu path%s\n",
			n[DR_ERROR], n[DR_ERROR] == 1 ? "" : "s",
			n[DR_WARNING], n[DR_WARNING] == 1 ? "" : "s",
			n[DR_NOTE], n[DR_NOTE] == 1 ? "" : "s",
			r->n_judged, r->n_judged == 1 ? "" : "s");
	return pr_end(&o);
}

/* --since DIR: a tree topoctl snapshot saved (its devices directory). */
static bool is_saved_tree(const char *dir)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/bus/pci/devices", dir);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Options and device names; 0, or the usage error's exit code. */
static int parse_args(struct ctx *c, int argc, char **argv,
		      struct dr_opts *o, const char **names, int *n,
		      bool *help)
{
	unsigned long v;
	const char *val;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "help")) {
			*help = true;
			return 0;
		}
		if (opt_is("--cpuinfo", argc, argv, &i, &val)) {
			if (!val || !*val)
				return usage_error(c, "'doctor --cpuinfo' needs a FILE");
			o->cpuinfo = val;
			continue;
		}
		if (opt_is("--gpus-per-node", argc, argv, &i, &val)) {
			if (!val)
				return usage_error(c, "'doctor --gpus-per-node' needs "
						   "a count (the GPUs the job uses on "
						   "this node)");
			if (parse_count(val, 1, 4096, &v))
				return usage_error(c, "bad value '%s' for doctor "
						   "--gpus-per-node (a count of GPUs, "
						   "1 or more)", val);
			o->gpus_per_node = (unsigned int)v;
			continue;
		}
		if (opt_is("--since", argc, argv, &i, &val)) {
			if (!val || !*val)
				return usage_error(c, "'doctor --since' needs a DIR "
						   "(a tree saved by topoctl snapshot)");
			if (!is_saved_tree(val))
				return usage_error(c, "'doctor --since %s': not a "
						   "saved tree (no %s/bus/pci/devices; "
						   "topoctl snapshot DIR saves one)",
						   val, val);
			o->since = val;
			continue;
		}
		if (*n == 2)
			return usage_error(c, "'doctor' takes no more than two devices: '%s'",
					   argv[i]);
		names[(*n)++] = argv[i];
	}
	if (*n == 1)
		return usage_error(c, "'doctor' takes two devices or none\n"
				   "Try 'topoctl doctor help'.");
	return 0;
}

int do_doctor(struct ctx *c, int argc, char **argv)
{
	const struct pt_device *d[2] = { NULL, NULL };
	struct dr_opts o = { 0 };
	const char *names[2];
	struct pt_topology t = { 0 };
	struct dr_run r;
	bool help = false;
	int i, n = 0, e, w;

	e = parse_args(c, argc, argv, &o, names, &n, &help);
	if (e)
		return e;
	if (help) {
		print_object_help(c, "doctor", NULL);
		return 0;
	}
	e = load_topology(c, &t);
	if (e)
		return e;
	for (i = 0; i < n; i++) {
		e = pt_dev_resolve(&t, names[i], &d[i]);
		if (e) {
			fprintf(c->err, "topoctl: %s: %s\n", names[i],
				e == -ENODEV ? "no such device" :
				"not a device name (GPUn, NICn, NVMEn or an address)");
			pt_topology_free(&t);
			return e == -ENODEV ? 1 : EXIT_USAGE;
		}
	}
	if (n == 2 && d[0] == d[1]) {
		pt_topology_free(&t);
		return usage_error(c, "'doctor' needs two different devices");
	}
	e = dr_open(&r, c, &t, d[0], d[1], &o);
	if (e == -EINVAL) {	/* an option the machine contradicts */
		pt_topology_free(&t);
		return usage_error(c, "%s", dr_last_error());
	}
	if (!e) {
		dr_run_checks(&r);
		e = r.err;
		if (e)
			dr_set_error("%s", strerror(-e));
	}
	if (e) {
		fprintf(c->err, "topoctl: doctor: %s\n", dr_last_error());
		dr_close(&r);
		pt_topology_free(&t);
		return 1;
	}
	if (n == 2 && !r.n_judged)
		fprintf(c->err, "topoctl: note: no path known between %s and %s\n",
			names[0], names[1]);
	e = print_findings(c, &r);
	w = worst(&r);
	dr_close(&r);
	pt_topology_free(&t);
	if (e)
		return 1;
	return w == DR_ERROR ? 3 : w == DR_WARNING ? 1 : 0;
}
