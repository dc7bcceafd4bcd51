#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Alerts against ECS's own field definitions (fleet/elastic/ecs/, ECS 9.4.0's ecs_flat.yml as
data; suite unit):

  - every field of every event type (docs/reference/event-fields.md, generated from the code,
    with the name each has in alerts): a name outside rdmaguard.* is an ECS field (or below an
    ECS object field such as labels) of a type its values index as; a name under rdmaguard.*
    is no ECS field (ECS's own fields stay where ECS has them);
  - every event type's event.category, event.type and event.outcome (the categorisation table
    of the same page) are values ECS allows, each type one its category expects;
  - every field of every alert of every rule fixture (`rdmaguard replay`), the alert's own
    fields included (severity, count, rule.action, process.start, threat.*, ...), the same
    way, and each alert has ecs.version, event.category, event.type and event.outcome;
  - every field of every incident record of the same replays (`--incidents`), the same way:
    a record validates field by field as an alert does (ecs.version, event.category
    intrusion_detection with event.type info, event.outcome);
  - fleet/elastic/rdmaguard-index-template.json maps every ECS field with ECS's type and
    multi-fields (process.name.text, ...; text where ECS says match_only_text);
  - the check can fail: a top-level severity, a non-ECS member of process and a wrong
    event.type are refused, and so are a long process.user.id and a process.name without its
    .text.

