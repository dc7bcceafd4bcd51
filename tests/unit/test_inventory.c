/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inventory sources on fixture roots (tests/fixtures/roots/, made by generate.py there): exact
 * field values per machine model; caps on roots built at run time; hostile files (FIFOs, huge,
 * garbage, loops) on a copy of the "broken" root.
 */
#include <arpa/inet.h>
#include <sys/sysmacros.h>

#include "inv_testutil.h"
#include "event/event_json.h"
#include "inventory/inv_internal.h"
#include "common/root.h"

static void assert_gid(const struct inv_gid *g, uint32_t index, const char *text, const char *type,
		       const char *netdev)
{
	char buf[64];

	ck_assert_uint_eq(g->index, index);
	gid_to_string(g->gid, buf);
	ck_assert_str_eq(buf, text);
	ck_assert_str_eq(g->type, type);
	ck_assert_str_eq(g->netdev, netdev);
}

/* --- core: one machine model each ------------------------------------------------------------ */

START_TEST(test_desktop)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("desktop", INV_F_ALL);
	const struct inv_pci *p;
	struct inv_summary s;

	ck_assert(!inv->is_host);
	ck_assert_str_eq(inv->hostname, "desktop-01");
	ck_assert_str_eq(inv->kernel_release, "6.1.0-13-amd64");
	ck_assert_uint_eq(inv->n_devices, 0);
	ck_assert_str_eq(inv->s_devices.note,
			 "no RDMA device: /sys/class/infiniband does not exist (no ib_core loaded)");
	ck_assert_ptr_null(inv->s_devices.error);
	/* Sources that ask the running kernel are skipped below --root. */
	ck_assert_ptr_nonnull(inv->s_verbs.skipped);
	ck_assert_ptr_nonnull(strstr(inv->s_verbs.skipped, "cannot be redirected below --root"));
	ck_assert_ptr_nonnull(inv->s_netlink.skipped);
	ck_assert(!inv->s_verbs.collected && !inv->s_netlink.collected);

	ck_assert_uint_eq(inv->n_pci, 6);
	p = find_pci(inv, "0000:00:1f.6");
	ck_assert_ptr_nonnull(p);
	ck_assert(p->rdma && !p->dma);
	ck_assert_uint_eq(p->evidence, INV_PCI_EV_VENDOR);
	ck_assert_uint_eq(p->vendor, 0x8086);
	ck_assert_uint_eq(p->device, 0x1a1c);
	ck_assert_uint_eq(p->class_code, 0x020000);
	ck_assert_uint_eq(p->subsys_vendor, 0x1028);
	ck_assert_uint_eq(p->subsys_device, 0x0b1a);
	ck_assert_str_eq(p->vendor_name, "Intel");
	ck_assert_str_eq(p->driver, "e1000e");
	ck_assert_str_eq(p->driver_module, "e1000e");
	ck_assert_uint_eq(p->driver_kind, INV_DRV_KERNEL);
	ck_assert_int_eq(p->iommu_group, 2);
	ck_assert_str_eq(p->iommu_group_type, "DMA-FQ");
	ck_assert_int_eq(p->bus_master, 1);
	ck_assert_uint_eq(p->n_netdevs, 1);
	ck_assert_str_eq(p->netdevs[0], "eno1");
	ck_assert_uint_eq(p->errors.n, 0);

	p = find_pci(inv, "0000:00:00.0");
	ck_assert(!p->rdma && p->dma);
	ck_assert_uint_eq(p->driver_kind, INV_DRV_NONE);
	ck_assert_int_eq(p->bus_master, 0);
	p = find_pci(inv, "0000:01:00.0");
	ck_assert(!p->rdma && p->dma);
	ck_assert_str_eq(p->driver, "nvidia");
	ck_assert_str_eq(p->driver_taint, "POE");
	ck_assert_uint_eq(p->driver_kind, INV_DRV_OUT_OF_TREE);
	p = find_pci(inv, "0000:00:02.0");
	ck_assert(!p->rdma && !p->dma);

	ck_assert_uint_eq(inv->dma.n_iommu_units, 2);
	ck_assert_str_eq(inv->dma.iommu_units[0], "dmar0");
	ck_assert_str_eq(inv->dma.iommu_units[1], "dmar1");
	ck_assert_uint_eq(inv->dma.n_iommu_groups, 5);
	ck_assert_uint_eq(inv->dma.n_group_types, 2);
	ck_assert_str_eq(inv->dma.group_types[0].type, "DMA");
	ck_assert_uint_eq(inv->dma.group_types[0].count, 1);
	ck_assert_str_eq(inv->dma.group_types[1].type, "DMA-FQ");
	ck_assert_uint_eq(inv->dma.group_types[1].count, 4);
	ck_assert(inv->dma.cmdline_read);
	ck_assert_str_eq(inv->dma.cmdline_iommu, "intel_iommu=on iommu=pt");
	ck_assert(inv->dma.tb_present);
	ck_assert_uint_eq(inv->dma.n_tb, 3);
	ck_assert_str_eq(inv->dma.tb[0].name, "0-0");
	ck_assert_int_eq(inv->dma.tb[0].authorized, -1);
	ck_assert_str_eq(inv->dma.tb[1].name, "0-1");
	ck_assert_int_eq(inv->dma.tb[1].authorized, 1);
	ck_assert_uint_eq(inv->dma.tb[1].vendor, 0xd4);
	ck_assert_uint_eq(inv->dma.tb[1].device, 0xb070);
	ck_assert_str_eq(inv->dma.tb[1].vendor_name, "Dell");
	ck_assert_str_eq(inv->dma.tb[1].device_name, "WD19TB Thunderbolt Dock");
	ck_assert_str_eq(inv->dma.tb[2].name, "domain0");
	ck_assert(inv->dma.tb[2].domain);
	ck_assert_str_eq(inv->dma.tb[2].security, "user");
	ck_assert_int_eq(inv->dma.tb[2].iommu_dma_protection, 1);

	ck_assert_uint_eq(inv->n_modules, 0);
	ck_assert_uint_eq(inv->modules_scanned, 4);
	ck_assert(!inv->devnodes_dir_present);
	ck_assert_uint_eq(inv->n_devnodes, 0);
	ck_assert_uint_eq(inv->n_uverbs + inv->n_umad, 0);
	ck_assert_uint_eq(inv->n_udp, 0);
	ck_assert_ptr_null(inv->s_udp.error);

	inventory_summary(inv, &s);
	ck_assert(!s.rdma_present);
	ck_assert_uint_eq(s.pci_rdma, 1);
	ck_assert_uint_eq(s.dma_functions, 2);
	ck_assert_uint_eq(s.rdma_processes, 0);
	ck_assert_uint_eq(s.processes_scanned, 5);
	ck_assert_uint_eq(s.errors, 0);
}
END_TEST

