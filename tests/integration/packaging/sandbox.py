#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs a command under the restrictions of a systemd service unit, without systemd.

The test machines have no systemd as PID 1 (and `systemd-run` needs one), so this applies the
unit's sandboxing directives the way systemd 252 does, from the unit file itself, so that the
restrictions tested are the ones shipped:

  mounts     ProtectSystem, ProtectHome, PrivateTmp, PrivateMounts, ReadWritePaths/ReadOnlyPaths/
             InaccessiblePaths, State/Logs/RuntimeDirectory (+Mode), ProtectKernelModules,
             ProtectKernelLogs, ProtectKernelTunables, ProtectControlGroups
  process    CapabilityBoundingSet, NoNewPrivileges, UMask, LimitMEMLOCK, OOMScoreAdjust, the
             environment systemd gives (STATE_DIRECTORY, ..., NOTIFY_SOCKET)
  seccomp    SystemCallFilter (+ErrorNumber, groups expanded by `systemd-analyze syscall-filter`),
             SystemCallArchitectures, RestrictAddressFamilies, LockPersonality,
             MemoryDenyWriteExecute, RestrictNamespaces, RestrictRealtime, RestrictSUIDSGID, and
             the calls ProtectKernelModules/ProtectKernelLogs block (python3-seccomp)
  cgroup     MemoryMax (cgroup v2 memory.max or v1 memory.limit_in_bytes)

A directive this module does not know makes parse() callers fail (see KNOWN), so a new directive
in the unit cannot go untested. What systemd does that is not sandboxing (Restart=, dependencies)
is left to systemd and listed in LIFECYCLE/NOT_SANDBOX.

The installed layout is reproduced without touching the host: in a private mount namespace,
/usr, /etc, /var and /run are overlays (on a tmpfs) holding the files of a stage directory
(e.g. usr/sbin/rdmaguard, etc/rdmaguard/policy.json).

