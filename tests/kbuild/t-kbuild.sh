#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pcitopo.ko built for every kernel of scripts/kernels.list, W=1 clean, one
# TAP line a kernel (scripts/kbuild-matrix, `make kernels`: each in its
# release's root, from the files the DKMS package ships; the modules that
# tests/vm/t-kernels.sh then boots); and on the host release's kernel the
# whole of `make -C kmod check`: W=1, sparse C=2, checkpatch --strict.
set -uo pipefail
top=$(dirname "$(dirname "$(dirname "$(readlink -f "$0")")")")
cd "$top" || exit 1
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

t0=$SECONDS
while IFS= read -r line; do
	case $line in
	"ok "*) pass "${line#ok * - }" ;;
	"not ok "*) fail "${line#not ok * - }" ;;
	"1.."*) ;;
	*) echo "$line" ;;
	esac
done < <(scripts/kbuild-matrix 2>&1)
echo "# matrix: $((SECONDS - t0)) s"
t0=$SECONDS
out=$(make -s -C kmod check 2>&1)
st=$?
while IFS= read -r line; do
	case $line in
	"check: ok "*) pass "pcitopo.ko on $(scripts/kver): ${line#check: ok }" ;;
	"check: FAIL "*) fail "pcitopo.ko on $(scripts/kver): ${line#check: FAIL }" ;;
	esac
done <<<"$out"
((st == 0)) || grep -q '^check: FAIL' <<<"$out" || fail "make -C kmod check exited $st" "$out"
((st == 0)) || grep -v '^check: ' <<<"$out" | head -n 30 | sed 's/^/#   /'
echo "# make -C kmod check: $((SECONDS - t0)) s"
tap_end
