#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check_server.sh   (in the emulated server's guest, as root: run by
# tests/vm/t-layouts.sh, alone for balance4 or sourced by check_topoctl.sh)
#
# What every real server has, as topoctl shows it, with the sysfs source
# (module not loaded) and with pcitopo.ko: the BMC's VGA behind its
# PCIe-to-PCI bridge (QEMU's VGA, 1234:1111, the stand-in GPUs' own ID, on
# the node-0 host bridge pxb2 between GPU0-3's and GPU4-7's buses) is never
# a GPU whatever the extra IDs say: 8 GPUs, not 9, GPU0-7 the stand-ins in bus
# order (GPU4 the first on node 1, not the VGA), `dev list` shows the VGA
# with kind display; one NIC is RDMA-capable for real (Soft-RoCE rxe0 on
# nic0, guest/rdma-up.sh): the NIC legend of `topo` has exactly `NIC0: rxe0`
# with nic0's address, the plain e1000e only with --all-nics; the layout is
# the layout's expect.layout. Without the extra IDs the stand-ins are no
# GPUs at all. Prints TAP; sourced, it uses the caller's ok() and counters.
set -uo pipefail
root=${PCITOPO_ROOT:?run me through tests/vm/run-guest}
lay=${PCITOPO_LAYOUT_FILE:?}
L=${PCITOPO_LAYOUT:?}
T=$root/cli/topoctl
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"

standalone=0
if ! declare -F ok >/dev/null; then
	standalone=1
	TAP_PREFIX="$L: "
	# shellcheck source=tests/tap.sh
	. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../../tap.sh"
fi
cs=$(mktemp -d /tmp/check_server.XXXXXX)

