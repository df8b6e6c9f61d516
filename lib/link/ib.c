/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib.c — native InfiniBand (IBTA vol 1, 7.7 LRH, 7.8 ICRC/VCRC, 8.3 GRH):
 * what LINKTYPE_INFINIBAND (247) and ERF type 21 carry.  Then BTH and the
 * extended headers exactly as for RoCE (bth.c), or a raw packet's datagram
 * (decode.c): roce__decode_lrh returns which, and decode.c goes on.
 *
 * LRH (8):  VL(4) LVer(4) | SL(4) rsv(2) LNH(2) | DLID(16) | rsv(5) PktLen(11) | SLID(16)
 *           LNH 0 raw, 1 IPv6 raw, 2 IBA local (BTH next), 3 IBA global (GRH next)
 *           PktLen: 4-byte words from the LRH through the ICRC
 * ... BTH ... payload pad | ICRC (4, LSB first) | VCRC (2, LSB first)
 * Link (flow control) packet, 6 bytes: Op(4) FCTBS(12) | VL(4) FCCL(12) | LPCRC(16)
 *
 * ICRC: CRC-32 as for RoCE over the real LRH with VL as ones, the GRH with
 * traffic class, flow label and hop limit as ones, BTH byte 4 (FECN, BECN,
 * resv6) as ones.  VCRC: CRC-16 polynomial 0x100B (reflected 0xD008), seed
 * 0xFFFF, inverted, over LRH .. ICRC.  Both checked on a public ibdump
 * capture (../shared/PROTOCOL-NOTES.md).  The ICRC is computed in icrc.c
 * (roce__icrc_ib), the builders are in ib_build.c.
 */
#include "internal.h"


/* The GRH of an LNH 3 packet at off; returns the BTH after it. */
static struct roce__next decode_ib_grh(struct roce_pkt *p, uint32_t off, uint32_t end)
{
	const uint8_t *b = p->data + off;

	p->grh_off = off;
	if (end - off < ROCE_GRH_LEN + ROCE_BTH_LEN + ROCE_ICRC_LEN) {
		roce__invalid(p, ROCE_L_GRH, "packet too short for a GRH and a BTH");
		return roce__next_none();
	}
	if (roce__avail(p, off) < ROCE_GRH_LEN) {
		roce__trunc(p, ROCE_L_GRH);
		return roce__next_none();
	}
	roce__seen(p, ROCE_L_GRH);
	p->dscp = (uint8_t)((b[0] & 15) << 2 | b[1] >> 6);
	p->ecn = (b[1] >> 4) & 3;
	p->ttl = b[7];
	if (b[6] != 0x1b) {
		roce__invalid(p, ROCE_L_GRH, "GRH next header is not 0x1B (IBA transport)");
		return roce__next_none();
	}
	return roce__next_at(ROCE_NEXT_IB_BTH, 0, off + ROCE_GRH_LEN, end);
}

/* Raw InfiniBand datagrams after a valid LRH (IBTA vol 1 5.3): LNH 1 an
 * IPv6 packet, LNH 0 the 4-byte raw header (reserved 16 | EtherType 16)
 * and a packet of that EtherType; no ICRC, the VCRC at end. */
static struct roce__next decode_raw(struct roce_pkt *p, uint32_t end)
{
	const uint32_t off = IB_LRH_LEN;

	if (p->lnh == 1)
		return roce__next_at(ROCE_NEXT_ETHERTYPE, ROCE_ETH_IPV6, off, end);
	if (end < off + 4)
		return roce__next_none();
	if (roce__avail(p, off) < 4) {
		roce__trunc(p, ROCE_L_LRH);
		return roce__next_none();
	}
	p->rwh_off = off;
	return roce__next_at(ROCE_NEXT_ETHERTYPE, rd16(p->data + off + 2), off + 4, end);
}

struct roce__next roce__decode_lrh(struct roce_pkt *p, uint32_t end)
{
	const uint8_t *b = p->data;
	uint32_t ib_end;