START_TEST(test_mlx5_roce)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("mlx5-roce", INV_F_ALL);
	const struct inv_device *d;
	const struct inv_port *p;
	const struct inv_pci *f;
	struct inv_summary s;

	ck_assert_uint_eq(inv->n_devices, 1);
	d = find_device(inv, "mlx5_0");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->sources, INV_SRC_SYSFS);
	ck_assert_str_eq(d->sysfs_path,
			 "/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0");
	ck_assert_uint_eq(d->node_type, 1);
	ck_assert_str_eq(d->node_type_name, "CA");
	ck_assert_str_eq(d->node_guid, "b859:9f03:00d1:2e3a");
	ck_assert_str_eq(d->sys_image_guid, "b859:9f03:00d1:2e3a");
	ck_assert_str_eq(d->fw_ver, "16.35.2000");
	ck_assert_str_eq(d->hca_type, "MT4119");
	ck_assert_str_eq(d->board_id, "MT_0000000080");
	ck_assert_str_eq(d->node_desc, "roce-host mlx5_0");
	ck_assert(!d->soft);
	ck_assert_str_eq(d->soft_kind, "");
	ck_assert_str_eq(d->parent, "");
	ck_assert_str_eq(d->driver, "mlx5_core");
	ck_assert(d->has_pci);
	ck_assert_str_eq(d->pci_addr, "0000:03:00.0");
	ck_assert_uint_eq(d->pci_vendor, 0x15b3);
	ck_assert_uint_eq(d->pci_device, 0x1017);
	ck_assert_uint_eq(d->pci_class, 0x020000);
	ck_assert_str_eq(d->pci_driver, "mlx5_core");
	ck_assert_uint_eq(d->n_netdevs, 1);
	ck_assert_str_eq(d->netdevs[0], "enp3s0f0np0");
	ck_assert_uint_eq(d->transport, RG_TRANSPORT_ROCE);
	ck_assert_uint_eq(d->errors.n, 0);
	ck_assert_uint_eq(d->n_ports, 1);
	p = &d->ports[0];
	ck_assert_uint_eq(p->num, 1);
	ck_assert_uint_eq(p->state, 4);
	ck_assert_str_eq(p->state_name, "ACTIVE");
	ck_assert_uint_eq(p->phys_state, 5);
	ck_assert_str_eq(p->phys_state_name, "LinkUp");
	ck_assert_str_eq(p->link_layer, "Ethernet");
	ck_assert_uint_eq(p->transport, RG_TRANSPORT_ROCE);
	ck_assert_str_eq(p->rate, "25 Gb/sec (1X EDR)");
	ck_assert(!p->has_lid);
	ck_assert_uint_eq(p->n_gids, 4); /* 8 entries, 4 empty */
	ck_assert(!p->gids_truncated);
	assert_gid(&p->gids[0], 0, "fe80::ba59:9fff:fed1:2e3a", "IB/RoCE v1", "enp3s0f0np0");
	assert_gid(&p->gids[1], 1, "fe80::ba59:9fff:fed1:2e3a", "RoCE v2", "enp3s0f0np0");
	assert_gid(&p->gids[2], 2, "::ffff:192.0.2.10", "IB/RoCE v1", "enp3s0f0np0");
	assert_gid(&p->gids[3], 3, "::ffff:192.0.2.10", "RoCE v2", "enp3s0f0np0");
	ck_assert_uint_eq(p->errors.n, 0);

	f = find_pci(inv, "0000:03:00.0");
	ck_assert(f->rdma && !f->dma);
	ck_assert_uint_eq(f->evidence, INV_PCI_EV_VENDOR | INV_PCI_EV_DRIVER | INV_PCI_EV_IBDEV);
	ck_assert_uint_eq(f->n_ib_devices, 1);
	ck_assert_str_eq(f->ib_devices[0], "mlx5_0");
	ck_assert_str_eq(f->vendor_name, "Mellanox");
	ck_assert_int_eq(f->iommu_group, 12);
	ck_assert_str_eq(f->iommu_group_type, "DMA");
	f = find_pci(inv, "0000:00:02.0"); /* an Intel PCIe bridge: not network, not RDMA */
	ck_assert(!f->rdma && !f->dma);

	/* Device nodes: sorted; fixture nodes are regular files (git stores no char devices). */
	ck_assert(inv->devnodes_dir_present);
	ck_assert_uint_eq(inv->n_devnodes, 4);
	ck_assert_str_eq(inv->devnodes[0].name, "issm0");
	ck_assert_uint_eq(inv->devnodes[0].kind, RG_NODE_ISSM);
	ck_assert_str_eq(inv->devnodes[1].name, "rdma_cm");
	ck_assert_uint_eq(inv->devnodes[1].kind, RG_NODE_RDMA_CM);
	ck_assert_str_eq(inv->devnodes[2].name, "umad0");
	ck_assert_uint_eq(inv->devnodes[2].kind, RG_NODE_UMAD);
	ck_assert_str_eq(inv->devnodes[3].name, "uverbs0");
	ck_assert_uint_eq(inv->devnodes[3].kind, RG_NODE_UVERBS);
	ck_assert_str_eq(inv->devnodes[3].type, "file");
	ck_assert_uint_eq(inv->n_uverbs, 1);
	ck_assert_str_eq(inv->classdevs[0].name, "uverbs0");
	ck_assert_str_eq(inv->classdevs[0].ibdev, "mlx5_0");
	ck_assert_str_eq(inv->classdevs[0].dev, "231:192");
	ck_assert_str_eq(inv->classdevs[0].abi_version, "1");
	ck_assert_str_eq(inv->uverbs_abi, "6");
	ck_assert_uint_eq(inv->n_umad, 2);
	ck_assert_str_eq(inv->classdevs[1].name, "issm0");
	ck_assert_str_eq(inv->classdevs[1].dev, "231:64");
	ck_assert_uint_eq(inv->classdevs[1].port, 1);
	ck_assert_str_eq(inv->classdevs[2].name, "umad0");
	ck_assert_str_eq(inv->classdevs[2].ibdev, "mlx5_0");
	ck_assert_str_eq(inv->classdevs[2].dev, "231:0");
	ck_assert_str_eq(inv->umad_abi, "5");
	ck_assert_str_eq(inv->rdma_cm_dev, "10:58");

	/* Modules in /proc/modules order; mlx5_core and ext4 are not RDMA modules. */
	ck_assert_uint_eq(inv->modules_scanned, 9);
	ck_assert_uint_eq(inv->n_modules, 7);
	ck_assert_str_eq(inv->modules[0].name, "mlx5_ib");
	ck_assert_uint_eq(inv->modules[0].kind, INV_MOD_HW);
	ck_assert_uint_eq(inv->modules[0].size, 475136);
	ck_assert_uint_eq(inv->modules[0].refcount, 0);
	ck_assert_str_eq(inv->modules[0].state, "Live");
	ck_assert_str_eq(inv->modules[1].name, "ib_uverbs");
	ck_assert_uint_eq(inv->modules[1].kind, INV_MOD_CORE);
	ck_assert_uint_eq(inv->modules[1].refcount, 2);
	ck_assert_str_eq(inv->modules[1].users, "rdma_ucm,mlx5_ib");
	ck_assert_str_eq(inv->modules[6].name, "ib_core");
	ck_assert_uint_eq(inv->modules[6].refcount, 6);
	for (unsigned i = 0; i < inv->n_modules; i++)
		ck_assert(!inv->modules[i].soft && !inv->modules[i].builtin);

	ck_assert_uint_eq(inv->n_udp, 0); /* hardware RoCE: no UDP 4791 socket */

	inventory_summary(inv, &s);
	ck_assert(s.rdma_present);
	ck_assert_uint_eq(s.devices, 1);
	ck_assert_uint_eq(s.soft_devices, 0);
	ck_assert_uint_eq(s.ports_active, 1);
	ck_assert_uint_eq(s.links, 1);
	ck_assert_uint_eq(s.pci_rdma, 1);
	ck_assert_uint_eq(s.device_nodes, 4);
	ck_assert_uint_eq(s.uverbs, 1);
	ck_assert_uint_eq(s.modules, 7);
	ck_assert_uint_eq(s.rdma_processes, 1);
	ck_assert_uint_eq(s.errors, 0);
}
END_TEST

