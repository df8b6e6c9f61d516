/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode.c — the single entry point: link layer (Ethernet II, 802.1Q/802.1ad,
 * Linux cooked SLL/SLL2, raw IP), IPv4 (RFC 791), IPv6 (RFC 8200, extension
 * headers walked), UDP (RFC 768), RoCEv1 (IBTA Annex A16: ethertype 0x8915 +
 * GRH) and RoCEv2 (Annex A17: UDP destination port 4791; 1021 for drivers
 * before WinOF 5.35).  Transport headers are bth.c's; DCB is l2.c's; TCP and
 * iWARP are tcp.c's.
 *
 * Ethernet II / 802.1Q:
 *  | dst MAC (6) | src MAC (6) | [TPID 0x8100/0x88a8 | PCP(3) DEI(1) VID(12)]x0..2 | type (2) |
 * SLL (16):  pkttype(2) hatype(2) halen(2) addr(8) protocol(2)
 * SLL2 (20): protocol(2) resv(2) ifindex(4) hatype(2) pkttype(1) halen(1) addr(8)
 * GRH (40):  IPVer(4) TClass(8) FlowLabel(20) | PayLen(16) NxtHdr(8)=0x1B HopLmt(8) | SGID(16) | DGID(16)
 */
#include <stddef.h>
#include "internal.h"

const char *roce_strerror(int err)
{
	switch (err) {
	case ROCE_OK: return "success";
	case ROCE_ETRUNC: return "truncated: the capture stopped before the frame ended";
	case ROCE_EINVAL: return "invalid: a field contradicts the specification or the lengths";
	case ROCE_ENOSPC: return "buffer too small";
	case ROCE_EUNSUP: return "not supported";
	case ROCE_EARG: return "argument out of range";
	}
	return "unknown error";
}

const char *roce_layer_name(enum roce_layer l)
{
	static const char *const n[ROCE_L__COUNT] = {
		"link", "vlan", "ipv4", "ipv6", "udp", "grh", "bth", "ext", "payload", "icrc",
		"mad", "tcp", "mpa", "ddp", "rdmap", "macctrl", "cnm", "lldp", "fcs", "encap", "lrh", "erf",
	};
	return (unsigned)l < ROCE_L__COUNT ? n[l] : "?";
}

const char *roce_version_name(enum roce_version v)
{
	switch (v) {
	case ROCE_VER_V1: return "v1";
	case ROCE_VER_V2: return "v2";
	case ROCE_VER_V2_1021: return "v2-1021";
	case ROCE_VER_V2_PORT: return "v2-port";
	case ROCE_VER_IB: return "ib";
	default: return "none";
	}
}

int roce_linktype_supported(int lt)
{
	switch (lt) {
	case ROCE_LINK_ETHERNET: case ROCE_LINK_RAW: case 12: case 14:
	case ROCE_LINK_LINUX_SLL: case ROCE_LINK_LINUX_SLL2:
	case ROCE_LINK_IPV4: case ROCE_LINK_IPV6:
	case ROCE_LINK_ERF: case ROCE_LINK_INFINIBAND:
		return 1;
	}
	return 0;
}

int roce_pkt_addrs(const struct roce_pkt *p, const uint8_t **src, const uint8_t **dst)
{
	/* IPv4: source at 12, destination at 16; IPv6 and the GRH: 8 and 24 */
	if ((p->version == ROCE_VER_V1 || p->version == ROCE_VER_IB) && p->grh_off &&
	    roce__avail(p, p->grh_off) >= ROCE_GRH_LEN) {
		*src = p->data + p->grh_off + 8;
		*dst = p->data + p->grh_off + 24;
		return 16;
	}
	if (p->ip_version == 4 && roce__avail(p, p->ip_off) >= 20) {
		*src = p->data + p->ip_off + 12;
		*dst = p->data + p->ip_off + 16;
		return 4;
	}
	if (p->ip_version == 6 && roce__avail(p, p->ip_off) >= 40) {
		*src = p->data + p->ip_off + 8;
		*dst = p->data + p->ip_off + 24;
		return 16;
	}
	return 0;
}

static int add_port(uint16_t *tab, unsigned *n, uint16_t port)
{
	for (unsigned i = 0; i < *n; i++)
		if (tab[i] == port)
			return ROCE_OK;
	if (*n >= ROCE_CFG_MAX_PORTS)
		return ROCE_EARG;
	tab[(*n)++] = port;
	return ROCE_OK;
}

