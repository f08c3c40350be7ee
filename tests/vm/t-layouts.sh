#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Each emulated layout booted once for every check that only reads it
# (guest/layout-checks.sh): the PCI tree against the layout file (smoke),
# udev's rules under the real udev (balance), topoctl against
# tests/vm/golden/guest-topo-LAYOUT.txt with what every real server has
# (check_server.sh, check_topoctl.sh), then the module (check_module.py:
# devices, links, paths, layout, a switch removed and rescanned, admin
# operations, bad requests, unload during a dump), on common doctor's ACS
# and MPS checks (check_doctor.sh). Then balance4 (two
# switches per NUMA node) for check_server.sh alone. Before this file the
# same layouts booted three times each (smoke, t-module, t-topoctl).
# PCITOPO_LAYOUTS="cascade" to run fewer layouts (PCITOPO_LAYOUTS4=""
# skips balance4). Guest time per boot as "# boot" comments.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"
cd "$root" || exit 1
need_built kmod/pcitopo.ko cli/topoctl
need_cmds udevadm
rc=0
boot() { # boot LAYOUT SCRIPT
	local t0=$SECONDS
	PCITOPO_TIMEOUT=${PCITOPO_TIMEOUT:-600} "$here/run-guest" "$1" "$here/guest/$2" || rc=1
	echo "# boot $1 ($2): $((SECONDS - t0)) s"
}
for layout in ${PCITOPO_LAYOUTS:-balance common cascade}; do
	boot "$layout" layout-checks.sh
done
for layout in ${PCITOPO_LAYOUTS4-balance4}; do
	boot "$layout" check_server.sh
done
exit "$rc"
