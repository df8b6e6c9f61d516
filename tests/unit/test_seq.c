/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/seq.c: the RC sequence analysis fed packet by packet.  Frames are made
 * with roce_build() and decoded, so the tests go through the same accessors
 * as real traffic.  Expected verdicts follow from the rules in seq.h (the
 * responder's check_psn() of Linux rxe; the wire's "seen before" view), not
 * from running the code.
 */
#include "testutil.h"
#include <stdio.h>
#include "roce.h"
#include "seq.h"
#include "rtt.h"

#define T0 1700000000000000000ull   /* ns */
#define US 1000ull

static const uint8_t MAC_A[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t MAC_B[6] = { 2, 0, 0, 0, 0, 2 };

struct fr {
	uint8_t buf[9000];
	struct roce_pkt p;
};

static struct fr F;   /* one frame at a time */

/* Builds and decodes one RoCEv2 frame from A (side 0) or B (side 1). */
static const struct roce_pkt *mk(int from_b, uint8_t op, uint32_t psn, uint32_t len, int ackreq,
				 uint8_t syn, uint32_t dmalen, uint8_t ecn)
{
	static const uint8_t zeros[4096];
	struct roce_frame_spec s;
	int n;

	memset(&s, 0, sizeof s);
	s.version = ROCE_VER_V2;
	memcpy(s.eth.src, from_b ? MAC_B : MAC_A, 6);
	memcpy(s.eth.dst, from_b ? MAC_A : MAC_B, 6);
	s.ip.version = 4;
	s.ip.src[0] = s.ip.dst[0] = 10;
	s.ip.src[3] = from_b ? 2 : 1;
	s.ip.dst[3] = from_b ? 1 : 2;
	s.ip.ecn = ecn;
	s.bth.opcode = op;
	s.bth.ackreq = (uint8_t)ackreq;
	s.bth.dqpn = from_b ? 0x100 : 0x200;
	s.bth.psn = psn;
	s.bth.pad = -1;
	s.ext.syndrome = syn;
	s.ext.dmalen = dmalen;
	s.ext.rkey = 1;
	s.payload = zeros;
	s.payload_len = len;
	n = roce_build(F.buf, sizeof F.buf, &s);
	assert_true(n > 0);
	assert_int_equal(roce_decode(&F.p, NULL, ROCE_LINK_ETHERNET, F.buf, (uint32_t)n, (uint32_t)n), ROCE_OK);
	return &F.p;
}

static const struct roce_pkt *send_only(uint32_t psn, int ackreq)
{
	return mk(0, ROCE_OP_SEND_ONLY, psn, 64, ackreq, 0, 0, 0);
}

static const struct roce_pkt *ack_pkt(uint32_t psn, uint8_t syn)
{
	return mk(1, ROCE_OP_ACK, psn, 0, 0, syn, 0, 0);
}

static struct roce_seq_anom pool[8];
static struct roce_seq_anom *spare;
static unsigned used;

static struct roce_seq_anom **sp(void)
{
	if (!spare) {
		assert_true(used < 8);
		spare = &pool[used++];
	}
	return &spare;
}

static struct roce_rtt *R;           /* RTT engine, fed the same packets (rtt.h) */

static int setup(void **st)
{
	(void)st;
	memset(pool, 0xa5, sizeof pool);   /* the library must clear what it takes */
	spare = NULL;
	used = 0;
	R = roce_rtt_new(0);
	return R ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	roce_rtt_free(R);
	R = NULL;
	return 0;
}

static uint32_t rq(struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t t, struct roce_seq_verdict *v)
{
	assert_int_equal(roce_seq_request(d, p, t, 0, sp(), v), 0);
	roce_rtt_packet(R, d, p, t, v);
	return v->flags;
}

static uint32_t rs(struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t t, struct roce_seq_verdict *v)
{
	assert_int_equal(roce_seq_response(d, p, t, 0, sp(), v), 0);
	roce_rtt_packet(R, d, p, t, v);
	return v->flags;
}

#define HAS(f, bits) (((f) & (bits)) == (bits))

/* ---- tests ------------------------------------------------------------------------------ */

static void test_classify(void **st)
{
	(void)st;
	assert_int_equal(roce_seq_classify(send_only(1, 0)), ROCE_SEQ_REQ);
	assert_int_equal(roce_seq_classify(ack_pkt(1, 0x1f)), ROCE_SEQ_RESP);
	assert_int_equal(roce_seq_classify(mk(1, ROCE_OP_READ_RESP_ONLY, 1, 8, 0, 0x1f, 0, 0)), ROCE_SEQ_RESP);
	assert_int_equal(roce_seq_classify(mk(0, ROCE_OP_READ_REQUEST, 1, 0, 0, 0, 8, 0)), ROCE_SEQ_REQ);
	assert_int_equal(roce_seq_classify(mk(0, ROCE_TR_UD | ROCE_OP_SEND_ONLY, 1, 8, 0, 0, 0, 0)), ROCE_SEQ_NONE);
	assert_int_equal(roce_seq_classify(mk(0, ROCE_TR_UC | ROCE_OP_SEND_ONLY, 1, 8, 0, 0, 0, 0)), ROCE_SEQ_NONE);
	assert_int_equal(roce_seq_classify(mk(0, ROCE_TR_XRC | ROCE_OP_SEND_ONLY, 1, 8, 0, 0, 0, 0)), ROCE_SEQ_REQ);
	assert_int_equal(roce_seq_classify(mk(1, ROCE_OPCODE_CNP, 0, 0, 0, 0, 0, 0)), ROCE_SEQ_CNP_PKT);
}

/* A clean stream takes no anomaly block and flags every packet in order. */
static void test_in_order_no_block(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	for (uint32_t p = 10; p < 20; p++) {
		assert_true(HAS(rq(&d, send_only(p, 1), T0 + p * US, &v), ROCE_SEQ_V_REQUEST | ROCE_SEQ_V_IN_ORDER));
		assert_int_equal(v.expected_psn, p);
		assert_true(HAS(rs(&d, ack_pkt(p, 0x1f), T0 + p * US + 7 * US, &v), ROCE_SEQ_V_ACK | ROCE_SEQ_V_RTT));
		assert_int_equal(v.rtt_us, 7);
		assert_int_equal(v.acked_psn, p);
	}
	assert_null(d.x);
	assert_int_equal(used, 1);           /* the one spare handed in, never taken */
	assert_non_null(spare);
	assert_int_equal(d.requests, 10);
	assert_int_equal(d.acks, 10);
	assert_int_equal(d.rtt.n, 10);
	assert_int_equal(d.rtt.min_ns, 7 * US);
	assert_int_equal(d.rtt.max_ns, 7 * US);
	assert_int_equal(d.rtt.sum_ns, 70 * US);
	{
		uint64_t q;

		assert_int_equal(roce_rtt_quantile(R, &d, ROCE_RTT_ACK, 0.5, &q), 0);
		assert_int_equal(q, 7 * US);
	}
	assert_int_equal(roce_seq_missing(&d), 0);
	assert_int_equal(roce_seq_scheme(&d), ROCE_SEQ_SCHEME_NONE);
}

/* The responder's view and the wire's, packet by packet:
 *   10 11 | 13 14 (12 lost so far) | 12 (late) | 13 14 (resent) | 11 (copy) | 15 */
static void test_responder_and_wire(void **st)
{
	static const struct {
		uint32_t psn;
		uint32_t flags;
		uint32_t expected;
	} t[] = {
		{ 10, ROCE_SEQ_V_IN_ORDER, 10 },
		{ 11, ROCE_SEQ_V_IN_ORDER, 11 },
		{ 13, ROCE_SEQ_V_OUT_OF_SEQ | ROCE_SEQ_V_OOS_START | ROCE_SEQ_V_PSN_GAP, 12 },
		{ 14, ROCE_SEQ_V_OUT_OF_SEQ, 12 },
		{ 12, ROCE_SEQ_V_IN_ORDER | ROCE_SEQ_V_OUT_OF_ORDER, 12 },
		{ 13, ROCE_SEQ_V_IN_ORDER | ROCE_SEQ_V_RETRANS | ROCE_SEQ_V_EPISODE, 13 },
		{ 14, ROCE_SEQ_V_IN_ORDER | ROCE_SEQ_V_RETRANS, 14 },
		/* going back again: a new episode (a copy: trigger "other") */
		{ 11, ROCE_SEQ_V_DUPLICATE | ROCE_SEQ_V_RETRANS | ROCE_SEQ_V_EPISODE, 15 },
		{ 15, ROCE_SEQ_V_IN_ORDER, 15 },
		{ 17, ROCE_SEQ_V_OUT_OF_SEQ | ROCE_SEQ_V_OOS_START | ROCE_SEQ_V_PSN_GAP, 16 },
	};
	const uint32_t watch = ROCE_SEQ_V_IN_ORDER | ROCE_SEQ_V_DUPLICATE | ROCE_SEQ_V_OUT_OF_SEQ |
			       ROCE_SEQ_V_OOS_START | ROCE_SEQ_V_RETRANS | ROCE_SEQ_V_EPISODE |
			       ROCE_SEQ_V_OUT_OF_ORDER | ROCE_SEQ_V_PSN_GAP;
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
		uint32_t f = rq(&d, send_only(t[i].psn, 0), T0 + i * US, &v);

		if ((f & watch) != t[i].flags || v.expected_psn != t[i].expected)
			fail_msg("packet %u (PSN %u): flags 0x%x want 0x%x, expected PSN %u want %u", i, t[i].psn,
				 f & watch, t[i].flags, v.expected_psn, t[i].expected);
	}
	assert_non_null(d.x);
	assert_int_equal(d.x->out_of_sequence, 3);
	assert_int_equal(d.x->out_of_seq_request, 2);
	assert_int_equal(d.x->duplicate_request, 1);
	assert_int_equal(d.x->retransmissions, 3);
	assert_int_equal(d.x->out_of_order, 1);
	assert_int_equal(d.x->psn_gaps, 2);
	assert_int_equal(roce_seq_missing(&d), 1);   /* 16, still open */
	assert_int_equal(d.requests, 10);
}

