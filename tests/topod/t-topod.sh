#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topod on the host, end to end, TAP: a private system-like D-Bus
# (dbus-daemon with the shipped policy), the simulated BMC over RMCP+
# (tests/bmc/start-bmc, host stub), topod with the stand-in hardware (no
# module here; the layout is the BMC's), topoctl as the client.
#
#   journal unit test (ASan/UBSan); mux: a switch and its phases, busy,
#   access denied, BMC fault -> rollback, BMC hang -> timeout -> rollback,
#   SIGKILL in the bmc phase -> recovered at restart, not running;
#   dry runs (set --dry-run, PlanLayout): the plan, nothing changed, no-op,
#   holders (--force), unprivileged, during a switch, a BMC that does not
#   answer, -j;
#   switchfw: pending, power cycle, finished at the next start;
#   node labels (NFD's feature file, nfdcheck.py checks it): at start,
#   during a switch, after a commit, a rollback, a drift, while pending, with
#   the directory missing; the label rules' unit test; the checker itself;
#   systemd-analyze verify of the units, udev rules, XML files.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
# shellcheck source-path=SCRIPTDIR source=topod-host.sh
source "$here/topod-host.sh"

make -s -C "$top/daemon" topod-tests >/dev/null || { echo "not ok 1 - build topod"; exit 1; }
make -s -C "$top/cli" >/dev/null || { echo "not ok 1 - build topoctl"; exit 1; }

# --- unit: the journal ------------------------------------------------------
while IFS= read -r line; do
	if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
		ok "$([[ -z ${BASH_REMATCH[1]} ]] && echo 0 || echo 1)" "journal: ${BASH_REMATCH[2]}"
	fi
done < <("$top/daemon/build/san/test_journal" 2>&1)
# --- unit: the node labels' rules and file (nfdlabel.c) ------------------------
while IFS= read -r line; do
	if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
		ok "$([[ -z ${BASH_REMATCH[1]} ]] && echo 0 || echo 1)" "node labels: ${BASH_REMATCH[2]}"
	fi
done < <("$top/daemon/build/san/test_nfd" 2>&1)

# --- nfdcheck.py, the independent checker of the labels: it refuses what NFD
# would not publish (every case here must fail), passes a good file
NC=$(mktemp -d /tmp/t-topod-nfd.XXXXXX)
nfdcheck() { "$here/nfdcheck.py" "$@"; }
printf '# comment\n\nvendor.example/ok=1\nfeature.node.kubernetes.io/flag\n  sub.feature.node.kubernetes.io/x=a.b_c-d  \nex.io/empty=\n' >"$NC/good"
out=$(nfdcheck "$NC/good" 2>&1); rc=$?
ok "$([[ $rc == 0 && $out == $'ex.io/empty=\nfeature.node.kubernetes.io/flag=true\nsub.feature.node.kubernetes.io/x=a.b_c-d\nvendor.example/ok=1' ]] && echo 0 || echo 1)" \
	"nfdcheck.py: a good file passes; its labels sorted, a bare key is true, lines trimmed as NFD does"
while IFS='|' read -r what text; do
	printf '%b' "$text" >"$NC/bad"
	out=$(nfdcheck "$NC/bad" 2>&1); rc=$?
	ok "$([[ $rc == 1 && $out == nfdcheck:* ]] && echo 0 || echo 1)" "nfdcheck.py refuses $what ($out)"
done <<'EOT'
a value of 64 characters|ex.io/v=a234567890123456789012345678901234567890123456789012345678901234\n
a value with a slash|ex.io/v=a/b\n
a value ending in a dot|ex.io/v=a.\n
blanks around the =|ex.io/v = a\n
an unprefixed key|layout=cascade\n
the kubernetes.io namespace|node.kubernetes.io/layout=cascade\n
an upper-case prefix|Ex.io/v=1\n
a name of 64 characters|ex.io/a234567890123456789012345678901234567890123456789012345678901234=1\n
an unknown directive|# +frobnicate\nex.io/v=1\n
a bad expiry-time|# +expiry-time=tomorrow\nex.io/v=1\n
a key given twice|ex.io/v=1\nex.io/v=2\n
EOT
head -c 65537 /dev/zero | tr '\0' '#' >"$NC/big"
out=$(nfdcheck "$NC/big" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"65537 bytes > 65536"* ]] && echo 0 || echo 1)" "nfdcheck.py refuses a file over 64 KiB ($out)"
cp "$NC/good" "$NC/.hidden"
out=$(nfdcheck "$NC/.hidden" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"dot-file"* ]] && echo 0 || echo 1)" "nfdcheck.py refuses a dot-file (NFD skips it)"
echo 'pcitopo.io/layout=cascade' >"$NC/ns"
echo 'pcitopo.feature.node.kubernetes.io/layout=cascade' >"$NC/sub"
out=$(nfdcheck --legacy "$NC/ns" 2>&1); rc=$?
nfdcheck --legacy --extra-label-ns=pcitopo.io "$NC/ns" >/dev/null 2>&1; rc2=$?
nfdcheck "$NC/ns" >/dev/null 2>&1; rc3=$?
nfdcheck --legacy "$NC/sub" >/dev/null 2>&1; rc4=$?
ok "$([[ $rc == 1 && $out == *"-extra-label-ns=pcitopo.io"* && $rc2 == 0 && $rc3 == 0 && $rc4 == 0 ]] && echo 0 || echo 1)" \
	"nfdcheck.py: pcitopo.io/ needs -extra-label-ns before NFD 0.13 (--legacy), not since; NFD's sub-namespace never"
rm -rf "$NC"

# --- the files that ship ----------------------------------------------------
check "dbus policy and polkit action are well-formed XML" quiet \
	xmllint --noout "$top/dbus/org.pcitopo.Topod.conf" "$top/dbus/org.pcitopo.policy" \
	"$top/Documentation/org.pcitopo.Topod1.xml"
tap_from() { # tap_from PREFIX CMD...: renumber another TAP stream into ours
	local prefix=$1 line
	shift
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
			ok "$([[ -z ${BASH_REMATCH[1]} ]] && echo 0 || echo 1)" "$prefix${BASH_REMATCH[2]}"
		fi
	done < <("$@" 2>&1)
}
# the D-Bus names topod and topoctl compile (include/pcitopo/topod1.h)
# against the introspection XML: bus name, path, interface, errors, flags
tap_from "topod1.h vs XML: " python3 "$here/topod1-names.py"
if command -v systemd-analyze >/dev/null; then
	# the units name their installed paths; verify them against the build
	u=$(mktemp -d)
	sed "s|/usr/sbin/topod|$top/daemon/topod/topod|" "$top/systemd/topod.service" >"$u/topod.service"
	sed "s|/usr/libexec/pcitopo/pcitopo-boot|$top/systemd/pcitopo-boot|" \
		"$top/systemd/pcitopo-boot.service" >"$u/pcitopo-boot.service"
	out=$(cd "$u" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
		./topod.service ./pcitopo-boot.service 2>&1)
	ok "$([[ -z $out ]] && echo 0 || echo 1)" "systemd-analyze verify: topod.service, pcitopo-boot.service"
	[[ -n $out ]] && sed 's/^/# /' <<<"$out"
	rm -rf "$u"
fi
check "pcitopo-boot is valid sh" quiet sh -n "$top/systemd/pcitopo-boot"
if udevadm verify --help >/dev/null 2>&1; then
	check "udevadm verify udev/90-pcitopo.rules" quiet udevadm verify "$top/udev/90-pcitopo.rules"
