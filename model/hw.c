// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptmodel: the hardware description the candidate layouts are built
 * from: LnkCap of the GPUs, of the switch ports and of the root ports, the
 * number of CPU sockets and GPUs per switch. Given as figures ("gen5x16")
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
	unsigned int ngpu = 0, most = 0, i, j, cnt;
	bool seen[PTM_MAX_SOCKETS] = { false };
	unsigned int cpus = 0;

	for (i = 0; i < t->count; i++) {
		const struct ptc_node *n = &t->nodes[i];

		if (n->role == PCITOPO_ROLE_ENDPOINT &&
		    n->kind == PCITOPO_KIND_GPU) {
			ngpu++;
			take_best(&gpu, n->link_max);
			if (n->sw == PTC_NONE)
				continue;
			for (cnt = 0, j = 0; j < t->count; j++)
				if (t->nodes[j].kind == PCITOPO_KIND_GPU &&
				    t->nodes[j].role == PCITOPO_ROLE_ENDPOINT &&
				    t->nodes[j].sw == n->sw)
					cnt++;
			if (cnt > most)
				most = cnt;
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
	if (!ngpu)
		return -ENODEV;
	if (!up.speed)
		up = gpu;
	if (!rp.speed)
		rp = up;
	hw->gpu = gpu;
	hw->uplink = up;
	hw->root = rp;
	hw->cpus = cpus ? cpus : 1;
	hw->gpus_per_switch = most ? most : (ngpu + 1) / 2;
	if (hw->gpus_per_switch > 16)
		hw->gpus_per_switch = 16;
	return 0;
}
