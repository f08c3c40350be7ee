#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pcitopo's Slurm programs (slurm/) on the host, no VM, no Slurm daemons:
# a stand-in sysfs folder (PCITOPO_SYSFS), a stand-in topoctl
# (PCITOPO_TOPOCTL: a script answering as topoctl does, or hanging like a
# topod that is busy switching), a stand-in scontrol (PCITOPO_SCONTROL) and
# a run folder of their own (PCITOPO_RUN_DIR).
#   the helper: no argument prints the module's layout (none for "other"),
#   else topod's (topoctl status), within its deadline when topod hangs
#   (then no feature, exit 0); an unknown layout is refused by name; a
#   layout is recorded atomically with the dry run's verdict, exit 0 even
#   when refused, 1 only when it cannot be recorded;
#   the RebootProgram: no target (scontrol reboot), or a stale one -> the
#   node rebooted (PCITOPO_REBOOT), nothing switched; a target -> consumed,
#   topoctl set, slurmd restarted; a failed switch -> the error recorded,
#   slurmd restarted all the same; 23.02+'s argument ('cascade',
#   'bigmem,common', 'bigmem', 'cascade,balance') -> the one layout
#   switched, the others ignored, two layouts refused by name;
#   the Prolog: no layout asked, the right layout -> 0; the wrong one ->
#   exit 1 and scontrol drains the node with both layouts and the error.
# TAP on stdout.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
s=$root/slurm
# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"
for p in slurm-feature-helper slurm-reboot-program slurm-prolog; do
	[[ -x $s/$p ]] || { echo "not ok 1 - t-slurm-host: slurm/$p not built (run make)"; exit 1; }
done
t=$(mktemp -d /tmp/pcitopo-slurm-host.XXXXXX)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/sys"
export PCITOPO_SYSFS=$t/sys PCITOPO_RUN_DIR=$t/run PCITOPO_TOPOCTL=$t/topoctl \
	PCITOPO_SCONTROL=$t/scontrol STUB=$t
# the stand-in topoctl: $STUB/mode says how it answers
cat >"$t/topoctl" <<'EOC'
#!/bin/bash
echo "$*" >>"$STUB/topoctl.calls"
mode=$(cat "$STUB/mode" 2>/dev/null || echo ok)
[[ $mode == hang ]] && exec sleep 60
case "$*" in
"-j status") echo '{"layout":"common","state":"idle","apply":"online"}' ;;
*--dry-run*)
	[[ $mode == refuse ]] && { echo '{"proceed":false,"message":"GPU 0000:21:00.0 is in use"}'; exit 1; }
	echo '{"proceed":true,"apply":"online"}' ;;
"set "*)
	[[ $mode == fail ]] && { echo "topoctl: switch to $2 failed: BMC job 3 failed (error 7)" >&2; exit 1; }
	echo "$2" >"$STUB/sys/layout" ;;
esac
EOC
# shellcheck disable=SC2016 # expands when the stand-in runs
printf '#!/bin/bash\necho "$*" >>"$STUB/scontrol.calls"\n' >"$t/scontrol"
# the stand-in systemctl: slurmd.service's MainPID from $STUB/mainpid; a
# restart keeps the boot environment file as slurmd's start would read it
cat >"$t/systemctl" <<'EOC'
#!/bin/bash
echo "$*" >>"$STUB/systemctl.calls"
case "$*" in
"show -P MainPID slurmd.service") cat "$STUB/mainpid" 2>/dev/null || echo 0 ;;
"--no-block restart slurmd.service")
	cp "$PCITOPO_RUN_DIR/slurmd-boot.env" "$STUB/boot.env"; touch "$STUB/restarted" ;;
*) exit 1 ;;
esac
EOC
chmod +x "$t/topoctl" "$t/scontrol" "$t/systemctl"
H=$s/slurm-feature-helper R=$s/slurm-reboot-program P=$s/slurm-prolog