fi
# no udevadm on the host (and 252 has no verify): parse and simulate
tap_from "" "$here/check-rules" "$top/udev/90-pcitopo.rules"

# --- topod --check: the files, before a start ---------------------------------
C=$(mktemp -d /tmp/t-topod-check.XXXXXX)
cp "$top/platforms/emulated-mux.conf" "$C/platform.conf"
printf 'user=admin\npassword=s3cret\n' >"$C/creds"
chmod 600 "$C/creds"
chk_lan='{ transport = "lan"; host = "192.0.2.7"; port = 6230; creds = "'"$C"'/creds"; cipher = 3; }'
chk_conf() { # chk_conf [BMC]: topod.conf in $C, LAN unless BMC is given
	cat >"$C/topod.conf" <<EOC
platform = "$C/platform.conf";
bmc = ${1:-$chk_lan};
state_dir = "$C/state";
check_dmi = true;
EOC
}
chk() { "$TOPOD" --check --config "$C/topod.conf" >"$C/out" 2>"$C/err"; echo $?; }
chk_conf
rc=$(chk)
ok "$([[ $rc == 0 && $(<"$C/out") == *"platform: $C/platform.conf: emulated-mux (\"QEMU\""*"method mux, apply online"* &&
	$(<"$C/out") == *"RMCP+ 192.0.2.7:6230, cipher suite 3, user \"admin\" from $C/creds"* &&
	$(<"$C/out") == *"dmi:      none on this machine: not compared"* &&
	$(<"$C/out") == *"topod --check: ok" && ! -s $C/err && ! -e $C/state ]] && echo 0 || echo 1)" \
	"topod --check: a good LAN setup: platform, BMC and user named, exit 0; no state dir created, nothing contacted"
[[ $rc == 0 ]] || sed 's/^/# /' "$C/out" "$C/err"
chmod 644 "$C/creds"
rc=$(chk)
ok "$([[ $rc == 1 && $(<"$C/err") == *"credentials: $C/creds"*"0644"* && $(<"$C/err") == *"1 problem(s)"* ]] && echo 0 || echo 1)" \
	"topod --check: credentials readable by others: exit 1, the file and its mode named"
sed 's/^/# /' "$C/err"
echo 'frobnicate = 1;' >>"$C/platform.conf"
rc=$(chk)
ok "$([[ $rc == 1 && $(<"$C/err") == *"platform: $C/platform.conf:"[0-9]*"frobnicate"* &&
	$(<"$C/err") == *"credentials: "* && $(<"$C/err") == *"2 problem(s)"* ]] && echo 0 || echo 1)" \
	"topod --check: an unknown platform key and bad credentials: both named (file:line), 2 problems"
sed 's/^/# /' "$C/err"
# a platform for a BMC transport this topod does not have: refused, with
# the ones it has; the rest (the credentials) still checked
cp "$top/platforms/emulated-mux.conf" "$C/platform.conf"
sed -i '1a transport = "snmp";' "$C/platform.conf"
chmod 600 "$C/creds"
rc=$(chk)
ok "$([[ $rc == 1 && $(<"$C/err") == *"platform: $C/platform.conf:2: transport \"snmp\": unknown (known: ipmi, redfish)"* &&
	$(<"$C/err") == *"1 problem(s)"* && $(<"$C/out") == *'user "admin"'* ]] && echo 0 || echo 1)" \
	"topod --check: a platform naming an unknown BMC transport: refused (file:line), the known ones named"
sed 's/^/# /' "$C/err"
cp "$top/platforms/emulated-mux.conf" "$C/platform.conf"
sed -i '1a transport = "ipmi";' "$C/platform.conf"
rc=$(chk)
ok "$([[ $rc == 0 ]] && echo 0 || echo 1)" "topod --check: transport = \"ipmi\" named in the platform: the default, accepted"
chmod 644 "$C/creds"
cp "$top/platforms/emulated-mux.conf" "$C/platform.conf"
chk_conf '{ transport = "inband"; device = "'"$C"'/ipmi9"; }'
rc=$(chk)
ok "$([[ $rc == 1 && $(<"$C/err") == *"$C/ipmi9: no such device (modprobe ipmi_si ipmi_devintf)"* ]] && echo 0 || echo 1)" \
	"topod --check: in-band without the IPMI device: exit 1, the modules to load named"
# topod.conf is as strict as the platform files: a misspelt or misplaced
# key, or a value of the wrong type, is named with its line, never ignored
while IFS='|' read -r bmc extra want; do
	chk_conf "$bmc"
	[[ -n $extra ]] && sed -i "s/^check_dmi = true;/$extra/" "$C/topod.conf"
	rc=$(chk)
	ok "$([[ $rc == 1 && $(<"$C/err") == *"config: $C/topod.conf:"*"$want"* ]] && echo 0 || echo 1)" \
		"topod --check: topod.conf refuses '$bmc${extra:+ $extra}': $want"
	[[ $rc == 1 ]] || sed 's/^/# /' "$C/out" "$C/err"
done <<'EOT'
{ transport = "inband"; host = "10.0.0.5"; }||bmc.host: unknown for transport "inband"
{ transport = "lan"; host = "h"; prot = 623; }||bmc.prot: unknown for transport "lan"
{ transport = "lan"; host = "h"; port = "623"; }||bmc.port: not an integer
{ transport = "lan"; host = "h"; cipher = 17; }||cipher suite 17 (RAKP-HMAC-SHA256) is not supported
{ transport = "inband"; }|check_dmi = 1;|check_dmi: not true or false
{ transport = "inband"; }|hardware = 1;|hardware: topod drives this host's pcitopo.ko and nothing else
{ transport = "inband"; }|nfd_features_dir = 1;|nfd_features_dir: not a string
{ transport = "inband"; }|nfd_features_dir = "features.d";|nfd_features_dir: an absolute path or ""
EOT
chmod 600 "$C/creds"	# a good LAN setup again, as in the first case
# the stand-in hardware is in the tests' build only: the topod that is
# installed has none, and refuses the lines that chose it, saying why
prod=$top/daemon/topod/topod
for line in 'hardware = "fake";' 'fake_bmc_state = "/tmp/x";' 'hardware = "module";'; do
	chk_conf
	sed -i "s|^check_dmi = true;|$line|" "$C/topod.conf"
	"$prod" --check --config "$C/topod.conf" >"$C/out" 2>"$C/err"; rc=$?
	ok "$([[ $rc == 1 && $(<"$C/err") == *"config: $C/topod.conf:4: ${line%% *}: topod drives this host's pcitopo.ko and nothing else; the stand-in hardware is the host tests' (their topod-standin build), never a server's: remove the line"* ]] &&
		echo 0 || echo 1)" "the installed topod refuses '$line' in topod.conf: its line, why, what to do"
	[[ $rc == 1 ]] || sed 's/^/# /' "$C/out" "$C/err"
done
chk_conf
out=$("$prod" --check --config "$C/topod.conf" 2>&1)
sout=$("$TOPOD" --check --config "$C/topod.conf" 2>&1)
ok "$([[ $out == *"hardware: this host's: pcitopo.ko, the ports' pciehp slots or Link Disable, drivers in sysfs"* &&
	$sout == *"hardware: the tests' stand-in (no module"* ]] && echo 0 || echo 1)" \
	"topod --check names the build's hardware: the host's in topod, the stand-in in the tests' topod-standin"