static void test_psn_wrap(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	roce_seq_set_start(&d, 0xfffffe);
	assert_true(rq(&d, send_only(0xfffffe, 0), T0, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_true(rq(&d, send_only(0xffffff, 0), T0 + US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_true(rq(&d, send_only(0, 0), T0 + 2 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_int_equal(rq(&d, send_only(2, 0), T0 + 3 * US, &v) & (ROCE_SEQ_V_PSN_GAP | ROCE_SEQ_V_OUT_OF_SEQ),
			 ROCE_SEQ_V_PSN_GAP | ROCE_SEQ_V_OUT_OF_SEQ);
	assert_int_equal(v.missing, 1);
	assert_int_equal(v.expected_psn, 1);
	/* a PSN before the wrap is a duplicate, not a jump of 2^24 - 2 */
	assert_true(rq(&d, send_only(0xffffff, 0), T0 + 4 * US, &v) & ROCE_SEQ_V_DUPLICATE);
	assert_true(v.flags & ROCE_SEQ_V_RETRANS);
	assert_true(roce_seq_covers(&d, 0xffffff));
	assert_true(roce_seq_covers(&d, 2));
	assert_false(roce_seq_covers(&d, 3));
}

/* A path change keeps the PSN space: continuation within the window. */
static void test_continues(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	assert_false(roce_seq_continues(&d, 5));              /* nothing known */
	roce_seq_set_start(&d, 0xfffff0);
	assert_true(roce_seq_continues(&d, 0xfffff0));        /* the CM's starting PSN */
	assert_true(roce_seq_continues(&d, 0xfffff0 + ROCE_SEQ_CONTINUE_WINDOW));
	assert_false(roce_seq_continues(&d, 0xffffef));       /* before it */
	rq(&d, send_only(0xfffff0, 0), T0, &v);
	rq(&d, send_only(0xfffff1, 0), T0 + US, &v);
	assert_true(roce_seq_continues(&d, 0xfffff2));        /* next */
	assert_true(roce_seq_continues(&d, 0xfffff1));        /* a retransmission */
	assert_true(roce_seq_continues(&d, (0xfffff2 + ROCE_SEQ_CONTINUE_WINDOW) & 0xffffff)); /* across the wrap */
	assert_false(roce_seq_continues(&d, (0xfffff2 + ROCE_SEQ_CONTINUE_WINDOW + 1) & 0xffffff));
	assert_false(roce_seq_continues(&d, 0x800000));       /* another QP's PSNs */
}

/* Native IB: FECN/BECN are the CE marks, opcode 0x80 a CNP. */
static void test_ib_marks(void **st)
{
	struct roce_frame_spec s;
	struct roce_lrh_spec l = { .slid = 1, .dlid = 2 };
	struct roce_pkt p;
	uint8_t b[512];
	int n;

	(void)st;
	memset(&s, 0, sizeof s);
	s.bth.opcode = ROCE_OP_SEND_ONLY;
	s.bth.fecn = 1;
	s.bth.pad = -1;
	s.ip.ecn = 0;
	n = roce_build_ib(b, sizeof b, &s, &l);
	assert_true(n > 0);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, b, (uint32_t)n, (uint32_t)n), ROCE_OK);
	assert_true(roce_pkt_ce(&p));
	s.bth.fecn = 0;
	n = roce_build_ib(b, sizeof b, &s, &l);
	roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, b, (uint32_t)n, (uint32_t)n);
	assert_false(roce_pkt_ce(&p));
	s.bth.becn = 1;
	n = roce_build_ib(b, sizeof b, &s, &l);
	roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, b, (uint32_t)n, (uint32_t)n);
	assert_true(roce_pkt_ce(&p));
	s.bth.opcode = ROCE_OPCODE_CNP_IB;
	n = roce_build_ib(b, sizeof b, &s, &l);
	assert_int_equal(n, 8 + 12 + 4 + 2);                  /* LRH BTH ICRC VCRC */
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, b, (uint32_t)n, (uint32_t)n), ROCE_OK);
	assert_false(roce_pkt_ce(&p));                        /* a CNP, not a mark */
	assert_int_equal(roce_seq_classify(&p), ROCE_SEQ_CNP_PKT);
	assert_string_equal(roce_opcode_name(0x80), "CNP");
}

