#!/usr/bin/python3
"""Kernel RDMA through sockets on this machine's kernel: `rdmaguard daemon --sensor tracepoint`
(the flavour this kernel has) records rg-sock-probe's socket(AF_RDS), socket(AF_SMC),
socket(AF_INET, IPPROTO_SMC) and its RDS_GET_MR on a UDP socket, with the kernel's answers as the
probe saw them (on a kernel without rds or smc: EAFNOSUPPORT, ENOPROTOOPT: the attempts are
seen); and the alerts: no RDMA-005 for the refused option, RDMA-008 not armed by refused sockets.
Real RDS-over-IB and SMC traffic is the VM lab's (tests/vm/scenarios/rds-smc.sh).
Needs root (exit 77 otherwise). Environment: RG_RDMAGUARD, RG_SOCK_PROBE."""

import errno
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from tap import check, summary  # noqa: E402

RG = os.environ["RG_RDMAGUARD"]
PROBE = os.environ["RG_SOCK_PROBE"]


def plan():
    p = subprocess.run([RG, "daemon", "--dry-run", "--sensor", "tracepoint"],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"--dry-run exits 0 ({p.stderr.strip()})")
    hook = json.loads(p.stdout)["sensors"]["hooks"].get("sockets", {})
    check(hook.get("active") == "tracepoint", f"hook point sockets on tracepoints: {hook}")
    check(hook.get("programs") == [f"tracepoint/syscalls/sys_exit_{s}" for s in
                                   ("socket", "bind", "connect", "accept", "accept4",
                                    "setsockopt", "sendmsg", "sendmmsg")],
          f"its programs: {hook.get('programs')}")


def recorded_run():
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "events.jsonl")
        alerts = os.path.join(tmp, "alerts.jsonl")
        ready = os.path.join(tmp, "ready")
        d = subprocess.Popen([RG, "daemon", "--sensor", "tracepoint", "--record", record,
                              "--output", "file:" + alerts, "--ready-file", ready],
                             stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(ready) and time.monotonic() < deadline and d.poll() is None:
            time.sleep(0.1)
        check(os.path.exists(ready), "the daemon writes its ready file")
        drv = subprocess.run([PROBE, "attempts"], capture_output=True, text=True, timeout=60)
        check(drv.returncode == 0, f"the probe ran ({drv.stderr.strip()})")
        facts = {k: int(v) for k, v in
                 (line.split("=", 1) for line in drv.stdout.splitlines() if "=" in line)}
        pid = facts["pid"]
        time.sleep(1.5)  # the daemon polls every second at least
        d.send_signal(signal.SIGTERM)
        try:
            rc = d.wait(timeout=30)
        except subprocess.TimeoutExpired:
            d.kill()
            rc = -1
        check(rc == 0, f"SIGTERM stops the daemon with 0 (got {rc})")
        with open(record) as f:
            events = [json.loads(line) for line in f]
        with open(alerts) as f:
            alerts = [json.loads(line) for line in f if line.strip()]

    socks = [e for e in events if e["event"]["action"] == "rdma_socket"
             and e["process"]["pid"] == pid]

    def want(what, rdma, ret):
        """One event of the probe with these rdma fields, and the kernel's answer."""
        got = [e for e in socks if all(e["rdma"].get(k) == v for k, v in rdma.items())]
        check(len(got) == 1, f"{what}: one event ({len(got)} of {len(socks)})")
        if len(got) != 1:
            print("# the probe's events: " + json.dumps([e["rdma"] for e in socks]))
        if len(got) != 1:
            return
        e = got[0]
        if ret < 0:
            check(e["rdma"].get("ret") == ret and e["event"].get("flags") == ["failed"],
                  f"{what}: failed with {ret} as the probe saw ({e['rdma'].get('ret')})")
            check(e["rdma"]["fd"] == -1 or e["rdma"]["op"] != "socket", f"{what}: no fd")
        else:
            check("ret" not in e["rdma"] and "failed" not in e["event"].get("flags", []),
                  f"{what}: succeeded as the probe saw")
            check(e["rdma"]["fd"] == ret or e["rdma"]["op"] != "socket",
                  f"{what}: fd {ret}")
        check(e["process"]["name"] == "rg-sock-probe", f"{what}: the process")

    want("socket(AF_RDS)", {"op": "socket", "socket": {"family": "rds", "type": 5}},
         facts["rds_socket"])
    want("socket(AF_SMC)", {"op": "socket", "socket": {"family": "smc", "type": 1}},
         facts["smc_socket"])
    want("socket(AF_INET, IPPROTO_SMC)",
         {"op": "socket", "socket": {"family": "smc", "type": 1, "protocol": 256}},
         facts["smc_inet_socket"])
    want("RDS_GET_MR on a UDP socket",
         {"op": "get_mr", "fd": facts["udp_fd"], "mr": {
             "addr": 0x10000, "length": 4096,
             "access": ["local_write", "remote_write", "remote_read"]},
          "socket": {"family": "other", "type": 2, "protocol": 17, "option": 2}},
         facts["udp_get_mr"])
    check(len(socks) == 4, f"nothing else of the probe: {len(socks)} events")
    check(facts["udp_get_mr"] == -errno.ENOPROTOOPT, "the kernel refuses SOL_RDS on UDP")
    mine = [a for a in alerts if a.get("process", {}).get("pid") == pid]
    check(not [a for a in mine if a["rule"]["id"] in ("RDMA-005", "RDMA-008", "RDMA-009")],
          f"no RDMA-005/008/009 for refused attempts: {[a['rule']['id'] for a in mine]}")


def main():
    if os.geteuid() != 0:
        print("SKIP: the daemon attaches BPF programs and needs root")
        return 77
    plan()
    recorded_run()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
