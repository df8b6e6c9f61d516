/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_conv.c — roce_build_ib_from(): a decoded RoCE packet (v1 or v2)
 * re-headed as native InfiniBand (IBTA vol 1, 7.7 LRH, 8.3 GRH, 7.8 ICRC
 * and VCRC), as the same transport packet would cross an IB fabric:
 *
 *   RoCEv2:  Ethernet | IPv4/IPv6 | UDP | BTH .. payload pad | ICRC
 *   RoCEv1:  Ethernet | GRH              | BTH .. payload pad | ICRC
 *   IB:      LRH [| GRH]                 | BTH .. payload pad | ICRC | VCRC
 *
 * The GRH (LNH 3) is the RoCEv1 GRH, or made from the IP header: IPv6's
 * traffic class, flow label, hop limit and addresses; IPv4's TOS and TTL
 * with IPv4-mapped GIDs (::ffff:a.b.c.d), PayLen = BTH .. ICRC, NxtHdr
 * 0x1B.  An IP CE mark becomes BTH FECN (IB marks congestion there); a
 * RoCEv2 CNP (0x81) becomes IB's CNP, opcode 0x80 without the 16 reserved
 * bytes (BTH and ICRC only, as IB adapters send it: Linux hfi1's
 * return_cnp()).  The ICRC is computed
 * for the new headers (inverted when the original's was bad), the VCRC
 * over LRH .. ICRC.  A truncated original gives a truncated copy.
 */
#include "internal.h"

#define OP_CNP_V2 0x81
#define OP_CNP_IB 0x80

static void put_grh(uint8_t *g, const struct roce_pkt *p, uint32_t paylen)
{
	const uint8_t *ip = p->data + (p->grh_off ? p->grh_off : p->ip_off);

	if (p->grh_off || p->ip_version == 6) {
		memcpy(g, ip, 4);                     /* version, traffic class, flow label */
		g[0] = (uint8_t)(0x60 | (g[0] & 0x0f));
		memcpy(g + 8, ip + 8, 32);            /* SGID, DGID */
		g[7] = ip[7];
	} else {
		wr32(g, 6u << 28 | (uint32_t)ip[1] << 20);
		memset(g + 8, 0, 32);
		g[18] = g[19] = g[34] = g[35] = 0xff;
		memcpy(g + 20, ip + 12, 4);
		memcpy(g + 36, ip + 16, 4);
		g[7] = ip[8];
	}
	wr16(g + 4, (uint16_t)paylen);
	g[6] = 0x1b;
}

/* ICRC and VCRC of the whole packet in dst (len bytes up to the VCRC). */
static int seal(uint8_t *dst, uint32_t len, int invert)
{
	struct roce_pkt q;
	uint32_t icrc;
	uint16_t v;

	roce_decode(&q, NULL, ROCE_LINK_INFINIBAND, dst, len + IB_VCRC_LEN, len + IB_VCRC_LEN);
	if (!(q.present & ROCE_LBIT(ROCE_L_BTH)) || roce__icrc_ib(&q, &icrc))
		return ROCE_EINVAL;
	wr32le(dst + len - ROCE_ICRC_LEN, invert ? ~icrc : icrc);
	v = roce_vcrc16(dst, len);
	dst[len] = (uint8_t)v;
	dst[len + 1] = (uint8_t)(v >> 8);
	return ROCE_OK;
}

/* BTH .. ICRC of p into bth, the 16 reserved bytes of a RoCEv2 CNP left
 * out (IB's CNP is BTH and ICRC only); returns the bytes written. */
static uint32_t copy_transport(uint8_t *bth, const struct roce_pkt *p, uint32_t have, uint32_t skip)
{
	const uint8_t *b = p->data + p->bth_off;
	uint32_t n = have < ROCE_BTH_LEN ? have : ROCE_BTH_LEN;

	memcpy(bth, b, n);
	if (have > ROCE_BTH_LEN + skip) {
		memcpy(bth + n, b + ROCE_BTH_LEN + skip, have - ROCE_BTH_LEN - skip);
		n += have - ROCE_BTH_LEN - skip;
	}
	return n;
}

int roce_build_ib_from(uint8_t *dst, size_t cap, const struct roce_pkt *p,
		       const struct roce_lrh_spec *lrh, uint32_t *wire)
{
	uint32_t body, hdr, len, have, out, skip;
	uint8_t *bth;
	int v = p ? p->version : 0;

	if (!dst || !p || !lrh || !wire)
		return ROCE_EARG;
	if ((v != ROCE_VER_V1 && v != ROCE_VER_V2 && v != ROCE_VER_V2_1021 && v != ROCE_VER_V2_PORT) ||
	    !(p->present & ROCE_LBIT(ROCE_L_BTH)) || p->icrc_off < p->bth_off + ROCE_BTH_LEN)
		return ROCE_EINVAL;
	body = p->icrc_off - p->bth_off;              /* BTH .. pad */
	skip = p->opcode == OP_CNP_V2 && body == ROCE_BTH_LEN + ROCE_CNP_RSVD_LEN ? ROCE_CNP_RSVD_LEN : 0;
	hdr = IB_LRH_LEN + (lrh->grh ? ROCE_GRH_LEN : 0);
	len = hdr + body - skip + ROCE_ICRC_LEN;
	if (body % 4 || len / 4 > 0x7ff)
		return ROCE_EINVAL;
	have = roce__avail(p, p->bth_off);
	have = have > body + ROCE_ICRC_LEN ? body + ROCE_ICRC_LEN : have;
	out = have == body + ROCE_ICRC_LEN ? len + IB_VCRC_LEN : 0;
	if (cap < (out ? out : hdr + have))
		return ROCE_ENOSPC;
	dst[0] = (uint8_t)((lrh->vl & 15) << 4);      /* LVer 0 */
	dst[1] = (uint8_t)((lrh->sl & 15) << 4 | (lrh->grh ? 3 : 2));
	wr16(dst + 2, lrh->dlid);
	wr16(dst + 4, (uint16_t)(len / 4));
	wr16(dst + 6, lrh->slid);
	if (lrh->grh)
		put_grh(dst + IB_LRH_LEN, p, body - skip + ROCE_ICRC_LEN);
	bth = dst + hdr;
	have = copy_transport(bth, p, have, skip);
	if (p->ecn == 3 && have > 4)
		bth[4] |= 0x80;                       /* FECN */
	if (have && bth[0] == OP_CNP_V2)
		bth[0] = OP_CNP_IB;
	*wire = len + IB_VCRC_LEN;
	if (!out)
		return (int)(hdr + have);             /* truncated: no ICRC, no VCRC */
	if (seal(dst, len, roce_icrc_verify(p, NULL) == ROCE_ICRC_BAD))
		return ROCE_EINVAL;
	return (int)out;
}
