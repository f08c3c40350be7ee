#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topod's fault matrix in the emulated server (issue 12; the host share,
# every boundary, is tests/topod/t-faults.sh): the real module, the in-band
# BMC, systemd as init with topod.service and the stand-in GPU units
# (tests/vm/guest/faults-systemd.sh: t-quiesce.sh's setup, bochs-drm bound
# to every GPU at boot), MUX method, from balance. topod holds itself at a
# point (--test-fault WHERE:N:stop, tests/vm/guest/faults-case.sh), the
# test checks what it left, then SIGKILLs it there; systemd restarts it
# (Restart=on-failure) and it recovers from its journal:
#   A. after detach, before the Select (bmc:1): rolled back to balance;
#   B. during a rollback (a failed BMC job, then rollback-reenumerate:1):
#      rolled back, LastError the BMC's error first;
#   C. after the Select, the MUX moved (reenumerate:1): committed cascade
#      (the one move of this boot: QEMU 7.2 cannot add a stand-in GPU back
#      on a port it left in the same run);
#   D. the host powered off (the BMC's chassis power cycle: QEMU killed)
#      with topod held after detach (bmc:1) from cascade: the next boot's
#      topod rolls back (nothing moved), and says the host went down.
#   F. topod stopped (held at bmc:1, from cascade): a second topoctl set
#      says topod is not answering, exit 4, never "failed"; then killed:
#      rolled back as A;
#   E. the BMC answers 0xD2 (initialization in progress, as after its
#      reset) to its next 3 commands: waited out, balance committed, the
#      phase line names the code and the wait.
#   H. the state dir on a full tmpfs: refused in preflight, nothing
#      journalled, moved or stopped.
# Each asserts: committed or rolled back as the journal allows, State idle,
# the journal gone, 8 GPUs, the module's layout; every GPU with a driver
# bound again: the 4 that never left their ports bochs-drm, as before; a
# stand-in the emulated MUX took off and put back is QEMU's hot-add model
# (virtio-serial-pci of class 0x0380, bmcsim/qmp-move: a bochs-display
# cannot be re-added in one boot), whose driver is virtio-pci; after C,
# the 4 that stayed); the GPU service active again; topod restarted
# by systemd; no WARN, BUG or oops in dmesg. States, not times: a faster
# MUX move changes nothing here.
# TAP on stdout, timings as # comments. The server is always stopped
# (PCITOPO_KEEP_SERVER=1 keeps it).
# shellcheck disable=SC2016 # single-quoted commands expand in the guest
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root"

# shellcheck source=tests/vm/vm-tap.sh
source "$here/vm-tap.sh"

need_built kmod/pcitopo.ko daemon/topod/topod cli/topoctl
need_host /lib/systemd/systemd /usr/bin/dbus-daemon
need_cmds ipmi_sim qemu-system-x86_64 jq

dir=$(mktemp -d /tmp/pcitopo-faults.XXXXXX)
server_test

t_all=$(now)
kv() { sed -n "s/^$1=//p" <<<"$out" | head -n 1; }
# eqd GOT WANT WHAT DETAIL: eq, with DETAIL (the guest's output) under a failure
eqd() {
	if [[ $1 == "$2" ]]; then tap 1 "$3"; else tap 0 "$3" "want: $2
got:  $1
${4:-}"; fi
}
# the stand-in GPUs' drivers from a drivers= line: "ADDR/DRIVER ..."
ndrv() { tr ' ' '\n' <<<"$1" | grep -c "/$2\$" || true; }
# bound GPUS: "N M": N of them with bochs-drm, M with bochs-drm or, for a
# stand-in QEMU hot-added back, virtio-pci; 4 8 when every GPU has a driver
bound() { echo "$(ndrv "$1" bochs-drm) $(($(ndrv "$1" bochs-drm) + $(ndrv "$1" virtio-pci)))"; }
case_() {	# case_ LABEL ARGS...: faults-case.sh ARGS, its output in $out
	local t0 label=$1
	shift
	t0=$(now)
	out=$(T=300 grun tests/vm/guest/faults-case.sh "$@" 2>&1) || true
	echo "# $label: faults-case.sh $*: $(since "$t0") s (held at $(kv t_held) s, recovered at $(kv t_recovered) s, GPU service at $(kv t_unit) s)"
}
# what every case asserts once topod has recovered: LABEL LAYOUT GLOB
recovered() {
	local st le
	st=$(kv status)
	le=$(jq -r '.last_error // ""' <<<"$st" 2>/dev/null)
	eqd "$(jq -r '"\(.layout) \(.state) \(.gpus)"' <<<"$st" 2>/dev/null) $(kv journal) | $(kv module)" \
		"$2 idle 8 gone | $2 8" "$1: $2, idle, 8 GPUs, the journal gone; the module agrees" "$out"
	# shellcheck disable=SC2053 # a glob, on purpose
	tap "$([[ $le == $3 ]] && echo 1 || echo 0)" "$1: LastError says what happened" \
		"LastError: $le
wanted:    $3"
	eqd "$(kv unit) $(grep -c '^dmesg=' <<<"$out")" "active 0" \
		"$1: the GPU service active again; no WARN, BUG or oops in dmesg" "$(grep '^dmesg=\|unit=' <<<"$out")"
}
held() {	# held LABEL JOURNAL_GLOB: topod stopped at its point
	# shellcheck disable=SC2053
	tap "$([[ $(kv held) == "T "[1-9]* && $(kv held_journal) == $2 ]] && echo 1 || echo 0)" \
		"$1: topod held there, the journal: $2" "held=$(kv held)
held_journal=$(kv held_journal)
$(grep '^held_\|^error=' <<<"$out")"
}

