/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qp.c — an RC queue pair in user space: requester and responder (IBTA vol. 1
 * 9.7 "reliable service"), fed decoded frames and the time by its caller,
 * sending through a callback.  See qp.h for the model and the choices made.
 *
 * Requester PSN bookkeeping (24-bit, compared with roce_psn_before):
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
 *
 * Faults are applied in tx_emit(), the one place every frame leaves by.
 */
#include <stdlib.h>
#include "internal.h"
#include "qp.h"

#define PSN_MASK 0xffffffu
#define PSN(x) ((uint32_t)(x) & PSN_MASK)
#define PSN_WINDOW (1u << 22)     /* requester: PSNs outstanding at most */

#define SYN_ACK 0x1f              /* ACK, credit count "invalid" (unlimited), as rxe */
#define SYN_RNR(t) (0x20 | ((t) & 0x1f))
#define SYN_NAK(c) (0x60 | ((c) & 0x1f))

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

	/* requester */
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

/* ---- names ---------------------------------------------------------------- */

const char *roce_wr_op_name(enum roce_wr_op op)
{
	static const char *const n[ROCE_WR__COUNT] = {
		"send", "send_imm", "write", "write_imm", "read", "cmp_swap", "fetch_add",
		"recv", "recv_rdma_imm",
	};
	return (unsigned)op < ROCE_WR__COUNT ? n[op] : "?";
}

const char *roce_wc_status_name(enum roce_wc_status s)
{
	static const char *const n[ROCE_WC__COUNT] = {
		"success", "local-length-error", "local-qp-op-error", "bad-response",
		"remote-invalid-request", "remote-access-error", "remote-op-error",
		"retry-exceeded", "rnr-retry-exceeded", "flushed",
	};
	return (unsigned)s < ROCE_WC__COUNT ? n[s] : "?";
}

const char *roce_qp_retx_name(enum roce_qp_retx t)
{
	static const char *const n[ROCE_RETX__COUNT] = { "timeout", "nak", "implied", "rnr" };
	return (unsigned)t < ROCE_RETX__COUNT ? n[t] : "?";
}

const char *roce_qpf_kind_name(enum roce_qpf_kind k)
{
	static const char *const n[ROCE_QPF__COUNT] = {
		"drop", "dup", "reorder", "delay", "corrupt", "ecn-ce", "psn-jump",
		"bad-rkey", "bad-va", "rnr",
	};
	return (unsigned)k < ROCE_QPF__COUNT ? n[k] : "?";
}

/* ---- setup ---------------------------------------------------------------- */

void roce_qp_attr_default(struct roce_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->mtu = 1024;
	a->version = ROCE_VER_V2;
	a->ip.version = 4;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->max_rd_atomic = 16;
	a->sq_depth = 128;
	a->min_rnr_timer = 12;
	a->max_dest_rd_atomic = 16;
	a->rq_depth = 128;
	a->max_mr = 8;
	a->fault_slots = 16;
}

static int attr_ok(const struct roce_qp_attr *a)
{
	if (!a)
		return 0;
	if (a->mtu != 256 && a->mtu != 512 && a->mtu != 1024 && a->mtu != 2048 && a->mtu != 4096)
		return 0;
	if (a->qpn > PSN_MASK || a->remote_qpn > PSN_MASK || a->sq_psn > PSN_MASK ||
	    a->rq_psn > PSN_MASK)
		return 0;
	if (a->timeout > 31 || a->retry_cnt > 7 || a->rnr_retry > 7 || a->min_rnr_timer > 31)
		return 0;
	if (!a->max_rd_atomic || !a->max_dest_rd_atomic || !a->sq_depth || !a->rq_depth ||
	    !a->max_mr)
		return 0;
	if (a->sq_depth > (1u << 20) || a->rq_depth > (1u << 20) || a->max_mr > 65536 ||
	    a->fault_slots > 4096)
		return 0;
	if (a->version != ROCE_VER_NONE && a->version != ROCE_VER_V1 && a->version != ROCE_VER_V2 &&
	    a->version != ROCE_VER_V2_1021 && a->version != ROCE_VER_V2_PORT)
		return 0;
	return 1;
}

