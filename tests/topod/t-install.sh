#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install` (host): into a DESTDIR, with PREFIX=/usr, every file lands
# where systemd, D-Bus, polkit, udev, man and bash-completion
# look for it, with its mode, and is the built/shipped file; the installed
# units pass `systemd-analyze verify --root` (their ExecStart= found in the
# DESTDIR, their dependencies in a copy of the host's units); the metrics
# timer is installed, not enabled, and its service writes where it looks for
# node_exporter's textfile directory; D-Bus
# activation, bus name and unit alias agree; PREFIX=/usr/local rewrites the
# units' paths; INSTALL_MOD=1 installs pcitopo.ko, without it nothing goes
# to /lib/modules. TAP on stdout.
set -uo pipefail
top=$(dirname "$(dirname "$(dirname "$(readlink -f "$0")")")")
cd "$top" || exit 1
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"
for f in cli/topoctl daemon/topod/topod; do
	[[ -x $f ]] || { echo "not ok 1 - t-install: $f not built (run make)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the staged root: a copy of the host's unit directory (the targets and
# dbus.socket the units depend on), then pcitopo on top
D=$tmp/root
mkdir -p "$D/lib/systemd"
[[ -d /lib/systemd/system ]] && cp -a /lib/systemd/system "$D/lib/systemd/"
out=$(make -s install DESTDIR="$D" PREFIX=/usr 2>&1)
ok $? "make install DESTDIR=... PREFIX=/usr" "$out"

# file  mode  source (the installed file must equal it; - for none)
files=$(cat <<'EOL'
usr/bin/topoctl 755 cli/topoctl
usr/sbin/topod 755 daemon/topod/topod
usr/libexec/pcitopo/pcitopo-boot 755 systemd/pcitopo-boot
usr/share/man/man8/topoctl.8 644 cli/topoctl.8
usr/share/man/man8/topod.8 644 daemon/topod/topod.8
usr/share/man/man5/topod.conf.5 644 daemon/topod/topod.conf.5
usr/share/man/man5/pcitopo-platform.5 644 daemon/platform/pcitopo-platform.5
usr/share/bash-completion/completions/topoctl 644 cli/topoctl.bash-completion
usr/share/pcitopo/platforms/emulated-switchfw.conf 644 platforms/emulated-switchfw.conf
usr/share/pcitopo/platforms/emulated-mux.conf 644 platforms/emulated-mux.conf
usr/share/pcitopo/platforms/emulated-redfish.conf 644 platforms/emulated-redfish.conf
usr/share/pcitopo/platforms/emulated-redfish-zones.conf 644 platforms/emulated-redfish-zones.conf
usr/share/pcitopo/platforms/template.conf 644 platforms/template.conf
lib/systemd/system/topod.service 644 systemd/topod.service
lib/systemd/system/pcitopo-boot.service 644 systemd/pcitopo-boot.service
lib/systemd/system/pcitopo-metrics.service 644 systemd/pcitopo-metrics.service
lib/systemd/system/pcitopo-metrics.timer 644 systemd/pcitopo-metrics.timer
usr/share/dbus-1/system.d/org.pcitopo.Topod.conf 644 dbus/org.pcitopo.Topod.conf
usr/share/dbus-1/system-services/org.pcitopo.Topod.service 644 dbus/org.pcitopo.Topod.service
usr/share/polkit-1/actions/org.pcitopo.policy 644 dbus/org.pcitopo.policy
usr/share/polkit-1/rules.d/pcitopo.rules 644 dbus/pcitopo.rules
usr/lib/sysusers.d/pcitopo.conf 644 systemd/pcitopo.sysusers
lib/udev/rules.d/90-pcitopo.rules 644 udev/90-pcitopo.rules
usr/libexec/pcitopo/slurm-feature-helper 755 slurm/slurm-feature-helper
usr/libexec/pcitopo/slurm-reboot-program 755 slurm/slurm-reboot-program
usr/libexec/pcitopo/slurm-prolog 755 slurm/slurm-prolog
lib/systemd/system/slurmd.service.d/pcitopo.conf 644 systemd/slurmd-pcitopo.conf
lib/systemd/system/pcitopo-slurm-reconfig.path 644 systemd/pcitopo-slurm-reconfig.path
lib/systemd/system/pcitopo-slurm-reconfig.service 644 systemd/pcitopo-slurm-reconfig.service
EOL
)
while read -r f mode src; do
	st=1 why=
	if [[ ! -f $D/$f ]]; then
		why="missing"
	elif [[ $(stat -c %a "$D/$f") != "$mode" ]]; then
		why="mode $(stat -c %a "$D/$f"), want $mode"
	elif [[ $src != - ]] && ! cmp -s "$src" "$D/$f"; then
		why="differs from $src"
	else
		st=0
	fi
	ok "$st" "installed /$f ($mode)" "$why"
done <<<"$files"
# (the host's units copied in before are not pcitopo's)
out=$(find "$D" -path "$D/lib/systemd/system" -prune -o -type f -print | sed "s|^$D/||" | sort)
want=$(awk '$1 !~ /^lib\/systemd\/system\// {print $1}' <<<"$files" | sort)
ok "$([[ $out == "$want" ]] && echo 0 || echo 1)" \
	"nothing else installed (no module without INSTALL_MOD=1)" "$(diff <(echo "$want") <(echo "$out"))"

if command -v systemd-analyze >/dev/null; then
	out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no --root="$D" \
		topod.service pcitopo-boot.service 2>&1)
	ok "$([[ -z $out ]] && echo 0 || echo 1)" \
		"systemd-analyze verify --root=DESTDIR topod.service pcitopo-boot.service" "$out"
	mv "$D/usr/sbin/topod" "$D/usr/sbin/topod.away"
	out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no --root="$D" topod.service 2>&1)
	ok "$([[ $out == *"/usr/sbin/topod is not executable"* ]] && echo 0 || echo 1)" \
		"and it does look for ExecStart= in DESTDIR (topod moved away: refused)" "$out"
	mv "$D/usr/sbin/topod.away" "$D/usr/sbin/topod"
	out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no --root="$D" \
		pcitopo-metrics.service pcitopo-metrics.timer 2>&1)
	ok "$([[ -z $out ]] && echo 0 || echo 1)" \
		"systemd-analyze verify --root=DESTDIR pcitopo-metrics.service pcitopo-metrics.timer" "$out"
	mv "$D/usr/bin/topoctl" "$D/usr/bin/topoctl.away"
	out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no --root="$D" \
		pcitopo-metrics.service 2>&1)
	ok "$([[ $out == *"/usr/bin/topoctl is not executable"* ]] && echo 0 || echo 1)" \
		"and pcitopo-metrics.service's ExecStart= is looked for there too (topoctl moved away: refused)" "$out"
	mv "$D/usr/bin/topoctl.away" "$D/usr/bin/topoctl"
