/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the RC engine (lib/transport/): one QP, Q, whose
 * peer is played by the input.  A peer that does what no test thought of is
 * what a real adapter is: rocegen's RNR wait once went back to a PSN an ACK
 * had covered meanwhile, and crashed against rxe (test_qp's
 * rnr_then_covered).
 *
 * The first 4 bytes set Q's attributes (MTU, timeout, retries, depths, ACK
 * policy); the rest is a script of commands, each a byte (its low 3 bits
 * the command) and its arguments:
 *   0  post a send WR: op, length (up to 6 KiB), remote VA and rkey
 *   1  post a receive buffer
 *   2  a response to Q's requests: ACK (with any AETH syndrome), READ
 *      response FIRST/MIDDLE/LAST/ONLY or ATOMIC ACK, its PSN close to the
 *      oldest unacknowledged PSN, to the next PSN, or any; a payload length
 *   3  a request to Q's responder: any RC request opcode, its PSN close to
 *      the expected one, RETH/AtomicETH values, a payload length
 *   4  time passes, to Q's next deadline or by an amount; Q's timers run
 *   5  raw bytes as the transport of a frame to Q (whatever the decoder
 *      makes of them)
 *   6  deregister the MR, or register it again
 *   7  the QP to the error state (only when the argument byte is 0)
 * The peer's frames are built with roce_build() from the spec of a mirror
 * QP (addresses swapped), decoded, and handed to roce_qp_input as a NIC's
 * would be.
 *
 * Checked beside the sanitizers: every frame Q emits decodes as valid RoCE
 * to the peer's QPN with a good ICRC and a payload of at most the MTU; a
 * send WR completes at most once, a receive at most once; and once Q is in
 * the error state at the end, every WR Q accepted has completed exactly once.
 *
 * With the top bit of the first byte set, the input runs a wire between two
 * engines instead (pair_run()): A posts sends of every op, B posts receives
 * and owns the MR, and each command byte delivers, drops, duplicates,
 * reorders or corrupts the frame at the head of the wire, lets time pass to
 * the next deadline, or posts a WR.  At the end the wire is drained in order
 * and the engines' results are held against the data: a SEND that
 * completed landed whole in its receive (the n-th receive-consuming WR in
 * the n-th receive), a WRITE in its slot of the MR, a READ brought the MR's
 * bytes; a FETCH_ADD or CMP_SWAP that completed returned the slot's first
 * value and was applied exactly once (duplicates answered from the
 * responder's ring, never executed again).
 * Seeds: fuzz/seeds/qp_*.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define QPN_Q 0x000321
#define QPN_P 0x000654
#define MR_KEY 0x1234u
#define MR_VA 0x100000ull
#define MAX_WR 256
#define LEN_MAX 6144               /* a WR's or a receive's largest length */
#define WR_OPS 7

/* the send WR ops, a byte picks one */
static const enum roce_wr_op wr_ops[WR_OPS] = { ROCE_WR_SEND, ROCE_WR_SEND_IMM, ROCE_WR_WRITE, ROCE_WR_WRITE_IMM,
						ROCE_WR_READ, ROCE_WR_CMP_SWAP, ROCE_WR_FETCH_ADD };

static uint8_t mr_mem[16384], wr_mem[MAX_WR][LEN_MAX], rq_mem[MAX_WR][LEN_MAX], payload[4096];
static uint8_t atom[MAX_WR][8];
static uint8_t frame[ROCE_QP_FRAME_MAX + 64];
static uint8_t send_done[MAX_WR], recv_done[MAX_WR];
static unsigned n_send, n_recv;
static uint16_t mtu;

struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned u8(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static unsigned u16(struct in *in)
{
	unsigned v = u8(in);

	return v | u8(in) << 8;
}

/* A frame an engine emitted, to the peer whose QPN is dqpn: aborts, saying
 * why, unless it decodes as valid RoCE with a good ICRC, goes to dqpn (a CNP
 * to any) and carries at most an MTU. */
static void check_emitted(const uint8_t *f, uint32_t len, uint32_t dqpn)
{
	struct roce_pkt p;

	if (roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len) != ROCE_OK || p.invalid || !p.bth_off ||
	    roce_icrc_verify(&p, NULL) != ROCE_ICRC_GOOD) {
		fprintf(stderr, "fuzz_qp: the engine emitted a frame that does not decode as valid RoCE\n");
		abort();
	}
	if (p.opcode != ROCE_OPCODE_CNP && p.dqpn != dqpn) {
		fprintf(stderr, "fuzz_qp: a frame to DestQP %#x, not the peer's %#x\n", p.dqpn, dqpn);
		abort();
	}
	if (p.payload_len > mtu) {
		fprintf(stderr, "fuzz_qp: a payload of %u bytes over an MTU of %u\n", p.payload_len, mtu);
		abort();
	}
}

static int emit(void *ctx, const uint8_t *f, uint32_t len)
{
	(void)ctx;
	check_emitted(f, len, QPN_P);
	return 0;
}

/* wr_id is the WR's number: n_send (n_recv) while it is being posted, as a
 * WR posted in the error state completes inside roce_qp_post_send() */
static void complete(void *ctx, const struct roce_wc *wc)
{
	uint8_t *done = wc->recv ? recv_done : send_done;
	unsigned n = wc->recv ? n_recv : n_send;

	(void)ctx;
	if ((unsigned)wc->status >= ROCE_WC__COUNT || wc->wr_id > n || wc->wr_id >= MAX_WR || done[wc->wr_id]++) {
		fprintf(stderr, "fuzz_qp: %s completion of wr_id %llu (status %d): unknown, or a second one\n",
			wc->recv ? "receive" : "send", (unsigned long long)wc->wr_id, (int)wc->status);
		abort();
	}
}

/* A PSN near base: the next byte says how near, or any PSN at all. */
static uint32_t psn_near(struct in *in, uint32_t base)
{
	unsigned b = u8(in);

	if (b == 0xff)
		return (u16(in) | u8(in) << 16) & 0xffffff;
	return (base + (uint32_t)((int)(b & 0x3f) - 8)) & 0xffffff;
}

/* Builds the peer's frame s, decodes it and hands it to q. */
static void deliver(struct roce_qp *q, struct roce_frame_spec *s, uint64_t now)
{
	struct roce_pkt p;
	int n = roce_build(frame, sizeof(frame), s);

	if (n <= 0)
		return;
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, frame, (uint32_t)n, (uint32_t)n);
	roce_qp_input(q, &p, ROCE_ICRC_UNCHECKED, now);
}

