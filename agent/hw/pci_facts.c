/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The heuristics (known DMA-card tells, ekknod/drvscan and the pcileech issues): facts on each
 * function, never verdicts. None alone is proof; the rules weigh them, with the allowlist and the
 * seat baseline. The facts of the config space itself (capability lists, header type, PM) come
 * from the walk (pci_caps.c); here are those that need sysfs or the other functions.
 */
#include <string.h>

#include "hw/hw-internal.h"
#include "hw/pci_caps.h"
#include "hw/pci_ids.h"
#include "common/strutil.h"

static bool fpga_vendor(uint16_t vendor)
{
	/* Xilinx (AMD), Altera (Intel FPGA), Lattice. */
	return vendor == 0x10ee || vendor == 0x1172 || vendor == 0x1204;
}

static bool dma_card_id(uint16_t vendor, uint16_t device)
{
	/* pcileech-fpga's stock firmware ("Xilinx Ethernet Adapter"), and the device IDs Xilinx's
	 * 7-series PCIe core gives itself by default (0x70<gen><lanes>), which a firmware left at
	 * its defaults presents. */
	static const uint16_t xilinx[] = {0x0666, 0x7011, 0x7012, 0x7014, 0x7018, 0x7021, 0x7022,
					  0x7024, 0x7028, 0x7031, 0x7032, 0x7034, 0x7038};

	if (vendor != 0x10ee)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(xilinx); i++)
		if (xilinx[i] == device)
			return true;
	return false;
}

static bool rdma_capable(const struct hw_fn *fn)
{
	switch (fn->class_code >> 8) {
	case 0x0207: /* InfiniBand */
	case 0x0208: /* Fabric */
	case 0x0c06: /* Serial bus: InfiniBand */
		return true;
	default:
		break;
	}
	return hw_rdma_device(fn->vendor, fn->device) ||
	       (hw_rdma_vendor_first(fn->vendor) && (fn->class_code >> 16) == 0x02) ||
	       (fn->driver[0] && hw_rdma_driver(fn->driver) && fn->has_ib_device);
}

/* A class that promises something the kernel should have built on the function. */
static bool class_mismatch(const struct hw_fn *fn)
{
	unsigned base = fn->class_code >> 16, sub = (fn->class_code >> 8) & 0xff;

	if (base == 0x02 || (base == 0x0c && sub == 0x06))
		return !fn->has_netdev && !fn->has_ib_device;
	if (base == 0x01)
		return !fn->has_block;
	if (base == 0x0c && sub == 0x03)
		return !fn->has_usb_bus;
	return false;
}

/* The kinds of function masked firmware imitates (network, wireless, storage, USB, audio, video
 * and capture), unlike the chipset's own functions (SMBus, IOMMU, SRAM, thermal, "dummy") that
 * many honest desktops leave driverless. */
static bool imitated_class(uint32_t class_code)
{
	unsigned base = class_code >> 16, sub = (class_code >> 8) & 0xff;

	return base == 0x01 || base == 0x02 || base == 0x04 || base == 0x0d ||
	       (base == 0x0c && sub == 0x03);
}

/*
 * The Xilinx 7-series PCIe hard block's Link Capabilities as the core leaves them: ASPM L0s
 * only, L0s and L1 exit latencies both at code 7 ("unlimited"). drvscan's is_xilinx summed the
 * three fields to 15, which other combinations reach too (docs/hardware.md has the counts).
 */
static bool fpga_link(const struct hw_fn *fn)
{
	return fn->pcie && (fn->pcie_type == 0 || fn->pcie_type == 1) && fn->aspm == 1 &&
	       fn->l0s_exit == 7 && fn->l1_exit == 7;
}

/* Interrupts with no driver to have set them up. The IOMMU's own PCI function (class 0x0806)
 * gets its MSI from the IOMMU driver, which binds no PCI driver. */
static bool irq_no_driver(const struct hw_fn *fn)
{
	return !fn->driver[0] && (fn->class_code >> 8) != 0x0806 &&
	       (fn->msi_enabled || fn->msix_enabled || fn->msi_vectors > 0);
}

