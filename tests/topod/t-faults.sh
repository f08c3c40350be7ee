#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topod's fault matrix on the host (issue 12), TAP: topod against the
# simulated BMC over LAN (MUX method) and the stand-in hardware (no module;
# tests/topod/hw_standin.c, in topod-standin), as in t-topod.sh.
#
# For every boundary of an online switch, forward and during its rollback
# (the tables below: each phase topod enters, the first of each action
# before it acts, the rollback's commit, the end of a commit; fault.c):
#   - topod is held there (--test-fault WHERE:N:stop: it SIGSTOPs itself,
#     its journal on disk), the journal's phase is checked, then it is
#     killed (SIGKILL) at that exact point; or
#   - the host loses power there (at each phase and during the BMC's job):
#     topod killed, and the stand-in comes up as hardware does after a
#     power cut (nothing detached, every driver bound, the BMC's layout; the
#     BMC, powered on its own, kept its state and finished its job) with
#     another boot id;
# then topod starts again and recovers from its journal. Each case asserts:
# committed (the new layout) or rolled back (the old), as the journal
# allows (the Select out and the BMC at the new layout: finished; else
# back); State idle, no journal; the BMC at that layout; 8 GPUs, nothing
# detached, every GPU with its driver (the stand-in's fake-gpu); LastError
# the first cause and what interrupted the switch (topod stopped / the host
# went down, in which phase).
# Then the BMC and the GPUs misbehave, no kill: a MUX that reports done
# and moved nothing; a failed BMC job; a completion code for the Select;
# a BMC not ready (0xD2) in preflight, on the Select, on the status (waited
# out);
# 0xC3 on the Select (never resent: the status read instead); a rollback
# that asks the BMC only where it must (issue 24): the Select never sent
# and the BMC gone (refused by 0xD2, or killed before it with the BMC
# stopped: rolled back, nothing asked, the simulator's log says), the
# Select out and the BMC gone through the rollback's budget (waiting-bmc:
# the GPUs back, a switch Busy; then topod finishes by itself when the BMC
# answers: its job failed, forgotten by a reset, or done meanwhile); a
# GPU that does not come back in the new layout (Timeout, rolled back); one
# that comes back in neither (State failed, the journal kept, LastError the
# first cause; the next start tries again; once the GPU is back, rolled
# back); a GPU back on a narrower link (Verify, rolled back); and a kill at
# the point where a failed rollback has marked its journal.
# Then topoctl against a topod held (SIGSTOP) mid-switch: set and status
# say it is not answering (exit 4, -j too), and the switch commits once it
# goes on; killed mid-switch: set says it went away; a switch held past
# D-Bus's 25 s default timeout (a hung BMC job) followed to its end.
# Then a journal unreadable at start (kept aside, not overwritten); the
# state dir cannot take the journal (a tmpfs of its own: full,
# read-only, not writable): refused in preflight and by the dry run; a
# commit that cannot be written: an error, the journal kept.
# No systemd units here (none on this private bus: topod says "systemd not
# on the bus"): tests/vm/t-faults-vm.sh has them, with the real module.
# No sleep waits for a window: every case is held at its point.
# T_FAULTS_ONLY=REGEX: only the points it matches; T_FAULTS_KEEP=1 keeps
# the folder (topod.log).
# shellcheck disable=SC2016 # fault_switch's SETUP_CMDs expand there
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
# shellcheck source-path=SCRIPTDIR source=topod-host.sh
source "$here/topod-host.sh"

make -s -C "$top/daemon" topod-tests >/dev/null || { echo "not ok 1 - build topod"; exit 1; }
make -s -C "$top/cli" >/dev/null || { echo "not ok 1 - build topoctl"; exit 1; }

D=$(mktemp -d /tmp/t-faults.XXXXXX)
S=$D/state
# T_FAULTS_KEEP=1 keeps the folder (topod.log) for a look afterwards
trap 'cleanup_dir "$D"; mountpoint -q "$D/small" && umount "$D/small"; [[ -n ${T_FAULTS_KEEP:-} ]] && echo "# kept $D" || rm -rf "$D"' EXIT
bus_start "$D"
bmc_start "$D" --method mux --busy-ms 200
topod_conf "$D" emulated-mux 8000
# a GPU that does not come back costs this much (the budget), not 20 s
sed -i 's/reenumerate_ms = [0-9]*/reenumerate_ms = 1500/' "$D/platform.conf"
# the stand-in's slots bring their cards back when powered on, as pciehp
# does: a rollback needs the BMC only where the MUX may have moved (the
# emulated server's QEMU drops a card at power off: "always" there)
sed -i 's/rollback_select = "always"/rollback_select = "if-moved"/' "$D/platform.conf"
grep -q 'rollback_select = "if-moved"' "$D/platform.conf" || echo "# no rollback_select in the platform file"
export PCITOPO_BMC_CONSOLE_PORT
console() { "$top/tests/bmc/bmc-console" --port "$PCITOPO_BMC_CONSOLE_PORT" "$@" >/dev/null; }

# Every switch is --force: preflight's holder check scans every process,
# and another test's stand-in holder (t-topod.sh's, run at the same time on
# a developer's machine) would refuse it; this matrix is about what comes
# after preflight (t-topod.sh tests the refusals).
t_start=$(date +%s)
pid() { cat "$D/topod.pid" 2>/dev/null; }
stopped() { [[ $(proc_state "$(pid)") == T ]]; }
exited() { [[ $(proc_state "$(pid)") == [ZX]* || $(proc_state "$(pid)") == gone ]]; }
jget() { sed -n "s/^$1=//p" "$S/job" 2>/dev/null; }
nodrv() { local c; c=$(grep -c . "$S/fake-unbound" 2>/dev/null); echo "${c:-0}"; }	# GPUs without a driver
code() { case $1 in balance) echo 1 ;; common) echo 2 ;; cascade) echo 3 ;; esac; }
name() { case $1 in 1) echo balance ;; 2) echo common ;; 3) echo cascade ;; esac; }
st() { "$TOPOCTL" -j status 2>/dev/null; }
# until State is $1 (idle: and no journal left)
settle() {
	wait_for 30 sh -c "'$TOPOCTL' -j status | jq -e '.state == \"$1\"' >/dev/null &&
		{ [ '$1' != idle ] || [ ! -e '$S/job' ]; }"
}
# down [SIG]: topod_stop (which waits until the bus has let its name go)
down() { topod_stop "$D" "${1:-TERM}"; }
# restart: topod without faults, after the last one was killed or stopped
restart() {
	down KILL
	TOPOD_ARGS='' topod_start "$D"
}
# held_set "--test-fault WHERE:N:stop ..." [--no-wait]: topod started afresh
# with those faults and topoctl set $to in the background (its output in
# set.out, its pid in spid), until topod stands at the first of them
held_set() {
	down
	TOPOD_ARGS=$1 topod_start "$D"
	"$TOPOCTL" set "$to" --force ${2:+"$2"} >"$D/set.out" 2>&1 &
	spid=$!
	wait_for 30 stopped
}
boot=0
power_cut() {	# the host goes down and comes up: the stand-in's state resets
	boot=$((boot + 1))
	echo "boot-$boot" >"$S/fake-boot-id"
	rm -f "$S/fake-detached" "$S/fake-unbound"
}
echo boot-0 >"$S/fake-boot-id"
lastline() { grep -E 'test fault|rolling back|rollback|recover' "$D/topod.log" | tail -n 3 | sed 's/^/# /'; }

