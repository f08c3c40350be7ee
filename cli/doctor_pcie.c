// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor: the PCIe checks on the links and devices of the pairs'
 * paths (ACS has its own file, doctor_acs.c).
 *   link  down (error); narrower than both ends support (error: a fault,
 *         never power saving); slower than both ends support: a note on a
 *         GPU's own link (GPUs lower their link speed when idle), a warning
 *         on any other (a switch uplink or a NIC, NVMe: those do not idle
 *         down, and an uplink throttles every device below it: the
 *         kernel's own rule, pcie_bandwidth_available() in
 *         drivers/pci/pci.c, is the slowest link on the path).
 *   mps   a TLP larger than its receiver's Max_Payload_Size is malformed
 *         (PCIe Base spec, 2.2.2): a warning where an end of a pair has a
 *         larger MPS than some device on its path. Ports larger than the
 *         ends, as pci=pcie_bus_perf leaves them (drivers/pci/probe.c,
 *         pcie_write_mps(): each device at the smaller of its MPSS and its
 *         bridge's), are fine: only the ends originate TLPs. Fix: the
 *         kernel's mode for P2P, pci=pcie_bus_peer2peer (every device at
 *         128 bytes: Documentation/admin-guide/kernel-parameters.txt), or
 *         until reboot every end above the smallest MPS on the machine's
 *         paths lowered to it (lowering ends only; the ports stay).
 *   aer   the AER counters: correctable errors are retried by the link
 *         and lose nothing ("no impacts on the functionality of the
 *         interface", Documentation/PCI/pcieaer-howto.rst): a note, a
 *         warning when the count grew since --since DIR; non-fatal and
 *         fatal lose or corrupt TLPs: an error.
 *   dpc   DPC triggered on a port (error): the link below is contained
 *         (Trigger Status, drivers/pci/pcie/dpc.c).
 */
#include <string.h>

#include "doctor.h"

/* How many ends below an uplink to name before "...". */
#define NAMED_BELOW	4

/* The judged ends below device x (x on their path to the root), named. */
static size_t ends_below(const struct dr_run *r, const struct pt_device *x,
			 char *buf, size_t len)
{
	const struct pt_device *d, *up;
	char name[48];
	size_t i, n = 0, hit = 0, depth;

	buf[0] = '\0';
	for (i = 0; i < r->t->n_devices; i++) {
		d = &r->t->devices[i];
		if (!r->is_end[i] || d == x)
			continue;
		for (up = pt_topology_find(r->t, d->parent), depth = 0;
		     up && up != x && depth < PTC_MAX_DEPTH;
		     up = pt_topology_find(r->t, up->parent), depth++)
			;
		if (up != x)
			continue;
		if (hit++ < NAMED_BELOW && n < len) {
			dr_name(r, d, name, sizeof(name));
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", name);
		}
	}
	if (hit > NAMED_BELOW && n < len)
		snprintf(buf + n, len - n, " and %zu more", hit - NAMED_BELOW);
	return hit;
}

static void slow_link(struct dr_run *r, const struct pt_device *x,
		      const char *obj, const char *lnk, const char *cap,
		      const char *dir)
{
	char below[256], fix[1024];
	size_t n;

	if (dr_is_gpu(x)) {
		dr_add(r, DR_NOTE, DR_LINK, obj,
		       "idle GPUs train down to save power: check under load "
		       "(nvidia-smi -q -d PERFORMANCE while a job runs), then "
		       "topoctl refresh and topoctl doctor again",
		       "link at %s, both ends support %s (%s/current_link_speed)",
		       lnk, cap, dir);
		return;
	}
	snprintf(fix, sizeof(fix),
		 "not power saving: check the slot's PCIe generation in the BIOS "
		 "(a forced Gen setting), the riser or cable and the seating; "
		 "retrain with setpci -s %s CAP_EXP+0x10.w=0020:0020 (Link "
		 "Control: Retrain Link), then topoctl refresh",
		 x->parent[0] ? x->parent : x->addr);
	n = ends_below(r, x, below, sizeof(below));
	if (n)
		dr_add(r, DR_WARNING, DR_LINK, obj, fix,
		       "link at %s, both ends support %s (%s/current_link_speed): "
		       "the uplink of %zu device%s on the paths (%s), which share "
		       "it; a switch's link does not train down when idle",
		       lnk, cap, dir, n, n == 1 ? "" : "s", below);
	else
		dr_add(r, DR_WARNING, DR_LINK, obj, fix,
		       "link at %s, both ends support %s (%s/current_link_speed); "
		       "only GPUs train down when idle, a %s does not",
		       lnk, cap, dir, ptc_kind_name(x->kind));
}

void dr_check_link(struct dr_run *r)
{
	char obj[96], lnk[32], cap[32], dir[512], fix[1024];
	size_t i;

	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_device *x = &r->t->devices[i];
		unsigned int fl = x->link_flags;

		/* a downstream port's link is its child's, judged there */
		if (!r->on_path[i] || !pt_device_has_link(x) ||
		    pt_device_is_dsp(x) || !pt_has(x, PCITOPO_A_DEV_LINK_FLAGS))
			continue;
		dr_name(r, x, obj, sizeof(obj));
		dr_devdir(r, x, dir, sizeof(dir));
		fmt_link(lnk, sizeof(lnk), x->link_speed, x->link_width);
		fmt_link(cap, sizeof(cap), x->link_max_speed, x->link_max_width);
		if (!(fl & PCITOPO_LINK_F_ACTIVE)) {
			snprintf(fix, sizeof(fix),
				 "check the card's seating, power and riser; then "
				 "topoctl rescan %s", x->parent[0] ? x->parent : x->addr);
			dr_add(r, DR_ERROR, DR_LINK, obj, fix,
			       "link to %s is down (Link Status: data link layer not "
			       "active)", x->parent[0] ? x->parent : "its port");
			continue;
		}
		if (fl & PCITOPO_LINK_F_WIDTH_DOWN) {
			snprintf(fix, sizeof(fix),
				 "a narrow link is a fault, not power saving: reseat the "
				 "card, check the riser or cable and the slot's lanes "
				 "(BIOS bifurcation); then topoctl refresh");
			dr_add(r, DR_ERROR, DR_LINK, obj, fix,
			       "link trained %s, both ends support x%u (%s/current_link_width, "
			       "max_link_width; LnkSta/LnkCap)", lnk,
			       (unsigned int)x->link_max_width, dir);
		}
		if (fl & PCITOPO_LINK_F_SPEED_DOWN)
			slow_link(r, x, obj, lnk, cap, dir);
	}
}
/* The smallest MPS on any path of the machine (the full run's, whichever
 * pairs are judged): what every end must come down to. 0 unknown. */
