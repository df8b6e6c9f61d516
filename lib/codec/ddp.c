/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ddp.c — DDP segments (RFC 5041 5) and the RDMAP header inside them
 * (RFC 5040 4; atomics and immediate data RFC 7306).
 *
 * Tagged (T=1), 14 bytes:
 *  0               1               2                               
 *  |T|L| Rsvd  |DV | RV|R| Opcode  |   Data Sink STag (4)          ...
 *  ...           Data Sink Tagged Offset (8)                       |
 * Untagged (T=0), 18 bytes:
 *  |T|L| Rsvd  |DV | RV|R| Opcode  |  Reserved for ULP / Invalidate STag (4)
 *  |  Queue Number (4)  |  Message Sequence Number (4)  |  Message Offset (4)
 * Then, by opcode:
 *  Read Request (QN 1): sink STag 4, sink TO 8, read size 4, source STag 4, source TO 8
 *  Terminate (QN 2):    Layer(4) EType(4) | Error Code 8 | M D R + 13 reserved bits
 *                       [D: DDP segment length 2 + copied DDP header 14/18]
 *                       [R: copied RDMAP header 28]
 *  Atomic Request:      rsvd 28 bits + opcode 4 | request id 4 | remote STag 4 |
 *                       remote TO 8 | add/swap data 8 | add/swap mask 8 |
 *                       compare data 8 | compare mask 8
 *  Atomic Response:     original request id 4 | original remote data 8
 *  Immediate Data:      8 bytes
 */
#include "internal.h"

struct opdesc {
	const char *name;     /* Wireshark's text */
	const char *tag;      /* for summaries */
	uint8_t tagged;
	uint8_t qn;
	uint8_t extra;        /* RDMAP bytes after the DDP header */
};

static const struct opdesc ops[16] = {
	[ROCE_RDMAP_WRITE] = { "Write", "RDMA_WRITE", 1, 0, 0 },
	[ROCE_RDMAP_READ_REQ] = { "Read Request", "RDMA_READ_REQ", 0, ROCE_DDP_QN_READ_REQ, ROCE_RDMAP_READREQ_LEN },
	[ROCE_RDMAP_READ_RESP] = { "Read Response", "RDMA_READ_RESP", 1, 0, 0 },
	[ROCE_RDMAP_SEND] = { "Send", "SEND", 0, ROCE_DDP_QN_SEND, 0 },
	[ROCE_RDMAP_SEND_INV] = { "Send with Invalidate", "SEND_INV", 0, ROCE_DDP_QN_SEND, 0 },
	[ROCE_RDMAP_SEND_SE] = { "Send with SE", "SEND_SE", 0, ROCE_DDP_QN_SEND, 0 },
	[ROCE_RDMAP_SEND_SE_INV] = { "Send with SE and Invalidate", "SEND_SE_INV", 0, ROCE_DDP_QN_SEND, 0 },
	[ROCE_RDMAP_TERMINATE] = { "Terminate", "TERMINATE", 0, ROCE_DDP_QN_TERMINATE, ROCE_RDMAP_TERM_LEN },
	[ROCE_RDMAP_IMM] = { "Immediate Data", "IMM", 0, ROCE_DDP_QN_SEND, ROCE_RDMAP_IMM_LEN },
	[ROCE_RDMAP_IMM_SE] = { "Immediate Data with SE", "IMM_SE", 0, ROCE_DDP_QN_SEND, ROCE_RDMAP_IMM_LEN },
	[ROCE_RDMAP_ATOMIC_REQ] = { "Atomic Request", "ATOMIC_REQ", 0, ROCE_DDP_QN_ATOMIC, ROCE_RDMAP_ATOMIC_REQ_LEN },
	[ROCE_RDMAP_ATOMIC_RESP] = { "Atomic Response", "ATOMIC_RESP", 0, ROCE_DDP_QN_ATOMIC, ROCE_RDMAP_ATOMIC_RESP_LEN },
};