#define ALIGN16(x) (((x) + 15) & ~(size_t)15)

struct carve {
	size_t qp, sq, rq, mr, res, holds, frames, total;
};

static void carve(const struct roce_qp_attr *a, struct carve *c)
{
	size_t off = 0;

	c->qp = off;
	off += ALIGN16(sizeof(struct roce_qp));
	c->sq = off;
	off += ALIGN16((size_t)a->sq_depth * sizeof(struct sq_wqe));
	c->rq = off;
	off += ALIGN16((size_t)a->rq_depth * sizeof(struct rq_wqe));
	c->mr = off;
	off += ALIGN16((size_t)a->max_mr * sizeof(struct roce_mr));
	c->res = off;
	off += ALIGN16((size_t)a->max_dest_rd_atomic * sizeof(struct rsp_res));
	c->holds = off;
	off += ALIGN16((size_t)a->fault_slots * sizeof(struct hold));
	c->frames = off;
	off += (size_t)a->fault_slots * ROCE_QP_FRAME_MAX;
	c->total = off + 16; /* slack to align the caller's block */
}

size_t roce_qp_mem_size(const struct roce_qp_attr *attr)
{
	struct carve c;

	if (!attr_ok(attr))
		return 0;
	carve(attr, &c);
	return c.total;
}

int roce_qp_init(struct roce_qp **out, void *mem, size_t size,
		 const struct roce_qp_attr *attr, const struct roce_qp_ops *ops)
{
	struct carve c;
	struct roce_qp *qp;
	uint8_t *m;

	if (!out || !mem || !ops || !ops->emit || !attr_ok(attr))
		return ROCE_EARG;
	carve(attr, &c);
	if (size < c.total)
		return ROCE_EARG;
	m = (uint8_t *)(((uintptr_t)mem + 15) & ~(uintptr_t)15);
	memset(m, 0, c.total - 16);
	qp = (struct roce_qp *)(void *)(m + c.qp);
	qp->a = *attr;
	if (qp->a.version == ROCE_VER_NONE)
		qp->a.version = ROCE_VER_V2;
	qp->ops = *ops;
	qp->sq = (struct sq_wqe *)(void *)(m + c.sq);
	qp->rq = (struct rq_wqe *)(void *)(m + c.rq);
	qp->mr = (struct roce_mr *)(void *)(m + c.mr);
	qp->res = (struct rsp_res *)(void *)(m + c.res);
	qp->holds = (struct hold *)(void *)(m + c.holds);
	for (uint32_t i = 0; i < attr->fault_slots; i++)
		qp->holds[i].frame = m + c.frames + (size_t)i * ROCE_QP_FRAME_MAX;

	qp->pkey = attr->pkey ? attr->pkey : 0xffff;
	qp->rto_ns = ROCE_QP_TIMEOUT_NS(attr->timeout);
	qp->next_psn = qp->una = qp->snd_psn = qp->snd_max = attr->sq_psn;
	qp->retry_left = attr->retry_cnt;
	qp->rnr_left = attr->rnr_retry;
	qp->epsn = attr->rq_psn;
	qp->rng = 0x9e3779b97f4a7c15ull;

	qp->base.version = qp->a.version;
	qp->base.eth = attr->eth;
	qp->base.ip = attr->ip;
	if (qp->a.version == ROCE_VER_V1)
		qp->base.ip.version = 6;
	qp->base.sport = attr->sport;
	qp->base.dport = attr->dport;
	qp->base.udp_checksum = attr->udp_checksum;
	qp->base.bth.pkey = qp->pkey;
	qp->base.bth.dqpn = attr->remote_qpn;
	qp->base.bth.pad = -1;
	*out = qp;
	return ROCE_OK;
}

