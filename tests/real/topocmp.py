#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# topocmp.py FIXTURE.json TOPO.txt SHOW.json: hold `topoctl topo` (TOPO.txt)
# and `topoctl -j show` (SHOW.json) against what nvidia-smi printed on the
# machine of the fixture. Prints one `ok - what` / `not ok - what` line per
# check (t-real.sh numbers them) and `# got X want Y at ROW/COL` diagnostics.
#
# Both matrices are parsed into {(row, col): cell}; nvidia-smi's old captures
# name the NIC columns after the RDMA device (mlx5_0), new ones NIC0.. with a
# "NIC Legend"; both are brought to NICk with a legend NICk -> name.
import json
import os
import re
import sys

AFFINITY = ("CPU", "NUMA", "GPU")  # first words of the affinity columns
DEV_RE = re.compile(r"^(GPU\d+|NIC\d+|mlx\d+_\d+|mlx5_bond_\d+|[a-z]+\d*_\d+)$")


def parse(text):
    """-> dict(names=[...], cells={(r, c): v}, cpu={r: s}, numa={r: s},
    legend={NICk: name}, addr={NICk: ADDR})"""
    # nvidia-smi on a terminal underlines the header (ESC[4m ... ESC[0m);
    # captures keep it, and it is no part of any name
    lines = re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines()
    m = dict(names=[], cells={}, cpu={}, numa={}, legend={}, addr={})
    hdr = None
    for i, ln in enumerate(lines):
        toks = ln.split()
        if toks and toks[0] == "GPU0" and ln[:1] in ("\t", " "):
            hdr = i
            break
        if toks and toks[0] == "GPU0" and len(toks) > 1 and toks[1] == "GPU1":
            hdr = i
            break
    if hdr is None:
        return m
    names = []
    for t in lines[hdr].split():
        if t in AFFINITY:
            break
        names.append(t)
    m["names"] = names
    for ln in lines[hdr + 1:]:
        toks = ln.split()
        if not toks or toks[0] not in names:
            if toks and toks[0] == "Legend:":
                break
            continue
        row = toks[0]
        cells = toks[1:1 + len(names)]
        for c, v in zip(names, cells):
            m["cells"][(row, c)] = v
        rest = toks[1 + len(names):]
        if len(rest) >= 1:
            m["cpu"][row] = rest[0]
        if len(rest) >= 2:
            m["numa"][row] = rest[1]
    in_legend = False
    for ln in lines:
        if ln.strip() == "NIC Legend:":
            in_legend = True
            continue
        # nvidia-smi: "  NIC0: mlx5_0"; topoctl: "  NIC0: mlx5_0 (ADDR)";
        # captures pasted into Markdown may have lost the indent
        mm = re.match(r"^\s*(NIC\d+):\s+(\S+)(?:\s+\(([0-9a-f:.]+)\))?\s*$", ln)
        if in_legend and mm:
            m["legend"][mm.group(1)] = mm.group(2)
            if mm.group(3):
                m["addr"][mm.group(1)] = mm.group(3)
    # old style: NIC columns named after the RDMA device
    ren = {}
    k = 0
    for n in names:
        if not n.startswith("GPU") and not n.startswith("NIC"):
            ren[n] = "NIC%d" % k
            m["legend"]["NIC%d" % k] = n
            k += 1
    if ren:
        r = lambda x: ren.get(x, x)
        m["names"] = [r(n) for n in names]
        m["cells"] = {(r(a), r(b)): v for (a, b), v in m["cells"].items()}
        m["cpu"] = {r(a): v for a, v in m["cpu"].items()}
        m["numa"] = {r(a): v for a, v in m["numa"].items()}
    return m


class Tap:
    def __init__(self, prefix):
        self.prefix = prefix

    def line(self, good, what, diags=()):
        print("%s - %s%s" % ("ok" if good else "not ok", self.prefix, what))
        for d in list(diags)[:40]:
            print("# " + d)
        if len(diags) > 40:
            print("# ... %d more" % (len(diags) - 40))


def cmp_cells(got, want, rows, cols):
    diags = []
    n = 0
    for r in rows:
        for c in cols:
            if (r, c) not in want["cells"]:
                continue
            n += 1
            g = got["cells"].get((r, c))
            w = want["cells"][(r, c)]
            if g is None or g.strip() != w.strip():
                diags.append("got %s want %s at %s/%s" % (g if g is not None else "(none)", w, r, c))
    return n, diags


def exp_known(fx):
    """The fixture's recorded disagreements, each with its evidence."""
    ks = fx.get("expect", {}).get("known_differences", [])
    for k in ks:
        for key in ("row", "column", "nvidia_smi", "topoctl", "why"):
            if not k.get(key):
                raise ValueError("known_differences entry without %s: %r" % (key, k))
    return ks


