# SPDX-License-Identifier: GPL-2.0-or-later
"""The agent as the benchmarks run it: `rdmaguard daemon` with a file output, its own status
socket and state directory."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from .common import BenchError, CLEANUPS, SRC, run


class Daemon:
    """`rdmaguard daemon` with a file output, its own status socket and state directory."""

    def __init__(self, b, sensor="auto", extra=()):
        self.b, self.sensor, self.extra = b, sensor, list(extra)
        self.dir = tempfile.mkdtemp(prefix="rg-bench-daemon-")
        self.alerts = os.path.join(self.dir, "alerts.jsonl")
        self.sock = os.path.join(self.dir, "status.sock")
        self.proc = None

    def start(self):
        ready = os.path.join(self.dir, "ready")
        policy = os.path.join(self.dir, "policy.json")
        shutil.copyfile(os.path.join(SRC, "bench", "data", "policy.json"), policy)
        os.chmod(policy, 0o600)
        self.err = open(os.path.join(self.dir, "daemon.log"), "w")
        self.proc = subprocess.Popen(
            [self.b.rg, "daemon", "--sensor", self.sensor, "--policy", policy,
             "--rules", os.path.join(SRC, "rules"), "--output", "file:" + self.alerts,
             "--state-dir", os.path.join(self.dir, "state"), "--status-socket", self.sock,
             "--ready-file", ready] + self.extra,
            stdout=subprocess.DEVNULL, stderr=self.err)
        CLEANUPS.append(self.stop)
        deadline = time.monotonic() + 180
        while not os.path.exists(ready):
            if self.proc.poll() is not None:
                raise BenchError(f"the daemon exited with {self.proc.returncode}: "
                                 f"{self.log_tail()}")
            if time.monotonic() > deadline:
                raise BenchError("the daemon was not ready within 180 s")
            time.sleep(0.1)
        self.settle()
        return self

    def log_tail(self):
        with open(os.path.join(self.dir, "daemon.log")) as f:
            return f.read()[-1500:]

    def status(self):
        return json.loads(run([self.b.rg, "status", "--socket", self.sock], timeout=30).stdout)

    def settle(self, until=None, limit_s=120):
        """Waits until the daemon has caught up: until(status) holds, if given, and the events
        it counts grow by less than 300/s (what the rest of a busy machine makes) twice in a
        row: the start-up inventory and whatever a benchmark stirred up are processed."""
        last, calm, end = None, 0, time.monotonic() + limit_s
        while time.monotonic() < end:
            st = self.status()
            n = st["events"]["total"]
            if last is not None and n - last < 150 and (until is None or until(st)):
                calm += 1
                if calm >= 2:
                    return st
            else:
                calm = 0
            last = n
            time.sleep(0.5)
        raise BenchError(f"the daemon did not catch up within {limit_s} s")

    def stop(self):
        if self.proc is None:
            return
        p, self.proc = self.proc, None
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                raise BenchError("the daemon did not stop within 60 s of SIGTERM")
        self.err.close()
        if p.returncode != 0:
            raise BenchError(f"the daemon exited with {p.returncode}: {self.log_tail()}")
        shutil.rmtree(self.dir, ignore_errors=True)
