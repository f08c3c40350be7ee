// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: the print layer of print.h. One struct pr per view: in the text
 * each call writes at once to c->out; under -j it adds to a json-c tree that
 * pr_end() prints whole, so a view that fails half-way leaves no partial
 * document (errjson.c then prints the error object).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "topoctl.h"

void pr_begin(struct pr *p, struct ctx *c)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->json = c->json;
}

void pr_begin_tree(struct pr *p, struct ctx *c)
{
	pr_begin(p, c);
	p->json = true;
}

struct json_object *pr_end_tree(struct pr *p)
{
	struct json_object *root = p->root;

	p->root = NULL;
	if (p->misuse || p->depth) {
		while (p->depth)
			json_object_put(p->lv[--p->depth].o);
		json_object_put(root);
		fputs("topoctl: internal error: unbalanced output\n", p->c->err);
		return NULL;
	}
	return root;
}

int pr_end(struct pr *p)
{
	bool misused = p->misuse || p->depth;
	struct json_object *root = pr_end_tree(p);

	if (misused)
		return -EINVAL;
	if (p->json && root)
		emit_json(p->c, root);
	else
		json_object_put(root);
	return 0;
}

/* Whether a call for w prints in this context, given the levels open. */
static bool here(const struct pr *p, enum pr_where w)
{
	return !p->off && (w & (p->json ? PRINT_JSON : PRINT_FP));
}

static struct pr_level *top(struct pr *p)
{
	return p->depth ? &p->lv[p->depth - 1] : NULL;
}

/* JSON: v (consumed) under key in the container open, or as the root. */
static void add(struct pr *p, const char *key, struct json_object *v)
{
	struct pr_level *l = top(p);

	if (!l) {
		if (p->root)
			p->misuse = true;
		else
			p->root = json_object_get(v);
	} else if (l->array) {
		json_object_array_add(l->o, json_object_get(v));
	} else if (key) {
		json_object_object_add(l->o, key, json_object_get(v));
	} else {
		p->misuse = true;	/* a member without a name */
	}
	json_object_put(v);
}

/* Text: a list's open or sep before an element of an array open. */
static void element(struct pr *p)
{
	struct pr_level *l = top(p);

	if (l && l->array)
		fputs(l->n++ ? l->sep : l->open, p->c->out);
}

/* Text of one value through fmt (a printf format taking one argument). */
static void text(struct pr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void text(struct pr *p, const char *fmt, ...)
{
	va_list ap;

	element(p);
	va_start(ap, fmt);
	vfprintf(p->c->out, fmt, ap);
	va_end(ap);
}

static void open_level(struct pr *p, enum pr_where w, const char *key,
		       bool array, const char *open, const char *sep)
{
	struct pr_level *l;
	bool on = here(p, w);

	if (p->depth == PR_DEPTH) {
		p->misuse = true;
		return;
	}
	if (on && !p->json)
		element(p);
	l = &p->lv[p->depth];
	*l = (struct pr_level){ .array = array, .off = !on,
				.open = open ? open : "",
				.sep = sep ? sep : "" };
	if (on && p->json) {
		l->o = array ? json_object_new_array() :
			       json_object_new_object();
		add(p, key, json_object_get(l->o));
	}
	p->depth++;
	if (!on)
		p->off++;
}

static void close_level(struct pr *p, bool array, const char *close,
			const char *none)
{
	struct pr_level *l = top(p);

	if (!l || l->array != array) {
		p->misuse = true;
		return;
	}
	if (l->off)
		p->off--;
	else if (!p->json && array && (l->n ? close : none))
		fputs(l->n ? close : none, p->c->out);
	json_object_put(l->o);
	p->depth--;
}

void pr_open_object(struct pr *p, enum pr_where w, const char *key)
{
	open_level(p, w, key, false, NULL, NULL);
}

void pr_close_object(struct pr *p)
{
	close_level(p, false, NULL, NULL);
}

void pr_open_array(struct pr *p, enum pr_where w, const char *key,
		   const char *open, const char *sep)
{
	open_level(p, w, key, true, open, sep);
}

void pr_close_array(struct pr *p, const char *close, const char *none)
{
	close_level(p, true, close, none);
}

static struct json_object *jstring(const char *v)
{
	return v && *v ? json_object_new_string(v) : NULL;
}

void pr_string_or(struct pr *p, enum pr_where w, const char *key,
		  const char *fmt, const char *v, const char *none)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, jstring(v));
	else if (fmt && (v && *v ? v : none))
		text(p, fmt, v && *v ? v : none);
}

