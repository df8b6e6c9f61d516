/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcp.c — the TCP header (RFC 9293 3.1) and, on iWARP connections, the
 * MPA/DDP/RDMAP layers above it (RFC 5044, RFC 5041, RFC 5040): finding
 * iWARP in one segment, its fields and summary, and TCP frame building.
 *
 *  0                   1                   2                   3
 *  |          Source Port          |       Destination Port        |
 *  |                        Sequence Number                        |
 *  |                    Acknowledgment Number                      |
 *  |  Data |       |C|E|U|A|P|R|S|F|                               |
 *  | Offset| Rsrvd |W|C|R|C|S|S|Y|I|            Window             |
 *  |           Checksum            |         Urgent Pointer        |
 *
 * How a segment is found to carry iWARP is described in iwarp.h.  What the
 * decoder records in struct roce_pkt: mpa_off = the MPA frame, or the first
 * byte (marker or ULPDU length) of the first FPDU; ddp_off = that FPDU's DDP
 * header; rdmap_off = its RDMAP header after the DDP header (Read Request,
 * Terminate, atomics, immediate data), else the RDMAP control byte.  The
 * field walker and the summary re-walk the FPDUs from there.  A segment that
 * starts with four zero bytes is read as starting with a marker (pointer 0)
 * because an FPDU cannot have a zero ULPDU length.
 */
#include "internal.h"

/* ---- locating iWARP --------------------------------------------------------- */

static int on_iwarp_port(const struct roce_pkt *p, const struct roce_cfg *cfg)
{
	if (!cfg)
		return 0;
	for (unsigned i = 0; i < cfg->n_iwarp_ports && i < ROCE_CFG_MAX_PORTS; i++)
		if (cfg->iwarp_ports[i] == p->sport || cfg->iwarp_ports[i] == p->dport)
			return 1;
	return 0;
}

/* Marker grid of FPDUs starting at b: a leading zero marker pins it. */
static int32_t grid_of(const uint8_t *b, uint32_t avail)
{
	return avail >= 4 && !b[0] && !b[1] && !b[2] && !b[3] ? 0 : -1;
}

/* Why a parsed DDP/RDMAP header was refused, and which layer it belongs to. */
static const char *msg_problem(const struct roce_iwarp_msg *m, uint32_t ulpdu_len, enum roce_layer *l)
{
	*l = ROCE_L_DDP;
	if (ulpdu_len < (m->tagged ? ROCE_DDP_TAGGED_LEN : ROCE_DDP_UNTAGGED_LEN))
		return "ULPDU shorter than its DDP header";
	if (m->dv != 1)
		return "DDP version is not 1";
	*l = ROCE_L_RDMAP;
	if (m->rv != 1)
		return "RDMAP version is not 1";
	if (!roce_rdmap_op_name(m->opcode))
		return "reserved RDMAP opcode";
	if (roce_rdmap_op_tagged(m->opcode) != m->tagged)
		return "RDMAP opcode in the wrong DDP buffer model";
	return "ULPDU shorter than its RDMAP header";
}

/* Could this be the start of an FPDU?  The control bytes must be right,
 * the ULPDU long enough for the opcode's headers (exactly as long for the
 * messages without payload), and an untagged queue number the opcode's. */
static int plausible(const struct roce_mpa_fpdu *f)
{
	const struct roce_iwarp_msg *m = &f->msg;
	unsigned hl;

	if (f->msg_rc == ROCE_EINVAL || f->hdr_got < 2)
		return 0;
	if (m->dv != 1 || m->rv != 1 || m->ddp_rsvd || m->rdmap_rsvd || !roce_rdmap_op_name(m->opcode) ||
	    roce_rdmap_op_tagged(m->opcode) != m->tagged)
		return 0;
	hl = roce_rdmap_hdr_len(m->opcode);
	if (f->ulpdu_len < hl)
		return 0;
	if ((m->opcode == ROCE_RDMAP_READ_REQ || m->opcode == ROCE_RDMAP_ATOMIC_REQ ||
	     m->opcode == ROCE_RDMAP_ATOMIC_RESP || m->opcode == ROCE_RDMAP_IMM ||
	     m->opcode == ROCE_RDMAP_IMM_SE) && f->ulpdu_len != hl)
		return 0;
	if (m->opcode == ROCE_RDMAP_TERMINATE && f->ulpdu_len > hl + 2 + ROCE_DDP_UNTAGGED_LEN + ROCE_RDMAP_READREQ_LEN)
		return 0;
	if (!m->tagged && f->hdr_got >= ROCE_DDP_UNTAGGED_LEN) {
		if (m->opcode >= ROCE_RDMAP_SEND && m->opcode <= ROCE_RDMAP_SEND_SE_INV && m->qn != ROCE_DDP_QN_SEND)
			return 0;
		if (m->opcode == ROCE_RDMAP_READ_REQ && m->qn != ROCE_DDP_QN_READ_REQ)
			return 0;
		if (m->opcode == ROCE_RDMAP_TERMINATE && m->qn != ROCE_DDP_QN_TERMINATE)
			return 0;
	}
	return 1;
}

