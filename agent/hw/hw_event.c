/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A PCI function as an event (hw_fn_to_event()): the fingerprint and facts every hardware event
 * about a function carries (pci_function, pci_change, dma_fault, hw_baseline), so that an alert
 * names the function whatever raised it.
 */
#include <stdio.h>
#include <string.h>

#include "hw/pci.h"
#include "hw/pci_ids.h"

void hw_fn_to_event(const struct hw_fn *fn, unsigned type, unsigned provider, uint64_t now_ns,
		    struct rg_event *ev)
{
	struct rg_ev_pci *p = &ev->u.pci;

	memset(ev, 0, sizeof(*ev));
	ev->type = (uint16_t)type;
	ev->provider = (uint16_t)provider;
	ev->ts = now_ns;
	p->vendor = fn->vendor;
	p->device = fn->device;
	p->class_code = fn->class_code;
	p->subsys_vendor = fn->subsys_vendor;
	p->subsys_device = fn->subsys_device;
	p->revision = fn->revision;
	p->header_type = fn->header_type;
	p->bus_master = fn->bus_master;
	p->has_driver = fn->driver[0] != 0;
	switch (fn->class_code >> 8) {
	case 0x0207:
	case 0x0208:
	case 0x0c06:
		p->rdma_class = 1;
		break;
	default:
		break;
	}
	p->rdma = fn->rdma_capable;
	p->known_vendor = hw_rdma_vendor_name(fn->vendor) != NULL;
	p->facts = fn->facts;
	if (fn->iommu_group >= 0) {
		p->has_iommu_group = 1;
		p->iommu_group = (uint32_t)fn->iommu_group;
	}
	p->link_speed = fn->link.speed;
	p->link_width = fn->link.width;
	p->upstream_speed = fn->upstream_link.speed;
	p->upstream_width = fn->upstream_link.width;
	event_set_str(p->addr, sizeof(p->addr), fn->addr, sizeof(fn->addr));
	event_set_str(p->driver, sizeof(p->driver), fn->driver, sizeof(fn->driver));
	if (fn->iommu_group < 0)
		snprintf(p->iommu_type, sizeof(p->iommu_type), "none");
	else
		event_set_str(p->iommu_type, sizeof(p->iommu_type),
			      fn->iommu_type[0] ? fn->iommu_type : "unknown", sizeof(fn->iommu_type));
	event_set_str(p->vendor_name, sizeof(p->vendor_name), fn->vendor_name,
		      sizeof(fn->vendor_name));
	event_set_str(p->device_name, sizeof(p->device_name), fn->device_name,
		      sizeof(fn->device_name));
	event_set_str(p->upstream, sizeof(p->upstream), fn->upstream, sizeof(fn->upstream));
	if (fn->has_dsn)
		hw_dsn_format(fn->dsn, p->dsn);
	/* Names as lspci writes an unknown one: a message never has an empty field. */
	if (!p->vendor_name[0])
		snprintf(p->vendor_name, sizeof(p->vendor_name), "Vendor %04x", fn->vendor);
	if (!p->device_name[0])
		snprintf(p->device_name, sizeof(p->device_name), "Device %04x", fn->device);
	if (fn->driver[0])
		snprintf(p->driver_state, sizeof(p->driver_state), "driver %.24s", p->driver);
	else
		snprintf(p->driver_state, sizeof(p->driver_state), "no driver");
	event_set_str(p->driver_available, sizeof(p->driver_available), fn->driver_available,
		      sizeof(fn->driver_available));
	p->in_baseline = fn->in_baseline;
	event_set_str(p->dsn_original, sizeof(p->dsn_original), fn->dsn_original,
		      sizeof(fn->dsn_original));
}


void hw_dsn_format(uint64_t dsn, char buf[static 24])
{
	snprintf(buf, 24, "%02x-%02x-%02x-%02x-%02x-%02x-%02x-%02x", (unsigned)(dsn >> 56) & 0xff,
		 (unsigned)(dsn >> 48) & 0xff, (unsigned)(dsn >> 40) & 0xff,
		 (unsigned)(dsn >> 32) & 0xff, (unsigned)(dsn >> 24) & 0xff,
		 (unsigned)(dsn >> 16) & 0xff, (unsigned)(dsn >> 8) & 0xff, (unsigned)dsn & 0xff);
}
