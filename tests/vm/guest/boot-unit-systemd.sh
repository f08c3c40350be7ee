#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot-unit-systemd.sh   (tests/vm/t-boot-unit.sh's --setup for
# tests/vm/server start --init systemd: runs at every boot of the emulated
# server, chrooted in the overlay, before systemd starts)
#
# Installs pcitopo into the overlay the way a package would (`make install
# DESTDIR= PREFIX=/usr`: topoctl, topod, the units, pcitopo-boot, the D-Bus
# policy and activation file, the polkit action, the udev rules, the
# modprobe@pcitopo.service link, the platforms), pcitopo.ko into
# /lib/modules/VERSION/extra (depmod), and the emulated server's setup:
#   - /etc/modules-load.d/pcitopo-test-ipmi.conf: ipmi_si, ipmi_devintf
#     (no udev coldplug in this boot to load them);
#   - /etc/modprobe.d/pcitopo-standins.conf and /etc/pcitopo/extra-ids:
#     the stand-in GPUs as extra IDs (guest/standins.sh);
#   - /etc/pcitopo/topod.conf: the platform of the server's method
#     (pcitopo.method= on the kernel command line: emulated-switchfw or
#     emulated-mux), in-band BMC,
#     state in /var/lib/pcitopo, which is a bind mount of /out/topod-state
#     (the host-backed share: it survives the power cycle, as a disk would);
#   - /etc/pcitopo/profile: PCITOPO_PROFILE_LAYOUT (default cascade);
#   - nvidia-persistenced.service, a stand-in GPU service (oneshot) that
#     appends "boot=N layout=L uptime=S" to /out/gpu-service.log at its
#     start (L: /sys/kernel/pcitopo/layout); pcitopo-boot.service is ordered
#     Before= it;
#   - topod enabled (`systemctl enable`: its D-Bus alias), and topod,
#     pcitopo-boot and the GPU stand-in pulled in by pcitopo-test.target;
#   - the Slurm units (make install puts them where pcitopo-slurm does:
#     slurmd.service.d/pcitopo.conf beside Debian's slurmd.service from the
#     host, pcitopo-slurm-reconfig.path/.service): /etc/slurm/helpers.conf
#     (the path unit's condition), the path unit enabled as
#     Documentation/slurm.md says and pulled in by pcitopo-test.target, so
#     that it watches before topod starts (paths.target < basic.target).
#     slurmd itself is not started: no cluster in this boot.
set -euo pipefail
root=${PCITOPO_ROOT:?}
kver=$(uname -r)
profile=${PCITOPO_PROFILE_LAYOUT:-cascade}
method=$(sed -n 's/.*pcitopo\.method=\([a-z]*\).*/\1/p' /proc/cmdline)
platform=emulated-${method:-switchfw}
cd "$root"
[[ $(stat -f -c %T /) == overlayfs && -d /out ]] ||
	{ echo "boot-unit-systemd: / is not the guest's overlay: not installing into it" >&2; exit 1; }

make -s install DESTDIR= PREFIX=/usr
mkdir -p "/lib/modules/$kver/extra"
cp kmod/pcitopo.ko "/lib/modules/$kver/extra/"
depmod -a "$kver"
printf 'ipmi_si\nipmi_devintf\n' >/etc/modules-load.d/pcitopo-test-ipmi.conf
# the stand-in GPUs as an operator would declare them: modprobe.d for the
# module (modprobe@pcitopo.service loads it), /etc/pcitopo/extra-ids for topoctl
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
pt_standin_conf

mkdir -p /etc/pcitopo /out/topod-state /var/lib/pcitopo
echo "$profile" >/etc/pcitopo/profile
cat >/etc/pcitopo/topod.conf <<EOC
# the emulated server (tests/vm/guest/boot-unit-systemd.sh)
platform = "/usr/share/pcitopo/platforms/$platform.conf";
bmc = { transport = "inband"; device = "/dev/ipmi0"; timeout_ms = 5000; };
EOC
mount --bind /out/topod-state /var/lib/pcitopo

u=/etc/systemd/system
cat >"$u/nvidia-persistenced.service" <<'EOT'
# stand-in GPU service (tests/vm/guest/boot-unit-systemd.sh)
[Unit]
Description=GPU service stand-in: records the PCIe layout it starts in

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'b=$(sed -n "s/.*pcitopo\\.boot=\\([0-9]*\\).*/\\1/p" /proc/cmdline); l=$(cat /sys/kernel/pcitopo/layout 2>/dev/null || echo none); echo "boot=$b layout=$l uptime=$(cut -d" " -f1 /proc/uptime)" >>/out/gpu-service.log'
EOT
systemctl enable topod.service 2>&1
mkdir -p /etc/slurm
{
	echo "# tests/vm/guest/boot-unit-systemd.sh (Documentation/slurm.md)"
	for l in balance common cascade; do
		echo "Feature=$l Helper=/usr/libexec/pcitopo/slurm-feature-helper"
	done
	echo "MutuallyExclusive=balance,common,cascade"
} >/etc/slurm/helpers.conf
systemctl enable pcitopo-slurm-reconfig.path 2>&1
for s in /lib/systemd/system/topod.service /lib/systemd/system/pcitopo-boot.service \
	/lib/systemd/system/pcitopo-slurm-reconfig.path "$u/nvidia-persistenced.service"; do
	ln -sfn "$s" "$u/pcitopo-test.target.wants/${s##*/}"
done
echo "boot-unit-systemd: installed, platform $platform, profile $profile"
