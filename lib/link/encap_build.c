/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encap_build.c — roce_build_encap(): wraps a frame as a switch mirror
 * sends it: outer Ethernet (with 802.1Q/802.1ad tags), IPv4 or IPv6, then
 * GRE + ERSPAN I/II/III, GRE-TEB, or UDP + VXLAN (layouts in encap.c).
 * The outer IPv4 header checksum and the GRE checksum (when asked for) are
 * computed; the VXLAN UDP checksum is 0 (RFC 7348 allows it over IPv4;
 * over IPv6 it is computed).
 */
#include "internal.h"

static uint32_t mirror_hdr_len(const struct roce_encap_spec *s)
{
	uint32_t gre = 4 + (s->gre_csum_present ? 4 : 0) + (s->gre_key_present ? 4 : 0);

	switch (s->kind) {
	case ROCE_ENCAP_ERSPAN1: return gre;
	case ROCE_ENCAP_ERSPAN2: return gre + 4 + 8;
	case ROCE_ENCAP_ERSPAN3: return gre + 4 + 12 + (s->platform_present ? 8 : 0);
	case ROCE_ENCAP_GRE_TEB: return gre;
	case ROCE_ENCAP_VXLAN: return 8 + 8;
	default: return 0;
	}
}

static uint8_t *put_eth(uint8_t *w, const struct roce_eth_spec *e, uint16_t type)
{
	memcpy(w, e->dst, 6);
	memcpy(w + 6, e->src, 6);
	w += 12;
	for (unsigned i = 0; i < e->n_vlan; i++) {
		const struct roce_vlan *v = &e->vlan[i];
		uint16_t tpid = v->tpid ? v->tpid : e->n_vlan == 2 && i == 0 ? ROCE_ETH_QINQ : ROCE_ETH_VLAN;

		wr16(w, tpid);
		wr16(w + 2, (uint16_t)(v->pcp << 13 | v->dei << 12 | v->vid));
		w += 4;
	}
	wr16(w, type);
	return w + 2;
}

static uint8_t *put_ip(uint8_t *w, const struct roce_ip_spec *ip, uint8_t proto, uint32_t payload)
{
	uint8_t tclass = (uint8_t)(ip->dscp << 2 | ip->ecn);
	uint8_t ttl = ip->ttl ? ip->ttl : 64;

	if (ip->version == 6) {
		wr32(w, 6u << 28 | (uint32_t)tclass << 20 | (ip->flow_label & 0xfffff));
		wr16(w + 4, (uint16_t)payload);
		w[6] = proto;
		w[7] = ttl;
		memcpy(w + 8, ip->src, 16);
		memcpy(w + 24, ip->dst, 16);
		return w + 40;
	}
	w[0] = 0x45;
	w[1] = tclass;
	wr16(w + 2, (uint16_t)(20 + payload));
	wr16(w + 4, ip->ip_id);
	wr16(w + 6, ip->dont_fragment ? 0x4000 : 0);
	w[8] = ttl;
	w[9] = proto;
	wr16(w + 10, 0);
	memcpy(w + 12, ip->src, 4);
	memcpy(w + 16, ip->dst, 4);
	wr16(w + 10, roce_inet_csum(w, 20, 0));
	return w + 20;
}

static uint8_t *put_erspan(uint8_t *w, const struct roce_encap_spec *s)
{
	int v3 = s->kind == ROCE_ENCAP_ERSPAN3;

	wr16(w, (uint16_t)((v3 ? 2 : 1) << 12 | (s->erspan_vlan & 0xfff)));
	wr16(w + 2, (uint16_t)((s->cos & 7) << 13 | (s->en_bso & 3) << 11 | (s->trunc & 1) << 10 |
			       (s->session & 0x3ff)));
	if (!v3) {
		wr32(w + 4, s->index & 0xfffff);
		return w + 8;
	}
	wr32(w + 4, s->timestamp);
	wr16(w + 8, s->sgt);
	w[10] = (uint8_t)((s->ft == 0 ? 0x80 : 0) | (s->ft & 0x1f) << 2 | (s->hwid >> 4 & 3));
	w[11] = (uint8_t)((s->hwid & 15) << 4 | (s->dir & 1) << 3 | (s->gra & 3) << 1 |
			  (s->platform_present ? 1 : 0));
	w += 12;
	if (s->platform_present) {
		memcpy(w, s->platform, 8);
		w += 8;
	}
	return w;
}