echo balance >"$t/sys/layout"
out=$("$H" 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && $out == balance ]] && echo 1 || echo 0)" "helper: prints the module's layout" "$rc $out"
echo other >"$t/sys/layout"
out=$("$H" 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && -z $out ]] && echo 1 || echo 0)" "helper: 'other' is no layout feature: prints nothing" "$rc $out"
rm "$t/sys/layout"
out=$("$H" 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && $out == common ]] && echo 1 || echo 0)" "helper: no module: topod's layout (topoctl -j status)" "$rc $out"
echo hang >"$t/mode"
s0=$SECONDS
out=$(PCITOPO_HELPER_TIMEOUT_MS=1500 "$H" 2>&1) && rc=0 || rc=$?
el=$((SECONDS - s0))
tap "$([[ $rc == 0 && $el -le 4 && $out == *"did not answer within 1500 ms"* &&
	$(grep -c -vE '^slurm-feature-helper: ' <<<"$out") == 0 ]] && echo 1 || echo 0)" \
	"helper: topod hanging: gives up within its deadline ($el s), says so on a line slurmd drops, no feature, exit 0 (a failed query drains on 24.05.2+)" "$rc $out"
echo balance >"$t/sys/layout"
echo ok >"$t/mode"
out=$("$H" bogus 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 2 && $out == *"'bogus' is not a layout (one of: balance, common, cascade)"* && ! -e $t/run/slurm-target ]] &&
	echo 1 || echo 0)" "helper: unknown layout refused by name, nothing recorded" "$rc $out"
out=$("$H" a b 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 2 && $out == *usage* ]] && echo 1 || echo 0)" "helper: two arguments: usage error" "$rc $out"
mkdir -p "$t/run"
echo "error=old" >"$t/run/slurm-error"
out=$("$H" cascade 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && $(tr '\n' ' ' <"$t/run/slurm-target") =~ ^layout=cascade\ verdict=proceed\ apply=online\ since=[0-9]+\ $ &&
	! -e $t/run/slurm-error && -z $(find "$t/run" -name '*.tmp') && $(cat "$t/sys/layout") == balance ]] &&
	echo 1 || echo 0)" \
	"helper cascade: target recorded with the dry run's verdict and its time (no temporary left, an old error cleared), nothing switched" \
	"$rc $out $(cat "$t/run/slurm-target")"
echo refuse >"$t/mode"
out=$("$H" common 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && $(cat "$t/run/slurm-target") == *"verdict=refused: GPU 0000:21:00.0 is in use"* ]] &&
	echo 1 || echo 0)" "helper: a refused dry run is recorded with topod's message, exit 0 (24.05+ would DOWN the node and skip the RebootProgram)" "$rc $out"
out=$(PCITOPO_RUN_DIR=$t/sys/layout/run "$H" cascade 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 1 && $out == *"cannot record the target cascade: Not a directory"* ]] && echo 1 || echo 0)" \
	"helper: the target cannot be recorded (the run folder under a file): exit 1, says why" "$rc $out"

# the RebootProgram
echo ok >"$t/mode"
rm -f "$t/run/slurm-target" "$t/topoctl.calls"
rb() { PCITOPO_SLURM_NODE=node3 PCITOPO_SLURMD_RESTART="touch $t/restarted; echo restart >>$t/scontrol.calls" \
	PCITOPO_REBOOT="touch $t/rebooted" "$R" "$@"; }
out=$(rb 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && -e $t/rebooted && $(cat "$t/run/slurm-reboot.log") == *"no layout target (a plain scontrol reboot): rebooting the node, layout unchanged"* &&
	! -e $t/topoctl.calls && ! -e $t/restarted && $(cat "$t/sys/layout") == balance ]] && echo 1 || echo 0)" \
	"RebootProgram without a target (scontrol reboot): reboots the node (the reboot command ran), no topoctl call, layout untouched, exit 0" \
	"$rc $out $(cat "$t/run/slurm-reboot.log")"
