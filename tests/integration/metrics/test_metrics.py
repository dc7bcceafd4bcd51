#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The seat's identity, its peers and its metrics, end to end (suite "daemon", root).

One daemon runs with a policy that names the seat ("seat": "B-12") and a fleet that the
driver's peer (192.0.2.7) is no part of, and with --metrics on 127.0.0.1. A real Prometheus
(Debian's) scrapes it every second. rg-host-driver (tests/integration/host) then raises RDMA-004,
RDMA-005 and RDMA-009 (MODIFY_QP to RTR with that peer) from a new process, and the test checks:

  - Prometheus's HTTP API sees rdmaguard_alerts_total{rule="RDMA-009"} and the critical
    alerts counter move by exactly one, and up{job="rdmaguard"} == 1;
  - `promtool check metrics` passes the scraped text with nothing to say; the endpoint answers
    404 elsewhere and 405 to POST;
  - the RDMA-009 alert names the peer (destination.ip, related.ip), classes it "unknown" and is
    raised from high to critical; RDMA-005 (no peer) carries neither;
  - the endpoint's bounds: a third connection from one address is refused, idle ones are
    closed after 5 s;
  - every alert, the heartbeat and `rdmaguard status` carry the seat's identity, compared with
    what this test reads itself: /etc/machine-id, gethostname, uname, /etc/os-release,
    `ip -j addr` / `ip -j link`, the sha256 of the policy file, labels.seat;
  - the heartbeat and `status` carry hw.fingerprint, the sha256 of `rdmaguard baseline save`'s
    output with the host name left empty, and pci.dsn[], the DSNs `lspci -vvv` prints (none on
    a machine without any: then the empty list).

Scenario "gate" (daemon-metrics-gate): --metrics off loopback is refused at start without the
policy's "metrics" gate (and with a token file others may read, or a short token); with HTTPS, a
bearer token and "scrapers": ["127.0.0.1"] on 0.0.0.0 a real Prometheus scrapes over HTTPS with
the token, a request without it or with a wrong one gets 401, plain HTTP gets nothing, another
address is refused at accept, and 16 other addresses holding 2 idle connections each (the
endpoint's 32) for 10 s do not keep Prometheus from one scrape a second; "plaintext_lan": true
serves plain HTTP without the sensors' hook flavours and warns at start.

Exits 77 only when not root; a missing prometheus or promtool fails.
"""
import hashlib
import http.client as http_client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
sys.path.insert(0, os.path.join(HERE, "..", "output"))
import test_daemon_siem as td  # noqa: E402
import test_rsyslog as rsl  # noqa: E402
from test_rsyslog import Failure, check, read_jsonl, wait_for  # noqa: E402

PROMETHEUS = "/usr/bin/prometheus"
PROMTOOL = "/usr/bin/promtool"
POLICY = """{
  "role": "managed",
  "seat": "B-12",
  "fleet": {"seats": ["10.99.0.0/24"], "servers": [{"address": "10.99.1.5", "name": "gs-1"}]}
}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url, method="GET"):
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read().decode()


class Prometheus:
    def __init__(self, d, target, job=""):
        """job: more lines of the rdmaguard job (indented 4), e.g. its scheme and credentials."""
        self.dir = os.path.join(d, "prometheus")
        os.makedirs(self.dir)
        self.port = free_port()
        self.log = os.path.join(self.dir, "prometheus.log")
        conf = os.path.join(self.dir, "prometheus.yml")
        with open(conf, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: rdmaguard\n" + job +
                    "    static_configs:\n      - targets: ['%s']\n" % target)
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [PROMETHEUS, "--config.file=" + conf, "--storage.tsdb.path=" + self.dir + "/data",
             "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"],
            stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        logf.close()
        rsl.CHILDREN.append(self.proc)

        def ready():
            if self.proc.poll() is not None:
                raise Failure("prometheus exited with %s" % self.proc.returncode)
            try:
                return http("http://127.0.0.1:%d/-/ready" % self.port)[0] == 200
            except OSError:
                return False
        wait_for(ready, 60, "prometheus to be ready", 0.2)

    def query(self, q):
        """{labels-tuple: value} of an instant query."""
        st, _, body = http("http://127.0.0.1:%d/api/v1/query?%s"
                           % (self.port, urllib.parse.urlencode({"query": q})))
        check(st == 200, "prometheus query %s: %s %s" % (q, st, body[:200]))
        doc = json.loads(body)
        check(doc["status"] == "success", "query %s: %s" % (q, doc))
        return [float(r["value"][1]) for r in doc["data"]["result"]]

    def stop(self):
        self.proc.terminate()
        rc = self.proc.wait(30)
        check(rc == 0, "prometheus stops with 0 on SIGTERM (got %s)" % rc)


def os_release():
    vals = {}
    with open("/etc/os-release") as f:
        for line in f:
            if "=" in line and not line.startswith("#"):
                k, v = line.rstrip("\n").split("=", 1)
                vals[k] = v.strip('"\'')
    return vals


def expected_addrs():
    """host.ip and host.mac as `ip` sees them: non-loopback, IPv6 link-local left out."""
    addrs = json.loads(subprocess.run(["ip", "-j", "addr"], capture_output=True, text=True,
                                      check=True).stdout)
    ips, macs = set(), set()
    for i in addrs:
        if "LOOPBACK" in i.get("flags", []):
            continue
        for a in i.get("addr_info", []):
            if not (a["family"] == "inet6" and a["local"].lower().startswith("fe80")):
                ips.add(a["local"])
        mac = i.get("address", "")
        if mac.count(":") == 5 and mac != "00:00:00:00:00:00":
            macs.add(mac.upper().replace(":", "-"))
    return sorted(ips), sorted(macs)


def check_host(host, what):
    with open("/etc/machine-id") as f:
        mid = f.read().strip()
    osr = os_release()
    check(host.get("id") == mid, "%s: host.id %r is /etc/machine-id %r" % (what, host.get("id"),
                                                                          mid))
    check(host.get("name") == socket.gethostname() == host.get("hostname"),
          "%s: host.name %r" % (what, host.get("name")))
    want_os = {"type": "linux", "name": osr["NAME"], "version": osr["VERSION_ID"],
               "full": osr["PRETTY_NAME"], "platform": osr["ID"],
               "family": osr.get("ID_LIKE", osr["ID"]).split()[0],
               "kernel": os.uname().release}
    check(host.get("os") == want_os, "%s: host.os %s, want %s" % (what, host.get("os"), want_os))
    ips, macs = expected_addrs()
    check(sorted(host.get("ip", [])) == ips and sorted(host.get("mac", [])) == macs,
          "%s: host.ip %s host.mac %s, ip(8) says %s %s" % (what, host.get("ip"),
                                                             host.get("mac"), ips, macs))


def expected_hardware():
    """hw.fingerprint and pci.dsn[] as this test finds them itself: the sha256 of what
    `rdmaguard baseline save` writes, its host name left empty (docs/seat.md), and every Device
    Serial Number lspci prints, sorted, once each."""
    p = subprocess.run([td.RG, "baseline", "save", "-"], capture_output=True, text=True,
                       timeout=30)
    check(p.returncode == 0, "baseline save: %s" % p.stderr)
    text, n = re.subn(r'^(\{[^\n]*"host": )"[^"]*"', r'\1""', p.stdout, count=1)
    check(n == 1, "baseline save names a host: %r" % p.stdout[:120])
    lspci = subprocess.run(["lspci", "-vvv"], capture_output=True, text=True, timeout=30,
                           check=True).stdout
    dsns = sorted(set(m.lower() for m in
                      re.findall(r"Device Serial Number ([0-9a-fA-F-]{23})", lspci)))
    return hashlib.sha256(text.encode()).hexdigest(), dsns


def scenario_metrics(d):
    policy = os.path.join(d, "policy.json")
    td.write_policy(policy, POLICY)
    with open(policy, "rb") as f:
        policy_sha = hashlib.sha256(f.read()).hexdigest()
    alerts_file = os.path.join(d, "alerts.jsonl")
    mport = free_port()
    target = "127.0.0.1:%d" % mport
    # a bare port: loopback, the default
    dm = td.Daemon(d, ["file:" + alerts_file], policy=policy,
                   extra=["--metrics", str(mport), "--heartbeat", "1"])
    t0 = time.monotonic()
    prom = Prometheus(d, target)
    print("prometheus ready in %.1f s" % (time.monotonic() - t0))

    q009 = 'sum(rdmaguard_alerts_total{job="rdmaguard",rule="RDMA-009"})'
    qcrit = 'sum(rdmaguard_alerts_total{job="rdmaguard",severity="critical"})'
    before = wait_for(lambda: prom.query(q009) and prom.query(qcrit) and
                      (prom.query(q009)[0], prom.query(qcrit)[0]), 30,
                      "prometheus to scrape the daemon", 0.2)
    check(prom.query('up{job="rdmaguard"}') == [1.0], "up{job=rdmaguard} is 1")
    pids = td.drive(1)
    t1 = time.monotonic()
    after = wait_for(lambda: (prom.query(q009)[0], prom.query(qcrit)[0]) != before and
                     (prom.query(q009)[0], prom.query(qcrit)[0]), 30,
                     "prometheus to see the alerts move", 0.2)
    print("prometheus saw the alert %.1f s after the driver" % (time.monotonic() - t1))
    time.sleep(2.5)  # two more scrapes: nothing else moves them
    after = (prom.query(q009)[0], prom.query(qcrit)[0])
    check(after == (before[0] + 1, before[1] + 1),
          "RDMA-009 and critical alerts moved by exactly one: %s -> %s" % (before, after))

    st, ctype, text = http("http://%s/metrics" % target)
    check(st == 200 and ctype.startswith("text/plain; version=0.0.4"), "GET /metrics: %s %s"
          % (st, ctype))
    p = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=30)
    check(p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(),
          "promtool check metrics: rc %s %s %s" % (p.returncode, p.stdout, p.stderr))
    for want in ('rdmaguard_build_info{version="', 'rdmaguard_seat_info{seat="B-12",host_id="',
                 'rdmaguard_sensor_info{sensor="verbs",flavour="tracepoint"} 1',
                 'rdmaguard_enforcement_active 0', 'rdmaguard_policy_generation 1'):
        check(want in text, "the exposition has %s" % want)
    # the client libraries' process families, with values a running daemon has
    proc = dict(re.findall(r"^(process_[a-z_]+) ([0-9.e+]+)$", text, re.M))
    for fam in ("process_cpu_seconds_total", "process_resident_memory_bytes",
                "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
                "process_start_time_seconds"):
        check(fam in proc, "the exposition has %s" % fam)
    check(float(proc.get("process_resident_memory_bytes", 0)) > 1 << 20 and
          float(proc.get("process_cpu_seconds_total", 0)) > 0 and
          int(float(proc.get("process_open_fds", 0))) > 3 and
          abs(float(proc.get("process_start_time_seconds", 0)) - time.time()) < 3600,
          "process_* values are the daemon's: %s" % proc)
    check("rdmaguard_alerts_by_severity_total" not in text,
          "no label's name in a metric's name (alerts by severity are a label of alerts_total)")
    labels = set(re.findall(r'output="([^"]*)"', text))
    check(labels == {"file"}, "the file output's label is its kind, not its path: %s" % labels)
    # every family exported is documented, and every documented one exported
    exported = set(re.findall(r"^# TYPE (rdmaguard_[a-z_]+) ", text, re.M))
    with open(os.path.join(td.SRC, "docs", "metrics.md")) as f:
        rows = re.findall(r"^\| `(rdmaguard_[a-z_]+)`(?:, `(rdmaguard_[a-z_]+)`)?", f.read(),
                          re.M)
    documented = set(sum(rows, ()))
    documented.discard("")
    bpf_only = {"rdmaguard_bpf_program_run_seconds_total"}
    check(exported - documented == set() and documented - exported <= bpf_only,
          "docs/metrics.md lists the exported families: undocumented %s, not exported %s"
          % (sorted(exported - documented), sorted(documented - exported)))
    check(http("http://%s/other" % target)[0] == 404, "404 outside /metrics")
    check(http("http://%s/metrics" % target, "POST")[0] == 405, "405 to POST")

    def mine():
        a = [o for o in read_jsonl(alerts_file) if o.get("event", {}).get("kind") == "alert"
             and o.get("process", {}).get("pid") in pids]
        return a if {td.rid(o) for o in a} >= {"RDMA-005", "RDMA-009"} else None
    alerts = wait_for(mine, 30, "the driver's alerts in the file", 0.2)
    td.validate(alerts)
    conn = [a for a in alerts if td.rid(a) == "RDMA-009"]
    check(len(conn) == 1, "one RDMA-009: %d" % len(conn))
    c = conn[0]
    check(c.get("destination") == {"ip": "192.0.2.7"}, "destination %s" % c.get("destination"))
    check(c.get("related") == {"ip": ["192.0.2.7"]}, "related %s" % c.get("related"))
    check(c["rdmaguard"].get("peer") == {"class": "unknown"}, "peer %s" % c["rdmaguard"])
    check(c["rdmaguard"]["severity"] == "critical" and c["event"]["severity"] == 4,
          "an unknown RDMA peer raises RDMA-009 from high to critical: %s"
          % c["rdmaguard"]["severity"])
    reg = [a for a in alerts if td.rid(a) == "RDMA-005"][0]
    check("destination" not in reg and "related" not in reg and
          "peer" not in reg.get("rdmaguard", {}), "RDMA-005 names no peer")
    ver = subprocess.run([td.RG, "version"], capture_output=True, text=True).stdout.split()
    for a in alerts:
        check(a["labels"] == {"seat": "B-12"}, "labels.seat: %s" % a.get("labels"))
        check(a["agent"] == {"type": "rdmaguard", "version": ver[1]},
              "agent %s (rdmaguard version: %s)" % (a.get("agent"), ver))
        check(a["rdmaguard"]["policy"] == {"sha256": policy_sha}, "policy sha256")
        check_host(a["host"], "alert %s" % td.rid(a))

    hb = wait_for(lambda: [o for o in read_jsonl(alerts_file)
                           if o.get("event", {}).get("action") == "agent_heartbeat"], 10,
                  "a heartbeat", 0.2)[-1]
    check_host(hb["host"], "heartbeat")
    fp, dsns = expected_hardware()
    hbr = hb.get("rdmaguard", {})
    check(hbr.get("hw") == {"fingerprint": fp} and hbr.get("pci") == {"dsn": dsns},
          "heartbeat rdmaguard.hw %s rdmaguard.pci %s, want %s %s"
          % (hbr.get("hw"), hbr.get("pci"), fp, dsns))
    print("hw.fingerprint %s, pci.dsn %s" % (fp, dsns))
    check(hb["labels"] == {"seat": "B-12"} and hb["rdmaguard"]["policy"]["sha256"] == policy_sha
          and hb["agent"]["version"] == ver[1], "heartbeat seat, policy, version")
    st = dm.status()
    check_host(st["host"], "status")
    check(st.get("hw") == {"fingerprint": fp} and st.get("pci") == {"dsn": dsns},
          "status hw %s pci %s" % (st.get("hw"), st.get("pci")))
    check(st["labels"] == {"seat": "B-12"} and st["metrics"]["listen"] == str(mport) and
          st["metrics"]["url"] == "http://%s/metrics" % target and
          st["metrics"]["scrapes"] >= 3, "status: seat and metrics %s" % st.get("metrics"))
    prom.stop()
    check_bounds(target)
    dm.stop()


