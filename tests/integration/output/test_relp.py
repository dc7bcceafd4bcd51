#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The relp:// output against a real rsyslog imrelp (Debian's rsyslog-relp), suite "output".

  relp-restart  200 alerts streamed; rsyslog stopped (SIGTERM) after a third arrived, the spool
                fills while it is down, rsyslog started again: rsyslog holds every alert exactly
                once, in order (total lines == distinct event.id == alerts sent), the spool is
                empty, nothing dropped. The same stream through syslog+tcp:// to imtcp is run
                first and its duplicates printed: the at-least-once figure RELP removes.

  relp-down     the collector down when the sender starts (no session yet: its connects fail),
                the sender killed -9 with 30 alerts spooled, a new one adds 20: once the
                collector is up, exactly the 50, in order.

  relp-tls      relp-restart over librelp's TLS (relp+tls://, imrelp tls="on", a PKI made with
                openssl here): the same exactly once, in order, and the status as for relp://.

  relp-tls-reject  imrelp with a certificate from another CA, or without the name expected
                (peer=): nothing sent, connects failed and counted, the alerts spooled; a
                missing and a world-writable key stop the output at start (exit 2).

relp-restart and relp-down check the output's bytes: delivered (and spooled, by this sender) bytes equal to the
messages imrelp received (rawmsg), each once; relp-restart counts at least one record failed (connection_lost) at the
restart, relp-down none (no session ever broke).

Deliberate breaks that turn it red (both seen red): free the client on a broken session instead
of relpCltReconnect() and rewind the spool (relp.c, relp_send_one(); 32 duplicates), take
librelp's RELP_RET_SESSION_CLOSED (rsyslog's "serverclose") as a fatal error (the same); drop
the held record (a loss).
relp-tls goes red with the TLS window at 32 (10-22 repeats; relp.c says why); relp-tls-reject
with librelp's "certvalid" mode instead of "name" (the wrong-CA server is accepted: librelp 1.11
checks nothing in that mode over GnuTLS). Reuses test_rsyslog.py's rsyslogd, driver and checks. Usage: test_relp.py SCENARIO.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_rsyslog as t  # noqa: E402


class RelpRsyslog(t.Rsyslog):
    """A private rsyslogd with imrelp on a fixed port (imrelp writes no port file); with pki,
    imrelp's TLS (tls="on", its certificate pki["server"], the client's checked against
    pki["ca"])."""

    def __init__(self, d, name="rsyslog-relp", pki=None):
        super().__init__(d, name=name)
        self.port = t.free_port()
        self.pki = pki

    def write_conf(self):
        t.Rsyslog.write_conf(self)
        with open(self.conf) as f:
            conf = f.read()
        conf = conf.replace('module(load="imtcp")', 'module(load="imrelp")')
        lines = [x for x in conf.splitlines() if not x.startswith("input(type=\"imtcp\"")]
        tls = ""
        if self.pki:
            tls = (' tls="on" tls.caCert="%s" tls.myCert="%s" tls.myPrivKey="%s"'
                   ' tls.authMode="certvalid"'
                   % (self.pki["ca"], self.pki["server"], self.pki["server_key"]))
        lines.append('input(type="imrelp" port="%d" ruleset="rg"%s)' % (self.port, tls))
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")


def check_bytes(st, recs, what, spooled_from=0):
    """Each record delivered once, its bytes the RFC 5424 message imrelp received (rawmsg); sent
    at least as much (re-sent ones included); spooled once each, from recs[spooled_from] on
    (those before: spooled by an earlier sender)."""
    raw = [len(r["raw"].encode()) for r in recs]
    t.check(st["delivered_bytes"] == sum(raw) <= st["sent_bytes"] and
            st["spooled_bytes"] == sum(raw[spooled_from:]),
            "%s: delivered %d, spooled %d, sent %d bytes; imrelp received %d (%d from %d on)"
            % (what, st["delivered_bytes"], st["spooled_bytes"], st["sent_bytes"], sum(raw),
               sum(raw[spooled_from:]), spooled_from))


def check_once_in_order(rs, drv, sent, label):
    """What the collector received: each of the alerts sent exactly once, in order, each record
    as sent; returns the records and their event ids."""
    n = len(sent)
    recs = rs.received()
    ids = t.uuids_of(recs)
    t.check(len(recs) == n and len(set(ids)) == n,
            "%s: %d lines, %d distinct ids for %d alerts" % (label, len(recs), len(set(ids)), n))
    t.check(ids == [a["event"]["id"] for a in sent], "%s: order differs" % label)
    for r, a in zip(recs, sent):
        t.check_record(r, a, drv.proc.pid)
    return recs, ids


