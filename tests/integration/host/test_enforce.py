#!/usr/bin/python3
"""Enforcement on this machine's kernel (issue 7): BPF LSM is refused here, so the daemon says so
(AGENT-002) and enforces rule actions `kill` from its syscall tracepoint programs.

rg-host-driver opens the stand-in /dev/infiniband/uverbs0 (a character device in a private mount
namespace, tests/lib/standin-dev.h); a user's regular file ~/infiniband/uverbs0 is not killed: it is SIGKILLed when the policy says kill, and the alert says `killed` with the
process and the rule; the same binary copied to the allowlisted path is not killed (identity is
the executable's inode, not its name). An MR with remote access and an rdma_cm connect are killed
the same way (reloads with SIGHUP). An allow entry with sha256 passes the file with that hash, not
with another, nor once the file changed in place (ctime). Scope while_game kills only while the
game stand-in (a copy of sleep at the game's path) runs. The programs are pinned in a private bpffs: after kill -9 of
the daemon the driver is still killed, a restarted daemon takes the pins over and reports the
kill it missed, `rdmaguard enforce --off` lifts enforcement (AGENT-002 says so), and a clean
stop (SIGTERM) does not unpin. Last, the daemon as on a kernel without bpf_loop()
(rg-daemon-noloop: the unrolled walk of the allow variants) kills and spares alike. creat() and
the 32-bit build of the driver (rg-host-driver32: open, write through the ia32 entry points) are
killed and reported once as well.

Needs root (exit 77 otherwise). Environment: RG_RDMAGUARD, RG_HOST_DRIVER, RG_SOURCE_ROOT."""

import errno
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from poll import poll  # noqa: E402
from tap import check, summary  # noqa: E402
from usernode import open_as_user  # noqa: E402

RG = os.environ["RG_RDMAGUARD"]
DRIVER = os.environ["RG_HOST_DRIVER"]
# the 32-bit build (gcc -m32): none on x86-64 fails below; no ia32 table elsewhere
DRIVER32 = os.environ.get("RG_HOST_DRIVER32") or None
NOLOOP = os.environ.get("RG_DAEMON_NOLOOP")  # the daemon as without bpf_loop() (pre-5.17)
RULES = os.path.join(os.environ.get("RG_SOURCE_ROOT",
                                    os.path.join(os.path.dirname(__file__), "..", "..", "..")),
                     "rules")


def write_policy(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o600)
    os.rename(tmp, path)


def policy(allowed, rules):
    return json.dumps({"role": "managed", "enforce": True, "rules": rules,
                       "allow": [{"exe": allowed, "comment": "the allowlisted copy of the driver"}]})


def wait_for(what, fn, timeout=60.0):
    return poll(fn, timeout)


def alerts(path):
    """The alerts in the daemon's file output so far. A last line without its newline is still
    being written (a line across a page boundary becomes visible a page at a time): left for the
    next read."""
    out = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.endswith("\n") and line.strip():
                    o = json.loads(line)
                    if o.get("event", {}).get("kind") == "alert":
                        out.append(o)
    return out


# Every daemon started, so that a failed check cannot leave one enforcing on the machine.
DAEMONS = []


class Daemon:
    def __init__(self, tmp, name, policy_path, pin_dir, cmd=(RG, "daemon")):
        self.out = os.path.join(tmp, name + ".jsonl")
        self.ready = os.path.join(tmp, name + ".ready")
        self.log = open(os.path.join(tmp, name + ".log"), "w", encoding="utf-8")
        self.p = subprocess.Popen(
            [*cmd, "--policy", policy_path, "--rules", RULES, "--pin-dir", pin_dir,
             "--sensor", "tracepoint", "--output", "file:" + self.out, "--ready-file", self.ready,
             "--status-socket", "", "--no-inventory", "--heartbeat", "3600"],
            stdout=self.log, stderr=subprocess.STDOUT)
        DAEMONS.append(self.p)
        ok = wait_for("ready", lambda: os.path.exists(self.ready) or self.p.poll() is not None, 120)
        check(ok and self.p.poll() is None, f"daemon {name} is running")

    def alerts(self):
        return alerts(self.out)

    def find(self, pred, timeout=15.0):
        return wait_for("alert", lambda: [a for a in self.alerts() if pred(a)], timeout)

    def stop(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        self.log.close()
        return rc


def run_driver(path, scenario, timeout=60):
    p = subprocess.run([path, scenario], capture_output=True, text=True, timeout=timeout)
    facts = dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)
    return p.returncode, facts