const char *roce_rdmap_op_name(uint8_t opcode)
{
	return opcode < 16 ? ops[opcode].name : NULL;
}

const char *roce_rdmap_op_tag(uint8_t opcode)
{
	static const char *const unk[16] = {
		"OP_0x0", "OP_0x1", "OP_0x2", "OP_0x3", "OP_0x4", "OP_0x5", "OP_0x6", "OP_0x7",
		"OP_0x8", "OP_0x9", "OP_0xa", "OP_0xb", "OP_0xc", "OP_0xd", "OP_0xe", "OP_0xf",
	};
	opcode &= 15;
	return ops[opcode].tag ? ops[opcode].tag : unk[opcode];
}

int roce_rdmap_op_tagged(uint8_t opcode)
{
	return opcode < 16 && ops[opcode].name && ops[opcode].tagged;
}

unsigned roce_rdmap_hdr_len(uint8_t opcode)
{
	if (opcode >= 16 || !ops[opcode].name)
		return 0;
	return (ops[opcode].tagged ? ROCE_DDP_TAGGED_LEN : ROCE_DDP_UNTAGGED_LEN) + ops[opcode].extra;
}

/* ---- terminate names (RFC 5040 4.8, RFC 5044 8, RFC 6581 9) -------------- */

const char *roce_term_layer_name(uint8_t layer)
{
	switch (layer) {
	case ROCE_TERM_RDMAP: return "RDMA";
	case ROCE_TERM_DDP: return "DDP";
	case ROCE_TERM_LLP: return "LLP";
	}
	return NULL;
}

const char *roce_term_etype_name(uint8_t layer, uint8_t etype)
{
	if (layer == ROCE_TERM_RDMAP) {
		switch (etype) {
		case 0: return "Local Catastrophic Error";
		case 1: return "Remote Protection Error";
		case 2: return "Remote Operation Error";
		}
	} else if (layer == ROCE_TERM_DDP) {
		switch (etype) {
		case 0: return "Local Catastrophic Error";
		case 1: return "Tagged Buffer Error";
		case 2: return "Untagged Buffer Error";
		case 3: return "Reserved for use by the LLP";
		}
	} else if (layer == ROCE_TERM_LLP) {
		if (etype == 0)
			return "MPA Error";
	}
	return NULL;
}

const char *roce_term_code_name(uint8_t layer, uint8_t etype, uint8_t code)
{
	if (layer == ROCE_TERM_RDMAP) {
		switch (code) {
		case 0x00: return "Invalid STag";
		case 0x01: return "Base or bounds violation";
		case 0x02: return "Access rights violation";
		case 0x03: return "STag not associated with RDMAP Stream";
		case 0x04: return "TO wrap";
		case 0x05: return "Invalid RDMAP version";
		case 0x06: return "Unexpected OpCode";
		case 0x07: return "Catastrophic error, localized to RDMAP Stream";
		case 0x08: return "Catastrophic error, global";
		case 0x09: return "STag cannot be Invalidated";
		case 0xff: return "Unspecified Error";
		}
	} else if (layer == ROCE_TERM_DDP && etype == 1) {
		switch (code) {
		case 0x00: return "Invalid STag";
		case 0x01: return "Base or bounds violation";
		case 0x02: return "STag not associated with DDP Stream";
		case 0x03: return "TO wrap";
		case 0x04: return "Invalid DDP version";
		}
	} else if (layer == ROCE_TERM_DDP && etype == 2) {
		switch (code) {
		case 0x01: return "Invalid QN";
		case 0x02: return "Invalid MSN - no buffer available";
		case 0x03: return "Invalid MSN - MSN range is not valid";
		case 0x04: return "Invalid MO";
		case 0x05: return "DDP Message too long for available buffer";
		case 0x06: return "Invalid DDP version";
		}
	} else if (layer == ROCE_TERM_DDP && etype == 0) {
		if (code == 0)
			return "Local Catastrophic Error";
	} else if (layer == ROCE_TERM_LLP && etype == 0) {
		switch (code) {
		case 0x01: return "TCP connection closed, terminated or lost";
		case 0x02: return "MPA CRC Error";
		case 0x03: return "MPA Marker and ULPDU Length field mismatch";
		case 0x04: return "Invalid MPA Request Frame or MPA Response Frame";
		case 0x05: return "Local Catastrophic Error";
		case 0x06: return "Insufficient IRD Resources";
		case 0x07: return "No Matching RTR Option";
		}
	}
	return NULL;
}

