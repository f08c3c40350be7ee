#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nfdcheck.py: would Node Feature Discovery publish every label of a
feature file (its local source's features.d), as written?

  nfdcheck.py [--legacy] [--extra-label-ns NS[,NS...]] FILE

Checked independently of topod's C code, from NFD's own sources
(kubernetes-sigs/node-feature-discovery):
  source/local/local.go       the file: a regular file of at most 65536
                              bytes (MaxFeatureFileSize), not a dot-file
                              (skipped); lines split on "\\n" and trimmed;
                              blank lines skipped; "#" comments; "# +"
                              directives (expiry-time=RFC3339, no-label,
                              no-feature); otherwise KEY[=VALUE], split at
                              the first "=", no value meaning "true"
  pkg/apis/nfd/validate       Label(): the key a qualified name with a
                              prefix, the namespace not kubernetes.io or a
                              subdomain of it unless feature.node.
                              kubernetes.io, profile.node.kubernetes.io or
                              a subdomain of those; the value a label value
and Kubernetes' IsQualifiedName / IsDNS1123Subdomain / IsValidLabelValue
(k8s.io/apimachinery/pkg/util/validation). --legacy: nfd-master before
v0.13, which allowed only the feature and profile namespaces (and those of
--extra-label-ns). A key given twice is refused too: NFD keeps the last,
which hides a mistake.

Exit 0 and the labels on stdout, one KEY=VALUE a line, sorted; exit 1 and
one line per problem on stderr; exit 2 on bad usage.
"""
import argparse
import datetime
import os
import re
import sys

MAX_FILE = 65536
NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z")
SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
NFD_NS = ("feature.node.kubernetes.io", "profile.node.kubernetes.io")


def nfd_namespace(ns):
    return ns in NFD_NS or any(ns.endswith("." + n) for n in NFD_NS)


def key_problem(key, legacy, extra):
    if "/" not in key:
        return "no namespace prefix (NFD would add feature.node.kubernetes.io/ or refuse it)"
    ns, name = key.split("/", 1)
    if not ns or len(ns) > 253 or not SUBDOMAIN.match(ns):
        return f"prefix {ns!r} is not a DNS-1123 subdomain of at most 253 characters"
    if len(name) > 63 or not NAME.match(name):
        return f"name {name!r} is not 1-63 characters of [-_.A-Za-z0-9] with alphanumeric ends"
    if ns in extra:
        return None
    if ns == "kubernetes.io" or ns.endswith(".kubernetes.io"):
        if not nfd_namespace(ns):
            return f"namespace {ns!r}: kubernetes.io and its subdomains are refused"
    elif legacy:
        return f"namespace {ns!r}: NFD < 0.13 needs -extra-label-ns={ns}"
    return None


def value_problem(value):
    if value == "":
        return None
    if len(value) > 63 or not NAME.match(value):
        return f"value {value!r} is not empty or 1-63 characters of [-_.A-Za-z0-9] with alphanumeric ends"
    return None


def directive_problem(line):
    body = line[len("# +"):]
    key, eq, value = body.partition("=")
    if key == "expiry-time":
        if not eq:
            return "expiry-time without a value"
        try:
            datetime.datetime.strptime(value.strip(), "%Y-%m-%dT%H:%M:%S%z")
        except ValueError:
            return f"expiry-time {value.strip()!r} is not RFC 3339"
        return None
    if key in ("no-label", "no-feature"):
        return None
    return f"unknown directive {key!r}"


def check(path, legacy, extra):
    problems = []
    base = os.path.basename(path)
    if base.startswith("."):
        problems.append(f"{base}: a dot-file: NFD skips it")
    if not os.path.isfile(path):
        return {}, problems + [f"{path}: not a regular file"]
    size = os.path.getsize(path)
    if size > MAX_FILE:
        return {}, problems + [f"{path}: {size} bytes > {MAX_FILE}: NFD ignores the whole file"]
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return {}, problems + [f"{path}: not UTF-8 ({e})"]
    labels = {}
    for no, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("# +"):
                p = directive_problem(line)
                if p:
                    problems.append(f"{path}:{no}: {p}")
            continue
        key, eq, value = line.partition("=")
        if not eq:
            value = "true"
        p = key_problem(key, legacy, extra) or value_problem(value)
        if p:
            problems.append(f"{path}:{no}: {line!r}: {p}")
            continue
        if key in labels:
            problems.append(f"{path}:{no}: {key} given again (NFD keeps the last)")
        labels[key] = value
    return labels, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--legacy", action="store_true",
                    help="nfd-master before v0.13: only NFD's namespaces by default")
    ap.add_argument("--extra-label-ns", default="",
                    help="namespaces allowed as with nfd-master -extra-label-ns")
    ap.add_argument("file")
    a = ap.parse_args()
    extra = {n for n in a.extra_label_ns.split(",") if n}
    labels, problems = check(a.file, a.legacy, extra)
    for p in problems:
        print(f"nfdcheck: {p}", file=sys.stderr)
    if problems:
        return 1
    for k in sorted(labels):
        print(f"{k}={labels[k]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
