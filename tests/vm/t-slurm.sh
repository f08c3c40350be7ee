#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Slurm follows pcitopo's layout (Documentation/slurm.md), with Debian's
# own munged, slurmctld and slurmd as plain processes in the emulated
# server's guest (MUX platform, booted in balance), all on its loopback
# (tests/vm/guest/slurm-up.sh), pcitopo's helper, RebootProgram and Prolog
# from slurm/, the real module, topod and BMC:
#   (c) --constraint='balance&cascade': refused at submission
#       (helpers.conf MutuallyExclusive), nothing switches;
#   (g) helpers.conf AllowUserBoot=pt-boot: --constraint=cascade from
#       pt-noboot (not listed) on the node in balance is refused at
#       submission, nothing switches;
#   (d) a job without a constraint runs at once on balance, no switch;
#   (a) --constraint=cascade from pt-boot: the node switches online
#       (topod's SetLayout), slurmd comes back with -b, the job runs and
#       sees cascade; ActiveFeatures=cascade; the node idle, not drained;
#       (g) then pt-noboot's cascade job runs there, with no switch;
#   (f) a cascade job and a balance job submitted together: they run one
#       after the other, each in its layout; from topod's own log times,
#       no switch starts or runs while a job runs;
#   (h) topoctl set common by hand: slurmctld keeps balance until slurmd's
#       reload (the SIGHUP of `systemctl reload slurmd`, which
#       pcitopo-slurm-reconfig.path starts), then common, with the same
#       BootTime (to the second) and no RebootProgram run;
#   (i) scontrol reboot of the idle node (no layout asked): the
#       RebootProgram reboots it (here its stand-in for a boot, slurmd
#       restarted with -b: PCITOPO_REBOOT), switches nothing; the node is
#       back idle in common, the same ActiveFeatures, a later BootTime;
#   (e) a BMC failure injected (pcitopo_fail_next): the cascade job never
#       starts, the node drains with a reason naming the failure, the job
#       is requeued (held), the node stays in common.
#   (k) with --kernel NAME (systemd): slurmd as the release's own
#       slurmd.service (Debian 13: Type=notify, `slurmd --systemd
#       $SLURMD_OPTIONS`) with pcitopo-slurm's drop-in and reload units
#       where the package puts them: started by systemctl; a commit of
#       `topoctl set balance` reaches it through pcitopo-slurm-reconfig.path
#       (a reload, not a restart of the unit, the same BootTime; 24.11
#       re-execs slurmd at a reload); a cascade job: the
#       RebootProgram's restart writes /run/pcitopo/slurmd-boot.env and
#       `systemctl --no-block restart slurmd` starts it with -b after
#       /etc/default/slurmd's options, the job runs on cascade, a later
#       BootTime; then systemctl stop.
# Not here: (b) the power-cycle platform, where slurmctld must outlive the
# guest: tests/vm/t-slurm-powercycle.sh (slurmctld on the host).
#
# t-slurm.sh --kernel NAME (t-slurm-deb13.sh: deb13): the same cases with
# the Slurm of that release's root (scripts/mkroot's system root: Debian
# 13's munge, slurmctld and slurmd 24.11), on its kernel, with its systemd
# as init (tests/vm/server --kernel NAME --root --init systemd; the
# daemons as plain processes still, until (k)). pcitopo's programs are
# built in that root (its glibc and libraries: Debian 12's topod needs
# libconfig.so.9, which Debian 13 does not ship) from a copy of the tree,
# build/slurm-NAME, which the guest runs the test's scripts from. Where the
# releases differ the test asserts Documentation/slurm.md's table: 23.02+
# hands the RebootProgram the job's features, 22.05 nothing; the helper's
# set exits 0, so no release DOWNs the node ("Failed to set node
# feature(s)") and the Prolog drains it with pcitopo's reason.
# Every job that needs a switch is pt-boot's (root is not in AllowUserBoot
# either: Slurm makes no exception for it). pt-boot and pt-noboot are made
# in the guest (its /etc is the overlay's).
# TAP on stdout, times as # comments. The server is always stopped.
# shellcheck disable=SC2016 # single-quoted commands expand in the guest
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root"

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"
# shellcheck source=scripts/kernels.sh
source "$root/scripts/kernels.sh"
kname=$(kernels_host)
[[ ${1:-} == --kernel ]] && kname=${2:?usage: t-slurm.sh [--kernel NAME]}
rel=$(kernel_field "$kname" release) || { echo "not ok 1 - t-slurm: no kernel $kname"; exit 1; }
broot=$(kernel_root "$kname")
host=0
[[ $rel == host ]] && host=1

