#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the Sigma rules of fleet/sigma/rules/ from rules/*.json: one detection rule per shipped
rule, matching the agent's alerts of that rule (logsource product linux, service rdmaguard;
level from its severity; ATT&CK tags from its threat), and the correlation rules for what only
several seats together show. Checked in; tests/unit/test_sigma.py regenerates them and fails on
any difference, and validates each against the Sigma specification's JSON schemas (schema/).

Usage: gen-sigma.py [OUT_DIR]   (default: fleet/sigma/rules/ of this source tree)
Needs python3-yaml. Rule ids are uuid5 of the rule id: stable across regenerations."""
import glob
import importlib.util
import os
import re
import sys
import uuid

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NS = uuid.UUID("5d0b1c2e-1f0a-4e55-9a3e-7264616d6731")  # rdmaguard's Sigma namespace
LEVEL = {"info": "informational", "low": "low", "medium": "medium", "high": "high",
         "critical": "critical"}
LOGSOURCE = {"product": "linux", "service": "rdmaguard"}
AUTHOR = "rdmaguard (generated from rules/%s.json by fleet/sigma/gen-sigma.py)"
# References point at the release the rules come with (a tag, not a branch that moves).
RELEASE = "v" + re.search(r"version: '([^']+)'",
                          open(os.path.join(ROOT, "meson.build"), encoding="utf-8").read()).group(1)
REPO = "https://github.com/rdmaguard/rdmaguard/blob/" + RELEASE + "/"
REFERENCE = REPO + "docs/reference/rules.md"
# When these rules were first written in this form (Sigma's date; modified: when changed).
DATE = "2026-12-07"
# New rules start experimental (SigmaHQ's conventions: stable only after use in the field).
STATUS = "experimental"
# Words a title keeps in lower case unless first (title case).
SMALL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to",
         "with"}


def title_case(text):
    """Every word capitalised but the small ones; words with capitals (RDMA, PCI) kept."""
    words = text.split(" ")
    return " ".join(w if any(c.isupper() for c in w) or (i and w in SMALL) else
                    w[:1].upper() + w[1:] for i, w in enumerate(words))


def load_rules():
    spec = importlib.util.spec_from_file_location(
        "gen_rules", os.path.join(ROOT, "docs", "gen", "gen-rules.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.load(os.path.join(ROOT, "rules"))


def sigma_name(rule_id):
    return "rdmaguard_" + re.sub(r"[^a-z0-9]+", "_", rule_id.lower())


def attack_tags(rule):
    """attack.<tactic-name>, attack.<technique id> (Sigma's tag convention)."""
    t = rule.get("threat") or {}
    tags = []
    tactic = (t.get("tactic") or {}).get("name")
    if tactic:
        tags.append("attack." + re.sub(r"[^a-z0-9]+", "-", tactic.lower()).strip("-"))
    tech = (t.get("technique") or {}).get("id")
    if tech:
        tags.append("attack." + tech.lower())
    return tags


def detection_rule(rule):
    rid = rule["id"]
    doc = {
        "title": title_case(rule["name"]),
        "id": str(uuid.uuid5(NS, rid)),
        "name": sigma_name(rid),
        "status": STATUS,
        "date": DATE,
        "description": "%s (rdmaguard rule %s; the agent evaluates the rule on the machine, this "
                       "matches its alerts)" % (rule["description"], rid),
        "references": [REPO + "rules/%s.json" % rid, REFERENCE],
        "author": AUTHOR % rid,
        "tags": attack_tags(rule),
        "logsource": dict(LOGSOURCE),
        "detection": {
            "selection": {"event.kind": "alert", "rule.id": rid},
            "condition": "selection",
        },
        "falsepositives": ["A workload the policy should allow (add it to the policy's allow "
                           "list)"],
        "level": LEVEL[rule.get("severity", "medium")],
    }
    if not doc["tags"]:
        del doc["tags"]  # no ATT&CK mapping in the rule (AGENT-003, RDMA-004)
    return doc


def heartbeat_rule():
    return {
        "title": title_case("Agent heartbeat with the seat's PCI serial numbers"),
        "id": str(uuid.uuid5(NS, "heartbeat")),
        "name": "rdmaguard_heartbeat",
        "status": STATUS,
        "date": DATE,
        "description": "The agent's heartbeat notice (event.kind metric), which carries the "
                       "seat's hardware fingerprint digest and PCI Device Serial Numbers; a base "
                       "for the fleet correlations, not an alert by itself",
        "references": [REFERENCE],
        "author": "rdmaguard (fleet/sigma/gen-sigma.py)",
        "tags": ["attack.initial-access", "attack.t1200"],
        "logsource": dict(LOGSOURCE),
        "detection": {
            # a wildcard, not |exists: EQL has no exists
            "selection": {"event.action": "agent_heartbeat", "rdmaguard.pci.dsn": "*"},
            "condition": "selection",
        },
        "level": "informational",
    }


def correlations():
    """What only several seats together show."""
    rdma9 = sigma_name("RDMA-009")
    return [
        ("correlation_peer_on_several_seats", {
            "title": title_case("One RDMA peer connected to several seats"),
            "id": str(uuid.uuid5(NS, "correlation:peer-several-seats")),
            "name": "rdmaguard_peer_on_several_seats",
            "status": STATUS,
        "date": DATE,
            "description": "The same RDMA peer address in RDMA connection alerts of two or more "
                           "seats within an hour: one cheat box serving several players, or a "
                           "rogue server on the tournament network",
            "author": "rdmaguard (fleet/sigma/gen-sigma.py)",
            "references": [REFERENCE],
            "tags": ["attack.command-and-control", "attack.t1095"],
            "correlation": {
                "type": "value_count",
                "rules": [rdma9],
                "group-by": ["destination.ip"],
                "timespan": "1h",
                "condition": {"field": "labels.seat", "gte": 2},
            },
            "level": "critical",
        }),
        ("correlation_dsn_on_several_seats", {
            "title": title_case("One PCI Device Serial Number on several seats"),
            "id": str(uuid.uuid5(NS, "correlation:dsn-several-seats")),
            "name": "rdmaguard_dsn_on_several_seats",
            "status": STATUS,
        "date": DATE,
            "description": "Heartbeats of two or more seats within an hour list the same PCI "
                           "Device Serial Number: a donor card's identity cloned onto DMA cards",
            "author": "rdmaguard (fleet/sigma/gen-sigma.py)",
            "references": [REFERENCE],
            "tags": ["attack.initial-access", "attack.t1200"],
            "correlation": {
                "type": "value_count",
                "rules": ["rdmaguard_heartbeat"],
                "group-by": ["rdmaguard.pci.dsn"],
                "timespan": "1h",
                "condition": {"field": "labels.seat", "gte": 2},
            },
            "level": "high",
        }),
        ("correlation_connection_then_memory_access", {
            "title": title_case("RDMA connection and access to the game's memory on a seat"),
            "id": str(uuid.uuid5(NS, "correlation:connection-then-access")),
            "name": "rdmaguard_connection_then_memory_access",
            "status": STATUS,
        "date": DATE,
            "description": "An RDMA connection and access to the game's memory by an RDMA "
                           "process on the same seat within five minutes (in any order: "
                           "ES|QL, the one Elastic target with temporal correlations, has no "
                           "ordered one)",
            "author": "rdmaguard (fleet/sigma/gen-sigma.py)",
            "references": [REFERENCE],
            "tags": ["attack.collection", "attack.t1005"],
            "correlation": {
                "type": "temporal",
                "rules": [rdma9, sigma_name("RDMA-008")],
                "group-by": ["labels.seat"],
                "timespan": "5m",
            },
            "level": "critical",
        }),
    ]


def pipeline():
    """The pySigma processing pipeline for rdmaguard's alerts on Elasticsearch or OpenSearch:
    the index pattern (logs-rdmaguard.alert-*, the data stream of fleet/elastic/) as the
    backends' index state, and the field mapping from the agent's event names (what a rule
    condition says: rdma.peer.address, severity) to their names in alerts (ECS, rdmaguard.*),
    from the last column of docs/reference/event-fields.md."""
    mapping = {"severity": "rdmaguard.severity", "count": "rdmaguard.count",
               "action": "rdmaguard.action", "rule.action": "rdmaguard.rule.action"}
    in_cats = False
    with open(os.path.join(ROOT, "docs", "reference", "event-fields.md"), encoding="utf-8") as f:
        for line in f:
            in_cats = in_cats or line.startswith("## ECS categorisation")
            m = re.match(r"^\| `([^`]+)` \|[^|]*\|[^|]*\| `([^`]+)` \|$", line)
            if m and not in_cats and m.group(1) != m.group(2):
                mapping[m.group(1)] = m.group(2)
    return {
        "name": "rdmaguard alerts (ECS) on Elasticsearch and OpenSearch",
        "priority": 20,
        "transformations": [
            {"id": "rdmaguard_index", "type": "set_state", "key": "index",
             "val": "logs-rdmaguard.alert-*",
             "rule_conditions": [dict(LOGSOURCE, type="logsource")]},
            {"id": "rdmaguard_event_names", "type": "field_name_mapping",
             "mapping": dict(sorted(mapping.items())),
             "rule_conditions": [dict(LOGSOURCE, type="logsource")]},
        ],
    }


def dump(doc):
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100,
                          default_flow_style=False)


def generate():
    """{file name: text} of every rule."""
    files = {}
    for rule in load_rules():
        files[sigma_name(rule["id"]) + ".yml"] = dump(detection_rule(rule))
    files["rdmaguard_heartbeat.yml"] = dump(heartbeat_rule())
    for name, doc in correlations():
        files["rdmaguard_" + name + ".yml"] = dump(doc)
    return files


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "fleet", "sigma", "rules")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(os.path.dirname(out.rstrip("/")), "pipeline.yml"), "w",
              encoding="utf-8") as f:
        f.write("# Generated by fleet/sigma/gen-sigma.py; do not edit.\n" + dump(pipeline()))
    files = generate()
    for old in glob.glob(os.path.join(out, "*.yml")):
        if os.path.basename(old) not in files:
            os.unlink(old)
    for name, text in sorted(files.items()):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write("# Generated by fleet/sigma/gen-sigma.py; do not edit.\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