chk_conf
sed -i 's/^check_dmi = true;/nfd_features_dir = "";/' "$C/topod.conf"
rc=$(chk)
ok "$([[ $rc == 0 && $(<"$C/out") == *'labels:   off (nfd_features_dir = "")'* ]] && echo 0 || echo 1)" \
	"topod --check: nfd_features_dir = \"\" is accepted: no node labels"
chk_conf
rc=$(chk)
ok "$([[ $rc == 0 && $(<"$C/out") == *"labels:   /etc/kubernetes/node-feature-discovery/features.d/pcitopo (NFD)"* ]] && echo 0 || echo 1)" \
	"topod --check: the labels go to NFD's features.d by default"

echo 'bmc = {' >"$C/topod.conf"
rc=$(chk)
ok "$([[ $rc == 1 && $(<"$C/err") == *"config: $C/topod.conf:"[0-9]* ]] && echo 0 || echo 1)" \
	"topod --check: a config syntax error: exit 1, file:line named"
sed 's/^/# /' "$C/err"
"$TOPOD" --check extra >/dev/null 2>&1
ok "$([[ $? == 2 ]] && echo 0 || echo 1)" "topod --check with an extra argument: usage, exit 2"

# --- topod --configured (topod.service's ExecCondition), exit 78 ------------
# the shipped topod.conf names no platform: 1 (the unit is skipped, not
# failed), and so does a missing file; anything else 0, a broken file too,
# whose start then fails with 78 (EX_CONFIG: not restarted), the reason in
# the log; a start without a platform is 78 too
cfg() { "$TOPOD" --configured --config "$1" >"$C/out" 2>"$C/err"; echo $?; }
rc=$(cfg "$top/debian/conf/topod.conf")
ok "$([[ $rc == 1 && $(<"$C/out") == *"$top/debian/conf/topod.conf names no platform: not started, this node has nothing to switch"* ]] && echo 0 || echo 1)" \
	"topod --configured: the shipped topod.conf names no platform: exit 1, says so" "$(cat "$C/out" "$C/err")"
rc=$(cfg "$C/nowhere.conf")
ok "$([[ $rc == 1 ]] && echo 0 || echo 1)" "topod --configured: no topod.conf at all: exit 1 (nothing configured)"
chk_conf
rc=$(cfg "$C/topod.conf")
ok "$([[ $rc == 0 && ! -s $C/out ]] && echo 0 || echo 1)" "topod --configured: a platform named: exit 0, silent"
printf 'platform = "%s/no-such.conf";\nbmc = { transport = "inband"; };\nstate_dir = "%s/state";\n' "$C" "$C" >"$C/broken.conf"
rc=$(cfg "$C/broken.conf")
"$TOPOD" --config "$C/broken.conf" >"$C/out" 2>&1
rc2=$?
ok "$([[ $rc == 0 && $rc2 == 78 && $(<"$C/out") == *"$C/no-such.conf"* ]] && echo 0 || echo 1)" \
	"a platform named but missing: --configured 0 (the start decides), the start exits 78 naming the file" "rc=$rc rc2=$rc2 $(<"$C/out")"
echo 'bmc = {' >"$C/syntax.conf"
rc=$(cfg "$C/syntax.conf")
"$TOPOD" --config "$C/syntax.conf" >"$C/out" 2>&1
rc2=$?
ok "$([[ $rc == 0 && $rc2 == 78 ]] && echo 0 || echo 1)" \
	"a topod.conf syntax error: --configured 0, the start exits 78 (a misconfiguration fails loudly)" "rc=$rc rc2=$rc2"
"$TOPOD" --config "$top/debian/conf/topod.conf" >"$C/out" 2>&1
ok "$([[ $? == 78 ]] && echo 0 || echo 1)" "topod started by hand without a platform: exit 78" "$(<"$C/out")"

# --- topod --remove-labels (the package's prerm on removal) -----------------
mkdir -p "$C/nfd"
printf 'pcitopo.feature.node.kubernetes.io/layout=balance\n' >"$C/nfd/pcitopo"
: >"$C/nfd/.pcitopo"
echo 'other=1' >"$C/nfd/other-vendor"
printf 'nfd_features_dir = "%s/nfd";\n' "$C" >"$C/labels.conf"
"$TOPOD" --remove-labels --config "$C/labels.conf" >"$C/out" 2>&1
rc=$?
ok "$([[ $rc == 0 && $(ls -A "$C/nfd") == other-vendor && $(<"$C/out") == *"removed: $C/nfd/pcitopo"* ]] && echo 0 || echo 1)" \
	"topod --remove-labels: the configured features.d loses pcitopo and .pcitopo, nothing else" "rc=$rc $(<"$C/out") $(ls -A "$C/nfd")"
"$TOPOD" --remove-labels --config "$C/labels.conf" >"$C/out" 2>&1
ok "$([[ $? == 0 && ! -s $C/out ]] && echo 0 || echo 1)" "topod --remove-labels again: nothing to remove, exit 0" "$(<"$C/out")"
rm -rf "$C"