def check_bounds(target):
    """At most 2 connections per client address; an idle connection is closed after 5 s."""
    host, port = target.rsplit(":", 1)
    idle = [socket.create_connection((host, int(port)), timeout=30) for _ in range(2)]
    t0 = time.monotonic()
    try:
        st = http("http://%s/metrics" % target)[0]
    except (OSError, http_client.HTTPException) as e:
        st = type(e).__name__
    check(st != 200, "a third connection from one address is refused (got %s)" % st)
    for c in idle:
        check(c.recv(1) == b"", "the server closes an idle connection")
    waited = time.monotonic() - t0
    check(4.5 <= waited <= 8, "idle connections closed after the 5 s timeout: %.1f s" % waited)
    for c in idle:
        c.close()
    # The server learns of the closes when it next polls them, and Prometheus's own keep-alive
    # scrape connection counts against the same address: retry for a few seconds.
    st, deadline = None, time.monotonic() + 5
    while st != 200 and time.monotonic() < deadline:
        try:
            st = http("http://%s/metrics" % target)[0]
        except (OSError, http_client.HTTPException) as e:
            st = type(e).__name__
            time.sleep(0.2)
    check(st == 200, "scrapes work again (got %s)" % st)
    print("per-address limit held, idle connections closed after %.1f s" % waited)


