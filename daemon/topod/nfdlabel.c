// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the node labels of the NFD feature file, and the rules a label
 * must follow for nfd-master to publish it (nfd.h). Pure: no I/O, no
 * state; nfd.c writes what nfd_format() returns.
 *
 * The rules are Kubernetes' (k8s.io/apimachinery/pkg/util/validation:
 * IsQualifiedName, IsDNS1123Subdomain, IsValidLabelValue) and NFD's
 * namespace check (pkg/apis/nfd/validate: Label). A label that breaks
 * them is dropped by nfd-master with an error in its log only, so topod
 * checks each before writing: a bad one is topod's bug, never a silent
 * missing label.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nfd.h"
#include "ptm.h"

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* [A-Za-z0-9]([-_.A-Za-z0-9]*[A-Za-z0-9])?, at most 63: a label's name
 * and a non-empty value */
static const char *name_error(const char *s, size_t n)
{
	if (!n)
		return "empty";
	if (n > NFD_NAME_MAX)
		return "longer than 63 characters";
	if (!alnum(s[0]) || !alnum(s[n - 1]))
		return "does not start and end with [A-Za-z0-9]";
	for (size_t i = 1; i + 1 < n; i++)
		if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return "has a character outside [-_.A-Za-z0-9]";
	return NULL;
}

static bool lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* DNS-1123 subdomain: [a-z0-9]([-a-z0-9]*[a-z0-9])? parts joined by dots,
 * at most 253 */
static const char *prefix_error(const char *s, size_t n)
{
	size_t i, start = 0;

	if (!n)
		return "empty";
	if (n > NFD_PREFIX_MAX)
		return "longer than 253 characters";
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			if (!lower_alnum(s[i]) && s[i] != '-')
				return "has a character outside [-.a-z0-9]";
			continue;
		}
		/* a part s[start, i) */
		if (i == start || !lower_alnum(s[start]) ||
		    !lower_alnum(s[i - 1]))
			return "has a part that does not start and end with [a-z0-9]";
		start = i + 1;
	}
	return NULL;
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);

	return n >= t && !memcmp(s + n - t, tail, t);
}

static bool is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(s, word, n);
}

/* NFD's validate.Label: kubernetes.io and its subdomains are refused,
 * save NFD's own two namespaces and theirs */
static bool namespace_allowed(const char *ns, size_t n)
{
	if (!is(ns, n, "kubernetes.io") && !ends_with(ns, n, ".kubernetes.io"))
		return true;
	return is(ns, n, "feature.node.kubernetes.io") ||
	       is(ns, n, "profile.node.kubernetes.io") ||
	       ends_with(ns, n, ".feature.node.kubernetes.io") ||
	       ends_with(ns, n, ".profile.node.kubernetes.io");
}

int nfd_label_check(const char *key, const char *value, char *why,
		    size_t len)
{
	const char *slash = strchr(key, '/'), *e;
	size_t klen = strlen(key), vlen = strlen(value);

	if (!slash) {
		/* nfd-master would put it in feature.node.kubernetes.io, or
		 * (DisableAutoPrefix) refuse it: either way not ours */
		snprintf(why, len, "label \"%.80s\": no PREFIX/ (unprefixed "
			 "names are not allowed)", key);
		return -EINVAL;
	}
	e = prefix_error(key, (size_t)(slash - key));
	if (e) {
		snprintf(why, len, "label \"%.80s\": prefix %s", key, e);
		return -EINVAL;
	}
	if (!namespace_allowed(key, (size_t)(slash - key))) {
		snprintf(why, len, "label \"%.80s\": namespace kubernetes.io "
			 "or a subdomain of it (NFD refuses them)", key);
		return -EINVAL;
	}
	e = name_error(slash + 1, klen - (size_t)(slash - key) - 1);
	if (e) {
		snprintf(why, len, "label \"%.80s\": name %s", key, e);
		return -EINVAL;
	}
	e = vlen ? name_error(value, vlen) : NULL;
	if (e) {
		snprintf(why, len, "label \"%.80s\": value \"%.80s\" %s", key,
			 value, e);
		return -EINVAL;
	}
	return 0;
}

