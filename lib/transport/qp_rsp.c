/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qp_rsp.c — the RC responder (IBTA vol. 1 9.7): requests executed in PSN
 * order into receives and registered regions, ACKs, NAKs, READ responses
 * and atomic ACKs out; duplicates acknowledged again or replayed from the
 * remembered READ/atomic resources, never executed twice.
 */
#include "qp_int.h"

#define SYN_ACK 0x1f              /* ACK, credit count "invalid" (unlimited), as rxe */
#define SYN_RNR(t) (0x20 | ((t) & 0x1f))
#define SYN_NAK(c) (0x60 | ((c) & 0x1f))

int roce_qp_reg_mr(struct roce_qp *qp, const struct roce_mr *mr)
{
	if (!mr || (!mr->addr && mr->len))
		return ROCE_EARG;
	for (uint32_t i = 0; i < qp->n_mr; i++)
		if (qp->mr[i].rkey == mr->rkey)
			return ROCE_EARG;
	if (qp->n_mr >= qp->a.max_mr)
		return ROCE_ENOSPC;
	qp->mr[qp->n_mr++] = *mr;
	return ROCE_OK;
}

int roce_qp_dereg_mr(struct roce_qp *qp, uint32_t rkey)
{
	for (uint32_t i = 0; i < qp->n_mr; i++)
		if (qp->mr[i].rkey == rkey) {
			qp->mr[i] = qp->mr[--qp->n_mr];
			return ROCE_OK;
		}
	return ROCE_EARG;
}

int roce_qp_post_recv(struct roce_qp *qp, uint64_t wr_id, uint8_t *buf, uint32_t len, uint64_t now)
{
	struct rq_wqe *r;

	if (len && !buf)
		return ROCE_EARG;
	qp->now = now;
	if (qp->state != ROCE_QPS_RTS) {
		struct rq_wqe tmp = { wr_id, buf, len };

		roce__qp_complete_rq(qp, &tmp, ROCE_WC_WR_FLUSH_ERR, ROCE_WR_RECV, 0, NULL);
		return ROCE_OK;
	}
	if (qp->rq_tail - qp->rq_head >= qp->a.rq_depth)
		return ROCE_ENOSPC;
	r = &qp->rq[qp->rq_tail++ % qp->a.rq_depth];
	r->wr_id = wr_id;
	r->buf = buf;
	r->len = len;
	return ROCE_OK;
}

/* Where [va, va + len) of the region rkey is here, or NULL when the key is
 * unknown, the range leaves the region or the right is missing (C9-88). */
static uint8_t *mr_at(struct roce_qp *qp, uint32_t rkey, uint64_t va, uint64_t len, uint32_t right)
{
	for (uint32_t i = 0; i < qp->n_mr; i++) {
		const struct roce_mr *m = &qp->mr[i];

		if (m->rkey != rkey)
			continue;
		if (!(m->access & right) || va < m->va || va - m->va > m->len ||
		    len > m->len - (va - m->va))
			return NULL;
		return m->addr + (va - m->va);
	}
	return NULL;
}

static void send_ack(struct roce_qp *qp, uint32_t psn, uint8_t syn)
{
	struct roce_frame_spec s = qp->base;

	s.bth.opcode = ROCE_OP_ACK;
	s.bth.psn = PSN(psn);
	s.ext.syndrome = syn;
	s.ext.msn = PSN(qp->msn);
	switch (ROCE_AETH_TYPE(syn)) {
	case ROCE_AETH_ACK:
		qp->st.ack_tx++;
		qp->ack_pending = 0;
		roce__qp_event(qp, ROCE_QPE_ACK_TX, s.bth.psn, s.ext.msn);
		break;
	case ROCE_AETH_RNR_NAK:
		qp->st.rnr_nak_tx++;
		roce__qp_event(qp, ROCE_QPE_NAK_TX, s.bth.psn, syn);
		break;
	default:
		qp->st.nak_tx[ROCE_AETH_VALUE(syn) & 7]++;
		roce__qp_event(qp, ROCE_QPE_NAK_TX, s.bth.psn, syn);
		break;
	}
	roce__qp_tx_emit(qp, &s);
}

