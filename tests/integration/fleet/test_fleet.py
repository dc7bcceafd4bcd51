#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The fleet's central side on real engines (suite "output"): a throwaway PostgreSQL 15 cluster
with fleet/postgresql/{schema,retention,views}.sql (installed twice), a private rsyslogd running
the shipped fleet/rsyslog/rdmaguard-central.conf (imrelp -> ompgsql, logged in as a role of
rdmaguard_ingest; only its port, socket, database and user are replaced, and its RELP-over-TLS
input uncommented with a PKI made here), and five seats speaking to it over relp:// (B-13's
alerts over relp+tls://, D-01's with bom=1) at once:

  - the alerts: `rdmaguard replay` of the rule fixtures, one run per seat (--hostname B-12, ...),
    RDMA-009's peers rewritten to 10.0.0.77/78 (no seat) for B-12 and to A-01's and B-12's
    addresses for B-13, RDMA-005 for A-01, DMA-004 (the IOMMU weakened) for D-01;
  - the heartbeats: C-01's are a real daemon's (as root: `rdmaguard daemon` with "seat": "C-01",
    --heartbeat 1, over relp://, stopped after its first heartbeat; its hw.fingerprint is this
    machine's `rdmaguard baseline digest`, which A-01, B-12 and D-01 then report too); the
    others' are written by the test with the same fields (labels.seat, host.name, host.ip[],
    hw.fingerprint, pci.dsn[]) and sent through the outputs module's relp:// output
    (tests/integration/output/driver.c), a second after C-01's last; then incident records as
    the agent writes them, the same way.

