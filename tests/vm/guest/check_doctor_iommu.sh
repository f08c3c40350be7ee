#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check_doctor_iommu.sh translated LEGACY-ADDR | pt
#
# In-guest checks of topoctl doctor on conditions QEMU and the kernel stage
# for real (run by tests/vm/t-doctor.sh through run-guest, common layout,
# with PCITOPO_QEMU_EXTRA / PCITOPO_APPEND_EXTRA). TAP on stdout.
#
# translated: booted with -device intel-iommu,intremap=off, a ninth stand-in
#   GPU (bochs-display) at LEGACY-ADDR on the legacy root bus pcie.0 and
#   intel_iommu=on:
#   - iommu: every GPU's group is translated (DMA or DMA-FQ): a warning
#     naming the group, fix iommu=pt; the legacy GPU's group (its own, no
#     driver) switched to identity through sysfs: a note, the others stay;
#   - numa: the legacy GPU has numa_node -1: a warning; echo 0 >
#     numa_node (the documented fix): gone;
#   - aer: no finding on the root port above the layout's gpu0, then the
#     host injects through QEMU's monitor (pcie_aer_inject_error, a
#     correctable RCVR and a non-fatal POISON_TLP on that port): this script
#     asks for it by writing $PCITOPO_OUT/aer-ready ("QDEV-ID ADDR") and
#     waits (bounded) for the host's $PCITOPO_OUT/aer-injected (its HMP
#     output), then for the kernel's counter: an error naming the port for
#     the non-fatal one; the correctable one a note if the kernel counted
#     it (correctable errors lose nothing: a warning only once the count
#     grows, doctor --since; QEMU 7.2 never forwards ERR_COR: skipped, with
#     the port's AER Correctable Error Status as evidence that QEMU set it).
# pt: booted with intel_iommu=on iommu=pt: every GPU's group is identity
#   (a note, no iommu warning); no numa finding (no legacy GPU).
# Both sources: the module (netlink) and sysfs.
set -uo pipefail
root=${PCITOPO_ROOT:?run me through tests/vm/run-guest}
L=${PCITOPO_LAYOUT:?}
LF=${PCITOPO_LAYOUT_FILE:?}
OUT=${PCITOPO_OUT:-/out}
T=$root/cli/topoctl
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
mode=${1:?usage: check_doctor_iommu.sh translated LEGACY-ADDR | pt}
TAP_PREFIX="$L: doctor: "
# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"
# doctor [SOURCE]: the -j findings (exit 1/3 only say there are findings)
doctor() { { "$T" ${1:+--source "$1"} -j doctor 2>/dev/null || :; }; }
# finding CHECK OBJECT [SOURCE]: the severity of the first finding of CHECK
# whose object (a comma-separated list) names OBJECT, or "none"
finding() {
	doctor "${3:-}" | jq -r --arg c "$1" --arg o "$2" '[.[] | select(.check == $c and
		(.object | split(",") | index($o)))][0].severity // "none"'
}
skip_gpu=
group_of() { basename "$(readlink "/sys/bus/pci/devices/$1/iommu_group" 2>/dev/null)" 2>/dev/null; }