/* ---- small helpers -------------------------------------------------------------- */

static void event(struct roce_qp *qp, enum roce_qp_ev_type t, uint32_t psn, uint64_t value)
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

static uint32_t npkts_of(const struct roce_qp *qp, uint64_t len)
{
	return len ? (uint32_t)((len + qp->a.mtu - 1) / qp->a.mtu) : 1;
}

static int is_rdat(uint8_t op)
{
	return op == ROCE_WR_READ || op == ROCE_WR_CMP_SWAP || op == ROCE_WR_FETCH_ADD;
}

/* The segment of packet k of an n-packet message */
static enum roce_seg seg_of(uint32_t k, uint32_t n)
{
	if (n == 1)
		return ROCE_SEG_ONLY;
	if (k == 0)
		return ROCE_SEG_FIRST;
	return k == n - 1 ? ROCE_SEG_LAST : ROCE_SEG_MIDDLE;
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
static void hold_release(struct roce_qp *qp, uint64_t now, int reorder)
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
static void tx_emit(struct roce_qp *qp, struct roce_frame_spec *s)
{
	uint32_t psn = s->bth.psn;
	int drop = 0, dup = 0, reorder = 0, n;
	uint64_t delay = 0;
	struct hold *h;

	for (unsigned i = 0; qp->f && i < qp->f->n_rules; i++) {
		struct roce_qpf_rule *r = &qp->f->rules[i];

		if (!rule_matches(r, s) || !rule_fires(qp, r))
			continue;
		event(qp, ROCE_QPE_FAULT, psn, r->kind);
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
	hold_release(qp, 0, 1);
}

/* An RNR fault rule for an in-order request at psn */
static int rnr_fault(struct roce_qp *qp, uint32_t psn, uint8_t opcode)
{
	for (unsigned i = 0; qp->f && i < qp->f->n_rules; i++) {
		struct roce_qpf_rule *r = &qp->f->rules[i];

		if (r->kind != ROCE_QPF_RNR || (r->at_psn && r->psn != psn) ||
		    (r->opcode >= 0 && r->opcode != opcode))
			continue;
		if (rule_fires(qp, r)) {
			event(qp, ROCE_QPE_FAULT, psn, r->kind);
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

static void complete_sq(struct roce_qp *qp, struct sq_wqe *w, enum roce_wc_status st)
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

static void complete_rq(struct roce_qp *qp, const struct rq_wqe *r, enum roce_wc_status st,
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
static void qp_error(struct roce_qp *qp, enum roce_wc_status req, enum roce_wc_status rsp)
{
	if (qp->state == ROCE_QPS_ERR)
		return;
	qp->state = ROCE_QPS_ERR;
	qp->err = req != ROCE_WC_WR_FLUSH_ERR ? req : rsp;
	qp->rto_deadline = qp->rnr_deadline = 0;
	qp->pump_more = 0;
	event(qp, ROCE_QPE_ERROR, qp->una, qp->err);
	for (uint32_t i = qp->sq_head; i != qp->sq_tail; i++)
		complete_sq(qp, SQ(qp, i), i == qp->sq_head ? req : ROCE_WC_WR_FLUSH_ERR);
	qp->sq_head = qp->sq_next = qp->sq_tail;
	qp->rd_out = 0;
	if (qp->have_rwqe)
		complete_rq(qp, &qp->rwqe, rsp, ROCE_WR_RECV, qp->msg_off, NULL);
	qp->have_rwqe = 0;
	qp->in_msg = MSG_NONE;
	for (; qp->rq_head != qp->rq_tail; qp->rq_head++)
		complete_rq(qp, &qp->rq[qp->rq_head % qp->a.rq_depth], ROCE_WC_WR_FLUSH_ERR,
			    ROCE_WR_RECV, 0, NULL);
}

void roce_qp_set_error(struct roce_qp *qp, uint64_t now)
{
	qp->now = now;
	qp_error(qp, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_WR_FLUSH_ERR);
}

/* ---- requester ------------------------------------------------------------------ */

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
	tx_emit(qp, &s);
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

static void pump(struct roce_qp *qp)
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

static void go_back(struct roce_qp *qp, uint32_t psn, enum roce_qp_retx why)
{
	qp->snd_psn = psn;
	qp->snd_idx = wr_at(qp, psn);
	qp->retx_trig = (uint8_t)why;
	qp->st.retx_episodes[why]++;
	qp->rto_deadline = qp->rto_ns ? qp->now + qp->rto_ns : 0;
	event(qp, ROCE_QPE_RETRANSMIT, psn, why);
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
		complete_sq(qp, w, ROCE_WC_SUCCESS);
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
	if (!qp->retry_left) {
		qp_error(qp, ROCE_WC_RETRY_EXC_ERR, ROCE_WC_WR_FLUSH_ERR);
		return;
	}
	if (!(qp->a.retry_cnt == 7 && qp->a.retry7_infinite))
		qp->retry_left--;
	qp->gb_valid = 1;
	qp->gb_psn = psn;
	go_back(qp, psn, why);
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
			event(qp, ROCE_QPE_NAK_RX, p->psn, syn);
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
		qp_error(qp, ROCE_WC_RNR_RETRY_EXC_ERR, ROCE_WC_WR_FLUSH_ERR);
		return;
	}
	if (qp->a.rnr_retry != 7)
		qp->rnr_left--;
	qp->rnr_psn = q;
	qp->rnr_deadline = qp->now + (uint64_t)roce_rnr_timer_us(timer) * 1000;
	qp->rto_deadline = 0;
	qp->snd_psn = q;
	qp->snd_idx = wr_at(qp, q);
	event(qp, ROCE_QPE_RNR_WAIT, q, roce_rnr_timer_us(timer));
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
	qp_error(qp, st, ROCE_WC_WR_FLUSH_ERR);
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
		complete_sq(qp, w, ROCE_WC_SUCCESS);
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
	complete_sq(qp, w, ROCE_WC_SUCCESS);
	qp->sq_head++;
	qp->rd_out--;
}

static void req_response(struct roce_qp *qp, const struct roce_pkt *p, const struct roce_opinfo *oi)
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

int roce_qp_post_send(struct roce_qp *qp, const struct roce_wr *wr, uint64_t now)
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
		complete_sq(qp, w, ROCE_WC_WR_FLUSH_ERR);
		return ROCE_OK;
	}
	qp->sq_tail++;
	roce_qp_tick(qp, now);
	return ROCE_OK;
}

/* ---- responder ------------------------------------------------------------------ */

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

		complete_rq(qp, &tmp, ROCE_WC_WR_FLUSH_ERR, ROCE_WR_RECV, 0, NULL);
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
		event(qp, ROCE_QPE_ACK_TX, s.bth.psn, s.ext.msn);
		break;
	case ROCE_AETH_RNR_NAK:
		qp->st.rnr_nak_tx++;
		event(qp, ROCE_QPE_NAK_TX, s.bth.psn, syn);
		break;
	default:
		qp->st.nak_tx[ROCE_AETH_VALUE(syn) & 7]++;
		event(qp, ROCE_QPE_NAK_TX, s.bth.psn, syn);
		break;
	}
	tx_emit(qp, &s);
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
		tx_emit(qp, &s);
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
	tx_emit(qp, &s);
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
	event(qp, ROCE_QPE_DUPLICATE, q, p->opcode);
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
			event(qp, ROCE_QPE_READ_REPLAY, q, n);
			read_responses(qp, q, src, len);
			return;
		}
		if (oi->kind == ROCE_OK_ATOMIC && r->kind == RES_ATOMIC && r->psn == q) {
			qp->st.atomic_replays++;
			event(qp, ROCE_QPE_ATOMIC_REPLAY, q, r->orig);
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
		if (rnr_fault(qp, p->psn, p->opcode) || qp->rq_head == qp->rq_tail)
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
	complete_rq(qp, &qp->rwqe, ROCE_WC_SUCCESS, ROCE_WR_RECV, qp->msg_off, p);
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
	if (imm && (rnr_fault(qp, p->psn, p->opcode) || qp->rq_head == qp->rq_tail))
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

		complete_rq(qp, &r, ROCE_WC_SUCCESS, ROCE_WR_RECV_RDMA_IMM, (uint32_t)qp->wr_len, p);
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
		event(qp, ROCE_QPE_CNP_TX, 0, 0);
		tx_emit(qp, &s);
	}
}

