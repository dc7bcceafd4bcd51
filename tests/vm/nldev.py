#!/usr/bin/python3
"""RDMA netlink (NLDEV) fixtures: capture the kernel's replies, decode them like iproute2's rdma.

usage: nldev.py capture DIR [--peer ROLE=PID]...   (as root, with RDMA devices present)
       nldev.py check DIR                    decode DIR/*.bin, compare with DIR/*.json
       nldev.py dump FILE.bin                print the decoded messages
       nldev.py selftest [HEADER]            constants against <rdma/rdma_netlink.h>

capture sends each request of REQUESTS (below) on socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA) and
writes every reply stream, all recv() datagrams concatenated up to and including NLMSG_DONE or
NLMSG_ERROR, to DIR/NAME.bin and the request itself to DIR/NAME.req.bin. Around that it saves
iproute2's view (`rdma -j [-d] ...`) as DIR/*.json, and DIR/meta.json: the requests, the devices,
the comm of every pid (iproute2 reads /proc/PID/comm, netlink does not carry it) and the peers
given with --peer (role -> pid, comm, command line). It retries until iproute2's view is the
same before and after the capture, so the .bin and .json files describe one state.

check decodes the captures the way iproute2 6.1's rdma tool prints them (rdma/res-*.c, dev.c) and
requires each JSON file to equal that decoding exactly. Stdlib only.
"""

import errno
import json
import os
import re
import socket
import struct
import subprocess
import sys

NETLINK_RDMA = 20
RDMA_NL_NLDEV = 5

NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xFFFF

# enum rdma_nldev_command (checked against the header by `selftest`).
CMD = {
    "GET": 1,
    "RES_GET": 9,
    "RES_QP_GET": 10,
    "RES_CM_ID_GET": 11,
    "RES_CQ_GET": 12,
    "RES_MR_GET": 13,
    "RES_PD_GET": 14,
    "RES_CTX_GET": 22,
}

# enum rdma_nldev_attr: name -> (number, type). Types: u8 u32 u64 str nest bin.
ATTRS = {
    "DEV_INDEX": (1, "u32"),
    "DEV_NAME": (2, "str"),
    "PORT_INDEX": (3, "u32"),
    "CAP_FLAGS": (4, "u64"),
    "FW_VERSION": (5, "str"),
    "NODE_GUID": (6, "u64"),
    "SYS_IMAGE_GUID": (7, "u64"),
    "SUBNET_PREFIX": (8, "u64"),
    "LID": (9, "u32"),
    "SM_LID": (10, "u32"),
    "LMC": (11, "u8"),
    "PORT_STATE": (12, "u8"),
    "PORT_PHYS_STATE": (13, "u8"),
    "DEV_NODE_TYPE": (14, "u8"),
    "RES_SUMMARY": (15, "nest"),
    "RES_SUMMARY_ENTRY": (16, "nest"),
    "RES_SUMMARY_ENTRY_NAME": (17, "str"),
    "RES_SUMMARY_ENTRY_CURR": (18, "u64"),
    "RES_QP": (19, "nest"),
    "RES_QP_ENTRY": (20, "nest"),
    "RES_LQPN": (21, "u32"),
    "RES_RQPN": (22, "u32"),
    "RES_RQ_PSN": (23, "u32"),
    "RES_SQ_PSN": (24, "u32"),
    "RES_PATH_MIG_STATE": (25, "u8"),
    "RES_TYPE": (26, "u8"),
    "RES_STATE": (27, "u8"),
    "RES_PID": (28, "u32"),
    "RES_KERN_NAME": (29, "str"),
    "RES_CM_ID": (30, "nest"),
    "RES_CM_ID_ENTRY": (31, "nest"),
    "RES_PS": (32, "u32"),
    "RES_SRC_ADDR": (33, "bin"),
    "RES_DST_ADDR": (34, "bin"),
    "RES_CQ": (35, "nest"),
    "RES_CQ_ENTRY": (36, "nest"),
    "RES_CQE": (37, "u32"),
    "RES_USECNT": (38, "u64"),
    "RES_POLL_CTX": (39, "u8"),
    "RES_MR": (40, "nest"),
    "RES_MR_ENTRY": (41, "nest"),
    "RES_RKEY": (42, "u32"),
    "RES_LKEY": (43, "u32"),
    "RES_IOVA": (44, "u64"),
    "RES_MRLEN": (45, "u64"),
    "RES_PD": (46, "nest"),
    "RES_PD_ENTRY": (47, "nest"),
    "RES_LOCAL_DMA_LKEY": (48, "u32"),
    "RES_UNSAFE_GLOBAL_RKEY": (49, "u32"),
    "NDEV_INDEX": (50, "u32"),
    "NDEV_NAME": (51, "str"),
    "DRIVER": (52, "nest"),
    "RES_PDN": (60, "u32"),
    "RES_CQN": (61, "u32"),
    "RES_MRN": (62, "u32"),
    "RES_CM_IDN": (63, "u32"),
    "RES_CTXN": (64, "u32"),
    "LINK_TYPE": (65, "str"),
    "DEV_PROTOCOL": (67, "str"),
    "UVERBS_DRIVER_ID": (73, "u64"),
    "DEV_DIM": (84, "u8"),
    "RES_CTX": (86, "nest"),
    "RES_CTX_ENTRY": (87, "nest"),
}
ATTR_BY_NUM = {num: (name, typ) for name, (num, typ) in ATTRS.items()}
A = {name: num for name, (num, _) in ATTRS.items()}