Then every view's answer is asserted exactly: silent_seats, rdma_peers (verdict strings),
dsn_shared, fingerprint_outliers, timeline and match_timeline, each alert stored once (event.id),
no rejects; the incidents and an incident's timeline; the room (seat_overview: one seat in each
state) before and after a referee's notes, the notes' who and when, and every refusal of the
roles (the ingesting role reads, changes, deletes nothing; nobody changes a note); a message
that is not JSON kept in rejects; fingerprint_outliers in a room of three hardware generations;
maintain() dropping old days, keeping a held match's, moving rows out of a default partition,
alert_peers following (pruned with its alerts' days, nothing added twice).

Deliberate breaks that turn it red: alert_peers' prune left out of maintain() (the dropped
days' peers stay), a plain JOIN for rdma_peers' LEFT JOIN (the peers that are
no seat vanish), ON CONFLICT dropped from ingest() (a duplicate makes rsyslog retry), the seat
taken from the syslog HOSTNAME before labels.seat (heartbeats under another seat), the BOM of
bom=1 left before the JSON (D-01's alerts in rejects), a strict majority asked of
fingerprint_outliers (nothing found in the room of three generations), SELECT or UPDATE granted
to rdmaguard_ingest, the notes' trigger letting an UPDATE through, a held match's day dropped.
Usage: test_fleet.py (env: RG_RDMAGUARD, RG_OUTPUT_DRIVER, RG_SOURCE_ROOT). Every process
started is stopped at the end, also on failure.
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
sys.path.insert(0, os.path.join(SRC, "tests", "integration", "output"))
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

    def __init__(self, d, opts=""):
        self.opts = opts  # more -c settings for postgres (the store's benchmark)
        self.dir = os.path.join(d, "pg")
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(d, "postgres.log")
        self.port = free_port()
        self.started = False
        os.makedirs(self.dir, exist_ok=True)  # the benchmark's --reuse: a kept cluster
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

    def restart(self, opts):
        """The same cluster with other settings (opts: -c flags, appended)."""
        self.run([PGBIN + "/pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"])
        r = self.run([PGBIN + "/pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60",
                      "-o", "-k %s -p %d -c listen_addresses='' -c TimeZone=UTC %s %s"
                      % (self.dir, self.port, self.opts, opts), "start"])
        check(r.returncode == 0, "pg_ctl restart: %s %s" % (r.stdout, r.stderr))

    def start(self):
        r = self.run([PGBIN + "/initdb", "-D", self.data, "-U", "rg", "--auth=trust", "-E", "UTF8",
                      "--locale=C", "--no-sync"])
        check(r.returncode == 0, "initdb: %s" % r.stderr)
        r = self.run([PGBIN + "/pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "30",
                      "-o", "-k %s -p %d -c listen_addresses='' -c fsync=off "
                      "-c full_page_writes=off -c TimeZone=UTC %s"
                      % (self.dir, self.port, self.opts),
                      "start"])
        self.started = r.returncode == 0
        check(self.started, "pg_ctl start: %s %s" % (r.stdout, r.stderr))
        self.sql("CREATE DATABASE fleet", db="postgres")

    def stop(self):
        if self.started:
            self.run([PGBIN + "/pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"])
            self.started = False

    def psql(self, args, db="fleet", user="rg", fail=False):
        r = subprocess.run([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.dir, "-p",
                            str(self.port), "-U", user, "-d", db] + args,
                           capture_output=True, text=True)
        if fail:
            return r
        check(r.returncode == 0, "psql %s: %s" % (args, r.stderr))
        return r.stdout

    def sql(self, q, db="fleet", user="rg"):
        return self.psql(["-A", "-t", "-c", q], db=db, user=user)

    def refused(self, q, user, why):
        """q as user must fail, saying why (a permission denied, the trigger's refusal)."""
        r = self.psql(["-A", "-t", "-c", q], user=user, fail=True)
        check(r.returncode != 0 and why in r.stderr,
              "%s as %s: exit %d, %r (want a refusal: %s)" % (q, user, r.returncode,
                                                              r.stderr.strip(), why))

    def rows(self, q, user="rg"):
        """The rows of q as a list of dicts (json_agg), [] for none."""
        out = self.sql("SELECT coalesce(json_agg(t), '[]') FROM (%s) t" % q, user=user).strip()
        return json.loads(out)

    def scalar(self, q):
        return self.sql(q).strip()


class Collector:
    """rsyslogd with the shipped configuration; only the values marked SET are replaced."""

    def __init__(self, d, pg, pki, name="rsyslog", writers_to=None):
        """writers_to: a folder; each writer's ompgsql action is replaced by an omfile action
        writing the same statements to a file named after it there (partition(), below)."""
        self.dir = os.path.join(d, name)
        os.makedirs(os.path.join(self.dir, "work"))
        self.port = free_port()
        self.tls_port = free_port()
        self.conf = os.path.join(self.dir, "rsyslog.conf")
        self.log = os.path.join(d, name + "d.log")
        with open(os.path.join(SRC, "fleet", "rsyslog", "rdmaguard-central.conf")) as f:
            conf = f.read()
        subs = [('input(type="imrelp" port="2514"', 'input(type="imrelp" port="%d"' % self.port),
                ('server="127.0.0.1" port="5432" db="rdmaguard"',
                 'server="%s" port="%d" db="fleet"' % (pg.dir, pg.port) if pg else
                 'server="127.0.0.1" port="5432" db="rdmaguard"'),
                ('uid="rsyslog" pwd="SET-ME"', 'uid="rg_ingest" pwd=""'),
                # the RELP-over-TLS input, uncommented, with a PKI made for the test
                ('#input(type="imrelp" port="2515"', 'input(type="imrelp" port="%d"'
                 % self.tls_port),
                ('#      tls.caCert="/etc/rsyslog.d/rdmaguard-ca.pem" '
                 'tls.myCert="/etc/rsyslog.d/collector.pem"',
                 '       tls.caCert="%s" tls.myCert="%s"' % (pki["ca"], pki["server"])),
                ('#      tls.myPrivKey="/etc/rsyslog.d/collector.key"',
                 '       tls.myPrivKey="%s"' % pki["server_key"])]
        for a, b in subs:
            # the connection's values are in each of the writers' actions
            check(conf.count(a) == 1 or (a.startswith(("server=", "uid=")) and conf.count(a) > 1),
                  "the shipped configuration has no %r" % a)
            conf = conf.replace(a, b)
        if writers_to:
            conf, n = re.subn(r'action\(type="ompgsql" name="(rdmaguard_pgsql_\d)".*?\)',
                              lambda m: 'action(type="omfile" name="%s" file="%s" '
                              'template="rdmaguard_pgsql")' % (m.group(1), os.path.join(
                                  writers_to, m.group(1))), conf, flags=re.S)
            check(n == 2, "the shipped configuration has two ompgsql writers (%d)" % n)
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
    "D-01": ("10.0.0.15", "fp-std", []),
}
# RDMA-009's peers (192.0.2.50 by GID only, 198.51.100.7 by address) per seat.
PEERS = {"B-12": ("10.0.0.77", "10.0.0.78"), "B-13": ("10.0.0.11", "10.0.0.12")}


def heartbeat(seat, ts, ident=None):
    """A heartbeat notice with the identity the daemon writes (docs/seat.md) and its hardware
    fields (hw.fingerprint, pci.dsn[]); ident (ip, fingerprint, DSNs) for a seat not in SEATS."""
    ip, fp, dsns = ident or SEATS[seat]
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


def incident(seat, iid, state, stage, severity, verdict, summary, layout=2):
    """An incident record as the agent writes it (rdmaguard incidents): the fields the store
    reads (docs/fleet.md#incidents), in ECS's layout (rdmaguard.schema_version 2:
    rdmaguard.severity) or the first (a top-level severity; docs/operations.md)."""
    r = {"@timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime()),
         "event": {"id": str(uuid.uuid4()), "kind": "state",
                   "action": "incident_" + state, "dataset": "rdmaguard.incident",
                   "category": ["intrusion_detection"]},
         "message": summary, "labels": {"seat": seat},
         "host": {"name": "lan-" + seat.lower()},
         "rdmaguard": {"incident": {"id": iid, "kind": "actor",
                                    "status": "closed" if state == "closed" else "open",
                                    "stage": stage, "verdict": verdict, "alerts": 2}}}
    if layout == 2:
        r["ecs"] = {"version": "9.4.0"}
        r["event"].update({"type": ["info"], "outcome": "unknown"})
        r["rdmaguard"].update({"schema_version": 2, "severity": severity})
    else:
        r["severity"] = severity
    return r


def send_docs(d, port, docs, name, hostname=None):
    """JSON documents through the outputs module's relp:// output (the driver), as a seat
    sends (the syslog HOSTNAME: this machine's, or hostname)."""
    log = open(os.path.join(d, name + ".log"), "ab")
    p = subprocess.Popen([DRIVER, "--state-dir", os.path.join(d, "state-" + name), "--output",
                          "relp://127.0.0.1:%d" % port, "--exit-flush-ms", "20000"] +
                         (["--hostname", hostname] if hostname else []),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
    CHILDREN.append(p)
    log.close()
    lines = "".join(json.dumps(x) + "\n" for x in docs)
    out, _ = p.communicate(lines.encode(), timeout=60)
    check(p.returncode == 0 and b'"exit": 0' in out.replace(b'"exit":0', b'"exit": 0'),
          "%s driver: exit %s %r" % (name, p.returncode, out[-300:]))


def send_heartbeats(d, port, seats, name):
    ts = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    send_docs(d, port, [heartbeat(s, ts) for s in seats], name)


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


def console(d, pg, rs, alerts):
    """The console's views: incident records through rsyslog, the room's states, a referee's
    notes and what they clear."""
    b12 = "b12-" + uuid.uuid4().hex[:8]
    a01 = "a01-" + uuid.uuid4().hex[:8]
    # both layouts: a fleet updates its seats one at a time
    recs = [incident("B-12", b12, "opened", "capability", "high", "suspicious",
                     "rping registered remote-readable memory", layout=1),
            incident("A-01", a01, "opened", "access", "critical", "notice",
                     "ib_send_bw opened uverbs0"),
            incident("B-12", b12, "updated", "target", "critical", "cheat",
                     "rping read Arena's memory into it during the match"),
            incident("A-01", a01, "closed", "access", "medium", "notice", "ib_send_bw exited")]
    send_docs(d, rs.port, recs, "incidents")
    # the seats' own replays send incident records too: count this test's two incidents
    wait_for(lambda: pg.scalar("SELECT count(*) FROM rdmaguard.incident_events WHERE "
                               "incident_id IN ('%s', '%s')" % (b12, a01)) == "4", 30,
             "4 incident records in PostgreSQL")
    inc = pg.rows("SELECT incident_id, seat, state, stage, severity, verdict, records, "
                  "closed_at IS NOT NULL AS closed FROM rdmaguard.incidents WHERE incident_id "
                  "IN ('%s', '%s') ORDER BY seat" % (a01, b12))
    check(inc == [{"incident_id": a01, "seat": "A-01", "state": "closed", "stage": "access",
                   "severity": "critical", "verdict": False, "records": 2, "closed": True},
                  {"incident_id": b12, "seat": "B-12", "state": "updated", "stage": "target",
                   "severity": "critical", "verdict": True, "records": 2, "closed": False}],
          "incidents: %r" % inc)
    tl = pg.rows("SELECT kind, what, detail FROM rdmaguard.incident_timeline "
                 "WHERE incident_id = '%s' ORDER BY at, kind" % b12)
    check(tl == [{"kind": "record", "what": "opened", "detail": "capability"},
                 {"kind": "record", "what": "updated", "detail": "target"}],
          "incident_timeline: %r" % tl)

    # The room. C-01 fell silent 1.2 s before the others: silent_after between the two.
    pg.sql("UPDATE rdmaguard.settings SET value = (now() - interval '0.6 s' - (SELECT "
           "last_heartbeat FROM rdmaguard.seat_state WHERE seat = 'C-01'))::text "
           "WHERE name = 'silent_after'")

    def room():
        return {r["seat"]: r for r in pg.rows("SELECT * FROM rdmaguard.seat_overview")}
    want = {"A-01": "suspicious", "B-12": "incident", "B-13": "suspicious", "C-01": "silent",
            "D-01": "weak"}
    got = room()
    check({s: r["state"] for s, r in got.items()} == want, "seat_overview: %r" % got)
    check(got["D-01"]["weak_reasons"] == ["iommu"] and got["D-01"]["open_medium"] == 4 and
          got["B-12"]["open_high"] == 4 and got["B-12"]["open_verdicts"] == 1 and
          got["A-01"]["open_incidents"] == 1 and got["B-12"]["row_label"] == "B" and
          got["B-12"]["seat_number"] == 12, "seat_overview's columns: %r" % got)
    pg.sql("UPDATE rdmaguard.settings SET value = '3 minutes' WHERE name = 'silent_after'")
    recent = pg.rows("SELECT event_id::text AS id FROM rdmaguard.seat_alerts WHERE seat = 'B-13' "
                     "ORDER BY received_at DESC LIMIT 3")
    check(len(recent) == 3 and {r["id"] for r in recent} <= {a["event"]["id"]
                                                             for a in alerts["B-13"]},
          "seat_alerts: %r" % recent)

    # A referee's notes: who and when are the database's.
    pg.refused("INSERT INTO rdmaguard.review_notes (incident_id, note, reviewer) "
               "VALUES ('%s', 'x', 'someone-else')" % b12, "rg_referee", "permission denied")
    pg.refused("INSERT INTO rdmaguard.review_notes (incident_id, note, recorded_at) "
               "VALUES ('%s', 'x', '2000-01-01')" % b12, "rg_referee", "permission denied")
    pg.sql("INSERT INTO rdmaguard.review_notes (incident_id, note, account) "
           "VALUES ('%s', 'memory read confirmed, player disqualified', 'alice')" % b12,
           user="rg_referee")
    pg.sql("INSERT INTO rdmaguard.review_notes (seat, note) VALUES ('B-13', 'peer is A-01: ok')",
           user="rg_referee")
    notes = pg.rows("SELECT seat, incident_id, account, reviewer, "
                    "now() - recorded_at < interval '1 minute' AS now FROM "
                    "rdmaguard.review_notes ORDER BY id")
    check(notes == [{"seat": "B-12", "incident_id": b12, "account": "alice",
                     "reviewer": "rg_referee", "now": True},
                    {"seat": "B-13", "incident_id": None, "account": None,
                     "reviewer": "rg_referee", "now": True}], "review_notes: %r" % notes)
    for q in ("UPDATE rdmaguard.review_notes SET note = 'nothing'",
              "DELETE FROM rdmaguard.review_notes"):
        pg.refused(q, "rg_referee", "permission denied")
    for q in ("UPDATE rdmaguard.review_notes SET note = 'nothing'",
              "DELETE FROM rdmaguard.review_notes", "TRUNCATE rdmaguard.review_notes"):
        pg.refused(q, "rg", "never changed or deleted")  # not even the superuser
    pg.refused("INSERT INTO rdmaguard.matches VALUES ('m', '{B-12}', now(), now() + "
               "interval '1 h', true)", "rg_referee", "permission denied")
    pg.refused("DELETE FROM rdmaguard.alerts", "rg_referee", "permission denied")
    got = room()
    check(got["B-12"]["state"] == "suspicious" and got["B-12"]["open_verdicts"] == 0 and
          got["B-13"]["state"] == "ok", "seat_overview after the notes: %r" % got)
    inc = pg.rows("SELECT incident_id, open, notes FROM rdmaguard.seat_incidents "
                  "WHERE incident_id IN ('%s', '%s') ORDER BY seat" % (a01, b12))
    check(inc == [{"incident_id": a01, "open": True, "notes": None},
                  {"incident_id": b12, "open": False, "notes": 1}], "seat_incidents: %r" % inc)


def roles(pg):
    """The collector's role can call ingest() and nothing else; the maintenance role only
    maintain()."""
    for q in ("SELECT count(*) FROM rdmaguard.alerts",
              "UPDATE rdmaguard.alerts SET seat = 'X-01'",
              "DELETE FROM rdmaguard.alerts",
              "TRUNCATE rdmaguard.alerts",
              "INSERT INTO rdmaguard.alerts SELECT * FROM rdmaguard.alerts",
              "UPDATE rdmaguard.seat_state SET weak_reasons = '{}'",
              "DELETE FROM rdmaguard.agent_events",
              "INSERT INTO rdmaguard.review_notes (seat, note) VALUES ('A-01', 'x')",
              "SELECT * FROM rdmaguard.maintain('0 days', '0 days')",
              "SELECT rdmaguard.ingest_alert('{}', gen_random_uuid(), now(), 'A-01', now(), "
              "NULL)",
              "SELECT rdmaguard.create_partition('alerts', '2000-01-01')"):
        pg.refused(q, "rg_ingest", "permission denied")
    pg.refused("DROP TABLE rdmaguard.alerts_default", "rg_ingest", "must be owner")
    for q in ("DELETE FROM rdmaguard.alerts", "UPDATE rdmaguard.alerts SET seat = 'X-01'",
              "SELECT rdmaguard.ingest('{}', 'x', '10.0.0.1')"):
        pg.refused(q, "rg_maint", "permission denied")
    # What cannot be read is kept apart, and rsyslog is never made to retry it.
    pg.sql("SELECT rdmaguard.ingest('not json', 'seat-x', '10.0.0.99')", user="rg_ingest")
    check(pg.rows("SELECT hostname, host(sender_ip) AS ip FROM rdmaguard.rejects") ==
          [{"hostname": "seat-x", "ip": "10.0.0.99"}], "rejects")


def room(pg, fp):
    """fingerprint_outliers in a room of three hardware generations (none a majority), through
    ingest() as the collector's role: the two seats alone in their group, nothing else."""
    ts = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    gens = [fp] * 25 + ["fp-gen2"] * 20 + ["fp-gen3"] * 14 + ["fp-odd-r"]
    q = "".join("SELECT rdmaguard.ingest($j$%s$j$, 'h', '10.1.0.%d');\n"
                % (json.dumps(heartbeat("R-%02d" % i, ts, ("10.1.0.%d" % i, g, []))), i)
                for i, g in enumerate(gens, 1))
    pg.psql(["-c", q], user="rg_ingest")
    odd = pg.rows("SELECT * FROM rdmaguard.fingerprint_outliers ORDER BY seat")
    want = [{"seat": s, "fingerprint": f, "fingerprint_seats": 1, "fleet_fingerprint": fp,
             "fleet_seats": 29, "seats_reporting": 65}
            for s, f in (("B-13", "fp-odd"), ("R-60", "fp-odd-r"))]
    check(odd == want, "fingerprint_outliers in a room of three generations:\n got %r\nwant %r"
          % (odd, want))
    # A seat's label is the seat's to write: a number past an integer's range is no seat
    # number, and must not make the room unreadable for everyone.
    pg.psql(["-c", "SELECT rdmaguard.ingest($j$%s$j$, 'h', '10.1.0.99')"
             % json.dumps(heartbeat("R-99999999999", ts, ("10.1.0.99", fp, [])))],
            user="rg_ingest")
    big = pg.rows("SELECT row_label, seat_number FROM rdmaguard.seat_overview "
                  "WHERE seat IN ('R-99999999999', 'R-60') ORDER BY seat")
    check(big == [{"row_label": "R", "seat_number": 60},
                  {"row_label": "R", "seat_number": None}], "seat_overview's numbers: %r" % big)


def retention(pg):
    """maintain() as the maintenance role: old days dropped whole, a held match's day kept until
    the hold is lifted, heartbeats kept shorter, rows from the default partition moved to
    their day first, partitions made ahead."""
    day = "(current_date - %d)::timestamptz + interval '12 hours'"
    pg.sql("SELECT rdmaguard.create_partitions(current_date - 200, current_date - 199); "
           "SELECT rdmaguard.create_partitions(current_date - 10, current_date - 3)")
    for n, seat in ((200, "B-12"), (199, "B-13"), (150, "A-01")):  # 150: no partition yet
        pg.sql("INSERT INTO rdmaguard.alerts (received_at, ts, event_id, seat, rule_id, severity,"
               " severity_rank, peer_ips, doc) VALUES (%s, '2025-06-01 10:00+00', "
               "gen_random_uuid(), '%s', 'RDMA-009', 'high', 3, '{10.9.9.9}', '{}')"
               % (day % n, seat))
    for n in (10, 3):
        pg.sql("INSERT INTO rdmaguard.agent_events (received_at, seat, action, changed) "
               "VALUES (%s, 'A-01', 'agent_heartbeat', false)" % (day % n))
    check(pg.scalar("SELECT count(*) FROM rdmaguard.alerts_default") == "1", "default partition")
    pg.sql("INSERT INTO rdmaguard.matches VALUES ('dispute', '{B-12}', '2025-06-01 09:00+00', "
           "'2025-06-01 11:00+00', true)")

    def part(n, t="alerts"):
        return pg.scalar("SELECT '%s_p' || to_char(current_date - %d, 'YYYYMMDD')" % (t, n))

    def maintain():
        return {(r["action"], r["object"]): r["n"] for r in pg.rows(
            "SELECT * FROM rdmaguard.maintain() WHERE action <> 'pruned'", user="rg_maint")}
    got = maintain()
    want = {("held", part(200)): 1, ("dropped", part(199)): 1, ("created", part(150)): 0,
            ("dropped", part(150)): 1, ("dropped", part(10, "agent_events")): 1}
    for k, v in want.items():
        check(got.get(k) == v, "maintain(): %s %s: %r, want %d (all: %r)"
              % (k[0], k[1], got.get(k), v, got))
    check(not any(o in (part(3, "agent_events"), part(9)) for _, o in got),
          "maintain() touched a day within its retention: %r" % got)
    check(pg.scalar("SELECT count(*) FROM rdmaguard.alerts WHERE received_at < now() - "
                    "interval '100 days'") == "1" and
          pg.scalar("SELECT count(*) FROM rdmaguard.alerts_default") == "0" and
          pg.scalar("SELECT count(*) FROM rdmaguard.agent_events WHERE received_at < now() - "
                    "interval '1 day'") == "1", "rows after maintain()")
    check(pg.scalar("SELECT to_regclass('rdmaguard.alerts_p' || to_char(current_date + 7, "
                    "'YYYYMMDD')) IS NOT NULL") == "t", "a week of partitions ahead")
    peers_follow(pg)
    pg.sql("UPDATE rdmaguard.matches SET hold = false WHERE match_id = 'dispute'")
    got = maintain()
    check(got == {("dropped", part(200)): 1}, "maintain() after the hold: %r" % got)
    peers_follow(pg)


def peers_follow(pg):
    """alert_peers (what rdma_peers reads) holds the peers of the alerts stored, each once:
    the dropped days' pruned, a held day's kept, one moved out of the default partition not
    added twice."""
    stored = "SELECT a.event_id, p FROM rdmaguard.alerts a, unnest(a.peer_ips) p"
    kept = "SELECT event_id, peer FROM rdmaguard.alert_peers"
    diff = pg.scalar("SELECT count(*) FROM ((%s EXCEPT ALL %s) UNION ALL (%s EXCEPT ALL %s)) x"
                     % (kept, stored, stored, kept))
    check(diff == "0", "alert_peers and the alerts' peers differ by %s rows" % diff)


def partition(d, pki):
    """The shipped configuration's two writers split the messages by the seat as ingest() finds
    it (labels.seat, else host.name, else host.hostname, else the syslog HOSTNAME), not by the
    HOSTNAME alone: one seat's messages sent under eight HOSTNAMEs (its heartbeats and a
    replay's alerts can come under different ones) all reach one writer. Otherwise two writers'
    batches (one transaction each) insert one seat's rows in opposite orders, PostgreSQL
    breaks the deadlock by failing one, and ompgsql loses that batch's earlier messages."""
    out = os.path.join(d, "writers")
    os.makedirs(out)
    rs = Collector(d, None, pki, name="rsyslog-partition", writers_to=out)
    rs.start()
    try:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
        for k in range(8):
            # A-01 by labels.seat; lan-a-01 by host.name, as a seat without a label
            docs = [heartbeat("A-01", ts), dict(heartbeat("A-01", ts), labels={})]
            for j, doc in enumerate(docs):
                send_docs(d, rs.port, [doc], "partition-%d-%d" % (k, j), hostname="host-%d" % k)

        def lines():
            return {w: open(os.path.join(out, w)).read().count("rdmaguard.ingest(")
                    for w in os.listdir(out)}
        wait_for(lambda: sum(lines().values()) == 16, 30, "16 statements in the writers' files")
        got = {}
        for w in os.listdir(out):
            # omfile writes the statements as they are, without a line break between them
            for line in open(os.path.join(out, w)).read().split("SELECT rdmaguard.ingest(")[1:]:
                seat = "A-01" if '"seat":"A-01"' in line.replace(" ", "") else "lan-a-01"
                got.setdefault(seat, set()).add(w)
        check(got and all(len(ws) == 1 for ws in got.values()),
              "each seat's messages in one writer, whatever the HOSTNAME: %s" % got)
    finally:
        rs.proc.terminate()
        rs.proc.wait(10)
    print("partition: a seat's messages under 8 HOSTNAMEs reach one writer: %s" % got)


def scenario(d):
    pg = Postgres(d)
    rs = None
    try:
        pg.start()
        # Installed twice: the second run changes nothing (an upgrade runs the same files).
        for _ in range(2):
            pg.psql(sum((["-f", os.path.join(SRC, "fleet", "postgresql", f)]
                         for f in ("schema.sql", "retention.sql", "views.sql")), []))
        # The login roles of docs/fleet.md#roles: rsyslog's, a referee's, the maintenance job's.
        pg.sql("CREATE ROLE rg_ingest LOGIN IN ROLE rdmaguard_ingest; "
               "CREATE ROLE rg_referee LOGIN IN ROLE rdmaguard_referee; "
               "CREATE ROLE rg_maint LOGIN IN ROLE rdmaguard_maintain")
        pki = make_pki(d, "pki")
        partition(d, pki)
        rs = Collector(d, pg, pki)
        rs.start()

        if os.geteuid() == 0:
            fp = subprocess.run([RDMAGUARD, "baseline", "digest"], capture_output=True,
                                text=True, timeout=30)
            check(fp.returncode == 0, "baseline digest: %s" % fp.stderr)
            fp = fp.stdout.strip()
            for s in ("A-01", "B-12", "D-01"):
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
            got = pg.rows("SELECT seat, fingerprint, pci_dsns FROM rdmaguard.seat_state")
            check(got == [{"seat": "C-01", "fingerprint": fp, "pci_dsns": SEATS["C-01"][2]}],
                  "the daemon's notices: %r, want C-01 %s %s" % (got, fp, SEATS["C-01"][2]))
            # the start and stop notices keep their documents; a heartbeat that changes
            # nothing keeps none (schema.sql, agent_events), so 2 notices at least
            keys = pg.rows("SELECT seat, public_key, fingerprint, notices FROM "
                           "rdmaguard.seat_keys")
            kg = subprocess.run([RDMAGUARD, "evidence", "keygen", "--state-dir",
                                 os.path.join(d, "state-daemon-C-01")], capture_output=True,
                                text=True, timeout=30)
            check(kg.returncode == 0 and keys and len(keys) == 1 and
                  keys[0]["seat"] == "C-01" and keys[0]["notices"] >= 2 and
                  "public %s\n" % keys[0]["public_key"] in kg.stdout and
                  "fingerprint %s\n" % keys[0]["fingerprint"] in kg.stdout,
                  "seat_keys: C-01's key as its daemon made it, in every notice: %r, %s" %
                  (keys, kg.stdout))
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
                                   ("B-13", "RDMA-009", tls),
                                   # bom=1: MSG-UTF8, the JSON after a BOM
                                   ("D-01", "DMA-004", "relp://127.0.0.1:%d?bom=1" % rs.port))]
        for t in runs:
            t.start()
        send_heartbeats(d, rs.port, ["A-01", "B-12", "B-13", "D-01"], "hb")
        for t in runs:
            t.join()
        alerts = {}
        for seat, (rc, out, err) in sorted(results.items()):
            check(rc == 1, "replay %s: exit %d: %s" % (seat, rc, err))
            alerts[seat] = out
        check([len(alerts[s]) for s in ("A-01", "B-12", "B-13", "D-01")] == [2, 4, 4, 4],
              "alerts per seat %r" % {s: len(a) for s, a in alerts.items()})
        total = sum(len(a) for a in alerts.values())
        wait_for(lambda: pg.scalar("SELECT count(*) FROM rdmaguard.alerts") == str(total) and
                 pg.scalar("SELECT count(*) FROM rdmaguard.agent_events") == str(n_c01 + 4),
                 30, "%d alerts and %d notices in PostgreSQL" % (total, n_c01 + 4))

        # Each alert once, whole, under its seat.
        got = pg.rows("SELECT seat, event_id::text AS id, doc FROM rdmaguard.alerts")
        want = {a["event"]["id"]: (s, a) for s, al in alerts.items() for a in al}
        check(len(got) == total and {g["id"] for g in got} == set(want), "stored alerts differ")
        for g in got:
            check(g["seat"] == want[g["id"]][0] and g["doc"] == want[g["id"]][1],
                  "alert %s stored as %r" % (g["id"], g))
        check(pg.rows("SELECT reason, left(msg, 60) AS msg FROM rdmaguard.rejects") == [],
              "rejects: %r" % pg.rows("SELECT reason, left(msg, 60) AS msg "
                                      "FROM rdmaguard.rejects"))
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
        check(odd == [{"seat": "B-13", "fingerprint": "fp-odd", "fingerprint_seats": 1,
                       "fleet_fingerprint": fp, "fleet_seats": 4, "seats_reporting": 5}],
              "fingerprint_outliers: %r" % odd)

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

        console(d, pg, rs, alerts)
        roles(pg)
        room(pg, fp)
        retention(pg)
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