def scenario_relp_restart(d):
    n = 200
    # The TLS/TCP output first: the same outage, at least once (duplicates expected, counted).
    rs = t.Rsyslog(d, name="rsyslog-tcp")
    rs.start()
    drv = t.Driver(d, ["syslog+tcp://127.0.0.1:%d" % rs.port], os.path.join(d, "state-tcp"),
                   name="driver-tcp")
    t.stream_with_outage(d, rs, drv, n, signal.SIGTERM, rate_per_s=200)
    t.check(drv.close() == 0, "driver exit status (tcp)")
    tcp_lines = len(rs.received())
    rs.stop()

    rs = RelpRsyslog(d)
    rs.start()
    drv = t.Driver(d, ["relp://127.0.0.1:%d" % rs.port], os.path.join(d, "state-relp"),
                   name="driver-relp")
    sent = t.stream_with_outage(d, rs, drv, n, signal.SIGTERM, rate_per_s=200)
    st = drv.stats()
    t.check(st["name"] == "relp://127.0.0.1:%d" % rs.port and st["type"] == "relp",
            "name/type %r %r" % (st["name"], st["type"]))
    t.check(st["delivered"] == n and st["spool_records"] == 0, "stats %r" % st)
    t.check(drv.close() == 0, "driver exit status (relp)")
    recs, ids = check_once_in_order(rs, drv, sent, "relp")
    check_bytes(st, recs, "relp-restart")
    # the restart broke a send at least (the held record), sent again on the next session
    t.check(st["failed"]["connection_lost"] >= 1 and st["failed_bytes"]["connection_lost"] > 0,
            "relp: failed %r %r" % (st["failed"], st["failed_bytes"]))
    rs.stop()
    print("across a collector restart: syslog+tcp %d lines for %d alerts (%d duplicates), "
          "relp %d lines, %d distinct" % (tcp_lines, n, tcp_lines - n, len(recs), len(set(ids))))


def scenario_relp_down(d):
    """The collector is down when the sender starts (its first connects fail: no session yet),
    and the sender is killed -9 with the spool full; a new sender with the same spool delivers
    everything once the collector is up: exactly once, in order."""
    rs = RelpRsyslog(d)
    spec = "relp://127.0.0.1:%d" % rs.port
    state = os.path.join(d, "state")
    drv = t.Driver(d, [spec], state, name="driver1")
    sent = [t.make_alert(i, t.SEVERITIES[i % 5]) for i in range(50)]
    for a in sent[:30]:
        drv.submit(a)
    t.wait_for(lambda: (lambda s: s["spool_records"] == 30 and s["connect_failures"] >= 2)(
        drv.stats()), 30, "30 alerts spooled and the connects failing")
    drv.kill9()
    drv = t.Driver(d, [spec], state, name="driver2")
    for a in sent[30:]:
        drv.submit(a)
    t.wait_for(lambda: drv.stats()["spool_records"] == 50, 30, "50 alerts in the spool")
    rs.start()
    t.wait_all_received(rs, sent, 30)
    t.wait_for(lambda: (lambda s: s["spool_records"] == 0 and s["delivered"] == 50)(
        drv.stats()), 30, "the spool to drain")
    st = drv.stats()
    t.check(drv.close() == 0, "driver exit status")
    # no session before the collector came: nothing was sent that could fail
    check_bytes(st, rs.received(), "relp-down", spooled_from=30)
    t.check(st["failed"] == {"connection_lost": 0, "spool_error": 0},
            "relp-down: failed %r" % st["failed"])
    ids = t.uuids_of(rs.received())
    t.check(ids == [a["event"]["id"] for a in sent],
            "%d lines, %d distinct, in order: %s" % (len(ids), len(set(ids)),
                                                      ids == sorted(ids, key=ids.index)))
    rs.stop()


def tls_spec(port, pki, ca=None, peer=None):
    s = "relp+tls://127.0.0.1:%d?ca=%s&cert=%s&key=%s" % (port, ca or pki["ca"], pki["client"],
                                                          pki["client_key"])
    return s + ("&peer=" + peer if peer else "")


def scenario_relp_tls(d):
    """relp-restart's guarantee inside librelp's TLS: 200 alerts, an imrelp restart, exactly
    once and in order; the status and bytes as for relp://. Red with the TLS window at 32 or 4
    (relp.c: librelp reads one answer per send over TLS; 10-22, 2 repeats)."""
    n = 200
    pki = t.make_pki(d, "pki")
    rs = RelpRsyslog(d, pki=pki)
    rs.start()
    drv = t.Driver(d, [tls_spec(rs.port, pki)], os.path.join(d, "state"))
    sent = t.stream_with_outage(d, rs, drv, n, signal.SIGTERM, rate_per_s=200)
    st = drv.stats()
    t.check(st["name"] == "relp+tls://127.0.0.1:%d" % rs.port and st["type"] == "relp+tls",
            "name/type %r %r" % (st["name"], st["type"]))
    t.check(st["delivered"] == n and st["spool_records"] == 0 and st["connects"] >= 2,
            "stats %r" % st)
    t.check(drv.close() == 0, "driver exit status")
    recs, ids = check_once_in_order(rs, drv, sent, "relp+tls")
    check_bytes(st, recs, "relp-tls")
    t.check(os.path.isdir(os.path.join(d, "state", "spool", "relptls-127.0.0.1-%d" % rs.port)),
            "spool directory relptls-HOST-PORT")
    rs.stop()
    print("relp+tls across a collector restart: %d lines, %d distinct, %d connects"
          % (len(recs), len(set(ids)), st["connects"]))


