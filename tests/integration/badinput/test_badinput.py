#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Bad input through every command that reads it: exit code 2 and the place of the problem.

Each malformed policy (syntax, unknown keys, wrong types, bad values, broken globs, a huge file,
binary garbage, deep nesting, a wrong owner or mode, a FIFO, a directory, symbolic links to the
wrong things) and each malformed rules directory goes through every command that takes it:
    rdmaguard policy check [--no-owner-check] FILE      rdmaguard rules check DIR
    rdmaguard replay EVENTS --policy FILE --rules DIR    rdmaguard rules list --rules DIR
    rdmaguard audit --policy FILE --rules DIR            rdmaguard daemon --policy FILE --rules DIR
and must exit 2 within the time limit, print nothing on stdout, and say on stderr where the
problem is: FILE:LINE:COLUMN: what, or FILE: what for a problem with the file itself. Every case
runs whatever `--help` says: a command that stops taking --policy, or crashes in --help, fails
here (and its `--help` fails as a case of its own). tests/integration/engine/test_cli.py has the
exact messages of the engine's own cases; this suite is about breadth and every command.

usage: test_badinput.py RDMAGUARD SOURCE_ROOT [--shard K/N]

--shard K/N runs the K-th of N equal parts of the checks (every N-th check, from the K-th): meson
runs the N parts as tests of their own (bad-input-K-of-N), so that under valgrind, where each
rdmaguard run takes seconds, they share the CPUs instead of one test running alone at the end.
The N parts together run every check once; each part prints how many checks there are in all.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

RG = ROOT = None
# `meson test --setup valgrind` (tests/hardening/valgrind.sh) runs rdmaguard under memcheck.
WRAP = shlex.split(os.environ.get("RG_TEST_WRAPPER", ""))
TIMEOUT = 20 * int(os.environ.get("RG_TIMEOUT_MULTIPLIER", "1"))
FAILURES = []
CHECKED = 0
SEEN = 0  # every check met, run here or in another shard
SHARD, SHARDS = 0, 1
DAEMON = []