/* ---- parse ---------------------------------------------------------------- */

/* ROCE_OK when need bytes of the ULPDU are there; INVALID when the ULPDU is
 * shorter, TRUNCATED when only the capture is. */
static int room(size_t ulpdu_len, size_t have, size_t need)
{
	if (ulpdu_len < need)
		return ROCE_EINVAL;
	if (have < need)
		return ROCE_ETRUNC;
	return ROCE_OK;
}

/* The DDP header, tagged or untagged by its T bit: its length, or an error. */
static int ddp_parse(const uint8_t *b, size_t have, size_t ulpdu_len, struct roce_iwarp_msg *m)
{
	unsigned need;
	int rc;

	if (ulpdu_len < 2)
		return ROCE_EINVAL;
	if (have < 2)
		return ROCE_ETRUNC;
	m->ddp_ctl = b[0];
	m->rdmap_ctl = b[1];
	m->tagged = !!(b[0] & ROCE_DDP_T);
	m->last = !!(b[0] & ROCE_DDP_L);
	m->ddp_rsvd = (b[0] & ROCE_DDP_RSVD) >> 2;
	m->dv = b[0] & ROCE_DDP_DV_MASK;
	m->rv = b[1] >> 6;
	m->rdmap_rsvd = (b[1] & ROCE_RDMAP_RSVD) >> 4;
	m->opcode = b[1] & ROCE_RDMAP_OP_MASK;
	need = m->tagged ? ROCE_DDP_TAGGED_LEN : ROCE_DDP_UNTAGGED_LEN;
	rc = room(ulpdu_len, have, need);
	if (rc)
		return rc;
	if (m->tagged) {
		m->stag = rd32(b + 2);
		m->to = rd64(b + 6);
	} else {
		m->rsvd_ulp = rd32(b + 2);
		m->qn = rd32(b + 6);
		m->msn = rd32(b + 10);
		m->mo = rd32(b + 14);
	}
	m->hdr_len = need;
	m->payload_len = (uint32_t)(ulpdu_len - need);
	m->payload = b + need;
	return (int)need;
}

/* A Terminate's header at h (headers end at need so far): the layer, type
 * and code, then the DDP segment and RDMA READ request it may quote.  The
 * headers' new end, or an error. */
static int term_parse(const uint8_t *b, const uint8_t *h, size_t have, size_t ulpdu_len, unsigned need,
		      struct roce_iwarp_msg *m)
{
	int rc;

	m->term_layer = h[0] >> 4;
	m->term_etype = h[0] & 15;
	m->term_code = h[1];
	m->term_hdrct = h[2] & 0xe0;
	m->term_rsvd = rd16(h + 2) & 0x1fff;
	if (m->term_hdrct & ROCE_TERM_HDRCT_D) {
		/* segment length, then the DDP header, sized by its own T bit */
		rc = room(ulpdu_len, have, need + 3);
		if (rc)
			return rc;
		m->term_seglen = rd16(h + 4);
		m->term_ddp_len = (h[6] & ROCE_DDP_T) ? ROCE_DDP_TAGGED_LEN : ROCE_DDP_UNTAGGED_LEN;
		need += 2 + m->term_ddp_len;
		rc = room(ulpdu_len, have, need);
		if (rc)
			return rc;
		m->term_ddp = h + 6;
	}
	if (m->term_hdrct & ROCE_TERM_HDRCT_R) {
		const uint8_t *r = b + need;

		need += ROCE_RDMAP_READREQ_LEN;
		rc = room(ulpdu_len, have, need);
		if (rc)
			return rc;
		m->term_rdma = r;
	}
	return (int)need;
}

