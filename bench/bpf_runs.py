#!/usr/bin/python3
"""How often the daemon's BPF programs run for a command, and for how long (the kernel's BPF run
statistics), by difference: what a command costs in the agent's programs per call, whatever the
machine's speed, and whether it runs them at all.

    bpf_runs.py --pid PID N1 N2 -- CMD [ARG...]

CMD is run twice, with every '{n}' in its arguments replaced by N1, then by N2 (N2 > N1: an
iteration count). Around each run the run count and run time of every BPF program the process
PID holds an fd of (the daemon's) are read from /proc/PID/fdinfo, with kernel.bpf_stats_enabled
set to 1 for the duration (restored at the end). Subtracting the first run's increase from the
second's leaves what N2 - N1 iterations cost: the start-up of CMD (exec, libraries, its own opens
and mmaps) and anything else constant cancels out. Background activity does not: measure on a
quiet machine.

One JSON line on stdout:
  {"n": [N1, N2], "runs": {PROG: runs}, "ns": {PROG: ns}, "each": [[runs1, ns1], [runs2, ns2]],
   "out": [[JSON lines of CMD's first run], [... second run]]}
runs/ns: the difference, per program name (programs that ran in neither run are left out); each:
the totals of each run. Exit 0; 1 when a run fails or PID holds no BPF program; 2 bad usage.
The statistics cost two clock reads per program run while enabled: time CMD elsewhere.
"""

import json
import os
import subprocess
import sys

STATS = "/proc/sys/kernel/bpf_stats_enabled"


def prog_fds(pid):
    """{prog_id: fd} of the BPF programs pid holds."""
    out = {}
    base = f"/proc/{pid}/fd"
    for fd in os.listdir(base):
        try:
            if os.readlink(f"{base}/{fd}") != "anon_inode:bpf-prog":
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                info = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue  # closed meanwhile
        prog_id = int(info.get("prog_id", "0").strip() or 0)
        if prog_id and prog_id not in out:
            out[prog_id] = fd
    return out


def names(ids):
    """{prog_id: name}, from bpftool (fdinfo has no name)."""
    p = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True,
                       check=True, timeout=60)
    by_id = {d["id"]: d.get("name", "?") for d in json.loads(p.stdout)}
    return {i: by_id.get(i, f"id{i}") for i in ids}


def snapshot(pid, fds):
    """{prog_id: (run_cnt, run_time_ns)}"""
    snap = {}
    for i, fd in fds.items():
        cnt = ns = 0
        with open(f"/proc/{pid}/fdinfo/{fd}") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k == "run_cnt":
                    cnt = int(v)
                elif k == "run_time_ns":
                    ns = int(v)
        snap[i] = (cnt, ns)
    return snap


def main(argv):
    if len(argv) < 6 or argv[0] != "--pid" or "--" not in argv:
        sys.stderr.write(__doc__)
        return 2
    try:
        pid, n1, n2 = int(argv[1]), int(argv[2]), int(argv[3])
    except ValueError:
        sys.stderr.write("bpf_runs.py: PID, N1 and N2 must be numbers\n")
        return 2
    cmd = argv[argv.index("--") + 1:]
    if not cmd or n2 <= n1:
        sys.stderr.write("bpf_runs.py: no command, or N2 <= N1\n")
        return 2
    fds = prog_fds(pid)
    if not fds:
        sys.stderr.write(f"bpf_runs.py: process {pid} holds no BPF program\n")
        return 1
    name = names(fds)
    with open(STATS) as f:
        old = f.read().strip()
    deltas, outs = [], []
    try:
        with open(STATS, "w") as f:
            f.write("1")
        for n in (n1, n2):
            before = snapshot(pid, fds)
            p = subprocess.run([a.replace("{n}", str(n)) for a in cmd], capture_output=True,
                               text=True, timeout=3600)
            after = snapshot(pid, fds)
            if p.returncode != 0:
                sys.stderr.write(f"bpf_runs.py: {cmd[0]} exited with {p.returncode}: "
                                 f"{p.stderr[-1000:]}")
                return 1
            outs.append([json.loads(line) for line in p.stdout.splitlines() if line.strip()])
            deltas.append({i: (after[i][0] - before[i][0], after[i][1] - before[i][1])
                           for i in fds})
    finally:
        with open(STATS, "w") as f:
            f.write(old)
    runs, ns = {}, {}
    for i in fds:
        (c1, t1), (c2, t2) = deltas[0][i], deltas[1][i]
        if c1 or c2:
            runs[name[i]] = runs.get(name[i], 0) + c2 - c1
            ns[name[i]] = ns.get(name[i], 0) + t2 - t1
    each = [[sum(d[i][0] for i in fds), sum(d[i][1] for i in fds)] for d in deltas]
    print(json.dumps({"n": [n1, n2], "runs": runs, "ns": ns, "each": each, "out": outs}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
