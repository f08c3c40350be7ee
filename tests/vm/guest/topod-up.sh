#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topod-up.sh PLATFORM   (in the emulated server's guest, as root)
#
# Brings up what topod needs in the guest, the way a real host has it:
# pcitopo.ko, the in-band BMC (/dev/ipmi0), a system D-Bus with the shipped
# policy (/etc/dbus-1/system.d) and polkit action (/usr/share/polkit-1/
# actions; polkitd is activatable), both on the guest's writable overlay, the
# config /etc/pcitopo/topod.conf (platforms/PLATFORM.conf, in-band, state in
# /out/topod-state: the host-backed share, so a power cycle keeps the
# journal, as /var/lib/pcitopo would be kept on disk), then topod itself,
# detached from this job (log /out/topod.log). Idempotent: a second call
# only checks. Exits 0 once org.pcitopo.Topod is on the bus.
# Under systemd (tests/vm/server --init systemd) the system bus is already
# there (dbus.socket): the policy is added and the bus told to reload.
# PCITOPO_STATE_DIR: topod's state_dir instead of /out/topod-state (a
# guest-local /var/lib/pcitopo, where inotify sees the commits: the 9p
# share gives pcitopo-slurm-reconfig.path nothing to watch).
set -euo pipefail
plat=${1:?usage: topod-up.sh PLATFORM}
root=${PCITOPO_ROOT:-$(pwd)}
out=${PCITOPO_OUT:-/out}

# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
grep -q '^pcitopo ' /proc/modules || pt_insmod
modprobe ipmi_si 2>/dev/null || true
modprobe ipmi_devintf 2>/dev/null || true
for _ in $(seq 100); do [[ -c /dev/ipmi0 ]] && break; sleep 0.1; done
[[ -c /dev/ipmi0 ]] || { echo "topod-up: no /dev/ipmi0" >&2; exit 1; }

# the polkit action too: polkitd is D-Bus activatable here (the host's)
mkdir -p /usr/share/polkit-1/actions
cp "$root/dbus/org.pcitopo.policy" /usr/share/polkit-1/actions/
mkdir -p /etc/dbus-1/system.d
if [[ -S /run/dbus/system_bus_socket ]]; then
	if ! cmp -s "$root/dbus/org.pcitopo.Topod.conf" /etc/dbus-1/system.d/org.pcitopo.Topod.conf; then
		cp "$root/dbus/org.pcitopo.Topod.conf" /etc/dbus-1/system.d/
		busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
			ReloadConfig >/dev/null
	fi
else
	mkdir -p /run/dbus
	cp "$root/dbus/org.pcitopo.Topod.conf" /etc/dbus-1/system.d/
	getent passwd messagebus >/dev/null || { echo "topod-up: no messagebus user" >&2; exit 1; }
	dbus-daemon --system --fork --nopidfile
	for _ in $(seq 100); do [[ -S /run/dbus/system_bus_socket ]] && break; sleep 0.1; done
fi

# NFD's features.d, as its worker's hostPath makes it on a Kubernetes node:
# topod's node labels (its default nfd_features_dir) go there
state=${PCITOPO_STATE_DIR:-$out/topod-state}
mkdir -p /etc/pcitopo/platforms "$state" \
	/etc/kubernetes/node-feature-discovery/features.d
cp "$root/platforms/$plat.conf" "/etc/pcitopo/platforms/$plat.conf"
cat >/etc/pcitopo/topod.conf <<EOC
# the emulated server: in-band BMC (KCS over QEMU's ipmi-bmc-extern)
platform = "/etc/pcitopo/platforms/$plat.conf";
bmc = { transport = "inband"; device = "/dev/ipmi0"; timeout_ms = 5000; };
state_dir = "$state";
EOC

# (busctl status needs the owner's credentials, not there in this chroot)
has_topod() {
	[[ $(busctl call org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus NameHasOwner s org.pcitopo.Topod 2>/dev/null) == "b true" ]]
}
if ! has_topod; then
	setsid "$root/daemon/topod/topod" --config /etc/pcitopo/topod.conf \
		>>"$out/topod.log" 2>&1 </dev/null &
	for _ in $(seq 60); do
		has_topod && break
		sleep 0.5
	done
fi
has_topod || {
	echo "topod-up: topod did not come up:" >&2
	tail -20 "$out/topod.log" >&2
	exit 1
}
echo "topod-up: topod running ($plat)"