Library: parse(path) -> Unit, capability_set(), service_dirs(), exec_argv(), Service (one run of
a command as the unit's service). Internal command, started by Service.start():
  sandbox.py exec PLAN.json   (inside `unshare --mount --propagation private`)
"""
import ctypes
import errno
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time

CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
        "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
        "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
        "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
        "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
        "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
        "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
        "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
        "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE"]

# Directives applied here (see the module docstring).
# PrivateMounts: the command runs in a private mount namespace anyway (Service.start()).
SANDBOX = {"CapabilityBoundingSet", "NoNewPrivileges", "UMask", "LimitMEMLOCK", "OOMScoreAdjust",
           "ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateMounts", "ReadWritePaths", "ReadOnlyPaths",
           "InaccessiblePaths", "StateDirectory", "StateDirectoryMode", "LogsDirectory",
           "LogsDirectoryMode", "RuntimeDirectory", "RuntimeDirectoryMode",
           "ProtectKernelModules", "ProtectKernelLogs", "ProtectKernelTunables",
           "ProtectControlGroups", "SystemCallFilter", "SystemCallErrorNumber",
           "SystemCallArchitectures", "RestrictAddressFamilies", "LockPersonality",
           "MemoryDenyWriteExecute", "RestrictNamespaces", "RestrictRealtime",
           "RestrictSUIDSGID", "MemoryMax", "ProtectClock", "DevicePolicy", "DeviceAllow"}
# The service's life, exercised by the caller: Type=notify (NOTIFY_SOCKET), ExecStart,
# ExecReload, TimeoutStopSec. Restart= and RestartSec= are systemd's own business.
LIFECYCLE = {"Type", "ExecStart", "ExecReload", "TimeoutStopSec", "Restart", "RestartSec"}
# Not about what the process may do.
NOT_SANDBOX = {"Description", "Documentation", "Wants", "After", "Before", "Requires",
               "StartLimitIntervalSec", "StartLimitBurst", "WantedBy"}
KNOWN = SANDBOX | LIFECYCLE | NOT_SANDBOX

AF = {"AF_UNIX": 1, "AF_INET": 2, "AF_AX25": 3, "AF_IPX": 4, "AF_APPLETALK": 5,
      "AF_NETROM": 6, "AF_BRIDGE": 7, "AF_ATMPVC": 8, "AF_X25": 9, "AF_INET6": 10,
      "AF_NETLINK": 16, "AF_PACKET": 17}
AF_MAX = 46
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4


def _bool(v):
    return v.strip().lower() in ("1", "yes", "true", "on")


class Unit:
    """The directives of a unit file: {section: {key: [values in order]}}."""

    def __init__(self, path):
        self.path = path
        self.sections = {}
        section = None
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            i += 1
            while line.endswith("\\") and i < len(lines):
                line = line[:-1] + " " + lines[i].strip()
                i += 1
            if not line or line[0] in "#;":
                continue
            m = re.match(r"^\[(.+)\]$", line)
            if m:
                section = self.sections.setdefault(m.group(1), {})
                continue
            key, _, value = line.partition("=")
            section.setdefault(key.strip(), []).append(value.strip())

    def directives(self):
        return [(s, k) for s, kv in self.sections.items() for k in kv]

    def unknown(self):
        return sorted({k for _, k in self.directives()} - KNOWN)

    def get(self, key, default=None, section="Service"):
        vals = self.sections.get(section, {}).get(key)
        return vals[-1] if vals else default

    def words(self, key, section="Service"):
        """A list directive: assignments add up, an empty one resets."""
        out = []
        for v in self.sections.get(section, {}).get(key, []):
            if not v:
                out = []
            else:
                out += v.split()
        return out

    def flag(self, key):
        return _bool(self.get(key, "no"))


def parse(path):
    return Unit(path)


def seconds(text):
    m = re.match(r"^([0-9.]+)\s*(ms|s|min|m|h)?$", text.strip())
    if not m:
        raise ValueError(f"not a time span: {text}")
    mult = {"ms": 0.001, "s": 1, None: 1, "min": 60, "m": 60, "h": 3600}[m.group(2)]
    return float(m.group(1)) * mult


def size_bytes(text):
    m = re.match(r"^([0-9]+)([KMGT]?)$", text.strip())
    if not m:
        raise ValueError(f"not a size: {text}")
    return int(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " ")


def capability_set(unit):
    """The bounding set as CAP_ names, with what ProtectKernel*= take away."""
    words = unit.words("CapabilityBoundingSet")
    if words and words[0].startswith("~"):
        caps = set(CAPS) - {w.lstrip("~") for w in words}
    elif words:
        caps = set(words)
    else:
        caps = set(CAPS)
    unknown = caps - set(CAPS)
    if unknown:
        raise ValueError(f"unknown capabilities: {sorted(unknown)}")
    if unit.flag("ProtectKernelModules"):
        caps.discard("CAP_SYS_MODULE")
    if unit.flag("ProtectKernelLogs"):
        caps.discard("CAP_SYSLOG")
    if unit.flag("ProtectClock"):
        caps -= {"CAP_SYS_TIME", "CAP_WAKE_ALARM"}
    return caps


def service_dirs(unit):
    """[(path, mode)] of StateDirectory=, LogsDirectory=, RuntimeDirectory=."""
    out = []
    for key, base in (("StateDirectory", "/var/lib"), ("LogsDirectory", "/var/log"),
                      ("RuntimeDirectory", "/run")):
        mode = int(unit.get(key + "Mode", "0755"), 8)
        for name in unit.words(key):
            out.append((os.path.join(base, name), mode, key))
    return out


def service_env(unit):
    """The environment systemd gives a system service (systemd.exec(5), "Environment")."""
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "LANG": "C.UTF-8"}
    for key, var, base in (("StateDirectory", "STATE_DIRECTORY", "/var/lib"),
                           ("LogsDirectory", "LOGS_DIRECTORY", "/var/log"),
                           ("RuntimeDirectory", "RUNTIME_DIRECTORY", "/run")):
        names = unit.words(key)
        if names:
            env[var] = ":".join(os.path.join(base, n) for n in names)
    return env


def exec_argv(unit, key="ExecStart", mainpid=None):
    """ExecStart=/ExecReload= split as systemd does (no shell), $MAINPID substituted."""
    value = unit.get(key)
    if value is None:
        return None
    value = value.lstrip("-@:+!")
    argv = shlex.split(value)
    if mainpid is not None:
        argv = [a.replace("$MAINPID", str(mainpid)).replace("${MAINPID}", str(mainpid))
                for a in argv]
    return argv


# ---- devices (DevicePolicy=, DeviceAllow=, ProtectClock=) -----------------------------------

DEVCG_MKNOD, DEVCG_READ, DEVCG_WRITE = 1, 2, 4
DEVCG_BLOCK, DEVCG_CHAR = 1, 2
# what DevicePolicy=closed (and auto with a DeviceAllow=) lets through (systemd 252, cgroup.c)
CLOSED = [("/dev/null", "rwm"), ("/dev/zero", "rwm"), ("/dev/full", "rwm"),
          ("/dev/random", "rwm"), ("/dev/urandom", "rwm"), ("/dev/tty", "rwm"),
          ("/dev/ptmx", "rwm"), ("char-pts", "rw")]


def _proc_devices():
    """[(type, major, name)] of /proc/devices."""
    out, kind = [], None
    with open("/proc/devices") as f:
        for line in f:
            if line.startswith("Character"):
                kind = DEVCG_CHAR
            elif line.startswith("Block"):
                kind = DEVCG_BLOCK
            elif line.strip() and kind:
                major, name = line.split()
                out.append((kind, int(major), name))
    return out


def device_rules(unit):
    """The device cgroup's allow list as systemd 252 builds it: [(type, major, minor or None,
    access bits)], or None where no device restriction applies (DevicePolicy=auto, nothing
    allowed). Entries naming a device or group this machine lacks are left out, as systemd
    does (it logs them)."""
    import fnmatch
    policy = unit.get("DevicePolicy", "auto")
    allow = [tuple(v.split(None, 1)) if " " in v else (v, "rwm")
             for v in unit.sections.get("Service", {}).get("DeviceAllow", []) if v]
    if unit.flag("ProtectClock"):
        allow.append(("char-rtc", "r"))
    if policy == "auto" and not allow:
        return None
    if policy in ("auto", "closed"):
        allow = CLOSED + allow
    rules = []
    for spec, access in allow:
        bits = sum(b for c, b in (("r", DEVCG_READ), ("w", DEVCG_WRITE), ("m", DEVCG_MKNOD))
                   if c in access)
        if spec.startswith("/dev/"):
            try:
                st = os.stat(spec)
            except FileNotFoundError:
                continue
            kind = DEVCG_CHAR if stat_is_chr(st.st_mode) else DEVCG_BLOCK
            rules.append((kind, os.major(st.st_rdev), os.minor(st.st_rdev), bits))
        else:
            kind = DEVCG_CHAR if spec.startswith("char-") else DEVCG_BLOCK
            pattern = spec.split("-", 1)[1]
            for k, major, name in _proc_devices():
                if k == kind and fnmatch.fnmatchcase(name, pattern):
                    rules.append((kind, major, None, bits))
    return rules


def stat_is_chr(mode):
    import stat as _stat
    return _stat.S_ISCHR(mode)


def _insn(code, dst=0, src=0, off=0, imm=0):
    import struct
    return struct.pack("<BBhi", code, (src << 4) | dst, off, imm)


def device_program(rules):
    """A BPF_PROG_TYPE_CGROUP_DEVICE program allowing exactly rules, as systemd's
    bpf-devices.c writes it: r2 type, r3 access, r4 major, r5 minor; per rule a block that
    returns 1 when all match; 0 at the end."""
    LDXW, AND64K, RSH64K, MOV64X, MOV64K, AND32K, JNEK, EXIT = (0x61, 0x57, 0x77, 0xbf, 0xb7,
                                                                0x54, 0x55, 0x95)
    prog = [_insn(LDXW, 2, 1, 0), _insn(AND64K, 2, imm=0xffff), _insn(LDXW, 3, 1, 0),
            _insn(RSH64K, 3, imm=16), _insn(LDXW, 4, 1, 4), _insn(LDXW, 5, 1, 8)]
    for kind, major, minor, bits in rules:
        block = [("jne", 2, kind), ("mov", 6, 3), ("and", 6, ~bits & 0xffffffff),
                 ("jne", 6, 0), ("jne", 4, major)]
        if minor is not None:
            block.append(("jne", 5, minor))
        n = len(block) + 2  # and r0 = 1; exit
        for i, (op, reg, val) in enumerate(block):
            if op == "jne":
                prog.append(_insn(JNEK, reg, off=n - i - 1, imm=val))
            elif op == "mov":
                prog.append(_insn(MOV64X, reg, val))
            else:
                prog.append(_insn(AND32K, reg, imm=val - (1 << 32) if val >= 1 << 31 else val))
        prog += [_insn(MOV64K, 0, imm=1), _insn(EXIT)]
    prog += [_insn(MOV64K, 0, imm=0), _insn(EXIT)]
    return b"".join(prog)


def attach_device_filter(cgroup_path, rules):
    """Loads device_program(rules) and attaches it to the cgroup (v2) at cgroup_path."""
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    NR_BPF, PROG_LOAD, PROG_ATTACH = 321, 5, 8
    insns = device_program(rules)
    ibuf = ctypes.create_string_buffer(insns, len(insns))
    lic = ctypes.create_string_buffer(b"GPL")
    log = ctypes.create_string_buffer(65536)
    attr = struct.pack("<IIQQIIQ", 15, len(insns) // 8, ctypes.addressof(ibuf),
                       ctypes.addressof(lic), 1, len(log), ctypes.addressof(log))
    abuf = ctypes.create_string_buffer(attr.ljust(128, b"\0"), 128)
    fd = libc.syscall(NR_BPF, PROG_LOAD, abuf, 128)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "BPF_PROG_LOAD (device cgroup): " + log.value.decode())
    cg = os.open(cgroup_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        attr = struct.pack("<IIII", cg, fd, 6, 0)  # BPF_CGROUP_DEVICE
        abuf = ctypes.create_string_buffer(attr.ljust(128, b"\0"), 128)
        if libc.syscall(NR_BPF, PROG_ATTACH, abuf, 128) < 0:
            raise OSError(ctypes.get_errno(), "BPF_PROG_ATTACH (device cgroup)")
    finally:
        os.close(cg)
        os.close(fd)


# ---- seccomp --------------------------------------------------------------------------------

def syscall_groups():
    """{"@group": [names and @groups]} from `systemd-analyze syscall-filter`."""
    r = subprocess.run(["systemd-analyze", "syscall-filter", "--no-pager"], capture_output=True,
                       text=True, check=True, timeout=60)
    groups, cur = {}, None
    for line in r.stdout.splitlines():
        if line.startswith("@"):
            cur = groups.setdefault(line.split()[0], [])
        elif cur is not None and line.strip() and not line.strip().startswith("#"):
            cur.append(line.split()[0])
    return groups


def expand(names, groups, seen=None):
    out = set()
    seen = set() if seen is None else seen
    for n in names:
        if n.startswith("@"):
            if n in seen:
                continue
            seen.add(n)
            if n not in groups:
                raise ValueError(f"unknown system call group {n}")
            out |= expand(groups[n], groups, seen)
        else:
            out.add(n)
    return out


def seccomp_plan(unit):
    """What to install, as data (built before the namespace, loaded just before exec)."""
    plan = {}
    # As systemd: the first assignment makes an allow list (or, with "~", a deny list); a later
    # one of the other kind takes its names out of it again; an empty one resets.
    deny, names = None, set()
    values = unit.sections.get("Service", {}).get("SystemCallFilter", [])
    groups = syscall_groups() if values else {}
    for value in values:
        if not value:
            deny, names = None, set()
            continue
        neg = value.startswith("~")
        these = expand(value.lstrip("~").split(), groups)
        if deny is None:
            deny = neg
        if neg == deny:
            names |= these
        else:
            names -= these
    if unit.flag("ProtectClock"):
        # as SystemCallFilter=~@clock after the unit's own
        clock = expand(["@clock"], groups or syscall_groups())
        if deny is None:
            deny, names = True, clock
        elif deny:
            names |= clock
        else:
            names -= clock
    if deny is not None:
        err = unit.get("SystemCallErrorNumber")
        plan["filter"] = {"deny": deny, "names": sorted(names),
                          "errno": getattr(errno, err) if err else None}
    fams = unit.words("RestrictAddressFamilies")
    if fams:
        deny = fams[0].startswith("~")
        nums = {AF[f.lstrip("~")] for f in fams}
        plan["families"] = {"deny": deny, "families": sorted(nums)}
    for key in ("LockPersonality", "MemoryDenyWriteExecute", "RestrictRealtime",
                "RestrictSUIDSGID", "ProtectKernelModules", "ProtectKernelLogs"):
        if unit.flag(key):
            plan[key] = True
    ns = unit.get("RestrictNamespaces")
    if ns is not None and _bool(ns):
        plan["RestrictNamespaces"] = True
    elif ns is not None and ns.lower() not in ("no", "false", "0", "off"):
        raise ValueError(f"RestrictNamespaces={ns}: only yes/no are emulated")
    arch = unit.get("SystemCallArchitectures")
    if arch is not None and arch != "native":
        raise ValueError(f"SystemCallArchitectures={arch}: only native is emulated")
    return plan


def load_seccomp(plan):
    import seccomp  # python3-seccomp (libseccomp); native architecture only = SystemCallArchitectures=native

    def add(f, action, name, *args):
        try:
            f.add_rule(action, name, *args)
            return True
        except (RuntimeError, ValueError, OSError):
            return False  # not a system call of this architecture

    EPERM = seccomp.ERRNO(errno.EPERM)
    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    if "families" in plan:
        p = plan["families"]
        eafno = seccomp.ERRNO(errno.EAFNOSUPPORT)
        for af in range(AF_MAX):
            if (af in p["families"]) == p["deny"]:
                add(f, eafno, "socket", seccomp.Arg(0, seccomp.EQ, af))
        if not p["deny"]:
            add(f, eafno, "socket", seccomp.Arg(0, seccomp.GE, AF_MAX))
    if plan.get("LockPersonality"):
        # only the current personality (PER_LINUX) or a query
        add(f, seccomp.ALLOW, "personality", seccomp.Arg(0, seccomp.EQ, 0xffffffff))
        add(f, EPERM, "personality", seccomp.Arg(0, seccomp.NE, 0))
    if plan.get("MemoryDenyWriteExecute"):
        wx = 0x2 | 0x4  # PROT_WRITE | PROT_EXEC
        add(f, EPERM, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, wx, wx))
        add(f, EPERM, "mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, 0x4, 0x4))
        add(f, EPERM, "pkey_mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, 0x4, 0x4))
        add(f, EPERM, "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, 0o100000, 0o100000))
    if plan.get("RestrictNamespaces"):
        for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                     0x40000000, 0x00000080):  # NEWNS CGROUP UTS IPC USER PID NET TIME
            add(f, EPERM, "unshare", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
            add(f, EPERM, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
        add(f, EPERM, "setns")
        # clone3's flags are in memory: systemd answers ENOSYS, and glibc falls back to clone
        add(f, seccomp.ERRNO(errno.ENOSYS), "clone3")
    if plan.get("RestrictRealtime"):
        for policy in (1, 2, 6):  # SCHED_FIFO, SCHED_RR, SCHED_DEADLINE
            add(f, EPERM, "sched_setscheduler", seccomp.Arg(1, seccomp.EQ, policy))
        add(f, EPERM, "sched_setattr")
    if plan.get("RestrictSUIDSGID"):
        for bit in (0o4000, 0o2000):
            add(f, EPERM, "chmod", seccomp.Arg(1, seccomp.MASKED_EQ, bit, bit))
            add(f, EPERM, "fchmod", seccomp.Arg(1, seccomp.MASKED_EQ, bit, bit))
            add(f, EPERM, "fchmodat", seccomp.Arg(2, seccomp.MASKED_EQ, bit, bit))
            add(f, EPERM, "creat", seccomp.Arg(1, seccomp.MASKED_EQ, bit, bit))
            add(f, EPERM, "open", seccomp.Arg(1, seccomp.MASKED_EQ, 0o100, 0o100),
                seccomp.Arg(2, seccomp.MASKED_EQ, bit, bit))
            add(f, EPERM, "openat", seccomp.Arg(2, seccomp.MASKED_EQ, 0o100, 0o100),
                seccomp.Arg(3, seccomp.MASKED_EQ, bit, bit))
    if plan.get("ProtectKernelModules"):
        for n in ("init_module", "finit_module", "delete_module"):
            add(f, EPERM, n)
    if plan.get("ProtectKernelLogs"):
        add(f, EPERM, "syslog")
    f.load()
    # SystemCallFilter= last, as systemd does: it does not allow seccomp() itself.
    if "filter" in plan:
        p = plan["filter"]
        if p["deny"]:
            f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
            act = seccomp.ERRNO(p["errno"]) if p["errno"] else seccomp.KILL_PROCESS
            for n in p["names"]:
                add(f, act, n)
        else:
            default = seccomp.ERRNO(p["errno"]) if p["errno"] else seccomp.KILL_PROCESS
            f = seccomp.SyscallFilter(defaction=default)
            for n in p["names"]:
                add(f, seccomp.ALLOW, n)
        f.load()


# ---- mounts ---------------------------------------------------------------------------------

def sh(*args):
    r = subprocess.run(list(args), capture_output=True, text=True, check=False, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip()}")


def mountinfo():
    """[(mount point, per-mount options)] of this namespace, in mount order."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split()
            mp = parts[4].encode().decode("unicode_escape")
            out.append((mp, parts[5].split(",")))
    return out