need_built kmod/pcitopo.ko daemon/topod/topod cli/topoctl \
	slurm/slurm-feature-helper slurm/slurm-reboot-program slurm/slurm-prolog
need_cmds ipmi_sim qemu-system-x86_64 dbus-daemon
slurm_bins=(/usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged /usr/bin/sbatch)
gargs=()
if ((host)); then
	need_host "${slurm_bins[@]}"
else
	[[ $(kernel_field "$kname" root) == system && -f $broot/.pcitopo-root ]] ||
		{ echo "not ok 1 - t-slurm: $kname's release root ($broot) is not a system root made by scripts/setup"; exit 1; }
	in_root "$broot" sh -c 'for f; do [ -x "$f" ] || { echo "$f"; exit 1; }; done' _ "${slurm_bins[@]}" >/dev/null ||
		{ echo "not ok 1 - t-slurm: no ${slurm_bins[*]} in $broot (scripts/setup: scripts/mkroot)"; exit 1; }
	[[ -e $root/$(kernel_module "$kname") ]] ||
		{ echo "not ok 1 - t-slurm: no pcitopo.ko for $kname (make kernels)"; exit 1; }
	gargs=(--kernel "$kname" --root --init systemd)
fi

server_test

# Another release's root: pcitopo's programs built there, from a copy of
# the tree (tracked and new files; mtimes kept, so make redoes only what
# changed), and the guest runs the test's scripts from that copy
if ((!host)); then
	t0=$(now)
	tree=$root/build/slurm-$kname
	mkdir -p "$tree"
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - 2>/dev/null | tar -C "$tree" -xf -
	# and the module for the kernel (make kernels; the guest's PCITOPO_KO is
	# relative to the tree it runs from)
	ko=$(kernel_module "$kname")
	mkdir -p "$tree/$(dirname "$ko")"
	cp -p "$ko" "$tree/$ko"
	out=$(in_root "$broot" sh -c 'for d in lib cli daemon slurm; do make -C "$1/$d" -j2 >/dev/null || exit 1; done' \
		_ "$tree" 2>&1) && ok=1 || ok=0
	tap "$ok" "$rel's root: topod, topoctl and the Slurm programs built there (its libraries: libconfig.so.11, not Debian 12's .9) into build/slurm-$kname ($(since "$t0") s)" "$out"
	((ok)) || { echo "1..$n"; exit 1; }
	cd "$tree"
	# every job runs the copy's scripts and programs
	GRUN_ENV=(env PCITOPO_ROOT="$tree")
fi

