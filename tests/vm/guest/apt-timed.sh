#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apt-timed.sh LOG CMD...: run CMD (an apt-get) with its output in LOG, and
# print where its time went as key=value lines for t-pkg.sh: "tapt=N" (its
# seconds) and "slow=" the two longest silences in its output, each with the
# line that came before it (the step that took them: a maintainer script,
# a trigger, DKMS). Under TCG an apt-get of pcitopo's three packages takes
# 40-180 s; this says which part. Exits with CMD's status.
set -uo pipefail
log=$1
shift
a0=$(date +%s)
# each line with the second it came (printf's %T: no fork a line)
"$@" 2>&1 | while IFS= read -r l; do printf '%(%s)T %s\n' -1 "$l"; done >"$log.ts"
st=${PIPESTATUS[0]}
cut -d' ' -f2- "$log.ts" >"$log"
echo "tapt=$(($(date +%s) - a0))"
# a silence is attributed to the line before it; the end to the last line
printf '%s\n' "$(date +%s) (end)" >>"$log.ts"
# (an empty line is passed over: the step is the last line with words)
echo "slow=$(awk 'NR > 1 { print $1 - t "s after \"" substr(l, 1, 70) "\"" }
	{ t = $1; w = $0; sub(/^[0-9]+ ?/, "", w); if (w != "") l = w }' "$log.ts" |
	sort -rn | head -n 2 | paste -sd ';')"
exit "$st"
