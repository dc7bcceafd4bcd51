/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hardware layer's public API: one PCI function's fingerprint and the facts drawn from it
 * (struct hw_fn), the whole machine's examination (hw_scan()), one function's (hw_describe(), what
 * a hotplug or a fault handler calls with the kernel's address), the function as an event
 * (hw_fn_to_event(), the event audit and the daemon emit; the policy's hardware allowlist judges
 * it, policy/policy_hw.h). The IOMMU posture is iommu.h's, the seat baseline baseline.h's.
 *
 * Config space is read through libpci (pciutils) with its linux-sysfs method; below a --root
 * other than "/" libpci reads a private copy made with the root's confined reads, so nothing
 * outside the root is opened (pci_scan.c). Capability lists are walked here with bounds and loop
 * checks (pci_caps.c); config space is hostile input.
 *
 * Files: pci_scan.c (libpci, the scan), pci_caps.c (the capability walk), pci_facts.c (the
 * heuristics), hw_event.c (events), iommu.c, baseline.c.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/macro.h"
#include "common/root.h"
#include "event/event.h"
#include "hw/hw_attr.h"

#define HW_MAX_FUNCTIONS 4096 /* functions examined per scan */
#define HW_MAX_CAPS	 48   /* standard capabilities kept (a list can hold at most 48) */
#define HW_MAX_ECAPS	 64   /* extended capabilities kept */
#define HW_MAX_DEPTH	 16   /* bridges walked upwards for ACS / external-facing / link */
#define HW_MAX_NETDEVS	 8    /* netdev names kept per function */
#define HW_MAX_NOT_ADDR	 8    /* entries of /sys/bus/pci/devices that are no address, named */

struct hw_bar {
	uint64_t size;	/* 0: not implemented */
	uint32_t flags; /* bit 0 I/O space, bit 1 64-bit, bit 2 prefetchable */
};

/* A PCI Express link: speed in MT/s (2500, 5000, 8000, 16000, 32000, 64000), width in lanes. */
struct hw_link {
	uint32_t speed, width;	       /* Link Status: what was negotiated; 0 unknown */
	uint32_t max_speed, max_width; /* Link Capabilities */
};

/* One PCI function, as examined. */
struct hw_fn {
	char addr[16]; /* "0000:01:00.0" */
	uint16_t vendor, device, subsys_vendor, subsys_device;
	uint32_t class_code; /* 24 bits: class, subclass, prog-if */
	uint8_t revision;
	uint8_t header_type; /* config 0x0e as read, multi-function bit included */
	uint16_t command;    /* config 0x04 */
	bool bus_master, mem_enable;
	char vendor_name[64], device_name[96]; /* pci.ids; "" when unknown */

	uint32_t config_len;	   /* bytes of config space readable: 64, 256 or 4096 */
	uint8_t caps[HW_MAX_CAPS]; /* standard capability IDs in list order */
	uint16_t cap_offsets[HW_MAX_CAPS];
	unsigned n_caps;
	uint16_t ecaps[HW_MAX_ECAPS]; /* extended capability IDs in list order */
	uint16_t ecap_offsets[HW_MAX_ECAPS];
	unsigned n_ecaps;
	char caps_error[96]; /* what was wrong with a list ("loop at 0x50"), "" */

	bool pcie;
	uint8_t pcie_type; /* Device/Port Type: 0 endpoint, 4 root port, 5/6 switch port, ... */
	struct hw_link link;
	char upstream[16];	      /* the bridge above ("" for a root bus function) */
	struct hw_link upstream_link; /* that bridge's link */
	bool has_dsn;
	uint64_t dsn;
	bool ats;		/* ATS capability present */
	bool acs;		/* this function has ACS (ports) */
	bool external;		/* a port above is external-facing (or Thunderbolt) */
	bool acs_missing_above; /* a downstream port above has no ACS source validation/redirect */
	struct hw_bar bars[6];
	uint64_t rom_size;

	/* Interrupts and link power management, as config space states them (pci_caps.c). */
	bool msi_enabled, msix_enabled; /* MSI / MSI-X Enable in the capability's control */
	uint8_t int_pin;		/* config 0x3d: 0 none, 1-4 INTA..INTD */
	unsigned msi_vectors;		/* sysfs msi_irqs entries: vectors the kernel allocated */
	/* Link Capabilities: ASPM support (bit 0 L0s, bit 1 L1) and the L0s and L1 exit latency
	 * codes (0-7; 7 is "unlimited"); -1 unknown (lspci prints only what ASPM supports). */
	int8_t aspm, l0s_exit, l1_exit;

	char driver[32]; /* bound driver, "" none */
	char driver_module[64]; /* its module (driver/module), "" built in */
	char driver_taint[16];	/* that module's /sys/module/M/taint ("POE"), "" */
	char netdevs[HW_MAX_NETDEVS][64]; /* net/ names, version order */
	unsigned n_netdevs;
	int config_bus_master; /* bus mastering as the first 64 bytes of config say; -1 unread */
	struct hw_errors errors; /* sysfs attributes that could not be read ("PATH: why") */
	char driver_available[32]; /* none bound: the module modules.alias has for it, "" none */
	/* The kernel logged that a driver's probe of this function failed. Set by whoever reads
	 * the kernel log (the daemon) before the facts are computed; a scan leaves it false. */
	bool probe_failed;
	bool not_breathing; /* set by the daemon's interrupt watch */
	bool in_baseline;   /* the seat baseline has it as it is, driver included
			     * (hw_facts_baseline()) */
	char dsn_original[16]; /* DSN_DUPLICATE: the other holder of the DSN, the one in use
				* (the original) where one is */
	bool has_netdev, has_ib_device, has_block, has_usb_bus;
	bool rdma_capable;   /* class 0x0207/0x0208/0x0c06 or a known RDMA vendor:device */
	int iommu_group;     /* -1: none */
	char iommu_type[16]; /* DMA, DMA-FQ, identity, blocked, unmanaged; "" unknown */

	uint32_t facts;	 /* enum rg_pci_fact (event/event.h): the event's pci.fact.* */
	char error[128]; /* why part of it could not be read, "" */
};

struct hw_posture;

/* The whole machine. */
struct hw_scan {
	struct hw_fn *fn; /* in address order */
	unsigned n;
	bool truncated;		    /* more than HW_MAX_FUNCTIONS */
	int list_errno;		    /* listing /sys/bus/pci/devices failed: -errno (ENOENT: no bus) */
	char not_addr[HW_MAX_NOT_ADDR][64]; /* its entries that are no PCI address */
	unsigned n_not_addr;
	char error[256];	    /* why the scan failed as a whole ("" ok; then n is 0) */
	struct hw_posture *posture; /* iommu.h; NULL when not examined */
};

/*
 * Examines every PCI function below root (libpci, sysfs.path = ROOT/sys/bus/pci), computes the
 * facts (also those that need every function: duplicate DSNs, multi-function with one function)
 * and the IOMMU posture. 0 (failures of the bus as a whole are in ->error), -ENOMEM, -EINVAL.
 */
int hw_scan(const struct rg_root *root, struct hw_scan **ret);
/* The same below "/", the host: the daemon's scans, on the calling thread. */
int hw_scan_host(struct hw_scan **ret);
void hw_scan_free(struct hw_scan *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct hw_scan *, hw_scan_free);

/*
 * Examines one function by address ("0000:01:00.0"), as hw_scan() would (facts that need the
 * other functions are computed against a fresh scan of the bus). 0, -ENOENT (no such function),
 * -EINVAL (not an address), -ENOMEM.
 */
int hw_describe(const struct rg_root *root, const char *addr, struct hw_fn *ret);

/*
 * Reads the config space of one function by address through libpci, as hw_scan() does: up to
 * 4096 bytes into buf, *len the bytes readable (64, 256 or 4096). 0, -ENOENT (no such
 * function), -EINVAL (not an address), -EIO (unreadable), -errno.
 */
int hw_read_config(const struct rg_root *root, const char *addr, uint8_t buf[static 4096],
		   size_t *len);
/* A function by address in a scan, or NULL. */
static inline const struct hw_fn *hw_scan_find(const struct hw_scan *s, const char *addr)
{
	for (unsigned i = 0; s && i < s->n; i++)
		if (strcmp(s->fn[i].addr, addr) == 0)
			return &s->fn[i];
	return NULL;
}

/*
 * Fills ev (zeroed first) with the function's fingerprint and facts: type is RG_EV_PCI_FUNCTION
 * (present: audit, daemon start), RG_EV_PCI_CHANGE (runtime; then set ev->u.pci.change) or
 * RG_EV_DMA_FAULT / RG_EV_HW_BASELINE (then fill their fields). provider: RG_PROV_INVENTORY for
 * a scan, RG_PROV_NETLINK for uevents and the kernel log. Whether the policy allows the function
 * is not in the event: the engine derives pci.allowed from the policy in force.
 */
void hw_fn_to_event(const struct hw_fn *fn, unsigned type, unsigned provider, uint64_t now_ns,
		    struct rg_event *ev);

/*
 * For whoever reads the kernel log (the daemon): the kernel logged that a driver's probe of fn
 * failed. Sets probe_failed and, while no driver is bound, the fact DRIVER_PROBE_FAILED
 * (pci.fact.driver_probe_failed) on fn, for the event that follows.
 */
void hw_fn_note_probe_failed(struct hw_fn *fn);

struct hw_baseline;
/*
 * The seat baseline's part in the facts (b NULL: none): in_baseline on every function it has as
 * it is, driver included, and of two functions sharing a DSN the one in the baseline is the
 * original (not accused, named by the other). Called after hw_scan() by whoever has a baseline.
 */
void hw_facts_baseline(struct hw_scan *s, const struct hw_baseline *b);

/* A Device Serial Number as lspci prints it: "01-23-45-67-89-ab-cd-ef" (high byte first). */
void hw_dsn_format(uint64_t dsn, char buf[static 24]);