void pr_string(struct pr *p, enum pr_where w, const char *key,
	       const char *fmt, const char *v)
{
	pr_string_or(p, w, key, fmt, v, "");
}

void pr_uint(struct pr *p, enum pr_where w, const char *key,
	     const char *fmt, unsigned int v)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, json_object_new_int64(v));
	else if (fmt)
		text(p, fmt, v);
}

void pr_int(struct pr *p, enum pr_where w, const char *key,
	    const char *fmt, int v)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, json_object_new_int(v));
	else if (fmt)
		text(p, fmt, v);
}

void pr_u64(struct pr *p, enum pr_where w, const char *key,
	    const char *fmt, uint64_t v)
{
	if (!here(p, w))
		return;
	/* json-c's int64, as -j always wrote it (no counter gets near) */
	if (p->json)
		add(p, key, json_object_new_int64((int64_t)v));
	else if (fmt)
		text(p, fmt, v);
}

void pr_uint_as(struct pr *p, enum pr_where w, const char *key,
		uint64_t v, const char *fmt, const char *t)
{
	if (!here(p, w))
		return;
	/* json-c's int64, as pr_u64() */
	if (p->json)
		add(p, key, json_object_new_int64((int64_t)v));
	else if (fmt)
		text(p, fmt, t);
}

void pr_bool_as(struct pr *p, enum pr_where w, const char *key, bool v,
		const char *fmt, const char *t)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, json_object_new_boolean(v));
	else if (fmt)
		text(p, fmt, t ? t : "");
}

void pr_json_as(struct pr *p, enum pr_where w, const char *key,
		struct json_object *v, const char *fmt, const char *t)
{
	if (here(p, w) && p->json) {
		add(p, key, v);
		return;
	}
	json_object_put(v);
	if (here(p, w) && fmt)
		text(p, fmt, t ? t : "");
}

void pr_string_keep(struct pr *p, enum pr_where w, const char *key,
		    const char *fmt, const char *v)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, json_object_new_string(v ? v : ""));
	else if (fmt)
		text(p, fmt, v ? v : "");
}

void pr_bool(struct pr *p, enum pr_where w, const char *key,
	     const char *fmt, bool v)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, json_object_new_boolean(v));
	else if (fmt)
		text(p, fmt, v ? "true" : "false");
}

void pr_null(struct pr *p, enum pr_where w, const char *key,
	     const char *fmt, const char *t)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, NULL);
	else if (fmt)
		text(p, fmt, t ? t : "");
}

void pr_words(struct pr *p, enum pr_where w, const char *key,
	      const char *fmt, const char *const *words, size_t n)
{
	struct json_object *a;
	char *buf = NULL;
	size_t i, len = 0;
	FILE *f;

	if (!here(p, w))
		return;
	if (p->json) {
		a = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(a,
					      json_object_new_string(words[i]));
		add(p, key, a);
	} else if (fmt) {
		/* joined apart first: fmt may pad the whole list */
		f = open_memstream(&buf, &len);
		for (i = 0; f && i < n; i++)
			fprintf(f, "%s%s", i ? "," : "", words[i]);
		if (f && !fclose(f))
			text(p, fmt, n ? buf : "-");
		free(buf);
	}
}

struct json_object *pr_fixed(double x, int digits)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.*f", digits, x);
	return json_object_new_double_s(x, buf);
}

void pr_float(struct pr *p, enum pr_where w, const char *key, int digits,
	      const char *fmt, double v)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, pr_fixed(v, digits));
	else if (fmt)
		text(p, fmt, v);
}

void pr_float_as(struct pr *p, enum pr_where w, const char *key, double v,
		 int digits, const char *fmt, const char *t)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, pr_fixed(v, digits));
	else if (fmt)
		text(p, fmt, t ? t : "");
}

void pr_double(struct pr *p, enum pr_where w, const char *key,
	       const char *fmt, double v)
{
	if (!here(p, w))
		return;
	if (p->json)
		add(p, key, json_object_new_double(v));
	else if (fmt)
		text(p, fmt, v);
}

void pr_text(struct pr *p, const char *fmt, ...)
{
	va_list ap;

	if (!here(p, PRINT_FP))
		return;
	va_start(ap, fmt);
	vfprintf(p->c->out, fmt, ap);
	va_end(ap);
}

void pr_nl(struct pr *p)
{
	if (here(p, PRINT_FP))
		fputc('\n', p->c->out);
}