# What iproute2's rdma sends (rdma/utils.c, res.c, dev.c of v6.1): the device map is one GET dump;
# `rdma dev show` one GET doit per device; `rdma resource show` RES_GET per device; the other
# `resource show` objects a dump per device, QP and CM_ID (strict_port false) once without and
# once per port with PORT_INDEX. Without DEV_INDEX the kernel refuses the RES_*_GET dumps
# (-EINVAL): those replies are captured too, as the error case.
# (file name, command, flags, attributes); for "{dev}" each device's index goes into the
# attribute and its name into the file name.
ITER_DEV = "{dev}"
REQUESTS = [
    ("get", "GET", NLM_F_REQUEST | NLM_F_DUMP, []),
    ("res_get", "RES_GET", NLM_F_REQUEST | NLM_F_DUMP, []),
    ("res_qp_get", "RES_QP_GET", NLM_F_REQUEST | NLM_F_DUMP, []),
    ("res_cm_id_get", "RES_CM_ID_GET", NLM_F_REQUEST | NLM_F_DUMP, []),
    ("res_cq_get", "RES_CQ_GET", NLM_F_REQUEST | NLM_F_DUMP, []),
    ("res_mr_get", "RES_MR_GET", NLM_F_REQUEST | NLM_F_DUMP, []),
    ("res_pd_get", "RES_PD_GET", NLM_F_REQUEST | NLM_F_DUMP, []),
    ("res_ctx_get", "RES_CTX_GET", NLM_F_REQUEST | NLM_F_DUMP, []),
    ("get-{dev}", "GET", NLM_F_REQUEST | NLM_F_ACK, [("DEV_INDEX", ITER_DEV)]),
    ("res_get-{dev}", "RES_GET", NLM_F_REQUEST | NLM_F_ACK, [("DEV_INDEX", ITER_DEV)]),
]
for _name, _cmd in [("res_qp_get", "RES_QP_GET"), ("res_cm_id_get", "RES_CM_ID_GET"),
                    ("res_cq_get", "RES_CQ_GET"), ("res_mr_get", "RES_MR_GET"),
                    ("res_pd_get", "RES_PD_GET"), ("res_ctx_get", "RES_CTX_GET")]:
    REQUESTS.append((_name + "-{dev}", _cmd, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP,
                     [("DEV_INDEX", ITER_DEV)]))
    if _cmd in ("RES_QP_GET", "RES_CM_ID_GET"):
        REQUESTS.append((_name + "-{dev}-port1", _cmd, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP,
                         [("DEV_INDEX", ITER_DEV), ("PORT_INDEX", 1)]))

