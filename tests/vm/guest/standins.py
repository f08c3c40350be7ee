# SPDX-License-Identifier: GPL-2.0
"""The emulated server's stand-in GPUs for the Python guest checks (the
shell scripts' tests/vm/guest/standins.sh): QEMU's bochs-display
(1234:1111) is no GPU to an accelerator stack, so pcitopo counts it only
as an extra ID, given to the module at load and to topoctl's sysfs source
in the environment. The BMC's VGA has the same ID behind a PCIe-to-PCI
bridge and stays a "display"."""
import os

GPU_IDS = "1234:1111"
MODULE_PARAM = "extra_ids=%s:gpu" % GPU_IDS
# topoctl reads the extra-ids file this names (guest/standin-ids)
ENV = {"TOPOCTL_EXTRA_IDS": os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "standin-ids")}


def module_path(root):
    """The pcitopo.ko built for the kernel the guest booted: PCITOPO_KO
    (run-guest and the agent set it, tests/vm/vm-paths.sh), relative to the
    project root; kmod/pcitopo.ko, the host kernel's, without it."""
    return os.path.join(root, os.environ.get("PCITOPO_KO", "kmod/pcitopo.ko"))


def insmod_argv(root):
    """argv that loads the module with the stand-ins as extra IDs."""
    return ["insmod", module_path(root), MODULE_PARAM]
