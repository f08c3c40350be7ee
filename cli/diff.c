// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl diff FILE: is the PCIe topology still what FILE (a saved
 * `topoctl -j export`, or - for standard input) says it was, and if not,
 * what changed. For after a hardware service (a GPU re-seated, a riser or a
 * cable replaced, a BIOS update) and for burn-in against a golden file per
 * server model.
 *
 * Both sides are compared as export objects: the current model goes through
 * export_tree(), the code of `-j export` itself, so that a value compares
 * and prints exactly as FILE holds it, whatever the source of the model.
 *
 * Compared is what must not change while the hardware and its layout stay
 * the same; not what moves at idle or from boot to boot:
 *   summary  the layout; the counts of GPUs, NICs, NVMe drives, switches,
 *            root ports and NUMA nodes. Not the generation (it counts
 *            changes, and is 0 from sysfs), nor the reason (words around the
 *            layout and the counts), nor the device and path counts (every
 *            device and path gone or new has a line of its own).
 *   devices  matched by bus address: gone, new; for one in both: kind,
 *            role, vendor and device ID, parent, switch, root port, NUMA
 *            node, the link's maximum speed and width (a downgrade is the
 *            classic fault), its downtrained-width flag and whether it is up,
 *            ACS capability and control. Not the current speed or bandwidth
 *            (a GPU drops its link speed at idle) nor the current width (a
 *            narrower link than both ends support is the flag).
 *   paths    matched by the (a, b) pair: gone, new, class, hops, ACS
 *            redirect.
 *
 * Three rules keep the output to what an operator needs:
 *  - a key that either side lacks is not compared: a golden file trimmed by
 *    hand to what matters, or written by an older topoctl, compares on what
 *    it holds; and ACS figures exist only where config space was readable;
 *  - a path gone or new because one of its ends is gone or new is not
 *    listed: the device's own line says it (a missing GPU would otherwise
 *    bring a dozen path lines);
 *  - the table holds every path both ways: of the two, the one later in
 *    bus order is listed only where it differs otherwise than the other
 *    does, so that one change is one line.
 *
 * Exit status as diff(1): 0 same, 1 different, 2 trouble (usage, FILE
 * unreadable or not an export, no model to compare with).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "topoctl.h"

#define DIFF_SAME	0
#define DIFF_DIFFERENT	1
#define DIFF_TROUBLE	2

/* An export of the largest server is a few MB: far past that, FILE is
 * something else, refused before json-c builds it in memory. */
#define DIFF_MAX_FILE	(64u << 20)

/* How a value prints in the text output (the JSON output keeps it as is). */
enum vfmt {
	V_STR,
	V_INT,
	V_SPEED,	/* MT/s: "32GT/s" */
	V_WIDTH,	/* lanes: "x16" */
	V_BOOL,		/* "yes", "no" */
	V_LINK,		/* there or not: "32GT/s x16" (max), "-" */
};

struct field {
	const char *name;	/* "field" in the JSON output */
	const char *key;	/* where the export holds it; '.' descends */
	const char *flag;	/* if set: whether the array at key has it */
	const char *label;	/* text output */
	enum vfmt fmt;
};

#define F(key, label, fmt)	{ key, key, NULL, label, fmt }

/* In text the labels are the words of `topoctl show`. */
static const struct field summary_fields[] = {
	F("layout", "layout", V_STR),	/* first: it explains the rest */
	F("gpus", "gpus", V_INT),
	F("nics", "nics", V_INT),
	F("nvmes", "nvmes", V_INT),
	F("switches", "switches", V_INT),
	F("root_ports", "root-ports", V_INT),
	F("numa_nodes", "numa-nodes", V_INT),
};

static const struct field device_fields[] = {
	F("kind", "kind", V_STR),
	F("role", "role", V_STR),
	/* a GPU of another model in the same slot is a change too */
	F("vendor", "vendor ID", V_STR),
	F("device", "device ID", V_STR),
	/* moved: another port, switch or root complex above it */
	F("parent", "parent", V_STR),
	F("switch", "switch", V_STR),
	F("root_port", "root port", V_STR),
	F("numa_node", "NUMA node", V_INT),
	/* a link gained or lost; where both have one, its figures below
	 * (max_bw follows from them: not a difference of its own) */
	F("link", "link", V_LINK),
	F("link.max_speed", "link max speed", V_SPEED),
	F("link.max_width", "link max width", V_WIDTH),
	F("link.downtrained_width", "link downtrained-width", V_BOOL),
	F("link.active", "link active", V_BOOL),
	F("acs_cap", "ACS capability", V_STR),
	F("acs_ctrl", "ACS control", V_STR),
};

