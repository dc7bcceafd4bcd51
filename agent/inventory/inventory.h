/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RDMA inventory: every trace of RDMA on a machine, from every source the kernel offers, for
 * `rdmaguard audit` (one report) and for the daemon (seeding its state at start-up, periodic
 * reconciliation with the kernel's own resource tables).
 *
 * Sources, one file each:
 *   sysfs.c    /sys/class/infiniband/<dev>: devices, ports, GIDs, links (device -> port -> netdev)
 *   pci.c      RDMA-capable PCI functions (also with no driver bound), and dma.c DMA exposure
 *              (IOMMU units/groups, kernel command line, Thunderbolt, PCI functions with a
 *              missing, userspace or out-of-tree driver): both rendered from the hardware
 *              layer's scan and posture (agent/hw/, the one reader of PCI, IOMMU, Thunderbolt)
 *   devnodes.c /dev/infiniband/<node>, /sys/class/infiniband_verbs, /sys/class/infiniband_mad
 *   modules.c  /proc/modules against the RDMA module list (docs/verbs-abi.md#kernel-modules)
 *   verbs.c    libibverbs' device list (host only), merged into the sysfs device list
 *   nldev.c    RDMA netlink (NLDEV) resource tables: a pure parser (nldev.h) and its socket
 *   procs.c    /proc: every process; which hold /dev/infiniband fds or map RDMA libraries
 *   udp.c      /proc/net/udp{,6}: sockets on the RoCE v2 port 4791 (rxe's kernel socket)
 *
 * Everything is read through a struct rg_root (common/root.h), so `--root DIR` redirects /sys,
 * /proc, /dev and /etc below DIR; libibverbs and netlink cannot be redirected and are skipped
 * there. Every read is bounded and every list is capped (INV_MAX_*); a failure to read one thing
 * is recorded next to it as an error string and never stops the rest.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event/event.h"
#include "hw/pci.h"
#include "inventory/nldev.h"
#include "inventory/procs.h"
#include "common/macro.h"

/* Caps: what one inventory holds at most. Hitting one is reported as "truncated" in its section. */
#define INV_MAX_DEVICES	     64	  /* RDMA devices (sysfs + verbs + netlink, merged) */
#define INV_MAX_PORTS	     32	  /* ports per device */
#define INV_MAX_GIDS	     128  /* non-empty GIDs reported per port */
#define INV_MAX_GID_SCAN     1024 /* gids/ entries examined per port */
#define INV_MAX_NETDEVS	     8	  /* netdevs per device or PCI function */
#define INV_MAX_PCI_SCAN     4096 /* entries of /sys/bus/pci/devices examined */
#define INV_MAX_IOMMU_UNITS  64
#define INV_MAX_IOMMU_GROUPS 4096 /* groups whose type is read */
#define INV_MAX_TB	     64	  /* Thunderbolt domains + devices */
#define INV_MAX_DEVNODES     256  /* /dev/infiniband entries */
#define INV_MAX_CLASSDEVS    256  /* uverbsN + umadN/issmN */
#define INV_MAX_MODULES_SCAN 16384 /* /proc/modules lines examined */
#define INV_MAX_MODULES	     64
#define INV_MAX_UDP_SCAN     65536 /* /proc/net/udp{,6} lines examined (each) */
#define INV_MAX_UDP	     64
#define INV_MAX_ERRORS	     8	  /* error strings kept per object (more are counted) */

/* A list of "path: what is wrong" strings, kept next to the object they concern. */
struct inv_errors {
	unsigned n;
	unsigned dropped; /* beyond INV_MAX_ERRORS */
	char *msg[INV_MAX_ERRORS];
};

/* How one source (a report section) fared. */
struct inv_section {
	bool collected;	     /* it ran (not skipped) */
	const char *skipped; /* why it did not run (static string), or NULL */
	char *error;	     /* why it failed as a whole (e.g. the directory is unreadable), or NULL */
	char *note;	     /* a remark for the reader ("no RDMA device"), or NULL */
	struct inv_errors errors;    /* problems with single entries not tied to an object */
	struct inv_errors truncated; /* "what: limit N reached" */
};

enum inv_source {
	INV_SRC_SYSFS = 1u << 0,
	INV_SRC_VERBS = 1u << 1,
	INV_SRC_NETLINK = 1u << 2,
};

struct inv_gid {
	uint32_t index;
	uint8_t gid[16];
	char type[16];	 /* gid_attrs/types/N: "IB/RoCE v1", "RoCE v2"; "" when not given */
	char netdev[64]; /* gid_attrs/ndevs/N */
};

struct inv_port {
	uint32_t num;
	uint32_t state; /* 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER; 0 unknown */
	char state_name[32];
	uint32_t phys_state; /* 1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, 5 LinkUp, ... */
	char phys_state_name[48];
	char link_layer[32]; /* "InfiniBand", "Ethernet" */
	uint32_t transport;  /* enum rg_transport */
	char rate[64];
	bool has_lid;
	uint32_t lid, sm_lid;
	struct inv_gid *gids;
	unsigned n_gids;
	bool gids_truncated;
	struct inv_errors errors;
};

/* What libibverbs says about a device (verbs.c). */
struct inv_verbs_dev {
	bool opened;	     /* ibv_open_device worked; the fields below are valid */
	char node_type[32];  /* ibv_node_type_str() */
	char transport[32];  /* "InfiniBand", "iWARP", "usNIC", ... */
	uint64_t guid;	     /* host order */
	char fw_ver[64];
	uint32_t vendor_id, vendor_part_id, hw_ver;
	uint32_t phys_port_cnt;
	int32_t max_qp, max_mr;
	uint64_t max_mr_size;
	uint32_t n_ports;
	struct {
		uint32_t state;	     /* enum ibv_port_state */
		uint32_t link_layer; /* IBV_LINK_LAYER_* */
		uint32_t active_mtu;
		uint32_t lid;
	} ports[INV_MAX_PORTS];
	char error[128]; /* why opening/querying failed, or "" */
};

struct inv_device {
	char name[256];
	unsigned sources; /* enum inv_source */
	/* sysfs */
	char sysfs_path[1024]; /* resolved /sys/devices/... path */
	uint32_t node_type;    /* 1 CA, 2 switch, 3 router, 4 RNIC, 5 usNIC, 6 usNIC UDP */
	char node_type_name[32];
	char node_guid[32], sys_image_guid[32];
	char fw_ver[64], hca_type[64], board_id[64], node_desc[128];
	char parent[64]; /* rxe: the `parent` attribute (the netdev it rides on) */
	bool soft;	 /* software RDMA (rxe, siw) */
	char soft_kind[8];  /* "rxe", "siw", or "" */
	char soft_reason[32]; /* what said so: "virtual", "parent", "node_desc" */
	char driver[64];    /* driver bound to the device's parent (mlx5_ib.rdma, mlx4_core), or the
			     * soft driver (rdma_rxe, siw) */
	bool has_pci;
	char pci_addr[32];
	uint32_t pci_vendor, pci_device, pci_class;
	char pci_driver[64];
	char netdevs[INV_MAX_NETDEVS][64];
	unsigned n_netdevs;
	uint32_t transport; /* of the first port */
	struct inv_port *ports;
	unsigned n_ports;
	bool ports_truncated;
	struct inv_errors errors;
	/* libibverbs */
	struct inv_verbs_dev verbs;
	/* netlink (RDMA_NLDEV_CMD_GET) */
	uint32_t nl_index;
};

/* Evidence that a PCI function is RDMA-capable. */
enum inv_pci_evidence {
	INV_PCI_EV_CLASS = 1u << 0,  /* class 0x0207, 0x0208 or 0x0c06 */
	INV_PCI_EV_VENDOR = 1u << 1, /* a vendor that makes RDMA NICs, network class */
	INV_PCI_EV_DEVICE = 1u << 2, /* a vendor:device known to be RDMA (EFA, pvrdma, ...) */
	INV_PCI_EV_DRIVER = 1u << 3, /* bound to a driver that registers RDMA devices */
	INV_PCI_EV_IBDEV = 1u << 4,  /* an RDMA device is registered on it */
};

/* How a PCI function's driver looks from a DMA point of view. */
enum inv_driver_kind {
	INV_DRV_KERNEL = 0,	/* an ordinary in-tree kernel driver */
	INV_DRV_NONE,		/* no driver bound */
	INV_DRV_USERSPACE,	/* vfio-pci, uio_pci_generic, igb_uio, ...: userspace drives DMA */
	INV_DRV_OUT_OF_TREE,	/* from a module tainted O (out-of-tree), E (unsigned) or P */
	INV_DRV__MAX,
};

struct inv_pci {
	char addr[32];
	uint32_t vendor, device, class_code, subsys_vendor, subsys_device;
	char vendor_name[32]; /* from the known-vendor table, or "" */
	char driver[64];      /* "" when none */
	char driver_module[64];
	char driver_taint[16];
	uint32_t driver_kind; /* enum inv_driver_kind */
	int iommu_group;      /* -1 when none */
	char iommu_group_type[24];
	int bus_master;	      /* command register bit 2; -1 unknown */
	bool rdma_class, known_vendor;
	unsigned evidence;    /* enum inv_pci_evidence */
	bool rdma;	      /* reported in the "pci" section */
	bool dma;	      /* reported in dma.pci_functions */
	char ib_devices[4][64];
	unsigned n_ib_devices;
	char netdevs[INV_MAX_NETDEVS][64];
	unsigned n_netdevs;
	struct inv_errors errors;
};

struct inv_tb {
	char name[64];
	bool domain;
	char security[32];	 /* domain: none, user, secure, dponly, usbonly, nopcie */
	int iommu_dma_protection; /* domain: 0/1, -1 unknown */
	int authorized;		 /* device: 0/1/2, -1 unknown */
	uint32_t vendor, device;
	char vendor_name[64], device_name[64];
	struct inv_errors errors;
};

struct inv_dma {
	char iommu_units[INV_MAX_IOMMU_UNITS][64];
	unsigned n_iommu_units;
	unsigned n_iommu_groups;
	/* Counts of /sys/kernel/iommu_groups/N/type values. */
	struct {
		char type[24];
		unsigned count;
	} group_types[8];
	unsigned n_group_types;
	char *cmdline_iommu; /* space-separated IOMMU/DMA-relevant kernel command line options */
	bool cmdline_read;
	struct inv_tb *tb;
	unsigned n_tb;
	bool tb_present; /* /sys/bus/thunderbolt exists */
	struct inv_errors errors;
};

struct inv_devnode {
	char name[256];
	char type[8]; /* "char", "block", "link", "dir", "file", "other" */
	uint32_t kind; /* enum rg_node_kind, from the name */
	uint32_t major, minor;
	uint32_t mode; /* permission bits */
	uint32_t uid, gid;
	char target[256]; /* symlink target */
};

struct inv_classdev { /* /sys/class/infiniband_verbs/uverbsN, /sys/class/infiniband_mad/umadN */
	char name[64];
	char ibdev[256];
	char dev[32]; /* "231:192" */
	uint32_t port; /* umad/issm */
	char abi_version[16];
	struct inv_errors errors;
};

enum inv_module_kind {
	INV_MOD_CORE = 0,
	INV_MOD_HW,
	INV_MOD_SOFT,
	INV_MOD_ULP,
};

struct inv_module {
	char name[64];
	uint32_t kind; /* enum inv_module_kind */
	bool soft;
	bool builtin; /* no /proc/modules line but /sys/module/NAME exists */
	uint64_t size;
	uint32_t refcount;
	char state[16]; /* Live, Loading, Unloading */
	char users[256];
};

struct inv_udp {
	bool v6;
	uint8_t addr[16]; /* IPv4 stored IPv4-mapped */
	uint16_t port;
	uint8_t state;
	uint32_t uid;
	uint64_t inode;
	uint32_t owner_pid; /* a process holding it; 0: none, a kernel socket (rxe's) */
};

struct inventory {
	char root[4096];
	bool is_host;
	unsigned flags;
	uint64_t collected_ns; /* CLOCK_REALTIME */
	char hostname[256];
	char kernel_release[256];
	char kernel_version[256];

	struct inv_section s_devices, s_pci, s_dma, s_devnodes, s_modules, s_verbs, s_netlink,
		s_procs, s_udp;

	struct inv_device *devices;
	unsigned n_devices;

	struct inv_pci *pci; /* every function examined; .rdma / .dma say where it is reported */
	unsigned n_pci;

	struct inv_dma dma;

	struct hw_scan *hw; /* the hardware layer's examination (INV_F_HW): every function */

	struct inv_devnode *devnodes;
	unsigned n_devnodes;
	bool devnodes_dir_present;
	struct inv_classdev *classdevs; /* uverbs first, then umad/issm */
	unsigned n_uverbs, n_umad;
	char uverbs_abi[16], umad_abi[16];
	char rdma_cm_dev[32]; /* /sys/class/misc/rdma_cm/dev */

	struct inv_module *modules;
	unsigned n_modules;
	unsigned modules_scanned;

	unsigned verbs_devices; /* what ibv_get_device_list returned */

	struct nldev_tables *nl;

	struct proc_table *procs;

	struct inv_udp *udp;
	unsigned n_udp;
};

/* What inventory_collect() reads. */
enum {
	INV_F_DEVICES = 1u << 0, /* sysfs devices, ports, GIDs, links */
	INV_F_PCI = 1u << 1,
	INV_F_DMA = 1u << 2,
	INV_F_DEVNODES = 1u << 3,
	INV_F_MODULES = 1u << 4,
	INV_F_VERBS = 1u << 5,	 /* host only */
	INV_F_NETLINK = 1u << 6, /* host only */
	INV_F_PROCS = 1u << 7,	 /* every process, with RDMA fds and libraries */
	INV_F_UDP = 1u << 8,
	INV_F_HW = 1u << 9,	 /* agent/hw/: every PCI function through libpci, IOMMU posture */
	INV_F_ALL = (1u << 10) - 1,
};

/*
 * Collects the inventory below root. Failures of single sources are recorded in the result, not
 * returned: the return value is 0, or -ENOMEM / -EINVAL (bad arguments) with *ret untouched.
 */
int inventory_collect(const struct rg_root *root, unsigned flags, struct inventory **ret);
void inventory_free(struct inventory *inv);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct inventory *, inventory_free);

/* The report body (every section; docs/audit.md has the schema). NULL on allocation failure. */
struct json_object *inventory_to_json(const struct inventory *inv);

/*
 * Calls cb for each fact as an rg_event, in this order: PROCESS_PRESENT for every process (oldest
 * first, so parents come before children), MODULE_PRESENT, PCI_FUNCTION (every function of the
 * hardware scan when there is one, else the RDMA and DMA ones), IOMMU_POSTURE, DEVICE_PRESENT,
 * LIBRARY_LOAD, DEVICE_OPEN, then (provider netlink) QP_PRESENT and MR_PRESENT. ts is the
 * collection time and seq counts from 1; a consumer with its own sequence may renumber. A non-zero
 * return from cb stops the walk and is returned.
 */
int inventory_foreach_event(const struct inventory *inv,
			    int (*cb)(const struct rg_event *ev, void *userdata), void *userdata);

/* Summary counts (also the "summary" object of the report). */
struct inv_summary {
	unsigned devices, soft_devices, ports_active;
	unsigned pci_rdma, pci_rdma_no_driver, dma_functions;
	unsigned device_nodes, uverbs, modules, soft_modules;
	unsigned links, soft_links;
	unsigned qps, mrs, pds, contexts, cm_ids;
	unsigned processes_scanned, rdma_processes;
	unsigned udp_4791;
	unsigned errors;
	bool rdma_present;
};
void inventory_summary(const struct inventory *inv, struct inv_summary *s);

/* Text rendering of a report built by inventory_to_json() (plus "alerts"), for --format text. */
int inventory_print_text(struct json_object *report, FILE *f);

/* Names used in the report. */
const char *inv_driver_kind_to_string(unsigned k);
const char *inv_module_kind_to_string(unsigned k);
