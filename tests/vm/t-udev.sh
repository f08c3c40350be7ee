#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# udev/90-pcitopo.rules under the real udev: `udevadm test` in the emulated
# server (balance: GPUs, switch ports, root ports, NVMe, NICs) for a GPU and
# switch ports (tagged pcitopo, PCITOPO_KIND, RUN of busctl's Recheck) and
# for devices the rules must leave alone (tests/vm/guest/check-udev.sh).
# The host's udevadm (package udev) runs in the guest; the host's own /run
# is not touched. TAP on stdout.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
command -v udevadm >/dev/null ||
	{ echo "not ok 1 - t-udev: no udevadm on the host (scripts/setup installs udev)"; exit 1; }
"$here/run-guest" balance "$here/guest/check-udev.sh"
