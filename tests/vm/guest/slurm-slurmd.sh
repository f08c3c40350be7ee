#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# slurm-slurmd.sh DIR start|restart-boot   (slurm-up.sh's cluster)
#   start          slurmd -D -N node1, detached, with DIR/env's environment
#   restart-boot   what the RebootProgram runs after an online switch (its
#                  PCITOPO_SLURMD_RESTART): stop slurmd (SIGTERM, by its
#                  pid file; waits until it is gone), start it again with
#                  -b, so that its start counts as the node's boot. On a
#                  systemd host the shipped drop-in does this instead.
set -euo pipefail
dir=${1:?usage: slurm-slurmd.sh DIR start|restart-boot}
# shellcheck source=/dev/null
. "$dir/env"
start() {
	setsid slurmd -D -N node1 "$@" >>"$dir/log/slurmd.out" 2>&1 </dev/null &
}
case ${2:-} in
start) start ;;
restart-boot)
	pid=$(cat "$dir/slurmd.pid" 2>/dev/null || true)
	if [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null; then
		for _ in $(seq 300); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	echo "$(date +%s.%N) slurm-slurmd: slurmd $pid stopped, starting with -b" >>"$dir/log/slurmd.out"
	start -b
	;;
*) echo "usage: slurm-slurmd.sh DIR start|restart-boot" >&2; exit 2 ;;
esac