T0=$(now)
# in the guest: the cluster's environment, the wait, a submission (sub
# USER CONSTRAINT SECONDS: prints the job id) and what ends a wait for a job
S=/var/tmp/pt-slurm
pre=". $S/env; w() { tests/vm/guest/slurm-wait.sh \"\$@\"; }
	sub() { runuser -u \"\$1\" -- env SLURM_CONF=\"\$SLURM_CONF\" sbatch --parsable \${2:+--constraint=\$2} \\
		-o $S/jobs/j%j.out tests/vm/guest/slurm-job.sh \"\$3\"; }
	done_re='JobState=(COMPLETED|FAILED|CANCELLED)|Reason=launch'
	"
switches() { grep -cE 'preflight: started' "$dir/out/topod.log" 2>/dev/null || true; }

dir=$(mktemp -d /tmp/pcitopo-slurm.XXXXXX)
t0=$(now)
line=$("$srv" start "$dir" --method mux --layout balance --timeout 400 "${gargs[@]}" 2>&1) && ok=1 || ok=0
tap "$ok" "mux: server up in balance${gargs:+ (${gargs[*]})} ($(since "$t0") s)" "$line"
((ok)) || { echo "1..$n"; exit 1; }
t0=$(now)
# under systemd, topod's state on the guest's own disk: (k)'s path unit
# watches it (the 9p share sends no inotify events)
st=()
((host)) || st=(PCITOPO_STATE_DIR=/var/lib/pcitopo)
out=$(grun env "${st[@]}" tests/vm/guest/topod-up.sh emulated-mux 2>&1) && ok=1 || ok=0
tap "$ok" "guest: module, /dev/ipmi0, system bus, topod up ($(since "$t0") s)" "$out"
((ok)) || { echo "1..$n"; exit 1; }
t0=$(now)
out=$(T=180 grun bash -c 'for u in pt-boot pt-noboot; do
		id -u "$u" >/dev/null 2>&1 || useradd -M -U -s /bin/sh "$u" || exit 1
	done
	SLURM_ALLOW_USER_BOOT=pt-boot tests/vm/guest/slurm-up.sh '"$S" 2>&1) && ok=1 || ok=0
tap "$([[ $ok == 1 && $out == *"node1 idle ActiveFeatures=balance"* ]] && echo 1 || echo 0)" \
	"guest: users pt-boot, pt-noboot; munged, slurmctld, slurmd up (AllowUserBoot=pt-boot); node1 idle, the helper reports ActiveFeatures=balance ($(since "$t0") s)" \
	"$out$(grun bash -c "tail -n 15 $S/log/slurmd.log $S/log/slurmctld.log" 2>&1)"
((ok)) || { echo "1..$n"; exit 1; }
echo "# $out"
# the Slurm that runs: "slurm-wlm 24.11.5"; 23.02 and later give the
# RebootProgram the job's features
sv=$(grun slurmd -V 2>&1 | tail -n 1)
svn=$(grep -oE '[0-9]+\.[0-9]+' <<<"$sv" | head -n 1)
feat=0
[[ $(printf '%s\n' 23.02 "$svn" | sort -V | head -n 1) == 23.02 ]] && feat=1
echo "# Slurm: $sv ($kname kernel $(grun uname -r 2>&1), $rel's root$( ((host)) || echo ", systemd $(grun systemctl --version 2>&1 | head -n 1 | cut -d' ' -f2)"))"

# (c) MutuallyExclusive: refused by slurmctld at submission; (g) a user
# not in AllowUserBoot: slurmctld matches the constraint against the
# active features only (node_features_p_user_update false:
# find_feature_nodes, _build_node_list in node_scheduler.c), finds no node
# and refuses the submission: "Invalid feature specification", no job
# recorded, on 22.05.8 and 24.11.5 alike (with the layouts in slurm.conf's
# Feature= too, 22.05 recorded the job FAILED, BadConstraints, "Requested
# node configuration is not available");
# (d) no constraint: runs at once, nothing switches
t0=$(now)
out=$(grun bash -c "$pre"'sbatch --constraint="balance&cascade" -o /dev/null tests/vm/guest/slurm-job.sh 2>&1 | sed "s/^/c: /"; echo "rc=${PIPESTATUS[0]}"
	sub pt-noboot cascade 0 2>&1 | sed "s/^/noboot: /"; echo "rc_noboot=${PIPESTATUS[0]}"
	echo "noboot_jobs: $(scontrol -o show job | grep "UserId=pt-noboot" | grep -o "JobId=[^ ]*\|JobState=[^ ]*\|Reason=[^ ]*" | tr "\n" " ")"
	scontrol show config | grep -i "AllowUserBoot"
	id=$(sub root "" 0); echo "id=$id"; w 120 job "$id" "$done_re" >/dev/null
	cat '"$S"'/jobs/j$id.out; w 1 node . | grep -o "State=[^ ]*\|ActiveFeatures=[^ ]*"' 2>&1) || true
id=$(sed -n 's/^id=//p' <<<"$out")
grep -i 'AllowUserBoot' <<<"$out" | sed 's/^/# /' || true
tap "$([[ $out == *"c: sbatch: error: "*"Invalid feature specification"* && $out == *"rc=1"* ]] && echo 1 || echo 0)" \
	"(c) --constraint='balance&cascade': refused at submission (MutuallyExclusive)" "$out"
tap "$([[ $out == *"noboot: sbatch: error: "*"Invalid feature specification"* && $out == *"rc_noboot=1"* &&
	$out == *$'\n'"noboot_jobs: "$'\n'* && $(switches) == 0 ]] && echo 1 || echo 0)" \
	"(g) Slurm $svn: pt-noboot (not in AllowUserBoot), --constraint=cascade on balance: refused at submission (Invalid feature specification), no job recorded, no switch" \
	"$out"
tap "$([[ $out == *"start "*" layout balance"* && $out == *"end "* && $(switches) == 0 &&
	$out == *"ActiveFeatures=balance"* ]] && echo 1 || echo 0)" \
	"(d) job $id without a constraint ran on balance, no switch, ActiveFeatures=balance ($(since "$t0") s)" \
	"$out"

