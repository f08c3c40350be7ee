#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gpu-standin.sh LOG UNIT   (in the emulated server's systemd guest: the main
# process of the stand-in GPU services that tests/vm/guest/quiesce-systemd.sh
# installs; UNIT is the unit's name, %n)
#
# A GPU daemon's stand-in. It appends one line to LOG when it starts and one
# when it stops (on SIGTERM, as its last act before it exits), each with what
# pcitopo.ko reports at that moment (one consistent read: the generation is
# the same before and after):
#   t=EPOCHREALTIME event=start|stop unit=UNIT inv=INVOCATION_ID pid=PID
#   layout=L gpus=N generation=G
# The same line goes to stdout (the journal).
# GPU_STANDIN_STOP_DELAY (seconds, default 0): the stop takes that long
# before the line is written and the process exits, like a daemon that
# flushes its state: a caller that detached GPUs without waiting for the unit
# to be inactive is caught (the stop line then shows a later generation).
# /run/gpu-standin/UNIT.stop-after, if there when the stop begins, names
# another unit: the stop first waits (up to 30 s) until that one is no
# longer active, then the delay: this unit is sure to be still deactivating
# when whoever stops the other one goes on.
set -u
log=${1:?usage: gpu-standin.sh LOG UNIT}
unit=${2:?usage: gpu-standin.sh LOG UNIT}
delay=${GPU_STANDIN_STOP_DELAY:-0}
m=/sys/kernel/pcitopo

rec() {
	local g1 g2 l n i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		g1=none g2=none l=none n=0
		read -r g1 <"$m/generation" 2>/dev/null
		read -r l <"$m/layout" 2>/dev/null
		read -r n <"$m/count_gpus" 2>/dev/null
		read -r g2 <"$m/generation" 2>/dev/null
		[[ $g1 == "$g2" ]] && break
		: "$i"
	done
	printf 't=%s event=%s unit=%s inv=%s pid=%s layout=%s gpus=%s generation=%s\n' \
		"$EPOCHREALTIME" "$1" "$unit" "${INVOCATION_ID:-none}" "$$" "$l" "$n" \
		"$g1" | tee -a "$log"
}

stop() {
	local i after=
	trap '' TERM
	[[ -f /run/gpu-standin/$unit.stop-after ]] &&
		read -r after <"/run/gpu-standin/$unit.stop-after"
	for ((i = 0; i < 300 && ${#after}; i++)); do
		systemctl is-active --quiet "$after" || break
		sleep 0.1
	done
	sleep "$delay"
	rec stop
	exit 0
}

trap stop TERM
rec start
# wait returns when SIGTERM arrives; the trap then runs
while :; do
	sleep 3600 &
	wait $!
done