# iproute2's own view, saved next to the captures: file -> rdma arguments.
VIEWS = {
    "dev.json": ["-j", "dev", "show"],
    "link.json": ["-j", "link", "show"],
    "res.json": ["-j", "resource", "show"],
    "qp.json": ["-j", "-d", "resource", "show", "qp"],
    "mr.json": ["-j", "-d", "resource", "show", "mr"],
    "pd.json": ["-j", "resource", "show", "pd"],
    "cq.json": ["-j", "resource", "show", "cq"],
    "ctx.json": ["-j", "resource", "show", "ctx"],
    "cm_id.json": ["-j", "resource", "show", "cm_id"],
}


def nlmsg_type(cmd):
    return (RDMA_NL_NLDEV << 10) + CMD[cmd]


def align4(n):
    return (n + 3) & ~3


def build_request(cmd, flags, seq, attrs):
    payload = b""
    for name, value in attrs:
        num, typ = ATTRS[name]
        assert typ == "u32", name
        payload += struct.pack("=HHI", 8, num, value)
    return struct.pack("=IHHII", 16 + len(payload), nlmsg_type(cmd), flags, seq, 0) + payload


def split_messages(data):
    """bytes -> [(type, flags, seq, pid, payload)]"""
    msgs, off = [], 0
    while off + 16 <= len(data):
        length, typ, flags, seq, pid = struct.unpack_from("=IHHII", data, off)
        if length < 16 or off + length > len(data):
            raise ValueError(f"truncated netlink message at offset {off} (length {length})")
        msgs.append((typ, flags, seq, pid, data[off + 16:off + length]))
        off += align4(length)
    if off != len(data):
        raise ValueError(f"{len(data) - off} trailing bytes after the last message")
    return msgs


def parse_attrs(data):
    """bytes -> [(name, value)]; nested attributes become lists of pairs."""
    out, off = [], 0
    while off + 4 <= len(data):
        nla_len, nla_type = struct.unpack_from("=HH", data, off)
        if nla_len < 4 or off + nla_len > len(data):
            raise ValueError(f"bad attribute length {nla_len} at offset {off}")
        body = data[off + 4:off + nla_len]
        num = nla_type & NLA_TYPE_MASK
        name, typ = ATTR_BY_NUM.get(num, (f"ATTR_{num}", "bin"))
        if typ == "nest":
            value = parse_attrs(body)
        elif typ == "u8":
            value = body[0]
        elif typ == "u32":
            value = struct.unpack("=I", body[:4])[0]
        elif typ == "u64":
            value = struct.unpack("=Q", body[:8])[0]
        elif typ == "str":
            value = body.split(b"\0", 1)[0].decode()
        else:
            value = body
        out.append((name, value))
        off += align4(nla_len)
    return out


def decode_stream(data):
    """A reply stream -> (objects, error): objects are the attribute lists of the NLDEV messages,
    error the errno that ends the stream: NLMSG_ERROR carries it (0 for an ACK), and so does
    NLMSG_DONE after a dump (0, or e.g. EINVAL when the dump callback failed)."""
    objects, error = [], None
    for typ, _flags, _seq, _pid, payload in split_messages(data):
        if typ in (NLMSG_ERROR, NLMSG_DONE):
            error = -struct.unpack_from("=i", payload)[0] if len(payload) >= 4 else 0
        elif typ >> 10 == RDMA_NL_NLDEV:
            objects.append(parse_attrs(payload))
        else:
            raise ValueError(f"unexpected netlink message type {typ}")
    return objects, error


def first(attrs, name, default=None):
    for n, v in attrs:
        if n == name:
            return v
    return default


def has(attrs, name):
    return any(n == name for n, _ in attrs)


# --- iproute2's presentation ---------------------------------------------------------------

QP_TYPES = ["SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE", "UNKNOWN", "RAW_PACKET",
            "XRC_INI", "XRC_TGT"]
