#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The shipped Prometheus alerting rules (packaging/prometheus/): `promtool check rules` and
`promtool test rules` on their unit tests, and every rdmaguard_* metric they use is one the
agent exports (documented in docs/metrics.md, whose table the daemon test holds to the
exposition). A missing promtool fails."""
import os
import re
import subprocess
import sys

SRC = sys.argv[1]
DIR = os.path.join(SRC, "packaging", "prometheus")
PROMTOOL = "/usr/bin/promtool"


def main():
    if not os.access(PROMTOOL, os.X_OK):
        print("FAIL: %s is missing (Debian's prometheus package)" % PROMTOOL)
        return 1
    for args in (["check", "rules", "rdmaguard.rules.yml", "rdmaguard-maintenance.example.yml"],
                 ["test", "rules", "rdmaguard.rules.test.yml"],
                 ["test", "rules", "rdmaguard.maintenance.test.yml"]):
        p = subprocess.run([PROMTOOL] + args, cwd=DIR, capture_output=True, text=True,
                           timeout=120)
        print(p.stdout + p.stderr)
        if p.returncode != 0:
            print("FAIL: promtool %s" % " ".join(args))
            return 1
    with open(os.path.join(DIR, "rdmaguard.rules.yml")) as f:
        used = set(re.findall(r"\b(rdmaguard_[a-z_]+)", f.read()))
    with open(os.path.join(SRC, "docs", "metrics.md")) as f:
        documented = set(re.findall(r"`(rdmaguard_[a-z_]+)", f.read()))
    missing = sorted(used - documented)
    if missing:
        print("FAIL: the rules use metrics docs/metrics.md does not list: %s" % missing)
        return 1
    # every alert of the rules has a row in docs/metrics.md, and every row an alert
    with open(os.path.join(DIR, "rdmaguard.rules.yml")) as f:
        alerts = set(re.findall(r"^\s*- alert: (\w+)", f.read(), re.M))
    with open(os.path.join(SRC, "docs", "metrics.md")) as f:
        rows = set(re.findall(r"^\| `(Rdmaguard\w+)` \|", f.read(), re.M))
    if alerts != rows:
        print("FAIL: alerts without a row in docs/metrics.md %s, rows without an alert %s"
              % (sorted(alerts - rows), sorted(rows - alerts)))
        return 1
    print("ok: %d metrics used by the rules, all documented; %d alerts, all documented"
          % (len(used), len(alerts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
