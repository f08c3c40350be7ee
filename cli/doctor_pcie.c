// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor: the PCIe checks, on the ports and links of the pairs'
 * paths.
 *   acs   a root or downstream port on a path redirecting P2P (core's one
 *         rule, ptc_acs_redirect()): error below the common bridge of a PIX
 *         or PXB pair (P2P that would stay in the switch goes up to the root
 *         complex: half the bandwidth, and wrong data seen on real servers),
 *         warning on the root ports of PHB/NODE/SYS pairs (the traffic
 *         crosses the root complex anyway; AMD GPP bridges hang, nccl #2079).
 *   link  down (error), narrower than both ends support (error), slower
 *         than both ends support (note: idle GPUs train down to save power).
 *   mps   Max_Payload_Size differing along a pair's path (warning): a TLP
 *         larger than a receiver's MPS is malformed.
 *   aer   AER counters non-zero: correctable (warning), non-fatal and fatal
 *         (error).
 *   dpc   DPC triggered on a port (error): the link below is contained.
 */
#include <string.h>

#include "doctor.h"

/* How many pairs to name in one finding's evidence before "and N more". */
#define NAMED_PAIRS	3

static void acs_bits(char *buf, size_t len, u16 bits)
{
	snprintf(buf, len, "%s%s%s",
		 bits & PTC_ACS_RR ? " RR" : "", bits & PTC_ACS_CR ? " CR" : "",
		 bits & PTC_ACS_EC ? " EC" : "");
}

/* Whether port x of pair p lies below the pair's common bridge. */
static bool below_common(const struct dr_pair *p, const struct pt_device *x)
{
	return p->path.common[0] && strcmp(x->addr, p->path.common);
}

void dr_check_acs(struct dr_run *r)
{
	char obj[96], bits[16], pairs[256], pname[48], fix[768];
	size_t i, k, j;

	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_device *x = &r->t->devices[i];
		u16 b = ptc_acs_redirect_bits(x->role, x->acs_cap, x->acs_ctrl);
		enum dr_sev sev = DR_WARNING;
		size_t hit = 0, len = 0;

		if (!r->on_path[i] || !b || !pt_has(x, PCITOPO_A_DEV_ACS_CTRL))
			continue;
		pairs[0] = '\0';
		for (k = 0; k < r->n_pairs; k++) {
			const struct dr_pair *p = &r->pairs[k];

			for (j = 0; j < p->n_on && p->on[j] != x; j++)
				;
			if (j == p->n_on)
				continue;
			if (below_common(p, x))
				sev = DR_ERROR;
			if (hit++ < NAMED_PAIRS && len < sizeof(pairs)) {
				dr_pair_name(r, p, pname, sizeof(pname));
				len += (size_t)snprintf(pairs + len, sizeof(pairs) - len,
							"%s%s %s", len ? ", " : "", pname,
							ptc_class_name(p->path.path_class));
			}
		}
		if (!hit)
			continue;
		acs_bits(bits, sizeof(bits), b);
		dr_name(r, x, obj, sizeof(obj));
		snprintf(fix, sizeof(fix),
			 "setpci -s %s ECAP_ACS+0x6.w=0000:%04x (clears%s until reboot); "
			 "to keep it: boot with pci=disable_acs_redir=%s, or turn ACS off "
			 "in the BIOS (PCIe ACS Control)", x->addr,
			 (unsigned int)b, bits, x->addr);
		dr_add(r, sev, DR_ACS, obj, fix,
		       "%s %s redirects P2P: ACS Control 0x%04x has%s set (ACS Capability "
		       "0x%04x); on %zu path%s (%s%s)%s",
		       ptc_role_name(x->role), x->addr, x->acs_ctrl, bits,
		       x->acs_cap, hit, hit == 1 ? "" : "s", pairs,
		       hit > NAMED_PAIRS ? ", ..." : "",
		       sev == DR_ERROR ? ": P2P that would stay below this port goes up "
		       "to the root complex" : ": these paths cross the root complex "
		       "anyway, but the redirect adds its checks (hangs on AMD, nccl #2079)");
	}
}