def parse_metrics(text):
    """{(name, frozenset of label pairs): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$', line)
        check(m is not None, "an exposition line: %r" % line)
        labels = frozenset(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


class Scrape:
    """One GET /metrics, read by output (and reason)."""

    def __init__(self, target):
        st, _, self.text = http("http://%s/metrics" % target)
        check(st == 200, "GET /metrics: %s" % st)
        self.m = parse_metrics(self.text)

    def get(self, family, output, **labels):
        key = (family, frozenset([("output", output)] + list(labels.items())))
        check(key in self.m, "the exposition has %s{output=%r,%s}" % (family, output, labels))
        return int(self.m[key])

    def outputs(self):
        return {dict(ls)["output"] for (n, ls) in self.m
                if n == "rdmaguard_output_submitted_records_total"}

    def counters(self):
        """Every rdmaguard_output_* sample: equal in two scrapes means nothing moved."""
        return {k: v for k, v in self.m.items() if k[0].startswith("rdmaguard_output_")}


def frame_len(raw):
    """The octet-counted frame (RFC 6587 3.4.1) of an RFC 5424 message of raw bytes."""
    return len(str(len(raw))) + 1 + len(raw)


def settled(target, net, files, status=None):
    """Scrapes until every queue and spool is empty and nothing moves between two scrapes with
    the collectors' files read (and status() called) in between; returns (scrape, {path:
    bytes}), or with status (scrape, {path: bytes}, what status() returned)."""
    def once():
        a = Scrape(target)
        busy = any(a.get("rdmaguard_output_queue_records", o) for o in a.outputs()) or any(
            a.get("rdmaguard_output_spool_records", o) for o in net)
        if busy:
            return None
        data = {}
        for f in files:
            with open(f, "rb") as fh:
                data[f] = fh.read()
        st = status() if status else None
        time.sleep(0.3)
        b = Scrape(target)
        if a.counters() != b.counters():
            return None
        return (b, data, st) if status else (b, data)
    return wait_for(once, 60, "the outputs to settle", 0.5)


def received(data):
    """rsyslog's records (test_rsyslog's template) of a received.jsonl read as bytes."""
    return [json.loads(line.decode()) for line in data.split(b"\n")[:-1]]


def scenario_outputs(d):
    """Bytes and records per output, against what the file and two real rsyslogs received."""
    fs = os.path.join(d, "fs")
    os.makedirs(fs)
    # The file output on a small tmpfs of its own, which the test fills to make it unwritable.
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "rg-metrics", fs],
                   check=True)
    try:
        outputs_scenario(d, fs)
    finally:
        subprocess.run(["umount", "-l", fs], check=False)


def outputs_scenario(d, fs):
    sys.path.insert(0, os.path.join(HERE, "..", "output"))
    import test_relp  # noqa: E402
    policy = os.path.join(d, "policy.json")
    td.write_policy(policy, POLICY)
    alerts_file = os.path.join(fs, "alerts.jsonl")
    tcp = rsl.Rsyslog(d, name="rsyslog-tcp")
    tcp.start()
    relp = test_relp.RelpRsyslog(d)
    relp.start()
    o_file = "file"  # the label: a file output is named by its kind, never by its path
    o_tcp = "syslog+tcp://127.0.0.1:%d" % tcp.port
    o_relp = "relp://127.0.0.1:%d" % relp.port
    mport = free_port()
    target = "127.0.0.1:%d" % mport
    dm = td.Daemon(d, ["file:" + alerts_file, o_tcp, o_relp], policy=policy,
                   extra=["--metrics", target, "--heartbeat", "3600"])
    prom = Prometheus(d, target)
    net = (o_tcp, o_relp)
    F = "rdmaguard_output_"

    # 1. Healthy: every output delivers every alert, byte for byte.
    td.drive(1)
    sc, data = settled(target, net, [alerts_file, tcp.out, relp.out])
    lines = data[alerts_file].split(b"\n")[:-1]
    check(len(lines) >= 3, "the driver's alerts in the file: %d lines" % len(lines))
    check(sc.get(F + "written_bytes_total", o_file) == sc.get(F + "delivered_bytes_total", o_file)
          == len(data[alerts_file]),
          "file: written and delivered bytes %d %d, the file holds %d"
          % (sc.get(F + "written_bytes_total", o_file),
             sc.get(F + "delivered_bytes_total", o_file), len(data[alerts_file])))
    check(sc.get(F + "written_records_total", o_file) ==
          sc.get(F + "delivered_records_total", o_file) == len(lines), "file: records")
    t_raw = [r["raw"].encode() for r in received(data[tcp.out])]
    r_raw = [r["raw"].encode() for r in received(data[relp.out])]
    check(len(t_raw) == len(r_raw) == len(lines), "every alert once everywhere: %d %d %d"
          % (len(lines), len(t_raw), len(r_raw)))
    want = sum(frame_len(r) for r in t_raw)
    for fam in ("sent_bytes_total", "delivered_bytes_total"):
        check(sc.get(F + fam, o_tcp) == want, "syslog+tcp %s %d, rsyslog received %d bytes in "
              "frames" % (fam, sc.get(F + fam, o_tcp), want))
    check(sc.get(F + "spooled_bytes_total", o_tcp) == sum(len(r) for r in t_raw),
          "syslog+tcp spooled bytes are the messages'")
    want = sum(len(r) for r in r_raw)
    for fam in ("spooled_bytes_total", "sent_bytes_total", "delivered_bytes_total"):
        check(sc.get(F + fam, o_relp) == want, "relp %s %d, rsyslog imrelp received %d bytes"
              % (fam, sc.get(F + fam, o_relp), want))
    for o in net:
        for fam in ("spooled_records_total", "sent_records_total", "delivered_records_total"):
            check(sc.get(F + fam, o) == len(lines), "%s %s %d" % (o, fam, sc.get(F + fam, o)))
    fails = {k: v for k, v in sc.m.items() if k[0].startswith(F + "failed_")}
    check(fails and not any(fails.values()), "nothing failed yet: %s" % fails)
    check({dict(k[1])["reason"] for k in fails} == {"write_error", "connection_lost",
                                                   "spool_error"}, "failure reasons")
    print("healthy: %d alerts, file %d bytes, syslog %d bytes, relp %d bytes"
          % (len(lines), len(data[alerts_file]), sc.get(F + "delivered_bytes_total", o_tcp),
             want))

    # 2. The file's disk full; the syslog collector killed while records are in flight, then
    # unreachable for a while, then back.
    fd = os.open(os.path.join(fs, "filler"), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        while os.write(fd, b"\0" * 4096) > 0:
            pass
    except OSError:
        pass
    os.close(fd)
    before = Scrape(target)
    tcp_lines = len(t_raw)
    # the driver in the background: its alerts are confirmed 1 s after they are sent
    drv = subprocess.Popen([td.DRIVER, "verbs"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    rsl.CHILDREN.append(drv)

    def in_flight():
        s = Scrape(target)
        return s.get(F + "sent_records_total", o_tcp) > s.get(F + "delivered_records_total",
                                                               o_tcp)
    wait_for(in_flight, 20, "syslog records sent and not yet confirmed", 0.01)
    tcp.stop(signal.SIGKILL)
    check(drv.wait(60) == 0, "rg-host-driver verbs")
    with open(tcp.out, "rb") as f:
        killed_at = len(received(f.read()))
    wait_for(lambda: Scrape(target).get(F + "connect_failures_total", o_tcp) >
             before.get(F + "connect_failures_total", o_tcp), 20,
             "connections to the killed collector to fail")
    tcp.start()
    # a loss report for the file's drops may come up to 10 s later (and fail there too): the
    # status is read within one still moment with the rest
    sc, data, st = settled(target, net, [alerts_file, tcp.out], status=dm.status_socket)

    # the file: what it holds is what was written; every alert it lacks failed, bytes exact
    check(sc.get(F + "written_bytes_total", o_file) == len(data[alerts_file]),
          "file: written bytes %d, the file holds %d" % (sc.get(F + "written_bytes_total", o_file),
                                                         len(data[alerts_file])))
    recs = received(data[tcp.out])
    by_id = {}
    for r in recs:
        by_id.setdefault(json.loads(r["msg"])["event"]["id"], r)
    in_file = {json.loads(x)["event"]["id"] for x in data[alerts_file].split(b"\n")[:-1]}
    lost = [r for i, r in by_id.items() if i not in in_file]
    nf = sc.get(F + "failed_records_total", o_file, reason="write_error")
    # each failed line is dropped too: an alert, or a loss report (AGENT-001) counted apart
    fst = [o for o in st["outputs"] if o["name"] == "file:" + alerts_file][0]
    dropped = sc.get(F + "dropped_records_total", o_file, reason="write_error")
    check(nf >= 1 and nf == len(lost) == dropped + fst["dropped"]["loss_reports"],
          "file: failed %d, alerts missing from it %d, dropped %d + %d loss reports" % (
              nf, len(lost), dropped, fst["dropped"]["loss_reports"]))
    want = sum(len(r["msg"].encode()) + 1 for r in lost)
    check(sc.get(F + "failed_bytes_total", o_file, reason="write_error") == want,
          "file: failed bytes %d, the lines it lacks %d" % (
              sc.get(F + "failed_bytes_total", o_file, reason="write_error"), want))
    # syslog: in flight at the kill = failed = sent again first on the next connection
    tst = [o for o in st["outputs"] if o["name"] == o_tcp][0]
    nt = sc.get(F + "failed_records_total", o_tcp, reason="connection_lost")
    check(nt >= 1 and nt == tst["replayed"], "syslog: failed %d, replayed %d" % (
        nt, tst["replayed"]))
    again = [r["raw"].encode() for r in recs[killed_at:killed_at + nt]]
    check(len(again) == nt, "the replay reached rsyslog")
    check(sc.get(F + "failed_bytes_total", o_tcp, reason="connection_lost") ==
          sum(frame_len(r) for r in again), "syslog: failed bytes %d, the replayed frames %d"
          % (sc.get(F + "failed_bytes_total", o_tcp, reason="connection_lost"),
             sum(frame_len(r) for r in again)))
    check(sc.get(F + "delivered_records_total", o_tcp) == len(by_id) and
          sc.get(F + "delivered_bytes_total", o_tcp) ==
          sum(frame_len(r["raw"].encode()) for r in by_id.values()),
          "syslog: delivered once each: %d records %d bytes, rsyslog holds %d distinct"
          % (sc.get(F + "delivered_records_total", o_tcp),
             sc.get(F + "delivered_bytes_total", o_tcp), len(by_id)))
    check(len(recs) > tcp_lines, "the second drive reached rsyslog")
    for o, r in ((o_tcp, "spool_error"), (o_relp, "connection_lost"), (o_relp, "spool_error")):
        check(sc.get(F + "failed_records_total", o, reason=r) == 0, "%s %s: 0" % (o, r))
    print("failures: file %d alerts (%d bytes), syslog %d in flight at the kill (%d bytes)"
          % (nf, want, nt, sc.get(F + "failed_bytes_total", o_tcp, reason="connection_lost")))

    # Prometheus has the same; promtool passes the exposition
    q = '%sfailed_records_total{job="rdmaguard",reason="write_error"}' % F
    wait_for(lambda: (lambda v: len(v) == 1 and v[0] >= nf)(prom.query(q)), 10,
             "prometheus to see the file's failures", 0.2)
    p = subprocess.run([PROMTOOL, "check", "metrics"], input=sc.text, capture_output=True,
                       text=True, timeout=30)
    check(p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(),
          "promtool check metrics: rc %s %s %s" % (p.returncode, p.stdout, p.stderr))
    prom.stop()
    dm.stop()
    relp.stop()
    tcp.stop()


GATE_ATTACKERS = 16  # addresses 127.0.0.2...: 2 connections each fill METRICS_HTTP_MAX_CONN (32)


def dry_run_gate(d, policy_text, want):
    """`daemon --dry-run --metrics 0.0.0.0:PORT` with this policy: exit 2 saying want, or 0."""
    policy = os.path.join(d, "gate-policy.json")
    td.write_policy(policy, policy_text)
    p = subprocess.run([td.RG, "daemon", "--dry-run", "--sensor", "tracepoint", "--rules",
                        td.RULES, "--policy", policy, "--metrics", "0.0.0.0:%d" % free_port()],
                       capture_output=True, text=True, timeout=120)
    if want is None:
        check(p.returncode == 0, "gate: --dry-run passes: %s" % p.stderr[-400:])
    else:
        check(p.returncode == 2 and want in p.stderr,
              "gate: --dry-run exits 2 saying %r (got %s: %s)" % (want, p.returncode,
                                                                 p.stderr[-400:]))


def make_tls(d):
    """A self-signed certificate for 127.0.0.1, its key, a bearer token: root's files."""
    cert, key, token = (os.path.join(d, n) for n in ("cert.pem", "key.pem", "token"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert, "-days",
                    "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    os.chmod(key, 0o600)
    with open(token, "w") as f:
        f.write(os.urandom(24).hex() + "\n")
    os.chmod(token, 0o600)
    return cert, key, token


def https(port, ctx, token=None, path="/metrics"):
    """(status, body) of a GET over TLS, with a bearer token or none."""
    import ssl  # noqa: F401  (ctx is an ssl.SSLContext)
    c = http_client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
    try:
        c.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
        r = c.getresponse()
        return r.status, r.read().decode()
    finally:
        c.close()


def from_addr(src, port):
    """A connection to 127.0.0.1:port from src; None if refused or closed at once."""
    s = socket.socket()
    s.settimeout(2)
    try:
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        return s
    except OSError:
        s.close()
        return None


class Starver:
    """GATE_ATTACKERS LAN hosts that each hold the 2 connections the endpoint allows them, idle
    (the request is never sent), opening new ones as the server times them out."""

    def __init__(self, port):
        import threading
        self.port, self.stop_ev, self.held = port, threading.Event(), 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        conns = {}
        while not self.stop_ev.is_set():
            survived = 0
            for i in range(GATE_ATTACKERS):
                src = "127.0.0.%d" % (i + 2)
                live = []
                for c in conns.get(src, []):
                    try:
                        c.setblocking(False)
                        gone = c.recv(1) == b""
                    except BlockingIOError:
                        gone = False
                    except OSError:
                        gone = True
                    if gone:
                        c.close()
                    else:
                        live.append(c)
                survived += len(live)
                while len(live) < 2:
                    c = from_addr(src, self.port)
                    if not c:
                        break
                    live.append(c)
                conns[src] = live
            self.held = max(self.held, survived)
            self.stop_ev.wait(0.05)
        for v in conns.values():
            for c in v:
                c.close()

    def stop(self):
        self.stop_ev.set()
        self.thread.join(10)


def scenario_gate(d):
    """Off loopback the endpoint needs HTTPS and a bearer token (or the opt-out), and only the
    scrapers the policy names may connect: LAN hosts cannot starve Prometheus."""
    import ssl
    cert, key, token = make_tls(d)
    # refused before anything is loaded
    dry_run_gate(d, '{"role": "managed"}\n', "not a loopback address")
    dry_run_gate(d, '{"metrics": {"token_file": "%s"}}\n' % token, "not a loopback address")
    os.chmod(token, 0o640)
    dry_run_gate(d, '{"metrics": {"cert": "%s", "key": "%s", "token_file": "%s"}}\n'
                 % (cert, key, token), "readable by group or other (mode 0640)")
    os.chmod(token, 0o600)
    short = os.path.join(d, "short-token")
    with open(short, "w") as f:
        f.write("secret\n")
    os.chmod(short, 0o600)
    dry_run_gate(d, '{"metrics": {"cert": "%s", "key": "%s", "token_file": "%s"}}\n'
                 % (cert, key, short), "refused: not 16 to 256 characters")
    dry_run_gate(d, '{"metrics": {"plaintext_lan": true}}\n', None)

    # HTTPS with a token, scrapers 127.0.0.1 only, on every address
    policy = os.path.join(d, "policy.json")
    td.write_policy(policy, '{"role": "managed", "metrics": {"cert": "%s", "key": "%s", '
                    '"token_file": "%s", "scrapers": ["127.0.0.1"]}}\n' % (cert, key, token))
    mport = free_port()
    dm = td.Daemon(d, ["file:" + os.path.join(d, "alerts.jsonl")], policy=policy,
                   extra=["--metrics", "0.0.0.0:%d" % mport, "--heartbeat", "3600"])
    ctx = ssl.create_default_context(cafile=cert)
    with open(token) as f:
        tok = f.read().strip()
    st, body = https(mport, ctx, tok)
    check(st == 200 and 'rdmaguard_sensor_info{sensor="verbs",flavour="tracepoint"} 1' in body,
          "HTTPS with the token: 200 and the sensors' hooks (%s)" % st)
    check(https(mport, ctx)[0] == 401, "HTTPS without a token: 401")
    check(https(mport, ctx, tok[:-1] + ("0" if tok[-1] != "0" else "1"))[0] == 401,
          "HTTPS with a wrong token: 401")
    try:
        plain = http("http://127.0.0.1:%d/metrics" % mport)[0]
    except (OSError, http_client.HTTPException) as e:
        plain = type(e).__name__
    check(plain != 200, "plain HTTP to the HTTPS endpoint is no scrape (got %s)" % plain)
    c = from_addr("127.0.0.9", mport)
    closed = c is None
    if c:
        try:
            closed = c.recv(1) == b""
        except TimeoutError:
            closed = False  # still open after 2 s: accepted
        except OSError:
            closed = True
        c.close()
    check(closed, "a host that is not a scraper is refused at accept")

    prom = Prometheus(d, "127.0.0.1:%d" % mport,
                      "    scheme: https\n    tls_config:\n      ca_file: %s\n"
                      "    authorization:\n      type: Bearer\n      credentials_file: %s\n"
                      % (cert, token))
    wait_for(lambda: prom.query('up{job="rdmaguard"}') == [1.0], 30,
             "prometheus to scrape over HTTPS with the token", 0.2)
    check(prom.query('rdmaguard_sensor_info{job="rdmaguard",sensor="verbs"}') == [1.0],
          "prometheus has rdmaguard_sensor_info")

    # the starve attempt: 16 LAN hosts with 2 idle connections each, for 10 s
    starver = Starver(mport)
    time.sleep(10)
    held = starver.held
    try:
        direct = https(mport, ctx, tok)[0]
    except (OSError, http_client.HTTPException) as e:
        direct = type(e).__name__
    starver.stop()
    ups = prom.query('min_over_time(up{job="rdmaguard"}[9s])')
    n = prom.query('count_over_time(up{job="rdmaguard"}[9s])')
    print("starve attempt: at most %d attacker connections stayed open; prometheus: %s scrapes, min(up) %s; "
          "a scrape of ours: %s" % (held, n, ups, direct))
    check(ups == [1.0] and n and n[0] >= 5 and direct == 200,
          "16 LAN hosts do not starve Prometheus: min(up) %s over %s scrapes, ours %s"
          % (ups, n, direct))
    st = dm.status()
    check(st["metrics"]["url"] == "https://0.0.0.0:%d/metrics" % mport and
          st["metrics"]["refused"] >= 3, "status: url and refusals %s" % st["metrics"])
    prom.stop()
    dm.stop()

    # the opt-out: plain HTTP on every address, without the sensors' hooks, said at start
    td.write_policy(policy, '{"role": "managed", "metrics": {"plaintext_lan": true}}\n')
    mport = free_port()
    dm = td.Daemon(d, ["file:" + os.path.join(d, "alerts2.jsonl")], name="optout",
                   policy=policy, extra=["--metrics", "0.0.0.0:%d" % mport,
                                         "--heartbeat", "3600"])
    st, _, body = http("http://127.0.0.1:%d/metrics" % mport)
    check(st == 200 and "rdmaguard_build_info" in body and "rdmaguard_sensor_info" not in body
          and "rdmaguard_sensor_programs" not in body,
          "plaintext_lan: 200, without the sensors' hooks")
    check("plain HTTP off loopback" in dm.logtext(), "plaintext_lan: a warning at start")
    dm.stop()


SCENARIOS = {"metrics": scenario_metrics, "outputs": scenario_outputs, "gate": scenario_gate}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in SCENARIOS:
        print("usage: test_metrics.py {%s}" % "|".join(SCENARIOS), file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("SKIP: the daemon attaches BPF programs and needs root")
        return 77
    for var, val in (("RG_RDMAGUARD", td.RG), ("RG_HOST_DRIVER", td.DRIVER)):
        if not val or not os.access(val, os.X_OK):
            print("%s does not name the binary" % var, file=sys.stderr)
            return 2
    for tool in (PROMETHEUS, PROMTOOL):
        if not os.access(tool, os.X_OK):
            print("%s is missing (Debian's prometheus package)" % tool, file=sys.stderr)
            return 1
    return rsl.run_scenario(sys.argv[1], SCENARIOS[sys.argv[1]], "rg-metrics-")


if __name__ == "__main__":
    sys.exit(main())
