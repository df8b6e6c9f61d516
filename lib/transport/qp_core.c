/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qp_core.c — what the requester (qp_req.c), the responder (qp_rsp.c) and
 * the QP's face (qp.c) all use: events, the transmit path with its faults,
 * completions, the error state and the retry budget.  It calls none of them.
 *
 * Faults are applied in roce__qp_tx_emit(), the one place every frame
 * leaves by.
 */
#include <stdlib.h>
#include "qp_int.h"

/* ---- small helpers -------------------------------------------------------------- */

void roce__qp_event(struct roce_qp *qp, enum roce_qp_ev_type t, uint32_t psn, uint64_t value)
{
	struct roce_qp_event ev;

	if (!qp->ops.event)
		return;
	ev.type = t;
	ev.now = qp->now;
	ev.psn = psn;
	ev.value = value;
	qp->ops.event(qp->ops.ctx, &ev);
}

static uint64_t rng_next(struct roce_qp *qp)
{
	uint64_t x = qp->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	qp->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* ---- transmit and faults ------------------------------------------------------ */

static void out(struct roce_qp *qp, const uint8_t *frame, uint32_t len)
{
	qp->st.tx_pkts++;
	qp->st.tx_bytes += len;
	if (qp->ops.emit(qp->ops.ctx, frame, len) < 0)
		qp->st.tx_errors++;
}

/* Releases held frames: due ones (now given), or the reordered ones after a
 * frame went out (now = UINT64_MAX with reorder set); oldest first. */
void roce__qp_hold_release(struct roce_qp *qp, uint64_t now, int reorder)
{
	for (;;) {
		struct hold *best = NULL;

		for (uint32_t i = 0; i < qp->a.fault_slots; i++) {
			struct hold *h = &qp->holds[i];

			if (h->kind == HOLD_FREE)
				continue;
			if (!(h->due <= now || (reorder && h->kind == HOLD_REORDER)))
				continue;
			if (!best || h->due < best->due || (h->due == best->due && h->seq < best->seq))
				best = h;
		}
		if (!best)
			return;
		best->kind = HOLD_FREE;
		out(qp, best->frame, best->len);
	}
}

static struct hold *hold_slot(struct roce_qp *qp)
{
	for (uint32_t i = 0; i < qp->a.fault_slots; i++)
		if (qp->holds[i].kind == HOLD_FREE)
			return &qp->holds[i];
	return NULL;
}

static int rule_matches(const struct roce_qpf_rule *r, const struct roce_frame_spec *s)
{
	const struct roce_opinfo *oi = roce_opcode_info(s->bth.opcode);
	uint8_t op = s->bth.opcode;
	int ack = op == ROCE_OP_ACK;

	if (!oi || r->kind >= ROCE_QPF__COUNT || r->kind == ROCE_QPF_RNR)
		return 0;
	switch (r->match) {
	case ROCE_QPF_ANY: break;
	case ROCE_QPF_REQ: if (!oi->is_request) return 0; break;
	case ROCE_QPF_RSP: if (oi->is_request || op == ROCE_OPCODE_CNP) return 0; break;
	case ROCE_QPF_ACK: if (!ack || ROCE_AETH_TYPE(s->ext.syndrome) != ROCE_AETH_ACK) return 0; break;
	case ROCE_QPF_NAK: if (!ack || ROCE_AETH_TYPE(s->ext.syndrome) == ROCE_AETH_ACK) return 0; break;
	case ROCE_QPF_READ_RSP: if (oi->kind != ROCE_OK_READ_RESP) return 0; break;
	case ROCE_QPF_CNP: if (op != ROCE_OPCODE_CNP) return 0; break;
	default: return 0;
	}
	if (r->opcode >= 0 && op != r->opcode)
		return 0;
	if (r->at_psn && s->bth.psn != r->psn)
		return 0;
	if ((r->kind == ROCE_QPF_BAD_RKEY || r->kind == ROCE_QPF_BAD_VA) &&
	    !(oi->hdrs & (ROCE_H_RETH | ROCE_H_ATOMICETH)))
		return 0;
	return 1;
}

static int rule_fires(struct roce_qp *qp, struct roce_qpf_rule *r)
{
	if (r->times && r->fired >= r->times)
		return 0;
	if (!r->at_psn) {
		if (r->ppm < 1000000 && (rng_next(qp) >> 11) % 1000000 >= r->ppm)
			return 0;
	}
	r->fired++;
	qp->st.faults[r->kind]++;
	return 1;
}

/* Every frame leaves through here: faults, build, emit. */
void roce__qp_tx_emit(struct roce_qp *qp, struct roce_frame_spec *s)
{
	uint32_t psn = s->bth.psn;
	int drop = 0, dup = 0, reorder = 0, n;
	uint64_t delay = 0;
	struct hold *h;

	for (unsigned i = 0; qp->f && i < qp->f->n_rules; i++) {
		struct roce_qpf_rule *r = &qp->f->rules[i];

		if (!rule_matches(r, s) || !rule_fires(qp, r))
			continue;
		roce__qp_event(qp, ROCE_QPE_FAULT, psn, r->kind);
		switch (r->kind) {
		case ROCE_QPF_DROP: drop = 1; break;
		case ROCE_QPF_DUP: dup = 1; break;
		case ROCE_QPF_REORDER: reorder = 1; break;
		case ROCE_QPF_DELAY: if (r->delay_ns > delay) delay = r->delay_ns; break;
		case ROCE_QPF_CORRUPT: s->bad_icrc = 1; break;
		case ROCE_QPF_ECN_CE: s->ip.ecn = 3; break;
		case ROCE_QPF_PSN_JUMP: s->bth.psn = PSN(s->bth.psn + (uint32_t)r->arg); break;
		case ROCE_QPF_BAD_RKEY: s->ext.rkey ^= r->arg ? (uint32_t)r->arg : 0x80000000u; break;
		case ROCE_QPF_BAD_VA: s->ext.va += r->arg ? (uint64_t)r->arg : (uint64_t)1 << 40; break;
		default: break;
		}
	}
	n = roce_build(qp->tx, sizeof(qp->tx), s);
	if (n < 0) {
		qp->st.tx_errors++;
		return;
	}
	if (drop)
		return;
	if ((delay || reorder) && (h = hold_slot(qp)) != NULL) {
		uint64_t hold_ns = qp->f->reorder_hold_ns ? qp->f->reorder_hold_ns : 1000000;

		memcpy(h->frame, qp->tx, (size_t)n);
		h->len = (uint32_t)n;
		h->seq = qp->hold_seq++;
		h->kind = delay ? HOLD_DELAY : HOLD_REORDER;
		h->due = qp->now + (delay ? delay : hold_ns);
		return;
	}
	if (delay || reorder)
		qp->st.fault_slot_full++;
	out(qp, qp->tx, (uint32_t)n);
	if (dup)
		out(qp, qp->tx, (uint32_t)n);
	roce__qp_hold_release(qp, 0, 1);
}

/* An RNR fault rule for an in-order request at psn */
int roce__qp_rnr_fault(struct roce_qp *qp, uint32_t psn, uint8_t opcode)
{
	for (unsigned i = 0; qp->f && i < qp->f->n_rules; i++) {
		struct roce_qpf_rule *r = &qp->f->rules[i];

		if (r->kind != ROCE_QPF_RNR || (r->at_psn && r->psn != psn) ||
		    (r->opcode >= 0 && r->opcode != opcode))
			continue;
		if (rule_fires(qp, r)) {
			roce__qp_event(qp, ROCE_QPE_FAULT, psn, r->kind);
			return 1;
		}
	}
	return 0;
}

void roce_qp_set_faults(struct roce_qp *qp, struct roce_qp_faults *f)
{
	qp->f = f;
	qp->rng = f && f->seed ? f->seed : 0x9e3779b97f4a7c15ull;
}

void roce_qp_frame_spec(const struct roce_qp *qp, struct roce_frame_spec *spec)
{
	*spec = qp->base;
}

int roce_qp_emit_spec(struct roce_qp *qp, const struct roce_frame_spec *spec)
{
	int n = roce_build(qp->tx, sizeof(qp->tx), spec);

	if (n < 0)
		return n;
	out(qp, qp->tx, (uint32_t)n);
	return n;
}

/* ---- completions and the error state ------------------------------------------ */

void roce__qp_complete_sq(struct roce_qp *qp, struct sq_wqe *w, enum roce_wc_status st)
{
	struct roce_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w->wr_id;
	wc.status = st;
	wc.op = (enum roce_wr_op)w->op;
	wc.byte_len = w->len;
	wc.psn = w->first_psn;
	wc.latency_ns = qp->now - w->t_post;
	if (w->op == ROCE_WR_CMP_SWAP || w->op == ROCE_WR_FETCH_ADD) {
		memcpy(&wc.orig, w->buf, 8);
		wc.byte_len = 8;
	}
	if (st == ROCE_WC_SUCCESS) {
		qp->st.comp_ok++;
		qp->st.bytes_ok += w->len;
	} else {
		qp->st.comp_err++;
	}
	if (qp->ops.complete)
		qp->ops.complete(qp->ops.ctx, &wc);
}

void roce__qp_complete_rq(struct roce_qp *qp, const struct rq_wqe *r, enum roce_wc_status st,
			 enum roce_wr_op op, uint32_t len, const struct roce_pkt *p)
{
	struct roce_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = r->wr_id;
	wc.status = st;
	wc.op = op;
	wc.recv = 1;
	wc.byte_len = len;
	wc.psn = qp->msg_psn;
	if (p && p->immdt_off) {
		wc.has_imm = 1;
		wc.imm = roce_immdt(p);
	}
	if (st == ROCE_WC_SUCCESS)
		qp->st.recv_ok++;
	else
		qp->st.recv_err++;
	if (qp->ops.complete)
		qp->ops.complete(qp->ops.ctx, &wc);
}

/* req: status of the oldest WR (WR_FLUSH_ERR when the requester is not the
 * cause); rsp: status of a receive in progress. */
void roce__qp_error(struct roce_qp *qp, enum roce_wc_status req, enum roce_wc_status rsp)
{
	if (qp->state == ROCE_QPS_ERR)
		return;
	qp->state = ROCE_QPS_ERR;
	qp->err = req != ROCE_WC_WR_FLUSH_ERR ? req : rsp;
	qp->rto_deadline = qp->rnr_deadline = 0;
	qp->pump_more = 0;
	roce__qp_event(qp, ROCE_QPE_ERROR, qp->una, qp->err);
	for (uint32_t i = qp->sq_head; i != qp->sq_tail; i++)
		roce__qp_complete_sq(qp, SQ(qp, i), i == qp->sq_head ? req : ROCE_WC_WR_FLUSH_ERR);
	qp->sq_head = qp->sq_next = qp->sq_tail;
	qp->rd_out = 0;
	if (qp->have_rwqe)
		roce__qp_complete_rq(qp, &qp->rwqe, rsp, ROCE_WR_RECV, qp->msg_off, NULL);
	qp->have_rwqe = 0;
	qp->in_msg = MSG_NONE;
	for (; qp->rq_head != qp->rq_tail; qp->rq_head++)
		roce__qp_complete_rq(qp, &qp->rq[qp->rq_head % qp->a.rq_depth],
				     ROCE_WC_WR_FLUSH_ERR, ROCE_WR_RECV, 0, NULL);
}

/* One retry of retry_cnt (a NAK's go-back or a timeout): 0 and the QP in
 * error with retry-exceeded when none is left; retry_cnt 7 may be infinite. */
int roce__qp_retry_spend(struct roce_qp *qp)
{
	if (!qp->retry_left) {
		roce__qp_error(qp, ROCE_WC_RETRY_EXC_ERR, ROCE_WC_WR_FLUSH_ERR);
		return 0;
	}
	if (!(qp->a.retry_cnt == 7 && qp->a.retry7_infinite))
		qp->retry_left--;
	return 1;
}
