# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/vm scripts: where the guest kernel and initramfs live.
# shellcheck shell=bash

# The guest's kernel: scripts/kver's (newest generic Debian headers, e.g.
# 6.1.0-57-amd64).
vm_kver() {
	"$(dirname "$(dirname "$(dirname "${BASH_SOURCE[0]}")")")/scripts/kver"
}

# Cache base: $PCITOPO_CACHE, else $XDG_CACHE_HOME/pcitopo, else ~/.cache/pcitopo.
vm_cache() {
	echo "${PCITOPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pcitopo}"
}
