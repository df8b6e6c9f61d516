/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_qp.c — the RC engine (lib/qp.c) with no network: two engines, A
 * (requester) and B (responder), joined by a simulated wire.  The wire is a
 * queue of frames with per-frame delivery times; it drops, duplicates and
 * reorders from its own seeded PRNG or at exact PSNs.  A simulated clock jumps
 * to the next delivery or engine deadline.  Every frame is decoded with
 * roce_decode() and its ICRC checked when it is emitted (wire-format checks)
 * and decoded again on delivery: the engines only ever see decoded views.
 */
#include "testutil.h"
#include "roce.h"
#include "qp.h"

#define A 0
#define B 1
#define QPN_A 0x000111
#define QPN_B 0x000222
#define NS_US 1000ull

/* ---- the simulated wire -------------------------------------------------------- */

struct hframe {
	uint64_t due, seq;
	int to;
	uint32_t len;
	uint8_t data[];
};

struct flog {                     /* every frame an engine emitted, decoded */
	uint64_t t;
	uint8_t from, opcode, syn, ackreq, pad, ecn, icrc_bad, wire_dropped;
	uint32_t psn, plen, dmalen, dqpn;
	uint64_t va, orig;
	uint32_t rkey;
};

struct sim;

struct side {
	struct sim *S;
	int id;
	struct roce_qp *qp;
	void *mem;
	struct roce_qp_attr attr;
	struct roce_wc *wc;
	size_t n_wc, cap_wc;
	struct roce_qp_event *ev;
	size_t n_ev, cap_ev;
	size_t n_ok, n_err, n_recv;
};

struct ldrop {                    /* drop on the wire at an exact PSN */
	int from;
	int opcode;                   /* -1 any */
	uint32_t psn;
	int times;
};

struct sim {
	struct side s[2];
	uint64_t now;
	struct hframe **heap;
	size_t n, cap;
	uint64_t seq;
	uint64_t delay_ns;
	uint32_t drop_ppm, dup_ppm, reorder_ppm;
	uint64_t reorder_ns;
	uint64_t rng;
	struct ldrop ldrop[16];
	int n_ldrop;
	int drop_all_from;            /* -1 none */
	uint64_t sent[2], delivered[2], dropped[2], duplicated[2], reordered[2], icrc_bad[2];
	struct flog *log;
	size_t n_log, cap_log;
	int allow_bad_icrc;
	/* a model of the responder B (expected PSN, NAK latch) run on what is
	 * delivered to it, independent of the engine */
	uint32_t m_epsn;
	uint8_t m_latch;
	uint64_t m_accept, m_dup, m_oos, m_naks;
	int model_on;
	uint32_t max_rd_out;          /* highest A rd_atomic_outstanding seen */
	uint64_t dlv_op[2][256];      /* frames delivered to a side, by opcode */
	uint64_t dlv_nak[2];          /* NAKs (not RNR) delivered to a side */
	int allow_invalid;            /* hand-made frames the decoder finds invalid */
};

