# SPDX-License-Identifier: GPL-2.0-or-later
"""The audit figure: `rdmaguard audit` with 2,000 more processes on the machine."""

import json
import os
import subprocess

from .common import CLEANUPS, SRC, fmt_ns, median


class AuditFigure:
    """The audit figure (a mixin of Bench)."""

    def time_audit(self, runs):
        ts, cpu, procs = [], [], None
        for _ in range(runs):
            wall, c, out = self.timed_cpu([self.rg, "audit", "--rules",
                                           os.path.join(SRC, "rules")])
            ts.append(wall)
            cpu.append(c)
            procs = json.loads(out)["processes"]["scanned"]
        return ts, cpu, procs

    def fig_audit(self):
        runs = 3 if self.quick else 7
        base, base_cpu, base_procs = self.time_audit(runs)
        sleepers = []

        def kill_sleepers():
            for s in sleepers:
                if s.poll() is None:
                    s.kill()
            for s in sleepers:
                s.wait()
        CLEANUPS.append(kill_sleepers)
        try:
            for _ in range(2000):
                sleepers.append(subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL,
                                                 stdout=subprocess.DEVNULL))
            val, val_cpu, procs = self.time_audit(runs)
        finally:
            kill_sleepers()
            CLEANUPS.remove(kill_sleepers)
        self.details["audit"] = {"base_s": base, "base_cpu_s": base_cpu,
                                 "base_processes": base_procs, "loaded_s": val,
                                 "loaded_cpu_s": val_cpu, "loaded_processes": procs}
        b, v = median(base) * 1e9, median(val) * 1e9
        self.row("audit", f"rdmaguard audit with {procs:,} processes (2,000 sleepers added), "
                 "wall time", fmt_ns(b), fmt_ns(v), v / b, "< 200 ms", v < 200e6,
                 f"baseline: {base_procs} processes; median of {runs}")
        b, v = median(base_cpu) * 1e9, median(val_cpu) * 1e9
        self.row("audit", "the same, CPU time (user + system)", fmt_ns(b), fmt_ns(v), v / b,
                 "< 200 ms", v < 200e6, "what a loaded machine does not inflate")
