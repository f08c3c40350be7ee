#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Slurm switches a node of the switch-firmware platform through a real power
# cycle (Documentation/slurm.md, case (b); tests/vm/t-slurm.sh has the
# others, all in one guest). slurmctld must outlive the node's power cycle,
# so it runs here, on the host, with its own munged; slurmd, munged, topod
# and the module run in the emulated server's guest, started by the guest
# itself at every boot (tests/vm/guest/slurm-node-boot.sh, the server's
# --boot-job). All of it inside a network namespace this test makes, whose
# only interface is lo: the guest's NIC nic1 is on QEMU's user-mode network
# (tests/vm/server --slirp), slurmctld reaches slurmd by a hostfwd on
# 127.0.0.1:6818, slurmd reaches slurmctld at slirp's host address
# 10.0.2.2, which is also on this namespace's lo so that one slurm.conf
# serves both sides (no configuration hash warnings). The munge key is a
# file of the host's tree, which the guest sees read-only.
#   (b) --constraint=cascade on a node in balance: the RebootProgram asks
#       topod for cascade with a power cycle, the BMC cycles the host, the
#       node boots again (the harness's boot counter), topod finishes the
#       switch from its journal, slurmd starts, the job runs and sees
#       cascade (module and topod); ActiveFeatures=cascade, idle, not
#       drained, BootTime after the submission; the BMC applied the
#       pending layout at its power on.
# TAP on stdout, times as # comments. The server is always stopped, the
# namespace always removed.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root"
srv=$here/server
n=0 failed=0

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"

need_built kmod/pcitopo.ko daemon/topod/topod cli/topoctl \
	slurm/slurm-feature-helper slurm/slurm-reboot-program slurm/slurm-prolog
need_cmds ipmi_sim qemu-system-x86_64 dbus-daemon ip unshare jq
need_host /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged /usr/bin/sbatch

