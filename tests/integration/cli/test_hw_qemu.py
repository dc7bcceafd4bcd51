#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`rdmaguard audit` and `baseline` on config spaces captured from qemu's emulated devices
(tests/fixtures/roots/qemu-q35: q35 host bridge, LPC, AHCI, SMBus, virtio-9p, four PCIe root
ports, e1000e, NVMe, virtio-net and edu, see tests/fixtures/pci-config/), checked against what
lspci printed for the same devices in the same guest (tests/fixtures/pci-config/q35/lspci.txt):
every capability at its offset, the extended ones, the DSN, the link capabilities and status. The
alerts are exact: the root bus's AHCI controller that the firmware left bus mastering is the
chipset's; the functions behind root ports with no driver and no IOMMU, whatever their bus-master
bits say (a card's own bit is not believed): the edu card, of a class no real device uses, is
DMA-003's; the e1000e and the NVMe controller, of kinds DMA cards imitate with no other tell,
DMA-014's; and the NVMe controller, a driverless bus-mastering storage function, DMA-012's too.

usage: test_hw_qemu.py RDMAGUARD FIXTURES
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

RG, FIXTURES = sys.argv[1], sys.argv[2]
ROOT = os.path.join(FIXTURES, "roots", "qemu-q35")
LSPCI = os.path.join(FIXTURES, "pci-config", "q35", "lspci.txt")
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def lspci_view():
    """{address: {"caps": {offset}, "ecaps": {offset}, "dsn", "lnkcap", "lnksta"}}"""
    out, cur = {}, None
    for line in open(LSPCI):
        m = re.match(r"^([0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ", line)
        if m:
            cur = out.setdefault("0000:" + m.group(1), {"caps": set(), "ecaps": set(), "dsn": None,
                                                        "lnkcap": None, "lnksta": None})
            continue
        m = re.match(r"^\tCapabilities: \[([0-9a-f]+)( v\d+)?\]", line)
        if m and cur is not None:
            (cur["ecaps"] if m.group(2) else cur["caps"]).add(int(m.group(1), 16))
        m = re.search(r"Device Serial Number ([0-9a-f-]+)", line)
        if m and cur is not None:
            cur["dsn"] = m.group(1)
        m = re.search(r"LnkCap:\s+Port #\d+, Speed ([\d.]+)GT/s, Width x(\d+)", line)
        if m and cur is not None:
            cur["lnkcap"] = (int(float(m.group(1)) * 1000), int(m.group(2)))
        m = re.search(r"LnkSta:\s+Speed ([\d.]+)GT/s[^,]*, Width x(\d+)", line)
        if m and cur is not None:
            cur["lnksta"] = (int(float(m.group(1)) * 1000), int(m.group(2)))
    return out


p = subprocess.run([RG, "audit", "--root", ROOT], capture_output=True, text=True, timeout=60)
check(p.returncode == 1, f"audit exit {p.returncode} {p.stderr!r}")
d = json.loads(p.stdout)
hw = {f["address"]: f for f in d["hardware"]["functions"]}
want = lspci_view()
check(sorted(hw) == sorted(want) and len(hw) == 14, f"the 14 functions lspci listed: {sorted(hw)}")
for addr, lw in sorted(want.items()):
    f = hw.get(addr, {})
    caps = {int(c.split("@")[1], 16) for c in f.get("capabilities", [])}
    ecaps = {int(c.split("@")[1], 16) for c in f.get("extended_capabilities", [])}
    check(caps == lw["caps"], f"{addr}: capabilities at {sorted(hex(c) for c in caps)}")
    check(ecaps == lw["ecaps"], f"{addr}: extended capabilities at {sorted(hex(c) for c in ecaps)}")
    check(f.get("dsn") == lw["dsn"], f"{addr}: DSN {f.get('dsn')}")
    if lw["lnkcap"]:
        link = f.get("link", {})
        check((link.get("max_speed"), link.get("max_width")) == lw["lnkcap"] and
              (link.get("speed"), link.get("width")) == lw["lnksta"], f"{addr}: link {link}")
    check(f.get("capabilities_error") is None, f"{addr}: lists well formed")

# The facts of the devices a test would care about, from what the guest had: no driver loaded for
# e1000e, NVMe and edu, bus mastering left on by the firmware for AHCI and NVMe, no IOMMU.
check(hw["0000:01:00.0"]["facts"] == ["class_mismatch", "identity_domain", "imitated_no_driver"] and
      hw["0000:01:00.0"]["vendor_name"] == "Intel Corporation", "e1000e: facts")
check(hw["0000:02:00.0"]["facts"] == ["bus_master_no_driver", "class_mismatch", "identity_domain",
                                      "imitated_no_driver"],
      "NVMe: facts")
check(hw["0000:00:1f.2"]["facts"] == ["bus_master_no_driver", "class_mismatch", "identity_domain",
                                      "imitated_no_driver"],
      "AHCI: facts")
check(hw["0000:04:00.0"]["facts"] == ["identity_domain"] and not hw["0000:04:00.0"]["pcie"] and
      hw["0000:04:00.0"]["bars"] == [{"index": 0, "size": 1048576, "type": "mem32",
                                      "prefetchable": False}], "edu: a conventional PCI function")
check(all(hw[a]["acs"] and hw[a]["upstream"] is None for a in
          ("0000:00:03.0", "0000:00:04.0", "0000:00:05.0", "0000:00:06.0")), "root ports: ACS")
alerts = [(a["rule"]["id"], a["rdmaguard"]["pci"]["address"]) for a in d["alerts"]]
check(alerts == [("DMA-014", "0000:01:00.0"), ("DMA-012", "0000:02:00.0"),
                 ("DMA-014", "0000:02:00.0"), ("DMA-003", "0000:04:00.0")], f"alerts {alerts}")

# The baseline of this machine checks it clean, and names a change.
with tempfile.TemporaryDirectory() as tmp:
    bl = os.path.join(tmp, "seat.json")
    p = subprocess.run([RG, "baseline", "save", "--root", ROOT, bl], capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr == f"{bl}: 14 PCI functions\n", f"baseline save {p.stderr!r}")
    # digest: the heartbeats' hw.fingerprint, the sha256 of that file with the host left empty
    text = re.sub(r'^(\{[^\n]*"host": )"[^"]*"', r'\1""', open(bl).read(), count=1)
    p = subprocess.run([RG, "baseline", "digest", "--root", ROOT], capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout == hashlib.sha256(text.encode()).hexdigest() + "\n",
          f"baseline digest {p.stdout!r} {p.stderr!r}")
    pol = os.path.join(tmp, "policy.json")
    with open(pol, "w") as f:
        json.dump({"baseline": "seat.json", "rules": {"DMA-003": {"enabled": False}}}, f)
    p = subprocess.run([RG, "audit", "--root", ROOT, "--policy", pol], capture_output=True, text=True)
    check(p.returncode == 0 and json.loads(p.stdout)["alerts"] == [], f"baseline: clean {p.stderr!r}")
    text = open(bl).read().replace('"device_id": "0x10d3"', '"device_id": "0x10d4"')
    with open(bl, "w") as f:
        f.write(text)
    p = subprocess.run([RG, "audit", "--root", ROOT, "--policy", pol], capture_output=True, text=True)
    msgs = [a["message"] for a in json.loads(p.stdout)["alerts"]]
    # the e1000e's address no longer in the baseline: its exposure is DMA-014's again
    check(p.returncode == 1 and msgs == [
        "No IOMMU translates the DMA of PCI function 0000:01:00.0 (8086:10d3 Intel Corporation "
        "82574L Gigabit Network Connection, no driver, IOMMU domain none) of a kind DMA cards "
        "imitate",
        "PCI function 0000:01:00.0 (8086:10d3 Intel Corporation 82574L Gigabit Network Connection) "
        "changed against the seat baseline: device_id 0x10d4 -> 0x10d3"], f"baseline: {msgs}")
    with open(bl, "a") as f:
        f.write("}")
    p = subprocess.run([RG, "audit", "--root", ROOT, "--policy", pol], capture_output=True, text=True)
    check(p.returncode == 2 and p.stdout == "" and p.stderr == bl + ":18:1: unexpected '}' after the end of the document\n",
          f"baseline: a broken one is an error {p.stderr!r}")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
