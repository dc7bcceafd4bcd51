# SPDX-License-Identifier: GPL-2.0-or-later
"""What the syscall figure compares the agent with on this machine: auditd with the same hook
points (and its after-effects kept quiet), bpftrace with an equivalent script, and other
processes' BPF programs on the syscall tracepoints."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from .common import BenchError, CLEANUPS, SRC, run

AUDIT_KEY = "rdmaguard-bench"
# What auditd is told to watch: the agent's hook points, as far as audit can express them.
AUDIT_RULES = [
    # verbs commands: ioctl(fd, RDMA_VERBS_IOCTL, ...)
    ["-S", "ioctl", "-F", "a1=0xc0181b01"],
    # opens of RDMA device nodes
    ["-S", "open,openat", "-F", "dir=/dev/infiniband"],
    # write() commands to those nodes: audit cannot select a write by its file (a write records
    # no path), so this rule never matches; it is what an administrator would write, and what
    # it costs every write() is the point of the comparison
    ["-S", "write", "-F", "dir=/dev/infiniband"],
    # executable mappings (libraries): mmap with PROT_EXEC
    ["-S", "mmap", "-F", "a2&0x4"],
    # memory access to other processes
    ["-S", "process_vm_readv,process_vm_writev"],
    ["-S", "ptrace", "-F", "a0=0x10"],
    ["-S", "ptrace", "-F", "a0=0x4206"],
    # process lifecycle
    ["-S", "execve,execveat"],
    ["-S", "exit_group"],
]


def audit_status():
    p = run(["auditctl", "-s"], check=False, timeout=30)
    if p.returncode != 0:
        return None, (p.stderr or p.stdout).strip()
    st = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            st[parts[0]] = parts[1]
    return st, ""


def audit_rules():
    return run(["auditctl", "-l"], timeout=30).stdout


class Auditd:
    """auditd with the AUDIT_RULES, started by us (or a running one borrowed), always undone:
    our rules deleted by key, our auditd stopped, the enabled flag and rule list as before."""

    @staticmethod
    def unavailable():
        if not shutil.which("auditctl") or not shutil.which("auditd"):
            return "auditd is not installed (apt-get install auditd)", True
        st, err = audit_status()
        if st is None:
            return f"no audit support in this kernel (auditctl -s: {err})", False
        return None, False

    def __init__(self):
        self.proc = None
        self.dir = None
        self.before = None

    def start(self):
        st, _ = audit_status()
        self.before = (st.get("enabled", "0"), audit_rules())
        CLEANUPS.append(self.stop)
        if st.get("pid", "0") == "0":
            self.dir = tempfile.mkdtemp(prefix="rg-bench-audit-")
            os.chmod(self.dir, 0o700)
            os.mkdir(os.path.join(self.dir, "plugins.d"), 0o700)
            conf = os.path.join(self.dir, "auditd.conf")
            with open(conf, "w") as f:
                f.write(f"""local_events = yes
write_logs = yes
log_file = {self.dir}/audit.log
log_format = ENRICHED
flush = INCREMENTAL_ASYNC
freq = 50
max_log_file = 64
num_logs = 2
max_log_file_action = ROTATE
priority_boost = 4
name_format = NONE
space_left = 75
space_left_action = IGNORE
admin_space_left = 50
admin_space_left_action = IGNORE
disk_full_action = IGNORE
disk_error_action = IGNORE
use_libwrap = no
plugin_dir = {self.dir}/plugins.d
q_depth = 2000
overflow_action = IGNORE
end_of_event_timeout = 2
""")
            os.chmod(conf, 0o600)
            self.err = open(os.path.join(self.dir, "auditd.err"), "w")
            self.proc = subprocess.Popen(["auditd", "-n", "-c", self.dir],
                                         stdout=self.err, stderr=self.err)
            end = time.monotonic() + 30
            while True:
                st, _ = audit_status()
                if st and st.get("pid") == str(self.proc.pid) and st.get("enabled") == "1":
                    break
                if self.proc.poll() is not None or time.monotonic() > end:
                    raise BenchError("auditd did not start: " + open(self.err.name).read()[-800:])
                time.sleep(0.1)
        else:
            run(["auditctl", "-e", "1"], timeout=30)
        self.skipped = []
        for r in AUDIT_RULES:
            if "dir=/dev/infiniband" in r and not os.path.isdir("/dev/infiniband"):
                # audit watches a directory by its inode: it must exist
                self.skipped.append(" ".join(r))
                continue
            run(["auditctl", "-a", "exit,always", "-F", "arch=b64"] + r + ["-k", AUDIT_KEY],
                timeout=30)
        return self

    def stop(self):
        if self.before is None:
            return
        before, self.before = self.before, None
        run(["auditctl", "-D", "-k", AUDIT_KEY], timeout=30, check=False)
        if self.proc is not None:
            p, self.proc = self.proc, None
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            self.err.close()
        st, _ = audit_status()
        if st and st.get("enabled") != before[0] and st.get("enabled") != "2":
            run(["auditctl", "-e", before[0]], timeout=30, check=False)
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        after = audit_rules()
        if after != before[1]:
            raise BenchError(f"audit rules not restored: before {before[1]!r}, after {after!r}")


class AuditQuiet:
    """`auditctl -a never,task`: once audit was enabled, even once since boot, the kernel gives
    every new process an audit context and runs audit's syscall entry and exit work on each of
    its system calls, rules or not, until reboot (audit_ever_enabled). A `never,task` rule stops
    that for new processes. Installed while the syscall benchmark runs (not while auditd is the
    candidate), only where audit is disabled and has no rules, so that a baseline does not pay
    for an earlier auditd; always removed again (the rule list is left as it was)."""

    def __init__(self):
        self.on = False

    @staticmethod
    def possible():
        if not shutil.which("auditctl"):
            return False
        st, _ = audit_status()
        return bool(st) and st.get("enabled") == "0" and audit_rules().strip() == "No rules"

    def start(self):
        if not self.on:
            run(["auditctl", "-a", "never,task"], timeout=30)
            self.on = True
        return self

    def stop(self):
        if self.on:
            self.on = False
            run(["auditctl", "-d", "never,task"], timeout=30)


class Bpftrace:
    def __init__(self, script="equivalent.bt"):
        self.proc = None
        self.script = script

    def start(self):
        self.out = tempfile.NamedTemporaryFile(prefix="rg-bench-bpftrace-", suffix=".log")
        self.proc = subprocess.Popen(["bpftrace", os.path.join(SRC, "bench", self.script)],
                                     stdout=self.out, stderr=subprocess.STDOUT)
        CLEANUPS.append(self.stop)
        end = time.monotonic() + 120
        while True:
            with open(self.out.name) as f:
                text = f.read()
            if "ready" in text.splitlines():
                return self
            if self.proc.poll() is not None or time.monotonic() > end:
                raise BenchError("bpftrace did not start: " + text[-800:])
            time.sleep(0.1)

    def stop(self):
        if self.proc is None:
            return
        p, self.proc = self.proc, None
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.out.close()


def foreign_syscall_tracepoints():
    """BPF programs of other processes on syscall tracepoints: they slow every syscall of every
    process, baselines included (a shared machine)."""
    if not shutil.which("bpftool"):
        return []
    p = run(["bpftool", "-j", "perf"], check=False, timeout=30)
    try:
        links = json.loads(p.stdout or "[]")
    except ValueError:
        return []
    me = os.getpid()
    return sorted({(l.get("pid"), l.get("tracepoint")) for l in links
                   if str(l.get("tracepoint", "")).startswith(("sys_enter", "sys_exit"))
                   and l.get("pid") != me})
