#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The whole `rdmaguard audit` binary: JSON and text output on each fixture root, exit codes, and a
run on this very machine. Usage: test_audit.py RDMAGUARD FIXTURES_DIR"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

RG = sys.argv[1]
ROOTS = os.path.join(sys.argv[2], "roots")
SCHEMA = json.load(open(os.path.join(sys.argv[2], "..", "..", "rules", "schema", "alert.schema.json")))
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    p = subprocess.run([RG, "audit", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def audit(root, want_rc=0, *extra):
    rc, out, err = run("--root", os.path.join(ROOTS, root), *extra)
    check(rc == want_rc, f"{root}: exit {rc} (want {want_rc}), stderr {err!r}")
    try:
        return json.loads(out)
    except json.JSONDecodeError as e:
        check(False, f"{root}: not JSON: {e}")
        return {}


def common(doc, root):
    for key in ("schema_version", "tool", "@timestamp", "host", "root", "summary", "devices", "links",
                "pci", "dma", "device_nodes", "modules", "verbs", "netlink", "processes", "roce_udp",
                "evaluation", "alerts"):
        check(key in doc, f"{root}: no top-level {key}")
    check(doc.get("schema_version") == 1, f"{root}: schema_version")
    check(doc.get("tool", {}).get("name") == "rdmaguard", f"{root}: tool.name")
    ev = doc.get("evaluation", {})
    check(isinstance(doc.get("alerts"), list), f"{root}: alerts is not a list")
    check(ev.get("rules_evaluated") is True and ev.get("rules", 0) >= 13, f"{root}: evaluation {ev}")
    check(ev.get("alerts") == len(doc.get("alerts", [])), f"{root}: evaluation.alerts")
    check(ev.get("events", 0) > 0, f"{root}: no event fed to the rules")
    for a in doc.get("alerts", []):
        try:
            jsonschema.validate(a, SCHEMA)
        except jsonschema.ValidationError as e:
            check(False, f"{root}: alert does not match the schema: {e.message}")
        check(a.get("event", {}).get("kind") == "alert" and a.get("rule", {}).get("id")
              and a.get("rdmaguard", {}).get("severity") in ("info", "low", "medium", "high",
                                                                "critical")
              and a.get("message"),
              f"{root}: alert fields {a}")
    check(doc["root"] == os.path.realpath(os.path.join(ROOTS, root)), f"{root}: root path")
    for src in ("verbs", "netlink"):
        check("cannot be redirected below --root" in doc[src].get("skipped", ""),
              f"{root}: {src} not skipped with a reason")
    check(set(doc["summary"]["skipped"]) == {"verbs", "netlink"}, f"{root}: summary.skipped")


def alerts(doc):
    return [(a["rdmaguard"]["severity"], a["rule"]["id"], a["message"])
            for a in doc.get("alerts", [])]


# --- each fixture root ---------------------------------------------------------------------------
# The desktop boots with iommu=pt: its devices raise nothing, its IOMMU posture does (DMA-004).
d = audit("desktop", 1)
common(d, "desktop")
check(alerts(d) == [("medium", "DMA-004", "IOMMU protection weakened: command line iommu=pt")] and
      d["evaluation"]["threshold"] == "medium", f"desktop: alerts {alerts(d)}")
hw = {f["address"]: f for f in d["hardware"]["functions"]}
check(sorted(hw) == ["0000:00:00.0", "0000:00:01.0", "0000:00:02.0", "0000:00:1f.6", "0000:01:00.0",
                     "0000:02:00.0"], f"desktop: hardware functions {sorted(hw)}")
check(hw["0000:01:00.0"]["vendor_name"] == "NVIDIA Corporation" and
      hw["0000:01:00.0"]["upstream"] == "0000:00:01.0" and hw["0000:01:00.0"]["driver"] == "nvidia" and
      hw["0000:01:00.0"]["facts"] == [], "desktop: the GPU's fingerprint")
check(d["hardware"]["iommu"]["weakening_options"] == "iommu=pt" and
      d["hardware"]["iommu"]["units"] == 2, "desktop: IOMMU posture")
check(d["host"]["hostname"] == "desktop-01", "desktop: hostname")
check(d["host"]["os"]["kernel"] == "6.1.0-13-amd64", "desktop: kernel")
check(d["summary"]["rdma_present"] is False, "desktop: rdma_present")
check(d["devices"]["items"] == [], "desktop: devices")
check([p["address"] for p in d["pci"]["items"]] == ["0000:00:1f.6"], "desktop: pci items")
check(d["pci"]["items"][0]["rdma_evidence"] == ["vendor"], "desktop: evidence")
check([p["address"] for p in d["dma"]["pci_functions"]] == ["0000:00:00.0", "0000:01:00.0"],
      "desktop: dma functions")
check(d["dma"]["pci_functions"][1]["driver_kind"] == "out_of_tree", "desktop: nvidia out_of_tree")
check(d["dma"]["pci_functions"][0]["driver"] is None, "desktop: driver null")
check(d["dma"]["iommu"] == {"units": ["dmar0", "dmar1"], "groups": 5,
                            "group_types": {"DMA": 1, "DMA-FQ": 4}, "enabled": True}, "desktop: iommu")
check(d["dma"]["cmdline"] == ["intel_iommu=on", "iommu=pt"], "desktop: cmdline")
tb = d["dma"]["thunderbolt"]
check(tb["present"] and tb["domains"] == [{"name": "domain0", "security": "user",
                                           "iommu_dma_protection": True}], "desktop: tb domain")
check([x["name"] for x in tb["devices"]] == ["0-0", "0-1"], "desktop: tb devices")
check(tb["devices"][1].get("authorized") == 1 and tb["devices"][1]["vendor_name"] == "Dell",
      "desktop: tb dock")
check(d["processes"]["items"] == [] and d["processes"]["scanned"] == 5, "desktop: processes")

d = audit("mlx5-roce", 1)
common(d, "mlx5-roce")
check(alerts(d) == [
    ("medium", "RDMA-001", "RDMA device mlx5_0 (roce, driver mlx5_core) is present on a managed machine"),
    ("medium", "RDMA-003", "ib_write_bw (4242) loaded /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
    ("medium", "RDMA-003", "ib_write_bw (4242) loaded /usr/lib/x86_64-linux-gnu/libmlx5.so.1.24.44.0"),
    ("medium", "RDMA-003", "ib_write_bw (4242) loaded /usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.44.0"),
    ("medium", "RDMA-004", "ib_write_bw (4242) opened /dev/infiniband/uverbs0 (mlx5_0)")],
      f"mlx5: alerts {alerts(d)}")
a4 = d["alerts"][4]
check(a4["process"]["pid"] == 4242 and a4["process"]["parent"]["pid"] == 4200 and
      [x["pid"] for x in a4["rdmaguard"]["process"].get("ancestors", [])][:2] == [4200, 1200],
      f"mlx5: alert lineage {a4.get('process')}")
dev = d["devices"]["items"][0]
check(dev["name"] == "mlx5_0" and dev["sources"] == ["sysfs"], "mlx5: name/sources")
check(dev["transport"] == "roce" and dev["soft"] is False, "mlx5: transport/soft")
check(dev["pci"] == {"address": "0000:03:00.0", "vendor_id": "0x15b3", "device_id": "0x1017",
                     "class": "0x020000", "driver": "mlx5_core"}, "mlx5: pci")
check(dev["node_guid"] == "b859:9f03:00d1:2e3a" and dev["fw_ver"] == "16.35.2000", "mlx5: guid/fw")
port = dev["ports"][0]
check(port["state"] == "ACTIVE" and port["state_num"] == 4 and port["phys_state"] == "LinkUp",
      "mlx5: port state")
check([(g["index"], g["gid"], g["type"]) for g in port["gids"]] == [
    (0, "fe80::ba59:9fff:fed1:2e3a", "IB/RoCE v1"), (1, "fe80::ba59:9fff:fed1:2e3a", "RoCE v2"),
    (2, "::ffff:192.0.2.10", "IB/RoCE v1"), (3, "::ffff:192.0.2.10", "RoCE v2")], "mlx5: gids")
check(port["gids"][3]["ipv4"] == "192.0.2.10", "mlx5: gid ipv4")
check(d["links"]["items"] == [{"link": "mlx5_0/1", "device": "mlx5_0", "port": 1, "state": "ACTIVE",
                               "physical_state": "LINK_UP", "netdev": "enp3s0f0np0",
                               "transport": "roce", "soft": False}], "mlx5: links")
check([m["name"] for m in d["modules"]["items"]] ==
      ["mlx5_ib", "ib_uverbs", "rdma_ucm", "rdma_cm", "iw_cm", "ib_cm", "ib_core"], "mlx5: modules")
check(d["modules"]["items"][1]["used_by"] == ["rdma_ucm", "mlx5_ib"], "mlx5: used_by")
dn = d["device_nodes"]
check([n["name"] for n in dn["items"]] == ["issm0", "rdma_cm", "umad0", "uverbs0"], "mlx5: nodes")
check(dn["uverbs"] == [{"name": "uverbs0", "ibdev": "mlx5_0", "dev": "231:192", "abi_version": "1"}],
      "mlx5: uverbs")
check(dn["rdma_cm_dev"] == "10:58", "mlx5: rdma_cm dev")
procs = d["processes"]["items"]
check(len(procs) == 1, "mlx5: one RDMA process")
p = procs[0]
check(p["pid"] == 4242 and p["comm"] == "ib_write_bw" and p["uid"] == 1000, "mlx5: process id")
check(p["cmdline"] == ["ib_write_bw", "-d", "mlx5_0", "-x", "3", "192.0.2.20"], "mlx5: cmdline")
check([(f["fd"], f["path"], f["kind"]) for f in p["rdma_fds"]] == [
    (3, "/dev/infiniband/uverbs0", "uverbs"), (4, "anon_inode:[infinibandevent]", "other"),
    (5, "/dev/infiniband/rdma_cm", "rdma_cm")], "mlx5: fds")
check(p["rdma_fds"][0]["device"] == "mlx5_0" and p["rdma_fds"][0]["minor"] == 192, "mlx5: fd device")
check([lib["kind"] for lib in p["libraries"]] == ["libibverbs", "provider", "librdmacm"], "mlx5: libs")
check(p["uverbs_mappings"] == 2, "mlx5: uverbs mappings")
check([a["pid"] for a in p["parent_chain"]] == [4200, 1200, 1], "mlx5: parent chain")
check(p["parent_chain"][0]["exe"] == "/usr/bin/bash", "mlx5: parent exe")
s = d["summary"]
check((s["rdma_present"], s["devices"], s["modules"], s["rdma_processes"], s["errors"]) ==
      (True, 1, 7, 1, 0), "mlx5: summary")
# 5 processes, 7 modules, 2 PCI functions (the NIC and its root port), the IOMMU posture, the
# device, 3 libraries, 3 device fds
check(d["evaluation"]["events"] == 22, f"mlx5: {d['evaluation']['events']} events fed")

d = audit("ib-hca", 1)
common(d, "ib-hca")
check([x[1] for x in alerts(d)] == ["RDMA-001", "RDMA-003"], f"ib: alerts {alerts(d)}")
dev = d["devices"]["items"][0]
check(dev["transport"] == "infiniband" and dev["driver"] == "mlx4_core", "ib: transport/driver")
check([(x["port"], x["state"], x.get("lid")) for x in dev["ports"]] == [(1, "ACTIVE", 3), (2, "DOWN", 0)],
      "ib: ports")
check([u["name"] for u in d["device_nodes"]["umad"]] == ["issm0", "issm1", "umad0", "umad1"], "ib: umad")
check(d["processes"]["items"][0]["comm"] == "opensm", "ib: opensm")

d = audit("rxe", 1)
common(d, "rxe")
check(alerts(d) == [
    ("high", "RDMA-002", "Software RDMA on this machine (module_present rdma_rxe)"),
    ("medium", "RDMA-001", "RDMA device rxe0 (roce, driver rdma_rxe) is present on a managed machine"),
    ("high", "RDMA-002", "Software RDMA on this machine (device_present rxe0)"),
    ("medium", "RDMA-003", "ibv_rc_pingpong (5000) loaded /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
    ("medium", "RDMA-003", "ibv_rc_pingpong (5000) loaded /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"),
    ("medium", "RDMA-004", "ibv_rc_pingpong (5000) opened /dev/infiniband/uverbs0 (rxe0)")],
      f"rxe: alerts {alerts(d)}")
dev = d["devices"]["items"][0]
check((dev["name"], dev["soft"], dev["soft_kind"], dev["parent"], dev["driver"]) ==
      ("rxe0", True, "rxe", "eth0", "rdma_rxe"), "rxe: soft device")
check("pci" not in dev and dev["sysfs_path"] == "/sys/devices/virtual/infiniband/rxe0", "rxe: virtual")
check(d["links"]["items"][0]["type"] == "rxe" and d["links"]["items"][0]["netdev"] == "eth0", "rxe: link")
check([(m["name"], m["soft"]) for m in d["modules"]["items"] if m["soft"]] == [("rdma_rxe", True)],
      "rxe: soft module")
check(d["roce_udp"]["sockets"] == [
    {"protocol": "udp", "local_address": "0.0.0.0", "local_port": 4791, "state": 7, "uid": 0,
     "inode": 1335, "kernel_socket": True},
    {"protocol": "udp6", "local_address": "::", "local_port": 4791, "state": 7, "uid": 0,
     "inode": 1336, "kernel_socket": True}], "rxe: udp 4791")
check(d["summary"]["soft_devices"] == 1 and d["summary"]["udp_4791"] == 2, "rxe: summary")

d = audit("siw", 1)
common(d, "siw")
check([x[1] for x in alerts(d)] == ["RDMA-002", "RDMA-001", "RDMA-002"], f"siw: alerts {alerts(d)}")
dev = d["devices"]["items"][0]
check((dev["transport"], dev["soft_kind"], dev["soft_reason"], dev["node_type"]) ==
      ("iwarp", "siw", "node_desc", 4), "siw: device")
check(dev["pci"]["address"] == "0000:00:04.0" and dev["netdevs"] == ["eth1"], "siw: pci/netdev")

# The driverless RDMA cards and the pcileech card alert (issue 26); the rest of the machine does not.
d = audit("nodriver", 1)
common(d, "nodriver")
check(alerts(d) == [
    ("high", "DMA-001", "RDMA-capable PCI function 0000:05:00.0 (15b3:1013 Mellanox Technologies "
                        "MT27700 Family [ConnectX-4]) has no driver bound"),
    ("high", "DMA-001", "RDMA-capable PCI function 0000:06:00.0 (15b3:1017 Mellanox Technologies "
                        "MT27800 Family [ConnectX-5]) has no driver bound"),
    ("high", "DMA-001", "RDMA-capable PCI function 0000:07:00.0 (1077:7322 QLogic Corp. "
                        "IBA7322 QDR InfiniBand HCA) has no driver bound"),
    ("high", "DMA-002", "PCI function 0000:08:00.0 (10ee:0666 Xilinx Corporation Device 0666, "
                        "no driver) shows DMA-card tells"),
    ("high", "DMA-003", "No IOMMU translates the DMA of PCI function 0000:08:00.0 (10ee:0666 "
                        "Xilinx Corporation Device 0666, no driver, IOMMU domain identity)"),
    # the card's group is identity (and the tree has no IOMMU unit): the posture says so too
    ("medium", "DMA-004", "IOMMU protection weakened: 1 group of type identity; no IOMMU "
                          "translates DMA"),
], f"nodriver: alerts {alerts(d)}")
hw = {f["address"]: f for f in d["hardware"]["functions"]}
check(hw["0000:08:00.0"]["facts"] == ["bus_master_no_driver", "fpga_vendor", "dma_card_id",
                                      "identity_domain"], f"nodriver: card facts {hw['0000:08:00.0']['facts']}")
check(hw["0000:05:00.0"]["facts"] == ["class_mismatch", "rdma_no_driver", "imitated_no_driver"] and
      hw["0000:00:1f.6"]["facts"] == [], "nodriver: facts")
items = {p["address"]: p for p in d["pci"]["items"]}
check(sorted(items) == ["0000:00:1f.6", "0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:09:00.0"],
      "nodriver: pci items")
check(items["0000:05:00.0"]["driver"] is None and items["0000:05:00.0"]["rdma_class"] is True,
      "nodriver: IB card without driver")
check(items["0000:05:00.0"]["rdma_evidence"] == ["class", "vendor"], "nodriver: evidence")
dma = {p["address"]: p for p in d["dma"]["pci_functions"]}
check(dma["0000:08:00.0"]["bus_master"] is True and dma["0000:08:00.0"]["iommu_group_type"] == "identity",
      "nodriver: dma card")
check(dma["0000:09:00.0"]["driver_kind"] == "userspace", "nodriver: vfio")
check(d["summary"]["pci_rdma_no_driver"] == 3 and d["summary"]["rdma_present"] is True, "nodriver: summary")
check(d["roce_udp"]["sockets"] == [
    {"protocol": "udp", "local_address": "192.0.2.10", "local_port": 4791, "state": 7, "uid": 1000,
     "inode": 20001, "kernel_socket": False, "owner_pid": 6100, "owner_comm": "roce-user"}],
      "nodriver: a process on udp 4791")

# Broken: a copy with FIFOs, so that a read that would block is proven not to happen.
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(["cp", "-a", os.path.join(ROOTS, "broken") + "/.", tmp], check=True)
    bad0 = os.path.join(tmp, "sys/devices/pci0000:00/0000:00:03.0/infiniband/bad0")
    os.unlink(os.path.join(bad0, "fw_ver"))
    os.mkfifo(os.path.join(bad0, "fw_ver"))
    os.unlink(os.path.join(tmp, "proc/cmdline"))
    os.mkfifo(os.path.join(tmp, "proc/cmdline"))
    with open(os.path.join(bad0, "board_id"), "w") as f:
        f.write("z" * (1 << 20))
    rc, out, err = run("--root", tmp)
    check(rc == 1, f"broken: exit {rc} {err!r}")  # rdma_rxe is loaded: RDMA-002
    d = json.loads(out)
    errs = {e for dev in d["devices"]["items"] for e in dev.get("errors", [])}
    for e in ("/sys/class/infiniband/bad0/node_type: empty",
              "/sys/class/infiniband/bad0/fw_ver: not a regular file",
              "/sys/class/infiniband/bad0/board_id: value too long",
              "/sys/class/infiniband/loop0: symbolic link loop"):
        check(e in errs, f"broken: error {e!r} missing from {sorted(errs)}")
    check("/proc/cmdline: not a regular file" in d["dma"].get("errors", []), "broken: cmdline FIFO")
    check(d["dma"]["cmdline"] is None, "broken: cmdline null")
    check(d["summary"]["errors"] > 10, "broken: error count")
    rc, out, err = run("--root", tmp, "--format", "text")
    check(rc == 1 and "error: bad0: /sys/class/infiniband/bad0/fw_ver: not a regular file" in out,
          "broken: text shows errors")

# --- text format -------------------------------------------------------------------------------
rc, out, err = run("--root", os.path.join(ROOTS, "rxe"), "--format", "text")
check(rc == 1, "text: exit")
for line in ("RDMA present: yes; devices 1, soft devices 1",
             "== RDMA devices (1)",
             "  rxe0  roce       rxe   rdma_rxe  -    eth0     sysfs    1:ACTIVE/Ethernet",
             "  rxe0/1  ACTIVE  LINK_UP   eth0    roce       rxe",
             "== RoCE v2 sockets (UDP 4791) (2)",
             "== Alerts (6)",
             "  [high] RDMA-002 Software RDMA link created or rxe/siw module loaded: Software RDMA on this machine (module_present rdma_rxe)",
             "  skipped: cannot be redirected below --root (it asks the running kernel); run without --root"):
    check(line in out.splitlines() or line in out, f"text: no line {line!r}")
check(out.startswith("rdmaguard "), "text: header")

# --- exit codes and usage ----------------------------------------------------------------------
rc, out, err = run("--help")
check(rc == 0 and out.startswith("Usage: rdmaguard audit") and "--root DIR" in out, "--help")
rc, out, err = run("--root", "/nonexistent/root")
check(rc == 2 and "--root /nonexistent/root" in err and out == "", f"bad --root: {rc} {err!r}")
rc, out, err = run("--format", "xml")
check(rc == 2 and "--format must be json or text" in err, f"bad --format: {rc} {err!r}")
rc, out, err = run("--policy", "/nonexistent/policy.json")
check(rc == 2 and "--policy /nonexistent/policy.json" in err, f"bad --policy: {rc} {err!r}")
rc, out, err = run("--rules", "/etc/hostname")
check(rc == 2 and "--rules /etc/hostname" in err, f"bad --rules: {rc} {err!r}")
rc, out, err = run("extra")
check(rc == 2 and "unexpected argument 'extra'" in err, f"extra arg: {rc} {err!r}")
rc, out, err = run("--bogus")
check(rc == 2, f"bogus option: {rc}")
def policy_run(root, text, *extra):
    with tempfile.NamedTemporaryFile("w", suffix=".json") as pol:
        pol.write(text)
        pol.flush()
        rc, out, err = run("--root", os.path.join(ROOTS, root), "--policy", pol.name, *extra)
        return rc, out, err, pol.name


# A policy: an allowlisted tool and a higher threshold.
rc, out, err, name = policy_run("mlx5-roce", """{"role": "managed", "threshold": "high",
    "allow": [{"exe": "/usr/bin/ib_write_bw"}]}""")
check(rc == 0, f"policy high: exit {rc} {err!r}")
d = json.loads(out)
check(alerts(d) == [("medium", "RDMA-001",
                     "RDMA device mlx5_0 (roce, driver mlx5_core) is present on a managed machine")],
      f"policy allow: alerts {alerts(d)}")
check(d["evaluation"]["policy_file"] == name and d["evaluation"]["threshold"] == "high",
      "policy in the report")
rc, out, err, name = policy_run("rxe", """{"role": "managed", "threshold": "high"}""")
check(rc == 1, f"policy high on rxe: exit {rc}")
# An RDMA server: the managed-desktop rules do not apply.
rc, out, err, name = policy_run("mlx5-roce", """{"role": "server"}""")
check(rc == 0 and json.loads(out)["alerts"] == [], f"policy server: exit {rc}")
# A broken policy: exit 2 with file:line:column.
rc, out, err, name = policy_run("desktop", """{"role": "managed",\n "thresold": "high"}""")
check(rc == 2 and err.startswith(name + ":2:") and out == "", f"bad policy: {rc} {err!r}")
with tempfile.TemporaryDirectory() as rules:
    rc, out, err = run("--root", os.path.join(ROOTS, "desktop"), "--rules", rules)
    check(rc == 2 and rules in err, f"empty rules dir: {rc} {err!r}")

# --- this machine ---------------------------------------------------------------------------------
rc, out, err = run()
d = json.loads(out)
# Exit 1 exactly when some alert reaches the threshold (e.g. a qemu here maps libibverbs).
at = d["evaluation"]["at_or_above_threshold"]
check(rc == (1 if at else 0), f"host: exit {rc} with {at} alerts at or above the threshold {err!r}")
check(d["root"] == "/", "host: root")
check(isinstance(d["processes"]["scanned"], int) and d["processes"]["scanned"] > 0, "host: processes")
if not os.path.exists("/sys/class/infiniband"):
    check(d["summary"]["devices"] == 0 and d["summary"]["rdma_present"] is False, "host: no RDMA")
    check("does not exist" in d["devices"].get("note", ""), "host: devices note")
    for src in ("verbs", "netlink"):
        check("ib_core" in d[src].get("skipped", ""), f"host: {src} skipped because of ib_core")
    if d["summary"]["rdma_processes"] == 0:
        check(rc == 0 and d["alerts"] == [], "host: no RDMA at all, no alert, exit 0")
rc2, out, err = run("--format", "text")
check(rc2 in (0, 1) and "RDMA present:" in out, "host: text")

print(f"{checks} checks, {len(failures)} failures")
sys.exit(1 if failures else 0)
