#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""In-guest checks of pcitopo.ko against the layout the guest was booted in.

Runs inside the emulated server (tests/vm/run-guest LAYOUT this-file), as
root, and prints TAP. The expected facts come from the layout's JSON (its
"expect" section, itself checked against the topology by qemu-args --check);
QEMU's device ids are mapped to guest PCI addresses through the slot numbers
the layout gives every port (/sys/bus/pci/slots/N/address, which pciehp
fills in, independent of pcitopo).

What a user would check: the layout and its reason, the GPUs with their
switch, root port and NUMA node, the x16 uplink, the path class of every
GPU pair and GPU-NIC/NVMe pair (sysfs and netlink agree), events and a new
generation when a switch is removed and rescanned, the admin operations,
errors with extack messages for bad requests, and unload while a dump runs.
"""
import glob
import json
import os
import subprocess
import sys
import time

ROOT = os.environ.get("PCITOPO_ROOT", os.getcwd())
NLPROBE = os.path.join(ROOT, "tests", "vm", "guest", "nlprobe.py")
SYS = "/sys/kernel/pcitopo"

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlprobe  # noqa: E402
import standins  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import tap as taplib  # noqa: E402

with open(nlprobe.DEFAULT_HEADER) as _h:
    _HDR = _h.read()
ROLES = nlprobe.read_enum(_HDR, "pcitopo_role")
# class number -> "PIX" etc., as enum pcitopo_path_class names them
CLASS_NAMES = nlprobe.by_value(nlprobe.read_enum(_HDR, "pcitopo_path_class"),
                               "PCITOPO_PATH_")

# the TAP lines: tests/tap.py
tap = taplib.tap
eq = taplib.eq
taplib.PREFIX = os.environ.get("PCITOPO_LAYOUT", "?") + ": "


def sh(*cmd, check=False, inp=None):
    p = subprocess.run(cmd, capture_output=True, text=True, input=inp)
    if check and p.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return p


def rd(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def wr(path, val):
    with open(path, "w") as f:
        f.write(val)


def nl(*args):
    p = sh(sys.executable, NLPROBE, *args)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"errno": -1, "error": p.stdout + p.stderr}


def generation():
    g = rd(SYS + "/generation")
    return int(g) if g else None


def wait_generation(old, timeout=15.0):
    end = time.time() + timeout
    while time.time() < end:
        g = generation()
        if g is not None and g != old:
            # let a burst of bus events settle into one published model
            time.sleep(0.5)
            return generation()
        time.sleep(0.05)
    return None


def slot_child(slot):
    """Address of the function 0 below the port whose slot number is slot."""
    a = rd("/sys/bus/pci/slots/%d/address" % slot)
    return a + ".0" if a else None


def port_of_slot(slot):
    """Address of the port whose slot number is slot (empty slots too): the
    bridge whose secondary bus is the slot's bus."""
    a = rd("/sys/bus/pci/slots/%d/address" % slot)
    if not a:
        return None
    dom, bus = a.split(":")[:2]
    for d in glob.glob("/sys/bus/pci/devices/%s:*" % dom):
        sec = rd(d + "/secondary_bus_number")
        if sec is not None and int(sec) == int(bus, 16):
            return os.path.basename(d)
    return None


def root_port_of(lay, port):
    """The layout's root port above a port id (itself for a root port)."""
    port_sw = {p["id"]: sw for sw in lay["switches"] for p in sw["ports"]}
    while port in port_sw:
        port = port_sw[port]["parent"]
    return port


def map_ids(lay):
    """QEMU id -> guest PCI address, for ports, switches and endpoints."""
    ids = {}
    ports = {rp["id"]: rp["slot"] for rp in lay["root_ports"]}
    for sw in lay["switches"]:
        for p in sw["ports"]:
            ports[p["id"]] = p["slot"]
    for pid, slot in ports.items():
        ids[pid] = port_of_slot(slot)
    for sw in lay["switches"]:
        ids[sw["id"]] = slot_child(ports[sw["parent"]])
    # A PCIe-to-PCI bridge (the BMC's) is the function below its port; the
    # conventional devices behind it have no slot: its bus and their addr.
    bridges = {br["id"]: slot_child(ports[br["parent"]])
               for br in lay.get("bridges", [])}
    ids.update(bridges)
    for ep in lay["endpoints"]:
        if ep["port"] in bridges:
            br = bridges[ep["port"]]
            sec = br and rd("/sys/bus/pci/devices/%s/secondary_bus_number" % br)
            ids[ep["id"]] = sec and "%s:%02x:%02x.0" % (
                br.split(":")[0], int(sec), int(ep["addr"], 0))
        else:
            ids[ep["id"]] = slot_child(ports[ep["port"]])
    return ids