# the invariant after a case: layout L (its name), idle, no journal, the
# BMC at L, 8 GPUs, nothing detached, every driver bound; LastError matched
# against the glob $3
after() {	# after LABEL LAYOUT LASTERROR_GLOB
	local label=$1 l=$2 glob=$3 s le
	s=$(st)
	le=$(jq -r '.last_error // ""' <<<"$s" 2>/dev/null)
	# shellcheck disable=SC2053 # a glob, on purpose
	ok "$([[ $(jq -r '"\(.layout) \(.state) \(.gpus)"' <<<"$s" 2>/dev/null) == "$l idle 8" &&
		! -e $S/job && $(bmc_current) == $(code "$l") ]] && echo 0 || echo 1)" \
		"$label: $l, idle, no journal, the BMC at $l"
	[[ -e $S/job ]] && sed 's/^/# job: /' "$S/job"
	# (fake-slots-off: the stand-in's slots powered off, where it has them)
	ok "$([[ $(nodrv) == 0 && ! -e $S/fake-detached && ! -s $S/fake-slots-off ]] && echo 0 || echo 1)" \
		"$label: 8 GPUs, nothing detached, every GPU with its driver, every slot powered on"
	[[ $(nodrv) == 0 ]] || sed 's/^/# without a driver: /' "$S/fake-unbound"
	# shellcheck disable=SC2053
	ok "$([[ $le == $glob ]] && echo 0 || echo 1)" "$label: LastError ${4:-as expected}"
	# shellcheck disable=SC2053
	[[ $le == $glob ]] || echo "# LastError: $le (wanted $glob)"
}

# case MODE WHERE PHASE OUTCOME KIND: one switch from the current layout
# to the other (balance <-> cascade), held at WHERE, killed (MODE kill) or
# the host powered off (MODE power) there, restarted. PHASE: the journal's
# phase at the hold (- : no journal). OUTCOME: from (rolled back) or to
# (committed). KIND: fwd (a plain switch) or rb (the MUX reports done and
# moves nothing: verify fails, the rollback runs)
fcase() {
	local mode=$1 where=$2 ph=$3 outcome=$4 kind=$5 from to want glob first why held spid jid
	from=$(name "$(bmc_current)")
	[[ $from == balance ]] && to=cascade || to=balance
	local label="$kind $where ($mode, $from -> $to)"
	[[ $kind == rb ]] && code "$from" >"$S/fake-layout"
	down
	TOPOD_ARGS="--test-fault $where:stop" topod_start "$D"
	# in the background: held in preflight, SetLayout has no answer yet
	"$TOPOCTL" set "$to" --force --no-wait >/dev/null 2>&1 &
	spid=$!
	wait_for 30 stopped
	held=$(stopped && grep -c "test fault: SIGSTOP at $where\$" "$D/topod.log")
	if [[ $ph == - ]]; then
		ok "$([[ $held -ge 1 && ! -e $S/job ]] && echo 0 || echo 1)" "$label: held there, no journal"
	else
		ok "$([[ $held -ge 1 && $(jget phase) == "$ph" ]] && echo 0 || echo 1)" \
			"$label: held there, the journal in phase $ph"
		[[ $(jget phase) == "$ph" ]] || echo "# journal phase: $(jget phase)"
	fi
	jid=$(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE")
	down KILL
	wait "$spid" 2>/dev/null
	[[ $mode == power ]] && power_cut
	TOPOD_ARGS='' topod_start "$D"
	settle idle
	[[ $outcome == from ]] && want=$from || want=$to
	[[ $mode == power ]] && why="the host went down (power cut or reset)" || why="topod stopped"
	first=
	[[ $kind == rb ]] && first="the module reports $from (*) with 8 GPUs, not $to; then "
	if [[ $where == preflight* ]]; then
		glob=""		# nothing journalled, nothing done: nothing to say
	elif [[ $where == committed* && $kind == fwd ]]; then
		glob=""
	elif [[ $where == committed* ]]; then
		glob="the module reports $from (*) with 8 GPUs, not $to"
	elif [[ $outcome == to ]]; then
		glob=""		# finished: committed, nothing failed
	else
		glob="$first$why in phase $ph of the switch from $from to $to*"
	fi
	after "$label" "$want" "$glob" "'${glob:-}'"
	# a Select whose job was done (forward: the Select out; the rollback:
	# past rollback-bmc) is never sent again by the recovery
	if [[ $outcome == to || $ph == rollback-@(reenumerate|verify|restore) ]]; then
		ok "$([[ $(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE") == "$jid" ]] && echo 0 || echo 1)" \
			"$label: no BMC command sent again (still job $jid)"
	fi
	rm -f "$S/fake-layout"
}

# --- every boundary, forward --------------------------------------------
# WHERE:N  journal phase at the hold  outcome after the restart
# shellcheck disable=SC2034 # read through ${!kind}
fwd='preflight:1 - from
quiesce:1 quiesce from
hw_unbind:1 quiesce from
detach:1 detach from
hw_detach:1 detach from
hw_slot_down:1 detach from
bmc:1 bmc from
bmc_select:1 bmc from
bmc_follow:1 bmc to
reenumerate:1 reenumerate to
hw_slot_up:1 reenumerate to
verify:1 verify to
restore:1 restore to
hw_bind:1 restore to
commit:1 commit to
committed:1 - to'
# --- every boundary of the rollback (after a MUX that moved nothing) ------
# 4 ports detached forward: the rollback's first hw_detach is the 5th;
# its slots' power off and on, Select and follow the 2nd; the rollback's
# commit is no phase of its own (the journal says rollback-restore). No
# hw_rescan: the stand-in's slots all have power control, and powering one
# on enumerates it (pciehp), so neither path rescans (the Link Disable
# case below does)
# shellcheck disable=SC2034
rb='rollback-bmc:1 rollback-bmc from
hw_detach:5 rollback-bmc from
hw_slot_down:2 rollback-bmc from
bmc_select:2 rollback-bmc from
bmc_follow:2 rollback-bmc from
rollback-reenumerate:1 rollback-reenumerate from
hw_slot_up:2 rollback-reenumerate from
rollback-verify:1 rollback-verify from
rollback-restore:1 rollback-restore from
hw_bind:1 rollback-restore from
rollback-commit:1 rollback-restore from
committed:1 - from'

# topod is killed at every point; the host loses power at every phase and
# during the BMC's job (bmc_follow): inside a phase, before one action or
# the next, a power cut leaves what a kill there leaves, less the
# stand-in's state, which the power cut resets anyway
only=${T_FAULTS_ONLY:-}	# a regular expression: only the WHEREs it matches
for kind in fwd rb; do
	echo "# $kind: topod killed at every point, then the host powered off at every phase"
	for mode in kill power; do
		while read -r where ph outcome; do
			[[ -n $only && ! $where =~ $only ]] && continue
			[[ $mode == power && $where == @(hw_*|bmc_select*) ]] && continue
			fcase "$mode" "$where" "$ph" "$outcome" "$kind"
		done <<<"${!kind}"
	done
done
rm -f "$S/fake-boot-id"
echo "# matrix: $(($(date +%s) - t_start)) s"