static uint64_t sim_rand(struct sim *S)
{
	uint64_t x = S->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	S->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

static int chance(struct sim *S, uint32_t ppm)
{
	return ppm && (sim_rand(S) >> 11) % 1000000 < ppm;
}

static int hless(const struct hframe *x, const struct hframe *y)
{
	return x->due < y->due || (x->due == y->due && x->seq < y->seq);
}

static void hpush(struct sim *S, struct hframe *f)
{
	size_t i;

	if (S->n == S->cap) {
		S->cap = S->cap ? 2 * S->cap : 1024;
		S->heap = realloc(S->heap, S->cap * sizeof(*S->heap));
		assert_non_null(S->heap);
	}
	i = S->n++;
	S->heap[i] = f;
	while (i && hless(S->heap[i], S->heap[(i - 1) / 2])) {
		struct hframe *t = S->heap[i];

		S->heap[i] = S->heap[(i - 1) / 2];
		S->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static struct hframe *hpop(struct sim *S)
{
	struct hframe *top = S->heap[0];
	size_t i = 0;

	S->heap[0] = S->heap[--S->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < S->n && hless(S->heap[l], S->heap[m]))
			m = l;
		if (r < S->n && hless(S->heap[r], S->heap[m]))
			m = r;
		if (m == i)
			break;
		struct hframe *t = S->heap[i];
		S->heap[i] = S->heap[m];
		S->heap[m] = t;
		i = m;
	}
	return top;
}

static void enqueue(struct sim *S, int to, const uint8_t *d, uint32_t len, uint64_t extra)
{
	struct hframe *f = malloc(sizeof(*f) + len);

	assert_non_null(f);
	f->due = S->now + S->delay_ns + extra;
	f->seq = S->seq++;
	f->to = to;
	f->len = len;
	memcpy(f->data, d, len);
	hpush(S, f);
}

static uint32_t mtu_of(const struct sim *S, int from)
{
	return S->s[from].attr.mtu;
}

/* Wire-format checks on every emitted frame, then the link's decisions. */
static int emit_cb(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct side *sd = ctx;
	struct sim *S = sd->S;
	int from = sd->id, to = !from;
	struct roce_pkt p;
	struct flog *l;
	const struct roce_opinfo *oi;
	int rc = roce_decode(&p, NULL, ROCE_LINK_ETHERNET, frame, len, len);
	enum roce_icrc_status ic;

	assert_int_equal(rc, ROCE_OK);
	assert_int_equal(p.invalid, 0);
	assert_int_equal(p.version, sd->attr.version);
	assert_true(p.bth_off != 0);
	ic = roce_icrc_verify(&p, NULL);
	if (!S->allow_bad_icrc)
		assert_int_equal(ic, ROCE_ICRC_GOOD);
	if (p.opcode != ROCE_OPCODE_CNP)
		assert_int_equal(p.dqpn, to == A ? QPN_A : QPN_B);
	oi = roce_opcode_info(p.opcode);
	assert_non_null(oi);
	if (oi->hdrs & ROCE_H_PAYLOAD) {
		assert_int_equal(p.padcnt, (4 - p.payload_len % 4) % 4);
		if (oi->seg == ROCE_SEG_FIRST || oi->seg == ROCE_SEG_MIDDLE)
			assert_int_equal(p.payload_len, mtu_of(S, from));
		else
			assert_true(p.payload_len <= mtu_of(S, from));
	}

	if (S->n_log == S->cap_log) {
		S->cap_log = S->cap_log ? 2 * S->cap_log : 4096;
		S->log = realloc(S->log, S->cap_log * sizeof(*S->log));
		assert_non_null(S->log);
	}
	l = &S->log[S->n_log++];
	memset(l, 0, sizeof(*l));
	l->t = S->now;
	l->from = (uint8_t)from;
	l->opcode = p.opcode;
	l->psn = p.psn;
	l->dqpn = p.dqpn;
	l->ackreq = p.ackreq;
	l->pad = p.padcnt;
	l->ecn = p.ecn;
	l->plen = p.payload_len;
	l->icrc_bad = ic == ROCE_ICRC_BAD;
	if (p.aeth_off)
		l->syn = roce_aeth_syndrome(&p);
	if (p.reth_off) {
		l->va = roce_reth_va(&p);
		l->dmalen = roce_reth_dmalen(&p);
		l->rkey = roce_reth_rkey(&p);
	}
	if (p.atomiceth_off) {
		l->va = roce_atomiceth_va(&p);
		l->rkey = roce_atomiceth_rkey(&p);
	}
	if (p.atomicacketh_off)
		l->orig = roce_atomicacketh_orig(&p);

	S->sent[from]++;
	if (S->drop_all_from == from) {
		l->wire_dropped = 1;
		S->dropped[from]++;
		return 0;
	}
	for (int i = 0; i < S->n_ldrop; i++) {
		struct ldrop *d = &S->ldrop[i];

		if (d->times && d->from == from && d->psn == p.psn &&
		    (d->opcode < 0 || d->opcode == p.opcode)) {
			d->times--;
			l->wire_dropped = 1;
			S->dropped[from]++;
			return 0;
		}
	}
	if (chance(S, S->drop_ppm)) {
		l->wire_dropped = 1;
		S->dropped[from]++;
		return 0;
	}
	if (chance(S, S->reorder_ppm)) {
		S->reordered[from]++;
		enqueue(S, to, frame, len, S->reorder_ns);
	} else {
		enqueue(S, to, frame, len, 0);
	}
	if (chance(S, S->dup_ppm)) {
		S->duplicated[from]++;
		enqueue(S, to, frame, len, S->delay_ns / 2);
	}
	return 0;
}

static void complete_cb(void *ctx, const struct roce_wc *wc)
{
	struct side *sd = ctx;

	if (sd->n_wc == sd->cap_wc) {
		sd->cap_wc = sd->cap_wc ? 2 * sd->cap_wc : 256;
		sd->wc = realloc(sd->wc, sd->cap_wc * sizeof(*sd->wc));
		assert_non_null(sd->wc);
	}
	sd->wc[sd->n_wc++] = *wc;
	if (wc->recv)
		sd->n_recv++;
	else if (wc->status == ROCE_WC_SUCCESS)
		sd->n_ok++;
	else
		sd->n_err++;
}

static void event_cb(void *ctx, const struct roce_qp_event *ev)
{
	struct side *sd = ctx;

	if (sd->n_ev == sd->cap_ev) {
		sd->cap_ev = sd->cap_ev ? 2 * sd->cap_ev : 256;
		sd->ev = realloc(sd->ev, sd->cap_ev * sizeof(*sd->ev));
		assert_non_null(sd->ev);
	}
	sd->ev[sd->n_ev++] = *ev;
}

static void model_request(struct sim *S, const struct roce_pkt *p)
{
	const struct roce_opinfo *oi = roce_opcode_info(p->opcode);
	int32_t d = roce_psn_diff(p->psn, S->m_epsn);

	if (!oi->is_request)
		return;
	if (d == 0) {
		uint32_t n = 1;

		if (oi->kind == ROCE_OK_READ_REQ) {
			uint32_t len = roce_reth_dmalen(p), mtu = mtu_of(S, B);

			n = len ? (len + mtu - 1) / mtu : 1;
		}
		S->m_epsn = (S->m_epsn + n) & 0xffffff;
		S->m_latch = 0;
		S->m_accept++;
	} else if (d < 0) {
		S->m_dup++;
	} else {
		S->m_oos++;
		if (!S->m_latch) {
			S->m_latch = 1;
			S->m_naks++;
		}
	}
}

static void deliver(struct sim *S, struct hframe *f)
{
	struct roce_pkt p;
	struct roce_qp_info in;
	int rc = roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f->data, f->len, f->len);

	if (!S->allow_invalid)
		assert_int_equal(rc, ROCE_OK);
	S->delivered[!f->to]++;
	S->dlv_op[f->to][p.opcode]++;
	if (p.aeth_off && ROCE_AETH_TYPE(roce_aeth_syndrome(&p)) == ROCE_AETH_NAK)
		S->dlv_nak[f->to]++;
	if (roce_icrc_verify(&p, NULL) != ROCE_ICRC_GOOD)
		S->icrc_bad[!f->to]++;
	else if (S->model_on && f->to == B)
		model_request(S, &p);
	rc = roce_qp_input(S->s[f->to].qp, &p, ROCE_ICRC_UNCHECKED, S->now);
	assert_int_equal(rc, ROCE_OK);
	roce_qp_info(S->s[A].qp, &in);
	if (in.rd_atomic_outstanding > S->max_rd_out)
		S->max_rd_out = in.rd_atomic_outstanding;
	free(f);
}

/* One step: the earliest delivery or deadline at or before limit. */
static int sim_step(struct sim *S, uint64_t limit)
{
	uint64_t t = S->n ? S->heap[0]->due : UINT64_MAX;

	for (int i = 0; i < 2; i++) {
		uint64_t d = roce_qp_next_deadline(S->s[i].qp);

		if (d < t)
			t = d;
	}
	if (t == UINT64_MAX || t > limit)
		return 0;
	if (t > S->now)
		S->now = t;
	if (S->n && S->heap[0]->due <= S->now) {
		deliver(S, hpop(S));
		return 1;
	}
	for (int i = 0; i < 2; i++)
		if (roce_qp_next_deadline(S->s[i].qp) <= S->now)
			roce_qp_tick(S->s[i].qp, S->now);
	return 1;
}

static void sim_run(struct sim *S, uint64_t limit)
{
	uint64_t steps = 0;

	while (sim_step(S, limit))
		assert_true(++steps < 50000000);
}

static void base_attr(struct roce_qp_attr *a, int id, uint16_t mtu)
{
	roce_qp_attr_default(a);
	a->qpn = id == A ? QPN_A : QPN_B;
	a->remote_qpn = id == A ? QPN_B : QPN_A;
	a->sq_psn = id == A ? 100 : 7000;
	a->rq_psn = id == A ? 7000 : 100;
	a->mtu = mtu;
	a->timeout = 8;               /* 4.096 us * 256 = 1.048576 ms */
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->min_rnr_timer = 4;         /* 40 us */
	a->sq_depth = 64;
	a->rq_depth = 256;
	memcpy(a->eth.src, id == A ? "\x02\x00\x00\x00\x00\x0a" : "\x02\x00\x00\x00\x00\x0b", 6);
	memcpy(a->eth.dst, id == A ? "\x02\x00\x00\x00\x00\x0b" : "\x02\x00\x00\x00\x00\x0a", 6);
	a->ip.version = 4;
	memcpy(a->ip.src, id == A ? "\x0a\x00\x00\x01" : "\x0a\x00\x00\x02", 4);
	memcpy(a->ip.dst, id == A ? "\x0a\x00\x00\x02" : "\x0a\x00\x00\x01", 4);
	a->sport = id == A ? 0xc001 : 0xc002;
}

static struct sim *sim_new(uint16_t mtu, void (*tweak)(struct roce_qp_attr *a, int id))
{
	struct sim *S = calloc(1, sizeof(*S));
	struct roce_qp_ops ops;

	assert_non_null(S);
	S->delay_ns = 1000;
	S->reorder_ns = 3000;
	S->rng = 0x1234567;
	S->drop_all_from = -1;
	for (int i = 0; i < 2; i++) {
		struct side *sd = &S->s[i];
		size_t sz;

		sd->S = S;
		sd->id = i;
		base_attr(&sd->attr, i, mtu);
		if (tweak)
			tweak(&sd->attr, i);
		sz = roce_qp_mem_size(&sd->attr);
		assert_true(sz > 0);
		sd->mem = malloc(sz);
		assert_non_null(sd->mem);
		ops.emit = emit_cb;
		ops.complete = complete_cb;
		ops.event = event_cb;
		ops.ctx = sd;
		assert_int_equal(roce_qp_init(&sd->qp, sd->mem, sz, &sd->attr, &ops), ROCE_OK);
	}
	S->m_epsn = S->s[B].attr.rq_psn;
	return S;
}

static void sim_free(struct sim *S)
{
	while (S->n)
		free(hpop(S));
	free(S->heap);
	free(S->log);
	for (int i = 0; i < 2; i++) {
		free(S->s[i].mem);
		free(S->s[i].wc);
		free(S->s[i].ev);
	}
	free(S);
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
}

static const struct roce_qp_stats *stA(struct sim *S) { return roce_qp_stats(S->s[A].qp); }
static const struct roce_qp_stats *stB(struct sim *S) { return roce_qp_stats(S->s[B].qp); }

static uint64_t sum_retx(const struct roce_qp_stats *st)
{
	uint64_t n = 0;

	for (int i = 0; i < ROCE_RETX__COUNT; i++)
		n += st->retx_pkts[i];
	return n;
}

static size_t count_log(struct sim *S, int from, int opcode)
{
	size_t n = 0;

	for (size_t i = 0; i < S->n_log; i++)
		if (S->log[i].from == from && (opcode < 0 || S->log[i].opcode == opcode))
			n++;
	return n;
}

static size_t count_ev(struct side *sd, enum roce_qp_ev_type t)
{
	size_t n = 0;

	for (size_t i = 0; i < sd->n_ev; i++)
		n += sd->ev[i].type == t;
	return n;
}

static const struct roce_qp_event *find_ev(struct side *sd, enum roce_qp_ev_type t, size_t nth)
{
	for (size_t i = 0; i < sd->n_ev; i++)
		if (sd->ev[i].type == t && nth-- == 0)
			return &sd->ev[i];
	return NULL;
}

#define MR_VA 0x7f0000001000ull
#define MR_KEY 0x1234
#define MR_ALL (ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)

static uint32_t npk(uint32_t len, uint32_t mtu)
{
	return len ? (len + mtu - 1) / mtu : 1;
}

/* ---- every operation x size x MTU ----------------------------------------------- */

static void one_op(uint16_t mtu, enum roce_wr_op op, uint32_t size)
{
	struct sim *S = sim_new(mtu, NULL);
	size_t mrlen = 65536 + 64;
	uint8_t *mr = malloc(mrlen), *src = malloc(size + 1), *rbuf = malloc(65536 + 16);
	uint8_t *ref = malloc(mrlen);
	struct roce_mr m = { MR_KEY, MR_VA, mr, mrlen, MR_ALL };
	struct roce_wr wr;
	uint64_t atom = 0, orig = 0;
	uint32_t n;

	assert_true(mr && src && rbuf && ref);
	fill(mr, mrlen, 7);
	memcpy(ref, mr, mrlen);
	fill(src, size + 1, 9);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	assert_int_equal(roce_qp_post_recv(S->s[B].qp, 77, rbuf, 65536 + 16, 0), ROCE_OK);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.op = op;
	wr.buf = src;
	wr.len = size;
	wr.remote_va = MR_VA + 8;
	wr.rkey = MR_KEY;
	wr.imm = 0xdeadbeef;
	if (op == ROCE_WR_CMP_SWAP || op == ROCE_WR_FETCH_ADD) {
		wr.buf = (uint8_t *)&atom;
		wr.len = 8;
		wr.remote_va = MR_VA + 16;
		memcpy(&orig, mr + 16, 8);
		wr.compare = orig;   /* succeeds */
		wr.swap_add = 0x1111111111111111ull;
		size = 8;
	}
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);

	/* completions */
	assert_int_equal(S->s[A].n_ok, 1);
	assert_int_equal(S->s[A].n_err, 0);
	assert_int_equal(S->s[A].wc[0].wr_id, 1);
	n = op == ROCE_WR_CMP_SWAP || op == ROCE_WR_FETCH_ADD ? 1 : npk(size, mtu);
	switch (op) {
	case ROCE_WR_SEND:
	case ROCE_WR_SEND_IMM:
		assert_int_equal(S->s[B].n_recv, 1);
		assert_int_equal(S->s[B].wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(S->s[B].wc[0].byte_len, size);
		assert_int_equal(S->s[B].wc[0].has_imm, op == ROCE_WR_SEND_IMM);
		if (op == ROCE_WR_SEND_IMM)
			assert_int_equal(S->s[B].wc[0].imm, 0xdeadbeef);
		if (size)
			assert_memory_equal(rbuf, src, size);
		assert_memory_equal(mr, ref, mrlen);
		break;
	case ROCE_WR_WRITE:
	case ROCE_WR_WRITE_IMM:
		assert_int_equal(S->s[B].n_recv, op == ROCE_WR_WRITE_IMM);
		if (op == ROCE_WR_WRITE_IMM) {
			assert_int_equal(S->s[B].wc[0].op, ROCE_WR_RECV_RDMA_IMM);
			assert_int_equal(S->s[B].wc[0].imm, 0xdeadbeef);
			assert_int_equal(S->s[B].wc[0].byte_len, size);
		}
		if (size)
			assert_memory_equal(mr + 8, src, size);
		assert_memory_equal(mr, ref, 8);
		assert_memory_equal(mr + 8 + size, ref + 8 + size, mrlen - 8 - size);
		break;
	case ROCE_WR_READ:
		assert_int_equal(S->s[B].n_recv, 0);
		if (size)
			assert_memory_equal(src, mr + 8, size);
		assert_memory_equal(mr, ref, mrlen);
		assert_int_equal(stB(S)->read_rsp_tx, n);
		break;
	case ROCE_WR_CMP_SWAP:
	case ROCE_WR_FETCH_ADD: {
		uint64_t now_v;

		memcpy(&now_v, mr + 16, 8);
		assert_true(atom == orig);
		assert_true(S->s[A].wc[0].orig == orig);
		assert_true(now_v == (op == ROCE_WR_CMP_SWAP ? 0x1111111111111111ull : orig + 0x1111111111111111ull));
		assert_int_equal(stB(S)->atomic_ack_tx, 1);
		break;
	}
	default:
		break;
	}
	/* exact packet counts: no loss, so no retransmission and one ACK
	 * (or the READ responses / ATOMIC ACK) */
	assert_int_equal(stA(S)->req_pkts, op == ROCE_WR_READ ? 1 : n);
	assert_int_equal(sum_retx(stA(S)), 0);
	assert_int_equal(stA(S)->timeouts, 0);
	assert_int_equal(stB(S)->req_rx, op == ROCE_WR_READ ? 1 : n);
	assert_int_equal(stB(S)->dup_req_rx + stB(S)->oos_req_rx, 0);
	assert_int_equal(stB(S)->ack_tx, op == ROCE_WR_READ || op >= ROCE_WR_CMP_SWAP ? 0 : 1);
	assert_int_equal(count_log(S, A, -1), op == ROCE_WR_READ ? 1 : n);
	{
		struct roce_qp_info ia, ib;

		roce_qp_info(S->s[A].qp, &ia);
		roce_qp_info(S->s[B].qp, &ib);
		assert_int_equal(ia.next_psn, 100 + n);
		assert_int_equal(ia.una_psn, 100 + n);
		assert_int_equal(ib.epsn, 100 + n);
		assert_int_equal(ib.msn, 1);
		assert_int_equal(ia.rto_deadline, 0);
	}
	free(mr);
	free(src);
	free(rbuf);
	free(ref);
	sim_free(S);
}

static void test_ops_matrix(void **state)
{
	static const uint16_t mtus[] = { 256, 1024, 4096 };
	static const enum roce_wr_op ops[] = {
		ROCE_WR_SEND, ROCE_WR_SEND_IMM, ROCE_WR_WRITE, ROCE_WR_WRITE_IMM, ROCE_WR_READ,
	};
	(void)state;
	for (size_t m = 0; m < 3; m++) {
		uint32_t mtu = mtus[m];
		uint32_t sizes[] = { 0, 1, mtu - 1, mtu, mtu + 1, 65536 };

		for (size_t o = 0; o < 5; o++)
			for (size_t s = 0; s < 6; s++)
				one_op((uint16_t)mtu, ops[o], sizes[s]);
		one_op((uint16_t)mtu, ROCE_WR_CMP_SWAP, 8);
		one_op((uint16_t)mtu, ROCE_WR_FETCH_ADD, 8);
	}
}

/* ---- 1000 messages over a lossy, duplicating, reordering wire ----------------------- */

#define NMSG 1000
#define MAXSZ 6000

struct lossy {
	enum roce_wr_op op[NMSG];
	uint32_t size[NMSG];
	uint8_t *src;                 /* NMSG * MAXSZ */
	uint8_t *dst;                 /* READ destinations */
	uint64_t orig[NMSG];
};

static void tweak_lossy(struct roce_qp_attr *a, int id)
{
	(void)id;
	a->sq_depth = 16;
	a->max_rd_atomic = 4;
	a->max_dest_rd_atomic = 4;
	a->rq_depth = 1024;
	a->timeout = 6;               /* 262 us */
}

struct lossy_result {
	struct roce_qp_stats a, b;
	uint64_t end;
	uint64_t wire_dropped, wire_dup;
};

static void run_lossy(uint32_t drop_ppm, uint64_t seed, struct lossy_result *res)
{
	struct sim *S = sim_new(1024, tweak_lossy);
	struct lossy *L = calloc(1, sizeof(*L));
	size_t mrlen = (size_t)NMSG * MAXSZ + 64;
	uint8_t *mr = calloc(1, mrlen), *rbuf = malloc((size_t)NMSG * MAXSZ);
	uint64_t *counter = (uint64_t *)(void *)(mr + mrlen - 64), add_sum = 0;
	struct roce_mr m = { MR_KEY, MR_VA, mr, mrlen, MR_ALL };
	uint32_t posted = 0, nsend = 0, recv_seen = 0;
	uint64_t rs = seed;
	uint32_t next_psn_model = 100, pkts_total = 0;

	assert_true(L && mr && rbuf);
	L->src = malloc((size_t)NMSG * MAXSZ);
	L->dst = calloc(1, (size_t)NMSG * MAXSZ);
	assert_true(L->src && L->dst);
	S->rng = seed;
	S->drop_ppm = drop_ppm;
	S->dup_ppm = 20000;
	S->reorder_ppm = 20000;
	S->model_on = 1;
	fill(mr, mrlen - 64, 3);
	*counter = 1000;
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	for (int i = 0; i < NMSG; i++) {
		uint64_t r;

		rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
		r = rs;
		L->op[i] = (enum roce_wr_op[]){ ROCE_WR_SEND, ROCE_WR_WRITE, ROCE_WR_READ,
						ROCE_WR_FETCH_ADD, ROCE_WR_SEND_IMM, ROCE_WR_WRITE }[r % 6];
		L->size[i] = (uint32_t)((r >> 8) % MAXSZ);
		if (L->op[i] == ROCE_WR_FETCH_ADD)
			L->size[i] = 8;
		fill(L->src + (size_t)i * MAXSZ, MAXSZ, (uint32_t)i + 100);
	}
	for (uint32_t i = 0; i < 1024 && i < NMSG; i++)
		assert_int_equal(roce_qp_post_recv(S->s[B].qp, i, rbuf + (size_t)i * MAXSZ, MAXSZ, 0), ROCE_OK);

	while (S->s[A].n_ok + S->s[A].n_err < NMSG) {
		/* keep the send queue full */
		while (posted < NMSG) {
			struct roce_wr wr;
			int i = (int)posted;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.op = L->op[i];
			wr.len = L->size[i];
			wr.buf = L->src + (size_t)i * MAXSZ;
			wr.rkey = MR_KEY;
			wr.remote_va = MR_VA + (size_t)i * MAXSZ;
			wr.imm = (uint32_t)i;
			if (wr.op == ROCE_WR_READ)
				wr.buf = L->dst + (size_t)i * MAXSZ;
			if (wr.op == ROCE_WR_FETCH_ADD) {
				wr.buf = (uint8_t *)&L->orig[i];
				wr.remote_va = MR_VA + mrlen - 64;
				wr.swap_add = (uint64_t)i * 3 + 1;
			}
			if (roce_qp_post_send(S->s[A].qp, &wr, S->now) == ROCE_ENOSPC)
				break;
			pkts_total += wr.op == ROCE_WR_READ || wr.op == ROCE_WR_FETCH_ADD ? 1 : npk(wr.len, 1024);
			next_psn_model += wr.op == ROCE_WR_FETCH_ADD ? 1 : npk(wr.len, 1024);
			posted++;
		}
		assert_true(sim_step(S, UINT64_MAX));
	}
	sim_run(S, UINT64_MAX);

	/* every WR completed, in order, successfully */
	assert_int_equal(S->s[A].n_ok, NMSG);
	assert_int_equal(S->s[A].n_err, 0);
	for (size_t k = 0, j = 0; k < S->s[A].n_wc; k++) {
		if (S->s[A].wc[k].recv)
			continue;
		assert_int_equal(S->s[A].wc[k].wr_id, j);
		j++;
	}
	/* data, end to end */
	for (int i = 0; i < NMSG; i++) {
		const uint8_t *s = L->src + (size_t)i * MAXSZ;

		switch (L->op[i]) {
		case ROCE_WR_SEND:
		case ROCE_WR_SEND_IMM: {
			const struct roce_wc *wc = NULL;
			uint32_t seen = 0;

			for (size_t k = 0; k < S->s[B].n_wc; k++)
				if (S->s[B].wc[k].recv && seen++ == nsend) {
					wc = &S->s[B].wc[k];
					break;
				}
			assert_non_null(wc);
			assert_int_equal(wc->status, ROCE_WC_SUCCESS);
			assert_int_equal(wc->byte_len, L->size[i]);
			assert_int_equal(wc->wr_id, nsend);
			assert_int_equal(wc->has_imm, L->op[i] == ROCE_WR_SEND_IMM);
			if (L->size[i])
				assert_memory_equal(rbuf + (size_t)wc->wr_id * MAXSZ, s, L->size[i]);
			nsend++;
			break;
		}
		case ROCE_WR_WRITE:
			if (L->size[i])
				assert_memory_equal(mr + (size_t)i * MAXSZ, s, L->size[i]);
			break;
		case ROCE_WR_READ:
			if (L->size[i])
				assert_memory_equal(L->dst + (size_t)i * MAXSZ, mr + (size_t)i * MAXSZ,
						    L->size[i]);
			break;
		case ROCE_WR_FETCH_ADD:
			/* executed exactly once each, in PSN order */
			assert_true(L->orig[i] == 1000 + add_sum);
			add_sum += (uint64_t)i * 3 + 1;
			break;
		default:
			break;
		}
	}
	recv_seen = (uint32_t)S->s[B].n_recv;
	assert_int_equal(recv_seen, nsend);
	assert_true(*counter == 1000 + add_sum);

	/* counters: consistent with each other and with the wire model */
	{
		const struct roce_qp_stats *a = stA(S), *b = stB(S);
		struct roce_qp_info ia, ib;

		roce_qp_info(S->s[A].qp, &ia);
		roce_qp_info(S->s[B].qp, &ib);
		assert_int_equal(ia.next_psn, next_psn_model & 0xffffff);
		assert_int_equal(ib.epsn, next_psn_model & 0xffffff);
		assert_int_equal(a->req_pkts, pkts_total);
		assert_int_equal(b->req_rx, pkts_total);              /* each executed once */
		assert_int_equal(S->m_accept, pkts_total);
		assert_int_equal(b->dup_req_rx, S->m_dup);            /* arrivals of PSNs already executed */
		assert_int_equal(b->oos_req_rx, S->m_oos);
		assert_int_equal(b->nak_tx[ROCE_NAK_PSN_SEQ_ERR], S->m_naks);
		assert_int_equal(a->tx_pkts, a->req_pkts + sum_retx(a));
		assert_int_equal(S->sent[A], a->tx_pkts);
		assert_int_equal(b->rx_pkts, S->delivered[A]);
		assert_int_equal(b->rx_pkts, b->req_rx + b->dup_req_rx + b->oos_req_rx);
		assert_int_equal(b->tx_pkts, b->ack_tx + b->nak_tx[0] + b->rnr_nak_tx + b->read_rsp_tx +
					     b->atomic_ack_tx);
		assert_int_equal(a->rx_pkts, S->delivered[B]);
		assert_int_equal(a->rx_pkts, a->ack_rx + a->nak_rx[0] + a->read_rsp_rx + a->atomic_ack_rx);
		assert_int_equal(a->nak_rx[0], S->dlv_nak[A]);
		assert_int_equal(a->ack_rx + a->nak_rx[0], S->dlv_op[A][ROCE_OP_ACK]);
		assert_int_equal(a->atomic_ack_rx, S->dlv_op[A][ROCE_OP_ATOMIC_ACK]);
		assert_int_equal(a->read_rsp_rx, S->dlv_op[A][ROCE_OP_READ_RESP_FIRST] +
						 S->dlv_op[A][ROCE_OP_READ_RESP_MIDDLE] +
						 S->dlv_op[A][ROCE_OP_READ_RESP_LAST] +
						 S->dlv_op[A][ROCE_OP_READ_RESP_ONLY]);
		assert_int_equal(a->ghost_rsp_rx, 0);
		assert_true(sum_retx(a) > 0);
		assert_true(b->dup_req_rx > 0);
		assert_true(b->oos_req_rx > 0);
		assert_true(a->retx_episodes[ROCE_RETX_NAK] > 0);
		assert_int_equal(a->comp_ok, NMSG);
		assert_true(S->max_rd_out <= 4);
		assert_int_equal(ia.rto_deadline, 0);
		res->a = *a;
		res->b = *b;
		res->end = S->now;
		res->wire_dropped = S->dropped[A] + S->dropped[B];
		res->wire_dup = S->duplicated[A] + S->duplicated[B];
		print_message("  loss %u ppm seed %llu: %.3f ms simulated, wire drop %llu dup %llu reorder %llu;"
			      " A retx timeout/nak/implied %llu/%llu/%llu, B dup %llu oos %llu naks %llu,"
			      " read replays %llu atomic replays %llu\n",
			      drop_ppm, (unsigned long long)seed, S->now / 1e6,
			      (unsigned long long)res->wire_dropped, (unsigned long long)res->wire_dup,
			      (unsigned long long)(S->reordered[A] + S->reordered[B]),
			      (unsigned long long)a->retx_pkts[0], (unsigned long long)a->retx_pkts[1],
			      (unsigned long long)a->retx_pkts[2], (unsigned long long)b->dup_req_rx,
			      (unsigned long long)b->oos_req_rx, (unsigned long long)b->nak_tx[0],
			      (unsigned long long)b->read_replays, (unsigned long long)b->atomic_replays);
	}
	free(L->src);
	free(L->dst);
	free(L);
	free(mr);
	free(rbuf);
	sim_free(S);
}

static void test_loss_1pct(void **state)
{
	struct lossy_result r1, r2;

	(void)state;
	run_lossy(10000, 42, &r1);
	/* same seed, same run: deterministic */
	run_lossy(10000, 42, &r2);
	assert_memory_equal(&r1.a, &r2.a, sizeof(r1.a));
	assert_memory_equal(&r1.b, &r2.b, sizeof(r1.b));
	assert_true(r1.end == r2.end);
}

static void test_loss_5pct(void **state)
{
	struct lossy_result r;

	(void)state;
	run_lossy(50000, 7, &r);
	assert_true(r.b.read_replays > 0);
	assert_true(r.a.retx_pkts[ROCE_RETX_TIMEOUT] > 0);
}

/* ---- a PSN gap at an exact PSN ------------------------------------------------------- */

static void post_sends(struct sim *S, int n, uint32_t len, uint8_t *buf)
{
	for (int i = 0; i < n; i++) {
		struct roce_wr wr = { .wr_id = (uint64_t)i, .op = ROCE_WR_SEND, .buf = buf, .len = len };

		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, S->now), ROCE_OK);
	}
}

