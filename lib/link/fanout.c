/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fanout.c — a key that both directions of a conversation share, to split a
 * capture across threads (rocetop --threads): live, as the classic BPF
 * program of a PACKET_FANOUT_CBPF group (packet(7)); on replay, in C.
 *
 * The kernel's own fanout hash (PACKET_FANOUT_HASH) is per 5-tuple, and the
 * two directions of a RoCEv2 connection use different UDP source ports, so
 * they would land on different sockets.  This key hashes each address on
 * its own and adds the two (addition commutes: the same key both ways, as
 * keying on the sorted pair; an XOR would cancel what the two addresses
 * share, and 10.0.1.1-10.0.1.2 would meet 10.0.2.1-10.0.2.2):
 *
 *   p(a)  = the address's 32-bit words w0..wn-1 as p = p * K1 + wi   (n = 1 IPv4, 4 IPv6/GID)
 *   g(a)  = (p ^ p >> 15) * K2
 *   x     = g(src) + g(dst)
 *   key   = ((x ^ x >> 16) * K3) >> 16          (all mod 2^32)
 *
 * Addresses: IPv4, IPv6, the GIDs of a RoCEv1 GRH (same layout as IPv6:
 * SGID at 8, DGID at 24); every native InfiniBand packet has the same key
 * (a QP's LIDs may change in mid-connection).
 * Outer headers only: a mirror copy (ERSPAN, GRE-TEB, VXLAN) is keyed on
 * its tunnel's end points, so one mirror session goes to one thread.
 * Frames without addresses (PFC, PAUSE, LLDP, ARP), ERF records and frames
 * too short for their addresses have key 0.
 */
#include "internal.h"

#define ETH_IPV4 0x0800
#define ETH_IPV6 0x86dd
#define ETH_ROCEV1 0x8915
#define K1 0x01000193u
#define K2 0x2c1b3c6du
#define K3 0x9e3779b1u

static uint32_t g(uint32_t p)
{
	return (p ^ p >> 15) * K2;
}

/* g() of the n-word address at d */
static uint32_t addr_hash(const uint8_t *d, unsigned n)
{
	uint32_t p = rd32(d);

	for (unsigned i = 1; i < n; i++)
		p = p * K1 + rd32(d + 4 * i);
	return g(p);
}

static uint32_t key_mix(uint32_t x)
{
	return ((x ^ x >> 16) * K3) >> 16;
}

/* The key of a network header of type ethertype at d. */
static uint32_t net_key(uint16_t ethertype, const uint8_t *d, uint32_t len)
{
	switch (ethertype) {
	case ETH_IPV4:
		return len >= 20 ? key_mix(addr_hash(d + 12, 1) + addr_hash(d + 16, 1)) : 0;
	case ETH_IPV6:
	case ETH_ROCEV1:
		return len >= 40 ? key_mix(addr_hash(d + 8, 4) + addr_hash(d + 24, 4)) : 0;
	}
	return 0;
}

static uint32_t ether_key(const uint8_t *d, uint32_t caplen)
{
	uint32_t off = 12;
	uint16_t type;

	if (caplen < 14)
		return 0;
	type = rd16(d + off);
	/* 802.1Q, 802.1ad and the old QinQ tag */
	while ((type == 0x8100 || type == 0x88a8 || type == 0x9100) && caplen >= off + 6) {
		off += 4;
		type = rd16(d + off);
	}
	return net_key(type, d + off + 2, caplen - off - 2);
}

static uint32_t raw_key(const uint8_t *d, uint32_t caplen)
{
	if (!caplen)
		return 0;
	return net_key(d[0] >> 4 == 6 ? ETH_IPV6 : ETH_IPV4, d, caplen);
}

uint32_t roce_flow_key(int linktype, const uint8_t *d, uint32_t caplen)
{
	switch (linktype) {
	case ROCE_LINK_ETHERNET:
		return ether_key(d, caplen);
	case ROCE_LINK_RAW:
	case 12:
	case 14:
	case ROCE_LINK_IPV4:
	case ROCE_LINK_IPV6:
		return raw_key(d, caplen);
	case ROCE_LINK_LINUX_SLL:
		return caplen >= 16 ? net_key(rd16(d + 14), d + 16, caplen - 16) : 0;
	case ROCE_LINK_LINUX_SLL2:
		return caplen >= 20 ? net_key(rd16(d), d + 20, caplen - 20) : 0;
	case ROCE_LINK_INFINIBAND:
		/* one key for every native IB packet: a QP's LIDs change with
		 * LMC path bits and path migration, and nothing else in the
		 * packet names both its ends (its flow is found by its PSNs:
		 * analyzer/flow.c), so IB is analysed on one thread */
		return caplen >= 8 ? key_mix(g(0x1b)) : 0;
	}
	return 0;
}

/* ---- the same on a socket buffer, in classic BPF ---------------------------------- */

/* linux/filter.h's values (classic BPF is a stable ABI) */
enum {
	BPF_LD_W_ABS = 0x20, BPF_LDX_MEM = 0x61, BPF_ST = 0x02, BPF_TAX = 0x07, BPF_XOR_X = 0xac,
	BPF_ADD_X = 0x0c, BPF_RSH_K = 0x74, BPF_MUL_K = 0x24, BPF_JEQ_K = 0x15, BPF_RET_A = 0x16,
	BPF_RET_K = 0x06,
};
#define SKF_AD_PROTOCOL_OFF (-0x1000)   /* SKF_AD_OFF + SKF_AD_PROTOCOL: skb->protocol, host order */
#define SKF_NET (-0x100000)             /* SKF_NET_OFF: loads relative to the network header */

struct prog {
	struct roce_bpf_insn *v;
	unsigned n, cap;
};

static void emit(struct prog *p, uint16_t code, uint32_t k)
{
	if (p->n < p->cap)
		p->v[p->n] = (struct roce_bpf_insn){ code, 0, 0, k };
	p->n++;
}

/* A = g(the n-word address at the network header + off); X clobbered. */
static void addr_g(struct prog *p, int off, unsigned n)
{
	emit(p, BPF_LD_W_ABS, (uint32_t)(SKF_NET + off));
	for (unsigned i = 1; i < n; i++) {
		emit(p, BPF_MUL_K, K1);
		emit(p, BPF_TAX, 0);
		emit(p, BPF_LD_W_ABS, (uint32_t)(SKF_NET + off + 4 * (int)i));
		emit(p, BPF_ADD_X, 0);
	}
	emit(p, BPF_TAX, 0);
	emit(p, BPF_RSH_K, 15);
	emit(p, BPF_XOR_X, 0);
	emit(p, BPF_MUL_K, K2);
}

/* A = key of the addresses at src_off and dst_off (n words each); return A. */
static void key_ret(struct prog *p, int src_off, int dst_off, unsigned n)
{
	addr_g(p, src_off, n);
	emit(p, BPF_ST, 0);
	addr_g(p, dst_off, n);
	emit(p, BPF_LDX_MEM, 0);
	emit(p, BPF_ADD_X, 0);
	emit(p, BPF_TAX, 0);
	emit(p, BPF_RSH_K, 16);
	emit(p, BPF_XOR_X, 0);
	emit(p, BPF_MUL_K, K3);
	emit(p, BPF_RSH_K, 16);
	emit(p, BPF_RET_A, 0);
}

/* A conditional jump at index at to index to when A == k. */
static void jeq(struct prog *p, unsigned at, uint32_t k, unsigned to)
{
	if (at < p->cap)
		p->v[at] = (struct roce_bpf_insn){ BPF_JEQ_K, (uint8_t)(to - at - 1), 0, k };
}

/*
 *  0  ld proto; jeq 0x0800 → v4; jeq 0x86dd → v6; jeq 0x8915 → v6; ret 0
 *  v4: key of [12], [16] (1 word each); v6: key of [8], [24] (4 words each)
 * A load past the end of the packet ends the program with 0 (key 0).
 */
int roce_fanout_cbpf(struct roce_bpf_insn *v, unsigned cap)
{
	struct prog p = { v, 0, cap };
	unsigned v4, v6;

	emit(&p, BPF_LD_W_ABS, (uint32_t)SKF_AD_PROTOCOL_OFF);
	p.n += 3;                     /* the jumps, once their targets are known */
	emit(&p, BPF_RET_K, 0);
	v4 = p.n;
	key_ret(&p, 12, 16, 1);
	v6 = p.n;
	key_ret(&p, 8, 24, 4);
	jeq(&p, 1, ETH_IPV4, v4);
	jeq(&p, 2, ETH_IPV6, v6);
	jeq(&p, 3, ETH_ROCEV1, v6);
	return p.n <= cap && v6 - 1 < 256 ? (int)p.n : -1;
}