def main(argv):
    if len(argv) != 4:
        print("usage: topocmp.py FIXTURE.json TOPO.txt SHOW.json", file=sys.stderr)
        return 2
    fx_path, topo_path, show_path = argv[1:]
    with open(fx_path, encoding="utf-8") as f:
        fx = json.load(f)
    name = fx.get("name", os.path.basename(fx_path))
    tap = Tap(name + ": ")
    cap = os.path.join(os.path.dirname(fx_path), fx["nvidia_smi_topo"])
    with open(cap, encoding="utf-8") as f:
        want = parse(f.read())
    with open(topo_path, encoding="utf-8", errors="replace") as f:
        got = parse(f.read())
    if not want["names"]:
        tap.line(False, "the nvidia-smi capture parses", ["no header row in " + cap])
        return 0

    wg = [n for n in want["names"] if n.startswith("GPU")]
    wn = [n for n in want["names"] if n.startswith("NIC")]
    gg = [n for n in got["names"] if n.startswith("GPU")]
    gn = [n for n in got["names"] if n.startswith("NIC")]

    tap.line(len(gg) == len(wg), "GPU count is nvidia-smi's (%d)" % len(wg),
             ["got %d want %d GPUs (got columns: %s)" % (len(gg), len(wg), " ".join(got["names"]) or "none")]
             if len(gg) != len(wg) else [])
    tap.line(got["names"] == want["names"], "header names are nvidia-smi's (%s)" % " ".join(want["names"]),
             ["got %s want %s" % (" ".join(got["names"]) or "(none)", " ".join(want["names"]))]
             if got["names"] != want["names"] else [])

    n, d = cmp_cells(got, want, wg, wg)
    tap.line(not d, "every GPU-GPU cell is nvidia-smi's (%d cells)" % n, d)
    if wn:
        n, d = cmp_cells(got, want, wg, wn)
        n2, d2 = cmp_cells(got, want, wn, wg)
        tap.line(not (d + d2), "every GPU-NIC cell is nvidia-smi's (%d cells)" % (n + n2), d + d2)
        n, d = cmp_cells(got, want, wn, wn)
        tap.line(not d, "every NIC-NIC cell is nvidia-smi's (%d cells)" % n, d)
    if want["legend"]:
        d = ["got %s: %s want %s: %s" % (k, got["legend"].get(k, "(none)"), k, v)
             for k, v in sorted(want["legend"].items()) if got["legend"].get(k) != v]
        d += ["got %s: %s, not in nvidia-smi's legend" % (k, v)
              for k, v in sorted(got["legend"].items()) if k not in want["legend"]]
        tap.line(not d, "NIC legend is nvidia-smi's (%s)" %
                 ", ".join("%s: %s" % kv for kv in sorted(want["legend"].items())), d)
        rdma = fx.get("rdma", {})
        d = ["got %s at %s (%s), the fixture puts %s at %s" % (got["addr"].get(k, "(none)"), k, v, v, rdma[v])
             for k, v in sorted(want["legend"].items())
             if v in rdma and got["addr"].get(k) != rdma[v]]
        tap.line(not d, "NIC legend addresses are the fixture's RDMA functions", d)
    if want["cpu"]:
        # A fixture may record a cell where nvidia-smi and the machine's own
        # files disagree (expect.known_differences: row, column, what each
        # printed, the evidence). The check then holds both sides to the
        # record, so a change on either side still fails.
        known = {(k["row"], k["column"]): k for k in exp_known(fx)}
        d, kd = [], []
        for r, v in sorted(want["cpu"].items()):
            if not r.startswith("GPU"):
                continue
            g = got["cpu"].get(r, "(none)")
            k = known.get((r, "CPU Affinity"))
            if k:
                if v != k["nvidia_smi"] or g != k["topoctl"]:
                    d.append("known difference at %s/CPU Affinity changed: nvidia-smi %s topoctl %s, recorded %s / %s"
                             % (r, v, g, k["nvidia_smi"], k["topoctl"]))
                else:
                    kd.append(r)
            elif g != v:
                d.append("got %s want %s at %s/CPU Affinity" % (g, v, r))
        what = "CPU affinity of every GPU is nvidia-smi's"
        if kd:
            what += " (%s: the recorded known difference)" % ", ".join(kd)
        tap.line(not d, what, d)
    if want["numa"]:
        d = ["got %s want %s at %s/NUMA Affinity" % (got["numa"].get(r, "(none)"), v, r)
             for r, v in sorted(want["numa"].items()) if r.startswith("GPU") and got["numa"].get(r) != v]
        tap.line(not d, "NUMA affinity of every GPU is nvidia-smi's", d)

    exp = fx.get("expect", {})
    if "layout" in exp:
        try:
            with open(show_path, encoding="utf-8") as f:
                show = json.load(f)
        except (OSError, ValueError) as e:
            show = {}
            err = str(e)
        else:
            err = None
        gl = show.get("layout")
        d = []
        if gl != exp["layout"]:
            d.append("got %s want %s (%s)" % (gl, exp["layout"], exp.get("why", "")))
            if show.get("reason"):
                d.append("topoctl's reason: %s" % show["reason"])
            if err:
                d.append("show -j: " + err)
        tap.line(not d, "layout is %s (%s)" % (exp["layout"], exp.get("why", "")), d)
        if "reason" in exp:
            gr = show.get("reason") or ""
            tap.line(gr.startswith(exp["reason"]), "layout reason starts '%s'" % exp["reason"],
                     [] if gr.startswith(exp["reason"]) else ["got '%s'" % gr])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
