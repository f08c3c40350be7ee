#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-up.sh [LAYOUT-FILE]   (in the emulated server's guest, as root)
#
# Makes the layout's RDMA NICs RDMA-capable for real, with Soft-RoCE: every
# endpoint with an "rdma" name (nic0: "rxe0") gets its e1000e driver
# (guest/init loads none; there is no udev), its netdev up, and
# `rdma link add NAME type rxe netdev ETH`; then it waits (10 s at most)
# for the port to be ACTIVE. The other NICs stay plain Ethernet (their
# netdev exists, nothing more). Idempotent. Prints one line per RDMA device:
# "rxe0 eth1 0000:27:00.0".
#
# What the guest's sysfs then shows (tests/vm/README.md): /sys/class/
# infiniband/rxe0 is a virtual device with no `device` link; its `parent`
# attribute holds the netdev's name, and /sys/class/net/ETH/device is the
# e1000e.
set -euo pipefail
lay=${1:-${PCITOPO_LAYOUT_FILE:?usage: rdma-up.sh LAYOUT-FILE}}

modprobe e1000e
modprobe rdma_rxe
while read -r id port name; do
	slot=$(jq -r --arg p "$port" '[.root_ports[], .switches[].ports[]] |
		map(select(.id == $p)) | .[0].slot' "$lay")
	addr=$(cat "/sys/bus/pci/slots/$slot/address").0
	eth=
	for _ in $(seq 50); do
		for eth in "/sys/bus/pci/devices/$addr/net/"*; do break; done
		eth=${eth##*/}
		[[ -n $eth && $eth != '*' ]] && break
		eth=
		sleep 0.1
	done
	[[ -n $eth ]] || { echo "rdma-up: $id ($addr): no netdev" >&2; exit 1; }
	ip link set "$eth" up
	[[ -e /sys/class/infiniband/$name ]] ||
		rdma link add "$name" type rxe netdev "$eth"
	for _ in $(seq 100); do
		[[ $(cat "/sys/class/infiniband/$name/ports/1/state" 2>/dev/null) == *ACTIVE ]] && break
		sleep 0.1
	done
	echo "$name $eth $addr"
done < <(jq -r '.endpoints[] | select(.rdma) | "\(.id) \(.port) \(.rdma)"' "$lay")
