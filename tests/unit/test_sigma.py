#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Sigma rules of fleet/sigma/rules/ (suite unit):

  - regenerating them from rules/*.json (fleet/sigma/gen-sigma.py) changes nothing, and every
    shipped rule has its Sigma rule;
  - each is valid against the Sigma specification's JSON schema kept in fleet/sigma/schema/
    (detection or correlation rule; formats checked: the ids are uuids), and the validator
    refuses a broken copy (so that a schema that accepts anything cannot pass);
  - logsource product linux, service rdmaguard; ATT&CK tags: the rule's tactic and technique
    (every correlation has a technique); the level is the rule's severity;
  - every rule a correlation names exists.

Deliberate breaks that turn it red: edit a generated file; add a rule to rules/ without
regenerating; write level "info" (not a Sigma level) in gen-sigma.py.
Usage: test_sigma.py (env RG_SOURCE_ROOT). Needs python3-yaml and python3-jsonschema.
"""
import glob
import importlib.util
import json
import os
import sys
import tempfile

import jsonschema
import yaml

SRC = os.environ.get("RG_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SIGMA = os.path.join(SRC, "fleet", "sigma")
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)


def validator(name):
    with open(os.path.join(SIGMA, "schema", name)) as f:
        schema = json.load(f)
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def main():
    spec = importlib.util.spec_from_file_location("gen_sigma", os.path.join(SIGMA, "gen-sigma.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)

    with tempfile.TemporaryDirectory() as d:
        sys.argv = ["gen-sigma.py", d]
        gen.main()
        fresh = {os.path.basename(p): open(p, encoding="utf-8").read()
                 for p in glob.glob(os.path.join(d, "*.yml"))}
    shipped = {os.path.basename(p): open(p, encoding="utf-8").read()
               for p in glob.glob(os.path.join(SIGMA, "rules", "*.yml"))}
    check(set(fresh) == set(shipped), "files differ: missing %s, extra %s (run "
          "fleet/sigma/gen-sigma.py)" % (sorted(set(fresh) - set(shipped)),
                                         sorted(set(shipped) - set(fresh))))
    for name in sorted(set(fresh) & set(shipped)):
        check(fresh[name] == shipped[name], "%s is not what gen-sigma.py writes" % name)

    rules = gen.load_rules()
    check(len(rules) >= 15, "only %d shipped rules" % len(rules))
    det, cor = validator("sigma-detection-rule-schema.json"), \
        validator("sigma-correlation-rules-schema.json")
    docs = {n: yaml.safe_load(t) for n, t in shipped.items()}
    names = {d.get("name") for d in docs.values()}
    by_rule = {}
    for n, doc in sorted(docs.items()):
        v = cor if "correlation" in doc else det
        errs = [e.message for e in v.iter_errors(doc)]
        check(not errs, "%s does not match the Sigma schema: %s" % (n, errs[:3]))
        if "correlation" in doc:
            check(any(t.startswith("attack.t") for t in doc.get("tags", [])),
                  "%s has no ATT&CK technique tag" % n)
            for r in doc["correlation"]["rules"]:
                check(r in names, "%s names rule %s, which does not exist" % (n, r))
            continue
        check(doc["logsource"] == {"product": "linux", "service": "rdmaguard"},
              "%s logsource %r" % (n, doc["logsource"]))
        rid = doc["detection"]["selection"].get("rule.id")
        if rid:
            by_rule[rid] = doc
    for r in rules:
        doc = by_rule.get(r["id"])
        check(doc is not None, "rule %s has no Sigma rule" % r["id"])
        if doc:
            check(doc["level"] == gen.LEVEL[r["severity"]], "%s level %s for severity %s"
                  % (r["id"], doc["level"], r["severity"]))
            # ATT&CK tags: the rule's tactic and technique (AGENT-003 and RDMA-004 have none).
            t = r.get("threat")
            want = [] if not t else [
                "attack." + t["tactic"]["name"].lower().replace(" ", "-"),
                "attack." + t["technique"]["id"].lower()]
            check(doc.get("tags", []) == want, "%s tags %r, expected %r"
                  % (r["id"], doc.get("tags"), want))
    check(sum(1 for d in docs.values() if "correlation" in d) >= 3, "correlation rules missing")

    # The validators can fail: a broken copy of a rule is refused.
    bad = dict(docs["rdmaguard_rdma_009.yml"], id="not-a-uuid", level="info")
    check(len(list(det.iter_errors(bad))) == 2, "the detection schema accepts a bad rule")
    badc = dict(docs["rdmaguard_correlation_peer_on_several_seats.yml"])
    badc["correlation"] = dict(badc["correlation"], type="nonsense")
    check(list(cor.iter_errors(badc)), "the correlation schema accepts a bad type")

    for f in FAILS:
        print("FAIL: " + f)
    print("%d Sigma rules (%d shipped rules, %d correlations), %s"
          % (len(docs), len(rules), sum(1 for d in docs.values() if "correlation" in d),
             "FAIL" if FAILS else "ok"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
