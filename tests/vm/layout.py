# SPDX-License-Identifier: GPL-2.0
"""The emulated server's layouts: load tests/vm/layouts/NAME.json, turn it
into a QEMU command line, and derive the facts a test expects (to check the
JSON's explicit "expect" section against the topology it describes).

Standard library only.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUT_DIR = os.path.join(HERE, "layouts")
NAMES = ("balance", "common", "cascade")
# More layouts that are checked (qemu-args --check) but are no MUX state:
# balance4 is balance with two switches per NUMA node.
EXTRA_NAMES = ("balance4",)
# The MUX method's superset topology: one set of switches and ports, gpu4-7
# wired differently per layout (mux-map.json says where).
MUX_NAMES = tuple("mux-" + n for n in NAMES)
MUX_MAP = os.path.join(LAYOUT_DIR, "mux-map.json")


def load(name):
    path = name if name.endswith(".json") else os.path.join(LAYOUT_DIR, name + ".json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _props(d):
    return "".join(f",{k}={v}" for k, v in d.items())


def qemu_argv(lay, run_dir, kernel=None, initrd=None, append=None,
              hostroot="/", qemu="qemu-system-x86_64"):
    """argv for QEMU; the QMP socket and console log live in run_dir."""
    nodes = lay["numa_nodes"]
    a = [qemu, "-machine", "q35", "-accel", "tcg", "-nodefaults",
         "-smp", f"{len(nodes)},sockets={len(nodes)},cores=1,threads=1",
         "-m", lay.get("memory", "1G")]
    for n in nodes:
        a += ["-object", f"memory-backend-ram,id=m{n['id']},size={n['mem']}",
              "-numa", f"node,nodeid={n['id']},cpus={n['cpus']},memdev=m{n['id']}"]
    a += ["-display", "none", "-monitor", "none", "-no-reboot",
          "-serial", f"file:{run_dir}/console.log",
          "-qmp", f"unix:{run_dir}/qmp.sock,server=on,wait=off",
          "-pidfile", f"{run_dir}/qemu.pid"]
    # The host root (read-only) and the results folder, on pcie.0.
    a += ["-fsdev", f"local,id=fs0,path={hostroot},security_model=none,"
          "readonly=on,multidevs=remap",
          "-device", "virtio-9p-pci,fsdev=fs0,mount_tag=hostroot,bus=pcie.0,addr=0x5",
          "-fsdev", f"local,id=fs1,path={run_dir}/out,security_model=none",
          "-device", "virtio-9p-pci,fsdev=fs1,mount_tag=out,bus=pcie.0,addr=0x6"]
    for hb in lay["host_bridges"]:
        a += ["-device", f"pxb-pcie,id={hb['id']},bus=pcie.0,addr={hb['addr']},"
              f"bus_nr={hb['bus_nr']},numa_node={hb['numa_node']}"]
    for rp in lay["root_ports"]:
        a += ["-device", f"pcie-root-port,id={rp['id']},bus={rp['host_bridge']},"
              f"addr={rp['addr']},chassis={rp['chassis']},slot={rp['slot']},"
              f"x-speed={rp['speed']},x-width={rp['width']}"]
    for sw in lay["switches"]:
        a += ["-device", f"x3130-upstream,id={sw['id']},bus={sw['parent']}"]
        for i, p in enumerate(sw["ports"]):
            a += ["-device", f"xio3130-downstream,id={p['id']},bus={sw['id']},"
                  f"addr={i}.0,chassis={p['chassis']},slot={p['slot']}"]
    # Conventional PCI behind a PCIe-to-PCI bridge (a BMC's VGA behind
    # ASPEED's 1a03:1150): QEMU's pcie-pci-bridge has an SHPC, which refuses
    # slot 0, so devices below it need an "addr" of slot 1 or more.
    for br in lay.get("bridges", []):
        a += ["-device", f"{br['device']},id={br['id']},bus={br['parent']}"
              + (f",addr={br['addr']}" if "addr" in br else "")]
    for ep in lay["endpoints"]:
        props = dict(ep.get("props", {}))
        if "addr" in ep:
            props["addr"] = ep["addr"]
        if ep["kind"] == "nic":
            # An isolated user-mode backend: no "nic has no peer" warning.
            a += ["-netdev", f"user,id=net-{ep['id']},restrict=on"]
            props["netdev"] = f"net-{ep['id']}"
        a += ["-device", f"{ep['device']},id={ep['id']},bus={ep['port']}"
              + _props(props)]
    if kernel:
        a += ["-kernel", kernel]
    if initrd:
        a += ["-initrd", initrd]
    if append:
        a += ["-append", append]
    return a


def _place(lay):
    """Per endpoint: its port, switches upward, root port, host bridge, node."""
    rps = {rp["id"]: rp for rp in lay["root_ports"]}
    hbs = {hb["id"]: hb for hb in lay["host_bridges"]}
    port_sw = {p["id"]: sw for sw in lay["switches"] for p in sw["ports"]}
    brs = {br["id"]: br for br in lay.get("bridges", [])}
    out = {}
    for ep in lay["endpoints"]:
        bus, sws, bridges = ep["port"], [], []
        while bus not in rps:
            if bus in brs:
                bridges.append(bus)
                bus = brs[bus]["parent"]
                continue
            sw = port_sw[bus]
            sws.append(sw["id"])
            bus = sw["parent"]
        hb = hbs[rps[bus]["host_bridge"]]
        out[ep["id"]] = {"kind": ep["kind"], "switches": sws, "bridges": bridges,
                         "root_port": bus, "host_bridge": hb["id"],
                         "numa_node": hb["numa_node"]}
    return out


def path_class(a, b):
    """nvidia-smi topo -m class between two placed endpoints."""
    common = [s for s in a["switches"] if s in b["switches"]]
    if common:
        c = common[0]
        if a["switches"][0] == c and b["switches"][0] == c:
            return "PIX"
        return "PXB"
    if a["host_bridge"] == b["host_bridge"]:
        return "PHB"
    if a["numa_node"] == b["numa_node"]:
        return "NODE"
    return "SYS"


# Endpoint kinds with path classes (the columns of nvidia-smi topo -m). A
# "display" (a BMC's or on-board VGA) is listed as a device, never a GPU,
# and has no paths.
PATH_KINDS = ("gpu", "nic", "nvme")


def derive(lay):
    """The "expect" section that the topology implies."""
    pl = _place(lay)
    eps = [e["id"] for e in lay["endpoints"] if e["kind"] in PATH_KINDS]
    gpus = [e for e in eps if pl[e]["kind"] == "gpu"]
    # "layout": the layout the topology is (mux-balance.json is balance).
    exp = {"layout": lay.get("layout", lay["name"]), "gpus": {}, "paths": {}}
    for g in gpus:
        p = pl[g]
        exp["gpus"][g] = {"switch": p["switches"][0] if p["switches"] else None,
                          "root_port": p["root_port"],
                          "host_bridge": p["host_bridge"],
                          "numa_node": p["numa_node"]}
        exp["paths"][g] = {o: path_class(p, pl[o]) for o in eps if o != g}
    return exp


def check(lay):
    """Differences between the JSON's "expect" and the derived facts."""
    want, got = lay.get("expect", {}), derive(lay)
    errs = []
    for key in ("layout", "gpus", "paths"):
        if want.get(key) != got[key]:
            errs.append(f"{lay['name']}: expect.{key} differs from the topology:"
                        f" json={json.dumps(want.get(key))} derived={json.dumps(got[key])}")
    return errs


