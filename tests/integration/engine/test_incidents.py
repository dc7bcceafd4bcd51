#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Incidents through the real binary (docs/incidents.md): a café seat's events, written here
(a console shell, the game, a memory reader with a child, two pingpong processes, the soft-RoCE
module and device, a DMA-faulting PCI function), replayed. Checks the grouping (one incident
per actor chain, one per PCI function, one for the seat), every alert in exactly one incident,
the stage reached and the verdict per actor, the closing when the game ends, that a file output
written by `replay --incidents` gives the same incidents as the recorded events, that two runs
give the same ids, and what `explain` says; that records are in ECS's layout (schema 2) and that
`incidents` and `explain` read records of the first layout the same. Usage: test_incidents.py RDMAGUARD SOURCE_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

FIXED = ["--hostname", "cafe-seat", "--boot-id", "11111111-2222-3333-4444-555555555555",
         "--boot-time", "2026-01-10T00:00:00Z"]
T0 = 1768039200  # 2026-01-10T10:00:00Z


def ts(s):
    import datetime
    return datetime.datetime.fromtimestamp(T0 + s, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


def proc(pid, name, ppid=None, sid=None, exe=None):
    p = {"pid": pid, "name": name, "user": {"id": 1000}, "start_boot_ns": pid * 10**9}
    if ppid is not None:
        p["parent"] = {"pid": ppid, "start_boot_ns": ppid * 10**9}
    if sid is not None:
        p["session"] = {"id": sid}
    if exe:
        p["executable"] = exe
        p["args"] = [exe]
    return p


def ev(t, action, provider="sensor", **kw):
    e = {"@timestamp": ts(t), "event": {"action": action, "provider": provider}}
    e.update(kw)
    return e


def cafe():
    """The seat's events: what the VM lab's café scenario does, in small."""
    out = []
    add = out.append
    add(ev(0, "process_present", "inventory", process=proc(1, "systemd", 0, 1, "/usr/lib/systemd/systemd")))
    add(ev(0, "process_present", "inventory", process=proc(100, "bash", 1, 100, "/usr/bin/bash")))
    add(ev(1, "module_load", process=proc(90, "modprobe", 1, 90, "/usr/sbin/modprobe"),
           module={"name": "rdma_rxe"}, rdma={"soft": True}))
    add(ev(2, "device_add", "netlink", rdma={"device": "rxe0", "transport": "roce", "soft": True,
                                             "driver": "rxe"}))
    # the game, started from the console shell
    add(ev(5, "exec", process=proc(200, "arena", 100, 100, "/opt/arena/bin/arena")))
    # the memory reader and its helper child
    mr = proc(300, "memread", 100, 100, "/tmp/memread")
    add(ev(10, "exec", process=mr))
    add(ev(11, "library_load", process=proc(300, "memread"),
           dll={"path": "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"},
           rdma={"library": "libibverbs"}))
    add(ev(12, "device_open", process=proc(300, "memread"), file={"path": "/dev/infiniband/uverbs0"},
           rdma={"node": "uverbs", "device": "rxe0", "fd": 3}))
    add(ev(13, "verbs", process=proc(300, "memread"),
           rdma={"via": "invoke_write", "fd": 3, "op": "reg_mr", "device": "rxe0",
                 "mr": {"addr": 139637976731648, "length": 1048576,
                        "access": ["local_write", "remote_read"]}}))
    add(ev(14, "memory_access", process=proc(300, "memread"),
           memory={"op": "process_vm_readv", "bytes": 4096},
           target={"process": {"pid": 200, "start_boot_ns": 200 * 10**9, "name": "arena"}}))
    add(ev(15, "fork", process=proc(301, "memread", 300)))
    add(ev(16, "verbs", process=proc(301, "memread"),
           rdma={"via": "invoke_write", "fd": 3, "op": "modify_qp", "device": "rxe0",
                 "qp": {"state": "rtr", "num": 17, "dest_num": 33, "type": "rc"},
                 "peer": {"gid": "::ffff:192.0.2.1"}}))
    # two pingpong processes from the same shell: an incident each
    for pid in (400, 401):
        add(ev(20, "exec", process=proc(pid, "ibv_rc_pingpong", 100, 100, "/usr/bin/ibv_rc_pingpong")))
        add(ev(21, "library_load", process=proc(pid, "ibv_rc_pingpong"),
               dll={"path": "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"},
               rdma={"library": "libibverbs"}))
        add(ev(22, "device_open", process=proc(pid, "ibv_rc_pingpong"),
               file={"path": "/dev/infiniband/uverbs0"}, rdma={"node": "uverbs", "device": "rxe0", "fd": 3}))
    # a PCI function faulting
    add(ev(30, "dma_fault", "netlink", pci={"address": "0000:01:00.0", "vendor_id": "0x1234",
                                             "device_id": "0x11e8", "class": "0x00ff00"},
           dma={"fault": {"count": 1, "address": 4096, "reason": "PTE Read access is not set"}}))
    # the match ends; the tools exit; time passes (a later exec of something harmless)
    add(ev(40, "exit", process=proc(200, "arena")))
    for pid in (300, 301, 400, 401):
        add(ev(41, "exit", process=proc(pid, "x")))
    add(ev(400, "exec", process=proc(500, "true", 100, 100, "/usr/bin/true")))
    return out


def comparable(records):
    """Incident records without what differs between two runs: the alerts' own ids (random
    UUIDs) and the record's event.id."""
    out = []
    for r in records:
        r = json.loads(json.dumps(r))
        r.pop("event", None)
        for st in r["rdmaguard"]["incident"]["stages"].values():
            st.pop("alert_ids", None)
        out.append(r)
    return out


def first_layout(record):
    """An incident record as agents before ECS's names wrote it (docs/operations.md, alert
    layout 1): severity and game at the top level, process.start_time, event.type from the
    action, no ecs.version, event.outcome or schema_version."""
    r = json.loads(json.dumps(record))
    rg, proc = r["rdmaguard"], r.get("process")
    r["severity"] = rg.pop("severity")
    if "game" in rg:
        r["game"] = rg.pop("game")
    if proc:
        proc["start_time"] = proc.pop("start")
        proc.update(rg.pop("process", {}))
    rg.pop("schema_version")
    r.pop("ecs")
    r["event"].pop("outcome")
    r["event"]["type"] = [{"incident_opened": "start", "incident_closed": "end"}.get(
        r["event"]["action"], "change")]
    return r


def run(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode not in (0, 1):
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {res.returncode}: {res.stderr}")
    return res.stdout


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok   {what}")


def main():
    rdmaguard, root = sys.argv[1], sys.argv[2]
    rules = os.path.join(root, "rules")
    policy = os.path.join(root, "tests", "fixtures", "events", "policy.json")
    opts = ["--policy", policy, "--rules", rules]
    with tempfile.TemporaryDirectory() as d:
        events = os.path.join(d, "cafe.jsonl")
        with open(events, "w", encoding="utf-8") as f:
            for e in cafe():
                f.write(json.dumps(e) + "\n")
        out = os.path.join(d, "alerts.jsonl")
        run([rdmaguard, "replay", events, "--incidents", "--output", "file:" + out] + opts + FIXED)
        lines = [json.loads(l) for l in open(out, encoding="utf-8") if l.strip()]
        alerts = [l for l in lines if l["event"]["kind"] == "alert"]
        records = [l for l in lines if l["event"].get("dataset") == "rdmaguard.incident"]
        check(alerts and records, f"{len(alerts)} alerts and {len(records)} incident records")
        check(all(r["rdmaguard"]["schema_version"] == 2 and r["ecs"]["version"] and
                  r["event"]["category"] == ["intrusion_detection"] and
                  r["event"]["type"] == ["info"] and r["event"]["outcome"] == "unknown" and
                  "severity" not in r and "game" not in r and
                  r["rdmaguard"]["severity"] in ("info", "low", "medium", "high", "critical")
                  for r in records), "records in ECS's layout, as the alerts (schema 2)")
        procs = [r["process"] for r in records if "process" in r]
        check(procs and all("start" in p and "start_time" not in p and "start_boot_ns" not in p
                            for p in procs), "a record's process.start, as ECS names it")
        ids = {r["rdmaguard"]["incident"]["id"] for r in records}
        check(all(a.get("rdmaguard", {}).get("incident", {}).get("id") in ids for a in alerts),
              "every alert names an incident that has a record")

        inc = [json.loads(l) for l in run([rdmaguard, "incidents", events, "--format", "json"]
                                          + opts + FIXED).splitlines()]
        by_id = {i["rdmaguard"]["incident"]["id"]: i for i in inc}
        check(sum(i["rdmaguard"]["incident"]["alerts"] for i in inc) == len(alerts),
              "the incidents' alerts add up to the alerts: none left out, none twice")
        check(set(by_id) == ids, "the file output and the recorded events give the same incidents")

        def actor(pid):
            found = [i for i in inc if i.get("process", {}).get("pid") == pid]
            check(len(found) == 1, f"one incident rooted at pid {pid}")
            return found[0]["rdmaguard"]["incident"], found[0]
        mr, mr_rec = actor(300)
        check({a["pid"] for a in mr["actors"]} == {300, 301},
              "the memory reader's child joins its incident")
        check({"access", "capability", "target"} <= set(mr["stages"]),
              f"memread reached access, capability, target: {sorted(mr['stages'])}")
        check(mr["verdict"] == "cheat" and mr_rec["rdmaguard"]["severity"] == "critical",
              "memread: cheat verdict, critical")
        check("rdma.mr.access=local_write,remote_read" in mr["stages"]["capability"]["facts"] or
              any("remote_read" in f for f in mr["stages"]["capability"]["facts"]),
              "the capability stage keeps the MR's access as a fact")
        check("memory.op=process_vm_readv" in mr["stages"]["target"]["facts"],
              "the target stage keeps the memory read as a fact")
        msg = mr_rec["message"]
        check("memread (pid 300" in msg and "1 MiB" in msg and "remote-readable" in msg
              and "rxe0" in msg and "Arena" in msg, f"summary: {msg}")
        check(mr["status"] == "closed" and mr["close_reason"] == "game_ended",
              "memread's incident closed when the match ended")
        for pid in (400, 401):
            pp, _ = actor(pid)
            check(set(pp["stages"]) >= {"access", "target"} and "capability" not in pp["stages"],
                  f"pingpong {pid}: access during the game, no capability")
            check(pp["verdict"] == "suspicious", f"pingpong {pid}: suspicious")
        pci = [i["rdmaguard"]["incident"] for i in inc
               if i["rdmaguard"]["incident"]["kind"] == "pci"]
        check(len(pci) == 1 and pci[0]["pci"] == "0000:01:00.0"
              and "exfiltration" in pci[0]["stages"], "the faulting PCI function: one incident")
        seat = [i["rdmaguard"]["incident"] for i in inc
                if i["rdmaguard"]["incident"]["kind"] == "seat"]
        check(len(seat) == 1 and "presence" in seat[0]["stages"], "the seat: one presence incident")
        mp = [i for i in inc if i.get("process", {}).get("pid") == 90]
        check(len(mp) == 1 and "presence" in mp[0]["rdmaguard"]["incident"]["stages"],
              "modprobe's module load: its own incident, presence")

        again = [json.loads(l) for l in run([rdmaguard, "incidents", events, "--format", "json"]
                                            + opts + FIXED).splitlines()]
        check(comparable(again) == comparable(inc),
              "a second replay gives the same incidents, same ids")

        text = run([rdmaguard, "explain", mr["id"], out])
        old = os.path.join(d, "first-layout.jsonl")
        with open(old, "w", encoding="utf-8") as f:
            for l in lines:
                ds = l["event"].get("dataset")
                f.write(json.dumps(first_layout(l) if ds == "rdmaguard.incident" else l) + "\n")
        table = run([rdmaguard, "incidents", out])
        check("critical" in table and "Arena" in table and table == run([rdmaguard, "incidents",
                                                                          old]),
              "incidents: the records of both layouts give the same table")
        check(text == run([rdmaguard, "explain", mr["id"], old]),
              "explain: the records of both layouts tell the same")
        check("memread" in text and "Arena" in text and "rxe0" in text and "remote_read" in text
              and "process_vm_readv" in text and "192.0.2.1" in text and "bash(100)" in text,
              "explain names the memory reader, its lineage, the game, the MR and the peer")
        doc = json.loads(run([rdmaguard, "explain", mr["id"], events, "--format", "json"]
                             + opts + FIXED))
        check(len(doc["timeline"]) == mr["alerts"] and
              [s["@timestamp"] for s in doc["timeline"]] ==
              sorted(s["@timestamp"] for s in doc["timeline"]),
              "explain --format json: every alert, in time order")
        res = subprocess.run([rdmaguard, "explain", "INC-0000000000000000", out],
                             capture_output=True, text=True, check=False)
        check(res.returncode == 2 and "No incident" in res.stderr, "an unknown id: exit 2")
        bad = os.path.join(d, "bad.jsonl")
        with open(bad, "w", encoding="utf-8") as f:
            f.write(json.dumps(alerts[0]) + "\n{\"event\": [1,\n")
        res = subprocess.run([rdmaguard, "incidents", bad], capture_output=True, text=True,
                             check=False)
        check(res.returncode == 2 and f"{bad}:2:" in res.stderr,
              f"a bad line: exit 2, FILE:LINE:COLUMN ({res.stderr.strip()})")
        only = os.path.join(d, "only.jsonl")
        run([rdmaguard, "replay", events, "--incidents", "--output", "incidents:file:" + only]
            + opts + FIXED)
        kinds = {json.loads(l)["event"]["kind"] for l in open(only, encoding="utf-8")}
        check(kinds == {"state"}, "an incidents: output takes the incident records only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
