#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The daemon under every restriction of packaging/systemd/rdmaguard.service, as root.

The unit is read by sandbox.py, which applies its directives without systemd (the test machines
have no systemd as PID 1); the daemon runs from the installed layout (/usr/sbin/rdmaguard,
/usr/share/rdmaguard, /etc/rdmaguard/policy.json on throw-away overlays). In order:

1. every directive of the unit is one the test knows how to apply (a new one fails here);
2. the sandbox is real: a probe in it sees exactly the unit's capability bounding set, no new
   privileges, a read-only system with the state, log and runtime directories writable, /home
   read-only, its own /tmp, AF_PACKET refused, personality() locked, mount() filtered, umask
   0077, sits in the MemoryMax cgroup, and the device cgroup lets it read /dev/kmsg but not
   write it (DevicePolicy=closed, DeviceAllow=, ProtectClock=);
3. `rdmaguard daemon --dry-run` chooses the same hook for every hook point inside the sandbox as
   outside it (then, for information, without each capability in turn);
4. the unit's own ExecStart runs attached under the restrictions, with NOTIFY_SOCKET: READY=1
   from the main pid, `rdmaguard status` over the status socket, games under /home and /tmp
   (outside the service's /tmp) recognised by their SHA-256 alone (through /proc/PID/exe), an
   allow entry for a literal path under /home matching, and not matching a different file put
   at that path (pinned to the inode), libibverbs loads seen (uprobe), ExecReload (RELOADING=1,
   READY=1, AGENT-003), the logrotate sequence (rename, SIGUSR1, a new 0600 file), SIGTERM:
   STOPPING=1 and exit 0 within TimeoutStopSec; all under MemoryMax, whose peak is printed;
   the same command line with --roce-if on a veth of its own attaches the TC programs (and
   removes them when it stops);
5. for the record, ProtectHome=tmpfs and =yes instead (what changes is printed).

Needs root (exit 77 otherwise) and python3-seccomp. Environment: RG_RDMAGUARD, RG_SOURCE_ROOT,
RG_CACHE_DIR."""
import array
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sandbox  # noqa: E402

RG = os.environ["RG_RDMAGUARD"]
SRC = os.environ["RG_SOURCE_ROOT"]
CACHE = os.environ["RG_CACHE_DIR"]
UNIT = os.path.join(SRC, "packaging", "systemd", "rdmaguard.service")
LOGROTATE = os.path.join(SRC, "packaging", "logrotate", "rdmaguard")
FAILURES = []

PROBE = r'''
import ctypes, errno, json, os, socket, sys
r = {}
with open("/proc/self/status") as f:
    for l in f:
        k, _, v = l.partition(":")
        if k in ("CapBnd", "CapEff", "CapPrm", "CapAmb", "NoNewPrivs", "Seccomp"):
            r[k] = v.strip()
def attempt(name, fn):
    try:
        fn()
        r[name] = "ok"
    except OSError as e:
        r[name] = errno.errorcode.get(e.errno, str(e.errno))
def create(path):
    with open(path, "w") as f:
        f.write("x")
    os.unlink(path)
for name, path in (("usr", "/usr/rg-probe"), ("etc", "/etc/rg-probe"),
                   ("var_lib", "/var/lib/rg-probe"), ("state", "/var/lib/rdmaguard/p"),
                   ("logs", "/var/log/rdmaguard/p"), ("runtime", "/run/rdmaguard/p"),
                   ("run", "/run/rg-probe"), ("tmp", "/tmp/p"), ("var_tmp", "/var/tmp/p"),
                   ("home", sys.argv[1] + "/p")):
    attempt("write_" + name, lambda p=path: create(p))
attempt("read_home", lambda: open(sys.argv[1] + "/player/game", "rb").read(16))
r["host_tmp_visible"] = os.path.exists(sys.argv[2])
attempt("af_packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW).close())
attempt("af_netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16).close())
attempt("af_inet6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close())
libc = ctypes.CDLL(None, use_errno=True)
def call(name, rc):
    r[name] = "ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
call("personality_linux32", libc.personality(0x0008))
call("mount", libc.mount(b"none", b"/mnt", b"tmpfs", 0, None))
call("unshare_net", libc.unshare(0x40000000))
def kmsg():
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    try:
        r["kmsg_bytes"] = len(os.read(fd, 8192))
    except BlockingIOError:
        r["kmsg_bytes"] = 0
    finally:
        os.close(fd)
def modules():
    r["modules_entries"] = len(os.listdir("/usr/lib/modules"))
attempt("read_modules", modules)
attempt("read_kmsg", kmsg)
attempt("write_kmsg", lambda: os.close(os.open("/dev/kmsg", os.O_WRONLY)))
attempt("rw_null", lambda: os.close(os.open("/dev/null", os.O_RDWR)))
attempt("read_kallsyms", lambda: open("/proc/kallsyms", "rb").read(64))
attempt("write_cgroup", lambda: os.mkdir("/sys/fs/cgroup/rg-probe"))
r["umask"] = oct(os.umask(0o077))
r["env"] = {k: v for k, v in os.environ.items()
            if k.endswith("_DIRECTORY") or k in ("NOTIFY_SOCKET", "PATH")}
with open("/proc/self/cgroup") as f:
    r["cgroup"] = f.read()
if os.environ.get("NOTIFY_SOCKET"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    n = os.environ["NOTIFY_SOCKET"]
    attempt("notify", lambda: s.sendto(b"PROBE=1", "\0" + n[1:] if n[0] == "@" else n))
print(json.dumps(r))
'''


def check(cond, what, detail=""):
    if cond:
        print(f"ok   {what}")
    else:
        print(f"FAIL {what}" + (f"\n     {detail}" if detail else ""))
        FAILURES.append(what)
    return cond


def info(text):
    print(f"info {text}")


def cap_mask(names):
    return sum(1 << sandbox.CAPS.index(n) for n in names)


# ---- the test's world -----------------------------------------------------------------------

class Cgroup:
    """A memory cgroup with the unit's MemoryMax (v2, or v1's memory controller)."""

    def __init__(self, limit, devices=None):
        name = f"rdmaguard-test-{os.getpid()}"
        self.path = None
        self.extra = []  # the device cgroup, where it is in another hierarchy
        if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            base = "/sys/fs/cgroup"
            with open(os.path.join(base, "cgroup.subtree_control")) as f:
                if "memory" not in f.read().split():
                    with open(os.path.join(base, "cgroup.subtree_control"), "w") as w:
                        w.write("+memory")
            self.path = os.path.join(base, name)
            os.mkdir(self.path)
            with open(os.path.join(self.path, "memory.max"), "w") as f:
                f.write(str(limit))
            self.v2 = True
        elif os.path.isdir("/sys/fs/cgroup/memory"):
            self.path = os.path.join("/sys/fs/cgroup/memory", name)
            os.mkdir(self.path)
            with open(os.path.join(self.path, "memory.limit_in_bytes"), "w") as f:
                f.write(str(limit))
            self.v2 = False
        else:
            raise OSError("no memory cgroup controller (neither cgroup v2 nor v1 memory)")
        self.limit = limit
        if devices is not None:
            self.devices(name, devices)
        self.procs = [os.path.join(p, "cgroup.procs") for p in [self.path] + self.extra]

    def devices(self, name, rules):
        """DevicePolicy=/DeviceAllow=/ProtectClock=: systemd's BPF device program on cgroup v2
        (this cgroup, or one of the hybrid layout's unified hierarchy), else v1's devices
        controller."""
        if self.v2:
            sandbox.attach_device_filter(self.path, rules)
        elif os.path.exists("/sys/fs/cgroup/unified/cgroup.procs"):
            path = os.path.join("/sys/fs/cgroup/unified", name)
            os.mkdir(path)
            self.extra.append(path)
            sandbox.attach_device_filter(path, rules)
        elif os.path.isdir("/sys/fs/cgroup/devices"):
            path = os.path.join("/sys/fs/cgroup/devices", name)
            os.mkdir(path)
            self.extra.append(path)
            with open(os.path.join(path, "devices.deny"), "w") as f:
                f.write("a")
            for kind, major, minor, bits in rules:
                access = "".join(c for c, b in (("r", 2), ("w", 4), ("m", 1)) if bits & b)
                with open(os.path.join(path, "devices.allow"), "w") as f:
                    f.write(f"{'c' if kind == sandbox.DEVCG_CHAR else 'b'} {major}:"
                            f"{'*' if minor is None else minor} {access}")
        else:
            raise OSError("no device cgroup (neither cgroup v2 nor v1's devices controller)")

    def read(self, name):
        try:
            with open(os.path.join(self.path, name)) as f:
                return f.read().strip()
        except OSError:
            return None

    def effective_limit(self):
        v = self.read("memory.max" if self.v2 else "memory.limit_in_bytes")
        return int(v) if v and v != "max" else None

    def peak(self):
        v = self.read("memory.peak" if self.v2 else "memory.max_usage_in_bytes")
        return int(v) if v else None

    def remove(self):
        for path in [self.path] + self.extra:
            for _ in range(50):
                try:
                    os.rmdir(path)
                    break
                except OSError:
                    time.sleep(0.1)


def make_stage(workdir, rules_dir, policy_text=None, extra_rules=None):
    """The installed layout: usr/sbin/rdmaguard, the rules where the binary looks for them by
    default (/usr/share/rdmaguard/rules in the package), the schema and example policies next to
    them, etc/rdmaguard/policy.json."""
    stage = os.path.join(workdir, "stage")
    share = os.path.join(stage, os.path.dirname(rules_dir).lstrip("/"))
    os.makedirs(os.path.join(stage, "usr/sbin"))
    shutil.copy2(RG, os.path.join(stage, "usr/sbin/rdmaguard"))
    shutil.copytree(os.path.join(SRC, "rules"), os.path.join(share, "rules"),
                    ignore=shutil.ignore_patterns("meson.build", "schema", "policies"))
    shutil.copytree(os.path.join(SRC, "rules/schema"), os.path.join(share, "schema"))
    shutil.copytree(os.path.join(SRC, "rules/policies"), os.path.join(share, "policies"))
    for name, text in (extra_rules or {}).items():
        with open(os.path.join(share, "rules", name), "w") as f:
            f.write(text)
    os.makedirs(os.path.join(stage, "usr/lib/rdmaguard-test"))
    with open(os.path.join(stage, "usr/lib/rdmaguard-test/probe.py"), "w") as f:
        f.write(PROBE)
    os.makedirs(os.path.join(stage, "etc/rdmaguard"))
    pol = os.path.join(stage, "etc/rdmaguard/policy.json")
    if policy_text is None:
        shutil.copy2(os.path.join(SRC, "packaging/policy.json"), pol)
    else:
        with open(pol, "w") as f:
            f.write(policy_text)
    os.chmod(pol, 0o644)
    for dirpath, _, files in os.walk(stage):
        os.chown(dirpath, 0, 0)
        for n in files:
            os.chown(os.path.join(dirpath, n), 0, 0)
    return stage


NOBODY = 65534


def make_game(directory, name, owner=0):
    """A program of our own (sleep with a random tail: its own SHA-256). Owned by another user
    (owner), it is private to them (0700 in a 0700 directory): the daemon reads it only with
    CAP_SYS_PTRACE (their /proc/PID/exe) and CAP_DAC_READ_SEARCH (the file)."""
    os.makedirs(directory, exist_ok=True)
    os.chown(directory, owner, owner)
    os.chmod(directory, 0o700 if owner else 0o755)
    path = os.path.join(directory, name)
    with open(shutil.which("sleep"), "rb") as f:
        data = f.read() + b"\0rdmaguard-test " + secrets.token_bytes(32)
    with open(path, "wb") as f:
        f.write(data)
    os.chown(path, owner, owner)
    os.chmod(path, 0o700 if owner else 0o755)
    return path, hashlib.sha256(data).hexdigest()


_notify_seq = 0


def notify_path(name):
    """A fresh NOTIFY_SOCKET in the abstract namespace ("@...", which systemd and sd_notify()
    accept): no mount namespace can hide it, so the test does not depend on where the build
    directory is (PrivateTmp= hides one under /tmp, a CI clone there)."""
    global _notify_seq
    _notify_seq += 1
    return f"@rdmaguard-test-{os.getpid()}-{_notify_seq}-{name}"


def sockaddr(path):
    """NOTIFY_SOCKET as an AF_UNIX address: '@' names the abstract namespace."""
    return "\0" + path[1:] if path.startswith("@") else path


class Notify:
    """NOTIFY_SOCKET, as the service manager holds it (SO_PASSCRED: who sent what)."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(sockaddr(path))
        if not path.startswith("@"):
            os.chmod(path, 0o777)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.messages = []  # (pid, {key: value})

    def wait_for(self, key, value=None, timeout=90.0, pid=None):
        deadline = time.monotonic() + timeout
        while True:
            for i, (p, m) in enumerate(self.messages):
                if key in m and (value is None or m[key] == value) and (pid is None or p == pid):
                    del self.messages[: i + 1]
                    return p, m
            left = deadline - time.monotonic()
            if left <= 0:
                return None, None
            self.sock.settimeout(left)
            try:
                data, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(12))
            except (socket.timeout, TimeoutError):
                return None, None
            sender = None
            for level, typ, cdata in anc:
                if level == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
                    sender = array.array("i", cdata[:12])[0]
            msg = dict(line.split("=", 1) for line in data.decode(errors="replace").splitlines()
                       if "=" in line)
            self.messages.append((sender, msg))

    def close(self):
        self.sock.close()


