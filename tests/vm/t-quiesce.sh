#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topod's quiesce against a real systemd: the emulated server, MUX method,
# boots with systemd as init (tests/vm/server start --init systemd), pcitopo
# installed by `make install` into the guest's root, the platform
# emulated-mux, whose stop_units are nvidia-persistenced, nvidia-dcgm and
# nvidia-fabricmanager: stand-in GPU daemons (tests/vm/guest/
# quiesce-systemd.sh, gpu-standin.sh) that log, when they start and as the
# last act of their stop, the module's layout, GPU count and generation.
# `topoctl -j monitor` watches the module's events during each switch
# (tests/vm/guest/quiesce-switch.sh). From balance, in one boot:
#   A. a BMC failure (pcitopo_fail_next): rollback to balance; the GPU
#      service stopped before any GPU was detached, started again after
#      they came back, in balance, and running when topoctl returns;
#      exactly one stop and one start; a unit that someone was stopping
#      (deactivating, held there by an ExecStop the test releases once
#      topod has seen it: tests/vm/guest/hold-stop.sh) when the switch
#      began has exited before any GPU was detached;
#   B. a unit that refuses to stop (nvidia-dcgm, RefuseManualStop=yes): the switch
#      fails in quiesce naming the unit, rolls back without touching a GPU
#      or the BMC; the unit stopped before it is started again, the one
#      that refused counted as already running;
#   C. the switch to cascade, with a second GPU service that cannot start
#      again (its ExecStartPre fails): the GPU service stopped before any
#      GPU was detached, started again in cascade (running when topoctl
#      returns), once each; the other one's failed start job fails the
#      restore phase but does not undo the switch: committed, topoctl exits
#      3 naming the unit, LastError too;
#   D. from cascade, a BMC failure with the GPU service masked while it runs
#      (it stops, it cannot start): the rollback puts the hardware back
#      (no GPU left detached, the journal removed: nothing left to redo),
#      rollback-restore fails naming the unit, State idle, LastError both;
#   E. pcitopo-metrics.timer started: the hardened service writes
#      node_exporter's textfile from the module.
# One real move (C; in A, B and D nothing moves): QEMU 7.2 aborts ("RAMBlock
# .../bochs-display-vram already registered") when a MUX move adds a
# stand-in GPU on a port that had one earlier in the same run (balance ->
# cascade -> balance): a boot never moves GPUs back to ports they left.
# TAP on stdout, timings as # comments. The server is always
# stopped (PCITOPO_KEEP_SERVER=1 keeps it).
# shellcheck disable=SC2016 # single-quoted commands expand in the guest
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root"

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"

need_built kmod/pcitopo.ko daemon/topod/topod cli/topoctl
need_host /lib/systemd/systemd /usr/bin/dbus-daemon
need_cmds ipmi_sim qemu-system-x86_64 jq

dir=$(mktemp -d /tmp/pcitopo-quiesce.XXXXXX)
server_test

