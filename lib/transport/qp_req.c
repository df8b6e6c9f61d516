/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qp_req.c — the RC requester (IBTA vol. 1 9.7): work requests out as
 * request packets, ACKs, NAKs, READ responses and atomic ACKs in,
 * go-back-N on a NAK, an implied NAK or a timeout.
 *
 * PSN bookkeeping (24-bit, compared with roce_psn_before):
 *
 *        una            snd_psn            snd_max         next_psn
 *   ──────┼────────────────┼──────────────────┼───────────────┼──────▶
 *   acked │ sent, unacked; │ (go-back-N: sent │ assigned to a │ free
 *         │ being resent   │  before, not yet │ started WR,   │
 *         │                │  resent)         │ not yet sent  │
 *
 * A WR gets its PSNs when its first packet goes out (a READ takes one PSN
 * per response packet, IBTA 9.7.4.1.3); WRs [sq_head, sq_next) are started,
 * [sq_next, sq_tail) queued.  Completions leave from sq_head in order.
 */
#include "qp_int.h"

#define PSN_WINDOW (1u << 22)     /* requester: PSNs outstanding at most */

static int is_rdat(uint8_t op)
{
	return op == ROCE_WR_READ || op == ROCE_WR_CMP_SWAP || op == ROCE_WR_FETCH_ADD;
}

static void send_request(struct roce_qp *qp, struct sq_wqe *w, uint32_t k)
{
	struct roce_frame_spec s = qp->base;
	uint32_t mtu = qp->a.mtu, off = k * mtu, plen = 0;
	enum roce_seg seg = seg_of(k, w->npkts);
	int last = seg == ROCE_SEG_ONLY || seg == ROCE_SEG_LAST;
	int imm = w->op == ROCE_WR_SEND_IMM || w->op == ROCE_WR_WRITE_IMM;
	static const uint8_t send_op[] = {
		[ROCE_SEG_ONLY] = ROCE_OP_SEND_ONLY, [ROCE_SEG_FIRST] = ROCE_OP_SEND_FIRST,
		[ROCE_SEG_MIDDLE] = ROCE_OP_SEND_MIDDLE, [ROCE_SEG_LAST] = ROCE_OP_SEND_LAST,
	};
	static const uint8_t write_op[] = {
		[ROCE_SEG_ONLY] = ROCE_OP_WRITE_ONLY, [ROCE_SEG_FIRST] = ROCE_OP_WRITE_FIRST,
		[ROCE_SEG_MIDDLE] = ROCE_OP_WRITE_MIDDLE, [ROCE_SEG_LAST] = ROCE_OP_WRITE_LAST,
	};

	s.bth.psn = PSN(w->first_psn + k);
	switch (w->op) {
	case ROCE_WR_SEND:
	case ROCE_WR_SEND_IMM:
	case ROCE_WR_WRITE:
	case ROCE_WR_WRITE_IMM:
		plen = w->len - off < mtu ? w->len - off : mtu;
		if (w->op <= ROCE_WR_SEND_IMM)
			s.bth.opcode = send_op[seg];
		else
			s.bth.opcode = write_op[seg];
		if (imm && last) {
			s.bth.opcode++;    /* *_LAST_IMM / *_ONLY_IMM follow LAST / ONLY */
			s.ext.imm = w->imm;
		}
		if (w->op >= ROCE_WR_WRITE && (seg == ROCE_SEG_FIRST || seg == ROCE_SEG_ONLY)) {
			s.ext.va = w->rva;
			s.ext.rkey = w->rkey;
			s.ext.dmalen = w->len;
		}
		s.payload = w->buf ? w->buf + off : NULL;
		s.payload_len = plen;
		s.bth.ackreq = (uint8_t)last;
		s.bth.se = (uint8_t)(last && w->solicited && w->op <= ROCE_WR_SEND_IMM);
		break;
	case ROCE_WR_READ:
		/* a READ from the gap (k > 0) asks for the rest (IBTA 9.7.5.1.5) */
		s.bth.opcode = ROCE_OP_READ_REQUEST;
		s.ext.va = w->rva + off;
		s.ext.rkey = w->rkey;
		s.ext.dmalen = w->len ? w->len - off : 0;
		break;
	default:
		s.bth.opcode = w->op == ROCE_WR_CMP_SWAP ? ROCE_OP_CMP_SWAP : ROCE_OP_FETCH_ADD;
		s.ext.va = w->rva;
		s.ext.rkey = w->rkey;
		s.ext.swap_add = w->swap_add;
		s.ext.compare = w->compare;
		s.bth.ackreq = 1;
		break;
	}
	if (qp->a.ackreq_every && ++qp->since_ackreq >= qp->a.ackreq_every)
		s.bth.ackreq = 1;
	if (s.bth.ackreq)
		qp->since_ackreq = 0;
	roce__qp_tx_emit(qp, &s);
}

