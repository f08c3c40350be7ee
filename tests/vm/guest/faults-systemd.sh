#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# faults-systemd.sh   (tests/vm/t-faults-vm.sh's --setup for tests/vm/server
# start --method mux --init systemd: runs at every boot of the emulated
# server, chrooted in the overlay, before systemd starts)
#
# What t-quiesce.sh's setup installs (tests/vm/guest/quiesce-systemd.sh:
# pcitopo by make install, topod.service, the stand-in GPU units, state on
# /out/topod-state so that a power cut keeps the journal), and:
#   - bochs (bochs-drm, the stand-in GPUs' DRM driver) loaded at boot by
#     modules-load.d: every GPU has a driver from the start of each boot,
#     as a GPU server's have theirs;
#   - no /etc/pcitopo/profile: pcitopo-boot does not switch on its own in
#     the boot after a power cut (its unit's ConditionPathExists skips it),
#     so what that boot shows is topod's recovery only;
#   - a drop-in for topod.service: ExecStart takes $TOPOD_FAULT from
#     /run/topod-fault.env (tests/vm/guest/faults-case.sh writes it, and
#     empties it before it kills the held topod: systemd's restart, by
#     Restart=on-failure, runs without a fault). /run is a tmpfs: a new boot
#     starts topod without one.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
[[ $(stat -f -c %T /) == overlayfs && -d /out ]] ||
	{ echo "faults-systemd: / is not the guest's overlay: not installing into it" >&2; exit 1; }

"$here/quiesce-systemd.sh"
rm -f /etc/pcitopo/profile
echo bochs >/etc/modules-load.d/pcitopo-test-bochs.conf
unit=
for f in /lib/systemd/system/topod.service /usr/lib/systemd/system/topod.service \
	/etc/systemd/system/topod.service; do
	[[ -f $f ]] && { unit=$f; break; }
done
[[ -n $unit ]] || { echo "faults-systemd: topod.service not installed" >&2; exit 1; }
exe=$(sed -n 's/^ExecStart=//p' "$unit" | head -n 1)
mkdir -p /etc/systemd/system/topod.service.d
cat >/etc/systemd/system/topod.service.d/test-fault.conf <<EOT
# tests/vm/guest/faults-systemd.sh: topod --test-fault, for tests only
[Service]
EnvironmentFile=-/run/topod-fault.env
ExecStart=
ExecStart=$exe \$TOPOD_FAULT
EOT
echo "faults-systemd: bochs at boot, no profile, topod.service takes \$TOPOD_FAULT ($exe)"
