# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The TAP lines of the shell tests, one definition for every suite, on the
# host and in the guest (sourced; tests/vm/vm-tap.sh adds the emulated
# server's helpers on top). Counters: n (lines so far) and failed (the
# "not ok" ones); a script ends with `tap_end`, which prints the plan and
# returns non-zero on a failure. TAP_PREFIX, if set, begins every WHAT
# (a guest script's "cascade: doctor: ").
#
#   tap PASS WHAT [DETAIL]  PASS is 1 or 0; DETAIL (text, or a file's path:
#                           30 lines at most) is printed under a failure
#                           as "#   " lines
#   ok RC WHAT [DETAIL]     the same from an exit status (0 passes)
#   pass WHAT / fail WHAT   one line each way
#   check WHAT CMD...       ok if CMD succeeds (its output passes through)
#   quiet CMD...            CMD with its output dropped (check WHAT quiet CMD)
#   skip WHAT WHY           "ok N - WHAT # SKIP WHY"
#   eq GOT WANT WHAT        passes if GOT == WANT, else shows both
n=0
failed=0

tap() {
	n=$((n + 1))
	if [[ $1 == 1 ]]; then
		echo "ok $n - ${TAP_PREFIX:-}$2"
	else
		failed=$((failed + 1))
		echo "not ok $n - ${TAP_PREFIX:-}$2"
		if [[ -n ${3:-} && -f ${3:-} ]]; then
			head -n 30 "$3"
		elif [[ -n ${3:-} ]]; then
			printf '%s\n' "$3" | head -n 30
		fi | sed 's/^/#   /'
	fi
	return 0
}
ok() { tap "$([[ $1 == 0 ]] && echo 1 || echo 0)" "$2" "${3:-}"; }
pass() { tap 1 "$*"; }
fail() { tap 0 "$*"; }
check() {	# (an if: safe under set -e)
	local d=$1
	shift
	if "$@"; then tap 1 "$d"; else tap 0 "$d"; fi
}
quiet() { "$@" >/dev/null 2>&1; }
skip() { n=$((n + 1)); echo "ok $n - ${TAP_PREFIX:-}$1 # SKIP $2"; }
eq() {
	if [[ $1 == "$2" ]]; then
		tap 1 "$3"
	else
		tap 0 "$3" "want: $2
got:  $1"
	fi
}
tap_end() {
	echo "1..$n"
	((failed == 0))
}
