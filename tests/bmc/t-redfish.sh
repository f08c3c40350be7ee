#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# topod's Redfish backend against the tests' Redfish BMC
# (bmcsim/redfish-bmc.py), on 127.0.0.1 only, TAP: a test CA and the
# BMC's certificate made here by openssl (another CA for the wrong one);
# the simulator read by an independent client (python3-sushy);
# topod --check (a session created and deleted, TLS refused with the wrong
# CA and accepted with the right one, a pinned key (right, wrong, with a
# CA), tls_verify = false said, HTTP Basic
# without a SessionService, the AttributeRegistry naming what it has for
# an attribute or a value it does not); --discover-redfish, and a
# platform file from its skeleton that --check accepts; then topod with
# the stand-in
# hardware (tests/topod/topod-host.sh) and topoctl: a layout made pending
# through Bios/Settings (its session expiring mid-job: a new one), a stale
# ETag refused with the BMC's words, 503s
# waited out, the power cycle through ComputerSystem.Reset and its
# TaskMonitor, committed at the next start; a value the registry allows
# that the BMC rejects (400, quoted); a reset accepted and never performed
# (still pending at the next start). The zone form (online,
# platforms/emulated-redfish-zones.conf against redfish-bmc.py --form
# zones): redfishtool reading a zone and changing zones by
# Zone.AddEndpoint/RemoveEndpoint; --check naming the fabrics, zones and
# endpoints the BMC has for one it lacks; --discover-redfish listing the
# Fabric; a switch through the zones (removals first, If-Match); a stale
# ETag on a zone's PATCH rolled back; 503s waited out; an endpoint the BMC
# lacks refused by the dry run and the switch. Every session deleted, the
# password in no log.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
# shellcheck source-path=SCRIPTDIR source=../topod/topod-host.sh
source "$here/../topod/topod-host.sh"
SIM=$top/bmcsim/redfish-bmc.py
PY=/usr/bin/python3		# Debian's: the simulator needs nothing else
TOPOD_PLAIN=$top/daemon/topod/topod

make -s -C "$top/daemon" topod-tests >/dev/null || { echo "not ok 1 - build topod"; exit 1; }
make -s -C "$top/cli" >/dev/null || { echo "not ok 1 - build topoctl"; exit 1; }

D=$(mktemp -d /tmp/t-redfish.XXXXXX)
chmod 755 "$D"
# past IPMI's 20 bytes (the creds file's IPMI limit is not Redfish's): every
# check below signs in with it
PW=Rf-s3cret-$RANDOM-a-passphrase-past-ipmi-twenty
sims=()
cleanup() {
	topod_stop "$D/z" KILL
	cleanup_dir "$D"
	for p in "${sims[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$D"
}
trap cleanup EXIT

# --- a test CA, the BMC's certificate (127.0.0.1), a CA that did not sign it
mkcerts() {
	local d=$1
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key" -out "$d/ca.pem" \
		-days 2 -subj "/CN=pcitopo test CA" 2>/dev/null &&
	openssl req -newkey rsa:2048 -nodes -keyout "$d/bmc.key" -out "$d/bmc.csr" \
		-subj "/CN=127.0.0.1" 2>/dev/null &&
	openssl x509 -req -in "$d/bmc.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
		-CAcreateserial -out "$d/bmc.pem" -days 2 \
		-extfile <(printf 'subjectAltName=IP:127.0.0.1\n') 2>/dev/null &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/other.key" -out "$d/other.pem" \
		-days 2 -subj "/CN=pcitopo test CA" 2>/dev/null
}
mkcerts "$D/tls"
ok $? "openssl: a test CA, the BMC's certificate for 127.0.0.1, another CA"
umask 077
printf 'user=admin\npassword=%s\n' "$PW" >"$D/creds"
umask 022

# sim_start NAME ARGS...: the simulator, its port in $PORT, log NAME.log
sim_start() {
	local name=$1
	shift
	rm -f "$D/$name.port"
	"$PY" "$SIM" --cert "$D/tls/bmc.pem" --key "$D/tls/bmc.key" --user admin \
		--password "$PW" --port-file "$D/$name.port" --log "$D/$name.log" \
		--state "$D/$name.state" "$@" 2>"$D/$name.err" &
	sims+=($!)
	wait_for 20 test -s "$D/$name.port" || return 1
	PORT=$(cat "$D/$name.port")
	URL=https://127.0.0.1:$PORT
}
# fault JSON: the simulator's knobs
fault() {
	curl -sf --cacert "$D/tls/ca.pem" -X POST -d "$1" "$URL/_sim/fault"
}
# conf FILE PLATFORM BMC-KEYS...: a topod.conf for the simulator
conf() {
	local f=$1 plat=$2
	shift 2
	mkdir -p "$D/state" "$D/features.d"
	cat >"$f" <<EOC
platform = "$plat";
bmc = { transport = "redfish"; url = "$URL"; creds = "$D/creds"; $* };
state_dir = "$D/state";
check_dmi = false;
nfd_features_dir = "$D/features.d";
EOC
}
count() { if [[ -f $2 ]]; then grep -c -- "$1" "$2"; else echo 0; fi; }

