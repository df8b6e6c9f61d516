/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa.c — MPA framing for TCP (RFC 5044; revision 2 enhanced connection
 * setup, RFC 6581): request/reply frames, FPDUs, markers, CRC-32C.
 *
 * Request / reply frame (RFC 5044 7.1):
 *  0                   1                   2                   3
 *  |                                                               |
 *  +         Key "MPA ID Req Frame" / "MPA ID Rep Frame" (16)      +
 *  |                                                               |
 *  |M|C|R| Res     |     Rev       |          PD_Length            |
 *  |             Private Data (PD_Length <= 512) ...               |
 * Rev 2 private data starts with the enhanced RTR control (RFC 6581 7.1)
 * when flag 0x10 is set (Linux siw/cxgb4 "enhanced RDMA connection"):
 *  |P|S|           IRD (14)        |W|R|           ORD (14)        |
 *  P peer-to-peer, S zero-length SEND, W zero-length WRITE, R zero-length
 *  READ as the ready-to-receive message.
 *
 * FPDU (RFC 5044 4):
 *  |        ULPDU_Length (16)      |   ULPDU (a DDP segment) ...   |
 *  |   ... ULPDU, pad to 4 bytes   |             CRC (32)          |
 * Markers (RFC 5044 4.3), when the receiver asked for them, sit every 512
 * bytes of TCP sequence space counted from the first byte of the FPDU stream:
 *  |       Reserved (16)           |        FPDUPTR (16)           |
 * FPDUPTR counts back to the FPDU's ULPDU length field; a marker just before
 * an ULPDU length is part of that FPDU and carries 0.  Receivers here also
 * accept a pointer counted back to such a leading marker (the RFC text is
 * read both ways; Wireshark does not check it).  The CRC covers the FPDU's
 * markers.  CRC-32C goes on the wire least significant byte first, so a
 * big-endian read of the field (what Wireshark shows) is the byte-swapped CRC.
 */
#include "internal.h"

/* ---- request / reply ---------------------------------------------------- */

int roce_mpa_frame_parse(const uint8_t *b, size_t len, struct roce_mpa_frame *f)
{
	memset(f, 0, sizeof(*f));
	if (len < ROCE_MPA_KEY_LEN) {
		/* a prefix of a key is still "maybe a frame": report truncation
		 * only when at least the common part "MPA ID Re" is there */
		if (len >= 9 && !memcmp(b, ROCE_MPA_KEY_REQ, 9))
			return ROCE_ETRUNC;
		return 0;
	}
	if (!memcmp(b, ROCE_MPA_KEY_REQ, ROCE_MPA_KEY_LEN))
		f->kind = ROCE_MPA_REQ;
	else if (!memcmp(b, ROCE_MPA_KEY_REP, ROCE_MPA_KEY_LEN))
		f->kind = ROCE_MPA_REP;
	else
		return 0;
	if (len < ROCE_MPA_FRAME_HDR_LEN)
		return ROCE_ETRUNC;
	f->flags = b[16];
	f->markers = !!(b[16] & ROCE_MPA_FLAG_M);
	f->crc = !!(b[16] & ROCE_MPA_FLAG_C);
	f->reject = !!(b[16] & ROCE_MPA_FLAG_R);
	f->rsvd = b[16] & ROCE_MPA_FLAG_RSVD;
	f->rev = b[17];
	f->pd_len = rd16(b + 18);
	f->len = ROCE_MPA_FRAME_HDR_LEN + (uint32_t)f->pd_len;
	f->pd = b + ROCE_MPA_FRAME_HDR_LEN;
	f->pd_captured = (uint32_t)(len - ROCE_MPA_FRAME_HDR_LEN);
	if (f->pd_captured > f->pd_len)
		f->pd_captured = f->pd_len;
	if (f->pd_len > ROCE_MPA_PD_MAX)
		return ROCE_EINVAL;
	if (f->rev == 2 && (f->flags & ROCE_MPA_FLAG_ENHANCED) && f->pd_captured >= ROCE_MPA_RTR_LEN) {
		uint16_t ird = rd16(f->pd), ord = rd16(f->pd + 2);

		f->has_rtr = 1;
		f->rtr.p2p = !!(ird & ROCE_MPA_RTR_IRD_P2P);
		f->rtr.send = !!(ird & ROCE_MPA_RTR_IRD_SEND);
		f->rtr.write = !!(ord & ROCE_MPA_RTR_ORD_WRITE);
		f->rtr.read = !!(ord & ROCE_MPA_RTR_ORD_READ);
		f->rtr.ird = ird & ROCE_MPA_RTR_MASK;
		f->rtr.ord = ord & ROCE_MPA_RTR_MASK;
	}
	if (f->kind == ROCE_MPA_REQ && f->reject)
		return ROCE_EINVAL;
	if (f->rev == 2 && (f->flags & ROCE_MPA_FLAG_ENHANCED) && f->pd_len < ROCE_MPA_RTR_LEN)
		return ROCE_EINVAL;
	if (f->pd_captured < f->pd_len)
		return ROCE_ETRUNC;
	return (int)f->len;
}

