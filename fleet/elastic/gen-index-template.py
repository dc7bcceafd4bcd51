#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes fleet/elastic/rdmaguard-index-template.json: the Elasticsearch/OpenSearch composable
index template (ECS mapping) of rdmaguard's alerts and notices, from what knows every field:

  - rules/schema/alert.schema.json: the alert's own fields (event.*, rule.*, severity, message,
    count, action, host, process, tags, threat, ...), types and formats;
  - docs/reference/event-fields.md (generated from the event field table, checked by the
    reference-docs test): the event's fields an alert carries (rdma.*, memory.*, pci.*, ...),
    with the table's type;
  - IDENTITY below: the seat identity and network names of docs/seat.md (host.*, agent.*,
    labels.seat, destination.*, source.*, related.ip, rdmaguard.*) and the heartbeat's hardware
    fields (rdmaguard.hw.fingerprint, rdmaguard.pci.dsn[]), where the two sources above do not
    have them; addresses are ip whatever the alert schema says (it types them as strings);
  - fleet/elastic/ecs/: ECS's own definitions: a field ECS has is mapped as ECS maps it (type,
    multi-fields such as process.name.text), in types both Elasticsearch and OpenSearch know
    (text where ECS says match_only_text, which OpenSearch has only from 2.12).

Where both of the first two sources type a field, the event table wins (it knows 64-bit
integers: unsigned_long); ECS wins over both.
Also writes, next to it, logs-rdmaguard.alert-template.json (Elasticsearch's data stream on
ecs@mappings, with the ILM policy rdmaguard-alerts-ilm.json).
tests/integration/fleet/test_index_template.py regenerates them (no difference allowed) and checks
the template against every field of the alerts the rule fixtures produce. python3 stdlib only.
Usage: gen-index-template.py [OUT]"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "fleet", "elastic", "rdmaguard-index-template.json")

KEYWORD = {"type": "keyword", "ignore_above": 1024}
IP = {"type": "ip", "ignore_malformed": True}
DATE = {"type": "date", "format": "strict_date_optional_time"}

IDENTITY = {
    "host.name": KEYWORD, "host.id": KEYWORD, "host.ip": IP, "host.mac": KEYWORD,
    "host.architecture": KEYWORD, "host.os.type": KEYWORD, "host.os.family": KEYWORD,
    "host.os.name": KEYWORD, "host.os.version": KEYWORD, "host.os.full": KEYWORD,
    "host.os.kernel": KEYWORD, "host.os.platform": KEYWORD,
    "agent.version": KEYWORD, "agent.type": KEYWORD, "rdmaguard.policy.sha256": KEYWORD,
    "labels.seat": KEYWORD, "destination.ip": IP, "destination.port": {"type": "long"},
    "source.ip": IP, "source.port": {"type": "long"}, "related.ip": IP,
    "rdmaguard.peer.class": KEYWORD, "rdmaguard.peer.name": KEYWORD, "event.dataset": KEYWORD,
    "rdmaguard.hw.fingerprint": KEYWORD, "rdmaguard.pci.dsn": KEYWORD,
}
# ECS types the alert schema cannot say (it types addresses as strings).
ECS_IP = ("host.ip", "related.ip", "destination.ip", "source.ip")


def event_table_type(t):
    """The mapping of a type column of docs/reference/event-fields.md."""
    t = t.strip()
    if t.startswith("integer (64 bits)"):
        return {"type": "unsigned_long"}
    if t.startswith("integer"):
        return {"type": "long"}
    if "RFC 3339" in t:
        return dict(DATE)
    if "IPv4 or IPv6 address" in t or "GID as IPv6" in t or "dotted quad" in t:
        return dict(IP)
    if t.startswith("`true`"):
        return {"type": "boolean"}
    if t.startswith(("name", "text", "list of")):
        return dict(KEYWORD)
    raise ValueError("event-fields.md: unknown type %r" % t)