struct out {
	char *buf;
	size_t cap, off;
	int err;
	char *why;
	size_t len;
};

static void add(struct out *o, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct out *o, const char *name, const char *fmt, ...)
{
	char key[NFD_PREFIX_MAX + NFD_NAME_MAX + 8], value[128];
	va_list ap;
	int n;

	if (o->err)
		return;
	snprintf(key, sizeof(key), "%s/%s", NFD_PREFIX, name);
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (nfd_label_check(key, value, o->why, o->len)) {
		o->err = -EINVAL;
		return;
	}
	n = snprintf(o->buf + o->off, o->cap - o->off, "%s=%s\n", key, value);
	if (n < 0 || (size_t)n >= o->cap - o->off ||
	    o->off + (size_t)n > NFD_MAX_FILE) {
		snprintf(o->why, o->len, "the labels do not fit %zu bytes",
			 o->cap < NFD_MAX_FILE ? o->cap : NFD_MAX_FILE);
		o->err = -E2BIG;
		return;
	}
	o->off += (size_t)n;
}

int nfd_format(const struct nfd_input *in, char *buf, size_t cap, char *why,
	       size_t len)
{
	struct out o = { .buf = buf, .cap = cap, .why = why, .len = len };
	const char *p2p = nfd_p2p_name(in->p2p_class);
	int n;
	u8 l;

	n = snprintf(buf, cap, "# pcitopo: topod's node labels, rewritten by "
		     "topod (Documentation/kubernetes.md)\n");
	if (n < 0 || (size_t)n >= cap) {
		snprintf(why, len, "the labels do not fit %zu bytes", cap);
		return -E2BIG;
	}
	o.off = (size_t)n;
	add(&o, "layout", "%s", in->layout);
	add(&o, "gpus", "%u", in->gpus);
	add(&o, "state", "%s", in->state);
	if (in->pending)
		add(&o, "pending", "%s", in->pending);
	add(&o, "apply", "%s", in->apply);
	if (p2p) {
		add(&o, "p2p", "%s", p2p);
		add(&o, "p2p.class", "%s", ptc_class_name((u8)in->p2p_class));
	}
	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		char name[32];

		if (!in->switchable[l])
			continue;
		snprintf(name, sizeof(name), "switchable.%s",
			 ptc_layout_name((u8)l));
		add(&o, name, "true");
	}
	if (in->drift)
		add(&o, "drift", "true");
	return o.err ? o.err : (int)o.off;
}

int nfd_p2p_class(enum pcitopo_layout layout, unsigned int gpus)
{
	struct ptm_hw hw;
	struct ptc_topo t;
	u32 g[PTM_MAX_GPUS];
	unsigned int n, i, j;
	int r, worst = 0;

	if (gpus < 2)
		return 0;
	if (gpus > 2 * 16)
		return -E2BIG;
	/* what topoctl advise builds with no tree to read (ptm_hw_default:
	 * two CPUs), with this platform's GPUs on two switches */
	ptm_hw_default(&hw);
	hw.nswitches = 2;
	hw.sw_gpus[0] = (gpus + 1) / 2;
	hw.sw_gpus[1] = gpus / 2;
	r = ptm_layout_build(&hw, layout, &t);
	if (r)
		return r;
	r = ptm_gpus(&t, g, &n);
	for (i = 0; !r && i < n; i++)
		for (j = i + 1; j < n; j++) {
			struct ptc_path p;

			ptc_path(&t, g[i], g[j], &p);
			if (p.class < __PCITOPO_PATH_MAX && p.class > worst)
				worst = p.class;
		}
	ptm_layout_free(&t);
	return r ? r : worst;
}

const char *nfd_p2p_name(int p2p_class)
{
	switch (p2p_class) {
	case PCITOPO_PATH_PIX:
	case PCITOPO_PATH_PXB:
		return "within-switches";
	case PCITOPO_PATH_PHB:
		return "root-complex";
	case PCITOPO_PATH_NODE:
		return "host-bridges";
	case PCITOPO_PATH_SYS:
		return "across-sockets";
	default:
		return NULL;
	}
}