P=nvidia-persistenced.service D=nvidia-dcgm.service F=nvidia-fabricmanager.service
ulog() { cat "$dir/out/units/$1.log" 2>/dev/null || true; }
lines() { ulog "$1" | wc -l; }
# new UNIT N: the lines of UNIT's log after the first N
new() { ulog "$1" | tail -n "+$(($2 + 1))"; }
# events UNIT N: the new lines' events, e.g. "stop start"
events() { new "$1" "$2" | sed -n 's/.* event=\([a-z]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//'; }
# rf LINE KEY: a field of a record (t=... event=... layout=...)
rf() { sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" <<<"$1" | head -n 1; }
# recview RECORD: "layout gpus generation" of a record
recview() { echo "$(rf "$1" layout) $(rf "$1" gpus) $(rf "$1" generation)"; }
# kv KEY: the first KEY= value in $out (quiesce-switch.sh's output)
kv() { sed -n "s/^$1=//p" <<<"$out" | head -n 1; }
# unitp UNIT PROP: a property from quiesce-switch.sh's unit= lines
unitp() { sed -n "s/^unit=$1 .*\\b$2=\\([^ ]*\\).*/\\1/p" <<<"$out" | head -n 1; }
# phases: "name:status ..." of topoctl set's lines
phases() { awk '/^set=  [a-z-]+ +(done|failed)/ {sub(/^set=/, ""); printf "%s%s:%s", s, $1, $2; s = " "}' <<<"$out"; }
# mev: the GPU events of the monitor, "T EVENT GENERATION" per line
mev() {
	sed -n 's/^mon=\([0-9.]*\) \(.*\)$/{"t":"\1","e":\2}/p' <<<"$out" |
		jq -r 'select(.e.device.kind == "gpu") | "\(.t) \(.e.event) \(.e.generation)"' 2>/dev/null
}
# ret UNIT: UNIT's ActiveState when topoctl set returned
ret() { sed -n "s/^ret=$1 //p" <<<"$out" | head -n 1; }
# lt A B: A < B (decimal numbers)
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# at_rest UNIT: wait until UNIT's log ends with a start line (its start done)
at_rest() {
	grun bash -c 'for _ in $(seq 100); do [[ $(systemctl show -p ActiveState --value '"$1"') == active &&
		$(tail -n 1 /out/units/'"$1"'.log 2>/dev/null) == *" event=start "* ]] && exit 0; sleep 0.2; done; exit 1'
}
# switch LAYOUT [UNIT_BEING_STOPPED]: quiesce-switch.sh; its output in $out
switch() {
	local t0
	t0=$(now)
	out=$(T=240 grun tests/vm/guest/quiesce-switch.sh "$@" 2>&1) || true
	grep '^set=' <<<"$out" | sed 's/^set=/# /'
	echo "# quiesce-switch.sh $*: $(since "$t0") s"
}
# stopped_first WHAT RECORD [LAYOUT]: the unit's stop record shows the
# module before the switch (g0, LAYOUT (balance), 8 GPUs), every GPU removal
# came later (a higher generation) and arrived after the record was written
stopped_first() {
	local g0 t first gens was=${3:-balance}
	g0=$(kv g0)
	t=$(rf "$2" t)
	first=$(mev | awk '$2 == "device-del" {print $1; exit}')
	gens=$(mev | awk '$2 == "device-del" {print $3}' | tr '\n' ' ')
	tap "$([[ $(recview "$2") == "$was 8 $g0" && -n $first && -n $t ]] &&
		awk -v g="$g0" -v l="$gens" 'BEGIN { n = split(l, a, " "); for (i = 1; i <= n; i++) if (a[i] + 0 <= g + 0) exit 1; exit !n }' &&
		lt "$t" "$first" && echo 1 || echo 0)" "$1" \
		"stop record: ${2:-(none)}
generation before the switch: $g0; GPU removals: generations [$gens], first at ${first:-none}"
}

# restarted WHAT LAYOUT INVOCATION: after a switch that moved the GPUs
# (ending in LAYOUT), $P was stopped once, before the first GPU left, and
# started once, after the last came back, in LAYOUT: active, running, a new
# invocation (not INVOCATION), no automatic restart
restarted() {
	local rec last
	eq "$(events "$P" "$nP")" "stop start" "$1: $P stopped once and started once" "$(new "$P" "$nP")"
	stopped_first "$1: $P stopped before any GPU was detached (its last record: balance, 8 GPUs, the generation before the switch)" \
		"$(new "$P" "$nP" | grep -m1 ' event=stop ')"
	rec=$(new "$P" "$nP" | grep -m1 ' event=start ') || rec=
	last=$(mev | tail -n 1)
	tap "$([[ $(recview "$rec") == "$2 8 $(kv module | cut -d' ' -f3)" ]] && lt "${last%% *}" "$(rf "$rec" t)" && echo 1 || echo 0)" \
		"$1: $P started again after the GPUs came back, in $2 with 8 GPUs (the module's last generation)" \
		"start record: ${rec:-(none)}
module: $(kv module); last event: $last"
	eq "$(unitp "$P" ActiveState) $(unitp "$P" SubState) $(unitp "$P" NRestarts) $([[ $(unitp "$P" InvocationID) == "$(rf "$rec" inv)" && $3 != "$(rf "$rec" inv)" ]] && echo new-invocation)" \
		"active running 0 new-invocation" "$1: $P active again, a new invocation, NRestarts=0" "$(grep '^unit=' <<<"$out")"
}

