#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# mksysfs.py FIXTURE.json DIR: build, from a fixture of a real server
# (tests/real/servers/*.json), a sysfs tree that lib/sysfs.c (and libpci's
# sysfs method) reads as it reads /sys:
#
#   DIR/devices/pciDDDD:BB/<bridge>/.../<addr>/   config (4096 bytes: header,
#       PCIe capability with the port type, LnkCap, LnkSta, ACS extended
#       capability), vendor, device, class, revision, subsystem_*, numa_node,
#       local_cpulist, irq, resource, enable, *_link_*, secondary/subordinate
#       bus numbers for bridges, modalias (the files `topoctl snapshot` saves)
#   DIR/bus/pci/devices/<addr> -> ../../../devices/...        (relative)
#   DIR/devices/system/node/nodeN/cpulist
#   DIR/class/infiniband/NAME -> ../../devices/.../<addr>/infiniband/NAME,
#       whose `device` -> ../../../<addr>      (as the kernel shows RDMA devices)
#   DIR/class/net/NAME -> ../../devices/.../<addr>/net/NAME, `device` likewise
#
# Standard library only (Debian's python3). The fixture format is described
# in tests/real/README.md.
import json
import os
import struct
import sys

PORT_TYPES = {  # PCI_EXP_TYPE_*
    "endpoint": 0, "legacy_endpoint": 1, "root_port": 4, "upstream": 5,
    "downstream": 6, "pcie_to_pci": 7, "pci_to_pcie": 8, "rc_endpoint": 9,
}
SPEEDS = {"2.5": 1, "5": 2, "8": 3, "16": 4, "32": 5, "64": 6}
SPEED_TEXT = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe",
              4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe", 6: "64.0 GT/s PCIe"}
BRIDGE_PORTS = ("root_port", "upstream", "downstream", "pcie_to_pci",
                "pci_to_pcie", "bridge")


class FixtureError(Exception):
    pass


def parse_addr(a):
    """'0000:3b:00.0' -> (domain, bus, dev, fn)"""
    try:
        dom, bus, df = a.split(":")
        dev, fn = df.split(".")
        r = (int(dom, 16), int(bus, 16), int(dev, 16), int(fn, 16))
    except ValueError:
        raise FixtureError("bad PCI address %r" % a) from None
    if r[1] > 0xff or r[2] > 0x1f or r[3] > 7:
        raise FixtureError("bad PCI address %r" % a)
    return r


def parse_link(s, what):
    """'16GT/s x16' -> (speed code, width); None/'' -> (0, 0)"""
    if not s:
        return 0, 0
    try:
        sp, w = s.split()
        if not sp.endswith("GT/s") or not w.startswith("x"):
            raise ValueError
        num = sp[:-4]
        if "." in num:
            num = num.rstrip("0").rstrip(".")
        return SPEEDS[num], int(w[1:])
    except (ValueError, KeyError):
        raise FixtureError("%s: bad link %r (want e.g. '16GT/s x16')" % (what, s)) from None


def hexval(v, what):
    if isinstance(v, int):
        return v
    try:
        return int(str(v), 16)
    except ValueError:
        raise FixtureError("%s: bad hex value %r" % (what, v)) from None


def is_bridge(d):
    return d.get("port") in BRIDGE_PORTS


def load(path):
    with open(path, encoding="utf-8") as f:
        fx = json.load(f)
    devs = fx.get("devices")
    if not isinstance(devs, list) or not devs:
        raise FixtureError("%s: no devices" % path)
    by = {}
    for d in devs:
        a = d.get("addr")
        parse_addr(a)
        if a in by:
            raise FixtureError("%s: %s twice" % (path, a))
        by[a] = d
    for d in devs:
        p = d.get("parent")
        if p is not None:
            if p not in by:
                raise FixtureError("%s: %s: parent %s not in devices" % (path, d["addr"], p))
            if not is_bridge(by[p]):
                raise FixtureError("%s: %s: parent %s is no bridge" % (path, d["addr"], p))
            if parse_addr(d["addr"])[1] == parse_addr(p)[1]:
                raise FixtureError("%s: %s on its parent's bus" % (path, d["addr"]))
    return fx, by


def bus_range(a, by, kids):
    """secondary and subordinate bus of bridge a: from its subtree, else the
    fixture's 'secondary'/'subordinate'"""
    d = by[a]
    sec = d.get("secondary")
    sub = d.get("subordinate")
    buses = []

    def walk(x):
        for k in kids.get(x, []):
            buses.append(parse_addr(k)[1])
            walk(k)
            kd = by[k]
            if is_bridge(kd) and kd.get("subordinate") is not None:
                buses.append(hexval(kd["subordinate"], k))
    walk(a)
    direct = [parse_addr(k)[1] for k in kids.get(a, [])]
    if sec is None:
        sec = min(direct) if direct else parse_addr(a)[1] + 1
    else:
        sec = hexval(sec, a)
    if sub is None:
        sub = max(buses + [sec])
    else:
        sub = hexval(sub, a)
    return sec, sub


