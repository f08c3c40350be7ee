// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ptc_resolve(): the derived fields of each node (root port, switch, bridge
 * id, depth, kind) and the inputs it must refuse.
 */
#include "servers.h"
#include "tap.h"

static void test_cascade_fields(void)
{
	struct synth s;
	struct server v;
	const struct ptc_node *n;
	int up0, up1;

	synth_init(&s, 64);
	server_cascade(&s, &v);
	tap_eq(synth_resolve(&s), 0, "cascade resolves");
	up0 = v.sw[0];
	up1 = v.sw[1];

	n = &s.nodes[v.rp[0]];
	tap_ok(n->root_port == v.rp[0] && n->sw == PTC_NONE &&
	       n->bridge_id == v.rp[0] && n->depth == 0 &&
	       n->kind == PCITOPO_KIND_PORT,
	       "root port: its own root port and bridge, no switch, depth 0, kind port");
	n = &s.nodes[up0];
	tap_ok(n->sw == up0 && n->bridge_id == up0 && n->depth == 1 &&
	       n->root_port == v.rp[0],
	       "switch 0 upstream port: its own switch and bridge, depth 1");
	n = &s.nodes[v.ds[0][5]];
	tap_ok(n->sw == up0 && n->bridge_id == up0 && n->depth == 2,
	       "switch 0 downstream port: part of switch 0");
	n = &s.nodes[up1];
	tap_ok(n->sw == up1 && n->bridge_id == up1 && n->depth == 3,
	       "switch 1 upstream port (below switch 0): its own switch, depth 3");
	n = &s.nodes[v.gpu[0]];
	tap_ok(n->sw == up0 && n->bridge_id == PTC_NONE && n->depth == 3 &&
	       n->root_port == v.rp[0] && n->kind == PCITOPO_KIND_GPU,
	       "GPU 0 sits on switch 0, depth 3, kind gpu, no bridge id");
	n = &s.nodes[v.gpu[4]];
	tap_ok(n->sw == up1 && n->depth == 5 && n->root_port == v.rp[0],
	       "GPU 4 sits on switch 1, depth 5, same root port");
	tap_eq(s.nodes[v.nic[0]].kind, PCITOPO_KIND_NIC, "NIC kind from class 0x0200");
	synth_free(&s);
}

static void test_given_kind_and_order(void)
{
	struct synth s;
	struct ptc_node tmp;
	int rp, up, ds[2], acc, gpu;

	synth_init(&s, 16);
	rp = synth_root_port(&s, 0, 0, 0);
	up = synth_switch(&s, rp, 0x10b5, 0xc040, 2, ds);
	acc = synth_endpoint(&s, ds[0], 0x0b4000, 0x1d0f, 0x8061);
	s.nodes[acc].kind = PCITOPO_KIND_GPU;	/* an extra ID */
	gpu = synth_gpu(&s, ds[1]);
	/* Children before parents: swap the GPU and the root port. */
	tmp = s.nodes[rp];
	s.nodes[rp] = s.nodes[gpu];
	s.nodes[gpu] = tmp;
	s.nodes[up].parent = gpu;
	tap_eq(synth_resolve(&s), 0, "nodes in any order resolve");
	tap_ok(s.nodes[rp].sw == up && s.nodes[rp].root_port == gpu &&
	       s.nodes[rp].depth == 3,
	       "a GPU stored before its root port still gets its switch and root port");
	tap_eq(s.nodes[acc].kind, PCITOPO_KIND_GPU,
	       "a kind the caller set (extra ID) is kept");
	synth_free(&s);
}

