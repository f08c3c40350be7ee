#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topod on the host, end to end, TAP: a private system-like D-Bus
# (dbus-daemon with the shipped policy), the simulated BMC over RMCP+
# (tests/bmc/start-bmc, host stub), topod with the stand-in hardware (no
# module here; the layout is the BMC's), topoctl as the client.
#
#   journal unit test (ASan/UBSan); mux: a switch and its phases, busy,
#   access denied, BMC fault -> rollback, BMC hang -> timeout -> rollback,
#   SIGKILL in the bmc phase -> recovered at restart, not running;
#   switchfw: pending, power cycle, finished at the next start;
#   systemd-analyze verify of the units, udev rules, XML files.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$here/lib.sh"

make -s -C "$top/daemon" topod-tests >/dev/null || { echo "not ok 1 - build topod"; exit 1; }
make -s -C "$top/cli" >/dev/null || { echo "not ok 1 - build topoctl"; exit 1; }

# --- unit: the journal ------------------------------------------------------
while IFS= read -r line; do
	if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
		ok "$([[ -z ${BASH_REMATCH[1]} ]] && echo 0 || echo 1)" "journal: ${BASH_REMATCH[2]}"
	fi
done < <("$top/daemon/build/san/test_journal" 2>&1)

# --- the files that ship ----------------------------------------------------
check "dbus policy and polkit action are well-formed XML" \
	xmllint --noout "$top/dbus/org.pcitopo.Topod.conf" "$top/dbus/org.pcitopo.policy" \
	"$top/Documentation/org.pcitopo.Topod1.xml"
tap_from() { # tap_from PREFIX CMD...: renumber another TAP stream into ours
	local prefix=$1 line
	shift
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
			ok "$([[ -z ${BASH_REMATCH[1]} ]] && echo 0 || echo 1)" "$prefix${BASH_REMATCH[2]}"
		fi
	done < <("$@" 2>&1)
}
if command -v systemd-analyze >/dev/null; then
	# the units name their installed paths; verify them against the build
	u=$(mktemp -d)
	sed "s|/usr/sbin/topod|$top/daemon/topod/topod|" "$top/systemd/topod.service" >"$u/topod.service"
	sed "s|/usr/libexec/pcitopo/pcitopo-boot|$top/systemd/pcitopo-boot|" \
		"$top/systemd/pcitopo-boot.service" >"$u/pcitopo-boot.service"
	out=$(cd "$u" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
		./topod.service ./pcitopo-boot.service 2>&1)
	ok "$([[ -z $out ]] && echo 0 || echo 1)" "systemd-analyze verify: topod.service, pcitopo-boot.service"
	[[ -n $out ]] && sed 's/^/# /' <<<"$out"
	rm -rf "$u"
fi
check "pcitopo-boot is valid sh" sh -n "$top/systemd/pcitopo-boot"
if udevadm verify --help >/dev/null 2>&1; then
	check "udevadm verify udev/90-pcitopo.rules" udevadm verify "$top/udev/90-pcitopo.rules"
fi
# no udevadm on the host (and 252 has no verify): parse and simulate
tap_from "" "$here/check-rules" "$top/udev/90-pcitopo.rules"

# --- mux, online ------------------------------------------------------------
D=$(mktemp -d /tmp/t-topod.XXXXXX)
echo "# work dir $D"
chmod 755 "$D"
trap 'cleanup_dir "$D"; [[ -n ${D2:-} ]] && cleanup_dir "$D2"; [[ -n ${KEEP:-} ]] || rm -rf "$D" ${D2:+"$D2"}' EXIT
bus_start "$D"
bmc_start "$D" --method mux --busy-ms 1000
topod_conf "$D" emulated-mux 8000
export PCITOPO_BMC_CONSOLE_PORT
console() { "$top/tests/bmc/bmc-console" --port "$PCITOPO_BMC_CONSOLE_PORT" "$@" >/dev/null; }

