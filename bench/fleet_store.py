#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The fleet store's benchmark (docs/fleet.md#the-benchmark): a throwaway PostgreSQL 15 cluster
with fleet/postgresql/*.sql, a venue generated in it, and what a venue asks of the store:

  1. the seats: one heartbeat each through rdmaguard.ingest() (three hardware generations, a
     few seats alone with their hardware, cloned DSNs, silent seats);
  2. history: --days of alerts (a realistic mix, skewed across seats, --alerts-per-seat a day),
     their incidents, --hb-hours of 30-second heartbeats, written by SQL straight into the
     partitions (ingest() for a month of a venue would take the benchmark days);
  3. ingest rate through rdmaguard.ingest(), with fsync on: a collector's backlog (the venue's
     own mix, 99.8 % heartbeats) and an alert storm (alerts and incident records), each
     (a) in one statement, the function's own cost, and (b) one statement per message in
     transactions of 128 as ompgsql sends them, from 1 and 2 sessions; with --rsyslog also
     through the shipped rsyslog configuration (imrelp -> ompgsql) from several RELP senders;
  4. the latency of every documented query (docs/fleet.md), as the viewer role, median and
     max of --runs after one warm-up.

--check (the meson test fleet-store-bench, small) asserts what the answers must be for the
venue generated (counts, silent seats, outliers, cloned DSNs, peers' seats, repeats dropped, no
rejects) and reports the times without asserting them. --out DIR writes fleet-store.json.

Usage: fleet_store.py [--check] [--seats N] [--days N] [--alerts-per-seat X] [--hb-hours H]
                      [--ingest N] [--rsyslog] [--runs N] [--out DIR]
       (env: RG_SOURCE_ROOT; RG_OUTPUT_DRIVER for --rsyslog)
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

SRC = os.environ.setdefault("RG_SOURCE_ROOT",
                            os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRC, "tests", "integration", "fleet"))
import test_fleet as tf  # noqa: E402  (the throwaway cluster and collector of fleet-postgresql)

BATCH = 128  # messages per transaction, as ompgsql's batches
# The alert mix: rule, severity, share, a peer (RDMA-009), during a game, process.
MIX = [("AGENT-003", "info", 0.30, False, False, "rdmaguard"),
       ("RDMA-003", "medium", 0.22, False, False, "steam"),
       ("RDMA-001", "medium", 0.10, False, False, "kernel"),
       ("AGENT-001", "medium", 0.08, False, False, "rdmaguard"),
       ("DMA-004", "medium", 0.05, False, False, "kernel"),
       ("RDMA-004", "medium", 0.06, False, False, "ibv_devinfo"),
       ("RDMA-005", "high", 0.05, False, False, "memread-sim"),
       ("RDMA-009", "high", 0.06, True, False, "rping"),
       ("DMA-008", "high", 0.03, False, False, "kernel"),
       ("RDMA-006", "critical", 0.03, False, True, "helper"),
       ("RDMA-008", "critical", 0.02, False, True, "memread-sim")]


class Venue:
    """The seats: label, address, fingerprint, DSNs; which are odd, cloned, silent."""

    def __init__(self, n):
        self.n = n
        self.labels = []
        for i in range(n):
            r, k = divmod(i, 100)
            row = chr(65 + r) if r < 26 else chr(64 + r // 26) + chr(65 + r % 26)
            self.labels.append("%s-%02d" % (row, k + 1))
        step = max(1, n // 10)
        self.odd = set(range(step // 2, n, step)) if n >= 100 else {n // 2}
        self.silent = set(range(7, n, 20)) - self.odd  # one seat in twenty
        self.clones = [(5, 6), (n - 3, n - 2)]

    def ip(self, i):
        k = i + 256
        return "10.%d.%d.%d" % (k >> 16, (k >> 8) & 255, k & 255)

    def fingerprint(self, i):
        if i in self.odd:
            return "odd-%d" % i
        return ("gen1", "gen1", "gen1", "gen1", "gen1", "gen2", "gen2", "gen2", "gen3",
                "gen3")[i % 10]

    def dsns(self, i):
        d = ["%02x-%02x-%02x-ff-fe-00-00-01" % (i >> 16, (i >> 8) & 255, i & 255)]
        for a, b in self.clones:
            if i == b:
                d.append("%02x-%02x-%02x-ff-fe-00-00-01" % (a >> 16, (a >> 8) & 255, a & 255))
        return sorted(d)


def now_iso():
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())


def heartbeat(v, i):
    """A heartbeat as the daemon writes it: identity, hardware, and its statistics."""
    d = tf.heartbeat(v.labels[i], now_iso(), (v.ip(i), v.fingerprint(i), v.dsns(i)))
    d["agent"].update({
        "uptime_s": 86400, "events": 1234567, "queue": {"depth": 0, "max": 4096},
        "alerts": {"total": 12, "pending_repeats": 0, "by_rule": {"RDMA-003": 10,
                                                                  "AGENT-003": 2},
                   "by_severity": {"medium": 10, "info": 2}},
        "sensors": {"lost_per_cpu": [0] * 8, "lost_total": 0, "ring": "ringbuf 8 MiB"},
        "outputs": [{"spec": "relp://collector.hall:2514", "sent": 1234, "spooled": 0,
                     "lost": 0, "connected": True}],
        "proctree": {"capacity": 32768, "live": 412, "exited": 90, "evicted_live": 0,
                     "evicted_kept": 0, "evicted_exited": 0, "games_running": i % 2},
        "exe_hash": {"hashed": 300, "cached": 2000, "queued": 0, "waiting": 0, "refused": 0,
                     "too_big": 0, "errors": 0},
        "reloads": {"ok": 1, "rejected": 0}, "reconcile": {"runs": 24, "new": 0, "errors": 0},
        "rss_bytes": 24117248})
    return d


def alert(v, i, rule, sev, peer, game, proc, incident=None):
    """An alert with the fields and size of the agent's (a rule fixture's), its expected peer
    seat under bench.peer_seat."""
    ip = v.ip(i)
    d = {"@timestamp": now_iso(),
         "event": {"id": str(uuid.uuid4()), "kind": "alert", "action": "verbs",
                   "provider": "sensor", "sequence": random.randint(1, 10 ** 6), "severity": 3},
         "process": {"pid": 4242, "name": proc, "executable": "/usr/bin/" + proc,
                     "args": ["/usr/bin/" + proc, "-d", "rxe0"], "user": {"id": 1000},
                     "entity_id": uuid.uuid4().hex, "session": {"id": 4200},
                     "parent": {"pid": 4200}, "start_time": now_iso()},
         "rule": {"id": rule, "name": "rule " + rule, "action": "alert",
                  "description": "The description of the rule, as the agent sends it, about "
                                 "one line of text long for a realistic size."},
         "severity": sev, "message": "%s (4242) on rxe0: %s" % (proc, rule), "count": 1,
         "action": "alert",
         "host": {"name": "lan-" + v.labels[i].lower(), "hostname": "lan-" + v.labels[i].lower(),
                  "id": uuid.uuid5(uuid.NAMESPACE_DNS, v.labels[i]).hex, "ip": [ip],
                  "os": {"type": "linux", "family": "debian", "kernel": "6.1.0-13-amd64"}},
         "labels": {"seat": v.labels[i]}, "agent": {"type": "rdmaguard", "version": "0.1.0"},
         "tags": ["rdma"], "threat": {"framework": "MITRE ATT&CK",
                                      "tactic": {"id": "TA0011", "name": "Command and Control"}}}
    if game:
        d["game"] = {"name": "Arena", "pid": 700, "running": True}
    if peer:
        if random.random() < 0.8:
            j = random.randrange(v.n)
            d["destination"] = {"ip": v.ip(j), "port": 18515}
            d["bench"] = {"peer_seat": v.labels[j]}
        else:
            d["destination"] = {"ip": "192.0.2.%d" % random.randint(1, 250), "port": 18515}
            d["bench"] = {"peer_seat": None}
        d["related"] = {"ip": [ip, d["destination"]["ip"]]}
    if incident:
        d["rdmaguard"] = {"incident": {"id": incident}}
    return d


def incident_record(v, i, iid, state, stage, sev):
    return {"@timestamp": now_iso(),
            "event": {"id": str(uuid.uuid4()), "kind": "state", "action": "incident_" + state,
                      "dataset": "rdmaguard.incident"},
            "severity": sev, "labels": {"seat": v.labels[i]},
            "message": "memread-sim (pid 221) registered remote-readable memory on rxe0",
            "rdmaguard": {"incident": {"id": iid, "status": "open", "stage": stage,
                                       "verdict": "cheat" if sev == "critical" else "notice"}}}


def proc_cpu(pid):
    """utime + stime (+ the reaped children's with cutime, cstime) of a process, in seconds."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, []
    return sum(int(x) for x in st[11:15]) / os.sysconf("SC_CLK_TCK"), st


def cluster_cpu(pg):
    """CPU seconds the cluster has used: the postmaster, its children alive and reaped (every
    backend that ended is in the postmaster's cutime and cstime)."""
    with open(os.path.join(pg.data, "postmaster.pid")) as f:
        pm = int(f.readline())
    for _ in range(40):  # a backend that ended but is not reaped yet shows no times
        total, _ = proc_cpu(pm)
        zombie = False
        for e in os.listdir("/proc"):
            if e.isdigit():
                t, st = proc_cpu(int(e))
                if st and int(st[1]) == pm:
                    total += t
                    zombie = zombie or st[0] == "Z"
        if not zombie:
            break
        time.sleep(0.05)
    return total


class Bench:
    def __init__(self, a, d):
        self.a = a
        self.d = d
        self.v = Venue(a.seats)
        self.pg = tf.Postgres(d, "-c shared_buffers=512MB -c maintenance_work_mem=256MB "
                                 "-c max_wal_size=4GB -c work_mem=32MB")
        self.out = {"params": vars(a), "ingest": {}, "queries": {}, "sizes": {}}

    def log(self, *x):
        print(time.strftime("%H:%M:%S"), *x, flush=True)

    def sql(self, q, user="rg"):
        if len(q) < 65536:
            return self.pg.sql(q, user=user)
        path = os.path.join(self.d, "q.sql")  # too long for an argument
        with open(path, "w") as f:
            f.write(q)
        return self.pg.psql(["-A", "-t", "-f", path], user=user)

    def scalar(self, q):
        return self.pg.scalar(q)

    def setup(self):
        self.pg.start()
        self.pg.psql(sum((["-f", os.path.join(SRC, "fleet", "postgresql", f)]
                          for f in ("schema.sql", "retention.sql", "views.sql")), []))
        self.sql("CREATE ROLE bench_ingest LOGIN IN ROLE rdmaguard_ingest; "
                 "CREATE ROLE bench_viewer LOGIN IN ROLE rdmaguard_referee; "
                 "CREATE ROLE bench_maint LOGIN IN ROLE rdmaguard_maintain")
        self.sql("SELECT count(*) FROM rdmaguard.create_partitions(current_date - %d, "
                 "current_date)" % self.a.days)

    def feed(self, docs, user="bench_ingest", sessions=1, batch=BATCH, name="feed"):
        """docs through ingest(), one statement a message in transactions of batch, from
        sessions psql sessions at once (each seat's in one); returns the wall and the backends'
        CPU seconds."""
        files = []
        for s in range(sessions):
            path = os.path.join(self.d, "%s-%d.sql" % (name, s))
            with open(path, "w") as f:
                # one seat's messages in one session, as one collector per group of seats
                part = [x for x in docs if hash(x["labels"]["seat"]) % sessions == s]
                for k in range(0, len(part), batch):
                    f.write("BEGIN;\n")
                    for doc in part[k:k + batch]:
                        f.write("SELECT rdmaguard.ingest($j$%s$j$, 'h', '%s');\n"
                                % (json.dumps(doc), doc["host"].get("ip", ["10.0.0.1"])[0]
                                   if "host" in doc else "10.0.0.1"))
                    f.write("COMMIT;\n")
            files.append(path)
        return self.sessions(files, user)

    def sessions(self, files, user):
        """Each file in a psql session of its own, all at once; returns the wall seconds and the
        CPU seconds their backends used (read from /proc while the sessions are open)."""
        procs = []
        for f in files:
            p = subprocess.Popen([tf.PSQL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                                  "-h", self.pg.dir, "-p", str(self.pg.port), "-U", user, "-d",
                                  "fleet"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, bufsize=1)
            p.stdin.write("SELECT pg_backend_pid();\n")
            procs.append((p, int(p.stdout.readline())))
        cpu0 = sum(proc_cpu(pid)[0] for _, pid in procs)
        t0 = time.monotonic()
        for (p, _), f in zip(procs, files):
            p.stdin.write("\\o /dev/null\n\\i %s\n\\o\n\\echo DONE\n" % f)
        for p, _ in procs:
            line = p.stdout.readline()
            tf.check(line.strip() == "DONE", "psql: %r %s" % (line, p.stderr.read()[-500:]
                                                             if p.poll() is not None else ""))
        t = time.monotonic() - t0
        cpu = sum(proc_cpu(pid)[0] for _, pid in procs) - cpu0
        for p, _ in procs:
            p.stdin.close()
            p.wait()
        return t, cpu

    def seats(self):
        v = self.v
        t, _ = self.feed([heartbeat(v, i) for i in range(v.n)], name="seats")
        self.log("seats: %d heartbeats through ingest() in %.1f s" % (v.n, t))
        # The silent seats' last heartbeat ten minutes ago (ingest() takes the collector's
        # clock: no message can say so).
        self.sql("UPDATE rdmaguard.seat_state SET last_heartbeat = now() - interval '10 min' "
                 "WHERE seat IN (%s)" % ",".join("'%s'" % v.labels[i] for i in v.silent))

    def history(self):
        """N days of alerts, incidents and event ids, H hours of heartbeats, by SQL."""
        a, v = self.a, self.v
        total = int(v.n * a.days * a.alerts_per_seat)
        self.sql("CREATE TABLE bench_seats (idx int PRIMARY KEY, seat text, ip inet, "
                 "host_id text); CREATE TABLE bench_mix (rule text, sev text, lo float8, "
                 "hi float8, peer bool, game bool, proc text)")
        rows = ",".join("(%d, '%s', '%s', '%s')" % (i, v.labels[i], v.ip(i),
                                                     uuid.uuid5(uuid.NAMESPACE_DNS,
                                                                v.labels[i]).hex)
                        for i in range(v.n))
        self.sql("INSERT INTO bench_seats VALUES " + rows)
        lo, mix = 0.0, []
        for rule, sev, share, peer, game, proc in MIX:
            mix.append("('%s', '%s', %f, %f, %s, %s, '%s')" % (rule, sev, lo, lo + share, peer,
                                                               game, proc))
            lo += share
        self.sql("INSERT INTO bench_mix VALUES " + ",".join(mix) +
                 "; UPDATE bench_mix SET hi = 1.0 WHERE hi = (SELECT max(hi) FROM bench_mix)")
        t0 = time.monotonic()
        # Skewed: a seat's share grows as the cube of a uniform draw (a few noisy seats).
        self.sql("""
INSERT INTO rdmaguard.alerts (received_at, ts, event_id, seat, host_id, rule_id, severity,
	severity_rank, incident_id, game, peer_ips, process_name, message, sender_ip, doc)
SELECT g.rcv, g.rcv - interval '40 ms', g.id, s.seat, s.host_id, m.rule, m.sev,
       rdmaguard.severity_rank(m.sev), g.inc, CASE WHEN m.game THEN 'Arena' END,
       CASE WHEN m.peer THEN ARRAY[coalesce(p.ip, g.outsider)] ELSE '{}' END,
       m.proc, format('%%s (4242) on rxe0: %%s', m.proc, m.rule), s.ip,
       jsonb_build_object('@timestamp', g.rcv, 'event', jsonb_build_object('id', g.id, 'kind',
	'alert', 'action', 'verbs', 'provider', 'sensor', 'sequence', g.k),
	'process', jsonb_build_object('pid', 4242, 'name', m.proc, 'executable',
	 '/usr/bin/' || m.proc, 'args', jsonb_build_array('/usr/bin/' || m.proc, '-d', 'rxe0'),
	 'entity_id', md5(g.k::text), 'parent', jsonb_build_object('pid', 4200)),
	'rule', jsonb_build_object('id', m.rule, 'name', 'rule ' || m.rule, 'action', 'alert',
	 'description', 'The description of the rule, as the agent sends it, about one line.'),
	'severity', m.sev, 'message', format('%%s (4242) on rxe0: %%s', m.proc, m.rule),
	'host', jsonb_build_object('name', 'lan-' || lower(s.seat), 'id', s.host_id,
	 'ip', jsonb_build_array(host(s.ip))),
	'labels', jsonb_build_object('seat', s.seat),
	'agent', jsonb_build_object('type', 'rdmaguard', 'version', '0.1.0'),
	'bench', jsonb_build_object('peer_seat', p.seat))
	|| CASE WHEN m.peer THEN jsonb_build_object('destination', jsonb_build_object('ip',
		host(coalesce(p.ip, g.outsider)))) ELSE '{}' END
	|| CASE WHEN m.game THEN '{"game": {"name": "Arena", "running": true}}'::jsonb
		ELSE '{}' END
FROM generate_series(1, %d) AS k0(k)
CROSS JOIN LATERAL (SELECT k0.k, now() - random() * interval '%d days' AS rcv,
			   gen_random_uuid() AS id, random() AS r, random() AS q,
			   floor(%d * power(random(), 3))::int AS si,
			   floor(%d * random())::int AS pi,
			   ('192.0.2.' || (1 + floor(random() * 250))::int)::inet AS outsider,
			   NULL::text AS inc) g
JOIN bench_seats s ON s.idx = g.si
JOIN bench_mix m ON g.r >= m.lo AND g.r < m.hi
LEFT JOIN bench_seats p ON m.peer AND g.q < 0.8 AND p.idx = g.pi
""" % (total, a.days, v.n, v.n))
        # The high and critical alerts of a seat and a day are one incident.
        self.sql("""
UPDATE rdmaguard.alerts SET incident_id = 'inc-' || seat || '-' ||
	to_char(received_at, 'YYYYMMDD') WHERE severity_rank >= 3;
INSERT INTO rdmaguard.event_ids SELECT event_id, received_at FROM rdmaguard.alerts;
INSERT INTO rdmaguard.incidents
SELECT incident_id, min(seat), CASE WHEN max(received_at) < now() - interval '1 hour'
	THEN 'closed' ELSE 'updated' END,
       CASE WHEN max(severity_rank) = 4 THEN 'target' ELSE 'capability' END,
       CASE WHEN max(severity_rank) = 4 THEN 'critical' ELSE 'high' END, max(severity_rank),
       max(severity_rank) = 4, min(message), min(received_at), max(received_at),
       CASE WHEN max(received_at) < now() - interval '1 hour' THEN max(received_at) END,
       max(ts), 2, '{}'
FROM rdmaguard.alerts WHERE incident_id IS NOT NULL GROUP BY incident_id;
INSERT INTO rdmaguard.incident_events
SELECT t, t, gen_random_uuid(), i.seat, i.incident_id, x.state, i.stage, i.severity,
       i.severity_rank, i.verdict, i.summary, NULL,
       jsonb_build_object('rdmaguard', jsonb_build_object('incident', jsonb_build_object(
	'id', i.incident_id, 'state', x.state)))
FROM rdmaguard.incidents i
CROSS JOIN LATERAL (VALUES ('opened', i.opened_at), ('updated', i.updated_at)) x(state, t);
INSERT INTO rdmaguard.review_notes (incident_id, seat, note)
SELECT incident_id, seat, 'seen' FROM rdmaguard.incidents WHERE closed_at IS NOT NULL
ORDER BY incident_id LIMIT 500;
""")
        self.log("history: %d alerts over %d days, their incidents, in %.0f s"
                 % (total, a.days, time.monotonic() - t0))
        t0 = time.monotonic()
        hb = 0
        if a.hb_hours > 0:
            self.sql("SELECT count(*) FROM rdmaguard.create_partitions(current_date - %d, "
                     "current_date)" % (a.hb_hours // 24 + 1))
            self.sql("""
INSERT INTO rdmaguard.agent_events (received_at, ts, seat, action, event_id, sender_ip, changed)
SELECT t + (s.idx %% 30) * interval '1 s', t + (s.idx %% 30) * interval '1 s', s.seat,
       'agent_heartbeat', gen_random_uuid(), s.ip, false
FROM generate_series(now() - interval '%d hours', now() - interval '30 s', interval '30 s') t
CROSS JOIN bench_seats s""" % a.hb_hours)
            hb = int(self.scalar("SELECT count(*) FROM rdmaguard.agent_events"))
        self.log("history: %d heartbeats (%d hours) in %.0f s" % (hb, a.hb_hours,
                                                                   time.monotonic() - t0))
        t0 = time.monotonic()
        self.sql("VACUUM (ANALYZE) rdmaguard.alerts, rdmaguard.incidents, rdmaguard.seat_state, "
                 "rdmaguard.seat_addresses, rdmaguard.incident_events, rdmaguard.event_ids, "
                 "rdmaguard.review_notes")
        self.sql("ANALYZE rdmaguard.agent_events")
        self.log("vacuum and analyze: %.0f s" % (time.monotonic() - t0))
        self.out["history"] = {"alerts": total, "heartbeats": hb,
                               "incidents": int(self.scalar("SELECT count(*) FROM "
                                                            "rdmaguard.incidents"))}
        return total

    def sizes(self):
        for t in ("alerts", "agent_events", "incident_events", "event_ids", "seat_state",
                  "seat_addresses", "incidents"):
            self.out["sizes"][t] = int(self.scalar(
                "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
                "WHERE c.oid = 'rdmaguard.%s'::regclass OR c.oid IN (SELECT inhrelid FROM "
                "pg_inherits WHERE inhparent = 'rdmaguard.%s'::regclass)" % (t, t)))

    def mixes(self, n):
        """The backlog (the venue's own mix) and the storm (alerts and incident records)."""
        v = self.v
        per_alert = max(1, int(v.n * 2880 / max(1, v.n * self.a.alerts_per_seat)))
        backlog = []
        live = [i for i in range(v.n) if i not in v.silent]
        for k in range(n):
            i = live[k % len(live)]
            if k % per_alert == per_alert - 1:
                backlog.append(self.random_alert(i))
            else:
                backlog.append(heartbeat(v, i))
        storm = []
        for k in range(n):
            i = random.choice(live)
            if k % 10 == 9:  # a seat's storm is one incident
                storm.append(incident_record(v, i, "inc-storm-" + v.labels[i], "updated",
                                             "target", "critical"))
            else:
                storm.append(self.random_alert(i, "inc-storm-" + v.labels[i]))
        return backlog, storm

    def random_alert(self, i, incident=None):
        r, lo = random.random(), 0.0
        for rule, sev, share, peer, game, proc in MIX:
            lo += share
            if r < lo:
                break
        return alert(self.v, i, rule, sev, peer, game, proc, incident)

    def counts(self):
        return {t: int(self.scalar("SELECT count(*) FROM rdmaguard.%s" % t))
                for t in ("alerts", "agent_events", "incident_events", "rejects")}

    def ingest(self):
        n = self.a.ingest
        backlog, storm = self.mixes(n)
        self.sql("DROP TABLE IF EXISTS bench_in; CREATE TABLE bench_in (mix text, msg text, "
                 "ip text)")
        path = os.path.join(self.d, "in.tsv")
        with open(path, "w") as f:
            for mix, docs in (("backlog", backlog), ("storm", storm)):
                for doc in docs:
                    f.write("%s\t%s\t%s\n" % (mix, json.dumps(doc).replace("\\", "\\\\"),
                                              "10.0.0.1"))
        self.pg.psql(["-c", "\\copy bench_in FROM '%s'" % path])
        self.sql("GRANT SELECT ON bench_in TO bench_ingest")
        res = self.out["ingest"]
        for mix, docs in (("backlog", backlog), ("storm", storm)):
            # (a) one statement: the function's own cost
            before = self.counts()
            path = os.path.join(self.d, "one-%s.sql" % mix)
            with open(path, "w") as f:
                f.write("SELECT count(rdmaguard.ingest(msg, 'h', ip)) FROM bench_in WHERE mix = "
                        "'%s';\n" % mix)
            t, c = self.sessions([path], "bench_ingest")
            res["%s_one_statement" % mix] = round(n / t)
            res["%s_one_statement_per_server_cpu_s" % mix] = round(n / c)
            after = self.counts()
            n_alerts = sum(1 for x in docs if x["event"]["kind"] == "alert")
            n_inc = sum(1 for x in docs if x["event"].get("dataset") == "rdmaguard.incident")
            tf.check(after["alerts"] - before["alerts"] == n_alerts and
                     after["incident_events"] - before["incident_events"] == n_inc and
                     after["agent_events"] - before["agent_events"] == n - n_alerts - n_inc and
                     after["rejects"] == 0, "%s: %r -> %r (%d alerts, %d incident records)"
                     % (mix, before, after, n_alerts, n_inc))
            # (b) as ompgsql: a statement a message, 128 a transaction; 1 and 2 sessions; the
            # same messages with new ids.
            for sessions in (1, 2):
                fresh = [dict(x, event=dict(x["event"], id=str(uuid.uuid4()))) for x in docs]
                t, c = self.feed(fresh, sessions=sessions, name="%s-%d" % (mix, sessions))
                res["%s_statements_%d_sessions" % (mix, sessions)] = round(n / t)
                res["%s_statements_%d_sessions_per_server_cpu_s" % (mix, sessions)] = \
                    round(n / c)
            # The first messages again: the alerts and incident records are repeats, dropped.
            again = self.counts()
            self.feed(docs[:200], name="%s-again" % mix)
            final = self.counts()
            tf.check(final["alerts"] == again["alerts"] and
                     final["incident_events"] == again["incident_events"] and
                     final["rejects"] == 0, "repeats stored: %r -> %r" % (again, final))
            self.log("ingest %s: %r" % (mix, {k: v for k, v in res.items() if mix in k}))

    def rsyslog(self):
        """The shipped collector: imrelp -> ompgsql, fed by several RELP senders at once."""
        driver = os.environ.get("RG_OUTPUT_DRIVER", "")
        if not os.access(driver, os.X_OK):
            self.log("rsyslog: skipped (RG_OUTPUT_DRIVER does not name the driver)")
            return
        tf.DRIVER = driver
        pki = tf.make_pki(self.d, "pki")
        if self.scalar("SELECT count(*) FROM pg_roles WHERE rolname = 'rg_ingest'") == "0":
            self.sql("CREATE ROLE rg_ingest LOGIN IN ROLE rdmaguard_ingest")
        rs = tf.Collector(self.d, self.pg, pki)
        rs.start()
        try:
            backlog, _ = self.mixes(self.a.ingest)
            # Eight collectors' worth of seats, each sender with its own HOSTNAME (the
            # configuration's writers take the seats by it) and all of its seats' messages.
            senders = 8
            parts = [[x for x in backlog if hash(x["labels"]["seat"]) % senders == s]
                     for s in range(senders)]
            before = int(self.scalar("SELECT count(*) FROM rdmaguard.agent_events")) + \
                int(self.scalar("SELECT count(*) FROM rdmaguard.alerts"))
            c0, t0 = cluster_cpu(self.pg), time.monotonic()
            ths = [threading.Thread(target=tf.send_docs, args=(self.d, rs.port, parts[s],
                                                              "relp%d" % s, "relp%d" % s))
                   for s in range(senders)]
            for t in ths:
                t.start()
            for t in ths:
                t.join()
            sent = time.monotonic() - t0
            # Until all are in, or none came for 30 s (then the rate is of those that came).
            q = ("SELECT (SELECT count(*) FROM rdmaguard.agent_events) + "
                 "(SELECT count(*) FROM rdmaguard.alerts), (SELECT max(received_at) FROM "
                 "rdmaguard.agent_events), now()")
            while True:
                n, last, now = self.scalar(q).split("|")
                if int(n) >= before + len(backlog) or time.monotonic() - t0 > 900:
                    break
                if self.scalar("SELECT now() - '%s'::timestamptz > interval '30 s'" % last) == \
                        "t" and time.monotonic() - t0 > 60:
                    break
                time.sleep(1)
            got = int(n) - before
            t = float(self.scalar("SELECT extract(epoch FROM max(received_at)) FROM "
                                  "rdmaguard.agent_events")) - (time.time() -
                                                                (time.monotonic() - t0))
            c = cluster_cpu(self.pg) - c0
            self.out["ingest"]["backlog_rsyslog_relp_ompgsql"] = round(got / t)
            self.out["ingest"]["backlog_rsyslog_relp_ompgsql_per_server_cpu_s"] = round(got / c)
            self.out["ingest"]["backlog_rsyslog_stored"] = "%d of %d" % (got, len(backlog))
            self.out["ingest"]["backlog_rsyslog_relp_senders_done_s"] = round(sent, 2)
            self.log("rsyslog: %d of %d messages from %d RELP senders stored in %.1f s "
                     "(senders done in %.1f s)" % (got, len(backlog), senders, t, sent))
        finally:
            rs.proc.terminate()
            rs.proc.wait(30)

    def queries(self):
        """Every documented query (docs/fleet.md), timed by psql as the viewer role."""
        busy = self.scalar("SELECT seat FROM rdmaguard.alerts WHERE received_at > now() - "
                           "interval '1 day' GROUP BY seat ORDER BY count(*) DESC LIMIT 1")
        inc = self.scalar("SELECT incident_id FROM rdmaguard.incidents WHERE seat = '%s' "
                          "ORDER BY updated_at DESC LIMIT 1" % busy)
        self.sql("INSERT INTO rdmaguard.matches VALUES ('bench', ARRAY(SELECT seat FROM "
                 "rdmaguard.seat_state ORDER BY seat LIMIT 10) || '%s'::text, now() - "
                 "interval '3 hours', now(), false) ON CONFLICT (match_id) DO UPDATE SET "
                 "seats = excluded.seats, starts = excluded.starts, ends = excluded.ends"
                 % busy)
        qs = [
            ("silent_seats", "SELECT * FROM rdmaguard.silent_seats('5 minutes')"),
            ("rdma_peers (1 day)", "SELECT verdict FROM rdmaguard.rdma_peers "
                                   "WHERE received_at > now() - interval '1 day'"),
            ("rdma_peers (1 day, by ts)", "SELECT verdict FROM rdmaguard.rdma_peers "
                                          "WHERE ts > now() - interval '1 day'"),
            ("dsn_shared", "SELECT * FROM rdmaguard.dsn_shared"),
            ("fingerprint_groups", "SELECT * FROM rdmaguard.fingerprint_groups"),
            ("fingerprint_outliers", "SELECT * FROM rdmaguard.fingerprint_outliers"),
            ("timeline (busiest seat, 3 h)",
             "SELECT * FROM rdmaguard.timeline('%s', now() - interval '3 hours', now())" % busy),
            ("match_timeline (11 seats, 3 h)",
             "SELECT * FROM rdmaguard.match_timeline WHERE match_id = 'bench'"),
            ("seat_overview (the room)", "SELECT * FROM rdmaguard.seat_overview"),
            ("seat_alerts (busiest seat, 50)",
             "SELECT * FROM rdmaguard.seat_alerts WHERE seat = '%s' "
             "ORDER BY received_at DESC LIMIT 50" % busy),
            ("seat_incidents (busiest seat)",
             "SELECT * FROM rdmaguard.seat_incidents WHERE seat = '%s' "
             "ORDER BY updated_at DESC" % busy),
            ("incident_timeline", "SELECT * FROM rdmaguard.incident_timeline "
                                  "WHERE incident_id = '%s' ORDER BY at, kind" % inc),
            ("review_notes (a seat)", "SELECT * FROM rdmaguard.review_notes WHERE seat = '%s' "
                                      "ORDER BY recorded_at DESC" % busy),
            ("seats", "SELECT * FROM rdmaguard.seats"),
        ]
        script = "\\timing on\n"
        for _, q in qs:
            script += (q + ";\n") * (self.a.runs + 1)
        r = subprocess.run([tf.PSQL, "-X", "-q", "-o", "/dev/null", "-v", "ON_ERROR_STOP=1",
                            "-h", self.pg.dir, "-p", str(self.pg.port), "-U", "bench_viewer",
                            "-d", "fleet"], input=script, capture_output=True, text=True)
        tf.check(r.returncode == 0, "queries: %s" % r.stderr[-500:])
        times = [float(x.split()[1]) for x in r.stdout.splitlines() if x.startswith("Time: ")]
        tf.check(len(times) == len(qs) * (self.a.runs + 1), "timings: %r" % r.stdout[-500:])
        for k, (name, q) in enumerate(qs):
            t = times[k * (self.a.runs + 1) + 1:(k + 1) * (self.a.runs + 1)]
            # The backend's CPU time for the same runs: what the load of others cannot inflate.
            path = os.path.join(self.d, "q%d.sql" % k)
            with open(path, "w") as f:
                f.write((q + ";\n") * self.a.runs)
            _, cpu = self.sessions([path], "bench_viewer")
            self.out["queries"][name] = {"median_ms": round(statistics.median(t), 2),
                                         "max_ms": round(max(t), 2),
                                         "cpu_ms": round(cpu * 1000 / self.a.runs, 1),
                                         "query": q}
            self.log("%-32s median %8.2f ms  max %8.2f ms  backend CPU %7.1f ms"
                     % (name, statistics.median(t), max(t), cpu * 1000 / self.a.runs))
        t0 = time.monotonic()
        self.pg.sql("SELECT count(*) FROM rdmaguard.maintain()", user="bench_maint")
        self.out["maintain_s"] = round(time.monotonic() - t0, 2)
        self.log("maintain() (nothing to drop): %.2f s" % self.out["maintain_s"])

    def verify(self):
        """What the answers must be for the venue generated."""
        v, rows = self.v, self.pg.rows
        ov = rows("SELECT seat, state FROM rdmaguard.seat_overview")
        tf.check(len(ov) == v.n and {r["state"] for r in ov} <=
                 {"ok", "suspicious", "incident", "silent", "weak"}, "seat_overview")
        silent = {r["seat"] for r in rows("SELECT seat FROM rdmaguard.silent_seats('5 minutes')")}
        tf.check(silent == {v.labels[i] for i in v.silent},
                 "silent_seats: %r" % sorted(silent))
        tf.check({r["seat"] for r in ov if r["state"] == "silent"} <= silent and
                 not any(r["state"] == "ok" for r in ov if r["seat"] in silent), "silent tiles")
        odd = {r["seat"] for r in rows("SELECT seat FROM rdmaguard.fingerprint_outliers")}
        tf.check(odd == {v.labels[i] for i in v.odd}, "fingerprint_outliers: %r" % sorted(odd))
        dsn = rows("SELECT seats FROM rdmaguard.dsn_shared ORDER BY seats")
        tf.check(sorted(r["seats"] for r in dsn) ==
                 sorted([v.labels[a], v.labels[b]] for a, b in v.clones), "dsn_shared: %r" % dsn)
        wrong = self.scalar("SELECT count(*) FROM rdmaguard.rdma_peers p JOIN rdmaguard.alerts a "
                            "USING (event_id) WHERE a.doc ? 'bench' AND p.peer_seat IS DISTINCT "
                            "FROM a.doc #>> '{bench,peer_seat}'")
        n_peers = self.scalar("SELECT count(*) FROM rdmaguard.rdma_peers")
        tf.check(wrong == "0" and int(n_peers) > 0, "rdma_peers: %s of %s wrong"
                 % (wrong, n_peers))
        self.log("verified: %d seats, %d silent, %d outliers, %d cloned DSNs, %s peers"
                 % (len(ov), len(silent), len(odd), len(dsn), n_peers))

    def reuse(self):
        """The venue a run with --keep left in --reuse DIR, upgraded by the three files as
        an installed store is; the clock has moved on, so the seats that were not silent
        have their last heartbeat now again."""
        for e in os.listdir(self.d):  # what an earlier run's collector and senders left
            if e in ("pki", "rsyslog") or e.startswith("state-relp"):
                shutil.rmtree(os.path.join(self.d, e))
        self.pg.started = True
        self.pg.restart("")
        self.pg.psql(sum((["-f", os.path.join(SRC, "fleet", "postgresql", f)]
                          for f in ("schema.sql", "retention.sql", "views.sql")), []))
        v = self.v
        self.sql("UPDATE rdmaguard.seat_state SET last_heartbeat = CASE WHEN seat IN (%s) THEN "
                 "now() - interval '10 min' ELSE now() END"
                 % ",".join("'%s'" % v.labels[i] for i in v.silent))
        self.sql("VACUUM ANALYZE rdmaguard.seat_state, rdmaguard.seat_dsns")
        self.out["history"] = {"reused": self.a.reuse}

    def run(self):
        a = self.a
        with open("/proc/loadavg") as f:
            self.out["loadavg_start"] = f.read().split()[:3]
        if a.reuse:
            self.reuse()
        else:
            self.setup()
            self.seats()
            self.history()
        self.sizes()
        # The measurements with fsync on, as a collector runs.
        self.pg.restart("-c fsync=on -c synchronous_commit=on -c full_page_writes=on")
        self.ingest()
        self.queries()
        self.verify()
        if a.rsyslog:  # last: its senders' heartbeats make silent seats speak
            try:
                self.rsyslog()
            except (tf.Failure, subprocess.TimeoutExpired) as e:
                self.out["ingest"]["rsyslog_failed"] = str(e)[:300]
                self.log("rsyslog: failed: %s" % e)
        with open("/proc/loadavg") as f:
            self.out["loadavg_end"] = f.read().split()[:3]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="small, for CI: seats 200, days 3")
    ap.add_argument("--seats", type=int, default=10000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--alerts-per-seat", type=float, default=5.0, help="a day, on average")
    ap.add_argument("--hb-hours", type=int, default=24, help="hours of heartbeats kept")
    ap.add_argument("--ingest", type=int, default=50000, help="messages per ingest run")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rsyslog", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--keep", action="store_true", help="keep the cluster's directory")
    ap.add_argument("--reuse", metavar="DIR", help="the venue a --keep run left (same --seats)")
    a = ap.parse_args()
    if a.check:
        a.seats, a.days, a.hb_hours, a.ingest, a.runs = 200, 2, 1, 1000, 1
    if a.seats < 20 or a.days < 1:
        ap.error("--seats at least 20, --days at least 1")
    random.seed(1)
    d = a.reuse or tempfile.mkdtemp(prefix="rg-fleet-bench-")
    b = Bench(a, d)
    ok = False
    try:
        b.run()
        ok = True
    except (tf.Failure, subprocess.TimeoutExpired) as e:
        print("FAIL fleet-store: %s" % e)
        with open(b.pg.log, errors="replace") as f:
            print(f.read()[-3000:])
    finally:
        for p in tf.CHILDREN:
            if p.poll() is None:
                p.kill()
                p.wait()
        b.pg.stop()
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            with open(os.path.join(a.out, "fleet-store.json"), "w") as f:
                json.dump(b.out, f, indent=1, sort_keys=True)
        if not a.keep and not a.reuse:
            shutil.rmtree(d, ignore_errors=True)
    print(json.dumps({"ingest": b.out["ingest"], "queries": {
        k: [v["median_ms"], v["cpu_ms"]] for k, v in b.out["queries"].items()}}, indent=1))
    print("PASS fleet-store" if ok else "kept %s" % d if a.keep else "")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