START_TEST(test_ib_hca)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("ib-hca", INV_F_ALL);
	const struct inv_device *d = find_device(inv, "mlx4_0");
	const struct inv_port *p;
	const struct inv_pci *f;

	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->transport, RG_TRANSPORT_IB);
	ck_assert_str_eq(d->driver, "mlx4_core");
	ck_assert_str_eq(d->hca_type, "MT4099");
	ck_assert_str_eq(d->fw_ver, "2.42.5000");
	ck_assert_str_eq(d->sys_image_guid, "0002:c903:0031:7e43");
	ck_assert_str_eq(d->pci_addr, "0000:04:00.0");
	ck_assert_uint_eq(d->pci_class, 0x028000);
	ck_assert_uint_eq(d->n_netdevs, 2);
	ck_assert_str_eq(d->netdevs[0], "ib0");
	ck_assert_str_eq(d->netdevs[1], "ib1");
	ck_assert(!d->soft);
	ck_assert_uint_eq(d->n_ports, 2);
	p = &d->ports[0];
	ck_assert_str_eq(p->link_layer, "InfiniBand");
	ck_assert_uint_eq(p->transport, RG_TRANSPORT_IB);
	ck_assert_uint_eq(p->state, 4);
	ck_assert_str_eq(p->rate, "56 Gb/sec (4X FDR)");
	ck_assert(p->has_lid);
	ck_assert_uint_eq(p->lid, 3);
	ck_assert_uint_eq(p->sm_lid, 1);
	ck_assert_uint_eq(p->n_gids, 1);
	assert_gid(&p->gids[0], 0, "fe80::2:c903:31:7e41", "", "");
	p = &d->ports[1];
	ck_assert_uint_eq(p->num, 2);
	ck_assert_uint_eq(p->state, 1);
	ck_assert_str_eq(p->state_name, "DOWN");
	ck_assert_uint_eq(p->phys_state, 2);
	ck_assert_str_eq(p->phys_state_name, "Polling");
	ck_assert_uint_eq(p->lid, 0);
	assert_gid(&p->gids[0], 0, "fe80::2:c903:31:7e42", "", "");

	f = find_pci(inv, "0000:04:00.0");
	ck_assert(!f->rdma_class); /* ConnectX-3 reports "Network controller" (0x0280) */
	ck_assert_uint_eq(f->evidence, INV_PCI_EV_VENDOR | INV_PCI_EV_DRIVER | INV_PCI_EV_IBDEV);

	ck_assert_uint_eq(inv->n_umad, 4);
	ck_assert_str_eq(inv->classdevs[1].name, "issm0");
	ck_assert_str_eq(inv->classdevs[2].name, "issm1");
	ck_assert_uint_eq(inv->classdevs[2].port, 2);
	ck_assert_str_eq(inv->classdevs[3].name, "umad0");
	ck_assert_str_eq(inv->classdevs[4].name, "umad1");
	ck_assert_str_eq(inv->classdevs[4].dev, "231:1");
	ck_assert_uint_eq(inv->n_devnodes, 5);
	ck_assert_uint_eq(inv->n_modules, 5);
	ck_assert_str_eq(inv->modules[0].name, "ib_ipoib");
	ck_assert_uint_eq(inv->modules[0].kind, INV_MOD_ULP);
}
END_TEST