fi

# the metrics: the service writes the file into the directory its condition
# and ReadWritePaths= name, with the installed topoctl; the timer runs every
# 30 s and is left for the operator to enable
unit=$D/lib/systemd/system/pcitopo-metrics.service
timer=$D/lib/systemd/system/pcitopo-metrics.timer
exe=$(sed -n 's/^ExecStart=//p' "$unit")
dir=$(sed -n 's/^ConditionPathIsDirectory=//p' "$unit")
ok "$([[ $exe == "/usr/bin/topoctl export --format prometheus --output $dir/pcitopo.prom" &&
	$dir == /var/lib/prometheus/node-exporter &&
	$(sed -n 's/^ReadWritePaths=//p' "$unit") == "$dir" &&
	$(sed -n 's/^Type=//p' "$unit") == oneshot && -x $D${exe%% *} ]] && echo 0 || echo 1)" \
	"pcitopo-metrics.service: oneshot, installed topoctl, writes into its condition's directory" "$exe"
ok "$([[ $(sed -n 's/^OnUnitActiveSec=//p' "$timer") == 30s &&
	$(sed -n 's/^WantedBy=//p' "$timer") == timers.target ]] && echo 0 || echo 1)" \
	"pcitopo-metrics.timer: every 30 s, WantedBy=timers.target"