QP_STATES = ["RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"]
PATH_MIG = ["MIGRATED", "REARM", "ARMED"]
POLL_CTX = ["DIRECT", "SOFTIRQ", "WORKQUEUE", "UNBOUND_WORKQUEUE"]
CM_ID_STATES = ["IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY", "ROUTE_RESOLVED", "CONNECT",
                "DISCONNECT", "ADDR_BOUND", "LISTEN", "DEVICE_REMOVAL", "DESTROYING"]
NODE_TYPES = ["unknown", "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified"]
PORT_SPACES = {0x0002: "IPoIB", 0x013F: "IPoIB", 0x0106: "TCP", 0x0111: "UDP"}


def name_of(table, idx):
    return table[idx] if idx < len(table) else "UNKNOWN"


def qp_type_str(idx):
    if idx < len(QP_TYPES):
        return QP_TYPES[idx]
    return "DRIVER" if idx == 0xFF else "UNKNOWN"


def sockaddr_str(raw):
    family = struct.unpack_from("=H", raw)[0]
    port = struct.unpack_from("!H", raw, 2)[0]
    if family == socket.AF_INET:
        return f"{socket.inet_ntop(socket.AF_INET, raw[4:8])}:{port}"
    if family == socket.AF_INET6:
        return f"{socket.inet_ntop(socket.AF_INET6, raw[8:24])}:{port}"
    raise ValueError(f"unknown address family {family}")


def guid_str(v):
    w = [(v >> s) & 0xFFFF for s in (48, 32, 16, 0)]
    return ":".join(f"{x:04x}" for x in w)


