// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * BMC credentials from a file, never from the command line (argv is
 * readable by every user through /proc). The file must be private: a
 * regular file, owned by root or by the caller, no group or other access.
 * It is checked on the open descriptor (fstat), so what is checked is what
 * is read.
 *
 *   # /etc/pcitopo/bmc.conf
 *   user=admin
 *   password=secret
 *
 * The platform-file spelling is accepted too: `user = "admin";`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipmi.h"

#define CREDS_LINE_MAX	256

void pt_ipmi_creds_wipe(struct pt_ipmi_creds *creds)
{
	if (creds)
		explicit_bzero(creds, sizeof(*creds));
}

static char *creds_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* what a transport allows */
struct creds_limits {
	size_t user_max, password_max;
	const char *by;
};

/* Parse one "key=value" line; returns 0, or -EINVAL with msg set. */
static int creds_line(char *line, struct pt_ipmi_creds *creds,
		      const struct creds_limits *lim, unsigned int *seen,
		      char *msg, size_t msglen)
{
	char *eq, *key, *val;
	size_t len, max;
	char *dst;

	line = creds_trim(line);
	if (!line[0] || line[0] == '#')
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		snprintf(msg, msglen, "expected key=value");
		return -EINVAL;
	}
	*eq = '\0';
	key = creds_trim(line);
	val = creds_trim(eq + 1);
	len = strlen(val);
	if (len && val[len - 1] == ';')
		val[--len] = '\0', val = creds_trim(val), len = strlen(val);
	if (len >= 2 && val[0] == '"' && val[len - 1] == '"') {
		val[len - 1] = '\0';
		val++;
		len -= 2;
	}
	if (!strcmp(key, "user")) {
		dst = creds->user;
		max = lim->user_max;
		*seen |= 1;
	} else if (!strcmp(key, "password")) {
		dst = creds->password;
		max = lim->password_max;
		*seen |= 2;
	} else {
		snprintf(msg, msglen, "unknown key \"%.32s\" (expected user or "
			 "password)", key);
		return -EINVAL;
	}
	if (len > max) {
		snprintf(msg, msglen, "%s is %zu bytes, %s allows at most %zu",
			 key, len, lim->by, max);
		return -EINVAL;
	}
	memcpy(dst, val, len);
	dst[len] = '\0';
	return 0;
}

static int creds_load(const char *path, struct pt_ipmi_creds *creds,
		      const struct creds_limits *lim, char *err, size_t errlen)
{
	char line[CREDS_LINE_MAX], msg[160];
	unsigned int lineno = 0, seen = 0;
	struct stat st;
	FILE *f;
	int fd, ret = 0;

	if (!path)
		path = PT_IPMI_CREDS_DEFAULT;
	memset(creds, 0, sizeof(*creds));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		if (err && errlen)
			snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		if (err && errlen)
			snprintf(err, errlen, "%s: mode %04o gives group or "
				 "others access to the BMC password; refusing "
				 "it (chmod 600 %s)", path,
				 (unsigned int)(st.st_mode & 07777), path);
		close(fd);
		return -EPERM;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		if (err && errlen)
			snprintf(err, errlen, "%s: owned by uid %u, neither "
				 "root nor the caller (uid %u); refusing it",
				 path, (unsigned int)st.st_uid,
				 (unsigned int)geteuid());
		close(fd);
		return -EPERM;
	}
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(msg, sizeof(msg), "line longer than %d bytes",
				 CREDS_LINE_MAX - 2);
			ret = -EINVAL;
		} else {
			ret = creds_line(line, creds, lim, &seen, msg,
					 sizeof(msg));
		}
		if (ret) {
			if (err && errlen)
				snprintf(err, errlen, "%s:%u: %s", path, lineno,
					 msg);
			break;
		}
	}
	explicit_bzero(line, sizeof(line));
	fclose(f);
	if (!ret && (seen & 3) != 3) {
		if (err && errlen)
			snprintf(err, errlen, "%s:%u: no %s line", path, lineno,
				 seen & 1 ? "password" : "user");
		ret = -EINVAL;
	}
	if (ret)
		pt_ipmi_creds_wipe(creds);
	return ret;
}

int pt_ipmi_creds_load(const char *path, struct pt_ipmi_creds *creds,
		       char *err, size_t errlen)
{
	static const struct creds_limits ipmi = {
		PT_IPMI_USER_MAX, PT_IPMI_PASSWORD_MAX, "IPMI 2.0"
	};

	return creds_load(path, creds, &ipmi, err, errlen);
}

int pt_creds_load(const char *path, struct pt_ipmi_creds *creds,
		  size_t user_max, size_t password_max, const char *limit_by,
		  char *err, size_t errlen)
{
	struct creds_limits lim = {
		user_max < PT_CREDS_FIELD_MAX ? user_max : PT_CREDS_FIELD_MAX,
		password_max < PT_CREDS_FIELD_MAX ? password_max :
						    PT_CREDS_FIELD_MAX,
		limit_by
	};

	return creds_load(path, creds, &lim, err, errlen);
}