out=$("$TOPOCTL" status 2>&1)
ok "$([[ $out == *"topod is not running (systemctl start topod)"* ]] && echo 0 || echo 1)" \
	"topoctl status without topod: 'topod is not running'"

topod_start "$D"
ok $? "topod owns org.pcitopo.Topod on the bus"
check "introspection lists SetLayout, Phase, Finished" sh -c \
	"busctl --address=$DBUS_SYSTEM_BUS_ADDRESS introspect org.pcitopo.Topod /org/pcitopo/Topod | grep -q SetLayout"
ok "$([[ $(topod_prop Layout) == balance && $(topod_prop State) == idle ]] && echo 0 || echo 1)" \
	"Layout balance, State idle at start"

out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok $rc "topoctl set cascade (mux, online) exits 0"
phases=$(awk '/^  / && $2 == "done" {print $1}' <<<"$out" | tr '\n' ' ')
ok "$([[ $phases == "preflight quiesce detach bmc reenumerate verify restore commit " ]] && echo 0 || echo 1)" \
	"every phase announced in order, with its time ($phases)"
ok "$([[ $(topod_prop Layout) == cascade && $(bmc_current) == 3 ]] && echo 0 || echo 1)" \
	"afterwards: Layout cascade, and the BMC's current layout is cascade"
ok "$([[ $(topod_prop Generation) == 1 ]] && echo 0 || echo 1)" "Generation counts the switch"
ok "$([[ ! -e $D/state/job && ! -e $D/state/fake-detached ]] && echo 0 || echo 1)" \
	"no journal left, nothing detached"
json=$("$TOPOCTL" -j status)
ok "$(jq -e '.layout == "cascade" and .state == "idle" and .platform == "emulated-mux"' <<<"$json" >/dev/null && echo 0 || echo 1)" \
	"topoctl -j status: JSON"

out=$("$TOPOCTL" set diagonal 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"not a layout"* ]] && echo 0 || echo 1)" "an unknown layout: InvalidLayout"

# two at once: one gets Busy
"$TOPOCTL" set balance >"$D/first.out" 2>&1 &
first=$!
wait_for 10 sh -c "[ \"\$(busctl --address=$DBUS_SYSTEM_BUS_ADDRESS get-property org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 State)\" = 's \"switching\"' ]"
out=$("$TOPOCTL" set common 2>&1); rc=$?
wait $first; rc1=$?
ok "$([[ $rc == 1 && $out == *"busy"* ]] && echo 0 || echo 1)" "a second request during a switch: busy ($out)"
ok "$rc1" "the first request still completes"
ok "$([[ $(topod_prop Layout) == balance ]] && echo 0 || echo 1)" "and its layout holds"

# unprivileged, polkit absent: root only
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOPOCTL" set cascade 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"access denied"* ]] && echo 0 || echo 1)" \
	"SetLayout by nobody without polkit: access denied"
check "but nobody may read the status" setpriv --reuid=65534 --regid=65534 --clear-groups "$TOPOCTL" status
ok "$([[ $(bmc_current) == 1 ]] && echo 0 || echo 1)" "and nothing was switched"

# BMC fault -> rollback
console pcitopo_fail_next
out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 1 && $out == *"failed (error 2)"* ]] && echo 0 || echo 1)" "a failing BMC job: exit 1 with the BMC's error"
ok "$([[ $out == *"rollback-verify"*done* ]] && echo 0 || echo 1)" "rolled back and verified"
ok "$([[ $(topod_prop Layout) == balance && $(bmc_current) == 1 && $(topod_prop State) == idle ]] && echo 0 || echo 1)" \
	"back in balance, State idle"
ok "$([[ $(topod_prop LastError) == *"failed (error 2)"* ]] && echo 0 || echo 1)" "LastError says why"
ok "$([[ ! -e $D/state/fake-detached ]] && echo 0 || echo 1)" "nothing left detached"

