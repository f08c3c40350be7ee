// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * topod: may the sender of SetLayout change the layout? polkit's
 * CheckAuthorization for org.pcitopo.set-layout, asynchronously (an
 * interactive authentication may take a while and the bus keeps being
 * served meanwhile), with the message's allow-interactive flag. Where
 * polkit is not on the bus (a minimal host, the test guest) only root may.
 *
 * polkit_query() asks the same for PlanLayout, without interaction and
 * without acting on the answer (as logind's CanReboot): "yes", "challenge"
 * (polkit would ask for a password) or "no".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topod.h"

#define PK_NAME		"org.freedesktop.PolicyKit1"
#define PK_PATH		"/org/freedesktop/PolicyKit1/Authority"
#define PK_IFACE	"org.freedesktop.PolicyKit1.Authority"

struct auth {
	struct topod *d;
	sd_bus_message *m;
	auth_done_fn done;
	auth_query_fn query;		/* polkit_query(): only tell */
	void *userdata;
};

static void deny(sd_bus_message *m, const char *why)
{
	(void)sd_bus_reply_method_errorf(m, SD_BUS_ERROR_ACCESS_DENIED,
		"not authorized to change the PCIe layout (%s: %s)",
		TOPOD_POLKIT_ACTION, why);
}

static void root_only(struct auth *a)
{
	sd_bus_creds *c = NULL;
	uid_t uid = (uid_t)-1;
	int r;

	r = sd_bus_query_sender_creds(a->m, SD_BUS_CREDS_EUID |
				      SD_BUS_CREDS_AUGMENT, &c);
	if (r >= 0)
		r = sd_bus_creds_get_euid(c, &uid);
	sd_bus_creds_unref(c);
	if (a->query) {
		a->query(a->userdata, r >= 0 && uid == 0 ? "yes" : "no");
		return;
	}
	if (r >= 0 && uid == 0) {
		a->done(a->d, a->m);
		return;
	}
	deny(a->m, "polkit is not running and the caller is not root");
}

static int pk_reply(sd_bus_message *reply, void *userdata,
		    sd_bus_error *ret_error)
{
	struct auth *a = userdata;
	int authorized = 0, challenge = 0, r;

	(void)ret_error;
	if (sd_bus_message_is_method_error(reply, NULL)) {
		const sd_bus_error *e = sd_bus_message_get_error(reply);

		/* polkit absent, or activatable but not starting */
		if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					   SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
		    (e->name && !strncmp(e->name,
					 "org.freedesktop.DBus.Error.Spawn.", 33)))
			root_only(a);
		else if (a->query)
			a->query(a->userdata, "no");
		else
			deny(a->m, e->message ? e->message : e->name);
		goto out;
	}
	r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
	if (r >= 0)
		r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
	if (a->query) {
		a->query(a->userdata, r < 0 ? "no" : authorized ? "yes" :
			 challenge ? "challenge" : "no");
		goto out;
	}
	if (r < 0)
		deny(a->m, "malformed answer from polkit");
	else if (authorized)
		a->done(a->d, a->m);
	else if (challenge)
		(void)sd_bus_reply_method_errorf(a->m,
			SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
			"authentication required to change the PCIe layout "
			"(%s): ask from a terminal to authenticate, or be a "
			"member of the group pcitopo", TOPOD_POLKIT_ACTION);
	else
		deny(a->m, "denied by polkit");
out:
	sd_bus_message_unref(a->m);
	free(a);
	return 0;
}

static int ask(struct topod *d, sd_bus_message *m, auth_done_fn done,
	       auth_query_fn query, void *userdata, int interactive,
	       sd_bus_error *error)
{
	struct auth *a;
	const char *sender = sd_bus_message_get_sender(m);
	int r;

	if (!sender)
		return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
					"no sender on a direct connection");
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->d = d;
	a->m = sd_bus_message_ref(m);
	a->done = done;
	a->query = query;
	a->userdata = userdata;
	r = sd_bus_call_method_async(d->bus, NULL, PK_NAME, PK_PATH, PK_IFACE,
				     "CheckAuthorization", pk_reply, a,
				     "(sa{sv})sa{ss}us", "system-bus-name", 1,
				     "name", "s", sender, TOPOD_POLKIT_ACTION,
				     0, interactive > 0 ? 1u : 0u, "");
	if (r < 0) {
		sd_bus_message_unref(a->m);
		free(a);
		return r;
	}
	return 1;	/* answered later, by pk_reply() */
}

int polkit_check(struct topod *d, sd_bus_message *m, auth_done_fn done,
		 sd_bus_error *error)
{
	return ask(d, m, done, NULL, NULL,
		   sd_bus_message_get_allow_interactive_authorization(m), error);
}

int polkit_query(struct topod *d, sd_bus_message *m, auth_query_fn query,
		 void *userdata, sd_bus_error *error)
{
	return ask(d, m, NULL, query, userdata, 0, error);
}