def run(*args):
    try:
        return subprocess.run(WRAP + [RG] + list(args), capture_output=True, text=True,
                              errors="replace", timeout=TIMEOUT, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None


def mine():
    """Whether the next check is this shard's (counts it either way)."""
    global SEEN, CHECKED
    SEEN += 1
    if (SEEN - 1) % SHARDS != SHARD:
        return False
    CHECKED += 1
    return True


def expect_error(label, args, where, what, exact=True):
    """Exit 2, empty stdout, and stderr naming `where` (path, or path:line:col) and `what`."""
    if not mine():
        return
    res = run(*args)
    if res is None:
        FAILURES.append(label)
        print(f"FAIL {label}: no exit within {TIMEOUT} s (hangs on bad input)")
        return
    if exact:
        ok = res.stderr == f"{where}: {what}\n" if what else res.stderr == f"{where}\n"
    else:
        ok = where in res.stderr and what in res.stderr
    ok = ok and res.returncode == 2 and res.stdout == ""
    if ok:
        print(f"ok   {label}")
        return
    FAILURES.append(label)
    print(f"FAIL {label}\n     {' '.join(args)}\n     exit {res.returncode}, want 2"
          f"\n     stdout: {res.stdout[:300]!r}\n     stderr: {res.stderr[:600]!r}"
          f"\n     want:   {where}: {what}")


def expect_ok(label, args, stdout_start=""):
    """Exit 0 and stdout beginning with stdout_start: a good input is accepted."""
    if not mine():
        return
    res = run(*args)
    if res is not None and res.returncode == 0 and res.stdout.startswith(stdout_start):
        print(f"ok   {label}")
        return
    FAILURES.append(label)
    print(f"FAIL {label}: " + ("no exit" if res is None else
                               f"exit {res.returncode}, stderr {res.stderr[:300]!r}"))


def expect_help(command, options):
    """`rdmaguard COMMAND --help` exits 0 and lists OPTIONS: the usage still documents them."""
    if not mine():
        return
    label = f"{command} --help lists {', '.join(options)}"
    res = run(command, "--help")
    if res is not None and res.returncode == 0 and all(o in res.stdout for o in options):
        print(f"ok   {label}")
        return
    FAILURES.append(label)
    print(f"FAIL {label}: " + ("no exit" if res is None else
                               f"exit {res.returncode}, stderr {res.stderr[:300]!r}"))


def write(directory, name, data, mode=0o644):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    os.chmod(path, mode)
    return path


# Policy cases: (name, content, position or None, message). Positions are LINE:COLUMN.
POLICY_CASES = [
    # syntax
    ("missing comma", '{"role": "managed" "games": []}', "1:20", "expected ',' or '}', found '\"'"),
    ("unterminated object", '{"role": "managed"', "1:19", "expected ',' or '}', found end of file"),
    ("unterminated string", '{\n  "description": "abc', "2:18", "unterminated string"),
    ("unterminated comment", '{"role": "managed"} /* note', "1:21", "unterminated comment"),
    ("trailing comma", '{"role": "managed",}', "1:20", "trailing comma before '}'"),
    ("single quotes", "{'role': 'managed'}", "1:2", "expected a string key, found '''"),
    ("two documents", '{"role": "managed"}\n{"role": "server"}', "2:1",
     "unexpected '{' after the end of the document"),
    ("duplicate key", '{"role": "managed",\n "role": "server"}', "2:2", 'duplicate key "role"'),
    ("empty file", "", "1:1", "empty document"),
    ("only comments", "// nothing here\n/* at all */\n", "3:1", "empty document"),
    # unknown keys
    ("unknown key", '{"role": "managed",\n  "gmaes": []}', "2:3",
     'unknown key "gmaes" in the policy (did you mean "games"?)'),
    ("unknown key in a game", '{"games": [{"name": "A", "exe": "/a", "path": "/b"}]}', "1:39",
     'unknown key "path" in a game'),
    ("unknown key in an allow entry", '{"allow": [{"exe": "/a", "device": "mlx5_0"}]}', "1:26",
     'unknown key "device" in an allow entry (did you mean "devices"?)'),
    ("unknown key in an override", '{"rules": {"RDMA-004": {"enable": false}}}', "1:25",
     'unknown key "enable" in the override of rule RDMA-004 (did you mean "enabled"?)'),
    # wrong types
    ("role is a number", '{"role": 1}', "1:10", '"role" must be a string, not a number'),
    ("games is an object", '{"games": {"name": "A"}}', "1:11",
     '"games" must be an array of games, not an object'),
    ("mr_max_bytes is a string", '{"mr_max_bytes": "1GiB"}', "1:18",
     '"mr_max_bytes" must be an integer, not a string'),
    ("enforce is a string", '{"enforce": "yes"}', "1:13", '"enforce" must be true or false, not a string'),
    ("uid is a string", '{"allow": [{"exe": "/a", "uid": "root"}]}', "1:33",
     '"uid" must be a number or an array of numbers, not a string'),
    ("exe element is a number", '{"games": [{"name": "A", "exe": ["/a", 5]}]}', "1:40",
     '"exe"[1] must be a string, not a number'),
    # bad values
    ("unknown role", '{"role": "desk"}', "1:10", 'unknown role "desk" (managed or server)'),
    ("unknown severity", '{"threshold": "hgh"}', "1:15",
     'unknown severity "hgh" (info, low, medium, high, critical)'),
    ("number out of range", '{"mr_max_bytes": 99999999999999999999999}', "1:18", "number out of range"),
    ("NaN", '{"mr_max_bytes": NaN}', "1:18", "expected a value, found 'N'"),
    ("control character", '{"description": "a\tb"}', "1:19",
     "control character in string (use an escape such as \\n)"),
    ("bad duration", '{"aggregate_window": "1 minute"}', "1:22",
     '"aggregate_window": invalid duration "1 minute" (a number with ms, s, m, h or d)'),
    ("relative exe", '{"games": [{"name": "A", "exe": "opt/a"}]}', "1:33",
     '"exe" "opt/a" must be an absolute path pattern'),
    ("override of an unknown rule", '{"rules": {\n "RDMA-099": {}}}', "2:2",
     '"rules" overrides unknown rule "RDMA-099"'),
    ("bad exception condition", '{"rules": {"RDMA-004": {"exceptions": ["process.nme == x"]}}}',
     "1:41", "unknown field 'process.nme'"),
    ("too many games", json.dumps({"games": [{"name": f"g{i}", "exe": "/a"} for i in range(65)]}),
     "1:11", '"games" has more than 64 entries'),
    # broken globs: the byte that breaks them
    ("glob: unterminated [", '{"games": [{"name": "A", "exe": ["/opt/[arena"]}]}', "1:40",
     "\"exe\" \"/opt/[arena\": unterminated '[' (write [[] for a literal '[')"),
    ("glob: trailing backslash", '{"allow": [{"exe": "/usr/bin/x\\\\"}]}', "1:31",
     '"exe" "/usr/bin/x\\": a pattern cannot end in a backslash'),
    ("glob: empty range", '{"allow": [{"exe": "/a", "parent": "/bin/[z-a]sh"}]}', "1:42",
     '"parent" "/bin/[z-a]sh": empty range in [...] (the first character is above the last)'),
    ("glob: unknown class", '{"games": [{"name": "A", "exe": "/a/[[:alpah:]]"}]}', "1:38",
     '"exe" "/a/[[:alpah:]]": unknown character class (alnum, alpha, blank, cntrl, digit, '
     'graph, lower, print, punct, space, upper, xdigit)'),
    ("glob in an exception", '{"rules": {"RDMA-004": {"exceptions": '
     '["process.executable glob \'/opt/[x\'"]}}}', "1:65",
     "bad glob '/opt/[x': unterminated '[' (write [[] for a literal '[')"),
    # binary garbage, encodings, nesting
    ("binary garbage", b"\x00\x01\x02\xff\xfe\x80garbage", "1:1", "expected a value, found byte 0x00"),
    ("random bytes", bytes((i * 151 + 7) % 256 for i in range(4096)), "1:1",
     "expected a value, found byte 0x07"),
    ("UTF-16", "\ufeff{\"role\": \"managed\"}".encode("utf-16-le"), "1:1",
     "expected a value, found byte 0xff"),
    ("invalid UTF-8 in a string", b'{"description": "\xc3\x28"}', "1:18", "invalid UTF-8 in string"),
    ("NUL byte", b'{"role": "a"\x00}', "1:13", "expected ',' or '}', found byte 0x00"),
    ("deep nesting", "[" * 100 + "]" * 100, "1:65", "nesting deeper than 64 levels"),
    ("deep objects", '{"a":' * 70 + "1" + "}" * 70, "1:321", "nesting deeper than 64 levels"),
    # size
    ("huge file", '{"description": "' + "x" * (1 << 20) + '"}', None, "larger than 1048576 bytes"),
]


# Seat baselines (`baseline save`), validated like a policy: (name, text, "line:col", message).
BL = '{"version": 1, "kind": "rdmaguard-seat-baseline", "functions": '
BL_FN = ('{"address": "0000:00:00.0", "vendor_id": "0x8086", "device_id": "0x1237", '
         '"subsystem_vendor_id": "0x0000", "subsystem_device_id": "0x0000", "class": "0x060000", '
         '"revision": "0x02", "header_type": "0x00", "capabilities": "0x10@0x40 0x05", '
         '"extended_capabilities": "none", "dsn": "none", "bar_sizes": "0 0 0 0 0 0", '
         '"rom_size": "0", "link": "none", "driver": "none"}')
BASELINE_CASES = [
    ("baseline: truncated", "{", "1:2", "expected a string key, found end of file"),
    ("baseline: functions not an array", BL + "{}}", "1:64",
     'a baseline needs "functions": an array'),
    ("baseline: unknown key", BL + '[], "extra": 1}', "1:68", 'unknown key "extra" in the baseline'),
    ("baseline: a number for an ID", BL + '[{"address": "0000:00:00.0", "vendor_id": 32902}]}',
     "1:106", '"vendor_id" must be a string, not a number'),
    ("baseline: UTF-16", b"\xff\xfe{}", "1:1", "expected a value, found byte 0xff"),
    ("baseline: a capability without its offset", BL + "[" + BL_FN + "]}", "1:285",
     '"capabilities": "0x10@0x40 0x05" is not a value `baseline save` writes'),
]


def file_cases(tmp, good):
    """Problems with the file itself: (name, path, message, owner_check_only)."""
    cases = []
    fifo = os.path.join(tmp, "fifo.json")
    os.mkfifo(fifo)
    cases.append(("FIFO", fifo, "not a regular file", False))
    d = os.path.join(tmp, "dir.json")
    os.mkdir(d)
    cases.append(("directory", d, "not a regular file", False))
    for name, target, msg in [("symlink to a FIFO", fifo, "not a regular file"),
                              ("symlink to a device", "/dev/zero", "not a regular file"),
                              ("dangling symlink", os.path.join(tmp, "none"),
                               "cannot open: No such file or directory")]:
        link = os.path.join(tmp, name.replace(" ", "-") + ".json")
        os.symlink(target, link)
        cases.append((name, link, msg, False))
    cases.append(("missing file", os.path.join(tmp, "missing.json"),
                  "cannot open: No such file or directory", False))
    loose = write(tmp, "loose.json", '{"role": "managed"}', 0o666)
    cases.append(("world-writable", loose, "refused: writable by group or other (mode 0666)", True))
    group = write(tmp, "group.json", '{"role": "managed"}', 0o620)
    cases.append(("group-writable", group, "refused: writable by group or other (mode 0620)", True))
    if os.geteuid() == 0:
        theirs = write(tmp, "theirs.json", '{"role": "managed"}')
        os.chown(theirs, 65534, 65534)
        cases.append(("owned by another user", theirs, "refused: owned by uid 65534, not root", True))
        link = os.path.join(tmp, "link-to-theirs.json")
        os.symlink(theirs, link)
        cases.append(("symlink to a file of another user", link,
                      "refused: owned by uid 65534, not root", True))
    else:
        print("note: not root: the owner cases need chown (the mode cases still run)")
    return cases


# Rules directory cases: (name, {file: content}, file with the error, position, message).
RULE = '{"id": "%s", "name": "x", "severity": "low", "condition": "true"%s}'
RULES_CASES = [
    ("syntax error", {"a.json": RULE % ("A", ""), "b.json": '{"id": "B",\n "name" "x"}'},
     "b.json", "2:9", "expected ':' after the key, found '\"'"),
    ("unknown key", {"a.json": RULE % ("A", ', "colour": 1')}, "a.json", "1:66",
     'unknown key "colour" in a rule'),
    ("wrong type", {"a.json": '{"id": "A", "name": "x", "severity": 3, "condition": "true"}'},
     "a.json", "1:38", '"severity" must be a string, not a number'),
    ("missing id", {"a.json": '{"name": "x", "severity": "low", "condition": "true"}'},
     "a.json", "1:1", 'missing required key "id"'),
    ("bad id", {"a.json": RULE % ("A B", "")}, "a.json", "1:8",
     "rule id \"A B\" must be 1 to 32 letters, digits, '-', '_' or '.'"),
    ("unknown field in a condition",
     {"a.json": '{"id": "A", "name": "x", "severity": "low",\n "condition": ["event.action == verbs",\n   "and rdma.mr.lenght > 0"]}'},
     "a.json", "3:9", "unknown field 'rdma.mr.lenght'"),
    ("bad glob in a condition",
     {"a.json": '{"id": "A", "name": "x", "severity": "low", "condition": "process.executable glob \'/opt/[x\'"}'},
     "a.json", "1:83", "bad glob '/opt/[x': unterminated '[' (write [[] for a literal '[')"),
    ("unknown field in a message", {"a.json": RULE % ("A", ', "message": "{proces.name}"')},
     "a.json", "1:79", "unknown field 'proces.name' in message"),
    ("bad window", {"a.json": RULE % ("A", ', "aggregate": {"window": "5x"}')}, "a.json", "1:90",
     '"window": invalid duration "5x" (a number with ms, s, m, h or d)'),
    ("not a rule in the array", {"a.json": "[" + RULE % ("A", "") + ", 5]"}, "a.json", "1:68",
     "a rule must be an object, not a number"),
    ("duplicate id", {"a.json": RULE % ("A", ""), "b.json": RULE % ("A", "")}, "b.json", "1:8",
     'duplicate rule id "A" (first defined at DIR/a.json:1:1)'),
    ("too many rules", {"a.json": json.dumps([{"id": f"R{i}", "name": "x", "severity": "low",
                                              "condition": "true"} for i in range(513)])},
     "a.json", "1:35220", "more than 512 rules"),
    ("binary garbage", {"a.json": b"\x7fELF\x02\x01\x01\x00"}, "a.json", "1:1",
     "expected a value, found byte 0x7f"),
    ("deep nesting", {"a.json": "[" * 80 + "]" * 80}, "a.json", "1:65", "nesting deeper than 64 levels"),
    ("huge file", {"a.json": "[" + RULE % ("A", "") + "]" + " " * (1 << 20)}, "a.json", None,
     "larger than 1048576 bytes"),
]


def rules_dirs(tmp):
    """(name, dir, where, what) for every rules case, plus special files in the directory."""
    out = []
    for i, (name, files, bad, pos, msg) in enumerate(RULES_CASES):
        d = os.path.join(tmp, f"rules{i}")
        os.mkdir(d)
        for f, text in files.items():
            write(d, f, text)
        where = os.path.join(d, bad) + (f":{pos}" if pos else "")
        out.append((name, d, where, msg.replace("DIR", d)))
    specials = [("FIFO in the directory", "fifo", "not a regular file"),
                ("symlink to a device", "/dev/zero", "not a regular file"),
                ("dangling symlink", "/nonexistent-rg", "cannot open: No such file or directory"),
                ("directory named .json", "dir", "not a regular file")]
    for i, (name, what, msg) in enumerate(specials):
        d = os.path.join(tmp, f"special{i}")
        os.mkdir(d)
        write(d, "a.json", RULE % ("A", ""))
        p = os.path.join(d, "b.json")
        if what == "fifo":
            os.mkfifo(p)
        elif what == "dir":
            os.mkdir(p)
        else:
            os.symlink(what, p)
        out.append((name, d, p, msg))
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    out.append(("empty directory", empty, empty, "no rules found (*.json files)"))
    out.append(("missing directory", os.path.join(tmp, "nodir"), os.path.join(tmp, "nodir"),
                "cannot open rules directory: No such file or directory"))
    return out


def trust_cases(tmp, good):
    """Files and directories the root daemon must not trust, as the policy's own checks see them:
    (name, kind, path, where, what); kind "rules" (a rules directory) or "policy" (a file)."""
    out = []

    def rules_dir(name, mode=0o755, parent=None):
        d = os.path.join(parent or tmp, name)
        os.mkdir(d)
        os.chmod(d, mode)
        write(d, "a.json", RULE % ("A", ""))
        return d

    d = rules_dir("trust-gw", 0o775)
    out.append(("group-writable rules directory", "rules", d, d,
                "refused: writable by group or other (mode 0775)"))
    d = rules_dir("trust-ww", 0o1777)
    out.append(("world-writable sticky rules directory", "rules", d, d,
                "refused: writable by group or other (mode 1777)"))
    d = rules_dir("trust-file")
    bad = write(d, "b.json", RULE % ("B", ""), 0o666)
    out.append(("world-writable rule file", "rules", d, bad,
                "refused: writable by group or other (mode 0666)"))
    loose = os.path.join(tmp, "trust-loose")
    os.mkdir(loose)
    os.chmod(loose, 0o777)
    d = rules_dir("rules", parent=loose)
    out.append(("rules directory in a world-writable directory", "rules", d, d,
                f"refused: directory {loose} writable by group or other (mode 0777)"))
    d = rules_dir("trust-link")
    os.symlink(write(loose, "c.json", RULE % ("C", "")), os.path.join(d, "c.json"))
    out.append(("symlink to a rule file in a world-writable directory", "rules", d,
                os.path.join(d, "c.json"),
                f"refused: directory {loose} writable by group or other (mode 0777)"))
    d = rules_dir("trust-fifo")
    os.mkfifo(os.path.join(d, "f.json"))
    out.append(("FIFO rule file", "rules", d, os.path.join(d, "f.json"), "not a regular file"))
    policy = write(loose, "policy.json", '{"role": "managed"}')
    out.append(("policy in a world-writable directory", "policy", policy, policy,
                f"refused: directory {loose} writable by group or other (mode 0777)"))
    if os.geteuid() == 0:
        d = rules_dir("trust-theirs")
        os.chown(d, 65534, 65534)
        out.append(("rules directory of another user", "rules", d, d,
                    "refused: owned by uid 65534, not root"))
        d = rules_dir("trust-theirfile")
        bad = write(d, "b.json", RULE % ("B", ""))
        os.chown(bad, 65534, 65534)
        out.append(("rule file of another user", "rules", d, bad,
                    "refused: owned by uid 65534, not root"))
        theirs = os.path.join(tmp, "trust-theirdir")
        os.mkdir(theirs)
        os.chown(theirs, 65534, 65534)
        policy = write(theirs, "policy.json", '{"role": "managed"}')
        out.append(("policy in a directory of another user", "policy", policy, policy,
                    f"refused: directory {theirs} owned by uid 65534, not root"))
    return out


def main():
    global RG, ROOT, SHARD, SHARDS
    RG, ROOT = sys.argv[1], sys.argv[2]
    if len(sys.argv) == 5 and sys.argv[3] == "--shard":
        k, n = (int(x) for x in sys.argv[4].split("/"))
        if not 1 <= k <= n:
            print(f"test_badinput.py: --shard {sys.argv[4]}: not K/N with 1 <= K <= N")
            return 2
        SHARD, SHARDS = k - 1, n
    elif len(sys.argv) != 3:
        print("usage: test_badinput.py RDMAGUARD SOURCE_ROOT [--shard K/N]")
        return 2
    rules = os.path.join(ROOT, "rules")
    events = os.path.join(ROOT, "tests", "fixtures", "events", "RDMA-008.jsonl")
    # Every command's cases run whatever its --help says: they were once run only when --help
    # listed --policy, so a command that dropped the option, or crashed in --help, passed.
    for cmd in ("audit", "daemon"):
        expect_help(cmd, ["--policy", "--rules"])

    global DAEMON
    with tempfile.TemporaryDirectory(prefix="rg-badinput-") as tmp:
        # Should a bad case start the daemon after all, it touches nothing outside tmp.
        DAEMON = ["daemon", "--status-socket", "", "--state-dir", os.path.join(tmp, "state"),
                  "--output", "file:" + os.path.join(tmp, "alerts.jsonl")]
        good = write(tmp, "good.json", '{"role": "managed"}')
        # The good policy passes everywhere, so that a failure below is about the bad input.
        expect_ok("policy check: the good policy is accepted", ["policy", "check", "--rules", rules, good])

        for i, (name, text, pos, msg) in enumerate(POLICY_CASES):
            path = write(tmp, f"p{i}.json", text)
            where = f"{path}:{pos}" if pos else path
            expect_error(f"policy check: {name}",
                         ["policy", "check", "--rules", rules, "--no-owner-check", path], where, msg)
            expect_error(f"replay --policy: {name}",
                         ["replay", events, "--policy", path, "--rules", rules], where, msg)
            expect_error(f"audit --policy: {name}",
                         ["audit", "--policy", path, "--rules", rules], where, msg, exact=False)
            expect_error(f"daemon --policy: {name}",
                         DAEMON + ["--policy", path, "--rules", rules], where, msg, exact=False)

        # A bad seat baseline: an error wherever the policy naming it is loaded.
        for i, (name, text, pos, msg) in enumerate(BASELINE_CASES):
            path = write(tmp, f"b{i}.json", text)
            pol = write(tmp, f"pb{i}.json", json.dumps({"baseline": path}))
            where = f"{path}:{pos}"
            expect_error(f"baseline check: {name}", ["baseline", "check", "--no-owner-check", path],
                         where, msg)
            expect_error(f"policy check: {name}",
                         ["policy", "check", "--rules", rules, "--no-owner-check", pol], where, msg)
            expect_error(f"audit --policy: {name}", ["audit", "--policy", pol, "--rules", rules],
                         where, msg)
            expect_error(f"daemon --policy: {name}", DAEMON + ["--policy", pol, "--rules", rules],
                         where, msg, exact=False)
        missing = os.path.join(tmp, "no-such-baseline.json")
        expect_error("baseline check: missing file", ["baseline", "check", missing], missing,
                     "No such file or directory", exact=False)

        for name, path, msg, owner_only in file_cases(tmp, good):
            expect_error(f"policy check: {name}", ["policy", "check", "--rules", rules, path],
                         path, msg)
            if not owner_only:
                expect_error(f"replay --policy: {name}",
                             ["replay", events, "--policy", path, "--rules", rules], path, msg)
            # audit and the daemon check the file before loading it, in their own words:
            # the path and the reason, "No such file or directory" rather than "cannot open: ...".
            key = msg.split(": ")[-1]
            expect_error(f"audit --policy: {name}", ["audit", "--policy", path, "--rules", rules],
                         path, key, exact=False)
            expect_error(f"daemon --policy: {name}", DAEMON + ["--policy", path, "--rules", rules],
                         path, key, exact=False)
        # A symbolic link to a good, root-owned file is followed (configuration management).
        link = os.path.join(tmp, "link-to-good.json")
        os.symlink(good, link)
        expect_ok("policy check: a symlink to a good policy is followed",
                  ["policy", "check", "--rules", rules, link], f"{link}: ok")

        for name, d, where, msg in rules_dirs(tmp):
            expect_error(f"rules check: {name}", ["rules", "check", d], where, msg)
            expect_error(f"rules list: {name}", ["rules", "list", "--rules", d], where, msg)
            expect_error(f"policy check --rules: {name}",
                         ["policy", "check", "--rules", d, "--no-owner-check", good], where, msg)
            expect_error(f"replay --rules: {name}", ["replay", events, "--rules", d], where, msg)
            expect_error(f"audit --rules: {name}", ["audit", "--rules", d], where,
                         msg.split(": ")[-1], exact=False)
            expect_error(f"daemon --rules: {name}", DAEMON + ["--rules", d], where,
                         msg.split(": ")[-1], exact=False)

        # What the root daemon reads is checked as the policy is: the rules directory, each rule
        # file, the directories above them. The linters (rules check, replay) read anything.
        for name, kind, path, where, what in trust_cases(tmp, good):
            if kind == "rules":
                expect_error(f"policy check --rules: {name}",
                             ["policy", "check", "--rules", path, good], where, what)
                expect_error(f"audit --rules: {name}", ["audit", "--rules", path], where, what,
                             exact=False)
                expect_error(f"daemon --rules: {name}", DAEMON + ["--rules", path], where, what,
                             exact=False)
            else:
                expect_error(f"policy check: {name}", ["policy", "check", "--rules", rules, path],
                             where, what)
                expect_error(f"daemon --policy: {name}",
                             DAEMON + ["--policy", path, "--rules", rules], where, what,
                             exact=False)
        # A root-owned directory under a sticky one (/tmp) is trusted: nobody else can rename it.
        sticky = os.path.join(tmp, "sticky")
        os.mkdir(sticky)
        os.chmod(sticky, 0o1777)
        inner = os.path.join(sticky, "rg")
        os.mkdir(inner)
        policy = write(inner, "policy.json", '{"role": "managed"}')
        expect_ok("policy check: a root directory under a sticky one",
                  ["policy", "check", "--rules", rules, policy])
        # --record takes a regular file only: a FIFO once blocked the daemon for good.
        fifo = os.path.join(tmp, "record.fifo")
        os.mkfifo(fifo)
        for name, path in [("FIFO", fifo), ("device", "/dev/null")]:
            expect_error(f"daemon --record: {name}", DAEMON + ["--rules", rules, "--record", path],
                         path, "not a regular file", exact=False)

    part = f" (shard {SHARD + 1} of {SHARDS}, of {SEEN} in all)" if SHARDS > 1 else ""
    print(f"{CHECKED} checks{part}, {len(FAILURES)} failures")
    return 1 if FAILURES or CHECKED == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