# (a) cascade: an online switch, the job runs on cascade
t0=$(now)
out=$(T=300 grun bash -c "$pre"'id=$(sub pt-boot cascade 0); echo "id=$id"; w 280 job "$id" "$done_re"
	cat '"$S"'/jobs/j$id.out; w 1 node . ; cat /run/pcitopo/slurm-reboot.log' 2>&1) || true
ta=$(since "$t0")
id=$(sed -n 's/^id=//p' <<<"$out")
echo "# (a) job $id:"; grep -E '^(start|end) |slurm-reboot' <<<"$out" | sed 's/^/#   /'
tap "$([[ $out == *"JobState=COMPLETED"* && $out == *$'\n'"start "*" layout cascade"* &&
	$out == *$'\n'"end "*" layout cascade"* ]] && echo 1 || echo 0)" \
	"(a) --constraint=cascade from pt-boot (AllowUserBoot) on balance: the job ran, the module reported cascade ($ta s)" "$out"
tap "$([[ $out == *"ActiveFeatures=cascade"* && $out == *" State=IDLE "* && $out != *DRAIN* &&
	$(switches) == 1 && $out == *"switch to cascade done"* ]] && echo 1 || echo 0)" \
	"(a) one online switch by the RebootProgram; scontrol: ActiveFeatures=cascade, idle, not drained" \
	"$out"
eq "$(grun cat /sys/kernel/pcitopo/layout 2>&1)" cascade "(a) the module sees cascade"
# Documentation/slurm.md's table: 23.02+ passes the features (the
# RebootProgram logs them), 22.05 nothing (the target is the helper's record)
if ((feat)); then
	tap "$([[ $out == *"reboot request with features 'cascade'"* ]] && echo 1 || echo 0)" \
		"(a) Slurm $svn: the RebootProgram was given the job's features, 'cascade'" "$out"
else
	tap "$([[ $out != *"reboot request with features"* && $out == *"reboot request for layout cascade"* ]] && echo 1 || echo 0)" \
		"(a) Slurm $svn: the RebootProgram was given no features; the target came from the helper's record" "$out"
fi

# (g) a user not in AllowUserBoot still gets a node that is in the layout
# asked: it runs there, and the COMPLETED job proves it never asked for a
# switch (one would have come before its start)
t0=$(now)
out=$(grun bash -c "$pre"'id=$(sub pt-noboot cascade 0); echo "id=$id"; w 120 job "$id" "$done_re"
	cat '"$S"'/jobs/j$id.out' 2>&1) || true
tap "$([[ $out == *"JobState=COMPLETED"* && $out == *$'\n'"start "*" layout cascade"* &&
	$(switches) == 1 ]] && echo 1 || echo 0)" \
	"(g) pt-noboot's cascade job on the node already in cascade ran, no switch ($(since "$t0") s)" "$out"

# (f) two jobs, two layouts: one after the other, never a switch under a job
t0=$(now)
out=$(T=300 grun bash -c "$pre"'j1=$(sub pt-boot cascade 2) && j2=$(sub pt-boot balance 2) || exit 1
	echo "ids $j1 $j2"
	for j in $j1 $j2; do w 280 job "$j" "$done_re" | grep -o "JobId=[^ ]*\|JobState=[^ ]*"; done
	for j in $j1 $j2; do echo "job $j $(tr "\n" " " <'"$S"'/jobs/j$j.out)"; done' 2>&1) || true
read -r j1 j2 <<<"$(sed -n 's/^ids //p' <<<"$out")"
tf=$(since "$t0")
echo "# (f) jobs $j1 (cascade) $j2 (balance):"; sed 's/^/#   /' <<<"$out"
tap "$([[ $(grep -c JobState=COMPLETED <<<"$out") == 2 &&
	$out == *"job $j1 start "*" layout cascade "*"end "*" layout cascade"* &&
	$out == *"job $j2 start "*" layout balance "*"end "*" layout balance"* ]] && echo 1 || echo 0)" \
	"(f) jobs $j1 (cascade) and $j2 (balance) both ran, each on its layout ($tf s)" "$out"
