/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ipoib.c — IP over InfiniBand: datagram mode (RFC 4391), a UD SEND_ONLY,
 * and connected mode (RFC 4755), an RC or UC SEND_FIRST or SEND_ONLY, whose
 * payload is the 4-byte IPoIB encapsulation header and an IPv4, IPv6 or ARP
 * packet.
 *
 *   LRH [GRH] | BTH (0x64) | DETH | Type (EtherType, 2) | Reserved (2, zero) | datagram | ICRC | VCRC
 *   LRH [GRH] | BTH (0x00, 0x04, 0x20, 0x24) | Type | Reserved | datagram ... | ICRC | VCRC
 *
 * Recognised as Wireshark does (it reads the payload of any IB packet so):
 * a native IB UD SEND_ONLY to a QP other than 0 and 1, or an RC/UC SEND_FIRST
 * or SEND_ONLY, whose payload starts with EtherType 0x0800, 0x86DD or 0x0806
 * and a zero reserved word (bth.c: the packets of a message after its first
 * do not start with the header, and are not read as one).  IPv4 and IPv6 are then decoded as on Ethernet (UDP
 * and TCP headers; nothing inside them is taken for RoCE, a mirror or
 * iWARP).  ARP over IPoIB (RFC 4391 9.1) has hardware type 32 and 20-byte
 * hardware addresses (flags/QPN 4, GID 16).  Fields under the names tshark
 * 4.0 gives them on such a packet: infiniband.rwh.etype (the type), then the
 * ip, ipv6, udp and tcp fields, or arp.*; roce.ipoib.reserved.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include "internal.h"

#define ARP_HW_INFINIBAND 32
#define IB_HWADDR_LEN 20

/* The IPoIB header of a payload at off, len bytes: the datagram after it
 * is decode.c's, as after an Ethernet header of that EtherType. */
struct roce__next roce__decode_ipoib(struct roce_pkt *p, uint32_t off, uint32_t len)
{
	uint16_t type;

	if (len < IPOIB_HLEN || roce__avail(p, off) < IPOIB_HLEN)
		return roce__next_none();
	type = rd16(p->data + off);
	if (rd16(p->data + off + 2) != 0 ||
	    (type != ROCE_ETH_IPV4 && type != ROCE_ETH_IPV6 && type != ROCE_ETH_ARP))
		return roce__next_none();
	p->ipoib_off = off;
	return roce__next_at(ROCE_NEXT_ETHERTYPE, type, off + IPOIB_HLEN, off + len);
}

/* The ARP packet after the IPoIB header, when it is IPoIB's: sizes and
 * where its addresses are. */
static const uint8_t *ipoib_arp(const struct roce_pkt *p, uint32_t *have)
{
	const uint8_t *a = p->data + p->ipoib_off + IPOIB_HLEN;

	*have = roce__avail(p, p->ipoib_off + IPOIB_HLEN);
	if (rd16(p->data + p->ipoib_off) != ROCE_ETH_ARP || *have < 8)
		return NULL;
	return a;
}

void roce__fields_ipoib(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const uint8_t *a;
	uint32_t have, hl, pl;

	/* Wireshark 4.0 names the type as that of a raw header (ipoib.* are
	 * its names for Linux's IPoIB capture header, not for this one) */
	EMIT_U("infiniband.rwh.etype", rd16(p->data + p->ipoib_off));
	EMIT_U("roce.ipoib.reserved", rd16(p->data + p->ipoib_off + 2));
	a = ipoib_arp(p, &have);
	if (!a)
		return;
	hl = a[4];
	pl = a[5];
	EMIT_U("arp.hw.type", rd16(a));
	EMIT_U("arp.proto.type", rd16(a + 2));
	EMIT_U("arp.hw.size", hl);
	EMIT_U("arp.proto.size", pl);
	EMIT_U("arp.opcode", rd16(a + 6));
	if (have < 8 + 2 * (hl + pl))
		return;
	EMIT_BYTES("arp.src.hw", a + 8, hl);
	if (pl == 4)
		EMIT_IP4("arp.src.proto_ipv4", a + 8 + hl);
	EMIT_BYTES("arp.dst.hw", a + 8 + hl + pl, hl);
	if (pl == 4)
		EMIT_IP4("arp.dst.proto_ipv4", a + 8 + 2 * hl + pl);
}

/* " ipoib IPv4 10.0.0.1.5000 > 10.0.0.2.80 TCP", " ipoib ARP who-has 10.0.0.2 tell 10.0.0.1" */
void roce__summary_ipoib(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const uint8_t *a;
	uint32_t have;
	int v6 = p->ip_version == 6;

	if ((a = ipoib_arp(p, &have))) {
		uint32_t hl = a[4];

		if (a[5] != 4 || have < 8 + 2 * hl + 8) {
			roce__sappend(buf, cap, n, " ipoib ARP");
			return;
		}
		inet_ntop(AF_INET, a + 8 + hl, s, sizeof s);
		inet_ntop(AF_INET, a + 12 + 2 * hl, d, sizeof d);
		if (rd16(a + 6) == 1)
			roce__sappend(buf, cap, n, " ipoib ARP who-has %s tell %s", d, s);
		else if (rd16(a + 6) == 2)
			roce__sappend(buf, cap, n, " ipoib ARP reply %s is-at qpn 0x%06x", s,
				      (unsigned)rd32(a + 8) & 0xffffff);
		else
			roce__sappend(buf, cap, n, " ipoib ARP op %u", rd16(a + 6));
		return;
	}
	if (!p->ip_version || roce__avail(p, p->ip_off) < (v6 ? 40u : 20u)) {
		roce__sappend(buf, cap, n, " ipoib type 0x%04x", rd16(p->data + p->ipoib_off));
		return;
	}
	inet_ntop(v6 ? AF_INET6 : AF_INET, p->data + p->ip_off + (v6 ? 8 : 12), s, sizeof s);
	inet_ntop(v6 ? AF_INET6 : AF_INET, p->data + p->ip_off + (v6 ? 24 : 16), d, sizeof d);
	if (p->l4_off && roce__avail(p, p->l4_off) >= 4 && (p->ip_proto == 17 || p->ip_proto == 6))
		roce__sappend(buf, cap, n, " ipoib IPv%u %s.%u > %s.%u %s", p->ip_version, s, p->sport, d,
			      p->dport, p->ip_proto == 6 ? "TCP" : "UDP");
	else
		roce__sappend(buf, cap, n, " ipoib IPv%u %s > %s proto %u", p->ip_version, s, d, p->ip_proto);
}

/* ---- builders ---------------------------------------------------------------------- */

int roce_build_ipoib_arp(uint8_t *dst, size_t cap, uint16_t op, const uint8_t sha[20], const uint8_t spa[4],
			 const uint8_t tha[20], const uint8_t tpa[4])
{
	const uint32_t n = 8 + 2 * (IB_HWADDR_LEN + 4);

	if (!dst || !sha || !spa || !tha || !tpa)
		return ROCE_EARG;
	if (cap < n)
		return ROCE_ENOSPC;
	wr16(dst, ARP_HW_INFINIBAND);
	wr16(dst + 2, ROCE_ETH_IPV4);
	dst[4] = IB_HWADDR_LEN;
	dst[5] = 4;
	wr16(dst + 6, op);
	memcpy(dst + 8, sha, IB_HWADDR_LEN);
	memcpy(dst + 28, spa, 4);
	memcpy(dst + 32, tha, IB_HWADDR_LEN);
	memcpy(dst + 52, tpa, 4);
	return (int)n;
}