# BMC hang -> timeout (status read, no second select) -> rollback
console pcitopo_hang
nfail=$(grep -c "bmc: failed" "$D/topod.log")
"$TOPOCTL" set common >"$D/hang.out" 2>&1 &
pid=$!
wait_for 20 sh -c "[ \$(grep -c 'bmc: failed' $D/topod.log) -gt $nfail ]"
console pcitopo_unhang
wait $pid; rc=$?
sed 's/^/# /' "$D/hang.out"
ok "$([[ $rc == 1 ]] && grep -q "still busy after 8000 ms" "$D/hang.out" && echo 0 || echo 1)" \
	"a hung BMC job: Timeout after the budget"
ok "$([[ $(topod_prop Layout) == balance && $(bmc_current) == 1 ]] && echo 0 || echo 1)" \
	"rolled back to balance once the BMC let go"
ok "$(grep -q "rollback-bmc: done.*BMC job [0-9]* done: current balance" "$D/topod.log" && echo 0 || echo 1)" \
	"the rollback waited for the hung job, then selected balance again"
j1=$(sed -n 's/.*BMC job \([0-9]*\) still busy.*/\1/p' "$D/hang.out" | head -1)
j2=$(sed -n 's/.*rollback-bmc: done.*BMC job \([0-9]*\) done.*/\1/p' "$D/topod.log" | tail -1)
ok "$([[ -n $j1 && $j2 == $((j1 + 1)) ]] && echo 0 || echo 1)" \
	"one Select for the switch, one for the rollback: never resent (jobs $j1, $j2)"

# SIGKILL in the bmc phase -> the next start finishes it
"$TOPOCTL" set cascade --no-wait >/dev/null 2>&1
wait_for 10 grep -q '^phase=bmc' "$D/state/job"
topod_stop "$D" KILL
ok "$([[ -e $D/state/job && -e $D/state/fake-detached ]] && echo 0 || echo 1)" \
	"killed mid-switch: journal on disk, GPUs detached"
topod_start "$D"
wait_for 20 sh -c "[ \"\$(busctl --address=$DBUS_SYSTEM_BUS_ADDRESS get-property org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 State)\" = 's \"idle\"' ] && [ ! -e $D/state/job ]"
ok "$([[ ! -e $D/state/job && ! -e $D/state/fake-detached ]] && echo 0 || echo 1)" \
	"restarted: journal done, nothing left detached"
l=$(topod_prop Layout)
ok "$([[ $l == cascade && $(bmc_current) == 3 ]] && echo 0 || echo 1)" \
	"the Select had gone out: the switch was finished (Layout $l)"

# SIGKILL in detach (before the Select) -> rolled back
"$TOPOCTL" set common --no-wait >/dev/null 2>&1
wait_for 10 grep -q '^phase=bmc' "$D/state/job"
topod_stop "$D" KILL
# make it look as if it died before the Select went out
sed -i 's/^phase=bmc/phase=detach/; s/^bmc_sent=1/bmc_sent=0/' "$D/state/job"
console pcitopo_state
topod_start "$D"
wait_for 20 sh -c "[ ! -e $D/state/job ]"
sleep 0.5
l=$(topod_prop Layout)
ok "$([[ $l == cascade && $(bmc_current) == 3 && ! -e $D/state/fake-detached ]] && echo 0 || echo 1)" \
	"killed before the Select (per journal): rolled back to cascade ($l)"
ok "$([[ $(topod_prop LastError) == *"topod stopped in phase detach"* ]] && echo 0 || echo 1)" \
	"LastError names the interrupted phase"

