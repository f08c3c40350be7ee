/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptplatform, inside: what a transport's section of the platform parser
 * is given. platform.c reads what every platform has; a transport reads its
 * own keys (each layout's, and its groups at the top) into the platform's
 * bmc part, with the checked reads below, whose messages name file, line
 * and the key's dotted path as every other message of the parser does.
 *
 * A new transport: its section (platform_NAME.c: one struct
 * pt_plat_transport), a line in platform_transports.c, and its backend in
 * topod (daemon/topod/bmc_backend.h).
 */
#ifndef PCITOPO_DAEMON_PLATFORM_SECTION_H
#define PCITOPO_DAEMON_PLATFORM_SECTION_H

#include <libconfig.h>

#include "platform.h"

/* The file being read and where its first error goes. */
struct plat_ctx {
	const char *path;
	char *err;
	size_t errlen;
};

struct pt_plat_transport {
	const char *name;		/* transport = "NAME" */
	/* its keys at the top of the file, and in each layouts.NAME group;
	 * NULL-terminated */
	const char *const *root_keys;
	const char *const *layout_keys;
	/* layouts.NAME (group l), after platform.c read its own keys */
	int (*layout)(struct plat_ctx *c, config_setting_t *l,
		      enum pcitopo_layout id, struct pt_platform *p);
	/* its groups at the top, and what holds across the layouts; after
	 * every layout, before moves */
	int (*section)(struct plat_ctx *c, config_setting_t *root,
		       config_setting_t *layouts, struct pt_platform *p);
};

/* The transports this build knows, NULL-terminated (platform_transports.c). */
extern const struct pt_plat_transport *const pt_plat_transports[];

/*
 * The checked reads (platform_parse.c). Each returns 0, or -EINVAL with
 * the file's first error in c->err ("file:line: path: reason").
 */
__attribute__((format(printf, 3, 4)))
int plat_err(struct plat_ctx *c, const config_setting_t *s, const char *fmt,
	     ...);
/* "status.request.data[2]" */
void plat_path(const config_setting_t *s, char *buf, size_t len);
/* every member of grp is one of allowed (NULL-terminated) */
int plat_check_keys(struct plat_ctx *c, const config_setting_t *grp,
		    const char *const *allowed);
/* grp's member key, of type (CONFIG_TYPE_INT takes INT64 too, _ARRAY a
 * list too); NULL with *ret set if it is missing or of another type */
config_setting_t *plat_need(struct plat_ctx *c, config_setting_t *grp,
			    const char *key, int type, int *ret);
int plat_get_int(struct plat_ctx *c, const config_setting_t *s,
		 long long min, long long max, long long *out);
int plat_need_int(struct plat_ctx *c, config_setting_t *grp, const char *key,
		  long long min, long long max, long long *out);
int plat_need_str(struct plat_ctx *c, config_setting_t *grp, const char *key,
		  char *out, size_t len);

#endif
