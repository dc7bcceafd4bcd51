# SPDX-License-Identifier: GPL-2.0-or-later
"""The syscall figure: unrelated system calls in a tight loop without the agent and with it, on
this machine (against auditd and bpftrace) and in the VM lab (each sensor flavour; wall time
under TCG, guest instructions under qemu -icount)."""

import json
import os
import shutil

from .common import (BenchError, CLEANUPS, PY, SRC, fmt_insns, fmt_ns, judge, log,
                     loop_calls, median, programs_ran, run)
from .comparators import AuditQuiet, Auditd, Bpftrace, foreign_syscall_tracepoints
from .daemon import Daemon

# The loops of bench/syscall_loop.c (and bench/vm/bench-vm.sh's LOOP_OPS)
OPS = ("write", "ioctl", "open", "getppid")
OP_LABEL = {"write": "write(2) 1 byte to /dev/null", "ioctl": "ioctl(2) FIONREAD on a pipe",
            "open": "openat(2)+close(2) of /dev/null", "getppid": "getppid(2) (no sensor on it)"}


class SyscallFigure:
    """The syscall figure (a mixin of Bench)."""

    def loop_run(self):
        n, r = (50000, 5) if self.quick else (200000, 7)
        p = run([self.loop, "-n", str(n), "-r", str(r)] + list(OPS), timeout=600)
        return {d["op"]: d for d in map(json.loads, p.stdout.splitlines())}

    def bpf_runs(self, pid, n1, n2, cmd):
        """bench/bpf_runs.py: the daemon's BPF program runs and run time for cmd, by
        difference of a run with n1 and one with n2 ('{n}' in cmd)"""
        p = run([PY, os.path.join(SRC, "bench", "bpf_runs.py"), "--pid", str(pid), str(n1),
                 str(n2), "--"] + cmd, timeout=1800)
        return json.loads(p.stdout)

    def bpf_runs_rows(self, where, label, flavour, runs, base_ns, fmt=fmt_ns,
                      measure="run time (with the statistics' clock reads; not the trampoline, "
                      "kprobe or tracepoint around them)"):
        """Rows: how often the agent's programs ran per call of each loop, and their own run
        time against the call's (runs: {op: bpf_runs.py's result}; base_ns: {op: ns per call
        without the agent}; under qemu -icount, fmt and measure say instructions)"""
        for op in OPS:
            if op not in runs:
                continue
            d = runs[op]
            n1, n2 = d["n"]
            calls = loop_calls(n2) - loop_calls(n1)
            # the programs that ran for the calls (at least once per 100); the rest is what other
            # processes made the agent's programs do meanwhile (background)
            ran, per, ns = programs_ran(d, calls, 0.01)
            background = (sum(d["ns"].values()) - ns * calls) / calls
            if flavour == "tracepoint":
                target, met = "(report)", None
            else:
                target, met = "< 0.01 (no measurable cost)", ns / base_ns[op] < 0.01
            what = ("programs: " + ", ".join(f"{k} {v / calls:.3f}" for k, v in sorted(ran.items()))
                    if ran else "no program ran for these calls")
            self.row("syscall", f"{OP_LABEL[op]}: the agent's BPF programs per call, "
                     f"{label}, {where}", fmt(base_ns[op]),
                     f"{per:.2f} runs, {fmt(ns)}", ns / base_ns[op], target, met,
                     f"kernel.bpf_stats_enabled, {calls:,} calls by difference of two runs; "
                     f"baseline: the call without the agent; ratio: the programs' own "
                     f"{measure} to it; {what}; background: {fmt(background)} a call")

    def fig_syscall(self):
        # the agent under each flavour asked for (--sensors; default: this machine's own choice)
        sensors = self.args.sensors or ["auto"]
        cands, flavour = [], {}
        for s in sensors:
            plan = json.loads(run([self.rg, "daemon", "--dry-run", "--sensor", s],
                                  timeout=120).stdout)
            hooks = plan["sensors"]["hooks"]
            # what runs on the loops' calls: the open and verbs hook points
            active = sorted({hooks[h]["active"] for h in ("open", "verbs") if h in hooks})
            key = "agent" if len(sensors) == 1 else f"agent-{s}"
            flavour[key] = "tracepoint" if "tracepoint" in active else "/".join(active)
            label = f"agent ({'/'.join(active)})" if s == "auto" else \
                f"agent (--sensor {s}: {'/'.join(active)})"
            cands.append((key, label, lambda s=s: Daemon(self, s).start()))
        agents = list(flavour)
        why_not_auditd, missing = Auditd.unavailable()
        if why_not_auditd and missing:
            self.fail("syscall", why_not_auditd)
        if not shutil.which("bpftrace"):
            self.fail("syscall", "bpftrace is not installed (apt-get install bpftrace)")
        else:
            cands.append(("bpftrace", "bpftrace (equivalent.bt)", lambda: Bpftrace().start()))
            cands.append(("hooks", "the agent's syscall tracepoints with empty programs "
                          "(bench/hooks.bt: the kernel's own cost of the hooks)",
                          lambda: Bpftrace("hooks.bt").start()))
        rounds = self.args.rounds or (3 if self.quick else 7)
        pairs = {c[0]: [] for c in cands}
        foreign = set()
        # auditd last: the kernel keeps auditing new processes once audit was enabled
        phases = [cands]
        if not why_not_auditd:
            bench = self

            class AuditdRound:
                """auditd as a candidate: the quiet rule off while it runs, back on after;
                what a new process's syscalls cost once auditd stopped is measured first"""

                def start(self):
                    if quiet:
                        quiet.stop()
                    self.a = Auditd()
                    CLEANUPS.append(self.stop)
                    self.a.start()
                    CLEANUPS.remove(self.a.stop)
                    skipped.update(self.a.skipped)
                    return self

                def stop(self):
                    a, self.a = self.a, None
                    if a is None:
                        return
                    a.stop()
                    residual.append(bench.loop_run())
                    if quiet:
                        quiet.start()
            phases.append([("auditd", "auditd (same calls watched)", lambda: AuditdRound().start())])
        skipped, residual = set(), []
        quiet = None
        if not why_not_auditd and AuditQuiet.possible():
            quiet = AuditQuiet().start()
            CLEANUPS.insert(0, quiet.stop)
        for phase in phases:
            for r in range(rounds):
                for key, label, start in phase:
                    foreign.update(foreign_syscall_tracepoints())
                    base = self.loop_run()
                    log(f"syscall round {r + 1}/{rounds}: {key}")
                    thing = start()
                    try:
                        cand = self.loop_run()
                    finally:
                        thing.stop()
                        CLEANUPS.remove(thing.stop)
                    # the baseline: before and after the candidate (a drift of the machine's
                    # load between the two shows in both sides evenly)
                    after = self.loop_run()
                    base = {op: dict(base[op], ns_min=(base[op]["ns_min"] + after[op]["ns_min"]) / 2,
                                     ns_min_before=base[op]["ns_min"],
                                     ns_min_after=after[op]["ns_min"]) for op in OPS}
                    pairs.setdefault(key, []).append((base, cand))
        # the agent's programs per call (run statistics, by difference: a quiet moment)
        n = 20000 if self.quick else 100000
        bpf_runs = {}
        for key, _, start in cands:
            if key not in agents:
                continue
            d = start()
            try:
                bpf_runs[key] = {op: self.bpf_runs(d.proc.pid, n, 2 * n,
                                                   [self.loop, "-n", "{n}", "-r", "1", op])
                                 for op in OPS}
            finally:
                d.stop()
                CLEANUPS.remove(d.stop)
        after_audit = residual[-1] if residual else None
        self.details["syscall_host"] = {"pairs": pairs, "after_auditd": after_audit,
                                        "foreign_tracepoints": sorted(map(list, foreign)),
                                        "bpf_runs": bpf_runs}
        note = ""
        if foreign:
            pids = sorted({p for p, _ in foreign})
            note = (f"other processes (pids {', '.join(map(str, pids))}) had BPF programs on "
                    f"syscall tracepoints during the run: baselines include that cost")
            self.notes.append("syscall (host): " + note)
        if skipped:
            self.notes.append("syscall (host): audit rules left out, no /dev/infiniband on this "
                              "machine (audit watches a directory by its inode): "
                              + "; ".join(sorted(skipped)))
        labels = {k: l for k, l, _ in cands}
        labels["auditd"] = "auditd (same calls watched)"
        ratios = {}
        for key, ps in pairs.items():
            for op in OPS:
                rs = [c[op]["ns_min"] / b[op]["ns_min"] for b, c in ps]
                ratios[(key, op)] = median(rs)
        for op in OPS:
            for key in pairs:
                ps = pairs[key]
                base = median([b[op]["ns_min"] for b, _ in ps])
                val = median([c[op]["ns_min"] for _, c in ps])
                rs = sorted(c[op]["ns_min"] / b[op]["ns_min"] for b, c in ps)
                if key in agents and flavour[key] != "tracepoint":
                    # fentry/kprobe: no measurable cost, judged against how far the baseline
                    # itself moved between before and after
                    noise = max(abs(b[op]["ns_min_after"] / b[op]["ns_min_before"] - 1)
                                for b, _ in ps)
                    target, met = "< 1.01 (no measurable cost)", judge(ratios[(key, op)], 1.01,
                                                                        noise)
                elif key in agents:
                    others = [k for k in ("auditd", "bpftrace") if k in pairs]
                    target = "overhead below " + " and ".join(others) if others else "—"
                    met = all(ratios[(key, op)] <= ratios[(k, op)] for k in others) \
                        if others else None
                else:
                    target, met = "(reference)", None
                self.row("syscall", f"{OP_LABEL[op]}: {labels[key]}, host", fmt_ns(base),
                         fmt_ns(val), ratios[(key, op)], target, met,
                         f"ratios {rs[0]:.2f}–{rs[-1]:.2f} over {len(rs)} rounds")
        for key in agents:
            self.bpf_runs_rows("host", labels[key], flavour[key], bpf_runs[key],
                               {op: median([b[op]["ns_min"] for b, _ in pairs[key]])
                                for op in OPS})
        if why_not_auditd:
            self.row("syscall", "auditd watching the same calls, host", "n/a", "n/a", None,
                     "(reference)", None, why_not_auditd)
        if after_audit:
            first = median([b["getppid"]["ns_min"] for b, _ in pairs[agents[0]]])
            self.details["syscall_host"]["residual_getppid"] = [first,
                                                                after_audit["getppid"]["ns_min"]]
        return note

    def fig_syscall_vm(self):
        rows_by_round = {}
        for m in self.vm_meas("syscall"):
            rows_by_round.setdefault(m["round"], []).append(m)
        labels = {"auto": "agent (auto: fentry/LSM)", "kprobe": "agent (kprobe)",
                  "tracepoint": "agent (tracepoint)"}
        per = {}
        for rnd, ms in sorted(rows_by_round.items()):
            # in each round: base (before), the flavour, base (after); one line per op each
            base = [m for m in ms if m["config"] == "base"]
            cand = [m for m in ms if m["config"] != "base"]
            if not cand and self.args.vm_results:
                continue  # a round the earlier run did not finish
            if not cand:
                raise BenchError(f"VM syscall round {rnd}: no measurement with the agent")
            flavour = cand[0]["config"]
            for op in OPS:
                b = [m["data"]["ns_min"] for m in base if m["data"]["op"] == op]
                c = [m["data"]["ns_min"] for m in cand if m["data"]["op"] == op]
                if len(b) != 2 or len(c) != 1:
                    raise BenchError(f"VM syscall round {rnd}: missing measurements")
                per.setdefault((flavour, op), []).append((sum(b) / 2, c[0], b[1] / b[0]))
        for flavour in ("auto", "kprobe", "tracepoint"):
            for op in OPS:
                if (flavour, op) not in per:
                    continue
                rs = per[(flavour, op)]
                b = median([x[0] for x in rs])
                c = median([x[1] for x in rs])
                ratio = median([x[1] / x[0] for x in rs])
                noise = max(abs(x[2] - 1) for x in rs)
                if flavour == "tracepoint":
                    target, met = "(reference)", None
                else:
                    target, met = "< 1.01 (no measurable cost)", judge(ratio, 1.01, noise)
                self.row("syscall", f"{OP_LABEL[op]}: {labels[flavour]}, VM", fmt_ns(b), fmt_ns(c),
                         ratio, target, met,
                         f"{len(rs)} round(s); the baseline moved up to {noise:.0%} between "
                         f"before and after")
        for flavour in ("auto", "kprobe", "tracepoint"):
            runs = {op: m["data"] for op in OPS for m in self.vm_meas("bpfruns-" + op, flavour)}
            if not runs:
                continue
            base = {op: median([x[0] for x in per[(flavour, op)]]) for op in OPS}
            self.bpf_runs_rows("VM", labels[flavour], flavour, runs, base)
            self.details.setdefault("bpf_runs_vm", {})[flavour] = runs

    def fig_syscall_icount(self):
        labels = {"auto": "agent (auto: fentry)", "kprobe": "agent (kprobe)",
                  "tracepoint": "agent (tracepoint)"}
        base_ns = {}
        for (flavour, _), (base, cand) in sorted(self.icount_rounds("syscall").items(),
                                                  key=lambda kv: kv[0][1]):
            for op in OPS:
                b = [d["ns_min"] for d in base if d["op"] == op]
                c = [d["ns_min"] for d in cand if d["op"] == op]
                if len(b) != 2 or len(c) != 1:
                    raise BenchError(f"-icount lab, {flavour}: missing {op} measurements")
                bm = sum(b) / 2
                noise = abs(b[1] / b[0] - 1)
                if flavour == "tracepoint":
                    target, met = "(reference)", None
                else:
                    target, met = "< 1.01 (no measurable cost)", judge(c[0] / bm, 1.01, noise)
                self.row("syscall", f"{OP_LABEL[op]}: {labels[flavour]}, VM, guest instructions "
                         f"per call (qemu -icount)", fmt_insns(bm), fmt_insns(c[0]), c[0] / bm,
                         target, met, f"the fastest of {cand[0]['rounds']} rounds of "
                         f"{cand[0]['iterations']:,} calls, the loop's own instructions included; "
                         f"the baseline before and after: {fmt_insns(b[0])}, {fmt_insns(b[1])}")
                base_ns.setdefault(flavour, {})[op] = bm
        for flavour, base in base_ns.items():
            runs = {op: ms[0]["data"] for op in OPS
                    if (ms := [m for m in self.icount["measurements"]
                               if m["what"] == f"bpfruns-{op}" and m["config"] == flavour])}
            if runs:
                self.bpf_runs_rows("VM (qemu -icount)", labels[flavour], flavour, runs, base,
                                   fmt=fmt_insns, measure="instructions (run time under -icount, "
                                   "the statistics' clock reads included)")