pt_insmod
ok $? "insmod pcitopo.ko extra_ids=$PT_GPU_IDS:gpu"
mapfile -t gpus < <("$T" -j dev list 2>/dev/null | jq -r '.[] | select(.kind == "gpu") | "\(.name) \(.addr)"')
ngroups=$(find /sys/kernel/iommu_groups -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
((ngroups > 0))
ok $? "IOMMU on: $ngroups groups in /sys/kernel/iommu_groups ($(grep -o 'intel_iommu=[^ ]*\|iommu=[^ ]*' /proc/cmdline | tr '\n' ' '))"

# iommu_all TYPE-REGEX SEVERITY SOURCE: every GPU has SEVERITY from the
# iommu check, its group's type matches TYPE-REGEX, the evidence (warnings)
# names the group and the fix says iommu=pt
iommu_all() {
	local j name addr g ty bad=()
	j=$(doctor "$3")
	for x in "${gpus[@]}"; do
		read -r name addr <<<"$x"
		[[ -n $skip_gpu && $addr == "$skip_gpu" ]] && continue
		g=$(group_of "$addr")
		ty=$(cat "/sys/kernel/iommu_groups/$g/type" 2>/dev/null)
		if [[ ! $ty =~ $1 ]] ||
			! jq -e --arg o "$name" --arg s "$2" --arg g "$g" '
			[.[] | select(.check == "iommu" and (.object | split(",") | index($o)))] |
			length == 1 and .[0].severity == $s and ($s == "note" or
			((.[0].evidence | contains("iommu_groups/" + $g + "/type is \"DMA")) and
			 (.[0].fix | contains("iommu=pt"))))' <<<"$j" >/dev/null; then
			bad+=("$name($addr group ${g:-none} type ${ty:-?})")
		fi
	done
	((${#bad[@]} == 0)) || echo "#   wrong: ${bad[*]}"
	((${#bad[@]} == 0))
}

if [[ $mode == pt ]]; then
	g0=$(group_of "${gpus[0]#* }")
	echo "# ${gpus[0]}: group $g0, type $(cat "/sys/kernel/iommu_groups/$g0/type" 2>/dev/null)"
	for src in netlink sysfs; do
		iommu_all '^identity$' note $src
		ok $? "iommu=pt: all ${#gpus[@]} GPUs identity: a note, no warning ($src)"
	done
	doctor | jq -e 'all(.[]; .check != "iommu" or .severity == "note")' >/dev/null
	ok $? "iommu=pt: no iommu warning at all"
	doctor | jq -e 'all(.[]; .check != "numa")' >/dev/null
	ok $? "no legacy GPU: no numa finding"
	echo "1..$n"
	[[ $failed == 0 ]]
	exit
fi

# --- translated (intel_iommu=on): iommu, numa, aer ----------------------
legacy=${2:?usage: check_doctor_iommu.sh translated LEGACY-ADDR}
lname=$("$T" -j dev show "$legacy" 2>/dev/null | jq -r '.name // empty')
[[ ${#gpus[@]} == 9 && -n $lname ]]
ok $? "9 GPUs, the legacy one $legacy on pcie.0 is ${lname:-none} (numa_node $(cat "/sys/bus/pci/devices/$legacy/numa_node" 2>/dev/null))"
lg=$(group_of "$legacy")
# shellcheck disable=SC2046 # one line of NAME=GROUP:TYPE
echo "# groups: $(for x in "${gpus[@]}"; do a=${x#* }; g=$(group_of "$a");
	printf '%s=%s:%s ' "${x% *}" "$g" "$(cat "/sys/kernel/iommu_groups/$g/type" 2>/dev/null)"; done)"
skip_gpu=
for src in netlink sysfs; do
	iommu_all '^DMA(-FQ)?$' warning $src
	ok $? "intel_iommu=on: all ${#gpus[@]} GPUs translated: a warning naming the group, fix iommu=pt ($src)"
done

# the documented fix for one group: its only device has no driver
if echo identity >"/sys/kernel/iommu_groups/$lg/type" 2>/tmp/type.err; then
	for src in netlink sysfs; do
		s=$(finding iommu "$lname" $src)
		skip_gpu=$legacy
		iommu_all '^DMA(-FQ)?$' warning $src
		w=$?
		ok "$([[ $s == note && $w == 0 ]]; echo $?)" \
			"group $lg ($lname) set to identity: a note ($s), the other GPUs still warnings ($src)"
	done
else
	ok 1 "echo identity > /sys/kernel/iommu_groups/$lg/type ($lname): $(cat /tmp/type.err)"
fi

for src in netlink sysfs; do
	s=$(finding numa "$lname" $src)
	doctor $src | jq -e --arg o "$lname" --arg a "$legacy" '[.[] | select(.check == "numa")] |
		length == 1 and (.[0].object == $o) and
		(.[0].evidence | contains($a + "/numa_node is -1"))' >/dev/null
	ok $? "legacy GPU $lname numa_node -1: $s, the only numa finding ($src)"
done
if echo 0 >"/sys/bus/pci/devices/$legacy/numa_node" 2>/tmp/numa.err; then
	"$T" refresh >/dev/null 2>&1
	for src in netlink sysfs; do
		s=$(finding numa "$lname" $src)
		[[ $s == none ]]
		ok $? "numa_node of $lname set to 0: gone ($s) ($src)"
	done
else
	ok 1 "echo 0 > /sys/bus/pci/devices/$legacy/numa_node: $(cat /tmp/numa.err)"
fi

# AER: the root port above the layout's gpu0 (its slot names it in sysfs)
rpid=$(jq -r '(.endpoints[] | select(.id == "gpu0") | .port) as $p |
	.switches[] | select(any(.ports[]; .id == $p)) | .parent' "$LF")
slot=$(jq -r --arg r "$rpid" '.root_ports[] | select(.id == $r) | .slot' "$LF")
below=$(cat "/sys/bus/pci/slots/$slot/address" 2>/dev/null)
rp=$(basename "$(dirname "$(readlink -f "/sys/bus/pci/devices/$below.0")")")
d=/sys/bus/pci/devices/$rp
[[ -f $d/aer_dev_nonfatal && -f $d/aer_dev_correctable ]]
ok $? "root port $rpid is $rp (slot $slot): the kernel's AER counters are there"
# QEMU forwards an uncorrectable error only with SERR# enabled on the port
# (Command bit 8) and SERR# forwarding (Bridge Control bit 1): firmware
# (SeaBIOS) and the kernel set them; say so if not, and set them
if (((0x$(setpci -s "$rp" COMMAND) & 0x100) == 0)); then
	echo "# $rp: SERR# was off in Command: set"
	setpci -s "$rp" COMMAND=0100:0100
fi
if (((0x$(setpci -s "$rp" BRIDGE_CONTROL) & 0x2) == 0)); then
	echo "# $rp: SERR# forwarding was off in Bridge Control: set"
	setpci -s "$rp" BRIDGE_CONTROL=0002:0002
fi
echo "# $rp: COMMAND $(setpci -s "$rp" COMMAND) BRIDGE_CONTROL $(setpci -s "$rp" BRIDGE_CONTROL) DEVCTL $(setpci -s "$rp" CAP_EXP+0x8.w) ROOT_CMD $(setpci -s "$rp" ECAP_AER+0x2c.l)"
[[ $(finding aer "$rp") == none ]]
ok $? "no aer finding on $rp before"

echo "$rpid $rp" >"$OUT/aer-ready.tmp" && mv "$OUT/aer-ready.tmp" "$OUT/aer-ready"
for ((i = 0; i < 450; i++)); do	# the host answers at once: 90 s bound
	[[ -s $OUT/aer-injected ]] && break
	sleep 0.2
done
inj=$(cat "$OUT/aer-injected" 2>/dev/null)
while IFS= read -r line; do echo "# host: $line"; done <<<"$inj"
[[ $(grep -c '^OK id: ' <<<"$inj") == 2 ]]
ok $? "host injected a correctable RCVR and a non-fatal POISON_TLP into $rpid over QMP"
total() {	# total FILE KEY: the kernel's TOTAL_ line in d/FILE, 0 if none
	local v
	v=$(awk -v k="$2" '$1 == k { print $2 }' "$d/$1" 2>/dev/null)
	echo "${v:-0}"
}
for ((i = 0; i < 100; i++)); do	# the kernel's AER handler: 20 s bound
	(($(total aer_dev_nonfatal TOTAL_ERR_NONFATAL) > 0)) && break
	sleep 0.2
done
echo "# $rp aer_dev_nonfatal: $(grep -v ' 0$' "$d/aer_dev_nonfatal" | tr '\n' ' ')"
echo "# $rp aer_dev_correctable: $(grep -v ' 0$' "$d/aer_dev_correctable" | tr '\n' ' ')"
dmesg | grep -i 'aer' | tail -n 6 | sed 's/^/# dmesg: /'
for src in netlink sysfs; do
	doctor $src | jq -e --arg o "$rp" 'any(.[]; .check == "aer" and .object == $o and
		.severity == "error" and (.evidence | contains("aer_dev_nonfatal")))' >/dev/null
	ok $? "non-fatal AER on $rp: error ($src)"
done
cor=$(setpci -s "$rp" ECAP_AER+0x10.l)
if (($(total aer_dev_correctable TOTAL_ERR_COR) > 0)); then
	for src in netlink sysfs; do
		doctor $src | jq -e --arg o "$rp" 'any(.[]; .check == "aer" and .object == $o and
			.severity == "note" and (.evidence | contains("aer_dev_correctable")))' >/dev/null
		ok $? "correctable AER on $rp: a note, no warning without growth ($src)"
	done
elif (((0x$cor & 1) == 1)); then
	machine=$(cat /sys/class/dmi/id/product_version 2>/dev/null)
	skip "correctable AER on $rp: a note" "QEMU (machine ${machine:-?}) sets the port's Correctable Error Status (0x$cor: RxErr) but does not forward ERR_COR (routing added in QEMU 8.0): the kernel counted none"
else
	ok 1 "correctable AER on $rp: neither counted nor in Correctable Error Status (0x$cor)"
fi
echo "1..$n"
[[ $failed == 0 ]]
