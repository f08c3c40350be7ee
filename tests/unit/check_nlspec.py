#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Hold Documentation/netlink/specs/pcitopo.yaml against the three hand-written
copies of what it says: the uapi header include/uapi/linux/pcitopo.h, the
module's request policies and operations (kmod/pcitopo_netlink.c) and the
library's reply policy (lib/attr.c). TAP on stdout.

Why a check and not policies generated from the spec as the kernel's ynl-gen
does: the module is built by DKMS on the servers, from kernel headers that
carry no ynl-gen (Debian's linux-headers hold tools/objtool only), so
generated code would be committed anyway and still need a check that it is
current; and the library's policy is libnl's, which ynl-gen does not write.
One check of all three copies is the smaller piece, and leaves them readable.

Names follow ynl's C conventions (genetlink-legacy): a definition NAME is
FAMILY-NAME, an enum entry NAME-PREFIX + ENTRY, an attribute or operation
the set's or the list's name-prefix + its name, all upper case with '_'.
Values: enums count from 0 (flags: bit i), attributes and operations from
their first "value". The header may end an enum with __PREFIX_MAX (the
count) and PREFIX_MAX (the last), as the kernel's headers do.

Usage: check_nlspec.py [TOP]   (TOP: the tree, default two levels up)
The checker first runs itself on copies of the four files with one fact
changed each, and must find every one of those (so it cannot pass by
reading nothing); then it checks the files as they are.
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("not ok 1 - PyYAML missing (scripts/setup installs python3-yaml)")
    print("1..1")
    sys.exit(1)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import tap, end  # noqa: E402  (the TAP lines: tests/tap.py)


def c_name(*parts):
    return "".join(parts).upper().replace("-", "_")


# --- the spec: every C name and value it implies ---------------------------

def spec_facts(spec):
    """(defines, enums, attrs, ops): the names and values the spec gives.
    defines: NAME -> int or str; enums: C enum name -> [(NAME, value)];
    attrs: [(spec name, C name, value, attribute)]; ops: [(name, C name,
    value, operation)]."""
    fam = spec["name"]
    defines = {c_name(spec["c-family-name"]): fam,
               c_name(spec["c-version-name"]): spec.get("version", 1)}
    enums = {}
    for d in spec.get("definitions", []):
        if d["type"] == "const":
            defines[c_name(fam, "-", d["name"])] = d["value"]
            continue
        prefix = d.get("name-prefix", fam + "-" + d["name"] + "-")
        ename = c_name(d.get("enum-name", fam + "-" + d["name"]))
        vals = []
        for i, e in enumerate(d["entries"]):
            n = e["name"] if isinstance(e, dict) else e
            vals.append((c_name(prefix, n), (1 << i) if d["type"] == "flags" else i))
        enums[ename.lower()] = vals
    for g in spec.get("mcast-groups", {}).get("list", []):
        defines[c_name(fam, "-mcgrp-", g["name"])] = g["name"]
    aset = spec["attribute-sets"][0]
    attrs = numbered(aset["attributes"], aset["name-prefix"])
    enums[c_name(aset["enum-name"]).lower()] = [(c, v) for _, c, v, _ in attrs]
    ol = spec["operations"]
    ops = numbered(ol["list"], ol["name-prefix"])
    enums[c_name(ol["enum-name"]).lower()] = [(c, v) for _, c, v, _ in ops]
    return defines, enums, attrs, ops, c_name(aset["attr-cnt-name"])


def numbered(items, prefix):
    """Attributes or operations: (name, C name, value, item), each one more
    than the last unless it gives its "value"."""
    out, v = [], 0
    for x in items:
        v = x.get("value", v)
        out.append((x["name"], c_name(prefix, x["name"]), v, x))
        v += 1
    return out


# --- the header ---------------------------------------------------------------

def header_enums(text):
    """enum name -> its member names in order (the compiler gives values)."""
    out = {}
    for m in re.finditer(r"enum\s+(\w+)\s*\{(.*?)\};", text, re.S):
        body = re.sub(r"/\*.*?\*/", "", m.group(2), flags=re.S)
        names = [re.match(r"\s*(\w+)", x).group(1) for x in body.split(",")
                 if re.match(r"\s*\w", x)]
        out[m.group(1)] = names
    return out


def header_values(header_dir, names, strings):
    """Values of C names through the compiler: every name must exist."""
    src = ['#include <stdio.h>', '#include <linux/pcitopo.h>', 'int main(void)', '{']
    for n in names:
        src.append('\tprintf("%%s %%lld\\n", "%s", (long long)(%s));' % (n, n))
    for n in strings:
        src.append('\tprintf("%%s %%s\\n", "%s", %s);' % (n, n))
    src += ["\treturn 0;", "}"]
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "v.c")
        with open(c, "w") as f:
            f.write("\n".join(src) + "\n")
        r = subprocess.run(["cc", "-std=c11", "-I", header_dir, "-o",
                            os.path.join(d, "v"), c], capture_output=True,
                           text=True)
        if r.returncode:
            errs = [l for l in r.stderr.splitlines() if "error" in l]
            return None, errs
        out = subprocess.run([os.path.join(d, "v")], capture_output=True,
                             text=True).stdout
    vals = {}
    for line in out.splitlines():
        k, v = line.split(" ", 1)
        vals[k] = v if k in strings else int(v)
    return vals, []


