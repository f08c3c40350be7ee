# SPDX-License-Identifier: GPL-2.0
"""The TAP lines of the Python tests, one definition (the shell's is
tests/tap.sh, C's tests/unit/tap.c). PREFIX, if set, begins every WHAT
(check_module.py's layout name).

    tap(ok, what, detail=None)  one line; DETAIL (text, or lines) printed
                                under a failure as "#   " lines, 20 at most
    eq(got, want, what)         passes if got == want, else shows both
    end()                       prints the plan; the exit status to return
"""
import sys

PREFIX = ""
n = 0
failed = 0


def tap(ok, what, detail=None):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print("%s %d - %s%s" % ("ok" if ok else "not ok", n, PREFIX, what))
    if not ok and detail is not None:
        lines = detail.splitlines() if isinstance(detail, str) else \
            [str(d) for d in detail]
        for line in lines[:20]:
            print("#   " + line)
    sys.stdout.flush()
    return ok


def eq(got, want, what):
    return tap(got == want, what, "want %r\ngot  %r" % (want, got))


def end():
    print("1..%d" % n)
    sys.stdout.flush()
    return 1 if failed else 0