int roce_mpa_fpdu_plausible(const uint8_t *b, uint32_t avail, uint32_t wire_len)
{
	struct roce_mpa_fpdu f;
	int rc;

	if (!b || !wire_len)
		return 0;
	if (avail > wire_len)
		avail = wire_len;
	rc = roce_mpa_fpdu_at(b, avail, wire_len, 0, -1, ROCE_MPA_CRC_OFF, &f);
	return rc != ROCE_EINVAL && f.ulpdu_len && plausible(&f);
}

/* The conservative test for FPDUs off the configured ports (iwarp.h). */
static int looks_like_fpdus(const uint8_t *b, uint32_t avail, uint32_t wlen, int32_t mark0)
{
	struct roce_mpa_fpdu f;
	uint32_t cur = 0, n = 0;

	while (cur < wlen) {
		int rc = roce_mpa_fpdu_at(b, avail, wlen, cur, mark0, ROCE_MPA_CRC_AUTO, &f);

		if (rc == ROCE_EINVAL || rc == ROCE_MPA_SPANS)
			return 0;
		if (rc == ROCE_ETRUNC && !f.ulpdu_len)
			return n > 0;           /* next length not captured */
		if (!plausible(&f) || f.n_marker_bad || f.crc_status == ROCE_MPA_CRC_BAD)
			return 0;
		n++;
		if (rc == ROCE_ETRUNC)
			return 1;               /* the rest was not captured */
		cur += f.wire_len;
	}
	return n > 0 && cur == wlen;
}

/* Decodes the FPDUs from off to end (a whole TCP payload or what follows an
 * MPA frame); trusted: the caller named the port or it follows a frame. */
static void decode_fpdus(struct roce_pkt *p, uint32_t off, uint32_t end, int trusted)
{
	const uint8_t *b = p->data + off;
	uint32_t wlen = end - off, avail = roce__avail(p, off), cur = 0;
	int32_t mark0;
	struct roce_mpa_fpdu f;
	enum roce_layer l;

	if (avail > wlen)
		avail = wlen;
	mark0 = grid_of(b, avail);
	if (!trusted && !looks_like_fpdus(b, avail, wlen, mark0))
		return;
	if (trusted) {
		/* even on a named port, a segment that starts inside an FPDU
		 * (a continuation) must not be read as one: require a sane first header */
		int rc = roce_mpa_fpdu_at(b, avail, wlen, 0, mark0, ROCE_MPA_CRC_AUTO, &f);

		if (rc == ROCE_MPA_SPANS && !f.ulpdu_len)
			return;
		if (rc == ROCE_ETRUNC && !f.ulpdu_len) {
			p->mpa_off = off;
			roce__trunc(p, ROCE_L_MPA);
			return;
		}
		if (rc == ROCE_EINVAL || !plausible(&f))
			return;
	}

	while (cur < wlen) {
		int rc = roce_mpa_fpdu_at(b, avail, wlen, cur, mark0, ROCE_MPA_CRC_AUTO, &f);

		if (cur == 0) {
			p->mpa_off = off + f.off;
			roce__seen(p, ROCE_L_MPA);
			if (f.ulpdu_len) {
				p->ddp_off = off + f.ulpdu_off;
				roce__seen(p, ROCE_L_DDP);
				roce__seen(p, ROCE_L_RDMAP);
				p->rdmap_off = p->ddp_off + 1;
				if (f.msg_rc == ROCE_OK && f.msg.hdr_len >
				    (f.msg.tagged ? ROCE_DDP_TAGGED_LEN : ROCE_DDP_UNTAGGED_LEN))
					p->rdmap_off = p->ddp_off + (f.msg.tagged ? ROCE_DDP_TAGGED_LEN
								     : ROCE_DDP_UNTAGGED_LEN);
			}
		}
		if (rc == ROCE_MPA_SPANS && !f.ulpdu_len)
			break;          /* the next length field is in the next segment */
		if (rc == ROCE_EINVAL) {
			roce__invalid(p, ROCE_L_MPA, "ULPDU length shorter than a DDP header");
			break;
		}
		if (rc == ROCE_ETRUNC && !f.ulpdu_len) {
			roce__trunc(p, ROCE_L_MPA);
			break;
		}
		if (f.msg_rc == ROCE_EINVAL) {
			const char *why = msg_problem(&f.msg, f.ulpdu_len, &l);

			roce__invalid(p, l, why);
		} else if (f.msg_rc == ROCE_ETRUNC) {
			roce__trunc(p, ROCE_L_DDP);
			roce__trunc(p, ROCE_L_RDMAP);
		}
		if (f.n_marker_bad)
			roce__invalid(p, ROCE_L_MPA, "MPA marker does not point at its FPDU");
		if (rc == ROCE_ETRUNC) {
			roce__trunc(p, ROCE_L_MPA);
			break;
		}
		if (rc == ROCE_MPA_SPANS)
			break;          /* goes on in the next segment: not an error */
		cur += f.wire_len;
	}
}