def check_header(spec, header_text, header_dir):
    """(problems, the header's values of the spec's names)"""
    defines, enums, attrs, ops, cnt = spec_facts(spec)
    bad = []
    names = [n for vals in enums.values() for n, _ in vals]
    names += [n for n, v in defines.items() if isinstance(v, int)]
    strings = [n for n, v in defines.items() if isinstance(v, str)]
    vals, errs = header_values(header_dir, names + [cnt], strings)
    if vals is None:
        return ["the spec's names do not compile against the header: " + e
                for e in errs], {}
    for n, v in defines.items():
        if vals.get(n) != v:
            bad.append("%s is %r in the header, %r in the spec" % (n, vals.get(n), v))
    for ename, members in enums.items():
        for n, v in members:
            if vals[n] != v:
                bad.append("%s is %d in the header, %d in the spec" % (n, vals[n], v))
    if vals[cnt] != len(attrs):
        bad.append("%s is %d in the header, %d attributes in the spec" %
                   (cnt, vals[cnt], len(attrs)))
    # nothing in the header's enums that the spec does not name
    henums = header_enums(header_text)
    for ename, members in enums.items():
        if ename not in henums:
            bad.append("enum %s is not in the header" % ename)
            continue
        want = [n for n, _ in members]
        got = [n for n in henums[ename] if not re.match(r"^__\w+_MAX$|^\w+_MAX$", n)]
        if got != want:
            i = next((k for k, (g, w) in enumerate(zip(got, want)) if g != w),
                     min(len(got), len(want)))
            bad.append("enum %s, member %d: header %s, spec %s" %
                       (ename, i, got[i] if i < len(got) else "(none)",
                        want[i] if i < len(want) else "(none)"))
    return bad, vals


# --- C initializers (the policies, the operations) --------------------------

def c_expr(expr, consts):
    """An integer C expression of numbers and the header's names."""
    e = re.sub(r"/\*.*?\*/", "", expr).strip()
    e = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", e)

    def name(m):
        if m.group(0) not in consts:
            raise ValueError("unknown name %s in '%s'" % (m.group(0), expr))
        return str(consts[m.group(0)])
    e = re.sub(r"\b[A-Za-z_]\w*\b", name, e)
    if not re.fullmatch(r"[\d\s+\-*()<|]+", e):
        raise ValueError("cannot read '%s'" % expr)
    return eval(e)  # digits and operators only, checked above


def split_top(s, sep=","):
    """s split at sep outside braces and parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def c_struct(init, macros):
    """'{ .type = NLA_U8, .len = 15 }' (or a macro of one) -> {field: text}."""
    init = init.strip()
    while init in macros:
        init = macros[init].strip()
    m = re.fullmatch(r"NLA_POLICY_RANGE\((\w+),(.*),(.*)\)", init, re.S)
    if m:
        return {"type": m.group(1), "min": m.group(2), "max": m.group(3)}
    if not (init.startswith("{") and init.endswith("}")):
        raise ValueError("cannot read the initializer '%s'" % init)
    out = {}
    for f in split_top(init[1:-1]):
        m = re.fullmatch(r"\s*\.(\w+)\s*=\s*(.*?)\s*", f, re.S)
        if not m:
            raise ValueError("cannot read '%s'" % f.strip())
        out[m.group(1)] = m.group(2)
    return out


def c_macros(text):
    """#define NAME { ... } (one line or continued)."""
    out = {}
    for m in re.finditer(r"^#define\s+(\w+)\s+((?:[^\n]*\\\n)*[^\n]*)", text, re.M):
        out[m.group(1)] = m.group(2).replace("\\\n", " ")
    return out


