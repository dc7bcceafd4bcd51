#!/usr/bin/python3
"""`rdmaguard daemon` on this machine's kernel: --dry-run, bad usage, and a recorded run while
rg-host-driver does verbs calls on a stand-in device; asserts the JSON lines exactly.
Needs root (exit 77 otherwise). Environment: RG_RDMAGUARD, RG_HOST_DRIVER."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from tap import check, summary  # noqa: E402
from usernode import open_as_user  # noqa: E402

RG = os.environ["RG_RDMAGUARD"]
DRIVER = os.environ["RG_HOST_DRIVER"]


def dry_run():
    p = subprocess.run([RG, "daemon", "--dry-run", "--sensor", "tracepoint"],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"--dry-run exits 0 (got {p.returncode}: {p.stderr.strip()})")
    doc = json.loads(p.stdout)
    check(doc["rules"] > 0 and doc["outputs"] == ["stdout"], "--dry-run checks rules and outputs")
    plan = doc["sensors"]
    check(plan["mode"] == "tracepoint", "--dry-run reports the forced mode")
    for hook in ("process", "open", "verbs", "rdma_cm", "mmap", "memory", "library",
                 "modules", "devices", "roce"):
        check(hook in plan["hooks"], f"--dry-run describes hook point {hook}")
    check(plan["hooks"]["verbs"]["active"] == "tracepoint", "verbs on tracepoints")
    check(plan["hooks"]["verbs"]["programs"][0] == "tracepoint/syscalls/sys_enter_ioctl",
          "--dry-run names the tracepoints")


def plaintext_warnings():
    """A managed seat (the policy's role, the default) warns at start about every output that
    sends alerts in the clear over a network; loopback, TLS and a server's policy do not."""
    cafe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "rules",
                        "policies", "lan-cafe.json")
    outs = ["syslog+tcp://192.0.2.10:514", "relp://[2001:db8::1]:2514", "syslog+tcp://127.0.0.1",
            "relp://[::1]", "syslog+tls://192.0.2.10?ca=/etc/ssl/certs/ca-certificates.crt",
            "file:/dev/null"]
    with tempfile.TemporaryDirectory() as d:
        server = os.path.join(d, "server.json")
        with open(server, "w") as f:
            f.write('{"role": "server"}\n')
        shipped = os.path.join(d, "cafe.json")
        with open(cafe) as f, open(shipped, "w") as g:
            g.write(f.read())
        for policy, want in ((None, ["syslog+tcp://192.0.2.10:514", "relp://[2001:db8::1]:2514"]),
                             (server, [])):
            args = [RG, "daemon", "--dry-run", "--sensor", "tracepoint"]
            args += ["--policy", policy] if policy else []
            for o in outs:
                args += ["--output", o]
            p = subprocess.run(args, capture_output=True, text=True, timeout=120)
            got = [line.split("Output ", 1)[1].split(" ", 1)[0]
                   for line in p.stderr.splitlines() if "in the clear on a managed seat" in line]
            check(p.returncode == 0 and got == want,
                  f"--dry-run, policy {'server' if policy else 'built-in (managed)'}: warns about "
                  f"{want} (got {got}, exit {p.returncode}: {p.stderr.strip()[-300:]})")
        p = subprocess.run([RG, "daemon", "--dry-run", "--sensor", "tracepoint", "--policy", shipped],
                           capture_output=True, text=True, timeout=120)
        doc = json.loads(p.stdout) if p.returncode == 0 else {}
        check(p.returncode == 0 and "in the clear" not in p.stderr and
              any(o.startswith("relp+tls://") for o in doc.get("outputs", [])),
              f"the café example sends over TLS, no warning ({p.stderr.strip()[-300:]})")


