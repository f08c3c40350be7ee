#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""debian/copyright against the tree's SPDX lines.

Usage: copyright-check.py REPO_ROOT
For every file git tracks that carries an SPDX-License-Identifier, the last
Files: paragraph of debian/copyright (DEP-5: last match wins, '*' also
matches '/') that matches its path must name the same licence, in DEP-5's
short names. Also: every short name used has its own License: paragraph.
Prints one line per mismatch and exits 1 if there is any, else prints the
count of files checked.
"""
import fnmatch
import re
import subprocess
import sys

# SPDX expression -> DEP-5 (copyright-format 1.0) expression
SPDX_TO_DEP5 = {
    "GPL-2.0": "GPL-2",
    "GPL-2.0-only": "GPL-2",
    "GPL-2.0-or-later": "GPL-2+",
    "GPL-2.0 OR MIT": "GPL-2 or Expat",
    "LGPL-2.1-or-later OR MIT": "LGPL-2.1+ or Expat",
    "(GPL-2.0 WITH Linux-syscall-note) OR MIT":
        "GPL-2 with Linux-syscall-note exception or Expat",
    "((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)":
        "GPL-2 with Linux-syscall-note exception or BSD-3-clause",
}
SPDX_RE = re.compile(r"SPDX-License-Identifier:\s*(.*?)\s*(\*/|-->|$)", re.M)


def paragraphs(text):
    para = {}
    key = None
    for line in text.splitlines():
        if not line.strip():
            if para:
                yield para
            para, key = {}, None
        elif line[0] in " \t":
            if key:
                para[key] += "\n" + line.strip()
        else:
            key, _, val = line.partition(":")
            para[key] = val.strip()
    if para:
        yield para


def main(argv):
    root = argv[1]
    paras = list(paragraphs(open(root + "/debian/copyright", encoding="utf-8").read()))
    files = [(p["Files"].split(), p["License"].split("\n")[0].strip())
             for p in paras if "Files" in p]
    texts = {p["License"].split("\n")[0].strip() for p in paras
             if "Files" not in p and "License" in p}
    bad = []
    for _, lic in files:
        for name in re.split(r"\s+or\s+", lic):
            if name not in texts:
                bad.append("debian/copyright: no License: paragraph for %r" % name)
    tracked = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True,
                             text=True, check=True).stdout.split("\n")
    n = 0
    for path in filter(None, tracked):
        try:
            with open(root + "/" + path, encoding="utf-8", errors="replace") as f:
                head = f.read(2048)
        except (IsADirectoryError, FileNotFoundError):
            continue
        m = SPDX_RE.search(head)
        if not m:
            continue
        n += 1
        spdx = m.group(1)
        want = SPDX_TO_DEP5.get(spdx)
        if want is None:
            bad.append("%s: SPDX %r has no DEP-5 name here (add it to %s)" % (path, spdx, argv[0]))
            continue
        got = None
        for pats, lic in files:
            if any(fnmatch.fnmatchcase(path, p) for p in pats):
                got = lic
        if got != want:
            bad.append("%s: SPDX %s, debian/copyright says %s" % (path, spdx, got))
    for b in bad:
        print(b)
    if not bad:
        print("%d files: debian/copyright agrees with every SPDX line" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