# --- the BMC and the GPUs misbehave ----------------------------------------
other() { [[ $(name "$(bmc_current)") == balance ]] && echo cascade || echo balance; }
fault_switch() {	# fault_switch SETUP_CMD: the switch, after SETUP_CMD
	from=$(name "$(bmc_current)") to=$(other)
	restart
	eval "$1"
	"$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1; rc=$?
	sed 's/^/# /' "$D/set.out"
	settle idle
}
fault_switch 'code $from >"$S/fake-layout"'
rm -f "$S/fake-layout"
after "BMC done, nothing moved ($from -> $to)" "$from" \
	"the module reports $from (*) with 8 GPUs, not $to" "is the Verify error, naming what the module saw"
ok "$([[ $rc == 1 ]] && echo 0 || echo 1)" "BMC done, nothing moved: topoctl set fails"

fault_switch 'console pcitopo_fail_next'
after "a failed BMC job ($from -> $to)" "$from" "BMC job * failed (error 2)" "names the job and its error"

# the completion code must answer the Select, not preflight's status: held
# just before it
from=$(name "$(bmc_current)") to=$(other)
held_set "--test-fault bmc_select:1:stop"
console 'pcitopo_cc 0xc1'	# one console line
kill -CONT "$(pid)"
wait "$spid"; rc=$?
sed 's/^/# /' "$D/set.out"
settle idle
after "the Select answered completion code 0xc1 ($from -> $to)" "$from" "*[cC]1*" "names the completion code"