static void rsp_request(struct roce_qp *qp, const struct roce_pkt *p, const struct roce_opinfo *oi)
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
		event(qp, ROCE_QPE_OUT_OF_SEQ, q, qp->epsn);
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
		qp_error(qp, ROCE_WC_WR_FLUSH_ERR, r == EX_LEN ? ROCE_WC_LOC_LEN_ERR : ROCE_WC_REM_INV_REQ_ERR);
		return;
	case EX_ACC:
		send_ack(qp, q, SYN_NAK(ROCE_NAK_REMOTE_ACCESS));
		qp_error(qp, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_REM_ACCESS_ERR);
		return;
	}
}

/* ---- the driver -------------------------------------------------------------- */

static void timers(struct roce_qp *qp, uint64_t now)
{
	qp->now = now;
	hold_release(qp, now, 0);
	if (qp->state != ROCE_QPS_RTS)
		return;
	if (qp->rnr_deadline && now >= qp->rnr_deadline) {
		qp->rnr_deadline = 0;
		go_back(qp, qp->rnr_psn, ROCE_RETX_RNR);
	}
	if (qp->rto_deadline && now >= qp->rto_deadline) {
		qp->st.timeouts++;
		event(qp, ROCE_QPE_TIMEOUT, qp->una, qp->retry_left);
		if (!qp->retry_left) {
			qp_error(qp, ROCE_WC_RETRY_EXC_ERR, ROCE_WC_WR_FLUSH_ERR);
			return;
		}
		if (!(qp->a.retry_cnt == 7 && qp->a.retry7_infinite))
			qp->retry_left--;
		qp->gb_valid = 0;
		go_back(qp, qp->una, ROCE_RETX_TIMEOUT);
	}
}

