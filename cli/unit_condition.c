// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whether systemd would skip topod.service now: its ExecCondition (topod
 * --configured, at the path the installed unit names) run as systemd runs
 * it, an exit of 1-254 meaning "skip" (systemd.service(5)). systemd's own
 * memory of a skip is not enough to tell an unconfigured node: 252 says
 * Result "exec-condition" after one, 257 (Debian 13) says "success", and a
 * unit nothing holds is unloaded, after which systemd loads it afresh with
 * no trace of the skip. The condition itself is the one rule, the same on
 * every systemd: topoctl asks it. It runs as the caller (it only reads
 * topod.conf), with no input and its output dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topod-client.h"

#define COND_ARGS_MAX 8

static int run_quiet(const char *path, char *const argv[])
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execv(path, argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -ECHILD;
}

int topod_unit_would_skip(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	char *argv[COND_ARGS_MAX + 1];
	const char *path = NULL, *arg;
	int argc = 0, r;

	r = sd_bus_call_method(bus, TOPOD_SYSTEMD_NAME, TOPOD_UNIT_PATH,
			       TOPOD_PROPS_IFACE, "Get", &e, &reply, "ss",
			       TOPOD_SERVICE_IFACE, "ExecCondition");
	if (r < 0)
		goto out;
	/* a(sasbttttuii): path, argv, ignore-failure, timestamps, pid, status */
	r = sd_bus_message_enter_container(reply, 'v', "a(sasbttttuii)");
	if (r > 0)
		r = sd_bus_message_enter_container(reply, 'a', "(sasbttttuii)");
	if (r > 0)
		r = sd_bus_message_enter_container(reply, 'r', "sasbttttuii");
	if (r == 0)
		r = -ENOENT;	/* the unit has no ExecCondition */
	if (r > 0)
		r = sd_bus_message_read(reply, "s", &path);
	if (r > 0)
		r = sd_bus_message_enter_container(reply, 'a', "s");
	while (r > 0 && argc < COND_ARGS_MAX &&
	       (r = sd_bus_message_read(reply, "s", &arg)) > 0)
		argv[argc++] = (char *)arg;
	if (r < 0 || !path || !argc)
		goto out;
	argv[argc] = NULL;
	r = run_quiet(path, argv);
	if (r >= 0)
		r = r >= 1 && r <= 254;
out:
	sd_bus_message_unref(reply);
	sd_bus_error_free(&e);
	return r < 0 ? r : r > 0;
}