def config_space(d, by, kids):
    a = d["addr"]
    dom, bus, dev, fn = parse_addr(a)
    cfg = bytearray(4096)
    vendor = hexval(d["vendor"], a)
    device = hexval(d["device"], a)
    cls = hexval(d["class"], a)
    port = d.get("port", "endpoint")
    bridge = is_bridge(d)
    struct.pack_into("<HH", cfg, 0, vendor, device)
    struct.pack_into("<H", cfg, 0x04, 0x0406)  # Mem, BusMaster, INTx off
    cfg[0x08] = hexval(d.get("revision", "00"), a)
    cfg[0x09] = cls & 0xff
    cfg[0x0a] = (cls >> 8) & 0xff
    cfg[0x0b] = (cls >> 16) & 0xff
    hdr = 1 if bridge else 0
    siblings = [x for x in by if x != a and parse_addr(x)[:3] == (dom, bus, dev)]
    if fn == 0 and (siblings or d.get("multifunction")):
        hdr |= 0x80
    cfg[0x0e] = hdr
    if bridge:
        sec, sub = bus_range(a, by, kids)
        cfg[0x18] = bus
        cfg[0x19] = sec
        cfg[0x1a] = sub
    else:
        sv = hexval(d.get("subsystem_vendor", "0"), a)
        sd = hexval(d.get("subsystem_device", "0"), a)
        struct.pack_into("<HH", cfg, 0x2c, sv, sd)
    if port in ("none", "bridge"):
        # conventional PCI function (behind a PCIe-to-PCI bridge) or a bridge
        # without a PCIe capability: no capability list
        return bytes(cfg)
    if port not in PORT_TYPES:
        raise FixtureError("%s: unknown port type %r" % (a, port))
    ptype = PORT_TYPES[port]
    struct.pack_into("<H", cfg, 0x06, 0x0010)  # Capabilities List
    cfg[0x34] = 0x40
    # PCIe capability at 0x40, version 2; the slot bit on downstream-facing
    # ports with a slot number
    flags = 0x2 | (ptype << 4)
    slot = d.get("slot")
    if slot is not None and port in ("root_port", "downstream"):
        flags |= 0x0100
    cfg[0x40] = 0x10
    cfg[0x41] = 0x00
    struct.pack_into("<H", cfg, 0x42, flags)
    struct.pack_into("<I", cfg, 0x44, 0x00008002)  # DevCap: MPS 512, RBE
    cs, cw = parse_link(d.get("lnkcap"), a + " lnkcap")
    ss, sw = parse_link(d.get("lnksta"), a + " lnksta")
    lnkcap = cs | (cw << 4)
    downstream_facing = port in ("root_port", "downstream", "pci_to_pcie")
    lnksta = ss | (sw << 4)
    if downstream_facing:
        lnkcap |= 0x00100000  # DLLLARC: Data Link Layer Link Active reporting
        # DLLLA: up when something is below (or the fixture says so)
        if d.get("link_active", bool(kids.get(a))):
            lnksta |= 0x2000
    port_no = d.get("port_number", dev if port == "downstream" else 0)
    lnkcap |= (port_no & 0xff) << 24
    struct.pack_into("<I", cfg, 0x4c, lnkcap)
    struct.pack_into("<H", cfg, 0x52, lnksta)
    if flags & 0x0100:
        struct.pack_into("<I", cfg, 0x54, (int(slot) & 0x1fff) << 19)
    struct.pack_into("<I", cfg, 0x64, 0x0000001f if port != "endpoint" else 0)  # DevCap2
    # extended capabilities from 0x100: ACS (id 0x000d, version 1)
    acs = d.get("acs")
    if acs:
        struct.pack_into("<I", cfg, 0x100, 0x000d | (1 << 16))
        struct.pack_into("<HH", cfg, 0x104, hexval(acs.get("cap", "0"), a),
                         hexval(acs.get("ctrl", "0"), a))
    return bytes(cfg)


def write(path, text):
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