void dr_check_link(struct dr_run *r)
{
	char obj[96], lnk[32], cap[32], dir[512], fix[768];
	size_t i;

	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_device *x = &r->t->devices[i];
		unsigned int fl = x->link_flags;

		/* a downstream port's link is its child's, judged there */
		if (!r->on_path[i] || !dev_has_link(x) || pt_device_is_dsp(x) ||
		    !pt_has(x, PCITOPO_A_DEV_LINK_FLAGS))
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
		if (fl & PCITOPO_LINK_F_SPEED_DOWN) {
			snprintf(fix, sizeof(fix),
				 "idle GPUs train down to save power: check under load "
				 "(nvidia-smi -q -d PERFORMANCE while a job runs), then "
				 "topoctl refresh and topoctl doctor again");
			dr_add(r, DR_NOTE, DR_LINK, obj, fix,
			       "link at %s, both ends support %s (%s/current_link_speed)",
			       lnk, cap, dir);
		}
	}
}

void dr_check_mps(struct dr_run *r)
{
	char obj[96], ev[640], fix[768], name[48];
	size_t k, j, le, lf;

	for (k = 0; k < r->n_pairs; k++) {
		const struct dr_pair *p = &r->pairs[k];
		int lo = 0, hi = 0, m;

		for (j = 0; j < p->n_on; j++) {
			m = r->h[dr_index(r, p->on[j])].mps;
			if (m <= 0)
				continue;
			lo = !lo || m < lo ? m : lo;
			hi = m > hi ? m : hi;
		}
		if (lo == hi)
			continue;
		le = lf = 0;
		fix[0] = '\0';
		for (j = 0; j < p->n_on; j++) {
			const struct pt_health *h = &r->h[dr_index(r, p->on[j])];

			if (h->mps <= 0)
				continue;
			dr_name(r, p->on[j], name, sizeof(name));
			if (le < sizeof(ev))
				le += (size_t)snprintf(ev + le, sizeof(ev) - le, "%s%s %d",
						       le ? ", " : "", name, h->mps);
			/* DevCtl bits 7:5 = log2(MPS / 128) */
			if (h->mps != lo && lf < sizeof(fix))
				lf += (size_t)snprintf(fix + lf, sizeof(fix) - lf,
						       "setpci -s %s CAP_EXP+0x8.w=%04x:00e0; ",
						       p->on[j]->addr,
						       (unsigned int)(__builtin_ctz((unsigned int)lo / 128) << 5));
		}
		if (lf < sizeof(fix))
			snprintf(fix + lf, sizeof(fix) - lf,
				 "or boot with pci=pcie_bus_safe (every device at the "
				 "smallest MPS under its root port)");
		dr_pair_name(r, p, obj, sizeof(obj));
		dr_add(r, DR_WARNING, DR_MPS, obj, fix,
		       "Max_Payload_Size differs along the path (Device Control, "
		       "config CAP_EXP+0x08 bits 7:5): %s; TLPs larger than a "
		       "receiver's MPS are malformed", ev);
	}
}

void dr_check_aer(struct dr_run *r)
{
	static const enum dr_sev sev[PT_AER_KINDS] = {
		DR_WARNING, DR_ERROR, DR_ERROR,
	};
	char obj[96], dir[512], fix[768];
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
			snprintf(fix, sizeof(fix),
				 "%s: reseat the card, check the riser or cable "
				 "(lspci -vvv -s %s shows the AER status); the "
				 "counters reset at boot: watch whether they grow",
				 k == PT_AER_COR ? "the link retries (signal quality)" :
				 "uncorrectable errors lose or corrupt TLPs",
				 x->addr);
			dr_add(r, sev[k], DR_AER, obj, fix, "%s/%s: total %llu%s%s%s",
			       dir, pt_aer_file((enum pt_aer_kind)k),
			       (unsigned long long)h->aer_total[k],
			       h->aer_detail[k][0] ? " (" : "", h->aer_detail[k],
			       h->aer_detail[k][0] ? ")" : "");
		}
	}
}

void dr_check_dpc(struct dr_run *r)
{
	char obj[96], fix[768];
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
