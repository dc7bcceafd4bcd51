#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Sigma rules of fleet/sigma/ through the Sigma tools themselves (suite unit): the vendored
pySigma 1.5.0, sigma-cli 3.0.2 and Elasticsearch backend 2.1.0
(tests/integration/fleet/sigma-tools/), no network.

  - `sigma check` finds no error and no issue in fleet/sigma/rules/ (ATT&CK tags against the
    ATT&CK extract), and does find them in a broken copy (an unknown technique, a correlation
    naming a rule that does not exist);
  - the per-target conversion docs/fleet.md documents works, with fleet/sigma/pipeline.yml: ES|QL
    converts the whole directory, the correlations included, from logs-rdmaguard.alert-*;
    Lucene and EQL (no correlations) every detection rule; a field written with the agent's
    event name (rdma.peer.address) converts to its name in alerts;
  - the correlations group by the seat (labels.seat) and count seats;
  - SigmaHQ's conventions: title case, a date, references pinned to a release tag (not a
    branch), no `fields`, status not stable on day one, for each ATT&CK technique one of its
    tactics (from the same ATT&CK extract); a broken copy fails each.

Deliberate breaks that turn it red: the old generator (temporal_ordered, host.name, |exists,
status stable, blob/main links, fields, lower-case titles); RDMA-012 tagged Collection with T1095;
drop the set_state of pipeline.yml (ES|QL then reads from *).
Usage: test_sigma_cli.py (env RG_SOURCE_ROOT). Needs the Debian packages of sigma-tools/README.md.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

SRC = os.environ.get("RG_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOLS = os.path.join(SRC, "tests", "integration", "fleet", "sigma-tools")
SIGMA = os.path.join(SRC, "fleet", "sigma")
FAILS = []
SMALL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to",
         "with"}


def check(cond, what):
    if not cond:
        FAILS.append(what)
    return cond