int roce_cfg_add_udp_port(struct roce_cfg *cfg, uint16_t port)
{
	return add_port(cfg->udp_ports, &cfg->n_udp_ports, port);
}

int roce_cfg_add_iwarp_port(struct roce_cfg *cfg, uint16_t port)
{
	return add_port(cfg->iwarp_ports, &cfg->n_iwarp_ports, port);
}

static enum roce_version udp_roce_version(const struct roce_cfg *cfg, uint16_t dport)
{
	if (dport == ROCE_UDP_PORT)
		return ROCE_VER_V2;
	if (dport == ROCE_UDP_PORT_LEGACY && !(cfg && cfg->no_legacy_port))
		return ROCE_VER_V2_1021;
	if (cfg)
		for (unsigned i = 0; i < cfg->n_udp_ports; i++)
			if (cfg->udp_ports[i] == dport)
				return ROCE_VER_V2_PORT;
	return ROCE_VER_NONE;
}

/* Records where the network datagram ends and what follows it in the frame. */
static void set_trailer(struct roce_pkt *p, uint32_t dgram_end, uint32_t frame_end)
{
	p->ip_end = dgram_end;
	if (frame_end > dgram_end) {
		p->trailer_off = dgram_end;
		p->trailer_len = frame_end - dgram_end;
	}
}

static void decode_ethertype(struct roce_pkt *p, const struct roce_cfg *cfg, uint16_t et,
			     uint32_t off, uint32_t end);

/* Goes on with the layer that a decoder below this file found after its
 * own (they return it rather than call back up here), until none is left:
 * a native IB packet's BTH, then IPoIB, then the datagram in it. */
static inline void decode_next(struct roce_pkt *p, const struct roce_cfg *cfg, struct roce__next n)
{
	for (;;) {
		switch (n.kind) {
		case ROCE_NEXT_IB_BTH:
			roce__decode_ib(p, n.off, n.off + n.len);
			if (!roce__ib_payload_ipoib(p))
				return;
			/* the datagram in IPoIB with the default configuration:
			 * nothing in it is taken for RoCE, a mirror or iWARP */
			cfg = NULL;
			n = roce__decode_ipoib(p, p->payload_off, p->payload_len);
			break;
		case ROCE_NEXT_ETHERTYPE:
			decode_ethertype(p, cfg, n.type, n.off, n.off + n.len);
			return;
		default:
			return;
		}
	}
}

static __attribute__((noinline)) void decode_udp(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t off, uint32_t end)
{
	const uint8_t *b = p->data + off;
	uint32_t have = roce__avail(p, off);
	enum roce_version v;

	p->l4_off = off;
	if (end - off < 8) {
		roce__invalid(p, ROCE_L_UDP, "UDP header longer than the IP payload");
		return;
	}
	if (have >= 2)
		p->sport = rd16(b);
	if (have >= 4)
		p->dport = rd16(b + 2);
	if (have < 8) {
		roce__trunc(p, ROCE_L_UDP);
		return;
	}
	roce__seen(p, ROCE_L_UDP);
	p->udp_len = rd16(b + 4);
	if (p->ip_frag)     /* the rest of the datagram is in other fragments */
		return;
	if (p->udp_len < 8 || p->udp_len > end - off) {
		roce__invalid(p, ROCE_L_UDP, "UDP length disagrees with the IP length");
		return;
	}
	if (p->ipoib_off)   /* inside IPoIB: UDP, nothing taken for RoCE or a mirror */
		return;
	v = udp_roce_version(cfg, p->dport);
	if (v == ROCE_VER_NONE) {
		if (!p->encap.kind)
			roce__decode_udp_encap(p, cfg, off);
		return;
	}
	p->version = v;
	roce__decode_ib(p, off + 8, off + p->udp_len);
}

static inline __attribute__((always_inline)) void decode_l4(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t off, uint32_t end)
{
	if (p->ip_proto == 17)
		decode_udp(p, cfg, off, end);
	else if (p->ip_proto == 6)
		roce__decode_tcp(p, cfg, off, end);
	else if (p->ip_proto == 47 && !p->encap.kind && !p->ipoib_off && !(cfg && cfg->no_decap))
		roce__decode_gre(p, off, end);
}

