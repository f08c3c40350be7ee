# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=bash
#
# Shared by tests/ipmi/t-ipmi.sh and tests/ipmi/bench-ipmi: start a BMC on
# loopback and write a credentials file for it.
#
#   bmc_start DIR [start-bmc args]   sets BMC_PORT BMC_PID BMC_OEM(0|1)
#                                    BMC_CREDS (mode 0600 file)
#   bmc_stop                         stops what bmc_start started
#   free_udp_port                    prints a loopback UDP port nobody uses
#
# tests/bmc/start-bmc (ipmi_sim with the OEM plugin) when it is there,
# else a bare ipmi_sim (no OEM commands).

# The caller sets root (the repository root).
# shellcheck disable=SC2154,SC2034
bmc_dir=
bmc_own=0

free_udp_port() {
	python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

bmc_start() {
	local dir=$1 pw
	shift
	bmc_dir=$dir
	mkdir -p "$dir"
	if [[ -x $root/tests/bmc/start-bmc ]] &&
		"$root/tests/bmc/start-bmc" --dir "$dir/bmc" "$@" >"$dir/start.log" 2>&1; then
		# shellcheck disable=SC1091
		. "$dir/bmc/env"
		BMC_PORT=$PCITOPO_BMC_PORT BMC_PID=$PCITOPO_BMC_PID BMC_OEM=1
		pw=$PCITOPO_BMC_PASSWORD
	else
		[[ -x $root/tests/bmc/start-bmc ]] && sed 's/^/# start-bmc: /' "$dir/start.log"
		bmc_own=1 BMC_OEM=0 pw=pt-test-pw
		BMC_PORT=$(free_udp_port)
		mkdir -p "$dir/state"
		cat >"$dir/lan.conf" <<-EOC
			name "pttest"
			set_working_mc 0x20
			startlan 1
			  addr 127.0.0.1 $BMC_PORT
			  priv_limit admin
			  allowed_auths_callback none md2 md5 straight
			  allowed_auths_user none md2 md5 straight
			  allowed_auths_operator none md2 md5 straight
			  allowed_auths_admin none md2 md5 straight
			  guid a123456789abcdefa123456789abcdef
			endlan
			user 2 true "admin" "$pw" admin 10 none md2 md5 straight
		EOC
		printf '%s\n' 'mc_setbmc 0x20' \
			'mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr' \
			'mc_enable 0x20' >"$dir/cmds.emu"
		ipmi_sim -c "$dir/lan.conf" -f "$dir/cmds.emu" -s "$dir/state" -n \
			>"$dir/sim.log" 2>&1 &
		BMC_PID=$!
		for _ in $(seq 100); do
			ss -Hlnu "sport = :$BMC_PORT" 2>/dev/null | grep -q . && break
			sleep 0.05
		done
	fi
	BMC_CREDS=$dir/bmc.conf
	(umask 077 && printf 'user=admin\npassword=%s\n' "$pw" >"$BMC_CREDS")
	BMC_PW=$pw
}

bmc_stop() {
	[[ -n $bmc_dir ]] || return 0
	[[ -n ${BMC_PID:-} ]] && kill -CONT "$BMC_PID" 2>/dev/null
	if ((bmc_own)); then
		if [[ -n ${BMC_PID:-} ]] && kill "$BMC_PID" 2>/dev/null; then
			for _ in $(seq 50); do
				kill -0 "$BMC_PID" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL "$BMC_PID" 2>/dev/null
		fi
	elif [[ -d $bmc_dir/bmc ]]; then
		"$root/tests/bmc/stop-bmc" "$bmc_dir/bmc" >/dev/null 2>&1
	fi
	bmc_dir=
}