def sigma(*args, cwd):
    env = {"PATH": "/usr/bin:/bin", "HOME": cwd, "PYTHONDONTWRITEBYTECODE": "1",
           "RG_ATTACK_DATA": os.path.join(TOOLS, "attack-extract.json"),
           "PYTHONPATH": os.pathsep.join(os.path.join(TOOLS, d) for d in
                                         ("pySigma", "sigma-cli", "pySigma-backend-elasticsearch")),
           # no proxy, no network: a download attempt fails at once
           "no_proxy": "*", "http_proxy": "http://0.0.0.0:9", "https_proxy": "http://0.0.0.0:9"}
    return subprocess.run(["/usr/bin/python3", os.path.join(TOOLS, "run-sigma.py")] + list(args),
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def attack_tactics():
    """technique id (lower case) -> the shortnames of its tactics, from the ATT&CK extract."""
    with open(os.path.join(TOOLS, "attack-extract.json")) as f:
        bundle = json.load(f)
    out = {}
    for o in bundle["objects"]:
        if o["type"] == "attack-pattern":
            tid = o["external_references"][0]["external_id"].lower()
            out[tid] = {p["phase_name"] for p in o["kill_chain_phases"]}
    return out


def convention_errors(doc, tactics):
    """SigmaHQ's conventions the rules follow: a list of what a rule breaks."""
    errs = []
    words = doc.get("title", "").split(" ")
    for i, w in enumerate(words):
        if w[:1].islower() and not (i and w in SMALL):
            errs.append("title not in title case (%r)" % w)
    if not re.match(r"^\d{4}-\d{2}-\d{2}$", str(doc.get("date", ""))):
        errs.append("no date")
    for r in doc.get("references", []):
        if re.search(r"/(blob|tree)/(main|master)/", r):
            errs.append("branch link %s" % r)
    if "fields" in doc:
        errs.append("the removed fields attribute")
    if doc.get("status") == "stable":
        errs.append("status stable on day one")
    tags = set(doc.get("tags", []))
    for t in tags:
        m = re.match(r"^attack\.(t\d{4}(?:\.\d{3})?)$", t)
        if m and not any("attack." + x in tags for x in tactics.get(m.group(1), {"?"})):
            errs.append("technique %s without its tactic (%s)" % (
                m.group(1), ", ".join(sorted(tactics.get(m.group(1), {"unknown technique"})))))
    corr = doc.get("correlation")
    if corr:
        if corr.get("group-by") and "labels.seat" not in corr["group-by"] and \
                corr.get("type") != "value_count":
            errs.append("correlation not grouped by the seat")
        if corr.get("type") == "value_count" and corr["condition"].get("field") != "labels.seat":
            errs.append("value_count counts %s, not seats" % corr["condition"].get("field"))
        if "host.name" in corr.get("group-by", []):
            errs.append("correlation grouped by host.name")
    return errs


def queries(out):
    return [q for q in out.split("\n") if q.strip() and not q.startswith("Parsing")]


def main():
    tactics = attack_tactics()
    rules = sorted(glob.glob(os.path.join(SIGMA, "rules", "*.yml")))
    docs = {os.path.basename(p): yaml.safe_load(open(p)) for p in rules}
    detections = [n for n, d in docs.items() if "detection" in d]
    correlations = [n for n, d in docs.items() if "correlation" in d]
    check(len(detections) >= 27 and len(correlations) >= 3,
          "%d detection rules, %d correlations" % (len(detections), len(correlations)))
    for name, doc in docs.items():
        for e in convention_errors(doc, tactics):
            FAILS.append("%s: %s" % (name, e))
    broken = dict(docs["rdmaguard_rdma_012.yml"], status="stable", fields=["host.name"],
                  title="rdmaguard: lower case", references=[
                      "https://github.com/rdmaguard/rdmaguard/blob/main/rules/RDMA-012.json"],
                  tags=["attack.collection", "attack.t1095"])
    broken.pop("date", None)
    kinds = {e.split(" (")[0].split(" http")[0] for e in convention_errors(broken, tactics)}
    check(len(kinds) == 6, "a broken rule breaks 6 conventions: %s" % sorted(kinds))
    bc = dict(docs["rdmaguard_correlation_connection_then_memory_access.yml"])
    bc["correlation"] = dict(bc["correlation"], **{"group-by": ["host.name"]})
    check(len(convention_errors(bc, tactics)) == 2, "a correlation by host.name passes")

    with tempfile.TemporaryDirectory() as tmp:
        rules_dir = os.path.join(SIGMA, "rules")
        pipe = os.path.join(SIGMA, "pipeline.yml")
        r = sigma("check", "--fail-on-issues", "--exclude", "d3_fendtag", rules_dir, cwd=tmp)
        check(r.returncode == 0 and "No validation issues found" in r.stdout and
              "Found 0 errors" in r.stdout, "sigma check: rc %d\n%s%s" % (
                  r.returncode, r.stdout[-1500:], r.stderr[-1500:]))

        bad = os.path.join(tmp, "bad")
        shutil.copytree(rules_dir, bad)
        doc = dict(docs["rdmaguard_rdma_012.yml"], tags=["attack.command-and-control",
                                                          "attack.t9999"])
        with open(os.path.join(bad, "rdmaguard_rdma_012.yml"), "w") as f:
            yaml.safe_dump(doc, f, sort_keys=False)
        r = sigma("check", "--fail-on-issues", "--exclude", "d3_fendtag", bad, cwd=tmp)
        check(r.returncode != 0 and "t9999" in r.stdout.lower(),
              "sigma check passes an unknown technique:\n" + r.stdout[-1500:] + r.stderr[-500:])
        os.unlink(os.path.join(bad, "rdmaguard_rdma_008.yml"))
        r = sigma("check", "--fail-on-issues", "--exclude", "d3_fendtag", bad, cwd=tmp)
        check(r.returncode != 0 and "rdmaguard_rdma_008" in r.stdout + r.stderr,
              "sigma check passes a dangling correlation:\n" + r.stdout[-1500:])

        # ES|QL: everything, correlations included, from the data stream
        r = sigma("convert", "-t", "esql", "-p", pipe, rules_dir, cwd=tmp)
        q = queries(r.stdout)
        check(r.returncode == 0, "esql conversion: rc %d: %s" % (r.returncode, r.stderr[-1500:]))
        check(len([x for x in q if x.startswith("from ")]) >= len(detections) and
              all(x.startswith("from logs-rdmaguard.alert-* ") for x in q
                  if x.startswith("from ")), "esql: a query per rule, from logs-rdmaguard.alert-*")
        check(sum("count_distinct(labels.seat)" in x for x in q) == 2,
              "esql: the two value_count correlations count seats")
        check(any("by timebucket, labels.seat" in x or "labels.seat" in x and "temporal" in x
                  for x in q) or sum("labels.seat" in x for x in q) >= 3,
              "esql: the temporal correlation groups by labels.seat")
        # Lucene and EQL: the detection rules (neither has correlations)
        for target in ("lucene", "eql"):
            r = sigma("convert", "-t", target, "-p", pipe, "--file-pattern", "rdmaguard_[!c]*.yml",
                      rules_dir, cwd=tmp)
            check(r.returncode == 0 and len(queries(r.stdout)) == len(detections),
                  "%s conversion: rc %d, %d queries for %d rules: %s" % (
                      target, r.returncode, len(queries(r.stdout)), len(detections),
                      r.stderr[-1500:]))
        # A rule in the agent's event names converts to the names in alerts.
        own = os.path.join(tmp, "own")
        os.mkdir(own)
        with open(os.path.join(own, "peer.yml"), "w") as f:
            yaml.safe_dump({"title": "Peer Seen", "id": "5d0b1c2e-1f0a-4e55-9a3e-000000000001",
                            "status": "experimental", "date": "2026-12-07",
                            "logsource": {"product": "linux", "service": "rdmaguard"},
                            "detection": {"sel": {"rdma.peer.address": "192.0.2.7",
                                                  "severity": "high"}, "condition": "sel"},
                            "level": "high"}, f, sort_keys=False)
        r = sigma("convert", "-t", "lucene", "-p", pipe, own, cwd=tmp)
        check(r.returncode == 0 and "rdmaguard.rdma.peer.address" in r.stdout and
              "rdmaguard.severity" in r.stdout,
              "the pipeline maps event names: %s %s" % (r.stdout[-300:], r.stderr[-300:]))

    for f in FAILS:
        print("FAIL: " + f)
    print("%d Sigma rules (%d correlations) through sigma-cli check and 3 Elastic targets: %s"
          % (len(docs), len(correlations), "FAIL" if FAILS else "ok"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