static void post_send(struct roce_qp *q, struct in *in, uint64_t now)
{
	unsigned op = u8(in) % WR_OPS;
	struct roce_wr wr = { .wr_id = n_send, .op = wr_ops[op], .len = u16(in) % (LEN_MAX + 1) };

	if (n_send >= MAX_WR)
		return;
	wr.buf = wr.len ? wr_mem[n_send] : NULL;
	if (wr.op == ROCE_WR_CMP_SWAP || wr.op == ROCE_WR_FETCH_ADD) {
		wr.buf = atom[n_send];
		wr.len = 8;
	}
	wr.remote_va = MR_VA + u16(in);
	wr.rkey = u8(in) ? MR_KEY : 0x9999;
	wr.compare = u8(in);
	wr.swap_add = u8(in);
	wr.solicited = u8(in) & 1;
	if (roce_qp_post_send(q, &wr, now) == ROCE_OK)
		n_send++;
}

static void response(struct roce_qp *q, struct roce_frame_spec *s, struct in *in, uint64_t now)
{
	static const uint8_t op[] = { ROCE_OP_ACK, ROCE_OP_ACK, ROCE_OP_READ_RESP_FIRST, ROCE_OP_READ_RESP_MIDDLE,
				      ROCE_OP_READ_RESP_LAST, ROCE_OP_READ_RESP_ONLY, ROCE_OP_ATOMIC_ACK };
	struct roce_qp_info info;
	unsigned b = u8(in);

	roce_qp_info(q, &info);
	s->bth.opcode = op[b % sizeof(op)];
	s->bth.psn = psn_near(in, b & 0x80 ? info.next_psn : info.una_psn);
	s->ext.syndrome = (uint8_t)u8(in);
	s->ext.msn = u16(in);
	s->ext.orig = u8(in);
	s->payload = payload;
	s->payload_len = u16(in) % (mtu + 1u);
	if (s->bth.opcode == ROCE_OP_ACK || s->bth.opcode == ROCE_OP_ATOMIC_ACK)
		s->payload_len = 0;
	deliver(q, s, now);
}