rm -f "$t/rebooted"
# 24.11's slurmd, reloaded once, carries SLURMD_BOOT_TIME (its -b time)
# into the programs it runs: a slurmd -b started from here must not get it
out=$(SLURMD_BOOT_TIME=1796000000 SLURMD_RECONF=1 SLURMD_RECONF_LISTEN_FD=9 \
	PCITOPO_REBOOT="env >$t/reboot.env" "$R" 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && -s $t/reboot.env ]] && ! grep -q '^SLURMD_\(BOOT_TIME\|RECONF\)' "$t/reboot.env" && echo 1 || echo 0)" \
	"RebootProgram: slurmd's SLURMD_BOOT_TIME and SLURMD_RECONF* (24.11 sets them at a reload) are not passed on to the reboot or restart command (a slurmd -b would take the old boot time)" \
	"$rc $out $(grep SLURMD "$t/reboot.env" 2>&1)"
out=$(PCITOPO_SLURMD_RESTART="touch $t/restarted" PCITOPO_REBOOT="exit 3" "$R" 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 1 && $(tail -n 1 "$t/run/slurm-reboot.log") == *"the reboot command failed (3)"* ]] && echo 1 || echo 0)" \
	"RebootProgram: a reboot command that fails: exit 1, its status in the log" "$rc $(tail -n 2 "$t/run/slurm-reboot.log")"
# a target left from a request whose RebootProgram never ran (24.05+ skips
# it when a helper fails): a later plain reboot must not switch. The age
# is read a moment after it is written: 400 s or a few more.
up=$(cut -d. -f1 /proc/uptime)
printf 'layout=cascade\nverdict=proceed\napply=online\nsince=%s\n' $((up - 400)) >"$t/run/slurm-target"
out=$(rb 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && -e $t/rebooted && ! -e $t/topoctl.calls && ! -e $t/run/slurm-target &&
	$(cat "$t/run/slurm-reboot.log") =~ "the target 'cascade' recorded "40[0-9]" s ago is not this request's".*"rebooting the node" ]] &&
	echo 1 || echo 0)" \
	"RebootProgram: a target recorded 400 s ago is stale: set aside, the node rebooted, nothing switched" \
	"$rc $out $(tail -n 3 "$t/run/slurm-reboot.log")"
rm -f "$t/rebooted"
out=$(rb a b 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 2 && $out == *"usage: slurm-reboot-program [FEATURES]"* && ! -e $t/rebooted ]] && echo 1 || echo 0)" \
	"RebootProgram: two arguments: usage error (exit 2), nothing run" "$rc $out"
wait_for() { for _ in $(seq 100); do [[ -e $1 ]] && return 0; sleep 0.1; done; return 1; }
"$H" cascade >/dev/null
out=$(PCITOPO_SLURMD_RESTART="touch $t/restarted" "$R" 2>&1) && rc=0 || rc=$?
wait_for "$t/restarted" || true
tap "$([[ $rc == 0 && -e $t/restarted && $(cat "$t/sys/layout") == cascade && ! -e $t/run/slurm-target &&
	$(cat "$t/run/slurm-reboot.log") == *"(apply online)"*"switch to cascade done"*"restarting slurmd with -b"* &&
	$(cat "$t/topoctl.calls") == *"set cascade --dry-run -j"$'\n'"set cascade" ]] &&
	echo 1 || echo 0)" \
	"RebootProgram: target consumed, topoctl set cascade (Apply from the dry run: no topoctl status), then slurmd restarted" "$rc $out $(cat "$t/run/slurm-reboot.log")"
rm -f "$t/restarted"
echo ok >"$t/mode"; "$H" common >/dev/null; echo fail >"$t/mode"
out=$(PCITOPO_SLURMD_RESTART="touch $t/restarted" "$R" 2>&1) && rc=0 || rc=$?
wait_for "$t/restarted" || true
tap "$([[ $rc == 0 && -e $t/restarted && $(cat "$t/run/slurm-error" 2>&1) == "error=switch to common failed: BMC job 3 failed (error 7)" &&
	$(cat "$t/sys/layout") == cascade && ! -e $t/scontrol.calls ]] && echo 1 || echo 0)" \
	"RebootProgram: a failed switch: topod's error recorded, slurmd restarted all the same; 22.05 (no features argument): nothing told to slurmctld, the Prolog drains" \
	"$rc $out $(cat "$t/run/slurm-error" 2>&1) $(cat "$t/scontrol.calls" 2>&1)"

