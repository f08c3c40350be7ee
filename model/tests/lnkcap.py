#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Rewrite LnkCap (speed or width) in the config files of a saved sysfs tree
# (topoctl snapshot), so that the link check sees a fault or an idle link:
#   lnkcap.py ROOT ADDR,{speed|width},VALUE ...
import sys, os, glob
root = sys.argv[1]
def cfg(addr):
    return os.path.realpath(os.path.join(root, 'bus/pci/devices', addr, 'config'))
def pcie_cap(b):
    p = b[0x34]
    while p:
        if b[p] == 0x10:
            return p
        p = b[p + 1]
    raise SystemExit('no PCIe cap')
def set_lnkcap(addr, speed=None, width=None):
    f = cfg(addr)
    b = bytearray(open(f, 'rb').read())
    c = pcie_cap(b) + 0x0c
    v = int.from_bytes(b[c:c + 4], 'little')
    if speed is not None:
        v = (v & ~0xf) | speed
    if width is not None:
        v = (v & ~0x3f0) | (width << 4)
    b[c:c + 4] = v.to_bytes(4, 'little')
    open(f, 'wb').write(b)
for arg in sys.argv[2:]:
    addr, what, val = arg.split(',')
    set_lnkcap(addr, **{what: int(val)})