# --- the network namespace: this script again, inside it -----------------
if [[ -z ${PCITOPO_SLURMPC_NS:-} ]]; then
	ns=pcitopo-slurmpc-$$
	ip netns add "$ns" 2>/dev/null ||
		{ echo "not ok 1 - $me: cannot make a network namespace (ip netns add; root?)"; exit 1; }
	# unshare -u: a hostname of its own for slurmctld (SlurmctldHost)
	ip netns exec "$ns" unshare -u env PCITOPO_SLURMPC_NS="$ns" "$here/${0##*/}" "$@" &
	child=$!
	trap 'kill -TERM "$child" 2>/dev/null' INT TERM
	rc=0
	wait "$child" || rc=$?
	# the child may have been interrupted: wait for its cleanup too
	while kill -0 "$child" 2>/dev/null; do wait "$child" || rc=$?; done
	# nothing but this test's processes live in the namespace
	left=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
	if [[ -n ${left// /} ]]; then
		echo "# left in $ns, killed: $left"
		# shellcheck disable=SC2086 # a list of pids
		kill -KILL $left 2>/dev/null || true
		sleep 0.5
	fi
	ip netns del "$ns"
	exit "$rc"
fi

ip link set lo up
ip addr add 10.0.2.2/32 dev lo
hostname pt-ctl

# slurmctld declares the node lost after ResumeTimeout: the platform's
# budget (topoctl set --dry-run: 10 + 120 + 30 s for emulated-switchfw)
# plus the boot, about twice that, as Documentation/slurm.md sizes it
resume=300
work='' sdir='' rdir='' ctld=''
# stop_server: PCITOPO_RESULTS=DIR keeps the logs (Slurm's on both sides,
# the guest's boot jobs', topod's, the console, the BMC's), then the
# server is stopped
stop_server() {
	[[ -n $sdir && -d $sdir ]] || return 0
	if [[ -n ${PCITOPO_RESULTS:-} ]]; then
		mkdir -p "$PCITOPO_RESULTS"
		cp -r "$work/slurmctld.log" "$sdir/out/slurm-log" "$sdir/out/topod.log" \
			"$sdir/console.log" "$sdir/bmc/sim.log" "$PCITOPO_RESULTS/" 2>/dev/null || true
	fi
	"$srv" stop "$sdir" >/dev/null 2>&1 || true
	sdir=
}
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local mpid=''
	stop_server
	# slurmctld saves its state as it exits: wait for it before removing
	if [[ -n $ctld ]] && kill -TERM "$ctld" 2>/dev/null; then
		wait "$ctld" 2>/dev/null || true
	fi
	[[ -n $rdir && -f $rdir/munged.pid ]] && mpid=$(<"$rdir/munged.pid")
	if [[ -n $mpid ]] && kill -TERM "$mpid" 2>/dev/null; then
		for _ in $(seq 50); do kill -0 "$mpid" 2>/dev/null || break; sleep 0.1; done
	fi
	[[ -n $work ]] && rm -rf "$work"
	[[ -n $rdir ]] && rm -rf "$rdir"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

T0=$(now)
work=$(mktemp -d /tmp/pcitopo-slurmpc.XXXXXX)
sdir=$work/srv
# the node's folder: the guest's own /run there (slurm-node-boot.sh), this
# host's /run here; munged's socket has the same path on both sides
rdir=/run/${work##*/}
mkdir -p "$rdir" "$work/ctld"

dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 0400 "$work/munge.key"
# the guest has 2 CPUs (one per NUMA node, tests/vm/layout.py)
# shellcheck source=tests/vm/guest/slurm-conf.sh
. "$here/guest/slurm-conf.sh"
SC_CTLHOST="pt-ctl(10.0.2.2)" SC_SOCK=$rdir/munge.sock SC_CTLD=$work/ctld \
	SC_SPOOL=$rdir/spool SC_CTLD_PID=$work/slurmctld.pid SC_SLURMD_PID=$rdir/slurmd.pid \
	SC_CTLD_LOG=$work/slurmctld.log SC_SLURMD_LOG=/out/slurm-log/slurmd.log \
	SC_RESUME=$resume SC_ROOT=$root SC_NODE="NodeAddr=127.0.0.1 CPUs=2" \
	slurm_conf "$work/slurm.conf"
SC_ROOT=$root slurm_helpers_conf "$work/helpers.conf"
slurm_cgroup_conf "$work/cgroup.conf"
printf 'SLURM_CONF=%s\nPCITOPO_SLURM_DIR=%s\nPCITOPO_MUNGE_KEY=%s\n' \
	"$work/slurm.conf" "$rdir" "$work/munge.key" >"$work/node.env"
printf '#!/bin/sh\nexec %q %q\n' "$here/guest/slurm-node-boot.sh" "$work/node.env" >"$work/node-boot"
chmod +x "$work/node-boot"

export SLURM_CONF=$work/slurm.conf PCITOPO_ROOT=$root
munged --force --socket="$rdir/munge.sock" --key-file="$work/munge.key" \
	--origin=10.0.2.2 --log-file="$work/munged.log" --pid-file="$rdir/munged.pid" \
	--seed-file="$rdir/munged.seed" 2>>"$work/munged.log"
setsid slurmctld -D -i >>"$work/slurmctld.out" 2>&1 </dev/null &
ctld=$!
w() { "$here/guest/slurm-wait.sh" "$@"; }

t0=$(now)
line=$("$srv" start "$sdir" --method switchfw --layout balance --timeout 300 \
	--boot-job "$work/node-boot" --slirp hostfwd=tcp:127.0.0.1:6818-:6818 2>&1) && ok=1 || ok=0
tap "$ok" "switchfw: server up in balance, nic1 on a user-mode network ($(since "$t0") s)" "$line"
((ok)) || exit 1
# the guest's boot job: clock, NIC, topod, munged, slurmd; node1 registers
out=$(w 240 node 'ActiveFeatures=balance .* State=IDLE ') && ok=1 || ok=0
tap "$ok" "node1 (slurmd in the guest, slurmctld here) idle, ActiveFeatures=balance ($(since "$t0") s)" \
	"$out
$(tail -n 8 "$sdir"/out/slurm-log/boot-1.log "$work/slurmctld.log" "$sdir/out/slurm-log/slurmd.log" 2>&1)"
((ok)) || exit 1

# (b) cascade: a power cycle, then the job in cascade
boot=$(cat "$sdir/boot")
tsub=$(date +%s)
t0=$(now)
id=$(sbatch --parsable --constraint=cascade -o /out/slurm-log/j%j.out \
	tests/vm/guest/slurm-job-layout.sh 2>&1) || true
out=$(w $((resume + 90)) job "$id" 'JobState=(COMPLETED|FAILED|CANCELLED)|Reason=launch') || true
tb=$(since "$t0")
job=$(cat "$sdir/out/slurm-log/j$id.out" 2>&1) || true
ready=$(cat "$sdir/out/ready" 2>&1) || true
echo "# (b) job $id: $job"
echo "# (b) the guest now: $ready"
tap "$([[ $out == *"JobState=COMPLETED"* &&
	$job == *" boot $((boot + 1)) module cascade topod cascade"* ]] && echo 1 || echo 0)" \
	"(b) job $id (--constraint=cascade on balance) ran in the next boot; module and topod reported cascade ($tb s)" \
	"$out
job: $job
$(tail -n 12 "$work/slurmctld.log" 2>&1)"
node=$(w 1 node . 2>&1) || true
bt=$(sed -n 's/.* BootTime=\([^ ]*\) .*/\1/p' <<<"$node")
bts=$(date -d "$bt" +%s 2>/dev/null || echo 0)
tap "$([[ $node == *"ActiveFeatures=cascade "* && $node == *" State=IDLE "* && $node != *DRAIN* &&
	$bts -ge $tsub ]] && echo 1 || echo 0)" \
	"(b) scontrol: node1 ActiveFeatures=cascade, idle, not drained, BootTime $bt after the submission" "$node"