static void decode_ipv4(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t off, uint32_t end)
{
	const uint8_t *b = p->data + off;
	uint32_t have = roce__avail(p, off), hlen, tot;

	p->ip_off = off;
	p->ip_version = 4;
	if (have >= 2) {
		p->dscp = b[1] >> 2;
		p->ecn = b[1] & 3;
	}
	if (end - off < 20) {
		roce__invalid(p, ROCE_L_IPV4, "frame too short for an IPv4 header");
		return;
	}
	if (have < 20) {
		roce__trunc(p, ROCE_L_IPV4);
		return;
	}
	roce__seen(p, ROCE_L_IPV4);
	hlen = (uint32_t)(b[0] & 15) * 4;
	tot = rd16(b + 2);
	p->ip_hlen = (uint8_t)hlen;
	p->ttl = b[8];
	p->ip_proto = b[9];
	p->ip_frag = (b[6] & 0x20) || (rd16(b + 6) & 0x1fff);
	if ((b[0] >> 4) != 4) {
		roce__invalid(p, ROCE_L_IPV4, "IP version is not 4");
		return;
	}
	if (hlen < 20 || tot < hlen) {
		roce__invalid(p, ROCE_L_IPV4, "IPv4 header length or total length too small");
		return;
	}
	if (tot > end - off) {
		roce__invalid(p, ROCE_L_IPV4, "IPv4 total length beyond the frame");
		return;
	}
	set_trailer(p, off + tot, end);
	if (have < hlen) {
		roce__trunc(p, ROCE_L_IPV4);
		return;
	}
	if (rd16(b + 6) & 0x1fff)     /* not the first fragment: no L4 header */
		return;
	decode_l4(p, cfg, off + hlen, off + tot);
}

static int ipv6_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 135 ||
	       nh == 139 || nh == 140;
}

static void decode_ipv6(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t off, uint32_t end)
{
	const uint8_t *b = p->data + off;
	uint32_t have = roce__avail(p, off), plen, cur, dend;
	uint8_t nh;

	p->ip_off = off;
	p->ip_version = 6;
	if (have >= 2) {
		uint8_t tc = (uint8_t)((b[0] & 15) << 4 | b[1] >> 4);
		p->dscp = tc >> 2;
		p->ecn = tc & 3;
	}
	if (end - off < 40) {
		roce__invalid(p, ROCE_L_IPV6, "frame too short for an IPv6 header");
		return;
	}
	if (have < 40) {
		roce__trunc(p, ROCE_L_IPV6);
		return;
	}
	roce__seen(p, ROCE_L_IPV6);
	plen = rd16(b + 4);
	nh = b[6];
	p->ttl = b[7];
	if ((b[0] >> 4) != 6) {
		roce__invalid(p, ROCE_L_IPV6, "IP version is not 6");
		return;
	}
	if (plen == 0 && nh != 59) {
		roce__invalid(p, ROCE_L_IPV6, "IPv6 payload length 0 (jumbograms unsupported)");
		return;
	}
	if (plen > end - off - 40) {
		roce__invalid(p, ROCE_L_IPV6, "IPv6 payload length beyond the frame");
		return;
	}
	dend = off + 40 + plen;
	set_trailer(p, dend, end);
	cur = off + 40;
	/* Extension headers: at most 8, each within the payload. */
	for (int i = 0; ipv6_ext(nh); i++) {
		const uint8_t *e = p->data + cur;
		uint32_t elen;

		if (i == 8 || dend - cur < 8) {
			roce__invalid(p, ROCE_L_IPV6, "IPv6 extension headers overrun the payload");
			return;
		}
		if (roce__avail(p, cur) < 8) {
			roce__trunc(p, ROCE_L_IPV6);
			return;
		}
		if (nh == 44) {
			elen = 8;
			p->ip_frag = 1;
			if (rd16(e + 2) & 0xfff8) {   /* not the first fragment */
				p->ip_proto = e[0];
				p->ip_hlen = (uint8_t)(cur + 8 - off > 255 ? 255 : cur + 8 - off);
				return;
			}
		} else if (nh == 51) {
			elen = ((uint32_t)e[1] + 2) * 4;
		} else {
			elen = ((uint32_t)e[1] + 1) * 8;
		}
		if (elen > dend - cur) {
			roce__invalid(p, ROCE_L_IPV6, "IPv6 extension header longer than the payload");
			return;
		}
		nh = e[0];
		cur += elen;
	}
	p->ip_proto = nh;
	p->ip_hlen = (uint8_t)(cur - off > 255 ? 255 : cur - off);
	decode_l4(p, cfg, cur, dend);
}