def c_array(text, name):
    """The designated initializers of array NAME: {index text: init text}."""
    m = re.search(r"\b%s\[[^\]]*\]\s*=\s*\{(.*?)\n\};" % re.escape(name), text, re.S)
    if not m:
        raise ValueError("no array %s" % name)
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    out = {}
    for item in split_top(body):
        if not item.strip():
            continue
        mm = re.fullmatch(r"\s*\[(\w+)\]\s*=\s*(.*?)\s*", item, re.S)
        if not mm:
            raise ValueError("%s: cannot read '%s'" % (name, item.strip()))
        out[mm.group(1)] = mm.group(2)
    return out


def fn_macros(text):
    """Function-like macros of one parameter: NAME -> (parameter, body)."""
    out = {}
    for m in re.finditer(r"^#define\s+(\w+)\((\w+)\)\s+((?:[^\n]*\\\n)*[^\n]*)",
                         text, re.M):
        out[m.group(1)] = (m.group(2), m.group(3).replace("\\\n", " "))
    return out


def expand(body, fmacros):
    for name, (param, repl) in fmacros.items():
        body = re.sub(r"\b%s\(\s*(\w+)\s*\)" % name,
                      lambda m: re.sub(r"\b%s\b" % param, m.group(1), repl), body)
    return body


