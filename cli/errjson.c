// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl: JSON on stdout even for errors. With -j, a command that fails
 * without printing its JSON document leaves a script nothing to parse; so
 * main() runs every command with c->err through this tee, which writes to
 * stderr at once (progress and messages stay live) and keeps the first
 * error line. If the command then fails having emitted nothing, main()
 * prints {"error": LINE, "exit": RC} on stdout.
 */
#include <stdio.h>
#include <string.h>

#include "topoctl.h"

static char first[512];		/* the first "topoctl: " line, not a note */
static char line[512];		/* the line being written */
static size_t line_len;

static void line_done(void)
{
	static const char prefix[] = "topoctl: ";

	line[line_len] = '\0';
	if (!first[0] && !strncmp(line, prefix, sizeof(prefix) - 1) &&
	    strncmp(line + sizeof(prefix) - 1, "note:", 5))
		snprintf(first, sizeof(first), "%s",
			 line + sizeof(prefix) - 1);
	line_len = 0;
}

static ssize_t tee_write(void *cookie, const char *buf, size_t n)
{
	size_t i;

	(void)cookie;
	if (fwrite(buf, 1, n, stderr) != n)
		return -1;
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n')
			line_done();
		else if (line_len < sizeof(line) - 1)
			line[line_len++] = buf[i];
	}
	return (ssize_t)n;
}

FILE *errjson_open(void)
{
	static const cookie_io_functions_t io = { .write = tee_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (f)
		setvbuf(f, NULL, _IONBF, 0);
	return f;
}

void errjson_finish(struct ctx *c, int rc)
{
	struct json_object *o;

	if (line_len)
		line_done();
	if (!c->json || !rc || c->emitted)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "error", json_object_new_string(
		first[0] ? first : "failed (no message)"));
	json_object_object_add(o, "exit", json_object_new_int(rc));
	emit_json(c, o);
}
