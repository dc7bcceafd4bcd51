#!/usr/bin/python3
"""Enforcement's drop of RoCE v2 traffic with peers outside the fleet, in the TC programs, on this
machine's kernel: a veth pair with one end in a network namespace that has two addresses of each
family, a seat (in the policy's fleet) and an unmanaged box (not), and real UDP packets to port
4791 both ways, received (or not) by real sockets on the other side.

  1. enforcement on and a fleet: the seat's packets pass both ways, the box's are dropped both
     ways (IPv4 and IPv6); the drop is counted exactly (roce_traffic's packets_dropped, the
     Prometheus counter) and alerted (RDMA-012, the box as destination.ip, class unknown);
  2. a reload whose fleet has the box among its servers: its packets pass;
  3. `rdmaguard enforce --off`: nothing is dropped any more;
  4. a fleet without enforcement, and enforcement without a fleet: nothing is dropped.

Needs root and iproute2 (exit 77 without root). The programs are pinned in a private bpffs."""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from poll import poll  # noqa: E402
from tap import check, summary  # noqa: E402

RG = os.environ["RG_RDMAGUARD"]
RULES = os.path.join(os.environ.get("RG_SOURCE_ROOT",
                                    os.path.join(os.path.dirname(__file__), "..", "..", "..")),
                     "rules")
NS = f"rgtcd{os.getpid()}"
IF0, IF1 = f"rgd{os.getpid() % 10000}a", f"rgd{os.getpid() % 10000}b"
LOCAL, SEAT, BOX = "198.51.100.1", "198.51.100.2", "198.51.100.3"
LOCAL6, SEAT6, BOX6 = "fd00:7267::1", "fd00:7267::2", "fd00:7267::3"
N_IN, N_OUT, N6 = 10, 5, 4
DAEMONS = []


def ip(*args, ns=None):
    subprocess.run(["ip"] + (["-n", ns] if ns else []) + list(args), check=True,
                   capture_output=True, text=True)


def setup():
    ip("netns", "add", NS)
    ip("link", "add", IF0, "type", "veth", "peer", "name", IF1, "netns", NS)
    ip("addr", "add", f"{LOCAL}/29", "dev", IF0)
    ip("addr", "add", f"{LOCAL6}/64", "dev", IF0, "nodad")
    ip("link", "set", IF0, "up")
    for a in (SEAT, BOX):
        ip("addr", "add", f"{a}/29", "dev", IF1, ns=NS)
    for a in (SEAT6, BOX6):
        ip("addr", "add", f"{a}/64", "dev", IF1, "nodad", ns=NS)
    ip("link", "set", IF1, "up", ns=NS)
    ip("link", "set", "lo", "up", ns=NS)


def cleanup():
    subprocess.run(["ip", "link", "del", IF0], capture_output=True)
    subprocess.run(["ip", "netns", "del", NS], capture_output=True)


# A receiver in the namespace: one socket per address, counts for `secs` seconds, prints them.
RECEIVER = """
import json, select, socket, sys, time
socks = {}
for a in sys.argv[2:]:
    s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((a, 4791))
    socks[s] = a
print("ready", flush=True)
n = {a: 0 for a in sys.argv[2:]}
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    for s in select.select(list(socks), [], [], 0.1)[0]:
        s.recv(2048)
        n[socks[s]] += 1
print(json.dumps(n), flush=True)
"""

# A sender in the namespace: count packets from each source address to dst:4791.
SENDER = """
import socket, sys
dst, count = sys.argv[1], int(sys.argv[2])
for src in sys.argv[3:]:
    s = socket.socket(socket.AF_INET6 if ":" in src else socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((src, 0))
    for _ in range(count):
        s.sendto(b"r" * 100, (dst, 4791))
"""


def receive_local(addr, secs):
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, 4791))
    s.settimeout(0.2)
    return s


def count_from(sock, secs):
    n = {}
    end = time.monotonic() + secs
    while time.monotonic() < end:
        try:
            _, src = sock.recvfrom(2048)
        except socket.timeout:
            continue
        n[src[0]] = n.get(src[0], 0) + 1
    return n