START_TEST(test_rxe)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("rxe", INV_F_ALL);
	const struct inv_device *d = find_device(inv, "rxe0");
	const struct inv_pci *f;
	char buf[64];

	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d->sysfs_path, "/sys/devices/virtual/infiniband/rxe0");
	ck_assert(d->soft);
	ck_assert_str_eq(d->soft_kind, "rxe");
	ck_assert_str_eq(d->soft_reason, "virtual");
	ck_assert_str_eq(d->parent, "eth0");
	ck_assert_str_eq(d->driver, "rdma_rxe");
	ck_assert(!d->has_pci);
	ck_assert_str_eq(d->node_desc, "rxe");
	ck_assert_str_eq(d->fw_ver, ""); /* empty, as a real rxe has it: not an error */
	ck_assert_uint_eq(d->transport, RG_TRANSPORT_ROCE);
	ck_assert_uint_eq(d->n_netdevs, 1);
	ck_assert_str_eq(d->netdevs[0], "eth0");
	ck_assert_uint_eq(d->n_ports, 1);
	ck_assert_uint_eq(d->ports[0].n_gids, 2);
	assert_gid(&d->ports[0].gids[0], 0, "fe80::5054:ff:fe12:3456", "RoCE v2", "eth0");
	assert_gid(&d->ports[0].gids[1], 1, "::ffff:192.0.2.1", "RoCE v2", "eth0");
	ck_assert_uint_eq(d->errors.n, 0);

	/* The NIC under rxe is an Intel function: vendor evidence only, no RDMA device on it. */
	f = find_pci(inv, "0000:00:03.0");
	ck_assert_uint_eq(f->evidence, INV_PCI_EV_VENDOR);
	ck_assert_uint_eq(f->n_ib_devices, 0);

	ck_assert_uint_eq(inv->n_uverbs, 1);
	ck_assert_str_eq(inv->classdevs[0].ibdev, "rxe0");
	ck_assert_str_eq(inv->classdevs[0].abi_version, "2");

	ck_assert_uint_eq(inv->n_modules, 5);
	ck_assert_str_eq(inv->modules[1].name, "rdma_rxe");
	ck_assert(inv->modules[1].soft);
	ck_assert_uint_eq(inv->modules[1].kind, INV_MOD_SOFT);
	ck_assert_str_eq(inv->modules[2].users, "rdma_ucm,rdma_rxe");

	/* rxe's kernel sockets on UDP 4791, IPv4 and IPv6. */
	ck_assert_uint_eq(inv->n_udp, 2);
	ck_assert(!inv->udp[0].v6);
	ck_assert_uint_eq(inv->udp[0].port, 4791);
	ck_assert_uint_eq(inv->udp[0].inode, 1335);
	ck_assert_uint_eq(inv->udp[0].owner_pid, 0); /* held by no process: the kernel's */
	ck_assert_uint_eq(inv->udp[0].uid, 0);
	ck_assert_uint_eq(inv->udp[0].state, 7);
	ck_assert(gid_to_ipv4(inv->udp[0].addr, buf));
	ck_assert_str_eq(buf, "0.0.0.0");
	ck_assert(inv->udp[1].v6);
	gid_to_string(inv->udp[1].addr, buf);
	ck_assert_str_eq(buf, "::");
}
END_TEST

START_TEST(test_siw)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("siw", INV_F_ALL);
	const struct inv_device *d = find_device(inv, "siw0");
	const struct inv_pci *f;
	char buf[64];

	ck_assert_ptr_nonnull(d);
	/* siw hangs below its netdev's parent, a PCI NIC, but node_desc says what it is. */
	ck_assert_str_eq(d->sysfs_path, "/sys/devices/pci0000:00/0000:00:04.0/virtio1/infiniband/siw0");
	ck_assert_uint_eq(d->node_type, 4);
	ck_assert_str_eq(d->node_type_name, "RNIC");
	ck_assert_uint_eq(d->transport, RG_TRANSPORT_IWARP);
	ck_assert(d->soft);
	ck_assert_str_eq(d->soft_kind, "siw");
	ck_assert_str_eq(d->soft_reason, "node_desc");
	ck_assert_str_eq(d->driver, "siw");
	ck_assert(d->has_pci);
	ck_assert_str_eq(d->pci_addr, "0000:00:04.0");
	ck_assert_uint_eq(d->pci_vendor, 0x1af4);
	ck_assert_str_eq(d->pci_driver, "virtio-pci");
	ck_assert_uint_eq(d->n_netdevs, 1);
	ck_assert_str_eq(d->netdevs[0], "eth1");
	ck_assert_uint_eq(d->ports[0].transport, RG_TRANSPORT_IWARP);
	ck_assert_uint_eq(d->ports[0].n_gids, 1);
	gid_to_string(d->ports[0].gids[0].gid, buf);
	ck_assert_str_eq(buf, "5254:12:3457::");

	f = find_pci(inv, "0000:00:04.0");
	ck_assert_uint_eq(f->evidence, INV_PCI_EV_IBDEV);
	ck_assert_uint_eq(inv->n_modules, 4);
	ck_assert_str_eq(inv->modules[0].name, "siw");
	ck_assert(inv->modules[0].soft);
}
END_TEST

START_TEST(test_nodriver)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("nodriver", INV_F_ALL);
	const struct inv_pci *f;
	struct inv_summary s;
	char buf[16];

	ck_assert_uint_eq(inv->n_devices, 0);
	ck_assert_uint_eq(inv->n_pci, 7);
	f = find_pci(inv, "0000:05:00.0"); /* ConnectX-4 in InfiniBand mode, no driver */
	ck_assert(f->rdma && f->dma && f->rdma_class);
	ck_assert_uint_eq(f->evidence, INV_PCI_EV_CLASS | INV_PCI_EV_VENDOR);
	ck_assert_str_eq(f->driver, "");
	ck_assert_uint_eq(f->driver_kind, INV_DRV_NONE);
	ck_assert_int_eq(f->bus_master, 0);
	ck_assert_int_eq(f->iommu_group, 15);
	f = find_pci(inv, "0000:06:00.0"); /* ConnectX-5 Ethernet, no driver */
	ck_assert(f->rdma && f->dma && !f->rdma_class);
	ck_assert_uint_eq(f->evidence, INV_PCI_EV_VENDOR);
	f = find_pci(inv, "0000:07:00.0"); /* QLogic QLE7340, class 0x0c06 */
	ck_assert(f->rdma && f->dma && f->rdma_class && f->known_vendor);
	ck_assert_uint_eq(f->evidence, INV_PCI_EV_CLASS);
	f = find_pci(inv, "0000:08:00.0"); /* an FPGA with bus mastering on: a DMA card */
	ck_assert(!f->rdma && f->dma && !f->known_vendor);
	ck_assert_int_eq(f->bus_master, 1);
	ck_assert_str_eq(f->iommu_group_type, "identity");
	f = find_pci(inv, "0000:09:00.0");
	ck_assert(f->rdma && f->dma);
	ck_assert_uint_eq(f->driver_kind, INV_DRV_USERSPACE);
	ck_assert_str_eq(f->driver, "vfio-pci");

	/* A process of its own on the RoCE v2 port. */
	ck_assert_uint_eq(inv->n_udp, 1);
	ck_assert_uint_eq(inv->udp[0].owner_pid, 6100);
	ck_assert_uint_eq(inv->udp[0].uid, 1000);
	ck_assert_uint_eq(inv->udp[0].inode, 20001);
	ck_assert(gid_to_ipv4(inv->udp[0].addr, buf));
	ck_assert_str_eq(buf, "192.0.2.10");

	inventory_summary(inv, &s);
	ck_assert(s.rdma_present);
	ck_assert_uint_eq(s.pci_rdma, 5);
	ck_assert_uint_eq(s.pci_rdma_no_driver, 3);
	ck_assert_uint_eq(s.dma_functions, 6);
}
END_TEST

