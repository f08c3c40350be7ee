// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: which of the usual GPU server layouts a topology is.
 *
 * The three layouts say where the GPUs' PCIe lanes come from, for any
 * number of switches and root ports:
 *   balance  the GPUs split evenly over two or more CPUs, behind switches
 *            (2 switches of 4, or 4 switches of 2 on 4 root ports, ...);
 *   common   every GPU from one CPU, behind switches, over two or more
 *            root ports;
 *   cascade  every GPU below one root port, a switch below another switch.
 * Direct-attached GPUs, uneven splits and mixed shapes are OTHER.
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
 * The "CPU" of a GPU is its socket when every GPU's is known (several NUMA
 * nodes can share one socket), else its NUMA node when every GPU's is
 * known, else its host bridge (domain, root bus) when no NUMA node is known
 * (the reason says so); a mix of known and unknown NUMA nodes is OTHER.
 *
 * Rules, first match wins; the reason names the shape found, with the
 * switches below the GPUs' root ports ("behind 4 switches"):
 *   1. no GPU: OTHER "no GPUs found".
 *   2. a GPU with no switch above: OTHER
 *      "8 GPUs straight on root ports, no switch".
 *   3. a GPU behind a switch but below no root port (a switch on a root
 *      bus): OTHER.
 *   4. one root port: CASCADE if a GPU's switch hangs below another switch,
 *      "8 GPUs behind 3 switches under 1 root port, cascaded"; else OTHER
 *      "8 GPUs behind 1 switch under 1 root port, no cascaded switch".
 *   5. more root ports, one CPU: COMMON
 *      "8 GPUs behind 2 switches on 2 root ports, all on NUMA node 0".
 *   6. more root ports, several CPUs with the same number of GPUs each:
 *      BALANCE "8 GPUs behind 4 switches on 4 root ports, 4 per NUMA node";
 *      different numbers: OTHER
 *      "8 GPUs behind 3 switches on 3 root ports, 2 to 6 per NUMA node".
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
	PTC_KEY_SOCKET,
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
	case PTC_KEY_SOCKET:
		*key = n->socket;
		return n->has_socket;
	}
	return false;
}

/* GPUs among nodes [0, end) with this key. */
static u32 ptc_key_count(const struct ptc_topo *t, u32 end, enum ptc_key k,
			 s64 key)
{
	u32 j, count = 0;
	s64 other;

	for (j = 0; j < end; j++)
		if (ptc_is_gpu(&t->nodes[j]) &&
		    ptc_key_of(&t->nodes[j], k, &other) && other == key)
			count++;
	return count;
}

/*
 * Distinct keys among GPUs that have one, and the fewest and most GPUs
 * that share one (min, max may be NULL).
 */
static u32 ptc_count_distinct(const struct ptc_topo *t, enum ptc_key k,
			      u32 *min, u32 *max)
{
	u32 i, per, count = 0, lo = 0, hi = 0;
	s64 key;

	for (i = 0; i < t->count; i++) {
		if (!ptc_is_gpu(&t->nodes[i]) ||
		    !ptc_key_of(&t->nodes[i], k, &key) ||
		    ptc_key_count(t, i, k, key))
			continue;
		per = ptc_key_count(t, t->count, k, key);
		lo = count && lo < per ? lo : per;
		hi = hi > per ? hi : per;
		count++;
	}
	if (min)
		*min = lo;
	if (max)
		*max = hi;
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

/* Switches (folded) below a root port that has GPUs below it. */
static u32 ptc_gpu_switches(const struct ptc_topo *t)
{
	u32 i, count = 0;

	for (i = 0; i < t->count; i++)
		if (ptc_is_switch(t, i) && t->nodes[i].root_port != PTC_NONE &&
		    ptc_key_count(t, t->count, PTC_KEY_ROOT_PORT,
				  t->nodes[i].root_port))
			count++;
	return count;
}

struct ptc_gpu_stats {
	u32 no_switch;		/* GPUs with sw == PTC_NONE */
	u32 root_bus;		/* ... of which have no root port either */
	u32 no_root_port;	/* GPUs with a switch but no root port */
	u32 cascaded;		/* GPUs whose switch is below another switch */
	u32 numa_known;		/* GPUs with a known NUMA node */
	u32 socket_known;	/* GPUs with a known socket */
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
		st->socket_known += n->has_socket;
		if (n->sw == PTC_NONE) {
			st->no_switch++;
			st->root_bus += n->root_port == PTC_NONE;
		} else if (n->root_port == PTC_NONE) {
			st->no_root_port++;
		} else if (ptc_gpu_cascaded(t, n)) {
			st->cascaded++;
		}
	}
	out->root_ports = ptc_count_distinct(t, PTC_KEY_ROOT_PORT, NULL, NULL);
	out->numa_nodes = ptc_count_distinct(t, PTC_KEY_NUMA, NULL, NULL);
}

