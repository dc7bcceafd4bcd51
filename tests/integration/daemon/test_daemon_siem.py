#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The daemon end to end on this machine's kernel, with a real rsyslog as the SIEM.

Alerts come from real sensor events: rg-host-driver (tests/integration/host) opens a stand-in
/dev/infiniband/uverbs0 and issues REG_MR with remote access and MODIFY_QP to RTR, each run a
new process, so each run raises RDMA-004, RDMA-005 and RDMA-009 anew.

  siem      alerts arrive in rsyslog as RFC 5424 with the JSON alert as MSG, match
            rules/schema/alert.schema.json, name the driver's pid and the peer; agent_start,
            heartbeats and agent_stop arrive; `rdmaguard status` answers with matching counters;
            the file output holds the same alerts (0600); SIGTERM exits 0
  outage    `rdmaguard replay --rate` streams 600 distinct alerts to rsyslog, which is stopped
            mid-stream and started again: after de-duplication by uuid every alert arrived
            exactly once, in order; a replay whose collector is down at the end of its input
            waits for it and delivers before it exits
  kill9     the collector is down, the daemon spools alerts; once the spool holds them all the
            daemon is killed -9; rsyslog starts, a new daemon starts on the same state
            directory: what the first daemon produced (its file output) arrives exactly once,
            in order, before the second daemon's own alerts
  reload    SIGHUP with a valid policy changes behaviour (the driver becomes allowlisted and
            stops raising alerts, but not when exec'd in a mount namespace of its own or
            through a path longer than the sensors keep) and raises AGENT-003; SIGHUP with a broken policy keeps the
            old one in force and raises AGENT-003 naming file:line:column; SIGUSR1 reopens the
            file output after a rename (logrotate)
  chain     the seat key is made on the first start (0600) and `status` and the heartbeats
            name its public half; an incident exported from the daemon verifies; a file+chain: output across a rename + SIGUSR1 (logrotate)
            and a restart verifies with `evidence verify-log` against the signed heads the
            collector (rsyslog) received; a line deleted, edited or reordered, the tail cut
            off, or the heads checked with another key: verify-log fails (exit 1)

Needs root (BPF, private mount namespaces); exits 77 only when not root.
Usage: test_daemon_siem.py SCENARIO
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "output"))
import test_rsyslog as rsl  # noqa: E402  (the private rsyslogd harness)
from test_rsyslog import Failure, Rsyslog, check, read_jsonl, wait_for  # noqa: E402

RG = os.environ.get("RG_RDMAGUARD", "")
DRIVER = os.environ.get("RG_HOST_DRIVER", "")
SRC = os.environ.get("RG_SOURCE_ROOT", "")
RULES = os.path.join(SRC, "rules")
SCHEMA = os.path.join(SRC, "rules", "schema", "alert.schema.json")


