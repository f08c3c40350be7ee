/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl: one print call per field, for the text and the JSON of a view.
 *
 * A view used to be written twice, a printf() text printer and a json-c
 * builder, and the two drifted (a mark in the text, missing from -j). Here a
 * view makes one call per field, in the style of iproute2's json_print:
 *
 *	pr_string(p, PRINT_ANY, "class", "  class:       %s\n", name);
 *
 * prints the text with fmt when the context is text, and adds "class" to
 * the object being built when it is JSON (-j). PRINT_FP limits a call to the
 * text, PRINT_JSON to the JSON. The JSON is a json-c tree printed once by
 * pr_end() through emit_json(), as every view printed it before, so -j keeps
 * its bytes (json-c keeps keys in the order they were first added; adding a
 * key again replaces its value in place).
 *
 * Containers: pr_open_object()/pr_open_array() nest; a value's key is
 * ignored inside an array (pass NULL). In the text an array is a list:
 * `open` before its first element, `sep` between elements, then `close`, or
 * `none` when it had none; an object prints nothing of its own.
 *
 * Values: an empty or NULL string is JSON null (as fmt.c's objects have
 * always written "no value"). fmt is a printf format taking the value (no
 * format attribute: PRINT_JSON calls pass NULL, which gcc would flag); fmt
 * NULL prints no text.
 */
#ifndef PCITOPO_CLI_PRINT_H
#define PCITOPO_CLI_PRINT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

struct ctx;

enum pr_where {
	PRINT_FP = 1,		/* the text only */
	PRINT_JSON = 2,		/* the JSON only */
	PRINT_ANY = 3,		/* both */
};

#define PR_DEPTH	16

struct pr_level {
	struct json_object *o;	/* JSON: the container; NULL in the text */
	bool array;
	bool off;		/* not in this context (PRINT_FP under -j...) */
	unsigned int n;		/* elements printed, for the text's sep */
	const char *open, *sep;
};

struct pr {
	struct ctx *c;		/* c->json chooses; text to c->out */
	bool json;
	int depth;
	int off;		/* levels open that this context does not print */
	bool misuse;		/* unbalanced or keyless: pr_end() says so */
	struct json_object *root;
	struct pr_level lv[PR_DEPTH];
};

void pr_begin(struct pr *p, struct ctx *c);
/* JSON: print the tree (emit_json()); returns 0, or -EINVAL (and prints
 * nothing) if the view opened and closed unevenly. */
int pr_end(struct pr *p);

void pr_open_object(struct pr *p, enum pr_where w, const char *key);
void pr_close_object(struct pr *p);
void pr_open_array(struct pr *p, enum pr_where w, const char *key,
		   const char *open, const char *sep);
void pr_close_array(struct pr *p, const char *close, const char *none);

void pr_string(struct pr *p, enum pr_where w, const char *key,
	       const char *fmt, const char *v);
/* As pr_string(), with the text `none` (through fmt) for an empty v; none
 * NULL prints no text at all then. */
void pr_string_or(struct pr *p, enum pr_where w, const char *key,
		  const char *fmt, const char *v, const char *none);
void pr_uint(struct pr *p, enum pr_where w, const char *key,
	     const char *fmt, unsigned int v);
void pr_int(struct pr *p, enum pr_where w, const char *key,
	    const char *fmt, int v);
void pr_u64(struct pr *p, enum pr_where w, const char *key,
	    const char *fmt, uint64_t v);
/* A number whose text is worded apart (fmt takes the string text):
 * "4.0 GB/s" for 4000 MB/s, "unknown" for no NUMA node... */
void pr_uint_as(struct pr *p, enum pr_where w, const char *key,
		unsigned int v, const char *fmt, const char *text);
/* As pr_uint_as(), for any JSON value: v (consumed; NULL is null) under
 * key, the text `text` through fmt (diff's "x16 -> x8" of 16 and 8). */
void pr_json_as(struct pr *p, enum pr_where w, const char *key,
		struct json_object *v, const char *fmt, const char *text);
/* As pr_string(), but an empty v stays the JSON string "" and its text is
 * fmt of "": the views whose -j always wrote "" so (doctor's "fix",
 * status's "reason") keep their JSON. */
void pr_string_keep(struct pr *p, enum pr_where w, const char *key,
		    const char *fmt, const char *v);
/* fmt takes a string: "true" or "false" */
void pr_bool(struct pr *p, enum pr_where w, const char *key,
	     const char *fmt, bool v);
/* JSON null; the text is `text` through fmt */
void pr_null(struct pr *p, enum pr_where w, const char *key,
	     const char *fmt, const char *text);

/* A list of words under key: words is a json-c array of strings (consumed),
 * as fmt.c's json_dev_flags() and json_path_flags() give; the text is
 * fmt (taking a string) of the words joined by ',', or of "-" for none. */
void pr_words(struct pr *p, enum pr_where w, const char *key,
	      const char *fmt, struct json_object *words);

/* The text only: printf() to c->out, and a newline. */
void pr_text(struct pr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pr_nl(struct pr *p);

/* The JSON only, for objects fmt.c builds for more than one command
 * (json_device(), the schema `export` shares): v (consumed; NULL is null)
 * under key. pr_merge() adds each key of object v to the object open, in
 * v's order; the view's own calls for the same keys then replace the
 * values in place, so what the text shows is what the JSON holds. */
void pr_json(struct pr *p, const char *key, struct json_object *v);
void pr_merge(struct pr *p, struct json_object *v);

#endif /* PCITOPO_CLI_PRINT_H */