def event_table():
    """The event's fields under their names in alerts (the table's last column)."""
    fields = {}
    with open(os.path.join(ROOT, "docs", "reference", "event-fields.md"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("## ECS categorisation"):
                break
            m = re.match(r"^\| `([^`]+)` \| ([^|]+) \|[^|]*\| `([^`]+)` \|$", line)
            if m:
                fields[m.group(3)] = event_table_type(m.group(2))
    return fields


def ecs_fields():
    """ECS's own field definitions (fleet/elastic/ecs/)."""
    d = os.path.join(ROOT, "fleet", "elastic", "ecs")
    name = [f for f in sorted(os.listdir(d)) if re.match(r"ecs_flat-[0-9.]+\.json$", f)][-1]
    with open(os.path.join(d, name), encoding="utf-8") as f:
        return json.load(f)["fields"]


def ecs_mapping(d):
    """ECS's mapping of a field, in types that Elasticsearch and OpenSearch both have
    (OpenSearch has match_only_text only from 2.12: text instead)."""
    def one(t):
        if t == "match_only_text":
            return {"type": "text"}
        if t == "keyword":
            return dict(KEYWORD)
        if t == "date":
            return dict(DATE)
        if t == "ip":
            return dict(IP)
        return {"type": t}
    m = one(d["type"])
    if d.get("multi_fields"):
        m["fields"] = {x["name"]: one(x["type"]) for x in d["multi_fields"]}
    return m


def schema_fields():
    with open(os.path.join(ROOT, "rules", "schema", "alert.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    defs = schema.get("$defs", {})
    fields = {}

    def resolve(s):
        while "$ref" in s:
            ref = defs[s["$ref"].split("/")[-1]]
            s = dict(ref, **{k: v for k, v in s.items() if k != "$ref"})
        return s

    def leaf(s):
        t = s.get("type")
        if s.get("format") == "date-time" or s.get("pattern", "").startswith("^[0-9]{4}-"):
            return dict(DATE)
        if t == "integer":
            return {"type": "long"}
        if t == "number":
            return {"type": "double"}
        if t == "boolean" or s.get("const") is True:
            return {"type": "boolean"}
        return dict(KEYWORD)

    def walk(prefix, s):
        s = resolve(s)
        if s.get("type") == "array" and "items" in s:
            walk(prefix, s["items"])
            return
        if s.get("type") == "object" or "properties" in s:
            for k, v in s.get("properties", {}).items():
                walk(prefix + "." + k if prefix else k, v)
            return
        fields[prefix] = leaf(s)

    walk("", schema)
    return fields


def build():
    fields = schema_fields()
    fields.update(event_table())
    for k, v in IDENTITY.items():
        fields.setdefault(k, dict(v))
    for k in ECS_IP:
        fields[k] = dict(IP)
    # An ECS field is mapped as ECS maps it (type and multi-fields).
    ecs = ecs_fields()
    for k in fields:
        if k in ecs and ecs[k]["type"] not in ("object", "nested", "flattened"):
            fields[k] = ecs_mapping(ecs[k])
    props = {}
    for name in sorted(fields):
        parts = name.split(".")
        node = props
        for p in parts[:-1]:
            node = node.setdefault(p, {"properties": {}})
            if "properties" not in node:
                raise ValueError("%s is both a field and an object" % name)
            node = node["properties"]
        if parts[-1] in node:
            raise ValueError("%s is both a field and an object" % name)
        node[parts[-1]] = fields[name]
    return {
        "index_patterns": ["rdmaguard-*"],
        "priority": 200,
        "_meta": {"description": "rdmaguard alerts and notices (ECS); generated by "
                                 "fleet/elastic/gen-index-template.py, do not edit"},
        "template": {
            "settings": {"index": {"mapping": {"total_fields": {"limit": 2000}}}},
            "mappings": {
                # A field the template does not know yet is still indexed, as a keyword.
                "dynamic_templates": [{"strings_as_keyword": {
                    "match_mapping_type": "string", "mapping": dict(KEYWORD)}}],
                "properties": props,
            },
        },
    }


def data_stream(tpl):
    """Elasticsearch's data stream logs-rdmaguard.alert-*: the stack's logs@ and ecs@mappings
    templates (8.13 and later) map the ECS fields; this adds rdmaguard.*, the ECS fields whose
    values need more than ecs@mappings guesses (addresses as ip), and the ILM policy."""
    props = tpl["template"]["mappings"]["properties"]
    return {
        "index_patterns": ["logs-rdmaguard.alert-*"],
        "data_stream": {},
        "priority": 200,
        "composed_of": ["logs@mappings", "logs@settings", "ecs@mappings"],
        "_meta": {"description": "rdmaguard alerts and notices (ECS) as a data stream; "
                                 "generated by fleet/elastic/gen-index-template.py, do not edit"},
        "template": {
            "settings": {"index": {"lifecycle": {"name": "rdmaguard-alerts"},
                                   "mapping": {"total_fields": {"limit": 2000}}}},
            "mappings": {"properties": {k: props[k] for k in ("rdmaguard", "related",
                                                              "destination", "source")
                                        if k in props}},
        },
    }


# Alerts kept a year, in indices of at most 50 GB a primary shard or 30 days.
ILM = {"policy": {"_meta": {"description": "rdmaguard alerts: a year, then deleted"},
                  "phases": {"hot": {"actions": {"rollover": {"max_primary_shard_size": "50gb",
                                                              "max_age": "30d"}}},
                             "delete": {"min_age": "365d", "actions": {"delete": {}}}}}}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else OUT
    tpl = build()
    outs = {out: tpl,
            os.path.join(os.path.dirname(out), "logs-rdmaguard.alert-template.json"):
                data_stream(tpl),
            os.path.join(os.path.dirname(out), "rdmaguard-alerts-ilm.json"): ILM}
    for path, doc in outs.items():
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
