// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: the Redfish backend of the BMC (bmc_backend.h), the BIOS-attribute
 * form (platform_redfish.h): a layout is a value of one attribute of
 * Systems/{id}/Bios, PATCHed into its Settings resource (with If-Match, the
 * ETag it was read with) and applied by the next ComputerSystem.Reset.
 * A platform of the zone form (redfish.fabric) is bmc_redfish_zone.c's,
 * on the sessions and requests of this file (bmc_redfish.h).
 * HTTP is libcurl's (OpenSSL flavour), JSON json-c's.
 *
 *   bmc = { transport = "redfish"; url = "https://10.0.0.5";
 *           creds = "/etc/pcitopo/bmc.conf";       the 0600 file, as LAN's
 *           ca_file = "/etc/pcitopo/bmc-ca.pem";   else the system's CAs
 *           pinned_key = "sha256//BASE64";         curl's pin: alone, it
 *                                                  is the verification
 *           tls_verify = false;                    only explicitly: logged
 *           timeout_ms = 10000; };
 *
 * A session is the SessionService's (X-Auth-Token, its Location deleted at
 * close; a 401 to it, the BMC having dropped it, gets a new one and the
 * request once more); HTTP Basic only where the ServiceRoot names no
 * sessions. The credentials are read from the file when a session is made
 * and kept only as long as Basic needs them; they are never in a URL, an
 * argument or a log line.
 *
 * What is transient (-EAGAIN, bmc.c waits it out): 503 (a BMC resetting or
 * busy), a refused or reset connection (a BMC rebooting); for a change (a
 * PATCH, a reset) only a connection never made, since one that failed
 * after the request went out may have acted (-ETIMEDOUT, as a request
 * unanswered in time: the status says). A BMC's error is quoted from its
 * @Message.ExtendedInfo.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "bmc_backend.h"
#include "config.h"
#include "ipmi.h"
#include "bmc_redfish.h"
#include "platform_redfish.h"
#include "ptc.h"
#include "topod.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* --- topod.conf ------------------------------------------------------- */

static const char *const rf_keys[] = {
	"transport", "url", "creds", "ca_file", "pinned_key", "tls_verify",
	"timeout_ms", NULL,
};

static int rf_conf(config_t *cf, const char *path, const char *kind,
		   void *conf, char *err, size_t len)
{
	struct rf_conf *c = conf;
	config_setting_t *s;
	size_t n;
	int v, e;

	memset(c, 0, sizeof(*c));
	strcpy(c->creds, PT_IPMI_CREDS_DEFAULT);
	c->tls_verify = true;
	if (conf_group_keys(cf, "bmc", kind, rf_keys, err, len, path) ||
	    conf_string(cf, "bmc.url", c->url, sizeof(c->url), true, err, len,
			path) ||
	    conf_string(cf, "bmc.creds", c->creds, sizeof(c->creds), false,
			err, len, path) ||
	    conf_string(cf, "bmc.ca_file", c->ca_file, sizeof(c->ca_file),
			false, err, len, path) ||
	    conf_string(cf, "bmc.pinned_key", c->pinned_key,
			sizeof(c->pinned_key), false, err, len, path))
		return -EINVAL;
	/* the credentials go over it: plain HTTP is never spoken */
	if (strncmp(c->url, "https://", 8) || !c->url[8]) {
		snprintf(err, len, "%s: bmc.url: \"%s\" is not https://HOST"
			 "[:PORT] (Redfish is spoken over TLS only)", path,
			 c->url);
		return -EINVAL;
	}
	n = strlen(c->url);
	while (n > 8 && c->url[n - 1] == '/')
		c->url[--n] = '\0';
	if (strchr(c->url + 8, '/')) {
		snprintf(err, len, "%s: bmc.url: \"%s\": the service's address "
			 "only (https://HOST[:PORT]); the paths are Redfish's",
			 path, c->url);
		return -EINVAL;
	}
	s = conf_typed(cf, "bmc.tls_verify", CONFIG_TYPE_BOOL, "true or false",
		       err, len, path, &e);
	if (e)
		return e;
	if (s)
		c->tls_verify = config_setting_get_bool(s);
	v = 0;
	if (conf_int(cf, "bmc.timeout_ms", 1, 600000, &v, err, len, path))
		return -EINVAL;
	c->timeout_ms = v ? (unsigned int)v : 10000;
	/* said at every start (and by --check): anyone on the path may be
	 * the BMC, and be given its password */
	if (!c->tls_verify)
		tlog(LOG_WARNING, "BMC %s: tls_verify = false: the BMC's "
		     "certificate is NOT verified (%s)", c->url, path);
	return 0;
}

static void rf_describe(const void *conf, char *buf, size_t len)
{
	const struct rf_conf *c = conf;

	snprintf(buf, len, "%s", c->url);
}

static const char *tls_what(const struct rf_conf *c)
{
	return !c->tls_verify ? "TLS NOT verified (tls_verify = false)" :
	       c->pinned_key[0] && c->ca_file[0] ?
	       "TLS verified against ca_file, key pinned" :
	       c->pinned_key[0] ? "TLS verified by the pinned key" :
	       c->ca_file[0] ? "TLS verified against ca_file" :
	       "TLS verified against the system's CAs";
}

/* The credentials file as LAN's, but not IPMI's 16/20-byte limits: a
 * Redfish account's are the BMC's own (AccountService's MaxPasswordLength),
 * often longer; this side takes up to PT_CREDS_FIELD_MAX. */
static int rf_creds_load(const char *path, struct pt_ipmi_creds *cr,
			 char *err, size_t len)
{
	return pt_creds_load(path, cr, PT_CREDS_FIELD_MAX, PT_CREDS_FIELD_MAX,
			     "topod's Redfish transport", err, len);
}

