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

Deliberate breaks that turn it red (both seen red): free the client on a broken session instead
of relpCltReconnect() and rewind the spool (relp.c, relp_send_one(); 32 duplicates), take
librelp's RELP_RET_SESSION_CLOSED (rsyslog's "serverclose") as a fatal error (the same); drop
the held record (a loss).
Reuses test_rsyslog.py's rsyslogd, driver and checks. Usage: test_relp.py SCENARIO.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_rsyslog as t  # noqa: E402


class RelpRsyslog(t.Rsyslog):
    """A private rsyslogd with imrelp on a fixed port (imrelp writes no port file)."""

    def __init__(self, d, name="rsyslog-relp"):
        super().__init__(d, name=name)
        self.port = t.free_port()

    def write_conf(self):
        t.Rsyslog.write_conf(self)
        with open(self.conf) as f:
            conf = f.read()
        conf = conf.replace('module(load="imtcp")', 'module(load="imrelp")')
        lines = [x for x in conf.splitlines() if not x.startswith("input(type=\"imtcp\"")]
        lines.append('input(type="imrelp" port="%d" ruleset="rg")' % self.port)
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")


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
    recs = rs.received()
    ids = t.uuids_of(recs)
    t.check(len(recs) == n and len(set(ids)) == n,
            "relp: %d lines, %d distinct ids for %d alerts" % (len(recs), len(set(ids)), n))
    t.check(ids == [a["event"]["id"] for a in sent], "relp: order differs")
    for r, a in zip(recs, sent):
        t.check_record(r, a, drv.proc.pid)
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
    t.check(drv.close() == 0, "driver exit status")
    ids = t.uuids_of(rs.received())
    t.check(ids == [a["event"]["id"] for a in sent],
            "%d lines, %d distinct, in order: %s" % (len(ids), len(set(ids)),
                                                      ids == sorted(ids, key=ids.index)))
    rs.stop()


SCENARIOS = {"relp-restart": scenario_relp_restart, "relp-down": scenario_relp_down}


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
