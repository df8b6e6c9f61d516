/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qp.c — an RC queue pair in user space: requester and responder (IBTA vol. 1
 * 9.7 "reliable service"), fed decoded frames and the time by its caller,
 * sending through a callback.  See qp.h for the model and the choices made.
 *
 * This file is the QP's face: names, setup, the timers, the input dispatch
 * and the queries.  It calls down into the requester (qp_req.c) and the
 * responder (qp_rsp.c), and all three into qp_core.c (events, faults and
 * transmit, completions and the error state); qp_int.h is what they share.
 */
#include <stdlib.h>
#include "qp_int.h"

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

void roce_qp_set_error(struct roce_qp *qp, uint64_t now)
{
	qp->now = now;
	roce__qp_error(qp, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_WR_FLUSH_ERR);
}

/* ---- the driver -------------------------------------------------------------- */

static void timers(struct roce_qp *qp, uint64_t now)
{
	qp->now = now;
	roce__qp_hold_release(qp, now, 0);
	if (qp->state != ROCE_QPS_RTS)
		return;
	if (qp->rnr_deadline && now >= qp->rnr_deadline) {
		qp->rnr_deadline = 0;
		if (qp->rnr_psn != qp->snd_max)   /* else all acknowledged since: nothing to resend */
			roce__qp_go_back(qp, qp->rnr_psn, ROCE_RETX_RNR);
	}
	if (qp->rto_deadline && now >= qp->rto_deadline) {
		qp->st.timeouts++;
		roce__qp_event(qp, ROCE_QPE_TIMEOUT, qp->una, qp->retry_left);
		if (!roce__qp_retry_spend(qp))
			return;
		qp->gb_valid = 0;
		roce__qp_go_back(qp, qp->una, ROCE_RETX_TIMEOUT);
	}
}

void roce_qp_tick(struct roce_qp *qp, uint64_t now)
{
	timers(qp, now);
	roce__qp_pump(qp);
}

int roce_qp_post_send(struct roce_qp *qp, const struct roce_wr *wr, uint64_t now)
{
	int rc = roce__qp_sq_post(qp, wr, now);

	if (rc != 1)
		return rc;
	roce_qp_tick(qp, now);
	return ROCE_OK;
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
		roce__qp_event(qp, ROCE_QPE_CNP_RX, 0, 0);
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
		roce__qp_rsp_request(qp, p, oi);
	else
		roce__qp_req_response(qp, p, oi);
done:
	roce__qp_pump(qp);
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