/*
 * Not the bottleneck or its bandwidth: both follow the current link speed,
 * which an idle GPU lowers. A bottleneck from maximum figures would repeat,
 * on every path through a link, what that link's device line already says
 * (its max speed and width); so would the path's downtrained-width and
 * numa-unknown flags. The class and hops are the route itself.
 */
static const struct field path_fields[] = {
	F("class", "class", V_STR),
	F("hops", "hops", V_INT),
	{ "acs_redirect", "flags", "acs-redirect", "acs-redirect", V_BOOL },
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* One device or path of either side, by its place in bus order. */
struct item {
	uint64_t ka, kb;		/* of a (addr) and b; kb 0: device */
	char a[PCITOPO_ADDR_LEN];	/* canonical */
	char b[PCITOPO_ADDR_LEN];
	size_t index;			/* in the export's array */
	struct json_object *o;		/* borrowed from the side */
};

struct list {
	struct item *v;
	size_t n;
};

struct side {
	struct json_object *summary;
	struct list devs, paths;
};

struct dctx {
	const char *file;		/* FILE, as the text names it */
	struct side was, now;
	struct pr *p;			/* the "differences" array open */
	unsigned int count;
};

/* Who a difference is about. */
struct target {
	const char *object;		/* "summary", "device", "path" */
	const char *id;			/* address(es); NULL: summary */
	const char *name;		/* "GPU3", "GPU0-GPU5"; "": none */
	const char *who;		/* text: "GPU3 0000:26:00.0" */
};

/* --- the two sides as sorted lists -------------------------------------- */

static int cmp_key(uint64_t xa, uint64_t xb, uint64_t ya, uint64_t yb)
{
	if (xa != ya)
		return xa < ya ? -1 : 1;
	return xb < yb ? -1 : xb > yb;
}

static int cmp_item(const void *x, const void *y)
{
	const struct item *p = x, *q = y;

	return cmp_key(p->ka, p->kb, q->ka, q->kb);
}

static const struct item *find(const struct list *l, uint64_t ka, uint64_t kb)
{
	struct item k = { .ka = ka, .kb = kb };

	return l->n ? bsearch(&k, l->v, l->n, sizeof(k), cmp_item) : NULL;
}

/* The bus address at key of o, canonical in buf, and its sort key: the
 * export writes "DDDD:BB:DD.F", a hand-written file may drop the domain. */
static int item_addr(struct json_object *o, const char *key, char *buf,
		     uint64_t *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    pt_addr_canon(json_object_get_string(v), buf, PCITOPO_ADDR_LEN) ||
	    pt_addr_key(buf, k))
		return -EINVAL;
	return 0;
}

/*
 * The objects of an export's "devices" (k2 NULL: addressed by "addr") or
 * "paths" ("a", "b") array, sorted, in *l. 0; -EINVAL: entry *bad is no
 * object with bus addresses there; -EEXIST: entry *bad repeats an earlier
 * one's address (pair); -ENOMEM.
 */
static int list_build(struct json_object *arr, const char *k1, const char *k2,
		      struct list *l, size_t *bad)
{
	size_t i, n = json_object_array_length(arr);

	l->n = 0;
	l->v = n ? calloc(n, sizeof(*l->v)) : NULL;
	if (n && !l->v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct item *it = &l->v[i];

		it->o = json_object_array_get_idx(arr, i);
		it->index = i;
		if (!json_object_is_type(it->o, json_type_object) ||
		    item_addr(it->o, k1, it->a, &it->ka) ||
		    (k2 && item_addr(it->o, k2, it->b, &it->kb))) {
			*bad = i;
			return -EINVAL;
		}
	}
	l->n = n;
	if (n > 1)
		qsort(l->v, n, sizeof(*l->v), cmp_item);
	for (i = 1; i < n; i++)
		if (!cmp_item(&l->v[i - 1], &l->v[i])) {
			/* the later one in the file: what an editor looks at */
			*bad = l->v[i - 1].index > l->v[i].index ?
			       l->v[i - 1].index : l->v[i].index;
			return -EEXIST;
		}
	return 0;
}

