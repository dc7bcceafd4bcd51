#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks a verbs storm run by tests/vm/scenarios/verbs-storm.sh (the daemon on rxe0).

usage: check_verbs_storm.py EVENTS.jsonl ALERTS.jsonl STORM.txt STATUS.json

STORM.txt is rg-verbs-storm's output (pid=P cpu=C mrs=N qps=N elapsed_ms=T per process, each
pinned to its CPU, and a total line), STATUS.json what `rdmaguard status --format json` said
after the storm. Every line of every file must be what its writer writes (a malformed line, a
missing field or counter fails: the daemon stopped cleanly). Checks:
  - every reg_mr and create_qp the storm processes did was recorded, or lost on their CPU: the
    sensors count lost records per CPU (not per process or type), so on each CPU the records
    missing from its storm processes are at most the records lost there;
  - the lost records are reported exactly: the agent_lost (ringbuf) events sum, CPU by CPU
    (agent.count2), to the sensors' lost_per_cpu;
  - the alert stream stays readable: at most 10 alerts per process, and the counts of its
    RDMA-005 alerts (MR with remote access) sum to the reg_mr events recorded for it;
  - the daemon's memory stayed bounded (rss_bytes below 256 MiB).
Prints the figures. Exit 0 or 1.
"""
import json
import sys

MIB = 1 << 20
PROC_KEYS = {"pid", "cpu", "mrs", "qps", "elapsed_ms"}
TOTAL_KEYS = {"total_mrs", "total_qps", "failed_procs", "elapsed_ms", "mr_per_s", "qp_per_s"}


class Malformed(Exception):
    pass


def jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith("\n"):
                raise Malformed(f"{path}:{n}: a line without its newline (cut short)")
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise Malformed(f"{path}:{n}: not JSON: {e}") from None
    return out


def storm_lines(path):
    procs, totals = [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                kv = {k: int(v) for k, v in (p.split("=", 1) for p in line.split())}
            except ValueError:
                raise Malformed(f"{path}:{n}: not KEY=NUMBER fields: {line!r}") from None
            if set(kv) == PROC_KEYS:
                procs.append(kv)
            elif set(kv) == TOTAL_KEYS:
                totals.append(kv)
            else:
                raise Malformed(f"{path}:{n}: neither a process nor the total line: {line!r}")
    if len(totals) != 1 or not procs:
        raise Malformed(f"{path}: {len(procs)} process lines and {len(totals)} total lines")
    return procs, totals[0]


def get(o, path):
    for k in path.split("."):
        if not isinstance(o, dict) or k not in o:
            return None
        o = o[k]
    return o


def need(o, path, kind):
    v = get(o, path)
    if not isinstance(v, kind) or isinstance(v, bool):
        raise Malformed(f"status: {path} is {v!r}, not a {kind.__name__}")
    return v


def main():
    try:
        events, alerts = jsonl(sys.argv[1]), jsonl(sys.argv[2])
        procs, total = storm_lines(sys.argv[3])
        with open(sys.argv[4], encoding="utf-8") as f:
            status = json.load(f)
        lost_per_cpu = need(status, "sensors.lost_per_cpu", list)
        lost = need(status, "sensors.lost_total", int)
        rss = need(status, "rss_bytes", int)
        if not all(isinstance(n, int) for n in lost_per_cpu) or sum(lost_per_cpu) != lost:
            raise Malformed(f"status: lost_per_cpu {lost_per_cpu} does not sum to {lost}")
        reported = [0] * len(lost_per_cpu)
        for e in events:
            if get(e, "event.action") == "agent_lost" and get(e, "agent.what") == "ringbuf":
                cpu, count = get(e, "agent.count2") or 0, get(e, "agent.count")
                if not isinstance(count, int) or count <= 0 or cpu >= len(reported):
                    raise Malformed(f"agent_lost event {e}")
                reported[cpu] += count
    except (Malformed, OSError, json.JSONDecodeError) as e:
        print(f"FAIL malformed input: {e}")
        return 1
    failures = []
    if reported != lost_per_cpu:
        failures.append(f"agent_lost events report {reported} lost records by CPU, "
                        f"the sensors {lost_per_cpu}")
    if total["total_mrs"] != sum(p["mrs"] for p in procs) or total["failed_procs"]:
        failures.append(f"the storm's total {total} is not its processes' {procs}")
    missing = {}
    for p in procs:
        pid = p["pid"]
        mine = [e for e in events if get(e, "process.pid") == pid and
                get(e, "event.action") == "verbs"]
        reg = sum(1 for e in mine if get(e, "rdma.op") == "reg_mr")
        qp = sum(1 for e in mine if get(e, "rdma.op") == "create_qp")
        if reg > p["mrs"] or qp > p["qps"]:
            failures.append(f"pid {pid}: {reg} reg_mr and {qp} create_qp recorded, more than "
                            f"the {p['mrs']} and {p['qps']} done")
        missing[p["cpu"]] = missing.get(p["cpu"], 0) + max(p["mrs"] - reg, 0) + \
            max(p["qps"] - qp, 0)
        a = [x for x in alerts if get(x, "process.pid") == pid]
        mr = [x for x in a if get(x, "rule.id") == "RDMA-005"]
        counted = sum(x["rdmaguard"]["count"] for x in mr)
        if len(a) > 10:
            failures.append(f"pid {pid}: {len(a)} alerts for one process: not readable")
        if counted != reg:
            failures.append(f"pid {pid}: RDMA-005 counts sum to {counted}, {reg} reg_mr recorded")
        print(f"pid {pid} on CPU {p['cpu']}: {p['mrs']} reg_mr / {p['qps']} create_qp in "
              f"{p['elapsed_ms']} ms; recorded {reg} / {qp}; {len(a)} alert(s), RDMA-005 counts "
              f"{'+'.join(str(x.get('count')) for x in mr)}")
    for cpu, n in sorted(missing.items()):
        there = lost_per_cpu[cpu] if cpu < len(lost_per_cpu) else None
        if n and (there is None or n > there):
            failures.append(f"CPU {cpu}: {n} verbs records of the storm missing, {there} records "
                            f"lost there")
    if rss > 256 * MIB:
        failures.append(f"daemon RSS {rss / MIB:.1f} MiB")
    print(f"lost records {lost} ({lost_per_cpu} by CPU), reported {reported}; "
          f"daemon RSS {rss / MIB:.1f} MiB")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
