#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Self-protection (issue 10): a real daemon, tampered with by other root processes (tamper.py:
bpftool, tc, a signal), must raise AGENT-004 for each tampering, naming the process the kernel
saw doing it; a clean run (reading its maps and programs, a reload) must raise none.

The daemon runs as a systemd service would (INVOCATION_ID set) with the RoCE counters on a dummy
netdev of its own (a veth pair). Steps, each checked exactly (agent_tamper events in --record, AGENT-004
alerts in the file output):
  clean       bpftool prog/map/link show, a map dump, tc filter show, SIGHUP: nothing
  zero-map    bpftool writes zeros over the 'counters' map (hides ring buffer losses): one
              bpf_map_update_elem per bpftool process, each named (pid, bpftool), the map's id
  detach      BPF_LINK_DETACH on every link (the kernel refuses: EOPNOTSUPP): one refused
              bpf_link_detach per link, naming its bpftool process and the link's id
  tc-detach   `tc filter del` on both directions: two tc_filter events (netlink: no process
              known) and the filters are back
  signal      SIGTERM from this process (not systemd): one 'signal' event naming this pid and
              python, then a clean stop (agent_stop, exit 0)
  by hand     a second daemon without INVOCATION_ID: SIGTERM stops it with no AGENT-004
Needs root (exit 77 otherwise); exits 77 for a kernel without veth, saying why; fails when
bpftool, tc or ip is missing, or when a veth pair cannot be made on a kernel that has veth.
Environment: RG_RDMAGUARD, RG_SOURCE_ROOT, RG_TAMPER_SENSOR (the daemon's --sensor, default
tracepoint; the VM scenario `tamper` uses auto: fentry and LSM links), RG_TAMPER_DIR (where the
daemon's files go, default a temporary dir), RG_TAMPER_BY_HAND=0 (skip the second daemon: the VM
scenario, where a start costs 30 s).
"""
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "output"))
from test_rsyslog import read_jsonl as rsl_read_jsonl  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from tap import check, failed  # noqa: E402

RG = os.environ.get("RG_RDMAGUARD", "build/agent/rdmaguard")
SRC = os.environ.get("RG_SOURCE_ROOT", ".")
TAMPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tamper.py")
IFACE = "rgtamper%d" % (os.getpid() % 10000)


def tamper(*args, ok=(0, 1)):
    p = subprocess.run(["/usr/bin/python3", TAMPER] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=300)
    if p.returncode not in ok:
        raise RuntimeError("tamper.py %s: %s %s" % (args, p.stdout, p.stderr))
    return json.loads(p.stdout)


def read_jsonl(path):
    """The complete lines of a file the daemon is writing (the shared harness's reader: a
    malformed complete line fails); nothing while the daemon has not created it yet."""
    return rsl_read_jsonl(path) if os.path.exists(path) else []


class Daemon:
    def __init__(self, d, service=True):
        self.d = d
        self.events = os.path.join(d, "events.jsonl")
        self.alerts = os.path.join(d, "alerts.jsonl")
        pol = os.path.join(d, "policy.json")
        with open(pol, "w") as f:
            f.write('{"role": "managed", "aggregate_window": "5s"}\n')
        os.chmod(pol, 0o600)
        env = dict(os.environ, INVOCATION_ID="rdmaguard-test-tamper")
        if not service:
            del env["INVOCATION_ID"]
        self.log = open(os.path.join(d, "daemon.log"), "w")
        self.p = subprocess.Popen(
            [RG, "daemon", "--policy", pol, "--rules", os.path.join(SRC, "rules"),
             "--record", self.events, "--output", "file:" + self.alerts,
             "--ready-file", os.path.join(d, "ready"), "--status-socket",
             os.path.join(d, "status.sock"), "--state-dir", os.path.join(d, "state"),
             "--heartbeat", "3600", "--roce-if", IFACE,
             "--sensor", os.environ.get("RG_TAMPER_SENSOR", "tracepoint")],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 120
        while not os.path.exists(os.path.join(d, "ready")):
            if self.p.poll() is not None or time.time() > deadline:
                raise RuntimeError("the daemon did not start: " + self.tail())
            time.sleep(0.2)

    def status(self):
        p = subprocess.run([RG, "status", "--socket", os.path.join(self.d, "status.sock")],
                           capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            raise RuntimeError("rdmaguard status: exit %d: %s" % (p.returncode, p.stderr))
        return json.loads(p.stdout)

    def tail(self):
        self.log.flush()
        with open(os.path.join(self.d, "daemon.log")) as f:
            return f.read()[-2000:]

    def tampers(self):
        return [e for e in read_jsonl(self.events)
                if e.get("event", {}).get("action") == "agent_tamper"]

    def alerts_004(self):
        return [a for a in read_jsonl(self.alerts) if a.get("rule", {}).get("id") == "AGENT-004"]

    def settle(self, n_before, expected, timeout=30):
        """Waits until `expected` new agent_tamper events are recorded, then 2 s more (no
        extra one may follow); returns the new ones."""
        deadline = time.time() + timeout
        while time.time() < deadline and len(self.tampers()) < n_before + expected:
            time.sleep(0.2)
        time.sleep(2.5)
        return self.tampers()[n_before:]


def kernel_config():
    """The running kernel's configuration (CONFIG_X -> value), or None where it cannot be read."""
    for path in ("/proc/config.gz", "/boot/config-" + os.uname().release):
        try:
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt") as f:
                conf = {}
                for line in f:
                    if line.startswith("CONFIG_"):
                        k, _, v = line.strip().partition("=")
                        conf[k] = v
                    elif line.startswith("# CONFIG_") and line.rstrip().endswith(" is not set"):
                        conf[line.split()[1]] = "n"
                return conf
        except OSError:
            continue
    return None


