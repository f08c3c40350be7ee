# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the emulated server's guest scripts (and by the jobs the host
# tests send into the guest: `. "$PCITOPO_ROOT/tests/vm/guest/standins.sh"`).
#
# The emulated server's GPUs are stand-ins (QEMU's bochs-display, 1234:1111,
# class 0x0380): no accelerator stack would take them for GPUs, so pcitopo
# counts them only as "extra IDs", the way an operator with stand-in hardware
# would configure it (/etc/modprobe.d, /etc/pcitopo/extra-ids). The BMC's VGA
# carries the same ID but sits behind a PCIe-to-PCI bridge: it stays a
# "display" whatever the extra IDs say.
#
#   PT_GPU_IDS          the stand-ins' vendor:device
#   PT_MUX_GPU_IDS      the MUX's hot-added stand-ins (virtio-serial-pci with
#                       class 0x0380, 1af4:1043: bmcsim/qmp-move adds them, a
#                       bochs-display cannot be added twice on one port)
#   TOPOCTL_EXTRA_IDS   exported: the extra-ids file of topoctl's sysfs source
#                       (--source sysfs, --sysfs DIR, the fallback without the
#                       module): guest/standin-ids
#   PT_KO               the pcitopo.ko built for the kernel the guest booted:
#                       $PCITOPO_KO (run-guest, the agent) below the project
#                       root, kmod/pcitopo.ko (the host kernel's) without it
#   pt_insmod [ARGS]    insmod $PT_KO extra_ids=...:gpu ARGS
#   pt_standin_conf     /etc/modprobe.d/pcitopo-standins.conf (for modprobe,
#                       modprobe@pcitopo.service and the genl alias) and
#                       /etc/pcitopo/extra-ids, as an operator would write them
#                       (in the guest's overlay, and for the kernel's modprobe
#                       in the initramfs)
#   pt_rdma_up          Soft-RoCE on the layout's NICs that have "rdma"
#                       (guest/rdma-up.sh)

PT_KO=${PCITOPO_ROOT:-$(pwd)}/${PCITOPO_KO:-kmod/pcitopo.ko}
PT_GPU_IDS=1234:1111
PT_MUX_GPU_IDS=1af4:1043
TOPOCTL_EXTRA_IDS=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/standin-ids
export TOPOCTL_EXTRA_IDS

# shellcheck disable=SC2120 # ARGS are optional
pt_insmod() {
	insmod "$PT_KO" \
		"extra_ids=$PT_GPU_IDS:gpu,$PT_MUX_GPU_IDS:gpu" "$@"
}

pt_standin_conf() {
	local opt="options pcitopo extra_ids=$PT_GPU_IDS:gpu"
	mkdir -p /etc/modprobe.d /etc/pcitopo &&
		echo "$opt" >/etc/modprobe.d/pcitopo-standins.conf &&
		echo "$PT_GPU_IDS:gpu" >/etc/pcitopo/extra-ids || return
	# The kernel's own module requests (the genl family alias) run
	# /sbin/modprobe in PID 1's root: under busybox init that is the
	# initramfs, not this chroot, and busybox's modprobe reads its
	# /etc/modprobe.d. (Under systemd both are the overlay.)
	if [[ ! /proc/1/root/etc -ef /etc ]]; then
		mkdir -p /proc/1/root/etc/modprobe.d &&
			echo "$opt" >/proc/1/root/etc/modprobe.d/pcitopo-standins.conf
	fi
}

pt_rdma_up() {
	"${PCITOPO_ROOT:-$(pwd)}/tests/vm/guest/rdma-up.sh" "$@"
}