static void decode_iwarp(struct roce_pkt *p, const struct roce_cfg *cfg)
{
	uint32_t off = p->tcp_payload_off, len = p->tcp_payload_len, avail = roce__avail(p, off);
	struct roce_mpa_frame fr;
	int rc;

	if (!len || p->ip_frag)
		return;
	if (avail > len)
		avail = len;
	rc = roce_mpa_frame_parse(p->data + off, avail, &fr);
	if (rc) {
		p->mpa_off = off;
		if (rc == ROCE_EINVAL)
			roce__invalid(p, ROCE_L_MPA,
				      fr.pd_len > ROCE_MPA_PD_MAX ? "MPA private data longer than 512 bytes"
				      : fr.kind == ROCE_MPA_REQ && fr.reject ? "MPA request with the reject bit"
				      : "MPA revision 2 frame without the RTR private data");
		else if (rc == ROCE_ETRUNC && avail < len)
			roce__trunc(p, ROCE_L_MPA);
		else
			roce__seen(p, ROCE_L_MPA); /* whole, or going on in the next segment */
		if (rc > 0 && fr.len < len)
			decode_fpdus(p, off + fr.len, off + len, 1);
		return;
	}
	decode_fpdus(p, off, off + len, on_iwarp_port(p, cfg));
}

void roce__decode_tcp(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t off, uint32_t end)
{
	const uint8_t *b = p->data + off;
	uint32_t hlen;

	p->l4_off = off;
	if (roce__avail(p, off) < 20 || end - off < 20) {
		if (end - off < 20 && roce__avail(p, off) >= end - off)
			roce__invalid(p, ROCE_L_TCP, "TCP header longer than the IP payload");
		else
			roce__trunc(p, ROCE_L_TCP);
		if (roce__avail(p, off) >= 4) {
			p->sport = rd16(b);
			p->dport = rd16(b + 2);
		}
		return;
	}
	roce__seen(p, ROCE_L_TCP);
	p->sport = rd16(b);
	p->dport = rd16(b + 2);
	p->tcp_seq = rd32(b + 4);
	p->tcp_ack = rd32(b + 8);
	p->tcp_flags = b[13];
	hlen = (uint32_t)(b[12] >> 4) * 4;
	if (hlen < 20 || hlen > end - off) {
		roce__invalid(p, ROCE_L_TCP, "bad TCP data offset");
		return;
	}
	p->tcp_payload_off = off + hlen;
	p->tcp_payload_len = end - off - hlen;
	if (roce__avail(p, off) < hlen) {
		roce__trunc(p, ROCE_L_TCP);
		return;
	}
	decode_iwarp(p, cfg);
}

/* ---- walking the FPDUs of a decoded packet ---------------------------------- */

/* Calls fn for each FPDU from off + cur on (offsets given relative to off;
 * mark0 relative to off, -2: take the grid from a leading zero marker). */
static unsigned walk_fpdus(const struct roce_pkt *p, uint32_t off, uint32_t cur, int32_t mark0, int crc_mode,
			   roce_mpa_walk_cb fn, void *ctx)
{
	uint32_t end = p->tcp_payload_off + p->tcp_payload_len, wlen, avail;
	const uint8_t *b = p->data + off;
	struct roce_mpa_fpdu f;
	unsigned n = 0;

	if (off >= end)
		return 0;
	wlen = end - off;
	avail = roce__avail(p, off);
	if (avail > wlen)
		avail = wlen;
	if (mark0 == -2)
		mark0 = grid_of(b, avail);
	while (cur < wlen) {
		int rc = roce_mpa_fpdu_at(b, avail, wlen, cur, mark0, crc_mode, &f);

		if (!f.ulpdu_len && rc != ROCE_OK)
			break;
		fn(ctx, b, &f);
		n++;
		if (rc != ROCE_OK)
			break;
		cur += f.wire_len;
	}
	return n;
}

/* Where the decoder's FPDUs start: after a frame or at mpa_off. */
static uint32_t fpdu_start(const struct roce_pkt *p, struct roce_mpa_frame *fr, int *is_frame)
{
	uint32_t off = p->mpa_off, avail = roce__avail(p, off);
	int rc;

	*is_frame = 0;
	if (!off)
		return 0;
	if (avail > p->tcp_payload_len)
		avail = p->tcp_payload_len;
	rc = roce_mpa_frame_parse(p->data + off, avail, fr);
	if (rc) {
		*is_frame = 1;
		return rc > 0 && p->ddp_off ? off + fr->len : 0;
	}
	return off;
}

int roce_mpa_segment_walk(const struct roce_pkt *p, const struct roce_mpa_dir *dir, int first_is_fpdu,
			  roce_mpa_walk_cb cb, void *ctx)
{
	uint32_t off = p->tcp_payload_off, wlen = p->tcp_payload_len, avail, start = 0;
	int crc_mode = ROCE_MPA_CRC_AUTO;
	int32_t mark0 = -1;
	const uint8_t *b;

	if (!(p->present & ROCE_LBIT(ROCE_L_TCP)) || !off || !wlen || !cb)
		return 0;
	b = p->data + off;
	avail = roce__avail(p, off);
	if (avail > wlen)
		avail = wlen;
	if (dir) {
		if (dir->crc_known)
			crc_mode = dir->crc ? ROCE_MPA_CRC_ON : ROCE_MPA_CRC_OFF;
		if (dir->markers) {
			uint32_t rel = p->tcp_seq - dir->start_seq;

			mark0 = (int32_t)((ROCE_MPA_MARKER_INTERVAL - rel % ROCE_MPA_MARKER_INTERVAL) %
					  ROCE_MPA_MARKER_INTERVAL);
		}
	}
	if (!first_is_fpdu) {
		uint32_t m;

		if (mark0 < 0)
			return 0;
		/* follow the first marker whose FPDU starts in this segment */
		for (m = (uint32_t)mark0;; m += ROCE_MPA_MARKER_INTERVAL) {
			uint16_t ptr;

			if (m + ROCE_MPA_MARKER_LEN > avail)
				return 0;
			ptr = rd16(b + m + 2);
			if (ptr <= m) {
				start = m - ptr;
				/* a marker just before a length field leads its FPDU */
				if (ptr && start >= ROCE_MPA_MARKER_LEN &&
				    (start - ROCE_MPA_MARKER_LEN) % ROCE_MPA_MARKER_INTERVAL == (uint32_t)mark0)
					start -= ROCE_MPA_MARKER_LEN;
				break;
			}
		}
	}
	return (int)walk_fpdus(p, off, start, mark0, crc_mode, cb, ctx);
}