# drift: the layout changes with no switch asking (here: a Select behind
# topod's back); udev's Recheck (or the module's events) reports it
bus() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
bus monitor --match "type='signal',interface='org.pcitopo.Topod1',member='Drift'" >"$D/drift.mon" 2>&1 &
mon=$!
sleep 0.3
$PCITOPO_BMC_IPMITOOL raw 0x3c 0x20 0x01 0x01 >/dev/null
wait_for 20 sh -c "grep -q '^current=1' $PCITOPO_BMC_STATE"
bus call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Recheck
ok "$([[ $(topod_prop LastError) == "drift: "*"committed layout is cascade"* && $(topod_prop Layout) == balance ]] && echo 0 || echo 1)" \
	"drift: a layout change no switch asked for is reported in LastError"
sleep 0.3
kill "$mon" 2>/dev/null; wait "$mon" 2>/dev/null
ok "$(grep -q 'Drift' "$D/drift.mon" && echo 0 || echo 1)" "drift: and as a Drift signal"
$PCITOPO_BMC_IPMITOOL raw 0x3c 0x20 0x01 0x03 >/dev/null
wait_for 20 sh -c "grep -q '^current=3' $PCITOPO_BMC_STATE"
bus call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Recheck
ok "$([[ -z $(topod_prop LastError) ]] && echo 0 || echo 1)" "drift: cleared once the layout is the committed one again"

# pcitopo-boot (pcitopo-boot.service's job) against this topod
boot() { # boot PROFILE-LAYOUT
	echo "$1" >"$D/profile"
	PCITOPO_PROFILE=$D/profile PCITOPO_STATE_DIR=$D/state TOPOCTL=$TOPOCTL \
		"$top/systemd/pcitopo-boot" 2>&1
}
out=$(boot common); rc=$?
ok "$([[ $rc == 0 && $(topod_prop Layout) == common ]] && echo 0 || echo 1)" \
	"pcitopo-boot: profile common applied (online platform: no power cycle)"
out=$(boot common); rc=$?
ok "$([[ $rc == 0 && $out == *"layout common"* && ! -e $D/state/boot-attempt ]] && echo 0 || echo 1)" \
	"pcitopo-boot: next boot, already common: nothing to do ($out)"
echo balance >"$D/state/boot-attempt"
out=$(boot balance); rc=$?
ok "$([[ $rc == 1 && $out == *"did not apply"* && $(topod_prop Layout) == common ]] && echo 0 || echo 1)" \
	"pcitopo-boot: a profile the last boot failed to apply is reported, not retried (no power-cycle loop)"
topod_stop "$D"

# --- switchfw, power cycle --------------------------------------------------
D2=$(mktemp -d /tmp/t-topod.XXXXXX)
chmod 755 "$D2"
bus_start "$D2"
bmc_start "$D2" --method switchfw --busy-ms 1000
$PCITOPO_BMC_IPMITOOL chassis power on >/dev/null
topod_conf "$D2" emulated-switchfw 8000
topod_start "$D2"
out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$rc" "switchfw: topoctl set cascade without --power-cycle exits 0"
ok "$([[ $(topod_prop State) == awaiting-power-cycle && $(topod_prop PendingLayout) == cascade && $(topod_prop Layout) == balance ]] && echo 0 || echo 1)" \
	"State awaiting-power-cycle, PendingLayout cascade, Layout still balance"
out=$("$TOPOCTL" set cascade --power-cycle 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $out == *"power-cycle"*done* ]] && echo 0 || echo 1)" "--power-cycle: the BMC power cycles the host"
wait_for 30 sh -c "grep -q '^current=3' $PCITOPO_BMC_STATE"
ok $? "the host came back in cascade (BMC)"
topod_stop "$D2"	# the "boot": topod starts again
topod_start "$D2"
wait_for 20 sh -c "[ ! -e $D2/state/job ]"
sleep 0.3
ok "$([[ $(topod_prop Layout) == cascade && $(topod_prop State) == idle && -z $(topod_prop PendingLayout) ]] && echo 0 || echo 1)" \
	"at the next start topod verified and committed cascade"
topod_stop "$D2"

echo "1..$n"
((fails == 0))