# --- a BMC not ready (issue 24): 0xD2 "BMC initialization in progress",
# what a BMC answers for a minute or more after a reset, is waited out
# with backoff (0.25 s doubling) within the job's budget (8000 ms here).
# The simulated BMC holds the state: it answers 0xD2 to exactly the next N
# OEM commands (pcitopo_cc 0xd2 N), set while topod is held at the point.
# waited SECS-LOW SECS-HIGH LINE: the "waited N s" of LINE is within
waited() {
	local w
	w=$(sed -n 's/.*waited \([0-9.]*\) s.*/\1/p' <<<"$3" | head -1)
	[[ -n $w ]] && awk -v w="$w" -v lo="$1" -v hi="$2" 'BEGIN { exit !(w >= lo && w <= hi) }'
}
# held_cc POINT CC N PHASE: a switch held at POINT (a --test-fault point),
# the BMC set to answer CC to its next N OEM commands, then let go and
# waited for: rc its exit, line the last "PHASE: done" of topod's log,
# from, to and jid (the BMC's job id before) for the checks
held_cc() {
	from=$(name "$(bmc_current)") to=$(other)
	jid=$(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE")
	held_set "--test-fault $1:1:stop"
	console "pcitopo_cc $2 $3"
	kill -CONT "$(pid)"
	set_done "$4"
}
# set_done PHASE: the held switch's topoctl set waited for (rc), topod
# idle, line the last "PHASE: done" of its log
set_done() {
	wait "$spid"; rc=$?
	sed 's/^/# /' "$D/set.out"
	settle idle
	line=$(grep " $1: done" "$D/topod.log" | tail -1)
	echo "# $line"
}
# in preflight: its status answered 0xD2 twice, then the BMC is ready
held_cc preflight 0xd2 2 preflight
ok "$([[ $rc == 0 && $line == *"BMC not ready (0xD2 BMC initialization in progress): waited "* ]] && waited 0.7 8 "$line" && echo 0 || echo 1)" \
	"0xD2 twice in preflight ($from -> $to): waited out (0.25 + 0.5 s), preflight's message names the code and the wait"
after "0xD2 twice in preflight ($from -> $to)" "$to" "" "empty"
# resent CC WHAT N LO: the Select answered CC (WHAT: topod's words for
# it) N times, set while topod is held at bmc_select: refused before it
# acted, so sent again once the BMC takes it; committed, the bmc phase
# naming CC and a wait of LO s or more; one job in all
resent() {
	local cc=$1 what=$2 times=$3 lo=$4
	held_cc bmc_select "$cc" "$times" bmc
	ok "$([[ $rc == 0 && $line == *"BMC not ready ($what): waited "* ]] && waited "$lo" 8 "$line" && echo 0 || echo 1)" \
		"$cc $times times on the Select ($from -> $to): committed, the bmc phase says it waited ($lo s or more) for $cc"
	ok "$([[ $(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE") == $((jid + 1)) ]] && echo 0 || echo 1)" \
		"$cc on the Select: one BMC job in all (the refused Selects started none)"
	after "$cc $times times on the Select ($from -> $to)" "$to" "" "empty"
}
resent 0xD2 "0xD2 BMC initialization in progress" 3 1.7	# 0.25 + 0.5 + 1 s
# on the status, once the Select is out: read again, never a second Select
held_cc bmc_follow 0xd2 3 bmc
ok "$([[ $rc == 0 && $line == *"BMC not ready (0xD2 BMC initialization in progress): waited "* &&
	$(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE") == $((jid + 1)) ]] && waited 1.7 8 "$line" && echo 0 || echo 1)" \
	"0xD2 three times on the status after the Select ($from -> $to): committed, the wait named, one Select"
after "0xD2 three times on the status ($from -> $to)" "$to" "" "empty"
# 0xC3 (timeout while processing) on the Select: it may have acted, so it
# is never sent again; the status says what happened (here: nothing, the
# simulated BMC ran no job and reports the old layout), and the switch
# rolls back without another Select: the MUX never moved (issue 24)
held_cc bmc_select 0xc3 1 bmc
ok "$([[ $rc == 1 ]] && grep -q "completion code 0xC3 timeout while processing command; reading the status instead" "$D/topod.log" &&
	grep -q "rollback-bmc: done.*the BMC not asked: the BMC reported $from after its job, the MUX never moved" "$D/topod.log" &&
	[[ $(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE") == "$jid" ]] && echo 0 || echo 1)" \
	"0xC3 on the Select ($from -> $to): not resent, the status read instead; it reports $from, so the rollback selects nothing: no BMC job in all"
after "0xC3 on the Select ($from -> $to)" "$from" \
	"select $to: BMC *: completion code 0xC3 timeout while processing command; the status then: BMC job done but current layout is $from" \
	"names the 0xC3 first, then what the status said"
# 0xC0 (node busy): the same as 0xD2 for the Select
resent 0xC0 "0xC0 node busy" 2 0.7	# 0.25 + 0.5 s
# no answer at all on the status after the Select (the BMC stopped, as a
# BMC resetting under the job): asked again with backoff until it
# answers, never a second Select; committed within the job's budget
from=$(name "$(bmc_current)") to=$(other)
jid=$(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE")
held_set "--test-fault bmc_follow:1:stop"
kill -STOP "$PCITOPO_BMC_PID"
kill -CONT "$(pid)"
# topod's first status goes unanswered: hold the BMC stopped until topod
# has waited at least once (its log says so at the next try), at most 20 s
for _ in $(seq 200); do
	grep -q "status: no answer; trying again" "$D/topod.log" && break
	sleep 0.1
done
kill -CONT "$PCITOPO_BMC_PID"
set_done bmc
ok "$([[ $rc == 0 && $line == *"BMC not ready (no answer): waited "* &&
	$(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE") == $((jid + 1)) ]] && echo 0 || echo 1)" \
	"no answer to the status after the Select (the BMC stopped, $from -> $to): asked again until it answered, committed, one Select; the bmc phase names the wait"
after "no answer on the status ($from -> $to)" "$to" "" "empty"
# --- a rollback asks the BMC only where it must (issue 24) ----------------
# asked: how many OEM commands the simulated BMC has received (its log has
# a line for each)
asked() { grep -c 'pcitopo_bmc: asked: ' "$PCITOPO_BMC_DIR/sim.log"; }
# sim_sync: the simulator has handled whatever was sent to it before (one
# status of our own, answered: UDP in order)
sim_sync() { wait_for 10 sh -c "$PCITOPO_BMC_IPMITOOL raw 0x3c 0x21"; }
jobs_now() { sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE"; }
# A BMC that answers 0xD2 to everything from the Select on: each Select is
# refused before it acted, so the MUX never moved and the journal says so
# (bmc_sent back to 0). The bmc phase fails once its budget is spent,
# naming 0xD2 and the wait; the rollback asks the BMC nothing more and
# is done: idle, the old layout, 8 GPUs, every driver bound.
from=$(name "$(bmc_current)") to=$(other)
jid=$(jobs_now)
held_set "--test-fault bmc_select:1:stop --test-fault rollback-bmc:1:stop"
console 'pcitopo_cc 0xd2 forever'
kill -CONT "$(pid)"
wait_for 30 sh -c "grep -q 'SIGSTOP at rollback-bmc' '$D/topod.log'"
wait_for 30 stopped
line=$(grep " bmc: failed" "$D/topod.log" | tail -1)
echo "# $line"
n0=$(asked)
ok "$(stopped && [[ $line == *"not ready for the layout Select: 0xD2 BMC initialization in progress, after waiting "*" s (budget 8000 ms)"* &&
	$(jget state) == rolling-back && $(jget bmc_sent) == 0 ]] && waited 4 10 "${line/after waiting/waited}" && echo 0 || echo 1)" \
	"0xD2 forever on the Select ($from -> $to): the bmc phase fails after its 8 s budget, naming 0xD2; held at rollback-bmc, the journal says no Select went out (bmc_sent=0)"
kill -CONT "$(pid)"
wait "$spid"; rc=$?
sed 's/^/# /' "$D/set.out"
settle idle
console 'pcitopo_cc off'
sim_sync
ok "$([[ $rc == 1 && $(asked) == $((n0 + 1)) && $(jobs_now) == "$jid" ]] &&
	grep -q "rollback-bmc: done.*the BMC not asked: the Select was never sent, the MUX never moved" "$D/topod.log" && echo 0 || echo 1)" \
	"0xD2 forever on the Select: the rollback asked the BMC nothing (its log: only our own status since the hold), no job ran"
after "0xD2 forever on the Select, rolled back without the BMC ($from -> $to)" "$from" \
	"BMC * not ready for the layout Select: 0xD2 BMC initialization in progress, after waiting * s (budget 8000 ms)" "is the 0xD2 on the Select"

# Killed before the Select (the journal in phase bmc, bmc_sent=0) while the
# BMC does not answer at all (SIGSTOP): the next start rolls back without
# asking it; nothing reached it meanwhile (its log, once it runs again)
from=$(name "$(bmc_current)") to=$(other)
held_set "--test-fault bmc:1:stop" --no-wait
kill -STOP "$PCITOPO_BMC_PID"
n0=$(asked)
ok "$([[ $(jget phase) == bmc && $(jget bmc_sent) == 0 && $(proc_state "$PCITOPO_BMC_PID") == T ]] && echo 0 || echo 1)" \
	"killed before the Select, the BMC stopped ($from -> $to): the journal in phase bmc, bmc_sent=0"
restart
settle idle
kill -CONT "$PCITOPO_BMC_PID"
sim_sync
ok "$([[ $(asked) == $((n0 + 1)) ]] && echo 0 || echo 1)" \
	"killed before the Select, the BMC gone: the recovery asked it nothing (its log: only our own status since)"
after "killed before the Select, the BMC gone, restarted ($from -> $to)" "$from" \
	"topod stopped in phase bmc of the switch from $from to $to (killed or crashed)" "names the interrupted phase"

# waiting_bmc LABEL SETUP-AT-SELECT [MORE-FAULTS]: a switch whose Select
# goes out (SETUP-AT-SELECT run while topod is held just before it; the
# job latches it), then the BMC answers 0xD2 to everything (held just
# after the Select): the bmc phase spends its budget, the rollback, which
# must ask the BMC (the MUX may have moved), spends its own and waits
# for the BMC: State waiting-bmc, every GPU back with its driver, the
# journal kept, a switch refused Busy saying what topod waits for.
waiting_bmc() {
	local label=$1 s
	from=$(name "$(bmc_current)") to=$(other)
	jid=$(jobs_now)
	down
	# a budget of 3 s (the job takes 0.2 s): spent twice, forward and back
	sed -i 's/bmc_job_ms = [0-9]*/bmc_job_ms = 3000/' "$D/platform.conf"
	TOPOD_ARGS="--test-fault bmc_select:1:stop --test-fault bmc_follow:1:stop ${3:-}" topod_start "$D"
	"$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1 &
	spid=$!
	wait_for 30 stopped
	eval "$2"
	kill -CONT "$(pid)"
	wait_for 30 sh -c "grep -q 'SIGSTOP at bmc_follow' '$D/topod.log'"
	wait_for 30 stopped
	console 'pcitopo_cc 0xd2 forever'
	kill -CONT "$(pid)"
	wait "$spid"; rc=$?
	sed 's/^/# /' "$D/set.out"
	settle waiting-bmc
	s=$(st)
	le=$(jq -r '.last_error // ""' <<<"$s")
	echo "# LastError: $le"
	first="BMC * not ready for the status: 0xD2 BMC initialization in progress, after waiting * s (budget 3000 ms)"
	# shellcheck disable=SC2053 # globs, on purpose
	ok "$([[ $rc == 1 && $(jq -r .state <<<"$s") == waiting-bmc && $le == $first"; rollback to $from waits for the BMC: "$first ]] && echo 0 || echo 1)" \
		"$label ($from -> $to): topoctl set fails, State waiting-bmc, LastError the first cause (0xD2 on the status), then what the rollback waits for"
	# shellcheck disable=SC2053
	ok "$([[ $(jq -r .gpus <<<"$s") == 8 && $(nodrv) == 0 && ! -e $S/fake-detached && ! -s $S/fake-slots-off &&
		$(jget state) == rolling-back && $(jget phase) == waiting-bmc && $(jget bmc_sent) == 1 && $(jget error) == $first ]] && echo 0 || echo 1)" \
		"$label: every GPU back with its driver (8), every slot up, nothing detached; the journal kept (rolling-back, phase waiting-bmc, the first cause)"
	"$TOPOCTL" set "$from" --force >"$D/busy.out" 2>&1; rc=$?
	sed 's/^/# /' "$D/busy.out"
	ok "$([[ $rc != 0 && $(<"$D/busy.out") == *"busy: waiting for the BMC to finish the rollback of the switch to $to (BMC "*" not ready for the status: 0xD2"*"); topod asks it again by itself, next within "* ]] &&
		"$TOPOCTL" status | grep -q "^State: *waiting-bmc (for the BMC, to finish the rollback of the switch to $to; " && echo 0 || echo 1)" \
		"$label: a switch meanwhile is refused (Busy), saying what topod waits for; topoctl status says waiting-bmc, for what"
}