static void decode_grh(struct roce_pkt *p, uint32_t off, uint32_t end)
{
	const uint8_t *b = p->data + off;
	uint32_t paylen;

	p->grh_off = off;
	p->version = ROCE_VER_V1;
	if (end - off < ROCE_GRH_LEN) {
		roce__invalid(p, ROCE_L_GRH, "frame too short for a GRH");
		return;
	}
	if (roce__avail(p, off) < ROCE_GRH_LEN) {
		roce__trunc(p, ROCE_L_GRH);
		return;
	}
	roce__seen(p, ROCE_L_GRH);
	p->dscp = (uint8_t)((b[0] & 15) << 2 | b[1] >> 6);
	p->ecn = (b[1] >> 4) & 3;
	p->ttl = b[7];
	paylen = rd16(b + 4);
	if ((b[0] >> 4) != 6) {
		roce__invalid(p, ROCE_L_GRH, "GRH IP version is not 6");
		return;
	}
	if (b[6] != 0x1b) {
		roce__invalid(p, ROCE_L_GRH, "GRH next header is not 0x1B (IBA transport)");
		return;
	}
	if (paylen > end - off - ROCE_GRH_LEN) {
		roce__invalid(p, ROCE_L_GRH, "GRH payload length beyond the frame");
		return;
	}
	set_trailer(p, off + ROCE_GRH_LEN + paylen, end);
	roce__decode_ib(p, off + ROCE_GRH_LEN, off + ROCE_GRH_LEN + paylen);
}

/* Everything after the ethertype (Ethernet or SLL protocol field). */
static void decode_ethertype(struct roce_pkt *p, const struct roce_cfg *cfg, uint16_t et,
			     uint32_t off, uint32_t end)
{
	while (et == ROCE_ETH_VLAN || et == ROCE_ETH_QINQ || et == 0x9100 || et == ROCE_ETH_CNM) {
		const uint8_t *b = p->data + off;
		struct roce_vlan *v;
		uint16_t flow, inner;

		if (et == ROCE_ETH_CNM) {
			/* An 802.1Qau CN-TAG sits among the tags: flow ID, then the
			 * inner ethertype.  A bare CNM PDU is l2.c's. */
			if (roce_cntag_peek(p->data, p->caplen, off, end, &flow, &inner) != 1 ||
			    inner == ROCE_ETH_CNM)
				break;
			if (!p->cnm_off)
				p->cnm_off = off;
			roce__seen(p, ROCE_L_CNM);
			et = inner;
			off += 4;
			continue;
		}

		if (p->n_vlan == 2) {
			roce__invalid(p, ROCE_L_VLAN, "more than two VLAN tags");
			return;
		}
		if (end - off < 4) {
			roce__invalid(p, ROCE_L_VLAN, "frame ends inside a VLAN tag");
			return;
		}
		if (roce__avail(p, off) < 4) {
			roce__trunc(p, ROCE_L_VLAN);
			return;
		}
		roce__seen(p, ROCE_L_VLAN);
		v = &p->vlan[p->n_vlan++];
		v->tpid = et;
		v->pcp = b[0] >> 5;
		v->dei = (b[0] >> 4) & 1;
		v->vid = rd16(b) & 0xfff;
		et = rd16(b + 2);
		off += 4;
	}
	p->ethertype = et;
	switch (et) {
	case ROCE_ETH_IPV4:
		decode_ipv4(p, cfg, off, end);
		break;
	case ROCE_ETH_IPV6:
		decode_ipv6(p, cfg, off, end);
		break;
	case ROCE_ETH_ROCEV1:
		decode_grh(p, off, end);
		break;
	default:
		roce__decode_l2(p, et, off, end);
		break;
	}
}

/* A trailing Ethernet FCS is recognised by verifying it: bytes after the
 * datagram are otherwise padding. */
static void check_fcs(struct roce_pkt *p)
{
	uint32_t n = p->wirelen;

	if (p->trailer_len < 4 || p->caplen < n || n < 64 - 4)
		return;
	if (roce_crc32(0, p->data, n - 4) == rd32le(p->data + n - 4)) {
		p->fcs_off = n - 4;
		roce__seen(p, ROCE_L_FCS);
	}
}

static void decode_raw_ip(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t end)
{
	if (p->caplen < 1) {
		roce__trunc(p, ROCE_L_LINK);
		return;
	}
	switch (p->data[0] >> 4) {
	case 4:
		p->ethertype = ROCE_ETH_IPV4;
		decode_ipv4(p, cfg, 0, end);
		break;
	case 6:
		p->ethertype = ROCE_ETH_IPV6;
		decode_ipv6(p, cfg, 0, end);
		break;
	default:
		roce__invalid(p, ROCE_L_LINK, "raw packet is neither IPv4 nor IPv6");
	}
}

