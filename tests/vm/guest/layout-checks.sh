#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every check that reads one layout, in one boot of it (run by
# tests/vm/t-layouts.sh through run-guest): the guest's PCI tree against the
# layout file (smoke.sh); on balance, udev's rules under the real udev
# (check-udev.sh); topoctl (check_topoctl.sh, which begins with
# check_server.sh); the module (check_module.py); on common, doctor's ACS
# and MPS staged with setpci (check_doctor.sh: t-doctor.sh's other boots
# need other QEMU and kernel options); on cascade, the module's extra_ids
# parameter and new_id against tests/unit/extra-id-cases.txt
# (check_extra_ids.sh). The order matters: the
# reading checks come before the ones that remove and rescan a switch
# (Soft-RoCE's rxe0 does not come back from a rescan), and each script
# leaves the module unloaded, as it found it. Each script's TAP lines pass
# through, then its guest time as a "# part" comment; a script that fails
# without a "not ok" line gets one.
set -uo pipefail
g=$(dirname "$(readlink -f "$0")")
rc=0
part() { # part NAME CMD...
	local name=$1 out st t0=$SECONDS
	shift
	out=$("$@")
	st=$?
	[[ -n $out ]] && printf '%s\n' "$out"
	echo "# part $PCITOPO_LAYOUT $name: $((SECONDS - t0)) s"
	if ((st != 0)); then
		rc=1
		grep -q '^not ok' <<<"$out" || echo "not ok - $PCITOPO_LAYOUT: $name exited $st"
	fi
	# a script that died half-way may leave the module loaded
	[[ -d /sys/module/pcitopo ]] && rmmod pcitopo 2>/dev/null
	return 0
}
part smoke "$g/smoke.sh"
[[ $PCITOPO_LAYOUT == balance ]] && part check-udev "$g/check-udev.sh"
part check_topoctl "$g/check_topoctl.sh"
part check_module "$g/check_module.py"
[[ $PCITOPO_LAYOUT == common ]] && part check_doctor "$g/check_doctor.sh"
[[ $PCITOPO_LAYOUT == cascade ]] && part check_extra_ids "$g/check_extra_ids.sh"
exit "$rc"
