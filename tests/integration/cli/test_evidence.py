#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`rdmaguard evidence` as a whole, on recorded events (no daemon; tests/integration/daemon
`chain` has the live one): the seat key, an exported bundle that verifies, one byte changed in each
file kind (manifest, signature, incident, alerts, events, config space, policy, rules, seat) failing
with that file named, a wrong key, and a hash-chained replay output whose every tamper kind fails
verify-log.

The incident comes from a recorded event file (the DMA-001 fixture with event.kind "event", as
`daemon --record` writes it, its PCI address replaced by a function of this machine, so that its
config space is read through libpci); its config space in the bundle must be the bytes sysfs
gives for that function.

Usage: test_evidence.py RDMAGUARD SOURCE_ROOT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

RG, SRC = sys.argv[1], sys.argv[2]
FIX = os.path.join(SRC, "tests", "fixtures", "events")
FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond or not detail else "\n     " + detail))
    if not cond:
        FAILURES.append(what)
    return cond


def rg(*args):
    return subprocess.run([RG, *args], capture_output=True, text=True, timeout=120)


def a_pci_function():
    devs = sorted(os.listdir("/sys/bus/pci/devices"))
    if not devs:
        raise SystemExit("FAIL this machine has no PCI function to read (a VM without PCI?)")
    return devs[0]


def record(d, addr):
    """The DMA-001 fixture as a --record file, naming addr."""
    out = os.path.join(d, "rec.jsonl")
    with open(os.path.join(FIX, "DMA-001.jsonl")) as f, open(out, "w") as o:
        for line in f:
            ev = json.loads(line)
            ev["event"]["kind"] = "event"
            if ev.get("pci", {}).get("address") == "0000:05:00.0":
                ev["pci"]["address"] = addr
            o.write(json.dumps(ev) + "\n")
    return out


def incident_of(rec, addr):
    p = rg("incidents", rec, "--rules", os.path.join(SRC, "rules"), "--format", "json")
    check(p.returncode == 0, "incidents of the record", p.stderr)
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if addr in line:
            return o["rdmaguard"]["incident"]["id"]
    raise SystemExit("FAIL no incident names %s: %s" % (addr, p.stdout))


def flip(path, off):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[off] ^= 1
        f.seek(0)
        f.write(data)


def bundle_checks(d, state, bundle, addr):
    pub = os.path.join(state, "seat-key.pub")
    p = rg("evidence", "verify", bundle, "--key", pub)
    check(p.returncode == 0 and p.stdout.startswith("OK "), "the bundle verifies", p.stdout + p.stderr)
    p = rg("evidence", "verify", bundle)
    check(p.returncode == 0 and "the bundle's own key" in p.stdout, "without --key: its own key",
          p.stdout)
    man = json.load(open(os.path.join(bundle, "manifest.json")))
    kinds = {f["kind"]: f["path"] for f in man["files"]}
    for k in ("incident", "alerts", "events", "config-space", "policy", "rule", "seat"):
        check(k in kinds, "the bundle holds a file of kind %s" % k, str(sorted(kinds)))
    cfg = os.path.join(bundle, "pci", addr.replace(":", "-") + ".config")
    with open("/sys/bus/pci/devices/%s/config" % addr, "rb") as f:
        sysfs = f.read()
    got = open(cfg, "rb").read() if os.path.exists(cfg) else b""
    check(len(got) >= 64 and sysfs[:len(got)] == got,
          "config space of %s is what sysfs gives (%d bytes)" % (addr, len(got)))
    seat = json.load(open(os.path.join(bundle, "seat.json")))
    check(seat["agent"]["version"] and seat["host"]["name"] and
          seat["key"]["public"].startswith("ed25519:"), "seat.json: version, host, key")
    inc = json.load(open(os.path.join(bundle, "incident.json")))
    check(inc["rdmaguard"]["incident"]["id"] == man["incident"], "incident.json is the incident")
    alerts = [json.loads(x) for x in open(os.path.join(bundle, "alerts.jsonl"))]
    check(alerts and all(a["rdmaguard"]["incident"]["id"] == man["incident"] for a in alerts),
          "alerts.jsonl: %d alerts of the incident" % len(alerts))
    # One byte changed in each file kind.
    targets = [("manifest.json", -200), ("manifest.sig", -40)] + \
        [(kinds[k], 1) for k in ("incident", "alerts", "events", "config-space", "policy",
                                  "rule", "seat")]
    for path, off in targets:
        t = os.path.join(d, "tampered")
        shutil.rmtree(t, ignore_errors=True)
        shutil.copytree(bundle, t)
        flip(os.path.join(t, path), off)
        p = rg("evidence", "verify", t, "--key", pub)
        check(p.returncode == 1 and p.stdout.startswith("FAILED %s: %s:" % (t, path)),
              "one byte of %s changed: verify fails naming it" % path, p.stdout + p.stderr)
    other = os.path.join(d, "other")
    check(rg("evidence", "keygen", "--state-dir", other).returncode == 0, "another key")
    p = rg("evidence", "verify", bundle, "--key", os.path.join(other, "seat-key.pub"))
    check(p.returncode == 1 and "signed by another key" in p.stdout, "a wrong key fails",
          p.stdout)
    p = rg("evidence", "verify", os.path.join(d, "nonexistent"))
    check(p.returncode == 2, "no bundle: exit 2", p.stderr)