tap "$([[ $ready == "boot=$((boot + 1)) layout=cascade "* && $(cat "$sdir/bmc/vm/boots") == $((boot + 1)) ]] &&
	echo 1 || echo 0)" \
	"(b) the server booted once more (harness's boot counter $boot -> $((boot + 1))), in cascade" \
	"ready: $ready
boots: $(cat "$sdir/bmc/vm/boots")"
state=$(tr '\n' ' ' <"$sdir/bmc/state")
power=$("$srv" bmc "$sdir" chassis power status 2>&1) || true
tap "$([[ $(grep -c 'power on: layout balance -> cascade' "$sdir/bmc/sim.log") == 1 &&
	$state == *"current=3 "* && $state == *"pending=0 "* && $power == *"is on"* ]] && echo 1 || echo 0)" \
	"(b) the BMC: one power cycle applied the pending cascade at its power on; state current cascade, nothing pending; power on" \
	"state: $state
power: $power
$(grep pcitopo_bmc "$sdir/bmc/sim.log" | tail -n 8)"
# (the power cycle cuts the first boot's last lines of topod's log short)
tap "$([[ $(grep -c 'preflight: started' "$sdir/out/topod.log") == 1 &&
	$(grep -c 'journal: awaiting-power-cycle switch balance -> cascade' "$sdir/out/topod.log") == 1 &&
	$(grep -o 'switch to [a-z]*: [a-z]*' "$sdir/out/topod.log" | tail -n 1) == "switch to cascade: done" ]] &&
	echo 1 || echo 0)" \
	"(b) topod's log: one switch; after the boot, its journal awaiting the power cycle, cascade done" \
	"$(tail -n 15 "$sdir/out/topod.log" 2>&1)"
# the path's times, from the logs' wall clocks
tjob=$(sed -n 's/.* at \([0-9]*\)\..*/\1/p' <<<"$job")
tup=$(sed -n 's/^\([0-9]*\)\..* munged and slurmd started$/\1/p' "$sdir/out/slurm-log/boot-$((boot + 1)).log" 2>/dev/null)
[[ -n $tjob && -n $tup ]] &&
	echo "# (b) submission -> slurmd started in the new boot $((tup - tsub)) s -> job ran $((tjob - tup)) s"
sed 's/^/#   /' "$sdir/out/slurm-log/boot-$((boot + 1)).log" 2>/dev/null || true

stop_server
echo "# t-slurm-powercycle: $(since "$T0") s in all"
tap_end
