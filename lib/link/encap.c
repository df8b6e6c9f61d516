/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encap.c — switch-mirror encapsulations: GRE (RFC 2784, key and sequence
 * RFC 2890) carrying ERSPAN type I/II (protocol 0x88BE), ERSPAN type III
 * (0x22EB) or transparent Ethernet bridging (0x6558), and VXLAN (RFC 7348,
 * UDP 4789; Linux's default 8472).  The decoder finds them under the outer
 * IP/UDP; once the outer frame is decoded, roce__decap says where the inner
 * frame is and decode.c decodes it as if it had been captured directly; the
 * mirror's own facts stay in p->encap.
 *
 * GRE:        C(1) R(1) K(1) S(1) rsv(9) Ver(3) | Protocol(16)
 *             [Checksum(16) Reserved(16)] [Key(32)] [Sequence(32)]
 * ERSPAN II:  Ver(4)=1 VLAN(12) | COS(3) En(2) T(1) SessionID(10) | Reserved(12) Index(20)
 * ERSPAN III: Ver(4)=2 VLAN(12) | COS(3) BSO(2) T(1) SessionID(10) | Timestamp(32) |
 *             SGT(16) P(1) FT(5) HWID(6) D(1) Gra(2) O(1) | [platform sub-header (8) when O]
 * VXLAN:      Flags(8)=0x08 (I) Reserved(24) | VNI(24) Reserved(8)
 *
 * Type I has no sequence number and no ERSPAN header: the frame follows GRE.
 * ERSPAN III FT=0 carries Ethernet, FT=2 an IP packet without Ethernet.
 */
#include <stddef.h>
#include "internal.h"

const char *roce_encap_name(enum roce_encap_kind k)
{
	switch (k) {
	case ROCE_ENCAP_ERSPAN1: return "erspan1";
	case ROCE_ENCAP_ERSPAN2: return "erspan2";
	case ROCE_ENCAP_ERSPAN3: return "erspan3";
	case ROCE_ENCAP_GRE_TEB: return "gre-teb";
	case ROCE_ENCAP_VXLAN: return "vxlan";
	default: return "none";
	}
}

int roce_cfg_add_vxlan_port(struct roce_cfg *cfg, uint16_t port)
{
	for (unsigned i = 0; i < cfg->n_vxlan_ports; i++)
		if (cfg->vxlan_ports[i] == port)
			return ROCE_OK;
	if (cfg->n_vxlan_ports >= ROCE_CFG_MAX_PORTS)
		return ROCE_EARG;
	cfg->vxlan_ports[cfg->n_vxlan_ports++] = port;
	return ROCE_OK;
}

static int vxlan_port(const struct roce_cfg *cfg, uint16_t port)
{
	if (!cfg)
		return port == ROCE_VXLAN_PORT || port == ROCE_VXLAN_PORT_LINUX;
	if (cfg->no_decap)
		return 0;
	if (!cfg->no_default_vxlan && (port == ROCE_VXLAN_PORT || port == ROCE_VXLAN_PORT_LINUX))
		return 1;
	for (unsigned i = 0; i < cfg->n_vxlan_ports; i++)
		if (cfg->vxlan_ports[i] == port)
			return 1;
	return 0;
}

/* ERSPAN II (8 bytes) or III (12, + 8 when O); returns the header length or
 * 0 after marking the layer truncated or invalid. */
static uint32_t erspan_hdr(struct roce_pkt *p, uint32_t off, uint32_t end, int v3)
{
	struct roce_encap *e = &p->encap;
	const uint8_t *b = p->data + off;
	uint32_t hl = v3 ? 12 : 8, w1;

	e->erspan_off = off;
	if (end - off < hl) {
		roce__invalid(p, ROCE_L_ENCAP, "ERSPAN header longer than the GRE payload");
		return 0;
	}
	if (roce__avail(p, off) < hl) {
		roce__trunc(p, ROCE_L_ENCAP);
		return 0;
	}
	e->erspan_ver = b[0] >> 4;
	e->erspan_vlan = rd16(b) & 0xfff;
	w1 = rd16(b + 2);
	e->cos = (uint8_t)(w1 >> 13);
	e->en_bso = (w1 >> 11) & 3;
	e->trunc = (w1 >> 10) & 1;
	e->session = w1 & 0x3ff;
	if (!v3) {
		e->index = rd32(b + 4) & 0xfffff;
		if (e->erspan_ver != 1) {
			roce__invalid(p, ROCE_L_ENCAP, "ERSPAN type II version is not 1");
			return 0;
		}
		return hl;
	}
	e->timestamp = rd32(b + 4);
	e->sgt = rd16(b + 8);
	e->p = b[10] >> 7;
	e->ft = (b[10] >> 2) & 0x1f;
	e->hwid = (uint8_t)((b[10] & 3) << 4 | b[11] >> 4);
	e->dir = (b[11] >> 3) & 1;
	e->gra = (b[11] >> 1) & 3;
	e->o = b[11] & 1;
	if (e->erspan_ver != 2) {
		roce__invalid(p, ROCE_L_ENCAP, "ERSPAN type III version is not 2");
		return 0;
	}
	if (e->o) {
		e->platform_off = off + hl;
		hl += 8;
		if (end - off < hl) {
			roce__invalid(p, ROCE_L_ENCAP, "ERSPAN platform sub-header beyond the GRE payload");
			return 0;
		}
		if (roce__avail(p, off) < hl) {
			roce__trunc(p, ROCE_L_ENCAP);
			return 0;
		}
	}
	return hl;
}

/* What follows GRE: sets kind, inner_off and inner_linktype. */
static void gre_payload(struct roce_pkt *p, uint32_t cur, uint32_t end)
{
	struct roce_encap *e = &p->encap;
	uint32_t hl;

	e->inner_linktype = ROCE_LINK_ETHERNET;
	switch (e->gre_proto) {
	case ROCE_GRE_PROTO_TEB:
		e->kind = ROCE_ENCAP_GRE_TEB;
		break;
	case ROCE_GRE_PROTO_ERSPAN2:
		if (!(e->gre_flags & ROCE_GRE_SEQ)) {
			e->kind = ROCE_ENCAP_ERSPAN1;
			break;
		}
		e->kind = ROCE_ENCAP_ERSPAN2;
		if (!(hl = erspan_hdr(p, cur, end, 0)))
			return;
		cur += hl;
		break;
	default:
		e->kind = ROCE_ENCAP_ERSPAN3;
		if (!(hl = erspan_hdr(p, cur, end, 1)))
			return;
		cur += hl;
		if (e->ft == 2)
			e->inner_linktype = ROCE_LINK_RAW;
		else if (e->ft != 0)
			return;      /* a frame type libroce does not decode */
		break;
	}
	e->inner_off = cur;
	e->inner_end = end;
}

void roce__decode_gre(struct roce_pkt *p, uint32_t off, uint32_t end)
{
	struct roce_encap *e = &p->encap;
	const uint8_t *b = p->data + off;
	uint32_t hl = 4, cur;
	uint16_t fl, proto;

	if (end - off < 4 || roce__avail(p, off) < 4)
		return;
	fl = rd16(b);
	proto = rd16(b + 2);
	/* version 1 is PPTP's; routing (R) is obsolete: neither is a mirror */
	if ((fl & 7) || (fl & 0x4000))
		return;
	if (proto != ROCE_GRE_PROTO_ERSPAN2 && proto != ROCE_GRE_PROTO_ERSPAN3 && proto != ROCE_GRE_PROTO_TEB)
		return;
	memset(e, 0, sizeof *e);
	hl += (fl & ROCE_GRE_CSUM ? 4 : 0) + (fl & ROCE_GRE_KEY ? 4 : 0) + (fl & ROCE_GRE_SEQ ? 4 : 0);
	e->gre_off = off;
	e->gre_flags = fl;
	e->gre_proto = proto;
	e->kind = proto == ROCE_GRE_PROTO_TEB ? ROCE_ENCAP_GRE_TEB :
		  proto == ROCE_GRE_PROTO_ERSPAN3 ? ROCE_ENCAP_ERSPAN3 :
		  fl & ROCE_GRE_SEQ ? ROCE_ENCAP_ERSPAN2 : ROCE_ENCAP_ERSPAN1;
	if (end - off < hl) {
		roce__invalid(p, ROCE_L_ENCAP, "GRE header longer than the IP payload");
		return;
	}
	if (roce__avail(p, off) < hl) {
		roce__trunc(p, ROCE_L_ENCAP);
		return;
	}
	roce__seen(p, ROCE_L_ENCAP);
	cur = off + 4;
	if (fl & ROCE_GRE_CSUM) {
		e->gre_csum = rd16(b + 4);
		cur += 4;
	}
	if (fl & ROCE_GRE_KEY) {
		e->gre_key = rd32(p->data + cur);
		cur += 4;
	}
	if (fl & ROCE_GRE_SEQ) {
		e->gre_seq = rd32(p->data + cur);
		cur += 4;
	}
	gre_payload(p, cur, end);
}

static void decode_vxlan(struct roce_pkt *p, uint32_t off, uint32_t end)
{
	struct roce_encap *e = &p->encap;
	const uint8_t *b = p->data + off;

	if (end - off < 8 || roce__avail(p, off) < 1 || !(b[0] & 0x08))
		return;       /* without the I flag there is no VNI: not ours */
	memset(e, 0, sizeof *e);
	e->kind = ROCE_ENCAP_VXLAN;
	e->udp_off = p->l4_off;
	e->vxlan_off = off;
	if (roce__avail(p, off) < 8) {
		roce__trunc(p, ROCE_L_ENCAP);
		return;
	}
	roce__seen(p, ROCE_L_ENCAP);
	e->vxlan_flags = b[0];
	e->vni = rd24(b + 4);
	e->inner_off = off + 8;
	e->inner_end = end;
	e->inner_linktype = ROCE_LINK_ETHERNET;
}

/* A UDP datagram that is not RoCE: VXLAN when it goes to a VXLAN port. */
void roce__decode_udp_encap(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t off)
{
	if (vxlan_port(cfg, p->dport))
		decode_vxlan(p, off + 8, off + p->udp_len);
}

/* The inner frame's length by its own headers (Ethernet [tags] IPv4/IPv6/
 * RoCEv1 GRH, or raw IP), or 0 when they were not captured. */
static uint32_t inner_len(const uint8_t *d, uint32_t cap, int lt)
{
	uint32_t off = 0;
	uint16_t et;

	if (lt == ROCE_LINK_ETHERNET) {
		if (cap < 14)
			return 0;
		et = rd16(d + 12);
		off = 14;
		while ((et == ROCE_ETH_VLAN || et == ROCE_ETH_QINQ || et == 0x9100) && off + 4 <= cap) {
			et = rd16(d + off + 2);
			off += 4;
		}
	} else {
		if (cap < 1)
			return 0;
		et = (d[0] >> 4) == 4 ? ROCE_ETH_IPV4 : ROCE_ETH_IPV6;
	}
	if (et == ROCE_ETH_IPV4 && off + 4 <= cap)
		return off + rd16(d + off + 2);
	if ((et == ROCE_ETH_IPV6 || et == ROCE_ETH_ROCEV1) && off + 6 <= cap)
		return off + 40 + rd16(d + off + 4);
	return 0;
}

/* After the outer frame's decode: keeps its facts in p->encap and returns
 * the inner frame, which decode.c then decodes as if captured directly. */
struct roce__next roce__decap(struct roce_pkt *p)
{
	struct roce_encap e = p->encap;
	uint32_t icap, iwire, est;

	p->encap.outer = p->data;
	p->encap.outer_caplen = p->caplen;
	p->encap.outer_wirelen = p->wirelen;
	p->encap.outer_linktype = p->linktype;
	p->encap.outer_ip_off = p->ip_off;
	p->encap.outer_ip_version = p->ip_version;
	e = p->encap;
	if (!e.inner_off)
		return roce__next_none();   /* the mirror header itself was cut short or invalid */
	icap = (p->caplen < e.inner_end ? p->caplen : e.inner_end);
	icap = icap > e.inner_off ? icap - e.inner_off : 0;
	iwire = e.inner_end - e.inner_off;
	/* A mirror that truncates (ERSPAN T, or a GRE/VXLAN session with a
	 * size limit) sends a short copy in a complete outer packet: the inner
	 * frame's own lengths say how long it was. */
	est = inner_len(p->data + e.inner_off, icap, e.inner_linktype);
	if (est > iwire && est - iwire <= 65535)
		iwire = est;
	e.inner_truncated = icap < iwire;
	p->encap = e;
	return (struct roce__next){ .kind = ROCE_NEXT_FRAME, .type = (uint16_t)e.inner_linktype,
				    .off = e.inner_off, .len = iwire, .cap = icap };
}

/* ---- fields ---------------------------------------------------------------- */

static void gre_fields(const struct roce_encap *e, roce_field_cb cb, void *ctx)
{
	uint16_t fl = e->gre_flags;

	EMIT_U("gre.flags_and_version", fl);
	EMIT_B("gre.flags.checksum", fl & ROCE_GRE_CSUM);
	EMIT_B("gre.flags.routing", fl & 0x4000);
	EMIT_B("gre.flags.key", fl & ROCE_GRE_KEY);
	EMIT_B("gre.flags.sequence_number", fl & ROCE_GRE_SEQ);
	EMIT_B("gre.flags.strict_source_route", fl & 0x0800);
	EMIT_U("gre.flags.recursion_control", (fl >> 8) & 7);
	EMIT_U("gre.flags.reserved", (fl >> 3) & 0x1f);
	EMIT_U("gre.flags.version", fl & 7);
	EMIT_U("gre.proto", e->gre_proto);
	if (fl & ROCE_GRE_CSUM)
		EMIT_U("gre.checksum", e->gre_csum);
	if (fl & ROCE_GRE_KEY)
		EMIT_U("gre.key", e->gre_key);
	if (fl & ROCE_GRE_SEQ)
		EMIT_U("gre.sequence_number", e->gre_seq);
}

static void erspan_fields(const struct roce_encap *e, roce_field_cb cb, void *ctx)
{
	EMIT_U("erspan.version", e->erspan_ver);
	EMIT_U("erspan.vlan", e->erspan_vlan);
	EMIT_U("erspan.cos", e->cos);
	EMIT_U(e->kind == ROCE_ENCAP_ERSPAN3 ? "erspan.bso" : "erspan.encap", e->en_bso);
	EMIT_U("erspan.truncated", e->trunc);
	EMIT_U("erspan.spanid", e->session);
	if (e->kind == ROCE_ENCAP_ERSPAN2) {
		EMIT_U("erspan.reserved", rd32(e->outer + e->erspan_off + 4) >> 20);
		EMIT_U("erspan.index", e->index);
		return;
	}
	EMIT_U("erspan.timestamp", e->timestamp);
	EMIT_U("erspan.sgt", e->sgt);
	EMIT_U("erspan.p", e->p);
	EMIT_U("erspan.ft", e->ft);
	EMIT_U("erspan.hw", e->hwid);
	EMIT_B("erspan.direction", e->dir);
	EMIT_U("erspan.gra", e->gra);
	EMIT_U("erspan.o", e->o);
	if (e->platform_off) {
		EMIT_U("erspan.platid", e->outer[e->platform_off] >> 2);
		EMIT_BYTES("roce.erspan.platform", e->outer + e->platform_off, 8);
	}
}

void roce__fields_encap(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const struct roce_encap *e = &p->encap;
	const uint8_t *v = e->outer + e->vxlan_off;

	uint16_t fl = e->gre_flags;
	uint32_t cap = e->outer_caplen, ghl = 4 + (fl & ROCE_GRE_CSUM ? 4 : 0) +
		       (fl & ROCE_GRE_KEY ? 4 : 0) + (fl & ROCE_GRE_SEQ ? 4 : 0);

	/* given only when captured whole (a short copy shows what it has in
	 * roce.truncated / roce.invalid) */
	if (e->gre_off && cap >= e->gre_off + ghl) {
		gre_fields(e, cb, ctx);
		if (e->erspan_off && cap >= e->erspan_off + (e->kind == ROCE_ENCAP_ERSPAN3 ? 12u : 8u) &&
		    (!e->platform_off || cap >= e->platform_off + 8))
			erspan_fields(e, cb, ctx);
	}
	if (e->vxlan_off && cap >= e->vxlan_off + 8) {
		EMIT_U("vxlan.flags", rd16(v));
		EMIT_B("vxlan.flag_i", v[0] & 0x08);
		EMIT_U("vxlan.vni", e->vni);
		EMIT_U("vxlan.reserved8", v[7]);
	}
	EMIT_S("roce.encap", roce_encap_name((enum roce_encap_kind)e->kind));
	if (e->inner_truncated)
		EMIT_B("roce.encap.inner_truncated", 1);
}

/* "erspan3 session 77 ts 123456 | " before the inner frame's summary */
void roce__summary_encap(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	const struct roce_encap *e = &p->encap;

	roce__sappend(buf, cap, n, "%s", roce_encap_name((enum roce_encap_kind)e->kind));
	if (e->erspan_off)
		roce__sappend(buf, cap, n, " session %u", e->session);
	if (e->kind == ROCE_ENCAP_ERSPAN3)
		roce__sappend(buf, cap, n, " ts %u", e->timestamp);
	if (e->kind == ROCE_ENCAP_VXLAN)
		roce__sappend(buf, cap, n, " vni %u", e->vni);
	if (e->trunc)
		roce__sappend(buf, cap, n, " T");
	roce__sappend(buf, cap, n, " | ");
}