static void request(struct roce_qp *q, struct roce_frame_spec *s, struct in *in, uint64_t now)
{
	static const uint8_t op[] = { ROCE_OP_SEND_FIRST, ROCE_OP_SEND_MIDDLE, ROCE_OP_SEND_LAST,
				      ROCE_OP_SEND_LAST_IMM, ROCE_OP_SEND_ONLY, ROCE_OP_SEND_ONLY_IMM,
				      ROCE_OP_WRITE_FIRST, ROCE_OP_WRITE_MIDDLE, ROCE_OP_WRITE_LAST,
				      ROCE_OP_WRITE_LAST_IMM, ROCE_OP_WRITE_ONLY, ROCE_OP_WRITE_ONLY_IMM,
				      ROCE_OP_READ_REQUEST, ROCE_OP_CMP_SWAP, ROCE_OP_FETCH_ADD,
				      ROCE_OP_SEND_LAST_INV, ROCE_OP_SEND_ONLY_INV };
	struct roce_qp_info info;
	unsigned b = u8(in), len;

	roce_qp_info(q, &info);
	s->bth.opcode = op[b % sizeof(op)];
	s->bth.psn = psn_near(in, info.epsn);
	s->bth.ackreq = b >> 7;
	s->ext.va = MR_VA + u16(in);
	s->ext.rkey = u8(in) ? MR_KEY : 0x9999;
	s->ext.dmalen = u16(in) % 8192;
	s->ext.compare = u8(in);
	s->ext.swap_add = u8(in);
	len = u16(in);
	/* whole MTUs for FIRST and MIDDLE mostly, as a peer sends them */
	s->payload_len = len & 0x8000 ? mtu : len % (mtu + 1u);
	s->payload = payload;
	deliver(q, s, now);
}

/* Raw transport bytes behind the peer's Ethernet, IP and UDP headers: a
 * SEND ONLY without payload is built from the spec for those headers, then
 * the input's bytes replace everything from the BTH on and the frame ends
 * with them. */
static void raw(struct roce_qp *q, struct roce_frame_spec *s, struct in *in, uint64_t now)
{
	struct roce_pkt p;
	unsigned len = u8(in) % 96;
	int n;

	s->bth.opcode = ROCE_OP_SEND_ONLY;
	s->bth.psn = 0;
	s->payload = NULL;
	s->payload_len = 0;
	n = roce_build(frame, sizeof(frame), s);
	if (n <= 0 || roce_decode(&p, NULL, ROCE_LINK_ETHERNET, frame, (uint32_t)n, (uint32_t)n) != ROCE_OK ||
	    !p.bth_off)
		return;
	if (len > in->n)
		len = (unsigned)in->n;
	memcpy(frame + p.bth_off, in->p, len);
	in->p += len;
	in->n -= len;
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, frame, p.bth_off + len, p.bth_off + len);
	roce_qp_input(q, &p, ROCE_ICRC_UNCHECKED, now);
}