static void facts_one(struct hw_fn *fn)
{
	fn->rdma_capable = rdma_capable(fn);
	if (fn->bus_master && !fn->driver[0])
		fn->facts |= RG_PCI_FACT_BUS_MASTER_NO_DRIVER;
	if (fpga_vendor(fn->vendor))
		fn->facts |= RG_PCI_FACT_FPGA_VENDOR;
	if (dma_card_id(fn->vendor, fn->device))
		fn->facts |= RG_PCI_FACT_DMA_CARD_ID;
	if (class_mismatch(fn))
		fn->facts |= RG_PCI_FACT_CLASS_MISMATCH;
	if (fn->rdma_capable && !fn->driver[0])
		fn->facts |= RG_PCI_FACT_RDMA_NO_DRIVER;
	if (fn->iommu_group < 0 || strcmp(fn->iommu_type, "identity") == 0)
		fn->facts |= RG_PCI_FACT_IDENTITY_DOMAIN;
	if (fn->external)
		fn->facts |= RG_PCI_FACT_EXTERNAL;
	if (!fn->driver[0] && fn->driver_available[0])
		fn->facts |= RG_PCI_FACT_DRIVER_AVAILABLE;
	if (irq_no_driver(fn))
		fn->facts |= RG_PCI_FACT_IRQ_NO_DRIVER;
	if (fpga_link(fn))
		fn->facts |= RG_PCI_FACT_FPGA_LINK;
	if (fn->has_dsn && (fn->dsn == 0 || fn->dsn == UINT64_MAX))
		fn->facts |= RG_PCI_FACT_DSN_ZERO;
	if (!fn->driver[0] && imitated_class(fn->class_code) &&
	    !(fn->facts & RG_PCI_FACT_CONFIG_UNREADABLE))
		fn->facts |= RG_PCI_FACT_IMITATED_NO_DRIVER;
	if (fn->probe_failed && !fn->driver[0])
		fn->facts |= RG_PCI_FACT_DRIVER_PROBE_FAILED;
	if (fn->not_breathing)
		fn->facts |= RG_PCI_FACT_NOT_BREATHING;
}

/* A function the kernel built on: a driver, and a netdev, block device, USB bus or RDMA device
 * on it. Of two functions with one DSN, such a one holds it rightfully. */
static bool in_use(const struct hw_fn *fn)
{
	return fn->driver[0] &&
	       (fn->has_netdev || fn->has_block || fn->has_usb_bus || fn->has_ib_device);
}

/* Two devices with one DSN: the copy is accused, not the original (the one in use), and the
 * copy's event names the original (dsn_original). When neither or both are in use, both are
 * accused, each naming the other. */
static void dsn_duplicate(struct hw_fn *fn, const struct hw_fn *o)
{
	if (!fn->has_dsn || !o->has_dsn || fn->dsn != o->dsn || fn->dsn == 0 ||
	    fn->dsn == UINT64_MAX)
		return;
	if (in_use(fn) && !in_use(o))
		return;
	fn->facts |= RG_PCI_FACT_DSN_DUPLICATE;
	/* The one in use if any, else the first other holder. */
	if (in_use(o) || !fn->dsn_original[0])
		(void)strscpy_ok(fn->dsn_original, o->addr, sizeof(fn->dsn_original));
}

static bool downstream_facing(const struct hw_fn *fn)
{
	return fn->pcie && (fn->pcie_type == 4 || fn->pcie_type == 6);
}

static void facts_upstream(struct hw_scan *s, struct hw_fn *fn)
{
	const struct hw_fn *up = hw_scan_find(s, fn->upstream);
	unsigned depth = 0;

	if (up) {
		fn->upstream_link = up->link;
		/* A root or downstream port's Link Status is the link below it, to its own card:
		 * a switch's internal link to a GPU may well run faster than the switch's own. */
		if (fn->link.speed && up->link.speed && !downstream_facing(fn) &&
		    (fn->link.speed > up->link.speed || fn->link.width > up->link.width))
			fn->facts |= RG_PCI_FACT_LINK_ABOVE_UPSTREAM;
	}
	/* The ports above: a downstream port without ACS lets peers reach each other untranslated;
	 * an external-facing one means the function can be unplugged (and plugged) by anyone. The
	 * walk is bounded: sysfs has no cycles, a hostile image may. */
	for (; up && depth < HW_MAX_DEPTH; depth++, up = hw_scan_find(s, up->upstream)) {
		if (up->pcie && (up->pcie_type == 4 || up->pcie_type == 6) && !up->acs)
			fn->acs_missing_above = true;
		if (up->external)
			fn->external = true;
	}
	if (fn->acs_missing_above)
		fn->facts |= RG_PCI_FACT_ACS_MISSING;
	if (fn->external)
		fn->facts |= RG_PCI_FACT_EXTERNAL;
}

void hw_facts_compute(struct hw_scan *s)
{
	unsigned i, k;

	for (i = 0; i < s->n; i++)
		facts_one(&s->fn[i]);
	for (i = 0; i < s->n; i++) {
		struct hw_fn *fn = &s->fn[i];
		bool sibling = false;

		facts_upstream(s, fn);
		for (k = 0; k < s->n; k++) {
			const struct hw_fn *o = &s->fn[k];

			if (k == i)
				continue;
			if (hw_fn_same_device(fn, o))
				sibling = true;
			/* Functions of one device share its DSN by design; two devices must not. */
			else
				dsn_duplicate(fn, o);
		}
		if ((fn->header_type & 0x80) && !sibling &&
		    !(fn->facts & RG_PCI_FACT_HEADER_INVALID))
			fn->facts |= RG_PCI_FACT_MULTIFUNCTION_SINGLE;
	}
}

void hw_fn_note_probe_failed(struct hw_fn *fn)
{
	fn->probe_failed = true;
	if (!fn->driver[0])
		fn->facts |= RG_PCI_FACT_DRIVER_PROBE_FAILED;
}