/* Broadcom Gen4 (1000:c010) shows as two nested levels for one switch. */
static void test_broadcom_fold(void)
{
	struct synth s;
	int rp, outer, ds[2], in0, in1, ids0[2], ids1[2], other, ods[2];

	synth_init(&s, 32);
	rp = synth_root_port(&s, 0, 0, 0);
	outer = synth_switch(&s, rp, 0x1000, 0xc010, 2, ds);
	in0 = synth_switch(&s, ds[0], 0x1000, 0xc010, 2, ids0);
	in1 = synth_switch(&s, ds[1], 0x10b5, 0xc010, 2, ids1);
	other = synth_switch(&s, ids0[0], 0x1000, 0xc010, 2, ods);
	tap_eq(synth_resolve(&s), 0, "Broadcom tree resolves");
	tap_eq(s.nodes[in0].bridge_id, outer,
	       "inner 1000:c010 level folds into the outer 1000:c010 switch");
	tap_eq(s.nodes[ids0[1]].bridge_id, outer,
	       "its downstream ports fold with it");
	tap_eq(s.nodes[in0].sw, in0, "the inner level is still its own sw");
	tap_eq(s.nodes[in1].bridge_id, in1,
	       "10b5:c010 below 1000:c010 is a switch of its own");
	tap_eq(s.nodes[other].bridge_id, outer,
	       "a third nested 1000:c010 level folds all the way up");
	synth_free(&s);
}

static void test_invalid(void)
{
	struct synth s;
	struct ptc_topo none = { NULL, 0 }, bad = { NULL, 3 };
	int rp, up, ds[2], gpu, gpu2, i, prev;

	synth_init(&s, 64);
	rp = synth_root_port(&s, 0, 0, 0);
	up = synth_switch(&s, rp, 0x10b5, 0xc040, 2, ds);
	gpu = synth_gpu(&s, ds[0]);
	gpu2 = synth_gpu(&s, ds[1]);
	tap_eq(synth_resolve(&s), 0, "valid tree resolves");

	s.nodes[gpu2].parent = (s32)s.topo.count;
	tap_eq(synth_resolve(&s), -EINVAL, "parent index past the end: -EINVAL");
	s.nodes[gpu2].parent = -2;
	tap_eq(synth_resolve(&s), -EINVAL, "negative parent index: -EINVAL");
	s.nodes[gpu2].parent = gpu;
	tap_eq(synth_resolve(&s), -EINVAL, "parent is an endpoint: -EINVAL");
	s.nodes[gpu2].parent = ds[1];

	s.nodes[rp].parent = ds[0];
	tap_eq(synth_resolve(&s), -EINVAL, "cycle root port -> switch -> root port: -EINVAL");
	s.nodes[rp].parent = rp;
	tap_eq(synth_resolve(&s), -EINVAL, "node its own parent: -EINVAL");
	s.nodes[rp].parent = PTC_NONE;

	s.nodes[up].role = __PCITOPO_ROLE_MAX;
	tap_eq(synth_resolve(&s), -EINVAL, "role out of range: -EINVAL");
	s.nodes[up].role = PCITOPO_ROLE_UPSTREAM;
	tap_eq(synth_resolve(&s), 0, "repaired tree resolves again");

	tap_eq(ptc_resolve(&none), 0, "empty topology resolves");
	tap_eq(ptc_resolve(&bad), -EINVAL, "NULL nodes with a count: -EINVAL");
	tap_eq(ptc_resolve(NULL), -EINVAL, "NULL topology: -EINVAL");
	synth_free(&s);

	/* A chain of PTC_MAX_DEPTH bridges is the deepest allowed. */
	synth_init(&s, 64);
	prev = synth_root_port(&s, 0, 0, 0);
	for (i = 1; i < PTC_MAX_DEPTH; i++)
		prev = synth_bridge(&s, prev);
	gpu = synth_gpu(&s, prev);
	tap_eq(synth_resolve(&s), 0, "endpoint below %d bridges resolves", PTC_MAX_DEPTH);
	tap_eq(s.nodes[gpu].depth, PTC_MAX_DEPTH, "its depth is %d", PTC_MAX_DEPTH);
	prev = synth_bridge(&s, prev);
	synth_gpu(&s, prev);
	tap_eq(synth_resolve(&s), -EINVAL, "endpoint below %d bridges: -EINVAL",
	       PTC_MAX_DEPTH + 1);
	synth_free(&s);
}

int main(void)
{
	test_cascade_fields();
	test_given_kind_and_order();
	test_broadcom_fold();
	test_invalid();
	return tap_done();
}