# --- the simulator as an independent client reads it (python3-sushy); the
# CA bundles of the environment would override the test CA in requests
sim_start indep
out=$(env -u REQUESTS_CA_BUNDLE -u CURL_CA_BUNDLE "$PY" "$here/redfish-sushy.py" \
	"$URL" "$D/tls/ca.pem" admin "$PW" 2>&1); rc=$?
eq "$rc: $out" "0: redfish: 1.15.0
attribute: Balance
pending: Cascade
reset types: ForceOff ForceRestart On PowerCycle
after reset: Cascade
fabric: PCIe PCIe max zones 3
endpoints: GPU0/PCIe GPU1/PCIe GPU2/PCIe GPU3/PCIe GPU4/PCIe GPU5/PCIe GPU6/PCIe GPU7/PCIe" "python3-sushy: a session, the Bios attribute, a Settings PATCH pending, a PowerCycle reset applying it; the Fabric and its Endpoints"
ok "$([[ $(count 'session 1 created' "$D/indep.log") == 1 && $(count 'reset: PCIeTopology=Cascade' "$D/indep.log") == 1 ]] && echo 0 || echo 1)" \
	"python3-sushy: the simulator saw its session and its reset" "$D/indep.log"

# --- the BMC topod is tested against: a reset through a TaskMonitor, and a
# Settings PATCH without If-Match refused (topod must send it)
sim_start bmc --task 2 --require-if-match
ok $? "the Redfish BMC listens on 127.0.0.1:$PORT"
root=$(curl -sf --cacert "$D/tls/ca.pem" "$URL/redfish/v1")
ok "$(jq -e '.RedfishVersion and .Links.Sessions["@odata.id"]' <<<"$root" >/dev/null && echo 0 || echo 1)" \
	"its ServiceRoot: RedfishVersion, Links.Sessions (curl, verified against the test CA)"
PLAT=$top/platforms/emulated-redfish.conf

# --- topod --check ------------------------------------------------------------
conf "$D/good.conf" "$PLAT" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/good.conf" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $out == *"PCIeTopology (\"GPU PCIe Topology\"): Balance now, allowed Balance, Common, Cascade"* &&
	$out == *"TLS verified against ca_file"* ]] && echo 0 || echo 1)" \
	"topod --check: the attribute, its value now and the values the BMC allows, from its AttributeRegistry"
ok "$([[ $(count 'session 1 created' "$D/bmc.log") == 1 && $(count 'session 1 deleted' "$D/bmc.log") == 1 ]] && echo 0 || echo 1)" \
	"topod --check: a SessionService session created and deleted" "$D/bmc.log"

conf "$D/wrongca.conf" "$PLAT" "ca_file = \"$D/tls/other.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/wrongca.conf" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 1 && $out == *"bmc: TLS with $URL refused"*"TLS verified against ca_file"* &&
	$(count created "$D/bmc.log") == 1 ]] && echo 0 || echo 1)" \
	"a CA that did not sign the BMC's certificate: refused, named, no session (no password sent)"
conf "$D/sysca.conf" "$PLAT" ""
out=$("$TOPOD_PLAIN" --check --config "$D/sysca.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"refused"*"the system's CAs"* ]] && echo 0 || echo 1)" \
	"no ca_file: the system's CAs, which do not have the test CA: refused" "$out"
# a pinned key: the BMC's (sha256 of its public key, as curl pins it)
# verifies it without a CA; another key is refused
pin() { openssl pkey -in "$1" -pubout -outform DER 2>/dev/null |
	openssl dgst -sha256 -binary | base64; }
conf "$D/pin.conf" "$PLAT" "pinned_key = \"sha256//$(pin "$D/tls/bmc.key")\";"
out=$("$TOPOD_PLAIN" --check --config "$D/pin.conf" 2>&1); rc=$?
ok "$([[ $rc == 0 && $out == *"TLS verified by the pinned key"* && $out == *"Balance now"* ]] && echo 0 || echo 1)" \
	"pinned_key, the BMC's: verified by the pin alone, no CA needed" "$out"
conf "$D/wrongpin.conf" "$PLAT" "pinned_key = \"sha256//$(pin "$D/tls/other.key")\";"
out=$("$TOPOD_PLAIN" --check --config "$D/wrongpin.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"TLS with $URL refused"*"pinned"* ]] && echo 0 || echo 1)" \
	"pinned_key of another key: refused" "$out"
conf "$D/pinca.conf" "$PLAT" "ca_file = \"$D/tls/other.pem\"; pinned_key = \"sha256//$(pin "$D/tls/bmc.key")\";"
out=$("$TOPOD_PLAIN" --check --config "$D/pinca.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"refused"*"against ca_file, key pinned"* ]] && echo 0 || echo 1)" \
	"pinned_key with a ca_file that did not sign the certificate: both must hold, refused" "$out"
conf "$D/noverify.conf" "$PLAT" "tls_verify = false;"
out=$("$TOPOD_PLAIN" --check --config "$D/noverify.conf" 2>&1); rc=$?
ok "$([[ $rc == 0 && $out == *"tls_verify = false: the BMC's certificate is NOT verified"* &&
	$out == *"TLS NOT verified"* ]] && echo 0 || echo 1)" \
	"tls_verify = false: accepted only so, and said" "$out"
