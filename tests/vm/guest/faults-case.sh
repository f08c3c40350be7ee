#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# faults-case.sh LAYOUT WHERE:N [hold]   (in the emulated server's systemd
# guest, from tests/vm/t-faults-vm.sh through tests/vm/server run)
# faults-case.sh --after                  (the recovery only, e.g. after a
#                                           power cut)
#
# One case of topod's fault matrix with the real module, systemd and
# bochs-drm: restarts topod.service with --test-fault WHERE:N:stop
# (tests/vm/guest/faults-systemd.sh's drop-in), asks for LAYOUT, and waits
# until topod has stopped itself there (SIGSTOP: the whole daemon stands
# at that point, its journal written; no window to hit). Prints what it
# left (held*=). Then, unless "hold" (the host test cuts the power next),
# empties the fault and SIGKILLs topod at that point: systemd restarts it
# (Restart=on-failure) and it recovers from its journal. Waits until the
# journal is gone and State is idle, and the GPU service stand-in
# (nvidia-persistenced.service, stopped by quiesce; at start topod only
# queues its start) is active again, then prints what is left:
#   status=JSON        topoctl -j status: layout, state, gpus, last_error
#   journal=gone|kept  restarts=N (topod.service's NRestarts)
#   module=LAYOUT GPUS unit=ActiveState of the GPU service
#   drivers=ADDR/DRIVER ...   every stand-in GPU (class 0x0380)
#   dmesg=LINE         a WARNING/BUG/Oops/Call Trace line of the kernel
#   t_held= t_recovered= t_unit=   seconds since the script began
set -u
j=/var/lib/pcitopo/job
m=/sys/kernel/pcitopo
P=nvidia-persistenced.service
pstate() { sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
report() {	# report [PREFIX]
	local d drv out=
	for d in /sys/bus/pci/devices/*; do
		[[ $(<"$d/class") == 0x0380* ]] || continue
		drv=$(readlink "$d/driver") && drv=${drv##*/} || drv=none
		out+="${d##*/}/$drv "
	done
	echo "${1:-}module=$(<"$m/layout") $(<"$m/count_gpus")"
	echo "${1:-}unit=$(systemctl is-active "$P")"
	echo "${1:-}drivers=$out"
}

if [[ ${1:-} != --after ]]; then
	to=${1:?usage: faults-case.sh LAYOUT WHERE:N [hold] | --after}
	where=${2:?usage: faults-case.sh LAYOUT WHERE:N [hold] | --after}
	mode=${3:-kill}
	report pre_
	echo "TOPOD_FAULT=--test-fault $where:stop" >/run/topod-fault.env
	systemctl restart topod.service || echo "error=topod.service did not start"
	pid=$(systemctl show -p MainPID --value topod.service)
	topoctl set "$to" --no-wait >/tmp/faults-set.out 2>&1 &
	for _ in $(seq 1200); do
		[[ $(pstate "$pid") == T ]] && break
		sleep 0.1
	done
	echo "t_held=$SECONDS"
	echo "held=$(pstate "$pid") $(grep -c "test fault: SIGSTOP at $where\$" /out/topod.log 2>/dev/null || journalctl -u topod.service -o cat | grep -c "test fault: SIGSTOP at $where\$")"
	echo "held_journal=$(grep -E '^(state|phase|bmc_sent)=' "$j" 2>/dev/null | tr '\n' ' ')"
	report held_
	: >/run/topod-fault.env
	[[ $mode == hold ]] && exit 0
	kill -KILL "$pid"
fi
for _ in $(seq 1800); do
	np=$(systemctl show -p MainPID --value topod.service)
	if [[ $np != 0 && $np != "${pid:-}" && ! -e $j &&
		$(topoctl -j status 2>/dev/null | jq -r .state) == idle ]]; then
		break
	fi
	sleep 0.1
done
echo "t_recovered=$SECONDS"
for _ in $(seq 300); do
	[[ $(systemctl is-active "$P") == active ]] && break
	sleep 0.2
done
echo "t_unit=$SECONDS"
echo "status=$(topoctl -j status | jq -c '{layout, state, gpus, last_error}')"
echo "journal=$([[ -e $j ]] && echo kept || echo gone)"
echo "restarts=$(systemctl show -p NRestarts --value topod.service)"
report
dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace' | head -n 3 | sed 's/^/dmesg=/'
exit 0
