# SPDX-License-Identifier: GPL-2.0-or-later
"""The key facts of every default rule's alerts, written down by hand from the rule (rules/*.json),
the input events (tests/fixtures/events/NAME.jsonl) and the fixture's policy, never copied from
the binary's output: test_rule_facts.py checks the binary against them. NAME.expected.jsonl (all
fields, written by test_rule_fixtures.py --update) catches any change; these catch a wrong one
that --update would have written down.

FACTS[NAME] is every alert the replay of NAME.jsonl must raise, in any order; each a dict of
dotted field paths and values, None for a field that must be absent. The policy is
tests/fixtures/events/policy.json (managed, the game Arena = /opt/arena/*, ibv_devinfo allowed,
ib_write_bw allowed on mlx5_0 only, mr_max_bytes 1 GiB, the default 60 s window) unless
NAME.policy.json exists. Repeats (README "Repeats"): the first match for a process and object
alerts at once with count 1; the later ones within the window come out as one alert at the end
of the replay, with their count and the last one's fields.
"""


def a(rule, severity, pid, count=1, **fields):
    """An alert: rule.id, severity, process.pid (None: no process), count and other fields
    (dotted paths of the alert, in ECS's names, written with __ for the dots)."""
    f = {"rule.id": rule, "rdmaguard.severity": severity, "process.pid": pid,
         "rdmaguard.count": count}
    f.update({k.replace("__", "."): v for k, v in fields.items()})
    return f