static int mps_floor(const struct dr_run *r)
{
	size_t i;
	int lo = 0, m;

	for (i = 0; i < r->t->n_devices; i++) {
		m = r->h[i].mps;
		if ((r->scope[i] || r->on_path[i]) && m > 0 && (!lo || m < lo))
			lo = m;
	}
	return lo;
}

/* An end of the machine's pairs: what sends TLPs on them. */
static bool is_end_of_machine(const struct dr_run *r, size_t i)
{
	const struct pt_device *d = &r->t->devices[i];

	return (r->scope[i] || r->on_path[i]) &&
	       (dr_is_gpu(d) || dr_is_nic(r->c, d));
}

/* Device Control bits 7:5 = log2(MPS / 128) */
static unsigned int mps_bits(int mps)
{
	return (unsigned int)__builtin_ctz((unsigned int)mps / 128) << 5;
}

/*
 * Every end above floor, lowered to it: after that no end sends more
 * than any device on any path accepts, and no port changes. Lowering only
 * some ends would leave the others sending their larger TLPs to them.
 */
static void mps_fix(const struct dr_run *r, int floor, char *buf, size_t len)
{
	char list[640];
	size_t i, n = 0, ends = 0;

	list[0] = '\0';
	for (i = 0; i < r->t->n_devices; i++) {
		if (!is_end_of_machine(r, i) || r->h[i].mps <= floor)
			continue;
		ends++;
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
					      n ? " " : "", r->t->devices[i].addr);
	}
	if (n >= sizeof(list))
		snprintf(list, sizeof(list), "ADDR (each of the %zu GPUs and "
			 "NICs above %d bytes: topoctl -j dev list)", ends, floor);
	snprintf(buf, len,
		 "boot with pci=pcie_bus_peer2peer (every device at 128 bytes, "
		 "which any pair's P2P is safe with); until reboot, lower every "
		 "GPU and NIC above %d bytes, the smallest MPS on the machine's "
		 "paths, to it (ports may stay larger: only the ends send TLPs): "
		 "for d in %s; do setpci -s $d CAP_EXP+0x8.w=%04x:00e0; done",
		 floor, list, mps_bits(floor));
}

void dr_check_mps(struct dr_run *r)
{
	char obj[96], ev[640], fix[1024], name[48], snd[48], rcv[48];
	int floor = mps_floor(r);
	size_t k, j, le;

	for (k = 0; k < r->n_pairs; k++) {
		const struct dr_pair *p = &r->pairs[k];
		const struct pt_device *sender = NULL, *receiver = NULL;
		int hi = 0, lo = 0, m;

		if (!p->judged)
			continue;
		/* the larger end sends; the smallest device on the path,
		 * the other end included, must take it */
		for (j = 0; j < p->n_on; j++) {
			m = r->h[dr_index(r, p->on[j])].mps;
			if (m <= 0)
				continue;
			if ((j == 0 || j == p->n_on - 1) && m > hi) {
				hi = m;
				sender = p->on[j];
			}
		}
		for (j = 0; sender && j < p->n_on; j++) {
			m = r->h[dr_index(r, p->on[j])].mps;
			if (m > 0 && p->on[j] != sender && (!lo || m < lo)) {
				lo = m;
				receiver = p->on[j];
			}
		}
		if (!receiver || hi <= lo)
			continue;
		le = 0;
		for (j = 0; j < p->n_on && le < sizeof(ev); j++) {
			m = r->h[dr_index(r, p->on[j])].mps;
			if (m <= 0)
				continue;
			dr_name(r, p->on[j], name, sizeof(name));
			le += (size_t)snprintf(ev + le, sizeof(ev) - le, "%s%s %d",
					       le ? ", " : "", name, m);
		}
		dr_name(r, sender, snd, sizeof(snd));
		dr_name(r, receiver, rcv, sizeof(rcv));
		mps_fix(r, floor, fix, sizeof(fix));
		dr_pair_name(r, p, obj, sizeof(obj));
		dr_add(r, DR_WARNING, DR_MPS, obj, fix,
		       "Max_Payload_Size along the path (Device Control, config "
		       "CAP_EXP+0x08 bits 7:5): %s; %s may send TLPs of %d bytes, "
		       "which %s (%d) takes as malformed", ev, snd, hi, rcv, lo);
	}
}

