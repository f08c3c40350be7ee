#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topoctl against real servers, TAP: for every fixture in tests/real/servers
# (a public capture of one machine: its PCI tree from lspci and the
# `nvidia-smi topo -m` printed on it), build a sysfs tree (mksysfs.py), read
# it with `topoctl --sysfs DIR topo` and `-j show`, and compare with what
# nvidia-smi printed: GPU count, header names, every GPU-GPU, GPU-NIC and
# NIC-NIC cell, the NIC legend, CPU and NUMA affinity, and the layout the
# fixture expects (topocmp.py). No root, no module, no GPU needed.
#
#   tests/real/t-real.sh [FIXTURE.json...]     (default: all of servers/)
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$(dirname "$here")")
TOPOCTL=${TOPOCTL:-$top/cli/topoctl}
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"


if [[ ! -x $TOPOCTL ]]; then
	make -s -C "$top/cli" >/dev/null 2>&1
fi
if [[ ! -x $TOPOCTL ]]; then
	echo "not ok 1 - build topoctl ($TOPOCTL)"
	exit 1
fi

tmp=$(mktemp -d /tmp/t-real.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if (($# > 0)); then
	fixtures=("$@")
else
	fixtures=("$here"/servers/*.json)
fi

for fx in "${fixtures[@]}"; do
	name=$(basename "$fx" .json)
	d=$tmp/$name
	out=$(python3 "$here/mksysfs.py" "$fx" "$d/sys" 2>&1)
	ok $? "$name: mksysfs.py builds the sysfs tree"
	[[ -n $out ]] && sed 's/^/# /' <<<"$out"
	[[ -d $d/sys/bus/pci/devices ]] || continue
	"$TOPOCTL" --sysfs "$d/sys" topo >"$d/topo.txt" 2>"$d/topo.err"
	rc=$?
	ok $rc "$name: topoctl --sysfs DIR topo exits 0"
	((rc != 0)) && sed 's/^/# /' "$d/topo.err"
	"$TOPOCTL" --sysfs "$d/sys" -j show >"$d/show.json" 2>"$d/show.err"
	rc=$?
	ok $rc "$name: topoctl --sysfs DIR -j show exits 0"
	((rc != 0)) && sed 's/^/# /' "$d/show.err"
	# topocmp.py prints "ok - what"/"not ok - what" and "# ..." lines: number them
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ -\ (.*)$ ]]; then
			ok "$([[ -z ${BASH_REMATCH[1]} ]] && echo 0 || echo 1)" "${BASH_REMATCH[2]}"
		else
			echo "$line"
		fi
	done < <(python3 "$here/topocmp.py" "$fx" "$d/topo.txt" "$d/show.json" 2>&1 ||
		echo "not ok - $name: topocmp.py ran")
	if [[ -n ${T_REAL_VERBOSE:-} ]]; then
		sed 's/^/#   /' "$d/topo.txt"
	fi
done

# doctor on a real tree: ACS P2P redirect (RR+CR) staged on the IGX's switch
# downstream port 0005:02:02.0, which the GPU0-NIC0 path (PXB) crosses below
# its common bridge: an error naming that port; the tree as captured has none
igx=$here/servers/igx-orin-a6000-cx7.json
if [[ -f $igx && $# == 0 ]]; then
	python3 - "$igx" "$tmp/igx-acs.json" <<-'PY'
	import json, sys
	f = json.load(open(sys.argv[1]))
	for d in f["devices"]:
	    if d["addr"] == "0005:02:02.0":
	        d["acs"] = {"cap": "001f", "ctrl": "000c"}
	json.dump(f, open(sys.argv[2], "w"))
	PY
	python3 "$here/mksysfs.py" "$igx" "$tmp/igx-clean" >/dev/null 2>&1 &&
		python3 "$here/mksysfs.py" "$tmp/igx-acs.json" "$tmp/igx-acs" >/dev/null 2>&1
	ok $? "igx-orin-a6000-cx7: trees as captured and with ACS RR+CR on 0005:02:02.0"
	"$TOPOCTL" --sysfs "$tmp/igx-clean" -j doctor >"$tmp/dc.json" 2>/dev/null
	jq -e 'all(.[]; .check != "acs")' "$tmp/dc.json" >/dev/null 2>&1
	ok $? "igx-orin-a6000-cx7: doctor finds no ACS redirect on the tree as captured"
	"$TOPOCTL" --sysfs "$tmp/igx-acs" -j doctor >"$tmp/da.json" 2>/dev/null
	rc=$?
	[[ $rc == 3 ]] && jq -e 'any(.[]; .check == "acs" and .severity == "error" and
		.object == "0005:02:02.0" and (.evidence | test("GPU0-NIC0 PXB")) and
		(.fix | test("setpci -s 0005:02:02.0 ECAP_ACS\\+0x6.w=0000:000c")))' \
		"$tmp/da.json" >/dev/null 2>&1
	ok $? "igx-orin-a6000-cx7: doctor: ACS on 0005:02:02.0 is an error on GPU0-NIC0 PXB, with the setpci fix (exit $rc)"
	"$TOPOCTL" --sysfs "$tmp/igx-acs" topo 2>/dev/null | grep -q $'^GPU0\t X \tPXB\*'
	ok $? "igx-orin-a6000-cx7: topo marks the same path PXB* (one ACS rule)"
fi

echo "# $n checks, $failed failed"
((failed == 0))
