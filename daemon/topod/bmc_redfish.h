/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * topod, inside the Redfish backend: what its two files share.
 * bmc_redfish.c is the backend (bmc_backend.h) with its HTTP, sessions and
 * the BIOS-attribute form; bmc_redfish_zone.c is the zone form
 * (platform_redfish.h: the platform's redfish.fabric and each layout's
 * zones), which bmc_redfish.c hands a platform of that form to.
 */
#ifndef PCITOPO_TOPOD_BMC_REDFISH_H
#define PCITOPO_TOPOD_BMC_REDFISH_H

#include <stdbool.h>
#include <stdio.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "bmc_backend.h"
#include "ipmi.h"

#define RF_URL_MAX	512
#define RF_PATH_MAX	512
#define RF_BODY_MAX	(8u << 20)	/* an AttributeRegistry is ~1 MB */

struct rf_conf {
	char url[RF_URL_MAX];		/* https://host[:port], no slash */
	char creds[1024];
	char ca_file[1024];
	char pinned_key[512];
	bool tls_verify;
	unsigned int timeout_ms;
};

_Static_assert(sizeof(struct rf_conf) <= BMC_CONF_MAX,
	       "the Redfish configuration fits bmc_conf");

struct rf {
	const struct rf_conf *c;
	const struct pt_platform *p;
	CURL *curl;
	char name[RF_URL_MAX];
	char token[256];		/* X-Auth-Token; "" with Basic */
	char session[RF_PATH_MAX];	/* its Location, deleted at close */
	struct pt_ipmi_creds cr;	/* kept for Basic only */
	bool basic;
	bool selected;			/* a Select done in this session */
	/* the last answer */
	long code;
	char *body;
	size_t blen;
	char etag[256];
	char location[RF_PATH_MAX];
	char xtoken[256];
	char if_match[256];		/* for the next request only */
	char curl_err[CURL_ERROR_SIZE];
	CURLcode cc;			/* the last request's */
};

/* --- bmc_redfish.c: requests and answers --------------------------------- */

/* An authenticated request (a new session and once more after a 401):
 * 0 with s->code the HTTP status and s->body its body, or -errno with err
 * (-EAGAIN: a refused or reset connection). s->if_match, if set, goes
 * with it as If-Match. */
int rf_call(struct rf *s, const char *method, const char *path,
	    const char *body, char *err, size_t len);
/* GET path as a JSON object into *out (put by the caller); an answer
 * other than 200 is rf_bad_answer()'s */
int rf_get(struct rf *s, const char *path, json_object **out, char *err,
	   size_t len);
/* An unwanted answer: 503 -EAGAIN, else -EREMOTEIO; err "WHAT: HTTP 412
 * Precondition Failed: "the BMC's words"" */
int rf_bad_answer(struct rf *s, const char *what, char *err, size_t len);
/* A change whose connection failed after it went out: -ETIMEDOUT (it may
 * have acted); r otherwise */
int rf_change_lost(struct rf *s, int r, const char *what, char *err,
		   size_t len);
/* A 202's TaskMonitor (s->location) followed to its end within ms */
int rf_follow_task(struct rf *s, const char *what, unsigned int ms,
		   char *err, size_t len);
/* @Message.ExtendedInfo's messages of body, quoted, "; " between */
void rf_extended_info(const char *body, char *buf, size_t len);
/* obj.a.b... as a string, NULL-terminated keys (NULL if absent) */
const char *rf_jstr(json_object *o, ...);
json_object *rf_jget(json_object *o, const char *k);
/* strlcat's */
void rf_tcat(char *dst, size_t cap, const char *src);

/* --- bmc_redfish_zone.c: the zone form ----------------------------------- */

int rfz_status(struct rf *s, const struct pt_platform *p,
	       struct pt_plat_job *job, char *err, size_t len);
int rfz_select(struct rf *s, const struct pt_platform *p,
	       enum pcitopo_layout l, int *sent, char *err, size_t len);
/* the BMC's fabric has layout l's zones and endpoints; -ENOENT naming
 * what it has */
int rfz_can_select(struct rf *s, const struct pt_platform *p,
		   enum pcitopo_layout l, char *err, size_t len);
/* topod --check: every layout's zones and endpoints, the zones now */
void rfz_check_bmc(struct rf *s, const struct pt_platform *p,
		   void (*bad)(const char *what, const char *why));
/* topod --discover-redfish: the Fabrics, their zones and endpoints, and
 * a platform file's part from the zones as they are; the count of
 * fabrics listed (0: none), or -errno */
int rfz_discover(struct rf *s, FILE *out, char *err, size_t len);

#endif