static int pair_run(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *mem;
	static size_t mem_size;
	struct in in = { data, size };
	struct roce_qp_attr a;
	struct roce_qp *q = NULL;
	struct roce_qp_ops ops = { emit, complete, NULL, NULL };
	struct roce_mr mr = { MR_KEY, MR_VA, mr_mem, sizeof(mr_mem),
			      ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC };
	struct roce_frame_spec s0, s;
	uint64_t now = 1000000000ull;
	unsigned b0 = u8(&in), b1 = u8(&in), b2 = u8(&in), b3 = u8(&in), steps = 0;
	size_t need;

	if (b0 & 0x80)
		return pair_run(data + 1, size ? size - 1 : 0);
	roce_qp_attr_default(&a);
	a.qpn = QPN_Q;
	a.remote_qpn = QPN_P;
	a.sq_psn = b3 & 1 ? 0xfffff0 : 100;   /* or the PSN wraps soon */
	a.rq_psn = b3 & 2 ? 0xfffff8 : 500;
	a.mtu = mtu = (uint16_t)(256u << (b0 % 5));
	a.timeout = (uint8_t)(1 + (b0 >> 3) % 14);
	a.retry_cnt = (uint8_t)(b1 % 8);
	a.rnr_retry = (uint8_t)((b1 >> 3) % 8);
	a.retry7_infinite = (uint8_t)(b1 >> 6 & 1);
	a.max_rd_atomic = (uint8_t)(1 + b2 % 4);
	a.max_dest_rd_atomic = (uint8_t)(1 + (b2 >> 2) % 4);
	a.min_rnr_timer = (uint8_t)((b2 >> 4) % 32);
	a.ackreq_every = (uint16_t)(b3 >> 2 & 3);
	a.ack_every = (uint16_t)(b3 >> 4 & 3);
	a.ack_msg_end = (uint8_t)(b3 >> 6 & 1);
	a.tx_burst = b3 >> 7 ? 2 : 0;
	a.sq_depth = 16;
	a.rq_depth = 16;
	need = roce_qp_mem_size(&a);
	if (!need)
		return 0;
	if (need > mem_size) {
		free(mem);
		if (!(mem = malloc(need)))
			return 0;
		mem_size = need;
	}
	n_send = n_recv = 0;
	memset(send_done, 0, sizeof(send_done));
	memset(recv_done, 0, sizeof(recv_done));
	if (roce_qp_init(&q, mem, need, &a, &ops) != ROCE_OK)
		return 0;
	roce_qp_reg_mr(q, &mr);
	/* the peer's frames: Q's spec with the addresses swapped */
	roce_qp_frame_spec(q, &s0);
	memcpy(s0.eth.dst, a.eth.src, 6);
	memcpy(s0.eth.src, a.eth.dst, 6);
	memcpy(s0.ip.dst, a.ip.src, 16);
	memcpy(s0.ip.src, a.ip.dst, 16);
	s0.bth.dqpn = QPN_Q;

	while (in.n && steps++ < 512) {
		unsigned c = u8(&in), b;

		s = s0;
		switch (c & 7) {
		case 0: post_send(q, &in, now); break;
		case 1:
			if (n_recv < MAX_WR && roce_qp_post_recv(q, n_recv, rq_mem[n_recv], u16(&in) % (LEN_MAX + 1), now) == ROCE_OK)
				n_recv++;
			break;
		case 2: response(q, &s, &in, now); break;
		case 3: request(q, &s, &in, now); break;
		case 4:
			b = u8(&in);
			if (b & 0x80) {
				uint64_t d = roce_qp_next_deadline(q);

				if (d != UINT64_MAX && d > now)
					now = d;
			} else {
				now += (uint64_t)b << (c >> 3);   /* up to 127 << 31 ns */
			}
			roce_qp_tick(q, now);
			break;
		case 5: raw(q, &s, &in, now); break;
		case 6:
			if (u8(&in) & 1)
				roce_qp_dereg_mr(q, MR_KEY);
			else
				roce_qp_reg_mr(q, &mr);
			break;
		case 7:
			if (!u8(&in))
				roce_qp_set_error(q, now);
			break;
		}
	}
	/* the end: every WR Q took completes exactly once, a refused one never */
	roce_qp_set_error(q, now);
	for (unsigned i = 0; i < MAX_WR; i++)
		if (send_done[i] != (i < n_send) || recv_done[i] != (i < n_recv)) {
			fprintf(stderr, "fuzz_qp: wr_id %u: send completed %u times, receive %u (%u and %u taken)\n", i,
				send_done[i], recv_done[i], n_send, n_recv);
			abort();
		}
	return 0;
}