/* Index of the started WR holding psn, or sq_next. */
static uint32_t wr_at(const struct roce_qp *qp, uint32_t psn)
{
	for (uint32_t i = qp->sq_head; i != qp->sq_next; i++) {
		const struct sq_wqe *w = SQ(qp, i);

		if (roce_psn_diff(psn, w->first_psn) >= 0 &&
		    roce_psn_diff(psn, w->first_psn) < (int32_t)w->npkts)
			return i;
	}
	return qp->sq_next;
}

void roce__qp_pump(struct roce_qp *qp)
{
	uint32_t budget = qp->a.tx_burst ? qp->a.tx_burst : UINT32_MAX;

	qp->pump_more = 0;
	if (qp->state != ROCE_QPS_RTS || qp->rnr_deadline)
		return;
	for (;;) {
		struct sq_wqe *w;
		uint32_t psn, k, end;

		if (qp->snd_psn == qp->next_psn) {
			if (qp->sq_next == qp->sq_tail)
				break;
			w = SQ(qp, qp->sq_next);
			if (is_rdat(w->op) && qp->rd_out >= qp->a.max_rd_atomic)
				break;
			if (PSN(qp->next_psn - qp->una) + w->npkts > PSN_WINDOW)
				break;
			if (!budget) {
				qp->pump_more = 1;
				break;
			}
			w->first_psn = qp->next_psn;
			qp->next_psn = PSN(qp->next_psn + w->npkts);
			qp->snd_idx = qp->sq_next++;
			if (is_rdat(w->op))
				qp->rd_out++;
		}
		if (!budget) {
			qp->pump_more = 1;
			break;
		}
		w = SQ(qp, qp->snd_idx);
		psn = qp->snd_psn;
		k = PSN(psn - w->first_psn);
		end = PSN(w->first_psn + w->npkts);
		send_request(qp, w, k);
		budget--;
		if (roce_psn_before(psn, qp->snd_max))
			qp->st.retx_pkts[qp->retx_trig]++;
		else
			qp->st.req_pkts++;
		qp->snd_psn = w->op == ROCE_WR_READ ? end : PSN(psn + 1);
		if (qp->snd_psn == end)
			qp->snd_idx++;
		if (roce_psn_before(qp->snd_max, qp->snd_psn))
			qp->snd_max = qp->snd_psn;
		if (!qp->rto_deadline && qp->rto_ns)
			qp->rto_deadline = qp->now + qp->rto_ns;
	}
}

void roce__qp_go_back(struct roce_qp *qp, uint32_t psn, enum roce_qp_retx why)
{
	qp->snd_psn = psn;
	qp->snd_idx = wr_at(qp, psn);
	qp->retx_trig = (uint8_t)why;
	qp->st.retx_episodes[why]++;
	qp->rto_deadline = qp->rto_ns ? qp->now + qp->rto_ns : 0;
	roce__qp_event(qp, ROCE_QPE_RETRANSMIT, psn, why);
}

