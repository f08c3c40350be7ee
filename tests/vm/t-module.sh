#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pcitopo.ko in the emulated server, in each layout: load it, check devices,
# links, paths and layout against the layout's JSON, remove and rescan a
# switch, the admin operations, bad requests, unload during a dump
# (guest/check_module.py prints the TAP lines).
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")

if [[ ! -f $root/kmod/pcitopo.ko ]]; then
	echo "not ok - t-module: kmod/pcitopo.ko not built (run make)"
	exit 1
fi
rc=0
for layout in ${PCITOPO_LAYOUTS:-balance common cascade}; do
	"$here/run-guest" "$layout" "$here/guest/check_module.py" || rc=1
done
exit "$rc"
