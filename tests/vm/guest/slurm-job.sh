#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# slurm-job.sh [SECONDS]: the batch job of tests/vm/t-slurm.sh. Prints the
# layout the module reports and the guest's uptime (the clock of topod's
# log lines, CLOCK_MONOTONIC) at its start and at its end, SECONDS apart
# (default 0: the checks compare the switches' times with these).
read -r up _ </proc/uptime
echo "start $up layout $(cat /sys/kernel/pcitopo/layout) job ${SLURM_JOB_ID:-?}"
sleep "${1:-0}"
read -r up _ </proc/uptime
echo "end $up layout $(cat /sys/kernel/pcitopo/layout)"
