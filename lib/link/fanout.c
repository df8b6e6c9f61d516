/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fanout.c — a key that both directions of a conversation share, to split a
 * capture across threads (rocetop --threads): live, as the classic BPF
 * program of a PACKET_FANOUT_CBPF group (packet(7)); on replay, in C.
 *
 * The kernel's own fanout hash (PACKET_FANOUT_HASH) is per 5-tuple, and the
 * two directions of a RoCEv2 connection use different UDP source ports, so
 * they would land on different sockets.  This key is the XOR of the 32-bit
 * words of the network source and destination addresses — symmetric, so the
 * same as keying on the sorted pair — folded and mixed:
 *
 *   x   = src[0] ^ … ^ src[n-1] ^ dst[0] ^ … ^ dst[n-1]   (n = 1 IPv4, 4 IPv6/GID)
 *   key = ((x ^ x >> 16) * 0x9e3779b1) >> 16
 *
 * Addresses: IPv4, IPv6, the GIDs of a RoCEv1 GRH (same layout as IPv6:
 * SGID at 8, DGID at 24), InfiniBand LIDs (LRH: DLID at 2, SLID at 6).
 * Outer headers only: a mirror copy (ERSPAN, GRE-TEB, VXLAN) is keyed on
 * its tunnel's end points, so one mirror session goes to one thread.
 * Frames without addresses (PFC, PAUSE, LLDP, ARP), ERF records and frames
 * too short for their addresses have key 0.
 */
#include "internal.h"

#define ETH_IPV4 0x0800
#define ETH_IPV6 0x86dd
#define ETH_ROCEV1 0x8915

static uint32_t key_mix(uint32_t x)
{
	return ((x ^ x >> 16) * 0x9e3779b1u) >> 16;
}

/* XOR of n 32-bit words at d. */
static uint32_t words(const uint8_t *d, unsigned n)
{
	uint32_t x = 0;

	for (unsigned i = 0; i < n; i++)
		x ^= rd32(d + 4 * i);
	return x;
}

/* The key of a network header of type ethertype at d. */
static uint32_t net_key(uint16_t ethertype, const uint8_t *d, uint32_t len)
{
	switch (ethertype) {
	case ETH_IPV4:
		return len >= 20 ? key_mix(words(d + 12, 2)) : 0;
	case ETH_IPV6:
	case ETH_ROCEV1:
		return len >= 40 ? key_mix(words(d + 8, 8)) : 0;
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
		return caplen >= 8 ? key_mix((uint32_t)rd16(d + 2) ^ rd16(d + 6)) : 0;
	}
	return 0;
}

/* ---- the same on a socket buffer, in classic BPF ---------------------------------- */

/* linux/filter.h's values (classic BPF is a stable ABI) */
enum {
	BPF_LD_W_ABS = 0x20, BPF_TAX = 0x07, BPF_XOR_X = 0xac, BPF_RSH_K = 0x74, BPF_MUL_K = 0x24,
	BPF_JEQ_K = 0x15, BPF_JA = 0x05, BPF_RET_A = 0x16, BPF_RET_K = 0x06,
};
#define SKF_AD_PROTOCOL_OFF (-0x1000)   /* SKF_AD_OFF + SKF_AD_PROTOCOL: skb->protocol, host order */
#define SKF_NET (-0x100000)             /* SKF_NET_OFF: loads relative to the network header */

struct prog {
	struct roce_bpf_insn *v;
	unsigned n, cap;
};

static void emit(struct prog *p, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	if (p->n < p->cap)
		p->v[p->n] = (struct roce_bpf_insn){ code, jt, jf, k };
	p->n++;
}

/* A ^= word at the network header + off (X is clobbered). */
static void xor_word(struct prog *p, int off, int first)
{
	if (first) {
		emit(p, BPF_LD_W_ABS, 0, 0, (uint32_t)(SKF_NET + off));
		return;
	}
	emit(p, BPF_TAX, 0, 0, 0);
	emit(p, BPF_LD_W_ABS, 0, 0, (uint32_t)(SKF_NET + off));
	emit(p, BPF_XOR_X, 0, 0, 0);
}

/* The key in A: A ^= A >> 16; A *= 0x9e3779b1; A >>= 16; return A. */
static void mix_ret(struct prog *p)
{
	emit(p, BPF_TAX, 0, 0, 0);
	emit(p, BPF_RSH_K, 0, 0, 16);
	emit(p, BPF_XOR_X, 0, 0, 0);
	emit(p, BPF_MUL_K, 0, 0, 0x9e3779b1u);
	emit(p, BPF_RSH_K, 0, 0, 16);
	emit(p, BPF_RET_A, 0, 0, 0);
}

/*
 *  0  ld proto; jeq 0x0800 → v4; jeq 0x86dd → v6; jeq 0x8915 → v6; ret 0
 *  v4: A = [12] ^ [16]; mix; ret A
 *  v6: A = [8] ^ [12] ^ … ^ [36]; mix; ret A
 * A load past the end of the packet ends the program with 0 (key 0).
 */
int roce_fanout_cbpf(struct roce_bpf_insn *v, unsigned cap)
{
	struct prog p = { v, 0, cap };
	const unsigned v4_len = 1 + 3 + 6;  /* two words, mix_ret */

	emit(&p, BPF_LD_W_ABS, 0, 0, (uint32_t)SKF_AD_PROTOCOL_OFF);
	emit(&p, BPF_JEQ_K, 3, 0, ETH_IPV4);          /* → 5 */
	emit(&p, BPF_JEQ_K, 2 + (uint8_t)v4_len, 0, ETH_IPV6);
	emit(&p, BPF_JEQ_K, 1 + (uint8_t)v4_len, 0, ETH_ROCEV1);
	emit(&p, BPF_RET_K, 0, 0, 0);
	xor_word(&p, 12, 1);
	xor_word(&p, 16, 0);
	mix_ret(&p);
	for (int i = 0; i < 8; i++)
		xor_word(&p, 8 + 4 * i, i == 0);
	mix_ret(&p);
	return p.n <= cap ? (int)p.n : -1;
}
