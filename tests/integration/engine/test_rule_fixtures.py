#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every default rule has its own test: an event sequence in, exact alerts out, through the binary.

For each tests/fixtures/events/NAME.jsonl, runs
    rdmaguard replay NAME.jsonl --policy NAME.policy.json|policy.json --rules rules/ ...
and compares the alerts with NAME.expected.jsonl exactly, except event.id (checked to be a UUID v4,
unique) and event.created (the wall clock). Also: every alert is valid against the published
schema, the exit status is 1 exactly when an alert is at or above the policy threshold (medium),
and each rule in rules/ has a fixture named after it in which it fires.

usage: test_rule_fixtures.py RDMAGUARD SOURCE_ROOT [--update]
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys

import jsonschema

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
RANK = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
FIXED = ["--hostname", "fixture-host", "--boot-id", "11111111-2222-3333-4444-555555555555",
         "--boot-time", "2026-01-10T00:00:00Z"]
# `meson test --setup valgrind` (tests/hardening/valgrind.sh) runs rdmaguard under memcheck.
WRAP = shlex.split(os.environ.get("RG_TEST_WRAPPER", ""))


def main():
    rdmaguard, root = sys.argv[1], sys.argv[2]
    update = "--update" in sys.argv
    fixtures = os.path.join(root, "tests", "fixtures", "events")
    rules_dir = os.path.join(root, "rules")
    with open(os.path.join(rules_dir, "schema", "alert.schema.json"), encoding="utf-8") as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    failures = 0
    seen_ids = set()
    fired = {}
    names = sorted(p for p in glob.glob(os.path.join(fixtures, "*.jsonl"))
                   if not p.endswith(".expected.jsonl"))
    for path in names:
        name = os.path.basename(path)[:-len(".jsonl")]
        policy = os.path.join(fixtures, name + ".policy.json")
        if not os.path.exists(policy):
            policy = os.path.join(fixtures, "policy.json")
        cmd = WRAP + [rdmaguard, "replay", path, "--policy", policy, "--rules", rules_dir] + FIXED
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode not in (0, 1):
            print(f"FAIL {name}: exit {res.returncode}: {res.stderr}")
            failures += 1
            continue
        alerts = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
        problems = []
        for i, a in enumerate(alerts):
            for e in validator.iter_errors(a):
                problems.append(f"alert {i}: schema: {'.'.join(map(str, e.path))}: {e.message}")
            uid = a["event"].pop("id")
            a["event"].pop("created")
            if not UUID4.match(uid) or uid in seen_ids:
                problems.append(f"alert {i}: bad or repeated event.id {uid}")
            seen_ids.add(uid)
            fired.setdefault(name, set()).add(a["rule"]["id"])
        want_rc = 1 if any(RANK[a["rdmaguard"]["severity"]] >= RANK["medium"] for a in alerts) else 0
        if res.returncode != want_rc:
            problems.append(f"exit {res.returncode}, expected {want_rc}")
        expected_path = os.path.join(fixtures, name + ".expected.jsonl")
        if update:
            with open(expected_path, "w", encoding="utf-8") as f:
                for a in alerts:
                    f.write(json.dumps(a, ensure_ascii=False, separators=(",", ":")) + "\n")
        with open(expected_path, encoding="utf-8") as f:
            expected = [json.loads(line) for line in f if line.strip()]
        if len(alerts) != len(expected):
            problems.append(f"{len(alerts)} alerts, expected {len(expected)}: "
                            + ", ".join(a["rule"]["id"] for a in alerts))
        for i, (got, want) in enumerate(zip(alerts, expected)):
            if got != want:
                problems.append(f"alert {i} differs:\n  got  {json.dumps(got, sort_keys=True)}"
                                f"\n  want {json.dumps(want, sort_keys=True)}")
        if problems:
            failures += 1
            print(f"FAIL {name}")
            for p in problems:
                print("  " + p)
        else:
            print(f"ok   {name}: {len(alerts)} alerts ({', '.join(sorted(fired.get(name, [])))})")
    res = subprocess.run(WRAP + [rdmaguard, "rules", "list", "--rules", rules_dir, "--format", "json"],
                         capture_output=True, text=True, check=True)
    rule_ids = [r["id"] for r in json.loads(res.stdout)]
    for rid in rule_ids:
        if rid not in fired.get(rid, set()):
            print(f"FAIL rule {rid} has no fixture {rid}.jsonl in which it fires")
            failures += 1
    # Every rule file is installed: listed in rules/meson.build.
    with open(os.path.join(rules_dir, "meson.build"), encoding="utf-8") as f:
        meson = f.read()
    for p in sorted(glob.glob(os.path.join(rules_dir, "*.json"))):
        if f"'{os.path.basename(p)}'" not in meson:
            print(f"FAIL {os.path.basename(p)} is not listed in rules/meson.build")
            failures += 1
    print(f"{len(names)} fixtures, {len(rule_ids)} rules, {failures} failures")
    return 1 if failures or not names else 0


if __name__ == "__main__":
    sys.exit(main())