void roce_qp_tick(struct roce_qp *qp, uint64_t now)
{
	timers(qp, now);
	pump(qp);
}

uint64_t roce_qp_next_deadline(const struct roce_qp *qp)
{
	uint64_t d = UINT64_MAX;

	for (uint32_t i = 0; i < qp->a.fault_slots; i++)
		if (qp->holds[i].kind != HOLD_FREE && qp->holds[i].due < d)
			d = qp->holds[i].due;
	if (qp->state != ROCE_QPS_RTS)
		return d;
	if (qp->pump_more)
		return qp->now;
	if (qp->rto_deadline && qp->rto_deadline < d)
		d = qp->rto_deadline;
	if (qp->rnr_deadline && qp->rnr_deadline < d)
		d = qp->rnr_deadline;
	return d;
}

int roce_qp_input(struct roce_qp *qp, const struct roce_pkt *p, enum roce_icrc_status icrc,
		  uint64_t now)
{
	const uint32_t need = ROCE_LBIT(ROCE_L_BTH) | ROCE_LBIT(ROCE_L_EXT) |
			      ROCE_LBIT(ROCE_L_PAYLOAD) | ROCE_LBIT(ROCE_L_ICRC);
	const struct roce_opinfo *oi;

	if (!p || p->version == ROCE_VER_NONE || !p->bth_off || p->dqpn != qp->a.qpn) {
		qp->st.drop_rx++;
		return ROCE_EARG;
	}
	timers(qp, now);
	qp->st.rx_pkts++;
	qp->st.rx_bytes += p->wirelen;
	if (p->truncated & need) {
		qp->st.drop_rx++;
		goto done;
	}
	if (icrc == ROCE_ICRC_UNCHECKED)
		icrc = roce_icrc_verify(p, NULL);
	if (icrc != ROCE_ICRC_GOOD) {
		/* dropped silently, as the spec and every adapter do */
		if (icrc == ROCE_ICRC_BAD)
			qp->st.icrc_bad_rx++;
		else
			qp->st.drop_rx++;
		goto done;
	}
	if (p->opcode == ROCE_OPCODE_CNP) {
		qp->st.cnp_rx++;
		event(qp, ROCE_QPE_CNP_RX, 0, 0);
		goto done;
	}
	oi = roce_opcode_info(p->opcode);
	if (!oi || (p->opcode & 0xe0) != ROCE_TR_RC || (p->invalid & ROCE_LBIT(ROCE_L_BTH)) ||
	    (p->invalid & ROCE_LBIT(ROCE_L_EXT)) || (p->pkey & 0x7fff) != (qp->pkey & 0x7fff) ||
	    qp->state != ROCE_QPS_RTS) {
		qp->st.drop_rx++;
		goto done;
	}
	if (oi->is_request)
		rsp_request(qp, p, oi);
	else
		req_response(qp, p, oi);
done:
	pump(qp);
	return ROCE_OK;
}

