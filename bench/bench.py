#!/usr/bin/python3
"""rdmaguard's benchmarks (run through bench/run.sh, which builds first).

    bench.py --build DIR [--quick] [--only NAME[,NAME]]... [--out DIR] [--no-vm]

Figures (NAME for --only):
  syscall    unrelated system calls (write, ioctl, openat/close, getppid) in a tight loop, without
             the agent and with it: on this machine's sensor flavour, against auditd and bpftrace
             watching the same; in the VM lab on the fentry/LSM, kprobe and tracepoint flavours
  verbs      the RDMA control path (QP/CQ/MR setup and teardown, ibv_rc_pingpong) in the VM,
             without and with the agent
  (syscall and verbs also boot the VM a second time under qemu -icount, one vCPU: the same loops
  and setup rounds counted in guest instructions, which repeat from run to run; --no-icount;
  --quick boots only that one, with the latency samples, and leaves out the TCG lab's wall times)
  pipeline   events per second through replay (JSON in), through the engine and outputs alone,
             and instructions per event under callgrind against bench/baseline.json
  latency    from ibv_reg_mr() returning to the alert line in the output file, in the VM
  footprint  the daemon's memory (RSS, BPF maps) idle and after 10,000 processes and 100,000 events
  audit      `rdmaguard audit` with 2,000 more processes on the machine

Each comparison is measured in this one invocation, baseline and candidate interleaved, several
rounds; ratios are quoted, not absolute times. Prints a markdown table and writes it with every
raw measurement to OUT/results.{md,json} (and a dated copy). Exit status: 0 every selected figure
was measured; 1 a figure failed (a crash, a missing value) or the instruction count per event
rose above bench/baseline.json's tolerance; 2 bad usage. A target that is not met is reported, not
a failure. Needs root (BPF, auditd, mount namespaces). RG_BENCH_VM_WRAPPER: a command the VM lab
runs under (a shared machine's VM slot lock, e.g. /work/vmrun).
"""

import argparse
import os
import signal
import sys

from figures.common import BenchError, FIGURES, log, run_cleanups
from figures.driver import Bench


def main(argv):
    ap = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--quick", action="store_true",
                    help="fewer rounds and events, the VM lab booted once, under -icount (CI)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="one of " + ", ".join(FIGURES) + " (repeatable, or comma-separated)")
    ap.add_argument("--out", help="results directory (default BUILD/bench)")
    ap.add_argument("--sensors", type=lambda v: [x for x in v.split(",") if x], default=[],
                    metavar="LIST", help="the syscall figure on this machine: the agent under "
                    "each of these flavours (comma-separated --sensor values, e.g. "
                    "auto,kprobe,tracepoint on a kernel that has fentry; default: auto)")
    ap.add_argument("--rounds", type=int, default=0, metavar="N",
                    help="rounds of the syscall figure on this machine (default 7, --quick 3)")
    ap.add_argument("--kvm", action="store_true",
                    help="run the VM lab under KVM (needs /dev/kvm): 4 vCPUs, the syscall loops "
                    "10x longer and more verbs rounds, since the guest runs at native speed")
    ap.add_argument("--no-vm", action="store_true", help="skip what runs in the VM lab")
    ap.add_argument("--vm-only", action="store_true", help="only what runs in the VM lab")
    ap.add_argument("--no-icount", action="store_true",
                    help="skip the VM lab's second run under qemu -icount (guest instructions "
                    "per call and per verbs round)")
    ap.add_argument("--vm-results", metavar="DIR",
                    help="take the VM figures from an earlier lab run's results directory "
                    "(OUT/vm of an earlier run) instead of running the lab")
    ap.add_argument("--record-seed", action="store_true",
                    help="also record a new seed for the pipeline benchmark in the VM (the "
                    "kprobe daemon's --record: OUT/vm/bench-vm/events.jsonl; copy it to "
                    "bench/data/seed-events.jsonl, then bench/instructions.py --update)")
    args = ap.parse_args(argv[1:])
    only = [x for o in args.only for x in o.split(",") if x]
    for o in only:
        if o not in FIGURES:
            ap.error(f"unknown figure '{o}' (one of {', '.join(FIGURES)})")
    args.only = only
    if os.geteuid() != 0:
        print("bench: needs root (BPF, auditd, mount namespaces)", file=sys.stderr)
        return 2

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        return Bench(args).run()
    except KeyboardInterrupt:
        log("interrupted")
        return 1
    finally:
        try:
            run_cleanups()
        except BenchError as e:
            log(f"cleanup: {e}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
