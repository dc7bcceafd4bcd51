#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every default rule against facts a person wrote down (rule_facts.py), not the binary's output.

For each tests/fixtures/events/NAME.jsonl, runs
    rdmaguard replay NAME.jsonl --policy NAME.policy.json|policy.json --rules rules/
and matches its alerts one to one with FACTS[NAME]: every alert has every field of exactly one
fact (a field of None: absent), and no alert or fact is left over. Also: every fixture has
facts, and every rule in rules/ fires in some fact (a new rule needs hand-written facts).

usage: test_rule_facts.py RDMAGUARD SOURCE_ROOT
"""
import glob
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rule_facts import FACTS  # noqa: E402

FIXED = ["--hostname", "fixture-host", "--boot-id", "11111111-2222-3333-4444-555555555555",
         "--boot-time", "2026-01-10T00:00:00Z"]
WRAP = shlex.split(os.environ.get("RG_TEST_WRAPPER", ""))
MISSING = object()


def get(o, path):
    for k in path.split("."):
        if not isinstance(o, dict) or k not in o:
            return MISSING
        o = o[k]
    return o


def fits(alert, fact):
    return all((get(alert, k) is MISSING) if v is None else get(alert, k) == v
               for k, v in fact.items())


def match(alerts, facts):
    """A one-to-one matching of facts to alerts (augmenting paths); the unmatched of each."""
    owner = [None] * len(alerts)

    def place(f, seen):
        for i, al in enumerate(alerts):
            if i not in seen and fits(al, facts[f]):
                seen.add(i)
                if owner[i] is None or place(owner[i], seen):
                    owner[i] = f
                    return True
        return False
    lone_facts = [f for f in range(len(facts)) if not place(f, set())]
    lone_alerts = [i for i in range(len(alerts)) if owner[i] is None]
    return lone_facts, lone_alerts


def brief(al):
    keys = ("rule.id", "rdmaguard.severity", "process.pid", "rdmaguard.count", "message")
    return json.dumps({k: get(al, k) for k in keys if get(al, k) is not MISSING})


def main():
    rdmaguard, root = sys.argv[1], sys.argv[2]
    fixtures = os.path.join(root, "tests", "fixtures", "events")
    rules_dir = os.path.join(root, "rules")
    failures = 0
    fired = set()
    names = sorted(os.path.basename(p)[:-len(".jsonl")]
                   for p in glob.glob(os.path.join(fixtures, "*.jsonl"))
                   if not p.endswith(".expected.jsonl"))
    for name in sorted(set(FACTS) - set(names)):
        print(f"FAIL facts for {name}, which has no fixture {name}.jsonl")
        failures += 1
    for name in names:
        if name not in FACTS:
            print(f"FAIL {name}.jsonl has no hand-written facts in "
                  "tests/integration/engine/rule_facts.py")
            failures += 1
            continue
        policy = os.path.join(fixtures, name + ".policy.json")
        if not os.path.exists(policy):
            policy = os.path.join(fixtures, "policy.json")
        res = subprocess.run(WRAP + [rdmaguard, "replay", os.path.join(fixtures, name + ".jsonl"),
                                     "--policy", policy, "--rules", rules_dir] + FIXED,
                             capture_output=True, text=True, check=False)
        if res.returncode not in (0, 1):
            print(f"FAIL {name}: exit {res.returncode}: {res.stderr}")
            failures += 1
            continue
        alerts = [json.loads(line) for line in res.stdout.splitlines()]
        facts = FACTS[name]
        lone_facts, lone_alerts = match(alerts, facts)
        fired.update(f["rule.id"] for f in facts)
        if lone_facts or lone_alerts:
            failures += 1
            print(f"FAIL {name}: {len(alerts)} alerts, {len(facts)} facts")
            for f in lone_facts:
                print(f"  no alert has   {json.dumps(facts[f])}")
            for i in lone_alerts:
                print(f"  unexpected     {brief(alerts[i])}")
        else:
            print(f"ok   {name}: {len(alerts)} alerts as written down")
    res = subprocess.run(WRAP + [rdmaguard, "rules", "list", "--rules", rules_dir,
                                 "--format", "json"],
                         capture_output=True, text=True, check=True)
    rule_ids = [r["id"] for r in json.loads(res.stdout)]
    for rid in rule_ids:
        if rid not in fired:
            print(f"FAIL rule {rid} fires in no hand-written fact "
                  "(tests/integration/engine/rule_facts.py)")
            failures += 1
    print(f"{len(names)} fixtures, {len(rule_ids)} rules, "
          f"{sum(len(f) for f in FACTS.values())} facts, {failures} failures")
    return 1 if failures or not names or not rule_ids else 0


if __name__ == "__main__":
    sys.exit(main())
