#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pcitopo.ko on the other kernels of scripts/kernels.list (the host
# release's kernel is the one every other tests/vm test boots), each with
# the pcitopo.ko built for it by scripts/kbuild-matrix (make kernels):
#   - "smoke" kernels (Debian 11's 5.10, sid's newest): one boot each of
#     cascade for guest/module-smoke.sh: the module loads, sysfs and netlink
#     (a filtered path dump too) answer the layout, it unloads, dmesg clean;
#   - "module" kernels (Debian 13's 6.12): the MUX server (tests/vm/server
#     --kernel NAME) with its BMC; the module's checks (guest/check_module.py:
#     devices, links, paths, layout, a switch removed and rescanned, admin
#     operations, bad requests, unload during a dump) at balance; then topod
#     (guest/topod-up.sh) switches online to cascade and to common, the MUX
#     moving GPU4-7 through slot power and pciehp (the module's hotplug
#     path), and check_module.py --read holds each layout against its file.
# One boot a kernel; each one's time as a "# boot" comment. TAP.
# PCITOPO_KERNELS="sid" limits it to the kernels named.
# shellcheck disable=SC2016 # single-quoted scripts expand in the guest
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root" || exit 1

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"
# shellcheck source=tests/vm/vm-paths.sh
source "$here/vm-paths.sh"
need_built cli/topoctl daemon/topod/topod
need_cmds qemu-system-x86_64 ipmi_sim jq
server_test

# the kernels of the list booted the way WANT says, PCITOPO_KERNELS's only
kernels_of() {
	local k
	for k in $(kernels_names "$1"); do
		[[ -z ${PCITOPO_KERNELS:-} || " $PCITOPO_KERNELS " == *" $k "* ]] && echo "$k"
	done
}
# renumber: the guest scripts' TAP lines into this script's stream
relay() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) tap 1 "$(sed -E 's/^ok [0-9]+ - //' <<<"$line")" ;;
		"not ok "*) tap 0 "$(sed -E 's/^not ok [0-9]+ - //' <<<"$line")" ;;
		"1.."*) ;;
		*) echo "$line" ;;
		esac
	done
}
# a kernel's module must exist before its boot: one line, not a timeout
have_module() {
	local ko
	if ! ko=$(kernel_module "$1" 2>&1) || [[ ! -f $ko ]]; then
		fail "$1: no pcitopo.ko built for it (${ko}: make kernels)"
		return 1
	fi
}

for k in $(kernels_of smoke); do
	have_module "$k" || continue
	t0=$SECONDS
	out=$(PCITOPO_KERNEL=$k PCITOPO_TIMEOUT=300 "$here/run-guest" cascade \
		"$here/guest/module-smoke.sh" 2>&1)
	st=$?
	relay <<<"$out"
	((st == 0)) || grep -q '^not ok' <<<"$out" || fail "$k: module smoke exited $st"
	echo "# boot $k ($(kernel_release "$k"), module smoke): $((SECONDS - t0)) s"
done

GRUN_TIMEOUT=300
for k in $(kernels_of module); do
	have_module "$k" || continue
	kv=$(kernel_release "$k")
	t0=$SECONDS
	dir=$(mktemp -d /tmp/pcitopo-kernels.XXXXXX)
	rmdir "$dir"
	out=$("$srv" start "$dir" --method mux --layout balance --kernel "$k" --timeout 400 2>&1)
	if ! ok $? "$k: the MUX server up on $kv ($((SECONDS - t0)) s)" "$out"; then
		"$srv" stop "$dir" >/dev/null 2>&1
		dir=
		continue
	fi
	out=$(grun bash -c '[[ $(uname -r) == "$1" ]] && echo "uname $1"' _ "$kv" 2>&1)
	eq "$out" "uname $kv" "$k: the guest runs $kv"
	out=$(grun tests/vm/guest/check_module.py 2>&1)
	relay <<<"$(sed -E "s/^((not )?ok [0-9]+ - )/\1$k: /" <<<"$out")"
	out=$(T=120 grun tests/vm/guest/topod-up.sh emulated-mux 2>&1)
	ok $? "$k: topod up (the module, /dev/ipmi0, a system bus)" "$out"
	for to in cascade common; do
		t1=$SECONDS
		out=$(grun cli/topoctl set "$to" 2>&1)
		ok $? "$k: topoctl set $to: topod switches online ($((SECONDS - t1)) s)" "$out"
		eq "$(view 2>&1)" "$to 8" "$k: the module sees $to with 8 GPUs"
		out=$(grun tests/vm/guest/check_module.py --read 2>&1)
		relay <<<"$(sed -E "s/^((not )?ok [0-9]+ - )/\1$k: /" <<<"$out")"
	done
	out=$(grun bash -c 'dmesg | grep -E "Oops|WARNING:|BUG:|Call Trace" || true' 2>&1)
	eq "$out" "" "$k: no oops, warning or BUG in dmesg after the switches"
	"$srv" stop "$dir" >/dev/null 2>&1
	dir=
	echo "# boot $k ($kv, module checks, two online switches): $((SECONDS - t0)) s"
done
tap_end
