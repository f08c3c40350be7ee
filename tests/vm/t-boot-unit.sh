#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pcitopo-boot.service for real: the emulated server (tests/vm/server,
# switch firmware) boots with systemd as init (--init systemd), pcitopo
# installed into its root by `make install` (tests/vm/guest/
# boot-unit-systemd.sh: units, D-Bus policy, the module's modprobe@ link, platforms),
# /etc/pcitopo/profile = cascade, a stand-in GPU service
# (nvidia-persistenced.service, which records the layout it starts in) and
# the BMC at balance. pcitopo-boot must bring the server to cascade before
# the GPU service starts: it asks topod for the switch with a power cycle,
# the BMC cycles QEMU, and in the next boot topod commits the switch from
# its journal, pcitopo-boot sees cascade and the GPU service starts after
# it, in cascade. Boot 1 is never in a GPU service's log. In the same boot,
# the Slurm units as pcitopo-slurm installs them (Documentation/slurm.md):
# Debian's slurmd.service with pcitopo's drop-in is ordered after topod and
# pcitopo-boot, its ExecStart Debian's own (the drop-in adds
# /run/pcitopo/slurmd-boot.env after Debian's environment file, for the
# one -b start, and replaces nothing); a site's own ExecStart override
# wins over both, the environment file still added;
# and pcitopo-slurm-reconfig.path is armed on topod's state (its firing is
# not checked: see the check). TAP on stdout, the boot times as #
# comments. The server is always stopped.
# shellcheck disable=SC2016 # single-quoted commands expand in the guest
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root"

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"

need_built kmod/pcitopo.ko daemon/topod/topod cli/topoctl
need_host /lib/systemd/systemd /usr/bin/dbus-daemon /usr/sbin/slurmd
need_cmds ipmi_sim qemu-system-x86_64

dir=$(mktemp -d /tmp/pcitopo-bootunit.XXXXXX)
server_test

t0=$(now)
line=$("$srv" start "$dir" --method switchfw --layout balance --timeout 300 \
	--init systemd --setup "$here/guest/boot-unit-systemd.sh" 2>&1) && ok=1 || ok=0
tap "$ok" "systemd init: server up, BMC at balance ($(since "$t0") s)" \
	"$line
$(tail -n 20 "$dir/out/setup.log" 2>/dev/null)"
if ((!ok)); then echo "1..$n"; exit 1; fi
echo "# $line"
eq "$(cat "$dir/out/setup.rc" 2>/dev/null)" 0 \
	"make install into the guest's root and the test units (before switch_root)"

# boot 1 (balance): pcitopo-boot asks for cascade with a power cycle
boot=$(cat "$dir/boot")
if ((boot < 2)); then
	line=$("$srv" wait-boot "$dir" --after 1 --timeout 300 2>&1) || true
else
	line=$(cat "$dir/out/ready")
fi
echo "# $line"
tap "$([[ $line == *"boot=2 "*"layout=cascade"* ]] && echo 1 || echo 0)" \
	"pcitopo-boot had the BMC power cycle the host once: boot 2 in cascade ($(since "$t0") s)" "$line"