static void post_recvs(struct sim *S, int n, uint8_t *buf, uint32_t len)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(roce_qp_post_recv(S->s[B].qp, (uint64_t)i, buf, len, S->now), ROCE_OK);
}

static void gap_case(int kind)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t buf[64], rb[64];
	struct roce_qpf_rule rule = { .kind = (uint8_t)kind, .match = ROCE_QPF_REQ, .opcode = -1,
				      .at_psn = 1, .psn = 103, .times = 1, .arg = 2 };
	struct roce_qp_faults f = { .seed = 1, .rules = &rule, .n_rules = 1 };
	const struct roce_qp_event *e;
	size_t naks = 0;

	fill(buf, sizeof(buf), 1);
	roce_qp_set_faults(S->s[A].qp, &f);
	post_recvs(S, 10, rb, sizeof(rb));
	post_sends(S, 10, 64, buf); /* PSNs 100..109, all sent at t = 0 */
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 10);
	assert_int_equal(S->s[B].n_recv, 10);
	assert_int_equal(rule.fired, 1);
	/* exactly one NAK, PSN sequence error, carrying the expected PSN 103 */
	for (size_t i = 0; i < S->n_log; i++)
		if (S->log[i].from == B && S->log[i].opcode == ROCE_OP_ACK &&
		    ROCE_AETH_TYPE(S->log[i].syn) != ROCE_AETH_ACK) {
			naks++;
			assert_int_equal(S->log[i].syn, 0x60);
			assert_int_equal(S->log[i].psn, 103);
		}
	assert_int_equal(naks, 1);
	assert_int_equal(stB(S)->nak_tx[ROCE_NAK_PSN_SEQ_ERR], 1);
	/* DROP: 104..109 arrive out of sequence; PSN_JUMP: 105 (103 + 2) is
	 * one more out-of-sequence arrival and 105 later a duplicate? no: the
	 * jumped frame arrives before 104, so 104..109 plus it are out of sequence */
	assert_int_equal(stB(S)->oos_req_rx, kind == ROCE_QPF_DROP ? 6 : 7);
	assert_int_equal(stB(S)->dup_req_rx, 0);
	/* go-back-N from 103: 103..109 sent again, because of the NAK */
	assert_int_equal(stA(S)->retx_episodes[ROCE_RETX_NAK], 1);
	assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_NAK], 7);
	assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_TIMEOUT], 0);
	e = find_ev(&S->s[A], ROCE_QPE_RETRANSMIT, 0);
	assert_non_null(e);
	assert_int_equal(e->psn, 103);
	assert_int_equal(e->value, ROCE_RETX_NAK);
	/* the NAK left B when 104 arrived (t = 1 us) and reached A at 2 us */
	assert_true(e->now == 2000);
	/* the packets after the NAK: 103..109 in order */
	{
		size_t i = 0, k = 0;

		while (i < S->n_log && !(S->log[i].from == B && S->log[i].syn == 0x60))
			i++;
		for (; i < S->n_log; i++)
			if (S->log[i].from == A)
				assert_int_equal(S->log[i].psn, 103 + k++);
		assert_int_equal(k, 7);
	}
	sim_free(S);
}

