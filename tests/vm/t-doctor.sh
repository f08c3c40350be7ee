#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topoctl doctor in the emulated server, conditions staged for real, found
# with the right check, severity and object, then cleared or absent. Two
# boots of the common layout with an emulated IOMMU (one TAP stream,
# renumbered here; guest/check_doctor.sh, ACS redirect and MPS mismatch set
# with setpci, runs in t-layouts.sh's boot of common, which needs no other
# QEMU option):
#  1. guest/check_doctor_iommu.sh translated, with PCITOPO_QEMU_EXTRA
#     "-device intel-iommu,intremap=off" plus a ninth stand-in GPU on the
#     legacy root bus pcie.0 (numa_node -1), PCITOPO_APPEND_EXTRA
#     intel_iommu=on: translated groups (warnings, fix iommu=pt), one group
#     switched to identity (a note); the numa warning on the legacy GPU,
#     gone after echo 0 > numa_node; AER: when the guest asks
#     (out/aer-ready), this script injects a correctable and a non-fatal
#     error into the root port above gpu0 through QMP (qmp-hmp,
#     pcie_aer_inject_error) and answers (out/aer-injected); the guest
#     checks the error finding (and the correctable note, where QEMU forwards
#     ERR_COR: 7.2 does not).
#  2. guest/check_doctor_iommu.sh pt, intel_iommu=on iommu=pt: identity
#     groups (notes, no warning).
# Guest time per boot (run-guest, wall) as "# boot" comments.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"
cd "$root" || exit 1
need_built kmod/pcitopo.ko cli/topoctl
need_cmds python3	# qmp-hmp
to=${PCITOPO_TIMEOUT:-150}
work=$(mktemp -d /tmp/pcitopo-t-doctor.XXXXXX)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null
	rm -rf "$work"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# emit NAME STATUS < TAP: a boot's TAP lines renumbered into this stream
# (its plan dropped); a boot that failed without a "not ok" gets one
emit() {
	local name=$1 st=$2 line bad=0 re='^(not )?ok [0-9]+(.*)$'
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		if [[ $line =~ $re ]]; then
			[[ -z ${BASH_REMATCH[1]} ]] || bad=1
			tap "$([[ -z ${BASH_REMATCH[1]} ]] && echo 1 || echo 0)" \
				"${BASH_REMATCH[2]# - }"
		elif [[ ! $line =~ ^1\.\.[0-9]+$ ]]; then
			echo "$line"
		fi
	done
	((st == 0 || bad)) || fail "common: doctor: $name: run-guest exited $st"
}

# aer_inject RUN PID: wait (bounded; while the guest runs) until the guest
# names the port (RUN/out/aer-ready: "QDEV-ID ADDR"), inject a correctable
# (RCVR) and a non-fatal (POISON_TLP) error into it through QMP, and write
# the monitor's answers to RUN/out/aer-injected for the guest to read
aer_inject() {
	local run=$1 pid=$2 t0=$SECONDS id addr res
	until [[ -s $run/out/aer-ready ]]; do
		kill -0 "$pid" 2>/dev/null || return 1
		((SECONDS - t0 < to)) || return 1
		sleep 0.2
	done
	read -r id addr <"$run/out/aer-ready"
	res=$("$here/qmp-hmp" "$run/qmp.sock" \
		"pcie_aer_inject_error -c $id RCVR" \
		"pcie_aer_inject_error $id POISON_TLP" 2>&1) || res+=$'\n'"qmp-hmp failed"
	printf '%s\n' "$res" >"$run/out/aer-injected.tmp" &&
		mv "$run/out/aer-injected.tmp" "$run/out/aer-injected"
	echo "# host: injected into $id ($addr) $((SECONDS - t0)) s after the boot began"
	[[ $(grep -c '^OK id: ' <<<"$res") == 2 ]]
}

# 1. translating IOMMU, a GPU on pcie.0 without a NUMA node, AER over QMP
legacy=0000:00:07.0
t0=$SECONDS
PCITOPO_RUN_DIR=$work/iommu PCITOPO_TIMEOUT=$to \
	PCITOPO_QEMU_EXTRA="-device intel-iommu,intremap=off -device bochs-display,id=gpulegacy,bus=pcie.0,addr=0x7" \
	PCITOPO_APPEND_EXTRA="intel_iommu=on" \
	"$here/run-guest" common "$here/guest/check_doctor_iommu.sh" translated "$legacy" \
	>"$work/translated.out" &
pid=$!
aer_inject "$work/iommu" "$pid"
inj=$?
wait "$pid"
st=$?
pid=
emit "intel_iommu=on boot" "$st" <"$work/translated.out"
ok "$inj" "common: doctor: host: AER injected over QMP when the guest asked"
echo "# boot 1 (intel_iommu=on, legacy GPU, AER): $((SECONDS - t0)) s"

# 2. passthrough IOMMU
t0=$SECONDS
out=$(PCITOPO_TIMEOUT=$to PCITOPO_QEMU_EXTRA="-device intel-iommu,intremap=off" \
	PCITOPO_APPEND_EXTRA="intel_iommu=on iommu=pt" \
	"$here/run-guest" common "$here/guest/check_doctor_iommu.sh" pt)
st=$?
emit "iommu=pt boot" "$st" <<<"$out"
echo "# boot 2 (intel_iommu=on iommu=pt): $((SECONDS - t0)) s"

tap_end
