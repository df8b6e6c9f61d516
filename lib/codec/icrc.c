/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icrc.c — the invariant CRC (IBTA vol 1 7.8.1; RoCEv1 Annex A16, RoCEv2
 * Annex A17.3.3).
 *
 * CRC-32 (zlib's) over:  8 bytes 0xFF (the LRH a RoCE packet does not have)
 *                      ‖ IPv4 header with TOS, TTL and checksum set to ones
 *                        | IPv6 header / GRH with traffic class, flow label
 *                          and hop limit set to ones
 *                      ‖ UDP header with the checksum set to ones (RoCEv2)
 *                      ‖ BTH with byte 4 (FECN, BECN, resv6) set to ones
 *                      ‖ everything after the BTH up to the ICRC.
 * The result is stored least significant byte first.  Checked against
 * 1,342 rxe frames (PROTOCOL-NOTES.md).  For RoCEv1 the GRH is masked like
 * the IPv6 header; no RoCEv1 peer was available to confirm it.
 */
#include "internal.h"

static const uint8_t lrh_ones[IB_LRH_LEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* crc.c (not in roce.h): CRC-32 with the first min(len, 64) bytes OR-ed
 * with mask[], in one pass over the frame. */
uint32_t roce__crc32_or(uint32_t crc, const void *buf, size_t len, const uint8_t mask[64]);

/* zlib's crc32(0, 8 x 0xFF): the CRC after the LRH placeholder. */
#define CRC_LRH_ONES 0x2144df1cu

/* The fields set to ones, as OR masks over the headers from the network
 * header on, for the usual layouts: IPv4 without options + UDP + BTH,
 * IPv6 without extension headers + UDP + BTH, GRH + BTH (RoCEv1). */
static const uint8_t mask_v2_ipv4[64] = {
	[1] = 0xff, [8] = 0xff, [10] = 0xff, [11] = 0xff,        /* TOS, TTL, header checksum */
	[20 + 6] = 0xff, [20 + 7] = 0xff,                        /* UDP checksum */
	[28 + 4] = 0xff,                                         /* BTH FECN, BECN, resv6 */
};
static const uint8_t mask_v2_ipv6[64] = {
	[0] = 0x0f, [1] = 0xff, [2] = 0xff, [3] = 0xff, [7] = 0xff, /* traffic class, flow label, hop limit */
	[40 + 6] = 0xff, [40 + 7] = 0xff,
	[48 + 4] = 0xff,
};
static const uint8_t mask_v1[64] = {
	[0] = 0x0f, [1] = 0xff, [2] = 0xff, [3] = 0xff, [7] = 0xff,
	[40 + 4] = 0xff,
};

static void mask_v6(uint8_t *h)
{
	h[0] |= 0x0f;
	h[1] = h[2] = h[3] = 0xff;
	h[7] = 0xff;
}

/* CRC of 8×0xFF ‖ masked network header (nh bytes at l3; only the fixed
 * part is masked) ‖ masked UDP (v2) ‖ masked BTH ‖ rest (len bytes total).
 *
 * The usual layouts take one pass over the frame from the network header,
 * the masks OR-ed in as the bytes are loaded, starting from the CRC of the
 * 8 bytes 0xFF.  (Masked copies of the headers cost more than the CRC of a
 * kilobyte: a short CRC call of its own, and loads that wait for the
 * copy's stores to retire.)  IPv4 options and IPv6 extension headers take
 * the copy. */
static uint32_t icrc_copy(int v1, int ipv4, const uint8_t *l3, uint32_t nh, uint32_t len);

static uint32_t icrc_calc(int v1, int ipv4, const uint8_t *l3, uint32_t nh, uint32_t len)
{
	const uint8_t *m = v1 ? mask_v1 : ipv4 ? (nh == 20 ? mask_v2_ipv4 : NULL) : (nh == 40 ? mask_v2_ipv6 : NULL);

	if (m && len >= nh + (v1 ? 0 : 8) + ROCE_BTH_LEN)
		return roce__crc32_or(CRC_LRH_ONES, l3, len, m);
	return icrc_copy(v1, ipv4, l3, nh, len);
}

/* The masked copy of the headers, for the layouts without a mask (and
 * frames too short for one).  A function of its own so that the usual
 * path above does not set up its stack frame. */
__attribute__((noinline))
static uint32_t icrc_copy(int v1, int ipv4, const uint8_t *l3, uint32_t nh, uint32_t len)
{
	uint8_t hdr[8 + 60 + 8 + ROCE_BTH_LEN];
	uint32_t fixed = ipv4 ? nh : 40, n, crc = 0;
	uint8_t *t;

	memcpy(hdr, lrh_ones, 8);
	memcpy(hdr + 8, l3, fixed);
	if (ipv4) {
		hdr[8 + 1] = 0xff;
		hdr[8 + 8] = 0xff;
		hdr[8 + 10] = hdr[8 + 11] = 0xff;
	} else {
		mask_v6(hdr + 8);
	}
	n = 8 + fixed;
	if (nh > fixed) {     /* IPv6 extension headers, not masked */
		crc = roce_crc32(0, hdr, n);
		crc = roce_crc32(crc, l3 + fixed, nh - fixed);
		n = 0;
	}
	t = hdr + n;
	if (!v1) {
		memcpy(t, l3 + nh, 8);
		t[6] = t[7] = 0xff;
		t += 8;
	}
	memcpy(t, l3 + nh + (v1 ? 0 : 8), ROCE_BTH_LEN);
	t[4] = 0xff;
	t += ROCE_BTH_LEN;
	crc = roce_crc32(crc, hdr, (size_t)(t - hdr));
	n = nh + (v1 ? 0 : 8) + ROCE_BTH_LEN;
	return roce_crc32(crc, l3 + n, len - n);
}

uint32_t roce_icrc_raw(int v1, const uint8_t *l3, size_t len)
{
	uint32_t nh;

	if (v1)
		return icrc_calc(1, 0, l3, ROCE_GRH_LEN, (uint32_t)len);
	if ((l3[0] >> 4) == 4) {
		nh = (uint32_t)(l3[0] & 15) * 4;
		return icrc_calc(0, 1, l3, nh, (uint32_t)len);
	}
	return icrc_calc(0, 0, l3, 40, (uint32_t)len);
}

/* Native IB (IBTA vol 1 7.8.1): the LRH with VL as ones, or, when a GRH
 * follows, the whole LRH as ones (routers rewrite it: as RoCE v1's 8 bytes
 * of ones) and the GRH with traffic class, flow label and hop limit as ones;
 * BTH byte 4 as ones; then everything up to the ICRC.  (The public ibdump
 * capture's IPoIB frames with a GRH verify only so.) */
int roce__icrc_ib(const struct roce_pkt *p, uint32_t *icrc)
{
	uint8_t hdr[IB_LRH_LEN + ROCE_GRH_LEN + ROCE_BTH_LEN];
	uint32_t n = p->bth_off + ROCE_BTH_LEN, crc;

	if (!p->bth_off || n > sizeof hdr || p->icrc_off < n)
		return ROCE_EINVAL;
	memcpy(hdr, p->data, n);
	hdr[0] |= 0xf0;                       /* VL */
	if (p->grh_off) {
		uint8_t *g = hdr + p->grh_off;

		memset(hdr, 0xff, p->grh_off); /* the LRH */
		g[0] |= 0x0f;                 /* traffic class and flow label */
		g[1] = g[2] = g[3] = 0xff;
		g[7] = 0xff;                  /* hop limit */
	}
	hdr[p->bth_off + 4] = 0xff;
	crc = roce_crc32(0, hdr, n);
	*icrc = roce_crc32(crc, p->data + n, p->icrc_off - n);
	return ROCE_OK;
}

int roce_icrc_compute(const struct roce_pkt *p, uint32_t *icrc)
{
	uint32_t l3, nh;
	int v1;

	if (p->version == ROCE_VER_NONE || !p->icrc_off || !(p->present & ROCE_LBIT(ROCE_L_BTH)))
		return ROCE_EINVAL;
	if (p->caplen < p->icrc_off)
		return ROCE_ETRUNC;
	if (p->version == ROCE_VER_IB)
		return roce__icrc_ib(p, icrc);
	v1 = p->version == ROCE_VER_V1;
	l3 = v1 ? p->grh_off : p->ip_off;
	nh = v1 ? ROCE_GRH_LEN : p->l4_off - p->ip_off;
	if (!v1 && p->ip_version == 4 && nh > 60)
		return ROCE_EINVAL;
	*icrc = icrc_calc(v1, !v1 && p->ip_version == 4, p->data + l3, nh, p->icrc_off - l3);
	return ROCE_OK;
}

int roce_icrc_wire(const struct roce_pkt *p, uint32_t *icrc)
{
	if (p->version == ROCE_VER_NONE || !p->icrc_off)
		return ROCE_EINVAL;
	if (roce__avail(p, p->icrc_off) < ROCE_ICRC_LEN)
		return ROCE_ETRUNC;
	*icrc = rd32le(p->data + p->icrc_off);
	return ROCE_OK;
}

enum roce_icrc_status roce_icrc_verify(const struct roce_pkt *p, uint32_t *computed)
{
	uint32_t c, w;

	if (roce_icrc_wire(p, &w) != ROCE_OK || roce_icrc_compute(p, &c) != ROCE_OK)
		return ROCE_ICRC_UNCHECKED;
	if (computed)
		*computed = c;
	return c == w ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD;
}

const char *roce_icrc_status_name(enum roce_icrc_status s)
{
	switch (s) {
	case ROCE_ICRC_GOOD: return "good";
	case ROCE_ICRC_BAD: return "bad";
	default: return "unchecked";
	}
}
