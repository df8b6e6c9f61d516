/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * build.c — RoCE frame builders: roce_build() writes a whole Ethernet frame
 * (RoCEv1: Ethernet 0x8915 + GRH, IBTA vol 1 annex A16; RoCEv2: IPv4/IPv6 +
 * UDP 4791, annex A17) into a caller-owned buffer, and the template path
 * (zmap-style "prepare once, patch what changes") re-stamps PSN, DestQP and
 * payload and refreshes the ICRC, UDP checksum and FCS.
 *
 *   Ethernet  dst(6) src(6) [TPID(2) PCP(3)|DEI(1)|VID(12)]{0,2} type(2)
 *   v1:       GRH(40)                                   (0x8915)
 *   v2:       IPv4(20) or IPv6(40), UDP(8)              (0x0800 / 0x86dd)
 *   then      BTH(12) ext headers payload pad(0-3) ICRC(4, little-endian)
 *             [zero padding up to 60 bytes] [FCS(4, little-endian)]
 *
 *   BTH  0: opcode | 1: SE M PadCnt(2) TVer(4) | 2-3: P_Key
 *        4: FECN BECN resv6 | 5-7: DestQP | 8: AckReq resv7 | 9-11: PSN
 */
#include "internal.h"

/* The UDP checksum (RFC 768 / RFC 8200 8.1) over the pseudo-header and the
 * whole UDP datagram at l4 (whose checksum field must be zero); 0 is sent
 * as 0xffff. */
static uint16_t udp_csum(const uint8_t *ip, int ipv6, const uint8_t *l4, uint32_t udp_len)
{
	uint32_t ph = 17 + udp_len;
	uint16_t c;

	if (ipv6)
		ph += (uint16_t)~roce_inet_csum(ip + 8, 32, 0);
	else
		ph += (uint16_t)~roce_inet_csum(ip + 12, 8, 0);
	c = roce_inet_csum(l4, udp_len, ph);
	return c ? c : 0xffff;
}

/* ---- layout ---------------------------------------------------------------- */

struct layout {
	uint16_t hdrs;
	uint32_t l2_len;       /* Ethernet header + tags */
	uint32_t ip_off;       /* IP header or GRH */
	uint32_t ip_hlen;
	uint32_t l4_off;       /* 0 for v1 */
	uint32_t bth_off;
	uint32_t payload_off;
	uint32_t pad;
	uint32_t icrc_off;
	uint32_t end;          /* after the ICRC */
	uint32_t len;          /* after Ethernet padding, before FCS */
	uint32_t total;
};

static unsigned ext_bytes(uint16_t h)
{
	unsigned n = 0;

	n += h & ROCE_H_RDETH ? ROCE_RDETH_LEN : 0;
	n += h & ROCE_H_DETH ? ROCE_DETH_LEN : 0;
	n += h & ROCE_H_XRCETH ? ROCE_XRCETH_LEN : 0;
	n += h & ROCE_H_FETH ? ROCE_FETH_LEN : 0;
	n += h & ROCE_H_RETH ? ROCE_RETH_LEN : 0;
	n += h & ROCE_H_ATOMICETH ? ROCE_ATOMICETH_LEN : 0;
	n += h & ROCE_H_AETH ? ROCE_AETH_LEN : 0;
	n += h & ROCE_H_ATOMICACKETH ? ROCE_ATOMICACKETH_LEN : 0;
	n += h & ROCE_H_IMMDT ? ROCE_IMMDT_LEN : 0;
	n += h & ROCE_H_IETH ? ROCE_IETH_LEN : 0;
	n += h & ROCE_H_CNP_RSVD ? ROCE_CNP_RSVD_LEN : 0;
	return n;
}

#define U24_OK(v) ((v) <= 0xffffffu)

