// SPDX-License-Identifier: GPL-2.0-only
/*
 * RoCE v2 and iWARP packet counters per peer address, on the netdevs that carry an RDMA device
 * (TC clsact ingress and egress). Soft-RoCE (rdma_rxe) traffic passes the host's IP stack as UDP
 * to port 4791; iWARP (siw, and hardware iWARP seen on its netdev) is TCP on the ports the agent
 * learnt from rdma_cm (map iwarp_ports). While the agent says so (map tc_cfg: enforcement in
 * force and a fleet in the policy), a packet of those whose peer is in no seat or server range
 * (map fleet_nets) is dropped and counted (tc_drops, and the flow's packets_dropped); every other
 * packet continues unchanged. Hardware RoCE never passes here: the NIC moves it past the stack.
 */
#include "common.bpf.h"
#include <bpf/bpf_endian.h>

#define ETH_HLEN      14
#define ETH_P_IP      0x0800
#define ETH_P_IPV6    0x86DD
#define IPPROTO_TCP   6
#define IPPROTO_UDP   17
#define ROCE_V2_PORT  4791
#define TC_ACT_UNSPEC (-1)
#define TC_ACT_SHOT   2
#define TC_ACT_STOLEN 4

static __always_inline void map_v4(__u8 *dst, __u32 addr)
{
	__builtin_memset(dst, 0, 10);
	dst[10] = 0xff;
	dst[11] = 0xff;
	__builtin_memcpy(dst + 12, &addr, 4);
}

/* The peer is a seat or a server of the policy's fleet. */
static __always_inline bool fleet_member(const __u8 peer[16])
{
	struct rg_fleet_key k = {.prefixlen = 128};

	__builtin_memcpy(k.addr, peer, 16);
	return bpf_map_lookup_elem(&fleet_nets, &k) != NULL;
}

/* Drop the packet: enforcement is on with a fleet and the peer is outside it. */
static __always_inline bool must_drop(const __u8 peer[16], __u8 l4proto)
{
	struct rg_tc_cfg *c;
	__u32 zero = 0, reason;
	__u64 *n;

	c = bpf_map_lookup_elem(&tc_cfg, &zero);
	if (!c || !c->drop || fleet_member(peer))
		return false;
	reason = l4proto == IPPROTO_UDP ? RG_TC_DROP_ROCE_V2 : RG_TC_DROP_IWARP;
	n = bpf_map_lookup_elem(&tc_drops, &reason);
	if (n)
		*n += 1; /* per CPU */
	return true;
}

static __always_inline int drop_action(bool ingress)
{
	return ingress ? TC_ACT_SHOT : TC_ACT_STOLEN;
}

/*
 * Counts an RDMA packet in its flow, and drops it when it must be. On egress a drop is
 * TC_ACT_STOLEN, not TC_ACT_SHOT: SHOT makes the transmit fail (NET_XMIT_DROP), and rdma_rxe
 * answers a failed transmit with -EAGAIN and sends the packet again at once, for ever (a kernel
 * QP1's CM request spun at 90k packets a second in the VM lab). STOLEN discards it as sent; the
 * transport's own timeouts then end the connection attempt.
 */
static __always_inline int count_packet(struct __sk_buff *skb, bool ingress)
{
	struct rg_flow_key k = {};
	struct rg_flow_val *v, zero = {};
	__u8 saddr[16], daddr[16];
	__u16 ports[2], sport, dport;
	__u32 l4off;
	__u8 l4proto;
	bool drop;

	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)))
			return TC_ACT_UNSPEC;
		l4proto = ip.protocol;
		l4off = ETH_HLEN + (ip.ihl & 0xf) * 4;
		map_v4(saddr, ip.saddr);
		map_v4(daddr, ip.daddr);
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip6, sizeof(ip6)))
			return TC_ACT_UNSPEC;
		l4proto = ip6.nexthdr;
		l4off = ETH_HLEN + sizeof(ip6);
		__builtin_memcpy(saddr, &ip6.saddr, 16);
		__builtin_memcpy(daddr, &ip6.daddr, 16);
	} else {
		return TC_ACT_UNSPEC;
	}
	if (l4proto != IPPROTO_UDP && l4proto != IPPROTO_TCP)
		return TC_ACT_UNSPEC;
	if (bpf_skb_load_bytes(skb, l4off, ports, sizeof(ports)))
		return TC_ACT_UNSPEC;
	sport = bpf_ntohs(ports[0]);
	dport = bpf_ntohs(ports[1]);
	if (l4proto == IPPROTO_UDP) {
		if (dport != ROCE_V2_PORT)
			return TC_ACT_UNSPEC;
	} else if (!bpf_map_lookup_elem(&iwarp_ports, &sport) &&
		   !bpf_map_lookup_elem(&iwarp_ports, &dport)) {
		return TC_ACT_UNSPEC;
	}
	__builtin_memcpy(k.peer, ingress ? saddr : daddr, 16);
	drop = must_drop(k.peer, l4proto);
	__builtin_memcpy(k.local, ingress ? daddr : saddr, 16);
	k.ifindex = skb->ifindex;
	k.proto = l4proto;
	v = bpf_map_lookup_elem(&roce_flows, &k);
	if (!v) {
		bpf_map_update_elem(&roce_flows, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&roce_flows, &k);
		if (!v) /* the drop does not depend on the flow table */
			return drop ? drop_action(ingress) : TC_ACT_UNSPEC;
	}
	if (drop) {
		__sync_fetch_and_add(&v->packets_dropped, 1);
		return drop_action(ingress);
	}
	if (ingress) {
		__sync_fetch_and_add(&v->packets_in, 1);
		__sync_fetch_and_add(&v->bytes_in, skb->len);
	} else {
		__sync_fetch_and_add(&v->packets_out, 1);
		__sync_fetch_and_add(&v->bytes_out, skb->len);
	}
	return TC_ACT_UNSPEC;
}

SEC("tc")
int tc_roce_ingress(struct __sk_buff *skb)
{
	return count_packet(skb, true);
}

SEC("tc")
int tc_roce_egress(struct __sk_buff *skb)
{
	return count_packet(skb, false);
}