# --- mux, online ------------------------------------------------------------
D=$(mktemp -d /tmp/t-topod.XXXXXX)
echo "# work dir $D"
chmod 755 "$D"
# a process holding GPU4 open: its config space, as a sysfs path (a tmpfs over
# /sys/kernel in a mount namespace of its own; /proc/PID/fd shows the path)
holder_start() {
	rm -f "$D/holder.pid"
	(unshare -m --propagation private sh -c 'mount -t tmpfs pcitopo-test /sys/kernel &&
		mkdir -p /sys/kernel/pci0000:00/0000:27:00.0 &&
		: >/sys/kernel/pci0000:00/0000:27:00.0/config &&
		exec 3</sys/kernel/pci0000:00/0000:27:00.0/config &&
		echo $$ >"$1" && exec sleep 120' _ "$D/holder.pid" >/dev/null 2>&1 &)
	wait_for 5 test -s "$D/holder.pid"
}
holder_stop() {
	[[ -n ${D:-} && -s $D/holder.pid ]] && kill "$(cat "$D/holder.pid")" 2>/dev/null
	rm -f "${D:-/nonexistent}/holder.pid"
}
trap 'holder_stop; cleanup_dir "$D"; [[ -n ${D2:-} ]] && cleanup_dir "$D2"; [[ -n ${KEEP:-} ]] || rm -rf "$D" ${D2:+"$D2"}' EXIT
bus_start "$D"
bmc_start "$D" --method mux --busy-ms 1000
topod_conf "$D" emulated-mux 8000
export PCITOPO_BMC_CONSOLE_PORT
console() { "$top/tests/bmc/bmc-console" --port "$PCITOPO_BMC_CONSOLE_PORT" "$@" >/dev/null; }

out=$("$TOPOCTL" status 2>&1)
ok "$([[ $out == *"topod is not running (systemctl start topod)"* ]] && echo 0 || echo 1)" \
	"topoctl status without topod: 'topod is not running'"

topod_start "$D"
ok $? "topod owns org.pcitopo.Topod on the bus"
check "introspection lists SetLayout, Phase, Finished" quiet sh -c \
	"busctl --address=$DBUS_SYSTEM_BUS_ADDRESS introspect org.pcitopo.Topod /org/pcitopo/Topod | grep -q SetLayout"
ok "$([[ $(topod_prop Layout) == balance && $(topod_prop State) == idle ]] && echo 0 || echo 1)" \
	"Layout balance, State idle at start"
# the node labels: DIR/features.d/pcitopo passes nfdcheck.py and holds
# exactly the labels given (NAME=VALUE, under pcitopo.feature.node.
# kubernetes.io/), and no temporary file is left beside it
NFDP=pcitopo.feature.node.kubernetes.io
labels_are() { # labels_are DIR NAME=VALUE...
	local dir=$1 got want
	shift
	got=$("$here/nfdcheck.py" "$dir/features.d/pcitopo" 2>&1) || { sed 's/^/# /' <<<"$got"; return 1; }
	got=$(LC_ALL=C sort <<<"$got")
	want=$(printf "$NFDP/%s\n" "$@" | LC_ALL=C sort)
	[[ $got == "$want" && ! -e $dir/features.d/.pcitopo ]] && return 0
	diff <(echo "$want") <(echo "$got") | sed 's/^/# /'
	return 1
}
mux=(apply=online gpus=8 switchable.balance=true switchable.common=true switchable.cascade=true)
p2p_balance=(p2p=across-sockets p2p.class=SYS)
p2p_common=(p2p=root-complex p2p.class=PHB)
p2p_cascade=(p2p=within-switches p2p.class=PXB)
labels_are "$D" "${mux[@]}" layout=balance state=idle "${p2p_balance[@]}"
ok $? "node labels at start: layout balance, 8 GPUs, idle, online, p2p across sockets (SYS), the 3 layouts switchable"
ok "$([[ $(stat -c %a "$D/features.d/pcitopo") == 644 ]] && echo 0 || echo 1)" "node labels: the file is 0644 (the NFD worker reads it)"

out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok $rc "topoctl set cascade (mux, online) exits 0"
phases=$(awk '/^  / && $2 == "done" {print $1}' <<<"$out" | tr '\n' ' ')
ok "$([[ $phases == "preflight quiesce detach bmc reenumerate verify restore commit " ]] && echo 0 || echo 1)" \
	"every phase announced in order, with its time ($phases)"
ok "$([[ $(topod_prop Layout) == cascade && $(bmc_current) == 3 ]] && echo 0 || echo 1)" \
	"afterwards: Layout cascade, and the BMC's current layout is cascade"
ok "$([[ $(topod_prop Generation) == 1 ]] && echo 0 || echo 1)" "Generation counts the switch"
labels_are "$D" "${mux[@]}" layout=cascade state=idle "${p2p_cascade[@]}"
ok $? "node labels after the commit: layout cascade, idle, p2p within switches (PXB), nothing pending"
ok "$([[ ! -e $D/state/job && ! -e $D/state/fake-detached ]] && echo 0 || echo 1)" \
	"no journal left, nothing detached"
json=$("$TOPOCTL" -j status)
ok "$(jq -e '.layout == "cascade" and .state == "idle" and .platform == "emulated-mux"' <<<"$json" >/dev/null && echo 0 || echo 1)" \
	"topoctl -j status: JSON"

out=$("$TOPOCTL" set diagonal 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"not a layout"* ]] && echo 0 || echo 1)" "an unknown layout: InvalidLayout"

# --- dry runs: topoctl set --dry-run (PlanLayout) ----------------------------
# what must not move: the BMC (its status and its state file: job id and
# state, layout), the stand-in's detach flag and topod's state dir (journal,
# committed state), State and Generation; and no signal from topod
bmc_status() { $PCITOPO_BMC_IPMITOOL raw 0x3c 0x21 2>&1; }	# state cur pend job err
untouched() {
	echo "bmc: $(bmc_status)"
	cat "$PCITOPO_BMC_STATE"
	(cd "$1/state" && ls -la --time-style=+%s.%N | grep -v ' \.\.$' && cat -- * 2>/dev/null)
	echo "State=$(topod_prop State) Generation=$(topod_prop Generation) Layout=$(topod_prop Layout)"
}
before=$(untouched "$D")
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" monitor --match "sender='org.pcitopo.Topod'" \
	>"$D/dry.mon" 2>&1 &
mon=$!
sleep 0.3
out=$("$TOPOCTL" set balance --dry-run 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $out == *"Verdict:     would proceed: cascade -> balance"* ]] && echo 0 || echo 1)" \
	"dry run cascade -> balance: exit 0, would proceed"
ok "$([[ $out == *"Detach:      GPU4 0000:27:00.0, GPU5 0000:28:00.0, GPU6 0000:29:00.0, GPU7 0000:2a:00.0"* &&
	$out == *"BMC:         127.0.0.1: done, job 1, current cascade, pending none"* &&
	$out == *"BMC Select:  yes, once"* && $out == *"Power cycle: not needed"* &&
	$out == *"Budget:      up to 28.0 s"* && $out == *"Holders:     none"* ]] && echo 0 || echo 1)" \
	"dry run: the GPUs it would detach (GPUn, address), the BMC's status, the Select, no power cycle, the budget"
json=$("$TOPOCTL" -j set balance --dry-run); rc=$?
ok "$([[ $rc == 0 ]] && jq -e '.verdict == "proceed" and .proceed and .error == null and
	.current_layout == "cascade" and .target_layout == "balance" and (.noop | not) and .checked and
	.outcome == "online" and .method == "mux" and .apply == "online" and .select and .detach and
	(.power_cycle_needed | not) and (.power_cycle_allowed | not) and .budget_ms == 28000 and
	.state == "idle" and .authorization == "yes" and .gpus == 8 and .gpus_expected == 8 and
	([.moving_gpus[].name] == ["GPU4", "GPU5", "GPU6", "GPU7"]) and .moving_gpus[0].address == "0000:27:00.0" and
	(.detach_ports | length) == 4 and .holders == [] and
	.bmc.reachable and .bmc.state == "done" and .bmc.job == 1 and .bmc.current == "cascade" and .bmc.pending == null and
	([.units[].name] == ["nvidia-persistenced.service", "nvidia-dcgm.service", "nvidia-fabricmanager.service"]) and
	([.units[] | select(.stop)] == [])' <<<"$json" >/dev/null && echo 0 || echo 1)" \
	"dry run -j: one JSON object, every field as expected"
out=$("$TOPOCTL" set cascade --dry-run 2>&1); rc=$?
json=$("$TOPOCTL" -j set cascade --dry-run)
ok "$([[ $rc == 0 && $out == *"would proceed: already in cascade, nothing to switch"* && $out == *"BMC Select:  no"* ]] &&
	jq -e '.noop and .outcome == "none" and (.select | not) and (.detach | not) and .budget_ms == 0' <<<"$json" >/dev/null &&
	echo 0 || echo 1)" "dry run to the current layout: a no-op, nothing selected or detached"
out=$("$TOPOCTL" set diagonal --dry-run 2>&1); rc=$?
ok "$([[ $rc == 2 && $out == *'"diagonal" is not a layout (balance, common, cascade)'* ]] && echo 0 || echo 1)" \
	"dry run of an unknown layout: the usual InvalidLayout, exit 2 ($out)"
out=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.pcitopo.Topod /org/pcitopo/Topod \
	org.pcitopo.Topod1 PlanLayout st balance 8 2>&1); rc=$?
ok "$([[ $rc != 0 && $out == *"unknown flags 0x8"* ]] && echo 0 || echo 1)" "PlanLayout with an unknown flag: InvalidArgs"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOPOCTL" set balance --dry-run 2>&1); rc=$?
ok "$([[ $rc == 0 && $out == *"would proceed"* && $out == *"You:         may not switch"* ]] && echo 0 || echo 1)" \
	"dry run by nobody (no polkit): allowed, would proceed, says nobody may not switch"
