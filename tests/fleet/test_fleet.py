#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The fleet's central side on real engines (suite "output"): a throwaway PostgreSQL 15 cluster
with fleet/postgresql/{schema,views}.sql, a private rsyslogd running the shipped
fleet/rsyslog/rdmaguard-central.conf (imrelp -> ompgsql; only its port, socket, database and
user are replaced, and its RELP-over-TLS input uncommented with a PKI made here), and four seats
speaking to it over relp:// (B-13's alerts over relp+tls://) at once:

  - the alerts: `rdmaguard replay` of the rule fixtures, one run per seat (--hostname B-12, ...),
    RDMA-009's peers rewritten to 10.0.0.77/78 (no seat) for B-12 and to A-01's and B-12's
    addresses for B-13, RDMA-005 for A-01;
  - the heartbeats: C-01's are a real daemon's (as root: `rdmaguard daemon` with "seat": "C-01",
    --heartbeat 1, over relp://, stopped after its first heartbeat; its hw.fingerprint is this
    machine's `rdmaguard baseline digest`, which A-01 and B-12 then report too); the others'
    are written by the test with the same fields (labels.seat, host.name, host.ip[],
    hw.fingerprint, pci.dsn[]) and sent through the outputs module's relp:// output
    (tests/output/driver.c), a second after C-01's last.

Then every view's answer is asserted exactly: silent_seats, rdma_peers (verdict strings),
dsn_shared, fingerprint_outliers, timeline and match_timeline, each alert stored once (event.id),
a message that is not JSON kept in rejects, and purge() keeping a held match's alerts.

Deliberate breaks that turn it red: a plain JOIN for rdma_peers' LEFT JOIN (the peers that are
no seat vanish), no majority condition in fingerprint_outliers (every seat an outlier of
another fingerprint), ON CONFLICT dropped from ingest() (a duplicate makes rsyslog retry), the
seat taken from the syslog HOSTNAME before labels.seat (heartbeats under another seat). Usage: test_fleet.py (env: RG_RDMAGUARD, RG_OUTPUT_DRIVER,
RG_SOURCE_ROOT). Every process started is stopped at the end, also on failure.
"""
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

RDMAGUARD = os.environ.get("RG_RDMAGUARD", "")
DRIVER = os.environ.get("RG_OUTPUT_DRIVER", "")
SRC = os.environ.get("RG_SOURCE_ROOT", "")
PGBIN = "/usr/lib/postgresql/15/bin"
RSYSLOGD = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"
PSQL = "/usr/bin/psql"
CHILDREN = []
sys.path.insert(0, os.path.join(SRC, "tests", "output"))
from test_rsyslog import make_pki  # noqa: E402  (the same throwaway PKI as the TLS tests)


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def wait_for(cond, timeout, what, interval=0.05):
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise Failure("timed out after %ss waiting for %s" % (timeout, what))
        time.sleep(interval)


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Postgres:
    """A throwaway cluster in d/pg on a unix socket in that directory, no TCP; as the postgres
    user when run as root (initdb refuses root)."""

    def __init__(self, d):
        self.dir = os.path.join(d, "pg")
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(d, "postgres.log")
        self.port = free_port()
        self.started = False
        os.makedirs(self.dir)
        self.as_user = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            os.chmod(d, 0o755)
            open(self.log, "w").close()
            os.chown(self.log, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def run(self, args, **kw):
        return subprocess.run(self.as_user + args, capture_output=True, text=True, **kw)

    def start(self):
        r = self.run([PGBIN + "/initdb", "-D", self.data, "-U", "rg", "--auth=trust", "-E", "UTF8",
                      "--locale=C", "--no-sync"])
        check(r.returncode == 0, "initdb: %s" % r.stderr)
        r = self.run([PGBIN + "/pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "30",
                      "-o", "-k %s -p %d -c listen_addresses='' -c fsync=off "
                      "-c full_page_writes=off -c TimeZone=UTC" % (self.dir, self.port), "start"])
        self.started = r.returncode == 0
        check(self.started, "pg_ctl start: %s %s" % (r.stdout, r.stderr))
        self.sql("CREATE DATABASE fleet", db="postgres")

    def stop(self):
        if self.started:
            self.run([PGBIN + "/pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"])
            self.started = False

    def psql(self, args, db="fleet"):
        r = subprocess.run([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.dir, "-p",
                            str(self.port), "-U", "rg", "-d", db] + args,
                           capture_output=True, text=True)
        check(r.returncode == 0, "psql %s: %s" % (args, r.stderr))
        return r.stdout

    def sql(self, q, db="fleet"):
        return self.psql(["-A", "-t", "-c", q], db=db)

    def rows(self, q):
        """The rows of q as a list of dicts (json_agg), [] for none."""
        out = self.sql("SELECT coalesce(json_agg(t), '[]') FROM (%s) t" % q).strip()
        return json.loads(out)

    def scalar(self, q):
        return self.sql(q).strip()


class Collector:
    """rsyslogd with the shipped configuration; only the values marked SET are replaced."""

    def __init__(self, d, pg, pki):
        self.dir = os.path.join(d, "rsyslog")
        os.makedirs(os.path.join(self.dir, "work"))
        self.port = free_port()
        self.tls_port = free_port()
        self.conf = os.path.join(self.dir, "rsyslog.conf")
        self.log = os.path.join(d, "rsyslogd.log")
        with open(os.path.join(SRC, "fleet", "rsyslog", "rdmaguard-central.conf")) as f:
            conf = f.read()
        subs = [('input(type="imrelp" port="2514"', 'input(type="imrelp" port="%d"' % self.port),
                ('server="127.0.0.1" port="5432" db="rdmaguard"',
                 'server="%s" port="%d" db="fleet"' % (pg.dir, pg.port)),
                ('uid="rsyslog" pwd="SET-ME"', 'uid="rg" pwd=""'),
                # the RELP-over-TLS input, uncommented, with a PKI made for the test
                ('#input(type="imrelp" port="2515"', 'input(type="imrelp" port="%d"'
                 % self.tls_port),
                ('#      tls.caCert="/etc/rsyslog.d/rdmaguard-ca.pem" '
                 'tls.myCert="/etc/rsyslog.d/collector.pem"',
                 '       tls.caCert="%s" tls.myCert="%s"' % (pki["ca"], pki["server"])),
                ('#      tls.myPrivKey="/etc/rsyslog.d/collector.key"',
                 '       tls.myPrivKey="%s"' % pki["server_key"])]
        for a, b in subs:
            check(conf.count(a) == 1, "the shipped configuration has no %r" % a)
            conf = conf.replace(a, b)
        conf = 'global(workDirectory="%s")\n' % os.path.join(self.dir, "work") + conf
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = None

    def start(self):
        import socket
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen([RSYSLOGD, "-n", "-f", self.conf, "-i",
                                      os.path.join(self.dir, "pid")],
                                     stdout=logf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        CHILDREN.append(self.proc)
        logf.close()

        def up():
            check(self.proc.poll() is None, "rsyslogd exited: %s" % open(self.log).read())
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                return False
        wait_for(up, 20, "rsyslogd to listen")


SEATS = {  # seat: (host.ip, hardware fingerprint digest, PCI DSNs)
    "A-01": ("10.0.0.11", "fp-std", ["00-11-22-33-44-55-66-77"]),
    "B-12": ("10.0.0.12", "fp-std", ["de-ad-be-ef-00-00-00-01"]),
    "B-13": ("10.0.0.13", "fp-odd", ["de-ad-be-ef-00-00-00-01", "00-00-00-00-00-00-13-01"]),
    "C-01": ("10.0.0.14", "fp-std", []),
}
# RDMA-009's peers (192.0.2.50 by GID only, 198.51.100.7 by address) per seat.
PEERS = {"B-12": ("10.0.0.77", "10.0.0.78"), "B-13": ("10.0.0.11", "10.0.0.12")}


def heartbeat(seat, ts):
    """A heartbeat notice with the identity the daemon writes (docs/seat.md) and the hardware
    fields the hw branch will add (hw.fingerprint, pci.dsn[])."""
    ip, fp, dsns = SEATS[seat]
    name = "lan-" + seat.lower()
    return {"@timestamp": ts, "event": {"id": str(uuid.uuid4()), "kind": "metric",
                                        "action": "agent_heartbeat",
                                        "dataset": "rdmaguard.agent"},
            "severity": "info", "message": "heartbeat", "rule": {"id": "heartbeat"},
            "host": {"name": name, "hostname": name,
                     "id": uuid.uuid5(uuid.NAMESPACE_DNS, seat).hex,
                     "ip": [ip, "fd00::%x" % int(ip.split(".")[-1])],
                     "mac": ["02-00-00-00-00-%02X" % int(ip.split(".")[-1])],
                     "architecture": "x86_64",
                     "os": {"type": "linux", "family": "debian", "platform": "debian",
                            "name": "Debian GNU/Linux", "version": "12",
                            "kernel": "6.1.0-13-amd64"}},
            "labels": {"seat": seat}, "agent": {"type": "rdmaguard", "version": "0.1.0"},
            "rdmaguard": {"policy": {"sha256": "9b1f" + "0" * 60}},
            "hw": {"fingerprint": fp}, "pci": {"dsn": dsns}}


def agent_seat(d, port, seat):
    """A real daemon speaking as seat over relp:// until its first heartbeat is out; the
    threshold keeps its alerts (this machine's) out of the store."""
    pol = os.path.join(d, "policy-%s.json" % seat)
    with open(pol, "w") as f:
        json.dump({"seat": seat, "threshold": "critical"}, f)
    os.chmod(pol, 0o644)
    ready = os.path.join(d, "ready-" + seat)
    log = open(os.path.join(d, "daemon-%s.log" % seat), "ab")
    p = subprocess.Popen([RDMAGUARD, "daemon", "--sensor", "tracepoint", "--rules",
                          os.path.join(SRC, "rules"), "--policy", pol, "--state-dir",
                          os.path.join(d, "state-daemon-" + seat), "--ready-file", ready,
                          "--status-socket", os.path.join(d, "status-%s.sock" % seat),
                          "--no-inventory", "--reconcile", "3600", "--heartbeat", "1",
                          "--output", "relp://127.0.0.1:%d" % port],
                         stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    CHILDREN.append(p)
    log.close()
    wait_for(lambda: check(p.poll() is None, "daemon %s exited" % seat) or os.path.exists(ready),
             120, "the daemon to be ready", 0.1)
    return p


def send_heartbeats(d, port, seats, name):
    """Heartbeats through the outputs module's relp:// output (the driver), as a seat sends."""
    log = open(os.path.join(d, name + ".log"), "ab")
    p = subprocess.Popen([DRIVER, "--state-dir", os.path.join(d, "state-" + name), "--output",
                          "relp://127.0.0.1:%d" % port, "--exit-flush-ms", "20000"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
    CHILDREN.append(p)
    log.close()
    ts = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    lines = "".join(json.dumps(heartbeat(s, ts)) + "\n" for s in seats)
    out, _ = p.communicate(lines.encode(), timeout=60)
    check(p.returncode == 0 and b'"exit": 0' in out.replace(b'"exit":0', b'"exit": 0'),
          "heartbeat driver: exit %s %r" % (p.returncode, out[-300:]))


def replay_seat(d, output, seat, fixture, peers, results):
    src = os.path.join(SRC, "tests", "fixtures", "events", fixture + ".jsonl")
    with open(src) as f:
        text = f.read()
    if peers:
        text = text.replace("192.0.2.50", peers[0]).replace("198.51.100.7", peers[1])
    ev = os.path.join(d, "%s-%s.jsonl" % (seat, fixture))
    with open(ev, "w") as f:
        f.write(text)
    args = [RDMAGUARD, "replay", ev, "--rules", os.path.join(SRC, "rules"), "--policy",
            os.path.join(SRC, "tests", "fixtures", "events", "policy.json"), "--hostname", seat,
            "--state-dir", os.path.join(d, "state-" + seat), "--output", "stdout", "--output",
            output, "--flush-timeout", "30"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=90)
    results[seat] = (r.returncode, [json.loads(x) for x in r.stdout.splitlines() if x.strip()],
                     r.stderr)


def scenario(d):
    pg = Postgres(d)
    rs = None
    try:
        pg.start()
        pg.psql(["-f", os.path.join(SRC, "fleet", "postgresql", "schema.sql"),
                 "-f", os.path.join(SRC, "fleet", "postgresql", "views.sql")])
        pki = make_pki(d, "pki")
        rs = Collector(d, pg, pki)
        rs.start()

        if os.geteuid() == 0:
            fp = subprocess.run([RDMAGUARD, "baseline", "digest"], capture_output=True,
                                text=True, timeout=30)
            check(fp.returncode == 0, "baseline digest: %s" % fp.stderr)
            fp = fp.stdout.strip()
            for s in ("A-01", "B-12"):
                SEATS[s] = (SEATS[s][0], fp, SEATS[s][2])
            lspci = subprocess.run(["lspci", "-vvv"], capture_output=True, text=True,
                                   timeout=30, check=True).stdout
            SEATS["C-01"] = (SEATS["C-01"][0], fp, sorted(set(
                m.lower() for m in re.findall(r"Device Serial Number ([0-9a-fA-F-]{23})",
                                              lspci))))
            dm = agent_seat(d, rs.port, "C-01")
            wait_for(lambda: pg.scalar("SELECT count(*) FROM rdmaguard.agent_events WHERE "
                                       "action = 'agent_heartbeat'") != "0", 30,
                     "C-01's daemon's heartbeat in PostgreSQL")
            dm.terminate()
            check(dm.wait(60) == 0, "the daemon stops with 0")
            wait_for(lambda: pg.scalar("SELECT count(*) FROM rdmaguard.agent_events WHERE "
                                       "action = 'agent_stop'") == "1", 30, "its agent_stop")
            got = pg.rows("SELECT DISTINCT seat, fingerprint, pci_dsns "
                          "FROM rdmaguard.agent_events")
            check(got == [{"seat": "C-01", "fingerprint": fp, "pci_dsns": SEATS["C-01"][2]}],
                  "the daemon's notices: %r, want C-01 %s %s" % (got, fp, SEATS["C-01"][2]))
            print("C-01 is a real daemon: hw.fingerprint %s" % fp)
        else:  # no daemon without root: C-01's heartbeat is written as the others'
            fp = "fp-std"
            send_heartbeats(d, rs.port, ["C-01"], "hb-early")
        n_c01 = int(wait_for(lambda: pg.scalar("SELECT count(*) FROM rdmaguard.agent_events"),
                             30, "C-01's heartbeat in PostgreSQL"))
        time.sleep(1.2)  # C-01 falls silent: the others report more than a second later
        results = {}
        # B-13 over RELP in TLS (the shipped input, uncommented), the others in cleartext
        tls = ("relp+tls://127.0.0.1:%d?ca=%s&cert=%s&key=%s"
               % (rs.tls_port, pki["ca"], pki["client"], pki["client_key"]))
        runs = [threading.Thread(target=replay_seat, args=(d, out, s, fx, PEERS.get(s), results))
                for s, fx, out in (("A-01", "RDMA-005", "relp://127.0.0.1:%d" % rs.port),
                                   ("B-12", "RDMA-009", "relp://127.0.0.1:%d" % rs.port),
                                   ("B-13", "RDMA-009", tls))]
        for t in runs:
            t.start()
        send_heartbeats(d, rs.port, ["A-01", "B-12", "B-13"], "hb")
        for t in runs:
            t.join()
        alerts = {}
        for seat, (rc, out, err) in sorted(results.items()):
            check(rc == 1, "replay %s: exit %d: %s" % (seat, rc, err))
            alerts[seat] = out
        check([len(alerts[s]) for s in ("A-01", "B-12", "B-13")] == [2, 4, 4],
              "alerts per seat %r" % {s: len(a) for s, a in alerts.items()})
        total = sum(len(a) for a in alerts.values())
        wait_for(lambda: pg.scalar("SELECT count(*) FROM rdmaguard.alerts") == str(total) and
                 pg.scalar("SELECT count(*) FROM rdmaguard.agent_events") == str(n_c01 + 3),
                 30, "%d alerts and %d notices in PostgreSQL" % (total, n_c01 + 3))

        # Each alert once, whole, under its seat.
        got = pg.rows("SELECT seat, event_id::text AS id, doc FROM rdmaguard.alerts")
        want = {a["event"]["id"]: (s, a) for s, al in alerts.items() for a in al}
        check(len(got) == total and {g["id"] for g in got} == set(want), "stored alerts differ")
        for g in got:
            check(g["seat"] == want[g["id"]][0] and g["doc"] == want[g["id"]][1],
                  "alert %s stored as %r" % (g["id"], g))
        check(pg.scalar("SELECT count(*) FROM rdmaguard.rejects") == "0", "rejects")
        # The agent's ECS peer fields are what the store reads (docs/seat.md).
        n_dest = sum(1 for al in alerts.values() for a in al if a.get("destination", {}).get("ip"))
        check(n_dest == 6, "%d alerts with destination.ip, expected 6" % n_dest)

        at = "(SELECT max(received_at) FROM rdmaguard.agent_events)"
        silent = pg.rows("SELECT seat FROM rdmaguard.silent_seats('1 second', %s)" % at)
        check(silent == [{"seat": "C-01"}], "silent_seats: %r" % silent)
        check(pg.rows("SELECT seat FROM rdmaguard.silent_seats('1 minute', %s)" % at) == [],
              "silent_seats within a minute")

        peers = pg.rows("SELECT seat, host(peer) AS peer, peer_seat, verdict "
                        "FROM rdmaguard.rdma_peers ORDER BY seat, ts, peer")
        name = "RDMA connection established"
        exp = []
        for seat in ("B-12", "B-13"):
            for a in sorted(alerts[seat], key=lambda a: a["@timestamp"]):
                p = a.get("rdmaguard", {}).get("rdma", {}).get("peer")
                if not p:
                    continue
                addr = p.get("address") or p["gid"].replace("::ffff:", "")
                owner = next((s for s, v in SEATS.items() if v[0] == addr), None)
                exp.append({"seat": seat, "peer": addr, "peer_seat": owner,
                            "verdict": "seat %s: RDMA-009 (%s) with RDMA peer %s, which is %s"
                            % (seat, name, addr, "seat " + owner if owner else "not a seat")})
        check(len(exp) == 6, "expected peers %r" % exp)
        check(peers == exp, "rdma_peers:\n got %r\nwant %r" % (peers, exp))
        print("\n".join(p["verdict"] for p in peers))

        dsn = pg.rows("SELECT dsn, seats FROM rdmaguard.dsn_shared ORDER BY dsn")
        check(dsn == [{"dsn": "de-ad-be-ef-00-00-00-01", "seats": ["B-12", "B-13"]}],
              "dsn_shared: %r" % dsn)
        odd = pg.rows("SELECT * FROM rdmaguard.fingerprint_outliers")
        check(odd == [{"seat": "B-13", "fingerprint": "fp-odd", "fleet_fingerprint": fp,
                       "fleet_seats": 3, "seats_reporting": 4}], "fingerprint_outliers: %r" % odd)

        tl = pg.rows("SELECT ts, rule_id, peers FROM rdmaguard.timeline('B-12', "
                     "'2026-01-10T10:00:00Z', '2026-01-10T10:00:04Z')")
        v = "seat B-12: RDMA-009 (%s) with RDMA peer %%s, which is not a seat" % name
        check(tl == [{"ts": "2026-01-10T10:00:01+00:00", "rule_id": "RDMA-009",
                      "peers": v % "10.0.0.77"},
                     {"ts": "2026-01-10T10:00:02+00:00", "rule_id": "RDMA-009",
                      "peers": v % "10.0.0.77"}], "timeline: %r" % tl)
        pg.sql("INSERT INTO rdmaguard.matches VALUES ('final', '{B-12,B-13}', "
               "'2026-01-10T10:00:00Z', '2026-01-10T10:00:04.5Z', true), "
               "('warmup', '{A-01}', '2026-01-10T09:00:00Z', '2026-01-10T09:30:00Z', false)")
        mt = pg.rows("SELECT match_id, seat, rule_id, ts FROM rdmaguard.match_timeline "
                     "ORDER BY match_id, seat, ts")
        exp_mt = [{"match_id": "final", "seat": s, "rule_id": "RDMA-009",
                   "ts": "2026-01-10T10:00:0%d+00:00" % sec}
                  for s in ("B-12", "B-13") for sec in (1, 2, 4)]
        check(mt == exp_mt, "match_timeline:\n got %r\nwant %r" % (mt, exp_mt))

        # What cannot be read is kept apart, and rsyslog is never made to retry it.
        pg.sql("SELECT rdmaguard.ingest('not json', 'seat-x', '10.0.0.99')")
        check(pg.rows("SELECT hostname, host(sender_ip) AS ip FROM rdmaguard.rejects") ==
              [{"hostname": "seat-x", "ip": "10.0.0.99"}], "rejects")
        # Retention: everything older than now goes, but the held match's alerts.
        pr = pg.rows("SELECT * FROM rdmaguard.purge('0 seconds', now() + interval '1 second')")
        check(pr == [{"alerts": total - 6, "agent_events": n_c01 + 3, "rejects": 1}],
              "purge: %r" % pr)
        check(pg.scalar("SELECT count(*) FROM rdmaguard.alerts") == "6", "held alerts kept")
    finally:
        if rs and rs.proc and rs.proc.poll() is None:
            rs.proc.terminate()
            try:
                rs.proc.wait(20)
            except subprocess.TimeoutExpired:
                rs.proc.kill()
                rs.proc.wait()
        pg.stop()


def main():
    for what, path in (("RG_RDMAGUARD", RDMAGUARD), ("RG_OUTPUT_DRIVER", DRIVER)):
        if not path or not os.access(path, os.X_OK):
            print("%s does not name the binary" % what, file=sys.stderr)
            return 2
    for prog, pkg in ((PGBIN + "/initdb", "postgresql-15"), (RSYSLOGD, "rsyslog"),
                      (PSQL, "postgresql-client-15"),
                      ("/usr/lib/x86_64-linux-gnu/rsyslog/ompgsql.so", "rsyslog-pgsql"),
                      ("/usr/lib/x86_64-linux-gnu/rsyslog/imrelp.so", "rsyslog-relp")):
        if not os.path.exists(prog):
            print("%s not found: install %s (packaging/bootstrap.sh --deps)" % (prog, pkg),
                  file=sys.stderr)
            return 1
    d = tempfile.mkdtemp(prefix="rg-fleet-")
    ok = False
    try:
        scenario(d)
        ok = True
        print("PASS fleet")
    except (Failure, subprocess.TimeoutExpired) as e:
        print("FAIL fleet: %s" % e)
        for f in sorted(os.listdir(d)):
            if f.endswith(".log"):
                with open(os.path.join(d, f), errors="replace") as fh:
                    print("---- %s\n%s" % (f, fh.read()[-3000:]))
    finally:
        for p in CHILDREN:
            if p.poll() is None:
                p.kill()
                p.wait()
        if ok:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print("kept %s" % d)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