def kernel_ops(text):
    """The genl_ops array: [{field: text}], its macros expanded."""
    m = re.search(r"struct genl_ops \w+\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    if not m:
        raise ValueError("no genl_ops array")
    fm = fn_macros(text)
    out = []
    for item in split_top(m.group(1)):
        if item.strip():
            o = c_struct(expand(item.strip(), fm), {})
            if "policy" in o:
                o["policy"] = o["policy"].strip("() ")
            out.append(o)
    return out


def kernel_policy_of(kfield, consts):
    """A kernel nla_policy -> (type, len, min, max)."""
    t = kfield["type"]
    ln = c_expr(kfield["len"], consts) if "len" in kfield else None
    mn = c_expr(kfield["min"], consts) if "min" in kfield else None
    mx = c_expr(kfield["max"], consts) if "max" in kfield else None
    return t, ln, mn, mx


KTYPE = {"u8": "NLA_U8", "u16": "NLA_U16", "u32": "NLA_U32", "u64": "NLA_U64",
         "s32": "NLA_S32", "string": "NLA_NUL_STRING"}
LTYPE = {"u8": ("NLA_U8", 1), "u16": ("NLA_U16", 2), "u32": ("NLA_U32", 4),
         "s32": ("NLA_S32", 4), "u64": ("NLA_U64", 8)}


def check_kernel(spec, ktext, consts):
    """The module's operations and request policies against the spec's."""
    defines, enums, attrs, ops, cnt = spec_facts(spec)
    by_name = {n: (c, a) for n, c, _, a in attrs}
    bad = []
    macros = c_macros(ktext)
    kops = {}
    for o in kernel_ops(ktext):
        kops[o["cmd"]] = o
    for name, cname, _, o in ops:
        if name == "unspec":
            continue
        if "event" in o:
            if cname in kops:
                bad.append("%s is an event in the spec, an operation in the module" % cname)
            continue
        k = kops.pop(cname, None)
        if k is None:
            bad.append("%s is not among the module's operations" % cname)
            continue
        for mode, fn in (("do", "doit"), ("dump", "dumpit")):
            if (mode in o) != (fn in k):
                bad.append("%s: %s %s in the spec, .%s %s in the module" %
                           (cname, mode, "given" if mode in o else "absent",
                            fn, "set" if fn in k else "absent"))
        admin = "admin-perm" in o.get("flags", [])
        if admin != ("GENL_ADMIN_PERM" in k.get("flags", "")):
            bad.append("%s: admin-perm %s in the spec, GENL_ADMIN_PERM %s in the module" %
                       (cname, "set" if admin else "not set",
                        "set" if "GENL_ADMIN_PERM" in k.get("flags", "") else "not set"))
        want = []
        for mode in ("do", "dump"):
            want += o.get(mode, {}).get("request", {}).get("attributes", [])
        want = sorted(set(want), key=lambda n: [a[0] for a in attrs].index(n))
        pol = k.get("policy")
        if not want:
            if pol:
                bad.append("%s takes no attribute in the spec, a policy (%s) in the module" %
                           (cname, pol))
            continue
        if not pol:
            bad.append("%s takes %s in the spec, no policy in the module" %
                       (cname, ", ".join(want)))
            continue
        maxattr = c_name(spec["attribute-sets"][0]["name-prefix"], "max")
        if k.get("maxattr") != maxattr:
            bad.append("%s: .maxattr %s, not %s" % (cname, k.get("maxattr"), maxattr))
        table = c_array(ktext, pol)
        for n in want:
            c, a = by_name[n]
            if c not in table:
                bad.append("%s: %s is a request attribute in the spec, not in %s" % (cname, c, pol))
                continue
            t, ln, mn, mx = kernel_policy_of(c_struct(table.pop(c), macros), consts)
            if t != KTYPE.get(a["type"]):
                bad.append("%s: %s is %s in the spec, %s in %s" % (cname, c, a["type"], t, pol))
            chk = a.get("checks", {})
            if a["type"] == "string" and ln != chk.get("max-len"):
                bad.append("%s: %s max-len %s in the spec, .len %s in %s" %
                           (cname, c, chk.get("max-len"), ln, pol))
            if (mn, mx) != (chk.get("min"), chk.get("max")) and a["type"] != "string":
                bad.append("%s: %s min/max %s/%s in the spec, %s/%s in %s" %
                           (cname, c, chk.get("min"), chk.get("max"), mn, mx, pol))
        for c in table:
            bad.append("%s: %s accepts %s, the spec does not" % (cname, pol, c))
    for c in kops:
        bad.append("%s is an operation of the module, not of the spec" % c)
    m = re.search(r"genl_multicast_group \w+\[\]\s*=\s*\{(.*?)\n\};", ktext, re.S)
    groups = re.findall(r"\.name\s*=\s*(\w+)", m.group(1)) if m else []
    want = [c_name(spec["name"], "-mcgrp-", g["name"]) for g in
            spec.get("mcast-groups", {}).get("list", [])]
    if groups != want:
        bad.append("multicast groups: module %s, spec %s" % (groups, want))
    for f, want in (("name", c_name(spec["c-family-name"])),
                    ("version", c_name(spec["c-version-name"]))):
        if not re.search(r"struct genl_family \w+[^=]*=\s*\{[^}]*\.%s\s*=\s*%s\b" % (f, want),
                         ktext, re.S):
            bad.append("the family's .%s is not %s" % (f, want))
    return bad


def check_lib(spec, ltext, consts):
    """The library's reply policy: every attribute of the spec, exact sizes
    for integers, strings bounded as the spec's max-len says."""
    defines, enums, attrs, ops, cnt = spec_facts(spec)
    bad = []
    macros = c_macros(ltext)
    table = c_array(ltext, "pt_policy")
    for n, c, _, a in attrs:
        if a["type"] in ("unused", "pad"):
            if c in table:
                bad.append("pt_policy has %s, a %s attribute" % (c, a["type"]))
            continue
        if c not in table:
            bad.append("pt_policy lacks %s" % c)
            continue
        p = c_struct(table.pop(c), macros)
        if a["type"] == "string":
            want_max = a.get("checks", {}).get("max-len")
            got = c_expr(p["maxlen"], consts) if "maxlen" in p else None
            if p["type"] != "NLA_STRING" or want_max is None or got != want_max + 1:
                bad.append("%s: spec string max-len %s, pt_policy %s maxlen %s "
                           "(NUL included: max-len + 1)" % (c, want_max, p["type"], got))
            continue
        t, size = LTYPE[a["type"]]
        got = (p["type"], c_expr(p.get("minlen", "0"), consts),
               c_expr(p.get("maxlen", "0"), consts))
        if got != (t, size, size):
            bad.append("%s: spec %s, pt_policy %s minlen %s maxlen %s" %
                       ((c, a["type"]) + got))
    for c in table:
        bad.append("pt_policy has %s, the spec does not" % c)
    return bad


def check_all(spec_text, header_text, ktext, ltext):
    """Every problem, as (part, [messages])."""
    spec = yaml.safe_load(spec_text)
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "linux"))
        with open(os.path.join(d, "linux", "pcitopo.h"), "w") as f:
            f.write(header_text)
        bad, consts = check_header(spec, header_text, d)
    out = [("header", bad)]
    for part, fn, text in (("module", check_kernel, ktext), ("library", check_lib, ltext)):
        try:
            out.append((part, fn(spec, text, consts)))
        except (ValueError, KeyError) as e:
            out.append((part, ["cannot read: %s" % e]))
    return out


# --- one fact changed each: the checker must see it --------------------------