Deliberate breaks that turn it red: the old template (process.user.id long, network.iana_number
long, event.sequence unsigned_long, rule.description match_only_text, no .text); drop K("parent") from process_m in agent/event/ecs_map.c
(process.parent.* moves under rdmaguard); map a verbs event to event.type "start" (api does
not expect it); leave out ecs_add_event_jw() in engine_alert.c; the old main (top-level
severity, rdma.*, agent.what, process.start_time); incident records written without
ecs_map_jw() (engine_incident_to_jw(): top-level severity and game, process.start_time) or with
event.type start/change/end (intrusion_detection does not expect them).
Usage: test_ecs.py (env RG_RDMAGUARD, RG_SOURCE_ROOT).
"""
import datetime
import ipaddress
import json
import os
import re
import subprocess
import sys

SRC = os.environ.get("RG_SOURCE_ROOT", "")
RDMAGUARD = os.environ.get("RG_RDMAGUARD", "")
FAILS = []

STRINGS = ("keyword", "constant_keyword", "wildcard", "match_only_text", "text", "flattened")
NUMBERS = ("long", "integer", "short", "byte", "unsigned_long", "scaled_float", "float",
           "double")


def check(cond, what):
    if not cond:
        FAILS.append(what)


def load_ecs():
    path = os.path.join(SRC, "fleet", "elastic", "ecs")
    names = [f for f in os.listdir(path) if re.match(r"ecs_flat-[0-9.]+\.json$", f)]
    if len(names) != 1:
        raise SystemExit("fleet/elastic/ecs: want one ecs_flat-VERSION.json, have %s" % names)
    with open(os.path.join(path, names[0])) as f:
        return json.load(f)


def ecs_field(ecs, name):
    """The ECS definition of name: its own, or that of an object field above it (labels.seat
    under labels); None when ECS has neither."""
    f = ecs["fields"]
    if name in f:
        return f[name]
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        d = f.get(".".join(parts[:i]))
        if d and d["type"] in ("object", "flattened"):
            return {"type": d.get("object_type", "keyword")}
    return None


def value_fits(x, t):
    """Does the JSON value x index as ECS type t (as Elasticsearch takes it)."""
    if isinstance(x, bool):
        return t == "boolean"
    if isinstance(x, (int, float)):
        # Elasticsearch indexes a number into a keyword as its text (process.user.id)
        return t in NUMBERS or t == "keyword"
    if isinstance(x, str):
        if t == "date":
            try:
                datetime.datetime.fromisoformat(x.replace("Z", "+00:00"))
                return True
            except ValueError:
                return False
        if t == "ip":
            try:
                ipaddress.ip_address(x)
                return True
            except ValueError:
                return False
        return t in STRINGS
    return False


def leaves(doc, prefix=""):
    for k, v in doc.items():
        path = prefix + k
        if isinstance(v, dict):
            yield from leaves(v, path + ".")
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for x in v:
                yield from leaves(x, path + ".")
        else:
            yield path, v


def doc_errors(ecs, doc):
    """What of one alert or notice is not ECS: a list of 'path: why'."""
    errs = []
    for path, v in leaves(doc):
        if path.startswith("rdmaguard."):
            if path[len("rdmaguard."):] in ecs["fields"]:
                errs.append("%s: an ECS field (%s) under rdmaguard" % (path, path[10:]))
            continue
        d = ecs_field(ecs, path)
        if d is None:
            errs.append("%s: no ECS field" % path)
            continue
        for x in (v if isinstance(v, list) else [v]):
            if not value_fits(x, d["type"]):
                errs.append("%s: %r is no ECS %s" % (path, x, d["type"]))
    ev = doc.get("event", {})
    cats = ev.get("category") or []
    if doc.get("ecs", {}).get("version") != ecs["ecs_version"]:
        errs.append("ecs.version is not %s" % ecs["ecs_version"])
    errs += categorisation_errors(ecs, ev.get("action"), cats, ev.get("type") or [],
                                  ev.get("outcome"))
    return errs


def categorisation_errors(ecs, action, cats, types, outcome):
    f = ecs["fields"]
    allowed = f["event.category"]["allowed_values"]
    errs = []
    if not cats or not types:
        errs.append("%s: no event.category or event.type" % action)
    for c in cats:
        if c not in allowed:
            errs.append("%s: event.category %s is not ECS's" % (action, c))
    for t in types:
        if t not in f["event.type"]["allowed_values"]:
            errs.append("%s: event.type %s is not ECS's" % (action, t))
        elif not any(t in allowed.get(c, []) for c in cats):
            errs.append("%s: event.type %s is expected by none of %s" % (action, t, cats))
    if outcome not in f["event.outcome"]["allowed_values"]:
        errs.append("%s: event.outcome %r is not ECS's" % (action, outcome))
    return errs


def field_table(ecs):
    """Rows of docs/reference/event-fields.md: (event name, type text, name in alerts), and the
    categorisation table."""
    rows, cats = [], []
    with open(os.path.join(SRC, "docs", "reference", "event-fields.md"), encoding="utf-8") as f:
        in_cats = False
        for line in f:
            in_cats = in_cats or line.startswith("## ECS categorisation")
            m = re.match(r"^\| `([^`]+)` \| ([^|]*) \|[^|]*\| `([^`]+)` \|$", line)
            if m and not in_cats:
                rows.append(m.groups())
                continue
            m = re.match(r"^\| `([a-z_]+)` \|((?: `[a-z_]+`)+) \|((?: `[a-z_]+`)+) \| `([a-z]+)` \|$",
                         line)
            if m:
                cats.append((m.group(1), re.findall(r"`([a-z_]+)`", m.group(2)),
                             re.findall(r"`([a-z_]+)`", m.group(3)), m.group(4)))
    return rows, cats


def table_type_fits(t, ecs_type):
    t = t.strip()
    if t.startswith("integer"):
        return ecs_type in NUMBERS or ecs_type == "keyword"
    if "RFC 3339" in t:
        return ecs_type == "date"
    if "address" in t or "GID as IPv6" in t or "dotted quad" in t:
        return ecs_type == "ip"
    if t.startswith("`true`"):
        return ecs_type == "boolean"
    return ecs_type in STRINGS


def template_errors(ecs, props, prefix=""):
    """Fields of an index template's mappings that ECS types otherwise: 'path: why'. text
    stands for match_only_text (OpenSearch has that only from 2.12)."""
    errs = []
    for k, m in props.items():
        path = prefix + k
        if "properties" in m:
            errs += template_errors(ecs, m["properties"], path + ".")
            continue
        d = ecs["fields"].get(path)
        if d is None or path.startswith("rdmaguard."):
            continue
        want = "text" if d["type"] == "match_only_text" else d["type"]
        if m.get("type") != want:
            errs.append("%s: mapped %s, ECS says %s" % (path, m.get("type"), d["type"]))
        for mf in d.get("multi_fields", []):
            t = "text" if mf["type"] == "match_only_text" else mf["type"]
            if m.get("fields", {}).get(mf["name"], {}).get("type") != t:
                errs.append("%s: no %s.%s (%s) multi-field" % (path, path, mf["name"], t))
    return errs


def replay_alerts():
    """The alerts and the incident records of replaying every rule fixture."""
    fixtures = os.path.join(SRC, "tests", "fixtures", "events")
    alerts = []
    for f in sorted(os.listdir(fixtures)):
        if not f.endswith(".jsonl") or f.endswith(".expected.jsonl"):
            continue
        policy = os.path.join(fixtures, f.replace(".jsonl", ".policy.json"))
        if not os.path.exists(policy):
            policy = os.path.join(fixtures, "policy.json")
        r = subprocess.run([RDMAGUARD, "replay", os.path.join(fixtures, f), "--rules",
                            os.path.join(SRC, "rules"), "--policy", policy, "--incidents",
                            "--boot-time", "2026-01-10T00:00:00Z"], capture_output=True)
        if r.returncode not in (0, 1):
            raise SystemExit("replay %s: exit %d: %s" % (f, r.returncode, r.stderr))
        alerts += [json.loads(x) for x in r.stdout.decode().splitlines() if x.strip()]
    def is_record(d):
        return d["event"].get("dataset") == "rdmaguard.incident"
    return [a for a in alerts if not is_record(a)], [a for a in alerts if is_record(a)]


def main():
    if not SRC or not RDMAGUARD or not os.access(RDMAGUARD, os.X_OK):
        print("RG_SOURCE_ROOT and RG_RDMAGUARD must be set", file=sys.stderr)
        return 2
    ecs = load_ecs()

    rows, cats = field_table(ecs)
    check(len(rows) > 150, "only %d rows in event-fields.md" % len(rows))
    for name, typ, alert in rows:
        if alert.startswith("rdmaguard."):
            check(alert[10:] not in ecs["fields"],
                  "%s: ECS has %s, the alert moves it to %s" % (name, alert[10:], alert))
            continue
        d = ecs_field(ecs, alert)
        check(d is not None, "%s: in alerts %s, which is no ECS field" % (name, alert))
        if d:
            check(table_type_fits(typ, d["type"]),
                  "%s: %s is ECS %s, the event's is %s" % (name, alert, d["type"], typ.strip()))
    check(len(cats) >= 30, "only %d event types categorised" % len(cats))
    for action, c, t, o in cats:
        FAILS.extend(categorisation_errors(ecs, action, c, t, o))

    alerts, records = replay_alerts()
    check(len(alerts) >= 20, "only %d alerts from the fixtures" % len(alerts))
    check(len(records) >= 20, "only %d incident records from the fixtures" % len(records))
    check({"actor", "pci", "seat"} <= {r["rdmaguard"]["incident"]["kind"] for r in records},
          "the fixtures' records lack an actor, pci or seat incident")
    check(any("process" in r and "rdmaguard" in r and "game" in r["rdmaguard"] for r in records),
          "no record with both process.* and a game")
    seen = set()
    for a in alerts + records:
        for e in doc_errors(ecs, a):
            if e not in seen:
                seen.add(e)
                FAILS.append("%s (%s)" % (e, a.get("rule", {}).get("id") or
                                          a["event"].get("action")))

    with open(os.path.join(SRC, "fleet", "elastic", "rdmaguard-index-template.json")) as f:
        props = json.load(f)["template"]["mappings"]["properties"]
    FAILS.extend("rdmaguard-index-template.json: " + e for e in template_errors(ecs, props))

    # The check can fail.
    bad = template_errors(ecs, {"process": {"properties": {
        "name": {"type": "keyword"}, "user": {"properties": {"id": {"type": "long"}}}}}})
    check(len(bad) == 2, "a long process.user.id and a process.name without .text pass")
    a = json.loads(json.dumps(alerts[0]))
    a["severity"] = "high"
    a.setdefault("process", {})["is_game"] = True
    a["event"]["type"] = ["installation"]
    bad = doc_errors(ecs, a)
    check(any(e.startswith("severity:") for e in bad), "a top-level severity passes")
    check(any(e.startswith("process.is_game:") for e in bad), "process.is_game passes")
    check(any("event.type installation" in e for e in bad), "a wrong event.type passes")
    r = json.loads(json.dumps(records[0]))
    r["severity"] = "high"
    r["event"]["type"] = ["start"]
    bad = doc_errors(ecs, r)
    check(any(e.startswith("severity:") for e in bad), "a record's top-level severity passes")
    check(any("event.type start" in e for e in bad), "a record's event.type start passes")

    for f in FAILS:
        print("FAIL: " + f)
    print("%d event fields, %d event types, %d alerts of %d rules, %d incident records checked "
          "against ECS %s: %s" % (len(rows), len(cats), len(alerts),
                                  len({a["rule"]["id"] for a in alerts}), len(records),
                                  ecs["ecs_version"], "FAIL" if FAILS else "ok"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
