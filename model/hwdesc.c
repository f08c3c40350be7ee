// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the hardware description the candidate layouts are built
 * from: LnkCap of the GPUs, of the switch ports and of the root ports, the
 * number of CPU sockets, the switches and the GPUs on each. Given as
 * figures ("gen5x16")
 * or read off the topology the server has now: the figures do not change
 * with the layout (the same GPUs, switches and CPUs are wired differently),
 * which is what makes the other two layouts predictable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ptm.h"

void ptm_hw_default(struct ptm_hw *hw)
{
	hw->gpu.speed = hw->uplink.speed = hw->root.speed = 32000;
	hw->gpu.width = hw->uplink.width = hw->root.width = 16;
	hw->cpus = 2;
	hw->gpus_per_switch = 4;
	hw->nswitches = 0;
	memset(hw->sw_gpus, 0, sizeof(hw->sw_gpus));
}

unsigned int ptm_hw_switches(const struct ptm_hw *hw, unsigned int *gpus)
{
	unsigned int i, n = hw->nswitches;

	if (!n || n > PTM_MAX_SWITCHES) {
		gpus[0] = gpus[1] = hw->gpus_per_switch;
		return 2;
	}
	for (i = 0; i < n; i++)
		gpus[i] = hw->sw_gpus[i];
	return n;
}

void ptm_hw_format_switches(char *buf, size_t len, const struct ptm_hw *hw)
{
	unsigned int g[PTM_MAX_SWITCHES], n = ptm_hw_switches(hw, g), i;
	bool even = true;
	size_t o;

	for (i = 1; i < n; i++)
		even = even && g[i] == g[0];
	o = (size_t)snprintf(buf, len, "%u switch%s of ", n, n == 1 ? "" : "es");
	for (i = 0; i < (even ? 1 : n) && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u", i ? "+" : "",
				      g[i]);
	if (o < len)
		snprintf(buf + o, len - o, " GPU%s",
			 even && g[0] == 1 ? "" : "s");
}

static bool valid_width(unsigned long w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 12 || w == 16 ||
	       w == 32;
}

int ptm_link_parse(const char *s, struct ptc_link *l)
{
	unsigned long gen, w;
	u32 speed;
	char *end;

	if (!strncasecmp(s, "gen", 3)) {
		gen = strtoul(s + 3, &end, 10);
		speed = (end != s + 3 && gen >= 1 && gen <= 6) ?
			ptc_speed_from_lnk((u8)gen) : 0;
	} else {
		double gts = strtod(s, &end);

		speed = end != s && gts > 0 && gts < 100 ?
			(u32)(gts * 1000 + 0.5) : 0;
		if (!strncasecmp(end, "GT/s", 4))
			end += 4;
		while (*end == ' ')
			end++;
	}
	if (!speed || !ptc_speed_gen(speed) || (*end != 'x' && *end != 'X'))
		return -EINVAL;
	s = end + 1;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	w = strtoul(s, &end, 10);
	if (*end || !valid_width(w))
		return -EINVAL;
	l->speed = speed;
	l->width = (u8)w;
	return 0;
}

void ptm_link_format(char *buf, size_t len, const struct ptc_link *l)
{
	snprintf(buf, len, "Gen%u x%u", ptc_speed_gen(l->speed), l->width);
}

static void take_best(struct ptc_link *best, struct ptc_link l)
{
	if (ptc_link_bw(l.speed, l.width) > ptc_link_bw(best->speed, best->width))
		*best = l;
}

int ptm_hw_from_topo(const struct ptc_topo *t, struct ptm_hw *hw)
{
	struct ptc_link gpu = { 0 }, up = { 0 }, rp = { 0 };
	bool seen[PTM_MAX_SOCKETS] = { false };
	u32 gi[PTM_MAX_GPUS];
	s32 sw[PTM_MAX_SWITCHES];
	unsigned int ngpu = 0, most = 0, nsw = 0, i, j;
	unsigned int cpus = 0;
	int r;

	for (i = 0; i < t->count; i++) {
		const struct ptc_node *n = &t->nodes[i];

		if (n->role == PCITOPO_ROLE_ENDPOINT &&
		    n->kind == PCITOPO_KIND_GPU) {
			take_best(&gpu, n->link_max);
		} else if (n->role == PCITOPO_ROLE_UPSTREAM ||
			   n->role == PCITOPO_ROLE_DOWNSTREAM) {
			take_best(&up, n->cap);
		} else if (n->role == PCITOPO_ROLE_ROOT_PORT) {
			take_best(&rp, n->cap);
			if (n->numa_node >= 0 &&
			    n->numa_node < PTM_MAX_SOCKETS &&
			    !seen[n->numa_node]) {
				seen[n->numa_node] = true;
				cpus++;
			}
		}
	}
	r = ptm_gpus(t, gi, &ngpu);
	if (r == -ENODEV)
		return r;
	if (r == -E2BIG)
		ngpu = PTM_MAX_GPUS;
	memset(hw->sw_gpus, 0, sizeof(hw->sw_gpus));
	/* switches in the bus order of their first GPU */
	for (i = 0; i < ngpu; i++) {
		s32 s = t->nodes[gi[i]].sw;

		if (s == PTC_NONE)
			continue;
		for (j = 0; j < nsw && sw[j] != s; j++)
			;
		if (j == nsw) {
			if (nsw == PTM_MAX_SWITCHES)
				continue;
			sw[nsw++] = s;
		}
		if (hw->sw_gpus[j] < 16)
			hw->sw_gpus[j]++;
		if (hw->sw_gpus[j] > most)
			most = hw->sw_gpus[j];
	}
	if (!up.speed)
		up = gpu;
	if (!rp.speed)
		rp = up;
	hw->gpu = gpu;
	hw->uplink = up;
	hw->root = rp;
	hw->cpus = cpus ? cpus : 1;
	hw->nswitches = nsw;
	hw->gpus_per_switch = most ? most : (ngpu + 1) / 2;
	if (hw->gpus_per_switch > 16)
		hw->gpus_per_switch = 16;
	return 0;
}