/* The real machine: whatever it has, the inventory completes and says why a source did not run. */
START_TEST(test_host)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect_at("/", INV_F_ALL);
	struct stat st;

	ck_assert(inv->is_host);
	ck_assert_str_eq(inv->root, "/");
	ck_assert_str_ne(inv->hostname, "");
	ck_assert_str_ne(inv->kernel_release, "");
	ck_assert_ptr_nonnull(inv->procs);
	ck_assert_uint_gt(inv->procs->n, 0);
	ck_assert_uint_eq(inv->procs->self_pid, (uint32_t)getpid());
	ck_assert_ptr_null(proc_table_find(inv->procs, (uint32_t)getpid()));
	if (stat("/sys/class/infiniband", &st) < 0) {
		/* No RDMA core: nothing probed that would load it. */
		ck_assert_uint_eq(inv->n_devices, 0);
		ck_assert_ptr_nonnull(inv->s_verbs.skipped);
		ck_assert_ptr_nonnull(strstr(inv->s_verbs.skipped, "ib_core"));
		ck_assert_ptr_nonnull(inv->s_netlink.skipped);
		ck_assert_ptr_null(inv->nl);
	} else {
		ck_assert(inv->s_verbs.collected && inv->s_netlink.collected);
	}
}
END_TEST

/* libibverbs itself, on this machine: a device list or a clear note, never a crash. */
START_TEST(test_verbs_host)
{
	struct inventory *inv = calloc(1, sizeof(*inv));

	ck_assert_ptr_nonnull(inv);
	inv->devices = calloc(INV_MAX_DEVICES, sizeof(*inv->devices));
	inv_verbs_collect(inv);
	ck_assert(inv->s_verbs.collected);
	if (inv->verbs_devices == 0)
		ck_assert_msg(inv->s_verbs.note != NULL || inv->s_verbs.error != NULL,
			      "no device and no note");
	ck_assert_uint_eq(inv->n_devices, inv->verbs_devices);
	for (unsigned i = 0; i < inv->n_devices; i++)
		ck_assert_uint_eq(inv->devices[i].sources, INV_SRC_VERBS);
	inventory_free(inv);
}
END_TEST

/* JSON: the report body carries every section, with stable names. */
START_TEST(test_json)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("rxe", INV_F_ALL);
	struct json_object *r = inventory_to_json(inv), *v, *items, *d;
	static const char *const keys[] = {"schema_version", "tool", "@timestamp", "host", "root",
					   "summary", "devices", "links", "pci", "dma",
					   "device_nodes", "modules", "verbs", "netlink",
					   "processes", "roce_udp"};

	ck_assert_ptr_nonnull(r);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		ck_assert_msg(json_object_object_get_ex(r, keys[i], NULL), "no %s", keys[i]);
	ck_assert(json_object_object_get_ex(r, "devices", &v));
	ck_assert(json_object_object_get_ex(v, "items", &items));
	ck_assert_uint_eq(json_object_array_length(items), 1);
	d = json_object_array_get_idx(items, 0);
	ck_assert_str_eq(json_object_get_string(json_get_path(d, "name")), "rxe0");
	ck_assert_str_eq(json_object_get_string(json_get_path(d, "transport")), "roce");
	ck_assert(json_object_get_boolean(json_get_path(d, "soft")));
	ck_assert_str_eq(json_object_get_string(json_get_path(d, "soft_kind")), "rxe");
	ck_assert_str_eq(json_object_get_string(json_get_path(d, "parent")), "eth0");
	v = json_object_array_get_idx(json_get_path(d, "ports"), 0);
	ck_assert_str_eq(json_object_get_string(json_get_path(v, "state")), "ACTIVE");
	v = json_object_array_get_idx(json_get_path(v, "gids"), 1);
	ck_assert_str_eq(json_object_get_string(json_get_path(v, "gid")), "::ffff:192.0.2.1");
	ck_assert_str_eq(json_object_get_string(json_get_path(v, "ipv4")), "192.0.2.1");
	v = json_object_array_get_idx(json_get_path(r, "links.items"), 0);
	ck_assert_str_eq(json_object_get_string(json_get_path(v, "link")), "rxe0/1");
	ck_assert_str_eq(json_object_get_string(json_get_path(v, "physical_state")), "LINK_UP");
	ck_assert_str_eq(json_object_get_string(json_get_path(v, "netdev")), "eth0");
	ck_assert_str_eq(json_object_get_string(json_get_path(v, "type")), "rxe");
	ck_assert_str_eq(json_object_get_string(json_get_path(r, "verbs.skipped")),
			 "cannot be redirected below --root (it asks the running kernel); run "
			 "without --root");
	ck_assert_int_eq(json_object_get_int(json_get_path(r, "summary.udp_4791")), 2);
	v = json_object_array_get_idx(json_get_path(r, "roce_udp.sockets"), 0);
	ck_assert(json_object_get_boolean(json_get_path(v, "kernel_socket")));
	ck_assert_str_eq(json_object_get_string(json_get_path(v, "local_address")), "0.0.0.0");
	json_object_put(r);
}
END_TEST

/* --- limits: caps on roots built at run time ------------------------------------------------ */

static void make_soft_device(const char *name, unsigned ports, unsigned gids)
{
	char rel[512], cls[512];

	for (unsigned p = 1; p <= ports; p++) {
		snprintf(rel, sizeof(rel), "sys/devices/virtual/infiniband/%s/ports/%u/state", name, p);
		writef(rel, "4: ACTIVE\n");
		snprintf(rel, sizeof(rel), "sys/devices/virtual/infiniband/%s/ports/%u/phys_state",
			 name, p);
		writef(rel, "5: LinkUp\n");
		snprintf(rel, sizeof(rel), "sys/devices/virtual/infiniband/%s/ports/%u/link_layer",
			 name, p);
		writef(rel, "Ethernet\n");
		for (unsigned g = 0; g < gids; g++) {
			snprintf(rel, sizeof(rel),
				 "sys/devices/virtual/infiniband/%s/ports/%u/gids/%u", name, p, g);
			writef(rel, "fe80:0000:0000:0000:0000:0000:%04x:%04x\n", p, g + 1);
		}
	}
	snprintf(rel, sizeof(rel), "sys/devices/virtual/infiniband/%s/node_type", name);
	writef(rel, "1: CA\n");
	snprintf(rel, sizeof(rel), "../../devices/virtual/infiniband/%s", name);
	snprintf(cls, sizeof(cls), "sys/class/infiniband/%s", name);
	symlink_rel(rel, cls);
}