conf "$D/http.conf" "$PLAT" "ca_file = \"$D/tls/ca.pem\";"
sed -i "s|https://|http://|" "$D/http.conf"
out=$("$TOPOD_PLAIN" --check --config "$D/http.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"bmc.url"*"is not https://"* ]] && echo 0 || echo 1)" \
	"an http:// url is refused (the password would go in clear)" "$out"

# a platform file whose attribute or value this BMC does not have
sed 's/value = "Cascade"/value = "Cascde"/' "$PLAT" >"$D/badvalue.conf"
conf "$D/badvalue-topod.conf" "$D/badvalue.conf" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/badvalue-topod.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *'layouts.cascade.value "Cascde": not a value of PCIeTopology on this BMC; it allows: Balance, Common, Cascade'* ]] && echo 0 || echo 1)" \
	"--check: a value the BMC does not have is refused, naming the ones it allows" "$out"
sed 's/"PCIeTopology"/"PcieTopology"/' "$PLAT" >"$D/badattr.conf"
conf "$D/badattr-topod.conf" "$D/badattr.conf" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/badattr-topod.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *'bios_attribute "PcieTopology": the BMC'*"has no such attribute; it has: BootMode, SriovGlobalEnable, PCIeTopology, ProcTurboMode"* ]] && echo 0 || echo 1)" \
	"--check: an attribute the BMC does not have is refused, naming the ones it has" "$out"
sed '0,/value = "Cascade"/s//value = "Balance"/' "$PLAT" >"$D/dup.conf"
conf "$D/dup-topod.conf" "$D/dup.conf" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/dup-topod.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"have the same value \"Balance\""* ]] && echo 0 || echo 1)" \
	"a platform file giving two layouts one value is refused" "$out"

# --- topod --discover-redfish: what may be the layout, and a platform file
# from it that --check accepts
printf 'bmc = { transport = "redfish"; url = "%s"; creds = "%s"; ca_file = "%s"; };\n' \
	"$URL" "$D/creds" "$D/tls/ca.pem" >"$D/discover.conf"
out=$("$TOPOD_PLAIN" --discover-redfish --config "$D/discover.conf" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $out == *'PCIeTopology ("GPU PCIe Topology"), Enumeration: Balance now; allowed: Balance, Common, Cascade'* &&
	$out == *'SriovGlobalEnable ("SR-IOV")'* && $out != *BootMode* && $out != *ProcTurboMode* &&
	$out == *"below the part for PCIeTopology"* ]] && echo 0 || echo 1)" \
	"--discover-redfish (a config with only the bmc group): the attributes that mention the topology (PCIe, root), current and allowed values; not the others"
# the skeleton, with the rest of a platform file (name, match, method, moves,
# budgets) from the example, is a file --check accepts against this BMC
{
	sed '/^transport =/,$d; /^apply =/d' "$PLAT"
	sed -n '/^transport =/,/^};/{p;/^};/q}' <<<"$out"	# the BIOS part, not the zones'
	sed -n '/^# GPU4-7/,$p' "$PLAT"
} >"$D/discovered.conf"
conf "$D/discovered-topod.conf" "$D/discovered.conf" "ca_file = \"$D/tls/ca.pem\";"
chk=$("$TOPOD_PLAIN" --check --config "$D/discovered-topod.conf" 2>&1); rc=$?
ok "$([[ $rc == 0 && $chk == *"layouts:  balance (8 GPUs), common (8 GPUs), cascade (8 GPUs)"* ]] && echo 0 || echo 1)" \
	"the skeleton --discover-redfish printed makes a platform file topod --check accepts" "$chk"
out=$("$TOPOD_PLAIN" --discover-redfish --config "$D/discover.conf" --attribute NoSuch 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"the AttributeRegistry has no attribute NoSuch"* ]] && echo 0 || echo 1)" \
	"--discover-redfish --attribute NAME the BMC does not have: refused, named" "$out"

# no SessionService: HTTP Basic
sim_start basic --no-sessions
conf "$D/basic.conf" "$PLAT" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/basic.conf" 2>&1); rc=$?
ok "$([[ $rc == 0 && $out == *"HTTP Basic (no SessionService)"* && $out == *"Balance now"* &&
	$(count session "$D/basic.log") == 0 ]] && echo 0 || echo 1)" \
	"a BMC without a SessionService: HTTP Basic, the registry read" "$out"
