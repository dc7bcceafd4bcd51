# SPDX-License-Identifier: GPL-2.0-or-later
"""The verbs figure: the RDMA control path (QP/CQ/MR setup and teardown, ibv_rc_pingpong)
without and with the agent, in the VM lab (wall time and guest instructions) and on this
machine where it has an RDMA device."""

import os

from .common import BenchError, CLEANUPS, fmt_insns, fmt_ns, judge, programs_ran
from .daemon import Daemon


class VerbsFigure:
    """The verbs figure (a mixin of Bench)."""

    def fig_verbs(self):
        for what, label in (("verbs", "verbs setup/teardown of {n} QPs+CQs, {n} MRs (VM)"),
                            ("pingpong", "ibv_rc_pingpong -n {n} wall time (VM)")):
            base = self.vm_meas(what, "base")
            cand = self.vm_meas(what, "auto")
            key = "ns_min" if what == "verbs" else "ns"
            if not base or not cand:
                raise BenchError(f"no {what} measurements from the VM")
            # the least disturbed run of each side (TCG on a shared host: medians wander)
            bs = [m["data"][key] for m in base]
            b, c = min(bs), min(m["data"][key] for m in cand)
            noise = max(bs) / min(bs) - 1
            n = cand[0]["data"].get("n", cand[0]["data"].get("iterations"))
            self.row("verbs", label.format(n=n), fmt_ns(b), fmt_ns(c), c / b, "< 1.05",
                     judge(c / b, 1.05, noise), f"agent auto (fentry/LSM); fastest of "
                     f"{len(base)} runs without, {len(cand)} with; the runs without spread "
                     f"{noise:.0%}")
            if what == "verbs":
                self.details["verbs_phases"] = {"base": [m["data"] for m in base],
                                                "agent": [m["data"] for m in cand]}
        ms = self.vm_meas("bpfruns-verbs", "auto")
        if ms:
            d = ms[0]["data"]
            n1, n2 = d["n"]
            rounds = n2 - n1
            ran, per, ns = programs_ran(d, rounds, 1)
            b = min(m["data"]["ns_min"] for m in self.vm_meas("verbs", "base"))
            n = d["out"][1][0]["n"]
            listed = [f"{k} {v / rounds:.0f} ({fmt_ns(d['ns'][k] / v)} each)"
                      for k, v in sorted(ran.items(), key=lambda kv: -d["ns"][kv[0]])]
            self.row("verbs", f"verbs setup/teardown of {n} QPs+CQs, {n} MRs: the agent's BPF "
                     f"programs per round (VM)", fmt_ns(b), f"{per:.0f} runs, {fmt_ns(ns)}",
                     ns / b, "(report: their share of the 5%)", None,
                     f"auto; kernel.bpf_stats_enabled, {rounds} rounds by difference; baseline: "
                     f"the fastest round without the agent; ratio: the programs' own run time "
                     f"(with the statistics' clock reads) to it (not the trampolines, nor the daemon's "
                     f"work on the other CPU); "
                     f"programs: {', '.join(listed)}")
            self.details["bpf_runs_verbs"] = d

    def fig_verbs_icount(self):
        for (flavour, _), (base, cand) in sorted(self.icount_rounds("verbs").items(),
                                                  key=lambda kv: kv[0][1]):
            if len(base) != 2 or len(cand) != 1:
                raise BenchError(f"-icount lab, {flavour}: missing verbs measurements")
            n = cand[0]["n"]
            for key, what, target in (
                    ("cpu_ns_min", "instructions of the verbs process itself (its CPU time)",
                     "< 1.05"),
                    ("ns_min", "instructions of the whole machine (one vCPU: the daemon's work "
                     "included)", "(report)")):
                b = [d[key] for d in base]
                bm, c = sum(b) / 2, cand[0][key]
                noise = abs(b[1] / b[0] - 1)
                judged = target != "(report)" and flavour == "auto"
                self.row("verbs", f"verbs setup/teardown of {n} QPs+CQs, {n} MRs: {what}, agent "
                         f"({flavour}), VM (qemu -icount)", fmt_insns(bm), fmt_insns(c), c / bm,
                         target if judged else "(report)", judge(c / bm, 1.05, noise) if judged
                         else None, f"the fastest of {cand[0]['rounds']} rounds; the baseline "
                         f"before and after: {fmt_insns(b[0])}, {fmt_insns(b[1])}")
            ms = [m["data"] for m in self.icount["measurements"]
                  if m["what"] == "bpfruns-verbs" and m["config"] == flavour]
            if ms:
                d = ms[0]
                rounds = d["n"][1] - d["n"][0]
                ran, per, ins = programs_ran(d, rounds, 1)
                bm = sum(x["cpu_ns_min"] for x in base) / 2
                listed = [f"{k} {v / rounds:.0f} ({fmt_insns(d['ns'][k] / v)} each)"
                          for k, v in sorted(ran.items(), key=lambda kv: -d["ns"][kv[0]])]
                self.row("verbs", f"verbs setup/teardown of {n} QPs+CQs, {n} MRs: the agent's BPF "
                         f"programs per round, agent ({flavour}), VM (qemu -icount)",
                         fmt_insns(bm), f"{per:.0f} runs, {fmt_insns(ins)}", ins / bm,
                         "(report: their share of the process's)", None,
                         f"kernel.bpf_stats_enabled, {rounds} rounds by difference; baseline: the "
                         f"process's own instructions a round without the agent; the programs' "
                         f"instructions (the statistics' clock reads included, not the trampolines "
                         f"or kprobes around them); programs: {', '.join(listed)}")
                self.details.setdefault("bpf_runs_verbs_icount", {})[flavour] = d

    def fig_verbs_host(self):
        """The record path of a verbs command on this machine: write() of DEALLOC_PD/DESTROY_CQ
        to a stand-in uverbs node (bench/event_storm), the agent's BPF programs per command, the
        commands one at a time (as verbs setup calls come) and in batches; the daemon as it runs
        (--ring-wakeups burst) against the kernel's wake-up per record (always)."""
        n = 500 if self.quick else 1000
        storm = os.path.join(self.build, "bench", "event_storm")
        res, rings = {}, {}
        for when in ("always", "burst"):
            d = Daemon(self, extra=["--ring-wakeups", when]).start()
            try:
                for key, batch, pause in (("single", 1, 1000), ("batch", 1000, 2000)):
                    res[(when, key)] = self.bpf_runs(
                        d.proc.pid, n, 3 * n,
                        ["sh", "-c", f"{storm} -n {{n}} -b {batch} -p {pause} >/dev/null"])
                rings[when] = d.status()["sensors"].get("ring", {})
            finally:
                d.stop()
                CLEANUPS.remove(d.stop)
        self.details["verbs_host"] = {"bpf_runs": {f"{w}/{k}": v for (w, k), v in res.items()},
                                      "ring": rings}
        cmds = 2 * n
        for key, label in (("single", "one at a time, 1 ms apart"),
                           ("batch", "in batches of 1,000, 2 ms apart")):
            per_ns, what = {}, {}
            for when in ("always", "burst"):
                r = res[(when, key)]
                ran, _, per_ns[when] = programs_ran(r, cmds, 0.5)
                if not ran:
                    raise BenchError(f"no program of the agent ran for the verbs commands "
                                     f"({when}, {key})")
                what[when] = ", ".join(f"{k} {fmt_ns(r['ns'][k] / v)} a run"
                                       for k, v in sorted(ran.items()))
            self.row("verbs", f"verbs command record path (write() to a stand-in uverbs node), "
                     f"the agent's BPF programs per command, {label}, host",
                     fmt_ns(per_ns["always"]), fmt_ns(per_ns["burst"]),
                     per_ns["burst"] / per_ns["always"], "(report)", None,
                     f"kernel.bpf_stats_enabled, {cmds:,} commands by difference of two runs; "
                     f"baseline: --ring-wakeups always (a wake-up per record that finds the "
                     f"daemon idle: {what['always']}); value: the default, burst "
                     f"({what['burst']}; {rings['burst'].get('bursts', '?')} bursts)")