/* ---- two engines over a wire the input runs ------------------------------------ */

#define PW_MAX 32                  /* WRs of A (and receives of B) per run */
#define PW_Q 48                    /* frames on the wire at once */
#define PW_WSLOT 8192              /* a WRITE's own slot in B's MR */
#define PW_READ_OFF (PW_MAX * PW_WSLOT)
#define PW_READ_LEN 65536
#define PW_ATOM_OFF (PW_READ_OFF + PW_READ_LEN)
#define PW_MR_LEN (PW_ATOM_OFF + PW_MAX * 8)
#define PW_STEPS 4000              /* the drain's bound: an endless RNR loop stops there */

struct pw_wr {
	enum roce_wr_op op;
	uint32_t len, roff;            /* READ: offset in the read region */
	uint64_t first, add, cmp, swap;
	int status;                    /* -1 until it completes */
};

static struct {
	struct roce_qp *qp[2];
	uint8_t slot[PW_Q][ROCE_QP_FRAME_MAX];
	uint32_t len[PW_Q];
	uint8_t to[PW_Q];
	unsigned q[PW_Q], head, n;     /* the wire: slot numbers, oldest first */
	unsigned freel[PW_Q], nfree;
	struct pw_wr wr[PW_MAX];
	unsigned nwr, nrecv;
	int rstatus[PW_MAX];           /* receives, in the order they complete */
	uint32_t rlen[PW_MAX];
	unsigned rdone;
	uint8_t wdone[PW_MAX], rdone_by_id[PW_MAX];
	uint64_t now;
} W;
static uint8_t pw_mr[PW_MR_LEN], pw_mr0[PW_MR_LEN];      /* the MR, and its bytes at the start */
static uint8_t pw_buf[PW_MAX][LEN_MAX], pw_buf0[PW_MAX][LEN_MAX], pw_rbuf[PW_MAX][LEN_MAX];
static uint8_t pw_atom[PW_MAX][8];

static uint8_t pat(unsigned i, unsigned k)
{
	return (uint8_t)(i * 131u + k * 7u + 1u);
}

static void pw_fail(const char *what, unsigned i)
{
	fprintf(stderr, "fuzz_qp (pair): %s (WR %u)\n", what, i);
	abort();
}

static int pw_emit(void *ctx, const uint8_t *f, uint32_t len)
{
	int from = (int)(intptr_t)ctx;
	unsigned sl;

	check_emitted(f, len, from ? QPN_Q : QPN_P);
	if (!W.nfree || len > ROCE_QP_FRAME_MAX)
		return 0;                  /* the wire is full: lost */
	sl = W.freel[--W.nfree];
	memcpy(W.slot[sl], f, len);
	W.len[sl] = len;
	W.to[sl] = (uint8_t)!from;
	W.q[(W.head + W.n++) % PW_Q] = sl;
	return 0;
}

static void pw_complete(void *ctx, const struct roce_wc *wc)
{
	int side = (int)(intptr_t)ctx;

	if ((unsigned)wc->status >= ROCE_WC__COUNT || wc->wr_id >= PW_MAX)
		pw_fail("a completion out of range", (unsigned)wc->wr_id);
	if (side == 0 && !wc->recv) {
		if (wc->wr_id > W.nwr || W.wdone[wc->wr_id]++)
			pw_fail("a send WR completed twice, or one never posted", (unsigned)wc->wr_id);
		W.wr[wc->wr_id].status = wc->status;
	} else if (side == 1 && wc->recv) {
		if (wc->wr_id > W.nrecv || W.rdone_by_id[wc->wr_id]++ || W.rdone >= PW_MAX)
			pw_fail("a receive completed twice, or one never posted", (unsigned)wc->wr_id);
		if (wc->wr_id != W.rdone && wc->status == ROCE_WC_SUCCESS)
			pw_fail("receives completed out of order", (unsigned)wc->wr_id);
		W.rstatus[W.rdone] = wc->status;
		W.rlen[W.rdone++] = wc->byte_len;
	} else {
		pw_fail("a completion on the wrong side", (unsigned)wc->wr_id);
	}
}

