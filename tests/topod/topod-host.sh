# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of tests/topod: a private system-like D-Bus, the simulated BMC over
# LAN, and topod with the stand-in hardware (no module on the host): the
# tests' own build of it, topod-standin (make -C daemon topod-tests), which
# links tests/topod/hw_standin.c where topod has the host's hardware.
#
#   bus_start DIR          dbus-daemon with DIR/bus.conf (system policy +
#                          dbus/org.pcitopo.Topod.conf); exports
#                          DBUS_SYSTEM_BUS_ADDRESS
#   bmc_start DIR ARGS...  tests/bmc/start-bmc --dir DIR/bmc ARGS; sources env
#   topod_conf DIR PLATFORM [BUDGET_MS]   DIR/topod.conf + DIR/platform.conf;
#                          the node labels in DIR/features.d (never the
#                          host's /etc/kubernetes); the stand-in's layout is
#                          the simulated BMC's (DIR/state/fake-bmc-state, a
#                          link to its state file)
#   topod_start DIR        topod in the background, log DIR/topod.log;
#                          waits for its bus name; TOPOD_ARGS: more options
#                          (e.g. --test-fault hw_detach:3)
#   proc_state PID         R, S, T (stopped), Z (exited), ... or gone
#   topod_stop DIR [SIG]   signal, wait for its exit and for the bus to
#                          let its name go
#   wait_for SECS CMD...   retries CMD every 0.1 s
#   cleanup                everything started, in reverse order

top=$(dirname "$(dirname "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")")")
# topod with the stand-in hardware; TOPOD=daemon/build/san/topod-standin for
# the sanitized one
TOPOD=${TOPOD:-$top/daemon/build/plain/topod-standin}
TOPOCTL=${TOPOCTL:-$top/cli/topoctl}
# TAP lines: tests/tap.sh (ok, check, ...; counters n and failed)
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

wait_for() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

bus_start() {
	local dir=$1
	cat >"$dir/bus.conf" <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
  </policy>
  <include>$top/dbus/org.pcitopo.Topod.conf</include>
</busconfig>
EOC
	dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile \
		>"$dir/bus.log" 2>&1 &
	echo $! >"$dir/bus.pid"
	export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$dir/bus
	wait_for 10 test -S "$dir/bus"
}

bmc_start() {
	local dir=$1
	shift
	"$top/tests/bmc/start-bmc" --dir "$dir/bmc" --host stub "$@" >"$dir/bmc.out"
	# shellcheck disable=SC1091
	source "$dir/bmc/env"
	umask 077
	printf 'user=%s\npassword=%s\n' "$PCITOPO_BMC_USER" \
		"$PCITOPO_BMC_PASSWORD" >"$dir/creds"
	umask 022
}

topod_conf() { # DIR PLATFORM [BUDGET_MS]
	local dir=$1 plat=$2 budget=${3:-}
	cp "$top/platforms/$plat.conf" "$dir/platform.conf"
	if [[ -n $budget ]]; then
		sed -i "s/bmc_job_ms = [0-9]*/bmc_job_ms = $budget/" "$dir/platform.conf"
	fi
	mkdir -p "$dir/state" "$dir/features.d"
	ln -sfn "$PCITOPO_BMC_STATE" "$dir/state/fake-bmc-state"
	cat >"$dir/topod.conf" <<EOC
# tests/topod: the simulated BMC over LAN, no module (topod-standin)
platform = "$dir/platform.conf";
bmc = { transport = "lan"; host = "127.0.0.1"; port = $PCITOPO_BMC_PORT;
        creds = "$dir/creds"; timeout_ms = 1000; };
state_dir = "$dir/state";
check_dmi = false;
nfd_features_dir = "$dir/features.d";
EOC
}

topod_has_name() {
	busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.pcitopo.Topod
}

topod_start() {
	local dir=$1
	# shellcheck disable=SC2086 # TOPOD_ARGS: words
	"$TOPOD" --config "$dir/topod.conf" ${TOPOD_ARGS:-} >>"$dir/topod.log" 2>&1 &
	echo $! >"$dir/topod.pid"
	wait_for 20 topod_has_name
}

proc_state() {
	local st
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	echo "${st:-gone}"
}

topod_stop() {
	local dir=$1 sig=${2:-TERM} pid
	pid=$(cat "$dir/topod.pid" 2>/dev/null) || return 0
	kill -"$sig" "$pid" 2>/dev/null
	for _ in $(seq 100); do
		[[ $(proc_state "$pid") == [ZX]* || $(proc_state "$pid") == gone ]] && break
		sleep 0.1
	done
	rm -f "$dir/topod.pid"
	# the bus releases the name only once it sees the connection close: a
	# topod started before that would find the name taken and exit
	# shellcheck disable=SC2016 # expands in sh -c
	wait_for 20 sh -c '! busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.pcitopo.Topod'
	return 0
}

topod_prop() { # PROP -> value (string or number), from Status()
	busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property \
		org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 "$1" |
		sed -E 's/^[st] //; s/^"(.*)"$/\1/'
}

bmc_current() { # the simulated BMC's current layout code
	sed -n 's/^current=//p' "$PCITOPO_BMC_STATE"
}

cleanup_dir() {
	local dir=$1
	topod_stop "$dir" KILL
	[[ -f $dir/bmc/env ]] && "$top/tests/bmc/stop-bmc" "$dir/bmc" >/dev/null 2>&1
	if [[ -f $dir/bus.pid ]]; then
		kill "$(cat "$dir/bus.pid")" 2>/dev/null
		wait "$(cat "$dir/bus.pid")" 2>/dev/null
	fi
}
