/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libsystemd loaded on first use, not at exec.
 *
 * Only `set` and `status` talk to topod over D-Bus; every other command
 * would pay for mapping and relocating libsystemd and its six libraries
 * (libgcrypt, liblzma, libzstd, liblz4, libcap, libgpg-error) at every
 * start: about 35 ms of a 120 ms start in the TCG guest, more than all
 * other libraries together. So topoctl does not link libsystemd: set.c and
 * status.c call sd_bus_* by their usual names, and this header turns those
 * names into pointers that sdbus_dl_open() fills through lib/dl.h (its
 * pattern, with the pointers declared here, not static, as two files call
 * them). A function used there but missing from SDBUS_DL_SYMBOLS fails the
 * link (an undefined sd_bus_* symbol), never the run.
 */
#ifndef PCITOPO_CLI_SDBUS_DL_H
#define PCITOPO_CLI_SDBUS_DL_H

#include <stddef.h>
#include <systemd/sd-bus.h>

#define SDBUS_DL_SONAME "libsystemd.so.0"

#define SDBUS_DL_SYMBOLS(X)				\
	X(sd_bus_open_system)				\
	X(sd_bus_flush_close_unref)			\
	X(sd_bus_set_allow_interactive_authorization)	\
	X(sd_bus_call_method)				\
	X(sd_bus_add_match)				\
	X(sd_bus_match_signal)				\
	X(sd_bus_process)				\
	X(sd_bus_wait)					\
	X(sd_bus_message_read)				\
	X(sd_bus_message_skip)				\
	X(sd_bus_message_enter_container)		\
	X(sd_bus_message_exit_container)		\
	X(sd_bus_message_unref)				\
	X(sd_bus_error_free)				\
	X(sd_bus_error_has_name)			\
	X(sd_bus_error_has_names_sentinel)		\
	X(sd_bus_message_new_method_call)		\
	X(sd_bus_message_append)			\
	X(sd_bus_message_get_error)			\
	X(sd_bus_call_async)				\
	X(sd_bus_error_copy)

/* The pointers, typed from the real prototypes: a mismatch does not build. */
#define SDBUS_DL_DECLARE(f) extern __typeof__(f) *sym_##f;
SDBUS_DL_SYMBOLS(SDBUS_DL_DECLARE)
#undef SDBUS_DL_DECLARE

/*
 * Load libsystemd and resolve every symbol (pt_dl_open(), lib/dl.h);
 * idempotent. 0, or -ELIBACC when the library cannot be loaded and -ELIBBAD
 * when a symbol is missing, with "libsystemd.so.0 (package libsystemd0):
 * why" in err.
 */
int sdbus_dl_open(char *err, size_t len);

#ifndef SDBUS_DL_NO_REDIRECT
#define sd_bus_open_system			sym_sd_bus_open_system
#define sd_bus_flush_close_unref		sym_sd_bus_flush_close_unref
#define sd_bus_set_allow_interactive_authorization \
	sym_sd_bus_set_allow_interactive_authorization
#define sd_bus_call_method			sym_sd_bus_call_method
#define sd_bus_add_match			sym_sd_bus_add_match
#define sd_bus_match_signal			sym_sd_bus_match_signal
#define sd_bus_process				sym_sd_bus_process
#define sd_bus_wait				sym_sd_bus_wait
#define sd_bus_message_read			sym_sd_bus_message_read
#define sd_bus_message_skip			sym_sd_bus_message_skip
#define sd_bus_message_enter_container		sym_sd_bus_message_enter_container
#define sd_bus_message_exit_container		sym_sd_bus_message_exit_container
#define sd_bus_message_unref			sym_sd_bus_message_unref
#define sd_bus_error_free			sym_sd_bus_error_free
#define sd_bus_error_has_name			sym_sd_bus_error_has_name
#define sd_bus_error_has_names_sentinel		sym_sd_bus_error_has_names_sentinel
#define sd_bus_message_new_method_call		sym_sd_bus_message_new_method_call
#define sd_bus_message_append			sym_sd_bus_message_append
#define sd_bus_message_get_error		sym_sd_bus_message_get_error
#define sd_bus_call_async			sym_sd_bus_call_async
#define sd_bus_error_copy			sym_sd_bus_error_copy
#endif

#endif