waiting_bmc "the BMC gone after the Select, its job failed meanwhile" 'console pcitopo_fail_next'
# the boot unit's job meanwhile (a profile of the other layout): no switch,
# no boot attempt recorded (that would stop the next boot from trying)
echo "$to" >"$D/profile"
out=$(PCITOPO_PROFILE=$D/profile PCITOPO_STATE_DIR=$S TOPOCTL=$TOPOCTL sh "$top/systemd/pcitopo-boot" 2>&1); rc=$?
echo "# pcitopo-boot: $out"
ok "$([[ $rc == 1 && $out == *"topod waits for the BMC to finish a rollback; not switching to $to now"* && ! -e $S/boot-attempt ]] &&
	echo 0 || echo 1)" "waiting-bmc: pcitopo-boot does not switch, says why, records no boot attempt"
n0=$(asked)
console 'pcitopo_cc off'
wait_for 60 sh -c "'$TOPOCTL' -j status | jq -e '.state == \"idle\"' >/dev/null && [ ! -e '$S/job' ]"
ok "$([[ $(asked) -gt $n0 && $(jobs_now) == $((jid + 1)) ]] &&
	grep -q "the BMC answers again (job $((jid + 1)) failed, current $from)" "$D/topod.log" &&
	grep -q "rollback-bmc: done.*BMC still at $from (job $((jid + 1)) failed): nothing to select" "$D/topod.log" && echo 0 || echo 1)" \
	"the BMC back: topod finished the rollback by itself; the BMC reports the failed job and $from: nothing selected (one job in all)"
after "the BMC back, rolled back by topod itself ($from -> $to)" "$from" \
	"$first; rolled back to $from once the BMC answered again" "keeps the first cause, says the rollback waited"

# the BMC back from a reset with no memory of the job (hung meanwhile,
# the MUX never moved): decided from the layout it reports, journalled
waiting_bmc "the BMC gone after the Select, then reset and forgetting the job" 'console pcitopo_hang' \
	"--test-fault rollback-reenumerate:1:stop"
console 'pcitopo_forget' 'pcitopo_cc off'
wait_for 60 stopped
ok "$(stopped && [[ $(jget phase) == rollback-reenumerate && $(jget bmc_current) == "$from" && $(jget bmc_pending) == unknown ]] &&
	echo 0 || echo 1)" \
	"the BMC back knowing no job: its layout ($from) decides and is journalled (bmc_current=$from, nothing pending)"
kill -CONT "$(pid)"
settle idle
# (the main thread logs the phase's end: not while topod was held)
ok "$([[ $(jobs_now) == 0 ]] && grep -q "rollback-bmc: done.*BMC still at $from (job 0 idle): nothing to select" "$D/topod.log" &&
	echo 0 || echo 1)" "the BMC that forgot its job: nothing selected (no job since: job id still 0)"
after "the BMC back knowing no job, rolled back ($from -> $to)" "$from" \
	"$first; rolled back to $from once the BMC answered again" "keeps the first cause"

# the BMC back reporting the other layout: its job finished while it did
# not answer, the MUX moved: the moved GPUs off the bus, the old layout
# selected again (journalled first: bmc_current the BMC's report)
# (4 ports detached forward: the rollback's first hw_detach is the 5th)
waiting_bmc "the BMC gone after the Select, its job done meanwhile" ':' "--test-fault hw_detach:5:stop"
ok "$([[ $(bmc_current) == $(code "$to") && $(st | jq -r .layout) == "$to" ]] && echo 0 || echo 1)" \
	"the job done while the BMC did not answer: the GPUs came back where the MUX put them ($to)"
console 'pcitopo_cc off'
wait_for 60 stopped
ok "$(stopped && [[ $(jget phase) == rollback-bmc && $(jget bmc_current) == "$to" && $(jget bmc_sent) == 1 &&
	$(jget ports) == *0000:1* ]] && echo 0 || echo 1)" \
	"the BMC back at $to: journalled (bmc_current=$to) before the moved GPUs' ports are detached for the rollback's Select"
echo "# job: $(grep -E '^(phase|bmc_|ports)' "$S/job" | tr '\n' ' ')"
kill -CONT "$(pid)"
settle idle
ok "$([[ $(jobs_now) == $((jid + 2)) ]] && echo 0 || echo 1)" "the BMC back at $to: one Select for the rollback (jobs $((jid + 1)), $((jid + 2)))"
after "the BMC back at $to, rolled back ($from -> $to)" "$from" \
	"$first; rolled back to $from once the BMC answered again" "keeps the first cause"
sed -i 's/bmc_job_ms = [0-9]*/bmc_job_ms = 8000/' "$D/platform.conf"
restart

fault_switch 'code $to >"$S/fake-missing"'
rm -f "$S/fake-missing"
after "a GPU that does not come back in $to ($from -> $to)" "$from" \
	"devices not back: after 1500 ms: layout other (7 GPUs), 7 of 8 GPUs ($to wanted)" "is the Timeout, naming the GPU count"

fault_switch 'code $to >"$S/fake-link-x0"'
rm -f "$S/fake-link-x0"
after "a GPU back on a narrower link in $to ($from -> $to)" "$from" \
	"GPU4 (0000:27:00.0): link x0 2500 MT/s, was x1 2500 MT/s" "is the Verify error, naming the GPU and both links"

# a GPU that comes back in neither layout: gone once the GPUs were
# detached (held in the bmc phase; preflight saw all 8)
from=$(name "$(bmc_current)") to=$(other)
held_set "--test-fault bmc:1:stop"
printf '%s\n%s\n' "$(code "$from")" "$(code "$to")" >"$S/fake-missing"
kill -CONT "$(pid)"
wait "$spid"; rc=$?
sed 's/^/# /' "$D/set.out"
settle failed
le=$(st | jq -r '.last_error // ""')
first="devices not back: after 1500 ms: layout other (7 GPUs), 7 of 8 GPUs ($to wanted)"
# shellcheck disable=SC2053
ok "$([[ $rc == 1 && $(st | jq -r .state) == failed && $le == "$first; rollback to $from failed: devices not back"*"($from wanted)" ]] && echo 0 || echo 1)" \
	"a GPU back in neither layout ($from -> $to): State failed, LastError the first cause, then the rollback's"
echo "# LastError: $le"
ok "$([[ $(jget rollback_failed) == 1 && $(jget error) == "$first" && $(jget rollback_error) == "devices not back"* ]] && echo 0 || echo 1)" \
	"a GPU back in neither: the journal kept, marked rollback_failed, the first cause and the rollback's apart"
ok "$([[ ! -e $S/fake-detached && $(grep -v 0000:2a:00.0 "$S/fake-unbound" 2>/dev/null | grep -c .) == 0 ]] && echo 0 || echo 1)" \
	"a GPU back in neither: nothing left detached, every GPU that is there has its driver"
restart
settle failed
le=$(st | jq -r '.last_error // ""')
ok "$([[ $(st | jq -r .state) == failed && -e $S/job && $le == "$first; rollback to $from failed: "*"tried again at the next start"* ]] && echo 0 || echo 1)" \
	"a GPU back in neither, topod restarted: tried again, failed again, the journal kept, LastError still starts with the first cause"
echo "# LastError: $le"
rm -f "$S/fake-missing"
restart
settle idle
after "a GPU back in neither, then the GPU back, topod restarted" "$from" \
	"$first; rollback to $from failed: *; tried again at the next start*" "keeps the first cause and says the rollback had failed"

