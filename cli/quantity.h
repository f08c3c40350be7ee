/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topoctl: option values shared by `advise` and `bench`: sizes ("64M"),
 * counts, and "--name VALUE" / "--name=VALUE" matching. Nothing prints.
 */
#ifndef PCITOPO_CLI_QUANTITY_H
#define PCITOPO_CLI_QUANTITY_H

#include <stdbool.h>

/*
 * A size in bytes: a number (fraction allowed), optionally followed by
 * K, M, G, T (powers of 1024, as OSU and CUDA's samples take them) or
 * KB, MB, GB, TB (powers of 1000), and an optional trailing "B" or "iB"
 * ("64MiB"). -EINVAL for anything else, a negative or non-finite number,
 * or more than 2^50.
 */
int parse_size(const char *s, double *bytes);
/* A decimal integer in [min, max]; -EINVAL, -ERANGE. */
int parse_count(const char *s, unsigned long min, unsigned long max,
		unsigned long *out);
/* A decimal number >= 0 ("2500", "7.5"); -EINVAL. */
int parse_number(const char *s, double *out);

/*
 * Whether argv[*i] is option name ("--model-size"); its value is either
 * after '=' or argv[*i + 1] (then *i advances). *val is NULL when the value
 * is missing. Returns false if argv[*i] is another option.
 */
bool opt_is(const char *name, int argc, char **argv, int *i,
	    const char **val);
/* A flag without value: exact match. */
bool flag_is(const char *name, const char *arg);

/* "102.2 MB", "150.5 KB", "1.07 GB" (powers of 1000) */
void fmt_bytes(char *buf, unsigned long len, double bytes);

#endif /* PCITOPO_CLI_QUANTITY_H */
