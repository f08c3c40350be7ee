#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bmcsim/qmp-move (the MUX helper) against a stand-in QMP server: which
# devices it removes and re-adds on which ports, host-off and error paths.
# TAP output.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root" || exit 1

# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"

command -v python3 >/dev/null || { echo "1..0 # SKIP no python3"; exit 0; }
work=$(mktemp -d /tmp/pcitopo-t-qmp.XXXXXX)
fpid=
cleanup() { [[ -n $fpid ]] && kill "$fpid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$work/map.json" <<'EOF'
{"devices": {"gpu4": {"device": "nvme", "props": {"serial": "G4"},
                      "hotplug": {"device": "e1000e", "props": {"romfile": ""}}},
             "gpu5": {"device": "nvme", "props": {"serial": "G5"}},
             "nic0": {"device": "e1000e"}},
 "ports": {"balance": {"gpu4": "sw1p0", "gpu5": "sw1p1", "nic0": "sw0p4"},
           "common":  {"gpu4": "sw0p5", "gpu5": "sw0p6", "nic0": "sw0p4"},
           "cascade": {"gpu4": "sw2p0", "gpu5": "sw2p1", "nic0": "sw0p4"}}}
EOF
export PCITOPO_MUX_MAP=$work/map.json PCITOPO_VM_DIR=$work/vm
mkdir -p "$work/vm"

# fake [ARGS]: start the stand-in on vm/qmp.sock, logging to $work/log.
fake() {
	rm -f "$work/log" "$work/vm/qmp.sock"
	tests/bmc/fake-qmp "$work/vm/qmp.sock" "$work/log" "$@" &
	fpid=$!
	for _ in $(seq 50); do [[ -S $work/vm/qmp.sock ]] && break; sleep 0.05; done
}
cmds() { python3 -c '
import json, sys
for l in open(sys.argv[1]):
    m = json.loads(l); a = m.get("arguments", {})
    print(m["execute"], " ".join(f"{k}={a[k]}" for k in sorted(a)))' "$work/log"; }

rm -f "$work/vm/qmp.sock"
bmcsim/qmp-move balance common 2>"$work/err"
check "host off (no qmp.sock): exit 0, nothing to move" test $? -eq 0

fake
bmcsim/qmp-move balance common 2>"$work/err"
rc=$?
wait "$fpid"
fpid=
check "balance -> common: exit 0 ($(tr -d '\n' <"$work/err"))" test $rc -eq 0
want="qmp_capabilities 
qom-list path=/machine/peripheral
device_del id=gpu4
device_del id=gpu5
device_add bus=sw0p5 driver=e1000e id=gpu4 romfile=
device_add bus=sw0p6 driver=nvme id=gpu5 serial=G5"
eq "$(cmds)" "$want" \
	"balance -> common: deletes gpu4/gpu5 then adds them on sw0p5/sw0p6 (gpu4 as its hotplug model); nic0 untouched"

fake --no-delete
PCITOPO_QMP_TIMEOUT=1 bmcsim/qmp-move common cascade 2>"$work/err"
rc=$?
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
fpid=
check "guest never releases the slot: exit 5 (timeout), nothing added" \
	bash -c '[[ $1 == 5 ]] && ! grep -q device_add "$2"' _ "$rc" "$work/log"

fake
PCITOPO_MUX_MAP=$work/none.json bmcsim/qmp-move balance common 2>"$work/err"
rc=$?
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
fpid=
check "host on, no MUX map: exit 3" test $rc -eq 3

# move: run qmp-move OLD NEW against the stand-in with ARGS, set got
move() {
	local old=$1 new=$2
	shift 2
	fake "$@"
	bmcsim/qmp-move "$old" "$new" 2>"$work/err"
	rc=$?
	kill "$fpid" 2>/dev/null
	wait "$fpid" 2>/dev/null
	fpid=
	got=$(cmds | grep -E '^device_(add|del)')
}

# the guest powered the moving GPUs' slots off (topod's detach): QEMU
# dropped them already, so no device_del, no attention-button wait
move balance cascade --no-delete --present nic0
eq "$rc:$got" "0:device_add bus=sw2p0 driver=e1000e id=gpu4 romfile=
device_add bus=sw2p1 driver=nvme id=gpu5 serial=G5" \
	"slots powered off (gpu4/gpu5 gone from QEMU): no device_del, both added on sw2p0/sw2p1 at once (rc $rc)"
check "and it says so ($(tr -d '\n' <"$work/err"))" grep -q "2 already off" "$work/err"

# a Select of the layout the MUX is at: what QEMU dropped comes back
move cascade cascade --present nic0,gpu5
eq "$rc:$got" "0:device_add bus=sw2p0 driver=e1000e id=gpu4 romfile=" \
	"cascade -> cascade with gpu4's slot powered off: gpu4 put back on sw2p0, nothing else"

# faults: one move each, the file is gone after it
echo "stay-out=gpu5" >"$work/vm/mux-fault"
move balance common --present nic0
eq "$rc:$got" "0:device_add bus=sw0p5 driver=e1000e id=gpu4 romfile=" \
	"fault stay-out=gpu5: gpu4 added on sw0p5, gpu5 not (rc $rc)"
check "and the fault file is used up" test ! -e "$work/vm/mux-fault"
echo "no-move" >"$work/vm/mux-fault"
move balance common --present nic0
eq "$rc:$got" "0:device_add bus=sw1p0 driver=e1000e id=gpu4 romfile=
device_add bus=sw1p1 driver=nvme id=gpu5 serial=G5" \
	"fault no-move: done (rc $rc), what the guest powered off back on its old ports sw1p0/sw1p1"
PCITOPO_MUX_FAULT=no-move move balance common --present nic0,gpu4,gpu5
eq "$rc:$got" "0:" \
	"fault no-move (environment), nothing off: no QMP device command at all"

tap_end