class View:
    """Turns decoded entries into iproute2's JSON objects (same keys, same conditions)."""

    def __init__(self, comms):
        self.comms = comms  # pid (str) -> comm

    def comm(self, e, out):
        if has(e, "RES_PID"):
            pid = first(e, "RES_PID")
            out["pid"] = pid
            if str(pid) in self.comms:
                out["comm"] = self.comms[str(pid)]
        elif has(e, "RES_KERN_NAME"):
            out["comm"] = first(e, "RES_KERN_NAME")

    @staticmethod
    def u(e, attr, key, out):
        if has(e, attr):
            out[key] = first(e, attr)

    @staticmethod
    def hexkey(e, attr, key, out):
        if has(e, attr):
            out[key] = f"{first(e, attr):x}"

    def dev(self, msg):
        out = {"ifindex": first(msg, "DEV_INDEX"), "ifname": first(msg, "DEV_NAME")}
        if has(msg, "DEV_NODE_TYPE"):
            t = first(msg, "DEV_NODE_TYPE")
            out["node_type"] = NODE_TYPES[t] if t < len(NODE_TYPES) else "unknown"
        self.u(msg, "FW_VERSION", "fw", out)
        if has(msg, "NODE_GUID"):
            out["node_guid"] = guid_str(first(msg, "NODE_GUID"))
        if has(msg, "SYS_IMAGE_GUID"):
            out["sys_image_guid"] = guid_str(first(msg, "SYS_IMAGE_GUID"))
        return out

    def res(self, msg):
        out = {"ifindex": first(msg, "DEV_INDEX"), "ifname": first(msg, "DEV_NAME")}
        for entry in [v for n, v in first(msg, "RES_SUMMARY", []) if n == "RES_SUMMARY_ENTRY"]:
            out[first(entry, "RES_SUMMARY_ENTRY_NAME")] = first(entry, "RES_SUMMARY_ENTRY_CURR")
        return out

    def link_head(self, msg, e, port):
        out = {"ifindex": first(msg, "DEV_INDEX"), "ifname": first(msg, "DEV_NAME")}
        if has(e, "PORT_INDEX"):
            out["port"] = port
        return out

    def qp(self, msg, e):
        out = self.link_head(msg, e, first(e, "PORT_INDEX", 0))
        self.u(e, "RES_LQPN", "lqpn", out)
        self.u(e, "RES_RQPN", "rqpn", out)
        out["type"] = qp_type_str(first(e, "RES_TYPE"))
        out["state"] = name_of(QP_STATES, first(e, "RES_STATE"))
        self.u(e, "RES_RQ_PSN", "rq-psn", out)
        self.u(e, "RES_SQ_PSN", "sq-psn", out)
        if has(e, "RES_PATH_MIG_STATE"):
            out["path-mig-state"] = name_of(PATH_MIG, first(e, "RES_PATH_MIG_STATE"))
        self.u(e, "RES_PDN", "pdn", out)
        self.comm(e, out)
        return out

    def cm_id(self, msg, e):
        out = self.link_head(msg, e, first(e, "PORT_INDEX", 0))
        self.u(e, "RES_CM_IDN", "cm-idn", out)
        self.u(e, "RES_LQPN", "lqpn", out)
        if has(e, "RES_TYPE"):
            out["qp-type"] = qp_type_str(first(e, "RES_TYPE"))
        out["state"] = name_of(CM_ID_STATES, first(e, "RES_STATE"))
        out["ps"] = PORT_SPACES.get(first(e, "RES_PS"), "---")
        self.comm(e, out)
        if has(e, "RES_SRC_ADDR"):
            out["src-addr"] = sockaddr_str(first(e, "RES_SRC_ADDR"))
        if has(e, "RES_DST_ADDR"):
            out["dst-addr"] = sockaddr_str(first(e, "RES_DST_ADDR"))
        return out

    def dev_head(self, msg):
        return {"ifindex": first(msg, "DEV_INDEX"), "ifname": first(msg, "DEV_NAME")}

    def mr(self, msg, e):
        out = self.dev_head(msg)
        self.u(e, "RES_MRN", "mrn", out)
        self.hexkey(e, "RES_RKEY", "rkey", out)
        self.hexkey(e, "RES_LKEY", "lkey", out)
        self.hexkey(e, "RES_IOVA", "iova", out)
        self.u(e, "RES_MRLEN", "mrlen", out)
        self.u(e, "RES_PDN", "pdn", out)
        self.comm(e, out)
        return out

    def pd(self, msg, e):
        out = self.dev_head(msg)
        self.u(e, "RES_PDN", "pdn", out)
        self.hexkey(e, "RES_LOCAL_DMA_LKEY", "local_dma_lkey", out)
        self.u(e, "RES_USECNT", "users", out)
        self.hexkey(e, "RES_UNSAFE_GLOBAL_RKEY", "unsafe_global_rkey", out)
        self.u(e, "RES_CTXN", "ctxn", out)
        self.comm(e, out)
        return out

    def cq(self, msg, e):
        out = self.dev_head(msg)
        self.u(e, "RES_CQN", "cqn", out)
        self.u(e, "RES_CQE", "cqe", out)
        self.u(e, "RES_USECNT", "users", out)
        if has(e, "RES_POLL_CTX"):
            out["poll-ctx"] = name_of(POLL_CTX, first(e, "RES_POLL_CTX"))
        if has(e, "DEV_DIM") and first(e, "DEV_DIM") <= 1:
            out["adaptive-moderation"] = bool(first(e, "DEV_DIM"))
        self.u(e, "RES_CTXN", "ctxn", out)
        self.comm(e, out)
        return out

    def ctx(self, msg, e):
        out = self.dev_head(msg)
        self.u(e, "RES_CTXN", "ctxn", out)
        self.comm(e, out)
        return out


# JSON file -> (capture name pattern, table attribute, entry attribute, View method); "ports"
# marks iproute2's per-port passes (port 0 = without PORT_INDEX, then 1..n).
RES_VIEWS = {
    "qp.json": ("res_qp_get", "RES_QP", "RES_QP_ENTRY", "qp", True),
    "cm_id.json": ("res_cm_id_get", "RES_CM_ID", "RES_CM_ID_ENTRY", "cm_id", True),
    "mr.json": ("res_mr_get", "RES_MR", "RES_MR_ENTRY", "mr", False),
    "pd.json": ("res_pd_get", "RES_PD", "RES_PD_ENTRY", "pd", False),
    "cq.json": ("res_cq_get", "RES_CQ", "RES_CQ_ENTRY", "cq", False),
    "ctx.json": ("res_ctx_get", "RES_CTX", "RES_CTX_ENTRY", "ctx", False),
}