sleep 0.3
kill "$mon" 2>/dev/null; wait "$mon" 2>/dev/null
after=$(untouched "$D")
ok "$([[ $after == "$before" ]] && echo 0 || echo 1)" \
	"after the dry runs: BMC status and state (job id, layout) as before, state dir and journal untouched, State idle"
[[ $after == "$before" ]] || diff <(echo "$before") <(echo "$after") | sed 's/^/# /'
ok "$(grep -q 'Type=method_return' "$D/dry.mon" && ! grep -q 'Type=signal' "$D/dry.mon" && echo 0 || echo 1)" \
	"dry runs: answered, and no signal from topod (no Phase, no property change)"

if holder_start; then
	hp=$(cat "$D/holder.pid")
	out=$("$TOPOCTL" set balance --dry-run 2>&1); rc=$?
	echo "$out" | sed 's/^/# /'
	json=$("$TOPOCTL" -j set balance --dry-run)
	ok "$([[ $rc == 1 && $out == *"Verdict:     would be refused (DeviceBusy): GPU 0000:27:00.0 is in use: pid $hp (sleep) holds /sys/kernel/pci0000:00/0000:27:00.0/config"* ]] &&
		jq -e --argjson pid "$hp" '.verdict == "refused" and .error == "DeviceBusy" and
		.holders == [{"gpu": "0000:27:00.0", "pid": $pid, "comm": "sleep",
			"file": "/sys/kernel/pci0000:00/0000:27:00.0/config"}]' <<<"$json" >/dev/null && echo 0 || echo 1)" \
		"dry run with GPU4 held open: would be refused (DeviceBusy), names the holder (pid, command, file)"
	real=$("$TOPOCTL" set balance 2>&1); rc=$?
	msg=$(jq -r .message <<<"$json")
	ok "$([[ $rc == 1 && -n $msg && $real == *"topoctl: set: $msg"* && $(bmc_current) == 3 ]] && echo 0 || echo 1)" \
		"the real switch is refused with the same message, and does nothing"
	out=$("$TOPOCTL" set balance --dry-run --force 2>&1); rc=$?
	ok "$([[ $rc == 0 && $out == *"would proceed"* && $out == *"pid $hp (sleep) holds"*"(--force: switching anyway)"* ]] && echo 0 || echo 1)" \
		"dry run --force with the holder: would proceed, and still names the holder"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOPOCTL" set balance --dry-run 2>&1); rc=$?
	json=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOPOCTL" -j set balance --dry-run)
	ok "$([[ $rc == 1 && $out == *"would be refused (DeviceBusy): GPU 0000:27:00.0 is in use: 1 process(es)"* &&
		$out != *"pid $hp"* && $out != *"/config"* ]] &&
		jq -e '.holders == [{"gpu": "0000:27:00.0", "pid": null, "comm": null, "file": null}]' <<<"$json" >/dev/null &&
		echo 0 || echo 1)" "dry run by nobody with the holder: refused, the holder counted but not named"
	holder_stop
else
	for w in "dry run with GPU4 held open" "the real switch refused the same way" "dry run --force with the holder" \
		"dry run by nobody with the holder"; do
		skip "$w" "no mount namespace (unshare -m) here"
	done
fi

# two at once: one gets Busy
"$TOPOCTL" set balance >"$D/first.out" 2>&1 &
first=$!
wait_for 10 sh -c "[ \"\$(busctl --address=$DBUS_SYSTEM_BUS_ADDRESS get-property org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 State)\" = 's \"switching\"' ]"
during=$("$here/nfdcheck.py" "$D/features.d/pcitopo" 2>&1)	# the BMC's 1 s job holds the switch
out=$("$TOPOCTL" set common 2>&1); rc=$?
dry=$("$TOPOCTL" set common --dry-run 2>&1); rcd=$?
json=$("$TOPOCTL" -j set common --dry-run)
wait $first; rc1=$?
ok "$([[ $rc == 1 && $out == *"busy"* ]] && echo 0 || echo 1)" "a second request during a switch: busy ($out)"
ok "$([[ $rcd == 1 && $dry == *"would be refused (Busy): a switch to balance is in progress"* ]] &&
	jq -e '.error == "Busy" and (.checked | not) and .state == "switching" and .phase != null' <<<"$json" >/dev/null &&
	echo 0 || echo 1)" "a dry run during a switch: would be refused, a switch to balance in progress (Busy)"
ok "$rc1" "the first request still completes"
ok "$([[ $during == *"$NFDP/state=switching"* && $during == *"$NFDP/pending=balance"* ]] && echo 0 || echo 1)" \
	"node labels during the switch: state switching, pending balance"
ok "$([[ $(topod_prop Layout) == balance ]] && echo 0 || echo 1)" "and its layout holds"

# unprivileged, polkit absent: root only
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOPOCTL" set cascade 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"access denied"* ]] && echo 0 || echo 1)" \
	"SetLayout by nobody without polkit: access denied"
check "but nobody may read the status" quiet setpriv --reuid=65534 --regid=65534 --clear-groups "$TOPOCTL" status
ok "$([[ $(bmc_current) == 1 ]] && echo 0 || echo 1)" "and nothing was switched"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOPOCTL" set cascade --dry-run 2>&1); rc=$?
ok "$([[ $rc == 0 && $out == *"would proceed"* ]] && echo 0 || echo 1)" \
	"while nobody's dry run of the same switch is allowed (no more privilege than status)"

# a BMC that does not answer: the dry run says so; and while a dry run
# waits for it, a real switch is not Busy (it meets the silent BMC itself),
# and the dry run, answering after that switch started, says Busy
kill -STOP "$PCITOPO_BMC_PID"
json=$("$TOPOCTL" -j set cascade --dry-run); rc=$?
ok "$([[ $rc == 1 ]] && jq -e '.error == "BMC" and (.bmc.reachable | not) and .bmc.error != null and
	.bmc.state == null and .current_layout == "balance" and .gpus == 8' <<<"$json" >/dev/null && echo 0 || echo 1)" \
	"dry run with the BMC not answering: would be refused (BMC), BMC not reachable, the rest still checked"
jq -c '{error, message, bmc}' <<<"$json" 2>&1 | sed 's/^/# /'
"$TOPOCTL" -j set cascade --dry-run >"$D/nobmc.json" 2>&1 &
dpid=$!
sleep 0.3
out=$("$TOPOCTL" set cascade 2>&1); rc=$?
wait $dpid; rcd=$?
kill -CONT "$PCITOPO_BMC_PID"
ok "$([[ $rc == 1 && $out != *"busy"* && $out == *"BMC"* ]] && echo 0 || echo 1)" \
	"a real switch while a dry run waits for the BMC: not Busy (it meets the silent BMC itself)"
ok "$([[ $rcd == 1 ]] && jq -e '.error == "Busy" and .checked and (.bmc.reachable | not)' "$D/nobmc.json" >/dev/null &&
	echo 0 || echo 1)" "and that dry run, answered after the switch began: would be refused (Busy)"
echo "$out" | sed 's/^/# real: /'
jq -c '{error, message, checked}' "$D/nobmc.json" 2>&1 | sed 's/^/# dry run: /'
wait_for 10 sh -c "$PCITOPO_BMC_IPMITOOL raw 0x3c 0x21"
ok "$([[ $(bmc_current) == 1 && $(topod_prop State) == idle ]] && echo 0 || echo 1)" "the BMC back, still balance, State idle"

