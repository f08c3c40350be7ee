# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the tests/vm/t-*.sh scripts that drive tests/vm/server: TAP
# lines, the checks of what they need, and the small timing helpers they
# share. The caller keeps n and
# failed (start both at 0) and ends with its own plan line.

# tap OK WHAT [DETAIL]: OK is 1 or 0; DETAIL (up to 30 lines) under a failure.
tap() {
	n=$((n + 1))
	if [[ $1 == 1 ]]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		[[ -z ${3:-} ]] || printf '%s\n' "$3" | head -n 30 | sed 's/^/#   /'
	fi
}

# eq GOT WANT WHAT
eq() {
	if [[ $1 == "$2" ]]; then
		tap 1 "$3"
	else
		tap 0 "$3" "want: $2
got:  $1"
	fi
}

# What a test needs, or one "not ok" naming what is missing, and exit 1:
# need_built FILE... (outputs of make), need_host FILE... (executables the
# guest takes from the host's root), need_cmds CMD... (scripts/setup's).
me=$(basename "$0" .sh)
need_built() {
	local f
	for f; do
		[[ -e $f ]] || { echo "not ok 1 - $me: $f not built (run make)"; exit 1; }
	done
}
need_host() {
	local f
	for f; do
		[[ -x $f ]] || { echo "not ok 1 - $me: no $f on the host (the guest's root)"; exit 1; }
	done
}
need_cmds() {
	local c
	for c; do
		command -v "$c" >/dev/null || { echo "not ok 1 - $me: no $c (scripts/setup)"; exit 1; }
	done
}

now() { date +%s.%N; }
# since T0: seconds since T0 (from now), one decimal
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