def bad_usage():
    p = subprocess.run([RG, "daemon", "--sensor", "bogus"], capture_output=True, text=True,
                       timeout=30)
    check(p.returncode == 2 and "unknown sensor" in p.stderr, "--sensor bogus exits 2")
    p = subprocess.run([RG, "daemon", "extra"], capture_output=True, text=True, timeout=30)
    check(p.returncode == 2, "a stray argument exits 2")
    for bad in ("3M", "32K", "512M", "0", "8X", ""):
        p = subprocess.run([RG, "daemon", "--ring-buffer", bad], capture_output=True, text=True,
                           timeout=30)
        check(p.returncode == 2 and "--ring-buffer: not a power of two" in p.stderr,
              f"--ring-buffer {bad!r} exits 2 saying why")
    p = subprocess.run([RG, "daemon", "--ring-wakeups", "never"], capture_output=True, text=True,
                       timeout=30)
    check(p.returncode == 2 and "--ring-wakeups: 'burst' or 'always', not 'never'" in p.stderr,
          "--ring-wakeups never exits 2 saying why")
    for when, want in (("always", "always"), ("burst", "burst"), (None, "burst")):
        p = subprocess.run([RG, "daemon", "--dry-run", "--sensor", "tracepoint"] +
                           (["--ring-wakeups", when] if when else []),
                           capture_output=True, text=True, timeout=120)
        got = json.loads(p.stdout)["sensors"].get("ring_wakeups") if p.returncode == 0 else p.stderr
        check(got == want, f"--ring-wakeups {when or '(default)'}: the plan says {want} ({got})")
    for opt in ("--heartbeat", "--reconcile", "--roce-interval"):
        p = subprocess.run([RG, "daemon", opt, "0"], capture_output=True, text=True, timeout=30)
        check(p.returncode == 2 and f"{opt}: not a number of seconds" in p.stderr,
              f"{opt} 0 exits 2 (it used to run anyway)")
    for size, want in (("64K", 65536), ("1m", 1 << 20), (None, 2 << 20)):
        p = subprocess.run([RG, "daemon", "--dry-run", "--sensor", "tracepoint"] +
                           (["--ring-buffer", size] if size else []),
                           capture_output=True, text=True, timeout=120)
        got = json.loads(p.stdout)["sensors"].get("ring_buffer_bytes") if p.returncode == 0 else p.stderr
        check(got == want, f"--ring-buffer {size or '(default)'}: the plan says {want} bytes ({got})")