class Daemon:
    def __init__(self, d, outputs, name="daemon", policy=None, extra=()):
        self.dir = os.path.join(d, name)
        os.makedirs(self.dir, exist_ok=True)
        self.state = os.path.join(d, "state")
        self.ready = os.path.join(self.dir, "ready")
        self.sock = os.path.join(self.dir, "status.sock")
        self.record = os.path.join(self.dir, "events.jsonl")
        self.log = os.path.join(self.dir, "daemon.log")
        args = [RG, "daemon", "--sensor", "tracepoint", "--rules", RULES,
                "--state-dir", self.state, "--record", self.record, "--ready-file", self.ready,
                "--status-socket", self.sock, "--reconcile", "3600"]
        if policy:
            args += ["--policy", policy]
        for o in outputs:
            args += ["--output", o]
        args += list(extra)
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(args, stdout=logf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        logf.close()
        rsl.CHILDREN.append(self.proc)

        def ready():
            if self.proc.poll() is not None:
                raise Failure("the daemon exited with %s:\n%s" % (self.proc.returncode,
                                                                   self.logtext()))
            return os.path.exists(self.ready)
        wait_for(ready, 120, "the daemon to be ready", interval=0.1)

    def status(self):
        p = subprocess.run([RG, "status", "--socket", self.sock], capture_output=True,
                           text=True, timeout=30)
        check(p.returncode == 0, "rdmaguard status exits 0: %s" % p.stderr)
        return json.loads(p.stdout)

    def status_socket(self):
        """The status socket's reply, read here: `rdmaguard status` is a process, and its fork,
        exec and library load are records that put the ring back into a burst."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
            c.settimeout(30)
            c.connect(self.sock)
            data = b""
            while True:
                b = c.recv(65536)
                if not b:
                    return json.loads(data)
                data += b

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(60)
        check(rc == 0, "SIGTERM stops the daemon with 0 (got %s):\n%s" % (rc, self.logtext()))

    def logtext(self):
        with open(self.log, errors="replace") as f:
            return f.read()[-4000:]


def drive(n=1, cmd=None):
    """Runs the driver n times (as cmd, its verbs scenario by default); returns their pids."""
    pids = []
    for _ in range(n):
        p = subprocess.run(cmd or [DRIVER, "verbs"], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "rg-host-driver verbs: %s" % p.stderr)
        facts = dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)
        pids.append(int(facts["pid"]))
    return pids


def messages(rs):
    """The JSON bodies rsyslog received, in arrival order."""
    return [json.loads(r["msg"]) for r in rs.received()]


def alerts_for(objs, pids):
    return [o for o in objs if o.get("event", {}).get("kind") == "alert"
            and o.get("process", {}).get("pid") in pids]


def validate(alerts):
    import jsonschema
    with open(SCHEMA) as f:
        schema = json.load(f)
    v = jsonschema.Draft202012Validator(schema)
    for a in alerts:
        errs = sorted(v.iter_errors(a), key=str)
        check(not errs, "alert %s does not match the schema: %s" % (a.get("rule", {}).get("id"),
                                                                    errs[:2]))


def rid(o):
    return o.get("rule", {}).get("id")


def scenario_siem(d):
    rs = Rsyslog(d)
    rs.start()
    alerts_file = os.path.join(d, "alerts.jsonl")
    dm = Daemon(d, ["syslog+tcp://127.0.0.1:%d" % rs.port, "file:" + alerts_file],
                extra=["--heartbeat", "2"])
    pids = drive(2)

    def got_all():
        mine = alerts_for(messages(rs), pids)
        rules = {(a["process"]["pid"], a["rule"]["id"]) for a in mine}
        return mine if all((p, r) in rules for p in pids
                           for r in ("RDMA-004", "RDMA-005", "RDMA-009")) else None
    mine = wait_for(got_all, 60, "RDMA-004/005/009 for both driver runs in rsyslog", 0.2)
    validate(mine)
    reg = [a for a in mine if a["rule"]["id"] == "RDMA-005" and a["process"]["pid"] == pids[0]]
    rdma = reg[0]["rdmaguard"]["rdma"]
    check(rdma["mr"]["length"] == 65536 and
          rdma["mr"]["access"] == ["local_write", "remote_write", "remote_read"],
          "RDMA-005 carries the MR: %s" % rdma)
    conn = [a for a in mine if a["rule"]["id"] == "RDMA-009" and a["process"]["pid"] == pids[1]]
    check(conn[0]["rdmaguard"]["rdma"]["peer"]["address"] == "192.0.2.7", "RDMA-009 names the peer")
    check(conn[0]["process"]["executable"].endswith("rg-host-driver"), "executable of the driver")
    # The raw syslog records carry the rule and severity as structured data.
    for r in rs.received():
        body = json.loads(r["msg"])
        if body.get("event", {}).get("kind") == "alert":
            m = rsl.SD_RE.match(r["sd"])
            check(m and m.group(1) == body["rule"]["id"]
                  and m.group(2) == body["rdmaguard"]["severity"]
                  and m.group(3) == body["event"]["id"], "structured data %r" % r["sd"])
            check(r["msgid"] == body["rule"]["id"], "MSGID is the rule id")
    objs = messages(rs)
    check(any(o["event"].get("action") == "agent_start" and "verbs=tracepoint" in o["message"]
              for o in objs), "agent_start with the hooks reached the SIEM")
    wait_for(lambda: any(o["event"].get("action") == "agent_heartbeat" for o in messages(rs)),
             30, "a heartbeat", 0.2)
    hb = [o for o in messages(rs) if o["event"].get("action") == "agent_heartbeat"][0]
    hba = hb["rdmaguard"]["agent"]
    check(hba["events"]["total"] > 0 and "lost_total" in hba["sensors"] and
          "by_type" not in hba["events"] and len(json.dumps(hb)) < 1500,
          "the heartbeat carries a few counters (%d bytes)" % len(json.dumps(hb)))

    st = dm.status()
    check(st["pid"] == dm.proc.pid, "status names the daemon")
    for r in ("RDMA-004", "RDMA-005", "RDMA-009"):
        check(st["alerts"]["by_rule"].get(r, 0) >= 2, "status counts %s: %s" % (r, st["alerts"]))
    check(st["events"]["by_type"].get("verbs", 0) >= 4, "status counts verbs events")
    check(st["sensors"]["hooks"]["hooks"]["verbs"]["active"] == "tracepoint", "status hooks")
    outs = {o["name"]: o for o in st["outputs"]}
    check(("syslog+tcp://127.0.0.1:%d" % rs.port) in outs, "status lists the syslog output")
    check(os.stat(alerts_file).st_mode & 0o777 == 0o600, "the file output is 0600")

    dm.stop()
    objs = messages(rs)
    check(objs[-1]["event"]["action"] == "agent_stop", "agent_stop is the last message")
    filed = read_jsonl(alerts_file)
    check([o["event"]["id"] for o in filed] == rsl.dedup([o["event"]["id"] for o in objs]),
          "the file output and rsyslog hold the same alerts in the same order")
    rs.stop()


def make_events(path, n):
    """n distinct processes each opening uverbs0: n RDMA-004 alerts, none folded as repeats."""
    with open(path, "w") as f:
        for i in range(n):
            pid = 40000 + i
            f.write(json.dumps({
                "@timestamp": "2026-12-02T13:00:%02d.%06dZ" % (i // 1000000 % 60, i % 1000000),
                "event": {"action": "device_open", "provider": "sensor"},
                "process": {"pid": pid, "name": "cheat%d" % i, "start_boot_ns": 1000000 + i},
                "file": {"path": "/dev/infiniband/uverbs0"},
                "rdma": {"node": "uverbs", "device": "rxe0", "fd": 3},
            }) + "\n")


def scenario_outage(d):
    rs = Rsyslog(d)
    rs.start()
    events = os.path.join(d, "events.jsonl")
    filed = os.path.join(d, "alerts.jsonl")
    make_events(events, 600)
    p = subprocess.Popen([RG, "replay", events, "--rules", RULES, "--rate", "200",
                          "--state-dir", os.path.join(d, "state"), "--flush-timeout", "60",
                          "--output", "syslog+tcp://127.0.0.1:%d" % rs.port,
                          "--output", "file:" + filed],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rsl.CHILDREN.append(p)
    wait_for(lambda: len(rs.received()) >= 150, 180, "a quarter of the stream", 0.05)
    rs.stop()
    down_at = len(read_jsonl(filed))
    wait_for(lambda: len(read_jsonl(filed)) >= down_at + 150, 180,
             "150 more alerts while the collector is down", 0.05)
    rs.start()
    _, err = p.communicate(timeout=120)
    check(p.returncode == 1, "replay exits 1 (findings): %s" % err)
    sent = read_jsonl(filed)
    check(len(sent) == 600 and all(a["rule"]["id"] == "RDMA-004" for a in sent),
          "600 distinct RDMA-004 alerts were produced (%d)" % len(sent))
    validate(sent[:20])
    try:
        rsl.wait_all_received(rs, sent, timeout=180)
    except Failure as e:
        raise Failure("%s\nreplay said:\n%s" % (e, err)) from None
    dups = rsl.assert_exactly_once_in_order(rs, sent)
    print("outage: %d alerts, %d duplicates after the restart" % (len(sent), dups))
    rs.stop()

    # The collector is down when replay reaches the end of its input: replay waits (up to
    # --flush-timeout) for it to come back and delivers, rather than leaving the spool behind.
    rs2 = Rsyslog(d, name="rsyslog-late")
    rs2.port = rsl.free_port()
    filed2 = os.path.join(d, "alerts-late.jsonl")
    make_events(events, 50)
    p = subprocess.Popen([RG, "replay", events, "--rules", RULES,
                          "--state-dir", os.path.join(d, "state-late"), "--flush-timeout", "120",
                          "--output", "syslog+tcp://127.0.0.1:%d" % rs2.port,
                          "--output", "file:" + filed2],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rsl.CHILDREN.append(p)
    wait_for(lambda: os.path.exists(filed2) and len(read_jsonl(filed2)) >= 50, 60,
             "replay to produce its 50 alerts", 0.05)
    time.sleep(2)
    check(p.poll() is None, "replay waits for the collector (exited %s)" % p.returncode)
    rs2.start()
    _, err = p.communicate(timeout=150)
    check(p.returncode == 1 and "Not every alert" not in err,
          "replay delivered and exited 1: %s %s" % (p.returncode, err))
    late = read_jsonl(filed2)
    check(len(late) == 50, "50 alerts (%d)" % len(late))
    rsl.wait_all_received(rs2, late, timeout=30)
    rsl.assert_exactly_once_in_order(rs2, late)
    print("outage: replay waited for a late collector and delivered its %d alerts" % len(late))
    rs2.stop()


def scenario_kill9(d):
    port = rsl.free_port()
    spec = "syslog+tcp://127.0.0.1:%d" % port
    filed = os.path.join(d, "alerts-1.jsonl")
    dm = Daemon(d, [spec, "file:" + filed], name="first")
    drive(4)

    def spooled():
        st = dm.status()
        out = [o for o in st["outputs"] if o["name"] == spec][0]
        produced = len(read_jsonl(filed))
        return produced >= 12 and out["spool_records"] >= produced and (produced, out)
    produced, out = wait_for(spooled, 60, "every alert in the spool", 0.2)
    os.kill(dm.proc.pid, signal.SIGKILL)
    dm.proc.wait(30)
    first = read_jsonl(filed)
    check(len(first) == produced, "no alert was produced after the spool check")

    rs = Rsyslog(d)
    rs.port = port
    rs.start()
    filed2 = os.path.join(d, "alerts-2.jsonl")
    dm2 = Daemon(d, [spec, "file:" + filed2], name="second")
    rsl.wait_all_received(rs, first, timeout=60)
    dm2.stop()
    second = read_jsonl(filed2)
    rsl.wait_all_received(rs, first + second, timeout=60)
    dups = rsl.assert_exactly_once_in_order(rs, first + second)
    print("kill9: %d spooled alerts and %d of the second run delivered, %d duplicates"
          % (len(first), len(second), dups))
    rs.stop()


def write_policy(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o600)
    os.chown(tmp, 0, 0)
    os.rename(tmp, path)


def scenario_reload(d):
    policy = os.path.join(d, "policy.json")
    write_policy(policy, '{"role": "managed", "games": [], "allow": []}\n')
    filed = os.path.join(d, "alerts.jsonl")
    dm = Daemon(d, ["file:" + filed], policy=policy)

    def alerts(pids):
        return [a for a in read_jsonl(filed) if a.get("process", {}).get("pid") in pids]

    p1 = drive(1)
    wait_for(lambda: alerts(p1), 30, "alerts for the first driver run", 0.2)

    # A valid new policy: the driver is allowlisted now.
    write_policy(policy, '{"role": "managed", "games": [],\n "allow": [{"exe": "%s"}]}\n'
                 % os.path.realpath(DRIVER))
    dm.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: [a for a in read_jsonl(filed) if rid(a) == "AGENT-003"],
             30, "AGENT-003 for the reload", 0.2)
    p2 = drive(1)
    # Paths the user shapes (issue 25 item 4): the very file allowlisted, but exec'd in a mount
    # namespace of its own (as a user namespace's bind mounts would show any path), or through
    # a hard link whose path is longer than the sensors keep, so only its tail, the allowlisted
    # path, arrives. Neither is allowed.
    shaped = drive(1, ["unshare", "--mount", "--propagation", "private", DRIVER, "verbs"])
    real = os.path.realpath(DRIVER)
    long_dir = os.path.join(os.path.dirname(real), "x" * 250) + os.path.dirname(real)
    os.makedirs(long_dir, exist_ok=True)
    link = os.path.join(long_dir, os.path.basename(real))
    if os.path.exists(link):
        os.unlink(link)
    os.link(real, link)
    try:
        shaped += drive(1, [link, "verbs"])
    finally:
        os.unlink(link)
    wait_for(lambda: {a["process"]["pid"] for a in alerts(shaped)
                      if rid(a) == "RDMA-004"} == set(shaped),
             30, "RDMA-004 for the driver exec'd in its own mount namespace and through a long "
             "path", 0.2)
    # A broken policy: the previous one stays in force.
    write_policy(policy, '{"role": "managed",\n  "allow": [{"exe": 42}]}\n')
    dm.proc.send_signal(signal.SIGHUP)
    rejected = wait_for(lambda: [a for a in read_jsonl(filed) if rid(a) == "AGENT-003"
                                 and "policy.json:2:" in a.get("message", "")],
                        30, "AGENT-003 for the rejected policy", 0.2)
    check(rejected[0]["rdmaguard"]["severity"] in ("medium", "high"),
          "a rejected policy is not just info: %s" % rejected[0]["rdmaguard"]["severity"])
    p3 = drive(1)
    # SIGUSR1 after a rename: the file output reopens its path.
    os.rename(filed, filed + ".1")
    dm.proc.send_signal(signal.SIGUSR1)
    wait_for(lambda: os.path.exists(filed), 30, "the file output to reopen", 0.1)
    p4 = drive(1)
    dm.stop()
    before = read_jsonl(filed + ".1")
    after = read_jsonl(filed)
    allp = before + after
    check(not [a for a in allp if a.get("process", {}).get("pid") in p2 + p3 + p4],
          "no alert for the driver while it is allowlisted (also after the rejected reload)")
    check(any(rid(a) == "AGENT-003" and "reloaded" in a["message"] for a in before),
          "AGENT-003 says the policy was reloaded")
    st_alerts = [a for a in after if a.get("event", {}).get("action") == "agent_stop"]
    check(st_alerts, "alerts after the SIGUSR1 go to the new file")


def scenario_wakeups(d):
    """The ring buffer's wake-up policy in the daemon (agent/sensors/ringwake.h): by default the
    driver's bursts of records are read on the daemon's timer (status sensors.ring counts them)
    and, quiet again, the daemon goes back to wake-ups; with --ring-wakeups always no burst is
    counted. Either way every run's RDMA-005 reaches the file output."""
    for when, runs in (("burst", 20), ("always", 5)):
        out = os.path.join(d, when + ".jsonl")
        dm = Daemon(d, ["file:" + out], name=when, extra=["--ring-wakeups", when])
        pids = drive(runs)

        def got_all():
            mine = alerts_for(read_jsonl(out) if os.path.exists(out) else [], pids)
            return {a["process"]["pid"] for a in mine if rid(a) == "RDMA-005"} == set(pids)
        wait_for(got_all, 60, "RDMA-005 of all %d driver runs (%s)" % (runs, when), 0.2)
        ring = dm.status()["sensors"]["ring"]
        check(ring["policy_errors"] == 0, "no failed change of rb_poll: %s" % ring)
        if when == "always":
            mode = {k: ring.get(k) for k in ("wakeups", "bursts", "policy_errors")}
            check(mode == {"wakeups": "always", "bursts": 0, "policy_errors": 0},
                  "--ring-wakeups always: every record wakes the daemon: %s" % ring)
        else:
            check(ring["bursts"] >= 1, "the driver's records came in bursts: %s" % ring)
            wait_for(lambda: dm.status_socket()["sensors"]["ring"]["wakeups"] == "wake", 10,
                     "the daemon back to wake-ups once quiet", 0.2)
        dm.stop()


SCENARIOS = {
    "siem": scenario_siem,
    "outage": scenario_outage,
    "kill9": scenario_kill9,
    "reload": scenario_reload,
    "wakeups": scenario_wakeups,
}


def evidence(*args, rc=None):
    p = subprocess.run([RG, "evidence", *args], capture_output=True, text=True, timeout=120)
    if rc is not None:
        check(p.returncode == rc, "evidence %s exits %d (got %d): %s%s" %
              (" ".join(args), rc, p.returncode, p.stdout, p.stderr))
    return p


def heartbeat_heads(objs, name):
    """The chain heads (seq, head) of output name in the heartbeats received."""
    heads = []
    for o in objs:
        if o.get("event", {}).get("action") != "agent_heartbeat":
            continue
        # ECS's layout (schema_version 2): the slim heartbeat's outputs under rdmaguard.agent
        for out in o.get("rdmaguard", {}).get("agent", {}).get("outputs", []):
            if out["name"] == name:
                heads.append((out["chain"]["seq"], out["chain"]["head"]))
    return heads


def scenario_chain(d):
    rs = Rsyslog(d)
    rs.start()
    log = os.path.join(d, "alerts.jsonl")
    name = "file+chain:" + log
    state = os.path.join(d, "state")
    dm = Daemon(d, ["syslog+tcp://127.0.0.1:%d" % rs.port, name], extra=["--heartbeat", "1"])
    key = os.path.join(state, "seat-key.pem")
    pub = os.path.join(state, "seat-key.pub")
    check(os.stat(key).st_mode & 0o777 == 0o600 and os.stat(key).st_uid == 0,
          "the first start made the seat key, root's, 0600")
    st = dm.status()
    with open(pub) as f:
        pem = f.read()
    pubtext = st["rdmaguard"]["seat_key"]["public"]
    with open(os.path.join(d, "status.pub"), "w") as f:
        f.write(pubtext + "\n")
    check(pubtext.startswith("ed25519:"), "status names the seat key: %s" % pubtext)
    drive(2)
    wait_for(lambda: [h for h in heartbeat_heads(messages(rs), name) if h[0] >= 6], 60,
             "a heartbeat with the chain's head past 6 lines", 0.2)
    # An incident exported from the running daemon verifies, with its alerts and raw events.
    p = subprocess.run([RG, "incidents", "--socket", dm.sock, "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "rdmaguard incidents from the daemon: %s" % p.stderr)
    incs = [json.loads(x) for x in p.stdout.splitlines()]
    drv = [i["rdmaguard"]["incident"]["id"] for i in incs
           if "rg-host-driver" in json.dumps(i.get("process", {}))]
    check(drv, "an incident of the driver: %s" % [i["message"] for i in incs])
    bundle = os.path.join(d, "bundle")
    evidence("export", drv[0], bundle, "--socket", dm.sock, "--state-dir", state, rc=0)
    evidence("verify", bundle, "--key", pub, rc=0)
    alerts = read_jsonl(os.path.join(bundle, "alerts.jsonl"))
    events = read_jsonl(os.path.join(bundle, "events.jsonl"))
    check(alerts and all(a["rdmaguard"]["incident"]["id"] == drv[0] for a in alerts) and
          events and all(e["event"]["kind"] != "alert" for e in events),
          "the bundle holds the incident's %d alerts and %d raw events" % (len(alerts),
                                                                          len(events)))
    seat = json.load(open(os.path.join(bundle, "seat.json")))
    check(seat["origin"] == "daemon" and seat["rules"]["dir"] == RULES and
          seat["policy"].get("builtin") and seat["key"]["public"] == pubtext,
          "seat.json: the daemon's rules, policy and key: %s" % seat["rules"])
    # logrotate: rename, SIGUSR1; then more alerts into the new file
    os.rename(log, log + ".1")
    dm.proc.send_signal(signal.SIGUSR1)
    wait_for(lambda: os.path.exists(log), 30, "the file output reopened", 0.1)
    drive(1)
    wait_for(lambda: len(read_jsonl(log)) >= 3, 60, "alerts in the new file", 0.2)
    dm.stop()
    # a restart goes on with the chain of the file's last line
    dm = Daemon(d, ["syslog+tcp://127.0.0.1:%d" % rs.port, name], name="daemon2",
                extra=["--heartbeat", "1"])
    drive(1)
    n_before = len(read_jsonl(log))
    wait_for(lambda: [h for h in heartbeat_heads(messages(rs), name)
                      if h[0] >= n_before + len(read_jsonl(log + ".1"))], 60,
             "a heartbeat of the second daemon", 0.2)
    dm.stop()
    rs.stop()
    heads_file = os.path.join(d, "collector.jsonl")
    with open(heads_file, "w") as f:
        for o in messages(rs):
            f.write(json.dumps(o) + "\n")
    heads = heartbeat_heads(messages(rs), name)
    check(len(heads) >= 2, "the collector got chain heads: %s" % heads[:4])
    lines1 = open(log + ".1").read().splitlines(True)
    lines2 = open(log).read().splitlines(True)
    check(all(json.loads(x)["chain"]["seq"] == i + 1 for i, x in enumerate(lines1 + lines2)),
          "one chain across the rotation and the restart, each line valid JSON")
    p = evidence("verify-log", log + ".1", log, "--heads", heads_file, "--key", pub, rc=0)
    check("restart" in p.stdout and " 0 restart" in p.stdout, "no chain restart: %s" % p.stdout)
    evidence("verify-log", log, "--partial", "--heads", heads_file, "--key",
             os.path.join(d, "status.pub"), rc=0)
    evidence("verify-log", log, rc=1)  # the rotated file alone does not start a chain

    def tampered(what, lines, expect):
        bad = os.path.join(d, "bad.jsonl")
        with open(bad, "w") as f:
            f.writelines(lines)
        p = evidence("verify-log", log + ".1", bad, "--heads", heads_file, "--key", pub)
        check(p.returncode == 1 and expect in p.stdout,
              "%s: verify-log fails with '%s' (got %d): %s%s" % (what, expect, p.returncode,
                                                                  p.stdout, p.stderr))
    tampered("a line deleted", lines2[:1] + lines2[2:], "deleted or reordered before it")
    edited = list(lines2)
    edited[1] = edited[1].replace('"severity":"', '"severity":"x', 1)
    check(edited[1] != lines2[1], "the edit changed line 2")
    tampered("a line edited", edited, "bad.jsonl:2: changed")
    tampered("lines reordered", [lines2[0], lines2[2], lines2[1]] + lines2[3:], "reordered")
    last = max(h[0] for h in heads)
    cut = last - len(lines1) - 1
    check(cut >= 1, "the last head is in the second file")
    tampered("the tail cut off", lines2[:cut], "head seq %d" % last)
    tampered("the last line cut short", lines2[:-1] + [lines2[-1][:20]], "cut short")
    with tempfile.TemporaryDirectory() as other:
        evidence("keygen", "--state-dir", other, rc=0)
        p = evidence("verify-log", log + ".1", log, "--heads", heads_file, "--key",
                     os.path.join(other, "seat-key.pub"), rc=1)
        check("not signed by the key" in p.stdout, "another key: %s" % p.stdout)
    check(pem.startswith("-----BEGIN PUBLIC KEY-----"), "seat-key.pub is a PEM public key")


SCENARIOS["chain"] = scenario_chain


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in SCENARIOS:
        print("usage: test_daemon_siem.py {%s}" % "|".join(SCENARIOS), file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("SKIP: the daemon attaches BPF programs and needs root")
        return 77
    for var, val in (("RG_RDMAGUARD", RG), ("RG_HOST_DRIVER", DRIVER)):
        if not val or not os.access(val, os.X_OK):
            print("%s does not name the binary" % var, file=sys.stderr)
            return 2
    return rsl.run_scenario(sys.argv[1], SCENARIOS[sys.argv[1]], "rg-daemon-")


if __name__ == "__main__":
    sys.exit(main())
