// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The one syntax of extra vendor:device IDs (core/ptc_ids.c): one ID
 * (ptc_parse_id, ptc_parse_kind) and lists (ptc_parse_ids), valid and
 * invalid inputs at each boundary, and the shared table extra-id-cases.txt
 * that topoctl and the module are held against too.
 */
#include <stdlib.h>

#include "ptc.h"
#include "tap.h"

/* Run from tests/unit (make run), where the table is. */
#define CASES_FILE	"extra-id-cases.txt"

static int parse(const char *s, struct ptc_extra_id *id)
{
	return ptc_parse_id(s, strlen(s), 0, id);
}

/* "vvvv:dddd kind", as the module's sysfs extra_ids lists an ID. */
static void canon(const struct ptc_extra_id *id, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x %s", id->vendor, id->device,
		 ptc_kind_name(id->kind));
}

static void test_table(void)
{
	char line[256], got[64], *s, *want, *nl;
	unsigned int n = 0, nok = 0, bad = 0;
	struct ptc_extra_id id;
	FILE *f = fopen(CASES_FILE, "r");
	int r;

	if (!tap_ok(f != NULL, "%s opens", CASES_FILE))
		return;
	while (fgets(line, sizeof(line), f)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		s = strchr(line, '\t');
		if (!s) {
			tap_diag("malformed table line '%s'", line);
			bad++;
			continue;
		}
		*s++ = '\0';
		want = strchr(s, '\t');
		if (want)
			*want++ = '\0';
		n++;
		r = parse(s, &id);
		if (!strcmp(line, "ok") && want) {
			nok++;
			if (!r)
				canon(&id, got, sizeof(got));
			if (r || strcmp(got, want)) {
				tap_diag("'%s': want %s, got %s", s, want,
					 r ? "-EINVAL" : got);
				bad++;
			}
		} else if (!strcmp(line, "bad") && !want) {
			if (r != -EINVAL) {
				tap_diag("'%s': accepted", s);
				bad++;
			}
		} else {
			tap_diag("malformed table line for '%s'", s);
			bad++;
		}
	}
	fclose(f);
	tap_ok(!bad && n > 40 && nok > 10,
	       "%s: %u strings (%u valid) parse as the table says", CASES_FILE,
	       n, nok);
}