def scenario_relp_tls_reject(d):
    """A server whose certificate the output must not accept: signed by another CA, or not
    carrying the expected name (peer=). Nothing delivered, the connects fail and are counted,
    the records stay spooled; then the same collector with the right name takes them. Files the
    output must not use stop it at start (the driver exits 2, naming the file)."""
    pki = t.make_pki(d, "pki")
    other = t.make_pki(d, "other")
    rs = RelpRsyslog(d, pki=pki)
    rs.start()
    cases = [("wrong CA", tls_spec(rs.port, pki, ca=other["ca"]), "certificate validation"),
             ("name mismatch", tls_spec(rs.port, pki, peer="collector.example"),
              "no permited name found")]
    bad = set()
    for k, (what, spec, err) in enumerate(cases):
        drv = t.Driver(d, [spec], os.path.join(d, "state%d" % k), name="driver%d" % k)
        alerts = [t.make_alert(i, "high") for i in range(5)]
        bad |= set(a["event"]["id"] for a in alerts)
        for a in alerts:
            drv.submit(a)
        t.wait_for(lambda: drv.stats()["connect_failures"] >= 2, 20,
                   "two refused connects (%s)" % what)
        st = drv.stats()
        t.check(st["delivered"] == 0 and st["sent"] == 0 and st["spool_records"] == 5 and
                st["connects"] == 0 and not st["connected"],
                "%s: %r" % (what, st))
        t.check(err in st.get("last_error", ""), "%s: last_error %r" % (what, st.get("last_error")))
        drv.kill9()
        print("%s: refused (%s)" % (what, st.get("last_error")))
    # The last case's spool, now with the right name: the 5 alerts go, once.
    drv = t.Driver(d, [tls_spec(rs.port, pki)], os.path.join(d, "state-ok"), name="driver-ok")
    good = [t.make_alert(i, "low") for i in range(5)]
    for a in good:
        drv.submit(a)
    t.wait_all_received(rs, good, 20)
    t.check(drv.close() == 0, "driver exit status")
    t.check(not (set(t.uuids_of(rs.received())) & bad), "a refused server got an alert")
    rs.stop()
    # Key files refused at start: missing, world-writable.
    wkey = os.path.join(d, "pki", "writable.key")
    with open(pki["client_key"], "rb") as f:
        data = f.read()
    with open(wkey, "wb") as f:
        f.write(data)
    os.chmod(wkey, 0o666)
    for what, key, err in [("missing key", os.path.join(d, "nonexistent.key"),
                            "No such file or directory"),
                           ("world-writable key", wkey, "writable by group or other")]:
        spec = tls_spec(rs.port, pki).replace(pki["client_key"], key)
        drv = t.Driver(d, [spec], os.path.join(d, "state-" + what.replace(" ", "-")),
                       name="driver-" + what.replace(" ", "-"))
        rc = drv.proc.wait(20)
        log = drv.logtext()
        t.check(rc == 2 and ("key %s" % key) in log and err in log,
                "%s: exit %s, log %r" % (what, rc, log))
        print("%s: %s" % (what, log.strip().splitlines()[-1]))


SCENARIOS = {"relp-restart": scenario_relp_restart, "relp-down": scenario_relp_down,
             "relp-tls": scenario_relp_tls, "relp-tls-reject": scenario_relp_tls_reject}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in SCENARIOS:
        print("usage: test_relp.py {%s}" % "|".join(SCENARIOS), file=sys.stderr)
        return 2
    if not t.DRIVER or not os.access(t.DRIVER, os.X_OK):
        print("RG_OUTPUT_DRIVER does not name the driver binary", file=sys.stderr)
        return 2
    imrelp = "/usr/lib/x86_64-linux-gnu/rsyslog/imrelp.so"
    if not os.access(t.RSYSLOGD, os.X_OK) or not os.path.exists(imrelp):
        print("rsyslogd or imrelp not found: install rsyslog-relp (packaging/bootstrap.sh "
              "--deps)", file=sys.stderr)
        return 1
    return t.run_scenario(sys.argv[1], SCENARIOS[sys.argv[1]], "rg-relp-")


if __name__ == "__main__":
    sys.exit(main())