static void test_psn_gap_drop(void **state)
{
	(void)state;
	gap_case(ROCE_QPF_DROP);
}

static void test_psn_gap_jump(void **state)
{
	(void)state;
	gap_case(ROCE_QPF_PSN_JUMP);
}

/* ---- RNR ------------------------------------------------------------------------------ */

static void tweak_rnr2(struct roce_qp_attr *a, int id)
{
	(void)id;
	a->rnr_retry = 2;
}

static void test_rnr(void **state)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t buf[100], rb[100];
	size_t nrnr = 0;
	const struct roce_qp_event *e;

	(void)state;
	fill(buf, sizeof(buf), 5);
	post_sends(S, 1, sizeof(buf), buf);
	/* no receive posted: RNR NAKs every 40 us (timer code 4) plus 2 us RTT */
	sim_run(S, 100 * NS_US);
	for (size_t i = 0; i < S->n_log; i++)
		if (S->log[i].from == B && S->log[i].opcode == ROCE_OP_ACK) {
			assert_int_equal(S->log[i].syn, 0x20 | 4);
			assert_int_equal(S->log[i].psn, 100);
			nrnr++;
		}
	assert_int_equal(nrnr, 3);
	assert_int_equal(stB(S)->rnr_nak_tx, 3);
	assert_int_equal(stA(S)->rnr_nak_rx, 3);
	assert_int_equal(count_log(S, A, ROCE_OP_SEND_ONLY), 3);
	/* sends at 0, 42, 84 us: each RNR NAK arrives 2 us after the send, the
	 * retry leaves 40 us later */
	for (int k = 0; k < 3; k++) {
		size_t seen = 0;

		for (size_t i = 0; i < S->n_log; i++)
			if (S->log[i].from == A && seen++ == (size_t)k)
				assert_true(S->log[i].t == (uint64_t)k * 42 * NS_US);
		e = find_ev(&S->s[A], ROCE_QPE_RNR_WAIT, (size_t)k);
		assert_non_null(e);
		assert_int_equal(e->value, 40);
		assert_true(e->now == (uint64_t)k * 42 * NS_US + 2 * NS_US);
	}
	assert_int_equal(S->s[A].n_ok, 0);
	{
		struct roce_qp_info in;

		roce_qp_info(S->s[A].qp, &in);
		assert_int_equal(in.rnr_left, 7);      /* rnr_retry 7: infinite, never counted */
		assert_true(in.rnr_deadline == 126 * NS_US);
		assert_int_equal(in.rto_deadline, 0);  /* no ACK timeout while waiting */
	}
	/* a receive appears; the next retry completes */
	post_recvs(S, 1, rb, sizeof(rb));
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 1);
	assert_int_equal(S->s[B].n_recv, 1);
	assert_memory_equal(rb, buf, sizeof(buf));
	/* the third wait ended at 126 us: the retry found the receive */
	assert_int_equal(stB(S)->rnr_nak_tx, 3);
	assert_int_equal(stA(S)->retx_episodes[ROCE_RETX_RNR], 3);
	assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_RNR], 3);
	assert_int_equal(stA(S)->timeouts, 0);
	assert_true(S->s[A].wc[0].latency_ns == 128 * NS_US);
	sim_free(S);
}

/* An RNR NAK at 101, then, while its timer runs, an RNR NAK at 102 (all_acked
 * 0) or an ACK of 102 (all_acked 1): the responder has taken 101 since (from
 * an earlier copy), so 101's WR completes and the retry starts at 102, or
 * resends nothing when everything is acknowledged.  Before the fix the timer
 * went back to 101, found no started WR holding it, and sent from the next
 * WR not yet started at an offset of (101 - its first PSN 0) MTUs: rocegen
 * isolation crashed so against rxe (a copy 3.4 M MTUs past a 1 KiB buffer). */
static void rnr_then_covered(int all_acked)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t buf[4][100], fr[256];
	struct roce_frame_spec s;
	struct roce_qp_info in;
	size_t from;
	int n, k = 0;

	S->drop_all_from = A;       /* the responder is played by hand */
	for (int i = 0; i < 4; i++)
		fill(buf[i], sizeof(buf[i]), (uint32_t)(20 + i));
	for (int i = 0; i < 3; i++) {
		struct roce_wr wr = { .wr_id = (uint64_t)i, .op = ROCE_WR_SEND, .buf = buf[i], .len = 100 };

		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, S->now), ROCE_OK);
	}
	roce_qp_frame_spec(S->s[B].qp, &s);
	s.bth.opcode = ROCE_OP_ACK;
	for (uint32_t q = 101; q <= 102; q++) {
		s.bth.psn = q;
		s.ext.msn = q - 100 + (q == 102 && all_acked);
		s.ext.syndrome = q == 102 && all_acked ? 0x1f : 0x20 | 4;   /* ACK, or RNR NAK 40 us */
		n = roce_build(fr, sizeof(fr), &s);
		assert_true(n > 0);
		enqueue(S, A, fr, (uint32_t)n, (q - 101) * 5 * NS_US);   /* at 1 and 6 us */
	}
	sim_run(S, 10 * NS_US);
	assert_int_equal(stA(S)->rnr_nak_rx, all_acked ? 1 : 2);
	assert_int_equal(S->s[A].n_ok, all_acked ? 3 : 2);
	roce_qp_info(S->s[A].qp, &in);
	assert_true(in.rnr_deadline == 41 * NS_US);
	/* posted while it waits: not started until the timer runs out */
	{
		struct roce_wr wr = { .wr_id = 3, .op = ROCE_WR_SEND, .buf = buf[3], .len = 100 };

		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, S->now), ROCE_OK);
	}
	from = S->n_log;
	sim_run(S, 50 * NS_US);
	for (size_t i = from; i < S->n_log; i++) {
		if (S->log[i].from != A)
			continue;
		assert_int_equal(S->log[i].opcode, ROCE_OP_SEND_ONLY);
		assert_int_equal(S->log[i].psn, (all_acked ? 103 : 102) + k);
		assert_int_equal(S->log[i].plen, 100);
		assert_true(S->log[i].t == 41 * NS_US);
		k++;
	}
	assert_int_equal(k, all_acked ? 1 : 2);          /* 103 new; or 102 again and 103 */
	assert_int_equal(stA(S)->retx_episodes[ROCE_RETX_RNR], all_acked ? 0 : 1);
	assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_RNR], all_acked ? 0 : 1);
	sim_free(S);
}

static void test_rnr_then_covered(void **state)
{
	(void)state;
	rnr_then_covered(0);
	rnr_then_covered(1);
}

static void test_rnr_exhausted(void **state)
{
	struct sim *S = sim_new(1024, tweak_rnr2);
	uint8_t buf[8] = { 0 };

	(void)state;
	post_sends(S, 2, sizeof(buf), buf);
	sim_run(S, UINT64_MAX);
	/* rnr_retry 2: three RNR NAKs, then the WR fails and the next is flushed */
	assert_int_equal(stB(S)->rnr_nak_tx, 3);
	assert_int_equal(S->s[A].n_err, 2);
	assert_int_equal(S->s[A].wc[0].status, ROCE_WC_RNR_RETRY_EXC_ERR);
	assert_int_equal(S->s[A].wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	sim_free(S);
}

/* An RNR NAK the responder sends on purpose (fault), with receives posted */
static void test_rnr_fault(void **state)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t buf[8] = { 1 }, rb[8];
	struct roce_qpf_rule rule = { .kind = ROCE_QPF_RNR, .opcode = -1, .at_psn = 1, .psn = 101, .times = 2 };
	struct roce_qp_faults f = { .seed = 1, .rules = &rule, .n_rules = 1 };

	(void)state;
	roce_qp_set_faults(S->s[B].qp, &f);
	post_recvs(S, 3, rb, sizeof(rb));
	post_sends(S, 3, sizeof(buf), buf);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 3);
	assert_int_equal(S->s[B].n_recv, 3);
	assert_int_equal(stB(S)->rnr_nak_tx, 2);
	/* 102 follows 101 after each RNR NAK: out of sequence twice, and no
	 * sequence-error NAK (latched by the RNR NAK) */
	assert_int_equal(stB(S)->oos_req_rx, 2);
	assert_int_equal(stB(S)->nak_tx[0], 0);
	assert_int_equal(stA(S)->retx_episodes[ROCE_RETX_RNR], 2);
	sim_free(S);
}

/* ---- retry exhausted ----------------------------------------------------------------- */

static void tweak_retry3(struct roce_qp_attr *a, int id)
{
	(void)id;
	a->retry_cnt = 3;
	a->timeout = 10;
}