# QEMU ids -> guest addresses: endpoints below a port by its slot; the
# VGA below the PCIe-to-PCI bridge (no slot of its own) by its addr. What the
# layout file says is read by one jq (a jq costs ~0.7 s under TCG: one per
# question was ~25 s a layout), as lines "KEY VALUE...":
#   ep ID s SLOT | ep ID b PARENT-SLOT ADDR   every endpoint
#   layout NAME | vga ID | rnic ID RDMA | plain ID
cs_facts=$(jq -r '
	([.root_ports[], .switches[].ports[]] | map({key: .id, value: (.slot | tostring)})
	 | from_entries) as $slot |
	([.bridges[]?] | map({key: .id, value: .parent}) | from_entries) as $br |
	(.endpoints[] | if $br[.port] then "ep \(.id) b \($slot[$br[.port]]) \(.addr)"
		else "ep \(.id) s \($slot[.port])" end),
	"layout \(.expect.layout)",
	"vga \([.endpoints[] | select(.kind == "display")][0].id)",
	"rnic \([.endpoints[] | select(.rdma)][0] | "\(.id) \(.rdma)")",
	(.endpoints[] | select(.kind == "nic" and (.rdma | not)) | "plain \(.id)")' "$lay")
cs_fact() { awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' <<<"$cs_facts"; }
cs_addr() { # cs_addr ENDPOINT-ID
	local how slot a br sec
	read -r how slot a < <(awk -v e="$1" '$1 == "ep" && $2 == e { print $3, $4, $5 }' <<<"$cs_facts")
	[[ -n ${how:-} ]] || return 1
	if [[ $how == s ]]; then
		a=$(cat "/sys/bus/pci/slots/$slot/address" 2>/dev/null) && echo "$a.0"
		return
	fi
	br=$(cat "/sys/bus/pci/slots/$slot/address" 2>/dev/null).0
	sec=$(cat "/sys/bus/pci/devices/$br/secondary_bus_number" 2>/dev/null) || return 1
	printf '%s:%02x:%02x.0\n' "${br%%:*}" "$sec" "$((a))"
}
want_layout=$(cs_fact layout)
want_gpus=$(for i in 0 1 2 3 4 5 6 7; do echo "GPU$i $(cs_addr "gpu$i")"; done)
vga=$(cs_addr "$(cs_fact vga)")
rnic=$(cs_fact rnic)
rdma=${rnic#* } rnic_addr=$(cs_addr "${rnic% *}")
plain=$(for e in $(cs_fact plain); do cs_addr "$e"; done)
echo "# $L: VGA $vga, RDMA NIC $rdma at $rnic_addr, plain NICs ${plain//$'\n'/ }"

# --- Soft-RoCE on the RDMA NIC (what sysfs shows is in tests/vm/README.md)
if "$root/tests/vm/guest/rdma-up.sh" "$lay" >"$cs/rdma" 2>&1; then
	eth=$(awk -v r="$rdma" '$1 == r { print $2 }' "$cs/rdma")
	[[ -e /sys/class/infiniband/$rdma && ! -e /sys/class/infiniband/$rdma/device &&
		$(cat "/sys/class/infiniband/$rdma/parent" 2>/dev/null) == "$eth" &&
		$(readlink -f "/sys/class/net/$eth/device") == */$rnic_addr ]]
	ok $? "Soft-RoCE: $rdma on $eth ($rnic_addr): no device link, parent names the netdev" "$cs/rdma"
else
	ok 1 "Soft-RoCE: rdma link add $rdma type rxe (guest/rdma-up.sh)" "$cs/rdma"
fi

# cs_view SRC...: the checks on one source (topoctl options in "$@")
cs_view() {
	local src=$1
	shift
	"$T" "$@" -j show >"$cs/show.json" 2>"$cs/e"
	jq -e --arg l "$want_layout" '.layout == $l and .gpus == 8' "$cs/show.json" >/dev/null
	ok $? "$src: layout $want_layout, 8 GPUs (the BMC's VGA is none)" "$cs/show.json"
	"$T" "$@" dev list >"$cs/dev.txt" 2>"$cs/e"
	# ADDRESS NAME ROLE KIND ...: the GPUs by name, in bus order
	diff <(echo "$want_gpus") <(awk '$2 ~ /^GPU[0-9]+$/ { print $2, $1 }' "$cs/dev.txt") >"$cs/d"
	ok $? "$src: dev list: GPU0-7 are the 8 stand-ins in bus order (GPU4 the first on node 1, not the VGA)" "$cs/d"
	[[ $(awk -v a="$vga" '$1 == a { print $4 }' "$cs/dev.txt") == display ]] &&
		! awk -v a="$vga" '$1 == a { print $2 }' "$cs/dev.txt" | grep -q '^GPU'
	ok $? "$src: dev list: the VGA $vga behind the PCIe-to-PCI bridge has kind display" "$cs/dev.txt"
	"$T" "$@" topo >"$cs/topo.txt" 2>"$cs/e"
	sed -n '/^NIC Legend:/,$p' "$cs/topo.txt" | grep -E '^ +NIC[0-9]+:' >"$cs/nics"
	[[ $(wc -l <"$cs/nics") == 1 ]] && grep -Eq "^ +NIC0: $rdma .*$rnic_addr" "$cs/nics" &&
		[[ $(head -n 1 "$cs/topo.txt" | grep -o 'NIC[0-9]*' | wc -l) == 1 ]] &&
		! grep -q "$vga" "$cs/topo.txt"
	ok $? "$src: topo: one NIC column, legend 'NIC0: $rdma' with $rnic_addr; no VGA" "$cs/topo.txt"
	"$T" "$@" topo --all-nics >"$cs/topo-all.txt" 2>"$cs/e"
	local p bad=0
	sed -n '/^NIC Legend:/,$p' "$cs/topo-all.txt" | grep -E '^ +NIC[0-9]+:' >"$cs/nics"
	grep -Eq "^ +NIC0: $rdma .*$rnic_addr" "$cs/nics" || bad=1
	for p in $plain; do grep -q "$p" "$cs/nics" || bad=1; done
	[[ $(wc -l <"$cs/nics") == $((1 + $(echo "$plain" | wc -w))) ]] || bad=1
	ok "$bad" "$src: topo --all-nics: every NIC in the legend, the plain e1000e too, NIC0 still $rdma" \
		"$([[ -s $cs/e ]] && echo "$cs/e" || echo "$cs/topo-all.txt")"
}

# --- the sysfs source (module not loaded)
[[ -d /sys/module/pcitopo ]] && rmmod pcitopo
cs_view "sysfs (TOPOCTL_EXTRA_IDS)" --source sysfs
n0=$(env -u TOPOCTL_EXTRA_IDS "$T" --source sysfs -j show 2>"$cs/e" | jq .gpus)
n1=$(env -u TOPOCTL_EXTRA_IDS "$T" --source sysfs --extra-id "$PT_GPU_IDS" -j show 2>"$cs/e" | jq .gpus)
[[ $n0 == 0 && $n1 == 8 ]]
ok $? "sysfs: no GPU without the extra ID (got $n0), 8 with --extra-id $PT_GPU_IDS (got $n1)" "$cs/e"

# --- the module
insmod "$PT_KO" >"$cs/e" 2>&1 && n0=$(cat /sys/kernel/pcitopo/count_gpus) && rmmod pcitopo
pt_insmod >"$cs/e" 2>&1
rc=$?
for ((i = 0; i < 100; i++)); do [[ -f /sys/kernel/pcitopo/generation ]] && break; sleep 0.05; done
[[ $rc == 0 && $n0 == 0 && $(cat /sys/kernel/pcitopo/count_gpus) == 8 &&
	$(cat "/sys/kernel/pcitopo/devices/$vga/kind" 2>/dev/null) == display ]]
ok $? "module: no GPU without extra_ids (got $n0); with extra_ids=$PT_GPU_IDS:gpu 8, the VGA's kind display" "$cs/e"
cs_view "module" --source netlink
rmmod pcitopo

rm -rf "$cs"
if ((standalone)); then
	echo "1..$n"
	[[ $failed == 0 ]]
fi
