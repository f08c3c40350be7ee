#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# slurm-node-boot.sh NODE_ENV   (in the emulated server's guest, as root, at
#                                every boot: tests/vm/server --boot-job)
#
# What a compute node starts by itself at boot, for tests/vm/t-slurm-
# powercycle.sh, whose slurmctld and munged run on the host: the clock set
# from the host's, the user-mode NIC up (tests/vm/qemu-args --slirp), topod
# (tests/vm/guest/topod-up.sh, switch-firmware platform) and, once topod has
# finished any switch its journal holds, munged and slurmd (without -b: the
# boot is real, as slurmd.service after topod on a real node). NODE_ENV (a
# host file the test writes) sets SLURM_CONF, PCITOPO_SLURM_DIR (the node's
# own folder, on the guest's /run; munged's socket is there on both sides)
# and PCITOPO_MUNGE_KEY. slurmd is started by tests/vm/guest/slurm-slurmd.sh,
# which also restarts it for the RebootProgram if a switch fails. Logs:
# /out/slurm-log/ (slurmd.log, boot-N.log), kept across boots.
set -euo pipefail
nenv=${1:?usage: slurm-node-boot.sh NODE_ENV}
root=${PCITOPO_ROOT:-$(pwd)}
out=${PCITOPO_OUT:-/out}
boot=$(sed -n 's/.*pcitopo\.boot=\([0-9]*\).*/\1/p' /proc/cmdline)
mkdir -p "$out/slurm-log"
exec >>"$out/slurm-log/boot-$boot.log" 2>&1
say() { echo "$(date +%s.%N) boot $boot: $*"; }
# shellcheck source=/dev/null
. "$nenv"
dir=$PCITOPO_SLURM_DIR

# munge accepts a credential made at most 1 s in its decoder's future, and
# the guest's clock starts from QEMU's RTC, whole seconds: set it from the
# host's, the modification time the host's file system gives a new file
# on the 9p share (what NTP does on a real node)
rm -f "$out/.clock"
: >"$out/.clock"
date -s "@$(date -r "$out/.clock" +%s.%N)" >/dev/null
say "clock set from the host's"

# the NIC on QEMU's user-mode network (its MAC: tests/vm/qemu-args
# SLIRP_MAC); slirp's guest address, the host at 10.0.2.2
modprobe e1000e
nic=
for _ in $(seq 100); do
	for a in /sys/class/net/*/address; do
		[[ $(<"$a") == 52:54:00:70:74:01 ]] && nic=$(basename "$(dirname "$a")")
	done
	[[ -n $nic ]] && break
	sleep 0.1
done
[[ -n $nic ]] || { say "no NIC with the user-mode network's MAC"; exit 1; }
ip link set lo up
hostname node1
ip addr add 10.0.2.15/24 dev "$nic"
ip link set "$nic" up
say "$nic up, 10.0.2.15/24"

"$root/tests/vm/guest/topod-up.sh" emulated-switchfw
# a power cycle's switch ends in this boot (topod's journal): slurmd reports
# the layout once topod has committed it
st=
for _ in $(seq 240); do
	st=$("$root/cli/topoctl" -j status 2>/dev/null | jq -r '"\(.state) \(.layout)"') || true
	[[ $st == idle* ]] && break
	sleep 0.5
done
say "topod: $st"

mkdir -p "$dir/spool"
ln -sfn "$out/slurm-log" "$dir/log"
cat >"$dir/env" <<EOC
export SLURM_CONF=$SLURM_CONF
export PCITOPO_SLURM_DIR=$dir
export PCITOPO_TOPOCTL=$root/cli/topoctl
export PCITOPO_SLURMD_RESTART="$root/tests/vm/guest/slurm-slurmd.sh $dir restart-boot"
EOC
munged --force --socket="$dir/munge.sock" --key-file="$PCITOPO_MUNGE_KEY" --origin=10.0.2.15 \
	--log-file="$out/slurm-log/munged-node.log" --pid-file="$dir/munged.pid" \
	--seed-file="$dir/munged.seed"
"$root/tests/vm/guest/slurm-slurmd.sh" "$dir" start
say "munged and slurmd started"