def dev(addr, attr):
    return rd("%s/devices/%s/%s" % (SYS, addr, attr))


def path(a, b, attr="class"):
    return rd("%s/devices/%s/paths/%s/%s" % (SYS, a, b, attr))


def got_pairs(dump):
    return [(m.get("PATH_A"), m.get("PATH_B")) for m in dump.get("messages", [])]


def check_static(lay, ids):
    exp = lay["expect"]
    eq(rd(SYS + "/layout"), exp["layout"], "layout detected")
    reason = rd(SYS + "/layout_reason") or ""
    tap(len(reason) > 0, "layout reason given (%s)" % reason)
    gpus = exp["gpus"]
    eq(rd(SYS + "/count_gpus"), str(len(gpus)), "GPU count")
    nics = [e for e in lay["endpoints"] if e["kind"] == "nic"]
    eq(rd(SYS + "/count_nics"), str(len(nics)), "NIC count")
    switches = {sw["id"] for sw in lay["switches"]}
    eq(rd(SYS + "/count_switches"), str(len(switches)), "switch count")
    bad = []
    for g, want in sorted(gpus.items()):
        a = ids[g]
        got = {"kind": dev(a, "kind"), "switch": dev(a, "switch"),
               "root_port": dev(a, "root_port"),
               "numa_node": dev(a, "numa_node")}
        w = {"kind": "gpu", "switch": ids.get(want["switch"]),
             "root_port": ids[want["root_port"]],
             "numa_node": str(want["numa_node"])}
        if got != w:
            bad.append("%s (%s): want %s got %s" % (g, a, w, got))
    tap(not bad, "every GPU: kind, switch, root port, NUMA node", "\n".join(bad))
    # The BMC's VGA: the stand-ins' own ID (an extra ID of kind gpu here),
    # behind a PCIe-to-PCI bridge, so never a GPU.
    for e in lay["endpoints"]:
        if e["kind"] == "display":
            eq(dev(ids[e["id"]], "kind"), "display",
               "%s (%s, VGA behind a PCIe-to-PCI bridge) has kind display"
               % (e["id"], ids[e["id"]]))

    # Links. QEMU's switch ports and endpoints support only 2.5 GT/s x1, so
    # every link trains to that whatever the root port offers (x-speed and
    # x-width set its LnkCap only): the best both ends support is 2.5 GT/s
    # x1, 250 MB/s each way after 8b/10b, and nothing is downtrained.
    bad = []
    for rp in lay["root_ports"]:
        child = slot_child(rp["slot"])
        if child is None:
            continue
        got = tuple(dev(child, a) for a in (
            "link_speed", "link_width", "link_max_speed", "link_max_width",
            "link_bandwidth", "link_active", "link_downtrained"))
        want = ("2.5 GT/s PCIe", "1", "2.5 GT/s PCIe", "1", "250", "1", "none")
        if got != want:
            bad.append("%s below %s: want %s got %s" % (child, rp["id"], want, got))
    tap(not bad, "links below the root ports: speed, width, bandwidth, state",
        "\n".join(bad))
    sw0 = lay["switches"][0]
    r = nl("do", "get_device", "DEV_ADDR=" + ids[sw0["id"]])
    m = (r.get("messages") or [{}])[0]
    eq((m.get("DEV_ROLE"), m.get("DEV_LINK_SPEED"), m.get("DEV_LINK_WIDTH"),
        m.get("DEV_LINK_BW"), m.get("DEV_ROOT_PORT")),
       (ROLES["PCITOPO_ROLE_UPSTREAM"], 2500, 1, 250,
        ids[root_port_of(lay, sw0["parent"])]),
       "netlink get of a switch upstream port: role, link, root port")

    # Paths: every GPU row of the expectation, in sysfs.
    bad = []
    for g, row in sorted(exp["paths"].items()):
        for o, cls in sorted(row.items()):
            got = path(ids[g], ids[o])
            if got != cls:
                bad.append("%s-%s (%s-%s): want %s got %s"
                           % (g, o, ids[g], ids[o], cls, got))
    tap(not bad, "sysfs path class of every GPU pair and GPU-NIC/NVMe pair",
        "\n".join(bad))

    # The same over netlink.
    dump = nl("dump", "get_path")
    got = {(m.get("PATH_A"), m.get("PATH_B")): m.get("PATH_CLASS")
           for m in dump.get("messages", [])}
    bad = []
    for g, row in sorted(exp["paths"].items()):
        for o, cls in sorted(row.items()):
            c = got.get((ids[g], ids[o]))
            if c is None or CLASS_NAMES.get(c) != cls:
                bad.append("%s-%s: want %s got %s" % (g, o, cls, c))
    tap(dump.get("errno") == 0 and not bad,
        "netlink path dump agrees with the layout", "\n".join(bad) or dump)
    eq(str(len(dump.get("messages", []))), rd(SYS + "/count_paths"),
       "netlink path dump has count_paths entries")
    # A dump filtered by one device (the request's attrs reach a dump
    # differently before and after 6.6: kmod/pcitopo_compat.h)
    g0 = ids["gpu0"]
    one = nl("dump", "get_path", "PATH_A=" + g0)
    got = sorted(m.get("PATH_B") for m in one.get("messages", [])
                 if m.get("PATH_A") == g0)
    want = sorted(b for (a, b) in got_pairs(dump) if a == g0)
    tap(one.get("errno") == 0 and got and got == want and
        len(got) == len(one.get("messages", [])),
        "netlink path dump filtered by GPU0: its %d paths, no other" % len(want),
        one)

    summ = nl("do", "get_summary")
    m = (summ.get("messages") or [{}])[0]
    eq((m.get("GENERATION"), m.get("LAYOUT_REASON"), m.get("COUNT_GPUS")),
       (generation(), reason, len(gpus)), "netlink summary agrees with sysfs")

    devs = nl("dump", "get_device")
    addrs = {d.get("DEV_ADDR") for d in devs.get("messages", [])}
    want = {ids[k] for k in ids if ids[k]}
    tap(want <= addrs, "device dump lists every port, switch and endpoint",
        "missing %s" % sorted(want - addrs))
    eq(str(len(devs.get("messages", []))), rd(SYS + "/count_devices"),
       "device dump has count_devices entries")


