#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The emulated server with its BMC (tests/vm/server): the BMC really
# switches the host's PCIe layout.
#   - in-band: daemon/tools/pt-bmc over the guest's /dev/ipmi0 (KCS wired to
#     ipmi_sim) reads the same status as over LAN from the host;
#   - switch firmware: select cascade in-band, job done with cascade
#     pending, `chassis power cycle`, the new guest boots and pcitopo.ko
#     sees cascade with 8 GPUs;
#   - MUX: from balance, select cascade; the BMC's helper moves gpu4-7 over
#     QMP while pcitopo.ko is loaded: it sees cascade, 8 GPUs, a new
#     generation, within a bound;
#   - faults: pcitopo_fail_next -> failed with its error, no layout change.
# TAP on stdout; timings as # comments. The server is always stopped.
# shellcheck disable=SC2016 # single-quoted commands expand in the guest
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root"

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"

need_built kmod/pcitopo.ko daemon/tools/pt-bmc
need_cmds ipmi_sim ipmitool qemu-system-x86_64

server_test

GRUN_TIMEOUT=60
status() {	# the BMC's status over LAN, decoded by pt-bmc
	daemon/tools/pt-bmc --lan "$PCITOPO_BMC_LAN" --creds "$PCITOPO_BMC_CREDS" \
		--platform "$PCITOPO_PLATFORM" status 2>&1
}
select_lan() {
	daemon/tools/pt-bmc --lan "$PCITOPO_BMC_LAN" --creds "$PCITOPO_BMC_CREDS" \
		--platform "$PCITOPO_PLATFORM" select "$1" >/dev/null 2>&1
}
wait_job() {	# the status once the job is no longer busy (bounded: 60 s)
	local s i
	for ((i = 0; i < 300; i++)); do
		s=$(status) || true
		[[ $s == state=busy* ]] || break
		sleep 0.2
	done
	echo "$s"
}
# The module's view: layout count_gpus generation (view --gen, vm-tap.sh).
# start METHOD LAYOUT: up, with the BMC simulator's environment (its LAN
# port, its process group) here
start() {
	server_start "$1" "$2" --busy-ms 500 --timeout 240 || return 1
	eval "$("$srv" env "$dir")"
}
# stop: and nothing of it left running
stop() {
	local pgid=$PCITOPO_BMC_PGID left d=$dir
	server_stop
	left=$(pgrep -g "$pgid" 2>/dev/null; pgrep -f "$d" 2>/dev/null) || true
	tap "$([[ -z $left && ! -e $d ]] && echo 1 || echo 0)" "stop: nothing left running, $d removed" "$left"
}

# --- switch firmware: in-band, power cycle, faults ----------------------
if start switchfw balance; then
	inband=$(grun daemon/tools/pt-bmc --inband /dev/ipmi0 --platform platforms/emulated-switchfw.conf status 2>&1) || true
	lan=$(status)
	eq "$inband" "state=idle current=balance pending=none job=0 error=0" "in-band (guest /dev/ipmi0): status"
	eq "$lan" "$inband" "LAN (host) status agrees with in-band"

	out=$(grun daemon/tools/pt-bmc --inband /dev/ipmi0 --platform platforms/emulated-switchfw.conf select cascade 2>&1) || true
	got=$(wait_job)
	eq "$got" "state=done current=balance pending=cascade job=1 error=0" "in-band select cascade: done, cascade pending ($out)"

	boot=$(cat "$dir/boot")
	t0=$(now)
	"$srv" bmc "$dir" chassis power cycle >/dev/null || true
	line=$("$srv" wait-boot "$dir" --after "$boot" --timeout 240 2>&1) || true
	cycle=$(since "$t0")
	tap "$([[ $line == "boot=$((boot + 1)) layout=cascade "* ]] && echo 1 || echo 0)" \
		"power cycle: the host booted again, in cascade ($cycle s)" "$line"
	eq "$(status)" "state=done current=cascade pending=none job=1 error=0" "after the cycle: current cascade, nothing pending"
	got=$(T=120 grun bash -c '. "$PCITOPO_ROOT/tests/vm/guest/standins.sh" && pt_insmod && cd /sys/kernel/pcitopo && echo "$(<layout) $(<count_gpus)"' 2>&1) || true
	eq "$got" "cascade 8" "new guest: pcitopo.ko sees cascade with 8 GPUs"

	"$srv" console "$dir" "pcitopo_fail_next 7" >/dev/null || true
	select_lan common || true
	got=$(wait_job)
	eq "$got" "state=failed current=cascade pending=none job=2 error=7" "fault: fail_next 7 -> failed, error 7, layout unchanged"
	got=$(view --gen 2>&1) || true
	eq "${got% *}" "cascade 8" "fault: the guest still sees cascade with 8 GPUs"
	echo "# switchfw: power cycle to the guest agent ready: $cycle s"
	stop