# topod's switches as [start, end] on its clock (the guest's uptime): from
# "LAYOUT preflight: started" to "switch to LAYOUT: done|failed"
spans=$(awk '
	match($0, /^topod\[[0-9.]+\]/) { t = substr($0, 7, RLENGTH - 7) }
	/preflight: started/ { s = t }
	/switch to [a-z]+: / && s != "" { print s, t; s = "" }' "$dir/out/topod.log")
runs=$(sed -n 's/^job [0-9]* start \([0-9.]*\) .* end \([0-9.]*\) .*/\1 \2/p' <<<"$out")
bad=$(awk 'NR == FNR { s[NR] = $1; e[NR] = $2; ns = NR; next }
	{ for (i = 1; i <= ns; i++) if (s[i] < $2 && e[i] > $1)
		print "switch " s[i] "-" e[i] " overlaps job " $1 "-" $2 }' \
	<(echo "$spans") <(echo "$runs"))
tap "$([[ $(wc -l <<<"$spans") == 2 && $(wc -l <<<"$runs") == 2 && -z $bad ]] && echo 1 || echo 0)" \
	"(f) topod's log: 2 switches in all, none of them overlaps a job's run (uptime clock)" \
	"switches: $spans
jobs: $runs
$bad"

# (h) a switch outside Slurm (an administrator's topoctl set): slurmd
# learns it at its reload, the SIGHUP that `systemctl reload slurmd` sends
# (Debian's slurmd.service: ExecReload=/bin/kill -HUP $MAINPID), which
# pcitopo-slurm-reconfig.service runs at topod's commit (through its path
# unit: (k) and tests/pkg/t-pkg.sh), after telling slurmctld the layout
# (`slurm-feature-helper --sync`: 23.02+ drains a node whose reload reports
# another layout than slurmctld holds active; 24.11.5 did, INVALID_REG);
# here slurmd is a plain process, so the test runs both steps. Until then slurmctld keeps the old features: slurmd
# runs the helper only at its start and reload. Not a reboot: the same
# BootTime (to the second), no RebootProgram.
t0=$(now)
out=$(T=200 grun bash -c "$pre"'reboots() { cat /run/pcitopo/slurm-reboot.log 2>/dev/null | wc -l; }
	r0=$(reboots)
	echo "before $(w 1 node . | grep -o "ActiveFeatures=[^ ]*\|BootTime=[^ ]*" | tr "\n" " ")"
	timeout 120 "$PCITOPO_TOPOCTL" set common >/tmp/h-set.log 2>&1; echo "set=$? $(cat /sys/kernel/pcitopo/layout)"; tail -n 3 /tmp/h-set.log
	echo "unreloaded $(w 1 node . | grep -o "ActiveFeatures=[^ ]*")"
	PCITOPO_SLURM_NODE=node1 "$PCITOPO_ROOT/slurm/slurm-feature-helper" --sync
	kill -HUP "$(cat '"$S"'/slurmd.pid)"
	echo "after $(w 60 node "ActiveFeatures=common" | grep -o "ActiveFeatures=[^ ]*\|BootTime=[^ ]*\|State=[^ ]*" | tr "\n" " ")"
	echo "reboots=$(($(reboots) - r0))"' 2>&1) || true
echo "# (h):"; sed 's/^/#   /' <<<"$out"
# slurmd reports BootTime as the time now less the uptime at each
# registration: it moves by a second either way between two; a reboot
# would move it by the whole boot
boot_s() { sed -n "s/^$1 .*BootTime=\([^ ]*\).*/\1/p" <<<"$out" | xargs -r -I{} date -d {} +%s; }
b0=$(boot_s before) b1=$(boot_s after)
tap "$([[ $out == *"set=0 common"* && $out == *"unreloaded ActiveFeatures=balance"* &&
	$out == *"after ActiveFeatures=common"* ]] && echo 1 || echo 0)" \
	"(h) topoctl set common outside Slurm: ActiveFeatures stays balance until the reload service's steps (helper --sync, SIGHUP), then common ($(since "$t0") s)" "$out"