static void read_responses(struct roce_qp *qp, uint32_t psn, const uint8_t *src, uint32_t len)
{
	static const uint8_t op[] = {
		[ROCE_SEG_ONLY] = ROCE_OP_READ_RESP_ONLY, [ROCE_SEG_FIRST] = ROCE_OP_READ_RESP_FIRST,
		[ROCE_SEG_MIDDLE] = ROCE_OP_READ_RESP_MIDDLE, [ROCE_SEG_LAST] = ROCE_OP_READ_RESP_LAST,
	};
	uint32_t n = npkts_of(qp, len), mtu = qp->a.mtu;

	for (uint32_t k = 0; k < n; k++) {
		struct roce_frame_spec s = qp->base;
		uint32_t off = k * mtu;

		s.bth.opcode = op[seg_of(k, n)];
		s.bth.psn = PSN(psn + k);
		s.ext.syndrome = SYN_ACK;
		s.ext.msn = PSN(qp->msn);
		s.payload = len ? src + off : NULL;
		s.payload_len = len - off < mtu ? len - off : mtu;
		if (!len)
			s.payload_len = 0;
		qp->st.read_rsp_tx++;
		roce__qp_tx_emit(qp, &s);
	}
	qp->ack_pending = 0;
}

static void atomic_ack(struct roce_qp *qp, uint32_t psn, uint64_t orig)
{
	struct roce_frame_spec s = qp->base;

	s.bth.opcode = ROCE_OP_ATOMIC_ACK;
	s.bth.psn = psn;
	s.ext.syndrome = SYN_ACK;
	s.ext.msn = PSN(qp->msn);
	s.ext.orig = orig;
	qp->st.atomic_ack_tx++;
	qp->ack_pending = 0;
	roce__qp_tx_emit(qp, &s);
}

static void remember(struct roce_qp *qp, uint8_t kind, uint32_t psn, uint32_t n, uint64_t orig)
{
	struct rsp_res *r = &qp->res[qp->res_next++ % qp->a.max_dest_rd_atomic];

	r->kind = kind;
	r->psn = psn;
	r->last = PSN(psn + n - 1);
	r->orig = orig;
}

static void rsp_duplicate(struct roce_qp *qp, const struct roce_pkt *p, const struct roce_opinfo *oi)
{
	uint32_t q = p->psn;

	qp->st.dup_req_rx++;
	roce__qp_event(qp, ROCE_QPE_DUPLICATE, q, p->opcode);
	if (oi->kind == ROCE_OK_SEND || oi->kind == ROCE_OK_WRITE) {
		/* C9-105: acknowledge again, never execute again; the newest PSN,
		 * unless a READ or atomic came after the duplicate: an ACK never
		 * stands for their responses (rxe 6.1 completes a READ or atomic
		 * on a plain ACK carrying its PSN, without the data) */
		const struct rsp_res *r = &qp->res[(qp->res_next - 1) % qp->a.max_dest_rd_atomic];
		int over = qp->res_next && roce_psn_diff(r->last, q) > 0;

		if (p->ackreq || oi->seg == ROCE_SEG_LAST || oi->seg == ROCE_SEG_ONLY)
			send_ack(qp, over ? q : PSN(qp->epsn - 1), SYN_ACK);
		return;
	}
	/* newest first: an entry a whole PSN cycle old never shadows a recent one */
	for (uint32_t i = 1; i <= qp->a.max_dest_rd_atomic; i++) {
		const struct rsp_res *r = &qp->res[(qp->res_next - i) % qp->a.max_dest_rd_atomic];

		if (oi->kind == ROCE_OK_READ_REQ && r->kind == RES_READ && p->reth_off &&
		    roce_psn_diff(q, r->psn) >= 0 && roce_psn_diff(r->last, q) >= 0) {
			/* replay from the duplicate's own RETH (a partial re-read
			 * asks for the rest, IBTA 9.7.5.1.5); it must fit the
			 * original's PSN range */
			uint32_t len = roce_reth_dmalen(p), n = npkts_of(qp, len);
			const uint8_t *src = len ? mr_at(qp, roce_reth_rkey(p), roce_reth_va(p), len,
							 ROCE_ACCESS_REMOTE_READ) : NULL;

			if ((len && !src) || roce_psn_diff(r->last, PSN(q + n - 1)) < 0)
				break;
			qp->st.read_replays++;
			roce__qp_event(qp, ROCE_QPE_READ_REPLAY, q, n);
			read_responses(qp, q, src, len);
			return;
		}
		if (oi->kind == ROCE_OK_ATOMIC && r->kind == RES_ATOMIC && r->psn == q) {
			qp->st.atomic_replays++;
			roce__qp_event(qp, ROCE_QPE_ATOMIC_REPLAY, q, r->orig);
			atomic_ack(qp, q, r->orig);
			return;
		}
	}
	qp->st.replay_misses++;
}

