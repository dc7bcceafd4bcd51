"""A user's own "RDMA node": a regular file ~/infiniband/uverbs0 that a process of an ordinary
user (nobody, 65534) opens for reading and writing. The agent must take it for nothing (issue 25,
item 6): no device_open, no alert, and in kill mode no kill. Root only (it makes the user's
directory and runs the opener as that user)."""

import os
import shutil
import subprocess
import tempfile

NOBODY = 65534


def open_as_user(timeout=30):
    """Runs a shell as nobody that opens ~/infiniband/uverbs0 (creating it, a regular file) and
    prints its pid. Returns (exit status, pid or None, path)."""
    home = tempfile.mkdtemp(prefix="rg-userhome-")
    try:
        os.chmod(home, 0o755)
        ib = os.path.join(home, "infiniband")
        os.mkdir(ib)
        os.chown(ib, NOBODY, NOBODY)
        path = os.path.join(ib, "uverbs0")
        p = subprocess.run(["/bin/sh", "-c", 'exec 3<>"$1" && echo "pid=$$" && echo x >&3',
                            "sh", path], user=NOBODY, group=NOBODY, extra_groups=[],
                           capture_output=True, text=True, timeout=timeout, cwd="/")
        pid = None
        if p.stdout.startswith("pid="):
            pid = int(p.stdout.split("=", 1)[1].split()[0])
        return p.returncode, pid, path
    finally:
        shutil.rmtree(home, ignore_errors=True)
