#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""topod's D-Bus names are written twice: include/pcitopo/topod1.h, which
topod and topoctl compile, and Documentation/org.pcitopo.Topod1.xml, which
a reader (and an introspecting client) sees. This compiles a probe against
the header, parses the XML, and says in TAP whether the two agree: bus
name, object path, interface, every org.pcitopo.Topod1.Error.* name with
its errno (and topod_errno_of() on each), the flag bits of SetLayout and
PlanLayout, every method, signal and property (TOPOD_METHOD_*,
TOPOD_SIGNAL_*, TOPOD_PROP_*), the keys of Status's and PlanLayout's a{sv}
with their signatures (TOPOD_STATUS_*, TOPOD_PLAN_*: the XML's comments
list them as "Name (signature)"). Then that no .c file of daemon/topod or
cli writes one of them (or any org.pcitopo name, path or the bus's own) as
a string literal where the header's name belongs, and that topod appends
every key. t-topod.sh runs it.

  topod1-names.py [HEADER XML]     default: the tree's; $CC, else cc
"""
import errno
import os
import re
import subprocess
import sys
import tempfile
import traceback
import xml.etree.ElementTree as ET

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "include/pcitopo/topod1.h")
XML = sys.argv[2] if len(sys.argv) > 2 else os.path.join(top, "Documentation/org.pcitopo.Topod1.xml")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import tap as ok, end  # noqa: E402  (the TAP lines: tests/tap.py)


def words(s):
    return " ".join(s.split())


# The probe prints what the compiler makes of the header, one fact a line.
PROBE = r"""#include "%s"
#include <stdio.h>
int main(void)
{
	printf("service %%s\npath %%s\ninterface %%s\nprefix %%s\nroot %%s\n",
	       TOPOD_BUS_NAME, TOPOD_OBJECT, TOPOD_IFACE, TOPOD_ERR,
	       TOPOD_OBJECT_ROOT);
#define E(id, e) printf("error %%s %%s %%d %%d\n", #id, #e, e, \
			topod_errno_of(TOPOD_ERR_##id));
	TOPOD_ERRORS(E)
	printf("notours %%d %%d %%d\n", topod_errno_of(TOPOD_ERR "Nonesuch"),
	       topod_errno_of("org.freedesktop.DBus.Error.Failed"),
	       topod_errno_of(NULL));
%s%s%s	printf("all %%llu\n", (unsigned long long)TOPOD_F_ALL);
#define S(id) printf("state %%s %%s\n", #id, TOPOD_STATE_##id);
	TOPOD_STATES(S)
	return 0;
}
"""


def read_header():
    """What the header says, or None if it does not compile alone."""
    text = open(HEADER).read()
    flags = [m for m in re.findall(r"^#define\s+(TOPOD_F_\w+)", text, re.M) if m != "TOPOD_F_ALL"]
    members = re.findall(r"^#define\s+(TOPOD_(METHOD|SIGNAL|PROP)_\w+)", text, re.M)
    keys = re.findall(r"^#define\s+(TOPOD_(STATUS|PLAN)_\w+)", text, re.M)
    probe = PROBE % (os.path.abspath(HEADER), "".join(
        '\tprintf("flag %s %%llu\\n", (unsigned long long)%s);\n' % (m[len("TOPOD_F_"):], m)
        for m in flags), "".join(
        '\tprintf("member %s %%s\\n", %s);\n' % (kind.lower(), m) for m, kind in members), "".join(
        '\tprintf("key %s %s %%s %%s\\n", TOPOD_KEY(%s), TOPOD_SIG(%s));\n' %
        (kind.lower(), m, m, m) for m, kind in keys))
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write(probe)
        cc = subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Wextra",
                             "-Werror", "-o", exe, src], capture_output=True, text=True)
        ok(cc.returncode == 0, "topod1.h compiles on its own (-std=c11 -Wall -Wextra -Werror)",
           cc.stderr)
        if cc.returncode:
            return None
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    h = {"errors": {}, "flags": {}, "text": text,
         "members": {"method": [], "signal": [], "prop": []},
         "keys": {"status": {}, "plan": {}}, "key_macros": {"status": [], "plan": []},
         "err_macros": re.findall(r"^#define\s+TOPOD_ERR_(\w+)\s", text, re.M),
         "states": [], "state_macros": re.findall(r"^#define\s+TOPOD_STATE_(\w+)\s", text, re.M)}
    for line in out.splitlines():
        f = line.split()
        if f[0] == "error":
            h["errors"][f[1]] = (f[2], int(f[3]), int(f[4]))
        elif f[0] == "member":
            h["members"][f[1]].append(f[2])
        elif f[0] == "key":
            h["keys"][f[1]].setdefault(f[3], []).append(f[4])
            h["key_macros"][f[1]].append(f[2])
        elif f[0] == "flag":
            h["flags"][f[1]] = int(f[2])
        elif f[0] == "notours":
            h["notours"] = [int(x) for x in f[1:]]
        elif f[0] == "all":
            h["all"] = int(f[1])
        elif f[0] == "state":
            h["states"].append((f[1], f[2]))
        else:
            h[f[0]] = f[1]
    return h


def method(iface, name):
    """The <method name=NAME> and the words of the comment just before it."""
    prev = None
    for el in iface:
        if el.tag == "method" and el.get("name") == name:
            return el, words(prev.text) if prev is not None and prev.tag is ET.Comment else ""
        prev = el
    return None, ""


# Where topod or topoctl names a D-Bus member or object by a literal: the
# vtable's entries, a call, match or emit after the interface, a property
# dispatch or change list; and any literal org.pcitopo or bus-driver name.
LITERAL_MEMBER = [
    (r'SD_BUS_(?:METHOD|SIGNAL|PROPERTY|WRITABLE_PROPERTY)\w*\(\s*"', "a vtable entry"),
    (r'(?:TOPOD_IFACE|TOPOD_DBUS_IFACE),\s*"', "a member after the interface"),
    (r'strcmp\(prop, "', "a property dispatch"),
    (r'sd_bus_emit_properties_changed\([^;]*"', "a property change list"),
    (r'"(?:/?org[./]pcitopo[^"]*|org\.freedesktop\.DBus|/org/freedesktop/DBus)"',
     "an org.pcitopo or the bus's name or path"),
]


# "Name (signature)" at the start of a key's line in the XML's comments
KEY_ENTRY = re.compile(r"([A-Z]\w*) \(((?:[^()\s]|\([^()\s]*\))+)\)(,?)")


def xml_keys(iface, name, label):
    """{key: signature} of "Keys of LABEL" in the comment before <method NAME>:
    each line indented 9 spaces starts with one or more "Name (sig)", comma
    separated; deeper lines are their descriptions. None if not found."""
    prev = None
    for el in iface:
        if el.tag == "method" and el.get("name") == name:
            break
        prev = el
    else:
        return None
    text = prev.text if prev is not None and prev.tag is ET.Comment else ""
    at = text.find("Keys of %s" % label)
    if at < 0:
        return None
    keys = {}
    for line in text[at:].splitlines()[1:]:
        if not re.match(r" {9}[A-Z]", line):
            continue
        pos = 9
        while True:
            m = KEY_ENTRY.match(line, pos)
            if not m:
                break
            keys.setdefault(m.group(1), []).append(m.group(2))
            pos = m.end()
            if not m.group(3):
                break
            while pos < len(line) and line[pos] == " ":
                pos += 1
    return keys


def complete_type(sig):
    """Whether sig is one complete D-Bus type (what a variant holds)."""
    def one(i):
        if i >= len(sig):
            return -1
        c = sig[i]
        if c in "ybnqiuxtdsogh":
            return i + 1
        if c == "a":
            if sig[i + 1:i + 2] == "{":
                j = one(i + 2)
                if j < 0 or sig[i + 2] not in "ybnqiuxtdsog":
                    return -1
                j = one(j)
                return j + 1 if j > 0 and sig[j:j + 1] == "}" else -1
            return one(i + 1)
        if c == "(":
            j = i + 1
            while j < len(sig) and sig[j] != ")":
                j = one(j)
                if j < 0:
                    return -1
            return j + 1 if j < len(sig) and j > i + 1 else -1
        return -1
    return one(0) == len(sig)


def check_keys(h, iface):
    """Status's and PlanLayout's keys: the header's are the XML's, name and
    signature; each signature a complete type; every key appended by topod."""
    for method_name, label in (("Status", "status"), ("PlanLayout", "plan")):
        got = h["keys"][label]
        x = xml_keys(iface, method_name, label)
        ok(x is not None, "the XML's %s lists \"Keys of %s\"" % (method_name, label))
        if x is None:
            continue
        dup = sorted(k for k, v in list(got.items()) + list(x.items()) if len(v) > 1)
        ok(not dup, "%s: each key once, in the header and in the XML" % method_name, dup)
        ok(sorted(got) == sorted(x),
           "%s: the header's TOPOD_%s_* keys are the XML's (%d)" %
           (method_name, label.upper(), len(got)),
           "header only: %s\nXML only: %s" % (sorted(set(got) - set(x)), sorted(set(x) - set(got))))
        differ = ["%s: header %s, XML %s" % (k, got[k][0], x[k][0])
                  for k in sorted(set(got) & set(x)) if got[k][0] != x[k][0]]
        ok(not differ, "%s: every key's signature is the XML's" % method_name, "\n".join(differ))
        bad = ["%s %s" % (k, v[0]) for k, v in sorted(got.items()) if not complete_type(v[0])]
        ok(not bad, "%s: every key's signature is one complete D-Bus type" % method_name,
           "\n".join(bad))
    # topod is the one that answers: every key is appended somewhere there
    src = ""
    for name in sorted(os.listdir(os.path.join(top, "daemon/topod"))):
        if name.endswith(".c"):
            with open(os.path.join(top, "daemon/topod", name)) as f:
                src += f.read()
    unused = [m for m in h["key_macros"]["status"] + h["key_macros"]["plan"]
              if not re.search(r"\b%s\b" % m, src)]
    ok(not unused, "topod (daemon/topod/*.c) answers with every key of the header",
       "\n".join(unused))


def strip_comments(src):
    """src with its comments blanked (lines kept)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), src,
                  flags=re.S)