/* GRE (and ERSPAN) at w; returns the end. */
static uint8_t *put_gre(uint8_t *w, const struct roce_encap_spec *s)
{
	uint16_t fl = 0, proto = ROCE_GRE_PROTO_TEB;

	if (s->kind == ROCE_ENCAP_ERSPAN2 || s->kind == ROCE_ENCAP_ERSPAN3)
		fl |= ROCE_GRE_SEQ;
	if (s->kind == ROCE_ENCAP_ERSPAN1 || s->kind == ROCE_ENCAP_ERSPAN2)
		proto = ROCE_GRE_PROTO_ERSPAN2;
	else if (s->kind == ROCE_ENCAP_ERSPAN3)
		proto = ROCE_GRE_PROTO_ERSPAN3;
	if (s->gre_csum_present)
		fl |= ROCE_GRE_CSUM;
	if (s->gre_key_present)
		fl |= ROCE_GRE_KEY;
	wr16(w, fl);
	wr16(w + 2, proto);
	w += 4;
	if (fl & ROCE_GRE_CSUM) {
		wr32(w, 0);    /* filled in once the payload is there */
		w += 4;
	}
	if (fl & ROCE_GRE_KEY) {
		wr32(w, s->gre_key);
		w += 4;
	}
	if (fl & ROCE_GRE_SEQ) {
		wr32(w, s->gre_seq);
		w += 4;
	}
	if (s->kind == ROCE_ENCAP_ERSPAN2 || s->kind == ROCE_ENCAP_ERSPAN3)
		w = put_erspan(w, s);
	return w;
}

/* VXLAN's UDP source port: a hash of the inner frame's first bytes, in
 * the dynamic range, as RFC 7348 5 suggests. */
static uint16_t vxlan_sport(const struct roce_encap_spec *s, const uint8_t *inner, uint32_t len)
{
	if (s->vxlan_sport)
		return s->vxlan_sport;
	return (uint16_t)(0xc000 | (roce_crc32(0, inner, len < 34 ? len : 34) & 0x3fff));
}

int roce_build_encap(uint8_t *dst, size_t cap, const struct roce_encap_spec *s,
		     const uint8_t *inner, uint32_t inner_len)
{
	uint32_t hdr, l2, l3, total;
	uint8_t *w, *ip, *l4;
	int v6;

	if (!dst || !s || (!inner && inner_len))
		return ROCE_EARG;
	hdr = mirror_hdr_len(s);
	v6 = s->ip.version == 6;
	if (!hdr || (s->ip.version != 4 && !v6) || s->eth.n_vlan > 2 ||
	    (s->kind == ROCE_ENCAP_ERSPAN3 && s->ft != 0 && s->ft != 2))
		return ROCE_EARG;
	l2 = 14 + 4u * s->eth.n_vlan;
	l3 = v6 ? 40 : 20;
	if ((uint64_t)hdr + inner_len > 65535 - 40)
		return ROCE_EARG;
	total = l2 + l3 + hdr + inner_len;
	if (cap < total)
		return ROCE_ENOSPC;
	ip = put_eth(dst, &s->eth, v6 ? ROCE_ETH_IPV6 : ROCE_ETH_IPV4);
	l4 = put_ip(ip, &s->ip, s->kind == ROCE_ENCAP_VXLAN ? 17 : 47, hdr + inner_len);
	if (s->kind == ROCE_ENCAP_VXLAN) {
		wr16(l4, vxlan_sport(s, inner, inner_len));
		wr16(l4 + 2, s->vxlan_dport ? s->vxlan_dport : ROCE_VXLAN_PORT);
		wr16(l4 + 4, (uint16_t)(hdr + inner_len));
		wr16(l4 + 6, 0);
		wr32(l4 + 8, 0x08000000);
		wr32(l4 + 12, (s->vni & 0xffffff) << 8);
		w = l4 + 16;
	} else {
		w = put_gre(l4, s);
	}
	memcpy(w, inner, inner_len);
	if (s->kind != ROCE_ENCAP_VXLAN && s->gre_csum_present)
		wr16(l4 + 4, roce_inet_csum(l4, hdr + inner_len, 0));
	if (s->kind == ROCE_ENCAP_VXLAN && v6) {
		uint32_t ulen = hdr + inner_len;
		uint32_t ph = 17 + ulen + (uint16_t)~roce_inet_csum(ip + 8, 32, 0);
		uint16_t c = roce_inet_csum(l4, ulen, ph);

		wr16(l4 + 6, c ? c : 0xffff);
	}
	return (int)total;
}
