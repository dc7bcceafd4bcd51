#!/usr/bin/python3
"""The RoCE v2 counters (TC) on this machine's kernel: a veth pair with one end in a network
namespace, `rdmaguard daemon --roce-if` on the other, real UDP packets to port 4791 both ways
(and to another port, which must not count). Asserts the roce_traffic events exactly and that the
daemon removes the clsact qdisc it added. Then a daemon killed with SIGKILL, whose filters stay
attached, and the next one, which must take them over (not fail with EEXIST) and count. Needs root
and iproute2 (exit 77 without root)."""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from tap import check, summary  # noqa: E402

RG = os.environ["RG_RDMAGUARD"]
NS = f"rgroce{os.getpid()}"
IF0, IF1 = f"rgv{os.getpid() % 10000}a", f"rgv{os.getpid() % 10000}b"
LOCAL, PEER = "198.51.100.1", "198.51.100.2"
PAYLOAD = 100
FRAME = 14 + 20 + 8 + PAYLOAD  # what TC counts: Ethernet + IPv4 + UDP + payload


def ip(*args, ns=None):
    cmd = ["ip"] + (["-n", ns] if ns else []) + list(args)
    subprocess.run(cmd, check=True, capture_output=True, text=True)


def setup():
    ip("netns", "add", NS)
    ip("link", "add", IF0, "type", "veth", "peer", "name", IF1, "netns", NS)
    ip("addr", "add", f"{LOCAL}/30", "dev", IF0)
    ip("link", "set", IF0, "up")
    ip("addr", "add", f"{PEER}/30", "dev", IF1, ns=NS)
    ip("link", "set", IF1, "up", ns=NS)
    ip("link", "set", "lo", "up", ns=NS)


def cleanup():
    subprocess.run(["ip", "link", "del", IF0], capture_output=True)
    subprocess.run(["ip", "netns", "del", NS], capture_output=True)


def send_from_ns(port, count):
    code = (f"import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            f"for i in range({count}): s.sendto(b'x' * {PAYLOAD}, ('{LOCAL}', {port}))\n")
    subprocess.run(["ip", "netns", "exec", NS, "/usr/bin/python3", "-c", code], check=True)


def main():
    if os.geteuid() != 0:
        print("SKIP: TC programs and network namespaces need root")
        return 77
    try:
        setup()
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        cleanup()
        print(f"not ok - cannot set up a veth pair in a namespace: {e}")
        return 1
    try:
        run()
    finally:
        cleanup()
    return summary()


def start_daemon(tmp, name):
    record, ready = os.path.join(tmp, f"{name}.jsonl"), os.path.join(tmp, f"{name}.ready")
    d = subprocess.Popen([RG, "daemon", "--sensor", "tracepoint", "--record", record,
                          "--ready-file", ready, "--roce-if", IF0, "--roce-interval", "1",
                          "--status-socket", os.path.join(tmp, f"{name}.sock"),
                          "--output", "file:" + os.path.join(tmp, f"{name}-alerts.jsonl")])
    deadline = time.monotonic() + 60
    while not os.path.exists(ready) and time.monotonic() < deadline and d.poll() is None:
        time.sleep(0.1)
    check(os.path.exists(ready), f"the daemon ({name}) is ready")
    return d, record


def qdiscs():
    return subprocess.run(["tc", "qdisc", "show", "dev", IF0], capture_output=True,
                          text=True).stdout


def ours(direction):
    """Our filter (handle 0x52474) on IF0's ingress or egress hook."""
    out = subprocess.run(["tc", "filter", "show", "dev", IF0, direction], capture_output=True,
                         text=True).stdout
    return "handle 0x52474" in out


def traffic_and_stop(d, record):
    """Send the packets, stop the daemon; its events."""
    send_from_ns(4791, 10)        # RoCE v2 in
    send_from_ns(4792, 3)         # not RoCE
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(5):            # RoCE v2 out
        s.sendto(b"y" * PAYLOAD, (PEER, 4791))
    s.close()
    time.sleep(3)                 # two report periods
    d.send_signal(signal.SIGTERM)
    check(d.wait(timeout=30) == 0, "the daemon stops cleanly")
    with open(record) as f:
        return [json.loads(line) for line in f]


def check_counts(events):
    roce = [e for e in events if e["event"]["action"] == "roce_traffic"]
    check(len(roce) >= 1, f"roce_traffic reported ({len(roce)} events)")
    for e in roce:
        check(e["rdma"]["peer"]["address"] == PEER and e["rdma"]["local"]["address"] == LOCAL,
              f"peer {PEER}, local {LOCAL}: {e['rdma']}")
        check(e["rdma"]["netdev"] == IF0 and e["network"]["iana_number"] == 17,
              "the interface and the protocol (UDP) are named")
    tot = {k: sum(e["rdma"]["traffic"].get(k, 0) for e in roce)
           for k in ("packets_in", "bytes_in", "packets_out", "bytes_out")}
    check(tot["packets_in"] == 10 and tot["bytes_in"] == 10 * FRAME,
          f"10 RoCE v2 packets in, {10 * FRAME} bytes (got {tot})")
    check(tot["packets_out"] == 5 and tot["bytes_out"] == 5 * FRAME,
          f"5 RoCE v2 packets out, {5 * FRAME} bytes (got {tot})")


def run():
    with tempfile.TemporaryDirectory() as tmp:
        d, record = start_daemon(tmp, "first")
        check("clsact" in qdiscs(), f"a clsact qdisc on {IF0}")
        events = traffic_and_stop(d, record)
        check("clsact" not in qdiscs(), "the daemon removed the clsact qdisc it added")
        check_counts(events)

        # A daemon that dies without detaching leaves its filters; the next one (systemd
        # restarts it) must replace them, not fail with EEXIST and leave RoCE uncounted.
        d, record = start_daemon(tmp, "killed")
        d.send_signal(signal.SIGKILL)
        d.wait(timeout=30)
        check(ours("ingress") and ours("egress"), "a killed daemon's filters stay attached")
        d, record = start_daemon(tmp, "restarted")
        events = traffic_and_stop(d, record)
        degraded = [e for e in events if e["event"]["action"] == "agent_sensor"
                    and e["agent"].get("what") == "roce" and not e["agent"].get("ok")]
        check(not degraded, f"the restarted daemon attached its counters ({degraded})")
        check_counts(events)
        check(not ours("ingress") and not ours("egress"), "and removed them when it stopped")


if __name__ == "__main__":
    sys.exit(main())