def build(fx, by, out):
    kids = {}
    for a, d in by.items():
        if d.get("parent") is not None:
            kids.setdefault(d["parent"], []).append(a)
    nodes = fx.get("numa_nodes", {})
    paths = {}

    def path_of(a):
        if a in paths:
            return paths[a]
        d = by[a]
        if d.get("parent") is None:
            dom, bus = parse_addr(a)[:2]
            root_bus = d.get("root_bus")
            rb = hexval(root_bus, a) if root_bus is not None else bus
            p = "devices/pci%04x:%02x/%s" % (dom, rb, a)
        else:
            p = "%s/%s" % (path_of(d["parent"]), a)
        paths[a] = p
        return p

    os.makedirs(os.path.join(out, "bus/pci/devices"), exist_ok=True)
    for a in sorted(by):
        d = by[a]
        rel = path_of(a)
        full = os.path.join(out, rel)
        os.makedirs(full, exist_ok=True)
        with open(os.path.join(full, "config"), "wb") as f:
            f.write(config_space(d, by, kids))
        vendor = hexval(d["vendor"], a)
        device = hexval(d["device"], a)
        cls = hexval(d["class"], a)
        sv = hexval(d.get("subsystem_vendor", "0"), a)
        sd = hexval(d.get("subsystem_device", "0"), a)
        numa = int(d.get("numa", -1))
        write(os.path.join(full, "vendor"), "0x%04x\n" % vendor)
        write(os.path.join(full, "device"), "0x%04x\n" % device)
        write(os.path.join(full, "class"), "0x%06x\n" % cls)
        write(os.path.join(full, "revision"), "0x%02x\n" % hexval(d.get("revision", "00"), a))
        write(os.path.join(full, "subsystem_vendor"), "0x%04x\n" % sv)
        write(os.path.join(full, "subsystem_device"), "0x%04x\n" % sd)
        write(os.path.join(full, "numa_node"), "%d\n" % numa)
        cpus = nodes.get(str(numa), "") if numa >= 0 else ",".join(nodes.values())
        write(os.path.join(full, "local_cpulist"), cpus + "\n")
        write(os.path.join(full, "irq"), "0\n")
        write(os.path.join(full, "enable"), "1\n")
        write(os.path.join(full, "d3cold_allowed"), "1\n")
        write(os.path.join(full, "msi_bus"), "1\n")
        write(os.path.join(full, "ari_enabled"), "0\n")
        write(os.path.join(full, "resource"),
              "0x0000000000000000 0x0000000000000000 0x0000000000000000\n" * 13)
        write(os.path.join(full, "modalias"),
              "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n" %
              (vendor, device, sv, sd, cls >> 16, (cls >> 8) & 0xff, cls & 0xff))
        port = d.get("port", "endpoint")
        if port in PORT_TYPES:
            cs, cw = parse_link(d.get("lnkcap"), a)
            ss, sw = parse_link(d.get("lnksta"), a)
            if cs:
                write(os.path.join(full, "max_link_speed"), SPEED_TEXT[cs] + "\n")
                write(os.path.join(full, "max_link_width"), "%d\n" % cw)
            if ss:
                write(os.path.join(full, "current_link_speed"), SPEED_TEXT[ss] + "\n")
                write(os.path.join(full, "current_link_width"), "%d\n" % sw)
        if is_bridge(d):
            sec, sub = bus_range(a, by, kids)
            write(os.path.join(full, "secondary_bus_number"), "%d\n" % sec)
            write(os.path.join(full, "subordinate_bus_number"), "%d\n" % sub)
        os.symlink("../../../" + rel, os.path.join(out, "bus/pci/devices", a))

    for n, cpus in nodes.items():
        nd = os.path.join(out, "devices/system/node/node%d" % int(n))
        os.makedirs(nd, exist_ok=True)
        write(os.path.join(nd, "cpulist"), cpus + "\n")

    for cls_dir, key in (("infiniband", "rdma"), ("net", "netdev")):
        for name, a in sorted(fx.get(key, {}).items()):
            if a not in by:
                raise FixtureError("%s %s: %s not in devices" % (key, name, a))
            own = os.path.join(out, paths[a], cls_dir, name)
            os.makedirs(own, exist_ok=True)
            os.symlink("../../../" + a, os.path.join(own, "device"))
            cd = os.path.join(out, "class", cls_dir)
            os.makedirs(cd, exist_ok=True)
            os.symlink("../../%s/%s/%s" % (paths[a], cls_dir, name), os.path.join(cd, name))


def main(argv):
    if len(argv) != 3:
        print("usage: mksysfs.py FIXTURE.json DIR", file=sys.stderr)
        return 2
    try:
        fx, by = load(argv[1])
        if os.path.exists(argv[2]) and os.listdir(argv[2]):
            raise FixtureError("%s: not empty" % argv[2])
        build(fx, by, argv[2])
    except (FixtureError, OSError, json.JSONDecodeError) as e:
        print("mksysfs.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