START_TEST(test_limit_devices)
{
	struct inventory *inv;
	char name[32];

	for (unsigned i = 0; i < INV_MAX_DEVICES + 6; i++) {
		snprintf(name, sizeof(name), "rxe%u", i);
		make_soft_device(name, 1, 1);
	}
	inv = collect_at(scratch, INV_F_DEVICES);
	ck_assert_uint_eq(inv->n_devices, INV_MAX_DEVICES);
	ck_assert_uint_eq(inv->s_devices.truncated.n, 1);
	ck_assert_str_eq(inv->s_devices.truncated.msg[0], "devices: more than 64, the rest not examined");
	ck_assert_str_eq(inv->devices[0].name, "rxe0");
	ck_assert_str_eq(inv->devices[63].name, "rxe63");
	inventory_free(inv);
}
END_TEST

START_TEST(test_limit_ports_gids)
{
	struct inventory *inv;
	const struct inv_device *d;
	char buf[64];

	make_soft_device("many", INV_MAX_PORTS + 3, 2);
	make_soft_device("gids", 1, INV_MAX_GIDS + 40);
	inv = collect_at(scratch, INV_F_DEVICES);
	d = find_device(inv, "many");
	ck_assert_uint_eq(d->n_ports, INV_MAX_PORTS);
	ck_assert(d->ports_truncated);
	ck_assert_uint_eq(d->ports[INV_MAX_PORTS - 1].num, INV_MAX_PORTS);
	ck_assert_str_eq(inv->s_devices.truncated.msg[0], "many: ports beyond 32 not examined");
	d = find_device(inv, "gids");
	ck_assert_uint_eq(d->ports[0].n_gids, INV_MAX_GIDS);
	ck_assert(d->ports[0].gids_truncated);
	gid_to_string(d->ports[0].gids[INV_MAX_GIDS - 1].gid, buf);
	ck_assert_str_eq(buf, "fe80::1:80");
	inventory_free(inv);
}
END_TEST

START_TEST(test_limit_gid_scan)
{
	struct inventory *inv;
	const struct inv_device *d;

	make_soft_device("big", 1, INV_MAX_GID_SCAN + 5);
	inv = collect_at(scratch, INV_F_DEVICES);
	d = find_device(inv, "big");
	ck_assert_uint_eq(d->ports[0].n_gids, INV_MAX_GIDS);
	ck_assert_has_error(&d->ports[0].errors,
			    "/sys/class/infiniband/big/ports/1/gids: more than 1024 entries, the "
			    "rest not examined");
	inventory_free(inv);
}
END_TEST

START_TEST(test_limit_long_name)
{
	struct inventory *inv;
	char name[256];

	memset(name, 'n', 255);
	name[255] = 0;
	make_soft_device(name, 1, 1);
	inv = collect_at(scratch, INV_F_DEVICES);
	ck_assert_uint_eq(inv->n_devices, 1);
	ck_assert_str_eq(inv->devices[0].name, name);
	ck_assert_uint_eq(inv->devices[0].n_ports, 1);
	ck_assert_uint_eq(inv->devices[0].errors.n, 0);
	inventory_free(inv);
}
END_TEST

START_TEST(test_limit_modules_udp)
{
	struct inventory *inv;
	FILE *f;
	char p[PATH_MAX];

	mkdirs("proc/net");
	sp(p, sizeof(p), "proc/modules");
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < INV_MAX_MODULES_SCAN + 100; i++)
		fprintf(f, "mod%u 16384 0 - Live 0x0000000000000000\n", i);
	fprintf(f, "rdma_rxe 135168 0 - Live 0x0000000000000000\n"); /* beyond the cap */
	fclose(f);
	sp(p, sizeof(p), "proc/net/udp");
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "  sl  local_address rem_address   st ...\n");
	for (unsigned i = 0; i < INV_MAX_UDP + 10; i++)
		fprintf(f, "%5u: 0100007F:12B7 00000000:0000 07 00000000:00000000 00:00000000 "
			   "00000000  1000        0 %u 2 0000000000000000 0\n",
			i, 5000 + i);
	fclose(f);
	inv = collect_at(scratch, INV_F_MODULES | INV_F_UDP);
	ck_assert_uint_eq(inv->modules_scanned, INV_MAX_MODULES_SCAN);
	ck_assert_uint_eq(inv->n_modules, 0);
	ck_assert_str_eq(inv->s_modules.truncated.msg[0],
			 "/proc/modules: more than 16384 lines, the rest not examined");
	ck_assert_uint_eq(inv->n_udp, INV_MAX_UDP);
	ck_assert_str_eq(inv->s_udp.truncated.msg[0], "udp 4791 sockets: more than 64");
	ck_assert_uint_eq(inv->udp[0].uid, 1000);
	ck_assert_uint_eq(inv->udp[0].inode, 5000);
	inventory_free(inv);
}
END_TEST

START_TEST(test_builtin_modules)
{
	struct inventory *inv;

	/* RDMA code built into the kernel: /sys/module/NAME, no /proc/modules line. */
	writef("proc/modules", "ext4 987136 1 - Live 0x0000000000000000\n");
	writef("sys/module/ib_core/parameters/netns_mode", "Y\n");
	writef("sys/module/rdma_rxe/version", "1\n");
	writef("sys/module/ext4/version", "1\n");
	inv = collect_at(scratch, INV_F_MODULES);
	ck_assert_uint_eq(inv->n_modules, 2);
	ck_assert_str_eq(inv->modules[0].name, "ib_core");
	ck_assert(inv->modules[0].builtin);
	ck_assert_str_eq(inv->modules[0].state, "builtin");
	ck_assert_str_eq(inv->modules[1].name, "rdma_rxe");
	ck_assert(inv->modules[1].builtin && inv->modules[1].soft);
	inventory_free(inv);

	/* No /proc/modules at all (CONFIG_MODULES=n): everything present is built in. */
	unlink_rel("proc/modules");
	inv = collect_at(scratch, INV_F_MODULES);
	ck_assert_uint_eq(inv->n_modules, 2);
	ck_assert_str_eq(inv->s_modules.note,
			 "/proc/modules does not exist: a kernel without loadable modules");
	inventory_free(inv);
}
END_TEST