/* Checks every argument and works out where each header goes. */
static int plan(const struct roce_frame_spec *s, struct layout *L)
{
	const struct roce_opinfo *oi = roce_opcode_info(s->bth.opcode);
	const struct roce_ext_spec *x = &s->ext;
	const struct roce_bth_spec *b = &s->bth;
	int v1 = s->version == ROCE_VER_V1;
	uint64_t ib;

	if (!oi)
		return ROCE_EARG;
	L->hdrs = oi->hdrs;
	if (s->bth.opcode == ROCE_OPCODE_CNP)
		L->hdrs |= ROCE_H_CNP_RSVD;

	switch (s->version) {
	case ROCE_VER_V1:
		if (s->ip.version != 6 && s->ip.version != 0)
			return ROCE_EARG;
		break;
	case ROCE_VER_V2_PORT:
		if (!s->dport)
			return ROCE_EARG;
		/* fall through */
	case ROCE_VER_V2:
	case ROCE_VER_V2_1021:
		if (s->ip.version != 4 && s->ip.version != 6)
			return ROCE_EARG;
		break;
	default:
		return ROCE_EARG;
	}
	if (s->eth.n_vlan > 2)
		return ROCE_EARG;
	for (unsigned i = 0; i < s->eth.n_vlan; i++)
		if (s->eth.vlan[i].pcp > 7 || s->eth.vlan[i].dei > 1 || s->eth.vlan[i].vid > 0xfff)
			return ROCE_EARG;
	if (s->ip.dscp > 63 || s->ip.ecn > 3 || s->ip.flow_label > 0xfffff)
		return ROCE_EARG;
	if (!U24_OK(b->dqpn) || !U24_OK(b->psn) || b->tver > 15 || b->pad > 3)
		return ROCE_EARG;
	if ((L->hdrs & ROCE_H_RDETH && !U24_OK(x->eecnxt)) ||
	    (L->hdrs & ROCE_H_DETH && !U24_OK(x->src_qp)) ||
	    (L->hdrs & ROCE_H_XRCETH && !U24_OK(x->xrc_srq)) ||
	    (L->hdrs & ROCE_H_AETH && !U24_OK(x->msn)))
		return ROCE_EARG;
	if (s->payload_len && !(L->hdrs & ROCE_H_PAYLOAD))
		return ROCE_EARG;
	if (s->payload_len > 0xffff)
		return ROCE_EARG;

	L->l2_len = 14 + 4u * s->eth.n_vlan;
	L->ip_off = L->l2_len;
	L->ip_hlen = v1 ? ROCE_GRH_LEN : s->ip.version == 4 ? 20 : 40;
	L->l4_off = v1 ? 0 : L->ip_off + L->ip_hlen;
	L->bth_off = L->ip_off + L->ip_hlen + (v1 ? 0 : 8);
	L->payload_off = L->bth_off + ROCE_BTH_LEN + ext_bytes(L->hdrs);
	L->pad = b->pad < 0 ? (4 - s->payload_len % 4) % 4 : (uint32_t)b->pad;
	ib = (uint64_t)L->payload_off - L->bth_off + s->payload_len + L->pad + ROCE_ICRC_LEN;
	/* IPv4 total length, IPv6 payload length and GRH PayLen are 16 bits */
	if (ib + (v1 ? 0 : 8) + (s->version != ROCE_VER_V1 && s->ip.version == 4 ? 20 : 0) > 0xffff)
		return ROCE_EARG;
	L->icrc_off = L->payload_off + s->payload_len + L->pad;
	L->end = L->icrc_off + ROCE_ICRC_LEN;
	L->len = L->end < 60 ? 60 : L->end;
	L->total = L->len + (s->fcs ? 4 : 0);
	return ROCE_OK;
}