/* READ requests take max(1, ceil(len / MTU)) PSNs. */
static void test_read_span(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 4096, NULL);
	roce_seq_set_pmtu(&d, 3, ROCE_SEQ_PMTU_CM);  /* 1024 */
	assert_int_equal(roce_seq_pmtu(&d), 1024);
	assert_int_equal(roce_seq_pmtu_source(&d), ROCE_SEQ_PMTU_CM);
	assert_true(rq(&d, mk(0, ROCE_OP_READ_REQUEST, 100, 0, 1, 0, 4097, 0), T0, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_true(rq(&d, mk(0, ROCE_OP_READ_REQUEST, 105, 0, 1, 0, 0, 0), T0 + US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_true(rq(&d, mk(0, ROCE_OP_READ_REQUEST, 106, 0, 1, 0, 1024, 0), T0 + 2 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_true(rq(&d, send_only(107, 1), T0 + 3 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_null(d.x);
	/* a weaker source does not override the CM */
	roce_seq_set_pmtu(&d, 5, ROCE_SEQ_PMTU_INFERRED);
	assert_int_equal(roce_seq_pmtu(&d), 1024);
}

/* Without MTU knowledge the PSN after a READ tells how many it took. */
static void test_mtu_inferred(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	rq(&d, mk(0, ROCE_OP_READ_REQUEST, 200, 0, 1, 0, 4096, 0), T0, &v);
	assert_int_equal(rq(&d, mk(0, ROCE_OP_READ_REQUEST, 201, 0, 1, 0, 8192, 0), T0 + US, &v) &
			 (ROCE_SEQ_V_IN_ORDER | ROCE_SEQ_V_PMTU), ROCE_SEQ_V_IN_ORDER | ROCE_SEQ_V_PMTU);
	assert_int_equal(roce_seq_pmtu(&d), 4096);
	assert_int_equal(roce_seq_pmtu_source(&d), ROCE_SEQ_PMTU_INFERRED);
	/* now 8192 bytes take 2 PSNs */
	assert_true(rq(&d, send_only(203, 0), T0 + 2 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_null(d.x);
}

/* A lost READ looks like the MTU halved: more PSNs than guessed are never
 * taken as a smaller MTU (lab: ib_read_bw under 3% loss). */
static void test_mtu_not_inferred_from_loss(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	rq(&d, mk(0, ROCE_OP_READ_REQUEST, 100, 0, 1, 0, 4096, 0), T0, &v);
	/* READ 104 lost: 108 comes next */
	assert_true(HAS(rq(&d, mk(0, ROCE_OP_READ_REQUEST, 108, 0, 1, 0, 4096, 0), T0 + US, &v),
			ROCE_SEQ_V_OUT_OF_SEQ | ROCE_SEQ_V_OOS_START | ROCE_SEQ_V_PSN_GAP));
	assert_false(v.flags & ROCE_SEQ_V_PMTU);
	assert_int_equal(v.missing, 4);
	assert_int_equal(roce_seq_pmtu(&d), 1024);
	assert_int_equal(roce_seq_pmtu_source(&d), ROCE_SEQ_PMTU_CONFIG);
	/* the resent 104 is in order and takes 4 PSNs */
	assert_true(rq(&d, mk(0, ROCE_OP_READ_REQUEST, 104, 0, 1, 0, 4096, 0), T0 + 2 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_true(rq(&d, mk(0, ROCE_OP_READ_REQUEST, 108, 0, 1, 0, 4096, 0), T0 + 3 * US, &v) & ROCE_SEQ_V_IN_ORDER);
}

/* ATOMIC ACKs come one per request, in order: a gap is an implied NAK. */
static void test_atomic_implied_nak(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	for (uint32_t p = 20; p < 24; p++)
		rq(&d, mk(0, ROCE_OP_FETCH_ADD, p, 0, 1, 0, 0, 0), T0 + p * US, &v);
	rs(&d, mk(1, ROCE_OP_ATOMIC_ACK, 20, 0, 0, 0x1f, 0, 0), T0 + 30 * US, &v);
	assert_false(v.flags & ROCE_SEQ_V_IMPLIED_NAK);
	assert_true(HAS(rs(&d, mk(1, ROCE_OP_ATOMIC_ACK, 22, 0, 0, 0x1f, 0, 0), T0 + 31 * US, &v),
			ROCE_SEQ_V_IMPLIED_NAK | ROCE_SEQ_V_ACK));
	assert_int_equal(v.missing, 1);
	assert_true(HAS(rq(&d, mk(0, ROCE_OP_FETCH_ADD, 21, 0, 1, 0, 0, 0), T0 + 40 * US, &v),
			ROCE_SEQ_V_DUPLICATE | ROCE_SEQ_V_RETRANS | ROCE_SEQ_V_EPISODE));
	assert_int_equal(v.trigger, ROCE_SEQ_TRIG_IMPLIED);
	/* plain ACKs in between are coalesced, not a gap */
	rs(&d, ack_pkt(23, 0x1f), T0 + 41 * US, &v);
	assert_false(v.flags & ROCE_SEQ_V_IMPLIED_NAK);
}

/* Episodes: a resend the network reordered stays in its episode; going
 * back again after another NAK starts a new one. */
static void test_episode_bounds(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;
	uint64_t t = T0;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	for (uint32_t p = 1; p <= 10; p++)
		rq(&d, send_only(p, 0), t += US, &v);
	rs(&d, ack_pkt(3, 0x60), t += US, &v);              /* NAK: go back to 3 */
	assert_true(rq(&d, send_only(3, 0), t += US, &v) & ROCE_SEQ_V_EPISODE);
	assert_int_equal(v.trigger, ROCE_SEQ_TRIG_NAK);
	rq(&d, send_only(5, 0), t += US, &v);               /* 4 held back by the network */
	assert_false(rq(&d, send_only(4, 0), t += US, &v) & ROCE_SEQ_V_EPISODE);
	rq(&d, send_only(6, 0), t += US, &v);
	rs(&d, ack_pkt(5, 0x60), t += US, &v);              /* the resent 5 lost: NAK 5 */
	assert_true(rq(&d, send_only(5, 0), t += US, &v) & ROCE_SEQ_V_EPISODE);
	assert_int_equal(v.trigger, ROCE_SEQ_TRIG_NAK);
	assert_int_equal(d.x->episodes[ROCE_SEQ_TRIG_NAK], 2);
	assert_int_equal(d.x->episodes[ROCE_SEQ_TRIG_OTHER], 0);
}

/* A READ response's payload corrects the span of the READ just taken. */
static void test_mtu_from_response(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 4096, NULL);
	rq(&d, mk(0, ROCE_OP_READ_REQUEST, 300, 0, 1, 0, 4096, 0), T0, &v);   /* 1 PSN at 4096 */
	assert_true(HAS(rs(&d, mk(1, ROCE_OP_READ_RESP_FIRST, 300, 1024, 0, 0x1f, 0, 0), T0 + 9 * US, &v),
			ROCE_SEQ_V_PMTU | ROCE_SEQ_V_READ_RTT));
	assert_int_equal(v.rtt_us, 9);
	assert_int_equal(roce_seq_pmtu(&d), 1024);
	assert_int_equal(roce_seq_pmtu_source(&d), ROCE_SEQ_PMTU_PAYLOAD);
	rs(&d, mk(1, ROCE_OP_READ_RESP_MIDDLE, 301, 1024, 0, 0, 0, 0), T0 + 10 * US, &v);
	rs(&d, mk(1, ROCE_OP_READ_RESP_MIDDLE, 302, 1024, 0, 0, 0, 0), T0 + 11 * US, &v);
	rs(&d, mk(1, ROCE_OP_READ_RESP_LAST, 303, 1024, 0, 0x1f, 0, 0), T0 + 12 * US, &v);
	assert_false(v.flags & (ROCE_SEQ_V_IMPLIED_NAK | ROCE_SEQ_V_UNSOLICITED));
	assert_true(rq(&d, send_only(304, 0), T0 + 13 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_null(d.x);
}

/* NAK: the resend that follows is a go-back-N episode; new data scores it. */
static void test_nak_go_back_n(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;
	uint64_t t = T0;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	rq(&d, send_only(1, 0), t += US, &v);
	rq(&d, send_only(3, 0), t += US, &v);             /* 2 lost */
	rq(&d, send_only(4, 0), t += US, &v);
	assert_true(HAS(rs(&d, ack_pkt(2, 0x60), t += US, &v), ROCE_SEQ_V_NAK));
	assert_int_equal(v.nak_code, ROCE_NAK_PSN_SEQ_ERR);
	assert_true(rq(&d, send_only(2, 0), t += 2000 * US, &v) & ROCE_SEQ_V_OUT_OF_ORDER);
	assert_true(HAS(rq(&d, send_only(3, 0), t += US, &v), ROCE_SEQ_V_RETRANS | ROCE_SEQ_V_EPISODE));
	/* a NAK named the PSN: the trigger is the NAK even after a long wait */
	assert_int_equal(v.trigger, ROCE_SEQ_TRIG_NAK);
	rq(&d, send_only(4, 0), t += US, &v);
	assert_false(v.flags & ROCE_SEQ_V_EPISODE);
	assert_int_equal(d.x->go_back_n, 0);             /* not scored before new data */
	rq(&d, send_only(5, 0), t += US, &v);
	assert_int_equal(d.x->go_back_n, 1);
	assert_int_equal(d.x->episodes[ROCE_SEQ_TRIG_NAK], 1);
	assert_int_equal(d.x->nak_seq_err, 1);
	assert_int_equal(d.x->retransmissions, 2);
	assert_int_equal(roce_seq_scheme(&d), ROCE_SEQ_SCHEME_GO_BACK_N);
}

/* Only the hole resent after a NAK, then new data: selective repeat. */
static void test_selective(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;
	uint64_t t = T0;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	for (uint32_t p = 1; p <= 6; p++)
		if (p != 3)
			rq(&d, send_only(p, 0), t += US, &v);
	rs(&d, ack_pkt(3, 0x60), t += US, &v);
	assert_true(rq(&d, send_only(3, 0), t += US, &v) & ROCE_SEQ_V_OUT_OF_ORDER);
	rq(&d, send_only(7, 0), t += US, &v);
	assert_int_equal(d.x->selective, 1);
	assert_int_equal(d.x->go_back_n, 0);
	assert_int_equal(d.x->retransmissions, 0);
	assert_int_equal(roce_seq_scheme(&d), ROCE_SEQ_SCHEME_SELECTIVE);
	assert_int_equal(roce_seq_scheme_join(ROCE_SEQ_SCHEME_SELECTIVE, ROCE_SEQ_SCHEME_GO_BACK_N),
			 ROCE_SEQ_SCHEME_MIXED);
	assert_int_equal(roce_seq_scheme_join(ROCE_SEQ_SCHEME_NONE, ROCE_SEQ_SCHEME_TIMEOUT_ONLY),
			 ROCE_SEQ_SCHEME_TIMEOUT_ONLY);
}

/* RNR NAK: the responder did not take the request, so the resend is in
 * order again; the episode's trigger is the RNR NAK; the timer is reported. */
static void test_rnr(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	rq(&d, send_only(50, 1), T0, &v);
	assert_true(HAS(rs(&d, ack_pkt(50, 0x20 | 14), T0 + 5 * US, &v), ROCE_SEQ_V_RNR_NAK));
	assert_int_equal(v.rnr_timer, 14);
	assert_int_equal(v.rnr_us, 1280);
	assert_int_equal(HAS(rq(&d, send_only(50, 1), T0 + 1300 * US, &v),
			     ROCE_SEQ_V_IN_ORDER | ROCE_SEQ_V_RETRANS | ROCE_SEQ_V_EPISODE), 1);
	assert_int_equal(v.trigger, ROCE_SEQ_TRIG_RNR);
	assert_false(v.flags & ROCE_SEQ_V_DUPLICATE);
	rs(&d, ack_pkt(50, 0x1f), T0 + 1310 * US, &v);
	assert_false(v.flags & ROCE_SEQ_V_RTT);           /* Karn */
	assert_int_equal(d.x->rnr_nak, 1);
	assert_int_equal(d.x->rnr_timers, 1u << 14);
	assert_int_equal(d.x->duplicate_request, 0);
}

/* An RNR NAK that arrives after later requests: the responder did not take
 * the RNR'd one, so what followed is judged again as it judged it (lab:
 * ib_send_bw with one receive WQE; rxe's counters matched only with this). */
static void test_rnr_rejudge(void **st)
{
	struct roce_seq_anom blk;
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, &blk);
	rq(&d, send_only(50, 1), T0, &v);
	rq(&d, send_only(51, 1), T0 + US, &v);
	rq(&d, send_only(52, 1), T0 + 2 * US, &v);
	assert_true(rq(&d, send_only(50, 1), T0 + 3 * US, &v) & ROCE_SEQ_V_DUPLICATE);
	assert_int_equal(d.x->duplicate_request, 1);
	rs(&d, ack_pkt(50, 0x20 | 12), T0 + 4 * US, &v);   /* RNR NAK for the first 50 */
	/* the responder saw: 50 (RNR), 51 and 52 out of sequence (one run), 50 in order */
	assert_int_equal(d.x->duplicate_request, 0);
	assert_int_equal(d.x->out_of_sequence, 2);
	assert_int_equal(d.x->out_of_seq_request, 1);
	assert_true(rq(&d, send_only(51, 1), T0 + 5 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	/* without the log (the block came with the RNR NAK), the requests after
	 * the RNR'd one are taken as out of sequence */
	roce_seq_init(&d, 1024, NULL);
	rq(&d, send_only(60, 1), T0, &v);
	rq(&d, send_only(61, 1), T0 + US, &v);
	rq(&d, send_only(62, 1), T0 + 2 * US, &v);
	rs(&d, ack_pkt(60, 0x20 | 12), T0 + 3 * US, &v);
	assert_int_equal(d.x->out_of_sequence, 2);
	assert_int_equal(d.x->out_of_seq_request, 1);
	assert_true(rq(&d, send_only(60, 1), T0 + 700 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_true(rq(&d, send_only(61, 1), T0 + 701 * US, &v) & ROCE_SEQ_V_IN_ORDER);
}

/* The re-judge report: which requests an RNR NAK made the model judge
 * again, by request id, oldest first, with the class and expected PSN the
 * responder had for them (a dissector re-marks those frames with it). */
static void test_rnr_rejudge_report(void **st)
{
	struct roce_seq_anom blk;
	struct roce_seq_dir d;
	struct roce_seq_verdict v;
	struct roce_seq_rejudge r;

	(void)st;
	roce_seq_init(&d, 1024, &blk);
	for (uint32_t q = 10; q <= 13; q++) {                        /* ids 1..4, in order */
		assert_true(rq(&d, send_only(q, 1), T0 + q * US, &v) & ROCE_SEQ_V_IN_ORDER);
		assert_int_equal(v.req_id, q - 9);
	}
	assert_true(rq(&d, send_only(11, 1), T0 + 20 * US, &v) & ROCE_SEQ_V_DUPLICATE);
	assert_int_equal(v.req_id, 5);
	assert_true(rq(&d, send_only(12, 1), T0 + 21 * US, &v) & ROCE_SEQ_V_DUPLICATE);
	assert_int_equal(v.req_id, 6);
	assert_int_equal(d.x->duplicate_request, 2);
	assert_int_equal(roce_seq_rejudged(&d, 0, &r), 0);          /* nothing re-judged yet */
	/* RNR NAK for 12: the responder did not take id 3; from 12 again it saw
	 * 13 (id 4) out of sequence, starting a run, 11 (id 5) a duplicate,
	 * 12 (id 6) in order */
	assert_true(HAS(rs(&d, ack_pkt(12, 0x20 | 12), T0 + 22 * US, &v),
			ROCE_SEQ_V_RNR_NAK | ROCE_SEQ_V_REJUDGED));
	assert_int_equal(roce_seq_rejudged(&d, 0, &r), 1);
	assert_int_equal(r.req_id, 4);
	assert_int_equal(r.flags, ROCE_SEQ_V_OUT_OF_SEQ | ROCE_SEQ_V_OOS_START);
	assert_int_equal(r.expected_psn, 12);
	assert_int_equal(roce_seq_rejudged(&d, 1, &r), 1);
	assert_int_equal(r.req_id, 5);
	assert_int_equal(r.flags, ROCE_SEQ_V_DUPLICATE);
	assert_int_equal(r.expected_psn, 12);
	assert_int_equal(roce_seq_rejudged(&d, 2, &r), 1);
	assert_int_equal(r.req_id, 6);
	assert_int_equal(r.flags, ROCE_SEQ_V_IN_ORDER);
	assert_int_equal(r.expected_psn, 12);
	assert_int_equal(roce_seq_rejudged(&d, 3, &r), 0);
	/* the counters say the same */
	assert_int_equal(d.x->duplicate_request, 1);
	assert_int_equal(d.x->out_of_sequence, 1);
	assert_int_equal(d.x->out_of_seq_request, 1);
	assert_true(rq(&d, send_only(13, 1), T0 + 30 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_int_equal(v.req_id, 7);

	/* without the log: the requests after the RNR'd one, all out of
	 * sequence, the first starting the run */
	roce_seq_init(&d, 1024, NULL);
	rq(&d, send_only(60, 1), T0, &v);
	rq(&d, send_only(61, 1), T0 + US, &v);
	rq(&d, send_only(62, 1), T0 + 2 * US, &v);
	assert_true(rs(&d, ack_pkt(60, 0x20 | 12), T0 + 3 * US, &v) & ROCE_SEQ_V_REJUDGED);
	assert_int_equal(roce_seq_rejudged(&d, 0, &r), 1);
	assert_int_equal(r.req_id, 2);
	assert_int_equal(r.flags, ROCE_SEQ_V_OUT_OF_SEQ | ROCE_SEQ_V_OOS_START);
	assert_int_equal(r.expected_psn, 60);
	assert_int_equal(roce_seq_rejudged(&d, 1, &r), 1);
	assert_int_equal(r.req_id, 3);
	assert_int_equal(r.flags, ROCE_SEQ_V_OUT_OF_SEQ);
	assert_int_equal(roce_seq_rejudged(&d, 2, &r), 0);

	/* an RNR NAK for the latest request re-judges nothing */
	roce_seq_init(&d, 1024, &blk);
	rq(&d, send_only(70, 1), T0, &v);
	assert_false(rs(&d, ack_pkt(70, 0x20 | 12), T0 + US, &v) & ROCE_SEQ_V_REJUDGED);
	assert_int_equal(roce_seq_rejudged(&d, 0, &r), 0);
}

/* Silence before a resend: a timeout, with the gap and its exponent. */
static void test_timeout(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	rq(&d, send_only(7, 1), T0, &v);
	rq(&d, send_only(7, 1), T0 + 67109 * US, &v);     /* 4.096 us * 2^14 */
	assert_true(HAS(v.flags, ROCE_SEQ_V_RETRANS | ROCE_SEQ_V_EPISODE | ROCE_SEQ_V_DUPLICATE));
	assert_int_equal(v.trigger, ROCE_SEQ_TRIG_TIMEOUT);
	assert_int_equal(v.gap_us, 67109);
	assert_int_equal(v.timeout_exp, 14);
	rq(&d, send_only(8, 1), T0 + 67200 * US, &v);
	rq(&d, send_only(8, 1), T0 + 67300 * US, &v);     /* 100 us: a copy, not a timeout */
	assert_int_equal(v.trigger, ROCE_SEQ_TRIG_OTHER);
	assert_int_equal(d.x->episodes[ROCE_SEQ_TRIG_TIMEOUT], 1);
	assert_int_equal(d.x->episodes[ROCE_SEQ_TRIG_OTHER], 1);
	assert_int_equal(d.x->timeout_gap_max_us, 67109);
	assert_int_equal(roce_seq_scheme(&d), ROCE_SEQ_SCHEME_TIMEOUT_ONLY);
}

/* READ responses that skip a PSN: an implied NAK; the READ re-issued from
 * the gap is a duplicate for the responder and an implied-NAK episode. */
static void test_implied_nak(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	rq(&d, mk(0, ROCE_OP_READ_REQUEST, 10, 0, 1, 0, 3072, 0), T0, &v);
	rs(&d, mk(1, ROCE_OP_READ_RESP_FIRST, 10, 1024, 0, 0x1f, 0, 0), T0 + US, &v);
	assert_true(HAS(rs(&d, mk(1, ROCE_OP_READ_RESP_LAST, 12, 1024, 0, 0x1f, 0, 0), T0 + 2 * US, &v),
			ROCE_SEQ_V_IMPLIED_NAK));
	assert_int_equal(v.missing, 1);
	assert_true(HAS(rq(&d, mk(0, ROCE_OP_READ_REQUEST, 11, 0, 1, 0, 2048, 0), T0 + 3 * US, &v),
			ROCE_SEQ_V_DUPLICATE | ROCE_SEQ_V_RETRANS | ROCE_SEQ_V_EPISODE));
	assert_int_equal(v.trigger, ROCE_SEQ_TRIG_IMPLIED);
	assert_int_equal(d.x->implied_nak, 1);
}

/* Coalesced ACK: one RTT sample, from the PSN it names. */
static void test_rtt_coalesced(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	rq(&d, send_only(1, 1), T0, &v);
	rq(&d, send_only(2, 1), T0 + 3 * US, &v);
	rq(&d, send_only(3, 1), T0 + 4 * US, &v);
	rs(&d, ack_pkt(3, 0x1f), T0 + 20 * US, &v);
	assert_true(v.flags & ROCE_SEQ_V_RTT);
	assert_int_equal(v.acked_psn, 3);
	assert_int_equal(v.rtt_us, 16);
	assert_int_equal(d.rtt.n, 1);
	/* an ACK for nothing new: no second sample */
	rs(&d, ack_pkt(3, 0x1f), T0 + 21 * US, &v);
	assert_true(v.flags & ROCE_SEQ_V_DUP_ACK);
	assert_false(v.flags & ROCE_SEQ_V_RTT);
	assert_int_equal(d.rtt.n, 1);
	/* a response beyond anything asked */
	rs(&d, ack_pkt(9, 0x1f), T0 + 22 * US, &v);
	assert_true(v.flags & ROCE_SEQ_V_UNSOLICITED);
}

/* Bad ICRC: counted, not analysed (the responder drops it). */
static void test_icrc_bad_and_ecn(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	rq(&d, send_only(1, 0), T0, &v);
	assert_int_equal(roce_seq_request(&d, send_only(5, 0), T0 + US, ROCE_SEQ_IN_ICRC_BAD, sp(), &v), 0);
	assert_true(v.flags & ROCE_SEQ_V_ICRC_BAD);
	assert_true(rq(&d, send_only(2, 0), T0 + 2 * US, &v) & ROCE_SEQ_V_IN_ORDER);
	assert_int_equal(d.icrc_bad, 1);
	assert_int_equal(d.requests, 2);
	assert_null(d.x);
	assert_true(rq(&d, mk(0, ROCE_OP_SEND_ONLY, 3, 8, 0, 0, 0, 3), T0 + 3 * US, &v) & ROCE_SEQ_V_ECN_CE);
	assert_int_equal(d.ecn_ce, 1);
	assert_int_equal(roce_seq_response(&d, mk(1, ROCE_OPCODE_CNP, 0, 0, 0, 0, 0, 2), T0, 0, sp(), &v), 0);
	assert_true(v.flags & ROCE_SEQ_V_CNP);
	assert_int_equal(d.cnp, 1);
	/* the wrong kind of packet for each call */
	assert_int_equal(roce_seq_request(&d, ack_pkt(1, 0x1f), T0, 0, sp(), &v), -1);
	assert_int_equal(roce_seq_response(&d, send_only(1, 0), T0, 0, sp(), &v), -1);
}

/* More holes than slots: the oldest is given up on, nothing is lost. */
static void test_holes_overflow(void **st)
{
	struct roce_seq_dir d;
	struct roce_seq_verdict v;
	uint32_t p = 0;

	(void)st;
	roce_seq_init(&d, 1024, NULL);
	for (int i = 0; i < ROCE_SEQ_HOLES + 3; i++, p += 2)
		rq(&d, send_only(p, 0), T0 + (uint64_t)i * US, &v);   /* skip every odd PSN */
	assert_int_equal(d.x->psn_gaps, ROCE_SEQ_HOLES + 2);
	assert_int_equal(roce_seq_missing(&d), ROCE_SEQ_HOLES + 2);
	assert_int_equal(d.x->missing_closed, 2);
	/* the newest hole can still be filled; the oldest no longer */
	assert_true(rq(&d, send_only(p - 3, 0), T0 + 100 * US, &v) & ROCE_SEQ_V_OUT_OF_ORDER);
	assert_true(rq(&d, send_only(1, 0), T0 + 101 * US, &v) & ROCE_SEQ_V_RETRANS);
	assert_int_equal(roce_seq_missing(&d), ROCE_SEQ_HOLES + 1);
	/* the highest so far is p - 2: a jump to p + 300 skips 301 PSNs, 255 kept
	 * as a hole, 46 given up at once */
	rq(&d, send_only(p + 300, 0), T0 + 200 * US, &v);
	assert_int_equal(v.missing, 301);
	assert_int_equal(roce_seq_missing(&d), ROCE_SEQ_HOLES + 1 + 301);
	assert_int_equal(d.x->missing_closed, 2 + 46);
}

/* Side dispatch of a connection. */
static void test_conn_update(void **st)
{
	struct roce_seq_conn c;
	struct roce_seq_verdict v;

	(void)st;
	roce_seq_conn_init(&c, 1024);
	assert_int_equal(roce_seq_update(&c, 0, send_only(40, 1), T0, 0, sp(), &v), 0);
	roce_rtt_packet(R, &c.d[0], &F.p, T0, &v);
	assert_int_equal(roce_seq_update(&c, 1, ack_pkt(40, 0x1f), T0 + 4 * US, 0, sp(), &v), 0);
	roce_rtt_packet(R, &c.d[0], &F.p, T0 + 4 * US, &v);
	assert_int_equal(c.d[0].requests, 1);
	assert_int_equal(c.d[0].acks, 1);
	assert_int_equal(c.d[1].requests, 0);
	assert_int_equal(c.d[1].acks, 0);
	assert_int_equal(v.rtt_us, 4);
	assert_int_equal(roce_seq_update(&c, 0, mk(0, ROCE_TR_UD | ROCE_OP_SEND_ONLY, 1, 8, 0, 0, 0, 0), T0, 0,
					 sp(), &v), -1);
}

static void test_names(void **st)
{
	(void)st;
	assert_string_equal(roce_seq_ulp_name(0x0000000001060000ull | 4420), "NVMe-oF");
	assert_string_equal(roce_seq_ulp_name(0x0000000001060000ull | 445), "SMB Direct");
	assert_string_equal(roce_seq_ulp_name(0x0000000001060000ull | 20049), "NFS/RDMA");
	assert_string_equal(roce_seq_ulp_name(0x0000000001060000ull | 7174), "rping");
	assert_null(roce_seq_ulp_name(0x0000000001060000ull | 1));
	assert_null(roce_seq_ulp_name(0x1000000001060000ull | 4420));
	assert_string_equal(roce_seq_trigger_name(ROCE_SEQ_TRIG_IMPLIED), "implied_nak");
	assert_string_equal(roce_seq_scheme_name(ROCE_SEQ_SCHEME_GO_BACK_N), "go-back-N");
	assert_int_equal(roce_seq_mtu_code(4096), 5);
	assert_int_equal(roce_seq_mtu_code(1500), 0);
	assert_int_equal(roce_seq_mtu_bytes(1), 256);
	/* the per-flow state stays small (the analyzer's 256-byte budget) */
	assert_true(sizeof(struct roce_seq_dir) <= 160);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_classify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_order_no_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_responder_and_wire, setup, teardown),
		cmocka_unit_test_setup_teardown(test_psn_wrap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_continues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ib_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_span, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mtu_inferred, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mtu_not_inferred_from_loss, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_implied_nak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_episode_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mtu_from_response, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nak_go_back_n, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selective, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rnr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rnr_rejudge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rnr_rejudge_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_implied_nak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rtt_coalesced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_icrc_bad_and_ecn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holes_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conn_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