static inline __attribute__((always_inline)) int
decode_frame(struct roce_pkt *p, const struct roce_cfg *cfg, int linktype,
	     const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	uint32_t end;

	memset(p, 0, offsetof(struct roce_pkt, encap));
	p->data = data;
	p->caplen = caplen;
	p->wirelen = wirelen < caplen ? caplen : wirelen;
	p->linktype = linktype;
	end = p->wirelen;

	switch (linktype) {
	case ROCE_LINK_ETHERNET:
		if (end < 14) {
			roce__invalid(p, ROCE_L_LINK, "frame shorter than an Ethernet header");
			break;
		}
		if (caplen < 14) {
			roce__trunc(p, ROCE_L_LINK);
			break;
		}
		roce__seen(p, ROCE_L_LINK);
		decode_ethertype(p, cfg, rd16(data + 12), 14, end);
		if (p->trailer_len)
			check_fcs(p);
		break;
	case ROCE_LINK_LINUX_SLL:
		if (end < 16) {
			roce__invalid(p, ROCE_L_LINK, "frame shorter than a Linux cooked header");
			break;
		}
		if (caplen < 16) {
			roce__trunc(p, ROCE_L_LINK);
			break;
		}
		roce__seen(p, ROCE_L_LINK);
		p->sll_pkttype = (uint8_t)rd16(data);
		decode_ethertype(p, cfg, rd16(data + 14), 16, end);
		break;
	case ROCE_LINK_LINUX_SLL2:
		if (end < 20) {
			roce__invalid(p, ROCE_L_LINK, "frame shorter than a Linux cooked v2 header");
			break;
		}
		if (caplen < 20) {
			roce__trunc(p, ROCE_L_LINK);
			break;
		}
		roce__seen(p, ROCE_L_LINK);
		p->sll_pkttype = data[10];
		decode_ethertype(p, cfg, rd16(data), 20, end);
		break;
	case ROCE_LINK_RAW: case 12: case 14:
		decode_raw_ip(p, cfg, end);
		break;
	case ROCE_LINK_IPV4:
		p->ethertype = ROCE_ETH_IPV4;
		decode_ipv4(p, cfg, 0, end);
		break;
	case ROCE_LINK_IPV6:
		p->ethertype = ROCE_ETH_IPV6;
		decode_ipv6(p, cfg, 0, end);
		break;
	case ROCE_LINK_INFINIBAND:
		decode_next(p, cfg, roce__decode_lrh(p, end));
		break;
	default:
		return ROCE_EUNSUP;
	}
	return ROCE_OK;
}

int roce__decode_frame(struct roce_pkt *p, const struct roce_cfg *cfg, int linktype,
		       const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	return decode_frame(p, cfg, linktype, data, caplen, wirelen);
}

/* A mirror's inner frame, once the outer is decoded.  Only one level: the
 * GRE/VXLAN hooks run only while p->encap.kind is NONE, so a tunnel inside
 * the inner frame is left as it is. */
static __attribute__((noinline)) void decode_inner(struct roce_pkt *p, const struct roce_cfg *cfg)
{
	struct roce__next n = roce__decap(p);

	if (n.kind == ROCE_NEXT_FRAME)
		decode_frame(p, cfg, n.type, p->encap.outer + n.off, n.cap, n.len);
}

/* An ERF record: erf.c reads its header, the frame in it is decoded, then
 * erf.c adds the record's facts. */
static __attribute__((noinline)) void decode_erf(struct roce_pkt *p, const struct roce_cfg *cfg,
						 const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	struct roce__erf_rec r;
	struct roce__next n = roce__erf_open(&r, data, caplen, wirelen);

	decode_frame(p, cfg, n.type, data + n.off, n.cap, n.len);
	roce__erf_close(p, &r);
}

int roce_decode(struct roce_pkt *p, const struct roce_cfg *cfg, int linktype,
		const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	int rc = ROCE_OK;

	/* only the kind: the rest is cleared by the hook that finds a mirror
	 * header (plain frames do not pay for clearing it) */
	p->encap.kind = ROCE_ENCAP_NONE;
	p->erf.present = 0;
	if (linktype == ROCE_LINK_ERF)
		decode_erf(p, cfg, data, caplen, wirelen);
	else
		rc = decode_frame(p, cfg, linktype, data, caplen, wirelen);
	if (rc)
		return rc;
	if (p->encap.kind)
		decode_inner(p, cfg);
	if (p->invalid)
		return ROCE_EINVAL;
	if (p->truncated)
		return ROCE_ETRUNC;
	return ROCE_OK;
}