int roce_mpa_build_frame(uint8_t *dst, size_t cap, int kind, uint8_t flags, uint8_t rev,
			 const struct roce_mpa_rtr *rtr, const uint8_t *pd, size_t pd_len)
{
	size_t rtr_len = rev == 2 && rtr ? ROCE_MPA_RTR_LEN : 0;
	size_t total = ROCE_MPA_FRAME_HDR_LEN + rtr_len + pd_len;
	uint8_t *w;

	if (!dst || (kind != ROCE_MPA_REQ && kind != ROCE_MPA_REP) || (pd_len && !pd))
		return ROCE_EARG;
	if (rtr_len + pd_len > ROCE_MPA_PD_MAX)
		return ROCE_EARG;
	if (cap < total)
		return ROCE_ENOSPC;
	memcpy(dst, kind == ROCE_MPA_REQ ? ROCE_MPA_KEY_REQ : ROCE_MPA_KEY_REP, ROCE_MPA_KEY_LEN);
	dst[16] = (uint8_t)(flags | (rtr_len ? ROCE_MPA_FLAG_ENHANCED : 0));
	dst[17] = rev;
	wr16(dst + 18, (uint16_t)(rtr_len + pd_len));
	w = dst + ROCE_MPA_FRAME_HDR_LEN;
	if (rtr_len) {
		wr16(w, (uint16_t)((rtr->p2p ? ROCE_MPA_RTR_IRD_P2P : 0) | (rtr->send ? ROCE_MPA_RTR_IRD_SEND : 0) |
				   (rtr->ird & ROCE_MPA_RTR_MASK)));
		wr16(w + 2, (uint16_t)((rtr->write ? ROCE_MPA_RTR_ORD_WRITE : 0) | (rtr->read ? ROCE_MPA_RTR_ORD_READ : 0) |
				       (rtr->ord & ROCE_MPA_RTR_MASK)));
		w += ROCE_MPA_RTR_LEN;
	}
	if (pd_len)
		memcpy(w, pd, pd_len);
	return (int)total;
}

/* ---- CRC ----------------------------------------------------------------- */

const char *roce_mpa_crc_status_name(int s)
{
	switch (s) {
	case ROCE_MPA_CRC_GOOD: return "good";
	case ROCE_MPA_CRC_BAD: return "bad";
	default: return "unchecked";
	}
}

static uint32_t bswap32(uint32_t v)
{
	return v >> 24 | (v >> 8 & 0xff00) | (v << 8 & 0xff0000) | v << 24;
}

uint32_t roce_mpa_crc_value(const uint8_t *b, size_t len)
{
	return bswap32(roce_crc32c(0, b, len));
}

/* ---- FPDU layout ----------------------------------------------------------- */

/* First marker position >= pos (offsets within the segment). */
static uint32_t next_marker(int32_t mark0, uint32_t pos)
{
	if (mark0 < 0)
		return UINT32_MAX;
	if (pos <= (uint32_t)mark0)
		return (uint32_t)mark0;
	return (uint32_t)mark0 + (pos - (uint32_t)mark0 + ROCE_MPA_MARKER_INTERVAL - 1) /
		ROCE_MPA_MARKER_INTERVAL * ROCE_MPA_MARKER_INTERVAL;
}

