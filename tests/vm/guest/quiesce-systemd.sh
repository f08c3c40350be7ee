#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# quiesce-systemd.sh   (tests/vm/t-quiesce.sh's --setup for tests/vm/server
# start --method mux --init systemd: runs at every boot of the emulated
# server, chrooted in the overlay, before systemd starts)
#
# pcitopo installed as by tests/vm/guest/boot-unit-systemd.sh (make install,
# pcitopo.ko, topod with the platform of the server's method, here
# emulated-mux, in-band BMC, state on /out/topod-state; profile balance, so
# pcitopo-boot finds the layout and switches nothing), then the three units
# the platform names in stop_units, as stand-in GPU daemons
# (tests/vm/guest/gpu-standin.sh: one line to /out/units/UNIT.log at start
# and at stop, with the module's layout, GPU count and generation):
# in /lib/systemd/system, as a package installs them (`systemctl mask`
# works on them):
#   - nvidia-persistenced.service: pulled in by the boot target (active
#     before any switch), Restart=on-failure (NRestarts counts), its stop
#     takes 1 s (GPU_STANDIN_STOP_DELAY: topod must wait for it), and so
#     does its start (ExecStartPre sleeps: topoctl set, which waits for the
#     start job, returns with it active, never activating);
#   - nvidia-dcgm.service: RefuseManualStop=yes (StopUnit is refused); not started
#     at boot, the test starts it;
#   - nvidia-fabricmanager.service: its stop takes 1 s; not started at
#     boot; Restart=no. The test starts it, makes its stop wait for
#     nvidia-persistenced to be inactive (/run/gpu-standin/UNIT.stop-after)
#     and stops it with --no-block just before a switch: topod, which stops
#     nvidia-persistenced first, finds it deactivating.
# Every unit's start fails (ExecStartPre) while /run/gpu-standin/UNIT.fail-start
# exists: a GPU daemon that cannot come back after a switch.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
[[ $(stat -f -c %T /) == overlayfs && -d /out ]] ||
	{ echo "quiesce-systemd: / is not the guest's overlay: not installing into it" >&2; exit 1; }

PCITOPO_PROFILE_LAYOUT=balance "$here/boot-unit-systemd.sh"

mkdir -p /out/units
# where a package puts its units (so that `systemctl mask` works)
u=/lib/systemd/system
rm -f /etc/systemd/system/nvidia-persistenced.service
# standin UNIT STOP_DELAY START_DELAY RESTART [EXTRA [Unit] LINE]
standin() {
	cat >"$u/$1" <<EOT
# stand-in GPU daemon (tests/vm/guest/quiesce-systemd.sh)
[Unit]
Description=GPU daemon stand-in $1: logs the layout at its start and stop
${5:-}

[Service]
Type=exec
ExecStartPre=/bin/sh -c '! test -e /run/gpu-standin/%n.fail-start'
ExecStartPre=/bin/sleep $3
ExecStart=$here/gpu-standin.sh /out/units/%n.log %n
Environment=GPU_STANDIN_STOP_DELAY=$2
Restart=$4
TimeoutStopSec=60
EOT
}
standin nvidia-persistenced.service 1 1 on-failure
standin nvidia-dcgm.service 0 0 on-failure RefuseManualStop=yes
standin nvidia-fabricmanager.service 1 0 no
ln -sfn "$u/nvidia-persistenced.service" \
	/etc/systemd/system/pcitopo-test.target.wants/nvidia-persistenced.service
echo "quiesce-systemd: stand-in GPU units installed"