static void side_close(struct side *s)
{
	free(s->devs.v);
	free(s->paths.v);
	memset(s, 0, sizeof(*s));
}

/* Makes printable what FILE may hold: a control byte or any byte past
 * ASCII becomes '?', so that a broken file cannot drive the terminal. */
static void sanitize(char *buf, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 ||
			 (unsigned char)s[i] > 0x7e ? '?' : s[i];
	if (len)
		buf[i] = '\0';
}

/* Why list_build() refused entry bad of the array arr (r its return). */
static void list_problem(char *what, size_t len, const char *arr,
			 const struct list *l, size_t bad, int r)
{
	bool paths = !strcmp(arr, "paths");
	size_t i;

	if (r == -EINVAL) {
		snprintf(what, len, "%s[%zu] has no bus address%s", arr, bad,
			 paths ? "es \"a\" and \"b\"" : " \"addr\"");
		return;
	}
	for (i = 0; i < l->n; i++)
		if (l->v[i].index == bad)
			break;
	if (i == l->n)
		snprintf(what, len, "%s[%zu]: a second time", arr, bad);
	else
		snprintf(what, len, "%s[%zu]: %s%s%s a second time", arr, bad,
			 l->v[i].a, paths ? "-" : "", paths ? l->v[i].b : "");
}

/*
 * s from an export object: the arrays indexed, or a message on c->err (the
 * file named) and EXIT_USAGE. The devices, paths and summary must be there:
 * without them FILE is some other JSON (`-j show` has no "devices").
 */
static int side_open(struct ctx *c, const char *name, struct json_object *o,
		     struct side *s)
{
	struct json_object *devs = NULL, *paths = NULL;
	char what[128] = "";
	size_t bad = 0;
	int r = 0;

	memset(s, 0, sizeof(*s));
	if (!json_object_is_type(o, json_type_object))
		snprintf(what, sizeof(what), "not a JSON object");
	else if (!json_object_object_get_ex(o, "devices", &devs) ||
		 !json_object_is_type(devs, json_type_array))
		snprintf(what, sizeof(what), "no \"devices\" array");
	else if (!json_object_object_get_ex(o, "paths", &paths) ||
		 !json_object_is_type(paths, json_type_array))
		snprintf(what, sizeof(what), "no \"paths\" array");
	else if (!json_object_object_get_ex(o, "summary", &s->summary) ||
		 !json_object_is_type(s->summary, json_type_object))
		snprintf(what, sizeof(what), "no \"summary\" object");
	if (!what[0]) {
		r = list_build(devs, "addr", NULL, &s->devs, &bad);
		if (r)
			list_problem(what, sizeof(what), "devices", &s->devs,
				     bad, r);
	}
	if (!what[0]) {
		r = list_build(paths, "a", "b", &s->paths, &bad);
		if (r)
			list_problem(what, sizeof(what), "paths", &s->paths,
				     bad, r);
	}
	if (!what[0])
		return 0;
	if (r == -ENOMEM)
		fprintf(c->err, "topoctl: reading %s: %s\n", name, strerror(ENOMEM));
	else
		fprintf(c->err, "topoctl: %s: not a pcitopo export "
			"(topoctl -j export): %s\n", name, what);
	side_close(s);
	return EXIT_USAGE;
}

/* --- values ------------------------------------------------------------- */

static bool has_word(struct json_object *arr, const char *w)
{
	size_t i, n = json_object_array_length(arr);

	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);

		if (json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(v), w))
			return true;
	}
	return false;
}

/*
 * The value of f in o, a new reference in *v (NULL for null). False where o
 * lacks the key, or an object on the way is null or missing: a device
 * without a link has no link.max_width to compare.
 */
static bool get_value(struct json_object *o, const struct field *f,
		      struct json_object **v)
{
	const char *k = f->key, *dot;
	char seg[32];

