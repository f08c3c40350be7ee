#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# module-smoke.sh (in the guest, run by tests/vm/t-kernels.sh through
# run-guest PCITOPO_KERNEL=NAME): the module's smoke check on a kernel that
# is booted for it alone (scripts/kernels.list's "smoke"): the pcitopo.ko
# built for this kernel (make kernels) loads, its vermagic is the running
# kernel's, sysfs and netlink both answer with the layout the guest was
# booted in, a path dump filtered by one device (the API that moved in 6.6,
# kmod/pcitopo_compat.h) returns that device's paths, it unloads, and the
# kernel logged no oops, warning or BUG. TAP.
set -uo pipefail
root=${PCITOPO_ROOT:?run me through tests/vm/run-guest}
lay=${PCITOPO_LAYOUT_FILE:?}
name=$(jq -r .name "$lay")
TAP_PREFIX="$name on $(uname -r): "
# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
nlprobe=(python3 -B "$root/tests/vm/guest/nlprobe.py")
d=$(mktemp -d)

vm=$(modinfo -F vermagic "$PT_KO" 2>"$d/e" | cut -d' ' -f1)
[[ $vm == "$(uname -r)" ]]
ok $? "$PT_KO is built for the running kernel (vermagic '$vm')" "$d/e"
pt_insmod 2>"$d/e"
ok $? "insmod with the stand-ins' extra IDs" "$d/e"

want_layout=$(jq -r .expect.layout "$lay")
want_gpus=$(jq '[.endpoints[] | select(.kind == "gpu")] | length' "$lay")
got="$(cat /sys/kernel/pcitopo/layout 2>&1) $(cat /sys/kernel/pcitopo/count_gpus 2>&1)"
[[ $got == "$want_layout $want_gpus" ]]
ok $? "sysfs: layout $want_layout with $want_gpus GPUs (got $got)"

"${nlprobe[@]}" "do" get_summary >"$d/s" 2>&1
[[ $(jq -c '[.errno, .messages[0].COUNT_GPUS]' "$d/s" 2>/dev/null) == "[0,$want_gpus]" ]]
ok $? "netlink: the pcitopo family answers get_summary with $want_gpus GPUs" "$d/s"

# GPU0: the first stand-in (class 0x0380) in bus order, as topoctl numbers
gpu0=$(grep -l '^0x0380' /sys/bus/pci/devices/*/class | sort | head -n 1 | xargs dirname | xargs basename)
"${nlprobe[@]}" dump get_path "PATH_A=$gpu0" >"$d/p" 2>&1
want=$(find "/sys/kernel/pcitopo/devices/$gpu0/paths" -mindepth 1 -maxdepth 1 -type d | wc -l)
got=$(jq --arg a "$gpu0" '[.messages[] | select(.PATH_A == $a)] | length' "$d/p" 2>/dev/null)
all=$(jq '.messages | length' "$d/p" 2>/dev/null)
[[ $(jq .errno "$d/p" 2>/dev/null) == 0 && -n $got && $got == "$all" && $got == "$want" && $got -gt 0 ]]
ok $? "netlink: a path dump filtered by GPU0 ($gpu0) has its $want paths, no other" "$d/p"

rmmod pcitopo 2>"$d/e" && [[ ! -e /sys/kernel/pcitopo ]]
ok $? "rmmod: /sys/kernel/pcitopo gone" "$d/e"
dmesg | grep -E 'Oops|WARNING:|BUG:|Call Trace|pcitopo.*(error|failed)' |
	grep -v 'module verification failed' >"$d/k" # (unsigned: a taint, expected)
[[ ! -s $d/k ]]
ok $? "no oops, warning or BUG in dmesg" "$d/k"
rm -rf "$d"
echo "1..$n"
((failed == 0))