def under(path, roots):
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def bind_self(path):
    sh("mount", "--bind", path, path)


def remount_ro(mp, opts):
    flags = [o for o in opts if o in ("nosuid", "nodev", "noexec", "noatime", "nodiratime",
                                      "relatime", "strictatime")]
    sh("mount", "-o", ",".join(["remount", "bind", "ro"] + flags), mp)


def make_ro(paths, keep_rw=()):
    """Every mount at or below each path read-only (as systemd does, recursively). Mounts that
    a later mount covers (those below /run before its overlay) are out of reach: skipped."""
    mounts = mountinfo()
    for i, (mp, opts) in enumerate(mounts):
        if not under(mp, paths) or under(mp, keep_rw) or "ro" in opts:
            continue
        if any(under(mp, [later]) for later, _ in mounts[i + 1:]):
            continue  # mounted over (or below an overlay): the later mount is handled instead
        remount_ro(mp, opts)


INACCESSIBLE = "/run/rg-sandbox/inaccessible"  # in the /run overlay, as systemd's own


def inaccessible(path, _scratch=None):
    """Hide path behind an empty mode-000 directory or file (systemd's "inaccessible" nodes)."""
    if not os.path.lexists(path):
        return
    src = os.path.join(INACCESSIBLE, "dir" if os.path.isdir(path) else "reg")
    if not os.path.exists(src):
        os.makedirs(INACCESSIBLE, exist_ok=True)
        if src.endswith("dir"):
            os.mkdir(src, 0)
        else:
            os.close(os.open(src, os.O_CREAT | os.O_WRONLY, 0))
        os.chmod(src, 0)
    sh("mount", "--bind", src, path)
    sh("mount", "-o", "remount,bind,ro,nosuid,nodev,noexec", path)