/* ---- fields -------------------------------------------------------------------- */

typedef void (*fcb_t)(void *ctx, const struct roce_field *f);

/* Byte fields must point into the caller's bytes, not at f->hdr: the n
 * header bytes at logical offset k of the ULPDU, in place, or NULL when a
 * marker sits among them. */
static const uint8_t *in_place(const uint8_t *seg, const struct roce_mpa_fpdu *f, uint32_t k, uint32_t n)
{
	uint32_t lo = f->ulpdu_off, hi = f->ulpdu_off + k + n;

	if (!f->ulpdu_off || k + n > f->hdr_got)
		return NULL;
	for (unsigned i = 0; i < f->n_markers && i < 8; i++)
		if (f->marker_off[i] >= lo && f->marker_off[i] < hi)
			return NULL;
	if (f->n_markers > 8)
		return NULL;
	return seg + lo + k;
}

static void term_fields(const uint8_t *seg, const struct roce_mpa_fpdu *f, roce_field_cb cb, void *ctx)
{
	const struct roce_iwarp_msg *m = &f->msg;
	const uint8_t *b;
	const char *n;

	EMIT_U("iwarp_rdma.term_layer", m->term_layer);
	switch (m->term_layer) {
	case ROCE_TERM_RDMAP:
		EMIT_U("iwarp_rdma.term_etype_rdma", m->term_etype);
		EMIT_U(m->term_etype ? "iwarp_rdma.term_errcode_rdma" : "iwarp_rdma.term_errcode", m->term_code);
		break;
	case ROCE_TERM_DDP:
		EMIT_U("iwarp_rdma.term_etype_ddp", m->term_etype);
		EMIT_U(m->term_etype == 1 ? "iwarp_rdma.term_errcode_ddp_tagged"
		       : m->term_etype == 2 ? "iwarp_rdma.term_errcode_ddp_untagged"
		       : "iwarp_rdma.term_errcode", m->term_code);
		break;
	case ROCE_TERM_LLP:
		EMIT_U("iwarp_rdma.term_etype_llp", m->term_etype);
		EMIT_U(m->term_etype ? "iwarp_rdma.term_errcode" : "iwarp_rdma.term_errcode_llp", m->term_code);
		break;
	default:
		EMIT_U("iwarp_rdma.term_etype", m->term_etype);
		EMIT_U("iwarp_rdma.term_errcode", m->term_code);
		break;
	}
	EMIT_B("iwarp_rdma.term_hdrct_m", m->term_hdrct & ROCE_TERM_HDRCT_M);
	EMIT_B("iwarp_rdma.hdrct_d", m->term_hdrct & ROCE_TERM_HDRCT_D);
	EMIT_B("iwarp_rdma.hdrct_r", m->term_hdrct & ROCE_TERM_HDRCT_R);
	EMIT_U("iwarp_rdma.term_rsvd", m->term_rsvd);
	if (m->term_ddp) {
		uint32_t k = (uint32_t)(m->term_ddp - f->hdr);

		if ((b = in_place(seg, f, k - 2, 2)))
			EMIT_BYTES("iwarp_rdma.term_ddp_seg_len", b, 2);
		if ((b = in_place(seg, f, k, m->term_ddp_len)))
			EMIT_BYTES("iwarp_rdma.term_ddp_h", b, m->term_ddp_len);
	}
	if (m->term_rdma && (b = in_place(seg, f, (uint32_t)(m->term_rdma - f->hdr), ROCE_RDMAP_READREQ_LEN)))
		EMIT_BYTES("iwarp_rdma.term_rdma_h", b, ROCE_RDMAP_READREQ_LEN);
	if ((n = roce_term_layer_name(m->term_layer)))
		EMIT_S("roce.rdmap.term.layer", n);
	if ((n = roce_term_etype_name(m->term_layer, m->term_etype)))
		EMIT_S("roce.rdmap.term.etype", n);
	if ((n = roce_term_code_name(m->term_layer, m->term_etype, m->term_code)))
		EMIT_S("roce.rdmap.term.code", n);
}

