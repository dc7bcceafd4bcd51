#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Elasticsearch/OpenSearch index template fleet/elastic/rdmaguard-index-template.json
(suite unit):

  - regenerating it (fleet/elastic/gen-index-template.py, from the alert schema and the event
    field table) changes nothing;
  - a real alert stream: `rdmaguard replay` of every rule fixture (tests/fixtures/events, each
    with its policy), the alerts the rule-fixture and rsyslog tests check; every field of every
    alert is mapped, with a type its values index as (a string as keyword or text, an RFC 3339
    time as date, an address as ip; an integer as long in range or unsigned_long; true/false as
    boolean; an object as an object);
  - the check can fail: an alert with a field the template lacks, and one with a wrongly typed
    value, are refused.

Deliberate breaks that turn it red: drop an entry of IDENTITY or a row of the event table's
parse; map integer (64 bits) as long (rdma.mr.addr would not fit a signed long if it were above
2^63: the range check); edit the JSON by hand.
Usage: test_index_template.py (env RG_RDMAGUARD, RG_SOURCE_ROOT).
"""
import datetime
import importlib.util
import ipaddress
import json
import os
import subprocess
import sys
import tempfile

SRC = os.environ.get("RG_SOURCE_ROOT", "")
RDMAGUARD = os.environ.get("RG_RDMAGUARD", "")


def type_errors(doc, props, prefix=""):
    """What of doc the mapping props does not take: a list of 'path: why'."""
    errs = []
    for k, v in doc.items():
        path = prefix + k
        m = props.get(k)
        if m is None:
            errs.append("%s: not mapped" % path)
            continue
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, dict):
                if "properties" not in m:
                    errs.append("%s: an object, mapped as %s" % (path, m.get("type")))
                else:
                    errs += type_errors(x, m["properties"], path + ".")
                continue
            t = m.get("type")
            ok = False
            if isinstance(x, bool):
                ok = t == "boolean"
            elif isinstance(x, int):
                # a number indexes into a keyword as its text (ECS's process.user.id)
                ok = (t == "long" and -2**63 <= x < 2**63) or \
                    (t == "unsigned_long" and 0 <= x < 2**64) or t == "keyword"
            elif isinstance(x, float):
                ok = t in ("double", "float")
            elif isinstance(x, str):
                if t in ("keyword", "match_only_text", "text"):
                    ok = True
                elif t == "date":
                    try:
                        datetime.datetime.fromisoformat(x.replace("Z", "+00:00"))
                        ok = True
                    except ValueError:
                        pass
                elif t == "ip":
                    try:
                        ipaddress.ip_address(x)
                        ok = True
                    except ValueError:
                        pass
            if not ok:
                errs.append("%s: %r does not index as %s" % (path, x, t))
    return errs


def engine_alerts():
    fixtures = os.path.join(SRC, "tests", "fixtures", "events")
    alerts = []
    for f in sorted(os.listdir(fixtures)):
        if not f.endswith(".jsonl") or f.endswith(".expected.jsonl"):
            continue
        policy = os.path.join(fixtures, f.replace(".jsonl", ".policy.json"))
        if not os.path.exists(policy):
            policy = os.path.join(fixtures, "policy.json")
        # Not under RG_TEST_WRAPPER (valgrind): the CLI tests check replay's memory already.
        r = subprocess.run([RDMAGUARD, "replay", os.path.join(fixtures, f), "--rules",
                            os.path.join(SRC, "rules"), "--policy", policy],
                           capture_output=True)
        if r.returncode not in (0, 1):
            raise SystemExit("replay %s: exit %d: %s" % (f, r.returncode, r.stderr))
        alerts += [json.loads(x) for x in r.stdout.decode("utf-8").splitlines() if x.strip()]
    return alerts


def main():
    if not SRC or not RDMAGUARD or not os.access(RDMAGUARD, os.X_OK):
        print("RG_SOURCE_ROOT and RG_RDMAGUARD must be set", file=sys.stderr)
        return 2
    fails = []
    spec = importlib.util.spec_from_file_location(
        "gen", os.path.join(SRC, "fleet", "elastic", "gen-index-template.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    shipped_path = os.path.join(SRC, "fleet", "elastic", "rdmaguard-index-template.json")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.json")
        sys.argv = ["gen-index-template.py", out]
        gen.main()
        for name in ("rdmaguard-index-template.json", "logs-rdmaguard.alert-template.json",
                     "rdmaguard-alerts-ilm.json"):
            with open(os.path.join(d, "t.json" if name.startswith("rdmaguard-index") else
                                   name)) as f, \
                    open(os.path.join(SRC, "fleet", "elastic", name)) as g:
                if f.read() != g.read():
                    fails.append("%s is not what gen-index-template.py writes (run it)" % name)
    # The data stream: on ecs@mappings, with its ILM policy, and rdmaguard.* mapped.
    with open(os.path.join(SRC, "fleet", "elastic", "logs-rdmaguard.alert-template.json")) as f:
        ds = json.load(f)
    if not (ds.get("data_stream") == {} and ds["index_patterns"] == ["logs-rdmaguard.alert-*"]
            and "ecs@mappings" in ds.get("composed_of", []) and
            ds["template"]["settings"]["index"]["lifecycle"]["name"] == "rdmaguard-alerts" and
            "rdmaguard" in ds["template"]["mappings"]["properties"]):
        fails.append("logs-rdmaguard.alert-template.json is no data stream on ecs@mappings "
                     "with the rdmaguard-alerts ILM policy")
    with open(shipped_path) as f:
        tpl = json.load(f)
    props = tpl["template"]["mappings"]["properties"]

    alerts = engine_alerts()
    if len(alerts) < 20:
        fails.append("only %d alerts from the fixtures" % len(alerts))
    seen = set()
    for a in alerts:
        for e in type_errors(a, props):
            if e not in seen:
                seen.add(e)
                fails.append("%s (rule %s)" % (e, a.get("rule", {}).get("id")))

    # The check can fail.
    a = dict(alerts[0], unmapped_field={"x": 1})
    if not any("unmapped_field: not mapped" in e for e in type_errors(a, props)):
        fails.append("an unmapped field passes")
    a = dict(alerts[0], event=dict(alerts[0]["event"], severity="many"),
             **{"@timestamp": "yesterday"})
    if len(type_errors(a, props)) != 2:
        fails.append("wrongly typed values pass")

    for f in fails:
        print("FAIL: " + f)
    print("%d alerts of %d rules checked against %s: %s" % (
        len(alerts), len({a["rule"]["id"] for a in alerts}), os.path.basename(shipped_path),
        "FAIL" if fails else "ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