# BMC fault -> rollback
console pcitopo_fail_next
out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 1 && $out == *"failed (error 2)"* ]] && echo 0 || echo 1)" "a failing BMC job: exit 1 with the BMC's error"
ok "$([[ $out == *"rollback-verify"*done* ]] && echo 0 || echo 1)" "rolled back and verified"
ok "$([[ $(topod_prop Layout) == balance && $(bmc_current) == 1 && $(topod_prop State) == idle ]] && echo 0 || echo 1)" \
	"back in balance, State idle"
ok "$([[ $(topod_prop LastError) == *"failed (error 2)"* ]] && echo 0 || echo 1)" "LastError says why"
labels_are "$D" "${mux[@]}" layout=balance state=idle "${p2p_balance[@]}"
ok $? "node labels after the failed switch: balance, idle, no pending (cleared)"
ok "$([[ ! -e $D/state/fake-detached ]] && echo 0 || echo 1)" "nothing left detached"

# BMC hang -> timeout (status read, no second select) -> rollback
console pcitopo_hang
nfail=$(grep -c "bmc: failed" "$D/topod.log")
"$TOPOCTL" set common >"$D/hang.out" 2>&1 &
pid=$!
wait_for 20 sh -c "[ \$(grep -c 'bmc: failed' $D/topod.log) -gt $nfail ]"
console pcitopo_unhang
wait $pid; rc=$?
sed 's/^/# /' "$D/hang.out"
ok "$([[ $rc == 1 ]] && grep -q "still busy after 8000 ms" "$D/hang.out" && echo 0 || echo 1)" \
	"a hung BMC job: Timeout after the budget"
ok "$([[ $(topod_prop Layout) == balance && $(bmc_current) == 1 ]] && echo 0 || echo 1)" \
	"rolled back to balance once the BMC let go"
ok "$(grep -q "rollback-bmc: done.*BMC job [0-9]* done: current balance" "$D/topod.log" && echo 0 || echo 1)" \
	"the rollback waited for the hung job, then selected balance again"
j1=$(sed -n 's/.*BMC job \([0-9]*\) still busy.*/\1/p' "$D/hang.out" | head -1)
j2=$(sed -n 's/.*rollback-bmc: done.*BMC job \([0-9]*\) done.*/\1/p' "$D/topod.log" | tail -1)
ok "$([[ -n $j1 && $j2 == $((j1 + 1)) ]] && echo 0 || echo 1)" \
	"one Select for the switch, one for the rollback: never resent (jobs $j1, $j2)"

# SIGKILL in the bmc phase -> the next start finishes it
"$TOPOCTL" set cascade --no-wait >/dev/null 2>&1
wait_for 10 grep -q '^phase=bmc' "$D/state/job"
topod_stop "$D" KILL
ok "$([[ -e $D/state/job && -e $D/state/fake-detached ]] && echo 0 || echo 1)" \
	"killed mid-switch: journal on disk, GPUs detached"
topod_start "$D"
wait_for 20 sh -c "[ \"\$(busctl --address=$DBUS_SYSTEM_BUS_ADDRESS get-property org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 State)\" = 's \"idle\"' ] && [ ! -e $D/state/job ]"
ok "$([[ ! -e $D/state/job && ! -e $D/state/fake-detached ]] && echo 0 || echo 1)" \
	"restarted: journal done, nothing left detached"
l=$(topod_prop Layout)
ok "$([[ $l == cascade && $(bmc_current) == 3 ]] && echo 0 || echo 1)" \
	"the Select had gone out: the switch was finished (Layout $l)"

# SIGKILL in detach (before the Select) -> rolled back
"$TOPOCTL" set common --no-wait >/dev/null 2>&1
wait_for 10 grep -q '^phase=bmc' "$D/state/job"
topod_stop "$D" KILL
# make it look as if it died before the Select went out
sed -i 's/^phase=bmc/phase=detach/; s/^bmc_sent=1/bmc_sent=0/' "$D/state/job"
console pcitopo_state
topod_start "$D"
wait_for 20 sh -c "[ ! -e $D/state/job ]"
sleep 0.5
l=$(topod_prop Layout)
ok "$([[ $l == cascade && $(bmc_current) == 3 && ! -e $D/state/fake-detached ]] && echo 0 || echo 1)" \
	"killed before the Select (per journal): rolled back to cascade ($l)"
ok "$([[ $(topod_prop LastError) == *"topod stopped in phase detach"* ]] && echo 0 || echo 1)" \
	"LastError names the interrupted phase"

# --- the switch, hardened (#12): faults at exact points -----------------------
# topod --test-fault WHERE:N[:stop] kills (or stops) itself the Nth time it
# reaches WHERE (fault.c): no sleep hopes to hit a window. The stand-in
# keeps the GPUs' drivers in the state dir (fake-unbound: those without
# one; a rescan probes only what it adds, as the kernel does).
S=$D/state
exited() { [[ $(proc_state "$(cat "$D/topod.pid")") == [ZX]* || $(proc_state "$(cat "$D/topod.pid")") == gone ]]; }
stopped() { [[ $(proc_state "$(cat "$D/topod.pid")") == T ]]; }
nodrv() { cat "$S/fake-unbound" 2>/dev/null | grep -c .; }	# GPUs without a driver
jget() { sed -n "s/^$1=//p" "$S/job" 2>/dev/null; }
idle_again() { wait_for 30 sh -c "[ ! -e $S/job ] && busctl --address=$DBUS_SYSTEM_BUS_ADDRESS get-property org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 State | grep -q idle"; }
topod_stop "$D"

# 1. killed at the third hw_detach: two ports detached, all four moving
# GPUs unbound; the restart rolls back and every GPU has its driver again
TOPOD_ARGS="--test-fault hw_detach:3" topod_start "$D"
"$TOPOCTL" set balance --no-wait >/dev/null 2>&1
wait_for 20 exited
ok "$([[ $(jget unbound) == "0000:27:00.0/fake-gpu,0000:28:00.0/fake-gpu,0000:29:00.0/fake-gpu,0000:2a:00.0/fake-gpu" &&
	$(nodrv) == 4 && $(grep -c . "$S/fake-detached") == 2 ]] && echo 0 || echo 1)" \
	"killed at the 3rd hw_detach: the journal lists the 4 unbound GPUs with their driver, 2 ports detached"
topod_start "$D"
idle_again
ok "$([[ $(topod_prop Layout) == cascade && $(topod_prop State) == idle && $(nodrv) == 0 && ! -e $S/fake-detached &&
	$(topod_prop LastError) == *"topod stopped in phase detach of the switch from cascade to balance"* ]] && echo 0 || echo 1)" \
	"restarted: rolled back to cascade, 8 GPUs, every GPU with its driver again (also the 2 never detached), LastError names the phase"
[[ $(nodrv) == 0 ]] || sed 's/^/# without a driver: /' "$S/fake-unbound"
grep -q "rollback-restore: done.*4 of 4 driver(s) bound again" "$D/topod.log"
ok $? "rollback-restore says the 4 drivers were bound again"

# 1b. killed after the Select with the moving GPUs' slots still down (at
# hw_slot_up, as reenumerate begins): the journal has listed the 4 slots
# since detach, before they went down; the restart finishes the switch
# and brings every slot up again
topod_stop "$D"
TOPOD_ARGS="--test-fault hw_slot_up:1" topod_start "$D"
"$TOPOCTL" set balance --no-wait >/dev/null 2>&1
wait_for 30 exited
ok "$([[ $(jget slots) == "0000:17:00.0/power,0000:18:00.0/power,0000:19:00.0/power,0000:1a:00.0/power" &&
	$(jget bmc_sent) == 1 && $(grep -c . "$S/fake-slots-off" 2>/dev/null) == 4 ]] && echo 0 || echo 1)" \
	"killed after the Select, slots down: the journal lists the 4 slots powered off (power, not link), the stand-in has them off"