fi

# --- MUX: the GPUs move while the host runs ------------------------------
if start mux balance; then
	got=$(T=120 grun bash -c '. "$PCITOPO_ROOT/tests/vm/guest/standins.sh" && pt_insmod && cd /sys/kernel/pcitopo && echo "$(<layout) $(<count_gpus) $(<generation)"' 2>&1) || true
	gen0=${got##* }
	eq "${got% *}" "balance 8" "mux: pcitopo.ko loaded, balance with 8 GPUs"

	# In the guest: wait for cascade with 8 GPUs; print the generation.
	waiter='cd /sys/kernel/pcitopo
	for ((i = 0; i < 600; i++)); do
		[[ $(<layout) == cascade && $(<count_gpus) == 8 ]] && { cat generation; exit 0; }
		sleep 0.1
	done
	echo "timeout: $(<layout) $(<count_gpus) $(<generation)"; exit 1'
	T=90 grun bash -c "$waiter" >"$dir/waiter.out" 2>&1 &
	wpid=$!
	sleep 2	# the waiter job is running in the guest
	t0=$(now)
	select_lan cascade || true
	got=$(wait_job)
	tjob=$(since "$t0")
	eq "$got" "state=done current=cascade pending=none job=1 error=0" "mux select cascade: done, current cascade (BMC job ${tjob} s)"
	wrc=0
	wait "$wpid" || wrc=$?
	tguest=$(since "$t0")
	gen1=$(cat "$dir/waiter.out")
	tap "$([[ $wrc == 0 && $gen1 =~ ^[0-9]+$ && $gen0 =~ ^[0-9]+$ ]] && ((gen1 > gen0)) && echo 1 || echo 0)" \
		"mux: the running guest sees cascade with 8 GPUs, generation $gen0 -> $gen1, ${tguest} s after select" "$gen1"
	bound=60
	tap "$(awk -v t="$tguest" -v b="$bound" 'BEGIN { print (t < b) ? 1 : 0 }')" "mux: online change within ${bound} s (${tguest} s)"
	# gpu4-7 now sit below the cascaded switch: slots 30-33 (mux-map.json).
	got=$(grun bash -c 'for s in 30 31 32 33; do a=$(</sys/bus/pci/slots/$s/address); cat /sys/bus/pci/devices/$a.0/class; done | sort | uniq -c | tr -s " "' 2>&1) || true
	eq "$got" " 4 0x038000" "mux: gpu4-7 are on the cascaded switch's ports (slots 30-33)"
	helper=$(cat "$PCITOPO_BMC_STATE.helper.log" 2>/dev/null || true)

	"$srv" console "$dir" "pcitopo_fail_next" >/dev/null || true
	select_lan common || true
	got=$(wait_job)
	eq "$got" "state=failed current=cascade pending=none job=2 error=2" "mux fault: fail_next -> failed, error 2, layout unchanged"
	got=$(view --gen 2>&1) || true
	eq "$got" "cascade 8 $gen1" "mux fault: nothing moved in the guest (cascade, 8 GPUs, same generation)"
	echo "# mux: BMC job (busy 500 ms + helper) ${tjob} s; select to the guest's cascade ${tguest} s"
	echo "# mux helper: ${helper//$'\n'/ }"
	stop
fi

echo "1..$n"
((failed == 0))
