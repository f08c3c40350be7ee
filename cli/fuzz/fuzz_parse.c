// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for topoctl's parsers: device names and bus addresses
 * (resolve_dev, canon_addr, ptc_addr_parse, pt_addr_key), IDs (parse_id,
 * parse_kind, --extra-id, pt_id_parse, the extra-ids file syntax), and the
 * argv grammar (parse_options, match_cmd, `help OBJECT`), which run without
 * I/O. The input is split at NUL and newline bytes into words: each word
 * goes to every string parser, the words together form an argv, and the
 * whole input is read as an extra-ids file and as the FILE of `diff`
 * (diff_parse, then print_diff against a synthetic layout).
 *
 * Built by `make -C cli fuzz` (clang -fsanitize=fuzzer,address,undefined);
 * without libFuzzer, standalone.c replays files through the same function.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptc.h"
#include "synthtopo.h"
#include "topoctl.h"

#define MAX_WORDS	32

static struct pt_topology topo[SY_COUNT];
static FILE *sink;

static void init(void)
{
	int l;

	if (sink)
		return;
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	for (l = 0; l < SY_COUNT; l++)
		if (synth_build(&topo[l], l))
			abort();
}

static void one_word(const char *w, size_t len)
{
	const struct pt_device *d = NULL;
	char buf[PCITOPO_ADDR_LEN];
	unsigned int v, dv;
	struct pt_id id;
	uint64_t key;
	u32 dom;
	u8 bus, devfn;
	int l, r;

	for (l = 0; l < SY_COUNT; l++) {
		r = pt_dev_resolve(&topo[l], w, &d);
		if (!r && (!d || !pt_topology_find(&topo[l], d->addr)))
			abort();	/* a found device is in the table */
	}
	if (!pt_addr_canon(w, buf, sizeof(buf))) {
		/* canonical addresses parse back to themselves */
		if (pt_addr_canon(buf, buf, sizeof(buf)) ||
		    strlen(buf) >= sizeof(buf))
			abort();
		if (pt_addr_key(buf, &key))
			abort();
	}
	if (!ptc_addr_parse(w, &dom, &bus, &devfn))
		ptc_addr_format(buf, sizeof(buf), dom, bus, devfn);
	(void)pt_addr_key(w, &key);
	if (!parse_id(w, &v, &dv) && (v > 0xffff || dv > 0xffff))
		abort();
	(void)parse_kind(w);
	if (!pt_id_parse(w, len, &id) &&
	    (id.kind < PCITOPO_KIND_GPU || id.kind > PCITOPO_KIND_NVME))
		abort();
}

static void argv_run(char **argv, int argc)
{
	struct ctx c = { .out = sink, .err = sink, .sysfs = "/sys" };
	int first = 0, r, i;

	r = parse_options(&c, argc, argv, &first);
	if (r < 0 && first < argc) {
		i = match_cmd(topoctl_objects, argv[first]);
		/* only the objects that do no I/O */
		if (i >= 0 && !strcmp(topoctl_objects[i].name, "help"))
			(void)topoctl_objects[i].fn(&c, argc - first - 1,
						     argv + first + 1);
	}
	if (c.n_ids > PCITOPO_MAX_EXTRA_IDS)
		abort();
	ctx_free(&c);
}

/* text: size bytes and a NUL, as do_diff() reads FILE; against one layout
 * (by the size), text or JSON, so that an export costs one comparison */
static void diff_run(const char *text, size_t size)
{
	struct ctx c = { .out = sink, .err = sink, .sysfs = "/sys",
			 .json = size & 1 };
	struct json_object *was;
	int r;

	if (diff_parse(&c, "fuzz", text, size, &was))
		return;
	r = print_diff(&c, "fuzz", was, &topo[size / 2 % SY_COUNT]);
	if (r != 0 && r != 1)
		abort();	/* an export diff_parse took compares */
	json_object_put(was);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *argv[MAX_WORDS + 2];
	struct pt_id *ids = NULL;
	size_t i, start = 0, nids = 0;
	unsigned int line = 0;
	int argc = 1;

	init();
	if (size > 4096)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* the whole input as an extra-ids file (stops at the first NUL) */
	(void)pt_ids_parse_text(text, &ids, &nids, &line);
	if (nids > PCITOPO_MAX_EXTRA_IDS)
		abort();
	free(ids);
	diff_run(text, size);

	argv[0] = (char *)"topoctl";
	for (i = 0; i <= size; i++) {
		if (i < size && text[i] != '\0' && text[i] != '\n')
			continue;
		text[i] = '\0';
		one_word(text + start, i - start);
		if (argc <= MAX_WORDS)
			argv[argc++] = text + start;
		start = i + 1;
	}
	argv[argc] = NULL;
	argv_run(argv, argc);
	free(text);
	return 0;
}