def status(pin_dir):
    p = subprocess.run([RG, "enforce", "--pin-dir", pin_dir], capture_output=True, text=True,
                       timeout=30)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        return p.returncode, {"raw": p.stdout + p.stderr}


def rodata_knob(pin_dir, prog, var):
    """The value of a const volatile knob the pinned program was loaded with (bpftool, BTF)."""
    def bt(*args):
        p = subprocess.run(["bpftool", "-j", *args], capture_output=True, text=True, timeout=30)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def find(o):
        if isinstance(o, dict):
            if var in o:
                return o[var]
            o = list(o.values())
        if isinstance(o, list):
            for v in o:
                r = find(v)
                if r is not None:
                    return r
        return None

    info = bt("prog", "show", "pinned", os.path.join(pin_dir, "progs", prog)) or {}
    for mid in info.get("map_ids", []):
        m = bt("map", "show", "id", str(mid)) or {}
        if m.get("name", "").endswith(".rodata"):
            r = find(bt("map", "dump", "id", str(mid)))
            if r is not None:
                return r
    return None


def rule_alerts(d, rule, action, pid=None):
    return d.find(lambda a: a["rule"]["id"] == rule and a["rdmaguard"]["action"] == action and
                  (pid is None or a["process"]["pid"] == pid))


def ia32_exec_refused(path):
    """Whether the kernel refuses to run a 32-bit executable at all (no IA32 emulation,
    ia32_emulation=false, a sandbox's kernel): then nothing enters through the ia32 table."""
    try:
        rc = subprocess.run([path, "exit", "0"], timeout=30).returncode
    except OSError as e:
        if e.errno == errno.ENOEXEC:
            return True
        raise
    if rc != 0:
        raise RuntimeError(f"the 32-bit driver's probe run exited {rc}")
    return False