START_TEST(test_char_nodes)
{
	struct inventory *inv;
	char p[PATH_MAX];

	if (geteuid() != 0) {
		/* mknod needs CAP_MKNOD; the VM lab checks real nodes too. */
		fprintf(stderr, "test_char_nodes: not root, character devices not made\n");
		return;
	}
	mkdirs("dev/infiniband");
	sp(p, sizeof(p), "dev/infiniband/uverbs0");
	ck_assert_int_eq(mknod(p, S_IFCHR | 0666, makedev(231, 192)), 0);
	ck_assert_int_eq(chmod(p, 0666), 0);
	sp(p, sizeof(p), "dev/infiniband/umad0");
	ck_assert_int_eq(mknod(p, S_IFCHR | 0600, makedev(231, 0)), 0);
	inv = collect_at(scratch, INV_F_DEVNODES);
	ck_assert_uint_eq(inv->n_devnodes, 2);
	ck_assert_str_eq(inv->devnodes[0].name, "umad0");
	ck_assert_str_eq(inv->devnodes[0].type, "char");
	ck_assert_uint_eq(inv->devnodes[0].major, 231);
	ck_assert_uint_eq(inv->devnodes[0].minor, 0);
	ck_assert_uint_eq(inv->devnodes[0].mode, 0600);
	ck_assert_str_eq(inv->devnodes[1].name, "uverbs0");
	ck_assert_uint_eq(inv->devnodes[1].minor, 192);
	ck_assert_uint_eq(inv->devnodes[1].mode, 0666);
	inventory_free(inv);
}
END_TEST

/* --- errors: hostile files -------------------------------------------------------------------- */

START_TEST(test_broken)
{
	struct inventory *inv;
	const struct inv_device *d;
	const struct inv_pci *f;
	char longname[201], p[PATH_MAX];
	struct json_object *r;

	copy_fixture("broken");
	/* What git cannot hold: FIFOs (a read would block forever) and huge one-line files. */
	fifo_rel("sys/devices/pci0000:00/0000:00:03.0/infiniband/bad0/fw_ver");
	huge_rel("sys/devices/pci0000:00/0000:00:03.0/infiniband/bad0/board_id", 1 << 20);
	huge_rel("sys/devices/pci0000:00/0000:00:03.0/infiniband/bad0/ports/1/gids/2", 1 << 20);
	writef("sys/devices/pci0000:00/0000:00:03.0/infiniband/bad0/ports/1/gids/zz", "x\n");
	fifo_rel("proc/cmdline");
	fifo_rel("proc/net/udp6");
	fifo_rel("sys/class/infiniband_mad/abi_version");
	sp(p, sizeof(p), "proc/modules");
	{
		FILE *m = fopen(p, "a");
		ck_assert_ptr_nonnull(m);
		for (unsigned i = 0; i < 100000; i++)
			fputc('y', m); /* one line longer than the 64 KiB reader buffer */
		fputs("\nsiw 188416 0 - Live 0x0\n", m);
		fclose(m);
	}

	inv = collect_at(scratch, INV_F_ALL);
	ck_assert_uint_eq(inv->n_devices, 3);

	d = find_device(inv, "bad0");
	ck_assert_ptr_nonnull(d);
	ck_assert_has_error(&d->errors, "/sys/class/infiniband/bad0/node_type: empty");
	ck_assert_has_error(&d->errors, "/sys/class/infiniband/bad0/fw_ver: not a regular file");
	ck_assert_has_error(&d->errors, "/sys/class/infiniband/bad0/board_id: value too long");
	ck_assert_has_error(&d->errors, "/sys/class/infiniband/bad0/ports/x: unexpected entry");
	ck_assert_str_eq(d->node_guid, "zzzz"); /* text attributes are kept as they are */
	ck_assert_uint_eq(d->n_ports, 1);
	ck_assert_has_error(&d->ports[0].errors,
			    "/sys/class/infiniband/bad0/ports/1/state: expected 'N: name', got "
			    "'ACTIVE'");
	ck_assert_has_error(&d->ports[0].errors,
			    "/sys/class/infiniband/bad0/ports/1/phys_state: missing");
	ck_assert_has_error(&d->ports[0].errors,
			    "/sys/class/infiniband/bad0/ports/1/gids/0: not a GID: 'not-a-gid'");
	ck_assert_has_error(&d->ports[0].errors,
			    "/sys/class/infiniband/bad0/ports/1/gids/2: value too long");
	ck_assert_has_error(&d->ports[0].errors,
			    "/sys/class/infiniband/bad0/ports/1/gids/zz: unexpected entry");
	ck_assert_uint_eq(d->ports[0].n_gids, 1);
	ck_assert_uint_eq(d->ports[0].gids[0].index, 1);

	d = find_device(inv, "loop0");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->errors.n, 1);
	ck_assert_str_eq(d->errors.msg[0], "/sys/class/infiniband/loop0: symbolic link loop");

	memset(longname, 'l', 200);
	longname[200] = 0;
	d = find_device(inv, longname);
	ck_assert_ptr_nonnull(d);
	ck_assert(d->soft);
	ck_assert_str_eq(d->parent, "eth0");

	ck_assert_has_error(&inv->s_pci.errors, "/sys/bus/pci/devices/garbage: not a PCI address");
	f = find_pci(inv, "0000:00:05.0");
	ck_assert_has_error(&f->errors, "/sys/bus/pci/devices/0000:00:05.0/vendor: empty");
	ck_assert_has_error(&f->errors, "/sys/bus/pci/devices/0000:00:05.0/class: not a number: 'zzzz'");
	ck_assert_has_error(&f->errors, "/sys/bus/pci/devices/0000:00:05.0/config: only 2 bytes");
	ck_assert_int_eq(f->bus_master, -1);

	ck_assert(!inv->dma.cmdline_read);
	ck_assert_has_error(&inv->dma.errors, "/proc/cmdline: not a regular file");
	ck_assert_has_error(&inv->dma.tb[0].errors,
			    "/sys/bus/thunderbolt/devices/domain0/security: missing");
	ck_assert_has_error(&inv->dma.tb[0].errors,
			    "/sys/bus/thunderbolt/devices/domain0/iommu_dma_protection: not a "
			    "number: 'maybe'");

	/* Modules: the good lines survive the garbage and the overlong line. */
	ck_assert_uint_eq(inv->n_modules, 2);
	ck_assert_str_eq(inv->modules[0].name, "rdma_rxe");
	ck_assert_str_eq(inv->modules[1].name, "siw");
	ck_assert_has_error(&inv->s_modules.errors, "/proc/modules:3: not a module line");
	ck_assert_has_error(&inv->s_modules.errors, "/proc/modules:5: not a module line");
	ck_assert_has_error(&inv->s_modules.errors, "/proc/modules:6: not a module line");

	ck_assert_has_error(&inv->s_udp.errors, "/proc/net/udp:2: not a socket line");
	ck_assert_str_eq(inv->s_udp.error, "/proc/net/udp6: not a regular file");

	ck_assert_uint_eq(inv->n_devnodes, 1);
	ck_assert_str_eq(inv->devnodes[0].type, "link");
	ck_assert_str_eq(inv->devnodes[0].target, "/dev/infiniband/uverbs0");
	ck_assert_has_error(&inv->classdevs[0].errors,
			    "/sys/class/infiniband_verbs/uverbs0/ibdev: empty");
	ck_assert_str_eq(inv->umad_abi, "");

	/* And it all still renders. */
	r = inventory_to_json(inv);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_gt(json_object_get_int(json_get_path(r, "summary.errors")), 20);
	json_object_put(r);
	inventory_free(inv);
}
END_TEST

