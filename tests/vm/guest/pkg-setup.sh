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
#   - no /usr/sbin/policy-rc.d (the host's, a docker image's, denies every
#     invoke-rc.d/deb-systemd-invoke action);
#   - /etc/apt/apt.conf.d/99pcitopo-test-offline: no repository (offline);
#     man-db/auto-update false (its flag file removed);
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
# an offline server: apt knows no repository (dependencies come from dpkg's
# status alone; it also spares apt, whose cache the host's docker-clean
# disables, parsing the host's package lists at every call under TCG), and
# man-db does not rebuild its index at each trigger
# a server has no policy-rc.d: the host's (a docker image's "exit 101")
# would make deb-systemd-invoke refuse the packages' start, restart and stop
rm -f /usr/sbin/policy-rc.d
mkdir -p /etc/apt/pcitopo-test-offline.d
: >/etc/apt/pcitopo-test-offline.list
cat >/etc/apt/apt.conf.d/99pcitopo-test-offline <<'EOC'
// tests/vm/guest/pkg-setup.sh: the emulated server has no network
Dir::Etc::SourceList "/etc/apt/pcitopo-test-offline.list";
Dir::Etc::SourceParts "/etc/apt/pcitopo-test-offline.d";
EOC
# man-db's trigger reads a flag file, not debconf (man-db.postinst's
# run_mandb): without the file it builds no index (under TCG, mandb over
# a release root's pages took minutes at each install, upgrade and purge)
echo 'man-db man-db/auto-update boolean false' | debconf-set-selections
rm -f /var/lib/man-db/auto-update
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
pt_standin_conf
echo "pkg-setup: done"
