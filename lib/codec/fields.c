/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields.c — every decoded field of a frame, named as Wireshark names it
 * where Wireshark has the field (so that a listing can be held against
 * tshark value by value), and under "roce." where it does not.
 *
 * A field is given only when its bytes were captured.
 */
#include "internal.h"

#define HAS(p, l) ((p)->present & ROCE_LBIT(l))
#define TRUNC(p, l) ((p)->truncated & ROCE_LBIT(l))


static void link_fields(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const uint8_t *d = p->data;

	switch (p->linktype) {
	case ROCE_LINK_ETHERNET:
		if (p->caplen < 14)
			return;
		EMIT_MAC("eth.dst", d);
		EMIT_MAC("eth.src", d + 6);
		/* below 0x600 the field is an 802.3 length, not a type */
		EMIT_U(rd16(d + 12) < 0x600 ? "eth.len" : "eth.type", rd16(d + 12));
		break;
	case ROCE_LINK_LINUX_SLL:
		if (p->caplen < 16)
			return;
		EMIT_U("sll.pkttype", rd16(d));
		EMIT_U("sll.hatype", rd16(d + 2));
		EMIT_U("sll.halen", rd16(d + 4));
		EMIT_U("sll.etype", rd16(d + 14));
		break;
	case ROCE_LINK_LINUX_SLL2:
		if (p->caplen < 20)
			return;
		EMIT_U("sll.etype", rd16(d));
		EMIT_U("sll.ifindex", rd32(d + 4));
		EMIT_U("sll.hatype", rd16(d + 8));
		EMIT_U("sll.pkttype", d[10]);
		EMIT_U("sll.halen", d[11]);
		break;
	}
	for (unsigned i = 0; i < p->n_vlan; i++) {
		const struct roce_vlan *v = &p->vlan[i];
		uint16_t next = i + 1 < p->n_vlan ? p->vlan[i + 1].tpid : p->ethertype;

		/* Wireshark names an 802.1ad service tag apart from a C-tag */
		if (v->tpid == ROCE_ETH_QINQ) {
			EMIT_U("ieee8021ad.priority", v->pcp);
			EMIT_B("ieee8021ad.dei", v->dei);
			EMIT_U("ieee8021ad.id", v->vid);
			EMIT_U("ieee8021ah.etype", next);
		} else {
			EMIT_U("vlan.priority", v->pcp);
			EMIT_B("vlan.dei", v->dei);
			EMIT_U("vlan.id", v->vid);
			/* a length, not a type: an 802.3 frame with LLC (Wireshark: vlan.len) */
			EMIT_U(next < 0x600 ? "vlan.len" : "vlan.etype", next);
		}
	}
}

/* Fields are given as far as their bytes were captured (as Wireshark,
 * which stops at the first field it cannot read). */
#define UPTO(n) if (have < (n)) return

static void ipv4_fields(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const uint8_t *b = p->data + p->ip_off;
	uint32_t have = roce__avail(p, p->ip_off);

	UPTO(1);
	EMIT_U("ip.version", b[0] >> 4);
	EMIT_U("ip.hdr_len", (b[0] & 15) * 4);
	UPTO(2);
	EMIT_U("ip.dsfield", b[1]);
	EMIT_U("ip.dsfield.dscp", b[1] >> 2);
	EMIT_U("ip.dsfield.ecn", b[1] & 3);
	UPTO(4);
	EMIT_U("ip.len", rd16(b + 2));
	UPTO(6);
	EMIT_U("ip.id", rd16(b + 4));
	UPTO(7);
	EMIT_B("ip.flags.df", b[6] & 0x40);
	EMIT_B("ip.flags.mf", b[6] & 0x20);
	UPTO(8);
	EMIT_U("ip.frag_offset", (rd16(b + 6) & 0x1fff) * 8u);
	UPTO(9);
	EMIT_U("ip.ttl", b[8]);
	UPTO(10);
	EMIT_U("ip.proto", b[9]);
	UPTO(12);
	EMIT_U("ip.checksum", rd16(b + 10));
	if (have >= (b[0] & 15) * 4u && (b[0] & 15) >= 5)
		EMIT_S("roce.ip.checksum.status",
		       roce_inet_csum(b, (b[0] & 15) * 4u, 0) == 0 ? "good" : "bad");
	UPTO(16);
	EMIT_IP4("ip.src", b + 12);
	UPTO(20);
	EMIT_IP4("ip.dst", b + 16);
	if (p->ip_frag)
		EMIT_B("roce.ip.fragment", 1);
}

