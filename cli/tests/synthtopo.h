/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic pt_topology models of the three 8-GPU layouts, as pcitopo.ko
 * would report them, for the printer tests and golden files. Paths are
 * classed by the rules of `nvidia-smi topo -m` (see synthtopo.c), independently
 * of core/, so that a printer test checks the printer only.
 */
#ifndef PCITOPO_CLI_TESTS_SYNTH_H
#define PCITOPO_CLI_TESTS_SYNTH_H

#include "model.h"

enum synth_layout { SY_BALANCE, SY_COMMON, SY_CASCADE, SY_COUNT };

extern const char *const synth_layout_names[SY_COUNT];

/* Build layout l into *t (zeroed first), sorted in bus order. 0 or -ENOMEM. */
int synth_build(struct pt_topology *t, enum synth_layout l);

#endif /* PCITOPO_CLI_TESTS_SYNTH_H */