# killed where a failed rollback has marked its journal: the next start
# knows it was a failed rollback, not a kill in a phase
from=$(name "$(bmc_current)") to=$(other)
held_set "--test-fault bmc:1:stop --test-fault rollback-failed:1:stop" --no-wait
printf '%s\n%s\n' "$(code "$from")" "$(code "$to")" >"$S/fake-missing"
kill -CONT "$(pid)"
wait_for 30 sh -c "grep -q 'SIGSTOP at rollback-failed' '$D/topod.log'"
wait_for 30 stopped
ok "$(stopped && [[ $(jget rollback_failed) == 1 && $(jget error) == "devices not back"* ]] && echo 0 || echo 1)" \
	"held at rollback-failed ($from -> $to): the journal marked rollback_failed before anything else"
rm -f "$S/fake-missing"
restart
settle idle
after "killed at rollback-failed, the GPU back, restarted" "$from" \
	"devices not back: *; rollback to $from failed: *; tried again at the next start*" "says the rollback had failed, not that topod stopped"

# --- a port without a hotplug slot: Link Disable -------------------------
# GPU4's port (0000:17:00.0) has no slot: topod disables its link instead
# of powering it off, which takes CAP_SYS_ADMIN (the config space past 64
# bytes). With it (root here): the switch runs, and reenumerate rescans at
# once (nothing else brings a cleared link's device back): held at that
# rescan, killed, finished at the restart.
echo 0000:17:00.0 >"$S/fake-no-slot"
from=$(name "$(bmc_current)") to=$(other)
held_set "--test-fault hw_slot_down:1:stop --test-fault hw_rescan:1:stop" --no-wait
ok "$(stopped && [[ $(jget slots) == *0000:17:00.0/link* && $(jget slots) == *0000:18:00.0/power* ]] && echo 0 || echo 1)" \
	"Link Disable ($from -> $to): the journal has GPU4's port down by link, the others by power"
echo "# slots: $(jget slots)"
kill -CONT "$(pid)"
wait_for 30 sh -c "grep -q 'SIGSTOP at hw_rescan:1' '$D/topod.log'"
wait_for 30 stopped
ok "$(stopped && [[ $(jget phase) == reenumerate ]] && echo 0 || echo 1)" \
	"Link Disable ($from -> $to): reenumerate rescans at once (held at hw_rescan:1, the journal in phase reenumerate)"
restart
settle idle
after "Link Disable, killed at its rescan ($from -> $to)" "$to" "" "empty"
# without CAP_SYS_ADMIN (what systemd/topod.service's CapabilityBoundingSet
# leaves): refused before anything is done, in the dry run too, naming it
printf '#!/bin/sh\nexec setpriv --bounding-set -sys_admin "%s" "$@"\n' "$TOPOD" >"$D/topod-nosysadmin"
chmod +x "$D/topod-nosysadmin"
down
from=$(name "$(bmc_current)") to=$(other)
TOPOD="$D/topod-nosysadmin" TOPOD_ARGS='' topod_start "$D"
ok "$([[ $(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$(pid)/status") =~ ^[0-9a-f]+$ &&
	$(( 0x$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$(pid)/status") >> 21 & 1 )) == 0 ]] && echo 0 || echo 1)" \
	"topod started without CAP_SYS_ADMIN (setpriv --bounding-set -sys_admin)"
json=$("$TOPOCTL" -j set "$to" --dry-run --force 2>/dev/null); rc=$?
ok "$([[ $rc == 1 ]] && jq -e '(.proceed | not) and (.error | test("Unsupported")) and
	(.message | test("0000:17:00.0.*Link Disable.*CAP_SYS_ADMIN"))' <<<"$json" >/dev/null && echo 0 || echo 1)" \
	"no CAP_SYS_ADMIN, a port without a slot: the dry run would refuse (Unsupported), naming the port, Link Disable and CAP_SYS_ADMIN"
jq -c '{proceed, error, message}' <<<"$json" 2>/dev/null | sed 's/^/# /'
"$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1; rc=$?
sed 's/^/# /' "$D/set.out"
ok "$([[ $rc != 0 && $(<"$D/set.out") == *CAP_SYS_ADMIN* && ! -e $S/job && ! -s $S/fake-slots-off &&
	! -e $S/fake-detached && $(nodrv) == 0 && $(bmc_current) == $(code "$from") &&
	$(st | jq -r '"\(.layout) \(.state)"') == "$from idle" ]] && echo 0 || echo 1)" \
	"no CAP_SYS_ADMIN: the switch is refused in preflight, naming CAP_SYS_ADMIN; nothing journalled, detached, unbound or selected"
rm -f "$S/fake-no-slot"
restart

# --- the client tells the truth (issue 24): topoctl set follows the switch
# by topod's signals, with no timeout of its own, and pings topod meanwhile
# (cli/topod-live.c). topod held at bmc (--test-fault :stop, a SIGSTOP: it
# answers nothing while held, as a topod stopped by hand): set says topod
# is not answering and that the switch may still be running, exit 4, and
# -j says the same in its JSON; status says so too (exit 4), with the
# module's layout; once topod goes on, the switch commits. Killed there:
# set says topod went away. TOPOCTL_PROBE_MS (tests only) makes a Ping's
# timeout 0.2 s, six of them 1.2 s, where topoctl allows 6 x 5 s.
from=$(name "$(bmc_current)") to=$(other)
down
TOPOD_ARGS="--test-fault bmc:1:stop" topod_start "$D"
TOPOCTL_PROBE_MS=200 "$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1 &
spid=$!
wait_for 30 stopped
wait "$spid"; rc=$?
sed 's/^/# /' "$D/set.out"
ok "$([[ $rc == 4 && $(<"$D/set.out") == *"topoctl: topod is not answering (no answer for "*" s); the switch to $to may still be running (topoctl status)"* &&
	$(<"$D/set.out") != *failed* ]] && stopped && echo 0 || echo 1)" \
	"topod stopped mid-switch ($from -> $to, held at bmc): set says topod is not answering and the switch may still be running, exit 4, not that it failed"
json=$(TOPOCTL_PROBE_MS=200 "$TOPOCTL" -j set "$to" --force 2>/dev/null); rc=$?
ok "$([[ $rc == 4 ]] && jq -e --arg to "$to" '.outcome == "not-answering" and .exit == 4 and .layout == $to and
	(.error | test("^topod is not answering .*; the switch to [a-z]+ may still be running \\(topoctl status\\)$"))' <<<"$json" >/dev/null &&
	stopped && echo 0 || echo 1)" "topod stopped: -j set says the same in one JSON object on stdout (outcome not-answering, exit 4)"
echo "# $json"
out=$(TOPOCTL_PROBE_MS=200 "$TOPOCTL" status 2>&1); rc=$?
sed 's/^/# /' <<<"$out"
ok "$([[ $rc == 4 && $out == *"topoctl: topod is not answering (no answer for "*"a switch may be in flight"* &&
	$out == *"State:       unknown: topod is not answering"* && $out == *"Module:      "* ]] && stopped && echo 0 || echo 1)" \
	"topod stopped: status says topod is not answering, exit 4, and shows the module's layout"