/* The fixed 40 bytes shared by IPv6 and the RoCEv1 GRH, as far as captured. */
static void v6hdr_fields(const uint8_t *b, uint32_t have, int grh, roce_field_cb cb, void *ctx)
{
	uint32_t w, tc;

	if (grh && have < ROCE_GRH_LEN)
		return;      /* Wireshark adds no GRH field unless all 40 bytes were captured */
	UPTO(4);
	w = rd32(b);
	tc = (w >> 20) & 0xff;
	if (grh) {
		EMIT_U("infiniband.grh.ipver", w >> 28);
		EMIT_U("infiniband.grh.tclass", tc);
		EMIT_U("infiniband.grh.flowlabel", w & 0xfffff);
		EMIT_U("roce.grh.dscp", tc >> 2);
		EMIT_U("roce.grh.ecn", tc & 3);
		UPTO(6);
		EMIT_U("infiniband.grh.paylen", rd16(b + 4));
		UPTO(7);
		EMIT_U("infiniband.grh.nxthdr", b[6]);
		UPTO(8);
		EMIT_U("infiniband.grh.hoplmt", b[7]);
		UPTO(24);
		EMIT_IP6("infiniband.grh.sgid", b + 8);
		UPTO(40);
		EMIT_IP6("infiniband.grh.dgid", b + 24);
	} else {
		EMIT_U("ipv6.version", w >> 28);
		EMIT_U("ipv6.tclass", tc);
		EMIT_U("ipv6.tclass.dscp", tc >> 2);
		EMIT_U("ipv6.tclass.ecn", tc & 3);
		EMIT_U("ipv6.flow", w & 0xfffff);
		UPTO(6);
		EMIT_U("ipv6.plen", rd16(b + 4));
		UPTO(7);
		EMIT_U("ipv6.nxt", b[6]);
		UPTO(8);
		EMIT_U("ipv6.hlim", b[7]);
		UPTO(24);
		EMIT_IP6("ipv6.src", b + 8);
		UPTO(40);
		EMIT_IP6("ipv6.dst", b + 24);
	}
}

static void udp_fields(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const uint8_t *b = p->data + p->l4_off;
	uint32_t have = roce__avail(p, p->l4_off);

	UPTO(2);
	EMIT_U("udp.srcport", rd16(b));
	UPTO(4);
	EMIT_U("udp.dstport", rd16(b + 2));
	UPTO(6);
	EMIT_U("udp.length", rd16(b + 4));
	UPTO(8);
	EMIT_U("udp.checksum", rd16(b + 6));
}

static const char *aeth_type_name(uint8_t syn)
{
	static const char *const n[4] = { "ACK", "RNR NAK", "reserved", "NAK" };
	return n[ROCE_AETH_TYPE(syn)];
}