def check_errors(ids):
    r = nl("do", "get_device", "DEV_ADDR=zz:zz")
    tap(r.get("errno") == 22 and "address" in r.get("extack", ""),
        "malformed address: EINVAL with an extack naming it", r)
    r = nl("do", "get_device", "DEV_ADDR=0000:7f:1f.7")
    tap(r.get("errno") == 19 and r.get("extack") and "bad_attr_offset" in r,
        "unknown device: ENODEV with an extack pointing at the address", r)
    r = nl("do", "get_device")
    tap(r.get("errno") == 22 and r.get("extack") and
        r.get("missing_attr") == "DEV_ADDR",
        "missing address: EINVAL with an extack naming the attribute", r)
    r = nl("dump", "get_path", "PATH_A=0000:7f:1f.7")
    tap(r.get("errno") == 19 and r.get("extack"),
        "path dump from an unknown device: ENODEV with an extack", r)
    r = nl("raw", "get_summary", "250:01020304")
    tap(r.get("errno") != 0, "unknown attribute type refused", r)
    r = nl("do", "add_id", "ID_VENDOR=u8:1", "ID_DEVICE=u16:2")
    tap(r.get("errno") in (22, 34) and r.get("extack"),
        "attribute of the wrong size refused with an extack", r)
    gpu = ids["gpu0"]
    r = nl("do", "detach", "DEV_ADDR=" + gpu)
    tap(r.get("errno") == 22 and "port" in r.get("extack", ""),
        "detach of an endpoint refused: not a downstream port", r)
    # An unprivileged caller may read but not change anything.
    unpriv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
              "--inh-caps=-all", "--bounding-set=-all", sys.executable, NLPROBE]
    p = sh(*unpriv, "do", "detach", "DEV_ADDR=" + ids["sw0p0"])
    r = json.loads(p.stdout or "{}")
    tap(r.get("errno") == 1, "unprivileged detach: EPERM", r or p.stderr)
    p = sh(*unpriv, "do", "get_summary")
    r = json.loads(p.stdout or "{}")
    tap(r.get("errno") == 0 and r.get("messages"), "unprivileged read allowed", r)
    tap(os.path.exists("/sys/bus/pci/devices/" + gpu),
        "refused operations changed nothing")


