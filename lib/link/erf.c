/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * erf.c — Endace ERF records (LINKTYPE_ERF 197), as ibdump and DAG cards
 * write them.  roce__erf_open reads the record's header and returns where its
 * frame is; decode.c decodes that frame as if captured directly, and
 * roce__erf_close then adds the record's own facts.
 *
 *  0  timestamp (8, little-endian: seconds << 32 | binary fraction)
 *  8  type (bit 7: an extension header follows) | flags (0x03 interface,
 *     0x04 varlen, 0x08 truncated, 0x10 rx error, 0x20 DS error)
 * 10  rlen (16, record length incl. header and padding) | lctr (16, frames
 *     lost before this one) | wlen (16, length on the wire)
 * 16  extension headers, 8 bytes each (bit 7 of the first byte: another follows)
 *     type 2 Ethernet: 2 pad bytes, then the frame with its FCS (wlen counts it)
 *     type 21 InfiniBand (LRH .. ICRC, VCRC); 25 IB link packet; 22/23 IPv4/IPv6
 */
#include "internal.h"

enum { ERF_ETH = 2, ERF_IPV4 = 22, ERF_IPV6 = 23, ERF_IB = 21, ERF_IB_LINK = 25 };

static uint64_t rd64le(const uint8_t *b)
{
	return (uint64_t)rd32le(b + 4) << 32 | rd32le(b);
}

/* The header and extension headers; returns 0, or the layer problem:
 * 1 truncated, 2 invalid (*why says what). */
static int erf_header(struct roce_erf *e, const uint8_t *d, uint32_t caplen, int *lt, const char **why)
{
	uint8_t t;

	if (caplen < 16)
		return 1;
	e->ts = rd64le(d);
	t = d[8];
	e->type = t & 0x7f;
	e->flags = d[9];
	e->rlen = rd16(d + 10);
	e->lctr = rd16(d + 12);
	e->wlen = rd16(d + 14);
	e->hdr_len = 16;
	while (t & 0x80) {
		if (e->n_ext == 32) {
			*why = "more than 32 ERF extension headers";
			return 2;
		}
		if (caplen < e->hdr_len + 8)
			return 1;
		t = d[e->hdr_len];
		e->hdr_len += 8;
		e->n_ext++;
	}
	switch (e->type) {
	case ERF_ETH: *lt = ROCE_LINK_ETHERNET; e->hdr_len += 2; break;
	case ERF_IB: case ERF_IB_LINK: *lt = ROCE_LINK_INFINIBAND; break;
	case ERF_IPV4: *lt = ROCE_LINK_IPV4; break;
	case ERF_IPV6: *lt = ROCE_LINK_IPV6; break;
	default:
		*why = "ERF record type libroce does not decode";
		return 2;
	}
	if (e->rlen < e->hdr_len) {
		*why = "ERF rlen shorter than its headers";
		return 2;
	}
	return 0;
}

/* Ethernet: the FCS is stripped from the frame handed on and checked here. */
static uint32_t erf_fcs(struct roce_erf *e, const uint8_t *f, uint32_t icap, uint32_t wlen)
{
	if (wlen < 4)
		return wlen;
	if (icap >= wlen) {
		e->fcs = rd32le(f + wlen - 4);
		e->fcs_status = roce_crc32(0, f, wlen - 4) == e->fcs ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD;
	}
	return wlen - 4;
}

/* IB link (flow control) packets carry no transport: 6 bytes of their own. */
static void ib_link(struct roce_pkt *p)
{
	p->vl = p->lver = p->sl = p->lnh = 0;
	p->dlid = p->slid = p->pktlen = 0;
	p->vcrc_off = 0;
	p->ib_link = 1;
	if (p->wirelen < 6)
		roce__invalid(p, ROCE_L_LRH, "IB link packet shorter than 6 bytes");
	else if (p->caplen < 6)
		roce__trunc(p, ROCE_L_LRH);
	else
		roce__seen(p, ROCE_L_LRH);
}

/* The record's header into r; returns the frame it holds, for decode.c to
 * decode as if captured directly.  A bad header or an IB link packet has no
 * frame to decode: ROCE__LINK_NONE (roce__erf_close says what it is). */