/* The RDMAP header of m's opcode at h (all captured). */
static void rdmap_fields(const uint8_t *h, struct roce_iwarp_msg *m)
{
	switch (m->opcode) {
	case ROCE_RDMAP_READ_REQ:
		m->sink_stag = rd32(h);
		m->sink_to = rd64(h + 4);
		m->read_size = rd32(h + 12);
		m->src_stag = rd32(h + 16);
		m->src_to = rd64(h + 20);
		break;
	case ROCE_RDMAP_ATOMIC_REQ:
		m->atomic_rsvd = rd32(h) >> 4;
		m->atomic_op = h[3] & 15;
		m->req_id = rd32(h + 4);
		m->remote_stag = rd32(h + 8);
		m->remote_to = rd64(h + 12);
		m->add_swap = rd64(h + 20);
		m->add_swap_mask = rd64(h + 28);
		m->compare = rd64(h + 36);
		m->compare_mask = rd64(h + 44);
		break;
	case ROCE_RDMAP_ATOMIC_RESP:
		m->orig_req_id = rd32(h);
		m->orig_value = rd64(h + 4);
		break;
	case ROCE_RDMAP_IMM:
	case ROCE_RDMAP_IMM_SE:
		m->imm = rd64(h);
		break;
	default:
		break;
	}
}

int roce_iwarp_msg_parse(const uint8_t *b, size_t avail, size_t ulpdu_len, struct roce_iwarp_msg *m)
{
	const struct opdesc *d;
	size_t have = avail < ulpdu_len ? avail : ulpdu_len;
	const uint8_t *h;
	int need, rc;

	memset(m, 0, sizeof(*m));
	need = ddp_parse(b, have, ulpdu_len, m);
	if (need < 0)
		return need;
	if (m->dv != 1 || m->rv != 1)
		return ROCE_EINVAL;
	d = &ops[m->opcode];
	if (!d->name || d->tagged != m->tagged)
		return ROCE_EINVAL;

	/* the RDMAP header after it */
	h = b + need;
	need += (int)d->extra;
	rc = room(ulpdu_len, have, (size_t)need);
	if (rc)
		return rc;
	if (m->opcode == ROCE_RDMAP_TERMINATE) {
		need = term_parse(b, h, have, ulpdu_len, (unsigned)need, m);
		if (need < 0)
			return need;
	} else {
		rdmap_fields(h, m);
	}
	m->hdr_len = (uint32_t)need;
	m->payload_len = (uint32_t)(ulpdu_len - (size_t)need);
	m->payload = b + need;
	return ROCE_OK;
}

/* ---- build ------------------------------------------------------------------ */

/* The DDP + RDMAP header length of s (a Terminate's with what it quotes);
 * ROCE_EARG when a Terminate quotes what it was not given. */
static int ulpdu_hdr_len(const struct roce_iwarp_msg_spec *s)
{
	int hdr = (int)roce_rdmap_hdr_len(s->opcode);

	if (s->opcode != ROCE_RDMAP_TERMINATE)
		return hdr;
	if (s->term_hdrct & ROCE_TERM_HDRCT_D) {
		if (!s->term_ddp)
			return ROCE_EARG;
		hdr += 2 + ((s->term_ddp[0] & ROCE_DDP_T) ? ROCE_DDP_TAGGED_LEN : ROCE_DDP_UNTAGGED_LEN);
	}
	if (s->term_hdrct & ROCE_TERM_HDRCT_R) {
		if (!s->term_rdma)
			return ROCE_EARG;
		hdr += ROCE_RDMAP_READREQ_LEN;
	}
	return hdr;
}