tap "$([[ -n $b0 && -n $b1 ]] && ((b1 - b0 <= 1 && b0 - b1 <= 1)) &&
	[[ $out == *"State=IDLE "* && $out == *"reboots=0"* ]] && echo 1 || echo 0)" \
	"(h) the reload is not a reboot: BootTime within a second of the one before, node idle (not drained: 23.02+'s check of the reported features), no RebootProgram run" "$out"

# (i) scontrol reboot, no layout asked: a reboot, not a switch, and not a
# node left rebooting until ResumeTimeout
t0=$(now)
s0=$(switches)
out=$(T=200 grun bash -c "$pre"'r0=$(cat /run/pcitopo/slurm-reboot.log | wc -l)
	echo "before $(w 1 node . | grep -o "ActiveFeatures=[^ ]*\|BootTime=[^ ]*" | tr "\n" " ")"
	sleep 1.1	# BootTime has a resolution of a second
	scontrol reboot node1; echo "reboot=$?"
	for _ in $(seq 240); do
		tail -n +$((r0 + 1)) /run/pcitopo/slurm-reboot.log | grep -q "rebooting the node" && break
		sleep 0.5
	done
	echo "after $(w 150 node "State=IDLE " | grep -o "State=[^ ]*\|ActiveFeatures=[^ ]*\|BootTime=[^ ]*" | tr "\n" " ")"
	echo "layout=$(cat /sys/kernel/pcitopo/layout)"
	tail -n +$((r0 + 1)) /run/pcitopo/slurm-reboot.log' 2>&1) || true
ti=$(since "$t0")
echo "# (i):"; sed 's/^/#   /' <<<"$out"
b0=$(boot_s before) b1=$(boot_s after)
tap "$([[ $out == *"reboot=0"* && $out == *"no layout target (a plain scontrol reboot): rebooting the node"* &&
	$out == *"after ActiveFeatures=common "*"State=IDLE "* && $out == *"layout=common"* && $(switches) == "$s0" ]] &&
	echo 1 || echo 0)" \
	"(i) scontrol reboot of idle node1, no layout asked: the RebootProgram rebooted it, no switch; back idle in common, ActiveFeatures=common ($ti s)" "$out"
tap "$([[ -n $b0 && -n $b1 ]] && ((b1 > b0)) && echo 1 || echo 0)" \
	"(i) slurmctld took it as a boot: BootTime later than before ($b0 -> $b1)" "$out"

# (e) a BMC failure: the job never runs on the wrong layout
t0=$(now)
out=$("$srv" console "$dir" 'pcitopo_fail_next 7' 2>&1) || true
echo "# console: $out"
# 23.02+: drained by the RebootProgram before slurmd's registration: wait
# for the registration too (no longer POWERING_UP or NOT_RESPONDING), so
# that a drain Slurm adds there (INVALID_REG) is seen
drained='State=[A-Z+]*DRAIN'
((feat)) && drained='State=[A-Z]+\+DRAIN(\+INVALID_REG)? '
out=$(T=300 grun bash -c "$pre"'id=$(sub pt-boot cascade 0); echo "id=$id"
	w 280 node "'"$drained"'"
	w 60 job "$id" "Reason=launch_failed_requeued_held|Restarts=[1-9]|JobState=(COMPLETED|FAILED)"
	echo "output: $(cat '"$S"'/jobs/j$id.out 2>&1)"; echo "layout: $(cat /sys/kernel/pcitopo/layout)"
	tail -3 /run/pcitopo/slurm-reboot.log' 2>&1) || true
id=$(sed -n 's/^id=//p' <<<"$out")
te=$(since "$t0")
echo "# (e) job $id:"; grep -E 'Reason=|layout:|slurm-reboot' <<<"$out" | sed 's/^/#   /'
# Documentation/slurm.md's table: 22.05 launches the job and the Prolog
# drains the node naming it, the job requeued held; 23.02+ checks the
# layout slurmd reports at its registration, so the RebootProgram drains
# the node and tells slurmctld its layout before slurmd comes back (else
# INVALID_REG, Slurm's words only, slurmctld keeping cascade): the reason
# is pcitopo's, the node's active feature the layout it is in, and the
# job requeued (whether it is launched first, the Prolog refusing it, is
# Slurm's choice)
if ((feat)); then
	tap "$([[ $out == *"State="*"DRAIN"* && $out != *INVALID_REG* && $out == *"ActiveFeatures=common "* &&
		$out =~ Reason=pcitopo:\ [^[]*switch\ to\ cascade\ failed[^[]*node\ is\ in\ common ]] && echo 1 || echo 0)" \
		"(e) Slurm $svn: BMC failure: node1 drained by pcitopo, the reason names the switch's failure and the layout it stays in; ActiveFeatures=common, no INVALID_REG ($te s)" "$out"
	tap "$([[ $out == *"JobState=PENDING"*"Restarts=1"* && $out != *"output: start"* ]] && echo 1 || echo 0)" \
		"(e) Slurm $svn: job $id requeued, never started" "$out"
