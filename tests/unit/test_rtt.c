/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/analysis/rtt.c: the RTT of every request.  The engine reads only the
 * opcode and PSN of a packet and the flags of its verdict, so the tests hand
 * it those directly; the expected samples follow from the rule in rtt.h.
 */
#include "testutil.h"
#include "roce.h"
#include "seq.h"
#include "rtt.h"

#define US 1000ull

static struct roce_rtt *R;
static struct roce_pkt P;
static struct roce_seq_verdict V;

static int setup(void **st)
{
	(void)st;
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

/* One packet of direction d: op (RC opcode), psn, verdict flags, time. */
static uint32_t pk(struct roce_seq_dir *d, uint8_t op, uint32_t psn, uint32_t flags, uint64_t ns)
{
	memset(&P, 0, sizeof P);
	memset(&V, 0, sizeof V);
	P.opcode = op;
	P.psn = psn;
	V.flags = flags;
	roce_rtt_packet(R, d, &P, ns, &V);
	return V.flags;
}

static void req(struct roce_seq_dir *d, uint32_t psn, uint64_t ns)
{
	pk(d, ROCE_OP_SEND_ONLY, psn, ROCE_SEQ_V_REQUEST, ns);
}

static uint32_t ack(struct roce_seq_dir *d, uint32_t psn, uint64_t ns)
{
	return pk(d, ROCE_OP_ACK, psn, ROCE_SEQ_V_RESPONSE | ROCE_SEQ_V_ACK, ns);
}

static uint64_t outstanding(void)
{
	struct roce_rtt_totals t;

	roce_rtt_totals(R, &t);
	return t.outstanding;
}

static void test_buckets(void **st)
{
	unsigned prev = 0;

	(void)st;
	for (uint64_t v = 0; v < 300000; v += v < 1000 ? 1 : 997) {
		unsigned b = roce_rtt_bucket(v);
		uint64_t lo = roce_rtt_bucket_lo(b), w = roce_rtt_bucket_width(b);

		assert_true(lo <= v && v < lo + w);
		assert_true(b >= prev);
		if (v >= 128)
			assert_true(w * 128 <= lo);       /* width <= 1/128 of the value */
		prev = b;
	}
	assert_int_equal(roce_rtt_bucket(127), 127);
	assert_int_equal(roce_rtt_bucket(128), 128);
	assert_true(roce_rtt_bucket(UINT64_MAX) < 65536);
}

/* Every request answered by its own ACK gives a sample; exact n/min/max/sum;
 * nearest-rank quantiles within the bucket error. */
static void test_every_request(void **st)
{
	struct roce_seq_dir d;
	uint64_t q, t = 0, sum = 0;

	(void)st;
	memset(&d, 0, sizeof d);
	for (uint32_t i = 1; i <= 100; i++) {
		req(&d, i, t);
		assert_true(ack(&d, i, t + i * US) & ROCE_SEQ_V_RTT);
		assert_int_equal(V.rtt_ns, i * US);
		assert_int_equal(V.rtt_us, i);
		assert_int_equal(V.acked_psn, i);
		sum += i * US;
		t += 1000 * US;
	}
	assert_int_equal(d.rtt.n, 100);
	assert_int_equal(d.rtt.min_ns, 1 * US);
	assert_int_equal(d.rtt.max_ns, 100 * US);
	assert_int_equal(d.rtt.sum_ns, sum);
	assert_int_equal(roce_rtt_quantile(R, &d, ROCE_RTT_ACK, 0.5, &q), 0);
	assert_int_equal(q, 50 * US);                     /* whole microseconds stay whole */
	assert_int_equal(roce_rtt_quantile(R, &d, ROCE_RTT_ACK, 0.99, &q), 0);
	assert_int_equal(q, 99 * US);
	assert_int_equal(roce_rtt_quantile(R, &d, ROCE_RTT_ACK, 1, &q), 0);
	assert_int_equal(q, 100 * US);
	assert_int_equal(roce_rtt_count_le(R, &d, ROCE_RTT_ACK, 10 * US), 10);
	assert_int_equal(roce_rtt_quantile(R, &d, ROCE_RTT_READ, 0.5, &q), -1);   /* no READ samples */
	assert_int_equal(outstanding(), 0);
}

/* Sub-microsecond samples: the quantile is a bucket midpoint, within 0.4 %. */
static void test_ns_quantiles(void **st)
{
	struct roce_seq_dir d;
	uint64_t q;

	(void)st;
	memset(&d, 0, sizeof d);
	for (uint32_t i = 0; i < 1000; i++) {
		req(&d, i, (uint64_t)i * 1000000);
		ack(&d, i, (uint64_t)i * 1000000 + 100000 + i * 37);
	}
	assert_int_equal(d.rtt.n, 1000);
	assert_int_equal(roce_rtt_quantile(R, &d, ROCE_RTT_ACK, 0.5, &q), 0);
	/* rank 500: 100000 + 499 * 37 */
	assert_true(q * 1000 >= (100000 + 499 * 37) * 996ull && q * 1000 <= (100000 + 499 * 37) * 1004ull);
}

/* Karn: a PSN sent twice never samples; a repeated ACK samples once. */
static void test_karn_and_repeats(void **st)
{
	struct roce_seq_dir d;

	(void)st;
	memset(&d, 0, sizeof d);
	req(&d, 5, 0);
	req(&d, 5, 10 * US);                               /* resent before any answer */
	assert_false(ack(&d, 5, 20 * US) & ROCE_SEQ_V_RTT);
	req(&d, 6, 30 * US);
	assert_true(ack(&d, 6, 40 * US) & ROCE_SEQ_V_RTT);
	assert_false(ack(&d, 6, 41 * US) & ROCE_SEQ_V_RTT);  /* the same ACK again */
	/* resent after its answer: the seq engine flags it, nothing waits */
	pk(&d, ROCE_OP_SEND_ONLY, 6, ROCE_SEQ_V_REQUEST | ROCE_SEQ_V_RETRANS, 50 * US);
	assert_false(ack(&d, 6, 60 * US) & ROCE_SEQ_V_RTT);
	assert_int_equal(d.rtt.n, 1);
	assert_int_equal(d.rtt.min_ns, 10 * US);
	assert_int_equal(outstanding(), 0);
	/* bad ICRC: not seen at all */
	pk(&d, ROCE_OP_SEND_ONLY, 7, ROCE_SEQ_V_REQUEST | ROCE_SEQ_V_ICRC_BAD, 70 * US);
	assert_int_equal(outstanding(), 0);
}

/* A coalesced ACK samples the PSN it names; the ones before leave unsampled. */
static void test_coalesced(void **st)
{
	struct roce_seq_dir d;

	(void)st;
	memset(&d, 0, sizeof d);
	for (uint32_t i = 1; i <= 5; i++)
		req(&d, i, i * US);
	assert_int_equal(outstanding(), 5);
	assert_true(ack(&d, 5, 20 * US) & ROCE_SEQ_V_RTT);
	assert_int_equal(V.acked_psn, 5);
	assert_int_equal(V.rtt_us, 15);
	assert_int_equal(outstanding(), 0);
	assert_false(ack(&d, 3, 21 * US) & ROCE_SEQ_V_RTT);   /* late ACK of a covered PSN */
	assert_int_equal(d.rtt.n, 1);
}

/* NAKs and RNR NAKs give no sample; what precedes their PSN is answered. */
static void test_naks(void **st)
{
	struct roce_seq_dir d;

	(void)st;
	memset(&d, 0, sizeof d);
	for (uint32_t i = 10; i < 14; i++)
		req(&d, i, i * US);
	assert_false(pk(&d, ROCE_OP_ACK, 12, ROCE_SEQ_V_RESPONSE | ROCE_SEQ_V_NAK, 30 * US) &
		     (ROCE_SEQ_V_RTT | ROCE_SEQ_V_READ_RTT));
	assert_int_equal(outstanding(), 2);                /* 12 and 13 wait */
	assert_false(pk(&d, ROCE_OP_ACK, 12, ROCE_SEQ_V_RESPONSE | ROCE_SEQ_V_RNR_NAK, 31 * US) &
		     ROCE_SEQ_V_RTT);
	assert_int_equal(d.rtt.n, 0);
	assert_true(ack(&d, 13, 40 * US) & ROCE_SEQ_V_RTT);
	assert_int_equal(V.rtt_us, 27);
}

/* READ: the first response samples read_rtt; ATOMIC ACK samples rtt. */
static void test_read_and_atomic(void **st)
{
	struct roce_seq_dir d;

	(void)st;
	memset(&d, 0, sizeof d);
	pk(&d, ROCE_OP_READ_REQUEST, 100, ROCE_SEQ_V_REQUEST, 0);
	assert_false(ack(&d, 100, 1 * US) & ROCE_SEQ_V_RTT);   /* an ACK does not answer a READ */
	assert_true(pk(&d, ROCE_OP_READ_RESP_FIRST, 100, ROCE_SEQ_V_RESPONSE, 9 * US) & ROCE_SEQ_V_READ_RTT);
	assert_int_equal(V.rtt_us, 9);
	assert_false(pk(&d, ROCE_OP_READ_RESP_MIDDLE, 101, ROCE_SEQ_V_RESPONSE, 10 * US) & ROCE_SEQ_V_READ_RTT);
	assert_false(pk(&d, ROCE_OP_READ_RESP_LAST, 102, ROCE_SEQ_V_RESPONSE, 11 * US) & ROCE_SEQ_V_READ_RTT);
	pk(&d, ROCE_OP_CMP_SWAP, 103, ROCE_SEQ_V_REQUEST, 20 * US);
	assert_true(pk(&d, ROCE_OP_ATOMIC_ACK, 103, ROCE_SEQ_V_RESPONSE | ROCE_SEQ_V_ACK, 27 * US) &
		    ROCE_SEQ_V_RTT);
	assert_int_equal(V.rtt_us, 7);
	assert_int_equal(d.read_rtt.n, 1);
	assert_int_equal(d.rtt.n, 1);
	assert_int_equal(outstanding(), 0);
}

/* The cap: unanswered requests are dropped (counted) and the table stays
 * bounded; histograms are evicted (counted), their n/min/max/sum kept. */
static void test_cap(void **st)
{
	struct roce_seq_dir d[64];
	struct roce_rtt_totals t;
	uint64_t q;
	unsigned lost = 0;
	uint64_t mx = 0, mn = UINT64_MAX;

	(void)st;
	roce_rtt_free(R);
	R = roce_rtt_new(20 << 10);
	assert_non_null(R);
	memset(d, 0, sizeof d);
	for (uint32_t i = 0; i < 100000; i++)                 /* one way only: never answered */
		req(&d[0], i, (uint64_t)i * US);
	roce_rtt_totals(R, &t);
	assert_true(t.requests_evicted > 0);
	assert_true(t.outstanding + t.requests_evicted == 100000);
	assert_true(t.mem_peak <= 20 << 10);
	for (unsigned k = 1; k < 64; k++)
		for (uint32_t i = 0; i < 50; i++) {
			uint64_t r = (i * 131 % 97 + 1) * US;

			req(&d[k], i, 1000000 * US + i * 100 * US);
			ack(&d[k], i, 1000000 * US + i * 100 * US + r);
			mx = r > mx ? r : mx;
			mn = r < mn ? r : mn;
		}
	roce_rtt_totals(R, &t);
	assert_true(t.histograms_evicted > 0);
	assert_true(t.mem_bytes <= 20 << 10);
	for (unsigned k = 1; k < 64; k++) {
		assert_int_equal(d[k].rtt.n, 50);
		assert_int_equal(d[k].rtt.min_ns, mn);
		assert_int_equal(d[k].rtt.max_ns, mx);
		lost += roce_rtt_quantile(R, &d[k], ROCE_RTT_ACK, 0.5, &q) != 0;
	}
	assert_int_equal(lost, t.histograms_evicted);
	/* a direction that goes away frees its histogram */
	for (unsigned k = 1; k < 64; k++)
		roce_rtt_drop(R, &d[k]);
	roce_rtt_totals(R, &t);
	assert_int_equal(t.histograms, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test_setup_teardown(test_every_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ns_quantiles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_karn_and_repeats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coalesced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_naks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_and_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
