#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The checks of tests/vm/scenarios/incidents.sh, in one python start (TCG makes each costly).

usage: incidents_check.py RDMAGUARD OUT POLICY RULES

OUT holds the daemon's daemon/alerts.jsonl (file output) and daemon/events.jsonl (--record),
live.jsonl (`rdmaguard incidents --format json` from the daemon while it ran) and pids.txt
(NAME=PID of the game, the memory reader and the tools). Writes OUT/explain-memread.txt and
.json (the docs' example comes from there). Exit 0, 1 with what failed."""
import json
import os
import subprocess
import sys

FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def run(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        print(f"FAIL {' '.join(cmd)}: exit {res.returncode}: {res.stderr}")
        sys.exit(1)
    return res.stdout


def inc(r):
    return r["rdmaguard"]["incident"]


def main():
    rg, out, policy, rules = sys.argv[1:5]
    alerts_file = os.path.join(out, "daemon", "alerts.jsonl")
    events_file = os.path.join(out, "daemon", "events.jsonl")
    pids = dict(l.strip().split("=", 1) for l in open(os.path.join(out, "pids.txt")))
    pids = {k: int(v) for k, v in pids.items()}
    written = lines(alerts_file)
    alerts = [a for a in written if a.get("event", {}).get("kind") == "alert"]
    records = [a for a in written if a.get("event", {}).get("dataset") == "rdmaguard.incident"]
    by_id = {}
    for a in alerts:
        by_id.setdefault(a.get("rdmaguard", {}).get("incident", {}).get("id"), []).append(a)
    check(None not in by_id, f"every one of the {len(alerts)} alerts names its incident")
    check({inc(r)["id"] for r in records} >= set(by_id),
          f"every incident has records in the file output ({len(records)} records)")

    check(records and all(r.get("rdmaguard", {}).get("schema_version") == 2 and "ecs" in r and
                          "severity" not in r and "start_time" not in r.get("process", {})
                          for r in records),
          "the daemon's records in ECS's layout (schema 2, rdmaguard.severity, process.start)")

    replay = [json.loads(l) for l in run([rg, "incidents", events_file, "--policy", policy,
                                          "--rules", rules, "--format", "json"]).splitlines()]
    rmap = {inc(r)["id"]: r for r in replay}
    check(set(rmap) == set(by_id),
          f"replay of the recording: the daemon's incident ids ({len(by_id)}), no other")
    for i, al in by_id.items():
        r = rmap.get(i)
        if not r:
            continue
        check(inc(r)["alerts"] == len(al),
              f"{i}: replay counts the {len(al)} alerts the daemon wrote for it")
    last = {}
    for rec in records:
        last[inc(rec)["id"]] = rec
    same = all(sorted(inc(last[i])["stages"]) == sorted(inc(rmap[i])["stages"]) and
               inc(last[i])["verdict"] == inc(rmap[i])["verdict"] and
               inc(last[i])["kind"] == inc(rmap[i])["kind"] and
               last[i].get("process", {}).get("pid") == rmap[i].get("process", {}).get("pid")
               for i in by_id if i in last and i in rmap)
    check(same, "replay: each incident's kind, root, stages and verdict as the daemon's")
    live = lines(os.path.join(out, "live.jsonl"))
    check(live and {inc(r)["id"] for r in live} <= set(rmap),
          f"the daemon's live listing ({len(live)}) names incidents the replay has")

    avg = len(alerts) / max(len(by_id), 1)
    print(f"figures: {len(alerts)} alerts, {len(by_id)} incidents, {avg:.1f} alerts an incident")
    for r in replay:
        i = inc(r)
        print(f"  {i['id']} {i['kind']:5} {i['verdict']:10} {i['alerts']:3} alerts "
              f"{','.join(i['stages'])}: {r['message']}")
    check(avg >= 8, f"at least 8 alerts an incident on average ({avg:.1f})")

    def rooted(pid):
        return [r for r in replay if inc(r)["kind"] == "actor" and
                r.get("process", {}).get("pid") == pid]
    for name in ("rc_server", "rc_client", "bw_server", "bw_client", "rping_server",
                 "rping_client", "memread"):
        rs = rooted(pids[name])
        check(len(rs) == 1, f"{name} (pid {pids[name]}): one incident rooted at it")
        if len(rs) != 1:
            continue
        pids_in = {a["pid"] for a in inc(rs[0])["actors"]}
        mine = [a for a in alerts if a.get("process", {}).get("pid") == pids[name]]
        check(all(a["rdmaguard"]["incident"]["id"] == inc(rs[0])["id"] for a in mine) and
              pids_in == {pids[name]}, f"{name}: its {len(mine)} alerts, and no other's")
        check("capability" in inc(rs[0])["stages"] and "target" in inc(rs[0])["stages"],
              f"{name}: capability and target (the game running): {sorted(inc(rs[0])['stages'])}")
    mr = rooted(pids["memread"])[0]
    check(inc(mr)["verdict"] == "cheat" and mr["rdmaguard"]["severity"] == "critical",
          "the memory reader: cheat, critical")
    check("memory.op=process_vm_readv" in inc(mr)["stages"]["target"]["facts"],
          "the memory reader's target stage: the game's memory read")
    msg = mr["message"]
    check(all(s in msg for s in ("rg-memread-sim", "1 MiB", "remote-readable", "rxe0", "Arena",
                                 "B-12")), f"summary: {msg}")
    text = run([rg, "explain", inc(mr)["id"], alerts_file])
    with open(os.path.join(out, "explain-memread.txt"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(out, "explain-memread.json"), "w", encoding="utf-8") as f:
        f.write(run([rg, "explain", inc(mr)["id"], alerts_file, "--format", "json"]))
    print(text)
    check(all(s in text for s in ("rg-memread-sim", "Arena", "rxe0", "remote_read",
                                  "process_vm_readv", "1048576")),
          "explain names the memory reader, the game and the MR")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