def read_capture(d, name):
    with open(os.path.join(d, name + ".bin"), "rb") as f:
        return decode_stream(f.read())


def read_ok(d, name):
    objs, err = read_capture(d, name)
    if err:
        raise ValueError(f"{name}.bin: the kernel answered error {err}")
    return objs


def entries(objs, table, entry, port=None):
    """(message, entry) pairs of a RES_*_GET reply; with port, only that port's entries, as
    res_qp_line and res_cm_id_line filter them (no PORT_INDEX counts as port 0)."""
    for m in objs:
        for n, e in first(m, table, []):
            if n == entry and (port is None or first(e, "PORT_INDEX", 0) == port):
                yield m, e


def expected_views(d, meta):
    """The JSON iproute2 would print for each view, decoded from the captures in d, and the
    same objects decoded from the other captures that hold them, for cross-checks:
    {view file: (rows, {other capture: rows in any order})}."""
    view = View(meta["comms"])
    devs = meta["devices"]  # [{"index": i, "name": n, "ports": p}]
    out = {}
    per_dev = [m for dev in devs for m in read_ok(d, f"get-{dev['name']}")]
    out["dev.json"] = ([view.dev(m) for m in read_ok(d, "get")],
                       {"get-<dev>": [view.dev(m) for m in per_dev]})
    per_dev = [m for dev in devs for m in read_ok(d, f"res_get-{dev['name']}")]
    out["res.json"] = ([view.res(m) for m in per_dev],
                       {"res_get": [view.res(m) for m in read_ok(d, "res_get")]})
    for fname, (cap, table, entry, method, ports) in RES_VIEWS.items():
        show = getattr(view, method)
        rows, whole = [], []
        for dev in devs:
            objs = read_ok(d, f"{cap}-{dev['name']}")
            whole += [show(m, e) for m, e in entries(objs, table, entry)]
            if not ports:
                rows += [show(m, e) for m, e in entries(objs, table, entry)]
                continue
            rows += [show(m, e) for m, e in entries(objs, table, entry, 0)]
            for port in range(1, dev["ports"] + 1):
                objs = read_ok(d, f"{cap}-{dev['name']}-port{port}")
                rows += [show(m, e) for m, e in entries(objs, table, entry, port)]
        out[fname] = (rows, {f"{cap}-<dev>": whole} if ports else {})
    return out


def diff_rows(fname, want, got):
    msgs = []
    if len(want) != len(got):
        msgs.append(f"{fname}: iproute2 printed {len(got)} objects, "
                    f"the captures decode to {len(want)}")
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            keys = sorted(set(w) | set(g))
            bad = [f"{k}: decoded {w.get(k, '<missing>')!r}, rdma {g.get(k, '<missing>')!r}"
                   for k in keys if w.get(k, "<missing>") != g.get(k, "<missing>")]
            msgs.append(f"{fname}[{i}]: " + "; ".join(bad))
    return msgs


def check(d):
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    want = expected_views(d, meta)
    problems = []
    for fname, (rows, others) in want.items():
        with open(os.path.join(d, fname)) as f:
            got = json.load(f)
        problems += diff_rows(fname, rows, got)
        key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
        for other, orows in others.items():
            if sorted(map(key, orows)) != sorted(map(key, rows)):
                problems.append(f"{other}.bin does not hold the same objects as {fname}")
    # The unfiltered RES_*_GET dumps: the kernel wants a device index and ends the dump with
    # -EINVAL in NLMSG_DONE.
    for name, _cmd, _flags, attrs in REQUESTS:
        if not attrs and name.startswith("res_") and name != "res_get":
            objs, err = read_capture(d, name)
            if objs or err != errno.EINVAL:
                problems.append(f"{name}.bin: expected only NLMSG_DONE with EINVAL, got "
                                f"{len(objs)} objects and error {err}")
    for p in problems:
        print(f"nldev: MISMATCH: {p}", file=sys.stderr)
    counts = {k: len(v[0]) for k, v in want.items()}
    if problems:
        return 1
    print(f"nldev: ok: {d}: decoded captures equal iproute2's JSON ({counts})")
    return 0