out=$(find "$D" -name 'pcitopo-metrics.*' ! -path "$D/lib/systemd/system/*" 2>&1)
ok "$([[ -z $out ]] && echo 0 || echo 1)" "make install enables no metrics timer (no .wants link)" "$out"
# what the service runs, run as it would be (on a saved tree: no module
# needed): a valid file appears in the directory, nothing on stdout
if [[ -f cli/tests/snapshots/cascade.tar.gz ]]; then
	mkdir -p "$tmp/snap" "$tmp/textfile"
	tar xzf cli/tests/snapshots/cascade.tar.gz -C "$tmp/snap"
	args=${exe#* }
	# the unit's words, split as systemd splits them, into a scratch directory
	# shellcheck disable=SC2086
	# (its stand-in GPUs are GPUs by extra ID: tests/vm/guest/standin-ids)
	out=$(TOPOCTL_SYSFS=$tmp/snap TOPOCTL_EXTRA_IDS=$PWD/tests/vm/guest/standin-ids \
		"$D/usr/bin/topoctl" --source sysfs \
		${args//"$dir"/"$tmp/textfile"} 2>&1)
	ok "$([[ $? == 0 && -z $out && $(stat -c %a "$tmp/textfile/pcitopo.prom" 2>&1) == 644 ]] &&
		grep -qx 'pcitopo_layout{layout="cascade"} 1' "$tmp/textfile/pcitopo.prom" &&
		echo 0 || echo 1)" \
		"the service's command line writes the metrics file (0644, layout cascade)" "$out"
fi

# the pieces name each other: bus name, activation file, unit alias
act=$D/usr/share/dbus-1/system-services/org.pcitopo.Topod.service
unit=$D/lib/systemd/system/topod.service
name=$(sed -n 's/^Name=//p' "$act") svc=$(sed -n 's/^SystemdService=//p' "$act")
ok "$([[ $name == "$(sed -n 's/^BusName=//p' "$unit")" && $name == org.pcitopo.Topod &&
	$svc == "$(sed -n 's/^Alias=//p' "$unit")" ]] && echo 0 || echo 1)" \
	"D-Bus activation: Name = topod.service's BusName, SystemdService = its Alias" "$name $svc"
out=$(xmllint --noout "$D/usr/share/dbus-1/system.d/org.pcitopo.Topod.conf" \
	"$D/usr/share/polkit-1/actions/org.pcitopo.policy" 2>&1)
ok $? "bus policy and polkit action are well-formed XML" "$out"
ok "$(grep -q 'id="org.pcitopo.set-layout"' "$D/usr/share/polkit-1/actions/org.pcitopo.policy"; echo $?)" \
	"polkit action org.pcitopo.set-layout installed"
ok "$(grep -q "own=\"$name\"" "$D/usr/share/dbus-1/system.d/org.pcitopo.Topod.conf"; echo $?)" \
	"the bus policy lets the unit's BusName be owned"
ok "$(grep -q '"org.pcitopo.set-layout"' "$D/usr/share/polkit-1/rules.d/pcitopo.rules" &&
	grep -q 'isInGroup("pcitopo")' "$D/usr/share/polkit-1/rules.d/pcitopo.rules"; echo $?)" \
	"polkit rule names the action and the group pcitopo"
if command -v systemd-sysusers >/dev/null; then
	out=$(systemd-sysusers --dry-run --root="$D" 2>&1)
	ok "$([[ $out == *"Creating group 'pcitopo'"* ]] && echo 0 || echo 1)" \
		"sysusers.d/pcitopo.conf creates the group pcitopo (systemd-sysusers --dry-run --root)" "$out"
