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

static uint8_t mr_mem[16384], wr_mem[MAX_WR][6144], rq_mem[MAX_WR][6144], payload[4096];
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

static int emit(void *ctx, const uint8_t *f, uint32_t len)
{
	struct roce_pkt p;

	(void)ctx;
	if (roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len) != ROCE_OK || p.invalid || !p.bth_off ||
	    roce_icrc_verify(&p, NULL) != ROCE_ICRC_GOOD) {
		fprintf(stderr, "fuzz_qp: the engine emitted a frame that does not decode as valid RoCE\n");
		abort();
	}
	if (p.opcode != ROCE_OPCODE_CNP && p.dqpn != QPN_P) {
		fprintf(stderr, "fuzz_qp: a frame to DestQP %#x, not the peer's\n", p.dqpn);
		abort();
	}
	if (p.payload_len > mtu) {
		fprintf(stderr, "fuzz_qp: a payload of %u bytes over an MTU of %u\n", p.payload_len, mtu);
		abort();
	}
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
	static const enum roce_wr_op ops[] = { ROCE_WR_SEND, ROCE_WR_SEND_IMM, ROCE_WR_WRITE, ROCE_WR_WRITE_IMM,
					       ROCE_WR_READ, ROCE_WR_CMP_SWAP, ROCE_WR_FETCH_ADD };
	unsigned op = u8(in) % (sizeof(ops) / sizeof(ops[0]));
	struct roce_wr wr = { .wr_id = n_send, .op = ops[op], .len = u16(in) % 6145 };

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

/* Raw transport bytes behind the peer's Ethernet, IP and UDP headers: the
 * spec's BTH opcode SEND ONLY carries them as its payload, and the frame is
 * cut where the BTH starts and the bytes take its place. */
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
			if (n_recv < MAX_WR && roce_qp_post_recv(q, n_recv, rq_mem[n_recv], u16(&in) % 6145, now) == ROCE_OK)
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