# 23.02 and later: the request's features as one argument
echo ok >"$t/mode"; echo balance >"$t/sys/layout"
rm -f "$t/restarted" "$t/rebooted" "$t/topoctl.calls" "$t/run/slurm-target" "$t/run/slurm-error"
out=$(rb cascade 2>&1) && rc=0 || rc=$?
wait_for "$t/restarted" || true
tap "$([[ $rc == 0 && -e $t/restarted && $(cat "$t/sys/layout") == cascade && ! -e $t/rebooted &&
	$(cat "$t/run/slurm-target.taken") == "layout=cascade"$'\n'"verdict=unchecked: from the RebootProgram's argument, no helper record"* &&
	$(cat "$t/topoctl.calls") == "-j status"$'\n'"set cascade" ]] && echo 1 || echo 0)" \
	"RebootProgram 'cascade' (23.02+) with no helper record: the argument is the target (recorded, consumed), Apply from topoctl status, switched, slurmd restarted" \
	"$rc $out $(cat "$t/topoctl.calls") $(tail -n 4 "$t/run/slurm-reboot.log")"
rm -f "$t/restarted" "$t/topoctl.calls"
"$H" common >/dev/null
out=$(rb 'bigmem,common' 2>&1) && rc=0 || rc=$?
wait_for "$t/restarted" || true
tap "$([[ $rc == 0 && -e $t/restarted && $(cat "$t/sys/layout") == common && ! -e $t/run/slurm-target &&
	$(cat "$t/topoctl.calls") == "set common --dry-run -j"$'\n'"set common" &&
	$(cat "$t/run/slurm-reboot.log") == *"features 'bigmem,common'"*"(apply online)"* ]] && echo 1 || echo 0)" \
	"RebootProgram 'bigmem,common': bigmem (not a layout) ignored, common switched with the helper's recorded Apply (no topoctl status)" \
	"$rc $out $(cat "$t/topoctl.calls") $(tail -n 4 "$t/run/slurm-reboot.log")"
# 23.02+: a failed switch drains the node with pcitopo's reason and sets
# its active feature to the layout it stays in, before slurmd comes back
# (its registration would drain it with Slurm's words only: INVALID_REG)
rm -f "$t/restarted" "$t/topoctl.calls" "$t/scontrol.calls"
"$H" cascade >/dev/null; echo fail >"$t/mode"
out=$(rb cascade 2>&1) && rc=0 || rc=$?
wait_for "$t/restarted" || true
tap "$([[ $rc == 0 && $(cat "$t/sys/layout") == common &&
	$(cat "$t/scontrol.calls" 2>&1) == "update nodename=node3 state=drain reason=pcitopo: switch to cascade failed: BMC job 3 failed (error 7); the node is in common"$'\n'"update nodename=node3 activefeatures=common"$'\n'restart ]] &&
	echo 1 || echo 0)" \
	"RebootProgram 'cascade' (23.02+), the switch failed: slurmctld told before slurmd's restart: node drained naming the failure and the layout it stays in, its active feature that layout" \
	"$rc $out $(cat "$t/scontrol.calls" 2>&1) $(tail -n 4 "$t/run/slurm-reboot.log")"
# the node's name from the slurmd that runs the RebootProgram (through sh
# -c up to 25.05): its -N, not the host name
rm -f "$t/restarted" "$t/scontrol.calls"
"$H" cascade >/dev/null
# shellcheck disable=SC2016 # expands in the stand-in slurmd
out=$(PCITOPO_SLURMD_RESTART="touch $t/restarted" PCITOPO_REBOOT=true \
	bash -c 'exec -a slurmd bash -c "sh -c \"$0 cascade\"; true" "$1" -D -N node5' "$R" 2>&1) && rc=0 || rc=$?
wait_for "$t/restarted" || true
tap "$([[ $(head -n 1 "$t/scontrol.calls" 2>&1) == "update nodename=node5 state=drain reason=pcitopo: switch to cascade failed"* ]] &&
	echo 1 || echo 0)" \
	"RebootProgram run by slurmd -N node5 (through sh -c): slurmctld told about node5, slurmd's NodeName, not the host's name" \
	"$rc $out $(cat "$t/scontrol.calls" 2>&1)"