t0=$(now)
line=$("$srv" start "$dir" --method mux --layout balance --busy-ms 500 --timeout 300 \
	--init systemd --setup "$here/guest/quiesce-systemd.sh" 2>&1) && ok=1 || ok=0
tap "$ok" "systemd init, MUX: server up in balance ($(since "$t0") s)" \
	"$line
$(tail -n 20 "$dir/out/setup.log" 2>/dev/null)"
if ((!ok)); then echo "1..$n"; exit 1; fi
echo "# $line"
eq "$(cat "$dir/out/setup.rc" 2>/dev/null) $(grep -c 'platform emulated-mux' "$dir/out/setup.log")" "0 1" \
	"make install into the guest's root (platform emulated-mux), the stand-in GPU units"

g=$(grun bash -c '
	echo "system=$(timeout 200 systemctl is-system-running --wait || true)"
	echo "init=$(cat /proc/1/comm)"
	echo "failed=$(systemctl --failed --no-legend --plain | awk "{print \$1}" | tr "\n" " ")"
	echo "topod=$(systemctl is-active topod.service)"
	echo "status=$(topoctl -j status | tr -d "\n")"
	for u in '"$P $D $F"'; do
		echo "unit=$u $(systemctl show -p ActiveState,SubState,NRestarts,InvocationID "$u" | sort | tr "\n" " ")"
	done' 2>&1) || true
out=$g
gst=$(kv status)
eq "$(kv init) $(kv system) [$(kv failed)] $(kv topod)" "systemd running [] active" \
	"systemd is PID 1, the boot target reached, no unit failed, topod.service active" "$g"
eq "$(jq -r '"\(.platform) \(.layout) \(.state)"' <<<"$gst" 2>/dev/null)" "emulated-mux balance idle" \
	"topod: platform emulated-mux, balance, idle"
inv0=$(unitp "$P" InvocationID)
eq "$(unitp "$P" ActiveState) $(unitp "$P" SubState) $(unitp "$P" NRestarts) | $(events "$P" 0) | $(recview "$(ulog "$P")") | $(unitp "$D" ActiveState) $(unitp "$F" ActiveState)" \
	"active running 0 | start | balance 8 $(rf "$(ulog "$P")" generation) | inactive inactive" \
	"the GPU service stand-in is active before any switch, started once, in balance with 8 GPUs"

# --- A. the BMC fails the job: rollback to balance ------------------------
echo "# A. BMC failure, with $F being stopped when the switch begins"
# $F's stop is held in deactivating while /run/gpu-standin/$F.hold-stop
# exists (an ExecStop drop-in); quiesce-switch.sh lets it go once topod's
# journal lists $F: deterministic, however slow the machine
grun bash -c "mkdir -p /run/systemd/system/$F.d /run/gpu-standin &&
	printf '[Service]\nExecStop=%s /run/gpu-standin/%s.hold-stop\n' \"\$PWD/tests/vm/guest/hold-stop.sh\" $F \
		>/run/systemd/system/$F.d/hold.conf &&
	systemctl daemon-reload && systemctl start $F && touch /run/gpu-standin/$F.hold-stop" >/dev/null 2>&1 || true
at_rest "$F" >/dev/null 2>&1 || true
nP=$(lines "$P") nF=$(lines "$F")
"$srv" console "$dir" 'pcitopo_fail_next' >/dev/null 2>&1 || true
switch cascade "$F"
st=$(kv status)
eq "$(kv rc) | $(phases)" \
	"1 | preflight:done quiesce:done detach:done bmc:failed rollback-bmc:done rollback-reenumerate:done rollback-verify:done rollback-restore:done" \
	"BMC failure: topoctl set fails; quiesce, detach, bmc failed, every rollback phase done" "$out"
tap "$([[ $(sed -n 's/^set=//p' <<<"$out" | tail -n 1) == *"BMC job"*"failed"* ]] &&
	[[ $(jq -r .last_error <<<"$st") == *"BMC job"*"failed"* ]] && echo 1 || echo 0)" \
	"BMC failure: topoctl and LastError say the BMC job failed" "$(grep '^set=' <<<"$out" | tail -n 3)
