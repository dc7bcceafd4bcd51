#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks a verbs storm run by tests/vm/scenarios/verbs-storm.sh (the daemon on rxe0).

usage: check_verbs_storm.py EVENTS.jsonl ALERTS.jsonl STORM.txt STATUS.json

STORM.txt is rg-verbs-storm's output (pid=P mrs=N qps=N per process), STATUS.json what
`rdmaguard status --format json` said after the storm. Checks, for each storm process:
  - its reg_mr and create_qp verbs events were all recorded, or the daemon counted lost records
    (recorded + lost >= done);
  - the lost records are reported exactly: the agent_lost (ringbuf) events sum to the sensors'
    lost_total;
  - the alert stream stays readable: at most 10 alerts per process, and the counts of its
    RDMA-005 alerts (MR with remote access) sum to the reg_mr events recorded for it;
  - the daemon's memory stayed bounded (RSS below 256 MiB).
Prints the figures. Exit 0 or 1.
"""
import json
import sys

MIB = 1 << 20


def jsonl(path):
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def get(o, path):
    for k in path.split("."):
        if not isinstance(o, dict) or k not in o:
            return None
        o = o[k]
    return o


def main():
    events, alerts = jsonl(sys.argv[1]), jsonl(sys.argv[2])
    with open(sys.argv[4]) as f:
        status = json.load(f)
    procs = []
    with open(sys.argv[3]) as f:
        for line in f:
            kv = dict(p.split("=", 1) for p in line.split() if "=" in p)
            if "pid" in kv:
                procs.append({k: int(v) for k, v in kv.items()})
    failures = []
    lost = status["sensors"]["lost_total"]
    reported = sum(get(e, "agent.count") or 0 for e in events
                   if get(e, "event.action") == "agent_lost" and get(e, "agent.what") == "ringbuf")
    if reported != lost:
        failures.append(f"agent_lost events report {reported} lost records, the sensors {lost}")
    if not procs:
        failures.append("no storm process in the storm output")
    for p in procs:
        pid = p["pid"]
        mine = [e for e in events if get(e, "process.pid") == pid and
                get(e, "event.action") == "verbs"]
        reg = sum(1 for e in mine if get(e, "rdma.op") == "reg_mr")
        qp = sum(1 for e in mine if get(e, "rdma.op") == "create_qp")
        if reg + lost < p["mrs"] or qp + lost < p["qps"]:
            failures.append(f"pid {pid}: {p['mrs']} reg_mr and {p['qps']} create_qp done, "
                            f"{reg} and {qp} recorded, {lost} records lost")
        a = [x for x in alerts if get(x, "process.pid") == pid]
        mr = [x for x in a if get(x, "rule.id") == "RDMA-005"]
        counted = sum(x.get("count", 0) for x in mr)
        if len(a) > 10:
            failures.append(f"pid {pid}: {len(a)} alerts for one process: not readable")
        if counted != reg:
            failures.append(f"pid {pid}: RDMA-005 counts sum to {counted}, {reg} reg_mr recorded")
        print(f"pid {pid}: {p['mrs']} reg_mr / {p['qps']} create_qp in {p['elapsed_ms']} ms; "
              f"recorded {reg} / {qp}; {len(a)} alert(s), RDMA-005 counts "
              f"{'+'.join(str(x.get('count')) for x in mr)}")
    rss = status.get("rss_bytes", 0)
    if rss > 256 * MIB:
        failures.append(f"daemon RSS {rss / MIB:.1f} MiB")
    print(f"lost records {lost}, reported {reported}; daemon RSS {rss / MIB:.1f} MiB")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