static uint8_t *put_ext(uint8_t *w, uint16_t h, const struct roce_ext_spec *x)
{
	if (h & ROCE_H_RDETH) {
		wr32(w, x->eecnxt);
		w += ROCE_RDETH_LEN;
	}
	if (h & ROCE_H_DETH) {
		wr32(w, x->qkey);
		wr32(w + 4, x->src_qp);
		w += ROCE_DETH_LEN;
	}
	if (h & ROCE_H_XRCETH) {
		wr32(w, x->xrc_srq);
		w += ROCE_XRCETH_LEN;
	}
	if (h & ROCE_H_FETH) {
		wr32(w, x->feth);
		w += ROCE_FETH_LEN;
	}
	if (h & ROCE_H_RETH) {
		wr64(w, x->va);
		wr32(w + 8, x->rkey);
		wr32(w + 12, x->dmalen);
		w += ROCE_RETH_LEN;
	}
	if (h & ROCE_H_ATOMICETH) {
		wr64(w, x->va);
		wr32(w + 8, x->rkey);
		wr64(w + 12, x->swap_add);
		wr64(w + 20, x->compare);
		w += ROCE_ATOMICETH_LEN;
	}
	if (h & ROCE_H_AETH) {
		wr32(w, (uint32_t)x->syndrome << 24 | x->msn);
		w += ROCE_AETH_LEN;
	}
	if (h & ROCE_H_ATOMICACKETH) {
		wr64(w, x->orig);
		w += ROCE_ATOMICACKETH_LEN;
	}
	if (h & ROCE_H_IMMDT) {
		wr32(w, x->imm);
		w += ROCE_IMMDT_LEN;
	}
	if (h & ROCE_H_IETH) {
		wr32(w, x->inv_rkey);
		w += ROCE_IETH_LEN;
	}
	if (h & ROCE_H_CNP_RSVD) {
		memset(w, 0, ROCE_CNP_RSVD_LEN);
		w += ROCE_CNP_RSVD_LEN;
	}
	return w;
}

/* Ethernet II and 802.1Q / 802.1ad tags; returns where the network header goes. */
static uint8_t *put_eth(uint8_t *dst, const struct roce_frame_spec *s, int v1, int ipv6)
{
	uint8_t *w;

	memcpy(dst, s->eth.dst, 6);
	memcpy(dst + 6, s->eth.src, 6);
	w = dst + 12;
	for (unsigned i = 0; i < s->eth.n_vlan; i++) {
		const struct roce_vlan *v = &s->eth.vlan[i];
		uint16_t tpid = v->tpid ? v->tpid
			: s->eth.n_vlan == 2 && i == 0 ? ROCE_ETH_QINQ : ROCE_ETH_VLAN;

		wr16(w, tpid);
		wr16(w + 2, (uint16_t)(v->pcp << 13 | v->dei << 12 | v->vid));
		w += 4;
	}
	wr16(w, v1 ? ROCE_ETH_ROCEV1 : ipv6 ? ROCE_ETH_IPV6 : ROCE_ETH_IPV4);
	return w + 2;
}

/* IPv6 (RFC 8200), the GRH (which has the same layout) or IPv4 with its
 * checksum, then UDP but for RoCEv1; returns where the BTH goes. */
static uint8_t *put_ip_udp(uint8_t *w, const struct roce_frame_spec *s, const struct layout *L, int v1, int ipv6)
{
	const struct roce_ip_spec *ip = &s->ip;
	uint8_t tclass = (uint8_t)(ip->dscp << 2 | ip->ecn);
	uint8_t ttl = ip->ttl ? ip->ttl : 64;

	if (ipv6) {
		wr32(w, 6u << 28 | (uint32_t)tclass << 20 | ip->flow_label);
		wr16(w + 4, (uint16_t)(L->end - L->ip_off - 40));
		w[6] = v1 ? 0x1b : 17;
		w[7] = ttl;
		memcpy(w + 8, ip->src, 16);
		memcpy(w + 24, ip->dst, 16);
		w += 40;
	} else {
		w[0] = 0x45;
		w[1] = tclass;
		wr16(w + 2, (uint16_t)(L->end - L->ip_off));
		wr16(w + 4, ip->ip_id);
		wr16(w + 6, ip->dont_fragment ? 0x4000 : 0);
		w[8] = ttl;
		w[9] = 17;
		wr16(w + 10, 0);
		memcpy(w + 12, ip->src, 4);
		memcpy(w + 16, ip->dst, 4);
		wr16(w + 10, roce_inet_csum(w, 20, 0));
		w += 20;
	}
	if (!v1) {
		uint16_t dport = s->version == ROCE_VER_V2 ? ROCE_UDP_PORT
			: s->version == ROCE_VER_V2_1021 ? ROCE_UDP_PORT_LEGACY : s->dport;

		wr16(w, s->sport ? s->sport : 0xc000);
		wr16(w + 2, dport);
		wr16(w + 4, (uint16_t)(L->end - L->l4_off));
		wr16(w + 6, 0);
		w += 8;
	}
	return w;
}