$st"
eq "$(jq -r '"\(.layout) \(.state)"' <<<"$st" 2>/dev/null) | $(kv module | cut -d' ' -f1,2) | $(mev | awk '{print $2}' | sort | uniq -c | awk '{printf "%s %s ", $1, $2}')" \
	"balance idle | balance 8 | 4 device-add 4 device-del " \
	"BMC failure: back in balance with 8 GPUs; the 4 moving GPUs were detached and came back" "$(grep '^mon=' <<<"$out" | cut -c1-160)"
restarted "BMC failure" balance "$inv0"
eq "$(ret "$P") $(ret "$F")" "active active" \
	"BMC failure: topoctl set returned with $P and $F running again (topod waits for their start jobs; $P's start takes 1 s)" \
	"$(grep '^ret=\|^set=  rollback-restore' <<<"$out")"
inv1=$(unitp "$P" InvocationID)
recf=$(new "$F" "$nF" | grep -m1 ' event=stop ') || recf=
tap "$([[ $(kv being_stopped) == deactivating && $(kv released) == seen && $(grep -m1 '^set=  quiesce' <<<"$out") == *"2 unit(s) stopped"* ]] && echo 1 || echo 0)" \
	"BMC failure: $F was deactivating when the switch began (held); topod journalled it before it was let go; quiesce counted it with $P (2 units)" \
	"being_stopped=$(kv being_stopped) released=$(kv released); $(grep -m1 '^set=  quiesce' <<<"$out")"
tap "$([[ -n $recf ]] && lt "$(kv t_set)" "$(rf "$recf" t)" && echo 1 || echo 0)" \
	"BMC failure: $F was still running when topoctl set began (its stop record is later)" \
	"t_set=$(kv t_set); stop record: ${recf:-(none)}"
stopped_first "BMC failure: $F, already stopping, had exited before any GPU was detached" "$recf"
echo "# $F after the rollback: $(unitp "$F" ActiveState) ($(events "$F" "$nF"): topod's restore starts what quiesce stopped, this unit too)"
grun bash -c "rm -f /run/gpu-standin/$F.hold-stop /run/systemd/system/$F.d/hold.conf
	systemctl daemon-reload; systemctl stop $F" >/dev/null 2>&1 || true

# --- B. a unit refuses to stop ------------------------------------------
echo "# B. $D refuses to stop (RefuseManualStop=yes)"
grun systemctl start "$D" >/dev/null 2>&1 || true
at_rest "$D" >/dev/null 2>&1 || true
gstart=$(grun cat /sys/kernel/pcitopo/generation 2>/dev/null) || gstart=
invD=$(grun systemctl show -p InvocationID --value "$D" 2>/dev/null) || invD=
nP=$(lines "$P") nD=$(lines "$D")
switch cascade
st=$(kv status)
eq "$(kv rc) | $(phases)" \
	"1 | preflight:done quiesce:failed rollback-bmc:done rollback-reenumerate:done rollback-verify:done rollback-restore:done" \
	"refusal: topoctl set fails in quiesce; no detach, no BMC select; every rollback phase done" "$out"
tap "$([[ $(sed -n 's/^set=//p' <<<"$out" | tail -n 1) == *"$D"*refused* && $(jq -r .last_error <<<"$st") == *"StopUnit $D"*refused* ]] && echo 1 || echo 0)" \
	"refusal: topoctl's error and LastError name $D and the refusal" "$(grep '^set=' <<<"$out" | tail -n 2)
