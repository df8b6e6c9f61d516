/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qp_int.h — what the RC engine's four files share inside libroce: the QP
 * and its queues, and the functions one file calls in another.  Not
 * installed.  The calls run down: qp.c -> qp_req.c, qp_rsp.c -> qp_core.c.
 *
 *   qp.c      names, setup, timers, input dispatch, queries, latency summaries
 *   qp_req.c  the requester: requests out, responses in, go-back-N
 *   qp_rsp.c  the responder: requests executed, ACKs/NAKs and responses out,
 *             duplicates replayed
 *   qp_core.c events, faults and transmit, completions and the error state,
 *             the retry budget
 *
 * The shared functions are roce__qp_*: global in libroce.a, local in
 * libroce.so (tools/libmap.sh leaves roce__* out of lib/libroce.map).
 */
#ifndef ROCE_QP_INT_H
#define ROCE_QP_INT_H

#include "internal.h"
#include "qp.h"

#define PSN_MASK 0xffffffu
#define PSN(x) ((uint32_t)(x) & PSN_MASK)

struct sq_wqe {
	uint64_t wr_id;
	uint8_t *buf;
	uint64_t rva, compare, swap_add, t_post;
	uint32_t len, rkey, imm;
	uint32_t first_psn, npkts, rcvd;  /* rcvd: READ response packets placed in order */
	uint8_t op, solicited;
};

struct rq_wqe {
	uint64_t wr_id;
	uint8_t *buf;
	uint32_t len;
};

enum { RES_NONE = 0, RES_READ, RES_ATOMIC };

struct rsp_res {                  /* responder resources: READ/atomic remembered for replay */
	uint8_t kind;
	uint32_t psn, last;
	uint64_t orig;
};

enum { HOLD_FREE = 0, HOLD_DELAY, HOLD_REORDER };

struct hold {
	uint8_t kind;
	uint32_t len, seq;
	uint64_t due;
	uint8_t *frame;
};

enum { MSG_NONE = 0, MSG_SEND, MSG_WRITE };

struct roce_qp {
	struct roce_qp_attr a;
	struct roce_qp_ops ops;
	struct roce_frame_spec base;
	enum roce_qp_state state;
	enum roce_wc_status err;
	uint64_t now;                 /* the last call's time */
	uint64_t rto_ns;
	uint16_t pkey;

	/* requester (the PSN bookkeeping: qp_req.c) */
	struct sq_wqe *sq;
	uint32_t sq_head, sq_next, sq_tail, snd_idx;
	uint32_t next_psn, una, snd_psn, snd_max;
	uint32_t rd_out;
	uint8_t retry_left, rnr_left, retx_trig, pump_more;
	uint8_t gb_valid;             /* a NAK/implied-NAK go-back to gb_psn happened, no progress since */
	uint32_t gb_psn;
	uint64_t rto_deadline, rnr_deadline;
	uint32_t rnr_psn;
	uint32_t since_ackreq;

	/* responder */
	struct rq_wqe *rq;
	uint32_t rq_head, rq_tail;
	struct roce_mr *mr;
	uint32_t n_mr;
	struct rsp_res *res;
	uint32_t res_next;
	uint32_t epsn, msn;
	uint8_t nak_latch, in_msg, have_rwqe, cnp_sent;
	struct rq_wqe rwqe;           /* the receive a SEND in progress fills */
	uint32_t msg_off, msg_psn;
	uint8_t *wr_dst;
	uint64_t wr_left, wr_len;
	uint32_t ack_pending;
	uint64_t last_cnp;

	/* faults */
	struct roce_qp_faults *f;
	uint64_t rng;
	struct hold *holds;
	uint32_t hold_seq;

	struct roce_qp_stats st;
	uint8_t tx[ROCE_QP_FRAME_MAX];
};

#define SQ(qp, i) (&(qp)->sq[(i) % (qp)->a.sq_depth])

/* Packets of a len-byte message (a zero-length one still takes one). */
static inline uint32_t npkts_of(const struct roce_qp *qp, uint64_t len)
{
	return len ? (uint32_t)((len + qp->a.mtu - 1) / qp->a.mtu) : 1;
}

/* The segment of packet k of an n-packet message */
static inline enum roce_seg seg_of(uint32_t k, uint32_t n)
{
	if (n == 1)
		return ROCE_SEG_ONLY;
	if (k == 0)
		return ROCE_SEG_FIRST;
	return k == n - 1 ? ROCE_SEG_LAST : ROCE_SEG_MIDDLE;
}

/* qp_core.c */
void roce__qp_event(struct roce_qp *qp, enum roce_qp_ev_type t, uint32_t psn, uint64_t value);
void roce__qp_tx_emit(struct roce_qp *qp, struct roce_frame_spec *s);
int roce__qp_rnr_fault(struct roce_qp *qp, uint32_t psn, uint8_t opcode);
void roce__qp_complete_sq(struct roce_qp *qp, struct sq_wqe *w, enum roce_wc_status st);
void roce__qp_complete_rq(struct roce_qp *qp, const struct rq_wqe *r, enum roce_wc_status st,
			 enum roce_wr_op op, uint32_t len, const struct roce_pkt *p);
void roce__qp_error(struct roce_qp *qp, enum roce_wc_status req, enum roce_wc_status rsp);
int roce__qp_retry_spend(struct roce_qp *qp);
void roce__qp_hold_release(struct roce_qp *qp, uint64_t now, int reorder);

/* qp_req.c */
int roce__qp_sq_post(struct roce_qp *qp, const struct roce_wr *wr, uint64_t now);
void roce__qp_pump(struct roce_qp *qp);
void roce__qp_go_back(struct roce_qp *qp, uint32_t psn, enum roce_qp_retx why);
void roce__qp_req_response(struct roce_qp *qp, const struct roce_pkt *p,
			   const struct roce_opinfo *oi);

/* qp_rsp.c */
void roce__qp_rsp_request(struct roce_qp *qp, const struct roce_pkt *p,
			  const struct roce_opinfo *oi);

#endif
