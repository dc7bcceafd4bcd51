#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Outputs against a real rsyslog (Debian's rsyslogd, imtcp, gtls from rsyslog-gnutls).

Each scenario starts its own rsyslogd on 127.0.0.1 with a private configuration (imtcp on a port
the kernel picks, omfile writing every message as one JSON line of its parsed RFC 5424 fields),
drives agent/output through tests/integration/output/driver.c and checks what rsyslog received.

  basic         alerts arrive, parse as JSON, header and structured data exact; file: output 0600;
                the engine's real alerts (rdmaguard replay of tests/fixtures/events) arrive and
                match rules/schema/alert.schema.json
  restart       rsyslog stopped (SIGTERM) mid-stream and started again: every alert exactly once
                after de-duplication by uuid, in order
  restart-kill  the same with rsyslog killed (SIGKILL)
  kill9         the sender killed -9 with a full spool (plus a torn record appended to it),
                restarted: the same guarantee
  spool-limit   collector down, spool capped at 20 records: the oldest low-severity alerts are
                dropped first, exactly as the policy says, and AGENT-001 reports the exact counts
  tls           RFC 5425 with server verification and a client certificate, plus a restart
  tls-reject    wrong CA, wrong host name, missing client certificate: nothing is delivered

Waits poll for conditions with deadlines; nothing sleeps for readiness. Keys and certificates are
generated at run time in the scenario's temporary directory (openssl), never stored.
Usage: test_rsyslog.py SCENARIO (driver: $RG_OUTPUT_DRIVER, rdmaguard: $RG_RDMAGUARD,
source tree: $RG_SOURCE_ROOT).
"""
import json
import os
import queue
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import uuid

DRIVER = os.environ.get("RG_OUTPUT_DRIVER", "")
RDMAGUARD = os.environ.get("RG_RDMAGUARD", "")
SOURCE_ROOT = os.environ.get("RG_SOURCE_ROOT", "")
RSYSLOGD = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
HOSTNAME = "rg-test-host"
FACILITY = 10  # authpriv, the default
SEVMAP = {"info": 6, "low": 5, "medium": 4, "high": 3, "critical": 2}
SEVERITIES = ["info", "low", "medium", "high", "critical"]
CHILDREN = []  # every process started, killed at the end whatever happened


class Failure(Exception):
    pass


def run_scenario(name, fn, prefix, errors=(Failure,)):
    """Run fn(d) in a fresh temporary directory d; PASS/FAIL line, the tail of every *.log
    under d on failure, every process in CHILDREN killed (stopped ones continued first), d
    removed on success and kept (and named) on failure. Returns the exit status, 0 or 1."""
    d = tempfile.mkdtemp(prefix=prefix)
    ok = False
    try:
        fn(d)
        ok = True
        print("PASS %s" % name)
    except errors as e:
        print("FAIL %s: %s" % (name, e))
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(".log"):
                    p = os.path.join(root, f)
                    with open(p, errors="replace") as fh:
                        print("---- %s\n%s" % (p, fh.read()[-3000:]))
    finally:
        for p in CHILDREN:
            if p.poll() is None:
                try:
                    os.kill(p.pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
                p.kill()
                p.wait()
        if ok:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print("kept %s" % d)
    return 0 if ok else 1


def check(cond, what):
    if not cond:
        raise Failure(what)


def read_jsonl(path):
    """The JSON lines of a file another process is appending to: every complete line must
    parse; a last line without its newline is still being written and is left for later."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return [json.loads(line) for line in f if line.endswith("\n") and line.strip()]


def wait_for(cond, timeout, what, interval=0.02):
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise Failure("timed out after %ss waiting for %s" % (timeout, what))
        time.sleep(interval)


def make_alert(i, sev, rule=None):
    return {
        "@timestamp": "2026-12-02T13:56:%02d.%06dZ" % (i % 60, i),
        "event": {"id": str(uuid.uuid4()), "kind": "alert", "sequence": i},
        "rule": {"id": rule or "RDMA-%03d" % (i % 10 + 1), "name": "test rule"},
        "severity": sev,
        "message": 'alert %d: caf\u00e9 "quoted" [bracket] back\\slash' % i,
        "host": {"hostname": HOSTNAME},
    }


