# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the guest check scripts: their TAP lines, one definition.
# The caller sets TAP_PREFIX (e.g. "cascade: doctor: ") before sourcing;
# n and fails count the checks and the failures.
#
#   ok STATUS DESCRIPTION [DETAIL-FILE]   STATUS 0 passes; a failure shows
#                                         up to 20 lines of DETAIL-FILE
#   skip DESCRIPTION WHY                  "ok N - ... # SKIP WHY"
n=0
fails=0
ok() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then
		echo "ok $n - ${TAP_PREFIX:-}$2"
	else
		echo "not ok $n - ${TAP_PREFIX:-}$2"
		fails=$((fails + 1))
		[[ -n ${3:-} && -f ${3:-} ]] && head -20 "$3" | sed 's/^/#   /'
	fi
	return 0
}
skip() {
	n=$((n + 1))
	echo "ok $n - ${TAP_PREFIX:-}$1 # SKIP $2"
}