# --- capture -------------------------------------------------------------------------------------

def talk(sock, req, seq):
    sock.send(req)
    stream = b""
    while True:
        data = sock.recv(1 << 20)
        stream += data
        for typ, _flags, mseq, _pid, _payload in split_messages(data):
            if mseq != seq:
                raise ValueError(f"reply with sequence {mseq}, expected {seq}")
            if typ in (NLMSG_DONE, NLMSG_ERROR):
                return stream


def rdma_json(args):
    r = subprocess.run(["rdma"] + args, check=True, capture_output=True, text=True)
    return json.loads(r.stdout or "[]")


def views_now():
    return {fname: rdma_json(args) for fname, args in VIEWS.items()}


def capture_once(d, devs):
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
    sock.settimeout(10)
    sock.bind((0, 0))
    seq, requests = 0, []
    try:
        for name, cmd, flags, attrs in REQUESTS:
            targets = devs if any(v == ITER_DEV for _, v in attrs) else [None]
            for dev in targets:
                seq += 1
                a = [(n, dev["index"] if v == ITER_DEV else v) for n, v in attrs]
                fname = name.format(dev=dev["name"]) if dev else name
                req = build_request(cmd, flags, seq, a)
                stream = talk(sock, req, seq)
                with open(os.path.join(d, fname + ".req.bin"), "wb") as f:
                    f.write(req)
                with open(os.path.join(d, fname + ".bin"), "wb") as f:
                    f.write(stream)
                objs, err = decode_stream(stream)
                requests.append({
                    "file": fname + ".bin", "request": fname + ".req.bin",
                    "command": f"RDMA_NLDEV_CMD_{cmd}", "nlmsg_type": nlmsg_type(cmd),
                    "nlmsg_flags": flags, "seq": seq,
                    "attrs": {f"RDMA_NLDEV_ATTR_{n}": v for n, v in a},
                    "messages": len(split_messages(stream)), "objects": len(objs),
                    "bytes": len(stream), "error": err,
                })
    finally:
        sock.close()
    return requests


def comm_of(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().rstrip("\n")
    except OSError:
        return None


def pids_in(views):
    pids = set()
    for rows in views.values():
        for r in rows:
            if isinstance(r, dict) and "pid" in r:
                pids.add(r["pid"])
    return pids


def capture(d, peers):
    os.makedirs(d, exist_ok=True)
    for attempt in range(1, 6):
        before = views_now()
        devs = [{"index": r["ifindex"], "name": r["ifname"],
                 "ports": max([x["port"] for x in before["link.json"]
                               if x["ifname"] == r["ifname"]] or [0])}
                for r in before["dev.json"]]
        comms = {str(p): comm_of(p) for p in sorted(pids_in(before))}
        requests = capture_once(d, devs)
        after = views_now()
        if before == after:
            break
        print(f"nldev: the resource tables changed during capture {attempt}, again",
              file=sys.stderr)
    else:
        print("nldev: the resource tables never held still for a capture", file=sys.stderr)
        return 1
    for fname, rows in before.items():
        with open(os.path.join(d, fname), "w") as f:
            json.dump(rows, f, indent=1, sort_keys=False)
            f.write("\n")
    meta = {
        "kernel": os.uname().release,
        "iproute2": subprocess.run(["rdma", "-V"], capture_output=True, text=True).stdout.strip(),
        "devices": devs,
        "comms": comms,
        "peers": peers,
        "views": {fname: "rdma " + " ".join(args) for fname, args in VIEWS.items()},
        "requests": requests,
    }
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"nldev: captured {len(requests)} reply streams into {d}")
    return 0


# --- selftest against the header ------------------------------------------------------------------

