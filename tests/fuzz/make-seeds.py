#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the seed corpora of tests/fuzz/corpus/ from the repository's real inputs.

Seeds are committed; run this again when the inputs they come from change (new rules, fixtures,
netlink captures, fixture roots). It only (re)writes the files it names; hand-made seeds next to
them stay. The binary seeds of the verbs, rdma_cm, record and uevent targets come from
BUILD_DIR/tests/fuzz/fuzz-make-seeds (make-seeds-bin.c, built with the uapi structs).
usage: make-seeds.py [SOURCE_ROOT [BUILD_DIR]]
"""
import glob
import json
import os
import re
import struct
import subprocess
import sys
import zlib

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(re.sub(r"^\s*//.*$", "", l) for l in text.splitlines())


def rule_conditions():
    out = []
    for p in sorted(glob.glob(os.path.join(ROOT, "rules", "*.json"))):
        doc = json.loads(strip_comments(read(p).decode()))
        for r in doc if isinstance(doc, list) else [doc]:
            c = r["condition"]
            out.append((r["id"], " ".join(c) if isinstance(c, list) else c))
            for i, e in enumerate(r.get("exceptions", [])):
                out.append((f"{r['id']}-exc{i}", " ".join(e) if isinstance(e, list) else e))
            for i, s in enumerate(r.get("severity_when", [])):
                out.append((f"{r['id']}-sev{i}", s["condition"]))
    return out


def policies_and_rules():
    for p in sorted(glob.glob(os.path.join(ROOT, "rules", "policies", "*.json"))):
        put("policy", os.path.basename(p), read(p))
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "events", "*policy.json"))):
        put("policy", "fixture-" + os.path.basename(p), read(p))
    for p in sorted(glob.glob(os.path.join(ROOT, "rules", "*.json"))):
        put("rules", os.path.basename(p), read(p))
    for name, cond in rule_conditions():
        put("cond", name, cond)
    readme = [
        "event.action == device_open and rdma.node == uverbs and not process.allowed",
        "game.running and process.session.id == game.session.id",
        "ancestor(process.executable glob '/usr/sbin/sshd')",
        "rdma.mr.length > policy.mr_max_bytes",
        "within(game.ended, 60s) and rdma.peer.address == '192.0.2.7'",
        "process.args contains \"--size=65536\" or lineage(process.has_rdma) and rdma.mr.length >= 1GiB",
        "parent(process.name startswith 'ba') and not (rdma.soft or rdma.op not in (reg_mr, 0x10))",
    ]
    for i, c in enumerate(readme):
        put("cond", f"readme-{i}", c)


def events():
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "events", "*.jsonl"))):
        if ".expected." in p:
            continue
        put("event_json", os.path.basename(p), read(p))
        put("replay", os.path.basename(p), read(p))


def rfc5424():
    def msg(fac, sev, ts, flags, fields, rest):
        return (bytes([fac, sev]) + struct.pack("<Q", ts) + bytes([flags]) +
                b"\0".join(f.encode() if isinstance(f, str) else f for f in fields) + b"\0" + rest)
    alert = json.dumps({"event": {"kind": "alert"}, "rule": {"id": "RDMA-005"},
                        "severity": "high", "message": "x"}).encode()
    ts = 1796219789123456000  # 2026-12-02T13:56:29.123456Z
    put("rfc5424", "alert", msg(10, 3, ts, 3 << 1,
        ["pc-17.lan", "rdmaguard", "4242", "RDMA-005", "rdmaguard@32473",
         "rule", "RDMA-005", "severity", "high", "id", "0b7c6f2e-8d3a-4f1e-9c2b-5a6d7e8f9012"],
        alert))
    put("rfc5424", "bom-utf8", msg(23, 7, 1, 1 | (1 << 1),
        ["h\xe9te", "app", "1", "-", "x@1", 'q"\\]', "caf\xc3\xa9 \xff\xfe"],
        "caf\u00e9 \xff".encode("latin-1") + "\u2603".encode()))
    put("rfc5424", "nil", msg(0, 0, 0, 0, ["", "", "", "", ""], b""))
    put("rfc5424", "long", msg(200, 200, 2**64 - 1, 0,
        ["h" * 300, "a" * 60, "p" * 200, "m" * 40, "s=i d" * 10], b"\0\x01\x02 msg"))


def output_specs():
    specs = ["stdout", "-", "file:/var/log/rdmaguard/alerts.jsonl",
             "syslog+tcp://10.0.0.1", "syslog+tcp://siem.example.org:1514?facility=local3&bom=1",
             "syslog+tls://[2001:db8::7]:6514?ca=/etc/rdmaguard/ca.pem&cert=/c.pem&key=/k.pem",
             "syslog+tls://h?ca=%2Fetc%2Fca%20x.pem&facility=4",
             "syslog+tcp://h:99999", "syslog+udp://h", "syslog+tcp://[::1", "file:",
             "relp://collector.lan:2514?facility=local0", "relp://[::1]",
             "relp+tls://collector.hall?ca=/etc/rdmaguard/ca.pem&cert=/c.pem&key=/k.pem&peer=*.hall",
             "relp+tls://127.0.0.1:2515?ca=/a&cert=/c&key=/k", "relp+tls://h?ca=/a",
             "file+chain:/var/log/rdmaguard/alerts.jsonl"]
    for i, s in enumerate(specs):
        put("output_spec", f"spec-{i}", s)


def archive(entries):
    """The format of fuzz.h: entries joined by newlines (a separator's newline is not content)."""
    parts = []
    for e in entries:
        kind, path = e[0], e[1]
        if kind == "l":
            parts.append(f"=== l {path}\t{e[2]}".encode())
        elif kind == "f":
            data = e[2] if isinstance(e[2], bytes) else e[2].encode()
            parts.append(f"=== f {path}\n".encode() + data)
        else:
            parts.append(f"=== {kind} {path}".encode())
    return b"\n".join(parts)


def spool_record(q, seq, ts, payload):
    hdr = struct.pack("<IIQQB3xI", 0x31534752, len(payload), seq, ts, q, 0)
    crc = zlib.crc32(payload, zlib.crc32(hdr))
    return struct.pack("<IIQQB3xI", 0x31534752, len(payload), seq, ts, q, crc) + payload


def spool_cursor(gen, next_seq, head, dropped, reported):
    body = struct.pack("<IIQQ", 0x43534752, 1, gen, next_seq)
    body += struct.pack("<6Q", *head) + struct.pack("<6Q", *dropped) + struct.pack("<6Q", *reported)
    slot = body + struct.pack("<II", zlib.crc32(body), 0)
    return slot.ljust(256, b"\0")


def spool():
    recs = {q: b"" for q in range(6)}
    seq = 1
    for i in range(12):
        q = [4, 2, 0, 3, 1, 2][i % 6] if i != 7 else 5
        alert = json.dumps({"event": {"id": f"id-{i}"}, "rule": {"id": "RDMA-005"}, "n": i}).encode()
        recs[q] += spool_record(q, seq, 1796219789000000000 + i, alert)
        seq += 1
    entries = [("f", "cursor", spool_cursor(3, seq, [1] * 6, [0, 2, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0]) +
                spool_cursor(2, seq - 1, [1] * 6, [0] * 6, [0] * 6)), ("f", "lock", b"")]
    for q, data in recs.items():
        if data:
            entries.append(("f", f"{q}-{1:016x}.seg", data))
    # Flags byte 1: CRCs fixed up by the target; this seed has them right anyway.
    put("spool", "good", b"\x01" + archive(entries))
    torn = [e if e[0] != "f" or not e[1].startswith("2-") else ("f", e[1], e[2][:-7]) for e in entries]
    put("spool", "torn-tail", b"\x00" + archive(torn))
    bad = [e if e[0] != "f" or not e[1].startswith("4-") else
           ("f", e[1], e[2][:40] + b"X" + e[2][41:]) for e in entries]
    put("spool", "damaged-middle", b"\x02" + archive(bad))
    put("spool", "odd-files", b"\x01" + archive([("d", "0-0000000000000001.seg"),
                                                ("l", "1-0000000000000001.seg", "/etc/passwd"),
                                                ("p", "2-0000000000000001.seg"),
                                                ("f", "x.tmp", "junk"),
                                                ("f", "cursor", b"\0" * 100)]))


def netlink():
    # Replies captured from a real rxe kernel in the VM lab (not the requests).
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "netlink", "*.bin"))):
        if not p.endswith(".req.bin"):
            put("nldev", os.path.basename(p), read(p))
    # Several replies in one stream, as one dump receives them.
    stream = b"".join(read(os.path.join(ROOT, "tests", "fixtures", "netlink", n)) for n in
                      ("get.bin", "res_qp_get-rxe0.bin", "res_mr_get-rxe0.bin",
                       "res_cm_id_get-rxe0.bin"))
    put("nldev", "stream-get-qp-mr-cm_id", stream)