# boot 2: what systemd saw, once its boot is done (the agent starts early)
props=ActiveState,Result,ExecMainStatus,ExecMainStartTimestampMonotonic,ExecMainExitTimestampMonotonic
g=$("$srv" run "$dir" --timeout 300 -- bash -c '
	echo "system=$(timeout 240 systemctl is-system-running --wait || true)"
	for u in pcitopo-boot topod nvidia-persistenced modprobe@pcitopo; do
		systemctl show -p '"$props"' "$u.service" | sed "s/^/$u./"
	done
	echo "init=$(cat /proc/1/comm)"
	echo "virt=$(systemd-detect-virt || true)"
	echo "failed=$(systemctl --failed --no-legend --plain | awk "{print \$1}" | tr "\n" " ")"
	echo "module=$(grep -c "^pcitopo " /proc/modules) $(cat /sys/kernel/pcitopo/layout) $(cat /sys/kernel/pcitopo/count_gpus)"
	echo "status=$(topoctl -j status)"
	journalctl -b -u pcitopo-boot.service -o cat --no-pager | sed "s/^/journal=/"
	systemctl show -p After -p Wants -p DropInPaths -p ExecStart -p ExecStartPost \
		-p EnvironmentFiles slurmd.service | sed "s/^/slurmd./"
	# a site that overrides ExecStart in a drop-in of its own
	sd=/etc/systemd/system/slurmd.service.d
	mkdir -p $sd
	printf "[Service]\nExecStart=\nExecStart=/usr/sbin/slurmd -D -s \$SLURMD_OPTIONS --site-test\n" >$sd/site.conf
	systemctl daemon-reload
	systemctl show -p DropInPaths -p ExecStart -p EnvironmentFiles slurmd.service | sed "s/^/site./"
	rm -f $sd/site.conf; systemctl daemon-reload
	# the reload: its path unit, armed (the trigger itself is not checked
	# here: /var/lib/pcitopo is a 9p bind mount, on which it never fired,
	# Documentation/slurm.md "Not tested")
	echo "pathunit=$(systemctl show -p ActiveState -p SubState -p ConditionResult \
		-p ActiveEnterTimestampMonotonic pcitopo-slurm-reconfig.path | tr "\n" " ")"
	journalctl -b -u topod.service -o short-monotonic --no-pager | grep -i commit | sed "s/^/commitlog=/"
' 2>&1) || true
get() { sed -n "s/^$1=//p" <<<"$g" | head -n 1; }

eq "$(get init) $(get virt)" "systemd qemu" "systemd is the guest's init (PID 1), in a VM"
eq "$(get system) [$(get failed)]" "running []" "the boot target reached, no unit failed" "$g"
eq "$(get modprobe@pcitopo.Result) $(get module)" "success 1 cascade 8" \
	"modprobe@pcitopo.service (sysinit.target) loaded pcitopo.ko; it sees cascade with 8 GPUs"
eq "$(get topod.ActiveState)" active "topod.service active (Type=dbus, the shipped unit)"
eq "$(jq -r '"\(.layout) \(.state) \(.committed_layout) \(.generation)"' <<<"$(get status)" 2>/dev/null)" \
	"cascade idle cascade 1" "topod committed the switch from its journal after the power cycle"
eq "$(get pcitopo-boot.ActiveState) $(get pcitopo-boot.Result) $(get pcitopo-boot.ExecMainStatus)" \
	"active success 0" "pcitopo-boot.service finished, exit 0"
tap "$(grep -qx 'journal=pcitopo-boot: layout cascade' <<<"$g" && echo 1 || echo 0)" \
	"pcitopo-boot found the profile's layout in boot 2" "$(grep '^journal=' <<<"$g")"
tap "$([[ ! -e $dir/out/topod-state/boot-attempt ]] && echo 1 || echo 0)" \
	"the boot attempt marker is cleared"
gpu=$(cat "$dir/out/gpu-service.log" 2>/dev/null || true)
echo "# gpu-service.log: ${gpu:-(none)}"
tap "$([[ $(wc -l <<<"$gpu") == 1 && $gpu == "boot=2 layout=cascade "* ]] && echo 1 || echo 0)" \
	"the GPU service started once, in boot 2, and saw cascade (never balance)" "$gpu"
b_end=$(get pcitopo-boot.ExecMainExitTimestampMonotonic)
g_start=$(get nvidia-persistenced.ExecMainStartTimestampMonotonic)
echo "# boot 2 (monotonic): pcitopo-boot exited at ${b_end:-?} us, the GPU service started at ${g_start:-?} us"
tap "$([[ $b_end =~ ^[0-9]+$ && $g_start =~ ^[0-9]+$ ]] && ((b_end > 0 && g_start >= b_end)) && echo 1 || echo 0)" \
	"the GPU service started after pcitopo-boot finished" "$g"

# the Slurm units (pcitopo-slurm's files, installed by make install)
sd_after=" $(get slurmd.After) " sd_wants=" $(get slurmd.Wants) "
tap "$([[ $sd_after == *" topod.service "* && $sd_after == *" pcitopo-boot.service "* &&
	$sd_wants == *" topod.service "* &&
	$(get slurmd.DropInPaths) == *"/systemd/system/slurmd.service.d/pcitopo.conf"* ]] && echo 1 || echo 0)" \
	"slurmd.service (Debian's) with the drop-in: After= topod.service, pcitopo-boot.service; Wants= topod.service" \
	"$(grep '^slurmd\.' <<<"$g")"
sd_exec=$(get slurmd.ExecStart)
sd_env=$(sed -n 's/^slurmd\.EnvironmentFiles=//p' <<<"$g" | tr '\n' '|')
tap "$([[ $(grep -o 'path=' <<<"$sd_exec" | wc -l) == 1 &&
	$sd_exec == *'argv[]=/usr/sbin/slurmd -D -s $SLURMD_OPTIONS ;'* &&
	$sd_env == "/etc/default/slurmd (ignore_errors=yes)|/run/pcitopo/slurmd-boot.env (ignore_errors=yes)|" &&
	$(get slurmd.ExecStartPost) == *'argv[]=/bin/rm -f /run/pcitopo/slurmd-boot.env ;'* ]] && echo 1 || echo 0)" \
	"the drop-in replaces nothing: Debian's one ExecStart (\$SLURMD_OPTIONS); /run/pcitopo/slurmd-boot.env after /etc/default/slurmd (its SLURMD_OPTIONS wins), optional, removed after the start" \
	"$(grep '^slurmd\.' <<<"$g")"
site_exec=$(get site.ExecStart)
site_env=$(sed -n 's/^site\.EnvironmentFiles=//p' <<<"$g" | tr '\n' '|')
tap "$([[ $(grep -o 'path=' <<<"$site_exec" | wc -l) == 1 &&
	$site_exec == *'argv[]=/usr/sbin/slurmd -D -s $SLURMD_OPTIONS --site-test ;'* &&
	$site_env == *"/run/pcitopo/slurmd-boot.env (ignore_errors=yes)|" &&
	$(get site.DropInPaths) == *"/etc/systemd/system/slurmd.service.d/site.conf"* ]] && echo 1 || echo 0)" \
	"a site's own ExecStart override (/etc/systemd/system/slurmd.service.d/site.conf) wins, pcitopo's environment file still added" \
	"$(grep '^site\.' <<<"$g")"
grep -E '^commitlog=' <<<"$g" | sed 's/^/# /' || true
pu=" $(get pathunit)"
tap "$([[ $pu == *" ActiveState=active "* && $pu == *" SubState=waiting "* &&
	$pu == *" ConditionResult=yes "* ]] && echo 1 || echo 0)" \
	"pcitopo-slurm-reconfig.path active, waiting on /var/lib/pcitopo/state (its condition, helpers.conf, met)" "$pu"
echo "# total: $(since "$t0") s"

echo "1..$n"
((failed == 0))
