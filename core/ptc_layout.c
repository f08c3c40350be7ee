// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: which of the usual 8-GPU server layouts a topology is.
 *
 * Only GPUs (role ENDPOINT, kind GPU) decide the layout. Counts:
 *   gpus, nics, nvmes  endpoints of each kind.
 *   switches           every switch in the topology, GPUs below or not,
 *                      counted by folded bridge_id: UPSTREAM nodes that are
 *                      their own bridge_id, so a split Broadcom level is no
 *                      extra switch.
 *   root_ports         distinct root ports above GPUs.
 *   numa_nodes         distinct known (>= 0) NUMA nodes of GPUs.
 *
 * Rules, first match wins; the reason names what was found:
 *   1. no GPU: OTHER "no GPUs found".
 *   2. a GPU with no switch above: OTHER
 *      "8 GPUs straight on root ports, no switch".
 *   3. a GPU behind a switch but below no root port (a switch on a root
 *      bus): OTHER.
 *   4. one root port: CASCADE if a GPU's switch hangs below another switch,
 *      "8 GPUs under 1 root port through 2 cascaded switches" (the switches
 *      below that root port); else OTHER
 *      "8 GPUs under 1 root port, no cascaded switch".
 *   5. two root ports. The "CPU" of a GPU is its NUMA node when every GPU's
 *      is known, its host bridge (domain, root bus) when none is known (the
 *      reason says so); a mix is OTHER. One CPU: COMMON
 *      "8 GPUs under 2 root ports on 1 NUMA node"; two CPUs: BALANCE
 *      "8 GPUs under 2 root ports on 2 NUMA nodes".
 *   6. more root ports: OTHER "16 GPUs under 4 root ports on 2 NUMA nodes".
 *
 * Distinct counts compare each GPU with the GPUs before it: O(nodes * GPUs)
 * time, no memory. Fine for servers (tens of GPUs); a 4096-GPU synthetic tree
 * takes milliseconds.
 */
#include "ptc.h"

enum ptc_key {
	PTC_KEY_ROOT_PORT,
	PTC_KEY_NUMA,
	PTC_KEY_HOST,
};

static bool ptc_is_gpu(const struct ptc_node *n)
{
	return n->role == PCITOPO_ROLE_ENDPOINT && n->kind == PCITOPO_KIND_GPU;
}

/* The key of a node; false if it has none (no root port, unknown NUMA). */
static bool ptc_key_of(const struct ptc_node *n, enum ptc_key k, s64 *key)
{
	switch (k) {
	case PTC_KEY_ROOT_PORT:
		*key = n->root_port;
		return n->root_port != PTC_NONE;
	case PTC_KEY_NUMA:
		*key = n->numa_node;
		return n->numa_node >= 0;
	case PTC_KEY_HOST:
		*key = ((s64)n->domain << 8) | n->root_bus;
		return true;
	}
	return false;
}

/* Whether a GPU before node i has the same key. */
static bool ptc_key_seen(const struct ptc_topo *t, u32 i, enum ptc_key k,
			 s64 key)
{
	s64 other;
	u32 j;

	for (j = 0; j < i; j++)
		if (ptc_is_gpu(&t->nodes[j]) &&
		    ptc_key_of(&t->nodes[j], k, &other) && other == key)
			return true;
	return false;
}

/* Distinct keys among GPUs that have one. */
static u32 ptc_count_distinct(const struct ptc_topo *t, enum ptc_key k)
{
	u32 i, count = 0;
	s64 key;

	for (i = 0; i < t->count; i++)
		if (ptc_is_gpu(&t->nodes[i]) &&
		    ptc_key_of(&t->nodes[i], k, &key) &&
		    !ptc_key_seen(t, i, k, key))
			count++;
	return count;
}

static bool ptc_is_switch(const struct ptc_topo *t, u32 i)
{
	return t->nodes[i].role == PCITOPO_ROLE_UPSTREAM &&
	       t->nodes[i].bridge_id == (s32)i;
}

/* Whether the switch a GPU sits on hangs below another (non-folded) switch. */
static bool ptc_gpu_cascaded(const struct ptc_topo *t, const struct ptc_node *g)
{
	s32 id = t->nodes[g->sw].bridge_id;
	s32 p = t->nodes[g->sw].parent;

	while (p != PTC_NONE) {
		if (t->nodes[p].role == PCITOPO_ROLE_UPSTREAM &&
		    t->nodes[p].bridge_id != id)
			return true;
		p = t->nodes[p].parent;
	}
	return false;
}

struct ptc_gpu_stats {
	u32 no_switch;		/* GPUs with sw == PTC_NONE */
	u32 root_bus;		/* ... of which have no root port either */
	u32 no_root_port;	/* GPUs with a switch but no root port */
	u32 cascaded;		/* GPUs whose switch is below another switch */
	u32 numa_known;		/* GPUs with a known NUMA node */
};

static void ptc_count(const struct ptc_topo *t, struct ptc_layout *out,
		      struct ptc_gpu_stats *st)
{
	const struct ptc_node *n;
	u32 i;