json=$(TOPOCTL_PROBE_MS=200 "$TOPOCTL" -j status 2>/dev/null); rc=$?
ok "$([[ $rc == 4 ]] && jq -e '.answering == false and .exit == 4 and has("module_layout") and
	(has("state") or has("layout") | not)' <<<"$json" >/dev/null && stopped && echo 0 || echo 1)" \
	"topod stopped: -j status says so in JSON (answering false, exit 4), the module's layout under a key of its own"
echo "# $json"
kill -CONT "$(pid)"
settle idle
s=$(st)
ok "$([[ $(jq -r '"\(.layout) \(.state) \(.committed_layout)"' <<<"$s") == "$to idle $to" && $(bmc_current) == $(code "$to") ]] &&
	echo 0 || echo 1)" "topod going on again: the switch it was told of commits ($to, idle, committed $to)"
# killed at the same point: its bus name goes, set says so at once (a
# Ping's timeout of 20 s here: nothing but the name can end the wait)
from=$(name "$(bmc_current)") to=$(other)
down
TOPOD_ARGS="--test-fault bmc:1:stop" topod_start "$D"
TOPOCTL_PROBE_MS=20000 "$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1 &
spid=$!
wait_for 30 stopped
down KILL
wait "$spid"; rc=$?
sed 's/^/# /' "$D/set.out"
ok "$([[ $rc == 4 && $(<"$D/set.out") == *"topoctl: topod exited during the switch to $to; it finishes or rolls back at its next start, from its journal (topoctl status)"* ]] &&
	echo 0 || echo 1)" "topod killed mid-switch ($from -> $to, held at bmc): set says topod went away and its journal decides at its next start, exit 4"
TOPOD_ARGS='' topod_start "$D"
settle idle
after "killed mid-switch, set following" "$from" "topod stopped in phase bmc of the switch from $from to $to*" "names the kill"
# longer than D-Bus's 25 s default timeout, topod answering all along: the
# BMC's job held busy (pcitopo_hang) past 25 s, within a budget of 40 s;
# set follows it to the end. The wait is the duration under test, the state
# held meanwhile, not a window hoped for.
from=$(name "$(bmc_current)") to=$(other)
jid=$(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE")
down
sed -i 's/bmc_job_ms = [0-9]*/bmc_job_ms = 40000/' "$D/platform.conf"
TOPOD_ARGS='' topod_start "$D"
console pcitopo_hang
"$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1 &
spid=$!
busy() { [[ $(sed -n 's/^job_id=//p' "$PCITOPO_BMC_STATE") == $((jid % 255 + 1)) &&
	$(sed -n 's/^job_state=//p' "$PCITOPO_BMC_STATE") == 1 ]]; }
wait_for 30 busy
t0=$(date +%s)
sleep 26
ok "$(busy && kill -0 "$spid" 2>/dev/null && [[ $(<"$D/set.out") != *"bmc  "*done* ]] && echo 0 || echo 1)" \
	"a BMC job held busy for $(($(date +%s) - t0)) s ($from -> $to): set still follows the switch, no D-Bus timeout"
console pcitopo_unhang
wait "$spid"; rc=$?
sed 's/^/# /' "$D/set.out"
secs=$(sed -n 's/^  bmc  *done  *\([0-9.]*\) s.*/\1/p' "$D/set.out")
ok "$([[ $rc == 0 && $(<"$D/set.out") == *"$to: done in "* ]] && awk -v s="${secs:-0}" 'BEGIN { exit !(s > 25) }' && echo 0 || echo 1)" \
	"the held job released: set follows it to the end, exit 0, the bmc phase done in ${secs:-?} s (over 25 s)"
after "a switch longer than 25 s" "$to" "" "empty"
down
sed -i 's/bmc_job_ms = [0-9]*/bmc_job_ms = 8000/' "$D/platform.conf"
restart

# --- a journal that cannot be read at start (issue 24): kept aside, with
# its time, for whoever looks into it; the next switch does not write over
# it (it used to: the evidence was gone)
from=$(name "$(bmc_current)") to=$(other)
down
printf 'version=3\nstate=switching\nphase=bmc\nfrobnicate=1\n' >"$S/job"
cp "$S/job" "$D/garbage"
TOPOD_ARGS='' topod_start "$D"
settle failed
le=$(st | jq -r '.last_error // ""')
echo "# LastError: $le"
kept=$(cd "$S" && ls -d job.corrupt-* 2>/dev/null)
ok "$([[ $(st | jq -r .state) == failed && $le == "journal unreadable: Bad message; kept as $S/job.corrupt-"* &&
	$kept =~ ^job\.corrupt-[0-9]{8}T[0-9]{6}Z$ && $le == *"$kept" && ! -e $S/job ]] && cmp -s "$S/$kept" "$D/garbage" &&
	echo 0 || echo 1)" "an unreadable journal at start: State failed, kept as job.corrupt-<UTC> as it was (${kept:-none}), LastError names it"
"$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1; rc=$?
sed 's/^/# /' "$D/set.out"
settle idle
ok "$([[ $rc == 0 && $(st | jq -r .layout) == "$to" && ! -e $S/job && $(cd "$S" && ls -d job.corrupt-*) == "$kept" ]] &&
	cmp -s "$S/$kept" "$D/garbage" && echo 0 || echo 1)" \
	"and the next switch ($from -> $to) commits, the kept journal untouched beside it"
rm -f "$S/$kept"

# a journal of a newer topod (a downgrade in the middle of a switch): not
# guessed at, kept aside the same way, and LastError says whose it is
down
printf 'version=99\nstate=switching\nphase=bmc\nend=1\n' >"$S/job"
cp "$S/job" "$D/newer"
TOPOD_ARGS='' topod_start "$D"
settle failed
le=$(st | jq -r '.last_error // ""')
echo "# LastError: $le"
kept=$(cd "$S" && ls -d job.corrupt-* 2>/dev/null)
ok "$([[ $le == "journal unreadable: written by a newer topod (a format after version "[0-9]*"): its switch is neither finished nor rolled back; run that topod again, or check the layout (topoctl status) before switching; kept as $S/$kept" &&
	-n $kept && ! -e $S/job ]] && cmp -s "$S/$kept" "$D/newer" && echo 0 || echo 1)" \
	"a journal from a newer topod: State failed, LastError names it as a newer topod's and what to do, kept aside as it was"
rm -f "$S/$kept"

# the state dir removed under a running topod (idle): the next switch makes
# it again. The stand-in keeps its files there too: they are put back
# after the dry run, which is what makes the folder again here.
restart
settle idle
from=$(name "$(bmc_current)") to=$(other)
rm -rf "$D/state.saved" && cp -a "$S" "$D/state.saved"
rm -rf "$S"
"$TOPOCTL" set "$to" --dry-run --force >"$D/dry.out" 2>&1; rc=$?
ok "$([[ -d $S && $(grep -c "state dir $S was removed under topod: made again" "$D/topod.log") == 1 &&
	$(<"$D/dry.out") != *"the journal cannot be written"* ]] && echo 0 || echo 1)" \
	"the state dir removed under topod: the dry run makes it again (logged), not refused for it" "$(cat "$D/dry.out")"
cp -a "$D/state.saved/." "$S/" && rm -f "$S/state"
"$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1; rc=$?
sed 's/^/# /' "$D/set.out"
settle idle
ok "$([[ $rc == 0 && -s $S/state && $(st | jq -r '"\(.layout) \(.committed_layout)"') == "$to $to" ]] && echo 0 || echo 1)" \
	"and the switch after it ($from -> $to) commits, the committed state written again"