/* ---- queries ------------------------------------------------------------------- */

void roce_qp_info(const struct roce_qp *qp, struct roce_qp_info *in)
{
	memset(in, 0, sizeof(*in));
	in->state = qp->state;
	in->err = qp->err;
	in->next_psn = qp->next_psn;
	in->una_psn = qp->una;
	in->snd_psn = qp->snd_psn;
	in->sq_outstanding = qp->sq_tail - qp->sq_head;
	in->rd_atomic_outstanding = qp->rd_out;
	in->retry_left = qp->retry_left;
	in->rnr_left = qp->rnr_left;
	in->rto_deadline = qp->rto_deadline;
	in->rnr_deadline = qp->rnr_deadline;
	in->epsn = qp->epsn;
	in->msn = PSN(qp->msn);
	in->rq_posted = qp->rq_tail - qp->rq_head;
	in->nak_latched = qp->nak_latch;
	in->in_message = qp->in_msg;
}

const struct roce_qp_stats *roce_qp_stats(const struct roce_qp *qp)
{
	return &qp->st;
}

void roce_qp_stats_reset(struct roce_qp *qp)
{
	memset(&qp->st, 0, sizeof(qp->st));
}

/* ---- latency summary ------------------------------------------------------------ */

void roce_lat_init(struct roce_lat *l, uint64_t *buf, size_t cap)
{
	l->v = buf;
	l->n = 0;
	l->cap = buf ? cap : 0;
	l->overflow = 0;
}

void roce_lat_add(struct roce_lat *l, uint64_t ns)
{
	if (l->n < l->cap)
		l->v[l->n++] = ns;
	else
		l->overflow++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank: the sample at ceil(p/1000 * n) (1-based), p in per mille */
static uint64_t rank(const struct roce_lat *l, unsigned permille)
{
	size_t r = (size_t)(((uint64_t)l->n * permille + 999) / 1000);

	return l->v[r ? r - 1 : 0];
}

void roce_lat_summarize(struct roce_lat *l, struct roce_lat_summary *s)
{
	long double sum = 0;

	memset(s, 0, sizeof(*s));
	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(l->v[0]), cmp_u64);
	for (size_t i = 0; i < l->n; i++)
		sum += l->v[i];
	s->n = l->n;
	s->min = l->v[0];
	s->max = l->v[l->n - 1];
	s->typical = rank(l, 500);
	s->p99 = rank(l, 990);
	s->p999 = rank(l, 999);
	s->avg = (double)(sum / l->n);
}