t0=$(now)
line=$("$srv" start "$dir" --method mux --layout balance --busy-ms 500 --timeout 300 \
	--init systemd --setup "$here/guest/faults-systemd.sh" 2>&1) && ok=1 || ok=0
tap "$ok" "systemd init, MUX: server up in balance ($(since "$t0") s)" \
	"$line
$(tail -n 20 "$dir/out/setup.log" 2>/dev/null)"
if ((!ok)); then echo "1..$n"; exit 1; fi
out=$(grun bash -c '
	echo "system=$(timeout 200 systemctl is-system-running --wait || true)"
	echo "topod=$(systemctl is-active topod.service)"
	echo "status=$(topoctl -j status | jq -c "{layout, state, gpus}")"' 2>&1) || true
eqd "$(kv system) $(kv topod) $(kv status)" 'running active {"layout":"balance","state":"idle","gpus":8}' \
	"boot: systemd running, topod.service active, balance with 8 GPUs" "$out"

echo "# A. topod killed after detach, before the Select"
case_ A cascade bmc:1
pre=$(kv pre_drivers)
eqd "$(ndrv "$pre" bochs-drm) $(kv pre_unit)" "8 active" \
	"before: bochs-drm bound to all 8 GPUs, the GPU service active" "$out"
held "A (bmc:1)" "state=switching phase=bmc bmc_sent=0 "
eqd "$(kv held_module | cut -d' ' -f2) $(kv held_unit)" "4 inactive" \
	"A: held: the 4 moving GPUs detached, the GPU service stopped" "$out"
recovered "A, killed at bmc:1, restarted by systemd" balance \
	"topod stopped in phase bmc of the switch from balance to cascade (killed or crashed)"
eqd "$(bound "$(kv drivers)") $([[ $(kv restarts) -ge 1 ]] && echo restarted)" "4 8 restarted" \
	"A: every GPU has a driver again (GPU0-3 bochs-drm, the 4 put back virtio-pci); systemd restarted topod" "$(kv drivers) restarts=$(kv restarts)"

echo "# B. a failed BMC job; topod killed during the rollback"
"$srv" console "$dir" 'pcitopo_fail_next' >/dev/null 2>&1 || true
case_ B cascade rollback-reenumerate:1
held "B (rollback-reenumerate:1)" "state=rolling-back phase=rollback-reenumerate bmc_sent=1 "
recovered "B, killed at rollback-reenumerate:1" balance \
	"BMC job * failed (error *); then topod stopped in phase rollback-reenumerate of the switch from balance to cascade (killed or crashed)*"
eqd "$(bound "$(kv drivers)")" "4 8" "B: every GPU has a driver again (GPU0-3 bochs-drm, the 4 put back virtio-pci)" "$(kv drivers)"

echo "# C. topod killed after the Select: the MUX has moved"
case_ C cascade reenumerate:1
held "C (reenumerate:1)" "state=switching phase=reenumerate bmc_sent=1 "
recovered "C, killed at reenumerate:1" cascade ""
# the GPUs that do not move (GPU0-3) keep their addresses and bochs-drm
stay=$(tr ' ' '\n' <<<"$pre" | head -n 4 | tr '\n' ' ')
got=$(for a in $stay; do tr ' ' '\n' <<<"$(kv drivers)" | grep -x "$a"; done | grep -c . || true)
eqd "$got" "4" "C: the 4 GPUs that stayed kept bochs-drm" "stayed: $stay
after: $(kv drivers)"

echo "# D. the host powered off with topod held after detach"
boot=$(cat "$dir/boot")
case_ D balance bmc:1 hold
held "D (bmc:1)" "state=switching phase=bmc bmc_sent=0 "
t0=$(now)
"$srv" bmc "$dir" chassis power cycle >/dev/null 2>&1 || true
line=$("$srv" wait-boot "$dir" --after "$boot" --timeout 300 2>&1) || true
tap "$([[ $line == *"layout=cascade"* ]] && echo 1 || echo 0)" \
	"D: power cut: the host booted again, in cascade ($(since "$t0") s)" "$line"
case_ D2 --after
recovered "D, the next boot" cascade \
	"the host went down (power cut or reset) in phase bmc of the switch from cascade to balance"
eqd "$(bound "$(kv drivers)")" "4 8" "D: every GPU has a driver (GPU0-3 bochs-drm, the 4 put back virtio-pci; none left unbound)" "$(kv drivers)"

echo "# F. topod stopped mid-switch: what topoctl set says (issue 24)"
case_ F balance bmc:1 hold
held "F (bmc:1)" "state=switching phase=bmc bmc_sent=0 "
# a second client while topod stands: its pings go unanswered (200 ms
# each here, TOPOCTL_PROBE_MS; 5 s by default)
out=$(grun bash -c 'TOPOCTL_PROBE_MS=200 timeout 120 topoctl set balance >/tmp/f.out 2>&1; echo "rc=$?"
	echo "msg=$(grep -c "topod is not answering" /tmp/f.out) $(grep -c "failed" /tmp/f.out)"
	kill -KILL "$(systemctl show -p MainPID --value topod.service)"' 2>&1) || true
eqd "$(kv rc) $(kv msg)" "4 1 0" \
	"F: topoctl set against a stopped topod: 'topod is not answering' (the switch may still run), exit 4, nothing called failed" "$out"
case_ F2 --after
recovered "F, killed after topoctl gave up" cascade \
	"topod stopped in phase bmc of the switch from cascade to balance (killed or crashed)"
eqd "$(bound "$(kv drivers)")" "4 8" "F: every GPU has a driver again" "$(kv drivers)"

echo "# E. the BMC not ready (0xD2, as after its reset) for its next 3 answers"
"$srv" console "$dir" 'pcitopo_cc 0xd2 3' >/dev/null 2>&1 || true
out=$(T=300 grun bash -c 'timeout 240 topoctl set balance >/tmp/e.out 2>&1; echo "rc=$?"
	echo "waited=$(grep -c "BMC not ready (0xD2 BMC initialization in progress): waited" /tmp/e.out)"; sed "s/^/set=/" /tmp/e.out' 2>&1) || true
eqd "$(kv rc) $([[ $(kv waited) -ge 1 ]] && echo said)" "0 said" \
	"E: 0xD2 three times: waited out, the switch done, its phase line names the code and the wait" "$out"
case_ E2 --after
recovered "E, after 0xD2" balance ""
eqd "$(bound "$(kv drivers)")" "4 8" "E: every GPU has a driver (the 4 moved: virtio-pci)" "$(kv drivers)"

echo "# H. the state dir full (a tmpfs of 512 KiB over it, filled): refused before anything moves"
# topod restarted on it: the unit's namespace binds /var/lib/pcitopo at start
out=$(T=300 grun bash -c 'd=/var/lib/pcitopo P=nvidia-persistenced.service
	rm -rf /tmp/state.saved && cp -a "$d" /tmp/state.saved
	mount -t tmpfs -o size=512k,mode=0755 pcitopo-full "$d" && cp -a /tmp/state.saved/. "$d/"
	dd if=/dev/zero of="$d/fill" bs=4k >/dev/null 2>&1; sync
	systemctl restart topod.service
	timeout 120 topoctl set cascade >/tmp/h.out 2>&1; echo "rc=$?"; sed "s/^/set=/" /tmp/h.out
	# the refusal is the preflight phase line and topoctl'"'"'s error, once
	echo "msg=$(grep -c "^topoctl: set: state dir $d: the journal cannot be written (less than 64 KiB free): nothing moves without it" /tmp/h.out)"
	echo "after=$(cat /sys/kernel/pcitopo/layout) $(cat /sys/kernel/pcitopo/count_gpus) $(ls -A "$d" | grep -c "job") $(systemctl is-active "$P")"
	umount "$d"; systemctl restart topod.service
	echo "status=$(topoctl -j status | jq -c "{layout, state, gpus}")"' 2>&1) || true
eqd "$(kv rc) $(kv msg) | $(kv after) | $(kv status)" '1 1 | balance 8 0 active | {"layout":"balance","state":"idle","gpus":8}' \
	"H: the state dir full: topoctl set refused naming the journal and the free space; nothing journalled, moved or stopped; balance, idle, 8 GPUs afterwards" "$out"

echo "# t-faults-vm: $(since "$t_all") s"
echo "1..$n"
((failed == 0))
