// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pcitopo core: short names of the ABI's enums, and PCI addresses.
 *
 * Addresses are formatted as the kernel prints them, "%04x:%02x:%02x.%x"
 * (domain, bus, device, function). The parser takes "DDDD:BB:DD.F" or
 * "BB:DD.F" (domain 0), hex digits in either case: 1 to 7 digits of domain
 * (so that every address it accepts formats into PCITOPO_ADDR_LEN bytes,
 * NUL included; Linux domains stay below 0x20000, VMD's included),
 * 1 or 2 of bus and device, 1 of function, device <= 0x1f, function <= 7,
 * and nothing before or after (no spaces, no "0x", no newline).
 */
#include "ptc.h"

/* Longest domain: "%04x:%02x:%02x.%x" with it is PCITOPO_ADDR_LEN - 1 long. */
#define PTC_DOMAIN_DIGITS	(PCITOPO_ADDR_LEN - 1 - 8)

static const char *ptc_name(const char * const *table, size_t n, u8 i)
{
	return i < n ? table[i] : "?";
}

static const char * const ptc_class_names[] = {
	[PCITOPO_PATH_UNKNOWN] = "?",
	[PCITOPO_PATH_X] = "X",
	[PCITOPO_PATH_PIX] = "PIX",
	[PCITOPO_PATH_PXB] = "PXB",
	[PCITOPO_PATH_PHB] = "PHB",
	[PCITOPO_PATH_NODE] = "NODE",
	[PCITOPO_PATH_SYS] = "SYS",
};

static const char * const ptc_layout_names[] = {
	[PCITOPO_LAYOUT_UNKNOWN] = "unknown",
	[PCITOPO_LAYOUT_BALANCE] = "balance",
	[PCITOPO_LAYOUT_COMMON] = "common",
	[PCITOPO_LAYOUT_CASCADE] = "cascade",
	[PCITOPO_LAYOUT_OTHER] = "other",
};

static const char * const ptc_role_names[] = {
	[PCITOPO_ROLE_UNKNOWN] = "unknown",
	[PCITOPO_ROLE_ROOT_PORT] = "root-port",
	[PCITOPO_ROLE_UPSTREAM] = "upstream",
	[PCITOPO_ROLE_DOWNSTREAM] = "downstream",
	[PCITOPO_ROLE_BRIDGE] = "bridge",
	[PCITOPO_ROLE_ENDPOINT] = "endpoint",
};

static const char * const ptc_kind_names[] = {
	[PCITOPO_KIND_NONE] = "none",
	[PCITOPO_KIND_PORT] = "port",
	[PCITOPO_KIND_GPU] = "gpu",
	[PCITOPO_KIND_NIC] = "nic",
	[PCITOPO_KIND_NVME] = "nvme",
	[PCITOPO_KIND_DISPLAY] = "display",
};

const char *ptc_class_name(u8 class)
{
	return ptc_name(ptc_class_names, ARRAY_SIZE(ptc_class_names), class);
}

const char *ptc_layout_name(u8 layout)
{
	return ptc_name(ptc_layout_names, ARRAY_SIZE(ptc_layout_names), layout);
}

/* The switchable layouts, in the order every list of them is given. */
static const u8 ptc_switchable[PTC_NSWITCHABLE] = {
	PCITOPO_LAYOUT_BALANCE,
	PCITOPO_LAYOUT_COMMON,
	PCITOPO_LAYOUT_CASCADE,
};

u8 ptc_layout_first(void)
{
	return ptc_switchable[0];
}

u8 ptc_layout_next(u8 l)
{
	size_t i;

	for (i = 0; i + 1 < ARRAY_SIZE(ptc_switchable); i++)
		if (ptc_switchable[i] == l)
			return ptc_switchable[i + 1];
	return PCITOPO_LAYOUT_UNKNOWN;
}

bool ptc_layout_switchable(u8 l)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ptc_switchable); i++)
		if (ptc_switchable[i] == l)
			return true;
	return false;
}

const char *ptc_layout_list(char *buf, size_t len, const char *sep)
{
	size_t off = 0;
	u8 l;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		int n = snprintf(buf + off, len - off, "%s%s", off ? sep : "",
				 ptc_layout_name(l));

		if (n < 0 || (size_t)n >= len - off)
			break;		/* cut: snprintf terminated it */
		off += (size_t)n;
	}
	return buf;
}

u8 ptc_layout_by_name(const char *name)
{
	u8 l;

	for (l = ptc_layout_first(); l; l = ptc_layout_next(l))
		if (name && !strcmp(name, ptc_layout_names[l]))
			return l;
	return PCITOPO_LAYOUT_UNKNOWN;
}

const char *ptc_role_name(u8 role)
{
	return ptc_name(ptc_role_names, ARRAY_SIZE(ptc_role_names), role);
}

const char *ptc_kind_name(u8 kind)
{
	return ptc_name(ptc_kind_names, ARRAY_SIZE(ptc_kind_names), kind);
}

void ptc_addr_format(char *buf, size_t len, u32 domain, u8 bus, u8 devfn)
{
	snprintf(buf, len, "%04x:%02x:%02x.%x", domain, bus,
		 (devfn >> 3) & 0x1f, devfn & 7);
}

static int ptc_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse 1 to max hex digits at s into *val; the end, or NULL. */
static const char *ptc_hex(const char *s, u32 max, u32 *val)
{
	u32 n = 0, v = 0;
	int d;

	while ((d = ptc_hex_digit(*s)) >= 0) {
		if (++n > max)
			return NULL;
		v = (v << 4) | (u32)d;
		s++;
	}
	if (!n)
		return NULL;
	*val = v;
	return s;
}

int ptc_addr_parse(const char *s, u32 *domain, u8 *bus, u8 *devfn)
{
	const char *start = s;
	u32 f[3], fn, n = 0;
	size_t len0 = 0;

	if (!s)
		return -EINVAL;
	/* One to three colon-separated fields: [domain:]bus:dev; dev is last. */
	for (;;) {
		s = ptc_hex(s, n ? 2 : PTC_DOMAIN_DIGITS, &f[n]);
		if (!s)
			return -EINVAL;
		if (!n)
			len0 = (size_t)(s - start);
		n++;
		if (*s != ':' || n == 3)
			break;
		s++;
	}
	/* Without a domain the first field is the bus: at most 2 digits. */
	if (n < 2 || *s != '.' || (n == 2 && len0 > 2))
		return -EINVAL;
	s = ptc_hex(s + 1, 1, &fn);
	if (!s || *s || fn > 7 || f[n - 1] > 0x1f)
		return -EINVAL;
	*domain = n == 3 ? f[0] : 0;
	*bus = (u8)f[n - 2];
	*devfn = (u8)(f[n - 1] << 3 | fn);
	return 0;
}