# --- nothing moves without a journal on disk (issue 24) -----------------------
# The state dir on a small file system of its own (tmpfs, 512 KiB), with
# what the stand-in and the BMC link keep there: filled up, made read-only,
# and made unwritable to a topod without CAP_DAC_OVERRIDE. Each is refused
# in preflight, by the dry run too, before anything is journalled, stopped,
# unbound, detached or selected. Then a commit that cannot be written: an
# error that says so, the journal kept, the committed state as it was
# (never empty); the next start, with room again, finishes the switch.
# Not staged here: a write that fails while the file system says it has
# room (quota, an I/O error): every write is checked all the same.
T=$D/small
mkdir -p "$T"
down
mount -t tmpfs -o size=512k,mode=0755 pcitopo-test-state "$T" || echo "# cannot mount a tmpfs"
cp -a "$S/." "$T/"
sed -i "s|^state_dir = .*|state_dir = \"$T\";|" "$D/topod.conf"
S0=$S S=$T
fill() { dd if=/dev/zero of="$T/fill" bs=4k >/dev/null 2>&1; sync; }
nothing_done() {	# nothing_done JOB_ID FROM: nothing moved, State idle
	[[ ! -e $T/job && ! -e $T/.job.tmp && ! -s $T/fake-slots-off && ! -e $T/fake-detached && $(nodrv) == 0 &&
		$(jobs_now) == "$1" && $(bmc_current) == $(code "$2") &&
		$(st | jq -r '"\(.layout) \(.state)"') == "$2 idle" ]]
}
refused() {	# refused WHAT WHY-GLOB: the dry run and the switch say no
	local what=$1 why=$2 json jid
	from=$(name "$(bmc_current)") to=$(other)
	jid=$(jobs_now)
	json=$("$TOPOCTL" -j set "$to" --dry-run --force 2>/dev/null); rc=$?
	# shellcheck disable=SC2053
	ok "$([[ $rc == 1 && $(jq -r '.proceed' <<<"$json") == false &&
		$(jq -r '.message' <<<"$json") == "state dir $T: the journal cannot be written ($why): nothing moves without it" ]] &&
		echo 0 || echo 1)" "$what: the dry run would refuse, naming the state dir and why"
	jq -c '{proceed, error, message}' <<<"$json" 2>/dev/null | sed 's/^/# /'
	"$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1; rc=$?
	sed 's/^/# /' "$D/set.out"
	# shellcheck disable=SC2053
	ok "$([[ $rc != 0 && $(<"$D/set.out") == *"state dir $T: the journal cannot be written ($why)"* ]] && nothing_done "$jid" "$from" &&
		echo 0 || echo 1)" "$what: the switch is refused in preflight; nothing journalled, stopped, unbound, detached or selected"
}
TOPOD_ARGS='' topod_start "$D"
fill
refused "a full state dir" "less than 64 KiB free"
rm -f "$T/fill"
mount -o remount,ro "$T"
refused "a read-only state dir" "Read-only file system"
mount -o remount,rw "$T"
# not writable by topod: a 0555 folder, topod without CAP_DAC_OVERRIDE
printf '#!/bin/sh\nexec setpriv --bounding-set -dac_override "%s" "$@"\n' "$TOPOD" >"$D/topod-nodac"
chmod +x "$D/topod-nodac"
down
chmod 0555 "$T"
TOPOD="$D/topod-nodac" TOPOD_ARGS='' topod_start "$D"
refused "a state dir topod may not write (0555, no CAP_DAC_OVERRIDE)" "Permission denied"
down
chmod 0755 "$T"
# the commit cannot be written: held at the commit (the journal on disk,
# phase commit), the file system filled, then on
from=$(name "$(bmc_current)") to=$(other)
cp "$T/state" "$D/state.before"
TOPOD_ARGS="--test-fault commit:1:stop" topod_start "$D"
"$TOPOCTL" set "$to" --force >"$D/set.out" 2>&1 &
spid=$!
wait_for 30 stopped
fill
kill -CONT "$(pid)"
wait "$spid"; rc=$?
sed 's/^/# /' "$D/set.out"
settle failed
s=$(st)
le=$(jq -r '.last_error // ""' <<<"$s")
echo "# LastError: $le"
ok "$([[ $rc != 0 && $(<"$D/set.out") == *"switched to $to and verified, but the committed state $T/state cannot be written: No space left on device; the journal is kept"* &&
	$(jq -r .state <<<"$s") == failed && $le == *"the committed state $T/state cannot be written: No space left on device"* ]] && echo 0 || echo 1)" \
	"a commit that cannot be written (full, $from -> $to): the switch fails saying so, State failed, LastError names the file and ENOSPC"
ok "$([[ $(jget phase) == commit && $(jget to) == "$to" && -s $T/state ]] && cmp -s "$T/state" "$D/state.before" &&
	[[ $(jq -r .committed_layout <<<"$s") == "$from" && ! -e $T/.state.tmp ]] && echo 0 || echo 1)" \
	"a commit that cannot be written: the journal kept (phase commit), the committed state as it was, never empty (committed_layout $from), no temporary file left"
rm -f "$T/fill"
restart
settle idle
ok "$([[ $(st | jq -r '"\(.layout) \(.state) \(.committed_layout)"') == "$to idle $to" && ! -e $T/job && $(nodrv) == 0 &&
	! -e $T/fake-detached && $(bmc_current) == $(code "$to") ]] && echo 0 || echo 1)" \
	"with room again, the next start finishes the commit from the journal: $to committed, no journal, every driver bound"
# the file system fills under a switch (held at quiesce, its journal on
# disk): the journal of the first unbind cannot be written, so that unbind
# does not happen; the switch rolls back without a journal (an undo goes on
# without one); no driver unbound (none to bind again), nothing detached, no Select
from=$(name "$(bmc_current)") to=$(other)
jid=$(jobs_now)
held_set "--test-fault quiesce:1:stop"
fill
kill -CONT "$(pid)"
wait "$spid"; rc=$?
sed 's/^/# /' "$D/set.out"
settle failed
ok "$([[ $rc != 0 && $(<"$D/set.out") == *"quiesce"*"failed"*"the journal $T/job cannot be written: No space left on device; nothing more is changed without it"* &&
	$(<"$D/set.out") == *"rollback-restore"*"done"*"0 unit(s) started"* && $(<"$D/set.out") != *"driver(s) bound again"* &&
	$(nodrv) == 0 && ! -e $T/fake-detached && $(jobs_now) == "$jid" && $(bmc_current) == $(code "$from") ]] && echo 0 || echo 1)" \
	"the state dir full under a switch ($from -> $to): quiesce fails naming the journal and ENOSPC before its first unbind; nothing unbound, detached or selected"
rm -f "$T/fill"
restart
settle idle
ok "$([[ $(st | jq -r '"\(.layout) \(.state) \(.committed_layout)"') == "$from idle $from" && ! -e $T/job && $(nodrv) == 0 ]] && echo 0 || echo 1)" \
	"with room again, the next start rolls back from the journal it had: $from, idle, no journal"
down
S=$S0
sed -i "s|^state_dir = .*|state_dir = \"$S\";|" "$D/topod.conf"
cp -a "$T/state" "$S/state"
umount "$T"

echo "# t-faults: $(($(date +%s) - t_start)) s"
echo "1..$n"
((failed == 0))
