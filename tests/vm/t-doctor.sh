#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topoctl doctor in the emulated server: one boot of the common layout
# (guest/check_doctor.sh prints the TAP lines): ACS redirect set with setpci
# on a root port above GPUs, found, cleared, gone; an MPS mismatch set with
# setpci, found, cleared. AER injection and a translating IOMMU are covered
# on saved trees only (cli/tests/doctor-tests).
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")

for f in kmod/pcitopo.ko cli/topoctl; do
	if [[ ! -f $root/$f ]]; then
		echo "not ok - t-doctor: $f not built (run make)"
		exit 1
	fi
done
PCITOPO_TIMEOUT=${PCITOPO_TIMEOUT:-150} \
	"$here/run-guest" common "$here/guest/check_doctor.sh"