fi
lb=$(sed -n 's/^ExecStart=//p' "$D/lib/systemd/system/pcitopo-boot.service")
ok "$([[ -x $D$lb ]] && echo 0 || echo 1)" "pcitopo-boot.service's ExecStart= ($lb) installed, executable"
# the module at boot: systemd's modprobe@.service for pcitopo (modprobe
# -abq: quiet where the running kernel has no pcitopo.ko), wanted by
# sysinit.target through a drop-in; no modules-load.d file (it logged an
# error at every boot of such a kernel)
want=pcitopo
[[ -f kmod/pcitopo.ko ]] && want=$(modinfo -F name kmod/pcitopo.ko 2>/dev/null || echo pcitopo)
w=$D/lib/systemd/system/sysinit.target.d/pcitopo.conf
ok "$(grep -qx "Wants=modprobe@$want.service" "$w" && cmp -s "$w" systemd/sysinit-pcitopo.conf &&
	[[ $(stat -c %a "$w") == 644 && ! -e $D/usr/lib/modules-load.d/pcitopo.conf ]] && echo 0 || echo 1)" \
	"sysinit.target.d/pcitopo.conf (644): Wants=modprobe@$want.service; no modules-load.d file" \
	"$(cat "$w" 2>&1; ls "$D/usr/lib/modules-load.d" 2>&1)"
if [[ -f /lib/systemd/system/modprobe@.service ]]; then
	ok "$(grep -qxE 'ExecStart=-/s?bin/modprobe -abq %[iI]' /lib/systemd/system/modprobe@.service; echo $?)" \
		"systemd's modprobe@.service: ExecStart=-modprobe -abq (quiet, never failed)" \
		"$(grep ExecStart /lib/systemd/system/modprobe@.service)"
fi
if [[ -x tests/topod/check-rules ]]; then
	out=$(tests/topod/check-rules "$D/lib/udev/rules.d/90-pcitopo.rules" 2>&1)
	ok $? "the installed udev rules parse (tests/topod/check-rules)" "$out"
fi
for m in man8/topoctl.8 man8/topod.8 man5/topod.conf.5 man5/pcitopo-platform.5; do
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$D/usr/share/man/$m" 2>&1 >/dev/null)
	ok "$([[ -z $out ]] && echo 0 || echo 1)" "man page ${m#*/} renders without warnings" "$out"
done
# each page the units and the other pages point to is installed
for ref in $(grep -ho 'man:[a-z.-]*([58])' "$D/lib/systemd/system/"{topod,pcitopo-*}.* | sort -u); do
	f=${ref#man:}; sec=${f##*(}; sec=${sec%)}; f=${f%(*}
	ok "$([[ -f $D/usr/share/man/man$sec/$f.$sec ]] && echo 0 || echo 1)" \
		"the units' Documentation=$ref is installed"
done
# spaces squeezed: man justifies lines, and a new word elsewhere moves them
page=$(MANWIDTH=200 man -l "$D/usr/share/man/man8/topoctl.8" 2>/dev/null | tr -s ' ')
ok "$(grep -q 'topoctl set { balance | common | cascade } \[--force\] \[--power-cycle\] \[--no-wait\]' <<<"$page" &&
	grep -q 'topoctl set { balance | common | cascade } --dry-run \[--force\] \[--power-cycle\] \[-j\]' <<<"$page" &&
	grep -q 'topoctl status \[-j\]' <<<"$page"; echo $?)" "man page: set (and its dry run) and status documented"
ok "$(grep -q 'topoctl export \[--format {json | nccl | dot | prometheus}\] \[--output FILE\]' <<<"$page" &&
	grep -q 'pcitopo_link_width_down' <<<"$page" &&
	grep -q 'pcitopo-metrics.timer runs pcitopo-metrics.service every 30 s' <<<"$page"; echo $?)" \
	"man page: export prometheus, --output and the metrics timer documented"
out=$(bash -c '_init_completion() { :; }; . "$1" && complete -p topoctl' _ \
	"$D/usr/share/bash-completion/completions/topoctl" 2>&1)