def check_mux_map(path=MUX_MAP):
    """Differences between mux-map.json and the mux-*.json layouts: every
    layout's mapped devices sit on the mapped ports, everything else is the
    same in all of them, and the ports exist everywhere."""
    errs = []
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    lays = {n: load("mux-" + n) for n in NAMES}
    for n, lay in lays.items():
        eps = {e["id"]: e for e in lay["endpoints"]}
        for d, port in m["ports"].get(n, {}).items():
            if d not in m["devices"]:
                errs.append(f"mux-map: {n}: {d} has no device entry")
            elif eps.get(d, {}).get("port") != port:
                errs.append(f"mux-map: {n}: {d} on {port}, mux-{n}.json says "
                            f"{eps.get(d, {}).get('port')}")
            elif eps[d]["device"] != m["devices"][d]["device"]:
                errs.append(f"mux-map: {d}: device differs from mux-{n}.json")
        if set(m["ports"].get(n, {})) != set(m["devices"]):
            errs.append(f"mux-map: ports.{n} does not name every device")
    base = lays[NAMES[0]]
    strip = lambda lay: {k: v for k, v in lay.items()  # noqa: E731
                         if k not in ("name", "layout", "description",
                                      "expect", "endpoints")}
    fixed = lambda lay: sorted(  # noqa: E731
        (json.dumps(e, sort_keys=True) for e in lay["endpoints"]
         if e["id"] not in m["devices"]))
    for n, lay in lays.items():
        if strip(lay) != strip(base):
            errs.append(f"mux-{n}: switches/ports differ from mux-{NAMES[0]}")
        if fixed(lay) != fixed(base):
            errs.append(f"mux-{n}: devices outside the MUX differ")
    return errs
