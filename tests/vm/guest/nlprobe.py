#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A raw generic netlink client for the pcitopo family, for tests.

It is independent of libpcitopo on purpose: it sends exactly the bytes a test
asks for (unknown attributes, wrong types, malformed addresses) and reports
the kernel's answer, errno and extack message included, as one JSON object.
Command and attribute numbers are read from the uapi header, the one
definition of the ABI.

  nlprobe.py [--header H] do CMD [ATTR=VALUE ...]
  nlprobe.py [--header H] dump CMD [ATTR=VALUE ...] [--slow S] [--started F]
  nlprobe.py [--header H] listen COUNT [--timeout S]
  nlprobe.py [--header H] raw CMD TYPE:HEX ...    (attributes as raw bytes)

ATTR is the name without PCITOPO_A_ (DEV_ADDR=0000:20:00.0, ID_VENDOR=u16:0x1af4).
VALUE types: str (default), u8:N, u16:N, u32:N, u64:N, s32:N, flag.
"""
import json
import os
import re
import socket
import struct
import sys
import time

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_EXT_ACK = 11
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3
CTRL_ATTR_MCAST_GROUPS = 7
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_DUMP_INTR = 0x10
NLM_F_ACK_TLVS = 0x200
NLM_F_CAPPED = 0x100
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLMSGERR_ATTR_MISS_TYPE = 5
NLA_F_NESTED = 0x8000

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_HEADER = os.path.join(HERE, "..", "..", "..", "include", "uapi",
                              "linux", "pcitopo.h")


def read_enum(text, name):
    """Return {member: value} of a C enum whose members count up from 0."""
    m = re.search(r"enum\s+%s\s*\{(.*?)\};" % name, text, re.S)
    if not m:
        raise SystemExit("nlprobe: enum %s not found in the header" % name)
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    values, nxt = {}, 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            key, val = (s.strip() for s in item.split("=", 1))
            m2 = re.fullmatch(r"(\w+)\s*(?:-\s*(\d+))?", val)
            base = values.get(m2.group(1)) if m2 else None
            if base is not None:
                nxt = base - int(m2.group(2) or 0)
            else:
                sh = re.fullmatch(r"(\w+?)U?\s*<<\s*(\d+)", val)  # "1U << 3"
                nxt = int(sh.group(1), 0) << int(sh.group(2)) if sh \
                    else int(val.rstrip("U"), 0)
        else:
            key = item
        values[key] = nxt
        nxt += 1
    return values


def by_value(enum, prefix):
    """value -> short name, skipping the __*_MAX / *_MAX bookkeeping entries
    that share a value with the last real member."""
    return {v: k[len(prefix):] for k, v in enum.items()
            if k.startswith(prefix) and not k.endswith("_MAX")}


def align4(n):
    return (n + 3) & ~3


def nla(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (align4(len(payload)) - len(payload))


def parse_attrs(buf):
    attrs, off = [], 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4:
            break
        attrs.append((atype & ~NLA_F_NESTED, buf[off + 4:off + alen]))
        off += align4(alen)
    return attrs


class Genl:
    def __init__(self, bufsize=1 << 20):
        # The kernel sizes dump chunks after the largest recv() buffer seen
        # on the socket: a small one keeps a dump in progress for longer.
        self.bufsize = bufsize
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = int(time.time()) & 0xffff

    def send(self, family, cmd, version, flags, payload):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, 0) + payload
        msg = struct.pack("=IHHII", 16 + len(body), family, flags,
                          self.seq, 0) + body
        self.sock.send(msg)
        return self.seq

    def messages(self, timeout=None):
        """Yield (type, flags, seq, payload) as they arrive."""
        self.sock.settimeout(timeout)
        while True:
            data = self.sock.recv(self.bufsize)
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, mflags, mseq, _ = struct.unpack_from(
                    "=IHHII", data, off)
                yield mtype, mflags, mseq, data[off + 16:off + mlen]
                off += align4(mlen)

    def resolve(self, name):
        payload = nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0")
        self.send(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
                  NLM_F_REQUEST | NLM_F_ACK, payload)
        fam = {"id": None, "version": None, "groups": {}}
        for mtype, _, _, body in self.messages(5):
            if mtype == NLMSG_ERROR:
                err = struct.unpack_from("=i", body)[0]
                if err:
                    return None
                break
            for atype, val in parse_attrs(body[4:]):
                if atype == CTRL_ATTR_FAMILY_ID:
                    fam["id"] = struct.unpack("=H", val[:2])[0]
                elif atype == CTRL_ATTR_VERSION:
                    fam["version"] = struct.unpack("=I", val[:4])[0]
                elif atype == CTRL_ATTR_MCAST_GROUPS:
                    for _, grp in parse_attrs(val):
                        g = dict(parse_attrs(grp))
                        gname = g[1].rstrip(b"\0").decode()
                        fam["groups"][gname] = struct.unpack("=I", g[2])[0]
        return fam


def decode_error(body):
    err = struct.unpack_from("=i", body)[0]
    out = {"errno": -err, "error": os.strerror(-err) if err else None}
    # body: error(4) + original nlmsghdr (16) [+ payload unless capped] + TLVs
    olen, _, oflags, _, _ = struct.unpack_from("=IHHII", body, 4)
    return out, olen


def run_request(args, hdr, dump, slow=0.0, raw=None, started=None):
    cmds = read_enum(hdr, "pcitopo_cmd")
    attrs = read_enum(hdr, "pcitopo_attr")
    g = Genl(4096 if slow else 1 << 20)
    fam = g.resolve("pcitopo")
    if fam is None:
        return {"family": False, "errno": 2, "error": "family not found"}
    cmdname = args[0].upper()
    cmd = cmds.get("PCITOPO_CMD_" + cmdname)
    if cmd is None:
        cmd = int(cmdname, 0)
    payload = b""
    for spec in args[1:]:
        if raw is not None:
            t, hx = spec.split(":", 1)
            payload += nla(int(t, 0), bytes.fromhex(hx))
            continue
        key, val = spec.split("=", 1)
        atype = attrs.get("PCITOPO_A_" + key.upper())
        if atype is None:
            atype = int(key, 0)
        kind, num = "str", val
        if val.split(":", 1)[0] in ("u8", "u16", "u32", "u64", "s32", "str"):
            kind, num = val.split(":", 1)
        fmt = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q",
               "s32": "=i"}.get(kind)
        if val == "flag":
            payload += nla(atype, b"")
        elif fmt:
            payload += nla(atype, struct.pack(fmt, int(num, 0)))
        else:
            payload += nla(atype, num.encode() + b"\0")
    flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
    seq = g.send(fam["id"], cmd, 1, flags, payload)
    names = by_value(attrs, "PCITOPO_A_")
    result = {"family": True, "version": fam["version"], "messages": [],
              "errno": 0, "interrupted": False}
    for mtype, mflags, mseq, body in g.messages(30):
        if mseq != seq:
            continue
        if mflags & NLM_F_DUMP_INTR:
            result["interrupted"] = True
        if mtype == NLMSG_DONE:
            # A dump that failed carries its errno in DONE's payload.
            if len(body) >= 4:
                err = struct.unpack_from("=i", body)[0]
                if err:
                    result["errno"] = -err
                    result["error"] = os.strerror(-err)
                    for atype, val in parse_attrs(body[4:]):
                        if atype == NLMSGERR_ATTR_MSG:
                            result["extack"] = val.rstrip(b"\0").decode()
            break
        if mtype == NLMSG_ERROR:
            err, olen = decode_error(body)
            result.update(err)
            tlv_off = 4 + (16 if mflags & NLM_F_CAPPED else olen)
            if mflags & NLM_F_ACK_TLVS:
                for atype, val in parse_attrs(body[tlv_off:]):
                    if atype == NLMSGERR_ATTR_MSG:
                        result["extack"] = val.rstrip(b"\0").decode()
                    elif atype == NLMSGERR_ATTR_OFFS:
                        result["bad_attr_offset"] = struct.unpack("=I", val)[0]
                    elif atype == NLMSGERR_ATTR_MISS_TYPE:
                        t = struct.unpack("=I", val)[0]
                        result["missing_attr"] = names.get(t, str(t))
            break
        result["messages"].append(decode_msg(body, names))
        if started and len(result["messages"]) == 1:
            open(started, "w").close()
        if slow:
            time.sleep(slow)
    return result


def decode_msg(body, names):
    cmd = body[0]
    out = {"cmd": cmd}
    for atype, val in parse_attrs(body[4:]):
        key = names.get(atype, str(atype))
        if val.endswith(b"\0") and all(32 <= c < 127 for c in val[:-1]) \
                and len(val) > 1:
            out[key] = val[:-1].decode()
        elif len(val) == 1:
            out[key] = val[0]
        elif len(val) == 2:
            out[key] = struct.unpack("=H", val)[0]
        elif len(val) == 4:
            out[key] = struct.unpack("=I", val)[0]
        elif len(val) == 8:
            out[key] = struct.unpack("=Q", val)[0]
        else:
            out[key] = val.hex()
    return out


def listen(hdr, count, timeout):
    cmds = read_enum(hdr, "pcitopo_cmd")
    attrs = read_enum(hdr, "pcitopo_attr")
    cmdnames = by_value(cmds, "PCITOPO_CMD_")
    names = by_value(attrs, "PCITOPO_A_")
    g = Genl()
    fam = g.resolve("pcitopo")
    if fam is None:
        print(json.dumps({"family": False}))
        return 1
    g.sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
                      fam["groups"]["events"])
    print(json.dumps({"listening": True}), flush=True)
    deadline = time.time() + timeout
    seen = 0
    try:
        while seen < count and time.time() < deadline:
            for mtype, _, _, body in g.messages(max(0.1, deadline - time.time())):
                if mtype != fam["id"]:
                    continue
                ev = decode_msg(body, names)
                ev["event"] = cmdnames.get(ev["cmd"], str(ev["cmd"]))
                print(json.dumps(ev), flush=True)
                seen += 1
                if seen >= count:
                    break
    except socket.timeout:
        pass
    return 0 if seen >= count else 1


def main(argv):
    header = DEFAULT_HEADER
    if len(argv) > 2 and argv[1] == "--header":
        header = argv[2]
        argv = argv[:1] + argv[3:]
    with open(header) as f:
        hdr = f.read()
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    mode, rest = argv[1], argv[2:]
    if mode == "listen":
        timeout = 30.0
        if "--timeout" in rest:
            i = rest.index("--timeout")
            timeout = float(rest[i + 1])
            del rest[i:i + 2]
        return listen(hdr, int(rest[0]), timeout)
    slow, started = 0.0, None
    if "--started" in rest:
        i = rest.index("--started")
        started = rest[i + 1]
        del rest[i:i + 2]
    if "--slow" in rest:
        i = rest.index("--slow")
        slow = float(rest[i + 1])
        del rest[i:i + 2]
    if mode not in ("do", "dump", "raw") or not rest:
        print(__doc__, file=sys.stderr)
        return 2
    res = run_request(rest, hdr, mode == "dump", slow,
                      raw=True if mode == "raw" else None, started=started)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