echo ok >"$t/mode"; rm -f "$t/scontrol.calls" "$t/run/slurm-error"
rm -f "$t/restarted" "$t/topoctl.calls"
"$H" cascade >/dev/null; rm -f "$t/topoctl.calls"
out=$(rb bigmem 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 0 && -e $t/rebooted && ! -e $t/restarted && ! -e $t/topoctl.calls && ! -e $t/run/slurm-target &&
	$(cat "$t/sys/layout") == common ]] && echo 1 || echo 0)" \
	"RebootProgram 'bigmem' (no layout among the features): a plain reboot, the helper's record of another request set aside, nothing switched" \
	"$rc $out $(tail -n 3 "$t/run/slurm-reboot.log")"
rm -f "$t/restarted" "$t/rebooted"
out=$(rb 'cascade,balance' 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 1 && -e $t/restarted && ! -e $t/rebooted && ! -e $t/topoctl.calls && $(cat "$t/sys/layout") == common &&
	$(cat "$t/run/slurm-error") == "error=the reboot request asks for two layouts, cascade and balance (features 'cascade,balance'): refused" ]] &&
	echo 1 || echo 0)" \
	"RebootProgram 'cascade,balance': refused naming both (recorded for the Prolog), slurmd restarted, nothing switched, exit 1" \
	"$rc $out $(cat "$t/run/slurm-error" 2>&1) $(tail -n 3 "$t/run/slurm-reboot.log")"
echo cascade >"$t/sys/layout"; rm -f "$t/run/slurm-error"
printf 'error=switch to common failed: BMC job 3 failed (error 7)\n' >"$t/run/slurm-error"

# the restart through systemd: SLURMD_OPTIONS as the running slurmd had it
# (its /proc environ), an earlier -b dropped, one -b added
rm -f "$t/restarted" "$t/systemctl.calls"
env -i SLURMD_OPTIONS='--conf-server ctl1:6817  -b -M' sleep 30 &
fake=$!
echo "$fake" >"$t/mainpid"
echo ok >"$t/mode"; "$H" balance >/dev/null
out=$(PCITOPO_SYSTEMCTL=$t/systemctl PCITOPO_REBOOT="touch $t/rebooted" "$R" 2>&1) && rc=0 || rc=$?
wait_for "$t/restarted" || true
kill "$fake" 2>/dev/null || true
tap "$([[ $rc == 0 && $(cat "$t/boot.env" 2>&1) == 'SLURMD_OPTIONS="--conf-server ctl1:6817 -M -b"' &&
	$(cat "$t/systemctl.calls") == "show -P MainPID slurmd.service"$'\n'"--no-block restart slurmd.service" &&
	$(cat "$t/sys/layout") == balance ]] && echo 1 || echo 0)" \
	"RebootProgram under systemd: slurmd-boot.env keeps the running slurmd's SLURMD_OPTIONS (--conf-server ctl1:6817 -M), its old -b dropped, -b added; systemctl restart slurmd" \
	"$rc $out $(cat "$t/boot.env" 2>&1) $(cat "$t/systemctl.calls") $(tail -n 3 "$t/run/slurm-reboot.log")"
