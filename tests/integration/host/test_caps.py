#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The daemon's capabilities once started (agent/daemon/daemon_privs.c, issue 25 item 9), read
from /proc/PID/task/*/status of every thread, for a detect-only daemon (`--sensor auto`, the
inventory, a file output, the status socket) and an enforcing one (`--sensor tracepoint`, kill
rules, a reload that arms more kill programs after the drop):

- the event (main) thread: CapEff is exactly what daemon_privs_plan() keeps on this kernel
  (cap_sys_ptrace, cap_dac_read_search, cap_net_admin, cap_bpf, cap_perfmon; cap_sys_admin
  effective where perf_event_paranoid > 2 and something may attach later, else permitted only,
  for the hardware layer's config space reads and the module programs); CapPrm that plus the
  on-demand cap_sys_admin; CapBnd = CapPrm (run by hand as root it may cut it); CapInh = CapAmb =
  0; NoNewPrivs 1;
- every other thread (outputs, hashing): nothing at all (CapEff = CapPrm = CapBnd = 0);
- `rdmaguard status` reports the same sets;
- the enforcing daemon still attaches kill programs after the drop (a reload that arms RDMA-009:
  its enf_tp_enter_write link is pinned) and kills with them.
Needs root (exit 77 otherwise). Environment: RG_RDMAGUARD, RG_HOST_DRIVER, RG_SOURCE_ROOT."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from poll import poll  # noqa: E402
from tap import check, summary  # noqa: E402

RG = os.environ["RG_RDMAGUARD"]
DRIVER = os.environ["RG_HOST_DRIVER"]
RULES = os.path.join(os.environ.get("RG_SOURCE_ROOT",
                                    os.path.join(os.path.dirname(__file__), "..", "..", "..")),
                     "rules")

CAP = {"dac_read_search": 2, "net_admin": 12, "sys_ptrace": 19, "sys_admin": 21,
       "perfmon": 38, "bpf": 39}


def bits(*names):
    return sum(1 << CAP[n] for n in names)


def paranoid():
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return int(f.read())


def expected(may_attach_later):
    """(effective, permitted) of the event thread, as daemon_privs_plan() computes them on a
    kernel with CAP_BPF (5.8+) and the hardware layer open."""
    eff = bits("sys_ptrace", "dac_read_search", "net_admin", "bpf", "perfmon")
    if may_attach_later and paranoid() > 2:
        eff |= bits("sys_admin")
        return eff, eff
    return eff, eff | bits("sys_admin")


def names(mask):
    return sorted("cap_" + n for n, c in CAP.items() if mask & (1 << c)) + \
        [f"cap_{c}" for c in range(64) if mask & (1 << c) and c not in CAP.values()]


def threads(pid):
    """{tid: {CapInh, CapPrm, CapEff, CapBnd, CapAmb (ints), NoNewPrivs, Name}}"""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                st = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        except FileNotFoundError:
            continue
        t = {k: int(st[k], 16) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
        t["NoNewPrivs"] = int(st["NoNewPrivs"])
        t["Name"] = st["Name"]
        out[int(tid)] = t
    return out


def wait_for(fn, timeout=60.0):
    return poll(fn, timeout)


def check_threads(label, pid, eff, prm):
    ts = threads(pid)
    main = ts.get(pid)
    check(main is not None, f"{label}: the event thread is there")
    if main is None:
        return
    got = {k: hex(v) if isinstance(v, int) and k.startswith("Cap") else v for k, v in main.items()}
    check(main["CapEff"] == eff, f"{label}: the event thread's CapEff is {names(eff)}",
          f"{names(main['CapEff'])} {got}")
    check(main["CapPrm"] == prm, f"{label}: its CapPrm is {names(prm)}",
          f"{names(main['CapPrm'])} {got}")
    check(main["CapBnd"] == prm, f"{label}: its bounding set is cut to the same", got)
    check(main["CapInh"] == 0 and main["CapAmb"] == 0,
          f"{label}: nothing inheritable or ambient", got)
    check(main["NoNewPrivs"] == 1, f"{label}: no_new_privs is set", got)
    workers = {tid: t for tid, t in ts.items() if tid != pid}
    check(len(workers) >= 2, f"{label}: the output and hashing threads run ({len(workers)})",
          workers)
    for tid, t in sorted(workers.items()):
        check(t["CapEff"] == 0 and t["CapPrm"] == 0 and t["CapBnd"] == 0 and t["CapInh"] == 0 and
              t["CapAmb"] == 0 and t["NoNewPrivs"] == 1,
              f"{label}: thread {tid} ({t['Name']}) holds no capability, no_new_privs",
              {k: hex(v) if isinstance(v, int) and k.startswith("Cap") else v
               for k, v in t.items()})


class Daemon:
    def __init__(self, tmp, name, args):
        self.tmp = tmp
        self.out = os.path.join(tmp, name + "-alerts.jsonl")
        self.ready = os.path.join(tmp, name + ".ready")
        self.sock = os.path.join(tmp, name + ".sock")
        self.logpath = os.path.join(tmp, name + ".log")
        self.log = open(self.logpath, "w", encoding="utf-8")
        self.p = subprocess.Popen(
            [RG, "daemon", "--rules", RULES, "--output", "file:" + self.out,
             "--ready-file", self.ready, "--status-socket", self.sock, "--heartbeat", "3600",
             *args], stdout=self.log, stderr=subprocess.STDOUT)
        ok = wait_for(lambda: os.path.exists(self.ready) or self.p.poll() is not None, 180)
        check(ok and self.p.poll() is None, f"daemon {name} is running", self.text()[-2000:])

    def text(self):
        with open(self.logpath, encoding="utf-8", errors="replace") as f:
            return f.read()

    def status(self):
        p = subprocess.run([RG, "status", "--socket", self.sock], capture_output=True, text=True,
                           timeout=30)
        try:
            return json.loads(p.stdout)
        except json.JSONDecodeError:
            return {"raw": p.stdout + p.stderr}

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()
        return self.p.returncode


def write_policy(path, doc):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.chmod(path + ".tmp", 0o600)
    os.rename(path + ".tmp", path)


def check_status(label, d, eff, prm):
    st = d.status().get("capabilities", {})
    check(st.get("dropped") is True and sorted(st.get("effective", [])) == names(eff) and
          sorted(st.get("on_demand", [])) == names(prm & ~eff) and st.get("bounding") == "cut",
          f"{label}: `status` reports the kept set", st)


def detect_only(tmp):
    pol = os.path.join(tmp, "detect.json")
    write_policy(pol, {"role": "managed"})
    d = Daemon(tmp, "detect", ["--policy", pol, "--sensor", "auto"])
    try:
        if d.p.poll() is not None:
            return
        # auto: the verbs and rdma_cm hook points wait for ib_uverbs/rdma_ucm (modules), so the
        # sensors may attach later
        eff, prm = expected(True)
        check_threads("detect-only", d.p.pid, eff, prm)
        check_status("detect-only", d, eff, prm)
        check("Capabilities kept: " in d.text(), "detect-only: the start log names the kept set",
              d.text()[-1500:])
    finally:
        check(d.stop() == 0, "detect-only: the daemon stops cleanly")


def enforcing(tmp):
    bpffs = os.path.join(tmp, "bpffs")
    os.mkdir(bpffs)
    subprocess.run(["mount", "-t", "bpf", "bpf", bpffs], check=True)
    pin_dir = os.path.join(bpffs, "rdmaguard")
    pol = os.path.join(tmp, "enforce.json")
    write_policy(pol, {"role": "managed", "enforce": True,
                       "rules": {"RDMA-004": {"action": "kill"}}})
    d = None
    try:
        d = Daemon(tmp, "enforce", ["--policy", pol, "--pin-dir", pin_dir, "--sensor",
                                    "tracepoint", "--no-inventory"])
        if d.p.poll() is not None:
            return
        eff, prm = expected(True)
        check_threads("enforcing", d.p.pid, eff, prm)
        check_status("enforcing", d, eff, prm)
        links = os.path.join(pin_dir, "links")
        check(not os.path.exists(os.path.join(links, "enf_tp_enter_write")),
              "enforcing: no write() kill program before RDMA-009 is armed",
              sorted(os.listdir(links)) if os.path.isdir(links) else None)
        # arms RDMA-009's kill after the drop: new kill programs attach (perf_event_open)
        write_policy(pol, {"role": "managed", "enforce": True,
                           "rules": {"RDMA-004": {"action": "kill"},
                                     "RDMA-009": {"action": "kill"}}})
        d.p.send_signal(signal.SIGHUP)
        ok = wait_for(lambda: os.path.exists(os.path.join(links, "enf_tp_enter_write")), 60)
        check(ok, "enforcing: the reload after the drop attaches and pins enf_tp_enter_write",
              d.text()[-2000:])
        check("Failed to attach" not in d.text(), "enforcing: no attach failed",
              [line for line in d.text().splitlines() if "Failed" in line])
        check(d.p.poll() is None, "enforcing: the daemon runs on after the reload")
        check_threads("enforcing, after the reload", d.p.pid, eff, prm)
        # and kills with them: the driver (not allowlisted) opens uverbs0 (its stand-in node)
        p = subprocess.run([DRIVER, "verbs"], capture_output=True, text=True, timeout=60)
        check(p.returncode == -signal.SIGKILL,
              "enforcing: a process that opens an RDMA node is killed after the drop",
              f"rc={p.returncode} {p.stdout[-500:]} {p.stderr[-500:]}")
    finally:
        if d:
            check(d.stop() == 0, "enforcing: the daemon stops cleanly")
        subprocess.run([RG, "enforce", "--off", "--pin-dir", pin_dir], capture_output=True,
                       timeout=60, check=False)
        subprocess.run(["umount", "-l", bpffs], check=False)


def main():
    if os.geteuid() != 0:
        print("SKIP: the daemon attaches BPF programs: needs root")
        return 77
    tmp = tempfile.mkdtemp(prefix="rg-caps-")
    os.chmod(tmp, 0o700)
    try:
        detect_only(tmp)
        enforcing(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