/* Physical position of logical byte li of an FPDU whose first byte is at off
 * (markers are not logical bytes). */
static uint32_t phys_of(uint32_t off, int32_t mark0, uint32_t li)
{
	uint32_t pos = off, nm = next_marker(mark0, off);

	for (;;) {
		if (pos == nm) {
			pos += ROCE_MPA_MARKER_LEN;
			nm += ROCE_MPA_MARKER_INTERVAL;
			continue;
		}
		if (li < nm - pos)
			return pos + li;
		li -= nm - pos;
		pos = nm;
	}
}

/* Copies up to n logical bytes starting at logical li, stopping at the first
 * byte not captured.  Returns how many were copied. */
static uint32_t gather(const uint8_t *b, uint32_t avail, uint32_t off, int32_t mark0,
		       uint32_t li, uint32_t n, uint8_t *dst)
{
	uint32_t pos = phys_of(off, mark0, li), nm = next_marker(mark0, pos), k = 0;

	while (k < n) {
		if (pos == nm) {
			pos += ROCE_MPA_MARKER_LEN;
			nm += ROCE_MPA_MARKER_INTERVAL;
			continue;
		}
		if (pos >= avail)
			break;
		dst[k++] = b[pos++];
	}
	return k;
}

int roce_mpa_fpdu_at(const uint8_t *b, uint32_t avail, uint32_t wire_len, uint32_t off,
		     int32_t mark0, int crc_mode, struct roce_mpa_fpdu *f)
{
	uint32_t p0, p1, total, end, ustart, nm, n, hmax;
	int lead, markers_in_ulpdu = 0;

	memset(f, 0, sizeof(*f));
	f->msg_rc = ROCE_ETRUNC;
	if (avail > wire_len)
		avail = wire_len;
	f->avail = avail;
	if (mark0 >= ROCE_MPA_MARKER_INTERVAL)
		mark0 %= ROCE_MPA_MARKER_INTERVAL;
	f->off = off;
	lead = next_marker(mark0, off) == off;
	p0 = phys_of(off, mark0, 0);
	p1 = phys_of(off, mark0, 1);
	f->len_off = p0;
	if (p1 >= wire_len)
		return ROCE_MPA_SPANS;
	if (p1 >= avail)
		return ROCE_ETRUNC;
	f->ulpdu_len = (uint16_t)(b[p0] << 8 | b[p1]);
	f->pad_len = (uint8_t)roce_mpa_pad(f->ulpdu_len);
	total = 2u + f->ulpdu_len + f->pad_len + ROCE_MPA_CRC_LEN;
	ustart = phys_of(off, mark0, 2);
	f->ulpdu_off = ustart;
	f->pad_off = phys_of(off, mark0, 2u + f->ulpdu_len);
	f->crc_off = phys_of(off, mark0, total - ROCE_MPA_CRC_LEN);
	end = phys_of(off, mark0, total - 1) + 1;
	f->wire_len = end - off;

	/* markers inside [off, end) */
	for (nm = next_marker(mark0, off); nm < end; nm += ROCE_MPA_MARKER_INTERVAL) {
		if (nm + ROCE_MPA_MARKER_LEN > avail)
			break;
		if (f->n_markers < 8)
			f->marker_off[f->n_markers] = nm;
		if (f->n_markers < 255)
			f->n_markers++;
		if (nm > ustart && nm < f->pad_off)
			markers_in_ulpdu = 1;
		{
			uint16_t ptr = rd16(b + nm + 2);
			int ok = nm == off ? ptr == 0
				: ptr == nm - p0 || (lead && ptr == nm - off);

			if (!ok && f->n_marker_bad < 255)
				f->n_marker_bad++;
		}
	}

	/* DDP / RDMAP headers, markers removed */
	hmax = f->ulpdu_len < sizeof(f->hdr) ? f->ulpdu_len : (uint32_t)sizeof(f->hdr);
	n = gather(b, avail, off, mark0, 2, hmax, f->hdr);
	f->hdr_got = (uint8_t)n;
	f->msg_rc = roce_iwarp_msg_parse(f->hdr, n, f->ulpdu_len, &f->msg);
	if (f->msg_rc != ROCE_ETRUNC || n == hmax) {
		/* the payload pointer is only meaningful in place */
		if (!markers_in_ulpdu && ustart + f->msg.hdr_len <= avail)
			f->msg.payload = b + ustart + f->msg.hdr_len;
		else
			f->msg.payload = NULL;
	} else {
		f->msg.payload = NULL;
	}

	if (f->ulpdu_len < ROCE_DDP_TAGGED_LEN)
		return ROCE_EINVAL;

	if (f->crc_off + ROCE_MPA_CRC_LEN <= avail)
		f->crc_wire = rd32(b + f->crc_off);
	if (end > wire_len)
		return ROCE_MPA_SPANS;
	f->in_segment = 1;
	if (end > avail)
		return ROCE_ETRUNC;
	f->whole = 1;
	if (crc_mode == ROCE_MPA_CRC_ON || (crc_mode == ROCE_MPA_CRC_AUTO && f->crc_wire)) {
		f->crc_calc = roce_mpa_crc_value(b + off, f->crc_off - off);
		f->crc_status = f->crc_calc == f->crc_wire ? ROCE_MPA_CRC_GOOD : ROCE_MPA_CRC_BAD;
	}
	return ROCE_OK;
}