MUTATIONS = [
    ("spec: an attribute renamed", "spec",
     "name: dev-hotplug\n", "name: dev-hot-plug\n", "header"),
    ("spec: an enum entry added", "spec",
     "      - display\n", "      - display\n      - fpga\n", "header"),
    ("spec: a const changed", "spec",
     "value: 128\n", "value: 129\n", "header"),
    ("header: two attributes swapped", "header",
     "\tPCITOPO_A_DEV_ACS_CAP,\t\t/* u16, ACS capability register */\n"
     "\tPCITOPO_A_DEV_ACS_CTRL,\t\t/* u16, ACS control register */\n",
     "\tPCITOPO_A_DEV_ACS_CTRL,\t\t/* u16, ACS control register */\n"
     "\tPCITOPO_A_DEV_ACS_CAP,\t\t/* u16, ACS capability register */\n", "header"),
    ("header: an attribute the spec does not name", "header",
     "\tPCITOPO_A_ID_KIND,", "\tPCITOPO_A_ID_KIND,\n\tPCITOPO_A_ID_FLAGS,", "header"),
    ("header: a link flag moved", "header",
     "1U << 3, /* width", "1U << 4, /* width", "header"),
    ("module: an address one byte longer", "kmod",
     ".len = PCITOPO_ADDR_LEN - 1 }", ".len = PCITOPO_ADDR_LEN }", "module"),
    ("module: a kind range widened", "kmod",
     "NLA_POLICY_RANGE(NLA_U8, PCITOPO_KIND_GPU,", "NLA_POLICY_RANGE(NLA_U8, PCITOPO_KIND_PORT,",
     "module"),
    ("module: detach without admin-perm", "kmod",
     "\t\t.cmd = PCITOPO_CMD_DETACH,\n\t\t.flags = GENL_ADMIN_PERM,\n",
     "\t\t.cmd = PCITOPO_CMD_DETACH,\n", "module"),
    ("module: get-id without its dump", "kmod",
     "\t\t.dumpit = pcitopo_nl_get_id_dumpit,\n", "", "module"),
    ("spec: a request attribute the module accepts left out", "spec",
     "            - path-a\n            - path-b\n        reply: &path",
     "            - path-a\n        reply: &path", "module"),
    ("spec: an address bound one shorter", "spec",
     "doc: Upstream bridge; absent on a root bus.\n        checks:\n          max-len: 15",
     "doc: Upstream bridge; absent on a root bus.\n        checks:\n          max-len: 14",
     "library"),
    ("module: an event served as an operation", "kmod",
     ".cmd = PCITOPO_CMD_GET_ID,", ".cmd = PCITOPO_CMD_LAYOUT_CHANGE_NTF,", "module"),
    ("library: a u32 read as a u16", "lib",
     "[PCITOPO_A_DEV_SLOT]\t\t= U32,", "[PCITOPO_A_DEV_SLOT]\t\t= U16,", "library"),
    ("library: an attribute left out", "lib",
     "\t[PCITOPO_A_PATH_FLAGS]\t\t= U32,\n", "", "library"),
]


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    paths = {"spec": "Documentation/netlink/specs/pcitopo.yaml",
             "header": "include/uapi/linux/pcitopo.h",
             "kmod": "kmod/pcitopo_netlink.c", "lib": "lib/attr.c"}
    texts = {k: open(os.path.join(top, v)).read() for k, v in paths.items()}
    order = ("spec", "header", "kmod", "lib")
    base = dict(check_all(*[texts[k] for k in order]))
    for what, key, old, new, part in MUTATIONS:
        t = dict(texts)
        if old not in t[key]:
            tap(False, "self-test %s: '%s' is not in %s any more" % (what, old.strip(), paths[key]))
            continue
        t[key] = t[key].replace(old, new, 1)
        found = dict(check_all(*[t[k] for k in order]))
        new_bad = [d for d in found[part] if d not in base[part]]
        tap(bool(new_bad), "self-test: %s is found (%s)" % (what, part),
            ["the checker found nothing new"])
        if os.environ.get("NLSPEC_VERBOSE"):
            for d in new_bad:
                print("#   " + d)
    for part, bad in base.items():
        what = {"header": "the uapi header has the spec's names and values, and no others",
                "module": "the module's operations, flags and request policies are the spec's",
                "library": "the library's reply policy bounds every attribute as the spec says"}
        tap(not bad, "%s (%s)" % (what[part], paths["kmod" if part == "module" else
                                                    "lib" if part == "library" else "header"]),
            bad)
    return end()


if __name__ == "__main__":
    sys.exit(main())