static void pw_pop(void)
{
	W.freel[W.nfree++] = W.q[W.head];
	W.head = (W.head + 1) % PW_Q;
	W.n--;
}

static void pw_deliver(void)
{
	unsigned sl = W.q[W.head];
	struct roce_pkt p;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, W.slot[sl], W.len[sl], W.len[sl]);
	roce_qp_input(W.qp[W.to[sl]], &p, ROCE_ICRC_UNCHECKED, W.now);
	pw_pop();
}

/* Time to the nearer deadline of the two (or 1 us on), both engines ticked. */
static void pw_tick(void)
{
	uint64_t d = roce_qp_next_deadline(W.qp[0]), e = roce_qp_next_deadline(W.qp[1]);

	d = e < d ? e : d;
	W.now = d != UINT64_MAX && d > W.now ? d : W.now + 1000;
	roce_qp_tick(W.qp[0], W.now);
	roce_qp_tick(W.qp[1], W.now);
}

static void pw_post(struct in *in)
{
	unsigned i = W.nwr, b = u8(in);
	struct pw_wr *w = &W.wr[i];
	struct roce_wr wr = { .wr_id = i, .op = wr_ops[b % WR_OPS], .len = u16(in) % (LEN_MAX + 1), .rkey = MR_KEY };

	if (i >= PW_MAX)
		return;
	memset(w, 0, sizeof(*w));
	w->op = wr.op;
	w->status = -1;
	wr.buf = pw_buf[i];
	if (wr.op == ROCE_WR_READ)
		memset(pw_buf[i], 0, wr.len);
	else
		memcpy(pw_buf[i], pw_buf0[i], wr.len);
	switch (wr.op) {
	case ROCE_WR_READ:
		w->roff = (u16(in) * 8u) % (PW_READ_LEN - wr.len + 1);
		wr.remote_va = MR_VA + PW_READ_OFF + w->roff;
		break;
	case ROCE_WR_CMP_SWAP:
	case ROCE_WR_FETCH_ADD:
		wr.buf = pw_atom[i];
		wr.len = 8;
		wr.remote_va = MR_VA + PW_ATOM_OFF + i * 8u;
		memcpy(&w->first, pw_mr + PW_ATOM_OFF + i * 8u, 8);
		memset(pw_atom[i], 0xa5, 8);   /* not the first value: the engine must write it */
		w->cmp = wr.compare = b & 0x80 ? w->first : u8(in);
		w->swap = w->add = wr.swap_add = 0x1111111111111111ull * (1 + u8(in) % 15);
		break;
	default:
		wr.remote_va = MR_VA + (uint64_t)i * PW_WSLOT;
		wr.imm = i;
		break;
	}
	w->len = wr.len;
	if (roce_qp_post_send(W.qp[0], &wr, W.now) == ROCE_OK)
		W.nwr++;
}

static int consumes_receive(enum roce_wr_op op)
{
	return op == ROCE_WR_SEND || op == ROCE_WR_SEND_IMM || op == ROCE_WR_WRITE_IMM;
}