def check_hotplug(lay, ids):
    """Remove a whole GPU switch through sysfs, then rescan."""
    exp = lay["expect"]
    # The switch of the last GPUs (gpu4-7): in the superset (MUX) layouts
    # other switches are empty and removing one changes nothing.
    victim = exp["gpus"][sorted(exp["gpus"])[-1]]["switch"]
    usp = ids[victim]
    lost = sorted(g for g, w in exp["gpus"].items() if w["switch"] == victim)
    before = generation()
    listener = subprocess.Popen([sys.executable, NLPROBE, "listen", "200",
                                 "--timeout", "12"], stdout=subprocess.PIPE,
                                text=True)
    listener.stdout.readline()  # {"listening": true}
    wr("/sys/bus/pci/devices/%s/remove" % usp, "1")
    g1 = wait_generation(before)
    tap(g1 is not None and g1 > before, "switch removed: generation grew (%s -> %s)"
        % (before, g1))
    eq(rd(SYS + "/count_gpus"), str(len(exp["gpus"]) - len(lost)),
       "switch removed: its GPUs are gone")
    tap(rd(SYS + "/layout") == "other", "switch removed: layout is other (%s)"
        % rd(SYS + "/layout_reason"))
    tap(not os.path.exists("%s/devices/%s" % (SYS, ids[lost[0]])),
        "switch removed: no sysfs entry left for its GPUs")
    g_before_rescan = generation()
    wr("/sys/bus/pci/rescan", "1")
    g2 = wait_generation(g_before_rescan)
    tap(g2 is not None and g2 > g1, "rescan: generation grew again (%s)" % g2)
    eq(rd(SYS + "/layout"), exp["layout"], "rescan: layout is back")
    ids2 = map_ids(lay)
    bad = [(g, o) for g, row in exp["paths"].items() for o, c in row.items()
           if path(ids2[g], ids2[o]) != c]
    tap(not bad, "rescan: every path class is back", bad[:5])

    events = []
    try:
        out, _ = listener.communicate(timeout=20)
        events = [json.loads(line) for line in out.splitlines() if line]
    except subprocess.TimeoutExpired:
        listener.kill()
    dels = {e.get("DEV_ADDR") for e in events if e["event"] == "DEVICE_DEL_NTF"}
    adds = {e.get("DEV_ADDR") for e in events if e["event"] == "DEVICE_ADD_NTF"}
    lays = [e for e in events if e["event"] == "LAYOUT_CHANGE_NTF"]
    tap({ids[g] for g in lost} <= dels, "events: a device-del for each GPU lost",
        sorted(dels))
    tap({ids2[g] for g in lost} <= adds, "events: a device-add for each GPU back",
        sorted(adds))
    tap(len(lays) >= 2, "events: layout changed away and back (%d)" % len(lays))
    gens = [e.get("GENERATION") for e in events]
    tap(gens == sorted(gens) and (not gens or gens[-1] == generation()),
        "events: generations in order, ending at the current one", gens)
    return ids2


