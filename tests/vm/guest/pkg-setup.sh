#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pkg-setup.sh   (tests/pkg/t-pkg.sh's --setup for tests/vm/server start
# --init systemd: runs chrooted in the guest's overlay before systemd starts)
#
# Only what the emulated server itself needs, nothing of pcitopo: the test
# installs the Debian packages into the running guest with apt, as an
# administrator would.
#   - /etc/modules-load.d/pcitopo-test-ipmi.conf: ipmi_si, ipmi_devintf (no
#     udev coldplug in this boot to load them);
#   - /etc/modprobe.d/pcitopo-standins.conf and /etc/pcitopo/extra-ids: the
#     stand-in GPUs as extra IDs (guest/standins.sh), as an operator of such
#     hardware writes them before installing;
#   - no pcitopo file anywhere: the host has no pcitopo package installed
#     and `make install` is not run (checked: the test fails otherwise).
set -euo pipefail
root=${PCITOPO_ROOT:?}
[[ $(stat -f -c %T /) == overlayfs && -d /out ]] ||
	{ echo "pkg-setup: / is not the guest's overlay: not writing into it" >&2; exit 1; }
for f in /usr/sbin/topod /usr/bin/topoctl /lib/systemd/system/topod.service; do
	[[ ! -e $f ]] || { echo "pkg-setup: $f already there: the host has pcitopo installed" >&2; exit 1; }
done
printf 'ipmi_si\nipmi_devintf\n' >/etc/modules-load.d/pcitopo-test-ipmi.conf
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
pt_standin_conf
echo "pkg-setup: done"