/* The results against the data: see the header. */
static void pw_check(void)
{
	unsigned r = 0;

	for (unsigned i = 0; i < W.nwr; i++) {
		const struct pw_wr *w = &W.wr[i];
		uint64_t v;

		if (w->status != ROCE_WC_SUCCESS)
			break;   /* an error: the QP went to error and flushed the rest */
		if (consumes_receive(w->op)) {
			if (r >= W.rdone || W.rstatus[r] != ROCE_WC_SUCCESS)
				pw_fail("a SEND/WRITE-with-immediate completed, its receive did not", i);
			if (w->op != ROCE_WR_WRITE_IMM &&
			    (W.rlen[r] != w->len || memcmp(pw_rbuf[r], pw_buf[i], w->len)))
				pw_fail("a SEND completed, its receive holds other bytes", i);
			r++;
		}
		switch (w->op) {
		case ROCE_WR_WRITE:
		case ROCE_WR_WRITE_IMM:
			if (memcmp(pw_mr + (size_t)i * PW_WSLOT, pw_buf[i], w->len))
				pw_fail("a WRITE completed, the MR holds other bytes", i);
			break;
		case ROCE_WR_READ:
			if (memcmp(pw_buf[i], pw_mr + PW_READ_OFF + w->roff, w->len))
				pw_fail("a READ completed with other bytes than the MR's", i);
			break;
		case ROCE_WR_FETCH_ADD:
		case ROCE_WR_CMP_SWAP:
			memcpy(&v, pw_atom[i], 8);
			if (v != w->first)
				pw_fail("an atomic returned another value than the slot's first", i);
			memcpy(&v, pw_mr + PW_ATOM_OFF + i * 8u, 8);
			if (v != (w->op == ROCE_WR_FETCH_ADD ? w->first + w->add :
				  w->first == w->cmp ? w->swap : w->first))
				pw_fail("an atomic was not applied exactly once", i);
			break;
		default:
			break;
		}
	}
}