def check_admin_ops(lay, ids):
    """Detach the devices below a downstream port over netlink, then rescan."""
    port = ids[next(e["port"] for e in lay["endpoints"] if e["id"] == "gpu0")]
    gpu = ids["gpu0"]
    before = generation()
    r = nl("do", "detach", "DEV_ADDR=" + port)
    tap(r.get("errno") == 0, "netlink detach below %s" % port, r)
    tap(not os.path.exists("/sys/bus/pci/devices/" + gpu),
        "detach: the GPU is gone from the PCI bus")
    g = generation()
    tap(g is not None and g > before and dev(gpu, "kind") is None,
        "detach: the reply came after the model was updated")
    r = nl("do", "rescan", "DEV_ADDR=" + port)
    tap(r.get("errno") == 0 and dev(gpu, "kind") == "gpu",
        "netlink rescan below the port brings the GPU back", r)
    eq(rd(SYS + "/layout"), lay["expect"]["layout"], "rescan: layout is back")

    # Extra IDs: the NVMe drive counted as an accelerator, then not.
    nvme = next((e for e in lay["endpoints"] if e["kind"] == "nvme"), None)
    if nvme:
        addr = ids[nvme["id"]]
        ven = rd("/sys/bus/pci/devices/%s/vendor" % addr)
        did = rd("/sys/bus/pci/devices/%s/device" % addr)
        n = int(rd(SYS + "/count_gpus"))
        r = nl("do", "add_id", "ID_VENDOR=u16:" + ven, "ID_DEVICE=u16:" + did,
               "ID_KIND=u8:2")
        tap(r.get("errno") == 0 and rd(SYS + "/count_gpus") == str(n + 1)
            and dev(addr, "kind") == "gpu",
            "extra ID %s:%s makes the NVMe drive a GPU" % (ven[2:], did[2:]), r)
        r = nl("do", "add_id", "ID_VENDOR=u16:" + ven, "ID_DEVICE=u16:" + did)
        tap(r.get("errno") == 17, "adding it twice: EEXIST", r)
        r = nl("do", "del_id", "ID_VENDOR=u16:" + ven, "ID_DEVICE=u16:" + did)
        tap(r.get("errno") == 0 and rd(SYS + "/count_gpus") == str(n)
            and dev(addr, "kind") == "nvme", "removing the extra ID restores it", r)


def check_unload_during_dump():
    started = "/tmp/pcitopo-dump-started"
    dumper = subprocess.Popen([sys.executable, NLPROBE, "dump", "get_path",
                               "--slow", "0.05", "--started", started],
                              stdout=subprocess.PIPE, text=True)
    end = time.time() + 30
    while not os.path.exists(started) and time.time() < end:
        time.sleep(0.05)
    first = sh("rmmod", "pcitopo")
    out, _ = dumper.communicate(timeout=60)
    res = json.loads(out or "{}")
    tap(res.get("errno") == 0 or res.get("interrupted"),
        "a dump running across rmmod ends cleanly (rmmod rc %d)" % first.returncode,
        res.get("error"))
    if first.returncode:
        sh("rmmod", "pcitopo")
    tap(not os.path.exists(SYS), "module unloaded, sysfs gone")
    p = sh(*standins.insmod_argv(ROOT))
    tap(p.returncode == 0 and generation() == 1,
        "loads again, generation starts at 1", p.stderr)


def main():
    # --read: the reading checks alone, on the module as it is loaded (by
    # topod-up.sh, under a running topod: tests/vm/t-kernels.sh after each
    # online switch); it is left loaded
    read_only = sys.argv[1:] == ["--read"]
    lay = json.load(open(os.environ["PCITOPO_LAYOUT_FILE"]))
    if read_only:
        if not tap(os.path.isdir(SYS), "pcitopo.ko loaded"):
            taplib.end()
            return 1
    else:
        sh("dmesg", "-C")
        p = sh(*standins.insmod_argv(ROOT))
        if not tap(p.returncode == 0, "insmod pcitopo.ko", p.stderr):
            taplib.end()
            return 1
    deadline = time.time() + 5
    while generation() is None and time.time() < deadline:
        time.sleep(0.05)
    ids = map_ids(lay)
    missing = sorted(k for k, v in ids.items() if not v)
    tap(not missing, "every QEMU device found in the guest", missing)
    check_static(lay, ids)
    if read_only:
        return taplib.end()
    check_errors(ids)
    ids = check_hotplug(lay, ids)
    check_admin_ops(lay, ids)
    check_unload_during_dump()
    sh("rmmod", "pcitopo")
    log = sh("dmesg").stdout
    bad = [line for line in log.splitlines()
           if any(w in line for w in ("BUG", "Oops", "WARNING", "general protection",
                                      "refcount_t", "use-after-free"))]
    tap(not bad, "no oops, warning or BUG in dmesg", "\n".join(bad))
    return taplib.end()


if __name__ == "__main__":
    sys.exit(main())