struct roce__next roce__erf_open(struct roce__erf_rec *r, const uint8_t *data, uint32_t caplen,
				 uint32_t wirelen)
{
	struct roce_erf *e = &r->e;
	struct roce__next n = { .kind = ROCE_NEXT_FRAME, .type = ROCE__LINK_NONE };
	uint32_t end;
	int lt = -1;

	memset(r, 0, sizeof *r);
	e->present = 1;
	e->rec = data;
	r->bad = erf_header(e, data, caplen, &lt, &r->why);
	if (r->bad) {
		n.cap = caplen;       /* the record itself, decoded no further */
		n.len = wirelen;
		return n;
	}
	end = caplen < e->rlen ? caplen : e->rlen;
	n.off = e->hdr_len;
	n.cap = end > e->hdr_len ? end - e->hdr_len : 0;
	n.len = e->wlen;
	if (e->type == ERF_ETH)
		n.len = erf_fcs(e, data + e->hdr_len, n.cap, e->wlen);
	if (n.cap > n.len)
		n.cap = n.len;        /* DAG records are padded to rlen */
	if (e->type != ERF_IB_LINK)
		n.type = (uint16_t)lt;
	return n;
}

/* After the frame's decode: the record's own facts. */
void roce__erf_close(struct roce_pkt *p, const struct roce__erf_rec *r)
{
	const struct roce_erf *e = &r->e;

	if (r->bad) {
		p->linktype = ROCE_LINK_ERF;
		p->erf = *e;
		if (r->bad == 1)
			roce__trunc(p, ROCE_L_ERF);
		else
			roce__invalid(p, ROCE_L_ERF, r->why);
		return;
	}
	p->erf = *e;
	if (e->type == ERF_ETH && e->fcs_status == ROCE_ICRC_UNCHECKED && e->wlen >= 4)
		roce__trunc(p, ROCE_L_FCS);       /* the FCS was not captured */
	if (e->type == ERF_IB_LINK) {
		p->linktype = ROCE_LINK_INFINIBAND;
		ib_link(p);
	}
	roce__seen(p, ROCE_L_ERF);
}

void roce__fields_erf(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	const struct roce_erf *e = &p->erf;

	if (!(p->present & ROCE_LBIT(ROCE_L_ERF)) || (p->truncated & ROCE_LBIT(ROCE_L_ERF)))
		return;
	EMIT_U("erf.types.type", e->type);
	EMIT_B("erf.types.ext_header", e->n_ext);
	EMIT_U("erf.flags", e->flags);
	EMIT_U("erf.flags.cap", e->flags & 3);
	EMIT_B("erf.flags.vlen", e->flags & 0x04);
	EMIT_B("erf.flags.trunc", e->flags & 0x08);
	EMIT_B("erf.flags.rxe", e->flags & 0x10);
	EMIT_B("erf.flags.dse", e->flags & 0x20);
	EMIT_U("erf.flags.res", e->flags >> 6);
	EMIT_U("erf.rlen", e->rlen);
	EMIT_U("erf.lctr", e->lctr);
	EMIT_U("erf.wlen", e->wlen);
	if (e->type == ERF_ETH && e->fcs_status != ROCE_ICRC_UNCHECKED) {
		EMIT_U("eth.fcs", __builtin_bswap32(e->fcs));
		EMIT_S("roce.fcs.status", roce_icrc_status_name((enum roce_icrc_status)e->fcs_status));
	}
}

int roce_build_erf(uint8_t *dst, size_t cap, uint8_t type, uint64_t ts, uint16_t lctr,
		   const uint8_t *frame, uint32_t len, uint32_t caplen)
{
	uint32_t pad = type == ERF_ETH ? 2 : 0, fcs = type == ERF_ETH ? 4 : 0, wlen = len + fcs, body, rlen;
	uint8_t *w = dst + 16 + pad;

	if (!dst || (!frame && len) || (type != ERF_ETH && type != ERF_IB && type != ERF_IB_LINK) ||
	    wlen > 0xffff)
		return ROCE_EARG;
	if (caplen > wlen)
		caplen = wlen;
	body = caplen;
	rlen = 16 + pad + body;
	if (rlen > 0xffff)
		return ROCE_EARG;
	if (cap < rlen || cap < 16 + pad + wlen)
		return ROCE_ENOSPC;
	wr32le(dst, (uint32_t)ts);
	wr32le(dst + 4, (uint32_t)(ts >> 32));
	dst[8] = type;
	dst[9] = (uint8_t)(0x04 | (caplen < wlen ? 0x08 : 0));
	wr16(dst + 10, (uint16_t)rlen);
	wr16(dst + 12, lctr);
	wr16(dst + 14, (uint16_t)wlen);
	memset(dst + 16, 0, pad);
	memcpy(w, frame, len);
	if (fcs)
		wr32le(w + len, roce_crc32(0, frame, len));
	return (int)rlen;
}