rm -f "$t/restarted" "$t/systemctl.calls" "$t/boot.env"
echo 0 >"$t/mainpid"
"$H" cascade >/dev/null
out=$(SLURMD_OPTIONS='-M "x\y"' PCITOPO_SYSTEMCTL=$t/systemctl PCITOPO_REBOOT="touch $t/rebooted" "$R" 2>&1) && rc=0 || rc=$?
wait_for "$t/restarted" || true
tap "$([[ $rc == 0 && $(cat "$t/boot.env" 2>&1) == 'SLURMD_OPTIONS="-M \"x\\y\" -b"' &&
	$(cat "$t/run/slurm-reboot.log") == *"slurmd.service has no running slurmd to take its options from"* ]] && echo 1 || echo 0)" \
	"RebootProgram, no slurmd under systemd (MainPID 0): its own SLURMD_OPTIONS, quoted for EnvironmentFile= (\\\" and \\\\), with -b" \
	"$rc $out $(cat "$t/boot.env" 2>&1) $(tail -n 3 "$t/run/slurm-reboot.log")"
echo cascade >"$t/sys/layout"
printf 'error=switch to common failed: BMC job 3 failed (error 7)\n' >"$t/run/slurm-error"

# --sync (pcitopo-slurm-reconfig.service, before slurmd's reload): the
# layout told to slurmctld for slurmd's node: its -N NAME, else the short
# hostname; nothing to tell for 'other'; scontrol's failure is exit 1
rm -f "$t/scontrol.calls" "$t/systemctl.calls"
sh -c 'sleep 30' slurmd --systemd -N node9 &
fake=$!
echo "$fake" >"$t/mainpid"
sleep 0.2	# sh has exec'd its command line
out=$(PCITOPO_SYSTEMCTL=$t/systemctl "$H" --sync 2>&1) && rc=0 || rc=$?
# its sleep too: left, it would hold the suite's output open for 30 s
pkill -P "$fake" 2>/dev/null || true
kill "$fake" 2>/dev/null || true
tap "$([[ $rc == 0 && $(cat "$t/scontrol.calls" 2>&1) == "update nodename=node9 activefeatures=cascade" ]] && echo 1 || echo 0)" \
	"helper --sync: scontrol update nodename=node9 activefeatures=cascade (the running slurmd's -N node9)" \
	"$rc $out $(cat "$t/scontrol.calls" 2>&1)"
rm -f "$t/scontrol.calls"; echo 0 >"$t/mainpid"
out=$(PCITOPO_SYSTEMCTL=$t/systemctl "$H" --sync 2>&1) && rc=0 || rc=$?
h=$(hostname); h=${h%%.*}
tap "$([[ $rc == 0 && $(cat "$t/scontrol.calls" 2>&1) == "update nodename=$h activefeatures=cascade" ]] && echo 1 || echo 0)" \
	"helper --sync, no slurmd under systemd: the short hostname ($h) as the node" \
	"$rc $out $(cat "$t/scontrol.calls" 2>&1)"
rm -f "$t/scontrol.calls"
echo other >"$t/sys/layout"
out=$(PCITOPO_SLURM_NODE=node7 "$H" --sync 2>&1) && rc=0 || rc=$?
rc2=0; echo cascade >"$t/sys/layout"
PCITOPO_SLURM_NODE=node7 PCITOPO_SCONTROL=/bin/false "$H" --sync >/dev/null 2>&1 || rc2=$?
tap "$([[ $rc == 0 && $out == *"no layout to tell slurmctld (other)"* && ! -e $t/scontrol.calls && $rc2 == 1 ]] && echo 1 || echo 0)" \
	"helper --sync: 'other' tells nothing (exit 0); a failing scontrol: exit 1" "$rc $rc2 $out"

# the Prolog
export SLURMD_NODENAME=node7 SLURM_JOB_ID=42
rm -f "$t/scontrol.calls"
out=$(SLURM_JOB_CONSTRAINTS='' "$P" 2>&1) && rc=0 || rc=$?
rc2=0; SLURM_JOB_CONSTRAINTS="bigmem&cascade" "$P" >/dev/null 2>&1 || rc2=$?
tap "$([[ $rc == 0 && $rc2 == 0 && ! -e $t/scontrol.calls ]] && echo 1 || echo 0)" \
	"Prolog: no constraint, or one met (bigmem&cascade on cascade): exit 0, no drain" "$rc $rc2 $out"
out=$(SLURM_JOB_CONSTRAINTS="common" "$P" 2>&1) && rc=0 || rc=$?
tap "$([[ $rc == 1 && $(cat "$t/scontrol.calls") == "update nodename=node7 state=drain reason=pcitopo: job 42 wants common, node is in cascade: switch to common failed: BMC job 3 failed (error 7)" ]] &&
	echo 1 || echo 0)" \
	"Prolog: wrong layout: exit 1, node drained, the reason names both layouts and the switch's error" \
	"$rc $out $(cat "$t/scontrol.calls" 2>&1)"
tap_end
