#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topod in the emulated server (tests/vm/server): the real module, the real
# in-band BMC (/dev/ipmi0 in the guest, KCS to the simulated BMC), a system
# D-Bus in the guest with the shipped policy, topoctl as the user.
#   - MUX, online: topod --check against the guest's DMI (a match, another
#     vendor's platform file refused); from balance, `topoctl set cascade` by a user in the
#     group pcitopo (polkit, the shipped rule; nobody else is refused);
#     every phase; the module sees cascade with 8 GPUs; Status() agrees;
#     bochs-drm (the stand-ins' DRM driver) bound: GPU4's /dev/dri node
#     held open is refused and named; the NVIDIA driver's device node
#     of a moving GPU held open is named by the dry run (its /proc file
#     and node faked: no NVIDIA driver here); quiesce unbinds the moving
#     GPUs; topod killed at its 3rd hw_detach (--test-fault) with
#     bochs-drm bound: the next start rolls back and every GPU has its
#     driver again, no WARN in dmesg;
#     a GPU's config space held open: refused (DeviceBusy);
#   - switch firmware: `topoctl set cascade --power-cycle` from balance; the
#     BMC power cycles the host; in the new guest topod finishes the job
#     from its journal (/out/topod-state) and the module sees cascade.
# TAP on stdout; the phase times as # comments. The server is always stopped.
# shellcheck disable=SC2016 # single-quoted commands expand in the guest
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root"

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"

need_built kmod/pcitopo.ko daemon/topod/topod cli/topoctl
need_cmds ipmi_sim qemu-system-x86_64 dbus-daemon

server_test

# gpu N, for the guest: GPUN's address now, as topoctl names it (the
# library's one rule, from sysfs: present whether or not the module is);
# prefix a guest script with "$gpu_fn"
# shellcheck disable=SC2016 # expands in the guest
# (and the stand-in GPUs' extra IDs: pt_insmod, TOPOCTL_EXTRA_IDS)
gpu_fn='. "$PCITOPO_ROOT/tests/vm/guest/standins.sh"
gpu() { cli/topoctl --source sysfs dev list 2>/dev/null |
	awk -v n="GPU$1" '"'"'$2 == n { print $1 }'"'"'; }
'

up() {	# up PLATFORM: module, dbus, topod in the guest
	local out ok=1
	out=$(T=120 grun tests/vm/guest/topod-up.sh "$1" 2>&1) || ok=0
	tap "$ok" "guest: module, /dev/ipmi0, system bus, topod up ($1)" "$out"
	return $((1 - ok))
}
phases() { awk '/^  / && $2 == "done" {print $1}' <<<"$1" | tr '\n' ' '; }
# topod's node labels in the guest: layout, state, pending, checked as NFD
# would read them (tests/topod/nfdcheck.py)
nfd_labels='tests/topod/nfdcheck.py /etc/kubernetes/node-feature-discovery/features.d/pcitopo |
	grep -E "/(layout|pending|state)="'
nfd_cascade='pcitopo.feature.node.kubernetes.io/layout=cascade
pcitopo.feature.node.kubernetes.io/state=idle'

