// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topoctl monitor: the module's events as they come, one line each (text, or
 * one JSON object per line with -j), until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

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

void print_event(struct ctx *c, const struct pt_event *ev)
{
	const struct pt_device *d = &ev->device;
	struct pt_topology none = { 0 };
	struct json_object *o;
	char link[32], max[32], flags[128];

	if (c->json) {
		o = json_object_new_object();
		json_object_object_add(o, "event",
				       json_object_new_string(event_name(ev->type)));
		json_object_object_add(o, "generation",
				       json_object_new_int64((int64_t)ev->generation));
		if (ev->type == PCITOPO_CMD_LAYOUT_CHANGE_NTF)
			json_object_object_add(o, "summary",
					       json_summary(&ev->summary));
		else
			json_object_object_add(o, "device",
					       json_device(&none, d));
		emit_json(c, o);
		fflush(c->out);
		return;
	}
	fprintf(c->out, "[%llu] %s", (unsigned long long)ev->generation,
		event_name(ev->type));
	if (ev->type == PCITOPO_CMD_LAYOUT_CHANGE_NTF) {
		fprintf(c->out, " %s", ptc_layout_name(ev->summary.layout));
		if (ev->summary.reason[0])
			fprintf(c->out, " (%s)", ev->summary.reason);
		fprintf(c->out, " gpus %u nics %u\n", ev->summary.count_gpus,
			ev->summary.count_nics);
	} else {
		fprintf(c->out, " %s %s %s", d->addr, ptc_role_name(d->role),
			ptc_kind_name(d->kind));
		if (dev_has_link(d)) {
			fmt_link(link, sizeof(link), d->link_speed, d->link_width);
			fmt_link(max, sizeof(max), d->link_max_speed,
				 d->link_max_width);
			fmt_dev_flags(flags, sizeof(flags), d);
			fprintf(c->out, " link %s max %s flags %s", link, max,
				flags);
		}
		fputc('\n', c->out);
	}
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
			if (c->json)
				fputs("{\"event\":\"overrun\"}\n", c->out);
			else
				fputs("overrun: events were lost, reread the topology\n",
				      c->out);
			fflush(c->out);
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