/* The responder has everything before una: forward progress (C9-140: reset
 * the retry counters and restart the timer). */
static void set_una(struct roce_qp *qp, uint32_t una)
{
	if (!roce_psn_before(qp->una, una))
		return;
	qp->una = una;
	qp->retry_left = qp->a.retry_cnt;
	qp->rnr_left = qp->a.rnr_retry;
	qp->gb_valid = 0;
	if (roce_psn_before(qp->snd_psn, una)) {
		qp->snd_psn = una;
		qp->snd_idx = wr_at(qp, una);
	}
	/* An RNR wait whose PSN the responder has taken since (a later RNR NAK
	 * or an ACK covers it): the retry starts at what is not acknowledged.
	 * Going back to an acknowledged PSN would find no WR holding it. */
	if (qp->rnr_deadline && roce_psn_before(qp->rnr_psn, una))
		qp->rnr_psn = una;
	if (qp->una == qp->snd_max)
		qp->rto_deadline = 0;
	else if (qp->rto_ns)
		qp->rto_deadline = qp->now + qp->rto_ns;
}

/* Everything before upto is acknowledged: completes the WRs it covers.
 * Returns 1 when a READ/atomic before upto is still missing responses (an
 * implied NAK, IBTA 9.7.5.1.5): una stops where they stopped. */
static int req_advance(struct roce_qp *qp, uint32_t upto)
{
	if (!roce_psn_before(qp->una, upto))
		return 0;
	while (qp->sq_head != qp->sq_next) {
		struct sq_wqe *w = SQ(qp, qp->sq_head);
		uint32_t end = PSN(w->first_psn + w->npkts);

		if (is_rdat(w->op)) {
			uint32_t exp = PSN(w->first_psn + w->rcvd);

			if (roce_psn_before(exp, upto)) {
				set_una(qp, exp);
				return 1;
			}
			break;
		}
		if (roce_psn_before(upto, end))
			break;
		set_una(qp, end);
		roce__qp_complete_sq(qp, w, ROCE_WC_SUCCESS);
		qp->sq_head++;
	}
	set_una(qp, upto);
	return 0;
}

/* A go-back for a NAK or implied NAK at psn; a second one for the same PSN
 * without progress in between is the same episode (a copy, or a stale one). */
static void nak_go_back(struct roce_qp *qp, uint32_t psn, enum roce_qp_retx why)
{
	if (qp->gb_valid && qp->gb_psn == psn)
		return;
	if (why == ROCE_RETX_IMPLIED)
		qp->st.implied_naks++;
	if (!roce__qp_retry_spend(qp))
		return;
	qp->gb_valid = 1;
	qp->gb_psn = psn;
	roce__qp_go_back(qp, psn, why);
}

/* Counts a response once by its type (dup_rsp_rx and ghost_rsp_rx say how
 * many of them were of no use); 0 for one of no known type. */
static int req_count(struct roce_qp *qp, const struct roce_pkt *p, const struct roce_opinfo *oi,
		     uint8_t syn)
{
	if (p->opcode == ROCE_OP_ACK) {
		switch (ROCE_AETH_TYPE(syn)) {
		case ROCE_AETH_ACK: qp->st.ack_rx++; break;
		case ROCE_AETH_RNR_NAK: qp->st.rnr_nak_rx++; break;
		case ROCE_AETH_NAK: qp->st.nak_rx[ROCE_AETH_VALUE(syn) & 7]++; break;
		default: qp->st.ghost_rsp_rx++; return 0;
		}
		if (ROCE_AETH_TYPE(syn) != ROCE_AETH_ACK)
			roce__qp_event(qp, ROCE_QPE_NAK_RX, p->psn, syn);
	} else if (oi->kind == ROCE_OK_READ_RESP) {
		qp->st.read_rsp_rx++;
	} else if (oi->kind == ROCE_OK_ATOMIC_ACK) {
		qp->st.atomic_ack_rx++;
	} else {
		qp->st.ghost_rsp_rx++;
		return 0;
	}
	return 1;
}