def main():
    global DRIVER32
    if os.geteuid() != 0:
        print("SKIP: enforcement attaches BPF programs and pins them: needs root")
        return 77
    if os.environ.get("RG_CPU_FAMILY", "x86_64") == "x86_64" and not DRIVER32:
        print("FAIL: no 32-bit host driver: the compiler cannot link -m32 (install gcc-multilib, "
              "as packaging/bootstrap.sh --deps does)")
        return 1
    if DRIVER32 and ia32_exec_refused(DRIVER32):
        print("# SKIP the 32-bit checks: this kernel refuses 32-bit executables (execve: ENOEXEC),"
              " so the ia32 entry points cannot be used here")
        DRIVER32 = None
    tmp = tempfile.mkdtemp(prefix="rg-enforce-")
    bpffs = os.path.join(tmp, "bpffs")
    os.mkdir(bpffs)
    subprocess.run(["mount", "-t", "bpf", "bpf", bpffs], check=True)
    pin_dir = os.path.join(bpffs, "rdmaguard")
    try:
        run(tmp, pin_dir)
    finally:
        for p in DAEMONS:
            if p.poll() is None:
                p.kill()
                p.wait()
        subprocess.run(["umount", "-l", bpffs], check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


def run(tmp, pin_dir):
    allowed_dir = os.path.join(tmp, "allowed")
    os.mkdir(allowed_dir)
    allowed = os.path.join(allowed_dir, "rg-host-driver")
    shutil.copy2(DRIVER, allowed)
    pol = os.path.join(tmp, "policy.json")

    # --dry-run: what enforcement would do here
    write_policy(pol, policy(allowed, {"RDMA-004": {"action": "kill"}}))
    p = subprocess.run([RG, "daemon", "--dry-run", "--policy", pol, "--rules", RULES,
                        "--pin-dir", pin_dir, "--sensor", "tracepoint"],
                       capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    check(doc.get("enforcement") == {"requested": True, "pinned": False, "pin_dir": pin_dir,
                                     "mode": "kill", "scope": "always"},
          "--dry-run: enforcement requested, mode kill (no BPF LSM here), not pinned yet",
          doc.get("enforcement", p.stderr))

    # 1. kill on open of a uverbs node (RDMA-004 kill)
    d = Daemon(tmp, "d1", pol, pin_dir)
    agent2 = d.find(lambda a: a["rule"]["id"] == "AGENT-002" and a.get("rdmaguard", {}).get("agent", {}).get("what") == "enforce")
    check(agent2 and "BPF LSM is not active" in agent2[0]["message"] and agent2[0]["rdmaguard"]["action"] == "alert",
          "AGENT-002 says enforcement cannot deny: BPF LSM is not active", d.alerts())
    check(agent2 and "rule actions kill act" in agent2[0]["message"]
          and "soft RDMA (rdma_rxe, siw, rdma link add) is only alerted" in agent2[0]["message"],
          "and that only kill acts, soft RDMA only alerted", agent2)
    rc, facts = run_driver(DRIVER, "verbs")
    check(rc == -signal.SIGKILL and "fd" not in facts,
          f"the driver is SIGKILLed when it opens uverbs0 (rc {rc})", facts)
    killed = rule_alerts(d, "RDMA-004", "killed")
    check(len(killed) == 1, "RDMA-004 alerts once with action killed", d.alerts())
    if killed:
        a = killed[0]
        check(a["process"]["name"] == "rg-host-driver" and a["process"]["executable"] == DRIVER
              and a["file"]["path"] == "/dev/infiniband/uverbs0"
              and a["rdmaguard"]["rdma"]["node"] == "uverbs"
              and a["rdmaguard"]["event"]["flags"] == ["killed"] and a["rdmaguard"]["rule"]["action"] == "kill",
              "the alert names the process, the node and the rule (rule.action kill)", a)
    check(rule_alerts(d, "RDMA-011", "killed"), "RDMA-011 reports the kill", d.alerts())
    # A user's regular file ~/infiniband/uverbs0 is no RDMA node: its opener lives, unreported.
    urc, upid, upath = open_as_user()
    check(urc == 0 and upid, f"nobody opening {upath} (a regular file) is not killed (rc {urc})")
    time.sleep(1.5)
    check(upid and not [a for a in d.alerts() if a.get("process", {}).get("pid") == upid],
          "and no alert names it", d.alerts())
    links = status(pin_dir)[1].get("links", [])
    check("enf_tp_exit_openat" in links and "enf_tp_exit_creat" in links
          and "enf_tp_compat_exit" in links and "enf_tp_enter_write" not in links
          and "enf_tp_enter_ioctl" not in links and "enf_tp_enter_mmap" not in links
          and "enf_tp_compat_enter_ioctl" not in links and "enf_tp_compat_enter_write" not in links,
          "with only RDMA-004 armed, only the open programs are attached (writes pay nothing)", links)
    # creat(2), and the 32-bit open: other entry points, the same kill, reported once
    rc, facts = run_driver(DRIVER, "creat")
    pid = int(facts.get("pid", 0))
    check(rc == -signal.SIGKILL and pid and "fd" not in facts,
          f"the driver is SIGKILLed at its creat() of uverbs0 (rc {rc})", facts)
    check(len(rule_alerts(d, "RDMA-004", "killed", pid)) == 1
          and not [a for a in d.alerts() if a["rule"]["id"] == "RDMA-004"
                   and a["process"]["pid"] == pid and a["rdmaguard"]["action"] != "killed"],
          "RDMA-004 alerts once, killed, for the creat()", d.alerts())
    if DRIVER32:
        rc, facts = run_driver(DRIVER32, "verbs")
        check(rc == -signal.SIGKILL and "fd" not in facts,
              f"the 32-bit driver is SIGKILLed at its open of uverbs0 (rc {rc})", facts)
        k32 = d.find(lambda a: a["rule"]["id"] == "RDMA-004" and a["rdmaguard"]["action"] == "killed"
                     and a["process"].get("executable") == DRIVER32)
        check(len(k32) == 1 and k32[0]["file"]["path"] == "/dev/infiniband/uverbs0"
              and not [a for a in d.alerts() if a["rule"]["id"] == "RDMA-004"
                       and a["process"].get("executable") == DRIVER32
                       and a["rdmaguard"]["action"] != "killed"],
              "RDMA-004 alerts once, killed, for the 32-bit open", d.alerts())
    n_killed_alerts = len([a for a in d.alerts() if a["rdmaguard"]["action"] == "killed"])
    rc, facts = run_driver(allowed, "verbs")
    check(rc == 0 and facts.get("reused_fd"), f"the allowlisted copy is not killed (rc {rc})", facts)
    time.sleep(1.5)
    check(not [a for a in d.alerts() if a["rdmaguard"]["action"] == "killed" and
               a["process"]["pid"] == int(facts.get("pid", 0))],
          "and no alert says it was", d.alerts())
    # a renamed copy of the allowlisted binary is not allowed
    renamed = os.path.join(tmp, "rg-host-driver")
    shutil.copy2(allowed, renamed)
    rc, _ = run_driver(renamed, "verbs")
    check(rc == -signal.SIGKILL, f"a copy of the allowlisted binary elsewhere is killed (rc {rc})")

    # 2. reload: kill on an MR with remote access instead (RDMA-005), opens are alerts again
    write_policy(pol, policy(allowed, {"RDMA-005": {"action": "kill"}}))
    d.p.send_signal(signal.SIGHUP)
    check(d.find(lambda a: a["rule"]["id"] == "AGENT-003" and a["rdmaguard"]["agent"]["ok"] == 1),
          "the reload is accepted", d.alerts())
    links = status(pin_dir)[1].get("links", [])
    check("enf_tp_enter_write" in links and "enf_tp_enter_ioctl" in links
          and "enf_tp_enter_writev" in links and "enf_tp_enter_pwritev2" in links
          and "enf_tp_exit_openat" not in links and "enf_tp_enter_mmap" not in links,
          "with RDMA-005 armed, the write, writev and ioctl programs instead", links)
    rc, facts = run_driver(DRIVER, "verbs")
    pid = int(facts.get("pid", 0))
    check(rc == -signal.SIGKILL and pid and "invoke_ret" not in facts,
          f"the driver opens uverbs0 and is SIGKILLed at its reg_mr with remote access (rc {rc})",
          facts)
    mr = rule_alerts(d, "RDMA-005", "killed", pid)
    check(len(mr) == 1 and mr[0]["rdmaguard"]["rdma"]["op"] == "reg_mr"
          and mr[0]["rdmaguard"]["rdma"]["mr"]["access"] ==
          ["local_write", "remote_write", "remote_read"],
          "RDMA-005 alerts with action killed and the MR's access", d.alerts())
    check(rule_alerts(d, "RDMA-004", "alert", pid), "its open is only alerted now (RDMA-004 alert)",
          d.alerts())
    check("enf_tp_compat_enter_ioctl" in links and "enf_tp_compat_enter_write" in links
          and "enf_tp_compat_exit" not in links,
          "and the 32-bit ioctl and write program", links)
    if DRIVER32:
        rc, facts = run_driver(DRIVER32, "verbs")
        pid = int(facts.get("pid", 0))
        check(rc == -signal.SIGKILL and pid and "invoke_ret" not in facts,
              f"the 32-bit driver is SIGKILLed at its reg_mr with remote access (rc {rc})", facts)
        mr = rule_alerts(d, "RDMA-005", "killed", pid)
        check(len(mr) == 1 and mr[0]["rdmaguard"]["rdma"]["op"] == "reg_mr"
              and mr[0]["rdmaguard"]["rdma"]["mr"]["access"] ==
              ["local_write", "remote_write", "remote_read"]
              and not [a for a in d.alerts() if a["rule"]["id"] == "RDMA-005"
                       and a["process"]["pid"] == pid and a["rdmaguard"]["action"] != "killed"],
              "RDMA-005 alerts once, killed, for the 32-bit write()", d.alerts())
        check(rule_alerts(d, "RDMA-004", "alert", pid), "and its 32-bit open is alerted",
              d.alerts())
    # the same MR inside a writev(), after an empty iovec and before a DEALLOC_PD
    rc, facts = run_driver(DRIVER, "writev")
    pid = int(facts.get("pid", 0))
    check(rc == -signal.SIGKILL and pid,
          f"the driver is SIGKILLed at the reg_mr of its first writev() (rc {rc})", facts)
    mr = rule_alerts(d, "RDMA-005", "killed", pid)
    check(len(mr) == 1 and mr[0]["rdmaguard"]["rdma"]["op"] == "reg_mr"
          and mr[0]["rdmaguard"]["rdma"]["mr"]["access"] == ["local_write", "remote_read"]
          and mr[0]["rdmaguard"]["rdma"]["mr"]["length"] == 0x30000,
          "RDMA-005 alerts with action killed and that iovec's MR",
          [(a["rule"]["id"], a["rdmaguard"]["action"], a.get("rdmaguard", {}).get("rdma")) for a in d.alerts()
           if a.get("process", {}).get("pid") == pid])

    # 3. reload: kill on rdma_cm connect (RDMA-009)
    write_policy(pol, policy(allowed, {"RDMA-009": {"action": "kill"}}))
    d.p.send_signal(signal.SIGHUP)
    check(wait_for("reload", lambda: len([a for a in d.alerts() if a["rule"]["id"] == "AGENT-003"]) >= 2),
          "the second reload is accepted")
    rc, facts = run_driver(DRIVER, "cm")
    pid = int(facts.get("pid", 0))
    check(rc == -signal.SIGKILL and pid, f"the driver is SIGKILLed at rdma_cm CONNECT (rc {rc})", facts)
    cm = rule_alerts(d, "RDMA-009", "killed", pid)
    check(len(cm) == 1 and cm[0]["rdmaguard"]["rdma"]["op"] == "connect",
          "RDMA-009 alerts with action killed",
          d.alerts())

    check(rodata_knob(pin_dir, "enf_rtp_exec", "rg_have_loop") == 1,
          "this kernel has bpf_loop(): the programs were loaded with rg_have_loop = 1")

    # 3b. allowlisted with a sha256 too: the file with that hash passes, a wrong hash allows
    # nothing, and a file changed in place since it was hashed (its ctime, which the kernel
    # compares) loses the allowance until a reload hashes it again
    with open(allowed, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()

    def reload_sha(h, n):
        write_policy(pol, json.dumps({"role": "managed", "enforce": True,
                                      "rules": {"RDMA-004": {"action": "kill"}},
                                      "allow": [{"exe": allowed, "sha256": h}]}))
        d.p.send_signal(signal.SIGHUP)
        return wait_for("reload", lambda: len([a for a in d.alerts()
                                               if a["rule"]["id"] == "AGENT-003"]) >= n)

    check(reload_sha(sha, 3), "reload: the allow entry with the file's sha256")
    rc, _ = run_driver(allowed, "verbs")
    check(rc == 0, f"the allowlisted file with the right sha256 is not killed (rc {rc})")
    check(reload_sha("0" * 64, 4), "reload: the allow entry with another sha256")
    rc, _ = run_driver(allowed, "verbs")
    check(rc == -signal.SIGKILL, f"with a wrong sha256 it is killed (rc {rc})")
    check(reload_sha(sha, 5), "reload: the right sha256 again")
    rc, _ = run_driver(allowed, "verbs")
    check(rc == 0, f"and it runs again (rc {rc})")
    os.chmod(allowed, 0o750)  # a change in place: its ctime moves
    rc, _ = run_driver(allowed, "verbs")
    check(rc == -signal.SIGKILL,
          f"changed since its hash was checked (ctime): killed until a reload (rc {rc})")

    # 3c. scope while_game: only while the game runs (the kernel follows its exec and exit)
    arena_dir = os.path.join(tmp, "arena")
    os.mkdir(arena_dir)
    arena = os.path.join(arena_dir, "arena")
    shutil.copy2("/bin/sleep", arena)
    write_policy(pol, json.dumps({"role": "managed", "enforce": True, "enforce_scope": "while_game",
                                  "rules": {"RDMA-004": {"action": "kill"}},
                                  "games": [{"name": "Arena", "exe": arena_dir + "/*"}],
                                  "allow": [{"exe": allowed}]}))
    d.p.send_signal(signal.SIGHUP)
    check(wait_for("reload", lambda: len([a for a in d.alerts() if a["rule"]["id"] == "AGENT-003"]) >= 6),
          "reload: scope while_game")
    rc, _ = run_driver(DRIVER, "verbs")
    check(rc == 0, f"while_game, no game: the driver is not killed (rc {rc})")
    game = subprocess.Popen([arena, "60"])
    try:
        check(wait_for("game", lambda: status(pin_dir)[1].get("games_live") == 1, 30),
              "the kernel counts the game", status(pin_dir)[1])
        rc, _ = run_driver(DRIVER, "verbs")
        check(rc == -signal.SIGKILL, f"while the game runs the driver is killed (rc {rc})")
        rc, _ = run_driver(allowed, "verbs")
        check(rc == 0, f"and the allowlisted copy is not (rc {rc})")
    finally:
        game.kill()
        game.wait()
    check(wait_for("game over", lambda: (lambda st: st.get("games_live") == 0 and
                                         st.get("game_running_daemon") is False)(status(pin_dir)[1]), 30),
          "the kernel and the daemon see the game end", status(pin_dir)[1])
    rc, _ = run_driver(DRIVER, "verbs")
    check(rc == 0, f"once the game has ended the driver is not killed (rc {rc})")

    # 3c'. a launcher the daemon knows as the game by its hash (so it has pushed the launcher's
    # pid to the kernel's game processes) execs the game file: the kernel counts it all the
    # same. The same order as when the daemon reads the sensors' exec record, on another CPU,
    # before enforcement's exec program runs: it failed 1 in 3 VM lab boots on one host thread.
    shell = os.path.join(arena_dir, "sh")  # a game file for 3c'' (the kernel's: before the reload)
    shutil.copy2("/bin/sh", shell)
    launcher = os.path.join(tmp, "launcher")
    shutil.copy2("/bin/sh", launcher)
    with open(launcher, "ab") as f:
        f.write(b"\nrdmaguard test launcher\n")  # past the ELF's segments: a hash of its own
    with open(launcher, "rb") as f:
        lsha = hashlib.sha256(f.read()).hexdigest()
    write_policy(pol, json.dumps({"role": "managed", "enforce": True, "enforce_scope": "while_game",
                                  "rules": {"RDMA-004": {"action": "kill"}},
                                  "games": [{"name": "Arena", "exe": arena_dir + "/*",
                                             "sha256": lsha}],
                                  "allow": [{"exe": allowed}]}))
    d.p.send_signal(signal.SIGHUP)
    check(wait_for("reload", lambda: len([a for a in d.alerts() if a["rule"]["id"] == "AGENT-003"]) >= 7),
          "reload: a game by hash too")
    game = subprocess.Popen([launcher, "-c", f"read x; exec {arena} 60"], stdin=subprocess.PIPE)
    try:
        check(wait_for("launcher", lambda: (lambda st: st.get("game_processes") == 1 and
                                            st.get("games_live") == 0 and
                                            st.get("game_running_daemon") is True)(status(pin_dir)[1]), 30),
              "the launcher is the daemon's game, not the kernel's", status(pin_dir)[1])
        game.stdin.write(b"\n")
        game.stdin.close()
        check(wait_for("game", lambda: status(pin_dir)[1].get("games_live") == 1, 30),
              "the launcher execs the game file: the kernel counts it", status(pin_dir)[1])
    finally:
        game.kill()
        game.wait()
    check(wait_for("game over", lambda: (lambda st: st.get("games_live") == 0 and
                                         st.get("game_processes") == 0)(status(pin_dir)[1]), 30),
          "and sees it end", status(pin_dir)[1])

    # 3c''. a game whose children run something else and end at once: the daemon learns of each
    # fork from the ring, often after the kernel has forgotten the child (at its exec), and adds
    # it as the game's; at the child's exit it must take it away again, or the map fills up over
    # days of games and the kernel can follow no new one
    n = 200
    p = subprocess.run([shell, "-c", f"i=0; while [ $i -lt {n} ]; do /bin/true; i=$((i+1)); done"],
                       timeout=120)
    check(p.returncode == 0, f"a game shell ran {n} children (rc {p.returncode})")
    check(wait_for("children gone", lambda: (lambda st: st.get("games_live") == 0 and
                                             st.get("game_processes") == 0)(status(pin_dir)[1]), 30),
          "then no game process is left in the kernel's map", status(pin_dir)[1])

    # 3d. self-protection covers enforcement: another process's bpf() on the policy generation
    # in force (the allowlist) or on enforcement's own maps raises AGENT-004 naming it. The
    # commands are harmless (a delete of a key that is not there, a delete from an array map):
    # the kernel refuses them, and they are reported all the same.
    def bpftool(*args):
        p = subprocess.run(["bpftool", "-j", *args], capture_output=True, text=True, timeout=30)
        return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else None)

    _, outer = bpftool("map", "lookup", "pinned", os.path.join(pin_dir, "maps", "enf_policy"),
                       "key", "0", "0", "0", "0")
    inner_id = (outer or {}).get("value")
    inner_id = int.from_bytes(bytes(int(b, 16) for b in inner_id), "little") \
        if isinstance(inner_id, list) else inner_id
    _, cnt = bpftool("map", "show", "pinned", os.path.join(pin_dir, "maps", "counters"))
    check(isinstance(inner_id, int) and inner_id > 0 and cnt and cnt.get("id"),
          "the generation in force and enforcement's counters map have ids", (outer, cnt))
    key_size = (bpftool("map", "show", "id", str(inner_id))[1] or {}).get("bytes_key", 0)
    before = len([a for a in d.alerts() if a["rule"]["id"] == "AGENT-004"])
    bpftool("map", "delete", "id", str(inner_id), "key", *(["0xff"] * key_size))
    bpftool("map", "delete", "id", str(cnt["id"]), "key", "0", "0", "0", "0")
    want = {inner_id, cnt["id"]}

    def tampered():
        got = [a for a in d.alerts() if a["rule"]["id"] == "AGENT-004"][before:]
        return got if {a["rdmaguard"]["agent"].get("count") for a in got} >= want else None
    t = wait_for("AGENT-004", tampered, 30) or []
    check(len(t) == 2 and all(a["process"]["name"] == "bpftool" and
                              a["rdmaguard"]["agent"]["what"] == "bpf_map_delete_elem" and
                              a["rdmaguard"]["agent"].get("ok", 0) == 0 and
                              a["rdmaguard"]["severity"] == "high" for a in t),
          "AGENT-004 for each: bpf_map_delete_elem by bpftool, refused (high)", t or d.alerts())

    # 4. back to RDMA-004 kill, then kill -9 of the daemon: the pins keep killing
    write_policy(pol, policy(allowed, {"RDMA-004": {"action": "kill"}}))
    d.p.send_signal(signal.SIGHUP)
    check(wait_for("reload", lambda: len([a for a in d.alerts() if a["rule"]["id"] == "AGENT-003"]) >= 8),
          "the eighth reload is accepted")
    d.stop(signal.SIGKILL)
    rc, st = status(pin_dir)
    check(rc == 0 and st.get("pinned") and st.get("config", {}).get("kill") == 1
          and st.get("config", {}).get("lsm") is False and "enf_tp_exit_openat" in st.get("links", []),
          "after kill -9 the enforcement is still pinned (rdmaguard enforce --status)", st)
    killed_before = st.get("killed", 0)
    rc, facts = run_driver(DRIVER, "verbs")
    check(rc == -signal.SIGKILL, f"with no daemon the driver is still SIGKILLed (rc {rc})")
    rc, st = status(pin_dir)
    check(st.get("killed") == killed_before + 1, "the pinned counters count it", st)

    # 5. a restarted daemon takes the pins over, and reports the kill it missed
    d2 = Daemon(tmp, "d2", pol, pin_dir)
    missed = rule_alerts(d2, "RDMA-004", "killed")
    check(len(missed) == 1, "the restarted daemon reports the kill that happened while none ran",
          d2.alerts())
    rc, st = status(pin_dir)
    check(st.get("daemon_pid") == d2.p.pid and st.get("config", {}).get("generation", 0) > 4,
          "it took over the pins (its pid, a later generation)", st)
    rc, facts = run_driver(DRIVER, "verbs")
    check(rc == -signal.SIGKILL, "and enforces with them")

    # 6. a clean stop does not lift enforcement
    check(d2.stop() == 0, "SIGTERM stops the daemon with 0")
    rc, st = status(pin_dir)
    check(rc == 0 and st.get("pinned"), "after a clean stop enforcement is still pinned", st)
    rc, _ = run_driver(DRIVER, "verbs")
    check(rc == -signal.SIGKILL, "and still kills")

    # 7. enforce --off lifts it, and a running daemon says so
    d3 = Daemon(tmp, "d3", pol, pin_dir)
    p = subprocess.run([RG, "enforce", "--off", "--pin-dir", pin_dir], capture_output=True,
                       text=True, timeout=30)
    check(p.returncode == 0 and "enforcement is lifted" in p.stdout, "rdmaguard enforce --off", p.stdout + p.stderr)
    lifted = d3.find(lambda a: a["rule"]["id"] == "AGENT-002" and "enforcement lifted" in a["message"])
    check(lifted, "the running daemon raises AGENT-002: enforcement lifted", d3.alerts())
    rc, facts = run_driver(DRIVER, "verbs")
    check(rc == 0, f"the driver now runs to its end (rc {rc})", facts)
    rc, st = status(pin_dir)
    check(rc == 1 and st.get("pinned") is False, "enforce --status: nothing pinned (exit 1)", st)
    check(d3.stop() == 0, "the daemon stops cleanly")

    # 8. the same verdicts without bpf_loop() (kernels before 5.17): the unrolled walk of the
    # allow variants, which the verifier must accept and which must decide alike
    if not NOLOOP:
        check(False, "RG_DAEMON_NOLOOP (tests/integration/host/rg-daemon-noloop) is set")
        return
    d4 = Daemon(tmp, "d4", pol, pin_dir, cmd=(NOLOOP,))
    check(rodata_knob(pin_dir, "enf_rtp_exec", "rg_have_loop") == 0,
          "rg-daemon-noloop loaded the programs with rg_have_loop = 0")
    rc, facts = run_driver(DRIVER, "verbs")
    check(rc == -signal.SIGKILL, f"without bpf_loop: the driver is SIGKILLed at its open (rc {rc})")
    check(rule_alerts(d4, "RDMA-004", "killed"), "and RDMA-004 alerts with action killed",
          d4.alerts())
    rc, facts = run_driver(allowed, "verbs")
    check(rc == 0 and facts.get("reused_fd"),
          f"without bpf_loop: the allowlisted copy is not killed (rc {rc})", facts)
    check(d4.stop() == 0, "rg-daemon-noloop stops cleanly")
    p = subprocess.run([RG, "enforce", "--off", "--pin-dir", pin_dir], capture_output=True,
                       text=True, timeout=30)
    check(p.returncode == 0, "enforce --off", p.stdout + p.stderr)


if __name__ == "__main__":
    sys.exit(main())
