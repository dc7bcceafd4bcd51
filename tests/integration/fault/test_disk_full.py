#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Disk full under the spool: what was kept is delivered, what was lost is counted and reported.

The state directory of a syslog output is a 256 KiB tmpfs (mounted by the test, so root), the
collector (a private rsyslogd) is down, and 6000 alerts of every severity arrive. The spool fills
the disk (ENOSPC: nothing stored, nothing evicted, retried), the memory queue (4096 alerts) fills
behind it and sheds its lowest severities, every drop is counted by cause and severity and
reported (the driver turns each report into an AGENT-001 alert, as the daemon does). Then the
disk grows (remount) and the collector comes back. Checks:
  - the output says why (last_error: no space left on device) and counts only queue_full drops;
  - nothing above "low" was dropped (lowest severity first);
  - every alert that was not dropped arrives exactly once after de-duplication, in submission
    order; per severity, sent - received == dropped; the loss reports' counts sum to the drops;
  - the loss reports themselves arrive.

Usage: test_disk_full.py (driver: $RG_OUTPUT_DRIVER). Needs root for mount(8); exits 77 when not
root (the test cannot exist without a mount of its own).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "output"))
import test_rsyslog as rsl  # noqa: E402  (the private rsyslogd harness and the driver)
from test_rsyslog import (SEVERITIES, Driver, Failure, Rsyslog, check, dedup, make_alert,  # noqa
                          uuids_of, wait_for)

N = 6000
TMPFS_SMALL = "256k"
TMPFS_LARGE = "64m"


def mount(*args):
    subprocess.run(["mount"] + list(args), check=True)


def scenario(d):
    state = os.path.join(d, "state")
    os.mkdir(state, 0o700)
    mount("-t", "tmpfs", "-o", f"size={TMPFS_SMALL},mode=0700", "rg-disk-full", state)
    try:
        run(d, state)
    finally:
        subprocess.run(["umount", "-l", state], check=False)


def run(d, state):
    rs = Rsyslog(d)
    rs.start()
    rs.stop()
    drv = Driver(d, ["syslog+tcp://127.0.0.1:%d" % rs.port], state,
                 extra=["--loss-interval-ms", "50"])
    sent = [make_alert(i, SEVERITIES[i % 5]) for i in range(N)]
    for a in sent:
        drv.submit(a)

    st = wait_for(lambda: (lambda s: s if "No space left" in (s.get("last_error") or "") else None)(
        drv.stats()), 60, "the output to report the full disk")
    st = wait_for(lambda: (lambda s: s if s["submitted"] + s["dropped"]["total"] >= N and
                           s["dropped"]["total"] > 0 else None)(drv.stats()), 60,
                  "every alert accepted or dropped")
    dropped = st["dropped"]
    check(dropped["queue_full"] == dropped["total"],
          "drops by cause %r: only queue_full expected" % dropped)
    for s in ("medium", "high", "critical"):
        check(dropped[s] == 0, "%d %s alert(s) dropped while lower ones were queued: %r"
              % (dropped[s], s, dropped))
    wait_for(lambda: sum(l["agent"]["loss"]["dropped"]["total"] for l in drv.losses)
             >= dropped["total"], 60, "loss reports for %d drops" % dropped["total"])
    spooled_when_full = st["spool_records"]
    print("disk full after %d spooled records: %d dropped (%s)"
          % (spooled_when_full, dropped["total"],
             ", ".join("%s %d" % (s, dropped[s]) for s in SEVERITIES if dropped[s])))

    # Room again, collector back: the spool takes the queue, then everything is delivered.
    mount("-o", f"remount,size={TMPFS_LARGE}", state)
    rs.start()
    losses = list(drv.losses)
    loss_ids = set(l["event"]["id"] for l in losses)
    sent_ids = [a["event"]["id"] for a in sent]

    def settled():
        s = drv.stats()
        return s if s["queued"] == 0 and s["spool_records"] == 0 and s["connected"] else None
    st = wait_for(settled, 120, "the queue and the spool to drain", interval=0.1)
    received = dedup(uuids_of(rs.received()))
    got = [i for i in received if i not in loss_ids]
    unexpected = set(got) - set(sent_ids)
    check(not unexpected, "%d unexpected alert(s) received" % len(unexpected))
    kept = set(got)
    check(got == [i for i in sent_ids if i in kept], "alerts arrived out of submission order")
    check(loss_ids <= set(received), "%d loss report(s) not delivered"
          % len(loss_ids - set(received)))
    final = st["dropped"]
    check(final["total"] == dropped["total"], "more drops after the disk grew: %r" % final)
    for s in SEVERITIES:
        n_sent = sum(1 for a in sent if a["severity"] == s)
        n_got = sum(1 for a in sent if a["severity"] == s and a["event"]["id"] in kept)
        check(n_sent - n_got == final[s], "%s: %d sent, %d received, %d counted dropped"
              % (s, n_sent, n_got, final[s]))
        reported = sum(l["agent"]["loss"]["dropped"][s] for l in losses)
        check(reported == final[s], "%s: loss reports say %d, counters %d" % (s, reported, final[s]))
    check(len(kept) + final["total"] == N, "%d received + %d dropped != %d sent"
          % (len(kept), final["total"], N))
    check(drv.close() == 0, "driver exit status")
    rs.stop()
    print("%d sent: %d delivered exactly once in order, %d dropped and reported in %d loss "
          "report(s), all delivered" % (N, len(kept), final["total"], len(losses)))


def main():
    if os.geteuid() != 0:
        print("SKIP: mounting a small tmpfs for the state directory needs root")
        return 77
    if not rsl.DRIVER or not os.access(rsl.DRIVER, os.X_OK):
        print("RG_OUTPUT_DRIVER does not name the driver binary", file=sys.stderr)
        return 2
    return rsl.run_scenario("disk-full", scenario, "rg-disk-full-",
                            (Failure, subprocess.CalledProcessError))


if __name__ == "__main__":
    sys.exit(main())