def kernel_lacks(option, module):
    """Why the running kernel cannot have CONFIG_<option> (built in or module <module>), or None
    where it can: then failing to use it is a failure of the test's set-up, not a skip."""
    if os.path.exists("/sys/module/" + module):
        return None
    conf = kernel_config()
    if conf is not None:
        v = conf.get("CONFIG_" + option, "n")
        return None if v in ("y", "m") else f"CONFIG_{option} is not set in the running kernel"
    mods = "/lib/modules/" + os.uname().release
    found = subprocess.run(["find", mods, "-name", module + ".ko*"], capture_output=True,
                           text=True).stdout if os.path.isdir(mods) else ""
    if found:
        return None
    return (f"no kernel config to read, /sys/module/{module} absent and no {module}.ko in {mods}")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (BPF, tc, a netdev)")
        return 77
    # Missing tools are a broken test machine, not a kernel without the feature: fail.
    missing = [t for t in ("bpftool", "tc", "ip") if not shutil.which(t)]
    if missing:
        print(f"not ok - {', '.join(missing)} not installed (packaging/bootstrap.sh installs "
              f"bpftool and iproute2)")
        return 1
    p = subprocess.run(["ip", "link", "add", IFACE, "type", "veth", "peer", "name", IFACE + "p"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        why = kernel_lacks("VETH", "veth")
        if why:
            print(f"SKIP: no veth pair: {why}")
            return 77
        print(f"not ok - ip link add {IFACE} type veth: {p.stderr.strip()} (the kernel has veth)")
        return 1
    subprocess.run(["ip", "link", "set", IFACE, "up"], check=True)
    try:
        if os.environ.get("RG_TAMPER_DIR"):
            return run(os.environ["RG_TAMPER_DIR"])
        with tempfile.TemporaryDirectory(prefix="rg-tamper.") as d:
            return run(d)
    finally:
        subprocess.run(["ip", "link", "del", IFACE], capture_output=True)


def run(d):
    dm = Daemon(d)
    try:
        steps(dm)
    finally:
        if dm.p.poll() is None:
            dm.p.kill()
            dm.p.wait()
        if failed():
            print("# daemon log tail:\n" + dm.tail())
    # Run by hand (no INVOCATION_ID), a stop is the operator's: no AGENT-004.
    if os.environ.get("RG_TAMPER_BY_HAND") == "0":
        return 1 if failed() else 0
    d2 = os.path.join(d, "by-hand")
    os.mkdir(d2)
    dm = Daemon(d2, service=False)
    try:
        os.kill(dm.p.pid, signal.SIGTERM)
        rc = dm.p.wait(timeout=60)
        check(rc == 0 and dm.tampers() == [] and dm.alerts_004() == [],
              "not a service: SIGTERM stops it (exit %d) without AGENT-004" % rc)
    finally:
        if dm.p.poll() is None:
            dm.p.kill()
            dm.p.wait()
    return 1 if failed() else 0


def steps(dm):
    pid = dm.p.pid
    objs = tamper("objects", pid)
    check(len(objs["maps"]) >= 5 and len(objs["links"]) >= 5,
          "the daemon holds its maps and links (%d, %d)" % (len(objs["maps"]), len(objs["links"])))
    # The module object (fentry on ib_uverbs) shares the main object's maps: same id, two fds.
    counters = [m for m in objs["maps"] if m["name"] == "counters"]
    check(len({m["id"] for m in counters}) == 1, "it has one 'counters' map")
    tc = subprocess.run(["tc", "filter", "show", "dev", IFACE, "ingress"], capture_output=True,
                        text=True).stdout
    check("tc_roce_ingress" in tc, "the RoCE counters are on " + IFACE)
    # The bpf() calls below are seen by the flavour asked for; in auto mode by the best the
    # kernel has: fexit, else kretprobe on the syscall (any syscall tracepoint would put every
    # syscall of every task on the kernel's slow path), the tracepoints only where neither works.
    plan = dm.status()["sensors"]["hooks"]
    mode = os.environ.get("RG_TAMPER_SENSOR", "tracepoint")
    feat = plan["features"]
    want = mode if mode != "auto" else \
        "fentry" if feat["fentry"] else "kprobe" if feat["kprobe"] else "tracepoint"
    check(plan["hooks"]["self"]["active"] == want,
          "the self hook point is on %s (%s)" % (want, plan["hooks"]["self"]))

    # clean: reading is not tampering, nor is a reload
    for cmd in (["bpftool", "prog", "show"], ["bpftool", "map", "show"],
                ["bpftool", "link", "show"],
                ["bpftool", "map", "dump", "id", str(counters[0]["id"])],
                ["tc", "filter", "show", "dev", IFACE, "egress"]):
        subprocess.run(cmd, capture_output=True, check=True)
    os.kill(pid, signal.SIGHUP)
    time.sleep(3)
    check(dm.tampers() == [] and dm.alerts_004() == [],
          "clean run: no agent_tamper event, no AGENT-004 (%d)" % len(dm.tampers()))

    # zero-map: one bpftool per entry
    n = len(dm.tampers())
    r = tamper("zero-map", pid, "counters")
    new = dm.settle(n, r["zeroed"])
    check(r["zeroed"] >= 1 and len(new) == r["zeroed"],
          "zero-map: %d events for %d entries zeroed" % (len(new), r["zeroed"]))
    check(all(e["agent"]["what"] == "bpf_map_update_elem" and e["agent"].get("ok") == 1 and
              e["agent"]["count"] == counters[0]["id"] and
              e["process"]["name"] == "bpftool" for e in new),
          "zero-map: each is bpf_map_update_elem on 'counters' by bpftool, done")
    check(len({e["process"]["pid"] for e in new}) == len(new),
          "zero-map: each names its own bpftool process")

    # detach: refused by the kernel for perf_event and raw_tracepoint links, reported anyway
    n = len(dm.tampers())
    r = tamper("detach-links", pid)
    tried = r["detached"] + r["refused"]
    new = dm.settle(n, len(tried))
    check(len(tried) == len(objs["links"]) and len(new) == len(tried),
          "detach: %d events for %d attempts" % (len(new), len(tried)))
    by_id = {e["agent"]["count"]: e for e in new}
    check(sorted(by_id) == sorted(link["id"] for link in tried),
          "detach: one event per link id")
    check(all(e["agent"]["what"] == "bpf_link_detach" and e["process"]["name"] == "bpftool" and
              ("refused" in e["agent"]["text"]) == (e["agent"].get("ok", 0) == 0)
              for e in new),
          "detach: bpf_link_detach by bpftool, refused ones say so")
    check(all(e["agent"].get("ok", 0) == 0 for e in new) == (r["detached"] == []),
          "detach: refused exactly where the kernel refused")

    # tc-detach: netlink, so no process; the filters come back
    n = len(dm.tampers())
    tamper("tc-detach", IFACE)
    new = dm.settle(n, 2)
    check(len(new) == 2 and all(e["agent"]["what"] == "tc_filter" for e in new) and
          {("ingress" in e["agent"]["text"]) for e in new} == {True, False},
          "tc-detach: one tc_filter event per direction (%d)" % len(new))
    for dirn in ("ingress", "egress"):
        tc = subprocess.run(["tc", "filter", "show", "dev", IFACE, dirn], capture_output=True,
                            text=True).stdout
        check("tc_roce_" + dirn in tc, "tc-detach: the %s filter is back" % dirn)

    # signal: from a python process, not systemd, that has exited before the daemon reads the
    # signal (the daemon is stopped meanwhile): its name comes from the process tree, /proc has
    # nothing left of it
    n = len(dm.tampers())
    os.kill(pid, signal.SIGSTOP)
    try:
        r = tamper("signal", pid, "SIGTERM")
        check(not os.path.exists("/proc/%d" % r["sender"]), "signal: the sender has exited")
    finally:
        os.kill(pid, signal.SIGCONT)
    rc = dm.p.wait(timeout=60)
    check(rc == 0, "signal: the daemon stops cleanly (exit %d)" % rc)
    new = dm.tampers()[n:]
    check(len(new) == 1 and new[0]["agent"]["what"] == "signal" and
          new[0]["agent"]["count"] == signal.SIGTERM and
          new[0]["process"]["pid"] == r["sender"] and
          new[0]["process"].get("name", "").startswith("python3"),
          "signal: one event naming the sender %d" % r["sender"])
    check(any(e.get("event", {}).get("action") == "agent_stop" for e in read_jsonl(dm.events)),
          "signal: agent_stop follows")

    # the alerts: AGENT-004 for every event, counts exact, the tampering process in process.*
    events = dm.tampers()
    alerts = dm.alerts_004()
    check(sum(a["rdmaguard"].get("count", 1) for a in alerts) == len(events),
          "AGENT-004 counts sum to the %d events (%d alerts)" % (len(events), len(alerts)))
    named = [a for a in alerts if a["rdmaguard"]["agent"]["what"] not in ("tc_filter",)]
    check(all(a.get("process", {}).get("pid") and a["process"].get("name") for a in named),
          "every AGENT-004 but tc_filter names the process")
    check(all(a["process"].get("executable") == "/usr/sbin/bpftool" for a in named
              if a["rdmaguard"]["agent"]["what"].startswith("bpf_")),
          "the bpf() ones name /usr/sbin/bpftool as the executable")
    check(all(a["rdmaguard"]["severity"] in ("critical", "high") for a in alerts),
          "AGENT-004 is critical (high when refused)")
    print(f"# {len(events)} tamper events, {len(alerts)} AGENT-004 alerts")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, subprocess.SubprocessError, OSError) as e:
        print(f"not ok - {e}")
        sys.exit(1)