class Rsyslog:
    """A private rsyslogd on 127.0.0.1."""

    def __init__(self, d, name="rsyslog", tls=None):
        self.dir = os.path.join(d, name)
        os.makedirs(os.path.join(self.dir, "work"))
        self.conf = os.path.join(self.dir, "rsyslog.conf")
        self.out = os.path.join(self.dir, "received.jsonl")
        self.portfile = os.path.join(self.dir, "port")
        self.pidfile = os.path.join(self.dir, "rsyslogd.pid")
        self.log = os.path.join(self.dir, "rsyslogd.log")
        self.tls = tls
        self.port = None
        self.proc = None

    def write_conf(self):
        port = self.port or 0
        g = 'global(workDirectory="%s" maxMessageSize="256k"' % os.path.join(self.dir, "work")
        mod = 'module(load="imtcp"'
        if self.tls:
            g += (' defaultNetstreamDriver="gtls" defaultNetstreamDriverCAFile="%s"'
                  ' defaultNetstreamDriverCertFile="%s" defaultNetstreamDriverKeyFile="%s"'
                  % (self.tls["ca"], self.tls["cert"], self.tls["key"]))
            mod += (' streamDriver.name="gtls" streamDriver.mode="1"'
                    ' streamDriver.authMode="x509/certvalid"')
        g += ")"
        mod += ")"
        props = [("pri", "pri"), ("ver", "protocol-version"), ("ts", "timereported"),
                 ("hostname", "hostname"), ("app", "app-name"), ("procid", "procid"),
                 ("msgid", "msgid"), ("sd", "structured-data"), ("msg", "msg"),
                 ("raw", "rawmsg")]
        tpl = "\n".join('  property(outname="%s" name="%s" format="jsonf"%s)'
                        % (o, n, ' dateFormat="rfc3339"' if o == "ts" else "")
                        for o, n in props)
        conf = "\n".join([
            g,
            # Direct: the input thread writes each message before it reads the next one, so a
            # killed rsyslogd loses only what its kernel socket buffer held.
            'main_queue(queue.type="Direct")',
            mod,
            'template(name="rg" type="list" option.jsonf="on") {\n%s\n}' % tpl,
            'ruleset(name="rg") {',
            '  action(type="omfile" file="%s" template="rg" flushOnTXEnd="on"'
            ' asyncWriting="off")' % self.out,
            '}',
            'input(type="imtcp" port="%d" listenPortFileName="%s" ruleset="rg")'
            % (port, self.portfile),
            "",
        ])
        with open(self.conf, "w") as f:
            f.write(conf)

    def start(self):
        if os.path.exists(self.portfile):
            os.unlink(self.portfile)
        self.write_conf()
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen([RSYSLOGD, "-n", "-f", self.conf, "-i", self.pidfile],
                                     stdout=logf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        CHILDREN.append(self.proc)
        logf.close()

        def ready():
            if self.proc.poll() is not None:
                raise Failure("rsyslogd exited with %s:\n%s" % (self.proc.returncode,
                                                                  self.logtext()))
            if self.port is not None:
                # rsyslog writes the port file only for port 0: probe the fixed port instead.
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                    return self.port
                except OSError:
                    return None
            try:
                with open(self.portfile) as f:
                    txt = f.read().strip()
            except FileNotFoundError:
                return None
            return int(txt) if txt.isdigit() else None

        port = wait_for(ready, 20, "rsyslogd to listen")
        if self.port is None:
            self.port = port
        check(port == self.port, "rsyslogd came back on port %s, not %s" % (port, self.port))

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def logtext(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()[-4000:]
        except FileNotFoundError:
            return ""

    def received(self):
        try:
            with open(self.out, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return []
        recs = []
        for line in data.split(b"\n")[:-1]:  # a last line without newline is still being written
            recs.append(json.loads(line.decode("utf-8")))
        return recs


class Driver:
    """tests/integration/output/driver.c: outputs_* the way the daemon calls them."""

    def __init__(self, d, outputs, state, extra=(), name="driver"):
        self.log = os.path.join(d, name + ".log")
        args = [DRIVER, "--state-dir", state, "--hostname", HOSTNAME, "--backoff-min-ms", "20",
                "--backoff-max-ms", "200", "--connect-timeout-ms", "2000"]
        for o in outputs:
            args += ["--output", o]
        args += list(extra)
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=logf)
        CHILDREN.append(self.proc)
        logf.close()
        self.lock = threading.Lock()
        self.replies = queue.Queue()
        self.losses = []
        self.exit_reply = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            if "loss" in msg:
                self.losses.append(msg["loss"])
            elif "exit" in msg:
                self.exit_reply = msg
            else:
                self.replies.put(msg)

    def write(self, line):
        with self.lock:
            self.proc.stdin.write(line.encode("utf-8") + b"\n")
            self.proc.stdin.flush()

    def submit(self, alert):
        self.write(json.dumps(alert, ensure_ascii=False))

    def cmd(self, c, key, timeout=30):
        self.write("!" + c)
        try:
            r = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise Failure("driver did not answer %r:\n%s" % (c, self.logtext()))
        check(key in r, "driver answered %r to %r" % (r, c))
        return r[key]

    def stats(self, i=0):
        return self.cmd("stats", "stats")["outputs"][i]

    def close(self, timeout=60):
        self.proc.stdin.close()
        rc = self.proc.wait(timeout)
        self.reader.join(10)
        return rc

    def kill9(self):
        self.proc.kill()
        self.proc.wait()
        self.reader.join(10)

    def logtext(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()[-4000:]
        except FileNotFoundError:
            return ""


SD_RE = re.compile(r'^\[rdmaguard@32473 rule="((?:[^"\\\]]|\\.)*)" '
                   r'severity="(info|low|medium|high|critical)" '
                   # an alert's or record's uuid, or an incident record's INC-<16 hex>-<revision>
                   r'id="([0-9a-f-]{36}|INC-[0-9a-f]{16}-[0-9]+)"\]$')
RAW_RE = re.compile(r'^<(\d+)>1 (\S+) (\S+) rdmaguard (\d+) (\S+) (\[.*?[^\\]\]) (\{.*\})$')


def check_record(r, alert, driver_pid=None):
    """One received message against the alert that was submitted."""
    # the engine's alerts: rdmaguard.severity (ECS layout); the test's own: severity
    sev = alert.get("rdmaguard", {}).get("severity") or alert["severity"]
    rule = alert["rule"]["id"]
    check(r["ver"] == "1", "VERSION %r" % r["ver"])
    check(int(r["pri"]) == FACILITY * 8 + SEVMAP[sev],
          "PRI %s for %s, expected %d" % (r["pri"], sev, FACILITY * 8 + SEVMAP[sev]))
    check(r["hostname"] == HOSTNAME, "HOSTNAME %r" % r["hostname"])
    check(r["app"] == "rdmaguard", "APP-NAME %r" % r["app"])
    if driver_pid is not None:
        check(r["procid"] == str(driver_pid), "PROCID %r, expected %d" % (r["procid"], driver_pid))
    check(r["msgid"] == rule, "MSGID %r, expected %r" % (r["msgid"], rule))
    m = SD_RE.match(r["sd"])
    check(m, "STRUCTURED-DATA %r" % r["sd"])
    check(m.group(1).replace('\\"', '"').replace("\\]", "]").replace("\\\\", "\\") == rule,
          "SD rule %r" % m.group(1))
    check(m.group(2) == sev and m.group(3) == alert["event"]["id"], "SD %r" % r["sd"])
    check(r["ts"].startswith(alert["@timestamp"][:19]), "TIMESTAMP %r vs %r"
          % (r["ts"], alert["@timestamp"]))
    got = json.loads(r["msg"])
    check(got == alert, "MSG differs:\n got %r\nsent %r" % (got, alert))
    raw = RAW_RE.match(r["raw"])
    check(raw, "raw message %r" % r["raw"][:300])
    check(raw.group(2) == alert["@timestamp"], "raw TIMESTAMP %r" % raw.group(2))


def uuids_of(recs):
    out = []
    for r in recs:
        m = SD_RE.match(r["sd"])
        check(m, "STRUCTURED-DATA %r" % r["sd"])
        out.append(m.group(3))
    return out


def dedup(ids):
    seen, out = set(), []
    for i in ids:
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out


def assert_exactly_once_in_order(rs, sent, extra_ok=()):
    """After de-duplication by uuid, rsyslog holds exactly the sent alerts, in order."""
    ids = [i for i in uuids_of(rs.received()) if i not in extra_ok]
    got = dedup(ids)
    want = [a["event"]["id"] for a in sent]
    if got != want:
        missing = [w for w in want if w not in set(got)]
        unexpected = [g for g in got if g not in set(want)]
        first_diff = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), None)
        raise Failure("delivery differs: %d received (%d distinct), %d sent, missing %d %s, "
                      "unexpected %d, first difference at %s"
                      % (len(ids), len(got), len(want), len(missing), missing[:5],
                         len(unexpected), first_diff))
    return len(ids) - len(got)  # duplicates


def wait_all_received(rs, sent, timeout=60, extra=0):
    want = set(a["event"]["id"] for a in sent)

    def done():
        return want <= set(uuids_of(rs.received()))
    try:
        wait_for(done, timeout, "rsyslog to receive all %d alerts" % len(sent), interval=0.05)
    except Failure as e:
        got = set(uuids_of(rs.received()))
        missing = [k for k, a in enumerate(sent) if a["event"]["id"] not in got]
        raise Failure("%s: %d received, %d of %d missing, at positions %s" %
                      (e, len(got), len(missing), len(sent), missing[:40])) from None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


# ---------------------------------------------------------------- scenarios


def scenario_basic(d):
    # A bad spec is refused with a message naming it, exit status 2.
    r = subprocess.run([DRIVER, "--output", "syslog+tcp://127.0.0.1:99999"], capture_output=True,
                       stdin=subprocess.DEVNULL)
    check(r.returncode == 2, "bad spec: exit status %d" % r.returncode)
    check(b'output "syslog+tcp://127.0.0.1:99999": invalid port "99999" (1-65535)' in r.stderr,
          "bad spec message %r" % r.stderr)
    rs = Rsyslog(d)
    rs.start()
    fpath = os.path.join(d, "alerts.jsonl")
    drv = Driver(d, ["syslog+tcp://127.0.0.1:%d" % rs.port, "file:" + fpath],
                 os.path.join(d, "state"))
    sent = [make_alert(i, SEVERITIES[i % 5]) for i in range(30)]
    # A rule id that needs escaping in a PARAM-VALUE and is not a valid MSGID.
    sent.append(make_alert(30, "high", rule='R"1]\\x y'))
    for a in sent:
        drv.submit(a)
    check(drv.cmd("ping", "pong"), "ping")
    wait_all_received(rs, sent, 30)
    recs = rs.received()
    check(len(recs) == len(sent), "%d messages for %d alerts" % (len(recs), len(sent)))
    for r, a in zip(recs, sent):
        if a["rule"]["id"].startswith("R\""):
            # MSGID: PRINTUSASCII, so the space became '?'; SD value escaped.
            check(r["msgid"] == 'R"1]\\x?y', "MSGID %r" % r["msgid"])
            check(r["sd"].startswith('[rdmaguard@32473 rule="R\\"1\\]\\\\x y" '), "SD %r" % r["sd"])
            check(json.loads(r["msg"]) == a, "MSG")
            continue
        check_record(r, a, drv.proc.pid)
    # Delivered once confirmed; the spool is empty then.
    wait_for(lambda: (lambda s: s["delivered"] == len(sent) and s["spool_records"] == 0)(
        drv.stats()), 20, "delivered == %d" % len(sent))
    st = drv.stats()
    check(st["connected"] and st["connects"] == 1 and st["dropped"]["total"] == 0, "stats %r" % st)
    fst = drv.stats(1)
    check(fst["written"] == len(sent), "file stats %r" % fst)
    check(drv.close() == 0, "driver exit status")
    check(drv.exit_reply == {"exit": 0}, "exit reply %r" % drv.exit_reply)
    # file: JSON lines, 0600, the same alerts in the same order.
    check(stat.S_IMODE(os.stat(fpath).st_mode) == 0o600, "file mode %o" % os.stat(fpath).st_mode)
    with open(fpath, encoding="utf-8") as f:
        lines = [json.loads(x) for x in f]
    check(lines == sent, "file output differs")
    rs.stop()
    engine_alerts_through_rsyslog(d)


def engine_alerts_through_rsyslog(d):
    """The rule engine's own alerts (replay of the rule fixtures) through syslog+tcp: each one
    arrives intact and valid against the published alert schema."""
    import jsonschema
    fixtures = os.path.join(SOURCE_ROOT, "tests", "fixtures", "events")
    alerts = []
    for f in sorted(os.listdir(fixtures)):
        if not f.endswith(".jsonl") or f.endswith(".expected.jsonl"):
            continue
        policy = os.path.join(fixtures, f.replace(".jsonl", ".policy.json"))
        if not os.path.exists(policy):
            policy = os.path.join(fixtures, "policy.json")
        r = subprocess.run([RDMAGUARD, "replay", os.path.join(fixtures, f), "--rules",
                            os.path.join(SOURCE_ROOT, "rules"), "--policy", policy],
                           capture_output=True)
        check(r.returncode in (0, 1), "replay %s: exit %d: %s" % (f, r.returncode, r.stderr))
        alerts += [json.loads(x) for x in r.stdout.decode("utf-8").splitlines() if x.strip()]
    check(len(alerts) >= 20, "only %d alerts from the engine's fixtures" % len(alerts))
    with open(os.path.join(SOURCE_ROOT, "rules", "schema", "alert.schema.json")) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    rs = Rsyslog(d, name="rsyslog-engine")
    rs.start()
    drv = Driver(d, ["syslog+tcp://127.0.0.1:%d" % rs.port], os.path.join(d, "state-engine"),
                 name="driver-engine")
    for a in alerts:
        drv.submit(a)
    wait_all_received(rs, alerts, 30)
    recs = rs.received()
    check(len(recs) == len(alerts), "%d messages for %d alerts" % (len(recs), len(alerts)))
    for r, a in zip(recs, alerts):
        check_record(r, a, drv.proc.pid)
        errors = list(validator.iter_errors(json.loads(r["msg"])))
        check(not errors, "received alert %s does not match the schema: %s"
              % (a["rule"]["id"], "; ".join(e.message for e in errors[:3])))
    check(drv.close() == 0, "driver exit status")
    rs.stop()
    print("%d engine alerts (%d rules) delivered and valid against the schema"
          % (len(alerts), len(set(a["rule"]["id"] for a in alerts))))


def stream_with_outage(d, rs, drv, n, kill_sig, rate_per_s=400, before=()):
    """Feeds n alerts at a steady rate; stops rsyslog after a third arrived, restarts it once
    the sender has spooled a good number while it was down."""
    sent = [make_alert(i, SEVERITIES[(i * 7) % 5]) for i in range(n)]
    base = len(rs.received())
    done = threading.Event()

    def feed():
        t0 = time.monotonic()
        for i, a in enumerate(sent):
            drv.submit(a)
            delay = t0 + (i + 1) / rate_per_s - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # pacing of the stream, not a readiness wait
        done.set()

    th = threading.Thread(target=feed)
    th.start()
    wait_for(lambda: len(rs.received()) >= base + n // 3, 30, "a third of the stream to arrive")
    rs.stop(kill_sig)
    at_stop = drv.stats()["spooled"]
    wait_for(lambda: (lambda s: not s["connected"] and s["spooled"] >= at_stop + n // 6
                      and s["spool_records"] >= n // 6)(drv.stats()),
             30, "alerts to pile up in the spool while rsyslog is down")
    down = drv.stats()
    rs.start()
    th.join()
    check(done.is_set(), "feeder finished")
    wait_all_received(rs, sent, 60)
    wait_for(lambda: (lambda s: s["spool_records"] == 0 and s["delivered"] >= len(before) + n)(
        drv.stats()), 30, "the spool to drain")
    st = drv.stats()
    check(st["reconnects"] >= 1 and st["disconnects"] >= 1, "stats %r" % st)
    check(st["dropped"]["total"] == 0, "nothing dropped: %r" % st)
    dups = assert_exactly_once_in_order(rs, list(before) + sent)
    print("%s: %d alerts, %d spooled while down, %d duplicates after the outage, %d replayed"
          % (signal.Signals(kill_sig).name, n, down["spool_records"], dups, st["replayed"]))
    return sent


def scenario_restart(d, sig=signal.SIGTERM):
    rs = Rsyslog(d)
    rs.start()
    drv = Driver(d, ["syslog+tcp://127.0.0.1:%d" % rs.port], os.path.join(d, "state"))
    stream_with_outage(d, rs, drv, 900, sig)
    check(drv.close() == 0, "driver exit status")
    rs.stop()


def scenario_restart_kill(d):
    scenario_restart(d, signal.SIGKILL)


def newest_segment(spooldir):
    segs = [f for f in os.listdir(spooldir) if f.endswith(".seg")]
    check(segs, "no segment files in %s" % spooldir)
    return os.path.join(spooldir, max(segs, key=lambda f: int(f[2:18], 16)))


def scenario_kill9(d):
    rs = Rsyslog(d)
    rs.start()
    rs.stop()  # the collector is down; its port is known
    state = os.path.join(d, "state")
    spec = "syslog+tcp://127.0.0.1:%d" % rs.port
    drv = Driver(d, [spec], state, name="driver1")
    sent = [make_alert(i, SEVERITIES[i % 5]) for i in range(300)]
    for a in sent:
        drv.submit(a)
    wait_for(lambda: drv.stats()["spool_records"] == len(sent), 30, "300 alerts in the spool")
    drv.kill9()
    # A crash in the middle of an append: a header and a piece of a record.
    spooldir = os.path.join(state, "spool", "tcp-127.0.0.1-%d" % rs.port)
    seg = newest_segment(spooldir)
    with open(seg, "ab") as f:
        f.write(b"RGS1" + (500).to_bytes(4, "little") + b"\x00" * 12 + b"torn")
    drv = Driver(d, [spec], state, name="driver2")
    st = drv.stats()
    check(st["spool_records"] == len(sent), "after restart: %r" % st)
    check(st["spool_corrupt"] == 1, "torn record not counted: %r" % st)
    more = [make_alert(300 + i, SEVERITIES[i % 5]) for i in range(50)]
    for a in more:
        drv.submit(a)
    wait_for(lambda: drv.stats()["spool_records"] == len(sent) + len(more), 30, "350 spooled")
    rs.start()
    wait_all_received(rs, sent + more, 60)
    wait_for(lambda: drv.stats()["spool_records"] == 0, 30, "the spool to drain")
    dups = assert_exactly_once_in_order(rs, sent + more)
    check(drv.close() == 0, "driver exit status")
    check(not [f for f in os.listdir(spooldir) if f.endswith(".seg")], "segments left behind")
    print("kill -9 with 300 spooled + torn record: 350 delivered once in order, %d duplicates"
          % dups)

    # Killed while spooling as fast as it can: what arrives is a prefix of what was submitted,
    # in order, with no gap, at least as long as the spool had reported before the kill.
    rs.stop()
    state2 = os.path.join(d, "state2")
    drv = Driver(d, [spec], state2, name="driver3")
    stream = [make_alert(1000 + i, SEVERITIES[i % 5]) for i in range(4000)]

    def feed():
        try:
            for a in stream:
                drv.submit(a)
        except (BrokenPipeError, ValueError):
            pass  # killed under us, as intended

    th = threading.Thread(target=feed)
    th.start()
    reported = wait_for(lambda: (lambda s: s["spooled"] if s["spooled"] >= 500 else 0)(
        drv.stats()), 30, "500 alerts spooled")
    drv.kill9()
    th.join()
    drv = Driver(d, [spec], state2, name="driver4")
    held = drv.stats()["spool_records"]
    check(held >= reported, "spool holds %d after kill -9, %d were reported spooled"
          % (held, reported))
    rs.start()
    wait_for(lambda: drv.stats()["spool_records"] == 0, 60, "the spool to drain")
    want = set(a["event"]["id"] for a in stream)
    got = dedup([i for i in uuids_of(rs.received()) if i in want])
    check(got == [a["event"]["id"] for a in stream[:len(got)]],
          "what arrived is not a prefix of the stream, in order")
    check(len(got) == held, "%d arrived, %d were in the spool" % (len(got), held))
    check(drv.close() == 0, "driver exit status")
    print("kill -9 mid-stream: %d reported spooled before the kill, %d in the spool after, "
          "all delivered in order" % (reported, held))
    rs.stop()


def scenario_spool_limit(d):
    rs = Rsyslog(d)
    rs.start()
    rs.stop()
    state = os.path.join(d, "state")
    drv = Driver(d, ["syslog+tcp://127.0.0.1:%d" % rs.port], state,
                 extra=["--spool-max-records", "20", "--loss-interval-ms", "50"])
    pattern = ["critical"] * 5 + ["info"] * 10 + ["high"] * 5 + ["low"] * 10 + ["medium"] * 5 \
        + ["info"] * 5
    sent = [make_alert(i, s) for i, s in enumerate(pattern)]
    for a in sent:
        drv.submit(a)
    # Worked out by hand: the 10 lows evict the 10 infos, the 5 mediums evict the 5 oldest
    # lows, the last 5 infos are less severe than everything kept and are refused.
    survivors = sent[0:5] + sent[15:20] + sent[25:30] + sent[30:35]
    want_drop = {"info": 15, "low": 5, "medium": 0, "high": 0, "critical": 0}
    wait_for(lambda: sum(sum(l["agent"]["loss"]["dropped"][s] for s in SEVERITIES)
                         for l in drv.losses) >= 20, 30, "loss reports for 20 drops")
    # The loss reports go to the spool as well (after the callback submitted them).
    st = wait_for(lambda: (lambda s: s if s["spool_records"] == 20 + len(drv.losses) else None)(
        drv.stats()), 10, "20 alerts and %d loss report(s) in the spool" % len(drv.losses))
    check(st["dropped"]["spool_full"] == 20 and st["dropped"]["total"] == 20,
          "drop counters %r" % st["dropped"])
    for s in SEVERITIES:
        check(st["dropped"][s] == want_drop[s], "dropped %s: %r" % (s, st["dropped"]))
        got = sum(l["agent"]["loss"]["dropped"][s] for l in drv.losses)
        check(got == want_drop[s], "loss reports say %d %s dropped, expected %d"
              % (got, s, want_drop[s]))
    check(sum(l["agent"]["loss"]["reasons"]["spool_full"] for l in drv.losses) == 20,
          "reasons %r" % drv.losses)
    check(drv.losses[-1]["agent"]["loss"]["total_since_start"] == 20, "cumulative total")
    losses = list(drv.losses)
    rs.start()
    # The loss reports themselves must arrive too.
    wait_all_received(rs, survivors + losses, 60)
    wait_for(lambda: drv.stats()["spool_records"] == 0, 30, "the spool to drain")
    loss_ids = set(l["event"]["id"] for l in losses)
    assert_exactly_once_in_order(rs, survivors, extra_ok=loss_ids)
    recs = rs.received()
    by_id = {uuids_of([r])[0]: r for r in recs}
    for l in losses:
        r = by_id[l["event"]["id"]]
        check(json.loads(r["msg"]) == l, "loss report as received")
        check(r["msgid"] == "AGENT-001", "loss report MSGID %r" % r["msgid"])
    check(drv.close() == 0, "driver exit status")
    print("spool of 20: %d alerts, %d kept, drops %s, %d loss report(s) delivered"
          % (len(sent), len(survivors), want_drop, len(losses)))
    rs.stop()


def openssl(*args, cwd):
    r = subprocess.run([OPENSSL] + list(args), cwd=cwd, capture_output=True)
    if r.returncode != 0:
        raise Failure("openssl %s failed: %s" % (" ".join(args), r.stderr.decode()[-500:]))


def make_pki(d, name, cn_server="127.0.0.1", san="IP:127.0.0.1"):
    """A throwaway CA, a server certificate and a client certificate (EC P-256)."""
    p = os.path.join(d, name)
    os.makedirs(p)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=rdmaguard test CA %s" % name,
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=p)
    for who, cn, ext in [("server", cn_server, "subjectAltName=%s\nextendedKeyUsage=serverAuth\n"
                          % san),
                         ("client", "rdmaguard test client", "extendedKeyUsage=clientAuth\n")]:
        with open(os.path.join(p, who + ".ext"), "w") as f:
            f.write(ext + "keyUsage=critical,digitalSignature\n")
        openssl("req", *ec, "-keyout", who + ".key", "-out", who + ".csr", "-subj", "/CN=" + cn,
                cwd=p)
        openssl("x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", who + ".pem", "-days", "2", "-extfile", who + ".ext",
                cwd=p)
    return {k: os.path.join(p, k + ".pem") for k in ("ca", "server", "client")} | {
        "server_key": os.path.join(p, "server.key"), "client_key": os.path.join(p, "client.key")}


def tls_rsyslog(d, pki):
    rs = Rsyslog(d, tls={"ca": pki["ca"], "cert": pki["server"], "key": pki["server_key"]})
    rs.start()
    return rs


def tls_spec(host, port, pki, ca=None, client=True):
    s = "syslog+tls://%s:%d?ca=%s" % (host, port, ca or pki["ca"])
    if client:
        s += "&cert=%s&key=%s" % (pki["client"], pki["client_key"])
    return s


def scenario_tls(d):
    pki = make_pki(d, "pki")
    rs = tls_rsyslog(d, pki)
    drv = Driver(d, [tls_spec("127.0.0.1", rs.port, pki)], os.path.join(d, "state"))
    sent = [make_alert(i, SEVERITIES[i % 5]) for i in range(20)]
    for a in sent:
        drv.submit(a)
    wait_all_received(rs, sent, 30)
    for r, a in zip(rs.received(), sent):
        check_record(r, a, drv.proc.pid)
    wait_for(lambda: drv.stats()["delivered"] == 20, 20, "20 delivered over TLS")
    # The outage guarantee over TLS as well.
    more = stream_with_outage(d, rs, drv, 600, signal.SIGTERM, before=sent)
    check(drv.close() == 0, "driver exit status")
    assert_exactly_once_in_order(rs, sent + more)
    rs.stop()


def scenario_tls_reject(d):
    pki = make_pki(d, "pki")
    other = make_pki(d, "other")
    rs = tls_rsyslog(d, pki)
    cases = [
        ("wrong CA", tls_spec("127.0.0.1", rs.port, pki, ca=other["ca"]),
         "certificate verification failed"),
        ("host name mismatch", tls_spec("localhost", rs.port, pki),
         "certificate verification failed"),
        ("no client certificate", tls_spec("127.0.0.1", rs.port, pki, client=False), None),
    ]
    bad_ids = set()
    for k, (what, spec, err) in enumerate(cases):
        drv = Driver(d, [spec], os.path.join(d, "state%d" % k), name="driver%d" % k)
        alerts = [make_alert(i, "high") for i in range(5)]
        bad_ids |= set(a["event"]["id"] for a in alerts)
        for a in alerts:
            drv.submit(a)
        # At least three attempts, each of which failed (handshake or right after it).
        wait_for(lambda: (lambda s: s["connect_failures"] + s["disconnects"] >= 3)(drv.stats()),
                 30, "three failed attempts (%s)" % what)
        st = drv.stats()
        check(st["delivered"] == 0 and st["spool_records"] == 5,
              "%s: delivered %d, spool %d" % (what, st["delivered"], st["spool_records"]))
        if err:
            check(err in st.get("last_error", ""), "%s: last_error %r" % (what, st.get("last_error")))
        drv.kill9()
        print("%s: refused (%s)" % (what, st.get("last_error")))
    # Positive control on the same collector.
    drv = Driver(d, [tls_spec("127.0.0.1", rs.port, pki)], os.path.join(d, "state-ok"),
                 name="driver-ok")
    good = [make_alert(i, "low") for i in range(5)]
    for a in good:
        drv.submit(a)
    wait_all_received(rs, good, 30)
    check(drv.close() == 0, "driver exit status")
    got = set(uuids_of(rs.received()))
    check(not (got & bad_ids), "a rejected connection delivered something")
    rs.stop()


SCENARIOS = {
    "basic": scenario_basic,
    "restart": scenario_restart,
    "restart-kill": scenario_restart_kill,
    "kill9": scenario_kill9,
    "spool-limit": scenario_spool_limit,
    "tls": scenario_tls,
    "tls-reject": scenario_tls_reject,
}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in SCENARIOS:
        print("usage: test_rsyslog.py {%s}" % "|".join(SCENARIOS), file=sys.stderr)
        return 2
    if not DRIVER or not os.access(DRIVER, os.X_OK):
        print("RG_OUTPUT_DRIVER does not name the driver binary", file=sys.stderr)
        return 2
    if not RDMAGUARD or not os.access(RDMAGUARD, os.X_OK) or not SOURCE_ROOT:
        print("RG_RDMAGUARD and RG_SOURCE_ROOT must name the binary and the source tree",
              file=sys.stderr)
        return 2
    for prog, pkg in ((RSYSLOGD, "rsyslog"), (OPENSSL, "openssl")):
        if not os.access(prog, os.X_OK):
            print("%s not found: install %s (packaging/bootstrap.sh --deps)" % (prog, pkg),
                  file=sys.stderr)
            return 1
    return run_scenario(sys.argv[1], SCENARIOS[sys.argv[1]], "rg-rsyslog-")


if __name__ == "__main__":
    sys.exit(main())