/* A Terminate's header at h and what it quotes; returns the end. */
static uint8_t *term_write(uint8_t *h, const struct roce_iwarp_msg_spec *s)
{
	h[0] = (uint8_t)(s->term_layer << 4 | (s->term_etype & 15));
	h[1] = s->term_code;
	h[2] = s->term_hdrct & 0xe0;
	h[3] = 0;
	h += 4;
	if (s->term_hdrct & ROCE_TERM_HDRCT_D) {
		unsigned n = (s->term_ddp[0] & ROCE_DDP_T) ? ROCE_DDP_TAGGED_LEN : ROCE_DDP_UNTAGGED_LEN;

		wr16(h, s->term_seglen);
		memcpy(h + 2, s->term_ddp, n);
		h += 2 + n;
	}
	if (s->term_hdrct & ROCE_TERM_HDRCT_R) {
		memcpy(h, s->term_rdma, ROCE_RDMAP_READREQ_LEN);
		h += ROCE_RDMAP_READREQ_LEN;
	}
	return h;
}

/* The RDMAP header of s's opcode at h; returns the end. */
static uint8_t *rdmap_write(uint8_t *h, const struct roce_iwarp_msg_spec *s)
{
	switch (s->opcode) {
	case ROCE_RDMAP_READ_REQ:
		wr32(h, s->sink_stag);
		wr64(h + 4, s->sink_to);
		wr32(h + 12, s->read_size);
		wr32(h + 16, s->src_stag);
		wr64(h + 20, s->src_to);
		return h + ROCE_RDMAP_READREQ_LEN;
	case ROCE_RDMAP_TERMINATE:
		return term_write(h, s);
	case ROCE_RDMAP_ATOMIC_REQ:
		wr32(h, s->atomic_op & 15u);
		wr32(h + 4, s->req_id);
		wr32(h + 8, s->remote_stag);
		wr64(h + 12, s->remote_to);
		wr64(h + 20, s->add_swap);
		wr64(h + 28, s->add_swap_mask);
		wr64(h + 36, s->compare);
		wr64(h + 44, s->compare_mask);
		return h + ROCE_RDMAP_ATOMIC_REQ_LEN;
	case ROCE_RDMAP_ATOMIC_RESP:
		wr32(h, s->orig_req_id);
		wr64(h + 4, s->orig_value);
		return h + ROCE_RDMAP_ATOMIC_RESP_LEN;
	case ROCE_RDMAP_IMM:
	case ROCE_RDMAP_IMM_SE:
		wr64(h, s->imm);
		return h + ROCE_RDMAP_IMM_LEN;
	default:
		return h;
	}
}

int roce_iwarp_build_ulpdu(uint8_t *dst, size_t cap, const struct roce_iwarp_msg_spec *s)
{
	const struct opdesc *d;
	uint32_t total;
	uint8_t *h;
	int hdr;

	if (!dst || !s || s->opcode >= 16 || !ops[s->opcode].name)
		return ROCE_EARG;
	d = &ops[s->opcode];
	hdr = ulpdu_hdr_len(s);
	if (hdr < 0)
		return hdr;
	total = (uint32_t)hdr + s->payload_len;
	if (total > ROCE_MPA_ULPDU_MAX || (s->payload_len && !s->payload))
		return ROCE_EARG;
	if (cap < total)
		return ROCE_ENOSPC;

	dst[0] = (uint8_t)((d->tagged ? ROCE_DDP_T : 0) | (s->last ? ROCE_DDP_L : 0) | 1);
	dst[1] = (uint8_t)(0x40 | s->opcode);
	if (d->tagged) {
		wr32(dst + 2, s->stag);
		wr64(dst + 6, s->to);
		h = dst + ROCE_DDP_TAGGED_LEN;
	} else {
		wr32(dst + 2, s->inv_stag);
		wr32(dst + 6, s->qn == ~0u ? d->qn : s->qn);
		wr32(dst + 10, s->msn);
		wr32(dst + 14, s->mo);
		h = dst + ROCE_DDP_UNTAGGED_LEN;
	}
	h = rdmap_write(h, s);
	if (s->payload_len)
		memcpy(h, s->payload, s->payload_len);
	return (int)total;
}
