#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest checks of topoctl doctor (run by tests/vm/guest/layout-checks.sh
# in t-layouts.sh's boot of common): conditions staged for real with setpci, found by
# doctor with the right check, severity and object, then cleared and gone.
# Both sources: the module (after `topoctl refresh`) and sysfs.
set -uo pipefail
root=${PCITOPO_ROOT:?run me through tests/vm/run-guest}
L=${PCITOPO_LAYOUT:?}
T=$root/cli/topoctl
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
TAP_PREFIX="$L: doctor: "
# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"
# finding CHECK OBJECT [SOURCE]: the -j findings' severity for it, or "none"
finding() {
	"$T" ${3:+--source "$3"} -j doctor 2>/dev/null |
		jq -r --arg c "$1" --arg o "$2" '[.[] | select(.check == $c and
		(.object | split(",") | index($o)))][0].severity // "none"'
}

pt_insmod
ok $? "insmod pcitopo.ko extra_ids=$PT_GPU_IDS:gpu"
rp=$("$T" -j dev show GPU0 2>/dev/null | jq -r '.root_port // empty')
gpu0=$("$T" -j dev show GPU0 2>/dev/null | jq -r '.addr // empty')
[[ -n $rp && -n $gpu0 ]]
ok $? "GPU0 ($gpu0) and its root port ($rp)"
"$T" doctor >/dev/null 2>&1
rc=$?
ok "$([[ $rc == 0 || $rc == 1 || $rc == 3 ]]; echo $?)" "runs on the clean server (exit $rc)"
[[ $(finding acs "$rp") == none ]]
ok $? "no ACS finding on $rp before"

# ACS: QEMU's root ports implement RR and CR
setpci -s "$rp" ECAP_ACS+0x6.w=000c:000c
"$T" refresh >/dev/null 2>&1
for src in netlink sysfs; do
	s=$(finding acs "$rp" $src)
	ok "$([[ $s == warning || $s == error ]]; echo $?)" "ACS RR+CR set on $rp: $s ($src)"
done
{ "$T" -j doctor 2>/dev/null || :; } | jq -e --arg p "$rp" 'any(.[]; .check == "acs" and
	(.fix | contains("setpci -s " + $p + " ECAP_ACS+0x6.w=0000:000c")))' >/dev/null
ok $? "ACS fix names setpci on $rp"
setpci -s "$rp" ECAP_ACS+0x6.w=0000:000c
"$T" refresh >/dev/null 2>&1
for src in netlink sysfs; do
	[[ $(finding acs "$rp" $src) == none ]]
	ok $? "ACS cleared on $rp: gone ($src)"
done

# MPS: GPU0 at 256 while its port stays at 128 (if the field is writable)
old=$(setpci -s "$gpu0" CAP_EXP+0x8.w)
setpci -s "$gpu0" CAP_EXP+0x8.w=0020:00e0
now=$(setpci -s "$gpu0" CAP_EXP+0x8.w)
if (((0x$now & 0xe0) == 0x20)); then
	{ "$T" -j doctor 2>/dev/null || :; } | jq -e 'any(.[]; .check == "mps" and
		.severity == "warning" and (.object | startswith("GPU0-")))' >/dev/null
	ok $? "MPS 256 on GPU0: warning on its pairs"
	setpci -s "$gpu0" CAP_EXP+0x8.w="$old"
	{ "$T" -j doctor 2>/dev/null || :; } | jq -e 'all(.[]; .check != "mps")' >/dev/null
	ok $? "MPS restored: gone"
else
	echo "# Device Control MPS of $gpu0 not writable here ($old -> $now): skipped"
fi
echo "1..$n"
[[ $failed == 0 ]]