printf 'user=admin\npassword=wrong\n' >"$D/badcreds"
chmod 600 "$D/badcreds"
sed -i "s|$D/creds|$D/badcreds|" "$D/basic.conf"
out=$("$TOPOD_PLAIN" --check --config "$D/basic.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"HTTP 401 Unauthorized: \"There is no valid session"* ]] && echo 0 || echo 1)" \
	"a wrong password: HTTP 401, the BMC's message quoted" "$out"
printf 'user=admin\npassword=%s\n' "$(printf 'x%.0s' {1..128})" >"$D/badcreds"
out=$("$TOPOD_PLAIN" --check --config "$D/basic.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"password is 128 bytes, topod's Redfish transport allows at most 127"* ]] && echo 0 || echo 1)" \
	"a password of 128 bytes: refused by --check, naming the limit (a ${#PW}-byte one signs in above)" "$out"
# the edges: a Bios whose attributes are read-only; a service that is not
# Redfish
sim_start ro --no-settings
conf "$D/ro.conf" "$PLAT" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/ro.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"the Bios has no Settings resource (@Redfish.Settings): its attributes are read-only here"* ]] && echo 0 || echo 1)" \
	"--check: a Bios without a Settings resource: its attributes read-only, said" "$out"
sim_start notrf --not-redfish
conf "$D/notrf.conf" "$PLAT" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/notrf.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *"$URL/redfish/v1: not a Redfish service (no RedfishVersion in its ServiceRoot)"* &&
	$(count session "$D/notrf.log") == 0 ]] && echo 0 || echo 1)" \
	"--check: a ServiceRoot that is not Redfish: refused, no credentials sent" "$out"

# back to the session BMC
PORT=$(cat "$D/bmc.port")
URL=https://127.0.0.1:$PORT

# --- topod (stand-in hardware) through Redfish ---------------------------------
bus_start "$D"
conf "$D/topod.conf" "$D/platform.conf" "ca_file = \"$D/tls/ca.pem\"; timeout_ms = 3000;"
sed 's/bmc_job_ms = [0-9]*/bmc_job_ms = 8000/' "$PLAT" >"$D/platform.conf"
ln -sfn "$D/bmc.state" "$D/state/fake-bmc-state"
topod_start "$D"
ok $? "topod (stand-in hardware) starts on the Redfish BMC"
ok "$([[ $(topod_prop Layout) == balance && -z $(topod_prop PendingLayout) ]] && echo 0 || echo 1)" \
	"topod reads the layout from the Bios attribute: balance, nothing pending"
# the BMC drops its sessions in the middle of the job (after the preflight's
# reads and the Select's first): a 401, a new session, the request again
fault '{"expire_after": 3}'
out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $(count 'expired' "$D/bmc.log") == 1 && $(count 'the session is gone; a new one' "$D/topod.log") == 1 ]] && echo 0 || echo 1)" \
	"a session expired mid-job: topod saw the 401 and opened a new one" "$D/topod.log"
ok "$([[ $rc == 0 && $(topod_prop PendingLayout) == cascade && $(topod_prop State) == awaiting-power-cycle &&
	$(count 'PATCH {"PCIeTopology": "Cascade"}' "$D/bmc.log") == 1 ]] && echo 0 || echo 1)" \
	"topoctl set cascade: PCIeTopology=Cascade PATCHed into Bios/Settings, pending until a reset" "$D/bmc.log"
fault '{"etag_race": 1}'
out=$("$TOPOCTL" set common 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc != 0 && $out == *'HTTP 412 Precondition Failed: "The ETag supplied did not match the ETag required to change this resource."'* &&
	$out == *"changed by another client"* && $(count 'PATCH refused' "$D/bmc.log") == 1 &&
	$(count 'PATCH {"PCIeTopology": "Common"}' "$D/bmc.log") == 0 ]] && echo 0 || echo 1)" \
	"another client's change in between: the stale ETag refused (412), the BMC's message quoted, nothing overwritten" "$out"
ok "$([[ $(topod_prop Layout) == balance && -z $(topod_prop PendingLayout) &&
	$(count 'PATCH {"PCIeTopology": "Balance"}' "$D/bmc.log") == 1 ]] && echo 0 || echo 1)" \
	"the failed switch rolled back: Balance PATCHed back into Bios/Settings, nothing pending" "$D/bmc.log"
# an attribute the registry allows the value of, which the BMC refuses
# anyway (400, its own rule): the switch fails quoting it, nothing pending
fault '{"reject_value": 1}'
out=$("$TOPOCTL" set common 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc != 0 && $out == *"HTTP 400 Bad Request: \"The property 'PCIeTopology' could not be written because its value would conflict with the value of the 'SriovGlobalEnable' property.\""* &&
	$(count 'PATCH rejected: PCIeTopology' "$D/bmc.log") == 1 && $(topod_prop Layout) == balance &&
	-z $(topod_prop PendingLayout) ]] && echo 0 || echo 1)" \
	"a value the registry allows but the BMC rejects (400): refused, its @Message.ExtendedInfo quoted, nothing pending" "$out"