static void msg_fields(const uint8_t *seg, const struct roce_mpa_fpdu *f, roce_field_cb cb, void *ctx)
{
	const struct roce_iwarp_msg *m = &f->msg;
	const uint8_t *h = f->hdr, *b;
	uint8_t op = m->opcode;

	if (f->hdr_got < 1)
		return;
	EMIT_B("iwarp_ddp.tagged_flag", m->tagged);
	EMIT_B("iwarp_ddp.last_flag", m->last);
	EMIT_U("iwarp_ddp.rsvd", m->ddp_rsvd);
	EMIT_U("iwarp_ddp.dv", m->dv);
	if (!m->tagged && (b = in_place(seg, f, 1, 5)))
		EMIT_BYTES("iwarp_ddp.rsvdulp", b, 5);
	if (f->hdr_got < 2)
		return;
	EMIT_U("iwarp_rdma.version", m->rv);
	EMIT_U("iwarp_rdma.rsv", m->rdmap_rsvd);
	EMIT_U("iwarp_rdma.opcode", op);
	EMIT_S("roce.rdmap.op", roce_rdmap_op_tag(op));
	if (f->hdr_got >= 6) {
		if ((op == ROCE_RDMAP_READ_REQ || op == ROCE_RDMAP_SEND || op == ROCE_RDMAP_SEND_SE ||
		     op == ROCE_RDMAP_TERMINATE) && (b = in_place(seg, f, 2, 4)))
			EMIT_BYTES("iwarp_rdma.reserved", b, 4);
		if (op == ROCE_RDMAP_SEND_INV || op == ROCE_RDMAP_SEND_SE_INV)
			EMIT_U("iwarp_rdma.inval_stag", rd32(h + 2));
	}
	if (m->tagged && f->hdr_got >= ROCE_DDP_TAGGED_LEN) {
		EMIT_U("iwarp_ddp.stag", m->stag);
		EMIT_U("iwarp_ddp.tagged_offset", m->to);
	} else if (!m->tagged && f->hdr_got >= ROCE_DDP_UNTAGGED_LEN) {
		EMIT_U("iwarp_ddp.qn", m->qn);
		EMIT_U("iwarp_ddp.msn", m->msn);
		EMIT_U("iwarp_ddp.mo", m->mo);
	}
	if (f->msg_rc != ROCE_OK)
		return;
	switch (op) {
	case ROCE_RDMAP_READ_REQ:
		EMIT_U("iwarp_rdma.sinkstag", m->sink_stag);
		EMIT_U("iwarp_rdma.sinkto", m->sink_to);
		EMIT_U("iwarp_rdma.rdmardsz", m->read_size);
		EMIT_U("iwarp_rdma.srcstag", m->src_stag);
		EMIT_U("iwarp_rdma.srcto", m->src_to);
		break;
	case ROCE_RDMAP_TERMINATE:
		term_fields(seg, f, cb, ctx);
		break;
	case ROCE_RDMAP_ATOMIC_REQ:
		EMIT_U("iwarp_rdma.atomic.reserved", m->atomic_rsvd);
		EMIT_U("iwarp_rdma.atomic.opcode", m->atomic_op);
		EMIT_U("iwarp_rdma.atomic.request_identifier", m->req_id);
		EMIT_U("iwarp_rdma.atomic.remote_stag", m->remote_stag);
		EMIT_U("iwarp_rdma.atomic.remote_tagged_offset", m->remote_to);
		if (m->atomic_op == ROCE_ATOMIC_FETCH_ADD) {
			EMIT_U("iwarp_rdma.atomic.add_data", m->add_swap);
			EMIT_U("iwarp_rdma.atomic.add_mask", m->add_swap_mask);
		} else if (m->atomic_op == ROCE_ATOMIC_CMP_SWAP) {
			EMIT_U("iwarp_rdma.atomic.swap_data", m->add_swap);
			EMIT_U("iwarp_rdma.atomic.swap_mask", m->add_swap_mask);
		}
		EMIT_U("iwarp_rdma.atomic.compare_data", m->compare);
		EMIT_U("iwarp_rdma.atomic.compare_mask", m->compare_mask);
		break;
	case ROCE_RDMAP_ATOMIC_RESP:
		EMIT_U("iwarp_rdma.atomic.original_request_identifier", m->orig_req_id);
		EMIT_U("iwarp_rdma.atomic.original_remote_data_value", m->orig_value);
		break;
	case ROCE_RDMAP_IMM:
	case ROCE_RDMAP_IMM_SE:
		EMIT_U("roce.rdmap.imm", m->imm);
		break;
	default:
		break;
	}
	EMIT_U("roce.ddp.payload_len", m->payload_len);
}

/* mres/mptr: markers given by the caller (reassembled FPDUs), else read at
 * f->marker_off in seg. */