/* The BTH, the extended headers, the payload (zeros without one) and the pad; returns where the ICRC goes. */
static uint8_t *put_transport(uint8_t *w, const struct roce_frame_spec *s, const struct layout *L)
{
	const struct roce_bth_spec *b = &s->bth;

	w[0] = b->opcode;
	w[1] = (uint8_t)((b->se ? 0x80 : 0) | (b->migreq ? 0x40 : 0) | L->pad << 4 | b->tver);
	wr16(w + 2, b->pkey ? b->pkey : 0xffff);
	w[4] = (uint8_t)((b->fecn ? 0x80 : 0) | (b->becn ? 0x40 : 0));
	wr24(w + 5, b->dqpn);
	w[8] = b->ackreq ? 0x80 : 0;
	wr24(w + 9, b->psn);
	w = put_ext(w + ROCE_BTH_LEN, L->hdrs, &s->ext);
	if (s->payload_len) {
		if (s->payload)
			memcpy(w, s->payload, s->payload_len);
		else
			memset(w, 0, s->payload_len);
		w += s->payload_len;
	}
	memset(w, 0, L->pad);
	return w + L->pad;
}

static int build(uint8_t *dst, size_t cap, const struct roce_frame_spec *s, struct layout *L)
{
	int v1, ipv6;
	uint8_t *w, *l3;
	uint32_t icrc;
	int rc;

	if (!dst || !s)
		return ROCE_EARG;
	v1 = s->version == ROCE_VER_V1;
	ipv6 = v1 || s->ip.version == 6;
	rc = plan(s, L);
	if (rc)
		return rc;
	if (cap < L->total)
		return ROCE_ENOSPC;
	l3 = put_eth(dst, s, v1, ipv6);
	w = put_ip_udp(l3, s, L, v1, ipv6);
	w = put_transport(w, s, L);
	icrc = roce_icrc_raw(v1, l3, L->icrc_off - L->ip_off);
	if (s->bad_icrc)
		icrc = ~icrc;
	wr32le(w, icrc);
	w += ROCE_ICRC_LEN;

	if (s->udp_checksum && !v1)
		wr16(dst + L->l4_off + 6,
		     udp_csum(l3, ipv6, dst + L->l4_off, L->end - L->l4_off));
	memset(w, 0, L->len - L->end);
	if (s->fcs)
		wr32le(dst + L->len, roce_crc32(0, dst, L->len));
	return (int)L->total;
}

int roce_build(uint8_t *dst, size_t cap, const struct roce_frame_spec *spec)
{
	struct layout L;

	return build(dst, cap, spec, &L);
}

/* CNP as ConnectX NICs send it (PROTOCOL-NOTES "CNP"): BTH opcode 0x81,
 * BECN set, PSN 0, P_Key 0xffff, 16 reserved bytes, no payload; IP DSCP 48
 * with ECT(0) (TOS 0xc2, as seen from a ConnectX-4 Lx), UDP checksum 0.
 * Addresses, VLAN tags, version, TTL and source port are the caller's. */
void roce_spec_cnp(struct roce_frame_spec *spec, uint32_t dqpn)
{
	memset(&spec->bth, 0, sizeof(spec->bth));
	memset(&spec->ext, 0, sizeof(spec->ext));
	spec->bth.opcode = ROCE_OPCODE_CNP;
	spec->bth.becn = 1;
	spec->bth.pkey = 0xffff;
	spec->bth.dqpn = dqpn & 0xffffff;
	spec->bth.psn = 0;
	spec->bth.pad = 0;
	spec->payload = NULL;
	spec->payload_len = 0;
	spec->ip.dscp = 48;
	spec->ip.ecn = 2;
	spec->udp_checksum = 0;
}

/* ---- template + patch ------------------------------------------------------ */