# the reset's Task fails: the power cycle fails with the BMC's words, the
# layout stays pending
fault '{"task_fail": 1}'
out=$("$TOPOCTL" set cascade --power-cycle 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc != 0 && $out == *'ComputerSystem.Reset: task /redfish/v1/TaskService/TaskMonitors/1: Exception: "The host did not power off within the time allowed."'* &&
	$(count 'task 1 failed' "$D/bmc.log") == 1 && $(sed -n 's/^current=//p' "$D/bmc.state") == 1 ]] && echo 0 || echo 1)" \
	"the reset's Task ends in Exception: the power cycle fails quoting its message, nothing applied" "$out"
ok "$([[ $(topod_prop PendingLayout) == cascade && $(topod_prop Layout) == balance ]] && echo 0 || echo 1)" \
	"after the failed reset cascade is still pending, balance in effect"
# a reset the BMC answers as done and never performs: at the next start
# topod finds cascade still pending, and says so; nothing is committed
fault '{"reset_noop": 1}'
out=$("$TOPOCTL" set cascade --power-cycle 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $(count 'reset PowerCycle accepted, not performed' "$D/bmc.log") == 1 &&
	$(sed -n 's/^current=//p' "$D/bmc.state") == 1 ]] && echo 0 || echo 1)" \
	"a reset the BMC accepts (204) and never performs: the power cycle requested, nothing applied" "$out"
topod_stop "$D"		# the "boot" that did not happen
topod_start "$D"
wait_for 20 sh -c "grep -q 'still pending: no power cycle yet' $D/topod.log"
ok "$([[ $(topod_prop Layout) == balance && $(topod_prop PendingLayout) == cascade &&
	$(topod_prop State) == awaiting-power-cycle && -e $D/state/job ]] && echo 0 || echo 1)" \
	"at the next start: cascade still pending, balance in effect, awaiting a power cycle (not committed)" "$D/topod.log"
fault '{"busy": 3, "reset_busy": 2}'
out=$("$TOPOCTL" set cascade --power-cycle 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $out == *"power-cycle"*done* ]] && echo 0 || echo 1)" \
	"topoctl set cascade --power-cycle through 503s: done" "$out"
ok "$([[ $(count 'BMC not ready (HTTP 503 Service Unavailable: "The service is temporarily unavailable.' "$D/topod.log") -ge 1 ]] && echo 0 || echo 1)" \
	"the 503s were waited out (topod's log names them)" "$D/topod.log"
ok "$([[ $(count 'reset PowerCycle: task 2' "$D/bmc.log") == 1 && $(count 'reset: PCIeTopology=Cascade' "$D/bmc.log") == 1 &&
	$(sed -n 's/^current=//p' "$D/bmc.state") == 3 ]] && echo 0 || echo 1)" \
	"ComputerSystem.Reset answered 202, its TaskMonitor followed; the BMC applied Cascade" "$D/bmc.log"
topod_stop "$D"		# the "boot": topod starts again
topod_start "$D"
wait_for 20 sh -c "[ ! -e $D/state/job ]"
sleep 0.3
ok "$([[ $(topod_prop Layout) == cascade && $(topod_prop State) == idle && -z $(topod_prop PendingLayout) ]] && echo 0 || echo 1)" \
	"at the next start topod verified and committed cascade (the 503s after the reset waited out)"
topod_stop "$D"
# a platform file whose common is a value this BMC does not allow (as one
# written for another firmware version): the dry run and the switch are
# refused in preflight, naming what the BMC allows; nothing is PATCHed
sed -i 's/value = "Common"/value = "Shared"/' "$D/platform.conf"
topod_start "$D"
out=$("$TOPOCTL" set common --dry-run 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 1 && $out == *'layout common is PCIeTopology = "Shared"'*"which the BMC does not allow; it allows: Balance, Common, Cascade"* ]] && echo 0 || echo 1)" \
	"dry run of a layout whose value the BMC's AttributeRegistry lacks: would be refused, naming the allowed values" "$out"
out=$("$TOPOCTL" set common 2>&1); rc=$?
ok "$([[ $rc != 0 && $out == *"which the BMC does not allow"* && $(count 'Shared' "$D/bmc.log") == 0 &&
	$(topod_prop Layout) == cascade ]] && echo 0 || echo 1)" \
	"the switch itself: refused in preflight, nothing PATCHed, still cascade" "$out"