def traffic():
    """Ingress: N_IN packets from SEAT and BOX, N6 from SEAT6 and BOX6. Egress: N_OUT to SEAT
    and BOX, N6 to SEAT6 and BOX6. What arrived: ({src: n} here, {dst: n} in the namespace)."""
    s4, s6 = receive_local(LOCAL, 0), receive_local(LOCAL6, 0)
    rx = subprocess.Popen(["ip", "netns", "exec", NS, "/usr/bin/python3", "-c", RECEIVER, "3",
                           SEAT, BOX, SEAT6, BOX6], stdout=subprocess.PIPE, text=True)
    rx.stdout.readline()  # ready
    for dst, n, srcs in ((LOCAL, N_IN, (SEAT, BOX)), (LOCAL6, N6, (SEAT6, BOX6))):
        subprocess.run(["ip", "netns", "exec", NS, "/usr/bin/python3", "-c", SENDER, dst, str(n),
                        *srcs], check=True)
    for dst, n in ((SEAT, N_OUT), (BOX, N_OUT), (SEAT6, N6), (BOX6, N6)):
        s = socket.socket(socket.AF_INET6 if ":" in dst else socket.AF_INET, socket.SOCK_DGRAM)
        for _ in range(n):
            try:
                s.sendto(b"l" * 100, (dst, 4791))
            except OSError:  # a drop on egress may say ENOBUFS
                pass
        s.close()
    here = count_from(s4, 1.0)
    here.update(count_from(s6, 0.5))
    s4.close()
    s6.close()
    there = json.loads(rx.communicate(timeout=30)[0])
    return here, there


def everything_passed(here, there):
    return (here == {SEAT: N_IN, BOX: N_IN, SEAT6: N6, BOX6: N6} and
            there == {SEAT: N_OUT, BOX: N_OUT, SEAT6: N6, BOX6: N6})