	*v = NULL;
	for (;;) {
		dot = strchr(k, '.');
		snprintf(seg, sizeof(seg), "%.*s",
			 dot ? (int)(dot - k) : (int)strlen(k), k);
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, seg, &o))
			return false;
		if (!dot)
			break;
		k = dot + 1;
	}
	if (f->flag && json_object_is_type(o, json_type_array))
		*v = json_object_new_boolean(has_word(o, f->flag));
	else
		*v = json_object_get(o);
	return true;
}

static bool same(const struct field *f, struct json_object *a,
		 struct json_object *b)
{
	/* a link is there or not; its figures are fields of their own */
	if (f->fmt == V_LINK)
		return json_object_is_type(a, json_type_object) ==
		       json_object_is_type(b, json_type_object);
	return json_object_equal(a, b);
}

/* Whether v is an integer in [0, UINT_MAX]. */
static bool as_uint(struct json_object *v, unsigned int *u)
{
	int64_t x;

	if (!json_object_is_type(v, json_type_int))
		return false;
	x = json_object_get_int64(v);
	if (x < 0 || x > UINT_MAX)
		return false;
	*u = (unsigned int)x;
	return true;
}

static bool get_uint(struct json_object *o, const char *key, unsigned int *u)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && as_uint(v, u);
}

/* v as the text output shows it: in f's unit where it has the expected
 * type, else as JSON (a hand-edited file may hold anything). */
static void fmt_value(char *buf, size_t len, const struct field *f,
		      struct json_object *v)
{
	unsigned int u, width;