def setup_mounts(plan, unit):
    scratch = plan["scratch"]
    sh("mount", "-t", "tmpfs", "-o", "mode=0700,size=1g", "rg-sandbox", scratch)
    # The installed layout, on overlays that vanish with the namespace.
    for top in ("usr", "etc", "var", "run"):
        upper, work = os.path.join(scratch, top + ".u"), os.path.join(scratch, top + ".w")
        os.mkdir(work)
        stage = os.path.join(plan["stage"], top)
        if os.path.isdir(stage):
            shutil.copytree(stage, upper, symlinks=True)
        else:
            os.mkdir(upper)
        sh("mount", "-t", "overlay", "overlay", "-o",
           f"lowerdir=/{top},upperdir={upper},workdir={work}", "/" + top)
    # State, logs, runtime: created by systemd, owned by root, with their mode.
    rw = []
    for path, mode, _ in service_dirs(unit):
        os.makedirs(path, exist_ok=True)
        os.chmod(path, mode)
        rw.append(path)
    rw += [p.lstrip("-") for p in unit.words("ReadWritePaths")]
    if unit.flag("PrivateTmp"):
        for t in ("/tmp", "/var/tmp"):
            sh("mount", "-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "private-tmp", t)
        rw += ["/tmp", "/var/tmp"]
    home = unit.get("ProtectHome", "no").lower()
    home_dirs = [d for d in ("/home", "/root", "/run/user") if os.path.isdir(d)]
    if home == "tmpfs":
        for d in home_dirs:
            sh("mount", "-t", "tmpfs", "-o", "mode=0755,nosuid,nodev", "protect-home", d)
    elif home in ("yes", "true", "1", "on"):
        for d in home_dirs:
            inaccessible(d, scratch)
    elif home == "read-only":
        for d in home_dirs:
            bind_self(d)
    for p in rw:
        if os.path.exists(p.lstrip("-")):
            bind_self(p)
    for p in unit.words("ReadOnlyPaths"):
        if os.path.exists(p.lstrip("-")):
            bind_self(p.lstrip("-"))
            make_ro([p.lstrip("-")])
    for p in unit.words("InaccessiblePaths"):
        inaccessible(p.lstrip("-"), scratch)
    if unit.flag("ProtectKernelModules"):
        for p in ("/usr/lib/modules", "/lib/modules"):
            if os.path.isdir(p) and not os.path.islink(p):
                inaccessible(p, scratch)
    if unit.flag("ProtectKernelLogs"):
        for p in ("/proc/kmsg", "/dev/kmsg"):
            inaccessible(p, scratch)
    if unit.flag("ProtectKernelTunables"):
        for p in ("/proc/kallsyms", "/proc/kcore"):
            inaccessible(p, scratch)
        tunables = ["/proc/sys", "/proc/sysrq-trigger", "/proc/latency_stats", "/proc/acpi",
                    "/proc/timer_stats", "/proc/fs", "/proc/irq", "/sys"]
        for p in tunables:
            if os.path.exists(p) and not os.path.ismount(p):
                bind_self(p)
        make_ro(tunables)
    if unit.flag("ProtectControlGroups"):
        make_ro(["/sys/fs/cgroup"])
    api = ["/dev", "/proc", "/sys"]
    system = unit.get("ProtectSystem", "no").lower()
    if system == "strict":
        make_ro(["/"], keep_rw=api + rw + [scratch])
    elif system == "full":
        make_ro(["/usr", "/boot", "/efi", "/etc"], keep_rw=rw)
    elif system in ("yes", "true", "1", "on"):
        make_ro(["/usr", "/boot", "/efi"], keep_rw=rw)
    if home == "read-only":
        make_ro(home_dirs)


def drop_privileges(unit, caps):
    libc = ctypes.CDLL(None, use_errno=True)
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for n in range(last + 1):
        name = CAPS[n] if n < len(CAPS) else None
        if name not in caps and libc.prctl(PR_CAPBSET_DROP, n, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), f"PR_CAPBSET_DROP {name or n}")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if unit.flag("NoNewPrivileges") and libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")