static void fpdu_fields(const uint8_t *seg, const struct roce_mpa_fpdu *f, const uint16_t *mres,
			const uint16_t *mptr, unsigned nm, unsigned nbad, fcb_t cb, void *ctx)
{
	if (f->len_off + 2 > f->avail)
		return;
	EMIT_U("iwarp_mpa.ulpdulength", f->ulpdu_len);
	if (f->in_segment && f->pad_len && f->pad_off + f->pad_len <= f->avail)
		EMIT_BYTES("iwarp_mpa.pad", seg + f->pad_off, f->pad_len);
	if (f->in_segment && f->crc_off + ROCE_MPA_CRC_LEN <= f->avail) {
		if (f->crc_status == ROCE_MPA_CRC_UNCHECKED)
			EMIT_U("iwarp_mpa.crc", f->crc_wire);
		else
			EMIT_U("iwarp_mpa.crc_check", f->crc_wire);
	}
	for (unsigned i = 0; i < nm && i < 8; i++) {
		EMIT_U("iwarp_mpa.marker_res", mres ? mres[i] : rd16(seg + f->marker_off[i]));
		EMIT_U("iwarp_mpa.marker_fpduptr", mptr ? mptr[i] : rd16(seg + f->marker_off[i] + 2));
	}
	EMIT_S("roce.mpa.crc.status", roce_mpa_crc_status_name(f->crc_status));
	if (f->crc_status != ROCE_MPA_CRC_UNCHECKED)
		EMIT_U("roce.mpa.crc.computed", f->crc_calc);
	if (nm)
		EMIT_U("roce.mpa.markers", nm);
	if (nbad)
		EMIT_U("roce.mpa.markers_bad", nbad);
	if (!f->in_segment)
		EMIT_B("roce.mpa.continues", 1);
	msg_fields(seg, f, cb, ctx);
}

void roce_mpa_fpdu_fields(const uint8_t *seg, const struct roce_mpa_fpdu *f, fcb_t cb, void *ctx)
{
	fpdu_fields(seg, f, NULL, NULL, f->n_markers, f->n_marker_bad, cb, ctx);
}

void roce_mpa_stream_fpdu_fields(const struct roce_mpa_stream_fpdu *f, fcb_t cb, void *ctx)
{
	if (!f->bytes)
		return;
	fpdu_fields(f->bytes, &f->view, f->marker_rsvd, f->marker_ptr, f->n_markers, f->n_marker_bad, cb, ctx);
}

struct fwalk {
	roce_field_cb cb;
	void *ctx;
};

static void field_one(void *c, const uint8_t *seg, const struct roce_mpa_fpdu *f)
{
	struct fwalk *w = c;

	roce_mpa_fpdu_fields(seg, f, w->cb, w->ctx);
}

static void frame_fields(const struct roce_mpa_frame *fr, const uint8_t *b, roce_field_cb cb, void *ctx)
{
	EMIT_BYTES(fr->kind == ROCE_MPA_REQ ? "iwarp_mpa.key.req" : "iwarp_mpa.key.rep", b, ROCE_MPA_KEY_LEN);
	EMIT_S("roce.mpa.type", fr->kind == ROCE_MPA_REQ ? "request" : "reply");
	if (!fr->len)
		return;                 /* flags not captured */
	EMIT_B("iwarp_mpa.marker_flag", fr->markers);
	EMIT_B("iwarp_mpa.crc_flag", fr->crc);
	EMIT_B("iwarp_mpa.rej_flag", fr->reject);
	EMIT_U("iwarp_mpa.res", fr->rsvd);
	EMIT_U("iwarp_mpa.rev", fr->rev);
	if (fr->pd_len > ROCE_MPA_PD_MAX)
		return;
	EMIT_U("iwarp_mpa.pdlength", fr->pd_len);
	if (fr->pd_len && fr->pd_captured)
		EMIT_BYTES("iwarp_mpa.privatedata", fr->pd, fr->pd_captured);
	if (fr->kind == ROCE_MPA_REP)
		EMIT_B("roce.mpa.reject", fr->reject);
	if (fr->has_rtr) {
		EMIT_U("roce.mpa.ird", fr->rtr.ird);
		EMIT_U("roce.mpa.ord", fr->rtr.ord);
		EMIT_B("roce.mpa.rtr.p2p", fr->rtr.p2p);
		EMIT_B("roce.mpa.rtr.send", fr->rtr.send);
		EMIT_B("roce.mpa.rtr.write", fr->rtr.write);
		EMIT_B("roce.mpa.rtr.read", fr->rtr.read);
	}
}

void roce__fields_tcp(const struct roce_pkt *p, unsigned flags, roce_field_cb cb, void *ctx)
{
	struct roce_mpa_frame fr;
	struct fwalk w = { cb, ctx };
	uint32_t fo;
	int is_frame;

	if (!(p->present & ROCE_LBIT(ROCE_L_TCP)) || roce__avail(p, p->l4_off) < 4)
		return;
	EMIT_U("tcp.srcport", p->sport);
	EMIT_U("tcp.dstport", p->dport);
	if (roce__avail(p, p->l4_off) < 20)
		return;
	EMIT_U("tcp.seq_raw", p->tcp_seq);
	EMIT_U("tcp.ack_raw", p->tcp_ack);
	EMIT_U("tcp.flags", p->tcp_flags);
	EMIT_U("tcp.len", p->tcp_payload_len);
	if (!p->mpa_off)
		return;
	fo = fpdu_start(p, &fr, &is_frame);
	if (is_frame && roce__avail(p, p->mpa_off) >= ROCE_MPA_KEY_LEN)
		frame_fields(&fr, p->data + p->mpa_off, cb, ctx);
	if (fo && !(flags & ROCE_FIELDS_NO_FPDU))
		walk_fpdus(p, fo, 0, -2, ROCE_MPA_CRC_AUTO, field_one, &w);
}

/* ---- summary ------------------------------------------------------------------- */

