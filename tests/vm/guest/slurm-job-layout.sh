#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# slurm-job-layout.sh: the batch job of tests/vm/t-slurm-powercycle.sh. One
# line: the wall-clock time it started, the server's boot it runs in (the
# harness's counter, pcitopo.boot= on the kernel command line), the layout
# the module reports (sysfs) and the one topod reports (topoctl status).
read -r cmdline </proc/cmdline
boot='?'
for w in $cmdline; do [[ $w == pcitopo.boot=* ]] && boot=${w#*=}; done
echo "job ${SLURM_JOB_ID:-?} at $(date +%s.%N) boot $boot" \
	"module $(cat /sys/kernel/pcitopo/layout)" \
	"topod $("${PCITOPO_ROOT:-.}/cli/topoctl" -j status | jq -r .layout)"
