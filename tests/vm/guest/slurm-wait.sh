#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# slurm-wait.sh SECONDS job ID REGEX    poll `scontrol show job ID` until
#                                       one of its fields matches REGEX
#                                       (e.g. 'JobState=COMPLETED')
# slurm-wait.sh SECONDS node REGEX      the same for node1
# (slurm-up.sh's cluster: DIR/env sourced by the caller, SLURM_CONF set.)
# Prints the matching record's fields on one line; exits 1 at the deadline
# with the last record printed.
set -uo pipefail
secs=${1:?usage: slurm-wait.sh SECONDS job ID REGEX | node REGEX}
what=${2:?}
case $what in
job) cmd=(scontrol show job "${3:?}"); re=${4:?} ;;
node) cmd=(scontrol show node node1); re=${3:?} ;;
*) echo "slurm-wait.sh: job or node" >&2; exit 2 ;;
esac
end=$(($(date +%s) + secs))
rec=
while :; do
	rec=$("${cmd[@]}" 2>&1 | tr -s ' \n' '  ')
	grep -Eq -- "$re" <<<"$rec" && { echo "$rec"; exit 0; }
	(($(date +%s) >= end)) && break
	sleep 0.3
done
echo "$rec"
exit 1