/* ---- FPDU builder ------------------------------------------------------------ */

uint32_t roce_mpa_fpdu_wire_len(size_t ulpdu_len, int markers, uint32_t pos)
{
	uint32_t total = (uint32_t)(2 + ulpdu_len + roce_mpa_pad((unsigned)ulpdu_len) + ROCE_MPA_CRC_LEN);
	int32_t mark0 = markers ? (int32_t)((ROCE_MPA_MARKER_INTERVAL - pos % ROCE_MPA_MARKER_INTERVAL) %
					   ROCE_MPA_MARKER_INTERVAL) : -1;

	return phys_of(0, mark0, total - 1) + 1;
}

int roce_mpa_build_fpdu(uint8_t *dst, size_t cap, const uint8_t *ulpdu, size_t ulpdu_len,
			int crc, int markers, uint32_t pos)
{
	uint32_t pad, total, wlen, li, w, nm, len_off;
	int32_t mark0;

	if (!dst || ulpdu_len > ROCE_MPA_ULPDU_MAX || (ulpdu_len && !ulpdu))
		return ROCE_EARG;
	pad = roce_mpa_pad((unsigned)ulpdu_len);
	total = (uint32_t)(2 + ulpdu_len + pad + ROCE_MPA_CRC_LEN);
	mark0 = markers ? (int32_t)((ROCE_MPA_MARKER_INTERVAL - pos % ROCE_MPA_MARKER_INTERVAL) %
				    ROCE_MPA_MARKER_INTERVAL) : -1;
	wlen = phys_of(0, mark0, total - 1) + 1;
	if (cap < wlen)
		return ROCE_ENOSPC;
	len_off = phys_of(0, mark0, 0);

	/* logical bytes, markers skipped */
	w = 0;
	nm = next_marker(mark0, 0);
	for (li = 0; li < total - ROCE_MPA_CRC_LEN; li++) {
		uint8_t v;

		while (w == nm) {
			dst[w] = dst[w + 1] = 0;
			wr16(dst + w + 2, (uint16_t)(w == 0 ? 0 : w - len_off));
			w += ROCE_MPA_MARKER_LEN;
			nm += ROCE_MPA_MARKER_INTERVAL;
		}
		if (li < 2)
			v = (uint8_t)(li == 0 ? ulpdu_len >> 8 : ulpdu_len);
		else if (li < 2 + ulpdu_len)
			v = ulpdu[li - 2];
		else
			v = 0;
		dst[w++] = v;
	}
	while (w == nm) {   /* a marker between the pad and the CRC */
		dst[w] = dst[w + 1] = 0;
		wr16(dst + w + 2, (uint16_t)(w - len_off));
		w += ROCE_MPA_MARKER_LEN;
		nm += ROCE_MPA_MARKER_INTERVAL;
	}
	wr32(dst + w, crc ? roce_mpa_crc_value(dst, w) : 0);
	return (int)(w + ROCE_MPA_CRC_LEN);
}