def wait_for(fn, timeout=20.0):
    return poll(fn, timeout)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Daemon:
    def __init__(self, tmp, name, policy_path, pin_dir):
        self.out = os.path.join(tmp, name + "-alerts.jsonl")
        self.record = os.path.join(tmp, name + ".jsonl")
        ready = os.path.join(tmp, name + ".ready")
        self.port = free_port()
        self.log = open(os.path.join(tmp, name + ".log"), "w", encoding="utf-8")
        self.p = subprocess.Popen(
            [RG, "daemon", "--policy", policy_path, "--rules", RULES, "--pin-dir", pin_dir,
             "--sensor", "tracepoint", "--roce-if", IF0, "--roce-interval", "1",
             "--record", self.record, "--output", "file:" + self.out, "--ready-file", ready,
             "--status-socket", "", "--no-inventory", "--heartbeat", "3600",
             "--metrics", f"127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        DAEMONS.append(self.p)
        ok = wait_for(lambda: os.path.exists(ready) or self.p.poll() is not None, 120)
        check(ok and self.p.poll() is None, f"daemon {name} is running")

    def lines(self, path):
        out = []
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                out = [json.loads(x) for x in f if x.endswith("\n") and x.strip()]
        return out

    def alerts(self, rule):
        return [a for a in self.lines(self.out) if a.get("rule", {}).get("id") == rule]

    def dropped(self):
        """packets_dropped of the roce_traffic events so far, by peer."""
        n = {}
        for e in self.lines(self.record):
            if e["event"]["action"] == "roce_traffic":
                p = e["rdma"]["peer"]["address"]
                n[p] = n.get(p, 0) + e["rdma"]["traffic"].get("packets_dropped", 0)
        return {p: v for p, v in n.items() if v}

    def metrics(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
            text = r.read().decode()
        return {line.rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1])
                for line in text.splitlines()
                if line.startswith("rdmaguard_")}

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        self.log.close()
        return rc


def write_policy(path, enforce, fleet):
    doc = {"role": "managed", "enforce": enforce, "seat": "T-1"}
    if fleet is not None:
        doc["fleet"] = fleet
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.rename(path + ".tmp", path)


def reload(d, n):
    d.p.send_signal(signal.SIGHUP)
    ok = wait_for(lambda: d.metrics().get(RELOADS_OK) == n, 20)
    check(ok, f"reload {n} is taken")


RELOADS_OK = 'rdmaguard_policy_reloads_total{result="ok"}'
FLEET = {"seats": [f"{SEAT}/32", f"{LOCAL}/32", "fd00:7267::2/128"],
         "servers": [{"address": "203.0.113.0/24", "name": "elsewhere"}]}
DROP_ACTIVE = "rdmaguard_rdma_peer_drop_active"
DROPPED_V2 = 'rdmaguard_rdma_dropped_packets_total{protocol="roce_v2"}'


def run(tmp, pin_dir):
    pol = os.path.join(tmp, "policy.json")

    # 1. enforcement on, a fleet
    write_policy(pol, True, FLEET)
    d = Daemon(tmp, "enforced", pol, pin_dir)
    m = d.metrics()
    check(m.get(DROP_ACTIVE) == 1 and m.get(DROPPED_V2) == 0,
          "enforced with a fleet: the drop is on, nothing dropped yet", m)
    here, there = traffic()
    check(here == {SEAT: N_IN, SEAT6: N6},
          f"in: the seat's packets pass ({N_IN} IPv4, {N6} IPv6), the box's are dropped", here)
    check(there == {SEAT: N_OUT, BOX: 0, SEAT6: N6, BOX6: 0},
          f"out: to the seat they pass ({N_OUT}, {N6}), to the box they are dropped", there)
    want = {BOX: N_IN + N_OUT, BOX6: 2 * N6}
    got = wait_for(lambda: d.dropped() if d.dropped() == want else None, 10) or d.dropped()
    check(got == want, f"roce_traffic counts the drops per peer exactly: {want}", got)
    m = d.metrics()
    check(m.get(DROPPED_V2) == N_IN + N_OUT + 2 * N6 and
          m.get('rdmaguard_rdma_dropped_packets_total{protocol="iwarp"}') == 0,
          f"the metric counts {N_IN + N_OUT + 2 * N6} RoCE v2 packets dropped", m)
    al = wait_for(lambda: {a["destination"]["ip"] for a in d.alerts("RDMA-012")} >= {BOX, BOX6},
                  10)
    alerts = d.alerts("RDMA-012")
    check(al and all(a["destination"]["ip"] in (BOX, BOX6) and
                     a["rdmaguard"]["peer"] == {"class": "unknown"} and
                     a["rdmaguard"]["severity"] == "high" and a["labels"]["seat"] == "T-1" for a in alerts),
          "RDMA-012 names the box (IPv4 and IPv6) as destination.ip, class unknown, high", alerts)

    # 2. a reload whose fleet has the box among its servers: it passes
    fleet2 = dict(FLEET, servers=FLEET["servers"] + [{"address": BOX, "name": "box"},
                                                      {"address": BOX6, "name": "box6"}])
    write_policy(pol, True, fleet2)
    reload(d, 1)
    here, there = traffic()
    check(everything_passed(here, there), "after the reload the box, now a server, passes",
          (here, there))

    # 3. enforce --off: the drop goes with it
    write_policy(pol, True, FLEET)
    reload(d, 2)
    here, _ = traffic()
    check(here == {SEAT: N_IN, SEAT6: N6}, "back to the first fleet: the box is dropped again",
          here)
    p = subprocess.run([RG, "enforce", "--off", "--pin-dir", pin_dir], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 0, "enforce --off", p.stderr)
    ok = wait_for(lambda: d.metrics().get(DROP_ACTIVE) == 0, 10)
    check(ok, "the daemon notices: the drop is off")
    here, there = traffic()
    check(everything_passed(here, there), "after enforce --off everything passes", (here, there))
    check(d.stop() == 0, "the daemon stops cleanly")

    # 4. a fleet without enforcement; enforcement without a fleet
    for name, enforce, fleet in (("fleet-only", False, FLEET), ("enforce-only", True, None)):
        write_policy(pol, enforce, fleet)
        d = Daemon(tmp, name, pol, pin_dir)
        here, there = traffic()
        check(everything_passed(here, there), f"{name}: nothing is dropped", (here, there))
        m = d.metrics()
        check(m.get(DROP_ACTIVE) == 0 and m.get(DROPPED_V2) == 0,
              f"{name}: the drop is off, nothing counted", m)
        check(d.stop() == 0, f"{name}: the daemon stops cleanly")
    subprocess.run([RG, "enforce", "--off", "--pin-dir", pin_dir], capture_output=True,
                   timeout=60)


def main():
    if os.geteuid() != 0:
        print("SKIP: TC programs, BPF pins and network namespaces need root")
        return 77
    try:
        setup()
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        cleanup()
        print(f"not ok - cannot set up a veth pair in a namespace: {e}")
        return 1
    tmp = tempfile.mkdtemp(prefix="rg-tcdrop-")
    bpffs = os.path.join(tmp, "bpffs")
    os.mkdir(bpffs)
    subprocess.run(["mount", "-t", "bpf", "bpf", bpffs], check=True)
    pin_dir = os.path.join(bpffs, "rdmaguard")
    try:
        run(tmp, pin_dir)
    finally:
        for p in DAEMONS:
            if p.poll() is None:
                p.kill()
                p.wait()
        subprocess.run([RG, "enforce", "--off", "--pin-dir", pin_dir], capture_output=True)
        subprocess.run(["umount", "-l", bpffs], check=False)
        cleanup()
        subprocess.run(["rm", "-rf", tmp], check=False)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