static int pair_run(const uint8_t *data, size_t size)
{
	static void *mem[2];
	static size_t mem_size;
	struct in in = { data, size };
	struct roce_qp_attr a[2];
	struct roce_mr mr = { MR_KEY, MR_VA, pw_mr, sizeof(pw_mr),
			      ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC };
	unsigned b1 = u8(&in), b2 = u8(&in), steps = 0;
	size_t need;

	memset(&W, 0, sizeof(W));
	W.now = 1000000000ull;
	for (unsigned i = 0; i < PW_Q; i++)
		W.freel[W.nfree++] = PW_Q - 1 - i;
	for (int i = 0; i < 2; i++) {
		roce_qp_attr_default(&a[i]);
		a[i].qpn = i ? QPN_P : QPN_Q;
		a[i].remote_qpn = i ? QPN_Q : QPN_P;
		a[i].sq_psn = i ? 7000 : b2 & 1 ? 0xfffff0 : 100;
		a[i].rq_psn = i ? a[0].sq_psn : 7000;
		a[i].mtu = mtu = (uint16_t)(256u << (b1 % 5));
		a[i].timeout = 8;                       /* 1.05 ms */
		a[i].retry_cnt = (uint8_t)(b1 >> 3 & 7);
		a[i].rnr_retry = (uint8_t)(b1 >> 6 & 1 ? 7 : 3);
		a[i].min_rnr_timer = 1;                 /* 10 us */
		a[i].max_rd_atomic = (uint8_t)(1 + (b2 >> 1) % 4);
		a[i].max_dest_rd_atomic = (uint8_t)(1 + (b2 >> 3) % 4);
		a[i].ack_every = (uint16_t)(b2 >> 5 & 3);
		a[i].ack_msg_end = (uint8_t)(b2 >> 7);
		a[i].sq_depth = PW_MAX;
		a[i].rq_depth = PW_MAX;
		memcpy(a[i].eth.src, i ? "\x02\x00\x00\x00\x00\x0b" : "\x02\x00\x00\x00\x00\x0a", 6);
		memcpy(a[i].eth.dst, i ? "\x02\x00\x00\x00\x00\x0a" : "\x02\x00\x00\x00\x00\x0b", 6);
		a[i].ip.version = 4;
		memcpy(a[i].ip.src, i ? "\x0a\x00\x00\x02" : "\x0a\x00\x00\x01", 4);
		memcpy(a[i].ip.dst, i ? "\x0a\x00\x00\x01" : "\x0a\x00\x00\x02", 4);
	}
	need = roce_qp_mem_size(&a[0]);
	if (!need || roce_qp_mem_size(&a[1]) > need)
		return 0;
	if (need > mem_size) {
		for (int i = 0; i < 2; i++) {
			free(mem[i]);
			if (!(mem[i] = malloc(need)))
				return mem_size = 0, 0;
		}
		mem_size = need;
	}
	for (int i = 0; i < 2; i++) {
		struct roce_qp_ops ops = { pw_emit, pw_complete, NULL, (void *)(intptr_t)i };

		if (roce_qp_init(&W.qp[i], mem[i], need, &a[i], &ops) != ROCE_OK)
			return 0;
	}
	if (!pw_mr0[0]) {           /* the patterns, made once (pat() is never 0 at k = 0) */
		for (unsigned k = 0; k < sizeof(pw_mr0); k++)
			pw_mr0[k] = pat(1000, k);
		for (unsigned i = 0; i < PW_MAX; i++)
			for (unsigned k = 0; k < sizeof(pw_buf0[i]); k++)
				pw_buf0[i][k] = pat(i, k);
	}
	memcpy(pw_mr, pw_mr0, sizeof(pw_mr));
	roce_qp_reg_mr(W.qp[1], &mr);

	while (in.n && steps++ < 1024) {
		unsigned c = u8(&in);

		switch (c & 7) {
		case 0:
			if (W.n)
				pw_deliver();
			break;
		case 1:
			if (W.n)
				pw_pop();   /* lost */
			break;
		case 2:                     /* duplicated: a copy goes to the end of the wire */
			if (W.n && W.nfree) {
				unsigned sl = W.freel[--W.nfree], h = W.q[W.head];

				memcpy(W.slot[sl], W.slot[h], W.len[h]);
				W.len[sl] = W.len[h];
				W.to[sl] = W.to[h];
				W.q[(W.head + W.n++) % PW_Q] = sl;
			}
			break;
		case 3:                     /* the first two change places */
			if (W.n >= 2) {
				unsigned t = W.q[W.head];

				W.q[W.head] = W.q[(W.head + 1) % PW_Q];
				W.q[(W.head + 1) % PW_Q] = t;
			}
			break;
		case 4:                     /* a bit flips: the ICRC no longer matches */
			if (W.n) {
				unsigned sl = W.q[W.head];

				W.slot[sl][(c >> 3) * 7 % W.len[sl]] ^= 0x10;
			}
			break;
		case 5: pw_tick(); break;
		case 6: pw_post(&in); break;
		case 7:
			if (W.nrecv < PW_MAX) {
				unsigned len = u16(&in) % (LEN_MAX + 1);

				memset(pw_rbuf[W.nrecv], 0, len);
				if (roce_qp_post_recv(W.qp[1], W.nrecv, pw_rbuf[W.nrecv], len, W.now) == ROCE_OK)
					W.nrecv++;
			}
			break;
		}
	}
	/* the drain: the wire in order, time on, until both are quiet */
	for (steps = 0; steps < PW_STEPS; steps++) {
		if (W.n)
			pw_deliver();
		else if (roce_qp_next_deadline(W.qp[0]) == UINT64_MAX && roce_qp_next_deadline(W.qp[1]) == UINT64_MAX)
			break;
		else
			pw_tick();
	}
	pw_check();
	if (getenv("FUZZ_QP_VERBOSE")) {   /* what a seed exercises */
		unsigned ok[7] = { 0 };

		for (unsigned i = 0; i < W.nwr; i++)
			ok[W.wr[i].op] += W.wr[i].status == ROCE_WC_SUCCESS;
		fprintf(stderr, "pair: %u WRs, completed ok: send %u send-imm %u write %u write-imm %u read %u "
			"cmp-swap %u fetch-add %u; %u of %u receives done; a %u B MTU; %u drain steps\n", W.nwr, ok[0],
			ok[1], ok[2], ok[3], ok[4], ok[5], ok[6], W.rdone, W.nrecv, mtu, steps);
	}
	roce_qp_set_error(W.qp[0], W.now);
	roce_qp_set_error(W.qp[1], W.now);
	for (unsigned i = 0; i < PW_MAX; i++)
		if (W.wdone[i] != (i < W.nwr) || W.rdone_by_id[i] != (i < W.nrecv))
			pw_fail("not every WR completed exactly once", i);
	return 0;
}