topod_start "$D"
idle_again
ok "$([[ $(topod_prop Layout) == balance && $(topod_prop State) == idle && $(grep -c . "$S/fake-slots-off" 2>/dev/null) == 0 &&
	$(nodrv) == 0 ]] && echo 0 || echo 1)" \
	"restarted: the switch finished in balance, every slot up again, every GPU with its driver"
"$TOPOCTL" set cascade >/dev/null 2>&1
ok "$([[ $(topod_prop Layout) == cascade && $(grep -c . "$S/fake-slots-off" 2>/dev/null) == 0 &&
	$(grep "detach: done" "$D/topod.log" | tail -1) == *"4 port(s) detached, 4 slot(s) taken down"* &&
	$(grep "reenumerate: done" "$D/topod.log" | tail -1) == *"4 of 4 slot(s) up"* ]] && echo 0 || echo 1)" \
	"and back to cascade: the 4 slots taken down in detach, up again in reenumerate"

# 4 and 2. a MUX that reports done without moving anything (fake-layout:
# the module stays in cascade): reenumerate stops waiting once all 8 GPUs
# are there, verify says what it saw at once (no Timeout); the rollback,
# stopped at its Select, has taken the GPUs off the bus before it
echo 3 >"$S/fake-layout"
topod_stop "$D"
TOPOD_ARGS="--test-fault bmc_select:2:stop" topod_start "$D"
"$TOPOCTL" set balance >"$D/nomove.out" 2>&1 &
spid=$!
wait_for 30 stopped
ok "$([[ $(grep -c . "$S/fake-detached" 2>/dev/null) == 4 && $(jget phase) == rollback-bmc && $(bmc_current) == 1 ]] && echo 0 || echo 1)" \
	"rollback held at its Select (MUX at balance): the 4 moved GPUs' ports already detached"
kill -CONT "$(cat "$D/topod.pid")"
wait "$spid"; rc=$?
rm -f "$S/fake-layout"
sed 's/^/# /' "$D/nomove.out"
re=$(sed -n 's/.*balance reenumerate: done in \([0-9.]*\) s.*/\1/p' "$D/topod.log" | tail -1)
ok "$([[ $rc == 1 && $(<"$D/nomove.out") == *"the module reports cascade"*"with 8 GPUs, not balance"* &&
	$(<"$D/nomove.out") != *"devices not back"* && -n $re ]] && awk -v t="$re" 'BEGIN { exit !(t < 5) }' && echo 0 || echo 1)" \
	"a MUX that moved nothing: Verify at once, naming what it saw (reenumerate done in ${re:-?} s, budget 20 s), not Timeout"
ok "$([[ $(topod_prop Layout) == cascade && $(bmc_current) == 3 && $(topod_prop State) == idle && $(nodrv) == 0 &&
	! -e $S/fake-detached && $(topod_prop LastError) == *"not balance"* ]] && echo 0 || echo 1)" \
	"and rolled back: cascade, idle, every driver back, LastError the Verify error"

# 3 and 5. links: the rollback's verify refuses a GPU back at x0 (as the
# forward verify does); the rollback fails, State failed, the journal kept
# with the first error; the next start says both and keeps the first
topod_stop "$D"
TOPOD_ARGS="--test-fault bmc_select:1:stop" topod_start "$D"
"$TOPOCTL" set balance >"$D/x0.out" 2>&1 &
spid=$!
wait_for 30 stopped
console pcitopo_fail_next
echo 3 >"$S/fake-link-x0"	# from now on, the moving GPUs are x0 in cascade
kill -CONT "$(cat "$D/topod.pid")"
wait "$spid"; rc=$?
sed 's/^/# /' "$D/x0.out"
le=$(topod_prop LastError)
ok "$([[ $rc == 1 && $(topod_prop State) == failed && $le == *"failed (error 2); rollback to cascade failed: GPU4 (0000:27:00.0): link x0"* ]] && echo 0 || echo 1)" \
	"rollback-verify refuses GPU4 back at x0: State failed, LastError the BMC's error, then the link ($le)"
ok "$([[ $(jget rollback_failed) == 1 && $(jget error) == *"failed (error 2)" && $(jget rollback_error) == *"link x0"* &&
	$(nodrv) == 0 && ! -e $S/fake-detached ]] && echo 0 || echo 1)" \
	"the journal kept: the first error, the rollback's apart; even so nothing detached, every driver back"
rm -f "$S/fake-link-x0"
topod_stop "$D"
topod_start "$D"
idle_again
le=$(topod_prop LastError)
ok "$([[ $(topod_prop Layout) == cascade && $(topod_prop State) == idle && $le == *"failed (error 2); rollback to cascade failed: "*"link x0"*"tried again at the next start"* &&
	$le != *"topod stopped"* ]] && echo 0 || echo 1)" \
	"the next start rolls back; LastError keeps the first error and says the rollback had failed, not that topod stopped ($le)"

# 3. recovery: killed once the Select went out; the switch finished from
# the journal is verified against the journal's links (x0 in balance now)
topod_stop "$D"
TOPOD_ARGS="--test-fault bmc_follow:1" topod_start "$D"
"$TOPOCTL" set balance --no-wait >/dev/null 2>&1
wait_for 20 exited
ok "$([[ $(jget bmc_sent) == 1 && $(jget gpus) == "0000:23:00.0/0000:13:00.0/2500/1/3,"* ]] && echo 0 || echo 1)" \
	"killed after the Select: the journal has it sent, and the GPUs' links from before"
echo 1 >"$S/fake-link-x0"
topod_start "$D"
idle_again
le=$(topod_prop LastError)
rm -f "$S/fake-link-x0"
ok "$([[ $(topod_prop Layout) == cascade && $(bmc_current) == 3 && $(nodrv) == 0 &&
	$le == *"topod stopped in phase bmc"*"finishing the switch failed: GPU4 (0000:27:00.0): link x0"* ]] && echo 0 || echo 1)" \
	"at the restart the BMC is at balance, but GPU4 is x0: not committed, rolled back to cascade, drivers back ($le)"

# 5. the host powered off during the BMC job, which failed: the next boot
# (another boot id) says so, and names the failed job
echo boot-1 >"$S/fake-boot-id"
topod_stop "$D"
TOPOD_ARGS="--test-fault bmc_follow:1" topod_start "$D"
console pcitopo_fail_next
"$TOPOCTL" set balance --no-wait >/dev/null 2>&1
wait_for 20 exited
echo boot-2 >"$S/fake-boot-id"
topod_start "$D"
idle_again
le=$(topod_prop LastError)
rm -f "$S/fake-boot-id"
ok "$([[ $(topod_prop Layout) == cascade && $le == *"the host went down (power cut or reset) in phase bmc of the switch from cascade to balance; the BMC job "*" failed (error 2)"* ]] && echo 0 || echo 1)" \
	"a power cut during a BMC job that failed: LastError says the host went down and names the failed job ($le)"

