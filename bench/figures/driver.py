# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/bench.py's driver: runs the figures selected (the VM lab's once for all of them) and
writes the report."""

import datetime
import json
import os
import platform

from .audit import AuditFigure
from .common import BenchError, FIGURES, Row, VM_FIGURES, fmt_bytes, log, run_cleanups
from .footprint import FootprintFigure
from .latency import LatencyFigure
from .pipeline import PipelineFigure
from .syscall import SyscallFigure
from .verbs import VerbsFigure
from .vmlab import VmLab


class Bench(SyscallFigure, VerbsFigure, LatencyFigure, PipelineFigure, FootprintFigure,
            AuditFigure, VmLab):
    """Every figure selected, in order, and the report: the table on stdout and
    OUT/results.{md,json} with the raw data."""

    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.out = os.path.abspath(args.out or os.path.join(self.build, "bench"))
        self.quick = args.quick
        self.rg = os.path.join(self.build, "agent", "rdmaguard")
        self.loop = os.path.join(self.build, "bench", "syscall_loop")
        self.rows = []
        self.details = {}
        self.failures = []
        self.notes = []
        self.vm = None
        self.icount = None

    def row(self, *a, **kw):
        self.rows.append(Row(*a, **kw))

    def fail(self, figure, msg):
        self.failures.append(f"{figure}: {msg}")
        log(f"FAILED {figure}: {msg}")

    def machine(self):
        cpu = "?"
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024
        return {"hostname": platform.node(), "kernel": platform.release(), "cpu": cpu,
                "cpus": os.cpu_count(), "memory_mib": mem, "loadavg": os.getloadavg()}

    def run(self):
        sel = self.args.only or list(FIGURES)
        started = datetime.datetime.now(datetime.timezone.utc)
        self.details["machine"] = self.machine()
        vm_parts = [f for f in ("syscall", "verbs", "latency") if f in sel]
        if "verbs" in vm_parts:
            vm_parts.append("footprint")
        if self.args.record_seed:
            vm_parts.append("record")
        steps = []
        for f in FIGURES:
            if f not in sel:
                continue
            if f == "syscall":
                steps.append(("syscall", self.fig_syscall))
            elif f == "pipeline":
                steps.append(("pipeline", self.fig_pipeline))
            elif f == "footprint":
                steps.append(("footprint", self.fig_footprint))
            elif f == "audit":
                steps.append(("audit", self.fig_audit))
            elif f == "verbs":
                steps.append(("verbs", self.fig_verbs_host))
        vm_steps = [(f, fn) for f, fn in (("syscall", self.fig_syscall_vm),
                                          ("verbs", self.fig_verbs),
                                          ("latency", self.fig_latency)) if f in vm_parts]
        if self.args.vm_only:
            steps = []
        for name, fn in steps:
            log(f"{name}")
            try:
                fn()
            except BenchError as e:
                self.fail(name, str(e))
            finally:
                run_cleanups()
        # --quick boots the VM lab once, under qemu -icount: its instruction counts are the VM
        # figures judged, the TCG lab's times under emulation are noise ("unresolved (noise)");
        # the latency samples (and their check that every one raised its alert) move there
        icount = not self.args.no_vm and not self.args.no_icount
        tcg = not (self.quick and icount and not self.args.kvm and not self.args.record_seed
                   and not self.args.vm_results)
        if vm_steps and self.args.no_vm:
            for name, _ in vm_steps:
                self.row(name, f"{name} (VM lab)", "—", "skipped (--no-vm)", None, "—", None)
        elif (vm_steps or self.args.record_seed) and tcg:
            self.lab_figures(lambda: self.run_vm(vm_parts), vm_steps, "")
        elif vm_steps:
            for name, _ in vm_steps:
                if name != "latency":
                    self.row(name, f"{name} (VM lab under TCG: wall time)", "—",
                             "skipped (--quick: emulation's time is noise; the full run has it)",
                             None, "—", None)
        ic_steps = [(f, fn) for f, fn in (("syscall", self.fig_syscall_icount),
                                          ("verbs", self.fig_verbs_icount)) if f in vm_parts]
        if not tcg and "latency" in vm_parts:
            ic_steps.append(("latency", lambda: self.fig_latency(
                self.icount, "VM, qemu -icount: guest time, an instruction a ns, idle skipped")))
        if ic_steps and icount:
            if self.args.vm_results:
                self.notes.append("the -icount lab did not run (--vm-results)")
            else:
                self.lab_figures(lambda: self.run_icount(vm_parts, latency=not tcg), ic_steps,
                                 "the -icount lab: ")
        for name in sel:
            if self.args.vm_only and name not in VM_FIGURES:
                continue
            if not any(r.figure == name for r in self.rows) and \
                    not any(f.startswith(name + ":") for f in self.failures):
                self.fail(name, "no figure was produced")
        self.details["machine"]["loadavg_end"] = os.getloadavg()
        return self.report(started)

    def lab_figures(self, boot, steps, what):
        """Runs a VM lab (boot()), then each (name, figure function) of steps; a lab that fails
        fails every figure of it, a figure that fails only itself."""
        try:
            boot()
        except BenchError as e:
            for name, _ in steps:
                self.fail(name, f"{what}{e}")
            return
        for name, fn in steps:
            try:
                fn()
            except BenchError as e:
                self.fail(name, str(e))

    def report(self, started):
        m = self.details["machine"]
        lines = [f"# rdmaguard benchmarks, {started:%Y-%m-%d %H:%M} UTC"
                 + (" (quick)" if self.quick else ""), "",
                 f"Machine: {m['cpu']}, {m['cpus']} CPUs, {m['memory_mib']} MiB, kernel "
                 f"{m['kernel']}; load average {m['loadavg'][0]:.1f} at the start, "
                 f"{m['loadavg_end'][0]:.1f} at the end."]
        if "vm" in self.details:
            v = self.details["vm"]
            how = ("KVM, 4 vCPUs" if v.get("accel") == "kvm"
                   else "TCG (software emulation, one host thread), 2 vCPUs")
            lines.append(f"VM lab: Debian kernel {v['kernel']} under qemu {how}, 2 GiB, rxe0 on "
                         f"a dummy netdev; {v['seconds']} s.")
        if "vm_icount" in self.details:
            v = self.details["vm_icount"]
            lines.append(f"VM lab, instruction counts: the same guest ({v['kernel']}) on 1 vCPU "
                         f"under qemu TCG with -icount shift=0,sleep=off (its clock counts the "
                         f"instructions it executes: 1 ns each); {v['seconds']} s.")
        lines += ["", "| figure | baseline | value | ratio | target | met |",
                  "|---|---|---|---|---|---|"]
        lines += [r.md() for r in self.rows]
        ins = self.details.get("instructions")
        if ins:
            lines += ["", "Instructions per event by stage (callgrind, inclusive):", ""]
            for key, s in ins["stages"].items():
                lines.append(f"- {key}: {s['per_event']:,} ({s['what']})")
        vp = self.details.get("verbs_phases")
        if vp:
            lines += ["", "Verbs setup/teardown by phase (each run's median round; the lowest run), "
                      "without / with the agent (ms):", ""]
            for ph in ("open", "create", "modify", "mr", "destroy"):
                b = min(x["phases"][ph] for x in vp["base"]) / 1e6
                a = min(x["phases"][ph] for x in vp["agent"]) / 1e6
                lines.append(f"- {ph}: {b:.1f} / {a:.1f}")
        fp = self.details.get("footprint")
        if fp:
            lines += ["", "Daemon RSS by mapping after the load (/proc/PID/smaps):", ""]
            for k, v in sorted(fp["loaded"]["smaps"].items(), key=lambda kv: -kv[1]):
                if v >= 256 * 1024:
                    lines.append(f"- {k}: {fmt_bytes(v)}")
            st = fp["loaded"]["status"]
            lines.append(f"- (RssAnon {fmt_bytes(st['RssAnon'])}, RssFile "
                         f"{fmt_bytes(st['RssFile'])}, RssShmem {fmt_bytes(st['RssShmem'])})")
        res = self.details.get("syscall_host", {}).get("residual_getppid")
        if res:
            lines += ["", f"getppid(2) in a new process after auditd was stopped and its rules "
                      f"removed: {res[1]:.0f} ns (before auditd ran: {res[0]:.0f} ns). Once audit "
                      f"was enabled the kernel gives every new process an audit context until "
                      f"reboot, rules or not; the benchmark keeps `auditctl -a never,task` in "
                      f"place while it measures anything but auditd (where audit is disabled and "
                      f"has no rules) and removes it at the end."]
        if self.notes:
            lines += [""] + [f"Note: {n}" for n in self.notes]
        if self.failures:
            lines += ["", "FAILED:"] + [f"- {f}" for f in self.failures]
        text = "\n".join(lines) + "\n"
        print(text)
        os.makedirs(self.out, exist_ok=True)
        stamp = f"{started:%Y%m%d-%H%M%S}"
        doc = {"date": started.isoformat(), "quick": self.quick, "rows": [r.js() for r in self.rows],
               "failures": self.failures, "notes": self.notes, "details": self.details}
        for name in (f"results-{stamp}", "results"):
            with open(os.path.join(self.out, name + ".md"), "w") as f:
                f.write(text)
            with open(os.path.join(self.out, name + ".json"), "w") as f:
                json.dump(doc, f, indent=1, default=str)
                f.write("\n")
        log(f"results in {os.path.join(self.out, 'results.md')} and results.json")
        return 1 if self.failures else 0