static void test_one(void)
{
	struct ptc_extra_id id = { 1, 2, 3 };
	char buf[16];
	unsigned int v, bad = 0;

	tap_ok(!parse("10de:2330", &id) && id.vendor == 0x10de &&
	       id.device == 0x2330 && id.kind == PCITOPO_KIND_GPU,
	       "10de:2330: vendor, device, kind gpu by default");
	tap_ok(!parse("1AF4:10Fb:Nic", &id) && id.vendor == 0x1af4 &&
	       id.device == 0x10fb && id.kind == PCITOPO_KIND_NIC,
	       "upper and mixed case digits and kind");
	tap_ok(!parse("10de\t2330\tnvme", &id) && id.kind == PCITOPO_KIND_NVME,
	       "tabs separate fields as spaces do");
	tap_ok(!parse("10de:2330\n", &id) && !parse("10de 2330 nic\r\n", &id) &&
	       !parse("\t 10de:2330 \n", &id),
	       "white space around the ID (echo's newline, CRLF) is ignored");

	id = (struct ptc_extra_id){ 1, 2, 3 };
	tap_ok(parse("10de:233", &id) == -EINVAL && id.vendor == 1 &&
	       id.device == 2 && id.kind == 3,
	       "-EINVAL leaves the output untouched");
	tap_eq(parse("", &id), -EINVAL, "the empty string is no ID");
	tap_eq(parse(" \t\n", &id), -EINVAL, "white space alone is no ID");
	tap_eq(parse("10de:2330\n10de:2331", &id), -EINVAL,
	       "a newline inside is not a separator of fields");
	tap_eq(parse("10de\n2330", &id), -EINVAL, "nor between vendor and device");
	tap_eq(parse("10de:2330\v", &id), -EINVAL, "\\v is not white space here");

	/* len bounds the input: no read past it, no NUL needed */
	tap_ok(!ptc_parse_id("10de:2330:nic", 9, 0, &id) &&
	       id.kind == PCITOPO_KIND_GPU, "len 9 of 10de:2330:nic: the ID alone");
	tap_eq(ptc_parse_id("10de:2330", 8, 0, &id), -EINVAL,
	       "len 8: three device digits");
	tap_eq(ptc_parse_id("10de:2330:gpu", 12, 0, &id), -EINVAL,
	       "len 12: kind 'gp'");
	tap_eq(ptc_parse_id("10de:2330\0gpu", 13, 0, &id), -EINVAL,
	       "a NUL inside is refused");
	memcpy(buf, "10de:2330:nvme", 14);
	tap_ok(!ptc_parse_id(buf, 14, 0, &id) && id.kind == PCITOPO_KIND_NVME,
	       "an unterminated buffer of exactly the ID");

	tap_ok(!ptc_parse_id("10de:2330", 9, PTC_ID_NO_KIND, &id) &&
	       !ptc_parse_id("10de 2330\n", 10, PTC_ID_NO_KIND, &id),
	       "PTC_ID_NO_KIND: the ID alone is taken");
	tap_eq(ptc_parse_id("10de:2330:gpu", 13, PTC_ID_NO_KIND, &id), -EINVAL,
	       "PTC_ID_NO_KIND: a kind is refused");
	tap_eq(ptc_parse_id("10de 2330 gpu", 13, PTC_ID_NO_KIND, &id), -EINVAL,
	       "PTC_ID_NO_KIND: a blank-separated kind too");

	/* every vendor value, both cases, round-trips */
	for (v = 0; v <= 0xffff; v++) {
		snprintf(buf, sizeof(buf), v & 1 ? "%04x:%04X" : "%04X:%04x",
			 v, 0xffff - v);
		if (parse(buf, &id) || id.vendor != v || id.device != 0xffff - v)
			bad++;
	}
	tap_ok(!bad, "all 65536 four-digit values parse back to themselves");
}

static void test_kind(void)
{
	static const char *const junk[] = {
		"", "g", "gp", "gpux", "nvm", "nvmee", "port", "display",
		"none", "?", "gpu ", " gpu", "gpu\n", "nic:", "n1c",
	};
	unsigned int i, bad = 0;
	u8 k = 0;

	tap_ok(!ptc_parse_kind("gpu", 3, &k) && k == PCITOPO_KIND_GPU &&
	       !ptc_parse_kind("NIC", 3, &k) && k == PCITOPO_KIND_NIC &&
	       !ptc_parse_kind("nVmE", 4, &k) && k == PCITOPO_KIND_NVME,
	       "kinds gpu, nic, nvme in any case");
	for (i = 0; i < ARRAY_SIZE(junk); i++) {
		k = 99;
		if (ptc_parse_kind(junk[i], strlen(junk[i]), &k) != -EINVAL ||
		    k != 99) {
			tap_diag("kind '%s' accepted", junk[i]);
			bad++;
		}
	}
	tap_ok(!bad, "%zu other kind names refused (the class rules' kinds too)",
	       ARRAY_SIZE(junk));
	tap_eq(ptc_parse_kind("gpu", 2, &k), -EINVAL, "len 2 of gpu is 'gp'");
}

struct collected {
	struct ptc_extra_id ids[8];
	unsigned int n;
	int fail_at;		/* return -ENOSPC for this ID (1-based), 0 never */
};

static int collect(const struct ptc_extra_id *id, void *arg)
{
	struct collected *c = arg;

	if (c->n >= ARRAY_SIZE(c->ids) || (int)c->n + 1 == c->fail_at)
		return -ENOSPC;
	c->ids[c->n++] = *id;
	return 0;
}