# --- MUX, online --------------------------------------------------------
if server_start mux balance --timeout 300 && up emulated-mux; then
	before=$(grun cli/topoctl topo 2>&1) || true
	echo "# before:"; sed 's/^/#   /' <<<"$before"
	# topod --check compares the platform file with the machine's DMI
	# (QEMU's SMBIOS here): the shipped file matches, another vendor's not
	out=$(grun bash -c 'd=$(mktemp -d)
		cp platforms/emulated-mux.conf "$d/p.conf"
		printf "platform = \"%s/p.conf\";\nbmc = { transport = \"inband\"; };\ncheck_dmi = true;\n" "$d" >"$d/t.conf"
		daemon/topod/topod --check --config "$d/t.conf"; echo "rc=$?"
		sed -i "s/vendor = \"QEMU\"/vendor = \"Other Inc.\"/" "$d/p.conf"
		daemon/topod/topod --check --config "$d/t.conf"; echo "rc=$?"' 2>&1) || true
	tap "$([[ $out == *"dmi:      this machine is the platform's model"*"bmc:      in-band /dev/ipmi0"*"rc=0"* &&
		$out == *"dmi: platform emulated-mux is for \"Other Inc.\" \"Standard PC (Q35 + ICH9, 2009)\", this is \"QEMU\" \"Standard PC (Q35 + ICH9, 2009)\""* &&
		$out == *"rc=0"*"rc=1"* ]] &&
		echo 1 || echo 0)" \
		"mux: topod --check: the platform file matches this machine's DMI; another vendor's is refused, both named" "$out"
	# the module unloaded and loaded again under a running topod: udev's
	# module event calls Recheck (here by hand: no udevd in this guest);
	# topod drops it, then opens it again, with its events
	out=$(grun bash -c "$gpu_fn"'recheck() { busctl --system call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Recheck; }
		st() { cli/topoctl -j status | jq -c "{layout, gpus}"; }
		rmmod pcitopo && recheck && echo "gone $(st)"
		pt_insmod && recheck && echo "back $(st)"
		cli/topoctl set cascade --dry-run >/dev/null; echo "dry-run exit $?"
		# no Recheck from here: the reopened event source must tell topod
		n() { cli/topoctl -j status | jq -r .gpus; }
		a=$(gpu 7)
		echo 1 >"/sys/bus/pci/devices/$a/remove"
		for _ in $(seq 50); do [[ $(n) == 7 ]] && break; sleep 0.1; done
		echo "removed: $(st)"
		echo 1 >/sys/bus/pci/rescan
		for _ in $(seq 50); do [[ $(n) == 8 ]] && break; sleep 0.1; done
		echo "rescanned: $(st)"' 2>&1) || true
	tap "$([[ $out == *'gone {"layout":"unknown","gpus":0}'* && $out == *'back {"layout":"balance","gpus":8}'* &&
		$out == *"dry-run exit 0"* ]] && echo 1 || echo 0)" \
		"mux: pcitopo.ko unloaded under topod: layout unknown; loaded again: balance, 8 GPUs, a dry run proceeds" "$out"
	# 4 + 3 GPUs is an uneven split: other, not balance (core/ptc_layout.c)
	tap "$([[ $out == *'removed: {"layout":"other","gpus":7}'* &&
		$out == *'rescanned: {"layout":"balance","gpus":8}'* ]] && echo 1 || echo 0)" \
		"mux: after the reload topod follows the module's events again: GPU7 removed -> 7 GPUs (other: 4+3), rescanned -> 8, balance (no Recheck)" "$out"
	# who may switch is polkit's to say, through the shipped rule: a
	# member of the group pcitopo may, nobody else without authenticating
	out=$(grun bash -c 'groupadd -f pcitopo &&
		{ id operator >/dev/null 2>&1 || useradd -M -N -g users -G pcitopo operator; } &&
		mkdir -p /usr/share/polkit-1/rules.d &&
		cp dbus/pcitopo.rules /usr/share/polkit-1/rules.d/' 2>&1) || true
	out=$(grun setpriv --reuid=nobody --regid=nogroup --clear-groups \
		cli/topoctl set cascade 2>&1) && rc=0 || rc=$?
	tap "$([[ $rc == 1 && $out == *"access denied: authentication required"*"org.pcitopo.set-layout"* ]] && echo 1 || echo 0)" \
		"mux: nobody (not in group pcitopo): polkit asks for authentication, naming the action" "$out"
	eq "$(view)" "balance 8" "mux: and nothing moved"
	# a real GPU driver bound: bochs-drm, the stand-ins' DRM driver, gives
	# every GPU a /dev/dri/cardN; a process holding GPU4's is named
	out=$(grun bash -c "$gpu_fn"'modprobe bochs || exit 3
		a=$(gpu 4)
		for _ in $(seq 50); do
			card=$(ls "/sys/bus/pci/devices/$a/drm" 2>/dev/null | grep "^card") && break
			sleep 0.2
		done
		[[ -n $card && -c /dev/dri/$card ]] || { echo "no DRM node for $a"; exit 3; }
		echo "$a: driver $(basename "$(readlink "/sys/bus/pci/devices/$a/driver")"), /dev/dri/$card"
		exec 3<"/dev/dri/$card"
		cli/topoctl set cascade --dry-run; echo "dry-run exit $?"
		cli/topoctl set cascade' 2>&1) && rc=0 || rc=$?
	tap "$([[ $out == *"dry-run exit 1"* && $out == *"Detach:      GPU4 "*"GPU7 "* &&
		$out == *"Verdict:     would be refused (DeviceBusy)"*"holds /dev/dri/card"* ]] &&
		echo 1 || echo 0)" \
		"mux: set --dry-run with GPU4's DRM node held: GPU4-7 would move, refused, the node named" "$out"
	tap "$([[ $rc == 1 && $out == *"driver bochs-drm"* && $out == *"is in use"*"holds /dev/dri/card"* ]] &&
		echo 1 || echo 0)" \
		"mux: GPU4's DRM node held open (bochs-drm bound): refused, the node named" "$out"
	eq "$(view)" "balance 8" "mux: and nothing moved"
	# the NVIDIA driver's node: topod reads a GPU's minor from the driver's
	# /proc/driver/nvidia/gpus/ADDR/information and looks for /dev/nvidiaN
	# in /proc/PID/fd. No NVIDIA driver runs here, so a tmpfs over
	# /proc/driver holds that file (minor 2 for GPU5: the node's number is
	# the driver's, not the GPU's index) and /dev/nvidia2 is a plain file.
	out=$(grun bash -c "$gpu_fn"'a=$(gpu 5)
		mount -t tmpfs nvidia-standin /proc/driver || exit 3
		mkdir -p "/proc/driver/nvidia/gpus/$a"
		printf "Model: \t stand-in\nIRQ:  \t 0\nDevice Minor: \t 2\n" \
			>"/proc/driver/nvidia/gpus/$a/information"
		: >/dev/nvidia2
		exec 4</dev/nvidia2	# this shell holds it: its pid and name are known
		cli/topoctl set cascade --dry-run; echo "dry-run exit $?"
		echo "holder pid $$ gpu $a"
		exec 4<&-; rm -f /dev/nvidia2; umount /proc/driver' 2>&1) || true
	pid=$(sed -n 's/^holder pid \([0-9]*\) .*/\1/p' <<<"$out")
	a5=$(sed -n 's/^holder pid .* gpu //p' <<<"$out")
	tap "$([[ -n $pid && -n $a5 && $out == *"dry-run exit 1"* &&
		$out == *"Holders:     pid $pid (bash) holds /dev/nvidia2"* &&
		$out == *"Verdict:     would be refused (DeviceBusy): GPU $a5 is in use: pid $pid (bash) holds /dev/nvidia2"* ]] &&
		echo 1 || echo 0)" \
		"mux: set --dry-run with GPU5's NVIDIA node held (driver's /proc file faked, minor 2): refused, /dev/nvidia2 and the holder named" "$out"
	# killed at the third hw_detach (--test-fault: topod kills itself
	# there; no window to hit) with bochs-drm bound to every GPU: two
	# ports detached, the four moving GPUs unbound. The next start rolls
	# back and binds every driver again, the two never detached too.
	out=$(T=240 grun bash -c "$gpu_fn"'s=/out/topod-state
		busctl --system call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Status >/dev/null
		old=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
			GetConnectionUnixProcessID s org.pcitopo.Topod | sed -n "s/^u //p")
		[[ -n $old ]] || { echo "no topod pid"; exit 1; }
		kill -KILL "$old"	# the topod topod-up started, by its pid
		# gone, or a zombie nobody reaps yet: either way it has let go
		for _ in $(seq 100); do
			[[ $(sed -n "s/^State:[[:space:]]*\([A-Z]\).*/\1/p" /proc/$old/status 2>/dev/null) == [RSDT] ]] || break
			sleep 0.1
		done
		setsid daemon/topod/topod --config /etc/pcitopo/topod.conf --test-fault hw_detach:3 \
			>>/out/topod.log 2>&1 </dev/null &
		tp=$!
		for _ in $(seq 60); do busctl --system status org.pcitopo.Topod >/dev/null 2>&1 && break; sleep 0.5; done
		cli/topoctl set cascade --no-wait
		wait $tp; echo "topod exit $?"
		echo "journal: $(grep -E "^(phase|unbound|ports)=" $s/job | tr "\n" " ")"
		setsid daemon/topod/topod --config /etc/pcitopo/topod.conf >>/out/topod.log 2>&1 </dev/null &
		for _ in $(seq 240); do [[ ! -e $s/job ]] && [[ $(cli/topoctl -j status | jq -r .state) == idle ]] && break; sleep 0.5; done
		cli/topoctl -j status | jq -c "{layout, state, gpus, last_error}"
		for i in 0 1 2 3 4 5 6 7; do a=$(gpu $i); echo "GPU$i $a $(basename "$(readlink /sys/bus/pci/devices/$a/driver)" 2>/dev/null)"; done
		dmesg | grep -E "WARNING:|BUG:|Oops|Call Trace" | head -5; echo "dmesg-end"' 2>&1) || true
	tap "$([[ $out == *"topod exit 137"* && $out == *"journal: phase=detach "*"unbound="*"/bochs-drm,"* ]] && echo 1 || echo 0)" \
		"mux: topod killed at its 3rd hw_detach (--test-fault): the journal lists the unbound GPUs with bochs-drm" "$out"
	tap "$([[ $out == *'{"layout":"balance","state":"idle","gpus":8,"last_error":"topod stopped in phase detach'* &&
		$(grep -c '^GPU[0-7] .* bochs-drm$' <<<"$out") == 8 && $out == *$'\n'"dmesg-end"* &&
		$(grep -B1 -m1 '^dmesg-end' <<<"$out" | head -1) == GPU7* ]] && echo 1 || echo 0)" \
		"mux: restarted: rolled back to balance, idle, LastError names the phase; all 8 GPUs have bochs-drm again; no WARN/oops in dmesg" "$out"
	eq "$(view)" "balance 8" "mux: and the module sees balance with 8 GPUs"
	drivers() {
		grun bash -c 'for d in /sys/bus/pci/devices/*; do
			[[ $(<"$d/class") == 0x0380* ]] || continue
			echo "$(basename "$(readlink "$d/driver")" 2>/dev/null)"
		done | sort | uniq -c | tr -s " \n" " "' 2>&1 || true
	}
	drv=$(drivers)
	echo "# GPU drivers before the switch: $drv"
	t0=$(now)
	out=$(T=240 grun setpriv --reuid=operator --regid=users --init-groups \
		cli/topoctl set cascade 2>&1) && rc=0 || rc=$?
	sed 's/^/# /' <<<"$out"
	tap "$([[ $rc == 0 ]] && echo 1 || echo 0)" \
		"mux: topoctl set cascade by 'operator' (group pcitopo, polkit rule) exits 0 ($(since "$t0") s)" \
		"$(tail -20 "$dir/out/topod.log" 2>/dev/null)"
	eq "$(phases "$out")" "preflight quiesce detach bmc reenumerate verify restore commit " \
		"mux: every phase done, in order"
	eq "$(view)" "cascade 8" "mux: the module sees cascade with 8 GPUs"
	tap "$([[ $out == *"quiesce"*"4 driver(s) unbound"* ]] && echo 1 || echo 0)" \
		"mux: quiesce unbound bochs-drm from the 4 moving GPUs" "$out"
	drv=$(drivers)
	# the moved GPUs are the MUX's hot-added stand-ins (virtio-serial-pci,
	# class 0x0380: bmcsim/qmp-move), whatever driver the kernel gave them
	echo "# GPU drivers after the switch: $drv (the 4 moved: virtio-serial-pci stand-ins)"
	tap "$([[ $drv == *" 4 bochs-drm "* ]] && echo 1 || echo 0)" \
		"mux: the 4 GPUs that stayed kept bochs-drm" "$drv"
	st=$(grun cli/topoctl -j status 2>&1) || true
	eq "$(jq -r '"\(.layout) \(.state) \(.generation)"' <<<"$st" 2>/dev/null)" "cascade idle 1" \
		"mux: topoctl status: cascade, idle, one switch"
	eq "$(grun bash -c "$nfd_labels" 2>&1)" "$nfd_cascade" \
		"mux: the node labels (NFD feature file, nfdcheck.py) say cascade, idle, nothing pending"
	after=$(grun cli/topoctl topo 2>&1) || true
	echo "# after:"; sed 's/^/#   /' <<<"$after"
	# a process holding a moving GPU (GPU4's config space) open: DeviceBusy
	out=$(grun bash -c "$gpu_fn"'a=$(gpu 4)
		exec 3<"/sys/bus/pci/devices/$a/config"
		cli/topoctl set common' 2>&1) && rc=0 || rc=$?
	tap "$([[ $rc == 1 && $out == *"is in use"* ]] && echo 1 || echo 0)" \
		"mux: a GPU held open: refused in preflight (DeviceBusy)" "$out"
	eq "$(view)" "cascade 8" "mux: and nothing moved"
	out=$(grun cli/topoctl set bogus 2>&1) && rc=0 || rc=$?
	tap "$([[ $rc == 1 && $out == *"not a layout"* ]] && echo 1 || echo 0)" "mux: unknown layout refused" "$out"
fi
server_stop

# --- switch firmware, power cycle ---------------------------------------
if server_start switchfw balance --timeout 300 && up emulated-switchfw; then
	boot=$(cat "$dir/boot")
	t0=$(now)
	out=$(T=120 grun cli/topoctl set cascade --power-cycle 2>&1) && rc=0 || rc=$?
	sed 's/^/# /' <<<"$out"
	# 125: the power cycle cut the job (and maybe its last lines, topod's
	# log on the share included) short; that the cycle was requested shows
	# in the next check, a new boot.
	tap "$([[ ($rc == 0 || $rc == 125) && $out == *"pending cascade"* ]] &&
		echo 1 || echo 0)" \
		"switchfw: topoctl set cascade --power-cycle: cascade pending (rc $rc)" "$out"
	line=$("$srv" wait-boot "$dir" --after "$boot" --timeout 300 2>&1) || true
	tap "$([[ $line == *"layout=cascade"* ]] && echo 1 || echo 0)" \
		"switchfw: the host booted again, in cascade ($(since "$t0") s)" "$line"
	if up emulated-switchfw; then
		st=
		for _ in $(seq 60); do
			st=$(grun cli/topoctl -j status 2>&1) || true
			[[ $(jq -r .state <<<"$st" 2>/dev/null) == idle ]] && break
			sleep 1
		done
		eq "$(jq -r '"\(.layout) \(.state) \(.pending_layout)"' <<<"$st" 2>/dev/null)" "cascade idle null" \
			"switchfw: after the boot topod committed cascade (from its journal)"
		eq "$(view)" "cascade 8" "switchfw: the module sees cascade with 8 GPUs"
		eq "$(grun bash -c "$nfd_labels" 2>&1)" "$nfd_cascade" \
			"switchfw: the node labels (NFD) say cascade, idle, nothing pending after the power cycle"
		grep -E "reenumerate|verify|commit" "$dir/out/topod.log" 2>/dev/null | sed 's/^/# /' || true
	fi
fi
server_stop

echo "1..$n"
((failed == 0))