enum ex {
	EX_OK = 0,        /* executed; epsn + 1 */
	EX_END,           /* executed, message complete; epsn + 1 */
	EX_DONE,          /* READ/atomic: answered, epsn already moved */
	EX_RNR,
	EX_INV,           /* NAK invalid request */
	EX_LEN,           /* NAK invalid request, receive too small (local length error) */
	EX_ACC,           /* NAK remote access error */
};

/* The checks every request passes before it runs: a whole payload, the
 * opcode sequence, the packet sizes. */
static int rsp_well_formed(const struct roce_qp *qp, const struct roce_pkt *p,
			   const struct roce_opinfo *oi)
{
	uint32_t mtu = qp->a.mtu, plen = p->payload_len;
	int starts = oi->seg == ROCE_SEG_FIRST || oi->seg == ROCE_SEG_ONLY;

	if (p->invalid & ROCE_LBIT(ROCE_L_PAYLOAD))
		return 0;           /* e.g. a pad that does not make whole words */
	/* opcode sequence (C9-35): FIRST/ONLY/READ/atomic only between
	 * messages, MIDDLE/LAST only inside one of the same kind */
	if (starts || oi->kind == ROCE_OK_READ_REQ || oi->kind == ROCE_OK_ATOMIC) {
		if (qp->in_msg != MSG_NONE)
			return 0;
	} else if ((oi->kind == ROCE_OK_SEND && qp->in_msg != MSG_SEND) ||
		   (oi->kind == ROCE_OK_WRITE && qp->in_msg != MSG_WRITE)) {
		return 0;
	}
	/* FIRST and MIDDLE carry exactly one MTU, no pad (C9-88..) */
	if ((oi->kind == ROCE_OK_SEND || oi->kind == ROCE_OK_WRITE) &&
	    (((oi->seg == ROCE_SEG_FIRST || oi->seg == ROCE_SEG_MIDDLE) && (plen != mtu || p->padcnt)) ||
	     plen > mtu))
		return 0;
	return 1;
}

static const uint8_t *payload_of(const struct roce_pkt *p)
{
	return p->payload_off ? p->data + p->payload_off : NULL;
}

/* A SEND packet: the first takes a receive, each fills it further. */
static enum ex rsp_send(struct roce_qp *qp, const struct roce_pkt *p, const struct roce_opinfo *oi)
{
	uint32_t plen = p->payload_len;

	if (oi->seg == ROCE_SEG_FIRST || oi->seg == ROCE_SEG_ONLY) {
		if (roce__qp_rnr_fault(qp, p->psn, p->opcode) || qp->rq_head == qp->rq_tail)
			return EX_RNR;
		qp->rwqe = qp->rq[qp->rq_head++ % qp->a.rq_depth];
		qp->have_rwqe = 1;
		qp->msg_off = 0;
		qp->msg_psn = p->psn;
	}
	if (plen > qp->rwqe.len - qp->msg_off)
		return EX_LEN;
	if (plen)
		memcpy(qp->rwqe.buf + qp->msg_off, payload_of(p), plen);
	qp->msg_off += plen;
	if (!(oi->seg == ROCE_SEG_LAST || oi->seg == ROCE_SEG_ONLY)) {
		qp->in_msg = MSG_SEND;
		return EX_OK;
	}
	qp->in_msg = MSG_NONE;
	qp->have_rwqe = 0;
	qp->msn++;
	roce__qp_complete_rq(qp, &qp->rwqe, ROCE_WC_SUCCESS, ROCE_WR_RECV, qp->msg_off, p);
	return EX_END;
}