static void rf_check(const void *conf,
		     void (*bad)(const char *what, const char *why))
{
	const struct rf_conf *c = conf;
	char err[PT_IPMI_ERRLEN];
	struct pt_ipmi_creds cr;
	int r;

	r = rf_creds_load(c->creds, &cr, err, sizeof(err));
	if (r) {
		bad("credentials", err[0] ? err : strerror(-r));
		return;
	}
	printf("bmc:      Redfish %s, %s%s%s, user \"%s\" from %s\n", c->url,
	       tls_what(c), c->ca_file[0] ? " " : "", c->ca_file, cr.user,
	       c->creds);
	pt_ipmi_creds_wipe(&cr);
}

/* strlcat's: err and what it says */
void rf_tcat(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(dst, cap);

	if (n < cap)
		snprintf(dst + n, cap - n, "%s", src);
}

/* --- HTTP ------------------------------------------------------------- */

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct rf *s = arg;
	size_t n = size * nmemb;
	char *b;

	if (s->blen + n > RF_BODY_MAX)
		return 0;	/* curl fails the transfer: CURLE_WRITE_ERROR */
	b = realloc(s->body, s->blen + n + 1);
	if (!b)
		return 0;
	memcpy(b + s->blen, ptr, n);
	s->body = b;
	s->blen += n;
	b[s->blen] = '\0';
	return n;
}

/* "Name: value\r\n" into dst if it is header name */
static void header_value(const char *line, size_t n, const char *name,
			 char *dst, size_t cap)
{
	size_t k = strlen(name);

	if (n <= k + 1 || strncasecmp(line, name, k) || line[k] != ':')
		return;
	line += k + 1;
	n -= k + 1;
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (n && (line[n - 1] == '\r' || line[n - 1] == '\n' ||
		     line[n - 1] == ' '))
		n--;
	if (n >= cap)
		return;
	memcpy(dst, line, n);
	dst[n] = '\0';
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct rf *s = arg;
	size_t n = size * nmemb;

	header_value(ptr, n, "ETag", s->etag, sizeof(s->etag));
	header_value(ptr, n, "Location", s->location, sizeof(s->location));
	header_value(ptr, n, "X-Auth-Token", s->xtoken, sizeof(s->xtoken));
	return n;
}

/* path: "/redfish/v1/..." or a URL on the service itself (a Location may
 * be either); anything else is not followed (a BMC sending our token to
 * another host) */
static int make_url(const struct rf *s, const char *path, char *url,
		    size_t len)
{
	size_t n = strlen(s->c->url);

	if (!strncmp(path, s->c->url, n) && path[n] == '/')
		path += n;
	if (path[0] != '/' || snprintf(url, len, "%s%s", s->c->url, path) >=
	    (int)len)
		return -EINVAL;
	return 0;
}

/* the BMC's own words: @Message.ExtendedInfo's Messages, "; " between,
 * of error.@Message.ExtendedInfo, or of the resource's own */
void rf_extended_info(const char *body, char *buf, size_t len)
{
	json_object *j = body ? json_tokener_parse(body) : NULL, *e, *info;
	size_t off = 0;

	buf[0] = '\0';
	if (!j)
		return;
	if (!json_object_object_get_ex(j, "error", &e))
		e = j;
	if (json_object_object_get_ex(e, "@Message.ExtendedInfo", &info) &&
	    json_object_is_type(info, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(info); i++) {
			json_object *m, *t = json_object_array_get_idx(info, i);
			int w;

			if (!json_object_object_get_ex(t, "Message", &m))
				continue;
			w = snprintf(buf + off, len - off, "%s\"%s\"",
				     off ? "; " : "", json_object_get_string(m));
			if (w < 0 || (size_t)w >= len - off)
				break;
			off += (size_t)w;
		}
	}
	if (!off && json_object_object_get_ex(e, "message", &info))
		snprintf(buf, len, "\"%s\"", json_object_get_string(info));
	json_object_put(j);
}

static const char *reason(long code)
{
	switch (code) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 412: return "Precondition Failed";
	case 428: return "Precondition Required";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	default: return "";
	}
}

/*
 * One request; 0 with s->code the HTTP status (any), s->body its body
 * (NUL-terminated, or NULL), or -errno with err saying why no answer came:
 * -EAGAIN refused or reset connection (transient: err is only what it is),
 * -ETIMEDOUT no answer in time, -EACCES the TLS peer not verified.
 */