else
	tap "$([[ $out == *"State="*"DRAIN"* && $out == *"Reason=pcitopo: job $id wants cascade, node is in common: switch to cascade failed"* ]] &&
		echo 1 || echo 0)" \
		"(e) BMC failure: node1 drained, the reason names both layouts and the switch's failure ($te s)" "$out"
	tap "$([[ $out == *"JobState=PENDING"*"Reason=launch_failed_requeued_held"* && $out != *"output: start"* ]] &&
		echo 1 || echo 0)" \
		"(e) job $id requeued (held), never started" "$out"
fi
tap "$([[ $out == *"layout: common"* ]] && echo 1 || echo 0)" "(e) the node stayed in common (where (h) left it)" "$out"
# 24.05+ DOWNs a node whose feature set fails; the helper's set exits 0
# (the dry run passed: the BMC fails later), so the node is drained by
# pcitopo's Prolog, never DOWN with Slurm's reason
tap "$([[ $out != *"Failed to set node feature"* && $out != *"State=DOWN"* ]] && echo 1 || echo 0)" \
	"(e) Slurm $svn: not DOWN, no \"Failed to set node feature(s)\": the feature set succeeded, pcitopo drained the node" "$out"

# (k) slurmd under systemd: the release's slurmd.service with what
# pcitopo-slurm installs (the drop-in in the unit directory's
# slurmd.service.d/, the reload path and service, the path enabled as the
# package's postinst does: WantedBy=slurmd.service), slurm.conf where the
# unit's slurmd reads it (/etc/slurm, links to the test's files), and
# /etc/default/slurmd's SLURMD_OPTIONS="-N node1", which the -b start
# must keep. Not on the host's root (busybox init there).
if ((!host)); then
	t0=$(now)
	out=$(T=300 grun bash -c "$pre"'scancel '"$id"'; scontrol update nodename=node1 state=resume
	pid=$(cat '"$S"'/slurmd.pid); kill -TERM "$pid"
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	mkdir -p /etc/slurm
	for f in slurm.conf helpers.conf cgroup.conf; do ln -sfn '"$S"'/$f /etc/slurm/$f; done
	echo "SLURMD_OPTIONS=\"-N node1\"" >/etc/default/slurmd
	u=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /usr/lib/systemd/system)
	install -D -m 644 systemd/slurmd-pcitopo.conf "$u/slurmd.service.d/pcitopo.conf"
	install -m 644 systemd/pcitopo-slurm-reconfig.path systemd/pcitopo-slurm-reconfig.service "$u/"
	install -m 755 cli/topoctl /usr/bin/topoctl	# where the programs call it
	install -D -m 755 slurm/slurm-feature-helper /usr/libexec/pcitopo/slurm-feature-helper	# for the reload service (--sync)
	systemctl daemon-reload && systemctl enable --quiet pcitopo-slurm-reconfig.path
	systemctl start slurmd; echo "start=$?"
	m=$(systemctl show -P MainPID slurmd)
	echo "unit type=$(systemctl show -P Type slurmd) $(systemctl is-active slurmd) path=$(systemctl is-active pcitopo-slurm-reconfig.path)"
	echo "dropins=$(systemctl show -P DropInPaths slurmd)"
	echo "cmd1=$(tr "\0" " " </proc/$m/cmdline)"; echo "act1=$(systemctl show -P ActiveEnterTimestampMonotonic slurmd)"
	echo "up $(w 120 node "State=IDLE " | grep -o "State=[^ ]*\|ActiveFeatures=[^ ]*\|BootTime=[^ ]*" | tr "\n" " ")"
	timeout 120 topoctl set balance >/tmp/k-set.log 2>&1; echo "set=$? $(cat /sys/kernel/pcitopo/layout)"
	echo "reloaded $(w 60 node "ActiveFeatures=balance" | grep -o "ActiveFeatures=[^ ]*\|BootTime=[^ ]*" | tr "\n" " ")"
	echo "reconfig ran=$(systemctl show -P ExecMainStartTimestampMonotonic pcitopo-slurm-reconfig.service) result=$(systemctl show -P Result pcitopo-slurm-reconfig.service) act=$(systemctl show -P ActiveEnterTimestampMonotonic slurmd)"
	r0=$(wc -l </run/pcitopo/slurm-reboot.log)
	sleep 1.1	# BootTime has a resolution of a second
	id=$(sub pt-boot cascade 0); echo "id=$id"
	w 280 job "$id" "$done_re" | grep -o "JobState=[^ ]*"
	cat '"$S"'/jobs/j$id.out
	m2=$(systemctl show -P MainPID slurmd)
	echo "cmd2=$(tr "\0" " " </proc/$m2/cmdline)"
	echo "opts2=$(tr "\0" "\n" </proc/$m2/environ | grep "^SLURMD_OPTIONS=")"
	[[ -e /run/pcitopo/slurmd-boot.env ]] && echo "envfile=left" || echo "envfile=removed"
	echo "after $(w 60 node "State=IDLE " | grep -o "State=[^ ]*\|ActiveFeatures=[^ ]*\|BootTime=[^ ]*" | tr "\n" " ")"
	tail -n +$((r0 + 1)) /run/pcitopo/slurm-reboot.log
	systemctl stop slurmd; echo "stop=$? $(systemctl is-active slurmd) left=$(pgrep -xc slurmd)"' 2>&1) || true
	tk=$(since "$t0")
	echo "# (k):"; sed 's/^/#   /' <<<"$out"
	m1=$(sed -n 's/^cmd1=//p' <<<"$out")
	tap "$([[ $out == *"start=0"* && $out == *"unit type=notify active path=active"* &&
		$out == *"slurmd.service.d/pcitopo.conf"* && $m1 == *"--systemd -N node1"* && $m1 != *" -b"* &&
		$(sed -n 's/^up //p' <<<"$out") == *"State=IDLE "* ]] && echo 1 || echo 0)" \
		"(k) Slurm $svn: systemctl start slurmd: Type=notify, active, \`$m1\` (the unit's --systemd, /etc/default/slurmd's options), pcitopo's drop-in read, the reload path unit active, node1 idle" "$out"
	b0=$(boot_s up) b1=$(boot_s reloaded) b2=$(boot_s after)
	# a reload, not a restart: the unit's start time unchanged (24.11 re-execs
	# slurmd at a reconfigure, a new MainPID: _try_to_reconfig in slurmd.c)
	p1=$(sed -n 's/^act1=//p' <<<"$out") p2=$(sed -n 's/^reconfig .* act=//p' <<<"$out")
	tap "$([[ $out == *"set=0 balance"* && $out == *"reloaded ActiveFeatures=balance"* &&
		$out =~ reconfig\ ran=[1-9][0-9]*\ result=success && $p1 =~ ^[1-9][0-9]*$ && $p1 == "$p2" && -n $b0 && -n $b1 ]] &&
		((b1 - b0 <= 1 && b0 - b1 <= 1)) && echo 1 || echo 0)" \
		"(k) topoctl set balance: the commit started pcitopo-slurm-reconfig.service through the path unit, slurmd reloaded (slurmd.service not restarted): ActiveFeatures=balance, BootTime unchanged" "$out"
	m2=$(sed -n 's/^cmd2=//p' <<<"$out")
	tap "$([[ $out == *"JobState=COMPLETED"* && $out == *$'\n'"start "*" layout cascade"* &&
		$out == *"restarting slurmd with -b"* && $m2 == *"--systemd -N node1 -b"* &&
		$out == *"opts2=SLURMD_OPTIONS=-N node1 -b"* && $out == *"envfile=removed"* &&
		$out == *"after ActiveFeatures=cascade "*"State=IDLE "* && -n $b2 ]] && ((b2 > b1)) && echo 1 || echo 0)" \
		"(k) a cascade job: the RebootProgram switched online and restarted slurmd.service through slurmd-boot.env: \`$m2\`, the file removed after the start; the job ran on cascade, ActiveFeatures=cascade, BootTime later ($b1 -> $b2)" "$out"
	tap "$([[ $out == *"stop=0 inactive left=0"* ]] && echo 1 || echo 0)" \
		"(k) systemctl stop slurmd: inactive, no slurmd left ($tk s)" "$out"
fi

# PCITOPO_RESULTS=DIR keeps the logs (Slurm's, topod's, the guest's console)
if [[ -n ${PCITOPO_RESULTS:-} ]]; then
	mkdir -p "$PCITOPO_RESULTS"
	cp -r "$dir/out/slurm-log" "$dir/out/topod.log" "$dir/console.log" \
		"$PCITOPO_RESULTS/" 2>/dev/null || true
fi
"$srv" stop "$dir" >/dev/null 2>&1 || true
dir=
echo "# t-slurm: $(since "$T0") s in all"
echo "1..$n"
((failed == 0))
