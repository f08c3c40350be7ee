#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-snapshot.sh   (in the emulated server's guest, as root)
#
# Saves this layout's sysfs tree as cli/tests/snapshots/LAYOUT.tar.gz does:
# with the RDMA NIC up (Soft-RoCE, rdma-up.sh) so the tree has its
# class/infiniband entry, taken by topoctl snapshot, packed into
# $PCITOPO_OUT/LAYOUT.tar.gz. The module's answers of the same boot go
# beside it (topo.txt, show.json) to compare the replay with.
# Run: tests/vm/run-guest cascade tests/vm/guest/make-snapshot.sh, with
# PCITOPO_RESULTS=DIR to keep the files.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/standins.sh"
pt_rdma_up >&2
pt_insmod
snap=$(mktemp -d)/tree
cli/topoctl snapshot "$snap" >&2
cli/topoctl topo >"$PCITOPO_OUT/topo.txt"
cli/topoctl -j show >"$PCITOPO_OUT/show.json"
tar -C "$snap" -czf "$PCITOPO_OUT/$PCITOPO_LAYOUT.tar.gz" .
echo "saved $PCITOPO_LAYOUT.tar.gz"
