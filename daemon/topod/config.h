/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod: reading topod.conf (config.c). config_load() (topod.h) reads the
 * whole file; what is here is for the BMC backends, which read their own
 * keys of its bmc group (bmc_backend.h) as strictly as config.c reads the
 * rest: a key of the wrong type, out of range or not the transport's is an
 * error naming the file, its line and the key, never a silent default.
 * Each returns 0 or -EINVAL (-errno) with err set.
 */
#ifndef PCITOPO_TOPOD_CONFIG_H
#define PCITOPO_TOPOD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include <libconfig.h>

/* name is one of list (NULL-terminated) */
bool conf_listed(const char *const *list, const char *name);
/* the string at key (dotted: "bmc.host") into dst[cap]; absent: dst as it
 * was, or an error if required; empty or too long: an error */
int conf_string(config_t *cf, const char *key, char *dst, size_t cap,
		bool required, char *err, size_t len, const char *path);
/* the setting at key if it has type (NULL, *r 0, if absent; NULL, *r
 * -EINVAL, if of another: "not WHAT") */
config_setting_t *conf_typed(config_t *cf, const char *key, int type,
			     const char *what, char *err, size_t len,
			     const char *path, int *r);
/* the integer at key, in lo..hi, into *v (untouched if absent) */
int conf_int(config_t *cf, const char *key, int lo, int hi, int *v,
	     char *err, size_t len, const char *path);
/* every key of group is one of keys (NULL-terminated): "GROUP.KEY:
 * unknown for transport \"KIND\"" otherwise */
int conf_group_keys(config_t *cf, const char *group, const char *kind,
		    const char *const *keys, char *err, size_t len,
		    const char *path);

#endif