static void test_retry_exhausted(void **state)
{
	struct sim *S = sim_new(1024, tweak_retry3);
	uint8_t buf[8] = { 0 }, rb[8];
	const uint64_t T = 4096ull << 10; /* 4.194304 ms */

	(void)state;
	S->drop_all_from = A;
	post_recvs(S, 2, rb, sizeof(rb));
	post_sends(S, 2, sizeof(buf), buf);
	sim_run(S, UINT64_MAX);
	/* retry_cnt + 1 = 4 timeouts at T, 2T, 3T, 4T; the 4th fails the WR */
	assert_int_equal(stA(S)->timeouts, 4);
	assert_int_equal(count_ev(&S->s[A], ROCE_QPE_TIMEOUT), 4);
	for (size_t k = 0; k < 4; k++) {
		const struct roce_qp_event *e = find_ev(&S->s[A], ROCE_QPE_TIMEOUT, k);

		assert_true(e->now == (k + 1) * T);
		assert_int_equal(e->psn, 100);
		assert_int_equal(e->value, 3 - k);
	}
	assert_int_equal(S->s[A].n_err, 2);
	assert_int_equal(S->s[A].wc[0].status, ROCE_WC_RETRY_EXC_ERR);
	assert_true(S->s[A].wc[0].latency_ns == 4 * T);
	assert_int_equal(S->s[A].wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	/* 2 packets at t = 0, then 2 per retry: 3 retries */
	assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_TIMEOUT], 6);
	assert_int_equal(S->sent[A], 8);
	assert_int_equal(count_ev(&S->s[A], ROCE_QPE_ERROR), 1);
	{
		struct roce_qp_info in;

		roce_qp_info(S->s[A].qp, &in);
		assert_int_equal(in.state, ROCE_QPS_ERR);
		assert_int_equal(in.err, ROCE_WC_RETRY_EXC_ERR);
	}
	assert_true(S->now == 4 * T);
	sim_free(S);
}

static void tweak_retry_inf(struct roce_qp_attr *a, int id)
{
	(void)id;
	a->retry_cnt = 7;
	a->retry7_infinite = 1;
	a->timeout = 4;               /* 65.536 us */
}

/* rxe's reading of retry_cnt 7: retry forever */
static void test_retry7_infinite(void **state)
{
	struct sim *S = sim_new(1024, tweak_retry_inf);
	uint8_t buf[8] = { 3 }, rb[8];
	struct roce_qp_info in;

	(void)state;
	S->drop_all_from = A;
	post_recvs(S, 1, rb, sizeof(rb));
	post_sends(S, 1, sizeof(buf), buf);
	sim_run(S, 20 * 65536);
	assert_int_equal(stA(S)->timeouts, 20);
	roce_qp_info(S->s[A].qp, &in);
	assert_int_equal(in.state, ROCE_QPS_RTS);
	assert_int_equal(in.retry_left, 7);
	S->drop_all_from = -1;
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 1);
	assert_int_equal(stA(S)->timeouts, 21);
	assert_true(S->s[A].wc[0].latency_ns == 21 * 65536 + 2000);
	sim_free(S);
}

/* ---- remote access errors ------------------------------------------------------------ */

static void access_case(int how)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t mr[4096], ref[4096], src[2000], rb[16];
	struct roce_mr m = { MR_KEY, MR_VA, mr, sizeof(mr), MR_ALL };
	struct roce_wr wr = { .wr_id = 5, .op = ROCE_WR_WRITE, .buf = src, .len = sizeof(src),
			      .remote_va = MR_VA, .rkey = MR_KEY };
	struct roce_wr wr2 = { .wr_id = 6, .op = ROCE_WR_SEND, .buf = src, .len = 10 };
	struct roce_qpf_rule rule = { .kind = ROCE_QPF_BAD_RKEY, .match = ROCE_QPF_REQ, .opcode = -1,
				      .at_psn = 1, .psn = 100, .times = 1 };
	struct roce_qp_faults f = { .seed = 1, .rules = &rule, .n_rules = 1 };
	size_t naks = 0;

	fill(mr, sizeof(mr), 1);
	memcpy(ref, mr, sizeof(mr));
	fill(src, sizeof(src), 2);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	post_recvs(S, 1, rb, sizeof(rb));
	switch (how) {
	case 0: wr.rkey = MR_KEY + 1; break;                 /* unknown rkey */
	case 1: wr.remote_va = MR_VA + 4096 - 1000; break;   /* runs past the end */
	case 2: roce_qp_set_faults(S->s[A].qp, &f); break;   /* fault: bad rkey */
	case 3: rule.kind = ROCE_QPF_BAD_VA; roce_qp_set_faults(S->s[A].qp, &f); break;
	case 4: wr.op = ROCE_WR_READ; wr.remote_va = MR_VA - 8; break; /* READ before the start */
	case 5:                                              /* no remote write right */
		m.rkey = MR_KEY + 7;
		m.access = ROCE_ACCESS_REMOTE_READ;
		assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
		wr.rkey = MR_KEY + 7;
		break;
	}
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr2, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);
	for (size_t i = 0; i < S->n_log; i++)
		if (S->log[i].from == B && S->log[i].opcode == ROCE_OP_ACK) {
			assert_int_equal(S->log[i].syn, 0x62);
			assert_int_equal(S->log[i].psn, 100);
			naks++;
		}
	assert_int_equal(naks, 1);
	assert_int_equal(stB(S)->nak_tx[ROCE_NAK_REMOTE_ACCESS], 1);
	assert_int_equal(stA(S)->nak_rx[ROCE_NAK_REMOTE_ACCESS], 1);
	assert_int_equal(S->s[A].n_err, 2);
	assert_int_equal(S->s[A].wc[0].wr_id, 5);
	assert_int_equal(S->s[A].wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(S->s[A].wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	assert_memory_equal(mr, ref, sizeof(mr));            /* nothing written */
	{
		struct roce_qp_info ia, ib;

		roce_qp_info(S->s[A].qp, &ia);
		roce_qp_info(S->s[B].qp, &ib);
		assert_int_equal(ia.state, ROCE_QPS_ERR);
		assert_int_equal(ib.state, ROCE_QPS_ERR);     /* class C on the responder too */
		assert_int_equal(ib.err, ROCE_WC_REM_ACCESS_ERR);
	}
	/* B's posted receive was flushed */
	assert_int_equal(S->s[B].n_recv, 1);
	assert_int_equal(S->s[B].wc[0].status, ROCE_WC_WR_FLUSH_ERR);
	sim_free(S);
}

/* The region's edges: a WRITE ending on its last byte is fine, one byte
 * more is a remote access error; the same for a READ starting on its first. */
static void edge_case(enum roce_wr_op op, uint64_t va, uint32_t len, int ok)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t mr[4096], src[4096];
	struct roce_mr m = { MR_KEY, MR_VA, mr, sizeof(mr), MR_ALL };
	struct roce_wr wr = { .wr_id = 1, .op = op, .buf = src, .len = len, .remote_va = va, .rkey = MR_KEY };

	fill(mr, sizeof(mr), 1);
	fill(src, sizeof(src), 2);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, ok);
	assert_int_equal(stB(S)->nak_tx[ROCE_NAK_REMOTE_ACCESS], !ok);
	if (ok && op == ROCE_WR_WRITE)
		assert_memory_equal(mr + (va - MR_VA), src, len);
	if (ok && op == ROCE_WR_READ)
		assert_memory_equal(src, mr + (va - MR_VA), len);
	sim_free(S);
}

static void test_bad_rkey(void **state)
{
	(void)state;
	for (int how = 0; how < 6; how++)
		access_case(how);
	edge_case(ROCE_WR_WRITE, MR_VA + 4096 - 1500, 1500, 1);
	edge_case(ROCE_WR_WRITE, MR_VA + 4096 - 1500, 1501, 0);
	edge_case(ROCE_WR_WRITE, MR_VA + 4096, 1, 0);
	edge_case(ROCE_WR_WRITE, MR_VA + 4097, 1, 0);
	edge_case(ROCE_WR_WRITE, MR_VA + 4096, 0, 1);        /* zero length: not checked (C9-88) */
	edge_case(ROCE_WR_READ, MR_VA, 4096, 1);
	edge_case(ROCE_WR_READ, MR_VA - 1, 10, 0);
	edge_case(ROCE_WR_READ, MR_VA + 1, 4096, 0);
}

/* ---- atomics executed once -------------------------------------------------------- */

static void atomic_case(int withhold)
{
	struct sim *S = sim_new(1024, NULL);
	uint64_t mem[4] = { 0, 500, 0, 0 }, orig = 0;
	struct roce_mr m = { MR_KEY, MR_VA, (uint8_t *)mem, sizeof(mem), MR_ALL };
	struct roce_wr wr = { .wr_id = 1, .op = ROCE_WR_FETCH_ADD, .buf = (uint8_t *)&orig, .len = 8,
			      .remote_va = MR_VA + 8, .rkey = MR_KEY, .swap_add = 7 };
	struct roce_qpf_rule ra = { .kind = ROCE_QPF_DUP, .match = ROCE_QPF_REQ, .opcode = -1,
				    .at_psn = 1, .psn = 100, .times = 1 };
	struct roce_qpf_rule rb = { .kind = ROCE_QPF_DROP, .match = ROCE_QPF_RSP, .opcode = ROCE_OP_ATOMIC_ACK,
				    .at_psn = 1, .psn = 100, .times = 1 };
	struct roce_qp_faults fa = { .seed = 1, .rules = &ra, .n_rules = 1 };
	struct roce_qp_faults fb = { .seed = 1, .rules = &rb, .n_rules = 1 };

	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	if (withhold)
		roce_qp_set_faults(S->s[B].qp, &fb);
	else
		roce_qp_set_faults(S->s[A].qp, &fa);
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 1);
	assert_true(orig == 500);
	assert_true(mem[1] == 507);                            /* one add */
	assert_int_equal(stB(S)->req_rx, 1);
	assert_int_equal(stB(S)->dup_req_rx, 1);
	assert_int_equal(stB(S)->atomic_replays, 1);
	/* a fault-dropped frame never reaches the wire (nor the log) */
	assert_int_equal(count_log(S, B, ROCE_OP_ATOMIC_ACK), withhold ? 1 : 2);
	for (size_t i = 0; i < S->n_log; i++)
		if (S->log[i].opcode == ROCE_OP_ATOMIC_ACK)
			assert_true(S->log[i].orig == 500);
	if (withhold) {
		assert_int_equal(stA(S)->timeouts, 1);
		assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_TIMEOUT], 1);
	} else {
		assert_int_equal(stA(S)->dup_rsp_rx, 1);
		assert_int_equal(sum_retx(stA(S)), 0);
	}
	sim_free(S);
}

static void test_dup_atomic(void **state)
{
	(void)state;
	atomic_case(0);
	atomic_case(1);
}

/* A duplicate SEND after a FETCH_ADD was executed is ACKed at its own PSN:
 * an ACK at the atomic's PSN would stand for the ATOMIC ACK (rxe completes
 * the atomic on it, without the original value).  Both responses of B are
 * withheld once, A times out and sends SEND 100 and FETCH_ADD 101 again. */
