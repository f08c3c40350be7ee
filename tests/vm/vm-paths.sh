# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/vm scripts: which kernel the emulated server boots, and
# where its kernel, initramfs and module live.
# shellcheck shell=bash

# shellcheck source=scripts/kernels.sh
. "$(dirname "$(dirname "$(dirname "${BASH_SOURCE[0]}")")")/scripts/kernels.sh"

# The guest's kernel: PCITOPO_KERNEL=NAME of scripts/kernels.list (deb13,
# sid, ...), else the host release's (scripts/kver's rule: the newest
# generic Debian headers, e.g. 6.1.0-57-amd64). Its release (uname -r):
vm_kver() {
	local name
	name=$(vm_kernel) || return 1
	kernel_release "$name"
}

# The pcitopo.ko built for that kernel, relative to the repository:
# kmod/pcitopo.ko for the host's, build/kmod/KVER/kmod/pcitopo.ko (make
# kernels) for the others. Guest scripts read it as $PCITOPO_KO.
vm_module() {
	local name
	name=$(vm_kernel) || return 1
	kernel_module "$name"
}

vm_cache() {
	pt_cache
}
