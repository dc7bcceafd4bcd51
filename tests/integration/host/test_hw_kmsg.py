#!/usr/bin/python3
"""The hardware layer's kernel-log reader on this machine's kernel (docs/hardware-runtime.md): root
writes IOMMU fault lines to /dev/kmsg, with and without a kernel-looking "<0>" prefix; the kernel
stores them with a user facility, and the daemon reads them, counts them as not the kernel's and
reports no dma_fault. `status` says the kernel log and the uevent socket are open.
Needs root (exit 77 otherwise). Environment: RG_RDMAGUARD."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from tap import check, summary  # noqa: E402

RG = os.environ["RG_RDMAGUARD"]
FORGED = ("DMAR: [DMA Read NO_PASID] Request device [07:00.0] fault addr 0xf0f0000 "
          "[fault reason 0x06] PTE Read access is not set")


def status(sock):
    p = subprocess.run([RG, "status", "--socket", sock, "--format", "json"], capture_output=True,
                       text=True, timeout=30)
    return json.loads(p.stdout)["hardware"] if p.returncode == 0 else {}


def main():
    if os.geteuid() != 0:
        print("SKIP: the daemon attaches BPF programs and reads /dev/kmsg: needs root")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        record, ready, sock = (os.path.join(tmp, n) for n in ("events.jsonl", "ready", "sock"))
        d = subprocess.Popen([RG, "daemon", "--sensor", "tracepoint", "--no-inventory",
                              "--record", record, "--ready-file", ready, "--status-socket", sock,
                              "--output", "file:" + os.path.join(tmp, "alerts.jsonl")],
                             stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not os.path.exists(ready) and time.monotonic() < deadline and d.poll() is None:
            time.sleep(0.1)
        check(os.path.exists(ready), "the daemon is ready")
        hw = status(sock)
        check(hw.get("kernel_log") is True and hw.get("uevent_socket") is True,
              f"status: the kernel log and the uevent socket are open ({hw})")
        before = hw.get("kmsg_not_kernel", 0)
        with open("/dev/kmsg", "w") as k:
            for prefix in ("<3>", "<0>", ""):
                k.write(prefix + FORGED + "\n")
                k.flush()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and hw.get("kmsg_not_kernel", 0) < before + 3:
            time.sleep(0.2)
            hw = status(sock)
        check(hw.get("kmsg_not_kernel", 0) == before + 3,
              f"the 3 forged lines read and counted as not the kernel's ({hw})")
        check(hw.get("dma_fault_lines") == 0 and hw.get("fault_reports") == 0,
              "no fault line taken from them")
        d.send_signal(signal.SIGTERM)
        try:
            rc = d.wait(timeout=60)
        except subprocess.TimeoutExpired:
            d.kill()
            rc = -1
        check(rc == 0, f"SIGTERM stops the daemon with 0 (got {rc})")
        with open(record) as f:
            faults = [e for e in map(json.loads, f) if e["event"]["action"] == "dma_fault"]
        check(faults == [], f"no dma_fault recorded ({faults[:1]})")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
