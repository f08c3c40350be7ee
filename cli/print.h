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
 * Values: an empty or NULL string is JSON null (as -j has always written
 * "no value"). fmt is a printf format taking the value (no
 * format attribute: PRINT_JSON calls pass NULL, which gcc would flag); fmt
 * NULL prints no text.
 */
#ifndef PCITOPO_CLI_PRINT_H
#define PCITOPO_CLI_PRINT_H

#include <stdbool.h>
#include <stddef.h>
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
		uint64_t v, const char *fmt, const char *text);
/* The same for a boolean: "yes, once" for true... */
void pr_bool_as(struct pr *p, enum pr_where w, const char *key, bool v,
		const char *fmt, const char *text);
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

/* A list of words under key (a JSON array of strings); the text is fmt
 * (taking a string) of the words joined by ',', or of "-" for none. */
void pr_words(struct pr *p, enum pr_where w, const char *key,
	      const char *fmt, const char *const *words, size_t n);

/* A figure with a fixed number of decimals in the JSON ("%.*f": 22000.0
 * with 1), the text fmt of v (a double). */
void pr_float(struct pr *p, enum pr_where w, const char *key, int digits,
	      const char *fmt, double v);
/* As pr_float(), the text worded apart (fmt takes the string text): the
 * JSON's MB/s as the text's GB/s. */
void pr_float_as(struct pr *p, enum pr_where w, const char *key, double v,
		 int digits, const char *fmt, const char *text);
/* A double as json-c writes one (shortest exact), the text fmt of v. */
/* JSON: x as written with digits decimals (json-c keeps the text), for a
 * tree built outside a view (set's outcome) */
struct json_object *pr_fixed(double x, int digits);
void pr_double(struct pr *p, enum pr_where w, const char *key,
	       const char *fmt, double v);

/* The text only: printf() to c->out, and a newline. */
void pr_text(struct pr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pr_nl(struct pr *p);

/* A view whose JSON is kept, not printed, whatever c->json: what `diff`
 * compares (the export's tree). pr_end_tree() returns that tree (the
 * caller's to put), or NULL if the view opened and closed unevenly. */
void pr_begin_tree(struct pr *p, struct ctx *c);
struct json_object *pr_end_tree(struct pr *p);

/*
 * The model's objects (print_objects.c), JSON only: every key of the
 * summary, a device or a path, in the order every -j command and `export`
 * share, added to the object open. A view lays one down first, then shows
 * what its text shows with its own calls for the same keys, which replace
 * the values in place (json-c keeps a key where it was first added), so
 * what the text shows is what the JSON holds.
 */
struct pt_summary;
struct pt_device;
struct pt_path;
struct pt_topology;
void pr_summary_object(struct pr *p, const struct pt_summary *s);
void pr_device_object(struct pr *p, const struct pt_topology *t,
		      const struct pt_device *d);
/* t may be NULL: no names then */
void pr_path_object(struct pr *p, const struct pt_topology *t,
		    const struct pt_path *path);
/* The flags of a device or a path as words (pr_words()): "link-down",
 * "speed-low", "acs-redirect", "numa-unknown"... */
void pr_dev_flags(struct pr *p, enum pr_where w, const char *key,
		  const char *fmt, const struct pt_device *d);
void pr_path_flags(struct pr *p, enum pr_where w, const char *key,
		   const char *fmt, unsigned int flags);
/* {"summary", "devices", "paths"}: what `export --format json` prints */
void pr_export_object(struct pr *p, const struct pt_topology *t);

#endif /* PCITOPO_CLI_PRINT_H */