topod_stop "$D"
# --- the zone form (online): Fabrics/PCIe's zones ------------------------------
ZPLAT=$top/platforms/emulated-redfish-zones.conf
# redfishtool (Debian's: another independent client) on the BIOS-form BMC:
# the zones read; it does not verify the certificate (loopback only here)
rft() { redfishtool -r "127.0.0.1:$PORT" -S Always -A Session -u admin -p "$PW" "$@"; }
out=$(rft raw GET /redfish/v1/Fabrics/PCIe/Zones/CPU1-RP0 2>&1 |
	jq -r '[.Id, (.Links.Endpoints[]."@odata.id" | sub(".*/"; ""))] | join(" ")' 2>&1)
eq "$out" "CPU1-RP0 GPU4 GPU5 GPU6 GPU7" "redfishtool: a zone of the Fabric, its Links.Endpoints"
sim_start zones --form zones --require-if-match
# the zones changed by redfishtool's actions, online: GPU4 refused in a
# second zone, taken from CPU1-RP0 (no layout then), into CPU0-RP1 and back
act() { # ZONE Add|Remove ENDPOINT
	rft raw POST "/redfish/v1/Fabrics/PCIe/Zones/$1/Actions/Zone.$2Endpoint" \
		-d "{\"Endpoint\": {\"@odata.id\": \"/redfish/v1/Fabrics/PCIe/Endpoints/$3\"}}" >/dev/null 2>&1
}
act CPU0-RP1 Add GPU4; r1=$?
act CPU1-RP0 Remove GPU4; r2=$?
s2=$(sed -n 's/^current=//p' "$D/zones.state")
act CPU0-RP1 Add GPU4 && act CPU0-RP1 Remove GPU4 && act CPU1-RP0 Add GPU4; r3=$?
ok "$([[ $r1 != 0 && $r2 == 0 && $s2 == 0 && $r3 == 0 && $(count 'GPU4 refused, in zone CPU1-RP0' "$D/zones.log") == 1 &&
	$(sed -n 's/^current=//p' "$D/zones.state") == 1 ]] && echo 0 || echo 1)" \
	"redfishtool: Zone.AddEndpoint of an endpoint in another zone refused (400), RemoveEndpoint and AddEndpoint applied at once (no layout in between, balance again)" "$D/zones.log"

conf "$D/z-check.conf" "$ZPLAT" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/z-check.conf" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $out == *"fabric PCIe: zones CPU0-RP0, CPU0-RP1, CPU1-RP0; endpoints GPU0, GPU1, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7"* &&
	$out == *"zone CPU1-RP0: GPU4, GPU5, GPU6, GPU7"* && $out == *"the zones are layout balance"* ]] && echo 0 || echo 1)" \
	"topod --check (zone form): the fabric's zones and endpoints, each zone's now, the layout they are"
sed 's/"CPU0-RP1"/"CPU0-RP2"/' "$ZPLAT" >"$D/z-badzone.conf"
conf "$D/z-badzone-topod.conf" "$D/z-badzone.conf" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/z-badzone-topod.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *'zone "CPU0-RP2" (platform emulated-redfish-zones): the BMC'"'"'s fabric PCIe has no such zone; it has: CPU0-RP0, CPU0-RP1, CPU1-RP0'* ]] && echo 0 || echo 1)" \
	"--check: a zone the BMC does not have is refused, naming the zones it has" "$out"
# common's CPU0-RP1 with a GPU8 the fabric lacks
sed '/^\tcommon/,/^\tcascade/s/"GPU7" \]/"GPU8" ]/' "$ZPLAT" >"$D/z-badep.conf"
conf "$D/z-badep-topod.conf" "$D/z-badep.conf" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/z-badep-topod.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *'layout common: endpoint "GPU8" of zone "CPU0-RP1" (platform emulated-redfish-zones): the BMC'"'"'s fabric PCIe has no such endpoint; it has: GPU0, GPU1, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7'* ]] && echo 0 || echo 1)" \
	"--check: an endpoint the BMC does not have is refused, naming the endpoints it has" "$out"
sed 's/fabric = "PCIe"/fabric = "NVLink"/' "$ZPLAT" >"$D/z-badfab.conf"
conf "$D/z-badfab-topod.conf" "$D/z-badfab.conf" "ca_file = \"$D/tls/ca.pem\";"
out=$("$TOPOD_PLAIN" --check --config "$D/z-badfab-topod.conf" 2>&1); rc=$?
ok "$([[ $rc == 1 && $out == *'redfish.fabric "NVLink": the BMC has no such fabric (platform emulated-redfish-zones); it has: PCIe'* ]] && echo 0 || echo 1)" \
	"--check: a fabric the BMC does not have is refused, naming the fabrics it has" "$out"
