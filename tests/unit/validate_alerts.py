#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validates JSON-lines files of alerts against rules/schema/alert.schema.json.

usage: validate_alerts.py SCHEMA FILE...   exit 0 all valid (and at least one alert), 1 not.
"""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    total = bad = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                total += 1
                try:
                    alert = json.loads(line)
                except json.JSONDecodeError as e:
                    print(f"{path}:{lineno}: not JSON: {e}")
                    bad += 1
                    continue
                errors = sorted(validator.iter_errors(alert), key=lambda e: list(e.path))
                for e in errors:
                    where = ".".join(str(p) for p in e.path) or "(root)"
                    print(f"{path}:{lineno}: {where}: {e.message}")
                if errors:
                    bad += 1
    print(f"{total} alerts, {bad} invalid")
    return 1 if bad or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
