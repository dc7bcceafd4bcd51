# SPDX-License-Identifier: GPL-2.0-or-later
"""The VM lab as the syscall, verbs and latency figures run it: one boot under TCG (wall
times), one under qemu -icount (guest instructions), and their measurements read back."""

import json
import os
import re
import sys
import time

from .common import BenchError, SRC, log, run


class VmLab:
    """Runs bench/vm/bench-vm.sh in the VM lab and reads its measurements (a mixin of Bench)."""

    def run_vm(self, parts):
        if self.vm is not None:
            return self.vm
        results = os.path.join(self.out, "vm")
        os.makedirs(results, exist_ok=True)
        q = self.quick
        # under KVM the guest runs at the machine's own speed: loops 10x longer, more rounds
        k = 10 if self.args.kvm else 1
        conf = {
            "PARTS": " ".join(parts),
            "FLAVOURS": "auto kprobe tracepoint" if "syscall" in parts else "auto",
            "LOOP_N": (10000 if q else 20000) * k, "LOOP_R": 7 if q else 11,
            "SETUP_N": 8 if q else 16, "SETUP_R": (3 if q else 5) * (3 if k > 1 else 1),
            "PP_N": (100 if q else 200) * (5 if k > 1 else 1), "PP_R": 2 if q else 3,
            "LAT_N": 30 if q else 100, "CYCLES": 1 if q else 2,
        }
        with open(os.path.join(results, "bench-vm.conf"), "w") as f:
            for k, v in conf.items():
                f.write(f"{k}='{v}'\n")
        # TCG on one host thread, as the lab's default: with a thread per vCPU a vCPU can spin
        # for good on a stale int3 of a kernel text patch (tests/vm/README.md, "Pitfalls met")
        accel = "kvm" if self.args.kvm else "tcg,thread=single"
        log(f"VM lab: {conf['PARTS']} (under {accel.upper()})")
        t0 = time.monotonic()
        if self.args.vm_results:
            # an earlier lab run's measurements (complete rounds only), e.g. of a run cut short
            results = os.path.abspath(self.args.vm_results)
            with open(os.path.join(results, "bench-vm.conf")) as f:
                conf = dict(re.findall(r"^(\w+)='([^']*)'", f.read(), re.M))
            kernel = "?"
            with open(os.path.join(results, "_lab", "console.log"), errors="replace") as f:
                m = re.search(r"Linux version (\S+)", f.read())
                kernel = m.group(1) if m else "?"
            self.notes.append(f"VM lab: the measurements of an earlier run ({results}), "
                              f"configuration {conf}")
        else:
            # one cycle of flavours took 850-1100 s on the shared 2-core machine; the
            # scenario's own limit (lab-timeout) is 3000 s
            limit = 1500 * int(conf["CYCLES"]) + 300
            kernel = self.lab(results, limit, RG_LAB_ACCEL=accel,
                              RG_LAB_SMP="4" if self.args.kvm else "2")
        self.vm = {"kernel": kernel, "seconds": round(time.monotonic() - t0),
                   "config": conf, "accel": accel, "measurements": []}
        with open(os.path.join(results, "bench-vm", "measurements.jsonl")) as f:
            self.vm["measurements"] = [json.loads(line) for line in f if line.strip()]
        self.details["vm"] = {k: v for k, v in self.vm.items() if k != "measurements"}
        return self.vm

    def lab(self, results, limit, **env):
        """Runs bench/vm/bench-vm.sh in the VM lab (env: RG_LAB_* settings); returns the guest's
        kernel version."""
        # RG_BENCH_VM_WRAPPER: a command the lab runs under (a shared machine's VM slot lock)
        wrapper = os.environ.get("RG_BENCH_VM_WRAPPER", "").split()
        p = run(wrapper + ["bash", os.path.join(SRC, "tests", "vm", "lab.sh"), "--build",
                           self.build, "--results", results, "--timeout", str(limit),
                           os.path.join(SRC, "bench", "vm", "bench-vm.sh")],
                timeout=limit + 7200, check=False, env=dict(os.environ, **env))
        sys.stderr.write(p.stdout[-3000:])
        if p.returncode != 0:
            raise BenchError(f"the VM lab failed (exit {p.returncode}): "
                             f"{(p.stderr + p.stdout)[-1500:]}")
        m = re.search(r"lab: kernel (\S+)", p.stdout)
        return m.group(1) if m else "?"

    def run_icount(self, parts, latency=False):
        """The same guest with one vCPU under `qemu -icount shift=0,sleep=off`: the guest's clock
        advances one nanosecond per instruction executed, so the loops' "ns per call" are the
        instructions a call executes, the same in every run (a figure emulation does not distort,
        unlike its time), and a process's CPU time is the instructions it executed. What this
        leaves out: what an instruction costs (cache misses, a trampoline's indirect calls), which
        only real hardware shows. latency: the detection latency samples too (--quick, where this
        is the only boot)."""
        if self.icount is not None:
            return self.icount
        results = os.path.join(self.out, "vm-icount")
        os.makedirs(results, exist_ok=True)
        q = self.quick
        conf = {
            "PARTS": " ".join(p for p in parts
                              if p in ("syscall", "verbs") or (latency and p == "latency")),
            "FLAVOURS": "auto kprobe tracepoint" if "syscall" in parts else "auto kprobe",
            "VERBS_FLAVOURS": "auto kprobe", "ICOUNT": 1,
            # deterministic but for interrupts and other tasks: the fastest of 9 rounds
            "LOOP_N": 20000, "LOOP_R": 9,
            "SETUP_N": 8 if q else 16, "SETUP_R": 5, "CYCLES": 1, "LAT_N": 30 if q else 100,
        }
        with open(os.path.join(results, "bench-vm.conf"), "w") as f:
            for k, v in conf.items():
                f.write(f"{k}='{v}'\n")
        log(f"VM lab under qemu -icount: {conf['PARTS']}")
        t0 = time.monotonic()
        kernel = self.lab(results, 1800, RG_LAB_ACCEL="tcg", RG_LAB_SMP="1",
                          RG_LAB_ICOUNT="shift=0,sleep=off")
        self.icount = {"kernel": kernel, "seconds": round(time.monotonic() - t0), "config": conf}
        with open(os.path.join(results, "bench-vm", "measurements.jsonl")) as f:
            self.icount["measurements"] = [json.loads(line) for line in f if line.strip()]
        self.details["vm_icount"] = {k: v for k, v in self.icount.items() if k != "measurements"}
        return self.icount

    def icount_rounds(self, what):
        """{(flavour, round): (baseline, candidate)} of one kind of measurement of the -icount
        lab: lists of data dicts, the baseline's before and after the daemon in that order."""
        out = {}
        for m in self.icount["measurements"]:
            if m["what"] == what:
                out.setdefault(m["round"], []).append(m)
        res = {}
        for rnd, ms in out.items():
            cand = [m for m in ms if m["config"] != "base"]
            if not cand:
                raise BenchError(f"-icount lab round {rnd}: no {what} measurement with the agent")
            base = [m for m in ms if m["config"] == "base"]
            res[(cand[0]["config"], rnd)] = ([m["data"] for m in base],
                                             [m["data"] for m in cand])
        return res

    def vm_meas(self, what, config=None):
        return [m for m in self.vm["measurements"]
                if m["what"] == what and (config is None or m["config"] == config)]
