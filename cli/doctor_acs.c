// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl doctor: ACS P2P redirect on the ports of the pairs' paths (a
 * root or downstream port by core's one rule, ptc_acs_redirect_bits()),
 * judged by what the redirect does to each pair that crosses the port:
 *   error    the port lies below the common bridge of a PIX/PXB pair: P2P
 *            that would turn in the switch goes up to the root complex
 *            (half the bandwidth, and wrong data seen on real servers; the
 *            NCCL user guide, Troubleshooting, "PCI Access Control Services
 *            (ACS)");
 *   error    a root port above one of two GPUs that meet only at the root
 *            complex, the other GPU's root port redirecting too, on an AMD
 *            CPU: P2P between them goes through the IOMMU and NCCL hangs
 *            (NVIDIA/nccl#2079, AMD GPP bridges with ReqRedir+ CmpltRedir+);
 *            a warning that says so where the CPU is unknown;
 *   warning  a root port of pairs that cross the root complex anyway
 *            (PHB/NODE/SYS): the redirect adds the IOMMU's checks;
 *   note     a switch downstream port none of whose pairs turns below it:
 *            their traffic leaves the switch anyway, and redirecting it
 *            upstream changes nothing (a peer added below it would be hit).
 * The evidence names the pairs that decide the severity first.
 *
 * Fix: setpci per port (until reboot); for the next boots ONE
 * pci=disable_acs_redir= naming every port of the warnings and errors,
 * ';'-separated (Documentation/admin-guide/kernel-parameters.txt): the
 * kernel keeps only the last such option (drivers/pci/pci.c, pci_setup()
 * overwrites disable_acs_redir_param), and GRUB ends a command at ';' (GNU
 * GRUB manual, "Shell-like scripting": ';' is a metacharacter), so it is
 * given quoted for GRUB_CMDLINE_LINUX.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

/* How many pairs to name in one finding's evidence before "and N more". */
#define NAMED_PAIRS	3
/* The longest port list the fix spells out (40 ports); past it, it says
 * which ports instead of cutting the option mid-list. */
#define LIST_MAX	(40 * 13)

/* What a redirect at a port does to one pair, worst last. */
enum acs_why { AW_NONE, AW_UPSTREAM, AW_HOST, AW_AMD, AW_LOCAL };

static void acs_bits(char *buf, size_t len, u16 bits)
{
	snprintf(buf, len, "%s%s%s",
		 bits & PTC_ACS_RR ? " RR" : "", bits & PTC_ACS_CR ? " CR" : "",
		 bits & PTC_ACS_EC ? " EC" : "");
}

static u16 redirect_bits(const struct pt_device *x)
{
	if (!pt_has(x, PCITOPO_A_DEV_ACS_CTRL))
		return 0;
	return ptc_acs_redirect_bits(x->role, x->acs_cap, x->acs_ctrl);
}

/* Whether port x of pair p lies below the pair's common bridge. */
static bool below_common(const struct dr_pair *p, const struct pt_device *x)
{
	return p->path.common[0] && strcmp(x->addr, p->path.common);
}

/* nccl#2079's shape: two GPUs meeting only at the root complex, each below
 * its own root port, both redirecting. */
static bool amd_shape(const struct dr_run *r, const struct dr_pair *p)
{
	const struct pt_device *ra, *rb;

	if (!dr_is_gpu(p->a) || !dr_is_gpu(p->b) || p->path.common[0])
		return false;
	ra = pt_topology_find(r->t, p->a->root_port);
	rb = pt_topology_find(r->t, p->b->root_port);
	return ra && rb && ra != rb && redirect_bits(ra) && redirect_bits(rb);
}

static enum acs_why why_of(const struct dr_run *r, const struct dr_pair *p,
			   const struct pt_device *x)
{
	if (below_common(p, x))
		return AW_LOCAL;
	if (x->role != PCITOPO_ROLE_ROOT_PORT)
		return AW_UPSTREAM;
	return amd_shape(r, p) ? AW_AMD : AW_HOST;
}

static enum dr_sev sev_of(const struct dr_run *r, enum acs_why w)
{
	switch (w) {
	case AW_LOCAL:
		return DR_ERROR;
	case AW_AMD:
		return r->fx.cpu == PTC_NCCL_CPU_AMD ? DR_ERROR : DR_WARNING;
	case AW_HOST:
		return DR_WARNING;
	default:
		return DR_NOTE;
	}
}

/* The worst of what the judged pairs crossing x make of its redirect. */
static enum acs_why port_why(const struct dr_run *r, const struct pt_device *x,
			     size_t *hit)
{
	enum acs_why w = AW_NONE, k;
	size_t i;

	*hit = 0;
	for (i = 0; i < r->n_pairs; i++) {
		const struct dr_pair *p = &r->pairs[i];

		if (!p->judged || !dr_pair_crosses(p, x))
			continue;
		(*hit)++;
		k = why_of(r, p, x);
		if (k > w)
			w = k;
	}
	return w;
}

/* The pairs through x, those of the worst reason first. */
static void pair_list(const struct dr_run *r, const struct pt_device *x,
		      char *buf, size_t len)
{
	char pname[48];
	size_t i, n = 0, named = 0;
	int w;

	buf[0] = '\0';
	for (w = AW_LOCAL; w > AW_NONE; w--) {
		for (i = 0; i < r->n_pairs; i++) {
			const struct dr_pair *p = &r->pairs[i];

			if (!p->judged || !dr_pair_crosses(p, x) ||
			    why_of(r, p, x) != (enum acs_why)w)
				continue;
			if (named++ >= NAMED_PAIRS || n >= len)
				continue;
			dr_pair_name(r, p, pname, sizeof(pname));
			n += (size_t)snprintf(buf + n, len - n, "%s%s %s",
					      n ? ", " : "", pname,
					      ptc_class_name(p->path.path_class));
		}
	}
	if (named > NAMED_PAIRS && n < len)
		snprintf(buf + n, len - n, " and %zu more", named - NAMED_PAIRS);
}

static const char *reason(const struct dr_run *r, enum acs_why w)
{
	switch (w) {
	case AW_LOCAL:
		return "P2P that would turn below this port goes up to the root "
		       "complex";
	case AW_AMD:
		return r->fx.cpu == PTC_NCCL_CPU_AMD ?
		       "two GPUs below AMD root ports that both redirect: their "
		       "P2P goes through the IOMMU and NCCL hangs (NVIDIA/nccl"
		       "#2079)" :
		       "two GPUs below root ports that both redirect: on an AMD "
		       "CPU their P2P goes through the IOMMU and NCCL hangs "
		       "(NVIDIA/nccl#2079; an error there)";
	case AW_HOST:
		return "these paths cross the root complex anyway, but the "
		       "redirect sends their P2P through the IOMMU's checks";
	default:
		return "no pair turns below this port: their traffic leaves the "
		       "switch anyway, so the redirect changes nothing now (a "
		       "peer added below it would be hit)";
	}
}

/* "A;B;C": the ports of warnings and errors, in bus order. */
static size_t boot_list(const struct dr_run *r, const enum dr_sev *sev,
			char *buf, size_t len)
{
	size_t i, n = 0, ports = 0;

	buf[0] = '\0';
	for (i = 0; i < r->t->n_devices; i++) {
		if (sev[i] < DR_WARNING)
			continue;
		ports++;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ";" : "",
					      r->t->devices[i].addr);
	}
	if (n >= len || n > LIST_MAX)
		buf[0] = '\0';	/* too long to spell out: fix_text() says so */
	return ports;
}

static void fix_text(const struct pt_device *x, u16 b, const char *list,
		     size_t ports, char *buf, size_t len)
{
	char bits[16], opt[LIST_MAX + 64];

	acs_bits(bits, sizeof(bits), b);
	if (list[0])
		snprintf(opt, sizeof(opt), "'pci=disable_acs_redir=%s'", list);
	else
		snprintf(opt, sizeof(opt), "'pci=disable_acs_redir=' with the "
			 "%zu ports of the acs warnings and errors, ';'-separated",
			 ports);
	snprintf(buf, len,
		 "setpci -s %s ECAP_ACS+0x6.w=0000:%04x (clears%s until reboot); "
		 "to keep it, boot with %s: one option naming every port doctor "
		 "flags (the kernel keeps only the last pci=disable_acs_redir=), "
		 "quoted as here in GRUB_CMDLINE_LINUX (GRUB ends a command at "
		 "';'), then update-grub; or turn ACS off in the BIOS (PCIe ACS "
		 "Control)", x->addr, (unsigned int)b, bits, opt);
}

void dr_check_acs(struct dr_run *r)
{
	char obj[96], bits[16], pairs[320], fix[1024], list[LIST_MAX + 16];
	enum dr_sev *sev = calloc(r->t->n_devices ? r->t->n_devices : 1,
				  sizeof(*sev));
	enum acs_why *why = calloc(r->t->n_devices ? r->t->n_devices : 1,
				   sizeof(*why));
	size_t i, hit, ports;

	if (!sev || !why) {
		free(sev);
		free(why);
		r->err = -ENOMEM;
		return;
	}
	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_device *x = &r->t->devices[i];

		why[i] = AW_NONE;
		sev[i] = DR_NOTE;
		if (!r->on_path[i] || !redirect_bits(x))
			continue;
		why[i] = port_why(r, x, &hit);
		sev[i] = sev_of(r, why[i]);
	}
	ports = boot_list(r, sev, list, sizeof(list));
	for (i = 0; i < r->t->n_devices; i++) {
		const struct pt_device *x = &r->t->devices[i];
		u16 b = redirect_bits(x);

		if (why[i] == AW_NONE)
			continue;
		(void)port_why(r, x, &hit);
		acs_bits(bits, sizeof(bits), b);
		dr_name(r, x, obj, sizeof(obj));
		pair_list(r, x, pairs, sizeof(pairs));
		if (sev[i] >= DR_WARNING)
			fix_text(x, b, list, ports, fix, sizeof(fix));
		else
			fix[0] = '\0';
		dr_add(r, sev[i], DR_ACS, obj, fix,
		       "%s %s redirects P2P: ACS Control 0x%04x has%s set (ACS "
		       "Capability 0x%04x); on %zu path%s (%s): %s",
		       ptc_role_name(x->role), x->addr, x->acs_ctrl, bits,
		       x->acs_cap, hit, hit == 1 ? "" : "s", pairs,
		       reason(r, why[i]));
	}
	free(sev);
	free(why);
}
