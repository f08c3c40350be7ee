// SPDX-License-Identifier: GPL-2.0
/*
 * A child with a deadline: slurmd gives a helper ExecTime seconds in all
 * and kills it after that, so anything the helper waits on (topoctl, and
 * through it topod, which may be busy switching) must be bounded well
 * inside that.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pt_slurm.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int pt_run(char *const argv[], char *out, size_t len, int timeout_ms)
{
	long long end = now_ms() + timeout_ms;
	size_t used = 0;
	int pfd[2], status, err;
	bool killed = false;
	pid_t pid;

	if (len)
		out[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		/* its own group: the deadline kills what it started too */
		setpgid(0, 0);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execv(argv[0], argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int wait = -1, r;
		char buf[512];
		ssize_t n;

		if (timeout_ms > 0) {
			long long left = end - now_ms();

			if (left <= 0) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				killed = true;
				break;
			}
			wait = (int)left;
		}
		r = poll(&p, 1, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* EOF: every writer closed */
		if (len && used < len - 1) {
			size_t k = (size_t)n < len - 1 - used ? (size_t)n :
				   len - 1 - used;

			memcpy(out + used, buf, k);
			used += k;
			out[used] = '\0';
		}
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (killed)
		return -ETIMEDOUT;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

const char *pt_last_line(char *s)
{
	char *end = s + strlen(s), *start;
	static const char prefix[] = "topoctl: ";

	while (end > s && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(s, '\n');
	start = start ? start + 1 : s;
	if (!strncmp(start, prefix, sizeof(prefix) - 1))
		start += sizeof(prefix) - 1;
	return start;
}