	p->vl = p->lver = p->sl = p->lnh = 0;
	p->dlid = p->slid = p->pktlen = 0;
	p->vcrc_off = 0;
	p->ib_link = 0;
	if (end < IB_LRH_LEN) {
		roce__invalid(p, ROCE_L_LRH, "packet shorter than an LRH");
		return roce__next_none();
	}
	if (p->caplen < IB_LRH_LEN) {
		roce__trunc(p, ROCE_L_LRH);
		return roce__next_none();
	}
	roce__seen(p, ROCE_L_LRH);
	p->vl = b[0] >> 4;
	p->lver = b[0] & 15;
	p->sl = b[1] >> 4;
	p->lnh = b[1] & 3;
	p->dlid = rd16(b + 2);
	p->pktlen = rd16(b + 4) & 0x7ff;
	p->slid = rd16(b + 6);
	ib_end = (uint32_t)p->pktlen * 4;
	if (ib_end < IB_LRH_LEN || ib_end + IB_VCRC_LEN != end) {
		roce__invalid(p, ROCE_L_LRH, "LRH PktLen disagrees with the packet length");
		return roce__next_none();
	}
	p->vcrc_off = ib_end;
	if (roce__avail(p, ib_end) < IB_VCRC_LEN)
		roce__trunc(p, ROCE_L_LRH);
	if (p->lnh < 2)
		return decode_raw(p, ib_end);
	p->version = ROCE_VER_IB;
	if (p->lnh == 3)
		return decode_ib_grh(p, IB_LRH_LEN, ib_end);
	if (ib_end < IB_LRH_LEN + ROCE_BTH_LEN + ROCE_ICRC_LEN) {
		roce__invalid(p, ROCE_L_BTH, "packet too short for a BTH");
		return roce__next_none();
	}
	return roce__next_at(ROCE_NEXT_IB_BTH, 0, IB_LRH_LEN, ib_end);
}

uint16_t roce_vcrc16(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint16_t crc = 0xffff;

	for (size_t i = 0; i < len; i++) {
		crc ^= b[i];
		for (int k = 0; k < 8; k++)
			crc = (uint16_t)(crc & 1 ? (crc >> 1) ^ 0xd008 : crc >> 1);
	}
	return (uint16_t)~crc;
}

enum roce_icrc_status roce_vcrc_verify(const struct roce_pkt *p, uint16_t *computed)
{
	uint16_t c;

	if (!(p->present & ROCE_LBIT(ROCE_L_LRH)) || !p->vcrc_off || p->ib_link ||
	    roce__avail(p, p->vcrc_off) < IB_VCRC_LEN)
		return ROCE_ICRC_UNCHECKED;
	c = roce_vcrc16(p->data, p->vcrc_off);
	if (computed)
		*computed = c;
	return c == (uint16_t)(p->data[p->vcrc_off] | p->data[p->vcrc_off + 1] << 8) ? ROCE_ICRC_GOOD
										  : ROCE_ICRC_BAD;
}

void roce__fields_ib(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const uint8_t *b = p->data;

	if (p->ib_link) {
		if (p->caplen < 6)
			return;
		EMIT_U("roce.iblink.op", b[0] >> 4);
		EMIT_U("roce.iblink.fctbs", rd16(b) & 0xfff);
		EMIT_U("roce.iblink.vl", b[2] >> 4);
		EMIT_U("roce.iblink.fccl", rd16(b + 2) & 0xfff);
		EMIT_U("roce.iblink.lpcrc", rd16(b + 4));
		return;
	}
	if (p->caplen < IB_LRH_LEN)
		return;
	EMIT_U("infiniband.lrh.vl", p->vl);
	EMIT_U("infiniband.lrh.lver", p->lver);
	EMIT_U("infiniband.lrh.sl", p->sl);
	EMIT_U("infiniband.lrh.reserved2", (b[1] >> 2) & 3);
	EMIT_U("infiniband.lrh.lnh", p->lnh);
	EMIT_U("infiniband.lrh.dlid", p->dlid);
	EMIT_U("infiniband.lrh.reserved5", b[4] >> 3);
	EMIT_U("infiniband.lrh.pktlen", p->pktlen);
	EMIT_U("infiniband.lrh.slid", p->slid);
	if (p->rwh_off && roce__avail(p, p->rwh_off) >= 4)
		EMIT_U("infiniband.rwh.etype", rd16(p->data + p->rwh_off + 2));
}

/* After the ICRC's fields: the VCRC and its status. */
void roce__fields_vcrc(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	uint16_t c = 0;
	enum roce_icrc_status st;

	if (!(p->present & ROCE_LBIT(ROCE_L_LRH)) || p->ib_link || !p->vcrc_off)
		return;
	st = roce_vcrc_verify(p, &c);
	if (roce__avail(p, p->vcrc_off) >= IB_VCRC_LEN)
		EMIT_U("roce.vcrc", p->data[p->vcrc_off] | p->data[p->vcrc_off + 1] << 8);
	if (st != ROCE_ICRC_UNCHECKED)
		EMIT_U("roce.vcrc.computed", c);
	EMIT_S("roce.vcrc.status", roce_icrc_status_name(st));
}