static void test_dup_ack_not_over_atomic(void **state)
{
	struct sim *S = sim_new(1024, NULL);
	uint64_t mem[2] = { 0, 40 }, orig = 0;
	uint8_t buf[64], rb[64];
	struct roce_mr m = { MR_KEY, MR_VA, (uint8_t *)mem, sizeof(mem), MR_ALL };
	struct roce_wr wr = { .wr_id = 9, .op = ROCE_WR_FETCH_ADD, .buf = (uint8_t *)&orig, .len = 8,
			      .remote_va = MR_VA + 8, .rkey = MR_KEY, .swap_add = 2 };
	struct roce_qpf_rule r[2] = {
		{ .kind = ROCE_QPF_DROP, .match = ROCE_QPF_RSP, .opcode = -1, .at_psn = 1, .psn = 100, .times = 1 },
		{ .kind = ROCE_QPF_DROP, .match = ROCE_QPF_RSP, .opcode = -1, .at_psn = 1, .psn = 101, .times = 1 },
	};
	struct roce_qp_faults f = { .seed = 1, .rules = r, .n_rules = 2 };
	int acks_100 = 0;

	(void)state;
	fill(buf, sizeof(buf), 3);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	roce_qp_set_faults(S->s[B].qp, &f);
	post_recvs(S, 1, rb, sizeof(rb));
	post_sends(S, 1, sizeof(buf), buf);
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 2);
	assert_true(orig == 40 && mem[1] == 42);
	assert_int_equal(r[0].fired + r[1].fired, 2);
	assert_int_equal(stB(S)->dup_req_rx, 2);
	assert_int_equal(stB(S)->atomic_replays, 1);
	for (size_t i = 0; i < S->n_log; i++) {
		if (S->log[i].from != B || S->log[i].opcode != ROCE_OP_ACK)
			continue;
		assert_int_not_equal(S->log[i].psn, 101);   /* never a plain ACK at the atomic */
		acks_100 += S->log[i].psn == 100;
	}
	assert_int_equal(acks_100, 1);                     /* the re-ACK of the duplicate SEND */
	sim_free(S);
}

/* CMP_SWAP: a failing compare leaves memory alone and returns the value */
static void test_cmp_swap_fail(void **state)
{
	struct sim *S = sim_new(256, NULL);
	uint64_t mem[2] = { 42, 0 }, orig = 0;
	struct roce_mr m = { MR_KEY, MR_VA, (uint8_t *)mem, sizeof(mem), MR_ALL };
	struct roce_wr wr = { .wr_id = 1, .op = ROCE_WR_CMP_SWAP, .buf = (uint8_t *)&orig, .len = 8,
			      .remote_va = MR_VA, .rkey = MR_KEY, .compare = 41, .swap_add = 9 };

	(void)state;
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	wr.compare = 42;
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 2);
	assert_true(S->s[A].wc[0].orig == 42);
	assert_true(S->s[A].wc[1].orig == 42);
	assert_true(mem[0] == 9);
	/* misaligned: invalid request */
	sim_free(S);
	S = sim_new(256, NULL);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	wr.remote_va = MR_VA + 4;
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_err, 1);
	assert_int_equal(S->s[A].wc[0].status, ROCE_WC_REM_INV_REQ_ERR);
	assert_int_equal(stB(S)->nak_tx[ROCE_NAK_INVALID_REQ], 1);
	sim_free(S);
}

/* ---- duplicate READs replayed ---------------------------------------------------- */

static void read_case(int partial)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t mr[8192], dst[4096];
	struct roce_mr m = { MR_KEY, MR_VA, mr, sizeof(mr), MR_ALL };
	struct roce_wr wr = { .wr_id = 1, .op = ROCE_WR_READ, .buf = dst, .len = 4000,
			      .remote_va = MR_VA + 100, .rkey = MR_KEY };
	size_t nreq = 0;
	const struct roce_qp_event *e;

	fill(mr, sizeof(mr), 11);
	memset(dst, 0, sizeof(dst));
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	if (partial) {
		/* READ at PSN 100 takes 100..103; lose the MIDDLE at 102 once */
		S->ldrop[0] = (struct ldrop){ B, ROCE_OP_READ_RESP_MIDDLE, 102, 1 };
	} else {
		/* lose every response of the first round */
		for (int i = 0; i < 4; i++)
			S->ldrop[i] = (struct ldrop){ B, -1, 100 + (uint32_t)i, 1 };
		S->n_ldrop = 4;
	}
	S->n_ldrop = partial ? 1 : 4;
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 1);
	assert_memory_equal(dst, mr + 100, 4000);
	assert_int_equal(stB(S)->req_rx, 1);
	assert_int_equal(stB(S)->dup_req_rx, 1);
	assert_int_equal(stB(S)->read_replays, 1);
	for (size_t i = 0; i < S->n_log; i++) {
		struct flog *l = &S->log[i];

		if (l->from != A)
			continue;
		assert_int_equal(l->opcode, ROCE_OP_READ_REQUEST);
		if (nreq++ == 0) {
			assert_int_equal(l->psn, 100);
			assert_true(l->va == MR_VA + 100);
			assert_int_equal(l->dmalen, 4000);
		} else if (partial) {
			/* a new READ from the gap: PSN 102, VA + 2 MTU, the rest */
			assert_int_equal(l->psn, 102);
			assert_true(l->va == MR_VA + 100 + 2048);
			assert_int_equal(l->dmalen, 4000 - 2048);
		} else {
			assert_int_equal(l->psn, 100);
			assert_int_equal(l->dmalen, 4000);
		}
	}
	assert_int_equal(nreq, 2);
	e = find_ev(&S->s[B], ROCE_QPE_READ_REPLAY, 0);
	assert_non_null(e);
	assert_int_equal(e->psn, partial ? 102 : 100);
	assert_int_equal(e->value, partial ? 2 : 4);
	assert_int_equal(stB(S)->read_rsp_tx, partial ? 6 : 8);
	if (partial) {
		assert_int_equal(stA(S)->implied_naks, 1);
		assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_IMPLIED], 1);
		assert_int_equal(stA(S)->timeouts, 0);
		/* the implied NAK is the arrival of 103 at 2 us; the new READ leaves then */
		e = find_ev(&S->s[A], ROCE_QPE_RETRANSMIT, 0);
		assert_int_equal(e->psn, 102);
		assert_int_equal(e->value, ROCE_RETX_IMPLIED);
		assert_true(e->now == 2000);
	} else {
		assert_int_equal(stA(S)->timeouts, 1);
		assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_TIMEOUT], 1);
	}
	sim_free(S);
}

static void test_dup_read_full(void **state)
{
	(void)state;
	read_case(0);
}

static void test_dup_read_partial(void **state)
{
	(void)state;
	read_case(1);
}

/* ---- PSN wrap ------------------------------------------------------------------------ */

static void tweak_wrap(struct roce_qp_attr *a, int id)
{
	if (id == A)
		a->sq_psn = 0xfffff0;
	else
		a->rq_psn = 0xfffff0;
}

static void test_psn_wrap(void **state)
{
	struct sim *S = sim_new(1024, tweak_wrap);
	size_t len = 65536;
	uint8_t *mr = calloc(1, 3 * len), *src = malloc(len), *rd = calloc(1, len);
	struct roce_mr m = { MR_KEY, MR_VA, mr, 3 * len, MR_ALL };
	struct roce_wr w1 = { .wr_id = 1, .op = ROCE_WR_WRITE, .buf = src, .len = (uint32_t)len,
			      .remote_va = MR_VA, .rkey = MR_KEY };
	struct roce_wr w2 = { .wr_id = 2, .op = ROCE_WR_READ, .buf = rd, .len = (uint32_t)len,
			      .remote_va = MR_VA + len, .rkey = MR_KEY };
	int seen_ffffff = 0, seen_0 = 0;
	struct roce_qp_info ia, ib;

	(void)state;
	fill(src, len, 3);
	fill(mr + len, len, 4);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	S->rng = 99;
	S->drop_ppm = 30000;
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &w1, 0), ROCE_OK);
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &w2, 0), ROCE_OK);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 2);
	assert_memory_equal(mr, src, len);
	assert_memory_equal(rd, mr + len, len);
	for (size_t i = 0; i < S->n_log; i++) {
		seen_ffffff |= S->log[i].psn == 0xffffff;
		seen_0 |= S->log[i].psn == 0;
	}
	assert_true(seen_ffffff && seen_0);
	roce_qp_info(S->s[A].qp, &ia);
	roce_qp_info(S->s[B].qp, &ib);
	assert_int_equal(ia.next_psn, (0xfffff0 + 128) & 0xffffff);
	assert_int_equal(ia.una_psn, 0x70);
	assert_int_equal(ib.epsn, 0x70);
	assert_int_equal(stB(S)->req_rx, 65);
	assert_true(sum_retx(stA(S)) > 0);
	free(mr);
	free(src);
	free(rd);
	sim_free(S);
}

/* ---- withheld and delayed ACKs -------------------------------------------------------- */

static void test_withheld_ack(void **state)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t buf[3000], rb[3000];
	struct roce_qpf_rule rule = { .kind = ROCE_QPF_DROP, .match = ROCE_QPF_ACK, .opcode = -1,
				      .at_psn = 0, .ppm = 1000000, .times = 1 };
	struct roce_qp_faults f = { .seed = 1, .rules = &rule, .n_rules = 1 };
	const uint64_t T = 4096ull << 8;
	const struct roce_qp_event *e;

	(void)state;
	fill(buf, sizeof(buf), 8);
	roce_qp_set_faults(S->s[B].qp, &f);
	post_recvs(S, 1, rb, sizeof(rb));
	post_sends(S, 1, sizeof(buf), buf);   /* 3 packets, 100..102, at t = 0 */
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 1);
	assert_memory_equal(rb, buf, sizeof(buf));
	assert_int_equal(rule.fired, 1);
	assert_int_equal(stA(S)->timeouts, 1);
	e = find_ev(&S->s[A], ROCE_QPE_TIMEOUT, 0);
	assert_true(e->now == T);             /* the local ACK timeout, measured */
	assert_int_equal(e->psn, 100);
	assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_TIMEOUT], 3);
	assert_int_equal(stB(S)->dup_req_rx, 3);
	assert_int_equal(S->s[B].n_recv, 1);  /* not executed again */
	assert_int_equal(stB(S)->ack_tx, 2);  /* the withheld one and the re-ACK of 102 */
	assert_true(S->s[A].wc[0].latency_ns == T + 2000);
	sim_free(S);
}

static void test_delayed_ack(void **state)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t buf[10], rb[10];
	struct roce_qpf_rule rule = { .kind = ROCE_QPF_DELAY, .match = ROCE_QPF_ACK, .opcode = -1,
				      .ppm = 1000000, .delay_ns = 500000 };
	struct roce_qp_faults f = { .seed = 1, .rules = &rule, .n_rules = 1 };

	(void)state;
	roce_qp_set_faults(S->s[B].qp, &f);
	post_recvs(S, 1, rb, sizeof(rb));
	post_sends(S, 1, sizeof(buf), buf);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 1);
	assert_int_equal(stA(S)->timeouts, 0);   /* 0.5 ms < 1.05 ms */
	assert_true(S->s[A].wc[0].latency_ns == 500000 + 2000);
	sim_free(S);
}

/* ---- broken requests: invalid request NAK --------------------------------------------- */

