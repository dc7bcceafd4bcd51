# SPDX-License-Identifier: GPL-2.0-or-later
"""What every figure of bench/bench.py shares: the paths, the figures' names, running a
command, the cleanups run at exit, statistics, number formats and the table's rows."""

import os
import statistics
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable  # bench/run.sh runs /usr/bin/python3
FIGURES = ("syscall", "verbs", "pipeline", "latency", "footprint", "audit")
VM_FIGURES = {"syscall", "verbs", "latency"}
CLEANUPS = []  # callables run at exit, newest first, whatever happens


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


class BenchError(Exception):
    pass


def run(cmd, timeout=600, check=True, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        raise BenchError(f"{' '.join(map(str, cmd))}: timed out after {timeout} s") from e
    if check and p.returncode != 0:
        raise BenchError(f"{' '.join(map(str, cmd))}: exit {p.returncode}: "
                         f"{(p.stderr or p.stdout).strip()[-800:]}")
    return p


def run_cleanups():
    errors = []
    while CLEANUPS:
        fn = CLEANUPS.pop()
        try:
            fn()
        except Exception as e:  # every cleanup runs, whatever the others did
            errors.append(str(e))
    if errors:
        raise BenchError("; ".join(errors))


def loop_calls(n):
    """The calls `syscall_loop -n n -r 1 OP` makes: its warm-up (n/10 + 1) and the round."""
    return n + n // 10 + 1


def programs_ran(d, units, least):
    """Of a bench/bpf_runs.py result over `units` calls or rounds: the programs that ran at
    least `least` times per unit ({name: runs}; the others ran for other processes meanwhile),
    and their runs and run time (ns) per unit."""
    ran = {k: v for k, v in d["runs"].items() if v / units >= least}
    return ran, sum(ran.values()) / units, sum(d["ns"][k] for k in ran) / units


def median(xs):
    return statistics.median(xs) if xs else None


def pct(xs, q):
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(-(-q * len(s) // 100)) - 1))
    return s[k]


def judge(ratio, limit, noise):
    """A ratio against a limit (e.g. 1.05) when the baseline itself moved by noise (0.2: 20%):
    met when below it and the noise is smaller than the margin; missed when the cost is above the
    limit and the noise; otherwise "noise" (the measurement cannot tell). So is a candidate, which
    only adds work, faster than the baseline by more than the margin and the noise: the conditions
    changed between the runs, not the cost (seen under TCG: 0.64 on openat, 2026-12-06)."""
    if ratio < 1 - max(noise, limit - 1):
        return "noise"
    if noise <= limit - 1:
        return ratio < limit
    if ratio - 1 > noise and ratio >= limit:
        return False
    return "noise"


def fmt_ns(ns):
    if ns is None:
        return "n/a"
    if ns < 10_000:
        return f"{ns:.0f} ns"
    if ns < 10_000_000:
        return f"{ns / 1000:.1f} µs"
    if ns < 10_000_000_000:
        return f"{ns / 1e6:.1f} ms"
    return f"{ns / 1e9:.2f} s"


def fmt_insns(n):
    """Instructions (qemu -icount shift=0: one per guest nanosecond)."""
    if n < 10_000:
        return f"{n:,.0f} insns"
    if n < 10_000_000:
        return f"{n / 1000:,.1f} k insns"
    return f"{n / 1e6:,.2f} M insns"


def fmt_bytes(b):
    return "n/a" if b is None else f"{b / 1048576:.1f} MiB"


def fmt_rate(r):
    if r is None:
        return "n/a"
    if r >= 1e6:
        return f"{r / 1e6:.2f} M/s"
    return f"{r / 1e3:.0f} k/s"


class Row:
    def __init__(self, figure, what, baseline, value, ratio, target, met, note=""):
        self.figure, self.what, self.baseline, self.value = figure, what, baseline, value
        self.ratio, self.target, self.met, self.note = ratio, target, met, note

    def md(self):
        ratio = "—" if self.ratio is None else f"{self.ratio:.3f}"
        met = {True: "yes", False: "**no**", None: "—", "noise": "unresolved (noise)"}[self.met]
        what = self.what + (f" ({self.note})" if self.note else "")
        return f"| {what} | {self.baseline} | {self.value} | {ratio} | {self.target} | {met} |"

    def js(self):
        return dict(figure=self.figure, what=self.what, baseline=self.baseline, value=self.value,
                    ratio=self.ratio, target=self.target, met=self.met, note=self.note)
