/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libpcitopo: libpci for the sysfs source, loaded on first use (dl.h) and
 * still called by its own names: after this header pci_init() and friends
 * are the pointers libpci_dl.c fills. Only the functions the source calls
 * are listed; one called but not listed is an undefined symbol at link time.
 */
#ifndef PCITOPO_LIB_LIBPCI_DL_H
#define PCITOPO_LIB_LIBPCI_DL_H

#include <stddef.h>

#include <pci/pci.h>

#define PT_LIBPCI_SYMBOLS(X)						\
	X(pci_alloc) X(pci_init) X(pci_cleanup) X(pci_scan_bus)		\
	X(pci_set_param) X(pci_fill_info) X(pci_setup_cache)		\
	X(pci_find_cap) X(pci_read_byte) X(pci_read_word)		\
	X(pci_read_long) X(pci_read_block)

/* Declared before the names are redirected, so __typeof__ sees libpci's. */
#define PT_LIBPCI_EXTERN(f)	extern __typeof__(f) *sym_##f;
PT_LIBPCI_SYMBOLS(PT_LIBPCI_EXTERN)

/*
 * Load libpci.so.3 and fill every pointer (pt_dl_open()): 0, -ELIBACC or
 * -ELIBBAD with the message in err.
 */
int pt_libpci_open(char *err, size_t len);

#ifndef PT_LIBPCI_NO_REDIRECT
#define pci_alloc	sym_pci_alloc
#define pci_init	sym_pci_init
#define pci_cleanup	sym_pci_cleanup
#define pci_scan_bus	sym_pci_scan_bus
#define pci_set_param	sym_pci_set_param
#define pci_fill_info	sym_pci_fill_info
#define pci_setup_cache	sym_pci_setup_cache
#define pci_find_cap	sym_pci_find_cap
#define pci_read_byte	sym_pci_read_byte
#define pci_read_word	sym_pci_read_word
#define pci_read_long	sym_pci_read_long
#define pci_read_block	sym_pci_read_block
#endif

#endif /* PCITOPO_LIB_LIBPCI_DL_H */
