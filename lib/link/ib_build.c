/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_build.c — the native InfiniBand builders (layouts in ib.c and ipoib.c):
 * roce_build_ib() builds the transport packet as RoCEv1 with roce_build(),
 * decodes it, and re-heads GRH/BTH .. ICRC with an LRH, then recomputes the
 * ICRC (IB masking) and appends the VCRC; roce_build_ipoib() is a UD
 * SEND_ONLY whose payload is the 4-byte IPoIB header and a datagram.  They
 * stand above the decoder they use, apart from the LRH and IPoIB decoders.
 */
#include "internal.h"


int roce_build_ib(uint8_t *dst, size_t cap, const struct roce_frame_spec *spec,
		  const struct roce_lrh_spec *lrh)
{
	uint8_t tmp[16384];
	struct roce_frame_spec s;
	struct roce_pkt p;
	uint32_t from, body, len, icrc;
	int n;

	if (!dst || !spec || !lrh)
		return ROCE_EARG;
	s = *spec;
	s.version = ROCE_VER_V1;      /* Ethernet + GRH + BTH .. ICRC, then re-headed */
	s.eth.n_vlan = 0;
	s.fcs = 0;
	if (!lrh->grh && !s.ip.version)
		s.ip.version = 6;
	n = roce_build(tmp, sizeof tmp, &s);
	if (n < 0)
		return n;
	if (roce_decode(&p, NULL, ROCE_LINK_ETHERNET, tmp, (uint32_t)n, (uint32_t)n) < 0 || !p.icrc_off)
		return ROCE_EARG;
	from = lrh->grh ? p.grh_off : p.bth_off;
	body = p.icrc_off + ROCE_ICRC_LEN - from;      /* GRH/BTH .. ICRC, without Ethernet padding */
	len = IB_LRH_LEN + body;
	if (len / 4 > 0x7ff || len % 4)
		return ROCE_EARG;
	if (cap < len + IB_VCRC_LEN)
		return ROCE_ENOSPC;
	dst[0] = (uint8_t)((lrh->vl & 15) << 4);      /* LVer 0 */
	dst[1] = (uint8_t)((lrh->sl & 15) << 4 | (lrh->grh ? 3 : 2));
	wr16(dst + 2, lrh->dlid);
	wr16(dst + 4, (uint16_t)(len / 4));
	wr16(dst + 6, lrh->slid);
	memcpy(dst + IB_LRH_LEN, tmp + from, body);
	if (roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, dst, len + IB_VCRC_LEN, len + IB_VCRC_LEN) < 0 &&
	    !(p.present & ROCE_LBIT(ROCE_L_BTH)))
		return ROCE_EARG;
	if (roce__icrc_ib(&p, &icrc))
		return ROCE_EARG;
	if (spec->bad_icrc)
		icrc = ~icrc;
	wr32le(dst + len - ROCE_ICRC_LEN, icrc);
	n = roce_vcrc16(dst, len);
	dst[len] = (uint8_t)n;
	dst[len + 1] = (uint8_t)(n >> 8);
	return (int)(len + IB_VCRC_LEN);
}

int roce_build_ipoib(uint8_t *dst, size_t cap, const struct roce_frame_spec *spec,
		     const struct roce_lrh_spec *lrh, uint16_t ethertype, const uint8_t *dgram, uint32_t len)
{
	uint8_t pl[4096];
	struct roce_frame_spec s;

	if (!spec || (!dgram && len) || len > sizeof pl - IPOIB_HLEN)
		return ROCE_EARG;
	wr16(pl, ethertype);
	wr16(pl + 2, 0);
	if (len)
		memcpy(pl + IPOIB_HLEN, dgram, len);
	s = *spec;
	s.bth.opcode = 0x64;          /* UD SEND_ONLY */
	s.payload = pl;
	s.payload_len = len + IPOIB_HLEN;
	return roce_build_ib(dst, cap, &s, lrh);
}