def read_jsonl(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return []


def run_service(unit_path, stage, workdir, argv, env=None, caps=None, overrides=None,
                cgroup=None):
    os.makedirs(workdir, exist_ok=True)
    return sandbox.Service(unit_path, stage, workdir, argv, env=env, caps=caps,
                           overrides=overrides, cgroup_procs=cgroup.procs if cgroup else None)


def run_once(unit_path, stage, workdir, argv, timeout=60, **kw):
    """Run argv as the service to completion: (exit code, stdout, stderr)."""
    svc = run_service(unit_path, stage, workdir, argv, **kw)
    out = os.path.join(workdir, "stdout")
    err = os.path.join(workdir, "stderr")
    with open(out, "w") as o, open(err, "w") as e:
        svc.start(stdout=o, stderr=e)
        code = svc.wait(timeout)
    with open(out) as o, open(err) as e:
        return code, o.read(), e.read()


# ---- the phases -----------------------------------------------------------------------------

def phase_probe(unit, stage, work, cg, home_dir, host_tmp_marker, notify_sock):
    caps = sandbox.capability_set(unit)
    notify = Notify(notify_sock)
    code, out, err = run_once(UNIT, stage, os.path.join(work, "probe"),
                              ["/usr/bin/python3", "/usr/lib/rdmaguard-test/probe.py", home_dir,
                               host_tmp_marker], env={"NOTIFY_SOCKET": notify_sock}, cgroup=cg)
    _, msg = notify.wait_for("PROBE", "1", timeout=1)
    notify.close()
    check(msg is not None, "a notification from the sandbox reaches NOTIFY_SOCKET")
    if not check(code == 0, "the probe runs in the sandbox", err.strip()):
        return
    p = json.loads(out)
    want = f"{cap_mask(caps):016x}"
    check(p["CapBnd"] == want and p["CapEff"] == want and p["CapAmb"] == "0" * 16,
          f"capabilities are exactly the bounding set {', '.join(sorted(caps))}",
          f"CapBnd {p['CapBnd']} CapEff {p['CapEff']} CapAmb {p['CapAmb']}, want {want}")
    check(p["NoNewPrivs"] == "1", "NoNewPrivileges")
    check(p["Seccomp"] == "2", "a seccomp filter is in force")
    for key, want_v in (("write_usr", "EROFS"), ("write_etc", "EROFS"), ("write_var_lib", "EROFS"),
                        ("write_run", "EROFS"), ("write_state", "ok"), ("write_logs", "ok"),
                        ("write_runtime", "ok"), ("write_tmp", "ok"), ("write_var_tmp", "ok"),
                        ("write_home", "EROFS"), ("read_home", "ok")):
        # read_home: another user's private file (CAP_DAC_READ_SEARCH)
        check(p[key] == want_v, f"ProtectSystem=strict/ProtectHome/directories: {key} -> {want_v}",
              f"got {p[key]}")
    check(p["host_tmp_visible"] is False, "PrivateTmp: the host's /tmp is not visible")
    check(p["af_packet"] == "EAFNOSUPPORT" and p["af_netlink"] == "ok" and p["af_inet6"] == "ok",
          "RestrictAddressFamilies: AF_PACKET refused, AF_NETLINK and AF_INET6 allowed",
          f"{p['af_packet']} {p['af_netlink']} {p['af_inet6']}")
    check(p["personality_linux32"] == "EPERM", "LockPersonality")
    check(p["mount"] == "EPERM", "SystemCallFilter: mount() is refused with EPERM", p["mount"])
    check(p["unshare_net"] == "EPERM", "RestrictNamespaces: unshare(CLONE_NEWNET) refused")
    # Inaccessible as systemd makes it: an empty mode-000 node over it (root's
    # CAP_DAC_READ_SEARCH may open that, and finds nothing).
    check(p["read_modules"] != "ok" or p.get("modules_entries") == 0,
          "ProtectKernelModules: /usr/lib/modules inaccessible",
          f"{p['read_modules']}, {p.get('modules_entries')} entries")
    # Not ProtectKernelLogs=: the hardware layer reads the IOMMU's DMA faults from /dev/kmsg.
    check(p["read_kmsg"] == "ok" and p.get("kmsg_bytes", 0) > 0,
          "/dev/kmsg readable (DMA faults; CAP_SYSLOG)", f"{p['read_kmsg']}, "
          f"{p.get('kmsg_bytes')} bytes")
    check(p["write_kmsg"] == "EPERM" and p["rw_null"] == "ok",
          "DevicePolicy=closed, DeviceAllow=/dev/kmsg r: /dev/kmsg not writable, /dev/null is",
          f"{p['write_kmsg']} {p['rw_null']}")
    check(p["read_kallsyms"] == "ok", "/proc/kallsyms readable (kprobe fallback)",
          p["read_kallsyms"])
    check(p["write_cgroup"] in ("EROFS", "EPERM", "EACCES"), "ProtectControlGroups",
          p["write_cgroup"])
    check(p["umask"] == "0o77", "UMask=0077", p["umask"])
    check(p["env"].get("PATH", "").startswith("/usr/local/sbin"), "PATH as systemd sets it")
    check(p["env"].get("STATE_DIRECTORY") == "/var/lib/rdmaguard"
          and p["env"].get("LOGS_DIRECTORY") == "/var/log/rdmaguard"
          and p["env"].get("RUNTIME_DIRECTORY") == "/run/rdmaguard",
          "STATE_/LOGS_/RUNTIME_DIRECTORY as systemd sets them", str(p["env"]))
    check(os.path.basename(cg.path) in p["cgroup"], "the service runs in its MemoryMax cgroup",
          p["cgroup"])
    check(p.get("notify") == "ok", "NOTIFY_SOCKET reachable from the sandbox", p.get("notify"))


def sensors_plan(doc):
    """The sensors' part of a --dry-run document."""
    return doc.get("sensors") if isinstance(doc, dict) else None


def dry_run(unit, stage, workdir, caps=None):
    # The unit's own command line: its policy, rules and outputs are checked too.
    code, out, err = run_once(UNIT, stage, workdir, sandbox.exec_argv(unit) + ["--dry-run"],
                              caps=caps)
    try:
        return code, json.loads(out), err
    except ValueError:
        return code, None, err


def phase_dry_run(unit, stage, work, rules_dir):
    r = subprocess.run([RG, "daemon", "--dry-run"], capture_output=True, text=True, timeout=120,
                       check=False)
    outside = sensors_plan(json.loads(r.stdout)) if r.returncode == 0 else None
    check(outside is not None, "daemon --dry-run outside the sandbox", r.stderr.strip())
    code, doc, err = dry_run(unit, stage, os.path.join(work, "dry"))
    inside = sensors_plan(doc)
    check(code == 0 and inside is not None, "daemon --dry-run in the sandbox exits 0",
          err.strip())
    if doc:
        check(doc.get("policy") == "/etc/rdmaguard/policy.json"
              and doc.get("outputs") == ["file:/var/log/rdmaguard/alerts.jsonl"]
              and doc.get("rules_dir") == rules_dir,
              "in the sandbox: the shipped policy, its file output and the installed rules",
              json.dumps({k: doc.get(k) for k in ("policy", "rules_dir", "outputs")}))
    if not (outside and inside):
        return
    diff = [h for h in outside.get("hooks", {})
            if inside.get("hooks", {}).get(h) != outside["hooks"][h]]
    check(inside == outside, "the sandbox changes no hook choice (identical --dry-run plans)",
          f"hooks that differ: {diff}; features in {inside.get('features')} vs out "
          f"{outside.get('features')}")
    info("hooks: " + ", ".join(f"{h}={v.get('active')}" for h, v in outside["hooks"].items()))
    # For the record: what each capability of the set does for the plan on this kernel.
    caps = sandbox.capability_set(unit)
    for cap in sorted(caps):
        code, doc, err = dry_run(unit, stage, os.path.join(work, f"dry-{cap}"),
                                 caps=caps - {cap})
        plan = sensors_plan(doc)
        if plan == outside:
            info(f"without {cap}: the same --dry-run plan (probing alone does not need it here)")
        else:
            changed = [h for h in outside["hooks"] if not plan or plan["hooks"].get(h) !=
                       outside["hooks"][h]]
            info(f"without {cap}: exit {code}, hooks changed: {', '.join(changed) or '-'} "
                 f"{err.strip().splitlines()[-1] if err.strip() else ''}")


def start_games(home_game, tmp_game, tool=None, seconds="2"):
    # The game under /home is another user's, as on a café PC.
    procs = [subprocess.Popen([home_game, seconds], user=NOBODY, group=NOBODY,
                              extra_groups=[]),
             subprocess.Popen([tmp_game, seconds])]
    if tool:
        procs.append(subprocess.Popen([tool, seconds]))
    return procs


TEST_RULES = {
    # exit, not exec: a game known by its hash alone is one once the hasher has read it, off the
    # event thread (engine/hasher.c), which is after its exec event.
    "TEST-901.json": """{"id": "TEST-901", "name": "test: a game ran", "severity": "high",
 "condition": "event.action == exit and process.is_game", "aggregate": false,
 "message": "{process.executable} is {game.name}"}""",
    "TEST-902.json": """{"id": "TEST-902", "name": "test: an allowed program started",
 "severity": "high", "condition": "event.action == exec and process.allowed and process.executable == '%(tool)s'",
 "aggregate": false, "message": "{process.executable} is allowed"}""",
    "TEST-904.json": """{"id": "TEST-904", "name": "test: libibverbs loaded", "severity": "high",
 "condition": "event.action == library_load and process.name == ibv_devices", "aggregate": false,
 "message": "{process.name} loaded {dll.path}"}""",
    "TEST-903.json": """{"id": "TEST-903", "name": "test: a program not allowed started",
 "severity": "high", "condition": "event.action == exec and not process.allowed and process.executable == '%(tool)s'",
 "aggregate": false, "message": "{process.executable} is not allowed"}""",
}


def full_policy(home_hash, tmp_hash, tool):
    return json.dumps({
        "role": "managed",
        "games": [{"name": "HomeGame", "sha256": [home_hash]},
                  {"name": "TmpGame", "sha256": [tmp_hash]}],
        "allow": [{"exe": tool, "comment": "test: a literal path under /home"}],
        "outputs": ["file:/var/log/rdmaguard/alerts.jsonl"],
    }, indent=1) + "\n"


def alerts_by_rule(alerts, rule):
    return [a for a in alerts if a.get("rule", {}).get("id") == rule]


def full_run(unit, stage, workdir, cg, home_game, tmp_game, tool, overrides=None, full=True):
    """The unit's ExecStart as systemd runs it. Returns the alerts; checks only when full."""
    argv = sandbox.exec_argv(unit)
    os.makedirs(workdir, exist_ok=True)
    notify = Notify(notify_path("notify"))
    svc = run_service(UNIT, stage, workdir, argv, env={"NOTIFY_SOCKET": notify.path},
                      overrides=overrides, cgroup=cg)
    label = f"[{', '.join(f'{k}={v}' for k, v in overrides.items())}] " if overrides else ""
    alerts_path = None
    alerts = []
    try:
        with open(os.path.join(workdir, "stderr"), "w") as err:
            pid = svc.start(stderr=err)
            if not check(pid, f"{label}the daemon starts in the sandbox"):
                svc.wait(30)
                return []
            sender, msg = notify.wait_for("READY", "1", timeout=90)
            ok = check(msg is not None and sender == pid,
                       f"{label}READY=1 from the main pid (Type=notify)",
                       f"sender {sender}, main pid {pid}, exit {svc.proc.poll()}")
            alerts_path = svc.root("/var/log/rdmaguard/alerts.jsonl")
            if ok:
                games = start_games(home_game, tmp_game, tool, seconds="0.3")
                ibv = shutil.which("ibv_devices")
                if ibv:
                    subprocess.run([ibv], capture_output=True, timeout=30, check=False)
                for g in games:
                    g.wait(timeout=30)
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline:
                    alerts = read_jsonl(alerts_path)
                    if len(alerts_by_rule(alerts, "TEST-901")) >= 2 and \
                            alerts_by_rule(alerts, "TEST-902") and \
                            (not ibv or alerts_by_rule(alerts, "TEST-904")):
                        break
                    time.sleep(0.3)
            if ok:
                verdict = replaced_tool(alerts_path, tool)
                if full:
                    check(verdict == "refused", "a different file put at the allowed path is "
                          "not allowed (the entry is pinned to the inode)", f"it was {verdict}")
                else:
                    info(f"{label}a different file at the allowed path under /home: {verdict}")
                alerts = read_jsonl(alerts_path)
            if ok and full:
                full_checks(unit, svc, notify, pid, alerts, alerts_path, home_game, tmp_game,
                            tool)
            if svc.proc.poll() is None:
                os.kill(pid, signal.SIGTERM)
                stop = float(sandbox.seconds(unit.get("TimeoutStopSec", "90s")))
                t0 = time.monotonic()
                code = svc.wait(stop)
                if full:
                    _, m = notify.wait_for("STOPPING", "1", timeout=1)
                    check(m is not None, "STOPPING=1 on SIGTERM")
                    check(code == 0, f"SIGTERM stops it with 0 within TimeoutStopSec={stop:g}s "
                          f"(exit {code} after {time.monotonic() - t0:.1f}s)")
            else:
                check(False, f"{label}the daemon stayed up", f"exit {svc.wait(5)}")
    finally:
        notify.close()
        with open(os.path.join(workdir, "stderr")) as f:
            errtext = f.read().strip()
        if errtext and FAILURES:
            print("     daemon stderr: " + "\n     ".join(errtext.splitlines()[-20:]))
    return alerts


def replaced_tool(alerts_path, tool):
    """Put another program at the allowed path (new inode) and run it: "allowed", "refused"
    (not allowed) or "unseen"."""
    backup = tool + ".orig"
    os.rename(tool, backup)
    try:
        shutil.copy2(backup, tool + ".tmp")
        with open(tool + ".tmp", "ab") as f:
            f.write(secrets.token_bytes(16))
        os.rename(tool + ".tmp", tool)
        p = subprocess.Popen([tool, "0.2"])
        p.wait(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            alerts = read_jsonl(alerts_path)
            for rule, verdict in (("TEST-902", "allowed"), ("TEST-903", "refused")):
                if any(a["process"].get("pid") == p.pid for a in alerts_by_rule(alerts, rule)):
                    return verdict
            time.sleep(0.3)
        return "unseen"
    finally:
        os.replace(backup, tool)


def full_checks(unit, svc, notify, pid, alerts, alerts_path, home_game, tmp_game, tool):
    r = subprocess.run([RG, "status", "--socket", svc.root("/run/rdmaguard/status.sock")],
                       capture_output=True, text=True, timeout=30, check=False)
    try:
        st = json.loads(r.stdout)
    except ValueError:
        st = None
    check(r.returncode == 0 and isinstance(st, dict), "rdmaguard status answers over "
          "/run/rdmaguard/status.sock", r.stderr.strip())
    games = {a["process"].get("executable"): a for a in alerts_by_rule(alerts, "TEST-901")}
    for path, name in ((home_game, "HomeGame"), (tmp_game, "TmpGame")):
        a = games.get(path)
        check(a is not None and a.get("rdmaguard", {}).get("game", {}).get("name") == name,
              f"{path} recognised as {name} by its SHA-256 alone"
              + (" (another user's, private)" if path.startswith("/home") else ""),
              f"TEST-901 alerts: {list(games)}")
    check(any(a["process"].get("executable") == tool for a in alerts_by_rule(alerts, "TEST-902")),
          f"the allow entry for {tool} (literal path under /home, pinned) matches")
    if shutil.which("ibv_devices"):
        check(alerts_by_rule(alerts, "TEST-904"), "libibverbs loaded by ibv_devices is seen "
              "(uprobe on the system library, through the sandbox's /usr)")
    else:
        check(False, "ibv_devices (ibverbs-utils) is installed, to load libibverbs")
    st_mode = os.stat(alerts_path).st_mode if os.path.exists(alerts_path) else 0
    check(stat.S_IMODE(st_mode) == 0o600, "alerts.jsonl is 0600", oct(st_mode))

    # ExecReload=, as systemd runs it.
    before = len(alerts_by_rule(read_jsonl(alerts_path), "AGENT-003"))
    argv = sandbox.exec_argv(unit, "ExecReload", mainpid=pid)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    check(r.returncode == 0, f"ExecReload: {' '.join(argv)}", r.stderr.strip())
    _, m = notify.wait_for("RELOADING", "1", timeout=30)
    check(m is not None, "RELOADING=1 on SIGHUP")
    _, m = notify.wait_for("READY", "1", timeout=30)
    check(m is not None, "READY=1 once reloaded")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and \
            len(alerts_by_rule(read_jsonl(alerts_path), "AGENT-003")) <= before:
        time.sleep(0.2)
    new = alerts_by_rule(read_jsonl(alerts_path), "AGENT-003")[before:]
    check(new and new[-1].get("rdmaguard", {}).get("severity") == "info", "the reload is reported (AGENT-003, info)",
          json.dumps(new[-1:]))

    # /etc/logrotate.d/rdmaguard: rename, then its postrotate signal (systemctl kill ...).
    with open(LOGROTATE) as f:
        lr = f.read()
    check("systemctl kill --kill-who=main --signal=USR1 rdmaguard.service" in lr,
          "logrotate's postrotate sends SIGUSR1 to the main pid")
    os.rename(alerts_path, alerts_path + ".1")
    os.kill(pid, signal.SIGUSR1)
    time.sleep(0.5)
    os.kill(pid, signal.SIGHUP)
    notify.wait_for("READY", "1", timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not alerts_by_rule(read_jsonl(alerts_path), "AGENT-003"):
        time.sleep(0.2)
    fresh = read_jsonl(alerts_path)
    check(alerts_by_rule(fresh, "AGENT-003") and os.path.exists(alerts_path)
          and stat.S_IMODE(os.stat(alerts_path).st_mode) == 0o600,
          "after rename + SIGUSR1 the daemon writes a new 0600 alerts.jsonl")
    check(len(alerts_by_rule(read_jsonl(alerts_path + ".1"), "AGENT-003")) == before + 1,
          "the rotated file got nothing after the reopen")


def phase_tc(unit, stage, work, cg):
    """The TC program (RoCE v2/iWARP counters): CAP_NET_ADMIN, rtnetlink through
    RestrictAddressFamilies, the system call filter. On a veth of our own (--roce-if)."""
    a, b = f"rgsvc{os.getpid() % 10000}a", f"rgsvc{os.getpid() % 10000}b"
    r = subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b],
                       capture_output=True, text=True, timeout=30, check=False)
    if not check(r.returncode == 0, f"a veth pair for the TC program ({a})", r.stderr.strip()):
        return
    try:
        subprocess.run(["ip", "link", "set", a, "up"], check=False, timeout=30)
        workdir = os.path.join(work, "tc")
        os.makedirs(workdir)
        notify = Notify(notify_path("notify"))
        svc = run_service(UNIT, stage, workdir, sandbox.exec_argv(unit) + ["--roce-if", a],
                          env={"NOTIFY_SOCKET": notify.path}, cgroup=cg)
        with open(os.path.join(workdir, "stderr"), "w") as err:
            pid = svc.start(stderr=err)
            sender, msg = notify.wait_for("READY", "1", timeout=90) if pid else (None, None)
            check(msg is not None and sender == pid, f"READY=1 with --roce-if {a}")
            f = subprocess.run(["tc", "filter", "show", "dev", a, "ingress"], capture_output=True,
                               text=True, timeout=30, check=False)
            g = subprocess.run(["tc", "filter", "show", "dev", a, "egress"], capture_output=True,
                               text=True, timeout=30, check=False)
            check("bpf" in f.stdout and "bpf" in g.stdout,
                  f"the TC programs are attached to {a} from the sandbox (ingress, egress)",
                  f.stdout.strip() + g.stdout.strip() + f.stderr.strip())
            if pid:
                os.kill(pid, signal.SIGTERM)
            code = svc.wait(float(sandbox.seconds(unit.get("TimeoutStopSec", "90s"))))
            check(code == 0, f"stopped with 0 (exit {code})")
        notify.close()
        q = subprocess.run(["tc", "qdisc", "show", "dev", a], capture_output=True, text=True,
                           timeout=30, check=False)
        check("clsact" not in q.stdout, f"the clsact qdisc is gone from {a} after the stop",
              q.stdout.strip())
    finally:
        subprocess.run(["ip", "link", "del", a], capture_output=True, timeout=30, check=False)


def phase_full(unit, stage_for, work, cg, home_dir, tmp_dir, rules_dir):
    home_game, home_hash = make_game(os.path.join(home_dir, "player"), "game", NOBODY)
    tmp_game, tmp_hash = make_game(tmp_dir, "game")
    tool, _ = make_game(home_dir, "rgtool")
    rules = {k: v % {"tool": tool} if "%(tool)s" in v else v for k, v in TEST_RULES.items()}
    stage = stage_for(full_policy(home_hash, tmp_hash, tool), rules)
    r = subprocess.run([RG, "policy", "check", "--rules",
                        os.path.join(stage, rules_dir.lstrip("/")),
                        os.path.join(stage, "etc/rdmaguard/policy.json")],
                       capture_output=True, text=True, timeout=30, check=False)
    check(r.returncode == 0, "the test policy and rules are valid", r.stderr.strip())
    full_run(unit, stage, os.path.join(work, "full"), cg, home_game, tmp_game, tool)
    # For the record: what other ProtectHome= values would do.
    for value in ("tmpfs", "yes"):
        alerts = full_run(unit, stage, os.path.join(work, f"home-{value}"), cg, home_game,
                          tmp_game, tool, overrides={"ProtectHome": value}, full=False)
        games = {a["process"].get("executable") for a in alerts_by_rule(alerts, "TEST-901")}
        allowed = bool(alerts_by_rule(alerts, "TEST-902"))
        info(f"ProtectHome={value}: game under /home recognised by hash: "
             f"{home_game in games}; allow entry for a path under /home matches: {allowed}")


def main():
    if os.geteuid() != 0:
        print("SKIP: runs the daemon (BPF) in a mount namespace: needs root")
        return 77
    try:
        import seccomp  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
        del seccomp
    except ImportError:
        print("FAIL python3-seccomp is missing (apt-get install python3-seccomp; "
              "packaging/bootstrap.sh --deps)")
        return 1
    for tool in ("unshare", "mount", "systemd-analyze"):
        if not shutil.which(tool):
            print(f"FAIL {tool} is missing (packaging/bootstrap.sh --deps)")
            return 1
    unit = sandbox.parse(UNIT)
    unknown = unit.unknown()
    check(not unknown, "every directive of the unit is one this test applies or knows",
          f"unknown: {', '.join(unknown)}: teach tests/integration/packaging/sandbox.py how "
          "systemd applies it, and check it here")
    check(unit.get("Type") == "notify", "Type=notify")
    argv = sandbox.exec_argv(unit)
    check(argv[:2] == ["/usr/sbin/rdmaguard", "daemon"], f"ExecStart runs rdmaguard daemon: {argv}")
    r = subprocess.run([RG, "daemon", "--help"], capture_output=True, text=True, timeout=30,
                       check=False)
    if r.returncode != 0:
        check(False, "rdmaguard daemon exists in this build",
              f"`daemon --help`: {r.stderr.strip()}: nothing to run under the unit")
        print(f"FAIL: {len(FAILURES)} failure(s)")
        return 1
    if not check("--policy" in r.stdout, "`rdmaguard daemon` is the full daemon (--policy)"):
        print(f"FAIL: {len(FAILURES)} failure(s)")
        return 1
    # Where this build looks for its rules (the package: /usr/share/rdmaguard/rules).
    m = re.search(r"--rules DIR\s+rules directory \(default (/\S+)\)", r.stdout)
    rules_dir = m.group(1) if m else "/usr/share/rdmaguard/rules"
    if not check(rules_dir.startswith("/usr/"), f"the build's default rules directory "
                 f"{rules_dir} is under /usr (configure with a --prefix under /usr)"):
        print(f"FAIL: {len(FAILURES)} failure(s)")
        return 1
    os.makedirs(CACHE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="service-", dir=CACHE)
    tag = secrets.token_hex(4)
    home_dir = f"/home/rdmaguard-test-{tag}"
    tmp_dir = f"/tmp/rdmaguard-test-{tag}"
    cg = None
    try:
        limit = sandbox.size_bytes(unit.get("MemoryMax")) if unit.get("MemoryMax") else None
        if limit:
            try:
                cg = Cgroup(limit, sandbox.device_rules(unit))
            except OSError as e:
                check(False, "a memory cgroup for MemoryMax", str(e))
        if cg:
            check(cg.effective_limit() == limit, f"MemoryMax={unit.get('MemoryMax')} in force "
                  f"({cg.path})", str(cg.effective_limit()))
        os.makedirs("/home", exist_ok=True)
        make_game(home_dir, "rgtool")
        home_game, _ = make_game(os.path.join(home_dir, "player"), "game", NOBODY)
        tmp_game, _ = make_game(tmp_dir, "game")
        n = [0]

        def stage_for(policy=None, rules=None):
            n[0] += 1
            return make_stage(os.path.join(work, f"stage{n[0]}"), rules_dir, policy, rules)

        stage = stage_for()
        phase_probe(unit, stage, work, cg, home_dir, tmp_game,
                    notify_path("probe"))
        phase_dry_run(unit, stage, work, rules_dir)
        phase_full(unit, stage_for, work, cg, home_dir, tmp_dir, rules_dir)
        phase_tc(unit, stage, work, cg)
        if cg and cg.peak():
            info(f"memory peak in the cgroup over all runs: {cg.peak() / 2**20:.1f} MiB of "
                 f"MemoryMax {limit / 2**20:.0f} MiB")
    finally:
        shutil.rmtree(home_dir, ignore_errors=True)
        shutil.rmtree(tmp_dir, ignore_errors=True)
        if cg:
            cg.remove()
        if not FAILURES:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"info kept {work} for inspection")
    print(f"{'FAIL' if FAILURES else 'PASS'}: {len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