FACTS = {
    # agent_lost: medium, high from 1000 lost; repeats by agent.what.
    "AGENT-001": [
        a("AGENT-001", "medium", None, rdmaguard__agent__what="ringbuf", rdmaguard__agent__count=57,
          message="57 events lost (ringbuf) cpu 3"),
        a("AGENT-001", "high", None, rdmaguard__agent__what="queue", rdmaguard__agent__count=5000),
        # the second ringbuf loss, 1 s later: a repeat, reported with its own count of 2 lost
        a("AGENT-001", "medium", None, rdmaguard__agent__what="ringbuf", rdmaguard__agent__count=2),
    ],
    # only the sensor that is not ok
    "AGENT-002": [
        a("AGENT-002", "high", None, rdmaguard__agent__what="lsm/file_open",
          message="Sensor lsm/file_open degraded or detached: BPF LSM not active: falling back "
                  "to tracepoints"),
    ],
    # no aggregation: every load and every rejection; a rejection is high
    "AGENT-003": [
        a("AGENT-003", "info", None,
          message="Policy /etc/rdmaguard/policy.json loaded (13 rules)"),
        a("AGENT-003", "high", None, rdmaguard__agent__what="/etc/rdmaguard/policy.json"),
        a("AGENT-003", "high", None, rdmaguard__agent__what="/etc/rdmaguard/policy.json"),
    ],
    # each tampering once; the refused link detach (no ok) is high; tc has no process
    "AGENT-004": [
        a("AGENT-004", "critical", 4100, rdmaguard__agent__what="bpf_map_update_elem",
          process__executable="/usr/sbin/bpftool"),
        a("AGENT-004", "high", 4101, rdmaguard__agent__what="bpf_link_detach"),
        a("AGENT-004", "critical", None, rdmaguard__agent__what="tc_filter"),
        a("AGENT-004", "critical", 4200, rdmaguard__agent__what="signal"),
    ],
    # driverless ConnectX-4 (alert), the allowed ConnectX-5 Ex 15b3:1019 (none), the QLogic HCA
    # whose allow entry expired in 2025 (alert), mlx5 with its driver (none); 05:00.0 removed
    # (none) and added again (a repeat of the first, and DMA-005); then with Arena running a new
    # driverless one: critical, with DMA-005
    "DMA-001": [
        a("DMA-001", "high", None, rdmaguard__pci__address="0000:05:00.0",
          rdmaguard__pci__vendor_id="0x15b3",
          message="RDMA-capable PCI function 0000:05:00.0 (15b3:1013 Mellanox Technologies "
                  "MT27700 Family [ConnectX-4]) has no driver bound"),
        a("DMA-001", "high", None, rdmaguard__pci__address="0000:07:00.0",
          rdmaguard__pci__device_id="0x7322"),
        a("DMA-005", "high", None, rdmaguard__pci__address="0000:05:00.0",
          rdmaguard__pci__change="add"),
        a("DMA-001", "critical", None, rdmaguard__pci__address="0000:0b:00.0",
          rdmaguard__game__name="Arena"),
        a("DMA-005", "critical", None, rdmaguard__pci__address="0000:0b:00.0"),
        a("DMA-001", "high", None, rdmaguard__pci__address="0000:05:00.0",
          event__action="pci_change"),
    ],
    # pcileech's stock IDs; a driverless bus master without PM; a looping capability list even
    # with a driver; a DSN shared with the allowed capture card (which itself is allowed); not: a
    # bus master without driver alone or with a class mismatch (an NVMe the firmware left bus
    # mastering), a class mismatch alone, the removal
    "DMA-002": [
        a("DMA-002", "high", None, rdmaguard__pci__address="0000:08:00.0",
          rdmaguard__pci__vendor_id="0x10ee",
          rdmaguard__pci__device_id="0x0666", rdmaguard__pci__fact__dma_card_id=True,
          message="PCI function 0000:08:00.0 (10ee:0666 Xilinx Corporation Device 0666, no "
                  "driver) shows DMA-card tells"),
        a("DMA-002", "high", None, rdmaguard__pci__address="0000:09:00.0",
          rdmaguard__pci__fact__no_pm_cap=True),
        a("DMA-002", "high", None, rdmaguard__pci__address="0000:0c:00.0",
          rdmaguard__pci__driver="xhci_hcd"),
        # the Elgato carrying the 10ee:7024 card's DSN is DMA-013's, naming the other holder;
        # the unreadable I225-V (could not be examined) raises no DMA-002; driverless with no
        # IOMMU and nothing else to tell, it is DMA-014's (medium), whatever its bus-master bit
        a("DMA-013", "high", None, rdmaguard__pci__address="0000:0f:00.0", rdmaguard__pci__fact__dsn_duplicate=True,
          rdmaguard__pci__dsn_original="0000:0a:00.0"),
        a("DMA-014", "medium", None, rdmaguard__pci__address="0000:11:00.0",
          message="No IOMMU translates the DMA of PCI function 0000:11:00.0 (8086:15f3 Intel "
                  "Corporation Ethernet Controller I225-V, no driver, IOMMU domain none) of a "
                  "kind DMA cards imitate"),
    ],
    # masked cards: the RT5392 clone (its driver exists, MSI on), the Sound Blaster clone (its
    # driver exists, DSN zero), the RTL8168 whose probe failed, the bound e1000e whose link is up
    # but whose vectors never counted (not breathing), and the hot-added RTL8168 with the
    # Xilinx link; not: the Crystal HD decoder (driverless bus
    # master alone: DMA-012's), the IOMMU function, the bound I225-V, the card's removal
    "DMA-011": [
        a("DMA-011", "high", None, rdmaguard__pci__address="0000:03:00.0",
          rdmaguard__pci__driver_available="rt2800pci",
          message="PCI function 0000:03:00.0 (1814:5392 Ralink corp. RT5392 PCIe Wireless "
                  "Network Adapter, no driver) shows the tells of a masked DMA card"),
        a("DMA-011", "high", None, rdmaguard__pci__address="0000:04:00.0",
          rdmaguard__pci__fact__dsn_zero=True),
        a("DMA-011", "high", None, rdmaguard__pci__address="0000:05:00.0",
          rdmaguard__pci__fact__driver_probe_failed=True),
        a("DMA-012", "medium", None, rdmaguard__pci__address="0000:06:00.0"),
        a("DMA-011", "high", None, rdmaguard__pci__address="0000:08:00.0",
          rdmaguard__pci__fact__not_breathing=True,
          rdmaguard__pci__driver="e1000e"),
        a("DMA-005", "high", None, rdmaguard__pci__address="0000:09:00.0"),
        a("DMA-011", "high", None, rdmaguard__pci__address="0000:09:00.0",
          rdmaguard__pci__fact__fpga_link=True),
    ],
    # the Crystal HD decoder; not: the SMBus controller (chipset), the driverless RTL8168 that
    # does not master the bus
    "DMA-012": [
        a("DMA-012", "medium", None, rdmaguard__pci__address="0000:06:00.0",
          message="PCI function 0000:06:00.0 (14e4:1615 Broadcom Inc. and subsidiaries BCM70015 "
                  "Video Decoder [Crystal HD]) masters the bus with no driver bound"),
    ],
    # the copy of e1000e's DSN, naming the original; not the original, bound with its netdev
    "DMA-013": [
        a("DMA-012", "medium", None, rdmaguard__pci__address="0000:04:00.0"),
        a("DMA-013", "high", None, rdmaguard__pci__address="0000:04:00.0",
          message="PCI function 0000:04:00.0 (8086:10d3 Intel Corporation 82574L Gigabit Network "
                  "Connection, no driver) carries serial number 52-54-00-ff-ff-12-34-56 of "
                  "0000:01:00.0"),
    ],
    # the stock pcileech card in an identity domain (and its DMA-002), vfio-pci with no IOMMU
    # group; bus mastering off, but no driver (the card's own bit is not believed): the RTL8168
    # clone whose driver exists (and its DMA-011), the edu card's class no real device uses, the
    # Crystal HD decoder with nothing but its kind (DMA-014's, medium); not: a translated group,
    # the root bus's host bridge and AHCI controller (the chipset's), a host-bridge class, an AMD
    # processor's instrumentation function and an SMBus controller off the root bus (chipset
    # kinds with no tell), e1000e's function, a bridge, a function whose config space could not
    # be read (class 0 as it came)
    "DMA-003": [
        a("DMA-002", "high", None, rdmaguard__pci__address="0000:08:00.0"),
        a("DMA-003", "high", None, rdmaguard__pci__address="0000:08:00.0", rdmaguard__pci__iommu__type="identity",
          message="No IOMMU translates the DMA of PCI function 0000:08:00.0 (10ee:0666 Vendor "
                  "10ee Device 0666, no driver, IOMMU domain identity)"),
        a("DMA-003", "high", None, rdmaguard__pci__address="0000:09:00.0", rdmaguard__pci__driver="vfio-pci"),
        a("DMA-003", "high", None, rdmaguard__pci__address="0000:05:00.0", rdmaguard__pci__iommu__type="identity"),
        a("DMA-011", "high", None, rdmaguard__pci__address="0000:05:00.0"),
        a("DMA-003", "high", None, rdmaguard__pci__address="0000:0a:00.0", rdmaguard__pci__class="0xff00"),
        a("DMA-014", "medium", None, rdmaguard__pci__address="0000:0b:00.0"),
    ],
    # the Crystal HD decoder with no IOMMU, bus mastering off; while the game runs, a hot-added
    # driverless Wi-Fi function (high, and its DMA-005); not: the decoder in a translated group,
    # the seat baseline's own driverless NIC, the root bus's audio function; the clone whose
    # driver exists is DMA-003's and DMA-011's
    "DMA-014": [
        a("DMA-014", "medium", None, rdmaguard__pci__address="0000:06:00.0",
          message="No IOMMU translates the DMA of PCI function 0000:06:00.0 (14e4:1615 Broadcom "
                  "Inc. and subsidiaries BCM70015 Video Decoder [Crystal HD], no driver, IOMMU "
                  "domain none) of a kind DMA cards imitate"),
        a("DMA-003", "high", None, rdmaguard__pci__address="0000:04:00.0"),
        a("DMA-011", "high", None, rdmaguard__pci__address="0000:04:00.0"),
        a("DMA-005", "critical", None, rdmaguard__pci__address="0000:09:00.0"),
        a("DMA-014", "high", None, rdmaguard__pci__address="0000:09:00.0", rdmaguard__game__name="Arena"),
    ],
    # iommu=pt, Thunderbolt without DMA protection, group 5 switched to identity; not: no IOMMU,
    # Thunderbolt protected, group 5 back to DMA; never aggregated
    "DMA-004": [
        a("DMA-004", "medium", None, rdmaguard__iommu__cmdline="iommu=pt",
          message="IOMMU protection weakened: command line iommu=pt"),
        a("DMA-004", "medium", None, rdmaguard__thunderbolt__iommu_dma_protection=0),
        a("DMA-004", "medium", None, rdmaguard__iommu__group=5, rdmaguard__iommu__type="identity",
          message="IOMMU protection weakened: group 5 switched from DMA-FQ to identity"),
        a("DMA-004", "medium", None, rdmaguard__iommu__identity_groups=3),
    ],
    # no IOMMU on a seat whose policy requires one; not the one that has one
    "DMA-004-require": [
        a("DMA-004", "medium", None,
          message="IOMMU protection weakened: no IOMMU translates DMA"),
    ],
    # edu hot-added; not its removal, not the allowed 15b3:1019, not a bind; with Arena running
    # a second one: critical
    "DMA-005": [
        a("DMA-005", "high", None, rdmaguard__pci__address="0000:01:00.0",
          message="PCI function 0000:01:00.0 (1234:11e8 Red Hat, Inc. ) appeared at runtime"),
        a("DMA-005", "critical", None, rdmaguard__pci__address="0000:02:00.0"),
    ],
    # every device faulting: edu's first fault at once, its burst of 64 as the repeat, i915's
    "DMA-006": [
        a("DMA-006", "high", None, rdmaguard__pci__address="0000:01:00.0",
          rdmaguard__dma__fault__count=1,
          rdmaguard__dma__fault__address=4096,
          message="The IOMMU refused 1 DMA accesses of 0000:01:00.0 (1234:11e8), the first at "
                  "4096: PTE Read access is not set"),
        a("DMA-006", "high", None, rdmaguard__pci__address="0000:00:02.0",
          rdmaguard__pci__driver="i915"),
        a("DMA-006", "high", None, rdmaguard__pci__address="0000:01:00.0",
          rdmaguard__dma__fault__count=64),
        # a fault logged before the daemon started, then one now: two alerts, not one repeat
        a("DMA-006", "high", None, rdmaguard__pci__address="0000:03:00.0",
          rdmaguard__dma__fault__address=4096,
          rdmaguard__event__flags=["historical"]),
        a("DMA-006", "high", None, rdmaguard__pci__address="0000:03:00.0",
          rdmaguard__dma__fault__address=8192),
    ],
    # only the authorisation while Arena runs; not the dock before it, not the unauthorised add
    "DMA-007": [
        a("DMA-007", "critical", None, rdmaguard__thunderbolt__device="0-3",
          rdmaguard__thunderbolt__change="authorize",
          message="Thunderbolt device 0-3 (8086:15ef Intel ) authorised while Arena runs"),
    ],
    # added, changed (naming what), removed (medium); not the allowed 15b3:1019; added while
    # Arena runs: critical
    "DMA-008": [
        a("DMA-008", "high", None, rdmaguard__pci__address="0000:05:00.0",
          rdmaguard__baseline__change="added"),
        a("DMA-008", "high", None, rdmaguard__pci__address="0000:03:00.0",
          rdmaguard__baseline__change="changed",
          rdmaguard__baseline__diff="dsn 00-e0-4c-00-00-01 -> none; capabilities "
                                    "0x01,0x05,0x10,0x11 -> 0x05,0x10"),
        a("DMA-008", "medium", None, rdmaguard__pci__address="0000:02:00.0",
          rdmaguard__baseline__change="removed"),
        a("DMA-008", "critical", None, rdmaguard__pci__address="0000:07:00.0"),
    ],
    # each action of hardware enforcement, saying which; not the plain add before it (DMA-005's);
    # the removal while Arena runs: critical; a failure too
    "DMA-009": [
        a("DMA-009", "high", None, rdmaguard__pci__address="0000:01:00.0",
          rdmaguard__pci__enforcement="done: bus mastering cleared",
          message="Hardware enforcement on PCI function 0000:01:00.0 (1234:11e8 Red Hat, Inc. ): "
                  "done: bus mastering cleared"),
        a("DMA-005", "high", None, rdmaguard__pci__address="0000:02:00.0"),
        a("DMA-009", "critical", None, rdmaguard__pci__address="0000:02:00.0",
          rdmaguard__pci__enforcement="done: removed from the bus"),
        a("DMA-009", "critical", None, rdmaguard__pci__address="0000:03:00.0",
          rdmaguard__pci__enforcement="failed: removed from the bus (Permission denied)"),
    ],
    # RDMA drivers refused while Arena runs: critical, naming the driver and what was done; a
    # failure too; not the bind before it, not DMA-001 for the function the unbind left
    # driverless, not a plain unbind; the removal beside them is DMA-009's, not DMA-010's
    "DMA-010": [
        a("DMA-010", "critical", None, rdmaguard__pci__address="0000:04:00.0",
          rdmaguard__pci__driver="mlx5_core",
          rdmaguard__pci__change="unbind",
          rdmaguard__pci__enforcement="done: mlx5_core unbound, driver_override rdmaguard-refused",
          message="Hardware enforcement refused driver mlx5_core to PCI function 0000:04:00.0 "
                  "(15b3:1017 Mellanox Technologies MT27800 Family [ConnectX-5]), new while "
                  "Arena runs: done: mlx5_core unbound, driver_override rdmaguard-refused"),
        a("DMA-010", "critical", None, rdmaguard__pci__address="0000:05:00.0",
          rdmaguard__pci__driver="bnxt_en",
          rdmaguard__pci__enforcement="failed: bnxt_en unbound (Permission denied), "
                                      "driver_override not "
                                      "set (Permission denied)"),
        a("DMA-009", "critical", None, rdmaguard__pci__address="0000:02:00.0",
          rdmaguard__pci__enforcement="done: removed from the bus"),
    ],
    # mlx5_0 seen twice (the second a repeat), mlx5_1 added; the PCI function alone is nothing
    "RDMA-001": [
        a("RDMA-001", "medium", None, rdmaguard__rdma__device="mlx5_0",
          message="RDMA device mlx5_0 (roce, driver mlx5_core) is present on a managed machine"),
        a("RDMA-001", "medium", None, rdmaguard__rdma__device="mlx5_1"),
        a("RDMA-001", "medium", None, rdmaguard__rdma__device="mlx5_0"),
    ],
    # a server: nothing
    "RDMA-001-server": [],
    # mlx5_ib is no soft RDMA; rxe's module, modprobe's siw, then with Arena running the rxe0
    # link (critical, and RDMA-001 for the device) and rxe's module again (a critical repeat)
    "RDMA-002": [
        a("RDMA-002", "high", None, rdmaguard__module__name="rdma_rxe"),
        a("RDMA-002", "high", 300, rdmaguard__module__name="siw"),
        a("RDMA-002", "critical", None, rdmaguard__rdma__device="rxe0"),
        a("RDMA-001", "medium", None, rdmaguard__rdma__device="rxe0"),
        a("RDMA-002", "critical", None, rdmaguard__module__name="rdma_rxe"),
    ],
    # python3's libibverbs (then a repeat of it) and librdmacm, pid 402's provider; not the
    # allowed ibv_devinfo
    "RDMA-003": [
        a("RDMA-003", "medium", 400, rdmaguard__rdma__library="libibverbs",
          message="python3 (400) loaded /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
        a("RDMA-003", "medium", 402, rdmaguard__rdma__library="provider"),
        a("RDMA-003", "medium", 400, rdmaguard__rdma__library="libibverbs"),
        a("RDMA-003", "medium", 400, rdmaguard__rdma__library="librdmacm"),
    ],
    # probe's uverbs0 (its rdma_cm is not uverbs), ib_write_bw's uverbs1 on rxe0 (allowed on
    # mlx5_0 only), then with Arena running probe's uverbs2: high, and RDMA-006
    "RDMA-004": [
        a("RDMA-004", "medium", 500, file__path="/dev/infiniband/uverbs0",
          message="probe (500) opened /dev/infiniband/uverbs0 (rxe0)"),
        a("RDMA-004", "medium", 502, file__path="/dev/infiniband/uverbs1"),
        a("RDMA-004", "high", 500, file__path="/dev/infiniband/uverbs2",
          rdmaguard__rdma__device="siw0"),
        a("RDMA-006", "critical", 500, event__action="device_open"),
    ],
    # remote_write on rxe0, remote_read (dmabuf) on mlx5_0; not local_write, not ibv_devinfo
    "RDMA-005": [
        a("RDMA-005", "high", 600, rdmaguard__rdma__device="rxe0",
          rdmaguard__rdma__mr__length=65536),
        a("RDMA-005", "high", 600, rdmaguard__rdma__device="mlx5_0",
          rdmaguard__rdma__op="reg_dmabuf_mr"),
    ],
    # a server: only the registration made while Arena runs (critical), and RDMA-006
    "RDMA-005-server": [
        a("RDMA-005", "critical", 600, rdmaguard__rdma__mr__access=["remote_atomic"]),
        a("RDMA-006", "critical", 600, rdmaguard__rdma__op="reg_mr"),
    ],
    # kernel RDMA through sockets (AF_RDS, AF_SMC): rdsbridge's RDS_GET_MR before the game
    # (high) and its RDS_CMSG_RDMA_MAP while Arena runs (critical, a repeat of the same object:
    # rds); its process_vm_readv of Arena (RDMA-008: has_rdma from the RDS socket alone); its
    # RDMA write to 192.0.2.2 (RDMA-009, RDMA-006 and the rdma_map repeat); smcpeer's SMC connect
    # and accept (RDMA-009 each, RDMA-006 with the accept as a repeat of 2); tryrds's refused
    # socket(AF_RDS) (RDMA-006: an attempt) but no RDMA-005 for its SOL_RDS option on a UDP
    # socket and no RDMA-008 (a refused socket is no RDMA use); the game's own RDS socket
    "RDMA-005-sockets": [
        a("RDMA-005", "high", 700, rdmaguard__rdma__op="get_mr", rdmaguard__rdma__mr__length=8192,
          rdmaguard__rdma__socket__family="rds",
          message="rdsbridge (700) registered a 8192-byte memory region with access "
                  "local_write,remote_write,remote_read on rds"),
        a("RDMA-005", "critical", 700, rdmaguard__rdma__op="rdma_map",
          rdmaguard__rdma__mr__length=65536),
        a("RDMA-008", "critical", 700, rdmaguard__memory__op="process_vm_readv",
          rdmaguard__target__process__pid=710),
        a("RDMA-006", "critical", 700, rdmaguard__rdma__op="rdma_write"),
        a("RDMA-006", "critical", 700, rdmaguard__rdma__op="rdma_map"),
        a("RDMA-009", "critical", 700, rdmaguard__rdma__op="rdma_write",
          rdmaguard__rdma__peer__address="192.0.2.2",
          rdmaguard__rdma__peer__port=18601),
        a("RDMA-006", "critical", 720, rdmaguard__rdma__op="socket",
          rdmaguard__rdma__socket__family="smc"),
        a("RDMA-006", "critical", 720, count=2, rdmaguard__rdma__op="accept"),
        a("RDMA-009", "critical", 720, rdmaguard__rdma__op="connect",
          rdmaguard__rdma__peer__address="192.0.2.2",
          rdmaguard__rdma__peer__port=5000),
        a("RDMA-009", "critical", 720, rdmaguard__rdma__op="accept",
          rdmaguard__rdma__peer__address="192.0.2.3"),
        a("RDMA-006", "critical", 730, rdmaguard__rdma__op="socket", rdmaguard__rdma__ret=-97),
        a("RDMA-007", "critical", 710, event__action="rdma_socket", rdmaguard__rdma__op="socket"),
    ],
    # helper's rdma_cm and verbs while Arena runs; not ibv_devinfo; nothing after Arena exits
    "RDMA-006": [
        a("RDMA-006", "critical", 701, event__action="rdma_cm",
          message="helper (701) used RDMA (rdma_cm create_id) while Arena runs"),
        a("RDMA-006", "critical", 701, event__action="verbs", rdmaguard__rdma__op="query_device"),
    ],
    # the game itself: its library (and RDMA-003, high as the game runs) and its uverbs0 (and
    # RDMA-004, high)
    "RDMA-007": [
        a("RDMA-007", "critical", 800, event__action="library_load"),
        a("RDMA-003", "high", 800, rdmaguard__rdma__library="libibverbs"),
        a("RDMA-007", "critical", 800, event__action="device_open"),
        a("RDMA-004", "high", 800, file__path="/dev/infiniband/uverbs0"),
    ],
    # bridge opens uverbs0 before the game (RDMA-004), reads Arena's memory; its forked child
    # writes it; gdb (no RDMA) and bridge reading systemd raise nothing
    "RDMA-008": [
        a("RDMA-004", "medium", 901, file__path="/dev/infiniband/uverbs0"),
        a("RDMA-008", "critical", 901, rdmaguard__memory__op="process_vm_readv",
          rdmaguard__target__process__pid=900,
          message="bridge (901), which uses RDMA, did process_vm_readv on Arena (900)"),
        a("RDMA-008", "critical", 903, rdmaguard__memory__op="process_vm_writev",
          rdmaguard__target__process__pid=900),
    ],
    # QP 17 to RTR (then RTS: a repeat), the rdma_cm connect, the kernel's table's QP 17 (no
    # peer: another object); not INIT, not the kernel's own QP, not ibv_devinfo
    "RDMA-009": [
        a("RDMA-009", "high", 1000, rdmaguard__rdma__qp__state="rtr",
          rdmaguard__rdma__peer__gid="::ffff:192.0.2.50"),
        a("RDMA-009", "high", 1000, rdmaguard__rdma__qp__state="rts",
          rdmaguard__rdma__peer__gid="::ffff:192.0.2.50"),
        a("RDMA-009", "high", 1000, event__action="rdma_cm",
          rdmaguard__rdma__peer__address="198.51.100.7"),
        a("RDMA-009", "high", 1000, event__action="qp_present", rdmaguard__rdma__qp__num=17),
    ],
    # the implicit MR on mlx5_0, the 2 GiB one (a repeat), the 4 GiB MR in rxe0's table; not
    # 1 MiB, not the kernel's own MR
    "RDMA-010": [
        a("RDMA-010", "high", 1100, rdmaguard__rdma__device="mlx5_0",
          rdmaguard__rdma__mr__length=18446744073709551615),
        a("RDMA-010", "high", 1100, rdmaguard__rdma__device="mlx5_0",
          rdmaguard__rdma__mr__length=2147483648),
        a("RDMA-010", "high", 1100, rdmaguard__rdma__device="rxe0",
          rdmaguard__rdma__mr__length=4294967296),
    ],
    # every denial and the kill: rdma_cm twice (a repeat), create_qp, then with Arena running
    # (critical) modprobe's rxe and the rxe1 link (with RDMA-002; RDMA-001 skips denied
    # devices), and the killed ib_write_bw on rxe0 (with RDMA-004 and RDMA-006)
    "RDMA-011": [
        a("RDMA-011", "high", 500, file__path="/dev/infiniband/rdma_cm"),
        a("RDMA-011", "high", 500, file__path="/dev/infiniband/rdma_cm"),
        a("RDMA-011", "high", 500, rdmaguard__rdma__op="create_qp"),
        a("RDMA-011", "critical", 520, rdmaguard__module__name="rdma_rxe"),
        a("RDMA-002", "critical", 520, rdmaguard__module__name="rdma_rxe"),
        a("RDMA-011", "critical", 521, rdmaguard__rdma__device="rxe1"),
        a("RDMA-002", "critical", 521, rdmaguard__rdma__device="rxe1"),
        a("RDMA-011", "critical", 530, file__path="/dev/infiniband/uverbs0"),
        a("RDMA-004", "high", 530, file__path="/dev/infiniband/uverbs0"),
        a("RDMA-006", "critical", 530, event__action="device_open"),
    ],
    # RDMA-012.policy.json: seats 10.0.0.0/24, server 10.0.9.5. Medium, raised one step for the
    # unknown peer (high); high while Arena runs, raised to critical. The seat's and the
    # server's traffic (nothing dropped) alert nothing; 192.0.2.77's second drop is a repeat.
    "RDMA-012": [
        # T1095 is a Command and Control technique (ATT&CK), not Collection
        a("RDMA-012", "high", None, destination__ip="192.0.2.77",
          rdmaguard__peer__class="unknown", rdmaguard__rdma__traffic__packets_dropped=12,
          threat__tactic__id="TA0011", threat__technique__id="T1095",
          message="RDMA traffic with unmanaged peer 192.0.2.77 dropped on eth0: 12 packets"),
        a("RDMA-012", "high", None, destination__ip="192.0.2.78", network__iana_number=6,
          rdmaguard__peer__class="unknown", rdmaguard__rdma__traffic__packets_dropped=3),
        a("RDMA-012", "critical", None, destination__ip="192.0.2.79",
          rdmaguard__peer__class="unknown", rdmaguard__rdma__traffic__packets_dropped=7),
        a("RDMA-012", "high", None, destination__ip="192.0.2.77",
          rdmaguard__rdma__traffic__packets_dropped=30, labels__seat="B-12"),
    ],
}