def child(plan, unit):
    """In the forked child: resources, identity, privileges, seccomp; then exec."""
    caps = set(plan["caps"])
    procs = plan.get("cgroup_procs") or []
    for path in [procs] if isinstance(procs, str) else procs:
        # Through the caller's root: ProtectControlGroups= made ours read-only already.
        with open(outside(path, plan["caller"]), "w") as f:
            f.write(str(os.getpid()))
    if unit.get("OOMScoreAdjust"):
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write(unit.get("OOMScoreAdjust"))
        except PermissionError:
            # Lowering it needs CAP_SYS_RESOURCE, which systemd has and some test machines
            # (containers) do not; it changes nothing the daemon can see.
            sys.stderr.write("sandbox: note: OOMScoreAdjust not applied (no CAP_SYS_RESOURCE)\n")
    memlock = unit.get("LimitMEMLOCK")
    if memlock:
        v = resource.RLIM_INFINITY if memlock == "infinity" else size_bytes(memlock)
        try:
            resource.setrlimit(resource.RLIMIT_MEMLOCK, (v, v))
        except ValueError:
            # As for OOMScoreAdjust: raising the hard limit needs CAP_SYS_RESOURCE. BPF maps
            # count against memlock only before kernel 5.11 (memory cgroup accounting since).
            sys.stderr.write(f"sandbox: note: LimitMEMLOCK={memlock} not applied (no "
                             f"CAP_SYS_RESOURCE); limit stays "
                             f"{resource.getrlimit(resource.RLIMIT_MEMLOCK)}\n")
    if unit.get("UMask"):
        os.umask(int(unit.get("UMask"), 8))
    os.chdir("/")
    drop_privileges(unit, caps)
    load_seccomp(plan["seccomp"])
    os.execve(plan["argv"][0], plan["argv"], plan["env"])