static void bth_fields(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const struct roce_opinfo *oi;
	uint32_t have = roce__avail(p, p->bth_off);

	/* Wireshark adds no BTH field unless all 12 bytes were captured. */
	if (!p->bth_off || have < ROCE_BTH_LEN)
		return;
	EMIT_U("infiniband.bth.opcode", p->opcode);
	EMIT_S("roce.opcode", roce_opcode_name(p->opcode));
	EMIT_B("infiniband.bth.se", p->se);
	EMIT_B("infiniband.bth.m", p->migreq);
	EMIT_U("infiniband.bth.padcnt", p->padcnt);
	EMIT_U("infiniband.bth.tver", p->tver);
	EMIT_U("infiniband.bth.p_key", p->pkey);
	EMIT_B("roce.bth.fecn", p->fecn);
	EMIT_B("roce.bth.becn", p->becn);
	EMIT_U("infiniband.bth.destqp", p->dqpn);
	EMIT_B("infiniband.bth.a", p->ackreq);
	EMIT_U("infiniband.bth.reserved7", p->data[p->bth_off + 8] & 0x7f);
	EMIT_U("infiniband.bth.psn", p->psn);

	oi = roce_opcode_info(p->opcode);
	if (!oi)
		return;
	if (oi->kind == ROCE_OK_CNP)
		EMIT_B("roce.cnp", 1);
	if (p->rdeth_off)
		EMIT_U("infiniband.rdeth.eecnxt", roce_rdeth_eecnxt(p));
	if (p->deth_off) {
		EMIT_U("infiniband.deth.q_key", roce_deth_qkey(p));
		EMIT_U("infiniband.deth.srcqp", roce_deth_srcqp(p));
	}
	if (p->xrceth_off)
		EMIT_U("roce.xrceth.srq", roce_xrceth_srq(p));
	if (p->feth_off) {
		uint32_t w = roce_feth_word(p);
		EMIT_U("roce.feth.sel", (w >> 4) & 3);
		EMIT_U("roce.feth.plt", w & 15);
	}
	if (p->reth_off) {
		EMIT_U("infiniband.reth.va", roce_reth_va(p));
		EMIT_U("infiniband.reth.r_key", roce_reth_rkey(p));
		EMIT_U("infiniband.reth.dmalen", roce_reth_dmalen(p));
	}
	if (p->atomiceth_off) {
		/* Wireshark reuses its RETH VA and R_Key fields for the AtomicETH. */
		EMIT_U("infiniband.reth.va", roce_atomiceth_va(p));
		EMIT_U("infiniband.reth.r_key", roce_atomiceth_rkey(p));
		EMIT_U("infiniband.atomiceth.swapdt", roce_atomiceth_swap(p));
		EMIT_U("infiniband.atomiceth.cmpdt", roce_atomiceth_cmp(p));
	}
	if (p->aeth_off) {
		uint8_t syn = roce_aeth_syndrome(p);
		uint8_t t = ROCE_AETH_TYPE(syn), v = ROCE_AETH_VALUE(syn);

		EMIT_U("infiniband.aeth.syndrome", syn);
		EMIT_U("infiniband.aeth.syndrome.opcode", t);
		EMIT_S("roce.aeth.type", aeth_type_name(syn));
		if (t == ROCE_AETH_ACK) {
			EMIT_U("infiniband.aeth.syndrome.credit_count", v);
		} else if (t == ROCE_AETH_RNR_NAK) {
			EMIT_U("infiniband.aeth.syndrome.timer", v);
			EMIT_U("roce.aeth.rnr_timer_us", roce_rnr_timer_us(v));
		} else if (t == ROCE_AETH_NAK) {
			EMIT_U("infiniband.aeth.syndrome.error_code", v);
			EMIT_S("roce.aeth.nak", roce_nak_name(v));
		}
		EMIT_U("infiniband.aeth.msn", roce_aeth_msn(p));
	}
	if (p->atomicacketh_off)
		EMIT_U("infiniband.atomicacketh.origremdt", roce_atomicacketh_orig(p));
	if (p->immdt_off) {
		EMIT_BYTES("infiniband.immdt", p->data + p->immdt_off, 4);
		EMIT_U("roce.immdt", roce_immdt(p));
	}
	if (p->ieth_off) {
		EMIT_BYTES("infiniband.ieth", p->data + p->ieth_off, 4);
		EMIT_U("roce.ieth.r_key", roce_ieth_rkey(p));
	}
	if (p->payload_off) {
		EMIT_U("roce.payload.len", p->payload_len);
		EMIT_U("roce.pad", p->padcnt);
	}
}

static void icrc_fields(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	uint32_t wire, computed = 0;
	enum roce_icrc_status st;

	if (!p->icrc_off)
		return;
	st = roce_icrc_verify(p, &computed);
	if (roce_icrc_wire(p, &wire) == ROCE_OK) {
		/* Wireshark shows the four ICRC bytes as a big-endian number. */
		EMIT_U("infiniband.invariant.crc", rd32(p->data + p->icrc_off));
		EMIT_U("roce.icrc", wire);
	}
	if (st != ROCE_ICRC_UNCHECKED)
		EMIT_U("roce.icrc.computed", computed);
	EMIT_S("roce.icrc.status", roce_icrc_status_name(st));
}