/* req_advance() to upto; on an implied NAK goes back to una and returns 1. */
static int req_acked(struct roce_qp *qp, uint32_t upto)
{
	if (!req_advance(qp, upto))
		return 0;
	nak_go_back(qp, qp->una, ROCE_RETX_IMPLIED);
	return 1;
}

/* An RNR NAK at q: everything before q is acknowledged; resend from q once
 * the timer (the NAK's value) runs out. */
static void req_rnr_nak(struct roce_qp *qp, uint32_t q, uint8_t timer)
{
	if (req_acked(qp, q))
		return;
	if (qp->rnr_deadline)
		return;            /* a copy of the one we wait for */
	if (!qp->rnr_left) {
		roce__qp_error(qp, ROCE_WC_RNR_RETRY_EXC_ERR, ROCE_WC_WR_FLUSH_ERR);
		return;
	}
	if (qp->a.rnr_retry != 7)
		qp->rnr_left--;
	qp->rnr_psn = q;
	qp->rnr_deadline = qp->now + (uint64_t)roce_rnr_timer_us(timer) * 1000;
	qp->rto_deadline = 0;
	qp->snd_psn = q;
	qp->snd_idx = wr_at(qp, q);
	roce__qp_event(qp, ROCE_QPE_RNR_WAIT, q, roce_rnr_timer_us(timer));
}

/* A NAK at q: a sequence error goes back to q, the others are fatal. */
static void req_nak(struct roce_qp *qp, uint32_t q, uint8_t code)
{
	enum roce_wc_status st;

	if (req_acked(qp, q))
		return;
	if (code == ROCE_NAK_PSN_SEQ_ERR) {
		if (qp->rnr_deadline)
			return;    /* the rest of what the RNR NAK refused */
		nak_go_back(qp, q, ROCE_RETX_NAK);
		return;
	}
	st = code == ROCE_NAK_INVALID_REQ ? ROCE_WC_REM_INV_REQ_ERR :
	     code == ROCE_NAK_REMOTE_ACCESS ? ROCE_WC_REM_ACCESS_ERR :
	     code == ROCE_NAK_REMOTE_OP ? ROCE_WC_REM_OP_ERR : ROCE_WC_BAD_RESP_ERR;
	roce__qp_error(qp, st, ROCE_WC_WR_FLUSH_ERR);
}

/* A READ response packet for w, the oldest started WR. */
static void req_read_resp(struct roce_qp *qp, const struct roce_pkt *p, const struct roce_opinfo *oi,
			  struct sq_wqe *w)
{
	uint32_t q = p->psn, k = w->rcvd, off = k * qp->a.mtu;
	uint32_t plen = w->len - off < qp->a.mtu ? w->len - off : qp->a.mtu;
	int last = oi->seg == ROCE_SEG_LAST || oi->seg == ROCE_SEG_ONLY;

	/* the answer to a READ re-issued from a gap starts again with
	 * FIRST/ONLY, so only "last or not" is checked against the
	 * position in the message */
	if (w->op != ROCE_WR_READ || PSN(w->first_psn + k) != q ||
	    last != (k == w->npkts - 1) || p->payload_len != plen) {
		qp->st.ghost_rsp_rx++;
		return;
	}
	if (plen)
		memcpy(w->buf + off, p->data + p->payload_off, plen);
	w->rcvd++;
	set_una(qp, PSN(q + 1));
	if (w->rcvd == w->npkts) {
		roce__qp_complete_sq(qp, w, ROCE_WC_SUCCESS);
		qp->sq_head++;
		qp->rd_out--;
	}
}

