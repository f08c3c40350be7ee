#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# quiesce-switch.sh LAYOUT [UNIT_BEING_STOPPED]   (in the emulated server's
# systemd guest, from tests/vm/t-quiesce.sh through tests/vm/server run)
#
# One `topoctl set LAYOUT`, watched: `topoctl -j monitor` runs from before
# the switch to after it, each event stamped with the guest's realtime clock
# when it arrived. With UNIT_BEING_STOPPED, that unit is stopped with
# --no-block just before the switch; its stop is held (tests/vm/guest/
# hold-stop.sh, an ExecStop= the test added, waits while
# /run/gpu-standin/UNIT.hold-stop exists) so that it is deactivating when
# topod looks at it, and is let go only once topod's journal lists it
# among the units quiesce stops (topod saw it running and waits for it),
# or topoctl returned: no window to hit, whatever the load. After topoctl
# returns, waits (up to 30 s) until each stand-in unit is at rest: active
# with its log's last line a start, or inactive/failed. Prints key=value lines on stdout:
#   g0=GEN            the module's generation before the switch
#   t_set=EPOCH       just before topoctl set
#   being_stopped=STATE  UNIT_BEING_STOPPED's ActiveState before topoctl set
#   released=seen|returned  why its stop was let go (topod's journal listed
#                     it, or topoctl returned first)
#   rc=N              topoctl's exit status
#   ret=UNIT STATE    each stand-in unit's ActiveState when topoctl returned
#   set=LINE          topoctl's output (stdout and stderr), one per line
#   mon=EPOCH JSON    the module's events
#   module=LAYOUT GPUS GEN   after the switch
#   status=JSON       topoctl -j status
#   unit=NAME ActiveState=.. InvocationID=.. NRestarts=.. SubState=..
#   settled=0|1       whether the units were at rest within 30 s
# shellcheck disable=SC2317 # stamp runs in a pipeline
set -u
to=${1:?usage: quiesce-switch.sh LAYOUT [UNIT_BEING_STOPPED]}
stopping=${2:-}
m=/sys/kernel/pcitopo
units=(nvidia-persistenced.service nvidia-dcgm.service nvidia-fabricmanager.service)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

stamp() {
	local l
	while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done
}
{
	topoctl -j monitor &
	echo $! >"$tmp/mon.pid"
	wait
} 2>&1 | stamp >"$tmp/mon" &
# subscribed once it holds its two netlink sockets (requests, events)
for _ in $(seq 100); do
	p=$(cat "$tmp/mon.pid" 2>/dev/null) || p=
	if [[ -n $p ]]; then
		s=$(find "/proc/$p/fd" -lname 'socket:*' 2>/dev/null | wc -l)
		((s >= 2)) && break
	fi
	sleep 0.1
done
sleep 0.2

echo "g0=$(<"$m/generation")"
if [[ -n $stopping ]]; then
	systemctl stop --no-block "$stopping"
	# the stop job runs when systemd gets to it, and then it is held in
	# deactivating (hold-stop.sh); the bound only guards a broken setup
	for _ in $(seq 600); do
		st=$(systemctl show -p ActiveState --value "$stopping")
		[[ $st == active ]] || break
		sleep 0.1
	done
	echo "being_stopped=$st"
fi
echo "t_set=$EPOCHREALTIME"
topoctl set "$to" >"$tmp/set" 2>&1 &
setpid=$!
if [[ -n $stopping ]]; then
	# topod journals a unit before it stops it (or waits for its stop)
	rel=returned
	# running PID: not exited (a zombie is, until waited for)
	running() {
		local s
		s=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
		[[ -n $s && $s != [ZX] ]]
	}
	while running "$setpid"; do
		if grep -q "^units=.*\b$stopping\b" /var/lib/pcitopo/job 2>/dev/null; then
			rel=seen
			break
		fi
		sleep 0.1
	done
	rm -f "/run/gpu-standin/$stopping.hold-stop"
	echo "released=$rel"
fi
wait "$setpid"
echo "rc=$?"
for u in "${units[@]}"; do
	echo "ret=$u $(systemctl show -p ActiveState --value "$u")"
done
sed 's/^/set=/' "$tmp/set"

# the units topod started again: wait for their start lines
settled=0
for _ in $(seq 150); do
	ok=1
	for u in "${units[@]}"; do
		st=$(systemctl show -p ActiveState --value "$u")
		last=$(tail -n 1 "/out/units/$u.log" 2>/dev/null)
		case $st in
		inactive | failed) ;;
		active) [[ $last == *" event=start "* ]] || ok=0 ;;
		*) ok=0 ;;
		esac
	done
	((ok)) && { settled=1; break; }
	sleep 0.2
done
sleep 0.5
kill "$(cat "$tmp/mon.pid")" 2>/dev/null
wait
sed 's/^/mon=/' "$tmp/mon"
echo "module=$(<"$m/layout") $(<"$m/count_gpus") $(<"$m/generation")"
echo "status=$(topoctl -j status 2>&1 | tr -d '\n')"
for u in "${units[@]}"; do
	echo "unit=$u $(systemctl show -p ActiveState,SubState,NRestarts,InvocationID "$u" |
		sort | tr '\n' ' ')"
done
echo "settled=$settled"
