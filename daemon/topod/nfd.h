/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: node labels for Kubernetes through Node Feature Discovery's local
 * source (Documentation/kubernetes.md). topod writes one feature file,
 * DIR/pcitopo (nfd_features_dir in topod.conf), at start and whenever what
 * it says changes (a commit, a drift, a switch starting or pending); the
 * nfd-worker on the node turns its key=value lines into node labels.
 *
 *   nfdlabel.c  pure: the labels, and the rules NFD publishes a label by
 *               (tests/topod/test_nfd.c)
 *   nfd.c       the file, written atomically; the hooks topod calls
 */
#ifndef PCITOPO_TOPOD_NFD_H
#define PCITOPO_TOPOD_NFD_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/pcitopo.h>

/* Where NFD's local source reads feature files (its featureFilesDir). */
#define NFD_FEATURES_DIR	"/etc/kubernetes/node-feature-discovery/features.d"
#define NFD_FILE		"pcitopo"
/* NFD ignores dot-files: the file is written under this name, then renamed */
#define NFD_TMP_FILE		".pcitopo"
/*
 * A sub-namespace of NFD's own feature.node.kubernetes.io: nfd-master
 * publishes it with no -extra-label-ns in every release (before v0.13
 * only the feature/profile namespaces were allowed; since, any namespace
 * but kubernetes.io and its subdomains, these excepted).
 */
#define NFD_PREFIX		"pcitopo.feature.node.kubernetes.io"
/* NFD's local source ignores a bigger file (MaxFeatureFileSize) */
#define NFD_MAX_FILE		65536
/* a label's name and its value: Kubernetes' limit */
#define NFD_NAME_MAX		63
#define NFD_PREFIX_MAX		253

/*
 * 0 if NFD would publish the node label key=value, -EINVAL with why set
 * otherwise. key is PREFIX/NAME: PREFIX a DNS-1123 subdomain (at most 253
 * characters of [a-z0-9.-], each dot-separated part starting and ending
 * alphanumeric) outside kubernetes.io and its subdomains, save for
 * feature.node.kubernetes.io, profile.node.kubernetes.io and their
 * subdomains; NAME 1..63 characters of [-_.A-Za-z0-9], alphanumeric at
 * both ends. value: empty, or 1..63 characters as NAME. (Kubernetes'
 * IsQualifiedName and IsValidLabelValue, NFD's validate.Label.)
 */
int nfd_label_check(const char *key, const char *value, char *why,
		    size_t len);

/* What the labels say, read off topod's state by nfd.c. */
struct nfd_input {
	const char *layout;		/* "balance", "cascade", "other", "unknown" */
	unsigned int gpus;
	const char *state;		/* tstate_name() */
	const char *pending;		/* the layout being switched to, NULL */
	const char *apply;		/* "online", "power-cycle" */
	bool drift;			/* a layout no switch asked for */
	bool switchable[__PCITOPO_LAYOUT_MAX];	/* the platform's layouts */
	int p2p_class;			/* of layout: nfd_p2p_class(), 0 none */
};

/*
 * The feature file for in: a comment line, then one PREFIX/NAME=VALUE line
 * per label, each checked with nfd_label_check(). Returns its length, or
 * -EINVAL (a label NFD would refuse: why says which) or -E2BIG (past cap
 * or NFD_MAX_FILE).
 */
int nfd_format(const struct nfd_input *in, char *buf, size_t cap, char *why,
	       size_t len);

/*
 * The P2P character of a layout as the bandwidth model builds it (model/
 * layouts.c, what `topoctl advise` evaluates): the worst path class
 * (enum pcitopo_path_class, core's, as `nvidia-smi topo -m` names them)
 * over every GPU pair of two switches of gpus/2 GPUs on a two-socket
 * host. 0 with fewer than two GPUs; -errno if the model cannot build it.
 */
int nfd_p2p_class(enum pcitopo_layout layout, unsigned int gpus);
/* "within-switches" (PIX, PXB), "root-complex" (PHB), "host-bridges"
 * (NODE), "across-sockets" (SYS); NULL for another class */
const char *nfd_p2p_name(int p2p_class);

struct topod;
/* nfd.c: from here on (topod.c, once the state at start is known) write
 * the file; before, nfd_update() does nothing. */
void nfd_start(struct topod *d);
/* Write the file if what it says changed since it was last written (or
 * the last write failed: the directory may be there now). A failure is
 * logged, once per cause, and never stops topod. */
void nfd_update(struct topod *d);
/*
 * Remove the feature file (and a temporary one left by a crash) from dir:
 * `topod --remove-labels`, run by the package's prerm when pcitopo is
 * removed. Once nothing maintains the labels, a stale layout= or
 * state=idle would keep attracting pods to a node that no longer switches.
 * Returns how many files were removed, or -errno of the first failure
 * (err says which); a missing file or directory is not one.
 */
int nfd_remove(const char *dir, char *err, size_t len);

#endif