# the zone form's rules in the platform file, refused before any request
zplat() { # APPLY BALANCE-ZONES COMMON-ZONES [COMMON'S OTHER KEYS]
	sed -n '1,/^layouts = {/p' "$ZPLAT" | sed "s/^apply = .*/apply = \"$1\";/"
	printf '\tbalance = { gpus = 8; zones = ( %s ); };\n' "$2"
	printf '\tcommon = { gpus = 8; %s zones = ( %s ); };\n};\n' "${4:-}" "$3"
	sed -n '/^# GPU4-7/,$p' "$ZPLAT"
}
za='{ zone = "A"; endpoints = [ "GPU0" ]; }, { zone = "B"; endpoints = [ ]; }'
zb='{ zone = "A"; endpoints = [ ]; }, { zone = "B"; endpoints = [ "GPU0" ]; }'
zbad=()
zplat power-cycle "$za" "$zb" >"$D/zr1.conf"
zbad+=('zr1:apply must be "online"')
zplat online "$za" '{ zone = "A"; endpoints = [ ]; }' >"$D/zr2.conf"
zbad+=('zr2:layouts.common.zones: no zone "B" (every layout names the same zones)')
zplat online "$za" "$za" >"$D/zr3.conf"
zbad+=('zr3:layouts: balance and common have the same zones')
zplat online "$za" "$zb" 'bios_attribute = "PCIeTopology"; value = "Common";' >"$D/zr4.conf"
zbad+=('zr4:layouts.common: zones (the zone form) or bios_attribute and value (the BIOS form), not both')
zplat online "$za" '{ zone = "A"; endpoints = [ "GPU0", "GPU0" ]; }, { zone = "B"; endpoints = [ ]; }' >"$D/zr5.conf"
zbad+=('zr5:layouts.common: zone "A": endpoint "GPU0" named twice')
zfail=""
for zc in "${zbad[@]}"; do
	conf "$D/zr-topod.conf" "$D/${zc%%:*}.conf" "ca_file = \"$D/tls/ca.pem\";"
	out=$("$TOPOD_PLAIN" --check --config "$D/zr-topod.conf" 2>&1)
	[[ $out == *"${zc#*:}"* ]] || zfail+=" ${zc%%:*}: $out"
done
ok "$([[ -z $zfail ]] && echo 0 || echo 1)" \
	"the zone form's platform file refused: apply not online, a layout without one of the zones, two layouts alike, both forms in a layout, an endpoint twice in a zone" "$zfail"
printf 'bmc = { transport = "redfish"; url = "%s"; creds = "%s"; ca_file = "%s"; };\n' \
	"$URL" "$D/creds" "$D/tls/ca.pem" >"$D/z-discover.conf"
out=$("$TOPOD_PLAIN" --discover-redfish --config "$D/z-discover.conf" 2>&1); rc=$?
echo "$out" | sed -n '/^Fabric/,$p' | sed 's/^/# /'
ok "$([[ $rc == 0 && $out == *'Fabric PCIe ("PCIe fabric"), PCIe:'* &&
	$out == *'endpoints: GPU0, GPU1, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7'* &&
	$out == *'{ zone = "CPU0-RP0"; endpoints = [ "GPU0", "GPU1", "GPU2", "GPU3" ]; },'* &&
	$out == *'{ zone = "CPU0-RP1"; endpoints = [ ]; },'* ]] && echo 0 || echo 1)" \
	"--discover-redfish lists the Fabrics: endpoints, each zone's endpoints now, as a platform file's zone part"

# topod (stand-in hardware) on the zones: a switch online
Z=$D/z
mkdir -p "$Z/state" "$Z/features.d"
cp "$ZPLAT" "$Z/platform.conf"
cat >"$Z/topod.conf" <<EOC
platform = "$Z/platform.conf";
bmc = { transport = "redfish"; url = "$URL"; creds = "$D/creds"; ca_file = "$D/tls/ca.pem"; timeout_ms = 3000; };
state_dir = "$Z/state";
check_dmi = false;
nfd_features_dir = "$Z/features.d";
EOC
ln -sfn "$D/zones.state" "$Z/state/fake-bmc-state"
topod_start "$Z"
rc=$?
ok "$([[ $rc == 0 && $(topod_prop Layout) == balance && $("$TOPOCTL" -j status | jq -r .apply) == online ]] && echo 0 || echo 1)" \
	"topod on the zone form: balance, read back from the zones" "$Z/topod.log"
zones_now() { grep -E '^zone [^ ]+ PATCH' "$D/zones.log" | sed 's/: .*//' | tr '\n' ' '; }
out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $(topod_prop Layout) == cascade && $(topod_prop State) == idle && $("$TOPOCTL" -j status | jq -r .gpus) == 8 &&
	$(sed -n 's/^current=//p' "$D/zones.state") == 3 && $(zones_now) == "zone CPU1-RP0 PATCH zone CPU0-RP0 PATCH " ]] && echo 0 || echo 1)" \
	"topoctl set cascade through the zones: committed online, 8 GPUs; CPU1-RP0 gave GPU4-7 up before CPU0-RP0 took them" "$D/zones.log"