def outside(path, caller):
    """path in the caller's mount namespace: once the sandbox is read-only, what we report goes
    through the caller's root (the process that ran unshare for us)."""
    return f"/proc/{caller}/root{path}"


def exec_main(plan_path):
    with open(plan_path) as f:
        plan = json.load(f)
    plan["caller"] = os.getppid()
    # Read once, before the mounts: PrivateTmp= hides a unit file (a source tree) under /tmp.
    unit = Unit(plan["unit"])
    setup_mounts(plan, unit)
    pid = os.fork()
    if pid == 0:
        try:
            child(plan, unit)
        except BaseException:  # noqa: BLE001 - report anything, then die
            import traceback
            sys.stderr.write("sandbox: the service could not be started:\n"
                             + traceback.format_exc())
            os._exit(127)
    with open(outside(plan["mainpid"] + ".tmp", plan["caller"]), "w") as f:
        f.write(f"{pid}\n")
    os.rename(outside(plan["mainpid"] + ".tmp", plan["caller"]),
              outside(plan["mainpid"], plan["caller"]))
    # Forward what the caller sends us to the service, like a manager would.
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, lambda signo, _f: os.kill(pid, signo))
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            status = 0
            break
        except InterruptedError:
            continue
    # What the service left behind, where the caller can see it (outside the namespace).
    out = outside(plan["out"], plan["caller"])
    for path, _, key in service_dirs(unit):
        if os.path.isdir(path):
            shutil.copytree(path, os.path.join(out, key), symlinks=True, dirs_exist_ok=True,
                            ignore_dangling_symlinks=True,
                            copy_function=lambda s, d: shutil.copy2(s, d)
                            if os.path.isfile(s) else None)
    code = os.waitstatus_to_exitcode(status)
    with open(os.path.join(out, "exit"), "w") as f:
        f.write(f"{code}\n")
    sys.exit(0)


