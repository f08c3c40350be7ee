#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topoctl in the emulated server, in each layout (guest/check_topoctl.sh
# prints the TAP lines): topo against tests/vm/golden/topo-LAYOUT.txt, -j
# output, the NCCL export, the sysfs source (libpci) against the module,
# snapshot replay, monitor through a switch removal and rescan, errors, and
# the fallback when the module is not loaded; first, in each, what every real
# server has (guest/check_server.sh: the BMC's VGA is no GPU, Soft-RoCE rxe0
# is the one NIC of topo). Then balance4 (two switches per NUMA node) is
# booted once for check_server.sh alone: read-only, no golden file.
# PCITOPO_LAYOUTS="cascade" to run fewer layouts (PCITOPO_LAYOUTS4="" skips
# balance4).
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")

for f in kmod/pcitopo.ko cli/topoctl; do
	if [[ ! -f $root/$f ]]; then
		echo "not ok - t-topoctl: $f not built (run make)"
		exit 1
	fi
done
rc=0
for layout in ${PCITOPO_LAYOUTS:-balance common cascade}; do
	PCITOPO_TIMEOUT=${PCITOPO_TIMEOUT:-300} \
		"$here/run-guest" "$layout" "$here/guest/check_topoctl.sh" || rc=1
done
for layout in ${PCITOPO_LAYOUTS4-balance4}; do
	PCITOPO_TIMEOUT=${PCITOPO_TIMEOUT:-300} \
		"$here/run-guest" "$layout" "$here/guest/check_server.sh" || rc=1
done
exit "$rc"