struct swalk {
	char *buf;
	size_t cap;
	size_t *n;
	unsigned count;
};

/* One FPDU: " iWARP OP ..."; n_markers as on the wire (a reassembled FPDU's
 * view has its markers taken out). */
static void fpdu_summary(const struct roce_mpa_fpdu *f, unsigned n_markers, char *buf, size_t cap, size_t *n)
{
	const struct roce_iwarp_msg *m = &f->msg;

	if (f->hdr_got < 2) {
		roce__sappend(buf, cap, n, " iWARP FPDU len %u", f->ulpdu_len);
		return;
	}
	roce__sappend(buf, cap, n, " iWARP %s", roce_rdmap_op_tag(m->opcode));
	if (m->tagged && f->hdr_got >= ROCE_DDP_TAGGED_LEN)
		roce__sappend(buf, cap, n, " stag 0x%x to 0x%llx", m->stag, (unsigned long long)m->to);
	else if (!m->tagged && f->hdr_got >= ROCE_DDP_UNTAGGED_LEN)
		roce__sappend(buf, cap, n, " qn %u msn %u mo %u", m->qn, m->msn, m->mo);
	if (f->msg_rc == ROCE_OK) {
		switch (m->opcode) {
		case ROCE_RDMAP_READ_REQ:
			roce__sappend(buf, cap, n, " sink 0x%x@0x%llx src 0x%x@0x%llx size %u", m->sink_stag,
				      (unsigned long long)m->sink_to, m->src_stag, (unsigned long long)m->src_to,
				      m->read_size);
			break;
		case ROCE_RDMAP_SEND_INV:
		case ROCE_RDMAP_SEND_SE_INV:
			roce__sappend(buf, cap, n, " inv 0x%x", m->rsvd_ulp);
			break;
		case ROCE_RDMAP_TERMINATE: {
			const char *l = roce_term_layer_name(m->term_layer);
			const char *e = roce_term_etype_name(m->term_layer, m->term_etype);
			const char *cn = roce_term_code_name(m->term_layer, m->term_etype, m->term_code);

			roce__sappend(buf, cap, n, " %s/%s/%s", l ? l : "?", e ? e : "?", cn ? cn : "?");
			break;
		}
		case ROCE_RDMAP_ATOMIC_REQ:
			roce__sappend(buf, cap, n, " %s id %u stag 0x%x to 0x%llx",
				      m->atomic_op == ROCE_ATOMIC_FETCH_ADD ? "FetchAdd"
				      : m->atomic_op == ROCE_ATOMIC_CMP_SWAP ? "CmpSwap" : "op?",
				      m->req_id, m->remote_stag, (unsigned long long)m->remote_to);
			break;
		case ROCE_RDMAP_ATOMIC_RESP:
			roce__sappend(buf, cap, n, " id %u orig 0x%llx", m->orig_req_id,
				      (unsigned long long)m->orig_value);
			break;
		default:
			break;
		}
		roce__sappend(buf, cap, n, " len %u", m->payload_len);
	}
	if (!m->last)
		roce__sappend(buf, cap, n, " more");
	if (n_markers)
		roce__sappend(buf, cap, n, " markers %u", n_markers);
	if (f->in_segment)
		roce__sappend(buf, cap, n, " crc %s", roce_mpa_crc_status_name(f->crc_status));
	else
		roce__sappend(buf, cap, n, " (continues)");
}

static void summary_one(void *c, const uint8_t *seg, const struct roce_mpa_fpdu *f)
{
	struct swalk *s = c;

	(void)seg;
	if (s->count++)
		return;
	fpdu_summary(f, f->n_markers, s->buf, s->cap, s->n);
}

size_t roce_mpa_stream_fpdu_summary(const struct roce_mpa_stream_fpdu *f, char *buf, size_t cap)
{
	size_t n = 0;

	if (!cap)
		return 0;
	buf[0] = 0;
	if (!f->bytes)
		return 0;
	fpdu_summary(&f->view, f->n_markers, buf, cap, &n);
	if (n && buf[0] == ' ') {
		memmove(buf, buf + 1, n);       /* the NUL too */
		n--;
	}
	return n;
}