START_TEST(test_missing_everything)
{
	/* An empty root (an image with nothing mounted): notes, no errors, no crash. */
	struct inventory *inv = collect_at(scratch, INV_F_ALL);
	struct inv_summary s;

	ck_assert_uint_eq(inv->n_devices, 0);
	ck_assert_uint_eq(inv->n_pci, 0);
	ck_assert_str_eq(inv->s_pci.note, "/sys/bus/pci/devices does not exist: no PCI bus");
	ck_assert_ptr_nonnull(inv->s_modules.note);
	ck_assert(!inv->dma.cmdline_read);
	ck_assert_uint_eq(inv->procs->n, 0);
	ck_assert_int_eq(inv->procs->error, -ENOENT);
	ck_assert_str_eq(inv->s_procs.error, "/proc: No such file or directory");
	inventory_summary(inv, &s);
	ck_assert(!s.rdma_present);
	inventory_free(inv);
}
END_TEST

START_TEST(test_unreadable_dirs)
{
	/* /sys/class/infiniband a FIFO, /sys/bus/pci/devices a regular file. */
	struct inventory *inv;

	mkdirs("sys/class");
	mkdirs("sys/bus/pci");
	fifo_rel("sys/class/infiniband");
	writef("sys/bus/pci/devices", "not a directory\n");
	inv = collect_at(scratch, INV_F_DEVICES | INV_F_PCI);
	ck_assert_str_eq(inv->s_devices.error, "/sys/class/infiniband: Not a directory");
	ck_assert_str_eq(inv->s_pci.error, "/sys/bus/pci/devices: Not a directory");
	inventory_free(inv);
}
END_TEST

START_TEST(test_bad_args)
{
	struct rg_root root = {.fd = -1};
	struct inventory *inv = NULL;

	ck_assert_int_eq(inventory_collect(NULL, INV_F_ALL, &inv), -EINVAL);
	ck_assert_int_eq(inventory_collect(&root, INV_F_ALL, &inv), -EINVAL);
	ck_assert_ptr_null(inv);
	ck_assert_int_eq(inventory_foreach_event(NULL, NULL, NULL), -EINVAL);
}
END_TEST

/* --- helpers ---------------------------------------------------------------------------------- */

START_TEST(test_helpers)
{
	uint8_t gid[16];
	char out[64];

	ck_assert_int_eq(inv_parse_gid("fe80:0000:0000:0000:0202:c9ff:fe31:7e40", gid), 0);
	gid_to_string(gid, out);
	ck_assert_str_eq(out, "fe80::202:c9ff:fe31:7e40");
	ck_assert_int_eq(inv_parse_gid("fe80::1", gid), -EINVAL);
	ck_assert_int_eq(inv_parse_gid("fe80:0000:0000:0000:0202:c9ff:fe31:7e4g", gid), -EINVAL);
	ck_assert_int_eq(inv_parse_gid("fe80-0000:0000:0000:0202:c9ff:fe31:7e40", gid), -EINVAL);
	ck_assert(hw_is_pci_addr("0000:03:00.0"));
	ck_assert(hw_is_pci_addr("10000:e1:1f.7"));
	ck_assert(!hw_is_pci_addr("pci0000:00"));
	ck_assert(!hw_is_pci_addr("0000:03:00.0x"));
	ck_assert(!hw_is_pci_addr("mlx5_core.rdma.0"));
	ck_assert_int_eq(inv_normalize("/sys/class/infiniband/../../devices/x/./y", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/sys/devices/x/y");
	ck_assert_int_eq(inv_normalize("/../../..", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/");
	ck_assert_int_eq(inv_normalize("relative", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(inv_normalize("/aaaaaaaaaa/bbbbbbbbbb", out, 8), -ENAMETOOLONG);
	ck_assert(hw_rdma_driver("mlx5_core"));
	ck_assert(!hw_rdma_driver("e1000e"));
	ck_assert(hw_rdma_device(0x1d0f, 0xefa1));
	ck_assert(!hw_rdma_device(0x1d0f, 0xec20)); /* ENA is not EFA */
	ck_assert_str_eq(hw_rdma_vendor_name(0x15b3), "Mellanox");
	ck_assert_ptr_null(hw_rdma_vendor_name(0x10de));
}
END_TEST

static Suite *inventory_suite(void)
{
	Suite *s = suite_create("inventory");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");
	TCase *errors = tcase_create("errors");

	tcase_add_test(core, test_desktop);
	tcase_add_test(core, test_mlx5_roce);
	tcase_add_test(core, test_ib_hca);
	tcase_add_test(core, test_rxe);
	tcase_add_test(core, test_siw);
	tcase_add_test(core, test_nodriver);
	tcase_add_test(core, test_host);
	tcase_add_test(core, test_verbs_host);
	tcase_add_test(core, test_json);
	tcase_add_test(core, test_helpers);
	tcase_add_checked_fixture(core, scratch_setup, scratch_teardown);
	tcase_add_test(core, test_builtin_modules);
	tcase_add_test(core, test_char_nodes);
	tcase_add_checked_fixture(limits, scratch_setup, scratch_teardown);
	tcase_add_test(limits, test_limit_devices);
	tcase_add_test(limits, test_limit_ports_gids);
	tcase_add_test(limits, test_limit_gid_scan);
	tcase_add_test(limits, test_limit_long_name);
	tcase_add_test(limits, test_limit_modules_udp);

	tcase_add_checked_fixture(errors, scratch_setup, scratch_teardown);
	tcase_add_test(errors, test_broken);
	tcase_add_test(errors, test_missing_everything);
	tcase_add_test(errors, test_unreadable_dirs);
	tcase_add_test(errors, test_bad_args);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	return run_check(inventory_suite());
}
