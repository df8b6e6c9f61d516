/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/link/ib.c and erf.c: native IB packets built by
 * roce_build_ib() decode with the LRH values, ICRC and VCRC good, and a
 * flipped byte makes them bad; every truncation length of an IB packet and
 * of ERF records decodes without over-reading, never calls a CRC bad, and
 * marks the frame truncated; ERF Ethernet FCS is checked and stripped;
 * malformed LRH and ERF headers are invalid.
 */
#include "testutil.h"
#include "roce.h"

static uint8_t pay[300];

static int build_ib(uint8_t *f, size_t cap, uint8_t op, int grh)
{
	struct roce_frame_spec s;
	struct roce_lrh_spec l = { .vl = 1, .sl = 5, .dlid = 0x1234, .slid = 0x0042, .grh = (uint8_t)grh };

	memset(&s, 0, sizeof s);
	s.version = ROCE_VER_V1;
	s.ip.version = 6;
	s.ip.src[0] = 0xfe; s.ip.src[1] = 0x80; s.ip.src[15] = 1;
	s.ip.dst[0] = 0xfe; s.ip.dst[1] = 0x80; s.ip.dst[15] = 2;
	s.bth.opcode = op;
	s.bth.dqpn = 0x1234;
	s.bth.psn = 77;
	s.bth.pad = -1;
	s.payload = pay;
	s.payload_len = 201;
	return roce_build_ib(f, cap, &s, &l);
}

static void test_ib_round_trip(void **st)
{
	uint8_t f[1024];

	(void)st;
	for (int grh = 0; grh < 2; grh++) {
		struct roce_pkt p;
		int n = build_ib(f, sizeof f, 0x04, grh);

		assert_true(n > 0);
		assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, f, (uint32_t)n, (uint32_t)n), ROCE_OK);
		assert_int_equal(p.version, ROCE_VER_IB);
		assert_int_equal(p.slid, 0x42);
		assert_int_equal(p.dlid, 0x1234);
		assert_int_equal(p.sl, 5);
		assert_int_equal(p.vl, 1);
		assert_int_equal(p.lnh, grh ? 3 : 2);
		assert_int_equal(p.pktlen * 4 + 2, n);
		assert_int_equal(p.psn, 77);
		assert_int_equal(p.payload_len, 201);
		assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
		assert_int_equal(roce_vcrc_verify(&p, NULL), ROCE_ICRC_GOOD);
		/* VL is not covered by the ICRC, but by the VCRC */
		f[0] ^= 0x30;
		roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, f, (uint32_t)n, (uint32_t)n);
		assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
		assert_int_equal(roce_vcrc_verify(&p, NULL), ROCE_ICRC_BAD);
		f[0] ^= 0x30;
		f[n - 20] ^= 1;  /* payload */
		roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, f, (uint32_t)n, (uint32_t)n);
		assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_BAD);
	}
}

static void decode_all_lengths(int lt, const uint8_t *f, uint32_t n)
{
	for (uint32_t cap = 0; cap <= n; cap++) {
		uint8_t *b = test_exact_copy(f, cap);
		struct roce_pkt p;
		char line[300];
		int rc = roce_decode(&p, NULL, lt, b, cap, n);

		roce_summary(&p, line, sizeof line);
		assert_int_not_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_BAD);
		assert_int_not_equal(roce_vcrc_verify(&p, NULL), ROCE_ICRC_BAD);
		if (cap < n)
			assert_int_equal(rc, ROCE_ETRUNC);
		else
			assert_int_equal(rc, ROCE_OK);
		free(b);
	}
}

static void test_truncation(void **st)
{
	uint8_t f[1024], r[1200];
	int n, m;

	(void)st;
	n = build_ib(f, sizeof f, 0x0a, 1);
	decode_all_lengths(ROCE_LINK_INFINIBAND, f, (uint32_t)n);
	m = roce_build_erf(r, sizeof r, 21, 5ull << 32, 3, f, (uint32_t)n, (uint32_t)n);
	assert_int_equal(m, n + 16);
	decode_all_lengths(ROCE_LINK_ERF, r, (uint32_t)m);
}

static void test_erf_eth(void **st)
{
	struct roce_frame_spec s;
	uint8_t f[512], r[600];
	struct roce_pkt p;
	int n, m;

	(void)st;
	memset(&s, 0, sizeof s);
	s.version = ROCE_VER_V2;
	s.ip.version = 4;
	s.bth.opcode = 0x04;
	s.bth.pad = -1;
	s.payload = pay;
	s.payload_len = 100;
	n = roce_build(f, sizeof f, &s);
	m = roce_build_erf(r, sizeof r, 2, 1ull << 32, 9, f, (uint32_t)n, (uint32_t)n + 4);
	assert_int_equal(m, 16 + 2 + n + 4);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ERF, r, (uint32_t)m, (uint32_t)m), ROCE_OK);
	assert_int_equal(p.linktype, ROCE_LINK_ETHERNET);
	assert_int_equal(p.wirelen, n);           /* FCS stripped */
	assert_int_equal(p.erf.fcs_status, ROCE_ICRC_GOOD);
	assert_int_equal(p.erf.lctr, 9);
	assert_int_equal(p.erf.wlen, n + 4);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	r[m - 1] ^= 1;
	roce_decode(&p, NULL, ROCE_LINK_ERF, r, (uint32_t)m, (uint32_t)m);
	assert_int_equal(p.erf.fcs_status, ROCE_ICRC_BAD);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_GOOD);
	decode_all_lengths(ROCE_LINK_ERF, r, (uint32_t)m);
	/* truncated record: flag set, ICRC unchecked */
	m = roce_build_erf(r, sizeof r, 2, 0, 0, f, (uint32_t)n, 60);
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ERF, r, (uint32_t)m, (uint32_t)m), ROCE_ETRUNC);
	assert_true(p.erf.flags & 0x08);
	assert_int_equal(roce_icrc_verify(&p, NULL), ROCE_ICRC_UNCHECKED);
}

static void test_invalid(void **st)
{
	uint8_t f[1024], r[1200];
	struct roce_pkt p;
	int n, m;

	(void)st;
	n = build_ib(f, sizeof f, 0x04, 0);
	f[5] ^= 0x10;    /* PktLen */
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, f, (uint32_t)n, (uint32_t)n), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_LRH));
	f[5] ^= 0x10;
	m = roce_build_erf(r, sizeof r, 21, 0, 0, f, (uint32_t)n, (uint32_t)n);
	r[8] = 99;       /* unknown ERF type */
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ERF, r, (uint32_t)m, (uint32_t)m), ROCE_EINVAL);
	assert_true(p.invalid & ROCE_LBIT(ROCE_L_ERF));
	r[8] = 21 | 0x80;  /* an extension header that is not there in full */
	assert_int_equal(roce_decode(&p, NULL, ROCE_LINK_ERF, r, 20, (uint32_t)m), ROCE_ETRUNC);
	assert_int_equal(roce_build_erf(r, sizeof r, 7, 0, 0, f, 10, 10), ROCE_EARG);
	assert_int_equal(roce_build_erf(r, 10, 21, 0, 0, f, (uint32_t)n, (uint32_t)n), ROCE_ENOSPC);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_ib_round_trip),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_erf_eth),
		cmocka_unit_test(test_invalid),
	};
	for (unsigned i = 0; i < sizeof pay; i++)
		pay[i] = (uint8_t)(i * 13 + 1);
	return cmocka_run_group_tests(t, NULL, NULL);
}
