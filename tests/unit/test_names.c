// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Names of the ABI's enums, and PCI address formatting and parsing.
 */
#include "ptc.h"
#include "tap.h"

static void test_names(void)
{
	static const char *const classes[] = {
		"?", "X", "PIX", "PXB", "PHB", "NODE", "SYS", "?" };
	static const char *const layouts[] = {
		"unknown", "balance", "common", "cascade", "other", "?" };
	static const char *const roles[] = {
		"unknown", "root-port", "upstream", "downstream", "bridge",
		"endpoint", "?" };
	static const char *const kinds[] = {
		"none", "port", "gpu", "nic", "nvme", "display", "?" };
	int bad = 0;
	u8 i;

	for (i = 0; i <= __PCITOPO_PATH_MAX; i++)
		bad += !!strcmp(ptc_class_name(i), classes[i]);
	tap_ok(!bad, "path class names X PIX PXB PHB NODE SYS, '?' beyond");
	bad = 0;
	for (i = 0; i <= __PCITOPO_LAYOUT_MAX; i++)
		bad += !!strcmp(ptc_layout_name(i), layouts[i]);
	tap_ok(!bad, "layout names, '?' beyond");
	bad = 0;
	for (i = 0; i <= __PCITOPO_ROLE_MAX; i++)
		bad += !!strcmp(ptc_role_name(i), roles[i]);
	tap_ok(!bad, "role names, '?' beyond");
	bad = 0;
	for (i = 0; i <= __PCITOPO_KIND_MAX; i++)
		bad += !!strcmp(ptc_kind_name(i), kinds[i]);
	tap_ok(!bad, "kind names, '?' beyond");
	tap_streq(ptc_class_name(255), "?", "class 255 is '?'");
}

/* the names a server can be switched to, and only those */
static void test_layout_by_name(void)
{
	static const char *const junk[] = {
		"unknown", "other", "?", "", "Balance", "balance ", "cascad",
	};
	int bad = 0;
	u8 l;

	for (l = ptc_layout_first(); l; l = ptc_layout_next(l))
		bad += ptc_layout_by_name(ptc_layout_name(l)) != l;
	tap_ok(!bad, "balance, common, cascade parse back to their layout");
	bad = 0;
	for (size_t i = 0; i < ARRAY_SIZE(junk); i++)
		bad += ptc_layout_by_name(junk[i]) != PCITOPO_LAYOUT_UNKNOWN;
	tap_ok(!bad, "unknown, other, a wrong case or a prefix: no layout");
	tap_eq(ptc_layout_by_name(NULL), PCITOPO_LAYOUT_UNKNOWN, "NULL: no layout");
}

/* the one list of switchable layouts, walked by ptc_layout_first(), _next() */
static void test_switchable(void)
{
	char walked[64] = "", buf[64];
	unsigned int n = 0;
	int bad = 0;
	u8 l;

	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		snprintf(walked + strlen(walked), sizeof(walked) - strlen(walked),
			 "%s%s", n ? " " : "", ptc_layout_name(l));
		n++;
		bad += !ptc_layout_switchable(l);
	}
	tap_streq(walked, "balance common cascade",
		  "ptc_layout_first, _next: balance, common, cascade, in that order");
	tap_ok(n == 3 && !bad, "three layouts, each switchable");
	tap_ok(!ptc_layout_switchable(PCITOPO_LAYOUT_UNKNOWN) &&
	       !ptc_layout_switchable(PCITOPO_LAYOUT_OTHER) &&
	       !ptc_layout_switchable(__PCITOPO_LAYOUT_MAX) &&
	       !ptc_layout_switchable(255),
	       "unknown, other and out of range are not switchable");
	tap_eq(ptc_layout_next(PCITOPO_LAYOUT_CASCADE), PCITOPO_LAYOUT_UNKNOWN,
	       "after the last: unknown (the walk ends)");
	tap_eq(ptc_layout_next(PCITOPO_LAYOUT_OTHER), PCITOPO_LAYOUT_UNKNOWN,
	       "after a layout that is not switchable: unknown");
	tap_streq(ptc_layout_list(buf, sizeof(buf), ", "),
		  "balance, common, cascade", "the list for messages");
	tap_streq(ptc_layout_list(buf, 12, " or "), "balance or ",
		  "a short buffer: cut and terminated");
	tap_streq(ptc_layout_list(buf, 1, ", "), "", "one byte: empty");
}