int roce_tmpl_init(struct roce_tmpl *t, uint8_t *buf, size_t cap,
		   const struct roce_frame_spec *spec)
{
	struct layout L;
	int n;

	if (!t)
		return ROCE_EARG;
	n = build(buf, cap, spec, &L);
	if (n < 0)
		return n;
	t->frame = buf;
	t->cap = cap;
	t->len = (uint32_t)n;
	t->ip_off = L.ip_off;
	t->l4_off = L.l4_off;
	t->bth_off = L.bth_off;
	t->payload_off = L.payload_off;
	t->icrc_off = L.icrc_off;
	t->version = (uint8_t)spec->version;
	t->ip_version = spec->version == ROCE_VER_V1 ? 6 : spec->ip.version;
	t->udp_checksum = spec->version != ROCE_VER_V1 && spec->udp_checksum;
	t->fcs = spec->fcs ? 1 : 0;
	return n;
}

/* Out-of-range values keep their low 24 bits; AckReq is left alone. */
void roce_tmpl_set_psn(struct roce_tmpl *t, uint32_t psn)
{
	wr24(t->frame + t->bth_off + 9, psn);
}

void roce_tmpl_set_dqpn(struct roce_tmpl *t, uint32_t dqpn)
{
	wr24(t->frame + t->bth_off + 5, dqpn);
}

int roce_tmpl_set_payload(struct roce_tmpl *t, const uint8_t *payload, uint32_t len)
{
	uint32_t pad = (t->frame[t->bth_off + 1] >> 4) & 3;
	uint32_t have = t->icrc_off - t->payload_off - pad;

	if (len != have || (len && !payload))
		return ROCE_EARG;
	memcpy(t->frame + t->payload_off, payload, len);
	return ROCE_OK;
}

/* The ICRC (PROTOCOL-NOTES "ICRC"): CRC-32 over 8 bytes of 0xff, the IP
 * header / GRH with its hop-varying fields set to ones, the UDP header with
 * the checksum set to ones, the BTH with byte 4 set to ones, then the rest
 * up to the ICRC.  The masked prefix is at most 8 + 40 + 8 + 12 bytes, so it
 * is copied to the stack and masked there.  The refreshed ICRC is always the
 * correct one, even when the template was built with bad_icrc. */
void roce_tmpl_refresh(struct roce_tmpl *t)
{
	uint8_t *f = t->frame;
	uint8_t m[8 + 40 + 8 + ROCE_BTH_LEN];
	uint32_t hl = t->bth_off - t->ip_off; /* IP/GRH (+ UDP) header bytes */
	uint32_t n = 8 + hl + ROCE_BTH_LEN, crc;
	uint8_t *ip = m + 8;

	memset(m, 0xff, 8);
	memcpy(ip, f + t->ip_off, hl + ROCE_BTH_LEN);
	if (t->ip_version == 4) {
		ip[1] = 0xff;           /* TOS */
		ip[8] = 0xff;           /* TTL */
		ip[10] = ip[11] = 0xff; /* header checksum */
	} else {
		ip[0] |= 0x0f;          /* traffic class + flow label */
		ip[1] = ip[2] = ip[3] = 0xff;
		ip[7] = 0xff;           /* hop limit */
	}
	if (t->l4_off) {
		uint8_t *udp = m + 8 + (t->l4_off - t->ip_off);

		udp[6] = udp[7] = 0xff;
	}
	m[n - ROCE_BTH_LEN + 4] = 0xff;  /* FECN, BECN, resv6 */
	crc = roce_crc32(0, m, n);
	crc = roce_crc32(crc, f + t->bth_off + ROCE_BTH_LEN, t->icrc_off - t->bth_off - ROCE_BTH_LEN);
	wr32le(f + t->icrc_off, crc);

	if (t->udp_checksum && t->l4_off) {
		uint8_t *l4 = f + t->l4_off;
		uint32_t ulen = t->icrc_off + ROCE_ICRC_LEN - t->l4_off;

		wr16(l4 + 6, 0);
		wr16(l4 + 6, udp_csum(f + t->ip_off, t->ip_version == 6, l4, ulen));
	}
	if (t->fcs)
		wr32le(f + t->len - 4, roce_crc32(0, f, t->len - 4));
}
