#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a file in the Prometheus text exposition format, version 0.0.4.

    promcheck.py [--json] [FILE]     (stdin without FILE)

Exit 0 if the whole input is valid, 1 otherwise, with one "promcheck:
line N: why" line per problem on stderr. With --json, also print the
samples as a JSON array of {"name", "labels", "value"} for jq (only when
valid). Standard library only: the tests run it with Debian's python3.

Stricter than Prometheus where node_exporter's textfile collector is:
  - every line is empty, a comment, "# HELP name text", "# TYPE name type"
    or a sample "name[{label="value",...}] value", with no timestamp (the
    collector refuses files that carry them);
  - every family has one HELP and one TYPE, both before its first sample,
    and its samples form one group (another family's lines do not
    interleave);
  - metric and label names match the grammar, label names do not start
    with "__" (reserved) and appear once per sample;
  - label values are UTF-8 with \\, \" and \\n as the only escapes; HELP
    text has \\ and \\n as the only escapes;
  - values are Go floats (digits, optional exponent, Inf, NaN);
  - no series (name and label set) appears twice;
  - the input ends with a newline.
"""
import json
import math
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
NAME_RE = re.compile(NAME)
LABEL_RE = re.compile(LABEL)
VALUE_RE = re.compile(
    r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?Inf|NaN")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
# sample name suffixes that belong to a histogram or summary family
SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"),
            "summary": ("_sum", "_count")}


class Bad(Exception):
    pass


def unescape(s, allowed):
    """Undo the escapes of a HELP text (allowed "\\\\n") or a label value
    (allowed "\\\\\"n"); raise Bad on any other backslash sequence."""
    out = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            if i + 1 >= len(s) or s[i + 1] not in allowed:
                raise Bad("bad escape %r" % s[i:i + 2])
            out.append("\n" if s[i + 1] == "n" else s[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_labels(s, pos):
    """Labels from s[pos] == "{" on; returns (dict, position after "}")."""
    labels = {}
    pos += 1
    while True:
        if pos < len(s) and s[pos] == "}":
            return labels, pos + 1
        m = LABEL_RE.match(s, pos)
        if not m:
            raise Bad("bad label name at column %d" % (pos + 1))
        key = m.group(0)
        if key.startswith("__"):
            raise Bad("label name %s is reserved" % key)
        if key in labels:
            raise Bad("label %s twice" % key)
        pos = m.end()
        if s[pos:pos + 2] != '="':
            raise Bad("label %s: expected =\"" % key)
        pos += 2
        start = pos
        while pos < len(s) and s[pos] != '"':
            if s[pos] == "\\":
                pos += 1
            pos += 1
        if pos >= len(s):
            raise Bad("label %s: unterminated value" % key)
        labels[key] = unescape(s[start:pos], '\\"n')
        pos += 1
        if pos < len(s) and s[pos] == ",":
            pos += 1
        elif pos < len(s) and s[pos] != "}":
            raise Bad("label %s: expected , or } after the value" % key)


def family_of(name, types):
    """The family a sample name belongs to: itself, or a histogram's or
    summary's name without its suffix."""
    for fam_type, suffixes in SUFFIXES.items():
        for suf in suffixes:
            base = name[:-len(suf)]
            if name.endswith(suf) and types.get(base) == fam_type:
                return base
    return name


def check(text):
    """Returns (problems, samples)."""
    problems = []
    samples = []
    helps, types = {}, {}
    seen = set()
    finished = set()	# families whose group of lines is over
    current = None	# the family of the last HELP, TYPE or sample line
    if text and not text.endswith("\n"):
        problems.append((text.count("\n") + 1, "no newline at the end"))
    for no, line in enumerate(text.split("\n")[:-1] if text.endswith("\n")
                              else text.split("\n"), 1):
        try:
            if "\r" in line:
                raise Bad("carriage return")
            if line.strip() == "":
                continue
            if line.startswith("#"):
                parts = line.split(None, 3)
                if len(parts) < 2 or parts[1] not in ("HELP", "TYPE"):
                    continue	# a plain comment
                if len(parts) < 3 or not NAME_RE.fullmatch(parts[2]):
                    raise Bad("%s without a valid metric name" % parts[1])
                fam = parts[2]
                if fam in finished or (fam != current and fam in helps.keys() | types.keys()):
                    raise Bad("%s %s away from the rest of its family" %
                              (parts[1], fam))
                if parts[1] == "HELP":
                    if fam in helps:
                        raise Bad("second HELP for %s" % fam)
                    helps[fam] = unescape(parts[3] if len(parts) > 3 else "",
                                          "\\n")
                else:
                    if fam in types:
                        raise Bad("second TYPE for %s" % fam)
                    if len(parts) != 4 or parts[3] not in TYPES:
                        raise Bad("TYPE %s: type must be one of %s" %
                                  (fam, ", ".join(TYPES)))
                    types[fam] = parts[3]
                if current is not None and current != fam:
                    finished.add(current)
                current = fam
                continue
            m = NAME_RE.match(line)
            if not m:
                raise Bad("not a comment and no metric name")
            name = m.group(0)
            pos = m.end()
            labels = {}
            if pos < len(line) and line[pos] == "{":
                labels, pos = parse_labels(line, pos)
            rest = line[pos:]
            if not rest.startswith((" ", "\t")):
                raise Bad("%s: no blank before the value" % name)
            fields = rest.split()
            if len(fields) != 1:
                raise Bad("%s: %s" % (name, "no value" if not fields else
                                      "a timestamp or trailing text after the value"))
            if not VALUE_RE.fullmatch(fields[0]):
                raise Bad("%s: value %r is not a float" % (name, fields[0]))
            value = float(fields[0])
            fam = family_of(name, types)
            if fam not in types:
                raise Bad("%s: sample without a TYPE before it" % name)
            if fam not in helps:
                raise Bad("%s: sample without a HELP before it" % name)
            if fam in finished or (current is not None and fam != current):
                raise Bad("%s: sample away from the rest of its family" % name)
            # an empty label value is the same as no label at all
            key = (name, tuple(sorted((k, v) for k, v in labels.items() if v)))
            if key in seen:
                raise Bad("%s%s: series twice" % (name, json.dumps(labels)))
            seen.add(key)
            current = fam
            samples.append({"name": name, "labels": labels,
                            "value": None if math.isnan(value) else value})
        except Bad as e:
            problems.append((no, str(e)))
    return problems, samples


def main(argv):
    args = [a for a in argv[1:] if a != "--json"]
    want_json = len(args) != len(argv) - 1
    if len(args) > 1 or any(a.startswith("-") and a != "-" for a in args):
        print("usage: promcheck.py [--json] [FILE]", file=sys.stderr)
        return 2
    try:
        if args and args[0] != "-":
            with open(args[0], "rb") as f:
                data = f.read()
        else:
            data = sys.stdin.buffer.read()
        text = data.decode("utf-8")
    except OSError as e:
        print("promcheck: %s" % e, file=sys.stderr)
        return 1
    except UnicodeDecodeError as e:
        print("promcheck: not UTF-8: %s" % e, file=sys.stderr)
        return 1
    problems, samples = check(text)
    for no, why in problems:
        print("promcheck: line %d: %s" % (no, why), file=sys.stderr)
    if problems:
        return 1
    if not samples:
        print("promcheck: no samples", file=sys.stderr)
        return 1
    if want_json:
        json.dump(samples, sys.stdout)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