static int rf_http(struct rf *s, const char *method, const char *path,
		   const char *body, char *err, size_t len)
{
	struct curl_slist *h = NULL;
	char url[RF_URL_MAX + RF_PATH_MAX], auth[300], im[300];
	CURLcode cc;

	free(s->body);
	s->body = NULL;
	s->blen = 0;
	s->code = 0;
	s->etag[0] = s->location[0] = s->xtoken[0] = s->curl_err[0] = '\0';
	if (make_url(s, path, url, sizeof(url))) {
		snprintf(err, len, "%s: not a path on %s", path, s->c->url);
		return -EPROTO;
	}
	curl_easy_reset(s->curl);
	curl_easy_setopt(s->curl, CURLOPT_URL, url);
	curl_easy_setopt(s->curl, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->curl, CURLOPT_TIMEOUT_MS, (long)s->c->timeout_ms);
	curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)s->c->timeout_ms);
	curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, s->curl_err);
	curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(s->curl, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(s->curl, CURLOPT_CUSTOMREQUEST, method);
	if (!strcmp(method, "GET"))
		curl_easy_setopt(s->curl, CURLOPT_HTTPGET, 1L);
	if (s->c->tls_verify && s->c->pinned_key[0] && !s->c->ca_file[0]) {
		/* the pin alone is the verification (a BMC's certificate is
		 * most often its own, self-signed): curl checks the key
		 * against it whatever VERIFYPEER says */
		curl_easy_setopt(s->curl, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(s->curl, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (s->c->tls_verify) {
		if (s->c->ca_file[0])
			curl_easy_setopt(s->curl, CURLOPT_CAINFO, s->c->ca_file);
	} else {
		curl_easy_setopt(s->curl, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(s->curl, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (s->c->pinned_key[0])
		curl_easy_setopt(s->curl, CURLOPT_PINNEDPUBLICKEY,
				 s->c->pinned_key);
	h = curl_slist_append(h, "Accept: application/json");
	h = curl_slist_append(h, "OData-Version: 4.0");
	if (body) {
		h = curl_slist_append(h, "Content-Type: application/json");
		curl_easy_setopt(s->curl, CURLOPT_POSTFIELDS, body);
	}
	if (s->token[0]) {
		snprintf(auth, sizeof(auth), "X-Auth-Token: %s", s->token);
		h = curl_slist_append(h, auth);
	} else if (s->basic) {
		curl_easy_setopt(s->curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(s->curl, CURLOPT_USERNAME, s->cr.user);
		curl_easy_setopt(s->curl, CURLOPT_PASSWORD, s->cr.password);
	}
	if (s->if_match[0]) {
		snprintf(im, sizeof(im), "If-Match: %s", s->if_match);
		h = curl_slist_append(h, im);
		s->if_match[0] = '\0';
	}
	curl_easy_setopt(s->curl, CURLOPT_HTTPHEADER, h);
	cc = s->cc = curl_easy_perform(s->curl);
	/* the token's copy in h is gone with it */
	explicit_bzero(auth, sizeof(auth));
	curl_slist_free_all(h);
	switch (cc) {
	case CURLE_OK:
		curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &s->code);
		return 0;
	case CURLE_COULDNT_CONNECT:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
		snprintf(err, len, "%s", s->curl_err[0] ? s->curl_err :
			 curl_easy_strerror(cc));
		return -EAGAIN;
	case CURLE_OPERATION_TIMEDOUT:
		snprintf(err, len, "%s %s: no answer in %u ms", method, path,
			 s->c->timeout_ms);
		return -ETIMEDOUT;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_CONNECT_ERROR:
		snprintf(err, len, "TLS with %s refused: %s (%s)", s->c->url,
			 s->curl_err[0] ? s->curl_err : curl_easy_strerror(cc),
			 tls_what(s->c));
		return -EACCES;
	default:
		snprintf(err, len, "%s %s: %s", method, path, s->curl_err[0] ?
			 s->curl_err : curl_easy_strerror(cc));
		return -EIO;
	}
}

/* An answer that is not what was wanted: 503 -EAGAIN (err: what), else
 * -EREMOTEIO, err "WHAT: HTTP 412 Precondition Failed: "BMC's words"" */
int rf_bad_answer(struct rf *s, const char *what, char *err,
			 size_t len)
{
	char info[512];

	rf_extended_info(s->body, info, sizeof(info));
	if (s->code == 503) {
		snprintf(err, len, "HTTP 503 Service Unavailable%s%s",
			 info[0] ? ": " : "", info);
		return -EAGAIN;
	}
	snprintf(err, len, "%s: HTTP %ld %s%s%s", what, s->code,
		 reason(s->code), info[0] ? ": " : "", info);
	return -EREMOTEIO;
}

static int rf_login(struct rf *s, char *err, size_t len);

/*
 * An authenticated request: rf_http(), and where the BMC answers 401 to a
 * session's token (it expired: BMCs drop idle sessions after minutes, a
 * power cycle's wait is longer), a new session and the request once more
 * (a 401 is a refusal: nothing was done).
 */
int rf_call(struct rf *s, const char *method, const char *path,
		   const char *body, char *err, size_t len)
{
	char if_match[sizeof(s->if_match)];
	int r;

	memcpy(if_match, s->if_match, sizeof(if_match));
	r = rf_http(s, method, path, body, err, len);
	if (r || s->code != 401 || !s->token[0])
		return r;
	tlog(LOG_NOTICE, "BMC %s: %s %s: 401, the session is gone; a new one",
	     s->name, method, path);
	explicit_bzero(s->token, sizeof(s->token));
	s->session[0] = '\0';
	r = rf_login(s, err, len);
	if (r)
		return r;
	memcpy(s->if_match, if_match, sizeof(if_match));
	return rf_http(s, method, path, body, err, len);
}

/* GET path as JSON into *out (put by the caller) */
int rf_get(struct rf *s, const char *path, json_object **out,
		  char *err, size_t len)
{
	int r = rf_call(s, "GET", path, NULL, err, len);
	char what[RF_PATH_MAX + 8];

	if (r)
		return r;
	snprintf(what, sizeof(what), "GET %s", path);
	if (s->code != 200)
		return rf_bad_answer(s, what, err, len);
	*out = s->body ? json_tokener_parse(s->body) : NULL;
	if (!*out || !json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		snprintf(err, len, "%s: not a JSON object", what);
		return -EBADMSG;
	}
	return 0;
}

/* obj.a.b... as a string (NULL if absent or not a string) */
const char *rf_jstr(json_object *o, ...)
{
	va_list ap;
	const char *k;

	va_start(ap, o);
	while (o && (k = va_arg(ap, const char *)))
		if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	va_end(ap);
	return o && json_object_is_type(o, json_type_string) ?
	       json_object_get_string(o) : NULL;
}

json_object *rf_jget(json_object *o, const char *k)
{
	json_object *v;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* --- sessions --------------------------------------------------------- */

static void rf_free(struct rf *s)
{
	if (!s)
		return;
	if (s->curl)
		curl_easy_cleanup(s->curl);
	free(s->body);
	pt_ipmi_creds_wipe(&s->cr);
	explicit_bzero(s->token, sizeof(s->token));
	explicit_bzero(s->xtoken, sizeof(s->xtoken));
	free(s);
}

/* A session of the SessionService, or Basic where there is none. */
static int rf_login(struct rf *s, char *err, size_t len)
{
	json_object *root = NULL, *req;
	const char *sessions, *ver;
	int r;

	r = rf_get(s, "/redfish/v1", &root, err, len);
	if (r)
		return r;
	ver = rf_jstr(root, "RedfishVersion", NULL);
	if (!ver) {
		json_object_put(root);
		snprintf(err, len, "%s/redfish/v1: not a Redfish service (no "
			 "RedfishVersion in its ServiceRoot)", s->c->url);
		return -EPROTO;
	}
	sessions = rf_jstr(root, "Links", "Sessions", "@odata.id", NULL);
	if (!sessions && rf_jget(root, "SessionService"))
		sessions = "/redfish/v1/SessionService/Sessions";
	r = rf_creds_load(s->c->creds, &s->cr, err, len);
	if (r || !sessions) {
		/* no SessionService: HTTP Basic, the credentials kept */
		s->basic = !r;
		json_object_put(root);
		return r;
	}
	snprintf(s->session, sizeof(s->session), "%s", sessions);
	json_object_put(root);
	req = json_object_new_object();
	json_object_object_add(req, "UserName",
			       json_object_new_string(s->cr.user));
	json_object_object_add(req, "Password",
			       json_object_new_string(s->cr.password));
	r = rf_http(s, "POST", s->session,
		    json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN),
		    err, len);
	/* the password's copy in the request */
	{
		char *js = (char *)json_object_to_json_string(req);

		explicit_bzero(js, strlen(js));
	}
	json_object_put(req);
	pt_ipmi_creds_wipe(&s->cr);
	s->session[0] = '\0';
	if (r)
		return r;
	if (s->code != 201 && s->code != 200)
		return rf_bad_answer(s, "creating a session", err, len);
	if (!s->xtoken[0]) {
		snprintf(err, len, "creating a session: no X-Auth-Token in the "
			 "answer");
		return -EPROTO;
	}
	snprintf(s->token, sizeof(s->token), "%s", s->xtoken);
	if (s->location[0])
		snprintf(s->session, sizeof(s->session), "%s", s->location);
	else if (s->body) {
		json_object *j = json_tokener_parse(s->body);
		const char *id = rf_jstr(j, "@odata.id", NULL);

		if (id)
			snprintf(s->session, sizeof(s->session), "%s", id);
		json_object_put(j);
	}
	return 0;
}

static int rf_open(const void *conf, const struct pt_platform *p,
		   void **session, char *err, size_t len)
{
	struct rf *s;
	int r;

	pthread_once(&curl_once, curl_init_once);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = conf;
	s->p = p;
	snprintf(s->name, sizeof(s->name), "%s", s->c->url + 8);
	s->curl = curl_easy_init();
	if (!s->curl) {
		free(s);
		snprintf(err, len, "libcurl: cannot make a handle");
		return -ENOMEM;
	}
	r = rf_login(s, err, len);
	if (r) {
		rf_free(s);
		return r;
	}
	*session = s;
	return 0;
}

static void rf_close(void *session)
{
	struct rf *s = session;
	char err[256];

	/* a session left behind holds one of the BMC's few slots until it
	 * times out */
	if (s && s->token[0] && s->session[0] &&
	    (rf_http(s, "DELETE", s->session, NULL, err, sizeof(err)) ||
	     (s->code != 204 && s->code != 200)))
		tlog(LOG_WARNING, "BMC %s: the session %s was not deleted "
		     "(%s)", s->name, s->session, s->code ? reason(s->code) :
		     err);
	rf_free(s);
}

static const char *rf_name(const void *session)
{
	return ((const struct rf *)session)->name;
}

/* --- the BIOS attribute ----------------------------------------------- */

static enum pcitopo_layout layout_of(const struct pt_platform *p,
				     const char *value)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	u8 l;

	for (l = ptc_layout_first(); value && l; l = ptc_layout_next(l))
		if (p->layouts[l].present && !strcmp(rf->value[l], value))
			return (enum pcitopo_layout)l;
	return PCITOPO_LAYOUT_UNKNOWN;
}

/* Systems/{id}/Bios, its settings object's path into settings ("" if the
 * attributes are read-only: no @Redfish.Settings) */
static int get_bios(struct rf *s, json_object **bios, char *settings,
		    size_t slen, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(s->p);
	char path[RF_PATH_MAX];
	const char *so;
	int r;

	snprintf(path, sizeof(path), "/redfish/v1/Systems/%.128s/Bios", rf->system);
	r = rf_get(s, path, bios, err, len);
	if (r)
		return r;
	so = rf_jstr(*bios, "@Redfish.Settings", "SettingsObject", "@odata.id",
		  NULL);
	snprintf(settings, slen, "%s", so ? so : "");
	return 0;
}

static int rf_status(void *session, const struct pt_platform *p,
		     struct pt_plat_job *job, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	struct rf *s = session;
	json_object *bios = NULL, *set = NULL;
	char settings[RF_PATH_MAX];
	const char *cur, *pend;
	int r;

	if (pt_plat_redfish_zones(p))
		return rfz_status(s, p, job, err, len);
	memset(job, 0, sizeof(*job));
	job->job = job->error = -1;
	r = get_bios(s, &bios, settings, sizeof(settings), err, len);
	if (r)
		return r;
	cur = rf_jstr(bios, "Attributes", rf->attribute, NULL);
	if (!cur) {
		json_object_put(bios);
		snprintf(err, len, "Bios has no attribute %s (topod --check "
			 "lists what it has)", rf->attribute);
		return -ENOENT;
	}
	job->current = layout_of(p, cur);
	job->pending = PCITOPO_LAYOUT_UNKNOWN;
	if (settings[0]) {
		r = rf_get(s, settings, &set, err, len);
		if (r) {
			json_object_put(bios);
			return r;
		}
		pend = rf_jstr(set, "Attributes", rf->attribute, NULL);
		/* a Settings value equal to the current one changes nothing */
		if (pend && strcmp(pend, cur))
			job->pending = layout_of(p, pend);
		json_object_put(set);
	}
	json_object_put(bios);
	/* a PATCH is done when answered: there is no job to be busy */
	job->state = s->selected ? PT_PLAT_STATE_DONE : PT_PLAT_STATE_IDLE;
	return 0;
}

/* Follow a 202's TaskMonitor (s->location) until it is no longer 202,
 * within ms; 0 when the task completed */
int rf_follow_task(struct rf *s, const char *what, unsigned int ms,
		       char *err, size_t len)
{
	char mon[RF_PATH_MAX];
	uint64_t end = now_usec() + (uint64_t)ms * 1000u;
	json_object *t;
	const char *state;
	int r;

	if (!s->location[0]) {
		snprintf(err, len, "%s: 202 Accepted without a TaskMonitor "
			 "(no Location)", what);
		return -EPROTO;
	}
	snprintf(mon, sizeof(mon), "%s", s->location);
	for (;;) {
		sleep_ms(500);
		r = rf_call(s, "GET", mon, NULL, err, len);
		/* a BMC busy with the task may not answer for a while */
		if (r == -EAGAIN || (!r && s->code == 503)) {
			if (now_usec() < end)
				continue;
			snprintf(err, len, "%s: TaskMonitor %s unanswered for "
				 "%u ms", what, mon, ms);
			return -ETIMEDOUT;
		}
		if (r)
			return r;
		if (s->code == 202) {
			if (now_usec() < end)
				continue;
			snprintf(err, len, "%s: task %s still running after "
				 "%u ms", what, mon, ms);
			return -ETIMEDOUT;
		}
		if (s->code == 204)
			return 0;
		if (s->code != 200)
			return rf_bad_answer(s, what, err, len);
		t = s->body ? json_tokener_parse(s->body) : NULL;
		state = rf_jstr(t, "TaskState", NULL);
		if (state && strcmp(state, "Completed")) {
			char info[512];

			rf_extended_info(s->body, info, sizeof(info));
			if (!info[0]) {
				json_object *m = rf_jget(t, "Messages");

				if (m && json_object_array_length(m))
					snprintf(info, sizeof(info), "\"%s\"",
						 rf_jstr(json_object_array_get_idx(
						      m, 0), "Message", NULL) ?:
						 "");
			}
			snprintf(err, len, "%s: task %s: %s%s%s", what, mon,
				 state, info[0] ? ": " : "", info);
			json_object_put(t);
			return -EREMOTEIO;
		}
		json_object_put(t);
		return 0;
	}
}

/* A change (PATCH, an action) whose connection failed: refused before it
 * went out only if it never connected (-EAGAIN, sent again); once the
 * request may have reached the BMC it may have acted (-ETIMEDOUT: the
 * status says) */
int rf_change_lost(struct rf *s, int r, const char *what, char *err,
		       size_t len)
{
	if (r != -EAGAIN || s->cc == CURLE_COULDNT_CONNECT)
		return r;
	snprintf(err, len, "%s: the connection failed after the request went "
		 "out (%s): it may have been acted on", what,
		 s->curl_err[0] ? s->curl_err : curl_easy_strerror(s->cc));
	return -ETIMEDOUT;
}

static int rf_select(void *session, const struct pt_platform *p,
		     enum pcitopo_layout l, int *sent, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	struct rf *s = session;
	json_object *bios = NULL, *set = NULL, *req, *attrs;
	char settings[RF_PATH_MAX], etag[256], what[RF_PATH_MAX + 320];
	int r;

	if (pt_plat_redfish_zones(p))
		return rfz_select(s, p, l, sent, err, len);
	*sent = 0;
	r = get_bios(s, &bios, settings, sizeof(settings), err, len);
	json_object_put(bios);
	if (r)
		return r;
	if (!settings[0]) {
		snprintf(err, len, "select %s: the BMC's Bios has no Settings "
			 "resource (@Redfish.Settings): its attributes cannot "
			 "be changed", ptc_layout_name(l));
		return -EOPNOTSUPP;
	}
	/* the ETag the PATCH is made against: another client's change in
	 * between is refused by the BMC (412), not overwritten */
	r = rf_get(s, settings, &set, err, len);
	if (r)
		return r;
	snprintf(etag, sizeof(etag), "%s", s->etag[0] ? s->etag :
		 rf_jstr(set, "@odata.etag", NULL) ?: "");
	json_object_put(set);
	req = json_object_new_object();
	attrs = json_object_new_object();
	json_object_object_add(attrs, rf->attribute,
			       json_object_new_string(rf->value[l]));
	json_object_object_add(req, "Attributes", attrs);
	snprintf(s->if_match, sizeof(s->if_match), "%s", etag);
	r = rf_call(s, "PATCH", settings, json_object_to_json_string_ext(req,
		    JSON_C_TO_STRING_PLAIN), err, len);
	json_object_put(req);
	snprintf(what, sizeof(what), "select %s (PATCH %s %s=%s)",
		 ptc_layout_name(l), settings, rf->attribute, rf->value[l]);
	r = rf_change_lost(s, r, what, err, len);
	if (r == -ETIMEDOUT) {
		*sent = 1;	/* it may have been applied: the status says */
		return r;
	}
	if (r)
		return r;	/* -EAGAIN: refused connection, sent nothing */
	*sent = 1;
	if (s->code == 503) {
		*sent = 0;	/* refused before it acted */
		return rf_bad_answer(s, what, err, len);
	}
	if (s->code == 412) {
		*sent = 0;
		rf_bad_answer(s, what, err, len);
		rf_tcat(err, len, " (Bios/Settings changed by another client since "
		     "topod read it: not overwritten)");
		return -EBUSY;
	}
	if (s->code == 202) {
		r = rf_follow_task(s, what, p->bmc_job_ms, err, len);
		if (r)
			return r;
	} else if (s->code != 200 && s->code != 204) {
		*sent = 0;
		return rf_bad_answer(s, what, err, len);
	}
	s->selected = true;
	return 0;
}

static int rf_power_cycle(void *session, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(((struct rf *)
							    session)->p);
	struct rf *s = session;
	char path[RF_PATH_MAX], target[RF_PATH_MAX], body[96];
	json_object *sys = NULL;
	const char *t;
	int r;

	snprintf(path, sizeof(path), "/redfish/v1/Systems/%.128s", rf->system);
	r = rf_get(s, path, &sys, err, len);
	if (r)
		return r;
	/* the action's target as the system names it */
	t = rf_jstr(sys, "Actions", "#ComputerSystem.Reset", "target", NULL);
	snprintf(target, sizeof(target), "%s", t ? t : "");
	json_object_put(sys);
	if (!target[0])
		snprintf(target, sizeof(target),
			 "/redfish/v1/Systems/%.128s/Actions/ComputerSystem.Reset",
			 rf->system);
	snprintf(body, sizeof(body), "{\"ResetType\":\"%s\"}", rf->reset_type);
	r = rf_change_lost(s, rf_call(s, "POST", target, body, err, len),
			"ComputerSystem.Reset", err, len);
	if (r)
		return r;	/* -EAGAIN never connected (resent) */
	if (s->code == 202)
		return rf_follow_task(s, "ComputerSystem.Reset",
				   s->p->power_cycle_ms, err, len);
	if (s->code != 200 && s->code != 204)
		return rf_bad_answer(s, "ComputerSystem.Reset", err, len);
	return 0;
}

/* --- topod --check: the AttributeRegistry ------------------------------ */

/* The Bios's AttributeRegistry's entries (RegistryEntries.Attributes),
 * found through /redfish/v1/Registries: the member whose Id the Bios names
 * (BMCs name it with or without its version), its Location's Uri. *reg is
 * the whole registry (put by the caller), *attrs in it. */
static int get_registry(struct rf *s, const char *name, json_object **reg,
			json_object **attrs, char *err, size_t len)
{
	json_object *regs = NULL, *m, *file = NULL, *loc;
	const char *uri = NULL;
	char path[RF_PATH_MAX];
	int r;

	r = rf_get(s, "/redfish/v1/Registries", &regs, err, len);
	if (r)
		return r;
	m = rf_jget(regs, "Members");
	path[0] = '\0';
	for (size_t i = 0; m && i < json_object_array_length(m); i++) {
		const char *id = rf_jstr(json_object_array_get_idx(m, i),
				      "@odata.id", NULL);
		const char *last = id ? strrchr(id, '/') : NULL;
		size_t n;

		if (!last)
			continue;
		last++;
		n = strlen(last);
		if (!strcmp(last, name) ||
		    (!strncmp(name, last, n) && name[n] == '.')) {
			snprintf(path, sizeof(path), "%s", id);
			break;
		}
	}
	json_object_put(regs);
	if (!path[0]) {
		snprintf(err, len, "the Bios's AttributeRegistry \"%s\" is not "
			 "in /redfish/v1/Registries", name);
		return -ENOENT;
	}
	r = rf_get(s, path, &file, err, len);
	if (r)
		return r;
	loc = rf_jget(file, "Location");
	for (size_t i = 0; loc && i < json_object_array_length(loc); i++) {
		json_object *e = json_object_array_get_idx(loc, i);
		const char *lang = rf_jstr(e, "Language", NULL);

		if (!uri || (lang && !strcmp(lang, "en")))
			uri = rf_jstr(e, "Uri", NULL);
	}
	if (!uri) {
		json_object_put(file);
		snprintf(err, len, "%s: no Location with a Uri", path);
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s", uri);
	json_object_put(file);
	r = rf_get(s, path, reg, err, len);
	if (r)
		return r;
	*attrs = rf_jget(rf_jget(*reg, "RegistryEntries"), "Attributes");
	if (!*attrs || !json_object_is_type(*attrs, json_type_array)) {
		json_object_put(*reg);
		snprintf(err, len, "%s: no RegistryEntries.Attributes", path);
		return -EBADMSG;
	}
	return 0;
}

static json_object *registry_entry(json_object *attrs, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(attrs); i++) {
		json_object *e = json_object_array_get_idx(attrs, i);
		const char *n = rf_jstr(e, "AttributeName", NULL);

		if (n && !strcmp(n, name))
			return e;
	}
	return NULL;
}

/* "Balance, Common, Cascade": an entry's allowed values */
static void entry_values(json_object *e, char *buf, size_t len)
{
	json_object *v = rf_jget(e, "Value");
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; v && i < json_object_array_length(v); i++) {
		const char *n = rf_jstr(json_object_array_get_idx(v, i),
				     "ValueName", NULL);
		int w;

		if (!n)
			continue;
		w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", n);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
}

static bool entry_has_value(json_object *e, const char *value)
{
	json_object *v = rf_jget(e, "Value");

	for (size_t i = 0; v && i < json_object_array_length(v); i++) {
		const char *n = rf_jstr(json_object_array_get_idx(v, i),
				     "ValueName", NULL);

		if (n && !strcmp(n, value))
			return true;
	}
	return false;
}

/* "a, b, c" of every attribute name, for an attribute it does not have */
static void registry_names(json_object *attrs, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(attrs); i++) {
		const char *n = rf_jstr(json_object_array_get_idx(attrs, i),
				     "AttributeName", NULL);
		int w;

		if (!n)
			continue;
		w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", n);
		if (w < 0 || (size_t)w >= len - off) {
			if (len > 5)
				memcpy(buf + len - 5, ",...", 5);
			break;
		}
		off += (size_t)w;
	}
}

/* Preflight's and the dry run's question: does the BMC's AttributeRegistry
 * have the attribute and layout l's value? 0 where it does, or where the
 * Bios names no registry (the PATCH will say); -ENOENT naming what it has */
static int rf_can_select(void *session, const struct pt_platform *p,
			 enum pcitopo_layout l, char *err, size_t len)
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	json_object *bios = NULL, *reg = NULL, *attrs, *e;
	char settings[RF_PATH_MAX], vals[512];
	const char *regname;
	int r;

	if (pt_plat_redfish_zones(p))
		return rfz_can_select(session, p, l, err, len);
	r = get_bios(session, &bios, settings, sizeof(settings), err, len);
	if (r)
		return r;
	if (!settings[0]) {
		json_object_put(bios);
		snprintf(err, len, "the BMC's Bios has no Settings resource "
			 "(@Redfish.Settings): %s cannot be changed",
			 rf->attribute);
		return -EOPNOTSUPP;
	}
	regname = rf_jstr(bios, "AttributeRegistry", NULL);
	if (!regname) {
		json_object_put(bios);
		return 0;
	}
	r = get_registry(session, regname, &reg, &attrs, err, len);
	json_object_put(bios);
	if (r)
		return r;
	e = registry_entry(attrs, rf->attribute);
	if (!e) {
		registry_names(attrs, vals, sizeof(vals));
		snprintf(err, len, "the BMC's AttributeRegistry has no "
			 "attribute %s (platform %s); it has: %s",
			 rf->attribute, p->name, vals);
		r = -ENOENT;
	} else if (!entry_has_value(e, rf->value[l])) {
		entry_values(e, vals, sizeof(vals));
		snprintf(err, len, "layout %s is %s = \"%s\" (platform %s), "
			 "which the BMC does not allow; it allows: %s",
			 ptc_layout_name(l), rf->attribute, rf->value[l],
			 p->name, vals);
		r = -ENOENT;
	}
	json_object_put(reg);
	return r;
}

static void rf_check_bmc(const void *conf, const struct pt_platform *p,
			 void (*bad)(const char *what, const char *why))
{
	const struct pt_plat_redfish *rf = pt_plat_redfish(p);
	char err[1024], settings[RF_PATH_MAX], why[2048], vals[512];
	json_object *bios = NULL, *reg = NULL, *attrs, *e;
	const char *regname, *cur;
	void *session;
	struct rf *s;
	u8 l;

	if (rf_open(conf, p, &session, err, sizeof(err))) {
		bad("bmc", err);
		return;
	}
	s = session;
	printf("bmc:      %s: %s\n", s->c->url, s->basic ? "HTTP Basic (no "
	       "SessionService)" : "session created");
	if (pt_plat_redfish_zones(p)) {
		rfz_check_bmc(s, p, bad);
		goto out;
	}
	if (get_bios(s, &bios, settings, sizeof(settings), err, sizeof(err))) {
		bad("bmc", err);
		goto out;
	}
	if (!settings[0])
		bad("bmc", "the Bios has no Settings resource "
		    "(@Redfish.Settings): its attributes are read-only here");
	regname = rf_jstr(bios, "AttributeRegistry", NULL);
	if (!regname) {
		bad("bmc", "the Bios names no AttributeRegistry: its "
		    "attributes cannot be checked");
		goto out;
	}
	if (get_registry(s, regname, &reg, &attrs, err, sizeof(err))) {
		bad("bmc", err);
		goto out;
	}
	e = registry_entry(attrs, rf->attribute);
	if (!e) {
		registry_names(attrs, vals, sizeof(vals));
		snprintf(why, sizeof(why), "bios_attribute \"%s\": the BMC's "
			 "AttributeRegistry %s has no such attribute; it has: "
			 "%s", rf->attribute, regname, vals);
		bad("platform", why);
		goto out;
	}
	entry_values(e, vals, sizeof(vals));
	if (json_object_get_boolean(rf_jget(e, "ReadOnly"))) {
		snprintf(why, sizeof(why), "bios_attribute \"%s\" is read-only "
			 "on this BMC", rf->attribute);
		bad("platform", why);
	}
	for (l = ptc_layout_first(); l; l = ptc_layout_next(l)) {
		if (!p->layouts[l].present || entry_has_value(e, rf->value[l]))
			continue;
		snprintf(why, sizeof(why), "layouts.%s.value \"%s\": not a "
			 "value of %s on this BMC; it allows: %s",
			 ptc_layout_name(l), rf->value[l], rf->attribute, vals);
		bad("platform", why);
	}
	cur = rf_jstr(bios, "Attributes", rf->attribute, NULL);
	printf("bmc:      %s (\"%s\"): %s now, allowed %s\n", rf->attribute,
	       rf_jstr(e, "DisplayName", NULL) ?: "", cur ? cur : "(absent)",
	       vals);
out:
	json_object_put(reg);
	json_object_put(bios);
	rf_close(session);
}

/* --- topod --discover-redfish ------------------------------------------ */

/* what an attribute about the GPUs' PCIe topology may be called */
static const char *const topo_words[] = {
	"topolog", "pcie", "switch", "gpu", "root", "cascade", "balance",
	"bifurcat", NULL,
};

static bool mentions_topology(json_object *e)
{
	const char *f[3] = {
		rf_jstr(e, "AttributeName", NULL), rf_jstr(e, "DisplayName", NULL),
		rf_jstr(e, "HelpText", NULL),
	};

	for (int i = 0; i < 3; i++)
		for (const char *const *w = topo_words; f[i] && *w; w++)
			if (strcasestr(f[i], *w))
				return true;
	return false;
}

/* the layout a value's name suggests, UNKNOWN if none */
static enum pcitopo_layout guess_layout(const char *v)
{
	static const struct { const char *w; enum pcitopo_layout l; } g[] = {
		{ "balanc", PCITOPO_LAYOUT_BALANCE },
		{ "common", PCITOPO_LAYOUT_COMMON },
		{ "cascad", PCITOPO_LAYOUT_CASCADE },
	};

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (strcasestr(v, g[i].w))
			return g[i].l;
	return PCITOPO_LAYOUT_UNKNOWN;
}

/* how many of an entry's values guess_layout() names */
static unsigned int layouts_named(json_object *e)
{
	json_object *v = rf_jget(e, "Value");
	unsigned int n = 0;

	for (size_t i = 0; v && i < json_object_array_length(v); i++) {
		const char *val = rf_jstr(json_object_array_get_idx(v, i),
				       "ValueName", NULL);

		n += val && guess_layout(val) != PCITOPO_LAYOUT_UNKNOWN;
	}
	return n;
}

static void skeleton(FILE *out, const char *system, json_object *e)
{
	const char *name = rf_jstr(e, "AttributeName", NULL);
	json_object *v = rf_jget(e, "Value");
	bool used[__PCITOPO_LAYOUT_MAX] = { false };

	fprintf(out, "\n# A platform file's Redfish part for %s (pcitopo-platform(5)): check\n"
		"# each value against the vendor's description of it, and fill in name,\n"
		"# match, method, moves and budgets as platforms/template.conf says.\n"
		"transport = \"redfish\";\napply = \"power-cycle\";\n"
		"redfish = { system = \"%s\"; reset_type = \"PowerCycle\"; };\n"
		"layouts = {\n", name, system);
	for (size_t i = 0; v && i < json_object_array_length(v); i++) {
		const char *val = rf_jstr(json_object_array_get_idx(v, i),
				       "ValueName", NULL);
		enum pcitopo_layout l;

		if (!val)
			continue;
		l = guess_layout(val);
		if (l == PCITOPO_LAYOUT_UNKNOWN || used[l]) {
			fprintf(out, "\t# \"%s\": which layout (balance, common, "
				"cascade), if any?\n", val);
			continue;
		}
		used[l] = true;
		fprintf(out, "\t%-7s = { gpus = 8; bios_attribute = \"%s\"; "
			"value = \"%s\"; };\t# gpus: as many as the host sees "
			"then\n", ptc_layout_name(l), name, val);
	}
	fprintf(out, "};\n");
}

static int rf_discover(const void *conf, const char *system,
		       const char *attribute, FILE *out, char *err, size_t len)
{
	struct pt_platform *p = calloc(1, sizeof(*p));
	struct pt_plat_redfish *rf;
	json_object *bios = NULL, *reg = NULL, *attrs, *chosen = NULL;
	char settings[RF_PATH_MAX], vals[512];
	const char *regname;
	unsigned int found = 0;
	void *session = NULL;
	int r;

	if (!p)
		return -ENOMEM;
	/* a platform of nothing but the system's Id, for get_bios() */
	rf = (struct pt_plat_redfish *)(void *)p->bmc.data;
	snprintf(rf->system, sizeof(rf->system), "%s", system);
	r = rf_open(conf, p, &session, err, len);
	if (r)
		goto out;
	r = get_bios(session, &bios, settings, sizeof(settings), err, len);
	if (r)
		goto out;
	regname = rf_jstr(bios, "AttributeRegistry", NULL);
	if (!regname) {
		snprintf(err, len, "Systems/%s/Bios names no AttributeRegistry",
			 system);
		r = -ENOENT;
		goto out;
	}
	r = get_registry(session, regname, &reg, &attrs, err, len);
	if (r)
		goto out;
	fprintf(out, "Redfish %s, Systems/%s/Bios%s, AttributeRegistry %s: "
		"%zu attributes; about the PCIe topology (%s", ((struct rf *)
		session)->c->url, system, settings[0] ? "" : " (read-only: no "
		"Settings)", regname, json_object_array_length(attrs),
		topo_words[0]);
	for (const char *const *w = topo_words + 1; *w; w++)
		fprintf(out, ", %s", *w);
	fprintf(out, "):\n");
	for (size_t i = 0; i < json_object_array_length(attrs); i++) {
		json_object *e = json_object_array_get_idx(attrs, i);
		const char *name = rf_jstr(e, "AttributeName", NULL);
		const char *cur;

		if (!name || (attribute ? strcmp(name, attribute) :
			      !mentions_topology(e)))
			continue;
		found++;
		/* the skeleton's: the one whose values name most layouts */
		if (!chosen || layouts_named(e) > layouts_named(chosen))
			chosen = e;
		cur = rf_jstr(bios, "Attributes", name, NULL);
		entry_values(e, vals, sizeof(vals));
		fprintf(out, "\n%s (\"%s\"), %s%s: %s now; allowed: %s\n    %s\n",
			name, rf_jstr(e, "DisplayName", NULL) ?: "",
			rf_jstr(e, "Type", NULL) ?: "?",
			json_object_get_boolean(rf_jget(e, "ReadOnly")) ?
			", read-only" : "", cur ? cur : "(absent)",
			vals[0] ? vals : "(not an enumeration)",
			rf_jstr(e, "HelpText", NULL) ?: "");
	}
	if (!found) {
		snprintf(err, len, attribute ? "the AttributeRegistry has no "
			 "attribute %s" : "no attribute of the AttributeRegistry "
			 "mentions the PCIe topology", attribute);
		r = -ENOENT;
		goto out;
	}
	if (found > 1)
		fprintf(out, "\n%u attributes; below the part for %s, whose "
			"values name the most layouts (--attribute NAME for "
			"another)\n", found, rf_jstr(chosen, "AttributeName", NULL));
	skeleton(out, system, chosen);
out:
	/* the zone form's part: the Fabrics, unless a BIOS attribute was
	 * asked for; found, they answer where the Bios has nothing */
	if (session && !attribute) {
		char zerr[512];
		int n = rfz_discover(session, out, zerr, sizeof(zerr));

		if (n > 0 && r) {
			fprintf(out, "\nNo BIOS attribute part: %s\n", err);
			r = 0;
		} else if (n < 0 && !r) {
			snprintf(err, len, "%s", zerr);
			r = n;
		}
	}
	json_object_put(reg);
	json_object_put(bios);
	if (session)
		rf_close(session);
	free(p);
	return r;
}

static const char *const rf_kinds[] = { "redfish", NULL };

const struct bmc_ops bmc_redfish = {
	.transport = &pt_plat_redfish_transport,
	.kinds = rf_kinds,
	.conf = rf_conf,
	.describe = rf_describe,
	.check = rf_check,
	.check_bmc = rf_check_bmc,
	.discover = rf_discover,
	.open = rf_open,
	.close = rf_close,
	.name = rf_name,
	.status = rf_status,
	.select = rf_select,
	.can_select = rf_can_select,
	.power_cycle = rf_power_cycle,
};