static void invalid_case(int how)
{
	struct sim *S = sim_new(256, NULL);
	uint8_t pl[300], rb[2048], mr[1024];
	struct roce_mr m = { MR_KEY, MR_VA, mr, sizeof(mr), MR_ALL };
	struct roce_frame_spec s;
	size_t naks = 0;

	fill(pl, sizeof(pl), 1);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	post_recvs(S, 1, rb, sizeof(rb));
	roce_qp_frame_spec(S->s[A].qp, &s);
	s.bth.psn = 100;
	s.bth.ackreq = 1;
	s.payload = pl;
	switch (how) {
	case 0: /* MIDDLE without FIRST */
		s.bth.opcode = ROCE_OP_SEND_MIDDLE;
		s.payload_len = 256;
		break;
	case 1: /* LAST without FIRST */
		s.bth.opcode = ROCE_OP_WRITE_LAST;
		s.payload_len = 10;
		break;
	case 2: /* FIRST shorter than the MTU (with its pad) */
		s.bth.opcode = ROCE_OP_SEND_FIRST;
		s.payload_len = 253;
		break;
	case 3: /* a pad that does not make whole words */
		s.bth.opcode = ROCE_OP_SEND_ONLY;
		s.payload_len = 8;
		s.bth.pad = 1;
		break;
	case 4: /* WRITE ONLY whose payload disagrees with the RETH length */
		s.bth.opcode = ROCE_OP_WRITE_ONLY;
		s.payload_len = 100;
		s.ext.va = MR_VA;
		s.ext.rkey = MR_KEY;
		s.ext.dmalen = 101;
		break;
	case 5: /* SEND larger than the receive buffer: 2048 + 256 */
		break;
	case 6: /* SEND_FIRST, then a READ request inside the message */
	case 7: /* SEND_FIRST, then SEND_ONLY inside the message */
		s.bth.opcode = ROCE_OP_SEND_FIRST;
		s.bth.ackreq = 0;
		s.payload_len = 256;
		assert_true(roce_qp_emit_spec(S->s[A].qp, &s) > 0);
		s.bth.psn = 101;
		s.bth.ackreq = 1;
		if (how == 6) {
			s.bth.opcode = ROCE_OP_READ_REQUEST;
			s.payload_len = 0;
			s.ext.va = MR_VA;
			s.ext.rkey = MR_KEY;
			s.ext.dmalen = 16;
		} else {
			s.bth.opcode = ROCE_OP_SEND_ONLY;
			s.payload_len = 10;
		}
		break;
	}
	if (how == 5) {
		uint8_t big[2304];
		struct roce_wr wr = { .wr_id = 1, .op = ROCE_WR_SEND, .buf = big, .len = sizeof(big) };

		fill(big, sizeof(big), 3);
		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	} else {
		/* a hand-made frame; cases 2 and 3 break the format checks of
		 * emit_cb on purpose, so they go straight onto the wire */
		if (how == 2 || how == 3) {
			uint8_t fr[512];
			int n = roce_build(fr, sizeof(fr), &s);

			assert_true(n > 0);
			S->allow_invalid = 1;
			enqueue(S, B, fr, (uint32_t)n, 0);
		} else {
			assert_true(roce_qp_emit_spec(S->s[A].qp, &s) > 0);
		}
	}
	sim_run(S, UINT64_MAX);
	for (size_t i = 0; i < S->n_log; i++)
		if (S->log[i].from == B && S->log[i].opcode == ROCE_OP_ACK) {
			assert_int_equal(S->log[i].syn, 0x61);
			assert_int_equal(S->log[i].psn, how == 5 ? 108 : how >= 6 ? 101 : 100);
			naks++;
		}
	assert_int_equal(naks, 1);
	assert_int_equal(stB(S)->nak_tx[ROCE_NAK_INVALID_REQ], 1);
	{
		struct roce_qp_info ib;

		roce_qp_info(S->s[B].qp, &ib);
		assert_int_equal(ib.state, ROCE_QPS_ERR);
		assert_int_equal(ib.err, how == 5 ? ROCE_WC_LOC_LEN_ERR : ROCE_WC_REM_INV_REQ_ERR);
	}
	if (how == 5) {
		assert_int_equal(S->s[A].n_err, 1);
		assert_int_equal(S->s[A].wc[0].status, ROCE_WC_REM_INV_REQ_ERR);
		assert_int_equal(S->s[B].wc[0].status, ROCE_WC_LOC_LEN_ERR);
	}
	sim_free(S);
}

static void test_invalid_request(void **state)
{
	(void)state;
	for (int how = 0; how < 8; how++)
		invalid_case(how);
}

/* ---- a bad ICRC is dropped silently ----------------------------------------------- */

static void test_bad_icrc(void **state)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t buf[10], rb[10];
	struct roce_qpf_rule rule = { .kind = ROCE_QPF_CORRUPT, .match = ROCE_QPF_REQ, .opcode = -1,
				      .at_psn = 1, .psn = 100, .times = 1 };
	struct roce_qp_faults f = { .seed = 1, .rules = &rule, .n_rules = 1 };

	(void)state;
	S->allow_bad_icrc = 1;
	roce_qp_set_faults(S->s[A].qp, &f);
	post_recvs(S, 1, rb, sizeof(rb));
	post_sends(S, 1, sizeof(buf), buf);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->icrc_bad[A], 1);
	assert_int_equal(stB(S)->icrc_bad_rx, 1);
	assert_int_equal(stB(S)->req_rx, 1);
	assert_int_equal(stB(S)->nak_tx[0] + stB(S)->nak_tx[1] + stB(S)->rnr_nak_tx, 0);
	assert_int_equal(stB(S)->ack_tx, 1);
	assert_int_equal(stA(S)->timeouts, 1);
	assert_int_equal(S->s[A].n_ok, 1);
	sim_free(S);
}

/* ---- ECN-CE and CNPs ------------------------------------------------------------------ */

static void tweak_cnp(struct roce_qp_attr *a, int id)
{
	if (id == B) {
		a->send_cnp = 1;
		a->cnp_gap_ns = 50000;
	}
	a->sq_depth = 128;
}

static void test_ecn_cnp(void **state)
{
	struct sim *S = sim_new(1024, tweak_cnp);
	uint8_t buf[10], rb[10];
	struct roce_qpf_rule rule = { .kind = ROCE_QPF_ECN_CE, .match = ROCE_QPF_REQ, .opcode = -1,
				      .ppm = 1000000 };
	struct roce_qp_faults f = { .seed = 1, .rules = &rule, .n_rules = 1 };

	(void)state;
	roce_qp_set_faults(S->s[A].qp, &f);
	post_recvs(S, 100, rb, sizeof(rb));
	/* one SEND every 10 us for 1 ms: CE on every one, a CNP at most every 50 us */
	for (int i = 0; i < 100; i++) {
		sim_run(S, (uint64_t)i * 10000);
		S->now = (uint64_t)i * 10000;
		post_sends(S, 1, sizeof(buf), buf);
	}
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 100);
	assert_int_equal(stB(S)->ecn_ce_rx, 100);
	/* arrivals at 1, 11, .. 991 us: CNPs at 1, 51, .. 951 us */
	assert_int_equal(stB(S)->cnp_tx, 20);
	assert_int_equal(stA(S)->cnp_rx, 20);
	assert_int_equal(count_log(S, B, ROCE_OPCODE_CNP), 20);
	for (size_t i = 0, k = 0; i < S->n_log; i++)
		if (S->log[i].opcode == ROCE_OPCODE_CNP) {
			assert_true(S->log[i].t == 1000 + 50000 * k++);
			assert_int_equal(S->log[i].dqpn, QPN_A);
		}
	sim_free(S);
}

/* ---- ACK coalescing, READ/atomic depth, tx_burst ---------------------------------------- */

static void tweak_ack4(struct roce_qp_attr *a, int id)
{
	if (id == B)
		a->ack_every = 4;
}

static void test_ack_coalescing(void **state)
{
	struct sim *S = sim_new(256, NULL);
	uint8_t buf[2560], rb[2560];
	size_t k = 0;
	static const uint32_t want[] = { 103, 107, 109 };

	(void)state;
	fill(buf, sizeof(buf), 1);
	post_recvs(S, 1, rb, sizeof(rb));
	post_sends(S, 1, sizeof(buf), buf);   /* 10 packets */
	sim_run(S, UINT64_MAX);
	assert_int_equal(stB(S)->ack_tx, 1);  /* only the AckReq on LAST */
	sim_free(S);

	S = sim_new(256, tweak_ack4);
	post_recvs(S, 1, rb, sizeof(rb));
	post_sends(S, 1, sizeof(buf), buf);
	sim_run(S, UINT64_MAX);
	assert_int_equal(stB(S)->ack_tx, 3);
	for (size_t i = 0; i < S->n_log; i++)
		if (S->log[i].from == B) {
			assert_int_equal(S->log[i].syn, 0x1f);
			assert_int_equal(S->log[i].psn, want[k++]);
		}
	assert_int_equal(k, 3);
	assert_int_equal(S->s[A].n_ok, 1);
	assert_memory_equal(rb, buf, sizeof(buf));
	sim_free(S);
}

static void tweak_depth2(struct roce_qp_attr *a, int id)
{
	(void)id;
	a->max_rd_atomic = 2;
}

static void test_rd_atomic_depth(void **state)
{
	struct sim *S = sim_new(1024, tweak_depth2);
	uint8_t mr[8192], dst[8][1000];
	struct roce_mr m = { MR_KEY, MR_VA, mr, sizeof(mr), MR_ALL };
	size_t before_first_rsp = 0;

	(void)state;
	fill(mr, sizeof(mr), 2);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	for (int i = 0; i < 8; i++) {
		struct roce_wr wr = { .wr_id = (uint64_t)i, .op = ROCE_WR_READ, .buf = dst[i], .len = 1000,
				      .remote_va = MR_VA + (uint64_t)i * 1000, .rkey = MR_KEY };

		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	}
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 8);
	for (int i = 0; i < 8; i++)
		assert_memory_equal(dst[i], mr + i * 1000, 1000);
	for (size_t i = 0; i < S->n_log && S->log[i].from == A; i++)
		before_first_rsp++;
	assert_int_equal(before_first_rsp, 2);
	assert_int_equal(S->max_rd_out, 2);
	sim_free(S);
}

static void tweak_burst(struct roce_qp_attr *a, int id)
{
	(void)id;
	a->tx_burst = 4;
}

static void test_tx_burst(void **state)
{
	struct sim *S = sim_new(1024, tweak_burst);
	size_t len = 65536;
	uint8_t *mr = calloc(1, len), *src = malloc(len);
	struct roce_mr m = { MR_KEY, MR_VA, mr, len, MR_ALL };
	struct roce_wr wr = { .wr_id = 1, .op = ROCE_WR_WRITE, .buf = src, .len = (uint32_t)len,
			      .remote_va = MR_VA, .rkey = MR_KEY };

	(void)state;
	fill(src, len, 1);
	assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
	assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
	assert_int_equal(S->sent[A], 4);
	assert_true(roce_qp_next_deadline(S->s[A].qp) == 0);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 1);
	assert_int_equal(S->sent[A], 64);
	assert_memory_equal(mr, src, len);
	free(mr);
	free(src);
	sim_free(S);
}

/* ---- engine faults: dup and reorder of requests ---------------------------------------- */

static void test_dup_reorder_faults(void **state)
{
	struct sim *S = sim_new(1024, NULL);
	uint8_t buf[10], rb[10];
	struct roce_qpf_rule rules[2] = {
		{ .kind = ROCE_QPF_REORDER, .match = ROCE_QPF_REQ, .opcode = -1, .at_psn = 1, .psn = 102, .times = 1 },
		{ .kind = ROCE_QPF_DUP, .match = ROCE_QPF_REQ, .opcode = -1, .at_psn = 1, .psn = 105, .times = 1 },
	};
	struct roce_qp_faults f = { .seed = 1, .rules = rules, .n_rules = 2 };
	static const uint32_t order[] = { 100, 101, 103, 102, 104, 105, 105, 106, 107 };
	size_t k = 0;

	(void)state;
	roce_qp_set_faults(S->s[A].qp, &f);
	post_recvs(S, 8, rb, sizeof(rb));
	post_sends(S, 8, sizeof(buf), buf);
	/* the first transmissions, in emission order */
	for (size_t i = 0; i < S->n_log && k < 9; i++)
		if (S->log[i].from == A)
			assert_int_equal(S->log[i].psn, order[k++]);
	assert_int_equal(k, 9);
	sim_run(S, UINT64_MAX);
	assert_int_equal(S->s[A].n_ok, 8);
	assert_int_equal(S->s[B].n_recv, 8);
	/* B: 103 out of sequence (NAK 102); the late 102 is accepted and ends
	 * that episode, so 104 is out of sequence again (NAK 103), and 105,
	 * its copy, 106 and 107 silently.  A goes back to 102 on the first
	 * NAK (102..107) and to 103 on the second (103..107): 102 and the
	 * second 103..107 are duplicates. */
	assert_int_equal(stB(S)->nak_tx[0], 2);
	assert_int_equal(stB(S)->oos_req_rx, 6);
	assert_int_equal(stB(S)->dup_req_rx, 6);
	assert_int_equal(stB(S)->req_rx, 8);
	assert_int_equal(stA(S)->retx_episodes[ROCE_RETX_NAK], 2);
	assert_int_equal(stA(S)->retx_pkts[ROCE_RETX_NAK], 11);
	assert_int_equal(stA(S)->faults[ROCE_QPF_REORDER], 1);
	assert_int_equal(stA(S)->faults[ROCE_QPF_DUP], 1);
	sim_free(S);
}