	if (!v) {
		snprintf(buf, len, "-");
		return;
	}
	switch (f->fmt) {
	case V_STR:
		if (!json_object_is_type(v, json_type_string))
			break;
		sanitize(buf, len, json_object_get_string(v));
		return;
	case V_INT:
		if (!json_object_is_type(v, json_type_int))
			break;
		snprintf(buf, len, "%" PRId64, json_object_get_int64(v));
		return;
	case V_SPEED:
		if (!as_uint(v, &u))
			break;
		fmt_speed(buf, len, u);
		return;
	case V_WIDTH:
		if (!as_uint(v, &u))
			break;
		snprintf(buf, len, "x%u", u);
		return;
	case V_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			break;
		snprintf(buf, len, "%s",
			 json_object_get_boolean(v) ? "yes" : "no");
		return;
	case V_LINK:
		if (!json_object_is_type(v, json_type_object))
			break;
		if (get_uint(v, "max_speed", &u) &&
		    get_uint(v, "max_width", &width))
			fmt_link(buf, len, u, width);
		else
			snprintf(buf, len, "yes");
		return;
	}
	sanitize(buf, len, json_object_to_json_string_ext(v,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* --- the differences ---------------------------------------------------- */

/* The head of one difference: JSON "object", "id", "name", "field"; the
 * text "SIGN WHO: " (WHO: "GPU3 0000:26:00.0", "path GPU0-GPU5"; none for
 * the summary), which words the object, id and name. */
static void report_head(struct dctx *d, char sign, const struct target *t,
			const char *field)
{
	d->count++;
	pr_open_object(d->p, PRINT_ANY, NULL);
	pr_text(d->p, "%c ", sign);
	pr_string(d->p, PRINT_JSON, "object", NULL, t->object);
	pr_string(d->p, PRINT_JSON, "id", NULL, t->id);
	pr_string(d->p, PRINT_JSON, "name", NULL, t->name);
	pr_string_or(d->p, PRINT_FP, NULL, "%s: ", t->who, NULL);
	pr_string(d->p, PRINT_JSON, "field", NULL, field);
}

/* In one side only: "- GPU7 0000:87:00.0: gone", "+ ...: new"; in JSON
 * the field "present", false or true on either side. */
static void report_presence(struct dctx *d, const struct target *t, bool now)
{
	report_head(d, now ? '+' : '-', t, "present");
	pr_bool(d->p, PRINT_JSON, "was", NULL, !now);
	pr_json_as(d->p, PRINT_ANY, "now", json_object_new_boolean(now),
		   "%s\n", now ? "new" : "gone");
	pr_close_object(d->p);
}

/* "~ GPU5 0000:1d:00.0: link max width x16 -> x8", "~ layout: a -> b";
 * in JSON the values as the exports hold them. */
static void report_change(struct dctx *d, const struct target *t,
			  const struct field *f, struct json_object *was,
			  struct json_object *now)
{
	char a[128], b[128];

	fmt_value(a, sizeof(a), f, was);
	fmt_value(b, sizeof(b), f, now);
	report_head(d, '~', t, f->name);
	pr_string(d->p, PRINT_FP, NULL, t->who[0] ? "%s " : "%s: ", f->label);
	pr_json_as(d->p, PRINT_ANY, "was", json_object_get(was), "%s -> ", a);
	pr_json_as(d->p, PRINT_ANY, "now", json_object_get(now), "%s", b);
	/* first of all lines: it tells what the many others are */
	if (!t->id && !strcmp(f->name, "layout"))
		pr_text(d->p, " (%s was taken in another layout)", d->file);
	pr_nl(d->p);
	pr_close_object(d->p);
}

static void diff_fields(struct dctx *d, const struct target *t,
			const struct field *fs, size_t n,
			struct json_object *was, struct json_object *now)
{
	struct json_object *a, *b;
	bool ha, hb;
	size_t i;

	for (i = 0; i < n; i++) {
		ha = get_value(was, &fs[i], &a);
		hb = get_value(now, &fs[i], &b);
		if (ha && hb && !same(&fs[i], a, b))
			report_change(d, t, &fs[i], a, b);
		json_object_put(a);
		json_object_put(b);
	}
}

static bool fields_same(const struct field *fs, size_t n,
			struct json_object *x, struct json_object *y)
{
	struct json_object *a, *b;
	bool hx, hy, r = true;
	size_t i;

	for (i = 0; i < n && r; i++) {
		hx = get_value(x, &fs[i], &a);
		hy = get_value(y, &fs[i], &b);
		r = hx == hy && (!hx || same(&fs[i], a, b));
		json_object_put(a);
		json_object_put(b);
	}
	return r;
}

static void item_name(const struct item *it, char *buf, size_t len)
{
	struct json_object *v;

	if (it && json_object_object_get_ex(it->o, "name", &v) &&
	    json_object_is_type(v, json_type_string))
		sanitize(buf, len, json_object_get_string(v));
}

/* The name of the device at key as every other command gives it now, else
 * the one it had in FILE (gone, or a GPU that is now a port); "" for a
 * port. */
static void name_of(const struct dctx *d, uint64_t key, char *buf, size_t len)
{
	buf[0] = '\0';
	item_name(find(&d->now.devs, key, 0), buf, len);
	if (!buf[0])
		item_name(find(&d->was.devs, key, 0), buf, len);
}

static void diff_device(struct dctx *d, const struct item *w,
			const struct item *n)
{
	const struct item *it = w ? w : n;
	char name[32], who[sizeof(name) + PCITOPO_ADDR_LEN];
	struct target t = { "device", it->a, name, who };

	name_of(d, it->ka, name, sizeof(name));
	snprintf(who, sizeof(who), "%s%s%s", name, name[0] ? " " : "", it->a);
	if (!w || !n)
		report_presence(d, &t, n != NULL);
	else
		diff_fields(d, &t, device_fields, N(device_fields), w->o, n->o);
}

static bool in_both(const struct dctx *d, uint64_t key)
{
	return find(&d->was.devs, key, 0) && find(&d->now.devs, key, 0);
}

/* Whether path (a, b), later in bus order than (b, a), says nothing that
 * (b, a) has not: on each side both are there or neither, and alike. */
static bool mirrored(const struct dctx *d, const struct item *p)
{
	const struct side *s[2] = { &d->was, &d->now };
	const struct item *fwd, *rev;
	int i;

	if (p->ka <= p->kb)
		return false;
	for (i = 0; i < 2; i++) {
		fwd = find(&s[i]->paths, p->kb, p->ka);
		rev = find(&s[i]->paths, p->ka, p->kb);
		if (!fwd != !rev)
			return false;
		if (fwd && !fields_same(path_fields, N(path_fields), fwd->o,
					rev->o))
			return false;
	}
	return true;
}

static void diff_path(struct dctx *d, const struct item *w,
		      const struct item *n)
{
	const struct item *it = w ? w : n;
	char na[32], nb[32], id[2 * PCITOPO_ADDR_LEN];
	char name[2 * sizeof(na)], who[sizeof(name) + 8];
	struct target t = { "path", id, name, who };

	if (mirrored(d, it))
		return;
	/* gone or new with one of its ends: that end's line says it */
	if ((!w || !n) && (!in_both(d, it->ka) || !in_both(d, it->kb)))
		return;
	name_of(d, it->ka, na, sizeof(na));
	name_of(d, it->kb, nb, sizeof(nb));
	snprintf(id, sizeof(id), "%s-%s", it->a, it->b);
	snprintf(name, sizeof(name), "%s-%s", na[0] ? na : it->a,
		 nb[0] ? nb : it->b);
	snprintf(who, sizeof(who), "path %s", name);
	if (!w || !n)
		report_presence(d, &t, n != NULL);
	else
		diff_fields(d, &t, path_fields, N(path_fields), w->o, n->o);
}

/* Both sorted lists side by side, in bus order: fn gets each item with its
 * match on the other side, or NULL there. */
static void walk(struct dctx *d, const struct list *was,
		 const struct list *now,
		 void (*fn)(struct dctx *d, const struct item *w,
			    const struct item *n))
{
	size_t i = 0, j = 0;
	int r;

	while (i < was->n || j < now->n) {
		if (i == was->n)
			r = 1;
		else if (j == now->n)
			r = -1;
		else
			r = cmp_item(&was->v[i], &now->v[j]);
		fn(d, r <= 0 ? &was->v[i] : NULL, r >= 0 ? &now->v[j] : NULL);
		i += r <= 0;
		j += r >= 0;
	}
}

int print_diff(struct ctx *c, const char *name, struct json_object *was,
	       const struct pt_topology *t)
{
	struct target summary = { "summary", NULL, NULL, "" };
	struct json_object *now = export_tree(c, t);
	struct dctx d = { .file = name };
	struct pr o;
	int r;

	if (!now)
		return DIFF_TROUBLE;
	r = side_open(c, name, was, &d.was);
	if (!r) {
		r = side_open(c, "the current model", now, &d.now);
		if (r)
			side_close(&d.was);
	}
	if (r) {
		json_object_put(now);
		return DIFF_TROUBLE;
	}
	d.p = &o;
	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	/* "same" leads the object (json-c keeps a key where it was first
	 * added); its value comes once the differences are counted */
	pr_null(&o, PRINT_JSON, "same", NULL, NULL);
	pr_open_array(&o, PRINT_ANY, "differences", NULL, NULL);
	diff_fields(&d, &summary, summary_fields, N(summary_fields),
		    d.was.summary, d.now.summary);
	walk(&d, &d.was.devs, &d.now.devs, diff_device);
	walk(&d, &d.was.paths, &d.now.paths, diff_path);
	pr_close_array(&o, NULL, NULL);
	pr_bool(&o, PRINT_JSON, "same", NULL, !d.count);
	if (d.count)
		pr_uint(&o, PRINT_FP, NULL, d.count == 1 ? "%u difference\n" :
			"%u differences\n", d.count);
	else
		pr_text(&o, "no differences\n");
	pr_close_object(&o);
	r = pr_end(&o);
	side_close(&d.was);
	side_close(&d.now);
	json_object_put(now);
	if (r)
		return DIFF_TROUBLE;
	return d.count ? DIFF_DIFFERENT : DIFF_SAME;
}

/* --- FILE --------------------------------------------------------------- */

int diff_parse(struct ctx *c, const char *name, const char *text, size_t len,
	       struct json_object **out)
{
	enum json_tokener_error err = json_tokener_success;
	struct json_tokener *tok;
	struct json_object *o = NULL;
	unsigned int line = 1;
	size_t end = 0, i;
	struct side s;
	int r;

	*out = NULL;
	if (len > DIFF_MAX_FILE) {
		fprintf(c->err, "topoctl: %s: larger than %u MiB: not a pcitopo "
			"export (topoctl -j export)\n", name, DIFF_MAX_FILE >> 20);
		return EXIT_USAGE;
	}
	if (strspn(text, " \t\r\n") == len) {
		fprintf(c->err, "topoctl: %s: empty: not a pcitopo export "
			"(topoctl -j export)\n", name);
		return EXIT_USAGE;
	}
	tok = json_tokener_new();
	if (!tok) {
		fprintf(c->err, "topoctl: reading %s: %s\n", name, strerror(ENOMEM));
		return EXIT_USAGE;
	}
	/* with the NUL after the text: it ends a number at the very end, and
	 * a document cut short is an error rather than "continue" */
	o = json_tokener_parse_ex(tok, text, (int)len + 1);
	err = json_tokener_get_error(tok);
	/* past the text when json-c took the NUL too (a "//" comment) */
	end = json_tokener_get_parse_end(tok);
	if (end > len)
		end = len;
	json_tokener_free(tok);
	if (err == json_tokener_success)
		end += strspn(text + end, " \t\r\n");
	if (err != json_tokener_success || end < len) {
		for (i = 0; i < end && i < len; i++)
			line += text[i] == '\n';
		if (err == json_tokener_continue)
			err = json_tokener_error_parse_eof;
		fprintf(c->err, "topoctl: %s:%u: not JSON: %s\n", name, line,
			err != json_tokener_success ? json_tokener_error_desc(err) :
			"more text after the document");
		json_object_put(o);
		return EXIT_USAGE;
	}
	r = side_open(c, name, o, &s);
	if (r) {
		json_object_put(o);
		return r;
	}
	side_close(&s);
	*out = o;
	return 0;
}

/* FILE's bytes and a NUL after them in *text (to free), or a message. */
static int read_file(struct ctx *c, const char *path, const char *name,
		     char **text, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	size_t n = 0, cap = 0, got;
	char *buf = NULL, *nb;
	int err = 0;

	if (!f) {
		fprintf(c->err, "topoctl: reading %s: %s\n", name, strerror(errno));
		return EXIT_USAGE;
	}
	for (;;) {
		if (cap - n < 2) {
			/* one byte past the limit: diff_parse() refuses it */
			if (cap >= DIFF_MAX_FILE + 2)
				break;
			cap = cap ? 2 * cap : 1 << 16;
			if (cap > DIFF_MAX_FILE + 2)
				cap = DIFF_MAX_FILE + 2;
			nb = realloc(buf, cap);
			if (!nb) {
				err = ENOMEM;
				break;
			}
			buf = nb;
		}
		errno = 0;
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (!got) {
			if (ferror(f))
				err = errno ? errno : EIO;
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	if (err) {
		fprintf(c->err, "topoctl: reading %s: %s\n", name, strerror(err));
		free(buf);
		return EXIT_USAGE;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int do_diff(struct ctx *c, int argc, char **argv)
{
	struct pt_topology t = { 0 };
	struct json_object *was;
	const char *name;
	char *text;
	size_t len;
	int r;

	if (argc == 1 && !strcmp(argv[0], "help")) {
		print_object_help(c, "diff", NULL);
		return 0;
	}
	if (argc != 1 || !*argv[0])
		return usage_error(c, "'diff' takes one FILE (a saved "
				   "'topoctl -j export', or - for standard input)\n"
				   "Try 'topoctl diff help'.");
	name = strcmp(argv[0], "-") ? argv[0] : "standard input";
	/* FILE first: a wrong argument is found without touching the
	 * hardware, and stdout stays empty on every error */
	r = read_file(c, argv[0], name, &text, &len);
	if (r)
		return DIFF_TROUBLE;
	r = diff_parse(c, name, text, len, &was);
	free(text);
	if (r)
		return DIFF_TROUBLE;
	/* no model to compare with is trouble too, never "different" */
	if (load_topology(c, &t)) {
		pt_topology_free(&t);
		json_object_put(was);
		return DIFF_TROUBLE;
	}
	r = print_diff(c, name, was, &t);
	pt_topology_free(&t);
	json_object_put(was);
	if (fflush(c->out) || ferror(c->out)) {
		fprintf(c->err, "topoctl: writing output: %s\n", strerror(errno));
		return DIFF_TROUBLE;
	}
	return r;
}
