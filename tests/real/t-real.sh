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
n=0
fails=0

ok() { # ok COND_RC DESCRIPTION
	n=$((n + 1))
	if [[ $1 == 0 ]]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fails=$((fails + 1))
	fi
}

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

echo "# $n checks, $fails failed"
((fails == 0))