# ---- the caller's side ----------------------------------------------------------------------

class Service:
    """One run of a command as the unit's service. start() returns once the command was exec'd
    (or failed to start); mainpid is the service's pid; wait() returns its exit code."""

    def __init__(self, unit_path, stage, workdir, argv, env=None, caps=None, overrides=None,
                 cgroup_procs=None):
        self.unit_path = unit_path
        if overrides:
            # A variant of the unit (e.g. ProtectHome=tmpfs), written next to the run.
            with open(unit_path, encoding="utf-8") as f:
                text = f.read()
            # an empty assignment first resets list directives, as in a drop-in
            text += "\n[Service]\n" + "".join(f"{k}=\n{k}={v}\n" for k, v in overrides.items())
            self.unit_path = os.path.join(workdir, "variant.service")
            with open(self.unit_path, "w", encoding="utf-8") as f:
                f.write(text)
        unit = Unit(self.unit_path)
        self.unit = unit
        self.workdir = workdir
        self.out = os.path.join(workdir, "out")
        os.makedirs(self.out, exist_ok=True)
        scratch = os.path.join(workdir, "mnt")
        os.makedirs(scratch, exist_ok=True)
        self.mainpid_path = os.path.join(workdir, "mainpid")
        e = service_env(unit)
        e.update(env or {})
        self.plan = {"unit": self.unit_path, "stage": stage, "scratch": scratch,
                     "argv": argv, "env": e, "out": self.out,
                     "caps": sorted(caps if caps is not None else capability_set(unit)),
                     "seccomp": seccomp_plan(unit), "cgroup_procs": cgroup_procs,
                     "mainpid": self.mainpid_path}
        self.plan_path = os.path.join(workdir, "plan.json")
        with open(self.plan_path, "w") as f:
            json.dump(self.plan, f)
        self.proc = None
        self.mainpid = None

    def start(self, stdout=None, stderr=None):
        self.proc = subprocess.Popen(
            ["unshare", "--mount", "--propagation", "private", "--", sys.executable,
             os.path.abspath(__file__), "exec", self.plan_path],
            stdout=stdout, stderr=stderr, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(self.mainpid_path):
                with open(self.mainpid_path) as f:
                    self.mainpid = int(f.read())
                return self.mainpid
            if self.proc.poll() is not None:
                return None
            time.sleep(0.05)
        return None

    def root(self, path):
        """A path as the service sees it (through its /proc/PID/root)."""
        return f"/proc/{self.mainpid}/root{path}"

    def wait(self, timeout):
        """The service's exit code (None if it outlived timeout: then it is killed)."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            if self.mainpid:
                try:
                    os.kill(self.mainpid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait(timeout=30)
            return None
        try:
            with open(os.path.join(self.out, "exit")) as f:
                return int(f.read())
        except (OSError, ValueError):
            return self.proc.returncode


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "exec":
        exec_main(sys.argv[2])
    print("usage: sandbox.py exec PLAN.json (see the docstring)", file=sys.stderr)
    sys.exit(2)
