// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: the one syntax of an extra vendor:device ID, taken by every
 * input that names one: the module parameter extra_ids, the module's sysfs
 * new_id and remove_id, topoctl --extra-id, `topoctl id add/del` and
 * /etc/pcitopo/extra-ids. Before this file each had its own parser and they
 * disagreed (digit counts, case, "0x", separators).
 *
 * One ID:
 *
 *   id    = hex4 sep hex4 [ sep kind ]
 *   hex4  = exactly four hex digits, either case: "10de", "10DE"
 *   sep   = ":" | blank { blank }          blank = space or tab
 *   kind  = "gpu" | "nic" | "nvme", either case; gpu when omitted
 *
 * White space (space, tab, CR, LF) before and after the ID is ignored: the
 * newline of `echo ID > new_id`, a CRLF file. So "10de:2330", "10DE:2330:NIC",
 * "10de 2330 nvme" (a PCI driver's new_id) and "10de:2330 gpu" (what
 * `topoctl id add 10de:2330 gpu` takes) are IDs; "10de:233", "0x10de:2330",
 * "10de::2330", "10de:2330:" and "10de:2330:port" are not.
 *
 * Exactly four digits, as lspci -n, pci.ids and the kernel print every ID:
 * a shorter field is far more often a digit lost in copying (10de:233 for
 * 10de:2330) than an ID written short. The kinds are those an operator can
 * give a device (enum pcitopo_kind's GPU, NIC and NVME); none, port and
 * display are the class rules' to decide.
 *
 * A list (the module parameter, the extra-ids file):
 *
 *   list  = item { ( "," | LF ) item }
 *   item  = [ id ] [ "#" comment-to-end-of-line ]
 *
 * Empty items (a blank line, ",,", a trailing comma) are skipped. White
 * space between the fields of one ID is a separator, so white space cannot
 * separate two IDs: "10de:2330 10de:2331" is one malformed item, refused,
 * never read as something else.
 */
#include "ptc.h"

static bool ptc_ids_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool ptc_ids_is_space(char c)
{
	return ptc_ids_is_blank(c) || c == '\r' || c == '\n';
}

static char ptc_ids_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int ptc_ids_hex_digit(char c)
{
	c = ptc_ids_lower(c);
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Exactly four hex digits at *p (before end); advances *p past them. */
static int ptc_ids_hex4(const char **p, const char *end, u16 *out)
{
	u16 v = 0;
	int i, d;

	if (end - *p < 4)
		return -EINVAL;
	for (i = 0; i < 4; i++) {
		d = ptc_ids_hex_digit((*p)[i]);
		if (d < 0)
			return -EINVAL;
		v = (u16)(v << 4 | d);
	}
	*p += 4;
	*out = v;
	return 0;
}

/* A separator at *p: one colon, or a run of blanks; advances *p past it. */
static int ptc_ids_sep(const char **p, const char *end)
{
	if (*p < end && **p == ':') {
		(*p)++;
		return 0;
	}
	if (*p == end || !ptc_ids_is_blank(**p))
		return -EINVAL;
	while (*p < end && ptc_ids_is_blank(**p))
		(*p)++;
	return 0;
}

int ptc_parse_kind(const char *s, size_t len, u8 *kind)
{
	const char *name;
	size_t i;
	u8 k;

	for (k = PCITOPO_KIND_GPU; k <= PCITOPO_KIND_NVME; k++) {
		name = ptc_kind_name(k);
		for (i = 0; i < len && name[i]; i++)
			if (ptc_ids_lower(s[i]) != name[i])
				break;
		if (i == len && !name[i]) {
			*kind = k;
			return 0;
		}
	}
	return -EINVAL;
}

int ptc_parse_id(const char *s, size_t len, unsigned int flags,
		 struct ptc_extra_id *out)
{
	const char *end = s + len;
	struct ptc_extra_id id = { .kind = PCITOPO_KIND_GPU };

	while (s < end && ptc_ids_is_space(*s))
		s++;
	while (end > s && ptc_ids_is_space(end[-1]))
		end--;
	if (ptc_ids_hex4(&s, end, &id.vendor) || ptc_ids_sep(&s, end) ||
	    ptc_ids_hex4(&s, end, &id.device))
		return -EINVAL;
	if (s < end) {
		if ((flags & PTC_ID_NO_KIND) || ptc_ids_sep(&s, end) ||
		    ptc_parse_kind(s, end - s, &id.kind))
			return -EINVAL;
	}
	*out = id;
	return 0;
}

int ptc_parse_ids(const char *s, size_t len,
		  int (*add)(const struct ptc_extra_id *id, void *arg),
		  void *arg, struct ptc_ids_pos *bad)
{
	const char *p = s, *end = s + len, *item, *stop;
	struct ptc_extra_id id;
	u32 line = 1;
	int ret;

	while (p < end) {
		item = p;
		while (p < end && *p != ',' && *p != '\n' && *p != '#')
			p++;
		stop = p;
		if (p < end && *p == '#')
			while (p < end && *p != '\n')
				p++;
		/* item .. stop, white space trimmed: empty is no item */
		while (item < stop && ptc_ids_is_space(*item))
			item++;
		while (stop > item && ptc_ids_is_space(stop[-1]))
			stop--;
		if (item < stop) {
			ret = ptc_parse_id(item, stop - item, 0, &id);
			if (!ret)
				ret = add(&id, arg);
			if (ret) {
				if (bad) {
					bad->off = item - s;
					bad->len = stop - item;
					bad->line = line;
				}
				return ret;
			}
		}
		if (p < end) {
			if (*p == '\n')
				line++;
			p++;
		}
	}
	return 0;
}