$st"
eq "$(jq -r '"\(.layout) \(.state)"' <<<"$st" 2>/dev/null) | $(kv module) | $(mev | wc -l) | $(grep -c '^set=  rollback-bmc .*the BMC not asked: the Select was never sent' <<<"$out")" \
	"balance idle | balance 8 $gstart | 0 | 1" \
	"refusal: balance with 8 GPUs, the module's generation unchanged, no GPU event, the BMC not asked to switch" "$out"
eq "$(unitp "$D" ActiveState) $(unitp "$D" SubState) $([[ $(unitp "$D" InvocationID) == "$invD" ]] && echo same-invocation) | $(events "$D" "$nD")" \
	"active running same-invocation | " "refusal: $D never stopped (same invocation, no stop record)" "$(new "$D" "$nD")"
recs=$(new "$P" "$nP")
eq "$(events "$P" "$nP") | $(recview "$(grep -m1 ' event=stop ' <<<"$recs")") | $(recview "$(grep -m1 ' event=start ' <<<"$recs")")" \
	"stop start | balance 8 $gstart | balance 8 $gstart" \
	"refusal: $P (stopped before $D refused) started again, in balance; once each" "$recs"
eq "$(unitp "$P" ActiveState) $(unitp "$P" NRestarts) $([[ $(unitp "$P" InvocationID) != "$inv1" ]] && echo new-invocation)" \
	"active 0 new-invocation" "refusal: $P active again, no automatic restart"
eq "$(grep -m1 '^set=  rollback-restore' <<<"$out" | sed 's/.*  //')" "1 unit(s) started, 1 already running" \
	"refusal: rollback-restore started $P and counts $D, which never stopped, as already running" \
	"$(grep '^set=  rollback-restore' <<<"$out")"

# --- C. the switch to cascade; a second GPU service cannot start again ---
echo "# C. switch to cascade, $F's next start fails"
grun bash -c "systemctl kill $D; for _ in \$(seq 50); do
	systemctl is-active --quiet $D || break; sleep 0.2; done
	systemctl start $F && touch /run/gpu-standin/$F.fail-start" >/dev/null 2>&1 || true
at_rest "$F" >/dev/null 2>&1 || true
inv2=$(grun systemctl show -p InvocationID --value "$P" 2>/dev/null) || inv2=
nP=$(lines "$P") nF=$(lines "$F")
switch cascade
st=$(kv status)
eq "$(kv rc) | $(phases) | $(grep -m1 '^set=  quiesce' <<<"$out" | sed 's/.*  //; s/[0-9]* driver(s)/N driver(s)/')" \
	"3 | preflight:done quiesce:done detach:done bmc:done reenumerate:done verify:done restore:failed commit:done | 2 unit(s) stopped, N driver(s) unbound" \
	"switch: topoctl set cascade exits 3; restore fails ($F), yet no rollback: committed; quiesce stopped two units" "$out"
tap "$([[ $(grep -m1 '^set=topoctl: ' <<<"$out") == *"switched to cascade, but $F did not start: job failed, exit-code"* &&
	$(grep -m1 '^set=  restore' <<<"$out") == *"1 unit(s) started"*"; 1 did not start: $F"* ]] && echo 1 || echo 0)" \
	"switch: topoctl and the restore phase name $F, its job's result (failed) and the unit's (exit-code)" \
	"$(grep '^set=' <<<"$out" | tail -n 4)"
eq "$(jq -r '"\(.layout) \(.state)"' <<<"$st" 2>/dev/null) $([[ $(jq -r .last_error <<<"$st") == *"$F did not start"* ]] && echo names-unit) | $(kv module | cut -d' ' -f1,2) | $(mev | awk '{print $2}' | sort | uniq -c | awk '{printf "%s %s ", $1, $2}') | $([[ -e $dir/out/topod-state/job ]] && echo journal-kept)" \
	"cascade idle names-unit | cascade 8 | 4 device-add 4 device-del  | " \
	"switch: cascade with 8 GPUs, committed (no journal left); LastError names $F; the 4 moving GPUs left and came back" "$st
