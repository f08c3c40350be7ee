// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl monitor: the module's events as they come, one line each (text, or
 * one JSON object per line with -j), until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include "print.h"
#include "ptc.h"
#include "topoctl.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const char *event_name(unsigned int type)
{
	switch (type) {
	case PCITOPO_CMD_DEVICE_ADD_NTF:	return "device-add";
	case PCITOPO_CMD_DEVICE_DEL_NTF:	return "device-del";
	case PCITOPO_CMD_LINK_CHANGE_NTF:	return "link-change";
	case PCITOPO_CMD_LAYOUT_CHANGE_NTF:	return "layout-change";
	default:				return "unknown";
	}
}

/* One event, one line: the text and the JSON object from the same calls.
 * A device event's object is pr_device_object()'s (the schema `export`
 * shares), a layout change's pr_summary_object()'s; the text shows some of
 * their fields, written by the call that shows them. */
void print_event(struct ctx *c, const struct pt_event *ev)
{
	const struct pt_device *d = &ev->device;
	struct pt_topology none = { 0 };
	char link[32], max[32];
	struct pr o;

	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_u64(&o, PRINT_ANY, "generation", "[%" PRIu64 "]", ev->generation);
	pr_string(&o, PRINT_ANY, "event", " %s", event_name(ev->type));
	if (ev->type == PCITOPO_CMD_LAYOUT_CHANGE_NTF) {
		pr_open_object(&o, PRINT_ANY, "summary");
		pr_summary_object(&o, &ev->summary);
		pr_string(&o, PRINT_ANY, "layout", " %s",
			  ptc_layout_name(ev->summary.layout));
		pr_string_or(&o, PRINT_ANY, "reason", " (%s)",
			     ev->summary.reason, NULL);
		pr_uint(&o, PRINT_ANY, "gpus", " gpus %u",
			ev->summary.count_gpus);
		pr_uint(&o, PRINT_ANY, "nics", " nics %u",
			ev->summary.count_nics);
	} else {
		pr_open_object(&o, PRINT_ANY, "device");
		pr_device_object(&o, &none, d);
		pr_string(&o, PRINT_ANY, "addr", " %s", d->addr);
		pr_string(&o, PRINT_ANY, "role", " %s", ptc_role_name(d->role));
		pr_string(&o, PRINT_ANY, "kind", " %s", ptc_kind_name(d->kind));
		if (pt_device_has_link(d)) {
			/* the text of the "link" object laid down above */
			fmt_link(link, sizeof(link), d->link_speed, d->link_width);
			fmt_link(max, sizeof(max), d->link_max_speed,
				 d->link_max_width);
			pr_text(&o, " link %s max %s", link, max);
			pr_dev_flags(&o, PRINT_ANY, "flags", " flags %s", d);
		}
	}
	pr_close_object(&o);
	pr_nl(&o);
	pr_close_object(&o);
	(void)pr_end(&o);
	fflush(c->out);
}

/* The kernel dropped events (the socket's buffer ran full). */
static void print_overrun(struct ctx *c)
{
	struct pr o;

	pr_begin(&o, c);
	pr_open_object(&o, PRINT_ANY, NULL);
	pr_json_as(&o, PRINT_ANY, "event", json_object_new_string("overrun"),
		   "%s\n", "overrun: events were lost, reread the topology");
	pr_close_object(&o);
	(void)pr_end(&o);
	fflush(c->out);
}

int do_monitor(struct ctx *c, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct pt_nl *mon = NULL;
	struct pt_event ev;
	struct pollfd pfd;
	int r;

	if (argc > 0) {
		if (!strcmp(argv[0], "help")) {
			print_object_help(c, "monitor", NULL);
			return 0;
		}
		return usage_error(c, "unexpected argument '%s' to 'monitor'\n"
				   "Try 'topoctl monitor help'.", argv[0]);
	}
	/* the request socket first: it says "module not loaded" clearly */
	r = open_nl(c);
	if (r)
		return r;
	r = pt_nl_monitor_open(&mon);
	if (r)
		return nl_error(c, "joining the events group", r);
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll() returns EINTR and the loop ends */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pfd.fd = pt_nl_monitor_fd(mon);
	pfd.events = POLLIN;
	r = 0;
	while (!stop) {
		int e = pt_nl_monitor_read(mon, &ev);

		if (!e) {
			print_event(c, &ev);
			continue;
		}
		if (e == -ENOBUFS) {
			print_overrun(c);
			continue;
		}
		if (e != -EAGAIN && e != -EINTR) {
			fprintf(c->err, "topoctl: monitor: %s\n", strerror(-e));
			r = 1;
			break;
		}
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			fprintf(c->err, "topoctl: monitor: %s\n", strerror(errno));
			r = 1;
			break;
		}
	}
	pt_nl_close(mon);
	return r;
}