def header_enum(text, name):
    m = re.search(r"enum " + name + r"\s*\{(.*?)\};", text, re.S)
    if not m:
        raise ValueError(f"enum {name} not found")
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    vals, cur = {}, -1
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            k, v = (x.strip() for x in item.split("=", 1))
            cur = vals[v] if v in vals else int(v, 0)
        else:
            k, cur = item, cur + 1
        vals[k] = cur
    return vals


def selftest(header):
    with open(header) as f:
        text = f.read()
    bad = []
    cmds = header_enum(text, "rdma_nldev_command")
    attrs = header_enum(text, "rdma_nldev_attr")
    for name, num in CMD.items():
        if cmds.get(f"RDMA_NLDEV_CMD_{name}") != num:
            bad.append(f"RDMA_NLDEV_CMD_{name}: header {cmds.get(f'RDMA_NLDEV_CMD_{name}')}, "
                       f"here {num}")
    for name, (num, _) in ATTRS.items():
        if attrs.get(f"RDMA_NLDEV_ATTR_{name}") != num:
            bad.append(f"RDMA_NLDEV_ATTR_{name}: header {attrs.get(f'RDMA_NLDEV_ATTR_{name}')}, "
                       f"here {num}")
    # The client enum is anonymous: find the one that starts at RDMA_NL_IWCM.
    m = re.search(r"enum\s*\{([^}]*RDMA_NL_IWCM[^}]*)\};", text)
    clients = header_enum("enum clients {" + m.group(1) + "};", "clients") if m else {}
    if clients.get("RDMA_NL_NLDEV") != RDMA_NL_NLDEV:
        bad.append(f"RDMA_NL_NLDEV: header {clients.get('RDMA_NL_NLDEV')}, here {RDMA_NL_NLDEV}")
    for b in bad:
        print(f"nldev: selftest: {b}", file=sys.stderr)
    if bad:
        return 1
    print(f"nldev: selftest: {len(CMD)} commands and {len(ATTRS)} attributes match {header}")
    return 0


def dump(path):
    with open(path, "rb") as f:
        data = f.read()
    for typ, flags, seq, pid, payload in split_messages(data):
        if typ == NLMSG_ERROR:
            print(f"NLMSG_ERROR seq={seq} error={-struct.unpack_from('=i', payload)[0]}")
        elif typ == NLMSG_DONE:
            err = -struct.unpack_from("=i", payload)[0] if len(payload) >= 4 else 0
            print(f"NLMSG_DONE seq={seq} error={err}")
        else:
            cmd = {v: k for k, v in CMD.items()}.get(typ & 0x3FF, typ & 0x3FF)
            print(f"NLDEV {cmd} flags={flags:#x} seq={seq} pid={pid}")
            print(json.dumps(to_json(parse_attrs(payload)), indent=1))
    return 0


def to_json(attrs):
    out = []
    for n, v in attrs:
        if isinstance(v, list):
            v = to_json(v)
        elif isinstance(v, bytes):
            v = v.hex()
        out.append({n: v})
    return out


def main(argv):
    if len(argv) >= 2 and argv[0] == "capture":
        peers, rest = {}, argv[2:]
        while len(rest) >= 2 and rest[0] == "--peer" and "=" in rest[1]:
            role, pid = rest[1].split("=", 1)
            peers[role] = {"pid": int(pid), "comm": comm_of(pid), "cmdline": cmdline_of(pid)}
            rest = rest[2:]
        if rest:
            print(__doc__, file=sys.stderr)
            return 2
        return capture(argv[1], peers)
    if len(argv) == 2 and argv[0] == "check":
        return check(argv[1])
    if len(argv) == 2 and argv[0] == "dump":
        return dump(argv[1])
    if argv[:1] == ["selftest"] and len(argv) <= 2:
        return selftest(argv[1] if len(argv) == 2 else "/usr/include/rdma/rdma_netlink.h")
    print(__doc__, file=sys.stderr)
    return 2


def cmdline_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode() for a in f.read().split(b"\0") if a]
    except OSError:
        return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
