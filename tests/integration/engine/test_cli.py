#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The engine's commands through the real binary: `policy check`, `rules list|check`, `replay`.

Bad input must give exit 2 and the exact FILE:LINE:COLUMN message; replay's alerts must be valid
against the published schema.

usage: test_cli.py RDMAGUARD SOURCE_ROOT
"""
import glob
import json
import os
import re
import resource
import shlex
import signal
import stat
import subprocess
import sys
import tempfile

import jsonschema

RG = ROOT = None
# `meson test --setup valgrind` (tests/hardening/valgrind.sh) runs rdmaguard under memcheck.
WRAP = shlex.split(os.environ.get("RG_TEST_WRAPPER", ""))
FAILURES = []


def run(*args, stdin=None):
    return subprocess.run(WRAP + [RG] + list(args), capture_output=True, text=True, input=stdin,
                          check=False)


def check(cond, what, res=None):
    if cond:
        print(f"ok   {what}")
        return
    detail = ""
    if res is not None:
        detail = f"\n     exit {res.returncode}\n     stdout: {res.stdout!r}\n     stderr: {res.stderr!r}"
    print(f"FAIL {what}{detail}")
    FAILURES.append(what)


def write(directory, name, text, mode=0o644):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def validator():
    with open(os.path.join(ROOT, "rules", "schema", "alert.schema.json"), encoding="utf-8") as f:
        return jsonschema.Draft202012Validator(json.load(f))


def test_policy(tmp, rules):
    # The minimal policy, as an administrator writes it, owned by root when we are root.
    minimal = write(tmp, "minimal.json",
                    '{"role": "managed", "games": [{"name": "Arena", "exe": ["/opt/arena/*"]}], '
                    '"allow": [{"exe": "/usr/bin/ibv_devinfo"}]}\n')
    owner_args = [] if os.geteuid() == 0 else ["--no-owner-check"]
    res = run("policy", "check", "--rules", rules, *owner_args, minimal)
    check(res.returncode == 0 and res.stdout == f"{minimal}: ok (role managed, 1 game, 1 allow "
          "entry, 0 rule overrides, threshold medium)\n", "policy check: the minimal policy", res)

    examples = [os.path.join(ROOT, "rules", "policies", n) for n in ("lan-cafe.json", "tournament.json")]
    res = run("policy", "check", "--rules", rules, "--no-owner-check", *examples)
    check(res.returncode == 0 and res.stdout.count(": ok (") == 2, "policy check: the examples", res)

    cases = [
        ('{"role": "managed",\n  "gmaes": []}\n', '2:3: unknown key "gmaes" in the policy (did you mean "games"?)'),
        ('{"role": "managed" "games": []}', "1:20: expected ',' or '}', found '\"'"),
        ('{\n  "allow": [{"exe": "/x", "operations": ["device_open", "reg_mrr"]}]\n}',
         '2:57: unknown operation "reg_mrr" (an event action such as device_open, a verbs op such '
         'as reg_mr, or an rdma_cm op such as connect)'),
        ('{"rules": {"RDMA-004": {"exceptions": ["process.name == \\"x\\" and"]}}}',
         "1:66: unexpected end of condition"),
        ('{"rules": {\n "RDMA-004": {"severity": "low"},\n "RDMA-099": {}}}',
         '3:2: "rules" overrides unknown rule "RDMA-099"'),
        ('{"threshold": "hgh"}', '1:15: unknown severity "hgh" (info, low, medium, high, critical)'),
        ('/* policy */ {"role": "managed",}', "1:33: trailing comma before '}'"),
        ('{"games": [{"name": "A"}]}', '1:12: a game needs "exe" or "sha256"'),
        ('{"metrics": {"cert": "/a"}}', '1:13: "metrics" needs both "cert" and "key", or neither'),
        ('{"metrics": {"cert": "a", "key": "/b"}}', '1:22: "cert" must be an absolute path'),
        ('{"metrics": {"scrapers": ["10.0.0.1/8"]}}',
         '1:27: "10.0.0.1/8" has host bits set beyond its prefix'),
        ('{"metrics": {"tokenfile": "/x"}}',
         '1:14: unknown key "tokenfile" in "metrics" (did you mean "token_file"?)'),
        ('{"outputs": ["stdout",\n  "syslog+udp://x"]}',
         '2:3: output "syslog+udp://x": syslog needs a transport: syslog+tcp:// or syslog+tls:// '
         '(UDP would lose alerts)'),
    ]
    for i, (text, msg) in enumerate(cases):
        path = write(tmp, f"bad{i}.json", text)
        res = run("policy", "check", "--rules", rules, "--no-owner-check", path)
        check(res.returncode == 2 and res.stderr == f"{path}:{msg}\n" and res.stdout == "",
              f"policy check: bad policy {i} -> {msg[:40]}", res)

    # Good and bad together: both reported, exit 2.
    res = run("policy", "check", "--rules", rules, "--no-owner-check", minimal,
              os.path.join(tmp, "bad0.json"))
    check(res.returncode == 2 and "ok" in res.stdout and "gmaes" in res.stderr,
          "policy check: one good, one bad", res)

    # Ownership and mode, as the daemon checks them.
    loose = write(tmp, "loose.json", '{"role": "managed"}', 0o666)
    res = run("policy", "check", "--rules", rules, loose)
    check(res.returncode == 2 and
          res.stderr == f"{loose}: refused: writable by group or other (mode 0666)\n",
          "policy check: group/other-writable file refused", res)
    if os.geteuid() == 0:
        theirs = write(tmp, "theirs.json", '{"role": "managed"}')
        os.chown(theirs, 65534, 65534)
        res = run("policy", "check", "--rules", rules, theirs)
        check(res.returncode == 2 and
              res.stderr == f"{theirs}: refused: owned by uid 65534, not root\n",
              "policy check: file not owned by root refused", res)
    res = run("policy", "check", "--rules", rules, os.path.join(tmp, "none.json"))
    check(res.returncode == 2 and "none.json: cannot open: No such file or directory" in res.stderr,
          "policy check: missing file", res)
    res = run("policy", "check")
    check(res.returncode == 2, "policy check: no file is a usage error", res)
    res = run("policy", "frobnicate", minimal)
    check(res.returncode == 2, "policy: unknown subcommand", res)
    res = run("policy", "--help")
    check(res.returncode == 0 and "policy check" in res.stdout, "policy --help", res)


def test_rules(tmp, rules):
    res = run("rules", "check", rules)
    check(res.returncode == 0 and res.stdout == f"{rules}: ok (30 rules)\n", "rules check: defaults", res)
    res = run("rules", "list", "--rules", rules)
    lines = res.stdout.splitlines()
    check(res.returncode == 0 and lines[0].split() == ["ID", "SEVERITY", "ACTION", "NAME"] and
          len(lines) == 31 and lines[19].startswith("RDMA-001   medium   alert  RDMA device present"),
          "rules list: text", res)
    res = run("rules", "list", "--rules", rules, "--format", "json")
    try:
        listed = json.loads(res.stdout)
    except json.JSONDecodeError:
        listed = []
    ids = [r["id"] for r in listed]
    want = (["AGENT-001", "AGENT-002", "AGENT-003", "AGENT-004"] + [f"DMA-{i:03d}" for i in range(1, 15)] +
            [f"RDMA-{i:03d}" for i in range(1, 13)])
    check(res.returncode == 0 and ids == want and
          listed[18]["condition"] == "event.action in (device_present, device_add) and policy.role == managed"
          " and not event.flags contains denied"
          and listed[18]["threat"]["technique"]["id"] == "T1200",
          "rules list: json", res)
    res = run("rules", "list", "--rules", rules, "--format", "yaml")
    check(res.returncode == 2, "rules list: unknown format", res)

    bad = os.path.join(tmp, "badrules")
    os.mkdir(bad)
    write(bad, "a.json", '{"id": "A", "name": "a", "severity": "low", "condition": "true"}')
    path = write(bad, "b.json", '// b\n{"id": "B", "name": "b", "severity": "low",\n'
                 ' "condition": ["event.action == verbs",\n   "and rdma.mr.lenght > 0"]}\n')
    res = run("rules", "check", bad)
    check(res.returncode == 2 and res.stderr == f"{path}:4:9: unknown field 'rdma.mr.lenght'\n",
          "rules check: bad condition with its position", res)
    write(bad, "b.json", '{"id": "A", "name": "b", "severity": "low", "condition": "true"}')
    res = run("rules", "check", bad)
    check(res.returncode == 2 and res.stderr ==
          f'{bad}/b.json:1:8: duplicate rule id "A" (first defined at {bad}/a.json:1:1)\n',
          "rules check: duplicate id across files", res)
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    res = run("rules", "check", empty)
    check(res.returncode == 2 and res.stderr == f"{empty}: no rules found (*.json files)\n",
          "rules check: empty directory", res)
    res = run("rules", "list", "--rules", bad)
    check(res.returncode == 2 and "duplicate rule id" in res.stderr, "rules list: bad directory", res)


def test_replay(tmp, rules):
    v = validator()
    fixtures = os.path.join(ROOT, "tests", "fixtures", "events")
    events = os.path.join(fixtures, "RDMA-008.jsonl")
    policy = os.path.join(fixtures, "policy.json")
    res = run("replay", events, "--policy", policy, "--rules", rules)
    alerts = [json.loads(l) for l in res.stdout.splitlines()]
    errors = [e.message for a in alerts for e in v.iter_errors(a)]
    check(res.returncode == 1 and len(alerts) == 3 and not errors and
          [a["rule"]["id"] for a in alerts] == ["RDMA-004", "RDMA-008", "RDMA-008"],
          "replay: fixture -> schema-valid alerts, exit 1", res)

    # Outputs: file:PATH (0600, appended) and stdout together.
    out = os.path.join(tmp, "alerts.jsonl")
    res = run("replay", events, "--policy", policy, "--rules", rules, "--output", f"file:{out}")
    with open(out, encoding="utf-8") as f:
        filed = [json.loads(l) for l in f]
    mode = stat.S_IMODE(os.stat(out).st_mode)
    check(res.returncode == 1 and res.stdout == "" and len(filed) == 3 and mode == 0o600 and
          all(not list(v.iter_errors(a)) for a in filed), "replay: --output file:PATH", res)
    res = run("replay", events, "--policy", policy, "--rules", rules, "--output", "stdout",
              "--output", f"file:{out}")
    with open(out, encoding="utf-8") as f:
        filed = [json.loads(l) for l in f]
    check(res.returncode == 1 and len(res.stdout.splitlines()) == 3 and len(filed) == 6,
          "replay: two outputs", res)

    # A file output that cannot grow (RLIMIT_FSIZE past 16 KiB; a full disk is the same): the
    # file keeps whole lines only, and every alert is either in it or counted in the loss
    # reports, the last of which come at the end.
    seed = os.path.join(ROOT, "bench", "data", "seed-events.jsonl")
    bench_policy = os.path.join(ROOT, "bench", "data", "policy.json")
    res = run("replay", seed, "--policy", bench_policy, "--rules", rules)
    total = len(res.stdout.splitlines())
    small = os.path.join(tmp, "small.jsonl")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    res = subprocess.run(WRAP + [RG, "replay", seed, "--policy", bench_policy, "--rules", rules,
                                 "--output", f"file:{small}"],
                         capture_output=True, text=True, check=False, preexec_fn=limit)
    with open(small, encoding="utf-8") as f:
        lines = f.read().split("\n")
    whole = [json.loads(l) for l in lines[:-1]]
    dropped = sum(int(m.group(1)) for m in re.finditer(r"(\d+) alert\(s\) dropped", res.stderr))
    check(res.returncode == 1 and total > 20 and lines[-1] == "" and 0 < len(whole) < total and
          len(whole) + dropped == total and "write_error" in res.stderr,
          f"replay: a file that cannot grow has whole lines ({len(whole)}) and the rest counted "
          f"lost ({dropped} of {total})", res)
    res = run("replay", events, "--rules", rules, "--output", "syslog+udp://127.0.0.1:1")
    check(res.returncode == 2 and 'output "syslog+udp://127.0.0.1:1"' in res.stderr,
          "replay: an invalid output spec exits 2 and names it", res)

    # stdin, and nothing at or above the threshold -> 0
    quiet = '{"event":{"action":"agent_policy"},"agent":{"ok":1,"what":"p","text":"loaded"}}\n'
    res = run("replay", "-", "--rules", rules, stdin=" \t\r\n\n" + quiet + "  \n")
    alerts = [json.loads(l) for l in res.stdout.splitlines()]
    check(res.returncode == 0 and len(alerts) == 1 and alerts[0]["rdmaguard"]["severity"] == "info",
          "replay: stdin, blank lines skipped, info alert only -> exit 0", res)

    # Bad event files: exit 2, the line (and column for JSON syntax).
    bad = write(tmp, "bad.jsonl", quiet + '{"event": {"action": "exec"}, "process": {"pid": 1,}}\n')
    res = run("replay", bad, "--rules", rules)
    check(res.returncode == 2 and res.stderr.endswith(f"{bad}:2:52: invalid JSON: unexpected character\n"),
          "replay: JSON syntax error with line and column", res)
    # A NUL byte anywhere in a line: its own message, with its column.
    for text in ('{"event":{"action":"exec"},"x":"a\0b"}', '{"event":{"action":"exec"}\0,"x":1}',
                 '{"event":{"action":"exec"}}\0', '{"process":{"\0":1},"event":{"action":"exec"}}',
                 '{"event":{"action":"exec"},"process":{"pid":1\0}}'):
        at = text.index("\0") + 1
        bad = write(tmp, "nul.jsonl", quiet + text + "\n")
        res = run("replay", bad, "--rules", rules)
        check(res.returncode == 2 and res.stderr.endswith(f"{bad}:2:{at}: NUL byte in line\n"),
              f"replay: a NUL byte at column {at} named", res)
    bad = write(tmp, "bad2.jsonl", "\n" + quiet + '{"event": {"action": "nope"}}\n')
    res = run("replay", bad, "--rules", rules)
    check(res.returncode == 2 and res.stderr == f'{bad}:3: event.action: unknown event type "nope"\n',
          "replay: unknown event type with its line", res)
    bad = write(tmp, "bad3.jsonl", '{"event": {"action": "verbs"}, "rdma": {"mr": {"length": -1}}}\n')
    res = run("replay", bad, "--rules", rules)
    check(res.returncode == 2 and
          res.stderr == f"{bad}:1: rdma.mr.length: expected an unsigned 64-bit integer\n",
          "replay: field of the wrong type", res)
    res = run("replay", os.path.join(tmp, "none.jsonl"), "--rules", rules)
    check(res.returncode == 2, "replay: missing file", res)
    badpol = write(tmp, "badpol.json", '{"role": "desk"}')
    res = run("replay", events, "--policy", badpol, "--rules", rules)
    check(res.returncode == 2 and res.stderr == f'{badpol}:1:10: unknown role "desk" (managed or server)\n',
          "replay: bad policy with its position", res)
    res = run("replay", "--rules", rules)
    check(res.returncode == 2, "replay: no file is a usage error", res)
    res = run("replay", events, "--boot-time", "yesterday")
    check(res.returncode == 2, "replay: bad --boot-time", res)


def test_replay_alert_files(rules):
    """replay reads alert files of both layouts (docs/operations.md): the alerts of a fixture
    kept in the first layout (tests/fixtures/alerts/NAME.v1.jsonl) and the same alerts in the
    current one (NAME.expected.jsonl) raise the same alerts again."""
    fixtures = os.path.join(ROOT, "tests", "fixtures")
    for v1 in sorted(glob.glob(os.path.join(fixtures, "alerts", "*.v1.jsonl"))):
        name = os.path.basename(v1)[:-len(".v1.jsonl")]
        policy = os.path.join(fixtures, "events", name + ".policy.json")
        if not os.path.exists(policy):
            policy = os.path.join(fixtures, "events", "policy.json")
        got = []
        for path in (v1, os.path.join(fixtures, "events", name + ".expected.jsonl")):
            res = run("replay", path, "--rules", rules, "--policy", policy,
                      "--boot-time", "2026-01-10T00:00:00Z")
            got.append(sorted((a["rule"]["id"], a["rdmaguard"]["severity"], a["message"])
                              for a in map(json.loads, res.stdout.splitlines()))
                       if res.returncode in (0, 1) else res.stderr)
        check(got[0] == got[1] and len(got[0]) > 0,
              f"replay of {name}'s alerts: layout 1 and 2 raise the same {len(got[0])} alerts")


def main():
    global RG, ROOT
    RG, ROOT = sys.argv[1], sys.argv[2]
    rules = os.path.join(ROOT, "rules")
    with tempfile.TemporaryDirectory(prefix="rg-cli-") as tmp:
        test_policy(tmp, rules)
        test_rules(tmp, rules)
        test_replay(tmp, rules)
        test_replay_alert_files(rules)
    print(f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
