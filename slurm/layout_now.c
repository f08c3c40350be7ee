// SPDX-License-Identifier: GPL-2.0
/*
 * The node's actual layout, as the feature helper reports it and the Prolog
 * checks it: the module's own word first (/sys/kernel/pcitopo/layout, one
 * read, never blocks), else topod's Status through topoctl, bounded, since
 * topod answers late while it is switching.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptc.h"
#include "pt_slurm.h"

bool pt_layout_switchable(const char *name)
{
	return ptc_layout_by_name(name) != PCITOPO_LAYOUT_UNKNOWN;
}

const char *pt_layout_list(void)
{
	static char list[64];

	if (!list[0])
		ptc_layout_list(list, sizeof(list), ", ");
	return list;
}

static int from_sysfs(char *out, size_t len)
{
	const char *dir = getenv("PCITOPO_SYSFS");
	char path[512], buf[PT_LAYOUT_LEN];
	FILE *f;

	snprintf(path, sizeof(path), "%s/layout",
		 dir && *dir ? dir : "/sys/kernel/pcitopo");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -ENODATA;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		return -ENODATA;
	snprintf(out, len, "%s", buf);
	return 0;
}

/*
 * The build's BINDIR, else where a package or `make install` puts it: a
 * tree built with one PREFIX and installed with another still works.
 */
static const char *topoctl_path(void)
{
	static const char *const where[] = {
		PT_SLURM_TOPOCTL, "/usr/bin/topoctl", "/usr/local/bin/topoctl",
	};
	const char *p = getenv("PCITOPO_TOPOCTL");

	if (p && *p)
		return p;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (!access(where[i], X_OK))
			return where[i];
	return PT_SLURM_TOPOCTL;
}

int pt_layout_now(char *out, size_t len, int timeout_ms, char *why,
		  size_t wlen)
{
	char *argv[] = { (char *)topoctl_path(), "-j", "status", NULL };
	struct json_object *o, *l;
	char buf[4096];
	int r;

	if (!from_sysfs(out, len))
		return 0;
	r = pt_run(argv, buf, sizeof(buf), timeout_ms);
	if (r == -ETIMEDOUT) {
		snprintf(why, wlen, "no pcitopo module, and topod did not answer "
			 "within %d ms", timeout_ms);
		return r;
	}
	if (r) {
		snprintf(why, wlen, "no pcitopo module, and topod: %s",
			 r < 0 ? strerror(-r) : pt_last_line(buf));
		return -ENOENT;
	}
	o = json_tokener_parse(buf);
	if (!o || !json_object_object_get_ex(o, "layout", &l) ||
	    !json_object_is_type(l, json_type_string)) {
		snprintf(why, wlen, "no pcitopo module, and topoctl status "
			 "printed no layout");
		json_object_put(o);
		return -ENOENT;
	}
	snprintf(out, len, "%s", json_object_get_string(l));
	json_object_put(o);
	return 0;
}

const char *pt_topoctl(void)
{
	return topoctl_path();
}
