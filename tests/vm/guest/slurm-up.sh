#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# slurm-up.sh DIR   (in the emulated server's guest, as root, after
#                    topod-up.sh; also on a host inside `unshare -u`)
#
# A one-node Slurm cluster from Debian's packages, as plain processes with
# their own files under DIR: munged (its own key and socket), slurmctld and
# slurmd (node "node1", on 127.0.0.1), configured as Documentation/slurm.md
# says for a node whose layout Slurm changes: node_features/helpers with
# pcitopo's helper, RebootProgram and Prolog from slurm/. The hostname is
# set to localhost (SlurmctldHost=localhost: slurmctld must find itself).
# Writes DIR/env (source it: SLURM_CONF), exits 0 once node1 is idle with
# its active layout, printing "slurm-up: node1 idle ActiveFeatures=X (N s)".
# DIR/jobs (mode 1777) is for the jobs' output: users other than root
# submit too.
# Environment: SLURM_RESUME_TIMEOUT (s, default 180); SLURM_ALLOW_USER_BOOT
# (helpers.conf's AllowUserBoot=, the users whose jobs may switch the node;
# default: none written, everyone may).
set -euo pipefail
dir=${1:?usage: slurm-up.sh DIR}
root=${PCITOPO_ROOT:-$(pwd)}
t0=$(date +%s.%N)
mkdir -p "$dir"/{ctld,spool}
mkdir -p "$dir/jobs" && chmod 1777 "$dir/jobs"
dir=$(cd "$dir" && pwd)
# the logs where the host can read them (the guest's /out), else in DIR
log=${PCITOPO_OUT:-$dir}/slurm-log
mkdir -p "$log"
ln -sfn "$log" "$dir/log"

ip link set lo up 2>/dev/null || true
# Slurm resolves every address with AI_ADDRCONFIG (src/common/util-net.c),
# which glibc answers only if an IPv4 address other than 127.0.0.1 is
# configured: a second loopback address, still on lo
ip -4 addr show dev lo | grep -q 127.0.0.2 || ip addr add 127.0.0.2/8 dev lo
[[ $(hostname) == localhost ]] || hostname localhost

# munge: a fresh key, its own socket; root may run it with --force
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge.key"
munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" \
	--log-file="$dir/munged.log" --pid-file="$dir/munged.pid" \
	--seed-file="$dir/munged.seed" 2>>"$dir/munged.log"

# shellcheck source=tests/vm/guest/slurm-conf.sh
. "$root/tests/vm/guest/slurm-conf.sh"
SC_CTLHOST=localhost SC_SOCK=$dir/munge.sock SC_CTLD=$dir/ctld SC_SPOOL=$dir/spool \
	SC_CTLD_PID=$dir/slurmctld.pid SC_SLURMD_PID=$dir/slurmd.pid \
	SC_CTLD_LOG=$dir/log/slurmctld.log SC_SLURMD_LOG=$dir/log/slurmd.log \
	SC_RESUME=${SLURM_RESUME_TIMEOUT:-180} SC_ROOT=$root \
	SC_NODE="NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$(nproc)" \
	slurm_conf "$dir/slurm.conf"
slurm_cgroup_conf "$dir/cgroup.conf"
SC_ROOT=$root slurm_helpers_conf "$dir/helpers.conf" "${SLURM_ALLOW_USER_BOOT:-}"

cat >"$dir/env" <<EOC
export SLURM_CONF=$dir/slurm.conf
export PCITOPO_SLURM_DIR=$dir
export PCITOPO_TOPOCTL=\${PCITOPO_TOPOCTL:-$root/cli/topoctl}
export PCITOPO_SLURMD_RESTART="$root/tests/vm/guest/slurm-slurmd.sh $dir restart-boot"
# the RebootProgram's plain reboot (scontrol reboot, no layout asked): the
# guest's stand-in for a boot is the same restart with -b, detached (a real
# systemctl reboot returns at once too; slurmd waits for the program)
export PCITOPO_REBOOT="setsid $root/tests/vm/guest/slurm-slurmd.sh $dir restart-boot >/dev/null 2>&1 </dev/null &"
EOC
# shellcheck source=/dev/null
. "$dir/env"

setsid slurmctld -D -i >>"$dir/log/slurmctld.out" 2>&1 </dev/null &
"$root/tests/vm/guest/slurm-slurmd.sh" "$dir" start

st=
for _ in $(seq 600); do
	st=$(scontrol show node node1 2>/dev/null | tr ' ' '\n' |
		grep -E '^(State|ActiveFeatures)=' | tr '\n' ' ') || true
	[[ $st == *State=IDLE* ]] && break
	sleep 0.2
done
[[ $st == *State=IDLE* ]] || {
	echo "slurm-up: node1 not idle: $st" >&2
	tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
	exit 1
}
echo "slurm-up: node1 idle $(tr ' ' '\n' <<<"$st" | grep ActiveFeatures) ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s)"