def sources():
    """(path, text) of every .c file of daemon/topod and cli."""
    for d in ("daemon/topod", "cli"):
        for name in sorted(os.listdir(os.path.join(top, d))):
            if name.endswith(".c"):
                with open(os.path.join(top, d, name)) as f:
                    yield os.path.join(d, name), f.read()


def check_sources(h):
    """No literal of daemon/topod/*.c and cli/*.c where topod1.h has a name."""
    found = []
    for path, src in sources():
        for pat, what in LITERAL_MEMBER:
            for m in re.finditer(pat, src):
                line = src.count("\n", 0, m.start()) + 1
                found.append("%s:%d: %s: %s" % (path, line, what, " ".join(
                    src[m.start():m.end() + 24].split())))
    members = sorted(sum(h["members"].values(), []))
    ok(not found, "daemon/topod/*.c and cli/*.c name no D-Bus member, object or "
       "org.pcitopo name by a literal (topod1.h's %d names)" % len(members), "\n".join(found))
    # the dictionaries' keys: no literal of one in topod, nor in topoctl's
    # files that talk to it (those that include topod-client.h)
    names = set(h["keys"]["status"]) | set(h["keys"]["plan"])
    found = []
    for path, src in sources():
        src = strip_comments(src)
        if path.startswith("cli/") and '#include "topod-client.h"' not in src:
            continue
        # the Redfish backend's literals are Redfish's JSON properties
        # ("Message" of @Message.ExtendedInfo), never a D-Bus key
        if path == "daemon/topod/bmc_redfish.c":
            continue
        for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', src):
            if m.group(1) in names:
                found.append("%s:%d: \"%s\"" % (path, src.count("\n", 0, m.start()) + 1,
                                                 m.group(1)))
    ok(not found and names, "daemon/topod/*.c and topoctl's D-Bus files write none of the "
       "%d Status and PlanLayout keys as a literal" % len(names), "\n".join(found))