	for (i = 0; i < t->count; i++) {
		n = &t->nodes[i];
		if (ptc_is_switch(t, i))
			out->switches++;
		if (n->role != PCITOPO_ROLE_ENDPOINT)
			continue;
		out->nics += n->kind == PCITOPO_KIND_NIC;
		out->nvmes += n->kind == PCITOPO_KIND_NVME;
		if (n->kind != PCITOPO_KIND_GPU)
			continue;
		out->gpus++;
		st->numa_known += n->numa_node >= 0;
		if (n->sw == PTC_NONE) {
			st->no_switch++;
			st->root_bus += n->root_port == PTC_NONE;
		} else if (n->root_port == PTC_NONE) {
			st->no_root_port++;
		} else if (ptc_gpu_cascaded(t, n)) {
			st->cascaded++;
		}
	}
	out->root_ports = ptc_count_distinct(t, PTC_KEY_ROOT_PORT);
	out->numa_nodes = ptc_count_distinct(t, PTC_KEY_NUMA);
}

static const char *ptc_s(u32 n)
{
	return n == 1 ? "" : "s";
}

static void ptc_no_switch(struct ptc_layout *out, const struct ptc_gpu_stats *st)
{
	out->layout = PCITOPO_LAYOUT_OTHER;
	if (st->root_bus)
		snprintf(out->reason, sizeof(out->reason),
			 "%u of %u GPUs have no switch above, %u on a root bus with no root port",
			 st->no_switch, out->gpus, st->root_bus);
	else if (st->no_switch == out->gpus)
		snprintf(out->reason, sizeof(out->reason),
			 "%u GPU%s straight on root ports, no switch",
			 out->gpus, ptc_s(out->gpus));
	else
		snprintf(out->reason, sizeof(out->reason),
			 "%u of %u GPUs straight on root ports, no switch above them",
			 st->no_switch, out->gpus);
}

/* Switches (folded) below root port rp. */
static u32 ptc_switches_below(const struct ptc_topo *t, s32 rp)
{
	u32 i, count = 0;

	for (i = 0; i < t->count; i++)
		if (ptc_is_switch(t, i) && t->nodes[i].root_port == rp)
			count++;
	return count;
}

/* The root port of the first GPU. */
static s32 ptc_first_gpu_root_port(const struct ptc_topo *t)
{
	u32 i;

	for (i = 0; i < t->count; i++)
		if (ptc_is_gpu(&t->nodes[i]))
			return t->nodes[i].root_port;
	return PTC_NONE;
}

static void ptc_one_root_port(const struct ptc_topo *t, struct ptc_layout *out,
			      const struct ptc_gpu_stats *st)
{
	u32 sws;

	if (!st->cascaded) {
		out->layout = PCITOPO_LAYOUT_OTHER;
		snprintf(out->reason, sizeof(out->reason),
			 "%u GPU%s under 1 root port, no cascaded switch",
			 out->gpus, ptc_s(out->gpus));
		return;
	}
	sws = ptc_switches_below(t, ptc_first_gpu_root_port(t));
	out->layout = PCITOPO_LAYOUT_CASCADE;
	snprintf(out->reason, sizeof(out->reason),
		 "%u GPUs under 1 root port through %u cascaded switches",
		 out->gpus, sws);
}

/* CPUs the GPUs are on, with the word for them; 0 if NUMA is mixed. */
static u32 ptc_cpus(const struct ptc_topo *t, const struct ptc_layout *out,
		    const struct ptc_gpu_stats *st, const char **what)
{
	if (st->numa_known == out->gpus) {
		*what = out->numa_nodes == 1 ? "NUMA node" : "NUMA nodes";
		return out->numa_nodes;
	}
	if (st->numa_known)
		return 0;
	*what = "host bridge";
	return ptc_count_distinct(t, PTC_KEY_HOST);
}

static void ptc_cpu_layout(const struct ptc_topo *t, struct ptc_layout *out,
			   const struct ptc_gpu_stats *st)
{
	const char *what = "";
	u32 cpus = ptc_cpus(t, out, st, &what);
	bool hb = st->numa_known == 0;

	out->layout = PCITOPO_LAYOUT_OTHER;
	if (!cpus) {
		snprintf(out->reason, sizeof(out->reason),
			 "%u GPUs under %u root ports, NUMA node known for only %u of them",
			 out->gpus, out->root_ports, st->numa_known);
		return;
	}
	if (out->root_ports == 2 && cpus == 1)
		out->layout = PCITOPO_LAYOUT_COMMON;
	else if (out->root_ports == 2 && cpus == 2)
		out->layout = PCITOPO_LAYOUT_BALANCE;
	snprintf(out->reason, sizeof(out->reason),
		 "%u GPUs under %u root ports on %u %s%s%s",
		 out->gpus, out->root_ports, cpus, what,
		 hb ? ptc_s(cpus) : "",
		 hb ? " (NUMA unknown, host bridges stand in for CPUs)" : "");
}

void ptc_layout(const struct ptc_topo *t, struct ptc_layout *out)
{
	struct ptc_gpu_stats st = { 0 };

	memset(out, 0, sizeof(*out));
	out->layout = PCITOPO_LAYOUT_OTHER;
	if (t)
		ptc_count(t, out, &st);
	if (!out->gpus) {
		snprintf(out->reason, sizeof(out->reason), "no GPUs found");
	} else if (st.no_switch) {
		ptc_no_switch(out, &st);
	} else if (st.no_root_port) {
		snprintf(out->reason, sizeof(out->reason),
			 "%u of %u GPUs behind a switch on a root bus, no root port",
			 st.no_root_port, out->gpus);
	} else if (out->root_ports == 1) {
		ptc_one_root_port(t, out, &st);
	} else {
		ptc_cpu_layout(t, out, &st);
	}
}