/* Append to the reason; a long one is cut at PCITOPO_REASON_LEN. */
static __printf(2, 3) void ptc_reason_add(struct ptc_layout *out,
					  const char *fmt, ...)
{
	size_t len = strlen(out->reason);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->reason + len, sizeof(out->reason) - len, fmt, ap);
	va_end(ap);
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

static void ptc_one_root_port(const struct ptc_topo *t, struct ptc_layout *out,
			      const struct ptc_gpu_stats *st)
{
	u32 sws = ptc_gpu_switches(t);

	out->layout = st->cascaded ? PCITOPO_LAYOUT_CASCADE :
				     PCITOPO_LAYOUT_OTHER;
	snprintf(out->reason, sizeof(out->reason),
		 "%u GPU%s behind %u switch%s under 1 root port, %s",
		 out->gpus, ptc_s(out->gpus), sws, sws == 1 ? "" : "es",
		 st->cascaded ? "cascaded" : "no cascaded switch");
}

/*
 * The key that stands for a GPU's CPU and its word, or false if NUMA is
 * known for some GPUs only.
 */
static bool ptc_cpu_key(const struct ptc_layout *out,
			const struct ptc_gpu_stats *st, enum ptc_key *k,
			const char **what)
{
	if (st->socket_known == out->gpus) {
		*k = PTC_KEY_SOCKET;
		*what = "CPU socket";
	} else if (st->numa_known == out->gpus) {
		*k = PTC_KEY_NUMA;
		*what = "NUMA node";
	} else if (!st->numa_known) {
		*k = PTC_KEY_HOST;
		*what = "host bridge";
	} else {
		return false;
	}
	return true;
}

/* The key of the first GPU, for "all on NUMA node 0". */
static s64 ptc_first_gpu_key(const struct ptc_topo *t, enum ptc_key k)
{
	s64 key = 0;
	u32 i;

	for (i = 0; i < t->count; i++)
		if (ptc_is_gpu(&t->nodes[i]) &&
		    ptc_key_of(&t->nodes[i], k, &key))
			break;
	return key;
}

static void ptc_cpu_layout(const struct ptc_topo *t, struct ptc_layout *out,
			   const struct ptc_gpu_stats *st)
{
	u32 cpus, lo, hi, sws = ptc_gpu_switches(t);
	const char *what = "";
	enum ptc_key k;

	out->layout = PCITOPO_LAYOUT_OTHER;
	ptc_reason_add(out, "%u GPUs behind %u switch%s on %u root ports",
		       out->gpus, sws, sws == 1 ? "" : "es", out->root_ports);
	if (!ptc_cpu_key(out, st, &k, &what)) {
		ptc_reason_add(out, ", NUMA node known for only %u of them",
			       st->numa_known);
		return;
	}
	cpus = ptc_count_distinct(t, k, &lo, &hi);
	if (cpus == 1) {
		out->layout = PCITOPO_LAYOUT_COMMON;
		if (k == PTC_KEY_HOST)
			ptc_reason_add(out, ", all on 1 host bridge");
		else
			ptc_reason_add(out, ", all on %s %lld", what,
				       (long long)ptc_first_gpu_key(t, k));
	} else if (lo == hi) {
		out->layout = PCITOPO_LAYOUT_BALANCE;
		ptc_reason_add(out, ", %u per %s", lo, what);
	} else {
		ptc_reason_add(out, ", %u to %u per %s", lo, hi, what);
	}
	if (k == PTC_KEY_HOST)
		ptc_reason_add(out, " (NUMA unknown, host bridges stand in for CPUs)");
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