/* ---- both directions at once, IPv6 + VLAN and RoCEv1 ----------------------------- */

static enum roce_version g_ver;
static int g_ipv6;

static void tweak_bidir(struct roce_qp_attr *a, int id)
{
	a->version = g_ver;
	if (g_ipv6) {
		uint8_t x[16] = { 0xfe, 0x80, [15] = 0xa }, y[16] = { 0xfe, 0x80, [15] = 0xb };

		a->ip.version = 6;
		memcpy(a->ip.src, id == A ? x : y, 16);
		memcpy(a->ip.dst, id == A ? y : x, 16);
		a->eth.n_vlan = 1;
		a->eth.vlan[0].vid = 100;
		a->eth.vlan[0].pcp = 3;
	}
	a->sq_depth = 8;
	a->timeout = 6;
	a->sq_psn = id == A ? 0xffff00 : 0x7fff80;   /* both wrap or cross 2^23 */
	a->rq_psn = id == A ? 0x7fff80 : 0xffff00;
}

#define BIMSG 300
#define BISZ 3000

static void run_bidir(enum roce_version ver, int ipv6)
{
	struct sim *S;
	uint8_t *mr[2], *src[2], *rbuf[2], *rd[2];
	size_t mrlen = (size_t)BIMSG * BISZ;
	uint32_t posted[2] = { 0, 0 }, nsend[2] = { 0, 0 };

	g_ver = ver;
	g_ipv6 = ipv6;
	S = sim_new(1024, tweak_bidir);
	S->rng = 5;
	S->drop_ppm = 20000;
	S->dup_ppm = 10000;
	S->reorder_ppm = 10000;
	for (int i = 0; i < 2; i++) {
		struct roce_mr m = { MR_KEY + (uint32_t)i, MR_VA, NULL, mrlen, MR_ALL };

		mr[i] = calloc(1, mrlen);
		src[i] = malloc(mrlen);
		rbuf[i] = calloc(1, mrlen);
		rd[i] = calloc(1, mrlen);
		assert_true(mr[i] && src[i] && rbuf[i] && rd[i]);
		m.addr = mr[i];
		fill(mr[i], mrlen, 50 + (uint32_t)i);
		fill(src[i], mrlen, 60 + (uint32_t)i);
		assert_int_equal(roce_qp_reg_mr(S->s[i].qp, &m), ROCE_OK);
		for (int k = 0; k < BIMSG / 3; k++)
			assert_int_equal(roce_qp_post_recv(S->s[i].qp, (uint64_t)k, rbuf[i] + (size_t)k * BISZ,
							   BISZ, 0), ROCE_OK);
	}
	while (S->s[A].n_ok + S->s[A].n_err < BIMSG || S->s[B].n_ok + S->s[B].n_err < BIMSG) {
		for (int i = 0; i < 2; i++)
			while (posted[i] < BIMSG) {
				uint32_t k = posted[i];
				struct roce_wr wr = { .wr_id = k, .op = (enum roce_wr_op[]){ ROCE_WR_SEND, ROCE_WR_WRITE,
							ROCE_WR_READ }[k % 3],
						      .buf = src[i] + (size_t)k * BISZ, .len = (k * 37) % BISZ,
						      .remote_va = MR_VA + (size_t)k * BISZ, .rkey = MR_KEY + (uint32_t)!i };

				if (wr.op == ROCE_WR_READ)
					wr.buf = rd[i] + (size_t)k * BISZ;
				if (roce_qp_post_send(S->s[i].qp, &wr, S->now) == ROCE_ENOSPC)
					break;
				posted[i]++;
			}
		assert_true(sim_step(S, UINT64_MAX));
	}
	sim_run(S, UINT64_MAX);
	for (int i = 0; i < 2; i++) {
		int j = !i;

		assert_int_equal(S->s[i].n_ok, BIMSG);
		assert_int_equal(S->s[i].n_err, 0);
		for (uint32_t k = 0; k < BIMSG; k++) {
			uint32_t len = (k * 37) % BISZ;
			const uint8_t *s_ = src[i] + (size_t)k * BISZ;

			if (!len)
				continue;
			switch (k % 3) {
			case 0: /* SEND number k/3 went to j's receive k/3 */
				assert_memory_equal(rbuf[j] + (size_t)(k / 3) * BISZ, s_, len);
				nsend[i]++;
				break;
			case 1:
				assert_memory_equal(mr[j] + (size_t)k * BISZ, s_, len);
				break;
			case 2:
				assert_memory_equal(rd[i] + (size_t)k * BISZ, mr[j] + (size_t)k * BISZ, len);
				break;
			}
		}
		assert_int_equal(S->s[j].n_recv, BIMSG / 3);
		assert_true(sum_retx(roce_qp_stats(S->s[i].qp)) > 0);
		assert_int_equal(roce_qp_stats(S->s[i].qp)->req_rx,
				 roce_qp_stats(S->s[j].qp)->req_pkts);
	}
	for (int i = 0; i < 2; i++) {
		free(mr[i]);
		free(src[i]);
		free(rbuf[i]);
		free(rd[i]);
	}
	sim_free(S);
}

static void test_bidir_ipv6_vlan(void **state)
{
	(void)state;
	run_bidir(ROCE_VER_V2, 1);
}

static void test_bidir_rocev1(void **state)
{
	(void)state;
	run_bidir(ROCE_VER_V1, 1);
}

/* ---- latency summary ------------------------------------------------------------------ */

static void test_lat_summary(void **state)
{
	uint64_t v[1000];
	struct roce_lat l;
	struct roce_lat_summary s;

	(void)state;
	roce_lat_init(&l, v, 1000);
	roce_lat_summarize(&l, &s);
	assert_int_equal(s.n, 0);
	for (int i = 1000; i >= 1; i--)
		roce_lat_add(&l, (uint64_t)i * 10);
	roce_lat_add(&l, 5);
	assert_int_equal(l.overflow, 1);
	roce_lat_summarize(&l, &s);
	assert_int_equal(s.n, 1000);
	assert_int_equal(s.min, 10);
	assert_int_equal(s.max, 10000);
	assert_int_equal(s.typical, 5000);
	assert_int_equal(s.p99, 9900);
	assert_int_equal(s.p999, 9990);
	assert_true(s.avg > 5004.9 && s.avg < 5005.1);
}

/* ---- API checks ------------------------------------------------------------------------ */

static void test_api(void **state)
{
	struct roce_qp_attr a;
	struct roce_qp *qp;
	struct roce_qp_ops ops = { .emit = emit_cb };
	uint8_t small[64];

	(void)state;
	base_attr(&a, A, 1000);
	assert_int_equal(roce_qp_mem_size(&a), 0);
	a.mtu = 1024;
	assert_true(roce_qp_mem_size(&a) > 0);
	assert_int_equal(roce_qp_init(&qp, small, sizeof(small), &a, &ops), ROCE_EARG);
	a.retry_cnt = 8;
	assert_int_equal(roce_qp_mem_size(&a), 0);
	assert_string_equal(roce_wc_status_name(ROCE_WC_RETRY_EXC_ERR), "retry-exceeded");
	assert_string_equal(roce_qp_retx_name(ROCE_RETX_IMPLIED), "implied");
	assert_string_equal(roce_qpf_kind_name(ROCE_QPF_PSN_JUMP), "psn-jump");
	assert_string_equal(roce_wr_op_name(ROCE_WR_FETCH_ADD), "fetch_add");
	{
		struct sim *S = sim_new(1024, NULL);
		struct roce_wr wr = { .op = ROCE_WR_FETCH_ADD, .len = 4 };
		uint8_t b[8];
		struct roce_mr m = { MR_KEY, MR_VA, b, 8, MR_ALL };

		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_EARG);
		wr.op = ROCE_WR_SEND;
		wr.len = 1;
		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_EARG);
		wr.buf = b;
		for (int i = 0; i < 64; i++)
			assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_ENOSPC);
		assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_OK);
		assert_int_equal(roce_qp_reg_mr(S->s[B].qp, &m), ROCE_EARG);
		assert_int_equal(roce_qp_dereg_mr(S->s[B].qp, MR_KEY), ROCE_OK);
		assert_int_equal(roce_qp_dereg_mr(S->s[B].qp, MR_KEY), ROCE_EARG);
		/* a frame for another QPN is refused */
		{
			struct roce_frame_spec s;
			struct roce_pkt p;
			uint8_t fr[256];
			int n;

			roce_qp_frame_spec(S->s[A].qp, &s);
			s.bth.opcode = ROCE_OP_SEND_ONLY;
			s.bth.dqpn = 0x999;
			n = roce_build(fr, sizeof(fr), &s);
			assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ETHERNET, fr, (uint32_t)n, (uint32_t)n), ROCE_OK);
			assert_int_equal(roce_qp_input(S->s[B].qp, &p, ROCE_ICRC_UNCHECKED, 0), ROCE_EARG);
		}
		roce_qp_set_error(S->s[A].qp, 0);
		assert_int_equal(S->s[A].n_err, 64);
		assert_int_equal(roce_qp_post_send(S->s[A].qp, &wr, 0), ROCE_OK);
		assert_int_equal(S->s[A].n_err, 65);
		sim_free(S);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_lat_summary),
		cmocka_unit_test(test_ops_matrix),
		cmocka_unit_test(test_psn_gap_drop),
		cmocka_unit_test(test_psn_gap_jump),
		cmocka_unit_test(test_rnr),
		cmocka_unit_test(test_rnr_then_covered),
		cmocka_unit_test(test_rnr_exhausted),
		cmocka_unit_test(test_rnr_fault),
		cmocka_unit_test(test_retry_exhausted),
		cmocka_unit_test(test_retry7_infinite),
		cmocka_unit_test(test_bad_rkey),
		cmocka_unit_test(test_dup_atomic),
		cmocka_unit_test(test_dup_ack_not_over_atomic),
		cmocka_unit_test(test_cmp_swap_fail),
		cmocka_unit_test(test_dup_read_full),
		cmocka_unit_test(test_dup_read_partial),
		cmocka_unit_test(test_psn_wrap),
		cmocka_unit_test(test_withheld_ack),
		cmocka_unit_test(test_delayed_ack),
		cmocka_unit_test(test_invalid_request),
		cmocka_unit_test(test_bad_icrc),
		cmocka_unit_test(test_ecn_cnp),
		cmocka_unit_test(test_ack_coalescing),
		cmocka_unit_test(test_rd_atomic_depth),
		cmocka_unit_test(test_tx_burst),
		cmocka_unit_test(test_dup_reorder_faults),
		cmocka_unit_test(test_bidir_ipv6_vlan),
		cmocka_unit_test(test_bidir_rocev1),
		cmocka_unit_test(test_loss_1pct),
		cmocka_unit_test(test_loss_5pct),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