void roce_foreach_field(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	roce_foreach_field_flags(p, 0, cb, ctx);
}

/* Link, IP and UDP: the outer headers of a mirror copy, or a frame's own. */
static void lower_fields(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	if (HAS(p, ROCE_L_LINK) || p->n_vlan)
		link_fields(p, cb, ctx);
	if (p->ip_version == 4)
		ipv4_fields(p, cb, ctx);
	else if (p->ip_version == 6)
		v6hdr_fields(p->data + p->ip_off, roce__avail(p, p->ip_off), 0, cb, ctx);
	if (p->l4_off && p->ip_proto == 17)
		udp_fields(p, cb, ctx);
}

/* A decapsulated copy: the outer headers (decoded again, without
 * decapsulating), then the mirror's, in wire order as tshark lists them. */
static void outer_fields(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const struct roce_encap *e = &p->encap;
	struct roce_pkt o;

	o.encap.kind = e->kind;
	if (roce__decode_frame(&o, NULL, e->outer_linktype, e->outer, e->outer_caplen, e->outer_wirelen) == ROCE_OK)
		lower_fields(&o, cb, ctx);
	roce__fields_encap(p, cb, ctx);
}

/* IPoIB: its header, then the IP packet (or ARP) as on Ethernet */
static void ipoib_fields(const struct roce_pkt *p, unsigned flags, roce_field_cb cb, void *ctx)
{
	roce__fields_ipoib(p, cb, ctx);
	lower_fields(p, cb, ctx);
	if (HAS(p, ROCE_L_TCP))
		roce__fields_tcp(p, flags, cb, ctx);
}

void roce_foreach_field_flags(const struct roce_pkt *p, unsigned flags, roce_field_cb cb, void *ctx)
{
	if (p->erf.present)
		roce__fields_erf(p, cb, ctx);
	if (p->encap.kind && p->encap.inner_off)
		outer_fields(p, cb, ctx);
	if (HAS(p, ROCE_L_LRH))
		roce__fields_ib(p, cb, ctx);
	if (!p->ipoib_off)     /* IPoIB: the IP packet comes after the BTH and DETH */
		lower_fields(p, cb, ctx);
	if (p->encap.kind && !p->encap.inner_off)
		roce__fields_encap(p, cb, ctx);
	if (HAS(p, ROCE_L_TCP) && !p->ipoib_off)
		roce__fields_tcp(p, flags, cb, ctx);
	if (p->version != ROCE_VER_NONE)
		EMIT_S("roce.version", roce_version_name(p->version));
	if (p->grh_off)
		v6hdr_fields(p->data + p->grh_off, roce__avail(p, p->grh_off), 1, cb, ctx);
	if (p->version != ROCE_VER_NONE) {
		bth_fields(p, cb, ctx);
		if (p->mad_off)
			roce__fields_mad(p, cb, ctx);
		else if (p->mgmt_off)
			roce__fields_mgmt(p, cb, ctx);
		else if (p->ipoib_off)
			ipoib_fields(p, flags, cb, ctx);
		icrc_fields(p, cb, ctx);
	}
	roce__fields_vcrc(p, cb, ctx);
	roce__fields_l2(p, cb, ctx);
	if (p->trailer_len)
		EMIT_U("roce.trailer.len", p->trailer_len);
	if (p->fcs_off) {
		/* shown as Wireshark shows it: the four bytes read big-endian */
		EMIT_U("eth.fcs", rd32(p->data + p->fcs_off));
		EMIT_S("roce.fcs.status", "good");
	}
	if (p->truncated) {
		for (int l = 0; l < ROCE_L__COUNT; l++)
			if (p->truncated & ROCE_LBIT(l)) {
				EMIT_S("roce.truncated", roce_layer_name((enum roce_layer)l));
				break;
			}
	}
	if (p->invalid) {
		EMIT_S("roce.invalid", p->why ? p->why : "invalid");
		EMIT_S("roce.invalid.layer", roce_layer_name(p->why_layer));
	}
}