ok "$([[ $out == "complete -F _topoctl topoctl" ]] && echo 0 || echo 1)" \
	"bash completion loads and completes topoctl" "$out"
# what `topoctl set cascade <TAB>` and `... --dry-run <TAB>` offer
out=$(bash -c '_init_completion() { words=("${W[@]}"); cword=$((${#W[@]} - 1)); cur=${W[cword]}; prev=${W[cword - 1]}; }
	. "$1"
	W=(topoctl set cascade ""); _topoctl; echo "${COMPREPLY[*]}"
	W=(topoctl set cascade --dry-run ""); _topoctl; echo "${COMPREPLY[*]}"' _ \
	"$D/usr/share/bash-completion/completions/topoctl" 2>&1)
ok "$([[ $out == $'--force --power-cycle --no-wait --dry-run\n--force --power-cycle -j' ]] && echo 0 || echo 1)" \
	"bash completion: set offers --dry-run, and -j after it (not --no-wait)" "$out"
# what `topoctl export --format <TAB>`, `... prometheus <TAB>` and
# `... --output <TAB>` offer (_filedir stubbed: files)
out=$(bash -c '_init_completion() { words=("${W[@]}"); cword=$((${#W[@]} - 1)); cur=${W[cword]}; prev=${W[cword - 1]}; }
	_filedir() { COMPREPLY=(FILES); }
	. "$1"
	W=(topoctl export --format ""); _topoctl; echo "${COMPREPLY[*]}"
	W=(topoctl export --format prometheus ""); _topoctl; echo "${COMPREPLY[*]}"
	W=(topoctl export --format prometheus --output ""); _topoctl; echo "${COMPREPLY[*]}"' _ \
	"$D/usr/share/bash-completion/completions/topoctl" 2>&1)
ok "$([[ $out == $'json nccl dot prometheus\n--format --output\nFILES' ]] && echo 0 || echo 1)" \
	"bash completion: export offers prometheus, --output, then files" "$out"

# PREFIX=/usr/local: binaries there, the units point at them
L=$tmp/local
out=$(make -s install DESTDIR="$L" PREFIX=/usr/local 2>&1)
ok $? "make install PREFIX=/usr/local" "$out"
ok "$([[ $(sed -n 's/^ExecStart=//p' "$L/lib/systemd/system/topod.service") == /usr/local/sbin/topod &&
	$(sed -n 's/^ExecStart=//p' "$L/lib/systemd/system/pcitopo-boot.service") == /usr/local/libexec/pcitopo/pcitopo-boot &&
	-x $L/usr/local/sbin/topod && -x $L/usr/local/libexec/pcitopo/pcitopo-boot &&
	-f $L/lib/systemd/system/sysinit.target.d/pcitopo.conf &&
	-f $L/usr/share/dbus-1/system.d/org.pcitopo.Topod.conf &&
	$(sed -n 's/^ExecStart=//p' "$L/lib/systemd/system/pcitopo-metrics.service") == \
	"/usr/local/bin/topoctl export --format prometheus --output /var/lib/prometheus/node-exporter/pcitopo.prom" &&
	-x $L/usr/local/bin/topoctl ]] && echo 0 || echo 1)" \
	"PREFIX=/usr/local: units' ExecStart= follow it; D-Bus files stay where dbus reads them"

# INSTALL_MOD=1: the module, through kbuild's modules_install
if [[ -f kmod/pcitopo.ko ]]; then
	M=$tmp/mod
	out=$(make -s install DESTDIR="$M" PREFIX=/usr INSTALL_MOD=1 2>&1)
	rc=$?
	ko=$(find "$M/lib/modules" -name pcitopo.ko 2>/dev/null | head -n 1)
	ok "$([[ $rc == 0 && -n $ko ]] && cmp -s "$ko" kmod/pcitopo.ko && echo 0 || echo 1)" \
		"INSTALL_MOD=1: ${ko#"$M"} is kmod/pcitopo.ko" "$out"
fi

echo "1..$n"
((failed == 0))
