#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""packaging/systemd/rdmaguard.service through `systemd-analyze verify` and `security`, unmodified,
in a scratch root (--root) that holds what the unit refers to: the built rdmaguard at
/usr/sbin/rdmaguard, /bin/kill, this machine's systemd units (sys-kernel-tracing.mount,
network.target, ...) and rdmaguard(8) for Documentation=man:rdmaguard(8). Any message from
verify fails the test; the exposure score of `systemd-analyze security` must stay below 3.75
(systemd's "OK"; the unit scored 4.1 when issue 25 was filed, 3.7 now).

Environment: RG_RDMAGUARD, RG_SOURCE_ROOT."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

RG = os.environ["RG_RDMAGUARD"]
SRC = os.environ["RG_SOURCE_ROOT"]
UNIT = os.path.join(SRC, "packaging", "systemd", "rdmaguard.service")
MAX_EXPOSURE = 3.75  # 3.7 measured (systemd 252): 4.1 before issue 25 item 9, 4.0 without
# DevicePolicy=closed/DeviceAllow= and ProtectClock=; 3.4 with ProtectKernelLogs=, which the
# hardware layer's /dev/kmsg reader cannot have
FAILURES = []


def check(cond, what, detail=""):
    if cond:
        print(f"ok   {what}")
    else:
        print(f"FAIL {what}" + (f"\n     {detail}" if detail else ""))
        FAILURES.append(what)


def unit_dir():
    for d in ("/lib/systemd/system", "/usr/lib/systemd/system"):
        if os.path.isfile(os.path.join(d, "multi-user.target")):
            return d
    return None


def main():
    if not shutil.which("systemd-analyze"):
        print("FAIL systemd-analyze is missing (apt-get install systemd; packaging/bootstrap.sh "
              "--deps installs it)")
        return 1
    units = unit_dir()
    if not units:
        print("FAIL this machine has no systemd unit directory (apt-get install systemd)")
        return 1
    with tempfile.TemporaryDirectory(prefix="rg-unit-") as root:
        for d in ("usr/sbin", "bin", "lib/systemd", "etc/systemd/system", "man/man8"):
            os.makedirs(os.path.join(root, d))
        shutil.copy2(RG, os.path.join(root, "usr/sbin/rdmaguard"))
        shutil.copy2(shutil.which("kill") or "/bin/kill", os.path.join(root, "bin/kill"))
        shutil.copytree(units, os.path.join(root, "lib/systemd/system"), symlinks=True)
        shutil.copy2(UNIT, os.path.join(root, "etc/systemd/system/rdmaguard.service"))
        shutil.copy2(os.path.join(SRC, "packaging/man/rdmaguard.8"),
                     os.path.join(root, "man/man8/rdmaguard.8"))
        # Documentation=man:rdmaguard(8) is checked by running man(1): find the page here.
        env = dict(os.environ, MANPATH=os.path.join(root, "man"), SYSTEMD_LOG_COLOR="0",
                   LC_ALL="C.UTF-8")

        r = subprocess.run(["systemd-analyze", "verify", f"--root={root}", "rdmaguard.service"],
                           capture_output=True, text=True, env=env, timeout=60, check=False)
        out = (r.stdout + r.stderr).strip()
        check(r.returncode == 0 and not out, "systemd-analyze verify: no complaint", out)

        # The same check must be able to fail: a unit with a typo in a directive.
        bad = os.path.join(root, "etc/systemd/system/rdmaguard-typo.service")
        with open(UNIT, encoding="utf-8") as f:
            text = f.read()
        with open(bad, "w", encoding="utf-8") as f:
            f.write(text.replace("NoNewPrivileges=", "NoNewPrivilege=", 1))
        r = subprocess.run(["systemd-analyze", "verify", f"--root={root}",
                            "rdmaguard-typo.service"],
                           capture_output=True, text=True, env=env, timeout=60, check=False)
        check("NoNewPrivilege" in r.stdout + r.stderr,
              "systemd-analyze verify notices a misspelt directive (the check works)",
              (r.stdout + r.stderr).strip())
        os.unlink(bad)

        r = subprocess.run(["systemd-analyze", "security", "--offline=true", f"--root={root}",
                            "--no-pager", "rdmaguard.service"],
                           capture_output=True, text=True, env=env, timeout=60, check=False)
        m = re.search(r"Overall exposure level for rdmaguard.service: ([0-9.]+) (\w+)", r.stdout)
        check(m is not None, "systemd-analyze security gives an exposure level",
              (r.stdout + r.stderr).strip()[-2000:])
        if m:
            score = float(m.group(1))
            print(f"info exposure level {score} {m.group(2)}")
            check(score < MAX_EXPOSURE, f"exposure level {score} < {MAX_EXPOSURE}")
    print(f"{'FAIL' if FAILURES else 'PASS'}: {len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
