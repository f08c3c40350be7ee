# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the tests/vm/t-*.sh scripts that drive tests/vm/server: TAP
# lines (tests/tap.sh), the checks of what they need, and the small timing
# helpers they share. The caller ends with its own plan line.

# tap, ok, eq, check, skip, pass, fail: the shell suites' one TAP printer
# shellcheck source=tests/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

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

# server_test: the test drives tests/vm/server. Sets srv (its path); at
# exit the server in $dir (the test's folder for it, if it set one) is
# stopped, unless PCITOPO_KEEP_SERVER is set (then it says where it is);
# INT and TERM exit 130 through the same path. A test with more to undo
# defines test_cleanup, which runs first.
server_test() {
	srv=$(dirname "${BASH_SOURCE[0]}")/server
	dir=${dir:-}
	trap server_test_cleanup EXIT
	trap 'exit 130' INT TERM
}
# server_start METHOD LAYOUT [ARG...]: a server in a new folder, $dir
# (tests/vm/server start --method METHOD --layout LAYOUT ARG...), and one
# TAP line "METHOD: server up in LAYOUT (N s)"; returns 1 if it did not
# come up. server_stop: stops it (quietly), $dir emptied.
server_start() {
	local m=$1 l=$2 t0 ok=1 line
	shift 2
	dir=$(mktemp -d /tmp/pcitopo-server.XXXXXX)
	t0=$(now)
	line=$("$srv" start "$dir" --method "$m" --layout "$l" "$@" 2>&1) || ok=0
	tap "$ok" "$m: server up in $l ($(since "$t0") s)" "$line"
	return $((1 - ok))
}
server_stop() { "$srv" stop "$dir" >/dev/null 2>&1 || true; dir=; }
# grun CMD...: CMD in the guest of the server in $dir (tests/vm/server run),
# within $T seconds, else the test's GRUN_TIMEOUT, else 120; the words of
# the array GRUN_ENV, if the test sets it (env VAR=VALUE ...), go before
# CMD in every run
grun() {
	"$srv" run "$dir" --timeout "${T:-${GRUN_TIMEOUT:-120}}" \
		${GRUN_ENV[@]+"${GRUN_ENV[@]}"} "$@"
}
# view [--gen]: what the module in the guest sees, "LAYOUT GPUS"
# ("cascade 8"), with --gen its generation too
# shellcheck disable=SC2016 # expanded in the guest
view() {
	local f='$(<layout) $(<count_gpus)'
	[[ ${1:-} == --gen ]] && f+=' $(<generation)'
	grun bash -c "cd /sys/kernel/pcitopo && echo \"$f\""
}
# shellcheck disable=SC2317 # called by the EXIT trap
server_test_cleanup() {
	if declare -F test_cleanup >/dev/null; then test_cleanup; fi
	[[ -n $dir && -d $dir ]] || return 0
	if [[ -n ${PCITOPO_KEEP_SERVER:-} ]]; then
		echo "# kept $dir" >&2
		return 0
	fi
	"$srv" stop "$dir" >/dev/null 2>&1
	return 0
}
