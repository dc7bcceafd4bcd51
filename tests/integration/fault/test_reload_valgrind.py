#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The daemon's reload loop under valgrind (memcheck): no error and no leak.

The daemon runs for real (BPF sensors on this kernel, file output, status socket) under
`valgrind --leak-check=full` with the suppressions of tests/hardening/valgrind.supp. Its policy
file is replaced ROUNDS times by a valid one (a different game each time: SIGHUP, reloads.ok
grows, AGENT-003 info) and by a broken one (SIGHUP, reloads.rejected grows, the old policy stays,
AGENT-003 high naming file:line:column); events flow meanwhile (each round runs a process). Then
SIGTERM: the daemon must exit 0, which valgrind turns into 99 on any memory error or any
definitely or possibly lost block.

Needs root (BPF) and valgrind; exits 77 only when not root, or for a sanitizer build (valgrind
cannot run one; the sanitizer step checks that build's leaks itself).
Usage: test_reload_valgrind.py (rdmaguard: $RG_RDMAGUARD, source tree: $RG_SOURCE_ROOT)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "output"))
from test_rsyslog import Failure, wait_for  # noqa: E402  (the shared test harness)

RG = os.environ.get("RG_RDMAGUARD", "")
SRC = os.environ.get("RG_SOURCE_ROOT", "")
ROUNDS = int(os.environ.get("RG_RELOAD_ROUNDS", "10"))
VALGRIND = ["valgrind", "--quiet", "--error-exitcode=99", "--leak-check=full",
            "--show-leak-kinds=definite,possible", "--errors-for-leak-kinds=definite,possible",
            "--num-callers=30",
            "--suppressions=" + os.path.join(SRC, "tests", "hardening", "valgrind.supp")]


def write_policy(path, text):
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o600)
    os.rename(tmp, path)  # as an editor or configuration management replaces it


def main():
    if os.geteuid() != 0:
        print("SKIP: the daemon's BPF sensors need root")
        return 77
    if not shutil.which("valgrind") or not os.access(RG, os.X_OK) or not SRC:
        print("needs valgrind, RG_RDMAGUARD and RG_SOURCE_ROOT", file=sys.stderr)
        return 2
    with open(RG, "rb") as f:
        if b"__asan_init" in f.read():
            print("SKIP: valgrind cannot run a sanitizer build (this one is checked by ASan)")
            return 77
    d = tempfile.mkdtemp(prefix="rg-reload-vg-")
    policy = os.path.join(d, "policy.json")
    sock = os.path.join(d, "status.sock")
    ready = os.path.join(d, "ready")
    alerts = os.path.join(d, "alerts.jsonl")
    log = os.path.join(d, "daemon.log")
    write_policy(policy, '{"role": "managed"}\n')
    logf = open(log, "wb")
    proc = subprocess.Popen(
        VALGRIND + [RG, "daemon", "--policy", policy, "--rules", os.path.join(SRC, "rules"),
                    "--sensor", "tracepoint", "--state-dir", os.path.join(d, "state"),
                    "--status-socket", sock, "--ready-file", ready, "--output", "file:" + alerts,
                    "--reconcile", "3600", "--heartbeat", "3600"],
        stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    logf.close()
    ok = False

    def status():
        p = subprocess.run([RG, "status", "--socket", sock], capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 0:
            raise Failure("rdmaguard status: %s" % p.stderr)
        return json.loads(p.stdout)

    try:
        def started():
            if proc.poll() is not None:
                raise Failure("the daemon exited with %s" % proc.returncode)
            return os.path.exists(ready)
        wait_for(started, 600, "the daemon under valgrind to be ready", interval=0.2)
        for i in range(ROUNDS):
            want = status()["reloads"]
            write_policy(policy, '{"role": "managed", "games": [{"name": "Game %d", '
                         '"exe": ["/opt/game%d/*"]}], "allow": [{"exe": "/usr/bin/true"}]}\n'
                         % (i, i))
            proc.send_signal(signal.SIGHUP)
            wait_for(lambda: status()["reloads"]["ok"] == want["ok"] + 1, 120,
                     "reload %d to be applied" % i, interval=0.2)
            subprocess.run(["/bin/true"], check=True)
            write_policy(policy, '{"role": "managed",\n  "games": [}\n')
            proc.send_signal(signal.SIGHUP)
            wait_for(lambda: status()["reloads"]["rejected"] == want["rejected"] + 1, 120,
                     "broken policy %d to be rejected" % i, interval=0.2)
        st = status()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(600)
        with open(alerts) as f:
            agent3 = [json.loads(l) for l in f if '"AGENT-003"' in l]
        if rc != 0:
            raise Failure("the daemon under valgrind exited %d (99: memory errors or leaks)" % rc)
        rejected = [a for a in agent3 if a.get("rdmaguard", {}).get("severity") == "high"]
        if not any("policy.json:2:13: expected a value" in a.get("message", "")
                   for a in rejected):
            raise Failure("AGENT-003 for the rejected reloads: %r" % [a.get("message")
                                                                     for a in rejected][:3])
        print("%d reloads applied and %d rejected under valgrind; RSS %.1f MiB; exit 0, no "
              "memory error, no leak" % (st["reloads"]["ok"], st["reloads"]["rejected"],
                                         st["rss_bytes"] / (1 << 20)))
        ok = True
    except Failure as e:
        print("FAIL reload-valgrind: %s" % e)
        with open(log, errors="replace") as f:
            print("---- %s\n%s" % (log, f.read()[-6000:]))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if ok:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print("kept %s" % d)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
