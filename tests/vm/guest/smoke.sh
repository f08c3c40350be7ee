#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest self-check of the emulated server (run by run-guest): the PCI tree
# the guest sees matches $PCITOPO_LAYOUT_FILE. Prints TAP lines.
set -euo pipefail
lay=${PCITOPO_LAYOUT_FILE:?run me through tests/vm/run-guest}
name=$(jq -r .name "$lay")
TAP_PREFIX="$name: "
# shellcheck source=tests/tap.sh
. "$(dirname "$(readlink -f "$0")")/../../tap.sh"
# lspci read once (each call costs ~0.3 s under TCG), the counts from it;
# the layout's counts by one jq (~0.7 s a call)
lspci_n=$(lspci -n)
lspci_vv=$(lspci -vv)
count_class() { awk -v c="$1" '$2 ~ "^"c {n++} END {print n+0}' <<<"$lspci_n"; }
count_id() { awk -v d="$1" '$3 == d {n++} END {print n+0}' <<<"$lspci_n"; }
read -r j_gpu j_disp j_nic j_nvme j_usp j_dsp j_rp j_br < <(jq -r '[
	([.endpoints[] | select(.kind == "gpu")] | length),
	([.endpoints[] | select(.kind == "display")] | length),
	([.endpoints[] | select(.kind == "nic")] | length),
	([.endpoints[] | select(.kind == "nvme")] | length),
	(.switches | length), ([.switches[].ports[]] | length),
	(.root_ports | length), ([.bridges[]?] | length)] | @tsv' "$lay")

eq "$(count_class 0380)" "$j_gpu" "display controllers 0x0380 (the GPU stand-ins)"
eq "$(count_class 0300)" "$j_disp" "VGA controllers 0x0300 (the BMC's)"
eq "$(count_class 0200)" "$j_nic" "Ethernet NICs"
eq "$(count_class 0108)" "$j_nvme" "NVMe controllers"
eq "$(count_id 104c:8232)" "$j_usp" "switch upstream ports (104c:8232)"
eq "$(count_id 104c:8233)" "$j_dsp" "switch downstream ports (104c:8233)"
eq "$(count_id 1b36:000c)" "$j_rp" "root ports (1b36:000c)"
eq "$(count_id 1b36:000e)" "$j_br" "PCIe-to-PCI bridges (1b36:000e)"

# Forks are what costs under TCG (~0.1 s each): the helpers below read
# sysfs with the read builtin and walk paths with parameter expansion, and
# the links of every device come from the one lspci -vv above.
rd() { # rd VAR FILE: the file's first line into VAR, empty if unreadable
	local -n _v=$1
	_v=
	read -r _v <"$2" 2>/dev/null || true
}
# The device below the port with physical slot number $1 (pciehp names it),
# into the variable named $2.
below_slot() {
	local -n _d=$2
	local a
	_d=
	rd a "/sys/bus/pci/slots/$1/address"
	[[ -n $a && -e /sys/bus/pci/devices/$a.0 ]] && _d=$a.0
	return 0
}
# The root port (a device on a root bus) above the device whose resolved
# sysfs path is $1, into the variable named $2.
root_port_of() {
	local -n _r=$2
	local p=$1 up
	up=${p%/*}
	while [[ ${up##*/} != pci* ]]; do
		p=$up
		up=${p%/*}
	done
	_r=${p##*/}
}
# LnkCap and LnkSta of every device from the lspci -vv above, as
# "Speed 16GT/s, Width x16", keyed by the full address (lspci leaves out
# domain 0000 when it is the only one)
declare -A lnkcap=() lnksta=() express=()
while IFS=$'\t' read -r a what v; do
	case $what in
	Cap) lnkcap[$a]=$v ;;
	Sta) lnksta[$a]=$v ;;
	Express) express[$a]=1 ;;
	esac