/* Parse list s; the IDs found as "vvvv:dddd kind,..." or "E<errno>@line:item". */
static const char *list(const char *s, int fail_at)
{
	static char out[256];
	struct collected c = { .fail_at = fail_at };
	struct ptc_ids_pos pos = { 0, 0, 0 };
	char one[32];
	unsigned int i;
	int r;

	r = ptc_parse_ids(s, strlen(s), collect, &c, &pos);
	out[0] = '\0';
	if (r) {
		snprintf(out, sizeof(out), "E%d@%u:%.*s", -r, pos.line,
			 (int)pos.len, s + pos.off);
		return out;
	}
	for (i = 0; i < c.n; i++) {
		canon(&c.ids[i], one, sizeof(one));
		strcat(out, i ? "," : "");
		strcat(out, one);
	}
	return out;
}

static void test_list(void)
{
	char einval[32];

	snprintf(einval, sizeof(einval), "E%d", EINVAL);
	tap_streq(list("1234:1111:gpu", 0), "1234:1111 gpu",
		  "one item: the stand-ins' extra_ids=1234:1111:gpu");
	tap_streq(list("10de:2330,10de:2331:nic", 0),
		  "10de:2330 gpu,10de:2331 nic", "comma separated");
	tap_streq(list("10de:2330\n10de:2331:nic\n", 0),
		  "10de:2330 gpu,10de:2331 nic", "newline separated");
	tap_streq(list("10de:2330, 10de:2331 ,\t10de:2332", 0),
		  "10de:2330 gpu,10de:2331 gpu,10de:2332 gpu",
		  "blanks around items ignored");
	tap_streq(list("10de 2330 nic,10de 2331", 0),
		  "10de:2330 nic,10de:2331 gpu",
		  "blank-separated fields inside an item");
	tap_streq(list("", 0), "", "the empty list");
	tap_streq(list(",,\n\n , \n", 0), "", "empty items and blank lines skipped");
	tap_streq(list("10de:2330,", 0), "10de:2330 gpu", "a trailing comma");
	tap_streq(list("# extra IDs\n1af4:1009:nic  # virtio-9p\n", 0),
		  "1af4:1009 nic", "comments: a whole line, after an item");
	tap_streq(list("10de:2330#x\n10de:2331", 0),
		  "10de:2330 gpu,10de:2331 gpu", "'#' right after an item");
	tap_streq(list("# a,10de:2330\n10de:2331", 0), "10de:2331 gpu",
		  "a comma in a comment separates nothing");
	tap_streq(list("10de:2330 # no newline at the end", 0), "10de:2330 gpu",
		  "a comment that ends the text");
	tap_streq(list("10de:2330\r\n10de:2331:nvme\r\n", 0),
		  "10de:2330 gpu,10de:2331 nvme", "CRLF lines");

	/* errors: which item, on which line */
	tap_ok(!strncmp(list("10de:2330\n\n# c\n  bogus  \n10de:2331", 0),
			einval, strlen(einval)) &&
	       !strcmp(strchr(list("10de:2330\n\n# c\n  bogus  \n10de:2331", 0),
			      '@'), "@4:bogus"),
	       "a malformed item: -EINVAL, line 4, the item without blanks");
	tap_streq(strchr(list("10de:2330 10de:2331", 0), '@'),
		  "@1:10de:2330 10de:2331",
		  "white space does not separate two IDs: one malformed item");
	tap_streq(strchr(list("10de:2330,10de:233", 0), '@'), "@1:10de:233",
		  "the second item of a line");
	snprintf(einval, sizeof(einval), "E%d@1:1111:0002", ENOSPC);
	tap_streq(list("1111:0001,1111:0002,1111:0003", 2), einval,
		  "the callback's error comes back with its item (-ENOSPC)");
	tap_eq(ptc_parse_ids("x", 1, collect, &(struct collected){ 0 }, NULL),
	       -EINVAL, "pos may be NULL");
}

int main(void)
{
	test_table();
	test_one();
	test_kind();
	test_list();
	return tap_done();
}