# drift: the layout changes with no switch asking (here: a Select behind
# topod's back); udev's Recheck (or the module's events) reports it
bus() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
bus monitor --match "type='signal',interface='org.pcitopo.Topod1',member='Drift'" >"$D/drift.mon" 2>&1 &
mon=$!
sleep 0.3
$PCITOPO_BMC_IPMITOOL raw 0x3c 0x20 0x01 0x01 >/dev/null
wait_for 20 sh -c "grep -q '^current=1' $PCITOPO_BMC_STATE"
bus call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Recheck
ok "$([[ $(topod_prop LastError) == "drift: "*"committed layout is cascade"* && $(topod_prop Layout) == balance ]] && echo 0 || echo 1)" \
	"drift: a layout change no switch asked for is reported in LastError"
labels_are "$D" "${mux[@]}" layout=balance state=idle "${p2p_balance[@]}" drift=true
ok $? "node labels in drift: the layout the module reports (balance), drift true"
sleep 0.3
kill "$mon" 2>/dev/null; wait "$mon" 2>/dev/null
ok "$(grep -q 'Drift' "$D/drift.mon" && echo 0 || echo 1)" "drift: and as a Drift signal"
$PCITOPO_BMC_IPMITOOL raw 0x3c 0x20 0x01 0x03 >/dev/null
wait_for 20 sh -c "grep -q '^current=3' $PCITOPO_BMC_STATE"
bus call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Recheck
ok "$([[ -z $(topod_prop LastError) ]] && echo 0 || echo 1)" "drift: cleared once the layout is the committed one again"
labels_are "$D" "${mux[@]}" layout=cascade state=idle "${p2p_cascade[@]}"
ok $? "node labels after the drift cleared: cascade, no drift label"

# pcitopo-boot (pcitopo-boot.service's job) against this topod
boot() { # boot PROFILE-LAYOUT
	echo "$1" >"$D/profile"
	PCITOPO_PROFILE=$D/profile PCITOPO_STATE_DIR=$D/state TOPOCTL=$TOPOCTL \
		"$top/systemd/pcitopo-boot" 2>&1
}
out=$(boot common); rc=$?
ok "$([[ $rc == 0 && $(topod_prop Layout) == common ]] && echo 0 || echo 1)" \
	"pcitopo-boot: profile common applied (online platform: no power cycle)"
out=$(boot common); rc=$?
ok "$([[ $rc == 0 && $out == *"layout common"* && ! -e $D/state/boot-attempt ]] && echo 0 || echo 1)" \
	"pcitopo-boot: next boot, already common: nothing to do ($out)"
echo balance >"$D/state/boot-attempt"
out=$(boot balance); rc=$?
ok "$([[ $rc == 1 && $out == *"did not apply"* && $(topod_prop Layout) == common ]] && echo 0 || echo 1)" \
	"pcitopo-boot: a profile the last boot failed to apply is reported, not retried (no power-cycle loop)"

# the labels' directory missing (NFD not deployed yet): topod says so once,
# however often it is asked, and runs on; once it is there, the next
# refresh (Recheck here) writes the file
topod_stop "$D"
rm -rf "$D/features.d"
topod_start "$D"
rc=$?
for _ in 1 2 3; do "$TOPOCTL" status >/dev/null 2>&1; done
st=$("$TOPOCTL" -j status 2>/dev/null | jq -r .state)
nerr=$(grep -c "node labels (NFD): $D/features.d: No such file or directory; topod goes on without them" "$D/topod.log")
ok "$([[ $rc == 0 && $st == idle && $nerr == 1 && ! -e $D/features.d ]] && echo 0 || echo 1)" \
	"node labels, directory missing: topod runs (State $st), the error logged once ($nerr), nothing created"
mkdir "$D/features.d"
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Recheck
labels_are "$D" "${mux[@]}" layout=common state=idle "${p2p_common[@]}"
ok $? "node labels, directory back: written at the next refresh (common, p2p through the root complex, PHB)"
ok "$(grep -q "node labels (NFD): $D/features.d/pcitopo written again" "$D/topod.log" && echo 0 || echo 1)" \
	"node labels: topod logs that they are written again"
rm "$D/features.d/pcitopo"
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Recheck
labels_are "$D" "${mux[@]}" layout=common state=idle "${p2p_common[@]}"
ok $? "node labels: the file removed by hand is written again at the next refresh"
topod_stop "$D"

# --- switchfw, power cycle --------------------------------------------------
D2=$(mktemp -d /tmp/t-topod.XXXXXX)
chmod 755 "$D2"
bus_start "$D2"
bmc_start "$D2" --method switchfw --busy-ms 1000
$PCITOPO_BMC_IPMITOOL chassis power on >/dev/null
topod_conf "$D2" emulated-switchfw 8000
topod_start "$D2"
before=$(untouched "$D2")
out=$("$TOPOCTL" set cascade --dry-run 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
json=$("$TOPOCTL" -j set cascade --dry-run)
ok "$([[ $rc == 0 && $out == *"Power cycle: needed; not allowed without --power-cycle"* &&
	$out == *"would proceed: cascade becomes pending"* ]] &&
	jq -e '.outcome == "pending" and .power_cycle_needed and (.power_cycle_allowed | not) and .select and
	(.detach | not) and .detach_ports == [] and .method == "switchfw" and .apply == "power-cycle" and
	.budget_ms == 8000' <<<"$json" >/dev/null && echo 0 || echo 1)" \
	"switchfw dry run without --power-cycle: a power cycle needed but not allowed; the layout would become pending"
json=$("$TOPOCTL" -j set cascade --dry-run --power-cycle); rc=$?
ok "$([[ $rc == 0 ]] && jq -e '.outcome == "power-cycle" and .power_cycle_needed and .power_cycle_allowed and
	.budget_ms == 158000' <<<"$json" >/dev/null && echo 0 || echo 1)" \
	"switchfw dry run with --power-cycle: allowed; the budget adds the power cycle and re-enumeration"
ok "$([[ $(untouched "$D2") == "$before" && $(topod_prop PendingLayout) == "" ]] && echo 0 || echo 1)" \
	"switchfw dry runs: nothing pending, nothing changed (BMC, state dir, State)"
out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$rc" "switchfw: topoctl set cascade without --power-cycle exits 0"
ok "$([[ $(topod_prop State) == awaiting-power-cycle && $(topod_prop PendingLayout) == cascade && $(topod_prop Layout) == balance ]] && echo 0 || echo 1)" \
	"State awaiting-power-cycle, PendingLayout cascade, Layout still balance"
fw=(apply=power-cycle gpus=8 switchable.balance=true switchable.common=true switchable.cascade=true)
labels_are "$D2" "${fw[@]}" layout=balance state=awaiting-power-cycle pending=cascade "${p2p_balance[@]}"
ok $? "switchfw node labels: balance, awaiting-power-cycle, pending cascade, apply power-cycle"
out=$("$TOPOCTL" set cascade --power-cycle 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $out == *"power-cycle"*done* ]] && echo 0 || echo 1)" "--power-cycle: the BMC power cycles the host"
wait_for 30 sh -c "grep -q '^current=3' $PCITOPO_BMC_STATE"
ok $? "the host came back in cascade (BMC)"
topod_stop "$D2"	# the "boot": topod starts again
topod_start "$D2"
wait_for 20 sh -c "[ ! -e $D2/state/job ]"
sleep 0.3
ok "$([[ $(topod_prop Layout) == cascade && $(topod_prop State) == idle && -z $(topod_prop PendingLayout) ]] && echo 0 || echo 1)" \
	"at the next start topod verified and committed cascade"
labels_are "$D2" "${fw[@]}" layout=cascade state=idle "${p2p_cascade[@]}"
ok $? "switchfw node labels after the power cycle: cascade, idle, nothing pending"
topod_stop "$D2"

echo "1..$n"
((failed == 0))
