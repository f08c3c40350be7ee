#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Benchmark of pcitopo.ko in the emulated server: prints figures, asserts
nothing.

In one process (no process start-up in the figures):
  build    REFRESH round trips: the module walks the PCI tree, resolves it,
           computes the layout and the whole path table (the reply comes
           after the rebuild)
  dump     the device dump plus the path dump over netlink
  sysfs    the same facts read from /sys/kernel/pcitopo, file by file
As whole commands, the way an operator meets them:
  topoctl -j export (netlink), lspci -tv, lstopo-no-graphics, and a shell
  script that cats every pcitopo sysfs file (find -exec cat {} +).
Ratios are against peers measured in the same run; TCG and a shared 2-core
machine make absolute figures noisy.
"""
import os
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlprobe  # noqa: E402
import standins  # noqa: E402

ROOT = os.environ.get("PCITOPO_ROOT", os.getcwd())
N = int(os.environ.get("BENCH_N", "10"))
SYS = "/sys/kernel/pcitopo"


def median_ms(fn, n=N):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


class Client:
    def __init__(self):
        with open(nlprobe.DEFAULT_HEADER) as f:
            hdr = f.read()
        self.cmds = nlprobe.read_enum(hdr, "pcitopo_cmd")
        self.g = nlprobe.Genl()
        self.fam = self.g.resolve("pcitopo")

    def request(self, name, dump):
        flags = nlprobe.NLM_F_REQUEST | nlprobe.NLM_F_ACK
        if dump:
            flags |= nlprobe.NLM_F_DUMP
        seq = self.g.send(self.fam["id"], self.cmds["PCITOPO_CMD_" + name], 1,
                          flags, b"")
        count = 0
        for mtype, _, mseq, body in self.g.messages(30):
            if mseq != seq:
                continue
            if mtype == nlprobe.NLMSG_DONE:
                break
            if mtype == nlprobe.NLMSG_ERROR:
                err = -int.from_bytes(body[:4], "little", signed=True)
                if err:
                    raise OSError(err, os.strerror(err))
                break
            count += 1
        return count


def read_sysfs():
    n = 0
    for top, _, files in os.walk(SYS):
        for name in files:
            path = os.path.join(top, name)
            if os.stat(path).st_mode & 0o444:
                with open(path) as f:
                    f.read()
                n += 1
    return n


def run(*cmd):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)


def main():
    if subprocess.run(standins.insmod_argv(ROOT),
                      capture_output=True).returncode:
        print("# bench: cannot load pcitopo.ko")
        return 1
    c = Client()
    ndev = c.request("GET_DEVICE", True)
    npath = c.request("GET_PATH", True)
    nfiles = read_sysfs()
    print("# %s: %d devices, %d paths, %d sysfs files, N=%d (medians)"
          % (os.environ.get("PCITOPO_LAYOUT", "?"), ndev, npath, nfiles, N))

    build = median_ms(lambda: c.request("REFRESH", False))
    dump = median_ms(lambda: (c.request("GET_DEVICE", True),
                              c.request("GET_PATH", True)))
    sysfs = median_ms(read_sysfs)
    print("in-process:")
    print("  build (walk + resolve + layout + path table)  %8.3f ms" % build)
    print("  netlink dump (devices + paths)                %8.3f ms" % dump)
    print("  sysfs read of the same facts                  %8.3f ms  (%.1fx the dump)"
          % (sysfs, sysfs / dump), flush=True)

    topoctl = os.path.join(ROOT, "cli", "topoctl")
    script = "find %s -type f -perm -u+r -exec cat {} + >/dev/null" % SYS
    cmds = [
        ("topoctl -j export (netlink)", [topoctl, "-j", "export"]),
        ("sysfs shell script", ["sh", "-c", script]),
        ("lspci -tv", ["lspci", "-tv"]),
        ("lstopo-no-graphics", ["lstopo-no-graphics"]),
    ]
    n_cmd = max(3, N // 2)
    res = [(name, median_ms(lambda a=argv: run(*a), n_cmd)) for name, argv in cmds]
    base = res[0][1]
    print("whole commands (N=%d):" % n_cmd)
    for name, ms in res:
        print("  %-30s %9.1f ms  %6.1fx topoctl" % (name, ms, ms / base))
    print("dump vs lstopo-no-graphics: %.0fx, dump vs lspci -tv: %.0fx"
          % (res[3][1] / dump, res[2][1] / dump))
    subprocess.run(["rmmod", "pcitopo"], capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
