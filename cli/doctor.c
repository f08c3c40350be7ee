// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor [DEV DEV] [--cpuinfo FILE]: judge every GPU-GPU and GPU-NIC
 * path (or the one named) and print findings: severity, check, object (the
 * names `topo` uses), evidence and fix. The checks live in doctor_*.c; this
 * file gathers what they judge, prints, and maps findings to the exit code:
 * 0 nothing above a note, 1 warnings, 3 errors (2 stays the usage error).
 *
 * The pairs are those `topoctl topo` shows: GPUs, and RDMA NICs (every NIC
 * with --all-nics); their paths come from the module, or from core/ as
 * `topo` derives them, so that doctor and topo never disagree on a class.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "print.h"

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
	dev_name(r->t, d, buf, len);
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

/* Whether d is an end of the pairs: a GPU, or a NIC that `topo` shows. */
static bool is_gpu(const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT && d->kind == PCITOPO_KIND_GPU;
}

static bool is_nic(const struct ctx *c, const struct pt_device *d)
{
	return d->role == PCITOPO_ROLE_ENDPOINT &&
	       d->kind == PCITOPO_KIND_NIC &&
	       (c->all_nics || pt_device_is_rdma_nic(d));
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

static int add_pair(struct dr_run *r, const struct ptc_topo *pt,
		    const struct pt_device *a, const struct pt_device *b)
{
	const struct pt_path *m = pt_topology_find_path(r->t, a->addr, b->addr);
	struct dr_pair *p = &r->pairs[r->n_pairs];
	size_t k;

	if (!m)
		m = pt_topology_find_path(r->t, b->addr, a->addr);
	p->a = a;
	p->b = b;
	if (m)
		p->path = *m;
	else if (derive_path(pt, r->t, a, b, &p->path))
		return 0;	/* no path known: nothing to judge */
	pair_chain(r->t, p);
	for (k = 0; k < p->n_on; k++)
		r->on_path[dr_index(r, p->on[k])] = true;
	r->is_end[dr_index(r, a)] = true;
	r->is_end[dr_index(r, b)] = true;
	r->n_pairs++;
	return 0;
}

int dr_open(struct dr_run *r, struct ctx *c, const struct pt_topology *t,
	    const struct pt_device *a, const struct pt_device *b)
{
	size_t n = t->n_devices ? t->n_devices : 1, i, j, gpus = 0, nics = 0;
	struct ptc_topo pt;

	memset(r, 0, sizeof(*r));
	r->c = c;
	r->t = t;
	r->on_path = calloc(n, sizeof(*r->on_path));
	r->is_end = calloc(n, sizeof(*r->is_end));
	r->h = calloc(n, sizeof(*r->h));
	for (i = 0; i < t->n_devices; i++) {
		gpus += is_gpu(&t->devices[i]);
		nics += is_nic(c, &t->devices[i]);
	}
	r->pairs = calloc(a ? 1 : gpus * (gpus - (gpus > 0)) / 2 + gpus * nics + 1,
			  sizeof(*r->pairs));
	if (!r->on_path || !r->is_end || !r->h || !r->pairs) {
		dr_close(r);
		return -ENOMEM;
	}
	(void)derive_open(t, &pt);
	if (a) {
		add_pair(r, &pt, a, b);
	} else {
		for (i = 0; i < t->n_devices; i++) {
			if (!is_gpu(&t->devices[i]))
				continue;
			for (j = 0; j < t->n_devices; j++) {
				const struct pt_device *d = &t->devices[j];

				if (j == i || (is_gpu(d) && j < i))
					continue;
				if (is_gpu(d) || is_nic(c, d))
					add_pair(r, &pt, &t->devices[i], d);
			}
		}
	}
	derive_close(&pt);
	/* health of what the checks look at, read once */
	for (i = 0; i < t->n_devices; i++) {
		if (r->on_path[i])
			(void)pt_health_read(c->sysfs, t->devices[i].addr,
					     &r->h[i]);
		else
			r->h[i].present = false;
	}
	return 0;
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
	free(r->h);
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
	e = dr_open(&r, c, t, NULL, NULL);
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
			r->n_pairs, r->n_pairs == 1 ? "" : "s", n[DR_NOTE],
			n[DR_NOTE] == 1 ? "" : "s");
	else
		pr_text(&o, "doctor: %u error%s, %u warning%s, %u note%s on %zu path%s\n",
			n[DR_ERROR], n[DR_ERROR] == 1 ? "" : "s",
			n[DR_WARNING], n[DR_WARNING] == 1 ? "" : "s",
			n[DR_NOTE], n[DR_NOTE] == 1 ? "" : "s",
			r->n_pairs, r->n_pairs == 1 ? "" : "s");
	return pr_end(&o);
}

int do_doctor(struct ctx *c, int argc, char **argv)
{
	const struct pt_device *d[2] = { NULL, NULL };
	const char *names[2], *cpuinfo = NULL;
	struct pt_topology t = { 0 };
	struct dr_run r;
	int i, n = 0, e, w;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "help")) {
			print_object_help(c, "doctor", NULL);
			return 0;
		}
		if (!strcmp(argv[i], "--cpuinfo")) {
			if (++i >= argc)
				return usage_error(c, "'doctor --cpuinfo' needs a FILE");
			cpuinfo = argv[i];
			continue;
		}
		if (n == 2)
			return usage_error(c, "'doctor' takes no more than two devices: '%s'",
					   argv[i]);
		names[n++] = argv[i];
	}
	if (n == 1)
		return usage_error(c, "'doctor' takes two devices or none\n"
				   "Try 'topoctl doctor help'.");
	e = load_topology(c, &t);
	if (e)
		return e;
	for (i = 0; i < n; i++) {
		e = resolve_dev(&t, names[i], &d[i]);
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
	e = dr_open(&r, c, &t, d[0], d[1]);
	if (!e) {
		r.cpuinfo = cpuinfo;
		dr_run_checks(&r);
		e = r.err;
	}
	if (e) {
		fprintf(c->err, "topoctl: doctor: %s\n", strerror(-e));
		dr_close(&r);
		pt_topology_free(&t);
		return 1;
	}
	if (n == 2 && !r.n_pairs)
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
