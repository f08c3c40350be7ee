#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest checks of topoctl (run by tests/vm/guest/layout-checks.sh in t-layouts.sh)
# against the layout the guest was booted in. Prints TAP, exits 1 on failure.
#
# What a user would check: `topoctl topo` as nvidia-smi prints it (golden
# file per layout, tests/vm/golden/guest-topo-LAYOUT.txt, checked by hand against
# the layout's expect section), -j output parsed by jq (layout, GPUs, path
# classes from the layout JSON), the NCCL export read as NCCL reads it, the
# sysfs source (libpci) giving what the module gives, a snapshot replayed
# with --sysfs, monitor -j following a switch removal and rescan, errors that
# name what is wrong, and the fallback when the module is not loaded.
#
# The topo output is also left in $PCITOPO_OUT/topo-LAYOUT.txt: with
# PCITOPO_RESULTS=DIR run-guest keeps it, to make a new golden file (check it
# by hand against the layout's expect section before committing it).
#
# The stand-in GPUs are extra IDs (guest/standins.sh: the module's
# extra_ids, TOPOCTL_EXTRA_IDS for the sysfs source); section 0 is
# guest/check_server.sh (the BMC's VGA, Soft-RoCE rxe0, both sources).
set -uo pipefail
root=${PCITOPO_ROOT:?run me through tests/vm/run-guest}
lay=${PCITOPO_LAYOUT_FILE:?}
L=${PCITOPO_LAYOUT:?}
T=$root/cli/topoctl
golden=$root/tests/vm/golden/guest-topo-$L.txt
# shellcheck source=standins.sh
. "$root/tests/vm/guest/standins.sh"
tmp=$(mktemp -d /tmp/check_topoctl.XXXXXX)
TAP_PREFIX="$L: "
# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"
t() { "$@" >/dev/null 2>&1; echo $?; }	# exit status of a command, quietly
gen() { cat /sys/kernel/pcitopo/generation 2>/dev/null; }
wait_gen() { # wait_gen OLD: until the generation differs (15 s), settle
	local i
	for ((i = 0; i < 300; i++)); do
		if [[ -n $(gen) && $(gen) != "$1" ]]; then
			sleep 0.5
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# QEMU ids -> guest addresses, through the slot numbers (as check_module.py):
# the slots' addresses read by the shell, then one jq for the whole map (a jq
# costs ~0.7 s under TCG; one per id was ~20 s a layout)
ids_json() {
	local s d
	for s in /sys/bus/pci/slots/*/address; do
		[[ -r $s ]] || continue
		d=${s%/address}
		printf '%s %s.0\n' "${d##*/}" "$(<"$s")"
	done | jq -c -R -n --slurpfile lay "$lay" '
		([inputs | split(" ") | {key: .[0], value: .[1]}] | from_entries) as $addr |
		($lay[0] | [.root_ports[], .switches[].ports[]] |
		 map({key: .id, value: (.slot | tostring)}) | from_entries) as $slot |
		[$lay[0] | (.endpoints[] | {key: .id, value: .port}),
		 (.switches[] | {key: .id, value: .parent})] |
		map(.value = ($addr[$slot[.value] // ""] // "")) | from_entries'
}

# --- 0. what every real server has: a BMC's VGA, an RDMA NIC ----------------
# shellcheck source=check_server.sh
. "$root/tests/vm/guest/check_server.sh"

# --- 1. module not loaded yet: the sysfs fallback ----------------------------
if [[ -d /sys/module/pcitopo ]]; then
	rmmod pcitopo
fi
"$T" --source netlink topo >"$tmp/o" 2>"$tmp/e"
rc=$?
[[ $rc == 1 && ! -s $tmp/o ]] &&
	grep -qx "topoctl: pcitopo module not loaded (modprobe pcitopo)" "$tmp/e"
ok $? "no module: --source netlink says 'pcitopo module not loaded (modprobe pcitopo)', exit 1" "$tmp/e"
"$T" -j topo >"$tmp/fb.json" 2>"$tmp/e"
rc=$?
# the note on stderr is the document's "source_note" too
[[ $rc == 0 && $(wc -l <"$tmp/e") == 1 ]] && grep -q "reading sysfs instead" "$tmp/e" &&
	jq -e --arg n "$(sed 's/^topoctl: note: //' "$tmp/e")" \
		'.source == "sysfs" and .generation == 0 and .source_note == $n' "$tmp/fb.json" >/dev/null
ok $? "no module: -j topo falls back to sysfs, one note on stderr, the same as .source_note" "$tmp/e"
"$T" monitor >"$tmp/o" 2>"$tmp/e"
[[ $? == 1 ]] && grep -q "modprobe pcitopo" "$tmp/e"
ok $? "no module: monitor needs the module (exit 1)" "$tmp/e"

# --- 2. with the module ------------------------------------------------------
pt_insmod
ok $? "insmod pcitopo.ko extra_ids=$PT_GPU_IDS:gpu"
for ((i = 0; i < 100; i++)); do [[ -n $(gen) ]] && break; sleep 0.05; done
ids=$(ids_json)

"$T" topo >"$tmp/topo.txt" 2>"$tmp/e"
ok $? "topo exits 0" "$tmp/e"
# for a new golden file: PCITOPO_RESULTS=DIR keeps out/ (check it by hand)
cp "$tmp/topo.txt" "${PCITOPO_OUT:-/out}/topo-$L.txt" 2>/dev/null
diff -u "$golden" "$tmp/topo.txt" >"$tmp/d" 2>&1
ok $? "topo matches tests/vm/golden/guest-topo-$L.txt" "$tmp/d"

"$T" -j show >"$tmp/show.json"
jq -e --arg l "$(jq -r .expect.layout "$lay")" \
	--argjson nics "$(jq '[.endpoints[] | select(.kind == "nic")] | length' "$lay")" '
	.layout == $l and .gpus == 8 and .nics == $nics and .source == "netlink" and
	.generation >= 1 and
	([.endpoints[] | select(.kind == "gpu")] | length) == 8 and
	([.endpoints[] | select(.kind == "gpu") | .name] ==
	 ["GPU0","GPU1","GPU2","GPU3","GPU4","GPU5","GPU6","GPU7"])' \
	"$tmp/show.json" >/dev/null
ok $? "-j show: layout $(jq -r .layout "$tmp/show.json"), 8 GPUs named in bus order, NICs" "$tmp/show.json"

# every GPU's switch and root port, as the layout expects
jq -e --argjson ids "$ids" --slurpfile lay "$lay" '
	[.endpoints[] | select(.kind == "gpu")] as $g |
	[$lay[0].expect.gpus | to_entries[] |
	 .key as $k | .value as $w | $ids[$k] as $a |
	 ($g | map(select(.addr == $a)) | .[0]) as $d |
	 ($d != null and $d.switch == $ids[$w.switch] and $d.numa_node == $w.numa_node)]
	| all' "$tmp/show.json" >/dev/null
ok $? "-j show: every GPU on its switch and NUMA node" "$tmp/show.json"

"$T" -j topo >"$tmp/topo.json"
# every NIC, for the checks after a switch's removal (section 6)
"$T" --all-nics topo | sed '/^NIC Legend:/,$d' >"$tmp/topo-all.txt"
"$T" --all-nics -j topo >"$tmp/topo-all.json"
# every NIC (--all-nics): the plain e1000e too, not only rxe0
"$T" -j topo --all-nics >"$tmp/topo-all.json"
jq -e --argjson ids "$ids" --slurpfile lay "$lay" '
	(.devices | map({key: .addr, value: .name}) | from_entries) as $name |
	(.devices | map({key: .name, value: .paths}) | from_entries) as $row |
	[$lay[0].expect.paths | to_entries[] | .key as $a | .value | to_entries[] |
	 select(.key | startswith("nvme") | not) |
	 $row[$name[$ids[$a]]][$name[$ids[.key]]].class == .value]
	| all and length > 50' "$tmp/topo-all.json" >/dev/null
ok $? "-j topo --all-nics: every GPU pair and GPU-NIC class as the layout expects" "$tmp/topo-all.json"
jq -e '(.devices | length) == 9 and
	([.devices[] | select(.name | startswith("GPU"))] | length) == 8 and
	([.devices[].paths[].class] - ["X","PIX","PXB","PHB","NODE","SYS"] | length) == 0' \
	"$tmp/topo.json" >/dev/null
ok $? "-j topo: 8 GPU rows and the RDMA NIC's, only nvidia-smi classes" "$tmp/topo.json"

"$T" -j port list >"$tmp/port.json"
jq -e --argjson sw "$(jq '.switches | length' "$lay")" --argjson ids "$ids" '
	([.[] | select(.role == "upstream") | .addr] | sort) ==
	([$ids | to_entries[] | select(.key | startswith("sw")) | .value] | sort) and
	([.[] | select(.role == "upstream")] | length) == $sw and
	([.[] | select(.role == "root_port" or .role == "root-port")] | length) >= 1 and
	([.[] | select(.role == "downstream")] | length) >= 4 * $sw' \
	"$tmp/port.json" >/dev/null
ok $? "-j port list: the switches' upstream ports, root and downstream ports" "$tmp/port.json"

# NCCL reads: <system><cpu numaid><pci switch-usp><pci gpu|nic/>...
"$T" export --format nccl >"$tmp/nccl.xml"
xmllint --noout "$tmp/nccl.xml" 2>"$tmp/e"
ok $? "export nccl: well-formed XML" "$tmp/e"
x() { xmllint --xpath "$1" "$tmp/nccl.xml" 2>/dev/null; }
bad=0
[[ $(x 'count(/system[@version="1"]/cpu)') -ge 1 ]] || bad=1
[[ $(x 'count(/system/cpu[not(@numaid)])') == 0 ]] || bad=1
[[ $(x 'count(//pci[starts-with(@class,"0x0604")])') == $(jq '.switches | length' "$lay") ]] || bad=1
[[ $(x 'count(//pci[starts-with(@class,"0x03")])') == 8 ]] || bad=1
[[ $(x 'count(//pci[starts-with(@class,"0x02")])') == $(jq '[.endpoints[] | select(.kind == "nic")] | length' "$lay") ]] || bad=1
gpus=0
while read -r g ga usp; do
	((gpus++))
	[[ $(x "count(//pci[@busid=\"$usp\"]/pci[@busid=\"$ga\"])") == 1 ]] || {
		echo "#   $g ($ga) not directly under its switch's <pci busid=\"$usp\">"
		bad=1
	}
done < <(jq -r --argjson ids "$ids" \
	'.expect.gpus | to_entries[] | "\(.key) \($ids[.key]) \($ids[.value.switch])"' "$lay")
((gpus == 8)) || bad=1
for numa in $(jq -r '.expect.gpus[].numa_node' "$lay" | sort -u); do
	[[ $(x "count(/system/cpu[@numaid=\"$numa\"]//pci[starts-with(@class,\"0x03\")])") -ge 1 ]] || bad=1
done
ok "$bad" "export nccl: cpu numaid, one <pci> per switch named after its upstream port, GPUs below it, NICs" "$tmp/nccl.xml"

# --- 3. the sysfs source gives what the module gives ------------------------
"$T" --source sysfs -j topo >"$tmp/s-topo.json" 2>"$tmp/e"
diff <(jq -S 'del(.generation, .source)' "$tmp/topo.json") \
	<(jq -S 'del(.generation, .source)' "$tmp/s-topo.json") >"$tmp/d"
ok $? "--source sysfs -j topo == -j topo (but source, generation)" "$tmp/d"
"$T" export >"$tmp/nl-export.json"
"$T" --source sysfs export >"$tmp/s-export.json"
diff <(jq -S 'del(.summary.generation)' "$tmp/nl-export.json") \
	<(jq -S 'del(.summary.generation)' "$tmp/s-export.json") >"$tmp/d"
ok $? "--source sysfs export == export: every device, link, ACS flag and path" "$tmp/d"
diff <(jq -S 'del(.generation, .source)' "$tmp/topo.json") \
	<(jq -S 'del(.generation, .source, .source_note)' "$tmp/fb.json") >"$tmp/d"
ok $? "automatic fallback before insmod gave the same -j topo (but its source_note)" "$tmp/d"
"$T" --source sysfs show >"$tmp/s-show.txt"
grep -qx "source: sysfs" "$tmp/s-show.txt" && ! grep -q "^generation" "$tmp/s-show.txt"
ok $? "--source sysfs show says 'source: sysfs'" "$tmp/s-show.txt"

# --- 4. snapshot and replay -------------------------------------------------
"$T" snapshot "$tmp/snap" >"$tmp/o" 2>"$tmp/e"
rc=$?
[[ $rc == 0 && -L $tmp/snap/bus/pci/devices/$(jq -r .gpu0 <<<"$ids") ]] &&
	[[ $(stat -c %s "$tmp/snap/bus/pci/devices/$(jq -r .gpu0 <<<"$ids")/config") == 4096 ]]
ok $? "snapshot: device links and 4096-byte config files saved" "$tmp/e"
"$T" --sysfs "$tmp/snap" topo >"$tmp/snap-topo.txt" 2>"$tmp/e"
diff -u "$tmp/topo.txt" "$tmp/snap-topo.txt" >"$tmp/d"
ok $? "--sysfs SNAPSHOT topo == topo on the live machine" "$tmp/d"
"$T" --sysfs "$tmp/snap" export >"$tmp/snap-export.json"
diff <(jq -S 'del(.summary.generation)' "$tmp/nl-export.json") \
	<(jq -S 'del(.summary.generation)' "$tmp/snap-export.json") >"$tmp/d"
ok $? "--sysfs SNAPSHOT export == export" "$tmp/d"
"$T" snapshot "$tmp/snap" >"$tmp/o" 2>"$tmp/e"
[[ $? == 1 ]] && grep -q "not empty" "$tmp/e"
ok $? "snapshot into a non-empty directory refused" "$tmp/e"

# --- 5. errors ---------------------------------------------------------------
"$T" path show GPU0 GPU42 >"$tmp/o" 2>"$tmp/e"
[[ $? == 1 && ! -s $tmp/o ]] && grep -q "GPU42: no such device" "$tmp/e"
ok $? "unknown device GPU42: exit 1, names it" "$tmp/e"
"$T" dev show 0000:zz:00.0 >"$tmp/o" 2>"$tmp/e"
[[ $? == 1 && ! -s $tmp/o ]] && grep -q "0000:zz:00.0: not a device name" "$tmp/e"
ok $? "bad bus address 0000:zz:00.0: exit 1, names it" "$tmp/e"
"$T" port show 0000:7f:1f.7 >"$tmp/o" 2>"$tmp/e"
[[ $? == 1 ]] && grep -q "0000:7f:1f.7" "$tmp/e"
ok $? "absent port 0000:7f:1f.7: exit 1, names it" "$tmp/e"
"$T" --sysfs "$tmp/nowhere" topo >"$tmp/o" 2>"$tmp/e"
[[ $? == 1 ]] && grep -q "$tmp/nowhere" "$tmp/e"
ok $? "--sysfs of a missing directory: exit 1, names it" "$tmp/e"

# --- 6. monitor sees a switch go and come back ------------------------------
victim=sw1
usp=$(jq -r --arg s "$victim" '.[$s]' <<<"$ids")
"$T" -j monitor >"$tmp/mon.json" 2>"$tmp/mon.err" &
mon=$!
sleep 1
g0=$(gen)
echo 1 >"/sys/bus/pci/devices/$usp/remove"
wait_gen "$g0"
ok $? "switch $usp removed: new generation"
g1=$(gen)
echo 1 >/sys/bus/pci/rescan
wait_gen "$g1"
ok $? "rescan: new generation"
sleep 0.5
kill -INT "$mon"
wait "$mon"
ok $? "monitor -j ends with exit 0 on SIGINT" "$tmp/mon.err"
jq -e -s --arg u "$usp" '
	length >= 4 and
	(map(select(.event == "device-del" and .device.addr == $u)) | length) == 1 and
	(map(select(.event == "device-add" and .device.addr == $u)) | length) == 1 and
	(map(select(.event == "layout-change")) | length) >= 2 and
	(map(.generation) | . == sort)' "$tmp/mon.json" >/dev/null
ok $? "monitor -j: one JSON line per event, device-del and device-add of $usp, layout changes" "$tmp/mon.json"
# rxe0 went with nic0's netdev when the switch went, and does not come
# back: the guest cannot give a hot-added switch's devices their BARs, so
# e1000e does not probe nic0 again (on a server, mlx5_N returns with the
# driver's probe). From here on the matrix is compared with every NIC and
# without the NIC legend and RDMA names: the topology, not nic0's identity.
"$T" --all-nics topo | sed '/^NIC Legend:/,$d' >"$tmp/topo2.txt"
diff -u "$tmp/topo-all.txt" "$tmp/topo2.txt" >"$tmp/d"
ok $? "after the rescan, topo --all-nics is as before (but the NIC legend)" "$tmp/d"

# --- 7. module unloaded: fallback with a note -------------------------------
# (every NIC, no RDMA or netdev names: nic0 lost both in section 6)
unnamed='del(.generation, .source, .source_note, .devices[].rdma, .devices[].netdev)'
rmmod pcitopo
ok $? "rmmod pcitopo"
"$T" --all-nics -j topo >"$tmp/fb2.json" 2>"$tmp/e"
rc=$?
[[ $rc == 0 && $(wc -l <"$tmp/e") == 1 ]] && grep -q "reading sysfs instead" "$tmp/e" &&
	diff <(jq -S "$unnamed" "$tmp/topo-all.json") \
		<(jq -S "$unnamed" "$tmp/fb2.json") >/dev/null
ok $? "module unloaded: -j topo falls back to sysfs with one note, same matrix" "$tmp/e"
"$T" --source netlink topo >"$tmp/o" 2>"$tmp/e"
[[ $? == 1 ]] && grep -qx "topoctl: pcitopo module not loaded (modprobe pcitopo)" "$tmp/e"
ok $? "module unloaded: --source netlink -> 'pcitopo module not loaded (modprobe pcitopo)', exit 1" "$tmp/e"

# --- 8. installed, not loaded: the first netlink request loads it -----------
# (MODULE_ALIAS_GENL_FAMILY: the kernel's genl controller asks modprobe for
# net-pf-16-proto-16-family-pcitopo, as for wireguard)
# (the stand-ins' extra IDs in /etc/modprobe.d, as an operator has them)
kd=/lib/modules/$(uname -r)
mkdir -p "$kd/extra" && cp "$PT_KO" "$kd/extra/pcitopo.ko" && depmod && pt_standin_conf
ok $? "pcitopo.ko installed into $kd/extra, depmod, extra IDs in /etc/modprobe.d"
"$T" --source netlink --all-nics -j topo >"$tmp/al.json" 2>"$tmp/e"
rc=$?
[[ $rc == 0 && ! -s $tmp/e ]] && grep -q '^pcitopo ' /proc/modules &&
	diff <(jq -S "$unnamed" "$tmp/topo-all.json") \
		<(jq -S "$unnamed" "$tmp/al.json") >/dev/null
ok $? "installed, not loaded: topoctl --source netlink loads it by its family alias, same matrix" "$tmp/e"
rmmod pcitopo
rm -f "$kd/extra/pcitopo.ko" && depmod

rm -rf "$tmp"
echo "# $L: $n tests, $failed failed"
[[ $failed == 0 ]]