/* A correctable count: a note, a warning where it grew since --since. */
static void aer_cor(struct dr_run *r, size_t i, const char *obj,
		    const char *dir)
{
	const struct pt_health *h = &r->h[i];
	const struct pt_health *b = r->base ? &r->base[i] : NULL;
	unsigned long long now = h->aer_total[PT_AER_COR], was;
	char fix[1024], since[640];
	bool grew = false;

	snprintf(since, sizeof(since), "; one look cannot tell whether it "
		 "grows");
	if (b && b->present && b->has_aer[PT_AER_COR]) {
		was = b->aer_total[PT_AER_COR];
		grew = now > was;
		snprintf(since, sizeof(since), "; %llu in %s: %s", was,
			 r->o.since, grew ? "it grows" : now == was ?
			 "unchanged since" : "fewer: the counters were reset "
			 "since (they count from boot)");
	} else if (r->o.since) {
		snprintf(since, sizeof(since), "; %s has no %s for it",
			 r->o.since, pt_aer_file(PT_AER_COR));
	}
	snprintf(fix, sizeof(fix), "%s%s (lspci -vvv -s %s shows the AER status)",
		 grew ? "a growing count is poor signal: reseat the card, check "
		 "the riser or cable" : "nothing to do unless it grows: save the "
		 "tree now (topoctl snapshot DIR) and run topoctl doctor --since "
		 "DIR later, a warning if it grew",
		 grew ? "; the counters reset at boot" : "", r->t->devices[i].addr);
	dr_add(r, grew ? DR_WARNING : DR_NOTE, DR_AER, obj, fix,
	       "%s/%s: total %llu%s%s%s: correctable errors are retried by the "
	       "link and lose nothing (Documentation/PCI/pcieaer-howto.rst)%s",
	       dir, pt_aer_file(PT_AER_COR), now, h->aer_detail[PT_AER_COR][0] ?
	       " (" : "", h->aer_detail[PT_AER_COR],
	       h->aer_detail[PT_AER_COR][0] ? ")" : "", since);
}

void dr_check_aer(struct dr_run *r)
{
	char obj[96], dir[512], fix[1024];
	size_t i;
	int k;

	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_health *h = &r->h[i];
		const struct pt_device *x = &r->t->devices[i];

		if (!r->on_path[i])
			continue;
		for (k = 0; k < PT_AER_KINDS; k++) {
			if (!h->has_aer[k] || !h->aer_total[k])
				continue;
			dr_name(r, x, obj, sizeof(obj));
			dr_devdir(r, x, dir, sizeof(dir));
			if (k == PT_AER_COR) {
				aer_cor(r, i, obj, dir);
				continue;
			}
			snprintf(fix, sizeof(fix),
				 "uncorrectable errors lose or corrupt TLPs: reseat "
				 "the card, check the riser or cable (lspci -vvv -s "
				 "%s shows the AER status); the counters reset at "
				 "boot: watch whether they grow", x->addr);
			dr_add(r, DR_ERROR, DR_AER, obj, fix, "%s/%s: total %llu%s%s%s",
			       dir, pt_aer_file((enum pt_aer_kind)k),
			       (unsigned long long)h->aer_total[k],
			       h->aer_detail[k][0] ? " (" : "", h->aer_detail[k],
			       h->aer_detail[k][0] ? ")" : "");
		}
	}
}

void dr_check_dpc(struct dr_run *r)
{
	char obj[96], fix[1024];
	size_t i;

	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_health *h = &r->h[i];
		const struct pt_device *x = &r->t->devices[i];

		if (!r->on_path[i] || h->dpc_cap < 0 ||
		    !(h->dpc_status & PT_DPC_TRIGGERED))
			continue;
		dr_name(r, x, obj, sizeof(obj));
		snprintf(fix, sizeof(fix),
			 "the port contained an uncorrectable error and holds its "
			 "link down: find the cause (dmesg: 'DPC: containment event'), "
			 "then setpci -s %s ECAP_DPC+0x8.w=0001 (write 1 clears) or "
			 "topoctl rescan %s", x->addr, x->addr);
		dr_add(r, DR_ERROR, DR_DPC, obj, fix,
		       "DPC triggered: DPC Status 0x%04x (Trigger Status, bit 0; "
		       "DPC extended capability 0x1d at 0x%03x, status at +0x08)",
		       h->dpc_status, h->dpc_cap);
	}
}