def check_states(h, iface):
    """State's values: TOPOD_STATES is every TOPOD_STATE_* once, and its
    names are the quoted ones of the XML's comment on <property State>."""
    prev, doc = None, None
    for el in iface:
        if el.tag == "property" and el.get("name") == "State":
            doc = prev.text if prev is not None and prev.tag is ET.Comment else ""
            break
        prev = el
    x = re.findall(r'"([a-z-]+)"', doc or "")
    got = [name for _, name in h["states"]]
    ok(sorted(h["state_macros"]) == sorted(i for i, _ in h["states"]) and
       len(set(got)) == len(got),
       "every TOPOD_STATE_* is in the TOPOD_STATES table, once",
       "macros %s, table %s" % (sorted(h["state_macros"]), h["states"]))
    ok(got and got == x, "State's values: the header's TOPOD_STATES are the XML's, in its "
       "order (%s)" % ", ".join(got), "header %s\nXML %s" % (got, x))


def main():
    h = read_header()
    if h is None:
        return
    node = ET.parse(XML, ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))).getroot()
    with open(XML) as f:  # the comment before <node>: ElementTree keeps no prologue
        m = re.search(r"<!--((?:(?!-->).)*Bus name(?:(?!-->).)*)-->", f.read(), re.S)
    head = m.group(1) if m else ""
    ifaces = node.findall("interface")
    iface = ifaces[0] if ifaces else ET.Element("interface")

    m = re.search(r"Bus name (\S+) \(system bus\), object (\S+?)\.?\s", head)
    ok(m and m.group(1) == h["service"],
       "bus name %s: the header's and the XML's" % h["service"], "XML: %s" % (m and m.group(1)))
    ok(node.get("name") == h["path"] and m and m.group(2) == h["path"],
       "object path %s: the header's and the XML's <node>" % h["path"],
       "XML: <node name=%s>, comment %s" % (node.get("name"), m and m.group(2)))
    ok(len(ifaces) == 1 and iface.get("name") == h["interface"],
       "interface %s: the header's and the XML's only one" % h["interface"],
       "XML: %s" % [i.get("name") for i in ifaces])
    ok(h["path"].startswith(h["root"] + "/"),
       "the object manager's root %s is above the object %s" % (h["root"], h["path"]))

    # members: TOPOD_METHOD_* / TOPOD_SIGNAL_* / TOPOD_PROP_* and the XML's
    for kind, tag, tags in (("method", "method", "methods"), ("signal", "signal", "signals"),
                            ("prop", "property", "properties")):
        x = sorted(el.get("name") for el in iface.findall(tag))
        got = sorted(h["members"][kind])
        ok(x and got == x, "the header's %s are the XML's <%s> (%s)" % (tags, tag, ", ".join(x)),
           "header only: %s\nXML only: %s" % (sorted(set(got) - set(x)), sorted(set(x) - set(got))))
    check_keys(h, iface)
    check_sources(h)
    check_states(h, iface)

    prefix = h["interface"] + ".Error."
    ok(h["prefix"] == prefix, "error names are %sNAME" % prefix, h["prefix"])

    # errors: the "org.pcitopo.Topod1.Error.Busy   EBUSY   ..." lines on top
    x_errors = dict(re.findall(r"^\s*(%s\w+)\s+(E[A-Z0-9]+)\b" % re.escape(prefix), head, re.M))
    h_names = {}
    for ident, (sym, val, back) in h["errors"].items():
        d = re.search(r'^#define\s+TOPOD_ERR_%s\s+TOPOD_ERR\s+"(\w+)"' % ident, h["text"], re.M)
        h_names[h["prefix"] + (d.group(1) if d else "?" + ident)] = (sym, val, back)
    ok(sorted(h_names) == sorted(x_errors),
       "the header's TOPOD_ERRORS and the XML name the same errors (%d)" % len(h_names),
       "header only: %s\nXML only: %s" % (sorted(set(h_names) - set(x_errors)),
                                          sorted(set(x_errors) - set(h_names))))
    ok(sorted(h["err_macros"]) == sorted(h["errors"]),
       "every TOPOD_ERR_* name is in the TOPOD_ERRORS table, once",
       "macros %s, table %s" % (sorted(h["err_macros"]), sorted(h["errors"])))
    for name in sorted(set(h_names) & set(x_errors)):
        sym, val, back = h_names[name]
        want = getattr(errno, x_errors[name], None)
        ok(want == val and back == val,
           "%s: %s in the XML and the header, and topod_errno_of() says so" %
           (name, x_errors[name]),
           "header %s (%d), topod_errno_of %d, XML %s (%s)" % (sym, val, back, x_errors[name],
                                                              want))
    ok(h["notours"] == [0, 0, 0], "topod_errno_of(): 0 for another name, freedesktop's, NULL",
       h["notours"])

    # flags: "flags: 1 force (...), 2 allow a power cycle ..." before SetLayout
    set_layout, doc = method(iface, "SetLayout")
    by_value = sorted(h["flags"].items(), key=lambda kv: kv[1])
    x_flags = sorted(int(v) for v in re.findall(r"(?:flags:|\),)\s+(\d+)\s", doc))
    ok(x_flags == sorted(h["flags"].values()),
       "SetLayout's flag values in the XML are the header's TOPOD_F_* (%s)" %
       ", ".join("%s %d" % kv for kv in by_value), "XML %s, header %s" % (x_flags, h["flags"]))
    for ident, val in by_value:
        w = ident.lower().replace("_", " ")
        ok(re.search(r"(?:flags:|\),)\s+%d (?:allow an? )?%s\b" % (val, w), doc),
           "flag %d is %s in the XML too" % (val, w), doc)
    union = 0
    for v in h["flags"].values():
        union |= v
    ok(h["all"] == union and all(v and not v & (v - 1) for v in h["flags"].values()) and
       len(set(h["flags"].values())) == len(h["flags"]),
       "TOPOD_F_ALL is their union, one bit each", "all %d, flags %s" % (h["all"], h["flags"]))
    plan, pdoc = method(iface, "PlanLayout")
    pc = h["flags"].get("POWER_CYCLE")
    ok(pc is not None and re.search(r"PowerCycleAllowed \(b\).*?allowed: flag %d\b" % pc, pdoc),
       "PlanLayout's PowerCycleAllowed names the power-cycle flag, %s" % pc, pdoc)
    for el, name in ((set_layout, "SetLayout"), (plan, "PlanLayout")):
        args = [(a.get("name"), a.get("type"), a.get("direction"))
                for a in el.findall("arg")] if el is not None else []
        ok(("flags", "t", "in") in args, "%s takes the flags as t (uint64, as TOPOD_F_*)" % name,
           args)


try:
    main()
except Exception:  # a crash is a failure, not a few missing lines
    ok(False, "topod1-names.py ran to its end", traceback.format_exc())
sys.exit(end())
