#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest check of the one extra-ID syntax in the module (core/ptc_ids.c):
# every string of tests/unit/extra-id-cases.txt is taken or refused by the
# module parameter extra_ids and by /sys/kernel/pcitopo/new_id as the table
# says (and as topoctl --extra-id does, cli/tests/run-tests), and a string
# taken is listed in /sys/kernel/pcitopo/extra_ids as the table says. Then
# lists in the parameter, remove_id, and echo's newline. Any layout will do:
#   flock /tmp/pcitopo-vm.lock tests/vm/run-guest cascade \
#       tests/vm/guest/check_extra_ids.sh
set -uo pipefail
root=${PCITOPO_ROOT:?run me through tests/vm/run-guest}
ko=$root/${PCITOPO_KO:-kmod/pcitopo.ko}
sk=/sys/kernel/pcitopo
TAP_PREFIX="${PCITOPO_LAYOUT:-}: extra IDs: "
# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"
d=$(mktemp -d)

# ids: the module's table, one "vvvv:dddd kind" per line
ids() { cat "$sk/extra_ids" 2>/dev/null; }

# the parameter, loaded once per string (the kernel's own quoting keeps the
# blanks: extra_ids="10de 2330 nic")
pbad=0 np=0
while IFS=$'\t' read -r verdict str want; do
	[[ -z $verdict || $verdict == '#'* ]] && continue
	np=$((np + 1))
	if insmod "$ko" "extra_ids=\"$str\"" 2>"$d/e"; then
		got=$(ids)
		rmmod pcitopo
		if [[ $verdict != ok || $got != "$want" ]]; then
			echo "# extra_ids=\"$str\": loaded, table '$got', want $verdict ${want:-}"
			pbad=$((pbad + 1))
		fi
	elif [[ $verdict == ok ]]; then
		echo "# extra_ids=\"$str\": refused ($(head -1 "$d/e")), want '$want'"
		pbad=$((pbad + 1))
	fi
done <"$root/tests/unit/extra-id-cases.txt"
ok "$((pbad > 0 || np < 40))" \
	"insmod extra_ids=STRING: $np strings of extra-id-cases.txt taken (and listed) or refused as the table says"

insmod "$ko"
ok $? "insmod pcitopo.ko without extra_ids"
[[ -z $(ids) ]]
ok $? "extra_ids is empty"

# new_id, one write(2) per string, no newline
nbad=0 nn=0
while IFS=$'\t' read -r verdict str want; do
	[[ -z $verdict || $verdict == '#'* ]] && continue
	nn=$((nn + 1))
	if printf '%s' "$str" >"$sk/new_id" 2>/dev/null; then
		got=$(ids)
		printf '%s' "${want% *}" >"$sk/remove_id" 2>/dev/null
		if [[ $verdict != ok || $got != "$want" || -n $(ids) ]]; then
			echo "# new_id '$str': taken, table '$got', want $verdict ${want:-}"
			nbad=$((nbad + 1))
		fi
	elif [[ $verdict == ok ]]; then
		echo "# new_id '$str': refused, want '$want'"
		nbad=$((nbad + 1))
	fi
done <"$root/tests/unit/extra-id-cases.txt"
ok "$((nbad > 0 || nn < 40))" \
	"new_id: the same $nn strings taken (and listed) or refused as the table says"

echo 10de:2330:nic >"$sk/new_id" && [[ $(ids) == "10de:2330 nic" ]]
ok $? "new_id: echo's trailing newline is fine"
printf 10de:2330:nic >"$sk/remove_id" 2>/dev/null
ok "$((! $?))" "remove_id refuses a kind"
echo "10de 2330" >"$sk/remove_id" && [[ -z $(ids) ]]
ok $? "remove_id takes 'vvvv dddd' (a PCI driver's remove_id)"
printf 10de:2330 >"$sk/remove_id" 2>"$d/e"
rc=$?
ok "$([[ $rc != 0 ]] && grep -q "No such file" "$d/e"; echo $?)" \
	"remove_id of an ID not in the table: ENOENT" "$d/e"
rmmod pcitopo
ok $? "rmmod"

# lists in the parameter: commas, repeats, empty items; a bad item anywhere
insmod "$ko" "extra_ids=1234:1111:gpu,,10de:2330:NIC,1234:1111," &&
	[[ $(ids) == $'1234:1111 gpu\n10de:2330 nic' ]]
ok $? "extra_ids=1234:1111:gpu,,10de:2330:NIC,1234:1111,: two IDs, the repeat kept once"
rmmod pcitopo 2>/dev/null
dmesg -c >/dev/null 2>&1
insmod "$ko" "extra_ids=1234:1111:gpu,10de:233" 2>/dev/null
rc=$?
ok "$([[ $rc != 0 ]] && dmesg | grep -q 'extra_ids: bad item "10de:233"'; echo $?)" \
	"extra_ids=1234:1111:gpu,10de:233: the load fails and the log names the item"
[[ ! -d /sys/module/pcitopo ]] || rmmod pcitopo

rm -rf "$d"
echo "1..$n"
((failed == 0))