def chain_checks(d, rec):
    log = os.path.join(d, "chained.jsonl")
    p = rg("replay", rec, "--rules", os.path.join(SRC, "rules"), "--output", "file+chain:" + log,
           "--state-dir", os.path.join(d, "rstate"))
    check(p.returncode in (0, 1), "replay into file+chain:", p.stderr)
    lines = open(log).read().splitlines(True)
    check(len(lines) >= 4 and all(json.loads(x)["chain"]["seq"] == i + 1
                                  for i, x in enumerate(lines)),
          "%d chained lines, each valid JSON" % len(lines))
    p = rg("evidence", "verify-log", log)
    check(p.returncode == 0 and p.stdout.startswith("OK %d lines" % len(lines)),
          "verify-log: OK", p.stdout + p.stderr)
    head = p.stdout.split("head ")[-1].strip()
    bad = os.path.join(d, "bad.jsonl")
    edited = list(lines)
    edited[1] = edited[1].replace('"severity":"', '"severity":"x', 1)
    cases = [("deleted", lines[:1] + lines[2:], "deleted or reordered"),
             ("edited", edited, "bad.jsonl:2: changed"),
             ("reordered", [lines[0], lines[2], lines[1]] + lines[3:], "reordered"),
             ("cut short", lines[:-1] + [lines[-1][:30]], "cut short"),
             ("first line deleted", lines[1:], "starts at seq 2")]
    for what, content, expect in cases:
        with open(bad, "w") as f:
            f.writelines(content)
        p = rg("evidence", "verify-log", bad)
        check(p.returncode == 1 and expect in p.stdout, "a line %s: verify-log fails" % what,
              p.stdout + p.stderr)
    with open(bad, "w") as f:
        f.writelines(lines[:-1])
    p = rg("evidence", "verify-log", bad, "--head", head)
    check(p.returncode == 1 and "head seq %d" % len(lines) in p.stdout,
          "the last line deleted: found against the head", p.stdout + p.stderr)


def main():
    d = tempfile.mkdtemp(prefix="rg-evidence-")
    try:
        state = os.path.join(d, "state")
        p = rg("evidence", "keygen", "--state-dir", state)
        check(p.returncode == 0 and "public ed25519:" in p.stdout, "keygen", p.stdout + p.stderr)
        st = os.stat(os.path.join(state, "seat-key.pem"))
        check(st.st_mode & 0o777 == 0o600 and st.st_uid == os.geteuid(), "seat-key.pem is 0600")
        addr = a_pci_function()
        rec = record(d, addr)
        inc = incident_of(rec, addr)
        bundle = os.path.join(d, "bundle")
        args = ["evidence", "export", inc, bundle, "--record", rec, "--rules",
                os.path.join(SRC, "rules"), "--policy", os.path.join(FIX, "policy.json"),
                "--state-dir", state]
        os.chmod(os.path.join(state, "seat-key.pem"), 0o644)
        p = rg(*args)
        check(p.returncode == 2 and "refused" in p.stderr and not os.path.exists(bundle),
              "a private key others can read is refused", p.stderr)
        os.chmod(os.path.join(state, "seat-key.pem"), 0o600)
        p = rg(*args)
        check(p.returncode == 0, "export %s from the record" % inc, p.stdout + p.stderr)
        p = rg(*args)
        check(p.returncode == 2 and "exists already" in p.stderr, "an existing OUT is refused",
              p.stderr)
        p = rg(*(["evidence", "export", "INC-0000000000000000", os.path.join(d, "b2")] + args[4:]))
        check(p.returncode == 2 and "No incident" in p.stderr, "an unknown incident: exit 2",
              p.stderr)
        bundle_checks(d, state, bundle, addr)
        chain_checks(d, rec)
    finally:
        if not FAILURES:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print("kept " + d)
    print("%s: %d failure(s)" % ("FAIL" if FAILURES else "PASS", len(FAILURES)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