def roots():
    """Each fixture root (tests/fixtures/roots/NAME) as an archive of the inventory target."""
    base = os.path.join(ROOT, "tests", "fixtures", "roots")
    for name in sorted(os.listdir(base)):
        top = os.path.join(base, name)
        if not os.path.isdir(top):
            continue
        entries = []
        for d, dirs, files in os.walk(top):
            dirs.sort()
            rel = os.path.relpath(d, top)
            for f in sorted(files + [x for x in dirs if os.path.islink(os.path.join(d, x))]):
                full = os.path.join(d, f)
                path = f if rel == "." else f"{rel}/{f}"
                if os.path.islink(full):
                    entries.append(("l", path, os.readlink(full)))
                elif os.path.isfile(full):
                    entries.append(("f", path, read(full)))
            if not files and not dirs and rel != ".":
                entries.append(("d", rel))
        put("inventory", name, archive(entries))


def binary_seeds(build):
    exe = os.path.join(build, "tests", "fuzz", "fuzz-make-seeds")
    if not os.path.exists(exe):
        print(f"note: {exe} not built: the verbs, rdma_cm, record and uevent seeds are not "
              "rewritten", file=sys.stderr)
        return
    subprocess.run([exe, CORPUS], check=True)


def main():
    build = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build")
    policies_and_rules()
    netlink()
    roots()
    binary_seeds(build)
    events()
    rfc5424()
    output_specs()
    spool()
    return 0


if __name__ == "__main__":
    sys.exit(main())
