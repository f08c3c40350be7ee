#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# tests/ipmi/t-ipmi.sh: libptipmi, libptplatform and pt-bmc. TAP output, exit 1
# on any failure. Runs from anywhere; cleans up what it starts.
#
#  1. unit tests, plain and ASan/UBSan (no BMC): completion codes, platform
#     parser (good files, malformed table, template), credentials rules,
#     in-band open errors, cipher suite refusal;
#  2. against ipmi_sim on 127.0.0.1 (tests/bmc/start-bmc with the OEM
#     plugin, or a bare ipmi_sim): LAN session, Get Device ID compared with
#     ipmitool, session reuse, wrong password/user, unreachable port, a
#     non-zero completion code, suite 17; with the plugin the OEM
#     select/status of both platform files, a missed Select not resent;
#  3. pt-bmc: output matches ipmitool's, refuses an open credentials file,
#     refuses a malformed platform file before contacting any BMC;
#  4. (no BMC) libOpenIPMI is not linked: topod and pt-bmc have no
#     DT_NEEDED on it or libcrypto; when it cannot be loaded the LAN
#     transport's error names it, the in-band transport works without it.
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$(dirname "$here")")
cd "$root" || exit 1
# shellcheck source=tests/ipmi/bmc-lan.sh
. "$here/bmc-lan.sh"

# shellcheck source=tests/tap.sh
. "$root/tests/tap.sh"
# TAP of a test binary: its lines renumbered into ours.
sub() {
	local line st
	while IFS= read -r line; do
		case $line in
		"pass "*) pass "${line#ok [0-9]* - }" ;;
		"not pass "*) fail "${line#not ok [0-9]* - }" ;;
		1..*) ;;
		*) echo "$line" ;;
		esac
	done < <("$@"; echo "# exit $?")
}