done < <(awk '/^[0-9a-f]/ { a = $1; if (split(a, f, ":") == 2) a = "0000:" a }
	/Express \(/ { print a "\tExpress\t-" }
	/^[ \t]*Lnk(Cap|Sta):/ && match($0, /Speed [0-9.]*GT\/s/) {
		s = substr($0, RSTART, RLENGTH)
		if (match($0, /Width x[0-9]*/))
			print a "\t" substr($1, 4, 3) "\t" s ", " substr($0, RSTART, RLENGTH)
	}' <<<"$lspci_vv")

# One line per endpoint: id kind slot-of-its-port node root-port rp-slot
# rp-speed rp-width on-root-port addr-below-a-bridge (jq once: it is slow
# under TCG). An endpoint behind a PCIe-to-PCI bridge (the BMC's VGA) has
# the slot of the bridge's port and its own addr on the bridge's bus.
table=$(jq -r '. as $l |
	def br($p): [$l.bridges[]? | select(.id == $p)] | .[0];
	def rp($p): if ([$l.root_ports[].id] | index($p)) != null then $p
		elif br($p) != null then rp(br($p).parent)
		else rp($l.switches[] | select([.ports[].id] | index($p) != null) | .parent) end;
	def slot($p): if br($p) != null then slot(br($p).parent) else
		(($l.root_ports[], $l.switches[].ports[]) | select(.id == $p) | .slot) end;
	.endpoints[] | . as $e | rp($e.port) as $r |
	($l.root_ports[] | select(.id == $r)) as $rp |
	($l.host_bridges[] | select(.id == $rp.host_bridge)) as $hb |
	[$e.id, $e.kind, slot($e.port), $hb.numa_node, $r, $rp.slot,
	 $rp.speed, $rp.width, ($r == $e.port),
	 (if br($e.port) != null then $e.addr else "-" end)] | @tsv' "$lay")

ven='' did='' sec='' cls='' numa='' rp='' rpdev='' dev=''
while IFS=$'\t' read -r id kind slot node rpid rpslot speed width direct braddr; do
	below_slot "$slot" dev
	if [[ -n $dev && $braddr != - ]]; then
		# the bridge below the port, then the device on its bus
		rd ven "/sys/bus/pci/devices/$dev/vendor"
		rd did "/sys/bus/pci/devices/$dev/device"
		eq "$ven:$did" "0x1b36:0x000e" "$id: a PCIe-to-PCI bridge below slot $slot ($dev)"
		rd sec "/sys/bus/pci/devices/$dev/secondary_bus_number"
		printf -v dev '%s:%02x:%02x.0' "${dev%%:*}" "$sec" "$((braddr))"
		[[ -e /sys/bus/pci/devices/$dev ]] || dev=
		if [[ -n $dev ]]; then
			[[ -n ${express[$dev]:-} ]] && r=1 || r=0
			ok "$r" "$id ($dev) is conventional PCI (no PCIe capability)"
		fi
	fi
	if [[ -z $dev ]]; then
		ok 1 "$id ($kind) present in slot $slot"
		continue
	fi
	case $kind in
	gpu) want=0x0380 ;;
	display) want=0x0300 ;;
	nic) want=0x0200 ;;
	nvme) want=0x0108 ;;
	*) want=unknown ;;
	esac
	rd cls "/sys/bus/pci/devices/$dev/class"
	eq "${cls:0:6}" "$want" "$id in slot $slot is a $kind ($dev class)"
	rd numa "/sys/bus/pci/devices/$dev/numa_node"
	eq "$numa" "$node" "$id numa_node"
	# one readlink for both paths: the device's and the root port's slot's
	below_slot "$rpslot" rpdev
	{ read -r devpath; read -r rppath; } < <(readlink -f "/sys/bus/pci/devices/$dev" \
		"/sys/bus/pci/devices/${rpdev:-none}")
	root_port_of "$devpath" rp
	want_rp=${rppath%/*}
	want_rp=${want_rp##*/}
	eq "$rp" "$want_rp" "$id under root port $rpid"
	w="Speed ${speed}GT/s, Width x$width"
	[[ $kind == gpu || $direct == true ]] || continue
	eq "${lnkcap[$rp]:-}" "$w" "$id root port $rpid ($rp) LnkCap"
	# QEMU's endpoints and xio3130 ports advertise only 2.5 GT/s x1, so
	# every LnkSta negotiates down to that; LnkCap shows the configured link.
	echo "# $id: root port $rp LnkSta ${lnksta[$rp]:-}"
done <<<"$table"

tap_end