ok "$([[ $(count 'zone CPU0-RP0 PATCH: GPU0,GPU1,GPU2,GPU3,GPU4,GPU5,GPU6,GPU7' "$D/zones.log") == 1 &&
	$(count "PATCH refused" "$D/zones.log") == 0 ]] && echo 0 || echo 1)" \
	"each zone PATCHed with If-Match (this BMC refuses a PATCH without: 428), its endpoints as the platform file has them" "$D/zones.log"
# another client changes a zone between topod's read and its PATCH, after
# the first of the switch's PATCHes went through: 412, and the rollback
# puts the zones back as they were
fault '{"etag_race": 1, "etag_race_skip": 1}'
out=$("$TOPOCTL" set common 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc != 0 && $out == *'HTTP 412 Precondition Failed: "The ETag supplied did not match the ETag required to change this resource."'* &&
	$out == *"the zone changed by another client"* && $(count 'zone CPU0-RP1 PATCH refused' "$D/zones.log") == 1 ]] && echo 0 || echo 1)" \
	"a stale ETag on a zone's PATCH: refused (412), the BMC's message quoted, nothing overwritten" "$out"
ok "$([[ $(topod_prop Layout) == cascade && $(topod_prop State) == idle && $(sed -n 's/^current=//p' "$D/zones.state") == 3 &&
	$(grep -E '^zone [^ ]+ PATCH' "$D/zones.log" | tail -1) == "zone CPU0-RP0 PATCH: GPU0,GPU1,GPU2,GPU3,GPU4,GPU5,GPU6,GPU7" ]] && echo 0 || echo 1)" \
	"rolled back: the zone that had given GPU4-7 up has them again, cascade, idle" "$D/zones.log"
fault '{"busy": 3}'
out=$("$TOPOCTL" set balance 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $(topod_prop Layout) == balance && $(sed -n 's/^current=//p' "$D/zones.state") == 1 &&
	$(count 'BMC not ready (HTTP 503 Service Unavailable' "$Z/topod.log") -ge 1 ]] && echo 0 || echo 1)" \
	"503s from the fabric waited out: topoctl set balance committed" "$Z/topod.log"
# a 503 in the middle of the Select, after one zone changed: the Select
# is run again, and it changes only what is left (no PATCH twice)
fault '{"patch_busy": 1, "patch_busy_skip": 1}'
n0=$(grep -cE '^zone [^ ]+ PATCH' "$D/zones.log")
out=$("$TOPOCTL" set cascade 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 0 && $(topod_prop Layout) == cascade && $(sed -n 's/^current=//p' "$D/zones.state") == 3 &&
	$(grep -E '^zone [^ ]+ PATCH' "$D/zones.log" | tail -n +$((n0 + 1)) | sed 's/:.*//' | tr '\n' ' ') == "zone CPU1-RP0 PATCH zone CPU0-RP0 PATCH zone CPU0-RP0 PATCH " &&
	$(count 'zone CPU0-RP0 PATCH: 503' "$D/zones.log") == 1 ]] && echo 0 || echo 1)" \
	"a 503 on the second zone's PATCH: waited out, the Select run again changing only that zone, committed" "$D/zones.log"
topod_stop "$Z"
# a layout naming an endpoint the BMC lacks: the dry run and the switch
# refuse it in preflight, naming what the fabric has; no zone changed
sed -i '/^\tcommon/,/^\tcascade/s/"GPU7" \]/"GPU8" ]/' "$Z/platform.conf"
topod_start "$Z"
npatch=$(grep -cE '^zone [^ ]+ PATCH' "$D/zones.log")
out=$("$TOPOCTL" set common --dry-run 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok "$([[ $rc == 1 && $out == *'layout common: endpoint "GPU8" of zone "CPU0-RP1"'*"has no such endpoint; it has: GPU0, GPU1"* ]] && echo 0 || echo 1)" \
	"dry run of a layout with an endpoint the BMC lacks: would be refused, naming the endpoints it has" "$out"
out=$("$TOPOCTL" set common 2>&1); rc=$?
ok "$([[ $rc != 0 && $out == *'endpoint "GPU8"'* && $(grep -cE '^zone [^ ]+ PATCH' "$D/zones.log") == "$npatch" &&
	$(topod_prop Layout) == cascade ]] && echo 0 || echo 1)" \
	"the switch itself: refused in preflight, no zone PATCHed, still cascade" "$out"
topod_stop "$Z"

created=$(count 'created' "$D/bmc.log")
deleted=$(count 'deleted' "$D/bmc.log")
expired=$(count 'expired' "$D/bmc.log")
ok "$([[ $created -ge 4 && $created == $((deleted + expired)) ]] && echo 0 || echo 1)" \
	"every session topod created was deleted, but the one the BMC dropped ($created created, $deleted deleted, $expired expired)" "$D/bmc.log"
ok "$(grep -rqs -- "$PW" "$D/topod.log" "$D/bmc.log" "$D/state" && echo 1 || echo 0)" \
	"the password is in no log and nothing in the state directory"

tap_end