work=$(mktemp -d /tmp/pt-ipmi-test.XXXXXX)
cleanup() {
	bmc_stop
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! make -s -C daemon tests >"$work/make.log" 2>&1; then
	fail "daemon/ builds (libptipmi, libptplatform, pt-bmc, tests)"
	sed 's/^/# /' "$work/make.log"
	echo "1..$n"
	exit 1
fi
pass "daemon/ builds with -Wall -Wextra -Werror (plain and ASan/UBSan)"

for flavour in plain san; do
	echo "# unit tests ($flavour)"
	sub daemon/build/$flavour/test_unit
done

# libOpenIPMI is loaded by the LAN transport when first opened, not linked:
# topod and pt-bmc do not need it (nor libcrypto) at exec.
# has STATUS OUTPUT REGEX [NOT-REGEX]: exit status 1, REGEX in OUTPUT (and
# not NOT-REGEX).
has() {
	[[ $1 == 1 ]] && grep -q -- "$3" <<<"$2" && { [[ -z ${4:-} ]] || ! grep -q -- "$4" <<<"$2"; }
}
# no_openipmi NEEDED-LIST: readelf listed libc, and no libOpenIPMI/libcrypto
no_openipmi() {
	[[ $1 == *libc.so.6* ]] && ! grep -q 'libOpenIPMI\|libcrypto' <<<"$1"
}
for bin in daemon/topod/topod daemon/tools/pt-bmc; do
	needed=$(readelf -d "$bin" 2>&1 | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	check "$bin: no DT_NEEDED on libOpenIPMI or libcrypto (needs: ${needed% })" \
		no_openipmi "$needed"
done
# A libOpenIPMI.so.0 that cannot be loaded (an empty file) and one without
# the functions (another library under that name) come first in the search
# path: the LAN transport fails naming the library and the package; the
# in-band one does not care. No BMC is contacted (port 9: discard).
mkdir -p "$work/nolib" "$work/badlib"
: >"$work/nolib/libOpenIPMI.so.0"
cc -shared -fPIC -Wl,-soname,libOpenIPMI.so.0 -o "$work/badlib/libOpenIPMI.so.0" -x c /dev/null
(umask 077 && printf 'user=admin\npassword=secret\n' >"$work/lib.creds")
lan=(--lan 127.0.0.1:9 --creds "$work/lib.creds" raw 6 1)
for flavour in plain san; do
	bmc=daemon/tools/pt-bmc
	[[ $flavour == san ]] && bmc=daemon/build/san/pt-bmc
	out=$(LD_LIBRARY_PATH=$work/nolib $bmc "${lan[@]}" 2>&1)
	check "pt-bmc ($flavour) --lan, libOpenIPMI.so.0 unloadable: exit 1, names the library and the package" \
		has $? "$out" "cannot load libOpenIPMI.so.0: .*install libopenipmi0"
	echo "# $out"
	out=$(LD_LIBRARY_PATH=$work/badlib $bmc "${lan[@]}" 2>&1)
	check "pt-bmc ($flavour) --lan, libOpenIPMI.so.0 without its functions: exit 1, names the library and the function" \
		has $? "$out" "libOpenIPMI.so.0 (.*/badlib/libOpenIPMI.so.0) has no function ipmi_.*install libopenipmi0"
	echo "# $out"
	out=$(LD_LIBRARY_PATH=$work/nolib $bmc --inband "$work/no-ipmi0" raw 6 1 2>&1)
	check "pt-bmc ($flavour) --inband, libOpenIPMI.so.0 unloadable: the device's error, not the library's" \
		has $? "$out" "no such device" libOpenIPMI
done
# libopenipmi0 not installed: in a private mount namespace, the library
# directory is replaced by one with only what pt-bmc links (as root).
libc=$(ldd daemon/tools/pt-bmc | awk '$1 == "libc.so.6" {print $3}')
if [[ $(id -u) == 0 && -n $libc ]] && unshare -m true 2>/dev/null; then
	libdir=$(dirname "$(readlink -f "$libc")")
	mkdir -p "$work/libdir"
	ldd daemon/tools/pt-bmc | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3} $1 ~ /^\// {print $1, $1}' |
		while read -r name file; do cp -L "$file" "$work/libdir/${name##*/}"; done
	# shellcheck disable=SC2016 # the child sh expands them
	out=$(unshare -m sh -c 'mount --bind "$1" "$2" && p=$3 && shift 3 && exec "$p" "$@"' _ \
		"$work/libdir" "$libdir" daemon/tools/pt-bmc "${lan[@]}" 2>&1)
	check "pt-bmc --lan without libOpenIPMI.so.0 anywhere ($libdir hidden): exit 1, \"not found\" naming the library and the package" \
		has $? "$out" "cannot load libOpenIPMI.so.0: cannot open shared object file: No such file or directory (the LAN transport needs it: install libopenipmi0)"
	echo "# $out"
else
	echo "# not root or no unshare -m: libOpenIPMI.so.0 absent not tested"
fi

for t in ipmi_sim ipmitool python3; do
	if ! command -v $t >/dev/null; then
		echo "# no $t: BMC tests skipped (scripts/setup installs it)"
		echo "1..$n"
		((failed == 0))
		exit
	fi
done

bmc_start "$work/sw" --method switchfw --busy-ms 300
dead=$(free_udp_port)
ipmitool=(timeout 20 ipmitool -I lanplus -C 3 -H 127.0.0.1 -p "$BMC_PORT" -U admin -P "$BMC_PW")
echo "# BMC 127.0.0.1:$BMC_PORT (OEM plugin: $BMC_OEM)"

oem=()
((BMC_OEM)) && oem=(platforms/emulated-switchfw.conf "$BMC_PID")
for flavour in plain san; do
	echo "# LAN tests ($flavour)"
	sub daemon/build/$flavour/test_lan "$BMC_PORT" "$BMC_CREDS" "$dead" "${oem[@]}"
done

# Get Device ID: pt-bmc vs ipmitool (an independent RMCP+ client).
pt=(daemon/tools/pt-bmc --lan "127.0.0.1:$BMC_PORT" --creds "$BMC_CREDS")
ours=$("${pt[@]}" raw 6 1 2>&1)
theirs=$("${ipmitool[@]}" raw 6 1 2>&1 | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
check "pt-bmc raw 6 1 gives ipmitool's bytes ($ours)" [ -n "$ours" ] && [ "$ours" = "$theirs" ]
[[ $ours == "$theirs" ]] || echo "# ipmitool: $theirs"
mcinfo=$("${ipmitool[@]}" mc info 2>&1)
read -r -a b <<<"$ours"
field() { sed -n "s/^$1 *: *//p" <<<"$mcinfo" | head -n 1; }
if ((${#b[@]} >= 11)); then
	manuf=$((0x${b[8]} << 16 | 0x${b[7]} << 8 | 0x${b[6]}))
	prod=$((0x${b[10]} << 8 | 0x${b[9]}))
	fw=$(printf '%d.%02x' $((0x${b[2]} & 0x7f)) $((0x${b[3]})))
	check "Get Device ID decodes as ipmitool mc info: manufacturer $manuf, product $prod, firmware $fw, device $((0x${b[0]}))" \
		[ "$(field 'Manufacturer ID')" = "$manuf" ] && [ "$(field 'Product ID' | cut -d' ' -f1)" = "$prod" ] &&
		[ "$(field 'Firmware Revision')" = "$fw" ] && [ "$(field 'Device ID')" = "$((0x${b[0]}))" ]
else
	fail "Get Device ID decodes as ipmitool mc info (no answer: $ours)"
fi

# pt-bmc refuses a credentials file others can read.
cp "$BMC_CREDS" "$work/open.conf" && chmod 644 "$work/open.conf"
out=$("${pt[@]/$BMC_CREDS/$work/open.conf}" raw 6 1 2>&1)
st=$?
check "pt-bmc refuses a 0644 credentials file, naming it and its mode" \
	[ $st -eq 1 ] && grep -q "$work/open.conf: mode 0644" <<<"$out"

# A malformed platform file is refused before any BMC is contacted: the
# BMC here is a dead port, a contact would take the session timeout.
printf 'name = "x";\nmatch = { vendor = "V"; model = "M"; };\nmethod = "teleport";\n' >"$work/bad.conf"
start=$(date +%s%N)
out=$(daemon/tools/pt-bmc --lan "127.0.0.1:$dead" --creds "$BMC_CREDS" --platform "$work/bad.conf" status 2>&1)
st=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "pt-bmc: malformed platform file refused with file:line before contacting the BMC (${ms} ms)" \
	[ $st -eq 1 ] && grep -q "$work/bad.conf:3: unknown method" <<<"$out" && [ $ms -lt 1000 ]
echo "# $out"

if ((BMC_OEM)); then
	out=$(daemon/build/san/pt-bmc --lan "127.0.0.1:$BMC_PORT" --creds "$BMC_CREDS" \
		--platform platforms/emulated-switchfw.conf status 2>&1)
	check "pt-bmc (ASan) status through emulated-switchfw.conf: $out" \
		grep -Eq '^state=(idle|busy|done|failed) current=(balance|common|cascade) pending=[a-z]+ job=[0-9]+ error=0$' <<<"$out"
	bmc_stop
	bmc_start "$work/mux" --method mux --busy-ms 300
	echo "# LAN tests against the MUX variant"
	sub daemon/build/plain/test_lan "$BMC_PORT" "$BMC_CREDS" "$dead" platforms/emulated-mux.conf "$BMC_PID"
else
	echo "# no OEM plugin (tests/bmc/start-bmc): select/status tests skipped"
fi

echo "1..$n"
((failed == 0))