/* An atomic ACK for w, the oldest started WR. */
static void req_atomic_ack(struct roce_qp *qp, const struct roce_pkt *p, struct sq_wqe *w)
{
	uint32_t q = p->psn;
	uint64_t orig;

	if ((w->op != ROCE_WR_CMP_SWAP && w->op != ROCE_WR_FETCH_ADD) || w->first_psn != q ||
	    !p->atomicacketh_off) {
		qp->st.ghost_rsp_rx++;
		return;
	}
	orig = roce_atomicacketh_orig(p);
	memcpy(w->buf, &orig, 8);
	w->rcvd = 1;
	set_una(qp, PSN(q + 1));
	roce__qp_complete_sq(qp, w, ROCE_WC_SUCCESS);
	qp->sq_head++;
	qp->rd_out--;
}

void roce__qp_req_response(struct roce_qp *qp, const struct roce_pkt *p,
			   const struct roce_opinfo *oi)
{
	uint32_t q = p->psn;
	uint8_t syn = 0;

	if (oi->hdrs & ROCE_H_AETH && !p->aeth_off) {
		qp->st.ghost_rsp_rx++;
		return;
	}
	if (p->aeth_off)
		syn = roce_aeth_syndrome(p);
	if (!req_count(qp, p, oi, syn))
		return;
	if (!roce_psn_before(q, qp->snd_max)) {
		qp->st.ghost_rsp_rx++;
		return;
	}
	if (roce_psn_before(q, qp->una)) {
		qp->st.dup_rsp_rx++;
		return;
	}
	if (p->opcode == ROCE_OP_ACK) {
		switch (ROCE_AETH_TYPE(syn)) {
		case ROCE_AETH_ACK:
			req_acked(qp, PSN(q + 1));
			return;
		case ROCE_AETH_RNR_NAK:
			req_rnr_nak(qp, q, ROCE_AETH_VALUE(syn));
			return;
		default:
			req_nak(qp, q, ROCE_AETH_VALUE(syn));
			return;
		}
	}
	if (req_acked(qp, q))
		return;
	if (qp->sq_head == qp->sq_next) {
		qp->st.ghost_rsp_rx++;
		return;
	}
	if (oi->kind == ROCE_OK_READ_RESP)
		req_read_resp(qp, p, oi, SQ(qp, qp->sq_head));
	else
		req_atomic_ack(qp, p, SQ(qp, qp->sq_head));
}

/* A work request onto the send queue: 1 when queued (the caller, qp.c's
 * roce_qp_post_send, runs the timers and the pump), ROCE_OK when flushed at
 * once (the QP not in RTS), < 0 when refused. */
int roce__qp_sq_post(struct roce_qp *qp, const struct roce_wr *wr, uint64_t now)
{
	struct sq_wqe *w;
	uint32_t n;

	if (!wr || (unsigned)wr->op >= ROCE_WR_RECV || (wr->len && !wr->buf) || wr->len > 0x80000000u)
		return ROCE_EARG;
	if ((wr->op == ROCE_WR_CMP_SWAP || wr->op == ROCE_WR_FETCH_ADD) && (wr->len != 8 || !wr->buf))
		return ROCE_EARG;
	if (qp->sq_tail - qp->sq_head >= qp->a.sq_depth)
		return ROCE_ENOSPC;
	qp->now = now;
	n = is_rdat(wr->op) && wr->op != ROCE_WR_READ ? 1 : npkts_of(qp, wr->len);
	w = SQ(qp, qp->sq_tail);
	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->op = (uint8_t)wr->op;
	w->buf = wr->buf;
	w->len = wr->len;
	w->rva = wr->remote_va;
	w->rkey = wr->rkey;
	w->imm = wr->imm;
	w->compare = wr->compare;
	w->swap_add = wr->swap_add;
	w->solicited = wr->solicited;
	w->npkts = n;
	w->t_post = now;
	if (qp->state != ROCE_QPS_RTS) {
		roce__qp_complete_sq(qp, w, ROCE_WC_WR_FLUSH_ERR);
		return ROCE_OK;
	}
	qp->sq_tail++;
	return 1;
}
