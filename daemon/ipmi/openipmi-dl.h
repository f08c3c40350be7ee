/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libOpenIPMI, loaded with dlopen() when the LAN transport is first opened.
 *
 * Only the LAN transport (lan.c) uses libOpenIPMI; the in-band transport is
 * ioctls on /dev/ipmi0. Linking it would map libOpenIPMI,
 * libOpenIPMIposix, libOpenIPMIutils, libcrypto and libm into every
 * process that links libptipmi, topod included, whether it ever talks to a
 * BMC over LAN or not (2.2 MiB of topod's 5.6 MiB idle resident size). So
 * nothing links them: pt_openipmi_load() opens
 *
 *   libOpenIPMI.so.0       (which pulls in libOpenIPMIutils.so.0, libcrypto)
 *   libOpenIPMIposix.so.0  (the POSIX OS handler)
 *
 * (Debian package libopenipmi0) and resolves every function lan.c calls
 * into the table pt_oi. Each pointer is declared with the type of the
 * function's prototype in the OpenIPMI headers (__typeof__), so a call
 * through pt_oi is checked by the compiler as the direct call was, and a
 * direct call left in lan.c fails the link (nothing links libOpenIPMI),
 * never the run.
 *
 * All or nothing: if a library or one symbol is missing, the table stays
 * empty and the libraries are closed again. A failure is not remembered:
 * the next call tries again (the package may have been installed since).
 * Once loaded, the libraries stay until the process exits (libcrypto could
 * not be unloaded anyway: it is NODELETE).
 *
 * Thread-safe (a mutex); libraries do not print: what failed is in err.
 */
#ifndef PCITOPO_DAEMON_OPENIPMI_DL_H
#define PCITOPO_DAEMON_OPENIPMI_DL_H

#include <stddef.h>

#include <OpenIPMI/ipmi_conn.h>
#include <OpenIPMI/ipmi_lan.h>
#include <OpenIPMI/ipmi_posix.h>
#include <OpenIPMI/ipmiif.h>

/* The SONAMEs, and the package that ships them. */
#define PT_OPENIPMI_LIB		"libOpenIPMI.so.0"
#define PT_OPENIPMI_POSIX_LIB	"libOpenIPMIposix.so.0"
#define PT_OPENIPMI_PACKAGE	"libopenipmi0"

/* The functions lan.c calls, named as in libOpenIPMI. */
struct pt_openipmi {
	/* libOpenIPMIposix.so.0 */
	__typeof__(ipmi_posix_setup_os_handler) *ipmi_posix_setup_os_handler;
	/* libOpenIPMI.so.0 */
	__typeof__(ipmi_init) *ipmi_init;
	__typeof__(ipmi_shutdown) *ipmi_shutdown;
	__typeof__(ipmi_lanp_setup_con) *ipmi_lanp_setup_con;
	__typeof__(ipmi_alloc_msg_item) *ipmi_alloc_msg_item;
	__typeof__(ipmi_free_msg_item) *ipmi_free_msg_item;
};

/* Valid (every pointer set) after pt_openipmi_load() returned 0. */
extern struct pt_openipmi pt_oi;

/*
 * Load both libraries and resolve every pointer of pt_oi; 0 at once when
 * already loaded. Errors (err, errlen bytes, may be NULL, names the
 * library, the reason and the package):
 * -ELIBACC: a library cannot be loaded (not installed, or not a usable
 *	shared object): "cannot load libOpenIPMI.so.0: cannot open shared
 *	object file: No such file or directory (the LAN transport needs it:
 *	install libopenipmi0)";
 * -ELIBBAD: a library lacks one of the functions (not OpenIPMI 2.0's):
 *	"libOpenIPMI.so.0 (PATH) has no function ipmi_init: ...".
 */
int pt_openipmi_load(char *err, size_t errlen);

#endif /* PCITOPO_DAEMON_OPENIPMI_DL_H */