/* The first packet of a WRITE: its RETH names the region and the length. */
static enum ex rsp_write_start(struct roce_qp *qp, const struct roce_pkt *p,
			       const struct roce_opinfo *oi)
{
	uint64_t len;

	if (!p->reth_off)
		return EX_INV;
	len = roce_reth_dmalen(p);
	if ((oi->seg == ROCE_SEG_ONLY && len != p->payload_len) ||
	    (oi->seg == ROCE_SEG_FIRST && len <= qp->a.mtu))
		return EX_INV;
	qp->wr_dst = NULL;
	if (len && !(qp->wr_dst = mr_at(qp, roce_reth_rkey(p), roce_reth_va(p), len,
					ROCE_ACCESS_REMOTE_WRITE)))
		return EX_ACC;
	qp->wr_left = len;
	qp->wr_len = len;
	qp->msg_psn = p->psn;
	return EX_OK;
}

/* A WRITE packet; the last of a WRITE with immediate takes a receive. */
static enum ex rsp_write(struct roce_qp *qp, const struct roce_pkt *p, const struct roce_opinfo *oi)
{
	uint32_t mtu = qp->a.mtu, plen = p->payload_len;
	int imm = (oi->hdrs & ROCE_H_IMMDT) != 0;

	if (oi->seg == ROCE_SEG_FIRST || oi->seg == ROCE_SEG_ONLY) {
		enum ex r = rsp_write_start(qp, p, oi);

		if (r != EX_OK)
			return r;
	} else if ((oi->seg == ROCE_SEG_MIDDLE && qp->wr_left <= mtu) ||
		   (oi->seg == ROCE_SEG_LAST && qp->wr_left != plen)) {
		return EX_INV;
	}
	if (imm && (roce__qp_rnr_fault(qp, p->psn, p->opcode) || qp->rq_head == qp->rq_tail))
		return EX_RNR;
	if (plen) {
		memcpy(qp->wr_dst, payload_of(p), plen);
		qp->wr_dst += plen;
		qp->wr_left -= plen;
	}
	if (!(oi->seg == ROCE_SEG_LAST || oi->seg == ROCE_SEG_ONLY)) {
		qp->in_msg = MSG_WRITE;
		return EX_OK;
	}
	qp->in_msg = MSG_NONE;
	qp->msn++;
	if (imm) {
		struct rq_wqe r = qp->rq[qp->rq_head++ % qp->a.rq_depth];

		roce__qp_complete_rq(qp, &r, ROCE_WC_SUCCESS, ROCE_WR_RECV_RDMA_IMM,
				     (uint32_t)qp->wr_len, p);
	}
	return EX_END;
}

/* A READ request: answered at once, remembered for a duplicate's replay. */
static enum ex rsp_read(struct roce_qp *qp, const struct roce_pkt *p)
{
	uint32_t q = p->psn, len, n;
	const uint8_t *src = NULL;

	if (!p->reth_off)
		return EX_INV;
	len = roce_reth_dmalen(p);
	if (len > 0x80000000u)
		return EX_INV;
	if (len && !(src = mr_at(qp, roce_reth_rkey(p), roce_reth_va(p), len,
				 ROCE_ACCESS_REMOTE_READ)))
		return EX_ACC;
	n = npkts_of(qp, len);
	qp->msn++;
	qp->epsn = PSN(q + n);
	remember(qp, RES_READ, q, n, 0);
	read_responses(qp, q, src, len);
	return EX_DONE;
}

/* A compare-and-swap or fetch-and-add: answered at once, the original value
 * remembered for a duplicate's replay. */
static enum ex rsp_atomic(struct roce_qp *qp, const struct roce_pkt *p)
{
	uint32_t q = p->psn;
	uint64_t va, orig, v;
	uint8_t *m;