def recorded_run():
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "events.jsonl")
        ready = os.path.join(tmp, "ready")
        d = subprocess.Popen([RG, "daemon", "--sensor", "tracepoint", "--record", record,
                              "--ready-file", ready], stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(ready) and time.monotonic() < deadline and d.poll() is None:
            time.sleep(0.1)
        check(os.path.exists(ready), "the daemon writes its ready file")
        with open(ready) as f:
            check(f.read().strip() == str(d.pid), "the ready file holds the daemon's pid")
        drv = subprocess.run([DRIVER, "verbs"], capture_output=True, text=True, timeout=60)
        check(drv.returncode == 0, "the driver ran")
        facts = dict(line.split("=", 1) for line in drv.stdout.splitlines() if "=" in line)
        pid = int(facts["pid"])
        # A user's regular file ~/infiniband/uverbs0 is not an RDMA node (it once was: any user
        # could raise device_open alerts at will).
        urc, upid, upath = open_as_user()
        check(urc == 0 and upid, f"nobody opened {upath} (exit {urc})")
        time.sleep(1.5)  # the daemon polls every second at least
        d.send_signal(signal.SIGTERM)
        try:
            rc = d.wait(timeout=30)
        except subprocess.TimeoutExpired:
            d.kill()
            rc = -1
        check(rc == 0, f"SIGTERM stops the daemon with 0 (got {rc})")
        check(not os.path.exists(ready), "the ready file is removed at stop")
        with open(record) as f:
            events = [json.loads(line) for line in f]
    # The start-up inventory (every process, as process_present) comes first, then agent_start.
    starts = [i for i, e in enumerate(events) if e["event"]["action"] == "agent_start"]
    check(len(starts) == 1, "one agent_start")
    seeds = [i for i, e in enumerate(events) if e["event"]["action"] == "process_present"]
    check(seeds and starts and max(seeds) < starts[0], "the inventory is taken before agent_start")
    check(any(e["event"]["action"] == "process_present" and e["process"]["pid"] == os.getpid()
              for e in events[:starts[0]]), "the inventory seeded the process tree (this test runner)")
    check("verbs=tracepoint" in events[starts[0]]["agent"]["text"], "agent_start names the hooks")
    check(events[-1]["event"]["action"] == "agent_stop", "the last line is agent_stop")
    seqs = [e["event"]["sequence"] for e in events]
    check(seqs == list(range(1, len(events) + 1)), "event.sequence counts 1, 2, 3...")

    mine = [e for e in events if e.get("process", {}).get("pid") == pid]
    reg = [e for e in mine if e["event"]["action"] == "verbs"
           and e["rdma"].get("op") == "reg_mr" and e["rdma"].get("via") == "write"
           and "flags" not in e["event"]]
    check(len(reg) == 1, "one clean reg_mr by write()")
    if reg:
        r = reg[0]["rdma"]
        check(r["mr"] == {"addr": 0x7f0000001000, "length": 65536, "iova": 0x7f0000001000,
                          "access": ["local_write", "remote_write", "remote_read"]},
              f"reg_mr fields: {r['mr']}")
        check(r["fd"] == int(facts["fd"]) and r["handle"] == 0x55, "reg_mr fd and handle")
    mq = [e for e in mine if e["event"]["action"] == "verbs" and e["rdma"].get("op") == "modify_qp"]
    check(len(mq) == 1, "one modify_qp")
    if mq:
        r = mq[0]["rdma"]
        check(r["qp"]["state"] == "rtr" and r["qp"]["dest_num"] == 0x1234,
              f"modify_qp to RTR with dest QPN: {r['qp']}")
        check(r["peer"] == {"gid": "::ffff:192.0.2.7", "address": "192.0.2.7"},
              f"modify_qp names the peer: {r['peer']}")
    inv = [e for e in mine if e["event"]["action"] == "verbs"
           and e["rdma"].get("via") == "invoke_write"]
    check(len(inv) == 1 and inv[0]["event"]["flags"] == ["failed"]
          and inv[0]["rdma"]["ret"] == -25, "the tunnelled reg_mr failed with ENOTTY")
    opens = [e for e in mine if e["event"]["action"] == "device_open"]
    check(len(opens) == 1 and opens[0]["file"]["path"] == "/dev/infiniband/uverbs0"
          and opens[0]["rdma"]["node"] == "uverbs", "device_open of uverbs0")
    theirs = [e for e in events if e.get("process", {}).get("pid") == upid
              and e["event"]["action"] not in ("fork", "exec", "exit")]
    theirs += [e for e in events if e.get("file", {}).get("path") == upath]
    check(upid and not theirs, "nothing but fork, exec and exit recorded for nobody's shell that "
          "opened a regular file in a directory named infiniband", theirs)


def hash_stall():
    """Issue 25 item 5: with a sha256 in the policy every exec'd binary is hashed. A 240 MiB padded
    binary run 120 times (its mtime changed each time, so no cache answers; about 0.1 s of
    hashing each) while 400 short processes and the driver run: hashing happens off the event
    thread, so the 128 KiB ring buffer does not overflow, every exec and the driver's reg_mr are
    recorded, nothing is lost."""
    with tempfile.TemporaryDirectory() as tmp:
        pol = os.path.join(tmp, "policy.json")
        with open(pol, "w") as f:
            json.dump({"games": [{"name": "G", "sha256": "0" * 64}]}, f)
        os.chmod(pol, 0o600)
        big = os.path.join(tmp, "padded-sleep")
        with open("/bin/sleep", "rb") as src, open(big, "wb") as dst:
            dst.write(src.read())
        os.truncate(big, 240 << 20)  # sparse: ELF ignores what follows, sha256 reads it all
        os.chmod(big, 0o755)
        record = os.path.join(tmp, "events.jsonl")
        ready = os.path.join(tmp, "ready")
        d = subprocess.Popen([RG, "daemon", "--sensor", "tracepoint", "--policy", pol,
                              "--record", record, "--ready-file", ready, "--no-inventory",
                              "--ring-buffer", "128K", "--ring-wakeups", "always",
                              "--status-socket", "", "--output", "file:" + os.path.join(tmp, "a")],
                             stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(ready) and time.monotonic() < deadline and d.poll() is None:
            time.sleep(0.1)
        check(os.path.exists(ready), "hash stall: the daemon is ready")
        sleepers = []
        for i in range(120):
            os.utime(big, ns=(10**18 + i, 10**18 + i))
            sleepers.append(subprocess.Popen([big, "30"]))
        for _ in range(400):
            subprocess.run(["/bin/true"], check=True)
        drv = subprocess.run([DRIVER, "verbs"], capture_output=True, text=True, timeout=60)
        check(drv.returncode == 0, "hash stall: the driver ran")
        pid = int(dict(line.split("=", 1) for line in drv.stdout.splitlines() if "=" in line)["pid"])
        time.sleep(2)  # the daemon polls every second at least
        for p in sleepers:
            p.kill()
            p.wait()
        d.send_signal(signal.SIGTERM)
        try:
            rc = d.wait(timeout=30)
        except subprocess.TimeoutExpired:
            d.kill()
            rc = d.wait()
        check(rc == 0, f"hash stall: SIGTERM stops the daemon with 0 (got {rc})")
        with open(record) as f:
            events = [json.loads(line) for line in f]
    lost = [e for e in events if e["event"]["action"] == "agent_lost"]
    check(not lost, f"hash stall: no record lost ({[e['agent'] for e in lost]})")
    execs = [e for e in events if e["event"]["action"] == "exec"
             and e["process"].get("executable") == big]
    check(len(execs) == 120, f"hash stall: all 120 execs of the padded binary recorded ({len(execs)})")
    reg = [e for e in events if e.get("process", {}).get("pid") == pid
           and e["event"]["action"] == "verbs" and e["rdma"].get("op") == "reg_mr"]
    check(len(reg) >= 1, "hash stall: the driver's reg_mr behind them is recorded")


def proctree_loss():
    """Issue 25 item 7: a process tree of 64 entries (--proc-capacity) with 100 more live
    processes than it holds: every live process given up is reported as lost state (agent_lost,
    agent.what proctree, AGENT-001), the reports adding up to the status's evicted_live."""
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "events.jsonl")
        out = os.path.join(tmp, "alerts.jsonl")
        ready = os.path.join(tmp, "ready")
        sock = os.path.join(tmp, "status.sock")
        d = subprocess.Popen([RG, "daemon", "--sensor", "tracepoint", "--record", record,
                              "--ready-file", ready, "--no-inventory", "--proc-capacity", "64",
                              "--status-socket", sock, "--output", "file:" + out],
                             stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(ready) and time.monotonic() < deadline and d.poll() is None:
            time.sleep(0.1)
        check(os.path.exists(ready), "proctree: the daemon is ready")
        sleepers = [subprocess.Popen(["sleep", "60"]) for _ in range(100)]
        time.sleep(2.5)  # reported within a second of the eviction
        st = subprocess.run([RG, "status", "--socket", sock], capture_output=True, text=True,
                            timeout=30)
        check(st.returncode == 0, f"proctree: status answers ({st.stderr.strip()})")
        pt = json.loads(st.stdout)["proctree"] if st.returncode == 0 else {}
        for p in sleepers:
            p.kill()
            p.wait()
        d.send_signal(signal.SIGTERM)
        try:
            rc = d.wait(timeout=30)
        except subprocess.TimeoutExpired:
            d.kill()
            rc = d.wait()
        check(rc == 0, f"proctree: SIGTERM stops the daemon with 0 (got {rc})")
        with open(record) as f:
            events = [json.loads(line) for line in f]
        with open(out) as f:
            alerts = [json.loads(line) for line in f if line.strip()]
    check(pt.get("capacity") == 64 and pt.get("evicted_live", 0) >= 100,
          f"proctree: 100 more live processes than entries were given up ({pt})")
    lost = [e["agent"] for e in events if e["event"]["action"] == "agent_lost"
            and e["agent"]["what"] == "proctree"]
    check(lost and sum(a["count"] for a in lost) == lost[-1]["count2"] >= pt.get("evicted_live", 0),
          f"proctree: every live eviction reported, up to the stop ({lost[-3:]})")
    # alerts in ECS's layout: agent.what under rdmaguard (docs/operations.md)
    check(any(a.get("rule", {}).get("id") == "AGENT-001" and
              a.get("rdmaguard", {}).get("agent", {}).get("what") == "proctree"
              for a in alerts), "proctree: AGENT-001 says so")


def state_dir_unmade():
    """A state directory that cannot be made (a read-only root: the VM lab's) costs the seat key
    alone when no output keeps a spool; with a network output the daemon refuses to start."""
    with tempfile.TemporaryDirectory() as tmp:
        blocker = os.path.join(tmp, "file")
        open(blocker, "w").close()
        state = os.path.join(blocker, "state")  # under a regular file: ENOTDIR
        ready = os.path.join(tmp, "ready")
        d = subprocess.Popen([RG, "daemon", "--sensor", "tracepoint", "--state-dir", state,
                              "--ready-file", ready, "--output", "file:" + os.path.join(tmp, "a")],
                             stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(ready) and time.monotonic() < deadline and d.poll() is None:
            time.sleep(0.1)
        up = os.path.exists(ready)
        d.send_signal(signal.SIGTERM)
        try:
            rc = d.wait(timeout=30)
        except subprocess.TimeoutExpired:
            d.kill()
            rc = d.wait()
        err = d.stderr.read()
        check(up and rc == 0 and "no seat key" in err,
              "no state directory, no spool: the daemon runs without its key (ready %s, exit %s,"
              " %s)" % (up, rc, err.strip()[-300:]))
        p = subprocess.run([RG, "daemon", "--sensor", "tracepoint", "--state-dir", state,
                            "--output", "syslog+tcp://127.0.0.1:9"], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 2 and "Failed to create the state directory" in p.stderr,
              "a network output's spool needs the state directory: exit %d, %s"
              % (p.returncode, p.stderr.strip()[-300:]))


def start_daemon(args, ready, what):
    d = subprocess.Popen([RG, "daemon", "--sensor", "tracepoint", "--ready-file", ready] + args,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(ready) and time.monotonic() < deadline and d.poll() is None:
        time.sleep(0.1)
    check(os.path.exists(ready), f"{what}: the daemon is ready")
    return d


def stop_daemon(d, what):
    d.send_signal(signal.SIGTERM)
    try:
        rc = d.wait(timeout=30)
    except subprocess.TimeoutExpired:
        d.kill()
        rc = d.wait()
    check(rc == 0, f"{what}: SIGTERM stops the daemon with 0 (got {rc})")


def game_flood():
    """A process without RDMA that floods its budget of memory-access records (/proc/self/mem
    opens) cannot hide its own reads of the game's memory: detect-only, the daemon tells the
    sensors which processes are the game (the policy's `games`), and records about a game's
    memory have a bucket of their own and go to the RDMA ring. The game and the flooder are
    nobody's; after 4 s of flood the flooder opens and reads /proc/GAME/mem, calls
    process_vm_readv and PTRACE_SEIZE on the game: all three are recorded, and the flood's
    drops are counted in status, per process."""
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        game = os.path.join(tmp, "arena")
        with open("/bin/sleep", "rb") as src, open(game, "wb") as dst:
            dst.write(src.read())
        os.chmod(game, 0o755)
        pol = os.path.join(tmp, "policy.json")
        with open(pol, "w") as f:
            json.dump({"games": [{"name": "Arena", "exe": [game]}]}, f)
        os.chmod(pol, 0o600)
        record = os.path.join(tmp, "events.jsonl")
        sock = os.path.join(tmp, "status.sock")
        d = start_daemon(["--policy", pol, "--record", record, "--no-inventory",
                          "--status-socket", sock, "--output", "file:" + os.path.join(tmp, "a")],
                         os.path.join(tmp, "ready"), "game flood")

        def nobody():
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        g = subprocess.Popen([game, "60"], preexec_fn=nobody)
        time.sleep(1.5)  # the daemon reads the game's exec
        drv = subprocess.run([DRIVER, "flood", "4", str(g.pid)], capture_output=True, text=True,
                             timeout=60)
        facts = dict(line.split("=", 1) for line in drv.stdout.splitlines() if "=" in line)
        check(drv.returncode == 0, f"game flood: the flooder ran ({drv.stderr.strip()})")
        time.sleep(2.5)  # the budget's report comes with the next second
        st = subprocess.run([RG, "status", "--socket", sock], capture_output=True, text=True,
                            timeout=30)
        ring = json.loads(st.stdout)["sensors"]["ring"] if st.returncode == 0 else {}
        g.kill()
        g.wait()
        stop_daemon(d, "game flood")
        with open(record) as f:
            events = [json.loads(line) for line in f]
    flooder = int(facts.get("pid", 0))
    mem = [e for e in events if e["event"]["action"] == "memory_access"
           and e["process"]["pid"] == flooder]
    on_game = sorted(e["memory"]["op"] for e in mem
                     if e.get("target", {}).get("process", {}).get("pid") == g.pid)
    check(on_game == ["proc_mem_open", "process_vm_readv", "ptrace_seize"],
          f"game flood: the flooder's three accesses to the game are recorded ({on_game}; "
          f"{facts.get('opens')} opens, {len(mem)} memory records of the flooder)")
    check(len(mem) - len(on_game) <= 32 + 6 * 16,
          f"game flood: the flood itself is cut to its budget ({len(mem) - len(on_game)})")
    procs = [p for p in ring.get("budget_processes", []) if p.get("pid") == flooder]
    check(ring.get("budget_dropped", 0) > 0 and len(procs) == 1 and procs[0]["dropped"] > 0
          and procs[0]["comm"] == "rg-host-driver",
          f"game flood: status counts the drops, per process ({ring})")


def main():
    if os.geteuid() != 0:
        print("SKIP: the daemon attaches BPF programs and needs root")
        return 77
    dry_run()
    plaintext_warnings()
    bad_usage()
    recorded_run()
    state_dir_unmade()
    hash_stall()
    proctree_loss()
    game_flood()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
