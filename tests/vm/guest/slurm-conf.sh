# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# slurm-conf.sh (sourced): the one configuration of the test clusters, the
# lines Documentation/slurm.md gives for a node whose layout Slurm changes
# (node_features/helpers with pcitopo's helper, RebootProgram and Prolog
# from slurm/), written by guest/slurm-up.sh (the whole cluster in the
# guest: t-slurm.sh) and by t-slurm-powercycle.sh (slurmctld on the host,
# slurmd in the guest). What differs between them comes in variables.
#
# slurm_conf FILE: slurm.conf. Variables: SC_CTLHOST (SlurmctldHost=),
#   SC_SOCK (munged's socket), SC_CTLD (slurmctld's state folder), SC_SPOOL
#   (slurmd's), SC_CTLD_PID, SC_SLURMD_PID, SC_CTLD_LOG, SC_SLURMD_LOG,
#   SC_RESUME (ResumeTimeout, s), SC_NODE (node1's NodeName words after
#   the name), SC_ROOT (the project tree).
# slurm_helpers_conf FILE [USERS]: helpers.conf, one line per layout, one
#   helper for all; AllowUserBoot=USERS when given.
# slurm_cgroup_conf FILE: cgroup.conf. slurmd initializes a cgroup plugin
#   whatever ProctrackType says; v1's init touches nothing (the guest mounts
#   no cgroup file system).

slurm_conf() {
	cat >"$1" <<EOC
# written by tests/vm/guest/slurm-conf.sh; Documentation/slurm.md
ClusterName=pcitopo
SlurmctldHost=${SC_CTLHOST:?}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${SC_SOCK:?}
SlurmUser=root
SlurmdUser=root
StateSaveLocation=${SC_CTLD:?}
SlurmdSpoolDir=${SC_SPOOL:?}
SlurmctldPidFile=${SC_CTLD_PID:?}
SlurmdPidFile=${SC_SLURMD_PID:?}
SlurmctldLogFile=${SC_CTLD_LOG:?}
SlurmdLogFile=${SC_SLURMD_LOG:?}
SlurmctldDebug=debug
SlurmdDebug=debug
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/linear
MpiDefault=none
SlurmdTimeout=300
InactiveLimit=0
MinJobAge=600
# pcitopo: the layout is a changeable node feature
NodeFeaturesPlugins=node_features/helpers
RebootProgram=${SC_ROOT:?}/slurm/slurm-reboot-program
Prolog=$SC_ROOT/slurm/slurm-prolog
ResumeTimeout=${SC_RESUME:?}
ReturnToService=1
# no layout in Feature=: slurmd reports them from helpers.conf (available:
# all three; active: the helper's). Listed here, 23.02+ takes all three as
# active until slurmd registers and then drains the node ("Reported active
# features (balance) are not a superset of currently active changeable
# features (balance,common,cascade)"; Documentation/slurm.md)
NodeName=node1 ${SC_NODE:?} State=UNKNOWN
PartitionName=main Nodes=node1 Default=YES MaxTime=30 State=UP
EOC
}

slurm_helpers_conf() {
	local l
	{
		echo "# pcitopo: one line per layout, one helper for all"
		for l in balance common cascade; do
			echo "Feature=$l Helper=${SC_ROOT:?}/slurm/slurm-feature-helper"
		done
		echo "MutuallyExclusive=balance,common,cascade"
		echo "ExecTime=10"
		[[ -z ${2:-} ]] || echo "AllowUserBoot=$2"
	} >"$1"
}

slurm_cgroup_conf() {
	echo "CgroupPlugin=cgroup/v1" >"$1"
}