	if (!p->atomiceth_off)
		return EX_INV;
	va = roce_atomiceth_va(p);
	if (va & 7)
		return EX_INV;     /* misaligned atomic (C9-... , rxe: invalid request) */
	m = mr_at(qp, roce_atomiceth_rkey(p), va, 8, ROCE_ACCESS_REMOTE_ATOMIC);
	if (!m)
		return EX_ACC;
	memcpy(&orig, m, 8);
	if (p->opcode == ROCE_OP_CMP_SWAP)
		v = orig == roce_atomiceth_cmp(p) ? roce_atomiceth_swap(p) : orig;
	else
		v = orig + roce_atomiceth_swap(p);
	memcpy(m, &v, 8);
	qp->msn++;
	qp->epsn = PSN(q + 1);
	remember(qp, RES_ATOMIC, q, 1, orig);
	atomic_ack(qp, q, orig);
	return EX_DONE;
}

/* The request at epsn. */
static enum ex rsp_execute(struct roce_qp *qp, const struct roce_pkt *p, const struct roce_opinfo *oi)
{
	if (!rsp_well_formed(qp, p, oi))
		return EX_INV;
	switch (oi->kind) {
	case ROCE_OK_SEND:
		return rsp_send(qp, p, oi);
	case ROCE_OK_WRITE:
		return rsp_write(qp, p, oi);
	case ROCE_OK_READ_REQ:
		return rsp_read(qp, p);
	case ROCE_OK_ATOMIC:
		return rsp_atomic(qp, p);
	default:
		return EX_INV;             /* FLUSH, ATOMIC WRITE, RESYNC: not supported */
	}
}

/* A request marked CE (congestion experienced): a CNP back, at most one
 * per cnp_gap_ns. */
static void rsp_ce(struct roce_qp *qp)
{
	qp->st.ecn_ce_rx++;
	if (qp->a.send_cnp && (!qp->cnp_sent || qp->now - qp->last_cnp >= qp->a.cnp_gap_ns)) {
		struct roce_frame_spec s = qp->base;

		roce_spec_cnp(&s, qp->a.remote_qpn);
		s.bth.pkey = qp->pkey;
		qp->cnp_sent = 1;
		qp->last_cnp = qp->now;
		qp->st.cnp_tx++;
		roce__qp_event(qp, ROCE_QPE_CNP_TX, 0, 0);
		roce__qp_tx_emit(qp, &s);
	}
}

void roce__qp_rsp_request(struct roce_qp *qp, const struct roce_pkt *p,
			  const struct roce_opinfo *oi)
{
	uint32_t q = p->psn;
	int32_t d = roce_psn_diff(q, qp->epsn);
	enum ex r;

	if (p->ecn == 3)
		rsp_ce(qp);
	if (d < 0) {
		rsp_duplicate(qp, p, oi);
		return;
	}
	if (d > 0) {
		/* C9-... : one NAK per sequence error, until it is resolved */
		qp->st.oos_req_rx++;
		roce__qp_event(qp, ROCE_QPE_OUT_OF_SEQ, q, qp->epsn);
		if (!qp->nak_latch) {
			qp->nak_latch = 1;
			send_ack(qp, qp->epsn, SYN_NAK(ROCE_NAK_PSN_SEQ_ERR));
		}
		return;
	}
	r = rsp_execute(qp, p, oi);
	switch (r) {
	case EX_OK:
	case EX_END:
		qp->epsn = PSN(q + 1);
		/* fall through */
	case EX_DONE:
		qp->nak_latch = 0;
		qp->st.req_rx++;
		if (r == EX_DONE)
			return;
		qp->ack_pending++;
		if (p->ackreq || (qp->a.ack_every && qp->ack_pending >= qp->a.ack_every) ||
		    (qp->a.ack_msg_end && r == EX_END))
			send_ack(qp, q, SYN_ACK);
		return;
	case EX_RNR:
		qp->nak_latch = 1;
		send_ack(qp, q, SYN_RNR(qp->a.min_rnr_timer));
		return;
	case EX_INV:
	case EX_LEN:
		send_ack(qp, q, SYN_NAK(ROCE_NAK_INVALID_REQ));
		roce__qp_error(qp, ROCE_WC_WR_FLUSH_ERR,
			       r == EX_LEN ? ROCE_WC_LOC_LEN_ERR : ROCE_WC_REM_INV_REQ_ERR);
		return;
	case EX_ACC:
		send_ack(qp, q, SYN_NAK(ROCE_NAK_REMOTE_ACCESS));
		roce__qp_error(qp, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_REM_ACCESS_ERR);
		return;
	}
}
