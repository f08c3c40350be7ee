#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The emulated BMC (bmcsim/pcitopo_bmc.so in ipmi_sim), driven over LAN by
# ipmitool as an independent client: the OEM layout commands of both
# methods, their errors, every injected fault, state across a simulator
# restart, a wrong password, and power on/off of the host through startcmd.
# TAP output; exits non-zero if a check failed. Run from anywhere.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root" || exit 1

# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"

for t in ipmi_sim ipmitool python3 make cc; do
	if ! command -v "$t" >/dev/null; then
		echo "1..0 # SKIP no $t (apt-get install openipmi ipmitool)"
		exit 0
	fi
done

work=$(mktemp -d /tmp/pcitopo-t-bmc.XXXXXX)
dirs=()
cleanup() {
	local d
	for d in "${dirs[@]}"; do
		[[ -d $d ]] && tests/bmc/stop-bmc "$d" >/dev/null 2>&1
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! make -s -C bmcsim >"$work/make.log" 2>&1; then
	fail "bmcsim builds"
	cat "$work/make.log" | sed 's/^/# /'
	exit 1
fi

# start NAME [start-bmc args]: start a BMC, load its env into B_* variables.
start() {
	local name=$1 out
	shift
	if ! out=$(tests/bmc/start-bmc --dir "$work/$name" "$@" 2>&1); then
		echo "$out" | sed 's/^/# /'
		return 1
	fi
	dirs+=("$work/$name")
	# shellcheck disable=SC1090
	. "$work/$name/env"
	IPMI=(timeout 20 ipmitool -I lanplus -C 3 -H "$PCITOPO_BMC_HOST"
		-p "$PCITOPO_BMC_PORT" -U "$PCITOPO_BMC_USER" -P "$PCITOPO_BMC_PASSWORD")
}
stop() { tests/bmc/stop-bmc "$work/$1" >/dev/null 2>&1; }
con() { tests/bmc/bmc-console --port "$PCITOPO_BMC_CONSOLE_PORT" "$@"; }

# raw BYTES...: prints the response bytes ("02 01 02 01 00"), or "cc=XX" for a
# non-zero completion code.
raw() {
	local out
	out=$("${IPMI[@]}" raw "$@" 2>&1)
	if [[ $out =~ rsp=0x([0-9a-f]+) ]]; then
		echo "cc=${BASH_REMATCH[1]}"
	else
		echo $out
	fi
}
expect() {	# expect DESCRIPTION WANT BYTES...
	local d=$1 want=$2 got
	shift 2
	got=$(raw "$@")
	if [[ $got == "$want" ]]; then pass "$d"; else fail "$d (got '$got', want '$want')"; fi
}
# wait_state STATUS_CMD WANT_FIRST_BYTE SECONDS: poll until state matches.
wait_state() {
	local cmd=$1 want=$2 end=$((SECONDS + $3)) got
	while ((SECONDS <= end)); do
		got=$(raw 0x3c "$cmd")
		[[ ${got%% *} == "$want" ]] && { echo "$got"; return 0; }
		sleep 0.2
	done
	echo "$got"
	return 1
}
ms() { date +%s%3N; }

# ---- method switch firmware ----
if ! start sw --method switchfw --busy-ms 1000 --layout balance --host stub; then
	fail "start the emulated BMC (switchfw)"
	exit 1
fi
pass "start the emulated BMC (switchfw) on LAN port $PCITOPO_BMC_PORT"
check "ipmitool mc info over LAN" bash -c '"$@" mc info | grep -q "IPMI Version"' _ "${IPMI[@]}"
expect "switchfw: status idle, current balance, no pending" "00 01 00 00 00" 0x3c 0x11
expect "switchfw: select common returns job id 1" "01" 0x3c 0x10 2
expect "switchfw: status busy right after select" "01 01 00 01 00" 0x3c 0x11
expect "switchfw: select while busy -> 0xC0" "cc=c0" 0x3c 0x10 3
t0=$(ms)
got=$(wait_state 0x11 02 5)
t1=$(ms)
check "switchfw: done with current balance, pending common ($got, $((t1 - t0)) ms after)" \
	test "$got" == "02 01 02 01 00"
expect "switchfw: bad layout 4 -> 0xCC" "cc=cc" 0x3c 0x10 4
expect "switchfw: bad layout 0 -> 0xCC" "cc=cc" 0x3c 0x10 0
expect "switchfw: select without data -> 0xC7" "cc=c7" 0x3c 0x10
expect "switchfw: select with 2 bytes -> 0xC7" "cc=c7" 0x3c 0x10 1 2
expect "switchfw: status with data -> 0xC7" "cc=c7" 0x3c 0x11 0
expect "switchfw: MUX command refused (0xC1) on a switchfw BMC" "cc=c1" 0x3c 0x21

# faults
con pcitopo_fail_next >/dev/null
expect "fail_next: select cascade accepted (job 2)" "02" 0x3c 0x10 3
got=$(wait_state 0x11 03 5)
check "fail_next: job failed with error 1, layouts unchanged ($got)" test "$got" == "03 01 02 02 01"
con "pcitopo_fail_next 0x42" >/dev/null
raw 0x3c 0x10 3 >/dev/null
got=$(wait_state 0x11 03 5)
check "fail_next 0x42: the error code given ($got)" test "$got" == "03 01 02 03 42"
con "pcitopo_cc 0xd5" >/dev/null
expect "cc 0xd5: next OEM command answers 0xD5" "cc=d5" 0x3c 0x11
expect "cc: only the next one" "03 01 02 03 42" 0x3c 0x11
con "pcitopo_cc 0xff" >/dev/null
expect "cc 0xff: a select answers 0xFF and starts no job" "cc=ff" 0x3c 0x10 2
expect "cc: no job was started" "03 01 02 03 42" 0x3c 0x11
con pcitopo_hang >/dev/null
raw 0x3c 0x10 3 >/dev/null
sleep 2.5
expect "hang: job stays busy past busy_ms" "01 01 02 04 00" 0x3c 0x11
expect "hang: select refused 0xC0 while hung" "cc=c0" 0x3c 0x10 2
con pcitopo_unhang >/dev/null
got=$(wait_state 0x11 02 5)
check "unhang: job completes, pending cascade ($got)" test "$got" == "02 01 03 04 00"
check "pcitopo_state prints the state" bash -c \
	'tests/bmc/bmc-console --port "$1" pcitopo_state | grep -q "current=balance pending=cascade"' _ "$PCITOPO_BMC_CONSOLE_PORT"
check "state file written (current=1 pending=3)" \
	grep -qzP 'current=1\npending=3\n' "$PCITOPO_BMC_STATE"

# drop: a client inside one session loses it after pcitopo_drop.
{
	echo "raw 0x3c 0x11"
	sleep 1
	tests/bmc/bmc-console --port "$PCITOPO_BMC_CONSOLE_PORT" pcitopo_drop >"$work/drop.out"
	sleep 2.5
	echo "raw 0x3c 0x11"
} | timeout 9 ipmitool -I lanplus -C 3 -H "$PCITOPO_BMC_HOST" -p "$PCITOPO_BMC_PORT" \
	-U "$PCITOPO_BMC_USER" -P "$PCITOPO_BMC_PASSWORD" -R 1 -N 1 shell >"$work/shell.out" 2>&1
c=$(grep -c '^ *02 01 03 04 00' "$work/shell.out")
check "drop: the open session is closed (1 of 2 answers: $c; $(tr -d '\n' <"$work/drop.out"))" test "$c" == 1
expect "drop: a new session works" "02 01 03 04 00" 0x3c 0x11

# wrong password: fails, and fast
t0=$(ms)
if timeout 20 ipmitool -I lanplus -C 3 -H "$PCITOPO_BMC_HOST" -p "$PCITOPO_BMC_PORT" \
	-U "$PCITOPO_BMC_USER" -P wrong -R 1 -N 1 raw 0x3c 0x11 >/dev/null 2>&1; then
	fail "wrong password refused"
else
	t1=$(ms)
	check "wrong password refused within 10 s ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 10000
fi

# power: startcmd boots the host in the current layout; on power on the
# pending layout becomes current.
hostpid() { pgrep -g "$PCITOPO_BMC_PGID" -f '^pcitopo-host-stub' || pgrep -g "$PCITOPO_BMC_PGID" -f "^qemu-system-x86_64"; }
"${IPMI[@]}" chassis power on >/dev/null 2>&1
for _ in $(seq 50); do hostpid >/dev/null && break; sleep 0.1; done
hp=$(hostpid)
check "power on: host process started with layout cascade (stub)" \
	bash -c '[[ -n $1 ]] && tr "\0" " " </proc/$1/cmdline | grep -q "pcitopo-host-stub cascade"' _ "$hp"
expect "power on: pending applied (current cascade, pending 0)" "02 03 00 04 00" 0x3c 0x11
check "chassis power status on" bash -c '"$@" chassis power status | grep -q "is on"' _ "${IPMI[@]}"
"${IPMI[@]}" chassis power off >/dev/null 2>&1
for _ in $(seq 100); do [[ -n $hp ]] && kill -0 "$hp" 2>/dev/null || break; sleep 0.1; done
check "power off: host process gone" bash -c '! kill -0 "$1" 2>/dev/null' _ "${hp:-0}"

# restart survival: stop, start again with the same state file
raw 0x3c 0x10 1 >/dev/null
wait_state 0x11 02 5 >/dev/null
before=$(raw 0x3c 0x11)
state=$PCITOPO_BMC_STATE
cp "$state" "$work/state.sw"
stop sw
if start sw2 --method switchfw --busy-ms 1000 --state "$work/state.sw" --host stub; then
	expect "restart: same status after a simulator restart ($before)" "$before" 0x3c 0x11
	expect "restart: job ids continue (job 6)" "06" 0x3c 0x10 2
	stop sw2
	# a restart in the middle of a job: the job is failed, not lost
	start sw3 --method switchfw --busy-ms 1000 --state "$work/state.sw" --host stub
	expect "restart mid-job: the interrupted job reads failed (error 1)" "03 03 01 06 01" 0x3c 0x11
	stop sw3
else
	fail "restart with the same state file"
fi

# ---- the real host: QEMU from tests/vm through startcmd ----
# Only the process and its argv are checked (the guest boot takes ~15-25 s
# under TCG and is tests/vm's business).
kcache=${PCITOPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pcitopo}
why=
[[ -x tests/vm/qemu-args && -x tests/vm/fetch-kernel && -x tests/vm/mkinitramfs ]] || why="tests/vm not ready"
[[ -z $why ]] && ! compgen -G "$kcache/kernel-*/.done" >/dev/null && why="no guest kernel cached (tests/vm/fetch-kernel)"
[[ -z $why ]] && ! command -v qemu-system-x86_64 >/dev/null && why="no qemu-system-x86_64"
if [[ -n $why ]]; then
	skip "power on boots QEMU in the pending layout" "$why"
	skip "power off stops QEMU" "$why"
elif start q --method switchfw --busy-ms 300 --layout balance --host qemu; then
	raw 0x3c 0x10 2 >/dev/null
	wait_state 0x11 02 5 >/dev/null
	"${IPMI[@]}" chassis power on >/dev/null 2>&1
	qp=
	for _ in $(seq 100); do
		qp=$(pgrep -g "$PCITOPO_BMC_PGID" -f '^qemu-system-x86_64') && break
		sleep 0.1
	done
	check "power on boots QEMU in the pending layout (-name pcitopo-common)" \
		bash -c '[[ -n $1 ]] && tr "\0" "\n" </proc/$1/cmdline | grep -qx pcitopo-common' _ "$qp"
	"${IPMI[@]}" chassis power off >/dev/null 2>&1
	for _ in $(seq 100); do [[ -n $qp ]] && kill -0 "$qp" 2>/dev/null || break; sleep 0.1; done
	check "power off stops QEMU" bash -c '! kill -0 "$1" 2>/dev/null' _ "${qp:-0}"
	stop q
else
	fail "start the emulated BMC with a QEMU host"
fi

# ---- method MUX ----
# The helper (bmcsim/qmp-move) inherits the simulator's environment.
cat >"$work/mux-map.json" <<'EOF2'
{"devices": {"gpu4": {"device": "nvme", "props": {"serial": "G4"}}},
 "ports": {"balance": {"gpu4": "sw1p0"}, "common": {"gpu4": "sw0p5"},
           "cascade": {"gpu4": "sw0p6"}}}
EOF2
export PCITOPO_MUX_MAP=$work/mux-map.json PCITOPO_QMP_TIMEOUT=2
if ! start mux --method mux --busy-ms 800 --layout balance --host stub; then
	fail "start the emulated BMC (mux)"
	exit 1
fi
expect "mux: status idle, current balance" "00 01 00 00 00" 0x3c 0x21
expect "mux: switchfw command refused (0xC1) on a MUX BMC" "cc=c1" 0x3c 0x11
expect "mux: mask 0x02 -> 0xCC" "cc=cc" 0x3c 0x20 2 3
expect "mux: layout 5 -> 0xCC" "cc=cc" 0x3c 0x20 1 5
expect "mux: one byte -> 0xC7" "cc=c7" 0x3c 0x20 1
expect "mux: set cascade returns job 1" "01" 0x3c 0x20 1 3
expect "mux: busy" "01 01 00 01 00" 0x3c 0x21
expect "mux: set while busy -> 0xC0" "cc=c0" 0x3c 0x20 1 2
t0=$(ms)
got=$(wait_state 0x21 02 10)
t1=$(ms)
check "mux: done online, current cascade, no pending ($got, $((t1 - t0)) ms; host off: helper no-op)" \
	test "$got" == "02 03 00 01 00"
con pcitopo_fail_next >/dev/null
raw 0x3c 0x20 1 2 >/dev/null
got=$(wait_state 0x21 03 10)
check "mux fail_next: failed with error 2, current unchanged ($got)" test "$got" == "03 03 00 02 02"

# The helper with the host "on": a stand-in QMP server on the VM's socket.
sock=$PCITOPO_BMC_VM_DIR/qmp.sock
rm -f "$sock" "$work/qmp.log"
tests/bmc/fake-qmp "$sock" "$work/qmp.log" &
for _ in $(seq 50); do [[ -S $sock ]] && break; sleep 0.05; done
raw 0x3c 0x20 1 1 >/dev/null
got=$(wait_state 0x21 02 15)
check "mux + qemu_ctl: done after the helper moved the devices ($got)" \
	bash -c '[[ $1 == "02 01 00 03 00" ]] && grep -q "\"bus\": \"sw1p0\"" "$2"' _ "$got" "$work/qmp.log"
wait 2>/dev/null
rm -f "$sock" "$work/qmp.log"
tests/bmc/fake-qmp "$sock" "$work/qmp.log" --no-delete &
fq=$!
for _ in $(seq 50); do [[ -S $sock ]] && break; sleep 0.05; done
raw 0x3c 0x20 1 2 >/dev/null
got=$(wait_state 0x21 03 15)
check "mux + qemu_ctl: device never released -> failed, error 2, current unchanged ($got)" \
	test "$got" == "03 01 00 04 02"
kill "$fq" 2>/dev/null
wait 2>/dev/null
stop mux

echo "1..$n"
((failed == 0))
