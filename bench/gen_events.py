#!/usr/bin/python3
"""Replicates a recorded event file (`rdmaguard daemon --record`) to N events for `replay`.

    gen_events.py SEED.jsonl N OUT.jsonl

Copy k of the seed's sensor events gets fresh process ids (every pid and thread id above 1, the
parent's and a memory access target's included, moved to an id no other copy uses), start times
and timestamps shifted by k times the seed's span, and new sequence numbers; so every copy is a
new set of processes to the engine: new process-tree entries, new first-time alerts, new
aggregation entries. The seed's start-up inventory (`process_present` and the other *_present
events) and its agent_start come once, at the top; agent_stop once, at the end; heartbeats are
dropped. Deterministic: the same seed and N give the same bytes. Python stdlib only.
"""

import json
import re
import sys

PID_MAX = 4194304  # the kernel's largest pid_max
SEED_ONCE = {"process_present", "module_present", "device_present", "pci_function",
             "qp_present", "mr_present", "agent_start"}
DROP = {"agent_heartbeat", "agent_stop", "agent_lost"}
# Numeric fields (dotted paths) rewritten per copy.
PID_FIELDS = ("process.pid", "process.thread.id", "process.parent.pid", "target.process.pid")
BOOT_FIELDS = ("process.start_boot_ns", "process.parent.start_boot_ns",
               "target.process.start_boot_ns")
MARK = re.compile(r'"@@([PBTS]):(\d+)@@"')


def get(obj, path):
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def put(obj, path, value):
    parts = path.split(".")
    for part in parts[:-1]:
        obj = obj[part]
    obj[parts[-1]] = value


def parse_ts(text):
    """'2026-12-02T15:10:13.464527Z' -> microseconds since the epoch (UTC)."""
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z", text)
    if not m:
        raise ValueError(f"unexpected @timestamp {text!r}")
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    frac = (m.group(7) or "0").ljust(6, "0")[:6]
    # days from civil (Howard Hinnant's algorithm): no datetime needed, exact for any year
    y -= mo <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    days = era * 146097 + doe - 719468
    return ((days * 86400 + h * 3600 + mi * 60 + s) * 1000000) + int(frac)


def format_ts(us):
    secs, frac = divmod(us, 1000000)
    days, rem = divmod(secs, 86400)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    y = yoe + era * 400 + (m <= 2)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ" % (y, m, d, rem // 3600, rem // 60 % 60,
                                                   rem % 60, frac)


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    seed_path, n_text, out_path = argv[1:]
    total = int(n_text)
    once, body, stop = [], [], None
    with open(seed_path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            ev = json.loads(line)
            action = get(ev, "event.action")
            if action == "agent_stop":
                stop = ev
            elif action in SEED_ONCE:
                once.append(ev)
            elif action not in DROP:
                body.append(ev)
    if not body:
        print(f"{seed_path}: no sensor events to replicate", file=sys.stderr)
        return 2

    # Templates: each body event dumped once with markers where per-copy values go.
    pids = sorted({v for ev in body for p in PID_FIELDS
                   if isinstance(v := get(ev, p), int) and v > 1})
    slot = {pid: i for i, pid in enumerate(pids)}
    stamps = [parse_ts(ev["@timestamp"]) for ev in body]
    t0 = min(stamps)
    span_us = max(stamps) - t0 + 1000000
    templates = []
    for ev, ts in zip(body, stamps):
        ev = json.loads(json.dumps(ev))
        for p in PID_FIELDS:
            v = get(ev, p)
            if isinstance(v, int) and v > 1:
                put(ev, p, f"@@P:{slot[v]}@@")
        for p in BOOT_FIELDS:
            v = get(ev, p)
            if isinstance(v, int) and v > 0:
                put(ev, p, f"@@B:{v}@@")
        ev["@timestamp"] = f"@@T:{ts - t0}@@"
        ev["event"]["sequence"] = "@@S:0@@"
        text = json.dumps(ev, separators=(",", ":"))
        chunks, last = [], 0
        for m in MARK.finditer(text):
            chunks.append(text[last:m.start()])
            chunks.append((m.group(1), int(m.group(2))))
            last = m.end()
        chunks.append(text[last:])
        templates.append(chunks)

    seq = 0
    written = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for ev in once:
            if written >= total:
                break
            seq += 1
            ev["event"]["sequence"] = seq
            out.write(json.dumps(ev, separators=(",", ":")) + "\n")
            written += 1
        k = 0
        room = PID_MAX - 300  # pids above 300 (as the kernel hands them out after a wrap)
        while written < total - (1 if stop else 0):
            base_us = t0 + k * span_us
            boot_shift = k * span_us * 1000
            pid_base = k * len(pids)
            for chunks in templates:
                if written >= total - (1 if stop else 0):
                    break
                seq += 1
                parts = []
                for c in chunks:
                    if isinstance(c, str):
                        parts.append(c)
                        continue
                    kind, v = c
                    if kind == "P":
                        parts.append(str(300 + (pid_base + v) % room))
                    elif kind == "B":
                        parts.append(str(v + boot_shift))
                    elif kind == "T":
                        parts.append('"' + format_ts(base_us + v) + '"')
                    else:
                        parts.append(str(seq))
                out.write("".join(parts) + "\n")
                written += 1
            k += 1
        if stop:
            seq += 1
            stop["event"]["sequence"] = seq
            stop["@timestamp"] = format_ts(t0 + k * span_us)
            out.write(json.dumps(stop, separators=(",", ":")) + "\n")
            written += 1
    print(f"{out_path}: {written} events, {k} copies of {len(templates)} seed events "
          f"({len(once)} once), {len(pids)} pids per copy", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