void roce__summary_tcp(const struct roce_pkt *p, unsigned flags, char *buf, size_t cap, size_t *n)
{
	static const char fl[] = "FSRPAUEC";
	struct roce_mpa_frame fr;
	struct swalk s = { buf, cap, n, 0 };
	char f[9];
	int k = 0, is_frame;
	uint32_t fo;

	if (roce__avail(p, p->l4_off) < 20) {
		roce__sappend(buf, cap, n, " TCP");
		return;
	}
	for (int i = 0; i < 8; i++)
		if (p->tcp_flags & (1u << i))
			f[k++] = fl[i];
	f[k] = 0;
	roce__sappend(buf, cap, n, " TCP [%s] seq %u ack %u len %u", f, p->tcp_seq, p->tcp_ack,
		      p->tcp_payload_len);
	if (!p->mpa_off)
		return;
	fo = fpdu_start(p, &fr, &is_frame);
	if (is_frame) {
		roce__sappend(buf, cap, n, " iWARP MPA %s", fr.kind == ROCE_MPA_REQ ? "Req" : fr.kind ? "Rep" : "frame");
		if (fr.len) {
			if (fr.kind == ROCE_MPA_REP && fr.reject)
				roce__sappend(buf, cap, n, " REJECT");
			roce__sappend(buf, cap, n, " M%u C%u rev %u pd %u", fr.markers, fr.crc, fr.rev, fr.pd_len);
			if (fr.has_rtr) {
				roce__sappend(buf, cap, n, " ird %u ord %u", fr.rtr.ird, fr.rtr.ord);
				if (fr.rtr.p2p)
					roce__sappend(buf, cap, n, " p2p rtr%s%s%s", fr.rtr.send ? " send" : "",
						      fr.rtr.write ? " write" : "", fr.rtr.read ? " read" : "");
			}
		}
	}
	if (fo && !(flags & ROCE_FIELDS_NO_FPDU)) {
		unsigned cnt = walk_fpdus(p, fo, 0, -2, ROCE_MPA_CRC_AUTO, summary_one, &s);

		if (cnt > 1)
			roce__sappend(buf, cap, n, " (+%u FPDU%s)", cnt - 1, cnt > 2 ? "s" : "");
	}
	if (p->invalid & (ROCE_LBIT(ROCE_L_MPA) | ROCE_LBIT(ROCE_L_DDP) | ROCE_LBIT(ROCE_L_RDMAP)))
		roce__sappend(buf, cap, n, " [invalid]");
}

/* ---- TCP frame builder ------------------------------------------------------------ */

int roce_build_tcp_frame(uint8_t *dst, size_t cap, const struct roce_eth_spec *eth,
			 const struct roce_ip_spec *ip, uint16_t sport, uint16_t dport,
			 uint32_t seq, uint32_t ack, uint8_t flags,
			 const uint8_t *payload, size_t len)
{
	int v6;
	size_t l2, iph, tcp_len, total;
	uint8_t *w, *l3, *t;
	uint8_t tclass;
	uint32_t ph;

	if (!dst || !eth || !ip || eth->n_vlan > 2 || (ip->version != 4 && ip->version != 6) ||
	    (len && !payload))
		return ROCE_EARG;
	v6 = ip->version == 6;
	l2 = 14 + 4u * eth->n_vlan;
	iph = v6 ? 40 : 20;
	tcp_len = 20 + len;
	if (tcp_len + (v6 ? 0 : iph) > 65535)
		return ROCE_EARG;
	total = l2 + iph + tcp_len;
	if (total < 60)
		total = 60;             /* Ethernet minimum, zero padded */
	if (cap < total)
		return ROCE_ENOSPC;

	memcpy(dst, eth->dst, 6);
	memcpy(dst + 6, eth->src, 6);
	w = dst + 12;
	for (unsigned i = 0; i < eth->n_vlan; i++) {
		const struct roce_vlan *v = &eth->vlan[i];
		uint16_t tpid = v->tpid ? v->tpid : eth->n_vlan == 2 && i == 0 ? ROCE_ETH_QINQ : ROCE_ETH_VLAN;

		wr16(w, tpid);
		wr16(w + 2, (uint16_t)(v->pcp << 13 | v->dei << 12 | (v->vid & 0xfff)));
		w += 4;
	}
	wr16(w, v6 ? ROCE_ETH_IPV6 : ROCE_ETH_IPV4);
	w += 2;
	l3 = w;
	tclass = (uint8_t)(ip->dscp << 2 | (ip->ecn & 3));
	if (v6) {
		wr32(w, 6u << 28 | (uint32_t)tclass << 20 | (ip->flow_label & 0xfffff));
		wr16(w + 4, (uint16_t)tcp_len);
		w[6] = 6;
		w[7] = ip->ttl ? ip->ttl : 64;
		memcpy(w + 8, ip->src, 16);
		memcpy(w + 24, ip->dst, 16);
	} else {
		w[0] = 0x45;
		w[1] = tclass;
		wr16(w + 2, (uint16_t)(20 + tcp_len));
		wr16(w + 4, ip->ip_id);
		wr16(w + 6, ip->dont_fragment ? 0x4000 : 0);
		w[8] = ip->ttl ? ip->ttl : 64;
		w[9] = 6;
		wr16(w + 10, 0);
		memcpy(w + 12, ip->src, 4);
		memcpy(w + 16, ip->dst, 4);
		wr16(w + 10, roce_inet_csum(w, 20, 0));
	}
	t = l3 + iph;
	wr16(t, sport);
	wr16(t + 2, dport);
	wr32(t + 4, seq);
	wr32(t + 8, ack);
	t[12] = 5 << 4;
	t[13] = flags;
	wr16(t + 14, 65535);
	wr16(t + 16, 0);
	wr16(t + 18, 0);
	if (len)
		memcpy(t + 20, payload, len);
	/* pseudo-header (RFC 9293 3.1, RFC 8200 8.1): addresses, protocol, length */
	ph = 6 + (uint32_t)tcp_len;
	ph += (uint16_t)~roce_inet_csum(v6 ? l3 + 8 : l3 + 12, v6 ? 32 : 8, 0);
	wr16(t + 16, roce_inet_csum(t, tcp_len, ph));
	memset(t + tcp_len, 0, total - (size_t)(t + tcp_len - dst));
	return (int)total;
}