static void test_format(void)
{
	char buf[PCITOPO_ADDR_LEN];

	ptc_addr_format(buf, sizeof(buf), 0, 0x41, 0x00);
	tap_streq(buf, "0000:41:00.0", "format 0000:41:00.0");
	ptc_addr_format(buf, sizeof(buf), 0x10000, 0xff, 0xff);
	tap_streq(buf, "10000:ff:1f.7", "format a VMD domain and the last devfn");
	ptc_addr_format(buf, sizeof(buf), 0xfffffff, 0xff, 0xff);
	tap_streq(buf, "fffffff:ff:1f.7", "the widest address fits PCITOPO_ADDR_LEN");
}

static void test_parse(void)
{
	static const char *const good[] = {
		"0000:41:00.0", "0001:c1:1f.7", "10000:00:02.1", "41:00.0",
		"0000:0A:0b.3", "0:1:2.3", "fffffff:ff:1f.7",
	};
	static const char *const junk[] = {
		"", ":", "0000:41:00", "0000:41:00.", "0000:41:20.0",
		"0000:41:00.8", "0000:41:00.0 ", " 0000:41:00.0",
		"0000:41:00.0\n", "0000:141:00.0", "0000:41:000.0",
		"0000:41:00.00", "0x00:41:00.0", "0000:41:00:0",
		"0000:0000:41:00.0", "100000000:00:00.0", "ffffffff:ff:1f.7", "0041:00.0",
		"g000:41:00.0", "0000:41:00.-1", "0000:41.00.0", "41:00",
	};
	char buf[PCITOPO_ADDR_LEN], low[PCITOPO_ADDR_LEN];
	u32 dom = 7, i, k;
	u8 bus = 7, devfn = 7;
	int bad = 0;

	tap_ok(!ptc_addr_parse("0000:c1:1f.7", &dom, &bus, &devfn) &&
	       dom == 0 && bus == 0xc1 && devfn == (0x1f << 3 | 7),
	       "parse 0000:c1:1f.7");
	tap_ok(!ptc_addr_parse("41:02.3", &dom, &bus, &devfn) &&
	       dom == 0 && bus == 0x41 && devfn == (2 << 3 | 3),
	       "parse 41:02.3 (domain 0)");
	tap_ok(!ptc_addr_parse("10000:00:02.1", &dom, &bus, &devfn) &&
	       dom == 0x10000, "parse a 5-digit domain");

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (ptc_addr_parse(good[i], &dom, &bus, &devfn)) {
			tap_diag("rejected %s", good[i]);
			bad++;
			continue;
		}
		ptc_addr_format(buf, sizeof(buf), dom, bus, devfn);
		/* Round trip: same address, canonical spelling. */
		if (ptc_addr_parse(buf, &dom, &bus, &devfn)) {
			bad++;
			continue;
		}
		ptc_addr_format(low, sizeof(low), dom, bus, devfn);
		if (strcmp(buf, low))
			bad++;
		for (k = 0; good[i][k] && strlen(good[i]) == 12; k++)
			if ((good[i][k] | 0x20) != buf[k] && good[i][k] != buf[k])
				bad++;
	}
	tap_ok(!bad, "%zu good addresses parse and round-trip",
	       sizeof(good) / sizeof(good[0]));

	bad = 0;
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		dom = 7;
		if (ptc_addr_parse(junk[i], &dom, &bus, &devfn) != -EINVAL ||
		    dom != 7) {
			tap_diag("accepted \"%s\"", junk[i]);
			bad++;
		}
	}
	tap_ok(!bad, "%zu malformed addresses rejected with -EINVAL, outputs untouched",
	       sizeof(junk) / sizeof(junk[0]));
	tap_eq(ptc_addr_parse(NULL, &dom, &bus, &devfn), -EINVAL, "NULL string: -EINVAL");

	bad = 0;
	for (i = 0; i < 256 * 256; i += 97) {
		u8 b = (u8)(i >> 8), df = (u8)i;

		ptc_addr_format(buf, sizeof(buf), i, b, df);
		if (ptc_addr_parse(buf, &dom, &bus, &devfn) || dom != i ||
		    bus != b || devfn != df)
			bad++;
	}
	tap_ok(!bad, "format then parse returns every (domain, bus, devfn) sampled");
}

int main(void)
{
	test_names();
	test_layout_by_name();
	test_switchable();
	test_format();
	test_parse();
	return tap_done();
}
