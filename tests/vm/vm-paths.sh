# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/vm scripts: where the guest kernel and initramfs live.
# shellcheck shell=bash

# Newest installed Debian kernel headers, e.g. 6.1.0-57-amd64.
vm_kver() {
	local h
	h=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-amd64' -printf '%f\n' |
		sort -V | tail -n 1)
	[[ -n $h ]] || { echo "no /usr/src/linux-headers-*-amd64 (run scripts/setup)" >&2; return 1; }
	echo "${h#linux-headers-}"
}

# Cache base: $PCITOPO_CACHE, else $XDG_CACHE_HOME/pcitopo, else ~/.cache/pcitopo.
vm_cache() {
	echo "${PCITOPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pcitopo}"
}
