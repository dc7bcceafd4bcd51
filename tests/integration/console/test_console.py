#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rdmaguard-console in a real browser (suite "console"): headless Chromium driven by Selenium
(Debian's chromium, chromium-driver, python3-selenium) against the real console, a throwaway
PostgreSQL 15 cluster with fleet/postgresql/*.sql and rsyslog with the shipped collector
configuration (tests/integration/fleet/test_fleet.py's helpers):

  - start-up: beyond loopback without TLS and accounts the console refuses (exit 3); a bad
    accounts line is reported at file:line:column (exit 2);
  - a login is required: the page shows the login form, the API answers 401 without a session,
    a wrong password is refused; the session cookie is HttpOnly and SameSite=Strict, every
    response carries the Content-Security-Policy;
  - a room of 500 seats (rows A-J, 50 seats each, made through ingest() as the collector's
    role) loads in under 1 s: from the navigation's start to every tile drawn, with its
    data-seat and data-state, the best of three loads (the figure is printed);
  - an alert sent by a seat through rsyslog (the outputs module's relp:// output, the shipped
    imrelp -> ompgsql configuration) turns its seat's tile to `incident` within 2 s of its row
    reaching the database (alerts.received_at), for two seats, C-07 and G-44;
  - its process is named `<img src=x onerror=alert(1)>`, and a seat is labelled with another
    such string: no alert dialog, no element injected, the text shown literally;
  - a referee marks the incident reviewed with a note: the note is stored with the account and
    the database's who and when, the tile leaves `incident`; a viewer sees no form and is
    refused (403), and a write without the CSRF token is refused (403);
  - over TLS (a certificate made here) the cookie is also Secure; a room-layout file is read
    (and a bad line of one is reported at file:line:column, exit 2).

With --screenshot FILE it also saves a picture of the room (docs/console-room.png).
Deliberate breaks that turn it red: innerHTML for the alerts' cells in console.js (an <img>
injected), the console's login check dropped from api.c (401 not given), the LISTEN thread not
started (the tiles change only on the 30 s poll: over 2 s), the CSRF comparison dropped (the
write without the token is recorded), the loopback check of main.c dropped (exit 0, not 3).
Environment: RG_CONSOLE, RG_OUTPUT_DRIVER, RG_RDMAGUARD, RG_SOURCE_ROOT.
"""
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

SRC = os.environ.get("RG_SOURCE_ROOT", "")
CONSOLE = os.environ.get("RG_CONSOLE", "")
sys.path.insert(0, os.path.join(SRC, "tests", "integration", "fleet"))
import test_fleet as fleet  # noqa: E402  (PostgreSQL, rsyslog, the relp:// sender)
from test_fleet import check, wait_for, Failure, free_port  # noqa: E402

XSS = "<img src=x onerror=alert(1)>"
XSS_SEAT = "<img src=x onerror=alert(2)>"
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--disable-background-networking", "--disable-component-update",
               "--no-first-run", "--window-size=1400,900"]


def ts_now():
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())


def alert(seat, rule, severity, process, message, game=None):
    a = {"@timestamp": ts_now(),
         "event": {"id": str(uuid.uuid4()), "kind": "alert", "dataset": "rdmaguard.alert"},
         "severity": severity, "message": message, "rule": {"id": rule, "name": rule},
         "labels": {"seat": seat}, "host": {"name": "lan-" + seat.lower()},
         "process": {"name": process, "pid": 4242}}
    if game:
        a["game"] = {"name": game, "running": True}
    return a


def venue(d, pg):
    """500 seats, rows A-J of 50, through ingest() as the collector's role: heartbeats, and a
    few alerts so that every state shows."""
    stmts = []
    for i in range(500):
        seat = "%s-%02d" % ("ABCDEFGHIJ"[i // 50], i % 50 + 1)
        ip = "10.2.%d.%d" % (i // 200, i % 200 + 1)
        doc = fleet.heartbeat(seat, ts_now(), (ip, "fp-std", []))
        stmts.append("SELECT rdmaguard.ingest($j$%s$j$, 'h', '%s');" % (json.dumps(doc), ip))
    docs = [alert("B-07", "RDMA-005", "medium", "ib_send_bw", "uverbs opened"),
            alert("D-20", "DMA-004", "medium", "rdmaguard", "the IOMMU is off"),
            alert("F-33", "RDMA-003", "high", "rping", "remote-readable MR")]
    docs[1]["event"]["kind"] = "alert"
    docs.append(fleet.heartbeat(XSS_SEAT, ts_now(), ("10.2.9.9", "fp-std", [])))
    for doc in docs:
        stmts.append("SELECT rdmaguard.ingest($j$%s$j$, 'h', '10.2.9.1');" % json.dumps(doc))
    sql = os.path.join(d, "venue.sql")
    with open(sql, "w") as f:
        f.write("\n".join(stmts))
    os.chmod(sql, 0o644)
    pg.psql(["-f", sql], user="rg_ingest")
    # Two seats fell silent an hour ago (the collector's clock is the store's to keep).
    pg.sql("UPDATE rdmaguard.seat_state SET last_heartbeat = now() - interval '1 hour' "
           "WHERE seat IN ('H-11', 'H-12')")


class Console:
    def __init__(self, d, pg, name, args):
        self.log = os.path.join(d, "console-%s.log" % name)
        self.port = free_port()
        self.args = [CONSOLE, "serve", "--db", "host=%s port=%d dbname=fleet user=rg_console"
                     % (pg.dir, pg.port), "--listen", "127.0.0.1:%d" % self.port] + args
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=logf,
                                     stdin=subprocess.DEVNULL)
        fleet.CHILDREN.append(self.proc)
        logf.close()
        line = self.proc.stdout.readline()
        check(line == b"ready\n", "the console did not start: %r %s" % (line, open(self.log).read()))

    def stop(self):
        self.proc.terminate()
        rc = self.proc.wait(20)
        check(rc == 0, "the console exits 0 on SIGTERM, not %d" % rc)


def http(url, body=None, headers=None, ctx=None):
    """(status, headers, body) of one request; never raises for an HTTP status."""
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                 headers=dict(headers or {}))
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10, context=ctx) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def start_up(d, pg):
    """Refusals at start: beyond loopback without TLS and accounts (exit 3); a bad accounts
    line and a bad layout line, at file:line:column (exit 2)."""
    db = "host=%s port=%d dbname=fleet user=rg_console" % (pg.dir, pg.port)
    bad = os.path.join(d, "bad-file")
    for host, opt, text, code, want in (
            ("0.0.0.0", None, None, 3, "without TLS and accounts"),
            ("127.0.0.1", "--accounts", "# accounts\nalice:boss:$y$j9T$abc$def\n", 2,
             "%s:2:7: the role is viewer or referee" % bad),
            ("127.0.0.1", "--layout", "A-01 1 1\n# the stage\nB-01 2 x\n", 2,
             "%s:3:1: expected LABEL ROW COLUMN" % bad)):
        args = [CONSOLE, "serve", "--db", db, "--listen", "%s:%d" % (host, free_port())]
        if opt:
            with open(bad, "w") as f:
                f.write(text)
            args += [opt, bad]
        r = subprocess.run(args, capture_output=True, text=True, timeout=30)
        check(r.returncode == code and want in r.stderr,
              "%s: exit %d %r, want %d and %r" % (args[4:], r.returncode, r.stderr, code, want))


def accounts(d):
    path = os.path.join(d, "accounts")
    for name, role, pw in (("alice", "referee", "alice-password"),
                           ("bob", "viewer", "bob-password")):
        r = subprocess.run([CONSOLE, "adduser", "--accounts", path, "--role", role, name],
                           input=pw + "\n", capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "adduser %s: %s" % (name, r.stderr))
    with open(path) as f:
        lines = [x for x in f.read().splitlines() if not x.startswith("#")]
    check(len(lines) == 2 and all(x.split(":")[2].startswith("$y$") for x in lines),
          "the accounts file holds yescrypt hashes: %r" % lines)
    return path


def browser(d):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in CHROME_ARGS + ["--user-data-dir=" + os.path.join(d, "chromium")]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    svc = Service("/usr/bin/chromedriver", log_path=os.path.join(d, "chromedriver.log"))
    return webdriver.Chrome(service=svc, options=opts)


def no_dialog(drv):
    from selenium.common.exceptions import NoAlertPresentException
    try:
        text = drv.switch_to.alert.text
    except NoAlertPresentException:
        return
    raise Failure("an alert dialog opened: %r" % text)


def tile_state(drv, seat):
    return drv.execute_script(
        "for (const t of document.querySelectorAll('#room .tile'))"
        "  if (t.getAttribute('data-seat') === arguments[0]) return t.getAttribute('data-state');"
        "return null;", seat)


def login(drv, base, user, pw):
    from selenium.webdriver.common.by import By
    drv.get(base + "/")
    wait_for(lambda: drv.find_element(By.ID, "login").is_displayed(), 10, "the login form")
    drv.find_element(By.ID, "login-user").send_keys(user)
    drv.find_element(By.ID, "login-password").send_keys(pw)
    drv.find_element(By.ID, "login-submit").click()
    wait_for(lambda: drv.find_element(By.ID, "room").get_attribute("data-seats"), 10,
             "the room after %s's login" % user)


def load_time(drv, base):
    """Milliseconds from the navigation's start to every tile drawn."""
    drv.get(base + "/")
    wait_for(lambda: drv.find_element("id", "room").get_attribute("data-seats") == "501", 10,
             "501 tiles")
    return drv.execute_script("return Number(document.getElementById('room')"
                              ".getAttribute('data-updated')) - performance.timeOrigin")


def login_required(d, drv, base):
    from selenium.webdriver.common.by import By
    st, _, _ = http(base + "/api/room")
    check(st == 401, "/api/room without a session: %d, want 401" % st)
    st, _, _ = http(base + "/api/seat?seat=B-07")
    check(st == 401, "/api/seat without a session: %d, want 401" % st)
    st, hdr, _ = http(base + "/api/login", {"user": "alice", "password": "wrong-password"})
    check(st == 401 and not hdr.get("Set-Cookie"), "a wrong password: %d" % st)
    st, hdr, body = http(base + "/")
    csp = hdr.get("Content-Security-Policy", "")
    check(st == 200 and "script-src 'self'" in csp and "unsafe-inline" not in csp and
          "default-src 'none'" in csp, "the page's CSP: %r" % csp)
    check(b"<script>" not in body and b"onclick" not in body, "inline script in the page")
    st, hdr, body = http(base + "/api/login", {"user": "alice", "password": "alice-password"})
    cookie = hdr.get("Set-Cookie", "")
    check(st == 200 and "HttpOnly" in cookie and "SameSite=Strict" in cookie and
          "Secure" not in cookie, "the session cookie over http: %r" % cookie)
    drv.get(base + "/")
    wait_for(lambda: drv.find_element(By.ID, "login").is_displayed(), 10, "the login form")
    check(not drv.find_element(By.ID, "room-view").is_displayed() and
          not drv.find_elements(By.CSS_SELECTOR, "#room .tile"), "the room shown without login")
    drv.find_element(By.ID, "login-user").send_keys("alice")
    drv.find_element(By.ID, "login-password").send_keys("nope-nope")
    drv.find_element(By.ID, "login-submit").click()
    wait_for(lambda: drv.find_element(By.ID, "login-error").text, 10, "the refusal shown")
    check(not drv.find_elements(By.CSS_SELECTOR, "#room .tile"), "tiles after a wrong password")


def alert_to_tile(d, pg, rs, drv, seat, doc):
    """Sends doc through rsyslog, from a thread (the sender's exit, its flush, is no part of
    the time measured); the seconds from its row's received_at to seat's tile in incident.
    Two seats: the page's fallback read every 30 s lands within 2 s of one alert by chance
    (1 in 15), of both hardly ever."""
    check(tile_state(drv, seat) == "ok", "%s before: %s" % (seat, tile_state(drv, seat)))
    sender = threading.Thread(target=fleet.send_docs, args=(d, rs.port, [doc], seat + "-alert"))
    sender.start()
    t_tile = wait_for(lambda: tile_state(drv, seat) == "incident" and time.time(), 15,
                      "%s's tile to turn incident" % seat, 0.02)
    sender.join()
    rcv = float(pg.scalar("SELECT extract(epoch FROM received_at) FROM rdmaguard.alerts "
                          "WHERE seat = '%s'" % seat))
    lag = t_tile - rcv
    print("%s: tile incident %.3f s after its alert reached the database" % (seat, lag))
    check(lag < 2.0, "%s's tile changed %.3f s after the alert reached the database"
          % (seat, lag))
    return lag


def live_alert(d, pg, rs, drv):
    """Alerts through rsyslog: C-07's and G-44's tiles turn to incident; the XSS process name
    in C-07's."""
    from selenium.webdriver.common.by import By
    a = alert("C-07", "RDMA-008", "critical", XSS, "memory of Arena read by " + XSS,
              game="Arena")
    a["rdmaguard"] = {"incident": {"id": "inc-c07"}}
    inc = fleet.incident("C-07", "inc-c07", "opened", "target", "critical", "cheat",
                         "RDMA read of Arena's memory by " + XSS)
    lags = [alert_to_tile(d, pg, rs, drv, "C-07", a),
            alert_to_tile(d, pg, rs, drv, "G-44", alert("G-44", "RDMA-008", "critical",
                                                        "cheat-dma", "memory of Arena read",
                                                        game="Arena"))]
    fleet.send_docs(d, rs.port, [inc], "c07-incident")
    wait_for(lambda: pg.scalar("SELECT count(*) FROM rdmaguard.incidents") == "1", 15,
             "the incident in the store")
    # The seat: the process name literally, nothing injected, no dialog.
    drv.find_element(By.CSS_SELECTOR, '#room .tile[data-seat="C-07"]').click()
    wait_for(lambda: drv.find_elements(By.CSS_SELECTOR, "#seat .incident"), 10,
             "C-07's incident shown")
    seat = drv.find_element(By.ID, "seat")
    check(XSS in seat.text, "the process name shown literally: %r" % seat.text[:500])
    check(not drv.find_elements(By.CSS_SELECTOR, "#seat img, #room img, header img"),
          "an <img> was injected into the page")
    no_dialog(drv)
    return lags


def review(d, pg, drv, base):
    """alice (referee) marks C-07's incident reviewed; bob (viewer) cannot; no CSRF token, no
    write."""
    from selenium.webdriver.common.by import By
    box = drv.find_element(By.CSS_SELECTOR, '#seat .incident[data-incident="inc-c07"]')
    box.find_element(By.TAG_NAME, "textarea").send_keys("memory read confirmed " + XSS)
    box.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: pg.scalar("SELECT count(*) FROM rdmaguard.review_notes") == "1", 10,
             "the note in the store")
    n = pg.rows("SELECT incident_id, seat, account, reviewer, note, "
                "now() - recorded_at < interval '1 minute' AS now FROM rdmaguard.review_notes")
    check(n == [{"incident_id": "inc-c07", "seat": "C-07", "account": "alice",
                 "reviewer": "rg_console", "note": "memory read confirmed " + XSS, "now": True}],
          "the note: %r" % n)
    wait_for(lambda: tile_state(drv, "C-07") == "ok", 10,
             "C-07 to leave incident once reviewed (it is %s)" % tile_state(drv, "C-07"))
    no_dialog(drv)
    # A write without the CSRF token, from the page with alice's session.
    st = drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/review', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({seat: 'B-07', note: 'forged'})}).then(r => done(r.status));")
    check(st == 403, "a write without the CSRF token: %s, want 403" % st)
    # bob, a viewer: no form, and the API refuses his note.
    drv.delete_all_cookies()
    login(drv, base, "bob", "bob-password")
    drv.find_element(By.CSS_SELECTOR, '#room .tile[data-seat="B-07"]').click()
    wait_for(lambda: drv.find_element(By.ID, "seat-view").is_displayed(), 10, "B-07 shown")
    check(not drv.find_elements(By.CSS_SELECTOR, "#seat textarea"), "a viewer sees a form")
    st = drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/session').then(r => r.json()).then(s => fetch('/api/review', {method: "
        "'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf},"
        " body: JSON.stringify({seat: 'B-07', note: 'viewer'})})).then(r => done(r.status));")
    check(st == 403, "a viewer's note: %s, want 403" % st)
    check(pg.scalar("SELECT count(*) FROM rdmaguard.review_notes") == "1", "refused notes stored")


def tls(d, pg, acc):
    pki = fleet.make_pki(d, "pki-console")
    layout = os.path.join(d, "layout")
    with open(layout, "w") as f:
        f.write("# the referees' table\nC-07 12 1\n  A-01\t12 2\n")
    c = Console(d, pg, "tls", ["--accounts", acc, "--tls-cert", pki["server"], "--tls-key",
                               pki["server_key"], "--layout", layout])
    ctx = ssl.create_default_context(cafile=pki["ca"])
    st, hdr, _ = http("https://127.0.0.1:%d/api/login" % c.port,
                      {"user": "bob", "password": "bob-password"}, ctx=ctx)
    cookie = hdr.get("Set-Cookie", "")
    check(st == 200 and "Secure" in cookie and "HttpOnly" in cookie, "over TLS: %r" % cookie)
    check("max-age" in hdr.get("Strict-Transport-Security", ""), "HSTS over TLS")
    st, _, body = http("https://127.0.0.1:%d/api/layout" % c.port, ctx=ctx,
                       headers={"Cookie": cookie.split(";")[0]})
    check(st == 200 and json.loads(body) == {"C-07": [12, 1], "A-01": [12, 2]},
          "the layout file: %d %r" % (st, body))
    c.stop()


def scenario(d, shot):
    pg = fleet.Postgres(d)
    rs = None
    drv = None
    try:
        pg.start()
        pg.psql(sum((["-f", os.path.join(SRC, "fleet", "postgresql", f)]
                     for f in ("schema.sql", "retention.sql", "views.sql")), []))
        pg.sql("CREATE ROLE rg_ingest LOGIN IN ROLE rdmaguard_ingest; "
               "CREATE ROLE rg_console LOGIN IN ROLE rdmaguard_referee")
        rs = fleet.Collector(d, pg, fleet.make_pki(d, "pki"))
        rs.start()
        venue(d, pg)
        start_up(d, pg)
        acc = accounts(d)
        con = Console(d, pg, "main", ["--accounts", acc])
        base = "http://127.0.0.1:%d" % con.port
        t0 = time.monotonic()
        drv = browser(d)
        print("chromium started in %.1f s" % (time.monotonic() - t0))
        login_required(d, drv, base)
        login(drv, base, "alice", "alice-password")
        loads = [load_time(drv, base) for _ in range(3)]
        print("the room of 501 seats: drawn %s ms after the navigation started"
              % ", ".join("%.0f" % x for x in loads))
        check(min(loads) < 1000, "the room loads in %.0f ms, over 1 s" % min(loads))
        check(tile_state(drv, "H-11") == "silent" and tile_state(drv, "D-20") == "weak" and
              tile_state(drv, "B-07") == "suspicious" and tile_state(drv, "A-01") == "ok",
              "the room's states: %r" % [tile_state(drv, s) for s in
                                         ("H-11", "D-20", "B-07", "A-01")])
        check(tile_state(drv, XSS_SEAT) == "ok", "the hostile label's tile")
        check(not drv.find_elements("css selector", "img"), "the hostile label injected")
        no_dialog(drv)
        live_alert(d, pg, rs, drv)
        if shot:
            drv.find_element("id", "seat-close").click()
            drv.execute_script("window.scrollTo(0, 0)")
            drv.save_screenshot(shot)
            print("screenshot: %s" % shot)
            drv.find_element("css selector", '#room .tile[data-seat="C-07"]').click()
            wait_for(lambda: drv.find_element("id", "seat-view").is_displayed(), 10,
                     "C-07 shown again")
        review(d, pg, drv, base)
        logs = [x for x in drv.get_log("browser") if x["level"] == "SEVERE"
                and not any(w in x["message"] for w in ("401", "403", "favicon.ico"))]
        check(not logs, "errors in the browser's console: %r" % logs)
        con.stop()
        tls(d, pg, acc)
    finally:
        if drv:
            drv.quit()
        if rs and rs.proc and rs.proc.poll() is None:
            rs.proc.terminate()
            rs.proc.wait(20)
        pg.stop()


def main():
    shot = None
    if len(sys.argv) == 3 and sys.argv[1] == "--screenshot":
        shot = os.path.abspath(sys.argv[2])
    for prog, pkg in (("/usr/bin/chromium", "chromium"), ("/usr/bin/chromedriver",
                                                          "chromium-driver")):
        if not os.path.exists(prog):
            print("%s not found: install %s (packaging/bootstrap.sh --deps)" % (prog, pkg))
            return 1
    try:
        import selenium  # noqa: F401
    except ImportError:
        print("python3-selenium is missing (packaging/bootstrap.sh --deps)")
        return 1
    if not CONSOLE or not os.access(CONSOLE, os.X_OK):
        print("RG_CONSOLE does not name the console")
        return 2
    d = tempfile.mkdtemp(prefix="rg-console-")
    os.chmod(d, 0o755)
    ok = False
    t0 = time.monotonic()
    try:
        scenario(d, shot)
        ok = True
        print("PASS console in %.1f s" % (time.monotonic() - t0))
    except Exception as e:  # a Failure, a timeout, WebDriver's exceptions: all fail
        print("FAIL console: %s: %s" % (type(e).__name__, e))
        for f in sorted(os.listdir(d)):
            if f.endswith(".log"):
                with open(os.path.join(d, f), errors="replace") as fh:
                    print("---- %s\n%s" % (f, fh.read()[-3000:]))
    finally:
        for p in fleet.CHILDREN:
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