$(grep '^mon=' <<<"$out" | cut -c1-160)"
restarted switch cascade "$inv2"
eq "$(ret "$P") | $(events "$F" "$nF") | $(unitp "$F" ActiveState)" "active | stop | failed" \
	"switch: topoctl set returned with $P running; $F stopped once, never started, failed" \
	"$(grep '^ret=' <<<"$out"); $(new "$F" "$nF")"
grun rm -f "/run/gpu-standin/$F.fail-start" >/dev/null 2>&1 || true

# --- D. the unit cannot be started again after a rollback ---------------
echo "# D. BMC failure with $P masked while it runs: its restart fails"
grun systemctl mask "$P" >/dev/null 2>&1 || true
nP=$(lines "$P")
"$srv" console "$dir" 'pcitopo_fail_next' >/dev/null 2>&1 || true
switch common
st=$(kv status)
eq "$(kv rc) | $(phases)" \
	"1 | preflight:done quiesce:done detach:done bmc:failed rollback-bmc:done rollback-reenumerate:done rollback-verify:done rollback-restore:failed" \
	"masked: the BMC fails the job; the rollback's hardware phases are done, rollback-restore fails" "$out"
tap "$([[ $(jq -r '"\(.layout) \(.state)"' <<<"$st") == "cascade idle" && $(jq -r .last_error <<<"$st") == *"BMC job"*"rolled back to cascade, but StartUnit $P"*masked* ]] && echo 1 || echo 0)" \
	"masked: back in cascade, State idle; LastError has the BMC's error and names $P, masked" "$st"
eq "$(kv module | cut -d' ' -f1,2) | $(mev | awk '{print $2}' | sort | uniq -c | awk '{printf "%s %s ", $1, $2}')" \
	"cascade 8 | 4 device-add 4 device-del " "masked: no GPU stays detached (cascade, 8 GPUs)" "$(grep '^mon=' <<<"$out" | cut -c1-160)"
job=$(cat "$dir/out/topod-state/job" 2>/dev/null) || job=
eq "$job" "" "masked: no journal left: the hardware is back, a restart of topod has nothing to redo" "$job"
eq "$(events "$P" "$nP") $(unitp "$P" ActiveState)" "stop inactive" "masked: $P stopped once, not started" "$(new "$P" "$nP")"
stopped_first "masked: $P stopped before any GPU was detached" "$(new "$P" "$nP" | grep -m1 ' event=stop ')" cascade

# --- E. the metrics timer under this systemd -----------------------------
# pcitopo-metrics.service is hardened (ProtectSystem=strict, AF_NETLINK
# only, a system call filter): it must still read the module and write
# node_exporter's textfile; its timer, started late, fires at once
echo "# E. pcitopo-metrics.timer"
out=$(grun bash -c 'd=/var/lib/prometheus/node-exporter
	mkdir -p "$d"; rm -f "$d/pcitopo.prom"
	systemctl start pcitopo-metrics.timer
	for _ in $(seq 100); do [[ -s $d/pcitopo.prom ]] && break; sleep 0.1; done
	echo "result=$(systemctl show -p Result --value pcitopo-metrics.service) mode=$(stat -c %a "$d/pcitopo.prom" 2>&1)"
	echo "timer=$(systemctl is-active pcitopo-metrics.timer)"
	grep -E "^pcitopo_(layout\{layout=\"cascade\"\}|gpus|generation) " "$d/pcitopo.prom" | sort | tr "\n" " "; echo
	ls -a "$d" | tr "\n" " "' 2>&1) || true
tap "$([[ $out == *"result=success mode=644"* && $out == *"timer=active"* &&
	$out == *'pcitopo_gpus 8 pcitopo_layout{layout="cascade"} 1'* && $out != *"pcitopo_generation 0 "* &&
	$out == *". .. pcitopo.prom "* ]] && echo 1 || echo 0)" \
	"metrics: the timer ran the hardened service: pcitopo.prom (0644, nothing else left) says cascade, 8 GPUs, from the module" "$out"

echo "# $P's log:"
ulog "$P" | sed 's/^/#   /'
echo "# total: $(since "$t0") s"

echo "1..$n"
((failed == 0))
