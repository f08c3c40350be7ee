#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-udev.sh   (in the emulated server's guest: tests/vm/t-layouts.sh)
#
# udev/90-pcitopo.rules under the real udev (`udevadm test`, Debian's
# systemd 252 udev, the host's, read over 9p): installed into the guest's
# /etc/udev/rules.d (the overlay), then simulated for the guest's real
# devices (found by class in sysfs): a GPU (class 0x0380) add and remove,
# a switch downstream port (104c:8233) and upstream port (104c:8232) and a
# root port add: PCITOPO_CLASS, the "pcitopo" tag and the RUN of busctl's
# Recheck call; an NVMe drive and a NIC add, and a GPU "change": none of
# them; the pcitopo module's own add and remove: the Recheck only, another
# module's: nothing. TAP on stdout. (`udevadm test` runs no RUN program; it lists them.)
set -uo pipefail
root=${PCITOPO_ROOT:-$(pwd)}
# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"
[[ $(stat -f -c %T /) == overlayfs ]] || { echo "not ok 1 - check-udev: not in the guest"; exit 1; }
command -v udevadm >/dev/null || { echo "not ok 1 - check-udev: no udevadm (scripts/setup: udev)"; exit 1; }
mkdir -p /etc/udev/rules.d /run/udev
cp "$root/udev/90-pcitopo.rules" /etc/udev/rules.d/

first() {	# first CLASS-PREFIX [VENDOR:DEVICE]: first device of that class
	local d
	for d in /sys/bus/pci/devices/*; do
		[[ $(<"$d/class") == "$1"* ]] || continue
		[[ -z ${2:-} || "$(<"$d/vendor"):$(<"$d/device")" == "0x${2%:*}:0x${2#*:}" ]] || continue
		echo "${d##*/}"
		return 0
	done
	return 1
}
gpu=$(first 0x0380) dsp=$(first 0x0604 104c:8233) usp=$(first 0x0604 104c:8232)
rp=$(first 0x0604 1b36:000c) nvme=$(first 0x0108) nic=$(first 0x0200)
echo "# gpu $gpu, switch downstream port $dsp, upstream port $usp, root port $rp, nvme $nvme, nic $nic"

recheck="run: '/usr/bin/busctl --system --timeout=2 --auto-start=no --expect-reply=no call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Recheck'"
utest() {	# utest ACTION DEV: udevadm test's output
	udevadm test --action="$1" "/sys/bus/pci/devices/$2" 2>&1
}
has() { grep -qxF -- "$2" <<<"$1"; }
tagged() { grep -Eq '^(TAGS|CURRENT_TAGS)=.*:pcitopo:' <<<"$1"; }
yes_case() {	# yes_case ACTION DEV KIND WHAT
	local out
	if [[ -z $2 ]]; then tap 0 "$4: no such device in this layout"; return; fi
	out=$(utest "$1" "$2")
	tap "$(has "$out" "PCITOPO_CLASS=$3" && echo 1 || echo 0)" "$4 ($2, $1): PCITOPO_CLASS=$3" "$out"
	tap "$(tagged "$out" && echo 1 || echo 0)" "$4 ($2, $1): tagged pcitopo" "$out"
	tap "$(has "$out" "$recheck" && echo 1 || echo 0)" "$4 ($2, $1): RUN busctl ... Recheck" "$out"
}
no_case() {	# no_case ACTION DEV WHAT
	local out
	if [[ -z $2 ]]; then tap 0 "$3: no such device in this layout"; return; fi
	out=$(utest "$1" "$2")
	tap "$(! grep -q '^PCITOPO_CLASS=' <<<"$out" && ! tagged "$out" &&
		! grep -q 'org.pcitopo.Topod1 Recheck' <<<"$out" && grep -q "^ACTION=$1" <<<"$out" &&
		echo 1 || echo 0)" "$3 ($2, $1): not pcitopo's (no kind, tag or RUN)" "$out"
}

yes_case add "$gpu" display "GPU"
yes_case remove "$gpu" display "GPU"
yes_case add "$dsp" bridge "switch downstream port"
yes_case add "$usp" bridge "switch upstream port"
yes_case add "$rp" bridge "root port"
no_case add "$nvme" "NVMe drive"
no_case add "$nic" "NIC"
no_case change "$gpu" "GPU"

# the module itself (/sys/module/pcitopo, once it is loaded)
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
grep -q '^pcitopo ' /proc/modules || pt_insmod ||
	tap 0 "insmod $PT_KO (make first)"
for a in add remove; do
	out=$(udevadm test --action="$a" /sys/module/pcitopo 2>&1)
	tap "$(has "$out" "$recheck" && ! tagged "$out" && ! grep -q '^PCITOPO_CLASS=' <<<"$out" &&
		echo 1 || echo 0)" "module pcitopo ($a): RUN busctl ... Recheck, no tag or kind" "$out"
done
other=$(for m in /sys/module/*/initstate; do m=${m%/initstate}; [[ ${m##*/} != pcitopo ]] && echo "$m" && break; done)
if [[ -n $other ]]; then
	out=$(udevadm test --action=add "$other" 2>&1)
	tap "$(! grep -q 'org.pcitopo.Topod1 Recheck' <<<"$out" && grep -q '^ACTION=add' <<<"$out" && echo 1 || echo 0)" \
		"module ${other##*/} (add): not pcitopo's" "$out"
fi

tap_end
